/*
 * store.c - runs, spans and claim results in SQLite (see store.h).
 *
 * Every SQLite call goes through a few wrappers that turn a failure into an
 * hd_err naming the call and carrying SQLite's own message.  Schema changes
 * are a table of migrations: migrations[i] takes user_version i to i + 1, and
 * runs inside the same transaction that bumps the version, so a database is
 * always at one whole version.  A migration is never edited once released:
 * a change to the schema is a new entry.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/paths.h"
#include "store/store.h"

struct hd_store {
	sqlite3 *db;
	char *path;
	enum hd_store_mode mode;
};

/* migrations[i] brings a database from user_version i to i + 1. */
static const char *const migrations[] = {
	/* 0 -> 1: the first schema. */
	"CREATE TABLE machines ("
	"  id INTEGER PRIMARY KEY,"
	"  hostname TEXT, gpu_name TEXT, gpu_uuid TEXT, pci_bus_id TEXT,"
	"  driver TEXT, cuda_runtime TEXT, nccl TEXT, gpu_count INTEGER,"
	"  facts TEXT,"
	"  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
	"  UNIQUE (hostname, gpu_uuid, driver, cuda_runtime, nccl, facts));"
	"CREATE TABLE profiles ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL,"
	"  text TEXT NOT NULL,"
	"  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
	"  UNIQUE (name, text));"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  lesson TEXT NOT NULL, scenario TEXT NOT NULL,"
	"  params TEXT NOT NULL DEFAULT '{}',"
	"  backend TEXT NOT NULL CHECK (backend IN ('sim', 'cuda')),"
	"  source TEXT NOT NULL CHECK (source IN ('predicted', 'measured')),"
	"  profile_id INTEGER REFERENCES profiles(id),"
	"  machine_id INTEGER REFERENCES machines(id),"
	"  pair_run INTEGER REFERENCES runs(id) ON DELETE SET NULL,"
	"  version TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'interrupted')),"
	"  makespan_ps INTEGER NOT NULL,"
	"  warmup INTEGER NOT NULL DEFAULT 0, repeats INTEGER NOT NULL DEFAULT 1,"
	"  timer TEXT, note TEXT,"
	"  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));"
	"CREATE INDEX runs_lesson ON runs (lesson, scenario);"
	"CREATE TABLE lanes ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL, kind TEXT NOT NULL, rank INTEGER NOT NULL,"
	"  stream INTEGER NOT NULL, name TEXT NOT NULL,"
	"  PRIMARY KEY (run_id, idx));"
	"CREATE TABLE spans ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  seq INTEGER NOT NULL,"
	"  lane INTEGER NOT NULL, op INTEGER NOT NULL, iter INTEGER NOT NULL,"
	"  kind TEXT NOT NULL, why TEXT,"
	"  start_ps INTEGER NOT NULL, end_ps INTEGER NOT NULL, spread_ps INTEGER,"
	"  device INTEGER NOT NULL, stream INTEGER, bytes INTEGER NOT NULL,"
	"  copy_kind TEXT, label TEXT,"
	"  PRIMARY KEY (run_id, seq),"
	"  FOREIGN KEY (run_id, lane) REFERENCES lanes(run_id, idx));"
	"CREATE INDEX spans_op ON spans (run_id, op, iter);"
	"CREATE TABLE claim_results ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL, text TEXT NOT NULL, expr TEXT NOT NULL,"
	"  outcome TEXT NOT NULL CHECK (outcome IN ('holds', 'fails', 'unchecked')),"
	"  lhs REAL, rhs REAL, detail TEXT,"
	"  PRIMARY KEY (run_id, idx));",
	/* 1 -> 2: learners and their answers to lessons' questions.  Every answer
	 * is kept (a learner may answer again); progress_latest is the newest one
	 * per learner, lesson and question, the row a gradebook export wants. */
	"CREATE TABLE learners ("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL UNIQUE CHECK (length(name) > 0),"
	"  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));"
	"CREATE TABLE progress ("
	"  id INTEGER PRIMARY KEY,"
	"  learner_id INTEGER NOT NULL REFERENCES learners(id) ON DELETE CASCADE,"
	"  lesson TEXT NOT NULL CHECK (length(lesson) > 0),"
	"  question TEXT NOT NULL CHECK (length(question) > 0),"
	"  answer TEXT NOT NULL,"
	"  correct INTEGER CHECK (correct IN (0, 1)),"
	"  confidence INTEGER CHECK (confidence BETWEEN 1 AND 5),"
	"  seconds REAL NOT NULL CHECK (seconds >= 0),"
	"  hints INTEGER NOT NULL DEFAULT 0 CHECK (hints >= 0),"
	"  profile TEXT,"
	"  version TEXT NOT NULL,"
	"  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));"
	"CREATE INDEX progress_key ON progress (learner_id, lesson, question, id);"
	"CREATE VIEW progress_latest AS"
	"  SELECT l.name AS learner, p.* FROM progress p JOIN learners l ON l.id = p.learner_id"
	"  WHERE p.id = (SELECT max(q.id) FROM progress q WHERE q.learner_id = p.learner_id"
	"    AND q.lesson = p.lesson AND q.question = p.question);",
};

_Static_assert(HD_ARRAY_LEN(migrations) == HD_STORE_SCHEMA,
	       "one migration per schema version");

/* Turn the last SQLite failure into e, naming the call. */
static void
fail(struct hd_store *s, struct hd_err *e, const char *call)
{
	const char *where = s && s->path ? s->path : "database";

	hd_err_set(e, HD_EXIT_INPUT, where, "%s failed: %s", call,
		   s && s->db ? sqlite3_errmsg(s->db) : "out of memory");
}

static int
exec(struct hd_store *s, const char *sql, const char *what, struct hd_err *e)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "sqlite3_exec(%s) failed: %s", what,
			   msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Run a one-row, one-integer query. */
static int
query_int(struct hd_store *s, const char *sql, int64_t *out, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, sql);
		return -1;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		fail(s, e, sql);
		sqlite3_finalize(st);
		return -1;
	}
	*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

char *
hd_store_default_path(void)
{
	return hd_paths_data("hdsim.db");
}

/* mkdir -p of the folder that will hold path. */
static int
make_parent(const char *path, struct hd_err *e)
{
	char *dir = hd_xstrdup(path), *slash = strrchr(dir, '/');
	struct hd_err why = { 0 };
	int rc = 0;

	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (hd_paths_mkdir_p(dir, 0700, &why) != 0) {
			hd_err_set(e, HD_EXIT_INPUT, path, "cannot create folder %s: %s",
				   why.where, strerror(errno));
			rc = -1;
		}
	}
	free(dir);
	return rc;
}

/*
 * Write-ahead logging (it stays set in the file).  Switching needs the file
 * to itself, and SQLite reports a process opening it at that moment as busy
 * without waiting: try again, for up to the busy timeout.
 */
static int
set_wal(struct hd_store *s, struct hd_err *e)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) == SQLITE_OK)
			return 0;
		if ((sqlite3_errcode(s->db) & 0xff) != SQLITE_BUSY)
			break;
		sqlite3_sleep(10);
	}
	return exec(s, "PRAGMA journal_mode = WAL", "PRAGMA journal_mode", e);
}

/* PRAGMA quick_check (structure, not index contents: linear in the file's
 * size, milliseconds for a term's runs): 0, or -1 with e naming the damage. */
static int
intact(struct hd_store *s, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	const char *ok;
	int rc;

	if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "the database is damaged (%s); it was "
			   "left untouched: move it aside, or restore a copy",
			   sqlite3_errmsg(s->db));
		return -1;
	}
	rc = sqlite3_step(st);
	ok = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (ok == NULL || strcmp(ok, "ok") != 0) {
		char what[200], *p;

		/* quick_check's report spans lines: one line for the message */
		snprintf(what, sizeof what, "%s", ok ? ok : sqlite3_errmsg(s->db));
		for (p = what; *p != '\0'; p++)
			if (*p == '\n')
				*p = ' ';
		hd_err_set(e, HD_EXIT_INPUT, s->path, "the database is damaged (%s); it was "
			   "left untouched: move it aside, or restore a copy", what);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

/* Bring the schema to HD_STORE_SCHEMA, or refuse a file that is not ours. */
static int
migrate(struct hd_store *s, struct hd_err *e)
{
	int64_t app, version, tables;
	char sql[96];

	/* One read transaction: another process may be creating the file, and
	 * the three must describe the same moment (not an empty header read
	 * before its commit and a table count after). */
	if (exec(s, "BEGIN", "BEGIN", e) != 0)
		return -1;
	if (query_int(s, "PRAGMA application_id", &app, e) != 0 ||
	    query_int(s, "PRAGMA user_version", &version, e) != 0 ||
	    query_int(s, "SELECT count(*) FROM sqlite_master", &tables, e) != 0) {
		if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_CORRUPT)
			hd_err_set(e, HD_EXIT_INPUT, s->path, "the database is damaged (%s); it "
				   "was left untouched: move it aside, or restore a copy",
				   sqlite3_errmsg(s->db));
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (exec(s, "COMMIT", "COMMIT", e) != 0)
		return -1;
	if (app != HD_STORE_APP_ID && !(app == 0 && version == 0 && tables == 0)) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "this SQLite file is not an hdsim database (application_id %lld); "
			   "it was left untouched", (long long)app);
		return -1;
	}
	/* A damaged file is not written to: a write that happens to miss the
	 * damaged pages would commit, and the next checkpoint would rewrite it. */
	if (tables > 0 && intact(s, e) != 0)
		return -1;
	if (version > HD_STORE_SCHEMA) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "the database has schema version %lld, newer than this hdsim "
			   "understands (%d); use a newer hdsim", (long long)version,
			   HD_STORE_SCHEMA);
		return -1;
	}
	if (version == HD_STORE_SCHEMA)
		return 0;
	if (s->mode == HD_STORE_RO) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "the database has schema version %lld and needs upgrading to %d, "
			   "which a read-only open cannot do", (long long)version, HD_STORE_SCHEMA);
		return -1;
	}
	if (exec(s, "BEGIN IMMEDIATE", "BEGIN", e) != 0)
		return -1;
	/* Another process may have migrated while this one waited for the lock. */
	if (query_int(s, "PRAGMA user_version", &version, e) != 0)
		goto rollback;
	for (; version < HD_STORE_SCHEMA; version++) {
		snprintf(sql, sizeof sql, "migration %lld to %lld", (long long)version,
			 (long long)version + 1);
		if (exec(s, migrations[version], sql, e) != 0)
			goto rollback;
	}
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
		 HD_STORE_APP_ID, HD_STORE_SCHEMA);
	if (exec(s, sql, "set schema version", e) != 0 ||
	    exec(s, "COMMIT", "COMMIT", e) != 0)
		goto rollback;
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

struct hd_store *
hd_store_open(const char *path, enum hd_store_mode mode, struct hd_err *e)
{
	struct hd_store *s = hd_xcalloc(1, sizeof *s);
	struct stat st;
	int flags;

	s->mode = mode;
	s->path = path ? hd_xstrdup(path) : hd_store_default_path();
	if (stat(s->path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			hd_err_set(e, HD_EXIT_INPUT, s->path, "is a folder, not a database file");
			goto fail;
		}
		/* The mode bits too: root may write anything, but a file made
		 * read-only on purpose is not ours to change. */
		if (mode == HD_STORE_RW &&
		    (access(s->path, W_OK) != 0 || (st.st_mode & 0222) == 0)) {
			hd_err_set(e, HD_EXIT_INPUT, s->path,
				   "the database file is read-only; nothing was stored");
			goto fail;
		}
	} else if (mode == HD_STORE_RO) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "no such database: %s", strerror(errno));
		goto fail;
	} else if (path == NULL && make_parent(s->path, e) != 0) {
		goto fail;
	}

	flags = mode == HD_STORE_RO ? SQLITE_OPEN_READONLY
				    : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(s->path, &s->db, flags, NULL) != SQLITE_OK) {
		fail(s, e, "sqlite3_open_v2");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 10000);
	sqlite3_extended_result_codes(s->db, 1);
	/* Read the header before writing anything: a foreign file stays as it was. */
	if (migrate(s, e) != 0)
		goto fail;
	if (exec(s, "PRAGMA foreign_keys = ON", "PRAGMA foreign_keys", e) != 0)
		goto fail;
	if (mode == HD_STORE_RW &&
	    (set_wal(s, e) != 0 ||
	     exec(s, "PRAGMA synchronous = NORMAL", "PRAGMA synchronous", e) != 0))
		goto fail;
	return s;
fail:
	hd_store_close(s);
	return NULL;
}

void
hd_store_close(struct hd_store *s)
{
	if (s == NULL)
		return;
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

const char *
hd_store_path(const struct hd_store *s)
{
	return s->path;
}

int
hd_store_schema_version(struct hd_store *s)
{
	int64_t v = -1;

	if (query_int(s, "PRAGMA user_version", &v, NULL) != 0)
		return -1;
	return (int)v;
}

/* Bind text or NULL. */
static int
bind_text(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Run a prepared statement to completion (no rows expected). */
static int
step_done(struct hd_store *s, sqlite3_stmt *st, const char *what, struct hd_err *e)
{
	if (sqlite3_step(st) != SQLITE_DONE) {
		fail(s, e, what);
		return -1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return 0;
}

/*
 * Insert-or-find a row keyed by its UNIQUE columns; returns its id or -1.
 * The insert binds vals[0..nins), the select vals[0..nsel).
 */
static int64_t
upsert_id(struct hd_store *s, const char *insert, const char *select,
	  const char *const *vals, int nins, int nsel, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t id = -1;
	int i, rc;

	if (sqlite3_prepare_v2(s->db, insert, -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, insert);
		return -1;
	}
	for (i = 0; i < nins; i++)
		bind_text(st, i + 1, vals[i]);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail(s, e, insert);
		return -1;
	}
	if (sqlite3_prepare_v2(s->db, select, -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, select);
		return -1;
	}
	for (i = 0; i < nsel; i++)
		bind_text(st, i + 1, vals[i]);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else
		fail(s, e, select);
	sqlite3_finalize(st);
	return id;
}

/* Every write starts here: a read-only open writes nothing. */
static int
refuse_read_only(struct hd_store *s, struct hd_err *e)
{
	if (s->mode != HD_STORE_RO)
		return 0;
	hd_err_set(e, HD_EXIT_INPUT, s->path, "the database was opened read-only");
	return -1;
}

static const char *
outcome_name(int outcome)
{
	return outcome > 0 ? "holds" : outcome == 0 ? "fails" : "unchecked";
}

static int
insert_spans(struct hd_store *s, int64_t run, const struct hd_store_run *r,
	     const struct hd_trace *t, struct hd_err *e)
{
	sqlite3_stmt *lane = NULL, *span = NULL;
	size_t i;
	int rc = -1;

	if (sqlite3_prepare_v2(s->db,
	    "INSERT INTO lanes (run_id, idx, kind, rank, stream, name) VALUES (?,?,?,?,?,?)",
	    -1, &lane, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
	    "INSERT INTO spans (run_id, seq, lane, op, iter, kind, why, start_ps, end_ps,"
	    " spread_ps, device, stream, bytes, copy_kind, label)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &span, NULL) != SQLITE_OK) {
		fail(s, e, "sqlite3_prepare_v2(INSERT INTO lanes/spans)");
		goto out;
	}
	for (i = 0; i < (size_t)t->nlanes; i++) {
		const struct hd_lane *l = &t->lanes[i];

		sqlite3_bind_int64(lane, 1, run);
		sqlite3_bind_int(lane, 2, (int)i);
		sqlite3_bind_int(lane, 3, l->kind);
		sqlite3_bind_int(lane, 4, l->rank);
		sqlite3_bind_int(lane, 5, l->index);
		bind_text(lane, 6, l->name);
		if (step_done(s, lane, "INSERT INTO lanes", e) != 0)
			goto out;
	}
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *sp = &t->spans[i];
		const struct hd_lane *l;

		if (sp->lane < 0 || sp->lane >= t->nlanes) {
			hd_err_set(e, HD_EXIT_FAIL, s->path,
				   "span %zu is on lane %d, which the trace does not have",
				   i, sp->lane);
			goto out;
		}
		l = &t->lanes[sp->lane];

		sqlite3_bind_int64(span, 1, run);
		sqlite3_bind_int64(span, 2, (int64_t)i);
		sqlite3_bind_int(span, 3, sp->lane);
		sqlite3_bind_int(span, 4, sp->op);
		sqlite3_bind_int64(span, 5, sp->iter);
		bind_text(span, 6, hd_span_kind_name(sp->kind));
		bind_text(span, 7, sp->why != HD_WHY_NONE ? hd_why_name(sp->why) : NULL);
		sqlite3_bind_int64(span, 8, sp->start);
		sqlite3_bind_int64(span, 9, sp->end);
		if (r->spread != NULL)
			sqlite3_bind_int64(span, 10, r->spread[i]);
		else if (sp->spread > 0)
			sqlite3_bind_int64(span, 10, sp->spread);
		sqlite3_bind_int(span, 11, l->rank);
		if (l->kind == HD_LANE_STREAM)
			sqlite3_bind_int(span, 12, l->index);
		sqlite3_bind_int64(span, 13, (int64_t)sp->bytes);
		bind_text(span, 14, l->kind == HD_LANE_CE_H2D ? "HtoD" :
				    l->kind == HD_LANE_CE_D2H ? "DtoH" :
				    l->kind == HD_LANE_CE_D2D ? "DtoD" : NULL);
		bind_text(span, 15, sp->label >= 0 && sp->label < t->nstrings ?
				    t->strings[sp->label] : NULL);
		if (step_done(s, span, "INSERT INTO spans", e) != 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(lane);
	sqlite3_finalize(span);
	return rc;
}

static int
insert_claims(struct hd_store *s, int64_t run, const struct hd_store_claim *c, int n,
	      struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int i, rc = -1;

	if (n == 0)
		return 0;
	if (sqlite3_prepare_v2(s->db,
	    "INSERT INTO claim_results (run_id, idx, text, expr, outcome, lhs, rhs, detail)"
	    " VALUES (?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "sqlite3_prepare_v2(INSERT INTO claim_results)");
		return -1;
	}
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int(st, 2, c[i].index);
		bind_text(st, 3, c[i].text ? c[i].text : "");
		bind_text(st, 4, c[i].expr ? c[i].expr : "");
		bind_text(st, 5, outcome_name(c[i].outcome));
		sqlite3_bind_double(st, 6, c[i].lhs);
		sqlite3_bind_double(st, 7, c[i].rhs);
		bind_text(st, 8, c[i].detail);
		if (step_done(s, st, "INSERT INTO claim_results", e) != 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int
hd_store_run_insert(struct hd_store *s, const struct hd_store_run *r,
		    const struct hd_trace *t, const struct hd_store_claim *claims,
		    int nclaims, int64_t *run_id, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t profile = 0, machine = 0, run;

	if (refuse_read_only(s, e) != 0)
		return -1;
	if (exec(s, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", e) != 0)
		return -1;
	if (r->profile_name != NULL) {
		const char *v[] = { r->profile_name, r->profile_text ? r->profile_text : "" };

		profile = upsert_id(s,
		    "INSERT OR IGNORE INTO profiles (name, text) VALUES (?, ?)",
		    "SELECT id FROM profiles WHERE name = ? AND text = ?", v, 2, 2, e);
		if (profile < 0)
			goto rollback;
	}
	if (r->machine != NULL) {
		const struct hd_store_machine *m = r->machine;
		char count[16];
		const char *v[] = { m->hostname, m->gpu_uuid, m->driver, m->cuda_runtime,
				    m->nccl, m->facts_json, m->gpu_name, m->pci_bus_id, count };

		snprintf(count, sizeof count, "%d", m->gpu_count);

		machine = upsert_id(s,
		    "INSERT OR IGNORE INTO machines (hostname, gpu_uuid, driver, cuda_runtime,"
		    " nccl, facts, gpu_name, pci_bus_id, gpu_count) VALUES (?,?,?,?,?,?,?,?,?)",
		    "SELECT id FROM machines WHERE hostname IS ? AND gpu_uuid IS ? AND driver IS ?"
		    " AND cuda_runtime IS ? AND nccl IS ? AND facts IS ?", v, 9, 6, e);
		if (machine < 0)
			goto rollback;
	}
	if (sqlite3_prepare_v2(s->db,
	    "INSERT INTO runs (lesson, scenario, params, backend, source, profile_id, machine_id,"
	    " pair_run, version, status, makespan_ps, warmup, repeats, timer, note)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "sqlite3_prepare_v2(INSERT INTO runs)");
		goto rollback;
	}
	bind_text(st, 1, r->lesson);
	bind_text(st, 2, r->scenario);
	bind_text(st, 3, r->params_json ? r->params_json : "{}");
	bind_text(st, 4, r->backend);
	bind_text(st, 5, r->source);
	if (profile > 0)
		sqlite3_bind_int64(st, 6, profile);
	if (machine > 0)
		sqlite3_bind_int64(st, 7, machine);
	if (r->pair_run > 0)
		sqlite3_bind_int64(st, 8, r->pair_run);
	bind_text(st, 9, PACKAGE_VERSION);
	bind_text(st, 10, r->status ? r->status : "ok");
	sqlite3_bind_int64(st, 11, t->makespan);
	sqlite3_bind_int(st, 12, r->warmup);
	sqlite3_bind_int(st, 13, r->repeats);
	bind_text(st, 14, r->timer);
	bind_text(st, 15, r->note);
	if (sqlite3_step(st) != SQLITE_DONE) {
		fail(s, e, "INSERT INTO runs");
		goto rollback;
	}
	sqlite3_finalize(st);
	st = NULL;
	run = sqlite3_last_insert_rowid(s->db);
	if (insert_spans(s, run, r, t, e) != 0 ||
	    insert_claims(s, run, claims, nclaims, e) != 0)
		goto rollback;
	if (exec(s, "COMMIT", "COMMIT", e) != 0)
		goto rollback;
	if (run_id != NULL)
		*run_id = run;
	return 0;
rollback:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
hd_store_profile_insert(struct hd_store *s, const char *name, const char *text, int64_t *id,
			struct hd_err *e)
{
	const char *v[] = { name, text };
	int64_t got;

	if (refuse_read_only(s, e) != 0)
		return -1;
	got = upsert_id(s, "INSERT OR IGNORE INTO profiles (name, text) VALUES (?, ?)",
			"SELECT id FROM profiles WHERE name = ? AND text = ?", v, 2, 2, e);
	if (got < 0)
		return -1;
	if (id != NULL)
		*id = got;
	return 0;
}

struct hd_trace *
hd_store_run_trace(struct hd_store *s, int64_t run_id, struct hd_err *e)
{
	struct hd_trace *t = hd_trace_new();
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT makespan_ps FROM runs WHERE id = ?", -1, &st,
			       NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM runs");
		goto fail;
	}
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "no run %lld in this database",
			   (long long)run_id);
		goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(s->db,
	    "SELECT kind, rank, stream, name FROM lanes WHERE run_id = ? ORDER BY idx",
	    -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM lanes");
		goto fail;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		hd_trace_lane(t, (enum hd_lane_kind)sqlite3_column_int(st, 0),
			      sqlite3_column_int(st, 1), sqlite3_column_int(st, 2),
			      (const char *)sqlite3_column_text(st, 3));
	if (rc != SQLITE_DONE) {
		fail(s, e, "SELECT FROM lanes");
		goto fail;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db,
	    "SELECT lane, op, iter, kind, why, start_ps, end_ps, bytes, label,"
	    " coalesce(spread_ps, 0)"
	    " FROM spans WHERE run_id = ? ORDER BY seq", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM spans");
		goto fail;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hd_span sp = { 0 };
		const char *kind = (const char *)sqlite3_column_text(st, 3);
		const char *why = (const char *)sqlite3_column_text(st, 4);
		const char *label = (const char *)sqlite3_column_text(st, 8);
		int k;

		sp.lane = sqlite3_column_int(st, 0);
		sp.op = sqlite3_column_int(st, 1);
		sp.iter = (uint32_t)sqlite3_column_int64(st, 2);
		for (k = 0; k < HD_SPAN__COUNT; k++)
			if (kind && strcmp(kind, hd_span_kind_name((enum hd_span_kind)k)) == 0)
				sp.kind = (enum hd_span_kind)k;
		for (k = 0; k < HD_WHY__COUNT; k++)
			if (why && strcmp(why, hd_why_name((enum hd_why)k)) == 0)
				sp.why = (enum hd_why)k;
		sp.start = sqlite3_column_int64(st, 5);
		sp.end = sqlite3_column_int64(st, 6);
		sp.bytes = (uint64_t)sqlite3_column_int64(st, 7);
		sp.spread = sqlite3_column_int64(st, 9);
		sp.label = label ? hd_trace_string(t, label) : -1;
		if (sp.lane < 0 || sp.lane >= t->nlanes) {
			hd_err_set(e, HD_EXIT_INPUT, s->path,
				   "run %lld has a span on lane %d, which it does not have",
				   (long long)run_id, sp.lane);
			goto fail;
		}
		hd_trace_add(t, &sp);
	}
	if (rc != SQLITE_DONE) {
		fail(s, e, "SELECT FROM spans");
		goto fail;
	}
	sqlite3_finalize(st);
	return t;
fail:
	sqlite3_finalize(st);
	hd_trace_free(t);
	return NULL;
}

int
hd_store_runs(struct hd_store *s, const char *lesson,
	      int (*fn)(void *ctx, const struct hd_store_run_row *row), void *ctx,
	      struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db,
	    "SELECT r.id, r.lesson, r.scenario, r.backend, r.source, r.status,"
	    " coalesce(p.name, ''), r.created, r.makespan_ps,"
	    " (SELECT count(*) FROM spans WHERE run_id = r.id)"
	    " FROM runs r LEFT JOIN profiles p ON p.id = r.profile_id"
	    " WHERE ?1 IS NULL OR r.lesson = ?1 ORDER BY r.id DESC", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM runs");
		return -1;
	}
	bind_text(st, 1, lesson);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hd_store_run_row row = { 0 };

		row.id = sqlite3_column_int64(st, 0);
#define COPY_COL(field, col) \
		snprintf(row.field, sizeof row.field, "%s", \
			 sqlite3_column_text(st, col) ? (const char *)sqlite3_column_text(st, col) : "")
		COPY_COL(lesson, 1);
		COPY_COL(scenario, 2);
		COPY_COL(backend, 3);
		COPY_COL(source, 4);
		COPY_COL(status, 5);
		COPY_COL(profile, 6);
		COPY_COL(created, 7);
#undef COPY_COL
		row.makespan = sqlite3_column_int64(st, 8);
		row.nspans = sqlite3_column_int64(st, 9);
		if (fn(ctx, &row) != 0)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		fail(s, e, "SELECT FROM runs");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static void run_info_free(struct hd_store_run_info *ri);

/* A text column, copied (NULL stays NULL). */
static char *
col_dup(sqlite3_stmt *st, int col)
{
	const char *v = (const char *)sqlite3_column_text(st, col);

	return v != NULL ? hd_xstrdup(v) : NULL;
}

int
hd_store_run_info(struct hd_store *s, int64_t run_id, struct hd_store_run_info *out,
		  struct hd_err *e)
{
	struct hd_store_machine *m = &out->machine;
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (sqlite3_prepare_v2(s->db,
	    "SELECT r.id, coalesce(r.pair_run, 0), r.lesson, r.scenario, r.params, r.backend,"
	    " r.source, p.name, r.status, r.version, r.timer, r.note, r.created, r.warmup,"
	    " r.repeats, r.makespan_ps, r.machine_id, m.hostname, m.gpu_name, m.gpu_uuid,"
	    " m.pci_bus_id, m.driver, m.cuda_runtime, m.nccl, m.facts, coalesce(m.gpu_count, 0)"
	    " FROM runs r LEFT JOIN profiles p ON p.id = r.profile_id"
	    " LEFT JOIN machines m ON m.id = r.machine_id WHERE r.id = ?", -1, &st,
	    NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM runs");
		return -1;
	}
	sqlite3_bind_int64(st, 1, run_id);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			hd_err_set(e, HD_EXIT_INPUT, s->path, "no run %lld in this database",
				   (long long)run_id);
		else
			fail(s, e, "SELECT FROM runs");
		sqlite3_finalize(st);
		return -1;
	}
	out->id = sqlite3_column_int64(st, 0);
	out->pair_run = sqlite3_column_int64(st, 1);
	out->lesson = col_dup(st, 2);
	out->scenario = col_dup(st, 3);
	out->params_json = col_dup(st, 4);
	out->backend = col_dup(st, 5);
	out->source = col_dup(st, 6);
	out->profile_name = col_dup(st, 7);
	out->status = col_dup(st, 8);
	out->version = col_dup(st, 9);
	out->timer = col_dup(st, 10);
	out->note = col_dup(st, 11);
	out->created = col_dup(st, 12);
	out->warmup = sqlite3_column_int(st, 13);
	out->repeats = sqlite3_column_int(st, 14);
	out->makespan = sqlite3_column_int64(st, 15);
	out->has_machine = sqlite3_column_type(st, 16) != SQLITE_NULL;
	if (out->has_machine) {
		m->hostname = col_dup(st, 17);
		m->gpu_name = col_dup(st, 18);
		m->gpu_uuid = col_dup(st, 19);
		m->pci_bus_id = col_dup(st, 20);
		m->driver = col_dup(st, 21);
		m->cuda_runtime = col_dup(st, 22);
		m->nccl = col_dup(st, 23);
		m->facts_json = col_dup(st, 24);
		m->gpu_count = sqlite3_column_int(st, 25);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(s->db,
	    "SELECT idx, text, expr, outcome, lhs, rhs, detail FROM claim_results"
	    " WHERE run_id = ? ORDER BY idx", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM claim_results");
		goto fail;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hd_store_claim *c;
		const char *oc = (const char *)sqlite3_column_text(st, 3);

		out->claims = hd_xgrow(out->claims, &cap, (size_t)out->nclaims + 1,
				       sizeof *out->claims);
		c = &out->claims[out->nclaims++];
		memset(c, 0, sizeof *c);
		c->index = sqlite3_column_int(st, 0);
		c->text = col_dup(st, 1);
		c->expr = col_dup(st, 2);
		c->outcome = oc && strcmp(oc, "holds") == 0 ? 1 : oc && strcmp(oc, "fails") == 0 ?
			     0 : -1;
		c->lhs = sqlite3_column_double(st, 4);
		c->rhs = sqlite3_column_double(st, 5);
		c->detail = col_dup(st, 6);
	}
	if (rc != SQLITE_DONE) {
		fail(s, e, "SELECT FROM claim_results");
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	hd_store_run_info_free(out);
	return -1;
}

void
hd_store_run_info_free(struct hd_store_run_info *ri)
{
	if (ri != NULL)
		run_info_free(ri);
}

static void
run_info_free(struct hd_store_run_info *ri)
{
	char **str[] = { &ri->lesson, &ri->scenario, &ri->params_json, &ri->backend,
			 &ri->source, &ri->profile_name, &ri->status, &ri->version,
			 &ri->timer, &ri->note, &ri->created };
	const char **mstr[] = { &ri->machine.hostname, &ri->machine.gpu_name,
				&ri->machine.gpu_uuid, &ri->machine.pci_bus_id,
				&ri->machine.driver, &ri->machine.cuda_runtime,
				&ri->machine.nccl, &ri->machine.facts_json };
	size_t i;
	int k;

	for (i = 0; i < HD_ARRAY_LEN(str); i++)
		free(*str[i]);
	for (i = 0; i < HD_ARRAY_LEN(mstr); i++)
		free((char *)*mstr[i]);
	for (k = 0; k < ri->nclaims; k++) {
		free((char *)ri->claims[k].text);
		free((char *)ri->claims[k].expr);
		free((char *)ri->claims[k].detail);
	}
	free(ri->claims);
	memset(ri, 0, sizeof *ri);
}

/* ---- learners and their progress --------------------------------------- */

/* A learner's name: 1 to HD_STORE_NAME_MAX bytes, no control characters. */
static int
check_learner_name(const char *name, struct hd_err *e)
{
	const unsigned char *c;

	if (name == NULL || name[0] == '\0') {
		hd_err_set(e, HD_EXIT_INPUT, NULL, "a learner needs a name (it is empty)");
		return -1;
	}
	if (strlen(name) > HD_STORE_NAME_MAX) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "the learner name '%.24s...' is %zu bytes long; at most %d are allowed",
			   name, strlen(name), HD_STORE_NAME_MAX);
		return -1;
	}
	for (c = (const unsigned char *)name; *c != '\0'; c++) {
		if (*c < 0x20 || *c == 0x7f) {
			hd_err_set(e, HD_EXIT_INPUT, NULL,
				   "the learner name has a control character (byte %u at %zu)",
				   *c, (size_t)(c - (const unsigned char *)name));
			return -1;
		}
	}
	return 0;
}

int
hd_store_learner_check(const char *name, struct hd_err *e)
{
	return check_learner_name(name, e);
}

static int64_t
learner_id(struct hd_store *s, const char *name, struct hd_err *e)
{
	const char *v[] = { name };

	return upsert_id(s, "INSERT OR IGNORE INTO learners (name) VALUES (?)",
			 "SELECT id FROM learners WHERE name = ?", v, 1, 1, e);
}

int
hd_store_learner(struct hd_store *s, const char *name, int64_t *id, struct hd_err *e)
{
	int64_t got;

	if (check_learner_name(name, e) != 0 || refuse_read_only(s, e) != 0)
		return -1;
	if ((got = learner_id(s, name, e)) < 0)
		return -1;
	if (id != NULL)
		*id = got;
	return 0;
}

/* Everything hd_store_progress_add promises to refuse, before any write. */
static int
check_progress(const struct hd_store_progress *p, struct hd_err *e)
{
	const struct {
		const char *v, *what;
	} texts[] = {
		{ p->lesson, "lesson" }, { p->question, "question" }, { p->answer, "answer" },
	};
	size_t i;

	if (check_learner_name(p->learner, e) != 0)
		return -1;
	for (i = 0; i < HD_ARRAY_LEN(texts); i++) {
		if (texts[i].v == NULL || texts[i].v[0] == '\0') {
			hd_err_set(e, HD_EXIT_INPUT, NULL, "an answer to store needs its %s "
				   "(it is empty)", texts[i].what);
			return -1;
		}
	}
	if (p->correct < -1 || p->correct > 1) {
		hd_err_set(e, HD_EXIT_INPUT, NULL, "correct is %d; it must be 1 (right), "
			   "0 (wrong) or -1 (not gradable)", p->correct);
		return -1;
	}
	if (p->confidence < 0 || p->confidence > 5) {
		hd_err_set(e, HD_EXIT_INPUT, NULL, "confidence is %d; it must be 1 to 5, "
			   "or 0 when the learner gave none", p->confidence);
		return -1;
	}
	if (!isfinite(p->seconds) || p->seconds < 0) {
		hd_err_set(e, HD_EXIT_INPUT, NULL, "the time taken to answer is %g s; "
			   "it must be a number of seconds >= 0", p->seconds);
		return -1;
	}
	if (p->hints < 0) {
		hd_err_set(e, HD_EXIT_INPUT, NULL, "hints shown is %d; it must be >= 0",
			   p->hints);
		return -1;
	}
	return 0;
}

int
hd_store_progress_add(struct hd_store *s, const struct hd_store_progress *p, int64_t *id,
		      struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t learner;

	if (check_progress(p, e) != 0 || refuse_read_only(s, e) != 0)
		return -1;
	if (exec(s, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", e) != 0)
		return -1;
	if ((learner = learner_id(s, p->learner, e)) < 0)
		goto rollback;
	if (sqlite3_prepare_v2(s->db,
	    "INSERT INTO progress (learner_id, lesson, question, answer, correct, confidence,"
	    " seconds, hints, profile, version) VALUES (?,?,?,?,?,?,?,?,?,?)",
	    -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "sqlite3_prepare_v2(INSERT INTO progress)");
		goto rollback;
	}
	sqlite3_bind_int64(st, 1, learner);
	bind_text(st, 2, p->lesson);
	bind_text(st, 3, p->question);
	bind_text(st, 4, p->answer);
	if (p->correct >= 0)
		sqlite3_bind_int(st, 5, p->correct);
	if (p->confidence > 0)
		sqlite3_bind_int(st, 6, p->confidence);
	sqlite3_bind_double(st, 7, p->seconds);
	sqlite3_bind_int(st, 8, p->hints);
	bind_text(st, 9, p->profile);
	bind_text(st, 10, PACKAGE_VERSION);
	if (sqlite3_step(st) != SQLITE_DONE) {
		fail(s, e, "INSERT INTO progress");
		goto rollback;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(s->db);
	if (exec(s, "COMMIT", "COMMIT", e) != 0)
		goto rollback;
	return 0;
rollback:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
hd_store_progress_each(struct hd_store *s, const char *learner, const char *lesson,
		       int (*fn)(void *ctx, const struct hd_store_progress *row),
		       void *ctx, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db,
	    "SELECT p.id, l.name, p.lesson, p.question, p.answer, p.correct, p.confidence,"
	    " p.seconds, p.hints, p.profile, p.created"
	    " FROM progress p JOIN learners l ON l.id = p.learner_id"
	    " WHERE (?1 IS NULL OR l.name = ?1) AND (?2 IS NULL OR p.lesson = ?2)"
	    " ORDER BY p.id DESC", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM progress");
		return -1;
	}
	bind_text(st, 1, learner);
	bind_text(st, 2, lesson);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hd_store_progress row;

		memset(&row, 0, sizeof row);
		row.id = sqlite3_column_int64(st, 0);
		row.learner = (const char *)sqlite3_column_text(st, 1);
		row.lesson = (const char *)sqlite3_column_text(st, 2);
		row.question = (const char *)sqlite3_column_text(st, 3);
		row.answer = (const char *)sqlite3_column_text(st, 4);
		row.correct = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 :
			      sqlite3_column_int(st, 5);
		row.confidence = sqlite3_column_int(st, 6);     /* NULL reads as 0 */
		row.seconds = sqlite3_column_double(st, 7);
		row.hints = sqlite3_column_int(st, 8);
		row.profile = (const char *)sqlite3_column_text(st, 9);
		row.created = (const char *)sqlite3_column_text(st, 10);
		if (fn(ctx, &row) != 0)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		fail(s, e, "SELECT FROM progress");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

int
hd_store_progress_reset(struct hd_store *s, const char *learner, const char *lesson,
			int64_t *deleted, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t n;

	if (check_learner_name(learner, e) != 0 || refuse_read_only(s, e) != 0)
		return -1;
	if (exec(s, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", e) != 0)
		return -1;
	if (sqlite3_prepare_v2(s->db,
	    "DELETE FROM progress WHERE learner_id = (SELECT id FROM learners WHERE name = ?1)"
	    " AND (?2 IS NULL OR lesson = ?2)", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "sqlite3_prepare_v2(DELETE FROM progress)");
		goto rollback;
	}
	bind_text(st, 1, learner);
	bind_text(st, 2, lesson);
	if (sqlite3_step(st) != SQLITE_DONE) {
		fail(s, e, "DELETE FROM progress");
		goto rollback;
	}
	sqlite3_finalize(st);
	st = NULL;
	n = sqlite3_changes(s->db);
	if (exec(s, "COMMIT", "COMMIT", e) != 0)
		goto rollback;
	if (deleted != NULL)
		*deleted = n;
	return 0;
rollback:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
hd_store_check(struct hd_store *s, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	const char *ok;
	int rc;

	if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "PRAGMA integrity_check");
		return -1;
	}
	rc = sqlite3_step(st);
	ok = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (ok == NULL || strcmp(ok, "ok") != 0) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "integrity check failed: %s",
			   ok ? ok : sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "PRAGMA foreign_key_check");
		return -1;
	}
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "foreign key check found dangling rows");
		return -1;
	}
	return 0;
}
