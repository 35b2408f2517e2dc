/*
 * store.c - runs, spans and claim results in SQLite (see store.h).
 *
 * Every SQLite call goes through a few wrappers that turn a failure into an
 * hd_err naming the call and carrying SQLite's own message.  Schema changes
 * are a table of migrations: migrations[i] takes user_version i to i + 1, and
 * runs inside the same transaction that bumps the version, so a database is
 * always at one whole version.  A migration is never edited once released:
 * a change to the schema is a new entry.
 *
 * A database may have been made by someone else (a learner's file an
 * instructor reads, a file crafted to break its reader), so nothing in it is
 * trusted: on open its schema must be the one the migrations make, every
 * call's queries run under a time limit, and every value read back is
 * checked before a caller sees it (NULLs, enums, times and sizes in range).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/paths.h"
#include "store/store.h"

struct hd_store {
	sqlite3 *db;
	char *path;
	enum hd_store_mode mode;
	int wal;                /* journal_mode = WAL is set (writers only) */
	double since, limit;    /* when the current call began; its limit in s */
	int stopped;            /* the current call ran past its limit */
};

/* The longest one call may take before its query is interrupted (see
 * hd_store_limit): long enough for a term's database on a slow disk. */
#define STORE_LIMIT_S 60.0

/* The longest text or blob read or written (a profile, facts as JSON). */
#define STORE_VALUE_MAX (64 << 20)

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

/* What SQLite's terse message means for a user, by its extended code. */
static const struct {
	int code;
	const char *hint;
} hints[] = {
	{ SQLITE_READONLY, "this user cannot write the database, its folder or a file beside "
	  "it (the -wal and -shm logs may belong to another user)" },
	{ SQLITE_READONLY_CANTINIT, "its -shm file belongs to another user: read it again once "
	  "the writer has finished" },
	{ SQLITE_READONLY_RECOVERY, "its log needs recovering, which only a writer can do: read "
	  "it again once its owner has opened it" },
	{ SQLITE_READONLY_CANTLOCK, "its -shm file cannot be locked by this user" },
	{ SQLITE_READONLY_ROLLBACK, "it holds a transaction cut short, which only a writer can "
	  "roll back: read it again once its owner has opened it" },
	{ SQLITE_READONLY_DIRECTORY, "its folder cannot be written by this user" },
	{ SQLITE_CANTOPEN, "the file, its folder or a file beside it (-wal, -shm) cannot be "
	  "opened by this user" },
	{ SQLITE_TOOBIG, "it holds a value larger than hdsim ever stores" },
};

/* A hint for the last failure, or "" (the interrupt of a call past its limit
 * says so). */
static const char *
hint(struct hd_store *s, char *buf, size_t n)
{
	int code = s && s->db ? sqlite3_extended_errcode(s->db) : SQLITE_NOMEM;
	size_t i;

	buf[0] = '\0';
	if (s && s->stopped) {
		snprintf(buf, n, " (the call ran past its limit of %g s and was stopped: the "
			 "database may be built to stall its readers)", s->limit);
		return buf;
	}
	for (i = 0; i < HD_ARRAY_LEN(hints); i++)
		if (hints[i].code == code || hints[i].code == (code & 0xff)) {
			snprintf(buf, n, " (%s)", hints[i].hint);
			if (hints[i].code == code)
				break;
		}
	return buf;
}

/* Turn the last SQLite failure into e, naming the call. */
static void
fail(struct hd_store *s, struct hd_err *e, const char *call)
{
	const char *where = s && s->path ? s->path : "database";
	char h[200];

	hd_err_set(e, HD_EXIT_INPUT, where, "%s failed: %s%s", call,
		   s && s->db ? sqlite3_errmsg(s->db) : "out of memory", hint(s, h, sizeof h));
}

static int
exec(struct hd_store *s, const char *sql, const char *what, struct hd_err *e)
{
	char *msg = NULL, h[200];

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "sqlite3_exec(%s) failed: %s%s", what,
			   msg ? msg : sqlite3_errmsg(s->db), hint(s, h, sizeof h));
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

/*
 * Before a write: WAL, set at a writer's first write and kept in the file.
 * Not at open: a writer that only reads (a listing) leaves the journal mode
 * as it found it, and a reader never sets it.
 */
static int
to_wal(struct hd_store *s, struct hd_err *e)
{
	if (s->wal)
		return 0;
	if (set_wal(s, e) != 0)
		return -1;
	s->wal = 1;
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SQLite's progress handler: interrupt a query of a call past its limit. */
static int
past_limit(void *ctx)
{
	struct hd_store *s = ctx;

	if (now_s() - s->since > s->limit)
		s->stopped = 1;
	return s->stopped;
}

/* Every exported call that queries starts here: its limit runs from now. */
static void
begin(struct hd_store *s)
{
	s->since = now_s();
	s->stopped = 0;
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

/* ---- the schema a database must have --------------------------------- */

/* The schema hdsim makes at version v: the migrations, run in memory. */
static sqlite3 *
reference(int64_t version, struct hd_err *e)
{
	sqlite3 *ref = NULL;
	int64_t i;

	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		hd_err_set(e, HD_EXIT_FAIL, NULL, "cannot open an in-memory database: %s",
			   ref ? sqlite3_errmsg(ref) : "out of memory");
		sqlite3_close(ref);
		return NULL;
	}
	for (i = 0; i < version; i++) {
		if (sqlite3_exec(ref, migrations[i], NULL, NULL, NULL) != SQLITE_OK) {
			hd_err_set(e, HD_EXIT_FAIL, NULL, "migration %lld in memory failed: %s",
				   (long long)i, sqlite3_errmsg(ref));
			sqlite3_close(ref);
			return NULL;
		}
	}
	return ref;
}

/* The first column of table (in db) that the same table in ref has and db's
 * lacks, or NULL (newly allocated). */
static char *
missing_column(sqlite3 *ref, sqlite3 *db, const char *table)
{
	sqlite3_stmt *want = NULL, *have = NULL;
	char *gone = NULL;

	if (sqlite3_prepare_v2(ref, "SELECT name FROM pragma_table_info(?1)", -1, &want,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1,
			       &have, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(want, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(have, 1, table, -1, SQLITE_STATIC);
	while (gone == NULL && sqlite3_step(want) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(want, 0);

		sqlite3_bind_text(have, 2, col ? col : "", -1, SQLITE_TRANSIENT);
		if (sqlite3_step(have) != SQLITE_ROW)
			gone = hd_xstrdup(col ? col : "");
		sqlite3_reset(have);
	}
out:
	sqlite3_finalize(want);
	sqlite3_finalize(have);
	return gone;
}

/* Refuse the file: what is wrong with it, and that hdsim did not write it. */
static int
not_ours(struct hd_store *s, struct hd_err *e, const char *what)
{
	hd_err_set(e, HD_EXIT_INPUT, s->path, "%s: this is not a database hdsim wrote; it was "
		   "left untouched", what);
	return -1;
}

/* Whether ref's object (type, name, sql) is in the file as made: 0, or -1
 * with e saying what differs. */
static int
same_object(struct hd_store *s, sqlite3 *ref, sqlite3_stmt *find, const char *type,
	    const char *name, const char *sql, struct hd_err *e)
{
	const char *has_type, *has_sql;
	char what[300], *col;
	int rc;

	sqlite3_bind_text(find, 1, name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(find)) != SQLITE_ROW) {
		if (rc != SQLITE_DONE) {
			fail(s, e, "SELECT FROM sqlite_master");
			return -1;
		}
		snprintf(what, sizeof what, "the database has no %s %s", type, name);
		return not_ours(s, e, what);
	}
	has_type = (const char *)sqlite3_column_text(find, 0);
	has_sql = (const char *)sqlite3_column_text(find, 1);
	if (has_type == NULL || strcmp(has_type, type) != 0) {
		if (has_type == NULL)
			has_type = "nameless thing";
		snprintf(what, sizeof what, "%s is a%s %s, not a%s %s", name,
			 strchr("aeiou", has_type[0]) ? "n" : "", has_type,
			 strchr("aeiou", type[0]) ? "n" : "", type);
		return not_ours(s, e, what);
	}
	if (has_sql != NULL && strcmp(has_sql, sql) == 0)
		return 0;
	if (strcmp(type, "table") == 0 && (col = missing_column(ref, s->db, name)) != NULL) {
		snprintf(what, sizeof what, "table %s has no column %s", name, col);
		free(col);
	} else {
		snprintf(what, sizeof what, "%s %s is not defined as hdsim defines it", type, name);
	}
	return not_ours(s, e, what);
}

/*
 * The file's schema is the one hdsim made at its version: each of hdsim's
 * tables, indexes and views is there, as a table (not a view over anything),
 * index or view, defined in the very words the migration used (SQLite keeps
 * them as written), so it has its columns, keys and indexes; and the file
 * has no trigger or view of its own (a trigger runs on writes, a view in a
 * table's place on reads: either can stall or mislead hdsim).  Tables of its
 * own are left alone: no query of hdsim reads them.
 */
static int
schema_check(struct hd_store *s, int64_t version, struct hd_err *e)
{
	sqlite3 *ref = reference(version, e);
	sqlite3_stmt *want = NULL, *find = NULL, *extra = NULL, *known = NULL;
	int rc = -1, step;

	if (ref == NULL)
		return -1;
	if (sqlite3_prepare_v2(ref, "SELECT type, name, sql FROM sqlite_master WHERE sql"
			       " IS NOT NULL ORDER BY rowid", -1, &want, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ref, "SELECT 1 FROM sqlite_master WHERE type = ?1 AND name = ?2",
			       -1, &known, NULL) != SQLITE_OK) {
		hd_err_set(e, HD_EXIT_FAIL, NULL, "the in-memory schema: %s", sqlite3_errmsg(ref));
		goto out;
	}
	if (sqlite3_prepare_v2(s->db, "SELECT type, sql FROM sqlite_master WHERE name = ?1",
			       -1, &find, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT type, name FROM sqlite_master"
			       " WHERE type IN ('trigger', 'view') ORDER BY rowid", -1, &extra,
			       NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM sqlite_master");
		goto out;
	}
	while (sqlite3_step(want) == SQLITE_ROW) {
		if (same_object(s, ref, find, (const char *)sqlite3_column_text(want, 0),
				(const char *)sqlite3_column_text(want, 1),
				(const char *)sqlite3_column_text(want, 2), e) != 0)
			goto out;
		sqlite3_reset(find);
	}
	while ((step = sqlite3_step(extra)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(extra, 0);
		const char *name = (const char *)sqlite3_column_text(extra, 1);
		char what[300];

		sqlite3_bind_text(known, 1, type, -1, SQLITE_STATIC);
		sqlite3_bind_text(known, 2, name ? name : "", -1, SQLITE_STATIC);
		if (sqlite3_step(known) != SQLITE_ROW) {
			snprintf(what, sizeof what, "the database has a %s %s, which hdsim "
				 "never makes", type, name ? name : "");
			not_ours(s, e, what);
			goto out;
		}
		sqlite3_reset(known);
	}
	if (step != SQLITE_DONE) {
		fail(s, e, "SELECT FROM sqlite_master");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(want);
	sqlite3_finalize(known);
	sqlite3_finalize(find);
	sqlite3_finalize(extra);
	sqlite3_close(ref);
	return rc;
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
	if (tables > 0 && schema_check(s, version, e) != 0)
		return -1;
	if (version == HD_STORE_SCHEMA)
		return 0;
	if (s->mode == HD_STORE_RO) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "the database has schema version %lld and needs upgrading to %d, "
			   "which a read-only open cannot do", (long long)version, HD_STORE_SCHEMA);
		return -1;
	}
	if (to_wal(s, e) != 0 || exec(s, "BEGIN IMMEDIATE", "BEGIN", e) != 0)
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

/* The folder holding path (newly allocated): "." for a bare file name. */
static char *
folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return hd_xstrdup(".");
	return hd_xasprintf("%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* Whether SQLite keeps or left a file beside path: a log (-wal and its
 * index -shm) or a rollback journal. */
static int
has_side_files(const char *path)
{
	static const char *const suffixes[] = { "-wal", "-shm", "-journal" };
	char side[PATH_MAX + 16];
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(suffixes); i++) {
		snprintf(side, sizeof side, "%s%s", path, suffixes[i]);
		if (access(side, F_OK) == 0)
			return 1;
	}
	return 0;
}

/* "file:PATH?immutable=1" with PATH percent-encoded (newly allocated); an
 * absolute path gets an empty authority, so "//x" is not read as a host. */
static char *
immutable_uri(const char *path)
{
	static const char keep[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-._~/";
	char *uri = hd_xcalloc(strlen(path) * 3 + 32, 1), *o = uri;
	const unsigned char *c;

	o += sprintf(o, "file:%s", path[0] == '/' ? "//" : "");
	for (c = (const unsigned char *)path; *c != '\0'; c++)
		o += strchr(keep, *c) ? sprintf(o, "%c", *c) : sprintf(o, "%%%02X", *c);
	strcpy(o, "?immutable=1");
	return uri;
}

/*
 * What the file system allows, checked before SQLite is asked, so that each
 * case gets its own message naming the path: a folder, a file this user
 * cannot read, a missing file (read-only opens), a read-only file or a
 * folder this user cannot write (writers: SQLite keeps its log beside the
 * database while writing, so the folder must be writable too).
 */
static int
check_access(struct hd_store *s, const char *path, struct hd_err *e)
{
	struct stat st;
	char *dir = folder_of(s->path);
	int rc = -1;

	if (stat(s->path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			hd_err_set(e, HD_EXIT_INPUT, s->path, "is a folder, not a database file");
			goto out;
		}
		if (access(s->path, R_OK) != 0) {
			hd_err_set(e, HD_EXIT_INPUT, s->path, "cannot read the database file: %s",
				   strerror(errno));
			goto out;
		}
		/* The mode bits too: root may write anything, but a file made
		 * read-only on purpose is not ours to change. */
		if (s->mode == HD_STORE_RW &&
		    (access(s->path, W_OK) != 0 || (st.st_mode & 0222) == 0)) {
			hd_err_set(e, HD_EXIT_INPUT, s->path,
				   "the database file is read-only; nothing was stored");
			goto out;
		}
	} else if (s->mode == HD_STORE_RO) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, errno == ENOENT ? "no such database: %s" :
			   "cannot reach the database: %s", strerror(errno));
		goto out;
	} else if (path == NULL && make_parent(s->path, e) != 0) {
		goto out;
	}
	if (s->mode == HD_STORE_RW && access(dir, W_OK | X_OK) != 0) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "cannot write in the database's folder %s "
			   "(%s), where SQLite keeps its log while writing; nothing was stored",
			   dir, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

/*
 * Open the connection.  A writer opens the file as it is and sets WAL at its
 * first write (to_wal).  A read-only open must change nothing and leave no
 * file behind, and the file may be another user's in a folder this one
 * cannot write.  SQLITE_OPEN_READONLY alone does not do that: on a WAL
 * database it creates the -wal and -shm files (owned by the reader, so that
 * the owner's next write fails with "attempt to write a readonly database")
 * and, unable to checkpoint, leaves them; where the folder cannot be written
 * it cannot open a WAL database at all.  The URI parameter immutable=1 makes
 * SQLite read the file alone, without locks or side files; it is exact when
 * the file holds every commit, which it does when no side file is beside it
 * (the last writer to close folds the log in and removes it).  So:
 * immutable=1 when there is no side file; otherwise a writer is at work, or
 * one stopped before folding its log in, and the log holds commits the file
 * lacks: SQLITE_OPEN_READONLY with the usual locks, using the side files
 * that are there.  (A writer that starts after an immutable open and folds
 * its log in while the read goes on may make that read fail as damaged;
 * reading again reads it whole.)
 */
static int
open_db(struct hd_store *s, struct hd_err *e)
{
	char *uri = NULL;
	int rc;

	if (s->mode == HD_STORE_RW)
		rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
				     NULL);
	else if (has_side_files(s->path))
		rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL);
	else
		rc = sqlite3_open_v2(uri = immutable_uri(s->path), &s->db,
				     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK) {
		fail(s, e, "sqlite3_open_v2");
		return -1;
	}
	sqlite3_busy_timeout(s->db, 10000);
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, STORE_VALUE_MAX);
	sqlite3_progress_handler(s->db, 10000, past_limit, s);
	/* Functions with side effects stay out of the schema's expressions
	 * (SQLite 3.31 on; older ones ignore the pragma). */
	return exec(s, "PRAGMA trusted_schema = OFF", "PRAGMA trusted_schema", e);
}

struct hd_store *
hd_store_open(const char *path, enum hd_store_mode mode, struct hd_err *e)
{
	struct hd_store *s = hd_xcalloc(1, sizeof *s);

	s->mode = mode;
	s->limit = STORE_LIMIT_S;
	s->path = path ? hd_xstrdup(path) : hd_store_default_path();
	begin(s);
	/* Read the header before writing anything: a foreign file stays as it was. */
	if (check_access(s, path, e) != 0 || open_db(s, e) != 0 || migrate(s, e) != 0)
		goto fail;
	if (exec(s, "PRAGMA foreign_keys = ON", "PRAGMA foreign_keys", e) != 0)
		goto fail;
	if (mode == HD_STORE_RW &&
	    exec(s, "PRAGMA synchronous = NORMAL", "PRAGMA synchronous", e) != 0)
		goto fail;
	return s;
fail:
	hd_store_close(s);
	return NULL;
}

void
hd_store_limit(struct hd_store *s, double seconds)
{
	s->limit = seconds;
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

	begin(s);
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

/* Every write starts here: a read-only open writes nothing; a writer's first
 * write sets WAL. */
static int
may_write(struct hd_store *s, struct hd_err *e)
{
	if (s->mode != HD_STORE_RO)
		return to_wal(s, e);
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

	begin(s);
	if (may_write(s, e) != 0)
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

	begin(s);
	if (may_write(s, e) != 0)
		return -1;
	got = upsert_id(s, "INSERT OR IGNORE INTO profiles (name, text) VALUES (?, ?)",
			"SELECT id FROM profiles WHERE name = ? AND text = ?", v, 2, 2, e);
	if (got < 0)
		return -1;
	if (id != NULL)
		*id = got;
	return 0;
}

/* ---- reading back: nothing read is trusted -------------------------------- */

/* One integer column of a row and the range hdsim writes it in.  A NULL
 * reads as null_is when null_ok, and is refused otherwise. */
struct field {
	int col;
	const char *name;
	int64_t lo, hi;
	int null_ok;
	int64_t null_is;
};

#define TIME_LIMIT HD_STORE_TIME_LIMIT
/* Op indexes: the lessons allow a million ops; this leaves room and keeps an
 * array indexed by op (as the SVG export makes) of a sane size. */
#define OP_MAX (1 << 24)

/* Refuse row what (e.g. "run 3, span 7"): its column name holds a value
 * hdsim never writes there. */
static int
bad_value(struct hd_store *s, sqlite3_stmt *st, int col, const char *what, const char *name,
	  const char *want, struct hd_err *e)
{
	const char *v = sqlite3_column_type(st, col) == SQLITE_NULL ? NULL :
			(const char *)sqlite3_column_text(st, col);

	hd_err_set(e, HD_EXIT_INPUT, s->path, "%s: %s is %s%.40s%s, %s: this is not a "
		   "database hdsim wrote", what, name, v ? "'" : "", v ? v : "NULL",
		   v ? "'" : "", want);
	return -1;
}

/* Read the row's fields into v[field.col]: 0, or -1 with e naming the row,
 * the column and its value when one is NULL, not an integer or out of range. */
static int
read_fields(struct hd_store *s, sqlite3_stmt *st, const struct field *f, size_t n,
	    int64_t *v, const char *what, struct hd_err *e)
{
	char want[96];
	size_t i;

	for (i = 0; i < n; i++) {
		int type = sqlite3_column_type(st, f[i].col);
		const char *text = type == SQLITE_TEXT ?
				   (const char *)sqlite3_column_text(st, f[i].col) : NULL;
		char *end = NULL;
		int64_t x = 0;
		int ok = type == SQLITE_INTEGER;

		if (type == SQLITE_NULL && f[i].null_ok) {
			v[f[i].col] = f[i].null_is;
			continue;
		}
		if (ok) {
			x = sqlite3_column_int64(st, f[i].col);
		} else if (text != NULL) {
			errno = 0;
			x = strtoll(text, &end, 10);
			ok = errno == 0 && end != text && *end == '\0';
		}
		if (!ok || x < f[i].lo || x > f[i].hi) {
			snprintf(want, sizeof want, "not an integer from %lld to %lld",
				 (long long)f[i].lo, (long long)f[i].hi);
			return bad_value(s, st, f[i].col, what, f[i].name, want, e);
		}
		v[f[i].col] = x;
	}
	return 0;
}

/* A text column: its text, "" for NULL when null_ok; NULL with e set when
 * it is NULL and must not be. */
static const char *
read_text(struct hd_store *s, sqlite3_stmt *st, int col, int null_ok, const char *what,
	  const char *name, struct hd_err *e)
{
	const char *v = (const char *)sqlite3_column_text(st, col);

	if (v != NULL)
		return v;
	if (null_ok && sqlite3_column_type(st, col) == SQLITE_NULL)
		return "";
	bad_value(s, st, col, what, name, "where hdsim always writes a text", e);
	return NULL;
}

/* The index of name in names (n of them, by index), or -1. */
static int
name_index(const char *name, const char *(*names)(int), int n)
{
	int k;

	for (k = 0; k < n; k++)
		if (strcmp(name, names(k)) == 0)
			return k;
	return -1;
}

static const char *
kind_name(int k)
{
	return hd_span_kind_name((enum hd_span_kind)k);
}

static const char *
why_name(int k)
{
	return hd_why_name((enum hd_why)k);
}

/* A run's lanes, by idx: they must be numbered 0, 1, 2 ... and distinct. */
static int
read_lanes(struct hd_store *s, int64_t run_id, struct hd_trace *t, struct hd_err *e)
{
	static const struct field fields[] = {
		{ 0, "idx", 0, INT_MAX, 0, 0 },
		{ 1, "kind", 0, HD_LANE__COUNT - 1, 0, 0 },
		{ 2, "rank", 0, INT_MAX, 0, 0 },
		{ 3, "stream", 0, INT_MAX, 0, 0 },
	};
	sqlite3_stmt *st = NULL;
	int64_t v[4];
	char what[64];
	const char *name;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT idx, kind, rank, stream, name FROM lanes"
			       " WHERE run_id = ? ORDER BY idx", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM lanes");
		return -1;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		snprintf(what, sizeof what, "run %lld, lane %d", (long long)run_id, t->nlanes);
		if (read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0 ||
		    (name = read_text(s, st, 4, 0, what, "name", e)) == NULL)
			goto fail;
		if (v[0] != t->nlanes ||
		    hd_trace_lane(t, (enum hd_lane_kind)v[1], (int)v[2], (int)v[3], name) !=
		    (int)v[0]) {
			hd_err_set(e, HD_EXIT_INPUT, s->path, "%s: its lanes are not numbered 0, "
				   "1, 2 ... each once: this is not a database hdsim wrote", what);
			goto fail;
		}
	}
	if (rc != SQLITE_DONE) {
		fail(s, e, "SELECT FROM lanes");
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

/* One span row into sp: kind and why known names, times, sizes and indexes
 * in range (start <= end), its lane one of the run's. */
static int
read_span(struct hd_store *s, sqlite3_stmt *st, struct hd_trace *t, const char *what,
	  struct hd_span *sp, struct hd_err *e)
{
	static const struct field fields[] = {
		{ 0, "lane", 0, INT_MAX, 0, 0 },
		{ 1, "op", -1, OP_MAX, 0, 0 },
		{ 2, "iter", 0, UINT32_MAX, 0, 0 },
		{ 5, "start_ps", -TIME_LIMIT + 1, TIME_LIMIT - 1, 0, 0 },
		{ 6, "end_ps", -TIME_LIMIT + 1, TIME_LIMIT - 1, 0, 0 },
		{ 7, "bytes", 0, TIME_LIMIT - 1, 0, 0 },
		{ 9, "spread_ps", 0, TIME_LIMIT - 1, 1, 0 },
	};
	int64_t v[10];
	const char *kind, *why, *label;
	int k, w = HD_WHY_NONE;

	if (read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0 ||
	    (kind = read_text(s, st, 3, 0, what, "kind", e)) == NULL ||
	    (why = read_text(s, st, 4, 1, what, "why", e)) == NULL ||
	    (label = read_text(s, st, 8, 1, what, "label", e)) == NULL)
		return -1;
	if ((k = name_index(kind, kind_name, HD_SPAN__COUNT)) < 0)
		return bad_value(s, st, 3, what, "kind", "not a kind of span", e);
	if (why[0] != '\0' && (w = name_index(why, why_name, HD_WHY__COUNT)) < 0)
		return bad_value(s, st, 4, what, "why", "not a reason to wait", e);
	if (v[0] >= t->nlanes) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "%s is on lane %lld, which the run does "
			   "not have", what, (long long)v[0]);
		return -1;
	}
	if (v[5] > v[6]) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "%s ends (%lld ps) before it starts "
			   "(%lld ps): this is not a database hdsim wrote", what, (long long)v[6],
			   (long long)v[5]);
		return -1;
	}
	memset(sp, 0, sizeof *sp);
	sp->lane = (int)v[0];
	sp->op = (int)v[1];
	sp->iter = (uint32_t)v[2];
	sp->kind = (enum hd_span_kind)k;
	sp->why = (enum hd_why)w;
	sp->start = v[5];
	sp->end = v[6];
	sp->bytes = (uint64_t)v[7];
	sp->spread = v[9];
	sp->label = sqlite3_column_type(st, 8) != SQLITE_NULL ? hd_trace_string(t, label) : -1;
	return 0;
}

struct hd_trace *
hd_store_run_trace(struct hd_store *s, int64_t run_id, struct hd_err *e)
{
	struct hd_trace *t = hd_trace_new();
	sqlite3_stmt *st = NULL;
	int rc;

	begin(s);
	if (sqlite3_prepare_v2(s->db, "SELECT makespan_ps FROM runs WHERE id = ?", -1, &st,
			       NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM runs");
		goto fail;
	}
	sqlite3_bind_int64(st, 1, run_id);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			hd_err_set(e, HD_EXIT_INPUT, s->path, "no run %lld in this database",
				   (long long)run_id);
		else
			fail(s, e, "SELECT FROM runs");
		goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (read_lanes(s, run_id, t, e) != 0)
		goto fail;
	if (sqlite3_prepare_v2(s->db,
	    "SELECT lane, op, iter, kind, why, start_ps, end_ps, bytes, label, spread_ps, seq"
	    " FROM spans WHERE run_id = ? ORDER BY seq", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM spans");
		goto fail;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hd_span sp;
		char what[80];

		snprintf(what, sizeof what, "run %lld, span %lld", (long long)run_id,
			 (long long)sqlite3_column_int64(st, 10));
		if (read_span(s, st, t, what, &sp, e) != 0)
			goto fail;
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
	static const struct field fields[] = {
		{ 8, "makespan_ps", 0, TIME_LIMIT - 1, 0, 0 },
	};
	sqlite3_stmt *st = NULL;
	int rc;

	begin(s);
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
		int64_t v[9];
		char what[48];

		row.id = sqlite3_column_int64(st, 0);
		snprintf(what, sizeof what, "run %lld", (long long)row.id);
		if (read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0)
			goto fail;
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
		row.makespan = v[8];
		row.nspans = sqlite3_column_int64(st, 9);
		if (fn(ctx, &row) != 0)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		fail(s, e, "SELECT FROM runs");
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

static void run_info_free(struct hd_store_run_info *ri);

/* A text column, copied: "" for NULL where hdsim may write NULL, the
 * column's own NULL kept where the struct says so (keep_null), refused
 * where hdsim always writes a text.  Returns -1 with e set when refused. */
static int
col_dup(struct hd_store *s, sqlite3_stmt *st, int col, const char *what, const char *name,
	int keep_null, char **out, struct hd_err *e)
{
	const char *v;

	if (keep_null && sqlite3_column_type(st, col) == SQLITE_NULL) {
		*out = NULL;
		return 0;
	}
	if ((v = read_text(s, st, col, 0, what, name, e)) == NULL)
		return -1;
	*out = hd_xstrdup(v);
	return 0;
}

/* The run's row: which column fills which string, and whether NULL is kept. */
static const struct {
	int col;
	const char *name;
	size_t off;
	int keep_null;
} run_texts[] = {
	{ 2, "lesson", offsetof(struct hd_store_run_info, lesson), 0 },
	{ 3, "scenario", offsetof(struct hd_store_run_info, scenario), 0 },
	{ 4, "params", offsetof(struct hd_store_run_info, params_json), 0 },
	{ 5, "backend", offsetof(struct hd_store_run_info, backend), 0 },
	{ 6, "source", offsetof(struct hd_store_run_info, source), 0 },
	{ 7, "profile name", offsetof(struct hd_store_run_info, profile_name), 1 },
	{ 8, "status", offsetof(struct hd_store_run_info, status), 0 },
	{ 9, "version", offsetof(struct hd_store_run_info, version), 0 },
	{ 10, "timer", offsetof(struct hd_store_run_info, timer), 1 },
	{ 11, "note", offsetof(struct hd_store_run_info, note), 1 },
	{ 12, "created", offsetof(struct hd_store_run_info, created), 0 },
}, machine_texts[] = {
	{ 17, "hostname", offsetof(struct hd_store_machine, hostname), 1 },
	{ 18, "gpu_name", offsetof(struct hd_store_machine, gpu_name), 1 },
	{ 19, "gpu_uuid", offsetof(struct hd_store_machine, gpu_uuid), 1 },
	{ 20, "pci_bus_id", offsetof(struct hd_store_machine, pci_bus_id), 1 },
	{ 21, "driver", offsetof(struct hd_store_machine, driver), 1 },
	{ 22, "cuda_runtime", offsetof(struct hd_store_machine, cuda_runtime), 1 },
	{ 23, "nccl", offsetof(struct hd_store_machine, nccl), 1 },
	{ 24, "facts", offsetof(struct hd_store_machine, facts_json), 1 },
};

/* The run's row into out (run_texts), its machine's when it has one. */
static int
read_run(struct hd_store *s, sqlite3_stmt *st, struct hd_store_run_info *out, struct hd_err *e)
{
	static const struct field fields[] = {
		{ 1, "pair_run", 0, INT64_MAX, 0, 0 },
		{ 13, "warmup", 0, INT_MAX, 0, 0 },
		{ 14, "repeats", 0, INT_MAX, 0, 0 },
		{ 15, "makespan_ps", 0, TIME_LIMIT - 1, 0, 0 },
		{ 25, "gpu_count", 0, INT_MAX, 0, 0 },
	};
	int64_t v[26];
	char what[48];
	size_t i;

	out->id = sqlite3_column_int64(st, 0);
	snprintf(what, sizeof what, "run %lld", (long long)out->id);
	if (read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0)
		return -1;
	for (i = 0; i < HD_ARRAY_LEN(run_texts); i++)
		if (col_dup(s, st, run_texts[i].col, what, run_texts[i].name,
			    run_texts[i].keep_null, (char **)((char *)out + run_texts[i].off),
			    e) != 0)
			return -1;
	out->pair_run = v[1];
	out->warmup = (int)v[13];
	out->repeats = (int)v[14];
	out->makespan = v[15];
	out->has_machine = sqlite3_column_type(st, 16) != SQLITE_NULL;
	if (!out->has_machine)
		return 0;
	for (i = 0; i < HD_ARRAY_LEN(machine_texts); i++)
		if (col_dup(s, st, machine_texts[i].col, what, machine_texts[i].name, 1,
			    (char **)((char *)&out->machine + machine_texts[i].off), e) != 0)
			return -1;
	out->machine.gpu_count = (int)v[25];
	return 0;
}

/* The run's claims, by index, into out->claims. */
static int
read_claims(struct hd_store *s, int64_t run_id, struct hd_store_run_info *out,
	    struct hd_err *e)
{
	static const struct field fields[] = {
		{ 0, "idx", 0, INT_MAX, 0, 0 },
	};
	static const char *const outcomes[] = { "fails", "holds", "unchecked" };
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(s->db,
	    "SELECT idx, text, expr, outcome, lhs, rhs, detail FROM claim_results"
	    " WHERE run_id = ? ORDER BY idx", -1, &st, NULL) != SQLITE_OK) {
		fail(s, e, "SELECT FROM claim_results");
		return -1;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hd_store_claim *c;
		const char *oc;
		char what[64];
		int64_t v[1];
		int k;

		snprintf(what, sizeof what, "run %lld, claim %d", (long long)run_id, out->nclaims);
		out->claims = hd_xgrow(out->claims, &cap, (size_t)out->nclaims + 1,
				       sizeof *out->claims);
		c = &out->claims[out->nclaims++];
		memset(c, 0, sizeof *c);
		if (read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0 ||
		    col_dup(s, st, 1, what, "text", 0, (char **)&c->text, e) != 0 ||
		    col_dup(s, st, 2, what, "expr", 0, (char **)&c->expr, e) != 0 ||
		    col_dup(s, st, 6, what, "detail", 1, (char **)&c->detail, e) != 0 ||
		    (oc = read_text(s, st, 3, 0, what, "outcome", e)) == NULL)
			goto fail;
		for (k = 0; k < (int)HD_ARRAY_LEN(outcomes) && strcmp(oc, outcomes[k]) != 0; k++)
			;
		if (k == (int)HD_ARRAY_LEN(outcomes)) {
			bad_value(s, st, 3, what, "outcome", "not holds, fails or unchecked", e);
			goto fail;
		}
		c->index = (int)v[0];
		c->outcome = k < 2 ? k : -1;
		c->lhs = sqlite3_column_double(st, 4);
		c->rhs = sqlite3_column_double(st, 5);
	}
	if (rc != SQLITE_DONE) {
		fail(s, e, "SELECT FROM claim_results");
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

int
hd_store_run_info(struct hd_store *s, int64_t run_id, struct hd_store_run_info *out,
		  struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(out, 0, sizeof *out);
	begin(s);
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
	rc = read_run(s, st, out, e);
	sqlite3_finalize(st);
	if (rc != 0 || read_claims(s, run_id, out, e) != 0) {
		hd_store_run_info_free(out);
		return -1;
	}
	return 0;
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

	begin(s);
	if (check_learner_name(name, e) != 0 || may_write(s, e) != 0)
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

	begin(s);
	if (check_progress(p, e) != 0 || may_write(s, e) != 0)
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

/* One answer's row into row (its strings live as long as the statement's
 * row): every text hdsim writes there present, numbers in their ranges. */
static int
read_answer(struct hd_store *s, sqlite3_stmt *st, struct hd_store_progress *row,
	    struct hd_err *e)
{
	static const struct field fields[] = {
		{ 5, "correct", 0, 1, 1, -1 },
		{ 6, "confidence", 1, 5, 1, 0 },
		{ 8, "hints", 0, INT_MAX, 0, 0 },
	};
	static const struct {
		int col, null_ok;
		const char *name;
		size_t off;
	} texts[] = {
		{ 1, 0, "learner", offsetof(struct hd_store_progress, learner) },
		{ 2, 0, "lesson", offsetof(struct hd_store_progress, lesson) },
		{ 3, 0, "question", offsetof(struct hd_store_progress, question) },
		{ 4, 0, "answer", offsetof(struct hd_store_progress, answer) },
		{ 9, 1, "profile", offsetof(struct hd_store_progress, profile) },
		{ 10, 0, "created", offsetof(struct hd_store_progress, created) },
	};
	int64_t v[9];
	char what[48];
	size_t i;

	memset(row, 0, sizeof *row);
	row->id = sqlite3_column_int64(st, 0);
	snprintf(what, sizeof what, "answer %lld", (long long)row->id);
	if (read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0)
		return -1;
	for (i = 0; i < HD_ARRAY_LEN(texts); i++) {
		const char **to = (const char **)((char *)row + texts[i].off);

		if ((*to = read_text(s, st, texts[i].col, texts[i].null_ok, what, texts[i].name,
				     e)) == NULL)
			return -1;
	}
	if (sqlite3_column_type(st, 9) == SQLITE_NULL)
		row->profile = NULL;
	row->seconds = sqlite3_column_double(st, 7);
	if (sqlite3_column_type(st, 7) == SQLITE_NULL || !isfinite(row->seconds) ||
	    row->seconds < 0)
		return bad_value(s, st, 7, what, "seconds", "not a number of seconds >= 0", e);
	row->correct = (int)v[5];
	row->confidence = (int)v[6];
	row->hints = (int)v[8];
	return 0;
}

int
hd_store_progress_each(struct hd_store *s, const char *learner, const char *lesson,
		       int (*fn)(void *ctx, const struct hd_store_progress *row),
		       void *ctx, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	begin(s);
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

		if (read_answer(s, st, &row, e) != 0)
			goto fail;
		if (fn(ctx, &row) != 0)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		fail(s, e, "SELECT FROM progress");
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

int
hd_store_progress_reset(struct hd_store *s, const char *learner, const char *lesson,
			int64_t *deleted, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t n;

	begin(s);
	if (check_learner_name(learner, e) != 0 || may_write(s, e) != 0)
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

	begin(s);
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
