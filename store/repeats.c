/*
 * repeats.c - a measured run's repeats in the store: each repeat's makespan,
 * written with the run and read back checked (see store.h).
 *
 * A repeat row is (run, repeat, makespan_ps, bare_ps): the makespan as the
 * run's spans were timed, and the one without per-op events where that was
 * measured.  A run has none (simulated, or stored before schema 5) or one
 * row per repeat.  Every row read back is checked (read.c): repeats numbered
 * 0, 1, 2 ... each once, as many as the run says it had, times in range,
 * bare_ps on every row or on none.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_priv.h"

/* Are r's repeats ones hdsim would read back?  0, or -1 with e set. */
static int
repeats_ok(struct hd_store *s, const struct hd_store_run *r, struct hd_err *e)
{
	int i;

	if (r->nrep == 0)
		return 0;
	if (r->nrep < 0 || r->nrep > HD_STORE_REPEATS_MAX || r->rep_makespan == NULL) {
		hd_err_set(e, HD_EXIT_FAIL, s->path,
			   "a run of %d repeats cannot be stored: at most %d (and their makespans)",
			   r->nrep, HD_STORE_REPEATS_MAX);
		return -1;
	}
	if (r->nrep != r->repeats) {
		hd_err_set(e, HD_EXIT_FAIL, s->path,
			   "the makespans of %d repeats were given for a run of %d repeats",
			   r->nrep, r->repeats);
		return -1;
	}
	for (i = 0; i < r->nrep; i++)
		if (r->rep_makespan[i] < 0 || r->rep_makespan[i] >= HD_STORE_TIME_LIMIT ||
		    (r->rep_bare != NULL &&
		     (r->rep_bare[i] < 0 || r->rep_bare[i] >= HD_STORE_TIME_LIMIT))) {
			hd_err_set(e, HD_EXIT_FAIL, s->path,
				   "repeat %d's makespan is out of range (0 to %lld ps)", i,
				   (long long)HD_STORE_TIME_LIMIT - 1);
			return -1;
		}
	return 0;
}

int
store_insert_repeats(struct hd_store *s, int64_t run, const struct hd_store_run *r,
		     struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int i, rc = -1;

	if (repeats_ok(s, r, e) != 0)
		return -1;
	if (r->nrep == 0)
		return 0;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO run_repeats (run_id, repeat, makespan_ps, bare_ps)"
			       " VALUES (?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "sqlite3_prepare_v2(INSERT INTO run_repeats)");
		return -1;
	}
	for (i = 0; i < r->nrep; i++) {
		sqlite3_bind_int64(st, 1, run);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_int64(st, 3, r->rep_makespan[i]);
		if (r->rep_bare != NULL)
			sqlite3_bind_int64(st, 4, r->rep_bare[i]);
		if (store_step_done(s, st, "INSERT INTO run_repeats", e) != 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

void
hd_store_repeats_free(struct hd_store_repeats *r)
{
	if (r == NULL)
		return;
	free(r->makespan);
	free(r->bare);
	memset(r, 0, sizeof *r);
}

/* How many repeats run run_id says it had (runs.repeats), into *n. */
static int
run_repeat_count(struct hd_store *s, int64_t run_id, int *n, struct hd_err *e)
{
	static const struct store_field fields[] = {
		{ 0, "repeats", 0, INT_MAX, 0, 0 },
	};
	sqlite3_stmt *st = NULL;
	int64_t v[1];
	char what[48];
	int rc;

	if (store_run_row(s, "SELECT repeats FROM runs WHERE id = ?", run_id, &st, e) != 0)
		return -1;
	snprintf(what, sizeof what, "run %lld", (long long)run_id);
	rc = store_read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e);
	sqlite3_finalize(st);
	*n = (int)v[0];
	return rc;
}

/* One repeat row, the n-th of run_id's (of at most cap), into out: its
 * number n, its times in range, bare_ps there where the rows before have
 * one and only there. */
static int
read_repeat(struct hd_store *s, sqlite3_stmt *st, int64_t run_id, int cap,
	    struct hd_store_repeats *out, struct hd_err *e)
{
	static const struct store_field fields[] = {
		{ 0, "repeat", 0, INT_MAX, 0, 0 },
		{ 1, "makespan_ps", 0, HD_STORE_TIME_LIMIT - 1, 0, 0 },
		{ 2, "bare_ps", 0, HD_STORE_TIME_LIMIT - 1, 1, -1 },
	};
	int64_t v[3];
	char what[64];
	int i = out->n;

	snprintf(what, sizeof what, "run %lld, repeat %d", (long long)run_id, i);
	if (store_read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0)
		return -1;
	if (v[0] != i) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "%s: its repeats are not numbered 0, 1, 2 ... each once (repeat %lld "
			   "where %d belongs): this is not a database hdsim wrote",
			   what, (long long)v[0], i);
		return -1;
	}
	if (i > 0 && (v[2] < 0) != (out->bare == NULL))
		return store_bad_value(s, st, 2, what, "bare_ps",
				       out->bare == NULL ? "where the repeats before have none" :
							   "where the repeats before have one",
				       e);
	if (out->makespan == NULL)
		out->makespan = hd_xcalloc((size_t)cap, sizeof *out->makespan);
	if (i == 0 && v[2] >= 0)
		out->bare = hd_xcalloc((size_t)cap, sizeof *out->bare);
	out->makespan[i] = v[1];
	if (out->bare != NULL)
		out->bare[i] = v[2];
	return 0;
}

int
hd_store_run_repeats(struct hd_store *s, int64_t run_id, struct hd_store_repeats *out,
		     struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int want, cap, rc;

	memset(out, 0, sizeof *out);
	store_begin(s);
	if (run_repeat_count(s, run_id, &want, e) != 0)
		return -1;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT repeat, makespan_ps, bare_ps FROM run_repeats"
			       " WHERE run_id = ? ORDER BY repeat",
			       -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "SELECT FROM run_repeats");
		return -1;
	}
	sqlite3_bind_int64(st, 1, run_id);
	/* rows beyond the run's repeats are refused before anything grows */
	cap = want < HD_STORE_REPEATS_MAX ? want : HD_STORE_REPEATS_MAX;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->n >= cap) {
			hd_err_set(e, HD_EXIT_INPUT, s->path,
				   "run %lld, repeat %d: the run had %d repeats (and at most %d "
				   "are stored): this is not a database hdsim wrote",
				   (long long)run_id, out->n, want, HD_STORE_REPEATS_MAX);
			goto fail;
		}
		if (read_repeat(s, st, run_id, cap, out, e) != 0)
			goto fail;
		out->n++;
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM run_repeats");
		goto fail;
	}
	if (out->n != 0 && out->n != want) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "run %lld has %d repeats stored of the %d it had: this is not a "
			   "database hdsim wrote",
			   (long long)run_id, out->n, want);
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	hd_store_repeats_free(out);
	return -1;
}
