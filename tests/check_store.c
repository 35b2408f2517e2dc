/*
 * check_store.c - the SQLite store: schema, one transaction per run, read
 * back, refusal of files that are not ours (left untouched), migration of an
 * older database in place, and learners' progress.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lang/lesson.h"
#include "store/store.h"
#include "tests/testdb.h"
#include "tests/testutil.h"

static char dir[64];

static void
setup(void)
{
	hd_test_mkdtemp(dir, sizeof dir, "store");
}

static void
teardown(void)
{
	hd_test_rmtree(dir);
}

static char *
path_in(const char *name)
{
	return hd_xasprintf("%s/%s", dir, name);
}

/* A small trace: two lanes, three spans, two labels. */
static struct hd_trace *
sample_trace(void)
{
	struct hd_trace *t = hd_trace_new();
	int api = hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	int ce = hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "Memcpy HtoD");
	struct hd_span a = { .lane = api,
			     .op = 0,
			     .iter = 0,
			     .kind = HD_SPAN_API,
			     .start = 0,
			     .end = 2000000,
			     .label = hd_trace_string(t, "cudaMemcpyAsync") };
	struct hd_span b = { .lane = api,
			     .op = 1,
			     .iter = 0,
			     .kind = HD_SPAN_BLOCKED,
			     .why = HD_WHY_STREAM_SYNC,
			     .start = 2000000,
			     .end = 1344177280,
			     .label = hd_trace_string(t, "cudaStreamSynchronize") };
	struct hd_span c = { .lane = ce,
			     .op = 0,
			     .iter = 0,
			     .kind = HD_SPAN_COPY,
			     .start = 4000000,
			     .end = 1344177280,
			     .bytes = 64u << 20,
			     .label = hd_trace_string(t, "up"),
			     .spread = 12345 };

	hd_trace_add(t, &a);
	hd_trace_add(t, &b);
	hd_trace_add(t, &c);
	return t;
}

static int64_t
count_rows(const char *path, const char *table)
{
	char sql[256];

	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
	return hd_test_count(path, sql);
}

START_TEST(create_insert_read_back)
{
	struct hd_err e = { 0 };
	char *p = path_in("runs.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_trace *t = sample_trace(), *back;
	struct hd_store_claim claims[] = {
		{ 0, "pinned is faster", "makespan(a) < makespan(b)", 1, 1.0, 2.0,
		  "1 ms < 2 ms: holds" },
		{ 1, "not run", "makespan(c) > 0", -1, 0, 0, NULL },
	};
	struct hd_store_run r = { .lesson = "pinned-vs-pageable",
				  .scenario = "pinned",
				  .params_json = "{\"size\": 67108864}",
				  .backend = "sim",
				  .source = "predicted",
				  .profile_name = "h100-sxm",
				  .profile_text = "hdsim-profile 1\n",
				  .status = "ok",
				  .repeats = 1,
				  .timer = "model" };
	int64_t id = 0, id2 = 0;
	size_t i;

	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_schema_version(s), HD_STORE_SCHEMA);
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, claims, 2, &id, &e), 0);
	ck_assert_int_gt(id, 0);
	/* The same profile text is stored once. */
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, &id2, &e), 0);
	ck_assert_int_eq(id2, id + 1);
	ck_assert_int_eq(hd_store_check(s, &e), 0);
	back = hd_store_run_trace(s, id, &e);
	ck_assert_msg(back != NULL, "%s", e.msg);
	ck_assert_int_eq(back->nlanes, 2);
	ck_assert_uint_eq(back->nspans, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(back->spans[i].start, t->spans[i].start);
		ck_assert_int_eq(back->spans[i].end, t->spans[i].end);
		ck_assert_int_eq(back->spans[i].kind, t->spans[i].kind);
		ck_assert_int_eq(back->spans[i].why, t->spans[i].why);
		ck_assert_uint_eq(back->spans[i].bytes, t->spans[i].bytes);
		ck_assert_int_eq(back->spans[i].spread, t->spans[i].spread);
		ck_assert_str_eq(back->strings[back->spans[i].label],
				 t->strings[t->spans[i].label]);
	}
	ck_assert_int_eq(back->makespan, t->makespan);
	ck_assert_ptr_null(hd_store_run_trace(s, 999, &e));
	{
		int64_t p1 = 0, p2 = 0, p3 = 0;

		/* The profile the runs used is already there: the same row comes back. */
		ck_assert_int_eq(
		    hd_store_profile_insert(s, "h100-sxm", "hdsim-profile 1\n", &p1, &e), 0);
		ck_assert_int_eq(hd_store_profile_insert(s, "cal", "hdsim-profile 1\nx\n", &p2, &e),
				 0);
		ck_assert_int_eq(hd_store_profile_insert(s, "cal", "hdsim-profile 1\nx\n", &p3, &e),
				 0);
		ck_assert_int_gt(p1, 0);
		ck_assert_int_ne(p1, p2);
		ck_assert_int_eq(p2, p3);
	}
	ck_assert_ptr_nonnull(strstr(e.msg, "no run 999"));
	hd_trace_free(back);
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "profiles"), 2);
	ck_assert_int_eq(count_rows(p, "claim_results"), 2);
	ck_assert_int_eq(count_rows(p, "spans"), 6);
	hd_trace_free(t);
	free(p);
}
END_TEST

static int
collect(void *ctx, const struct hd_store_run_row *row)
{
	int *n = ctx;

	ck_assert_str_eq(row->profile, "h100-sxm");
	ck_assert_int_eq(row->nspans, 3);
	(*n)++;
	return 0;
}

START_TEST(listing_and_failed_insert_rolls_back)
{
	struct hd_err e = { 0 };
	char *p = path_in("l.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_trace *t = sample_trace();
	struct hd_store_run r = { .lesson = "l",
				  .scenario = "s",
				  .backend = "sim",
				  .source = "predicted",
				  .profile_name = "h100-sxm",
				  .profile_text = "x",
				  .status = "ok" };
	int n = 0;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), 0);
	/* A backend the schema refuses: nothing of this run may remain. */
	r.backend = "bogus";
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "INSERT INTO runs"));
	/* A span on a lane the trace does not have fails late, after the run row
	 * and its lanes were written: the rollback must remove them. */
	r.backend = "sim";
	t->spans[2].lane = 7;
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "lane 7"));
	ck_assert_int_eq(hd_store_runs(s, NULL, collect, &n, &e), 0);
	ck_assert_int_eq(n, 1);
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "runs"), 1);
	ck_assert_int_eq(count_rows(p, "spans"), 3);
	hd_trace_free(t);
	free(p);
}
END_TEST

/* Read a whole file for before/after comparison. */
static char *
slurp(const char *p, size_t *n)
{
	struct hd_err e = { 0 };
	char *s = hd_read_file(p, n, &e);

	ck_assert_msg(s != NULL, "%s", e.msg);
	return s;
}

START_TEST(foreign_files_left_untouched)
{
	struct hd_err e = { 0 };
	char *text = path_in("notes.txt"), *other = path_in("other.db");
	char *before, *after;
	size_t nb, na;
	sqlite3 *db;
	FILE *f;

	f = fopen(text, "w");
	ck_assert_ptr_nonnull(f);
	fputs("these are not the pages you are looking for\n", f);
	fclose(f);
	before = slurp(text, &nb);
	ck_assert_ptr_null(hd_store_open(text, HD_STORE_RW, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "not a database"));
	ck_assert_str_eq(e.where, text);
	after = slurp(text, &na);
	ck_assert_uint_eq(na, nb);
	ck_assert_mem_eq(before, after, nb);
	free(before);
	free(after);

	ck_assert_int_eq(sqlite3_open(other, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE grades (who TEXT, mark INT)", 0, 0, 0),
			 SQLITE_OK);
	sqlite3_close(db);
	before = slurp(other, &nb);
	memset(&e, 0, sizeof e);
	ck_assert_ptr_null(hd_store_open(other, HD_STORE_RW, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "not an hdsim database"));
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	after = slurp(other, &na);
	ck_assert_uint_eq(na, nb);
	ck_assert_mem_eq(before, after, nb);
	free(before);
	free(after);
	free(text);
	free(other);
}
END_TEST

START_TEST(newer_schema_and_read_only)
{
	struct hd_err e = { 0 };
	char *p = path_in("new.db"), *missing = path_in("missing.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_trace *t = sample_trace();
	struct hd_store_run r = { .lesson = "l",
				  .scenario = "s",
				  .backend = "sim",
				  .source = "predicted",
				  .status = "ok" };
	sqlite3 *db;

	ck_assert_ptr_nonnull(s);
	hd_store_close(s);

	/* Read-only file: opening to write is refused, reading works, writing through
	 * a read-only handle is refused too. */
	ck_assert_int_eq(chmod(p, 0444), 0);
	ck_assert_ptr_null(hd_store_open(p, HD_STORE_RW, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "read-only"));
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), -1);
	hd_store_close(s);
	ck_assert_int_eq(chmod(p, 0644), 0);

	ck_assert_int_eq(sqlite3_open(p, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA user_version = 99", 0, 0, 0), SQLITE_OK);
	sqlite3_close(db);
	ck_assert_ptr_null(hd_store_open(p, HD_STORE_RW, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "newer than this hdsim"));

	ck_assert_ptr_null(hd_store_open(missing, HD_STORE_RO, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "no such database"));
	ck_assert_int_ne(access(missing, F_OK), 0);
	hd_trace_free(t);
	free(p);
	free(missing);
}
END_TEST

START_TEST(default_path_follows_xdg)
{
	char *p;

	setenv("XDG_DATA_HOME", "/srv/data", 1);
	p = hd_store_default_path();
	ck_assert_str_eq(p, "/srv/data/hdsim/hdsim.db");
	free(p);
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/home/learner", 1);
	p = hd_store_default_path();
	ck_assert_str_eq(p, "/home/learner/.local/share/hdsim/hdsim.db");
	free(p);
}
END_TEST

/* Schema version 1 exactly as released, to build a database the way an
 * older hdsim left it. */
static const char v1_schema[] =
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
    "  PRIMARY KEY (run_id, idx));";

/* Run SQL on the database file directly, as another program would. */
static void
raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql,
		      msg ? msg : "");
	sqlite3_close(db);
}

static int
count_runs(void *ctx, const struct hd_store_run_row *row)
{
	int *n = ctx;

	ck_assert_str_eq(row->lesson, "old-lesson");
	ck_assert_int_eq(row->makespan, 4809000);
	(*n)++;
	return 0;
}

/* Learners seen by hd_store_learners_each, copied out. */
struct learner_ids {
	int n;
	char name[4][80], id[4][80];
};

static int
see_learner(void *ctx, const char *name, const char *roster_id)
{
	struct learner_ids *v = ctx;

	ck_assert_int_lt(v->n, 4);
	snprintf(v->name[v->n], sizeof v->name[0], "%s", name);
	snprintf(v->id[v->n], sizeof v->id[0], "%s", roster_id ? roster_id : "(none)");
	v->n++;
	return 0;
}

START_TEST(v1_database_migrates_in_place)
{
	struct hd_err e = { 0 };
	char *p = path_in("v1.db"), sql[128];
	struct hd_store *s;
	struct hd_store_progress a = { .learner = "ada",
				       .lesson = "old-lesson",
				       .question = "q",
				       .answer = "yes",
				       .correct = 1 };
	struct learner_ids ids;
	int n = 0;

	raw_exec(p, v1_schema);
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = 1",
		 HD_STORE_APP_ID);
	raw_exec(p, sql);
	raw_exec(p,
		 "INSERT INTO runs (lesson, scenario, backend, source, version, status,"
		 " makespan_ps) VALUES ('old-lesson', 'pinned', 'sim', 'predicted', '0.1.0',"
		 " 'ok', 4809000)");
	/* Upgrading needs a write: a read-only open says so and changes nothing. */
	ck_assert_ptr_null(hd_store_open(p, HD_STORE_RO, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "needs upgrading"));

	s = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_schema_version(s), HD_STORE_SCHEMA);
	ck_assert_int_eq(hd_store_runs(s, NULL, count_runs, &n, &e), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), 0);
	ck_assert_int_eq(hd_store_check(s, &e), 0);
	hd_store_close(s);
	/* Opening again finds nothing to do. */
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_schema_version(s), HD_STORE_SCHEMA);
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "runs"), 1);
	ck_assert_int_eq(count_rows(p, "progress"), 1);
	/* the learner of an upgraded database gives no roster id yet */
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	memset(&ids, 0, sizeof ids);
	ck_assert_int_eq(hd_store_learners_each(s, see_learner, &ids, &e), 0);
	ck_assert_int_eq(ids.n, 1);
	ck_assert_str_eq(ids.name[0], "ada");
	ck_assert_str_eq(ids.id[0], "(none)");
	hd_store_close(s);
	free(p);
}
END_TEST

START_TEST(learner_roster_ids)
{
	struct hd_err e = { 0 };
	char *p = path_in("roster-ids.db"), longest[HD_STORE_NAME_MAX + 2];
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct learner_ids ids;
	static const struct {
		const char *id, *says;
	} bad[] = {
		{ "", "empty" },
		{ " s123", "starts or ends with a space" },
		{ "s123 ", "starts or ends with a space" },
		{ "s1\n23", "control character" },
		{ "s1\x1b[2J", "control character" },
	};
	size_t i;

	ck_assert_msg(s != NULL, "%s", e.msg);
	/* a learner new to the database is created with their id */
	ck_assert_msg(hd_store_learner_set_roster_id(s, "ada", "s1234567", &e) == 0, "%s", e.msg);
	ck_assert_int_eq(hd_store_learner(s, "grace", NULL, &e), 0);
	/* the last id recorded stands */
	ck_assert_int_eq(hd_store_learner_set_roster_id(s, "ada", "alovelace", &e), 0);
	for (i = 0; i < HD_ARRAY_LEN(bad); i++) {
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(hd_store_learner_set_roster_id(s, "ada", bad[i].id, &e), -1);
		ck_assert_msg(strstr(e.msg, bad[i].says) != NULL, "%zu: %s", i, e.msg);
		ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	}
	memset(longest, '7', sizeof longest);
	longest[HD_STORE_NAME_MAX] = '\0';
	ck_assert_int_eq(hd_store_learner_set_roster_id(s, "grace", longest, &e), 0);
	longest[HD_STORE_NAME_MAX] = '7';
	longest[HD_STORE_NAME_MAX + 1] = '\0';
	ck_assert_int_eq(hd_store_learner_set_roster_id(s, "grace", longest, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "at most 64"));
	ck_assert_int_eq(hd_store_learner_set_roster_id(s, "a\tb", "x", &e), -1);
	memset(&ids, 0, sizeof ids);
	ck_assert_int_eq(hd_store_learners_each(s, see_learner, &ids, &e), 0);
	ck_assert_int_eq(ids.n, 2);
	ck_assert_str_eq(ids.name[0], "ada");
	ck_assert_str_eq(ids.id[0], "alovelace");
	ck_assert_str_eq(ids.name[1], "grace");
	ck_assert_uint_eq(strlen(ids.id[1]), HD_STORE_NAME_MAX);
	hd_store_close(s);

	/* read-only: nothing recorded; a crafted id is refused, naming the row */
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(hd_store_learner_set_roster_id(s, "ada", "x", &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "read-only"));
	hd_store_close(s);
	raw_exec(p,
		 "PRAGMA ignore_check_constraints = 1;"
		 " UPDATE learners SET roster_id = 'x' || char(27) || '[2J' WHERE name = 'ada'");
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_ptr_nonnull(s);
	memset(&ids, 0, sizeof ids);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_store_learners_each(s, see_learner, &ids, &e), -1);
	ck_assert_msg(strstr(e.msg, "roster_id") != NULL && strstr(e.msg, "not a learner id"), "%s",
		      e.msg);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	hd_store_close(s);
	free(p);
}
END_TEST

/* Schema 2 as it was released: learners, progress and progress_latest. */
static const char v2_extra[] =
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
    "    AND q.lesson = p.lesson AND q.question = p.question);";

/* What schema 3 added to schema 2, exactly as released: attempts as history
 * and the lesson as answered. */
static const char v3_extra[] =
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
    "ALTER TABLE progress ADD COLUMN lesson_hash TEXT REFERENCES lesson_snapshots(hash);";

/* What schema 4 added to schema 3, exactly as released: learners' roster
 * ids. */
static const char v4_extra[] = "ALTER TABLE learners ADD COLUMN roster_id TEXT"
			       "  CHECK (roster_id IS NULL OR length(roster_id) BETWEEN 1 AND 64);";

/* The schema version in the file's header, as another program reads it. */
static int
raw_version(const char *path)
{
	return hd_test_count(path, "PRAGMA user_version");
}

/* A lesson of three questions, one of each kind, with points and a
 * misconception. */
static const char graded_lesson[] = "hdsim 1\nlesson graded\ntitle \"Graded <b>\"\n"
				    "question q1 choice \"Which?\"\n"
				    "  option a \"A\"\n  option b \"B\"\n"
				    "  misconception \"thinks B\"\n"
				    "  answer a\n  points 3\nend\n"
				    "question q2 order \"Order\"\n"
				    "  item x \"X\"\n  item y \"Y\"\n  answer y x\nend\n"
				    "question q3 estimate \"How long?\"\n"
				    "  answer makespan(s) unit ms within 25%\n  points 0\nend\n"
				    "scenario s\n  host 1ms\nend\n";

static struct hd_lesson *
graded(void)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(graded_lesson, strlen(graded_lesson), "g.hds", &e);

	ck_assert_msg(l != NULL, "%s", e.msg);
	return l;
}

struct rows {
	int n, seen[8];
	char answer[8][16], hash[8][72], created[8][24];
};

static int
take_row(void *ctx, const struct hd_store_progress *row)
{
	struct rows *r = ctx;

	ck_assert_int_lt(r->n, 8);
	r->seen[r->n] = row->seen;
	snprintf(r->answer[r->n], sizeof r->answer[0], "%s", row->answer);
	snprintf(r->hash[r->n], sizeof r->hash[0], "%s", row->lesson_hash ? row->lesson_hash : "-");
	snprintf(r->created[r->n], sizeof r->created[0], "%s", row->created);
	r->n++;
	return 0;
}

struct snaps {
	int n;
	struct hd_store_snapshot *last;
};

/* Keep a copy of the version read back (through a fresh snapshot of the
 * same shape), checked field by field by the caller. */
static int
take_snap(void *ctx, const struct hd_store_snapshot *snap)
{
	struct snaps *v = ctx;
	struct hd_store_snapshot *c = hd_xcalloc(1, sizeof *c);
	int i, k;

	c->hash = hd_xstrdup(snap->hash);
	c->lesson = hd_xstrdup(snap->lesson);
	c->title = hd_xstrdup(snap->title);
	c->nquestions = snap->nquestions;
	c->questions = hd_xcalloc((size_t)snap->nquestions + 1, sizeof *c->questions);
	for (i = 0; i < snap->nquestions; i++) {
		const struct hd_store_snap_question *q = &snap->questions[i];
		struct hd_store_snap_question *cq = &c->questions[i];

		cq->id = hd_xstrdup(q->id);
		cq->kind = hd_xstrdup(q->kind);
		cq->prompt = hd_xstrdup(q->prompt);
		cq->answer = hd_xstrdup(q->answer);
		cq->points = q->points;
		cq->noptions = q->noptions;
		cq->options = hd_xcalloc((size_t)q->noptions + 1, sizeof *cq->options);
		for (k = 0; k < q->noptions; k++) {
			cq->options[k].id = hd_xstrdup(q->options[k].id);
			cq->options[k].text = hd_xstrdup(q->options[k].text);
			if (q->options[k].misconception != NULL)
				cq->options[k].misconception = hd_xstrdup(
				    q->options[k].misconception);
		}
	}
	hd_store_snapshot_free(v->last);
	v->last = c;
	v->n++;
	return 0;
}

/* A database of schema 2 with answers opens, migrates in place and keeps
 * every answer (seen not known, no version); new answers carry both. */
START_TEST(v2_database_migrates_keeping_answers)
{
	struct hd_err e = { 0 };
	char *p = path_in("v2.db"), sql[128];
	struct hd_lesson *l = graded();
	struct hd_store_snapshot *snap = hd_store_snapshot_of(l);
	struct hd_store_progress a = { .learner = "ada",
				       .lesson = "graded",
				       .question = "q1",
				       .answer = "a",
				       .correct = 1,
				       .seen = 1,
				       .snapshot = snap };
	struct hd_store *s;
	struct rows r;
	struct snaps v = { 0, NULL };
	struct learner_ids ids;

	raw_exec(p, v1_schema);
	raw_exec(p, v2_extra);
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = 2",
		 HD_STORE_APP_ID);
	raw_exec(p, sql);
	raw_exec(p,
		 "INSERT INTO learners (name) VALUES ('ada');"
		 "INSERT INTO progress (learner_id, lesson, question, answer, correct, confidence,"
		 " seconds, hints, version, created) VALUES"
		 " (1, 'graded', 'q1', 'b', 0, 5, 3.5, 1, '0.1.0', '2026-01-02T03:04:05Z'),"
		 " (1, 'graded', 'q1', 'a', 1, 4, 2, 0, '0.1.0', '2026-01-03T03:04:05Z')");
	ck_assert_ptr_null(hd_store_open(p, HD_STORE_RO, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "needs upgrading"));

	s = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_schema_version(s), HD_STORE_SCHEMA);
	memset(&r, 0, sizeof r);
	ck_assert_int_eq(hd_store_progress_each(s, NULL, NULL, take_row, &r, &e), 0);
	ck_assert_int_eq(r.n, 2);
	ck_assert_str_eq(r.answer[1], "b");
	ck_assert_str_eq(r.created[1], "2026-01-02T03:04:05Z");
	ck_assert_int_eq(r.seen[0], -1);
	ck_assert_int_eq(r.seen[1], -1);
	ck_assert_str_eq(r.hash[0], "-");
	/* a new attempt keeps whether the run was seen and the version */
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), 0);
	a.seen = 0;
	a.question = "q2";
	a.answer = "y x";
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), 0);
	ck_assert_int_eq(hd_store_check(s, &e), 0);
	memset(&r, 0, sizeof r);
	ck_assert_int_eq(hd_store_progress_each(s, NULL, NULL, take_row, &r, &e), 0);
	ck_assert_int_eq(r.n, 4);
	ck_assert_int_eq(r.seen[0], 0);
	ck_assert_int_eq(r.seen[1], 1);
	ck_assert_str_eq(r.hash[0], hd_lesson_hash(l));
	ck_assert_int_eq(hd_store_snapshots_each(s, take_snap, &v, &e), 0);
	ck_assert_int_eq(v.n, 1); /* one version, stored once */
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "snapshot_questions"), 3);
	ck_assert_int_eq(count_rows(p, "snapshot_options"), 4);
	/* through schema 3 to 4 (and on): the learner has no roster id yet,
	 * and may give one */
	ck_assert_int_eq(raw_version(p), HD_STORE_SCHEMA);
	s = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	memset(&ids, 0, sizeof ids);
	ck_assert_int_eq(hd_store_learners_each(s, see_learner, &ids, &e), 0);
	ck_assert_int_eq(ids.n, 1);
	ck_assert_str_eq(ids.id[0], "(none)");
	ck_assert_msg(hd_store_learner_set_roster_id(s, "ada", "s1234567", &e) == 0, "%s", e.msg);
	hd_store_close(s);
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	memset(&ids, 0, sizeof ids);
	ck_assert_int_eq(hd_store_learners_each(s, see_learner, &ids, &e), 0);
	ck_assert_str_eq(ids.id[0], "s1234567");
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "progress"), 4);
	hd_store_snapshot_free(v.last);
	hd_store_snapshot_free(snap);
	hd_lesson_free(l);
	free(p);
}
END_TEST

/* A database of schema 3 (attempts as history and lesson versions, before
 * roster ids) with answers and a stored version opens, migrates to schema 4
 * (and on) in place and keeps every answer, whether its run was seen, and the version
 * with its questions; its learners have no roster id until they give one. */
START_TEST(v3_database_migrates_to_roster_ids)
{
	struct hd_err e = { 0 };
	char *p = path_in("v3.db"), sql[400], hash[65];
	struct hd_store *s;
	struct rows r;
	struct snaps v = { 0, NULL };
	struct learner_ids ids;

	memset(hash, 'c', 64);
	hash[64] = '\0';
	raw_exec(p, v1_schema);
	raw_exec(p, v2_extra);
	raw_exec(p, v3_extra);
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = 3",
		 HD_STORE_APP_ID);
	raw_exec(p, sql);
	snprintf(sql, sizeof sql,
		 "INSERT INTO lesson_snapshots (hash, lesson, title) VALUES ('%s', 'graded', 'G')",
		 hash);
	raw_exec(p, sql);
	snprintf(
	    sql, sizeof sql,
	    "INSERT INTO snapshot_questions VALUES ('%s', 0, 'q1', 'choice', 'Which?', 'a', 3)",
	    hash);
	raw_exec(p, sql);
	snprintf(sql, sizeof sql,
		 "INSERT INTO snapshot_options VALUES ('%s', 0, 0, 'a', 'A', NULL),"
		 " ('%s', 0, 1, 'b', 'B', 'thinks B')",
		 hash, hash);
	raw_exec(p, sql);
	raw_exec(p, "INSERT INTO learners (name) VALUES ('ada'), ('grace')");
	snprintf(sql, sizeof sql,
		 "INSERT INTO progress (learner_id, lesson, question, answer, correct, confidence,"
		 " seconds, hints, version, created, seen, lesson_hash) VALUES"
		 " (1, 'graded', 'q1', 'b', 0, 5, 3, 1, '0.1.0', '2026-01-02T03:04:05Z', 0, '%s')",
		 hash);
	raw_exec(p, sql);
	snprintf(sql, sizeof sql,
		 "INSERT INTO progress (learner_id, lesson, question, answer, correct, confidence,"
		 " seconds, hints, version, created, seen, lesson_hash) VALUES"
		 " (1, 'graded', 'q1', 'a', 1, 4, 2, 0, '0.1.0', '2026-01-03T03:04:05Z', 1, '%s')",
		 hash);
	raw_exec(p, sql);
	/* a read-only open needs no roster ids and so refuses to upgrade */
	ck_assert_ptr_null(hd_store_open(p, HD_STORE_RO, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "needs upgrading"));
	ck_assert_int_eq(raw_version(p), 3);

	s = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_schema_version(s), HD_STORE_SCHEMA);
	ck_assert_int_eq(hd_store_check(s, &e), 0);
	memset(&r, 0, sizeof r);
	ck_assert_int_eq(hd_store_progress_each(s, NULL, NULL, take_row, &r, &e), 0);
	ck_assert_int_eq(r.n, 2);
	ck_assert_str_eq(r.answer[0], "a");
	ck_assert_int_eq(r.seen[0], 1);
	ck_assert_str_eq(r.answer[1], "b");
	ck_assert_int_eq(r.seen[1], 0);
	ck_assert_str_eq(r.hash[1], hash);
	ck_assert_int_eq(hd_store_snapshots_each(s, take_snap, &v, &e), 0);
	ck_assert_int_eq(v.n, 1);
	ck_assert_int_eq(hd_store_snapshot_points(v.last), 3);
	ck_assert_str_eq(v.last->questions[0].options[1].misconception, "thinks B");
	memset(&ids, 0, sizeof ids);
	ck_assert_int_eq(hd_store_learners_each(s, see_learner, &ids, &e), 0);
	ck_assert_int_eq(ids.n, 2);
	ck_assert_str_eq(ids.id[0], "(none)");
	ck_assert_str_eq(ids.id[1], "(none)");
	ck_assert_msg(hd_store_learner_set_roster_id(s, "grace", "ghopper", &e) == 0, "%s", e.msg);
	hd_store_close(s);
	ck_assert_int_eq(raw_version(p), HD_STORE_SCHEMA);

	/* opened again: nothing to do, the id kept, the answers all there */
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	memset(&ids, 0, sizeof ids);
	ck_assert_int_eq(hd_store_learners_each(s, see_learner, &ids, &e), 0);
	ck_assert_str_eq(ids.name[1], "grace");
	ck_assert_str_eq(ids.id[1], "ghopper");
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "progress"), 2);
	ck_assert_int_eq(count_rows(p, "snapshot_options"), 2);
	hd_store_snapshot_free(v.last);
	free(p);
}
END_TEST

/* A measured run's repeats: stored with it, in one transaction, and read
 * back as they were (by hd_store_run_repeats and with the run's info); a
 * simulated run has none; repeats hdsim would not read back are refused
 * and store nothing. */
START_TEST(repeats_round_trip)
{
	static const hd_time ms[] = { 12310 * HD_US, 12580 * HD_US, 12100 * HD_US, 12400 * HD_US,
				      12200 * HD_US },
			     bare[] = { 12010 * HD_US, 12280 * HD_US, 11800 * HD_US, 12100 * HD_US,
					11900 * HD_US },
			     bad[] = { 1, 2, -1, 4, 5 },
			     huge[] = { 1, 2, HD_STORE_TIME_LIMIT, 4, 5 };
	struct hd_err e = { 0 };
	char *p = path_in("reps.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_trace *t = sample_trace();
	struct hd_store_run r = { .lesson = "pinned-vs-pageable",
				  .scenario = "pinned",
				  .backend = "cuda",
				  .source = "measured",
				  .status = "ok",
				  .warmup = 1,
				  .repeats = 5,
				  .rep_makespan = ms,
				  .rep_bare = bare,
				  .nrep = 5,
				  .timer = "cuda-events+host-clock" };
	struct hd_store_repeats back;
	struct hd_store_run_info info;
	int64_t id = 0, id2 = 0, id3 = 0;
	int i;

	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_msg(hd_store_run_insert(s, &r, t, NULL, 0, &id, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(hd_store_run_repeats(s, id, &back, &e), 0);
	ck_assert_int_eq(back.n, 5);
	ck_assert_ptr_nonnull(back.bare);
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(back.makespan[i], ms[i]); /* in repeat order, not sorted */
		ck_assert_int_eq(back.bare[i], bare[i]);
	}
	hd_store_repeats_free(&back);
	hd_store_repeats_free(&back); /* twice: it was emptied */
	hd_store_repeats_free(NULL);
	ck_assert_int_eq(hd_store_run_info(s, id, &info, &e), 0);
	ck_assert_int_eq(info.reps.n, 5);
	ck_assert_int_eq(info.reps.makespan[4], ms[4]);
	ck_assert_int_eq(info.reps.bare[2], bare[2]);
	hd_store_run_info_free(&info);

	/* several ranks: no repeats without per-op events */
	r.rep_bare = NULL;
	r.repeats = r.nrep = 3;
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, &id2, &e), 0);
	ck_assert_int_eq(hd_store_run_repeats(s, id2, &back, &e), 0);
	ck_assert_int_eq(back.n, 3);
	ck_assert_ptr_null(back.bare);
	ck_assert_int_eq(back.makespan[2], ms[2]);
	hd_store_repeats_free(&back);

	/* the model's run: none */
	r.backend = "sim";
	r.source = "predicted";
	r.repeats = 1;
	r.rep_makespan = NULL;
	r.nrep = 0;
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, &id3, &e), 0);
	ck_assert_int_eq(hd_store_run_info(s, id3, &info, &e), 0);
	ck_assert_int_eq(info.reps.n, 0);
	ck_assert_ptr_null(info.reps.makespan);
	ck_assert_ptr_null(info.reps.bare);
	hd_store_run_info_free(&info);

	/* refused, and nothing of the run stored */
	r.backend = "cuda";
	r.source = "measured";
	r.repeats = 5;
	r.rep_makespan = ms;
	r.nrep = 4;
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), -1);
	ck_assert_msg(strstr(e.msg, "the makespans of 4 repeats were given for a run of 5") != NULL,
		      "%s", e.msg);
	r.nrep = 5;
	r.rep_makespan = bad;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), -1);
	ck_assert_msg(strstr(e.msg, "repeat 2's makespan is out of range") != NULL, "%s", e.msg);
	r.rep_makespan = ms;
	r.rep_bare = huge;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), -1);
	ck_assert_msg(strstr(e.msg, "repeat 2's makespan is out of range") != NULL, "%s", e.msg);
	r.rep_bare = NULL;
	r.rep_makespan = NULL;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), -1);
	r.repeats = r.nrep = HD_STORE_REPEATS_MAX + 1;
	r.rep_makespan = ms;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), -1);
	ck_assert_msg(strstr(e.msg, "at most 100000") != NULL, "%s", e.msg);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_store_run_repeats(s, 999, &back, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "no run 999"));
	ck_assert_int_eq(back.n, 0);
	ck_assert_int_eq(hd_store_check(s, &e), 0);
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "runs"), 3);
	ck_assert_int_eq(count_rows(p, "run_repeats"), 8);
	ck_assert_int_eq(count_rows(p, "spans"), 9);
	ck_assert_int_eq(hd_test_count(p, "SELECT count(*) FROM run_repeats WHERE bare_ps IS NULL"),
			 3);
	hd_trace_free(t);
	free(p);
}
END_TEST

/* A database of schema 4 (as released: before repeats) with a measured run
 * opens, migrates to schema 5 in place and keeps the run, which has no
 * repeats; new runs store theirs.  A read-only open cannot upgrade it. */
START_TEST(v4_database_migrates_to_repeats)
{
	static const hd_time ms[] = { 3 * HD_MS, 5 * HD_MS, 4 * HD_MS };
	struct hd_err e = { 0 };
	char *p = path_in("v4.db"), sql[128];
	struct hd_store *s;
	struct hd_store_run_info info;
	struct hd_store_repeats back;
	struct hd_trace *t = sample_trace(), *old;
	struct hd_store_run r = { .lesson = "pinned-vs-pageable",
				  .scenario = "pinned",
				  .backend = "cuda",
				  .source = "measured",
				  .status = "ok",
				  .warmup = 1,
				  .repeats = 3,
				  .rep_makespan = ms,
				  .nrep = 3 };
	int64_t id = 0;

	raw_exec(p, v1_schema);
	raw_exec(p, v2_extra);
	raw_exec(p, v3_extra);
	raw_exec(p, v4_extra);
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = 4",
		 HD_STORE_APP_ID);
	raw_exec(p, sql);
	raw_exec(p,
		 "INSERT INTO runs (lesson, scenario, backend, source, version, status,"
		 " makespan_ps, warmup, repeats, timer) VALUES ('old-lesson', 'pinned', 'cuda',"
		 " 'measured', '0.4.0', 'ok', 4809000, 1, 5, 'cuda-events');"
		 "INSERT INTO lanes VALUES (1, 0, 1, 0, 0, 'CUDA API');"
		 "INSERT INTO spans (run_id, seq, lane, op, iter, kind, start_ps, end_ps,"
		 " device, bytes, label) VALUES (1, 0, 0, 0, 0, 'api', 0, 4809000, 0, 0,"
		 " 'cudaMemcpy');"
		 "INSERT INTO learners (name, roster_id) VALUES ('ada', 's1')");
	ck_assert_ptr_null(hd_store_open(p, HD_STORE_RO, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "has schema version 4 and needs upgrading to 5"));
	ck_assert_int_eq(raw_version(p), 4);

	s = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_schema_version(s), 5);
	ck_assert_int_eq(hd_store_check(s, &e), 0);
	/* the old run: whole, no repeats */
	ck_assert_msg(hd_store_run_info(s, 1, &info, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(info.repeats, 5);
	ck_assert_int_eq(info.makespan, 4809000);
	ck_assert_int_eq(info.reps.n, 0);
	hd_store_run_info_free(&info);
	old = hd_store_run_trace(s, 1, &e);
	ck_assert_msg(old != NULL, "%s", e.msg);
	ck_assert_uint_eq(old->nspans, 1);
	hd_trace_free(old);
	/* a new one keeps its own */
	ck_assert_msg(hd_store_run_insert(s, &r, t, NULL, 0, &id, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(id, 2);
	hd_store_close(s);
	ck_assert_int_eq(raw_version(p), 5);

	/* opened again, read-only: nothing to do, both runs as stored */
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_run_repeats(s, 1, &back, &e), 0);
	ck_assert_int_eq(back.n, 0);
	ck_assert_int_eq(hd_store_run_repeats(s, 2, &back, &e), 0);
	ck_assert_int_eq(back.n, 3);
	ck_assert_int_eq(back.makespan[1], 5 * HD_MS);
	ck_assert_ptr_null(back.bare);
	hd_store_repeats_free(&back);
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "learners"), 1);
	ck_assert_int_eq(count_rows(p, "run_repeats"), 3);
	hd_trace_free(t);
	free(p);
}
END_TEST

/* The version read back is the lesson's: questions, options, answers,
 * points and misconceptions; answers that do not fit it are refused and
 * store nothing. */
START_TEST(snapshot_read_back_and_refused)
{
	struct hd_err e = { 0 };
	char *p = path_in("snap.db");
	struct hd_lesson *l = graded();
	struct hd_store_snapshot *snap = hd_store_snapshot_of(l);
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_store_progress a = { .learner = "ada",
				       .lesson = "graded",
				       .question = "q3",
				       .answer = "2ms",
				       .correct = 0,
				       .snapshot = snap };
	struct snaps v = { 0, NULL };
	const struct hd_store_snap_question *q;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(hd_store_snapshot_points(snap), 4);
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), 0);
	ck_assert_int_eq(hd_store_snapshots_each(s, take_snap, &v, &e), 0);
	ck_assert_int_eq(v.n, 1);
	ck_assert_str_eq(v.last->hash, hd_lesson_hash(l));
	ck_assert_str_eq(v.last->lesson, "graded");
	ck_assert_str_eq(v.last->title, "Graded <b>");
	ck_assert_int_eq(v.last->nquestions, 3);
	q = &v.last->questions[0];
	ck_assert_str_eq(q->id, "q1");
	ck_assert_str_eq(q->kind, "choice");
	ck_assert_str_eq(q->prompt, "Which?");
	ck_assert_str_eq(q->answer, "a");
	ck_assert_int_eq(q->points, 3);
	ck_assert_int_eq(q->noptions, 2);
	ck_assert_ptr_null(q->options[0].misconception);
	ck_assert_str_eq(q->options[1].misconception, "thinks B");
	ck_assert_str_eq(q->options[1].text, "B");
	ck_assert_str_eq(v.last->questions[1].answer, "y x");
	ck_assert_int_eq(v.last->questions[1].points, 1);
	ck_assert_ptr_nonnull(strstr(v.last->questions[2].answer, "makespan(s)"));
	ck_assert_int_eq(v.last->questions[2].points, 0);
	ck_assert_int_eq(hd_store_snapshot_points(v.last), 4);
	ck_assert_int_eq(hd_store_snapshot_find(v.last, "q2"), 1);
	ck_assert_int_eq(hd_store_snapshot_find(v.last, "q9"), -1);

	/* another lesson's version, a question it lacks: refused, nothing kept */
	a.lesson = "other";
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "the lesson stored with the answer is 'graded'"));
	a.lesson = "graded";
	a.question = "q9";
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "has no question 'q9'"));
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "progress"), 1);

	/* a version another program wrote past what hdsim writes is refused */
	raw_exec(p,
		 "PRAGMA ignore_check_constraints = ON;"
		 " INSERT INTO snapshot_options (hash, question_idx, idx, option, text)"
		 " SELECT hash, 0, 9, 'z', 'Z' FROM lesson_snapshots");
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_snapshots_each(s, take_snap, &v, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "not a database hdsim wrote"));
	hd_store_close(s);
	raw_exec(p,
		 "PRAGMA foreign_keys = OFF; DELETE FROM snapshot_options WHERE idx = 9;"
		 " UPDATE lesson_snapshots SET hash = upper(hash)");
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_snapshots_each(s, take_snap, &v, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "not 64 hex digits"));
	hd_store_close(s);
	raw_exec(p, "UPDATE progress SET lesson_hash = 'x'");
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_progress_each(s, NULL, NULL, take_row, &(struct rows){ 0 }, &e),
			 -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "lesson_hash"));
	hd_store_close(s);
	hd_store_snapshot_free(v.last);
	hd_store_snapshot_free(snap);
	hd_lesson_free(l);
	free(p);
}
END_TEST

START_TEST(learner_found_or_created)
{
	struct hd_err e = { 0 };
	char *p = path_in("learners.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	char longest[HD_STORE_NAME_MAX + 2];
	int64_t a = 0, a2 = 0, b = 0, z = 0;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(hd_store_learner(s, "ada", &a, &e), 0);
	ck_assert_int_eq(hd_store_learner(s, "grace", &b, &e), 0);
	ck_assert_int_eq(hd_store_learner(s, "ada", &a2, &e), 0);
	ck_assert_int_gt(a, 0);
	ck_assert_int_eq(a, a2);
	ck_assert_int_ne(a, b);
	ck_assert_int_eq(hd_store_learner(s, "Zo\xc3\xab", &z, &e), 0);

	memset(longest, 'x', sizeof longest);
	longest[HD_STORE_NAME_MAX] = '\0';
	ck_assert_int_eq(hd_store_learner(s, longest, NULL, &e), 0);
	longest[HD_STORE_NAME_MAX] = 'x';
	longest[HD_STORE_NAME_MAX + 1] = '\0';
	ck_assert_int_eq(hd_store_learner(s, longest, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "at most 64"));
	ck_assert_int_eq(hd_store_learner(s, "", NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "needs a name"));
	ck_assert_int_eq(hd_store_learner(s, NULL, NULL, &e), -1);
	ck_assert_int_eq(hd_store_learner(s, "a\tb", NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "control character"));
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "learners"), 4);

	/* A read-only store creates no one. */
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(hd_store_learner(s, "newcomer", NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "read-only"));
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "learners"), 4);
	free(p);
}
END_TEST

/* Rows seen by hd_store_progress_each, copied out. */
struct seen {
	int n, stop_after;
	int64_t id[16];
	char learner[16][16], lesson[16][16], question[16][16], answer[16][16];
	int correct[16], confidence[16], hints[16];
	double seconds[16];
	int has_profile[16];
};

static int
see(void *ctx, const struct hd_store_progress *r)
{
	struct seen *v = ctx;
	int i = v->n++;

	ck_assert_int_lt(i, 16);
	ck_assert_ptr_nonnull(r->created);
	/* UTC, ISO 8601: 2026-11-22T05:50:01Z */
	ck_assert_int_eq((int)strlen(r->created), 20);
	ck_assert_int_eq(r->created[10], 'T');
	ck_assert_int_eq(r->created[19], 'Z');
	v->id[i] = r->id;
	snprintf(v->learner[i], sizeof v->learner[i], "%s", r->learner);
	snprintf(v->lesson[i], sizeof v->lesson[i], "%s", r->lesson);
	snprintf(v->question[i], sizeof v->question[i], "%s", r->question);
	snprintf(v->answer[i], sizeof v->answer[i], "%s", r->answer);
	v->correct[i] = r->correct;
	v->confidence[i] = r->confidence;
	v->hints[i] = r->hints;
	v->seconds[i] = r->seconds;
	v->has_profile[i] = r->profile != NULL;
	return v->stop_after > 0 && v->n >= v->stop_after;
}

static void
add_ok(struct hd_store *s, const char *who, const char *lesson, const char *q, const char *ans,
       int correct, int conf, double secs, int hints, int64_t *id)
{
	struct hd_err e = { 0 };
	struct hd_store_progress p = { .learner = who,
				       .lesson = lesson,
				       .question = q,
				       .answer = ans,
				       .correct = correct,
				       .confidence = conf,
				       .seconds = secs,
				       .hints = hints,
				       .profile = "h100-sxm" };

	ck_assert_msg(hd_store_progress_add(s, &p, id, &e) == 0, "%s", e.msg);
}

START_TEST(progress_add_list_reset)
{
	struct hd_err e = { 0 };
	char *p = path_in("progress.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_store_progress none = {
		.learner = "ada", .lesson = "a", .question = "q", .answer = "x", .correct = -1
	};
	struct seen v;
	int64_t ids[6], gone = -1;
	int i;

	ck_assert_ptr_nonnull(s);
	add_ok(s, "ada", "a", "q1", "yes", 1, 4, 12.5, 0, &ids[0]);
	add_ok(s, "ada", "a", "q2", "3 ms", 0, 2, 30.25, 1, &ids[1]);
	add_ok(s, "grace", "a", "q1", "no", 0, 5, 4, 0, &ids[2]);
	add_ok(s, "ada", "b", "q1", "first", 1, 0, 0, 3, &ids[3]);
	add_ok(s, "ada", "a", "q2", "5 ms", 1, 3, 8, 2, &ids[4]); /* a second try */
	ck_assert_int_eq(hd_store_progress_add(s, &none, &ids[5], &e), 0);
	for (i = 1; i < 6; i++)
		ck_assert_int_gt(ids[i], ids[i - 1]);

	/* One learner, every lesson, newest first, every field as stored. */
	memset(&v, 0, sizeof v);
	ck_assert_int_eq(hd_store_progress_each(s, "ada", NULL, see, &v, &e), 0);
	ck_assert_int_eq(v.n, 5);
	ck_assert_int_eq(v.id[0], ids[5]);
	ck_assert_int_eq(v.id[1], ids[4]);
	ck_assert_int_eq(v.id[4], ids[0]);
	ck_assert_int_eq(v.correct[0], -1);   /* not gradable reads back as -1 */
	ck_assert_int_eq(v.confidence[0], 0); /* none given reads back as 0 */
	ck_assert_int_eq(v.has_profile[0], 0);
	ck_assert_str_eq(v.answer[1], "5 ms");
	ck_assert_int_eq(v.correct[1], 1);
	ck_assert_int_eq(v.confidence[1], 3);
	ck_assert_int_eq(v.hints[1], 2);
	ck_assert_str_eq(v.lesson[2], "b");
	ck_assert_int_eq(v.hints[2], 3);
	ck_assert_str_eq(v.question[3], "q2");
	ck_assert_int_eq(v.correct[3], 0);
	ck_assert(v.seconds[3] == 30.25);
	ck_assert_int_eq(v.has_profile[3], 1);
	for (i = 0; i < v.n; i++)
		ck_assert_str_eq(v.learner[i], "ada");

	/* One lesson, every learner; and stopping early. */
	memset(&v, 0, sizeof v);
	ck_assert_int_eq(hd_store_progress_each(s, NULL, "a", see, &v, &e), 0);
	ck_assert_int_eq(v.n, 5);
	ck_assert_str_eq(v.learner[2], "grace");
	memset(&v, 0, sizeof v);
	v.stop_after = 2;
	ck_assert_int_eq(hd_store_progress_each(s, NULL, NULL, see, &v, &e), 0);
	ck_assert_int_eq(v.n, 2);
	memset(&v, 0, sizeof v);
	ck_assert_int_eq(hd_store_progress_each(s, "nobody", NULL, see, &v, &e), 0);
	ck_assert_int_eq(v.n, 0);
	hd_store_close(s);

	/* The latest answer per learner, lesson and question: ada's second try at
	 * a/q2 replaces her first; the not-gradable a/q is its own question. */
	ck_assert_int_eq(count_rows(p, "progress_latest"), 5);
	ck_assert_int_eq(count_rows(p,
				    "progress_latest WHERE learner = 'ada' AND"
				    " question = 'q2' AND answer = '5 ms'"),
			 1);

	s = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_ptr_nonnull(s);
	/* One lesson of one learner; grace's answer to the same lesson stays. */
	ck_assert_int_eq(hd_store_progress_reset(s, "ada", "b", &gone, &e), 0);
	ck_assert_int_eq(gone, 1);
	ck_assert_int_eq(hd_store_progress_reset(s, "ada", "b", &gone, &e), 0);
	ck_assert_int_eq(gone, 0);
	ck_assert_int_eq(hd_store_progress_reset(s, "ada", NULL, &gone, &e), 0);
	ck_assert_int_eq(gone, 4);
	/* An unknown learner has nothing to remove and is not created. */
	ck_assert_int_eq(hd_store_progress_reset(s, "nobody", NULL, &gone, &e), 0);
	ck_assert_int_eq(gone, 0);
	ck_assert_int_eq(hd_store_progress_reset(s, "", NULL, &gone, &e), -1);
	memset(&v, 0, sizeof v);
	ck_assert_int_eq(hd_store_progress_each(s, NULL, NULL, see, &v, &e), 0);
	ck_assert_int_eq(v.n, 1);
	ck_assert_str_eq(v.learner[0], "grace");
	ck_assert_int_eq(hd_store_check(s, &e), 0);
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "learners"), 2);
	free(p);
}
END_TEST

START_TEST(progress_bad_inputs_refused)
{
	struct hd_err e = { 0 };
	char *p = path_in("bad.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	const struct hd_store_progress good = { .learner = "ada",
						.lesson = "a",
						.question = "q",
						.answer = "yes",
						.correct = 1,
						.confidence = 3,
						.seconds = 1.5,
						.hints = 0 };
	/* learner, lesson, question, answer, correct, confidence, seconds, hints,
	 * profile, seen, snapshot, id, created, lesson_hash */
	static const struct {
		struct hd_store_progress p;
		const char *why;
	} cases[] = {
		{ { "ada", "a", "q", "yes", 1, 6, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "confidence is 6" },
		{ { "ada", "a", "q", "yes", 1, -1, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "confidence is -1" },
		{ { "ada", "a", "q", "yes", 1, 3, -1, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "time taken" },
		{ { "ada", "a", "q", "yes", 1, 3, NAN, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "time taken" },
		{ { "ada", "a", "q", "yes", 1, 3, INFINITY, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "time taken" },
		{ { "ada", "a", "q", "yes", 2, 3, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "correct is 2" },
		{ { "ada", "a", "q", "yes", -2, 3, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "correct is -2" },
		{ { "ada", "a", "q", "yes", 1, 3, 1.5, -1, NULL, 0, NULL, 0, NULL, NULL },
		  "hints shown is -1" },
		{ { "ada", "", "q", "yes", 1, 3, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "needs its lesson" },
		{ { "ada", NULL, "q", "yes", 1, 3, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "needs its lesson" },
		{ { "ada", "a", "", "yes", 1, 3, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "needs its question" },
		{ { "ada", "a", "q", NULL, 1, 3, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "needs its answer" },
		{ { "", "a", "q", "yes", 1, 3, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "needs a name" },
		{ { NULL, "a", "q", "yes", 1, 3, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "needs a name" },
		{ { "a\nb", "a", "q", "yes", 1, 3, 1.5, 0, NULL, 0, NULL, 0, NULL, NULL },
		  "control character" },
		{ { "ada", "a", "q", "yes", 1, 3, 1.5, 0, NULL, 2, NULL, 0, NULL, NULL },
		  "seen is 2" },
	};
	size_t i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < HD_ARRAY_LEN(cases); i++) {
		memset(&e, 0, sizeof e);
		ck_assert_msg(hd_store_progress_add(s, &cases[i].p, NULL, &e) == -1,
			      "case %zu accepted", i);
		ck_assert_msg(strstr(e.msg, cases[i].why) != NULL, "case %zu: '%s' lacks '%s'", i,
			      e.msg, cases[i].why);
		ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	}
	/* The limits themselves are accepted. */
	{
		struct hd_store_progress b = good;

		b.confidence = 5;
		b.seconds = 0;
		ck_assert_int_eq(hd_store_progress_add(s, &b, NULL, &e), 0);
		b.confidence = 1;
		b.correct = 0;
		ck_assert_int_eq(hd_store_progress_add(s, &b, NULL, &e), 0);
	}
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "progress"), 2);
	ck_assert_int_eq(count_rows(p, "learners"), 1);

	/* Nothing is written through a read-only handle. */
	s = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(hd_store_progress_add(s, &good, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "read-only"));
	ck_assert_int_eq(hd_store_progress_reset(s, "ada", NULL, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "read-only"));
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "progress"), 2);
	free(p);
}
END_TEST

START_TEST(progress_failed_write_leaves_nothing)
{
	struct hd_err e = { 0 };
	char *p = path_in("fail.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_store_progress a = {
		.learner = "ada", .lesson = "a", .question = "q1", .answer = "yes", .correct = 1
	};
	int64_t gone = -1;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), 0);
	a.question = "q2";
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), 0);
	hd_store_close(s);
	/* The database refuses answers to lesson "locked" after the learner row is
	 * written, and deleting q2: each write must roll back as a whole.  (The
	 * triggers come while the store is open: an open refuses them.) */
	s = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_ptr_nonnull(s);
	raw_exec(p,
		 "CREATE TRIGGER no_locked BEFORE INSERT ON progress"
		 " WHEN new.lesson = 'locked' BEGIN SELECT RAISE(ABORT, 'lesson is locked'); END;"
		 "CREATE TRIGGER keep_q2 BEFORE DELETE ON progress"
		 " WHEN old.question = 'q2' BEGIN SELECT RAISE(ABORT, 'q2 is kept'); END;");
	a.learner = "newcomer";
	a.lesson = "locked";
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "INSERT INTO progress"));
	ck_assert_ptr_nonnull(strstr(e.msg, "lesson is locked"));
	ck_assert_int_eq(hd_store_progress_reset(s, "ada", NULL, &gone, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "q2 is kept"));
	ck_assert_int_eq(gone, -1);
	/* The store is still usable after the rollbacks. */
	a.lesson = "open";
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), 0);
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "progress"), 3);
	ck_assert_int_eq(count_rows(p, "learners"), 2);
	ck_assert_int_eq(count_rows(p, "progress WHERE lesson = 'locked'"), 0);
	free(p);
}
END_TEST

static int
count_answers(void *ctx, const struct hd_store_progress *row)
{
	int *n = ctx;

	ck_assert_ptr_nonnull(row->created);
	(*n)++;
	return 0;
}

static int
side_files(const char *p)
{
	static const char *const suffixes[] = { "-wal", "-shm", "-journal" };
	char side[256];
	size_t i;
	int n = 0;

	for (i = 0; i < HD_ARRAY_LEN(suffixes); i++) {
		snprintf(side, sizeof side, "%s%s", p, suffixes[i]);
		n += access(side, F_OK) == 0;
	}
	return n;
}

/* A read-only open sets no journal mode and leaves no file beside the
 * database; while a writer holds its log open, a reader sees what the log
 * holds; a writer sets WAL at its first write, not on open. */
START_TEST(read_only_open_leaves_nothing)
{
	struct hd_err e = { 0 };
	char *p = path_in("ro.db"), *before, *after;
	struct hd_store_progress a = {
		.learner = "ada", .lesson = "l", .question = "q", .answer = "yes", .correct = 1
	};
	struct hd_store *w, *r;
	size_t nb, na;
	int n = 0;

	raw_exec(p, "PRAGMA journal_mode = DELETE");
	w = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_msg(w != NULL, "%s", e.msg);
	hd_store_close(w);
	/* creating the schema was a write: WAL (the header's read and write
	 * versions are 2) */
	before = slurp(p, &nb);
	ck_assert_uint_gt(nb, 100);
	ck_assert_int_eq(before[18], 2);
	ck_assert_int_eq(before[19], 2);
	ck_assert_int_eq(side_files(p), 0);
	r = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(r != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_progress_each(r, NULL, NULL, count_answers, &n, &e), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(side_files(p), 0);
	hd_store_close(r);
	ck_assert_int_eq(side_files(p), 0);
	after = slurp(p, &na);
	ck_assert_uint_eq(na, nb);
	ck_assert_mem_eq(before, after, nb);
	free(before);
	free(after);

	/* a writer that only reads leaves the journal mode as it found it */
	raw_exec(p, "PRAGMA journal_mode = DELETE");
	w = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_msg(w != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_progress_each(w, NULL, NULL, count_answers, &n, &e), 0);
	hd_store_close(w);
	before = slurp(p, &nb);
	ck_assert_int_eq(before[18], 1);
	free(before);

	/* a writer at work: its answer is in the log, and the reader sees it */
	w = hd_store_open(p, HD_STORE_RW, &e);
	ck_assert_msg(w != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_progress_add(w, &a, NULL, &e), 0);
	ck_assert_int_gt(side_files(p), 0);
	r = hd_store_open(p, HD_STORE_RO, &e);
	ck_assert_msg(r != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_progress_each(r, NULL, NULL, count_answers, &n, &e), 0);
	ck_assert_int_eq(n, 1);
	hd_store_close(r);
	hd_store_close(w);
	ck_assert_int_eq(side_files(p), 0);
	free(p);
}
END_TEST

/* A call's queries stop at its limit: a trigger that never ends (added
 * while the store is open; an open refuses it) fails the write in time. */
START_TEST(query_past_limit_is_stopped)
{
	struct hd_err e = { 0 };
	char *p = path_in("spin.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_store_progress a = {
		.learner = "ada", .lesson = "l", .question = "q", .answer = "yes", .correct = 1
	};
	time_t t0;

	ck_assert_msg(s != NULL, "%s", e.msg);
	raw_exec(p,
		 "CREATE TRIGGER spin AFTER INSERT ON progress BEGIN SELECT count(*) FROM"
		 " (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
		 " SELECT x FROM c); END");
	hd_store_limit(s, 0.5);
	t0 = time(NULL);
	ck_assert_int_eq(hd_store_progress_add(s, &a, NULL, &e), -1);
	ck_assert_int_le(time(NULL) - t0, 5);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	ck_assert_msg(strstr(e.msg, "ran past its limit of 0.5 s") != NULL, "%s", e.msg);
	hd_store_close(s);
	ck_assert_int_eq(count_rows(p, "progress"), 0);
	/* and the next open refuses the trigger outright */
	ck_assert_ptr_null(hd_store_open(p, HD_STORE_RO, &e));
	ck_assert_msg(strstr(e.msg, "has a trigger spin, which hdsim never makes") != NULL, "%s",
		      e.msg);
	free(p);
}
END_TEST

/* Values hdsim never writes are refused on read, naming the run and row. */
START_TEST(out_of_range_rows_refused)
{
	static const struct {
		const char *sql, *says;
	} cases[] = {
		{ "UPDATE spans SET start_ps = -9223372036854775808 WHERE seq = 1",
		  "run 1, span 1: start_ps is '-9223372036854775808', not an integer" },
		{ "UPDATE spans SET end_ps = 9223372036854775807 WHERE seq = 2",
		  "run 1, span 2: end_ps is '9223372036854775807'" },
		{ "UPDATE spans SET start_ps = end_ps + 1 WHERE seq = 0",
		  "run 1, span 0 ends (2000000 ps) before it starts (2000001 ps)" },
		{ "UPDATE spans SET bytes = -1 WHERE seq = 2", "run 1, span 2: bytes is '-1'" },
		{ "UPDATE spans SET kind = 'nap' WHERE seq = 0",
		  "run 1, span 0: kind is 'nap', not a kind of span" },
		{ "UPDATE lanes SET kind = 99 WHERE idx = 1", "run 1, lane 1: kind is '99'" },
		{ "UPDATE runs SET makespan_ps = -1", "run 1: makespan_ps is '-1'" },
		/* the repeats: CHECK constraints off, as a crafted file has them */
		{ "PRAGMA ignore_check_constraints = 1;"
		  " UPDATE run_repeats SET makespan_ps = -1 WHERE repeat = 1",
		  "run 1, repeat 1: makespan_ps is '-1', not an integer from 0 to" },
		{ "UPDATE run_repeats SET makespan_ps = 'soon' WHERE repeat = 2",
		  "run 1, repeat 2: makespan_ps is 'soon', not an integer" },
		{ "UPDATE run_repeats SET bare_ps = 9223372036854775807 WHERE repeat = 0",
		  "run 1, repeat 0: bare_ps is '9223372036854775807'" },
		{ "UPDATE run_repeats SET bare_ps = NULL WHERE repeat = 1",
		  "run 1, repeat 1: bare_ps is NULL, where the repeats before have one" },
		{ "UPDATE run_repeats SET repeat = 7 WHERE repeat = 2",
		  "run 1, repeat 2: its repeats are not numbered 0, 1, 2 ... each once" },
		{ "DELETE FROM run_repeats WHERE repeat = 2",
		  "run 1 has 2 repeats stored of the 3 it had" },
		{ "INSERT INTO run_repeats VALUES (1, 3, 5, 5)",
		  "run 1, repeat 3: the run had 3 repeats" },
		/* a run claiming 2^31 - 1 repeats allocates for its rows, no more */
		{ "UPDATE runs SET repeats = 2147483647",
		  "run 1 has 3 repeats stored of the 2147483647 it had" },
		{ "UPDATE runs SET repeats = -3", "run 1: repeats is '-3'" },
	};
	static const hd_time reps[] = { 2 * HD_MS, 3 * HD_MS, 4 * HD_MS },
			     bare[] = { 1 * HD_MS, 2 * HD_MS, 2 * HD_MS };
	struct hd_err e = { 0 };
	char *p = path_in("range.db"), *q = path_in("copy.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_trace *t = sample_trace(), *back;
	struct hd_store_run r = { .lesson = "l",
				  .scenario = "s",
				  .backend = "cuda",
				  .source = "measured",
				  .status = "ok",
				  .repeats = 3,
				  .rep_makespan = reps,
				  .rep_bare = bare,
				  .nrep = 3 };
	struct hd_store_run_info info;
	size_t i, n;
	char *bytes;

	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_store_run_insert(s, &r, t, NULL, 0, NULL, &e), 0);
	hd_store_close(s);
	bytes = slurp(p, &n);
	for (i = 0; i < HD_ARRAY_LEN(cases); i++) {
		FILE *f = fopen(q, "wb");

		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
		fclose(f);
		raw_exec(q, cases[i].sql);
		s = hd_store_open(q, HD_STORE_RO, &e);
		ck_assert_msg(s != NULL, "%s", e.msg);
		memset(&e, 0, sizeof e);
		back = hd_store_run_trace(s, 1, &e);
		if (back != NULL && hd_store_run_info(s, 1, &info, &e) == 0)
			hd_store_run_info_free(&info);
		ck_assert_msg(e.set && strstr(e.msg, cases[i].says) != NULL, "case %zu: '%s'", i,
			      e.msg);
		ck_assert_int_eq(e.status, HD_EXIT_INPUT);
		ck_assert_str_eq(e.where, q);
		hd_trace_free(back);
		hd_store_close(s);
	}
	free(bytes);
	hd_trace_free(t);
	free(p);
	free(q);
}
END_TEST

static Suite *
store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, create_insert_read_back);
	tcase_add_test(tc, listing_and_failed_insert_rolls_back);
	tcase_add_test(tc, foreign_files_left_untouched);
	tcase_add_test(tc, newer_schema_and_read_only);
	tcase_add_test(tc, default_path_follows_xdg);
	tcase_add_test(tc, v1_database_migrates_in_place);
	tcase_add_test(tc, v2_database_migrates_keeping_answers);
	tcase_add_test(tc, v3_database_migrates_to_roster_ids);
	tcase_add_test(tc, v4_database_migrates_to_repeats);
	tcase_add_test(tc, repeats_round_trip);
	tcase_add_test(tc, snapshot_read_back_and_refused);
	tcase_add_test(tc, learner_found_or_created);
	tcase_add_test(tc, learner_roster_ids);
	tcase_add_test(tc, progress_add_list_reset);
	tcase_add_test(tc, progress_bad_inputs_refused);
	tcase_add_test(tc, progress_failed_write_leaves_nothing);
	tcase_add_test(tc, read_only_open_leaves_nothing);
	tcase_add_test(tc, query_past_limit_is_stopped);
	tcase_add_test(tc, out_of_range_rows_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(store_suite());
}
