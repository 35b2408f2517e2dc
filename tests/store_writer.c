/*
 * store_writer.c - a test program that writes runs into a database, or
 * checks one, for tests/store_kill.sh.
 *
 *   store_writer write DB RUNS SPANS [LESSON]   insert RUNS runs of SPANS spans each
 *   store_writer check DB SPANS [LESSON]        integrity check; every run whole
 *
 * `check` prints the number of runs (of LESSON only, when named) and exits 1
 * if the database fails its integrity check or holds a run that is not whole
 * (a span or claim short).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

static int
write_runs(const char *db, int runs, int spans, const char *lesson)
{
	struct hd_err e = { 0 };
	struct hd_store *s = hd_store_open(db, HD_STORE_RW, &e);
	struct hd_trace *t = hd_trace_new();
	struct hd_store_claim claims[2] = {
		{ 0, "first", "makespan(a) > 0", 1, 1, 0, "holds" },
		{ 1, "second", "makespan(a) < 1s", 1, 1, 2, "holds" },
	};
	struct hd_store_run r = { .lesson = "kill",
				  .scenario = "writer",
				  .backend = "sim",
				  .source = "predicted",
				  .profile_name = "p",
				  .profile_text = "hdsim-profile 1\n",
				  .status = "ok" };
	int lane, i;

	r.lesson = lesson;
	if (s == NULL) {
		hd_err_print(&e, stderr);
		hd_trace_free(t);
		return 1;
	}
	lane = hd_trace_lane(t, HD_LANE_STREAM, 0, 2, "Stream 2 (s)");
	for (i = 0; i < spans; i++) {
		struct hd_span sp = { .lane = lane,
				      .op = i,
				      .kind = HD_SPAN_KERNEL,
				      .start = (hd_time)i * 1000,
				      .end = (hd_time)i * 1000 + 900,
				      .label = hd_trace_string(t, "k") };

		hd_trace_add(t, &sp);
	}
	for (i = 0; i < runs; i++) {
		if (hd_store_run_insert(s, &r, t, claims, 2, NULL, &e) != 0) {
			hd_err_print(&e, stderr);
			hd_store_close(s);
			hd_trace_free(t);
			return 1;
		}
	}
	hd_store_close(s);
	hd_trace_free(t);
	return 0;
}

static int
check(const char *db, int spans, const char *lesson)
{
	struct hd_err e = { 0 };
	struct hd_store *s = hd_store_open(db, HD_STORE_RW, &e);
	sqlite3 *h;
	sqlite3_stmt *st;
	int bad = 0, runs = 0;

	if (s == NULL || hd_store_check(s, &e) != 0) {
		hd_err_print(&e, stderr);
		hd_store_close(s);
		return 1;
	}
	hd_store_close(s);
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return 1;
	if (sqlite3_prepare_v2(
		h,
		"SELECT r.id, (SELECT count(*) FROM spans WHERE run_id = r.id),"
		" (SELECT count(*) FROM claim_results WHERE run_id = r.id),"
		" (SELECT count(*) FROM lanes WHERE run_id = r.id), r.lesson FROM runs r",
		-1, &st, NULL) != SQLITE_OK)
		return 1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (lesson == NULL || strcmp((const char *)sqlite3_column_text(st, 4), lesson) == 0)
			runs++;
		if (sqlite3_column_int(st, 1) != spans || sqlite3_column_int(st, 2) != 2 ||
		    sqlite3_column_int(st, 3) != 1) {
			fprintf(stderr, "run %d is not whole: %d spans, %d claims, %d lanes\n",
				sqlite3_column_int(st, 0), sqlite3_column_int(st, 1),
				sqlite3_column_int(st, 2), sqlite3_column_int(st, 3));
			bad = 1;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(h);
	printf("%d\n", runs);
	return bad;
}

int
main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "write") == 0)
		return write_runs(argv[2], atoi(argv[3]), atoi(argv[4]),
				  argc == 6 ? argv[5] : "kill");
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "check") == 0)
		return check(argv[2], atoi(argv[3]), argc == 5 ? argv[4] : NULL);
	fprintf(stderr,
		"usage: store_writer write DB RUNS SPANS [LESSON] | "
		"check DB SPANS [LESSON]\n");
	return 2;
}
