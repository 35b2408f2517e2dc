/*
 * check_timeline.c - the one cell renderer (render/timeline.h) the text
 * timeline, the browser and the Markdown export draw with: a cell's busy
 * share, boundaries between back-to-back ops, zoom and pan, the compare
 * bars, and a sweep linear in the spans.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/testutil.h"

#include "base/units.h"
#include "ir/spanlook.h"
#include "ir/trace.h"
#include "render/timeline.h"

/* A trace of one Compute lane (lane 0). */
static struct hd_trace *
compute_trace(void)
{
	struct hd_trace *t = hd_trace_new();

	hd_trace_lane(t, HD_LANE_COMPUTE, 0, 0, "Compute");
	return t;
}

static void
kernel(struct hd_trace *t, int lane, int op, uint32_t iter, hd_time a, hd_time b)
{
	struct hd_span s;

	memset(&s, 0, sizeof s);
	s.lane = lane;
	s.op = op;
	s.iter = iter;
	s.kind = HD_SPAN_KERNEL;
	s.start = a;
	s.end = b;
	s.label = -1;
	hd_trace_add(t, &s);
}

/* Cells of lane 0 of t, w columns over [t0, t1), every span whole. */
static struct hd_tl_cell *
cells_of(const struct hd_trace *t, int w, hd_time t0, hd_time t1)
{
	struct hd_tl_cell *c = hd_xcalloc((size_t)w, sizeof *c);
	struct hd_tl_index *ix = hd_tl_index_new(t);
	struct hd_tl_window win = { t0, t1 };

	hd_timeline_cells(c, w, ix, NULL, 0, win, HD_TIME_MAX);
	hd_tl_index_free(ix);
	return c;
}

START_TEST(partial_cell)
{
	struct hd_trace *t = compute_trace();
	struct hd_tl_cell *c;
	const char *kglyph = hd_spanlook_glyph(hd_spanlook_get(HD_SPAN_KERNEL, HD_DIR_OUT), true);

	/* busy 20 % of column 1's time ([100, 200) of 10 columns over 1000) */
	kernel(t, 0, 0, 0, 100, 120);
	kernel(t, 0, 1, 0, 900, 1000);
	c = cells_of(t, 10, 0, 1000);
	ck_assert_int_eq(c[1].busy, 20);
	ck_assert_int_gt(c[1].fill, 0);
	ck_assert_int_lt(c[1].fill, 8);
	ck_assert_int_eq(c[1].fill, 2);
	ck_assert_str_eq(hd_timeline_cell_glyph(&c[1], true), "\u258e");
	ck_assert_str_eq(hd_timeline_cell_glyph(&c[1], false), ",");
	ck_assert_str_ne(hd_timeline_cell_glyph(&c[1], false), kglyph);
	/* idle columns are blank, the busy one full */
	ck_assert_ptr_null(c[2].look);
	ck_assert_str_eq(hd_timeline_cell_glyph(&c[2], true), " ");
	ck_assert_int_eq(c[9].fill, 8);
	ck_assert_str_eq(hd_timeline_cell_glyph(&c[9], false), kglyph);
	free(c);
	hd_trace_free(t);
}
END_TEST

/* 1000 small kernels, the lane busy a fifth of the time: no full cell. */
START_TEST(small_kernels_show_idle)
{
	struct hd_trace *t = compute_trace();
	struct hd_tl_cell *c;
	int i, full = 0, touched = 0;

	for (i = 0; i < 1000; i++)
		kernel(t, 0, i, 0, (hd_time)i * 5 * HD_US, (hd_time)i * 5 * HD_US + HD_US);
	c = cells_of(t, 80, 0, t->makespan);
	for (i = 0; i < 80; i++) {
		full += c[i].fill == 8;
		touched += c[i].look != NULL;
	}
	ck_assert_int_eq(touched, 80);
	ck_assert_int_eq(full, 0);
	free(c);
	hd_trace_free(t);
}
END_TEST

START_TEST(back_to_back_boundary)
{
	struct hd_trace *t = compute_trace();
	struct hd_tl_cell *c;
	int i, edges = 0;

	/* op 0 then op 1 with no gap: one boundary, where op 1 starts */
	kernel(t, 0, 0, 0, 0, 500);
	kernel(t, 0, 1, 0, 500, 1000);
	c = cells_of(t, 20, 0, 1000);
	for (i = 0; i < 20; i++)
		edges += c[i].edge;
	ck_assert_int_eq(edges, 1);
	ck_assert(c[10].edge);
	ck_assert_int_eq(c[10].fill, 8);
	ck_assert_str_eq(hd_timeline_cell_glyph(&c[10], false), "!");
	ck_assert_str_eq(hd_timeline_cell_glyph(&c[10], true), "\u2502");
	ck_assert_str_eq(hd_timeline_cell_glyph(&c[9], false), "#");
	free(c);
	hd_trace_free(t);

	/* one op's chunks of one execution read as one bar: no boundary */
	t = compute_trace();
	kernel(t, 0, 0, 0, 0, 500);
	kernel(t, 0, 0, 0, 500, 1000);
	c = cells_of(t, 20, 0, 1000);
	for (i = 0, edges = 0; i < 20; i++)
		edges += c[i].edge;
	ck_assert_int_eq(edges, 0);
	free(c);
	hd_trace_free(t);
}
END_TEST

/* Spans added out of start order draw as if sorted. */
START_TEST(unsorted_lane)
{
	struct hd_trace *a = compute_trace(), *b = compute_trace();
	struct hd_tl_cell *ca, *cb;
	int i;

	kernel(a, 0, 0, 0, 0, 300);
	kernel(a, 0, 1, 0, 300, 600);
	kernel(a, 0, 2, 0, 800, 850);
	kernel(b, 0, 2, 0, 800, 850);
	kernel(b, 0, 1, 0, 300, 600);
	kernel(b, 0, 0, 0, 0, 300);
	ca = cells_of(a, 20, 0, 1000);
	cb = cells_of(b, 20, 0, 1000);
	for (i = 0; i < 20; i++) {
		ck_assert_int_eq(ca[i].fill, cb[i].fill);
		ck_assert_int_eq(ca[i].edge, cb[i].edge);
	}
	ck_assert(cb[6].edge);
	ck_assert_int_eq(cb[17].fill, 0);
	free(ca);
	free(cb);
	hd_trace_free(a);
	hd_trace_free(b);
}
END_TEST

/* The text rows show the boundary and the gap too. */
START_TEST(rows_show_gaps_and_boundaries)
{
	struct hd_trace *t = compute_trace();
	struct hd_tl_opts o = { .width = 60 };
	struct hd_buf b;
	const char *row, *bar, *end;

	kernel(t, 0, 0, 0, 0, 300);
	kernel(t, 0, 1, 0, 300, 600);
	kernel(t, 0, 2, 0, 800, 1000);
	hd_buf_init(&b);
	hd_timeline_rows(&b, t, NULL, &o);
	row = strstr(b.s, "Compute");
	ck_assert_ptr_nonnull(row);
	bar = strchr(row, '|');
	end = strchr(bar + 1, '|');
	ck_assert_ptr_nonnull(end);
	ck_assert(memchr(bar, '!', (size_t)(end - bar)) != NULL);
	ck_assert(memchr(bar, ' ', (size_t)(end - bar)) != NULL);
	ck_assert_ptr_nonnull(strstr(b.s, "Legend:"));
	ck_assert_ptr_nonnull(strstr(b.s, "kernel running"));
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

/* An 81 us span on a 106 ms axis: a faint mark at most; zoomed, a bar. */
START_TEST(zoom_shows_short_span)
{
	struct hd_trace *t = compute_trace();
	struct hd_tl_cell *c;
	struct hd_tl_window all = { 0, 106 * HD_MS }, z;
	hd_time a = 50 * HD_MS, b = a + 81 * HD_US;
	int i, full = 0;

	kernel(t, 0, 0, 0, 0, HD_MS);
	kernel(t, 0, 1, 0, a, b);
	kernel(t, 0, 2, 0, 105 * HD_MS, 106 * HD_MS);
	c = cells_of(t, 100, all.t0, all.t1);
	for (i = 2; i < 98; i++)
		full += c[i].fill == 8;
	ck_assert_int_eq(full, 0);
	free(c);
	/* zoom in about the span until its window is a few hundred us */
	z = all;
	while (z.t1 - z.t0 > 300 * HD_US)
		z = hd_timeline_zoom(z, 0.5, a + 40 * HD_US, 106 * HD_MS, 64);
	ck_assert_int_le(z.t0, a);
	ck_assert_int_ge(z.t1, b);
	c = cells_of(t, 100, z.t0, z.t1);
	for (i = 0, full = 0; i < 100; i++)
		full += c[i].fill == 8;
	ck_assert_int_ge(full, 20);
	free(c);
	hd_trace_free(t);
}
END_TEST

START_TEST(zoom_and_pan_stay_inside)
{
	struct hd_tl_window w = { 0, 1000 }, z;

	z = hd_timeline_zoom(w, 0.5, 900, 1000, 10);
	ck_assert_int_eq(z.t1 - z.t0, 500);
	ck_assert_int_le(z.t1, 1000);
	ck_assert(z.t0 <= 900 && 900 <= z.t1);
	z = hd_timeline_zoom(z, 1e-9, 900, 1000, 10); /* never under minw */
	ck_assert_int_eq(z.t1 - z.t0, 10);
	z = hd_timeline_zoom(z, 1e9, 900, 1000, 10); /* never past the run */
	ck_assert_int_eq(z.t0, 0);
	ck_assert_int_eq(z.t1, 1000);
	z = hd_timeline_pan((struct hd_tl_window){ 0, 100 }, -1.0, 1000);
	ck_assert_int_eq(z.t0, 0);
	z = hd_timeline_pan((struct hd_tl_window){ 800, 900 }, 5.0, 1000);
	ck_assert_int_eq(z.t0, 900);
	ck_assert_int_eq(z.t1, 1000);
}
END_TEST

/* Compare: one axis, each bar as long as its makespan. */
START_TEST(compare_one_axis)
{
	struct hd_trace *a = compute_trace(), *b = compute_trace();
	const struct hd_trace *tr[2];
	const struct hd_scenario *sc[2] = { NULL, NULL };
	const char *names[2] = { "pinned", "pageable" };
	struct hd_tl_opts o = { .width = 100 };
	struct hd_buf out;
	const char *p, *q;
	int la, lb;

	kernel(a, 0, 0, 0, 0, 4800 * HD_US);
	kernel(b, 0, 0, 0, 0, 32 * HD_MS);
	tr[0] = a;
	tr[1] = b;
	hd_buf_init(&out);
	hd_timeline_compare(&out, tr, sc, names, 2, &o);
	p = strstr(out.s, "pinned");
	ck_assert_ptr_nonnull(p);
	p = strchr(p, '|');
	q = strchr(p + 1, '|');
	la = (int)(q - p - 1);
	p = strstr(out.s, "pageable");
	ck_assert_ptr_nonnull(p);
	p = strchr(p, '|');
	q = strchr(p + 1, '|');
	lb = (int)(q - p - 1);
	ck_assert_int_ge(lb, 5 * la);
	ck_assert_int_gt(la, 0);
	hd_buf_free(&out);
	hd_trace_free(a);
	hd_trace_free(b);
}
END_TEST

/* 100,000 spans draw in well under a second: one sweep per lane. */
START_TEST(linear_in_spans)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_tl_opts o = { .width = 200 };
	struct hd_buf b;
	struct timespec t0, t1;
	double s;
	int i, k;

	for (k = 0; k < 4; k++)
		hd_trace_lane(t, HD_LANE_STREAM, 0, k, "Stream");
	for (i = 0; i < 100000; i++)
		kernel(t, i % 4, i, 0, (hd_time)i * 10, (hd_time)i * 10 + 7);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	hd_buf_init(&b);
	hd_timeline_rows(&b, t, NULL, &o);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(s < 0.5, "100,000 spans took %.3f s", s);
	ck_assert_ptr_nonnull(strstr(b.s, "Stream"));
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("timeline");
	TCase *tc = tcase_create("cells");

	tcase_add_test(tc, partial_cell);
	tcase_add_test(tc, small_kernels_show_idle);
	tcase_add_test(tc, back_to_back_boundary);
	tcase_add_test(tc, unsorted_lane);
	tcase_add_test(tc, rows_show_gaps_and_boundaries);
	tcase_add_test(tc, zoom_shows_short_span);
	tcase_add_test(tc, zoom_and_pan_stay_inside);
	tcase_add_test(tc, compare_one_axis);
	tcase_add_test(tc, linear_in_spans);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return hd_test_run(s);
}
