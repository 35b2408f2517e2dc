/*
 * schema.c - the store's schema: its migrations, and the check on open that
 * a file's schema is the one they make (see store_priv.h).
 *
 * Schema changes are a table of migrations: migrations[i] takes
 * user_version i to i + 1, and runs inside the same transaction that bumps
 * the version, so a database is always at one whole version.  A migration is
 * never edited once released: a change to the schema is a new entry.
 *
 * A database may have been made by someone else (a learner's file an
 * instructor reads, a file crafted to break its reader), so on open its
 * schema must be the one the migrations make: the expected schema is built
 * in memory and compared, object by object.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_priv.h"

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
	/* 2 -> 3: attempts as history and the lesson as it was answered.  Each
	 * answer says whether the run answering it had been shown (seen; NULL
	 * for answers stored before), and names the version of the lesson it
	 * answered (lesson_hash), whose id, title and questions (text, options,
	 * answer, points, misconceptions) are kept once per version, so that
	 * grading never needs the lesson file. */
	"CREATE TABLE lesson_snapshots ("
	"  hash TEXT PRIMARY KEY CHECK (length(hash) = 64),"
	"  lesson TEXT NOT NULL CHECK (length(lesson) > 0),"
	"  title TEXT NOT NULL,"
	"  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));"
	"CREATE TABLE snapshot_questions ("
	"  hash TEXT NOT NULL REFERENCES lesson_snapshots(hash) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL CHECK (idx >= 0),"
	"  question TEXT NOT NULL CHECK (length(question) > 0),"
	"  kind TEXT NOT NULL CHECK (kind IN ('choice', 'order', 'estimate')),"
	"  prompt TEXT NOT NULL, answer TEXT NOT NULL,"
	"  points INTEGER NOT NULL CHECK (points BETWEEN 0 AND 1000),"
	"  PRIMARY KEY (hash, idx));"
	"CREATE TABLE snapshot_options ("
	"  hash TEXT NOT NULL, question_idx INTEGER NOT NULL,"
	"  idx INTEGER NOT NULL CHECK (idx >= 0),"
	"  option TEXT NOT NULL CHECK (length(option) > 0),"
	"  text TEXT NOT NULL, misconception TEXT,"
	"  PRIMARY KEY (hash, question_idx, idx),"
	"  FOREIGN KEY (hash, question_idx) REFERENCES snapshot_questions(hash, idx)"
	"    ON DELETE CASCADE);"
	"ALTER TABLE progress ADD COLUMN seen INTEGER CHECK (seen IN (0, 1));"
	"ALTER TABLE progress ADD COLUMN lesson_hash TEXT REFERENCES lesson_snapshots(hash);",
	/* 3 -> 4: the id a learner gives for the class roster (learner-id in
	 * the configuration file: a student number or a login), so that an
	 * instructor's gradebook finds their row in Canvas's roster. */
	"ALTER TABLE learners ADD COLUMN roster_id TEXT"
	"  CHECK (roster_id IS NULL OR length(roster_id) BETWEEN 1 AND 64);",
	/* 4 -> 5: every repeat of a measured run, so that the spread of a
	 * measurement is kept beside its median: each repeat's makespan as
	 * the run's spans were timed (with an event around every op), and
	 * without per-op events (bare_ps; NULL where those were not run).
	 * Simulated runs, and runs stored before, have none. */
	"CREATE TABLE run_repeats ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  repeat INTEGER NOT NULL CHECK (repeat >= 0),"
	"  makespan_ps INTEGER NOT NULL CHECK (makespan_ps >= 0),"
	"  bare_ps INTEGER CHECK (bare_ps IS NULL OR bare_ps >= 0),"
	"  PRIMARY KEY (run_id, repeat));",
};

_Static_assert(HD_ARRAY_LEN(migrations) == HD_STORE_SCHEMA, "one migration per schema version");

/* PRAGMA quick_check (structure, not index contents: linear in the file's
 * size, milliseconds for a term's runs): 0, or -1 with e naming the damage. */
static int
intact(struct hd_store *s, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	const char *ok;
	int rc;

	if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "the database is damaged (%s); it was "
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
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "the database is damaged (%s); it was "
			   "left untouched: move it aside, or restore a copy",
			   what);
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

	if (sqlite3_prepare_v2(ref, "SELECT name FROM pragma_table_info(?1)", -1, &want, NULL) !=
		SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &have,
			       NULL) != SQLITE_OK)
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
	hd_err_set(e, HD_EXIT_INPUT, s->path,
		   "%s: this is not a database hdsim wrote; it was "
		   "left untouched",
		   what);
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
			store_fail(s, e, "SELECT FROM sqlite_master");
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
	if (sqlite3_prepare_v2(ref,
			       "SELECT type, name, sql FROM sqlite_master WHERE sql"
			       " IS NOT NULL ORDER BY rowid",
			       -1, &want, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ref, "SELECT 1 FROM sqlite_master WHERE type = ?1 AND name = ?2", -1,
			       &known, NULL) != SQLITE_OK) {
		hd_err_set(e, HD_EXIT_FAIL, NULL, "the in-memory schema: %s", sqlite3_errmsg(ref));
		goto out;
	}
	if (sqlite3_prepare_v2(s->db, "SELECT type, sql FROM sqlite_master WHERE name = ?1", -1,
			       &find, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
			       "SELECT type, name FROM sqlite_master"
			       " WHERE type IN ('trigger', 'view') ORDER BY rowid",
			       -1, &extra, NULL) != SQLITE_OK) {
		store_fail(s, e, "SELECT FROM sqlite_master");
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
			snprintf(what, sizeof what,
				 "the database has a %s %s, which hdsim "
				 "never makes",
				 type, name ? name : "");
			not_ours(s, e, what);
			goto out;
		}
		sqlite3_reset(known);
	}
	if (step != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM sqlite_master");
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
int
store_migrate(struct hd_store *s, struct hd_err *e)
{
	int64_t app, version, tables;
	char sql[96];

	/* One read transaction: another process may be creating the file, and
	 * the three must describe the same moment (not an empty header read
	 * before its commit and a table count after). */
	if (store_exec(s, "BEGIN", "BEGIN", e) != 0)
		return -1;
	if (store_query_int(s, "PRAGMA application_id", &app, e) != 0 ||
	    store_query_int(s, "PRAGMA user_version", &version, e) != 0 ||
	    store_query_int(s, "SELECT count(*) FROM sqlite_master", &tables, e) != 0) {
		if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_CORRUPT)
			hd_err_set(e, HD_EXIT_INPUT, s->path,
				   "the database is damaged (%s); it "
				   "was left untouched: move it aside, or restore a copy",
				   sqlite3_errmsg(s->db));
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	if (store_exec(s, "COMMIT", "COMMIT", e) != 0)
		return -1;
	if (app != HD_STORE_APP_ID && !(app == 0 && version == 0 && tables == 0)) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "this SQLite file is not an hdsim database (application_id %lld); "
			   "it was left untouched",
			   (long long)app);
		return -1;
	}
	/* A damaged file is not written to: a write that happens to miss the
	 * damaged pages would commit, and the next checkpoint would rewrite it. */
	if (tables > 0 && intact(s, e) != 0)
		return -1;
	if (version > HD_STORE_SCHEMA) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "the database has schema version %lld, newer than this hdsim "
			   "understands (%d); use a newer hdsim",
			   (long long)version, HD_STORE_SCHEMA);
		return -1;
	}
	if (tables > 0 && schema_check(s, version, e) != 0)
		return -1;
	if (version == HD_STORE_SCHEMA)
		return 0;
	if (s->mode == HD_STORE_RO) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "the database has schema version %lld and needs upgrading to %d, "
			   "which a read-only open cannot do",
			   (long long)version, HD_STORE_SCHEMA);
		return -1;
	}
	if (store_to_wal(s, e) != 0 || store_exec(s, "BEGIN IMMEDIATE", "BEGIN", e) != 0)
		return -1;
	/* Another process may have migrated while this one waited for the lock. */
	if (store_query_int(s, "PRAGMA user_version", &version, e) != 0)
		goto rollback;
	for (; version < HD_STORE_SCHEMA; version++) {
		snprintf(sql, sizeof sql, "migration %lld to %lld", (long long)version,
			 (long long)version + 1);
		if (store_exec(s, migrations[version], sql, e) != 0)
			goto rollback;
	}
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
		 HD_STORE_APP_ID, HD_STORE_SCHEMA);
	if (store_exec(s, sql, "set schema version", e) != 0 ||
	    store_exec(s, "COMMIT", "COMMIT", e) != 0)
		goto rollback;
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}
