/*
 * check_store.c - the SQLite store: schema, one transaction per run, read
 * back, and refusal of files that are not ours (left untouched).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"
#include "testutil.h"

static char dir[64];

static void
setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/hdsim-store-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
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
	struct hd_span a = { .lane = api, .op = 0, .iter = 0, .kind = HD_SPAN_API,
			     .start = 0, .end = 2000000, .label = hd_trace_string(t, "cudaMemcpyAsync") };
	struct hd_span b = { .lane = api, .op = 1, .iter = 0, .kind = HD_SPAN_BLOCKED,
			     .why = HD_WHY_STREAM_SYNC, .start = 2000000, .end = 1344177280,
			     .label = hd_trace_string(t, "cudaStreamSynchronize") };
	struct hd_span c = { .lane = ce, .op = 0, .iter = 0, .kind = HD_SPAN_COPY,
			     .start = 4000000, .end = 1344177280, .bytes = 64u << 20,
			     .label = hd_trace_string(t, "up"), .spread = 12345 };

	hd_trace_add(t, &a);
	hd_trace_add(t, &b);
	hd_trace_add(t, &c);
	return t;
}

static int64_t
count_rows(const char *path, const char *table)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char sql[128];
	int64_t n = -1;

	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

START_TEST(create_insert_read_back)
{
	struct hd_err e = { 0 };
	char *p = path_in("runs.db");
	struct hd_store *s = hd_store_open(p, HD_STORE_RW, &e);
	struct hd_trace *t = sample_trace(), *back;
	struct hd_store_claim claims[] = {
		{ 0, "pinned is faster", "makespan(a) < makespan(b)", 1, 1.0, 2.0, "1 ms < 2 ms: holds" },
		{ 1, "not run", "makespan(c) > 0", -1, 0, 0, NULL },
	};
	struct hd_store_run r = { .lesson = "pinned-vs-pageable", .scenario = "pinned",
				  .params_json = "{\"size\": 67108864}", .backend = "sim",
				  .source = "predicted", .profile_name = "h100-sxm",
				  .profile_text = "hdsim-profile 1\n", .status = "ok",
				  .repeats = 1, .timer = "model" };
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
		ck_assert_int_eq(hd_store_profile_insert(s, "h100-sxm", "hdsim-profile 1\n", &p1, &e), 0);
		ck_assert_int_eq(hd_store_profile_insert(s, "cal", "hdsim-profile 1\nx\n", &p2, &e), 0);
		ck_assert_int_eq(hd_store_profile_insert(s, "cal", "hdsim-profile 1\nx\n", &p3, &e), 0);
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
	struct hd_store_run r = { .lesson = "l", .scenario = "s", .backend = "sim",
				  .source = "predicted", .profile_name = "h100-sxm",
				  .profile_text = "x", .status = "ok" };
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
	struct hd_store_run r = { .lesson = "l", .scenario = "s", .backend = "sim",
				  .source = "predicted", .status = "ok" };
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
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(store_suite());
}
