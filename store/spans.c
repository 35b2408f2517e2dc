/*
 * spans.c - a run's trace in the store: its lanes and spans, written and
 * read back (see store.h).
 *
 * Every row read back is checked (read.c): lanes numbered 0, 1, 2 ... each
 * once, span kinds and reasons known names, times, sizes and indexes in
 * range, each span on one of the run's lanes and starting before it ends.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store/store_priv.h"

/* Op indexes: the lessons allow a million ops; this leaves room and keeps an
 * array indexed by op (as the SVG export makes) of a sane size. */
#define OP_MAX (1 << 24)

int
store_insert_spans(struct hd_store *s, int64_t run, const struct hd_store_run *r,
		   const struct hd_trace *t, struct hd_err *e)
{
	sqlite3_stmt *lane = NULL, *span = NULL;
	size_t i;
	int rc = -1;

	if (sqlite3_prepare_v2(
		s->db,
		"INSERT INTO lanes (run_id, idx, kind, rank, stream, name) VALUES (?,?,?,?,?,?)",
		-1, &lane, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(
		s->db,
		"INSERT INTO spans (run_id, seq, lane, op, iter, kind, why, start_ps, end_ps,"
		" spread_ps, device, stream, bytes, copy_kind, label)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		-1, &span, NULL) != SQLITE_OK) {
		store_fail(s, e, "sqlite3_prepare_v2(INSERT INTO lanes/spans)");
		goto out;
	}
	for (i = 0; i < (size_t)t->nlanes; i++) {
		const struct hd_lane *l = &t->lanes[i];

		sqlite3_bind_int64(lane, 1, run);
		sqlite3_bind_int(lane, 2, (int)i);
		sqlite3_bind_int(lane, 3, l->kind);
		sqlite3_bind_int(lane, 4, l->rank);
		sqlite3_bind_int(lane, 5, l->index);
		store_bind_text(lane, 6, l->name);
		if (store_step_done(s, lane, "INSERT INTO lanes", e) != 0)
			goto out;
	}
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *sp = &t->spans[i];
		const struct hd_lane *l;

		if (sp->lane < 0 || sp->lane >= t->nlanes) {
			hd_err_set(e, HD_EXIT_FAIL, s->path,
				   "span %zu is on lane %d, which the trace does not have", i,
				   sp->lane);
			goto out;
		}
		l = &t->lanes[sp->lane];

		sqlite3_bind_int64(span, 1, run);
		sqlite3_bind_int64(span, 2, (int64_t)i);
		sqlite3_bind_int(span, 3, sp->lane);
		sqlite3_bind_int(span, 4, sp->op);
		sqlite3_bind_int64(span, 5, sp->iter);
		store_bind_text(span, 6, hd_span_kind_name(sp->kind));
		store_bind_text(span, 7, sp->why != HD_WHY_NONE ? hd_why_name(sp->why) : NULL);
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
		store_bind_text(span, 14,
				l->kind == HD_LANE_CE_H2D     ? "HtoD" :
				    l->kind == HD_LANE_CE_D2H ? "DtoH" :
				    l->kind == HD_LANE_CE_D2D ? "DtoD" :
								NULL);
		store_bind_text(span, 15,
				sp->label >= 0 && sp->label < t->nstrings ? t->strings[sp->label] :
									    NULL);
		if (store_step_done(s, span, "INSERT INTO spans", e) != 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(lane);
	sqlite3_finalize(span);
	return rc;
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
	static const struct store_field fields[] = {
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

	if (sqlite3_prepare_v2(s->db,
			       "SELECT idx, kind, rank, stream, name FROM lanes"
			       " WHERE run_id = ? ORDER BY idx",
			       -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "SELECT FROM lanes");
		return -1;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		snprintf(what, sizeof what, "run %lld, lane %d", (long long)run_id, t->nlanes);
		if (store_read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0 ||
		    (name = store_read_text(s, st, 4, 0, what, "name", e)) == NULL)
			goto fail;
		if (v[0] != t->nlanes ||
		    hd_trace_lane(t, (enum hd_lane_kind)v[1], (int)v[2], (int)v[3], name) !=
			(int)v[0]) {
			hd_err_set(e, HD_EXIT_INPUT, s->path,
				   "%s: its lanes are not numbered 0, "
				   "1, 2 ... each once: this is not a database hdsim wrote",
				   what);
			goto fail;
		}
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM lanes");
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
	static const struct store_field fields[] = {
		{ 0, "lane", 0, INT_MAX, 0, 0 },
		{ 1, "op", -1, OP_MAX, 0, 0 },
		{ 2, "iter", 0, UINT32_MAX, 0, 0 },
		{ 5, "start_ps", -HD_STORE_TIME_LIMIT + 1, HD_STORE_TIME_LIMIT - 1, 0, 0 },
		{ 6, "end_ps", -HD_STORE_TIME_LIMIT + 1, HD_STORE_TIME_LIMIT - 1, 0, 0 },
		{ 7, "bytes", 0, HD_STORE_TIME_LIMIT - 1, 0, 0 },
		{ 9, "spread_ps", 0, HD_STORE_TIME_LIMIT - 1, 1, 0 },
	};
	int64_t v[10];
	const char *kind, *why, *label;
	int k, w = HD_WHY_NONE;

	if (store_read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0 ||
	    (kind = store_read_text(s, st, 3, 0, what, "kind", e)) == NULL ||
	    (why = store_read_text(s, st, 4, 1, what, "why", e)) == NULL ||
	    (label = store_read_text(s, st, 8, 1, what, "label", e)) == NULL)
		return -1;
	if ((k = name_index(kind, kind_name, HD_SPAN__COUNT)) < 0)
		return store_bad_value(s, st, 3, what, "kind", "not a kind of span", e);
	if (why[0] != '\0' && (w = name_index(why, why_name, HD_WHY__COUNT)) < 0)
		return store_bad_value(s, st, 4, what, "why", "not a reason to wait", e);
	if (v[0] >= t->nlanes) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "%s is on lane %lld, which the run does "
			   "not have",
			   what, (long long)v[0]);
		return -1;
	}
	if (v[5] > v[6]) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "%s ends (%lld ps) before it starts "
			   "(%lld ps): this is not a database hdsim wrote",
			   what, (long long)v[6], (long long)v[5]);
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

	store_begin(s);
	if (store_run_row(s, "SELECT makespan_ps FROM runs WHERE id = ?", run_id, &st, e) != 0)
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	if (read_lanes(s, run_id, t, e) != 0)
		goto fail;
	if (sqlite3_prepare_v2(
		s->db,
		"SELECT lane, op, iter, kind, why, start_ps, end_ps, bytes, label, spread_ps, seq"
		" FROM spans WHERE run_id = ? ORDER BY seq",
		-1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "SELECT FROM spans");
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
		store_fail(s, e, "SELECT FROM spans");
		goto fail;
	}
	sqlite3_finalize(st);
	return t;
fail:
	sqlite3_finalize(st);
	hd_trace_free(t);
	return NULL;
}
