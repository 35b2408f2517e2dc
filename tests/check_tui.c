/*
 * check_tui.c - the TUI's render buffer and run-screen view model, without
 * curses or a terminal: cells, clipping, UTF-8 widths, boxes, and layouts of
 * hand-made traces read back as text and as cell roles.
 *
 * Over 1,200 lines as one suite: each case is a hand-made trace and the
 * exact screen it must draw, sharing the builders and readers above them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

#include "base/units.h"
#include "ir/spanlook.h"
#include "ir/trace.h"
#include "render/timeline.h"
#include "tui/app_priv.h"
#include "tui/diagram.h"
#include "tui/screen.h"
#include "tui/term.h"
#include "tui/view.h"

static const struct hd_style plain = { HD_ROLE_TEXT, HD_ROLE_DEFAULT, 0 };

/* Row y of the screen as text (caller frees). */
static char *
row_text(const struct hd_screen *s, int y)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_screen_dump_row(s, y, &b);
	return b.s != NULL ? hd_buf_take(&b) : hd_xstrdup("");
}

static char *
dump(const struct hd_screen *s)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_screen_dump(s, &b);
	return hd_buf_take(&b);
}

/* ---- render buffer ------------------------------------------------------- */

START_TEST(utf8_width)
{
	unsigned cp;

	ck_assert_int_eq(hd_utf8_width("abc"), 3);
	ck_assert_int_eq(hd_utf8_width("\xc2\xb5s"), 2);                /* µs */
	ck_assert_int_eq(hd_utf8_width("\xe6\x97\xa5\xe6\x9c\xac"), 4); /* 日本 */
	ck_assert_int_eq(hd_utf8_width("e\xcc\x81"), 1);                /* e + combining acute */
	ck_assert_int_eq(hd_utf8_width("\xe2\x94\x80"), 1);             /* ─ */
	ck_assert_int_eq(hd_utf8_width("a\xff"
				       "b"),
			 3); /* invalid byte: one column */
	ck_assert_int_eq(hd_utf8_decode("\xe2\x94\x80", &cp), 3);
	ck_assert_uint_eq(cp, 0x2500);
	ck_assert_int_eq(hd_utf8_decode("\xc0\x80", &cp), 1); /* overlong NUL */
	ck_assert_uint_eq(cp, 0xfffd);
	ck_assert_int_eq(hd_utf8_decode("\xf0\x9f\x98\x80", &cp), 4); /* emoji */
	ck_assert_int_eq(hd_cp_width(cp), 2);
}
END_TEST

START_TEST(clip_to_rect)
{
	struct hd_screen *s = hd_screen_new(10, 4);
	struct hd_rect clip = { 2, 1, 5, 2 };
	int x, y, end;
	char *r;

	hd_screen_fill(s, hd_screen_rect(s), "@", plain);
	end = hd_screen_puts(s, &clip, 0, 1, "0123456789", plain);
	ck_assert_int_eq(end, 10);                    /* the column after, as if unclipped */
	hd_screen_puts(s, &clip, 3, 5, "zzz", plain); /* below the clip: nothing */
	hd_screen_puts(s, &clip, -4, 2, "abcdefgh", plain);
	for (y = 0; y < 4; y++)
		for (x = 0; x < 10; x++) {
			const struct hd_cell *c = hd_screen_cell(s, x, y);
			int in = x >= 2 && x < 7 && y >= 1 && y < 3;
			if (!in)
				ck_assert_str_eq(c->g, "@");
		}
	r = row_text(s, 1);
	ck_assert_str_eq(r, "@@23456@@@");
	free(r);
	r = row_text(s, 2);
	ck_assert_str_eq(r, "@@gh@@@@@@"); /* "abcdefgh" from x = -4: g at 2, h at 3 */
	free(r);
	ck_assert_ptr_null(hd_screen_cell(s, 10, 0));
	ck_assert_ptr_null(hd_screen_cell(s, -1, 0));
	hd_screen_free(s);
}
END_TEST

START_TEST(wide_chars)
{
	struct hd_screen *s = hd_screen_new(8, 2);
	struct hd_rect clip = { 0, 0, 5, 2 };
	char *r;

	/* 日 takes cells 0-1, 本 2-3; the third would straddle the clip edge at 4 */
	hd_screen_puts(s, &clip, 0, 0, "\xe6\x97\xa5\xe6\x9c\xac\xe6\x97\xa5x", plain);
	ck_assert_int_eq(hd_screen_cell(s, 0, 0)->width, 2);
	ck_assert_int_eq(hd_screen_cell(s, 1, 0)->width, 0);
	ck_assert_str_eq(hd_screen_cell(s, 4, 0)->g, " ");
	ck_assert_str_eq(hd_screen_cell(s, 5, 0)->g, " "); /* outside the clip: untouched */
	r = row_text(s, 0);
	ck_assert_str_eq(r, "\xe6\x97\xa5\xe6\x9c\xac");
	free(r);
	/* overwriting the second half of a wide glyph blanks its first half */
	hd_screen_puts(s, NULL, 1, 0, "a", plain);
	r = row_text(s, 0);
	ck_assert_str_eq(r, " a\xe6\x9c\xac");
	free(r);
	/* control characters are shown as '?', combining marks dropped */
	hd_screen_puts(s, NULL, 0, 1, "a\tbe\xcc\x81", plain);
	r = row_text(s, 1);
	ck_assert_str_eq(r, "a?be");
	free(r);
	hd_screen_free(s);
}
END_TEST

START_TEST(boxes)
{
	struct hd_screen *s = hd_screen_new(12, 4);
	struct hd_rect b = { 1, 0, 10, 3 };
	char *d;

	hd_screen_set_ascii(s, true);
	hd_screen_box(s, b, "GPU", plain);
	d = dump(s);
	ck_assert_str_eq(d,
			 " +- GPU --+\n"
			 " |        |\n"
			 " +--------+\n"
			 "\n");
	free(d);
	ck_assert_int_eq(hd_screen_cell(s, 4, 0)->st.fg, HD_ROLE_TITLE);
	hd_screen_clear(s);
	hd_screen_set_ascii(s, false);
	hd_screen_box(s, b, NULL, plain);
	ck_assert_str_eq(hd_screen_cell(s, 1, 0)->g, "\xe2\x94\x8c");
	ck_assert_str_eq(hd_screen_cell(s, 10, 2)->g, "\xe2\x94\x98");
	ck_assert_str_eq(hd_screen_cell(s, 5, 0)->g, "\xe2\x94\x80");
	ck_assert_str_eq(hd_screen_cell(s, 0, 0)->g, " ");
	ck_assert_str_eq(hd_screen_cell(s, 11, 1)->g, " ");
	/* a box partly off the screen is clipped, not wrapped */
	hd_screen_box(s, (struct hd_rect){ 8, 2, 10, 5 }, "x", plain);
	ck_assert_str_eq(hd_screen_cell(s, 8, 2)->g, "\xe2\x94\x8c");
	hd_screen_resize(s, 3, 2);
	ck_assert_int_eq(hd_screen_width(s), 3);
	ck_assert_str_eq(hd_screen_cell(s, 2, 1)->g, " ");
	hd_screen_free(s);
	hd_screen_free(NULL);
}
END_TEST

/* ---- a hand-made trace ----------------------------------------------------
 * 100 us.  A pinned copy on the copy engine and the PCIe link 10..60 us, a
 * kernel on the stream 60..90 us, the host blocked in a stream sync 3..100 us.
 */
enum {
	L_API,
	L_STREAM,
	L_CE,
	L_PCIE,
	L_COMPUTE
};

static void
add(struct hd_trace *t, int lane, int op, enum hd_span_kind k, hd_time a, hd_time b, uint64_t bytes,
    const char *label)
{
	struct hd_span s;

	memset(&s, 0, sizeof s);
	s.lane = lane;
	s.op = op;
	s.kind = k;
	s.start = a;
	s.end = b;
	s.bytes = bytes;
	s.label = hd_trace_string(t, label);
	if (k == HD_SPAN_BLOCKED)
		s.why = HD_WHY_STREAM_SYNC;
	hd_trace_add(t, &s);
}

static struct hd_trace *
sample_trace(void)
{
	struct hd_trace *t = hd_trace_new();

	hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	hd_trace_lane(t, HD_LANE_STREAM, 0, 2, "Stream s1");
	hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "Memcpy HtoD");
	hd_trace_lane(t, HD_LANE_PCIE_H2D, 0, 0, "PCIe HtoD");
	hd_trace_lane(t, HD_LANE_COMPUTE, 0, 0, "Compute");
	add(t, L_API, 0, HD_SPAN_API, 0, 2 * HD_US, 0, "cudaMemcpyAsync");
	add(t, L_API, 2, HD_SPAN_API, 2 * HD_US, 100 * HD_US, 0, "cudaStreamSynchronize");
	add(t, L_API, 2, HD_SPAN_BLOCKED, 3 * HD_US, 100 * HD_US, 0, "cudaStreamSynchronize");
	add(t, L_CE, 0, HD_SPAN_COPY, 10 * HD_US, 60 * HD_US, 64u << 20, "h2d");
	add(t, L_PCIE, 0, HD_SPAN_COPY, 10 * HD_US, 60 * HD_US, 64u << 20, "h2d");
	add(t, L_STREAM, 1, HD_SPAN_KERNEL, 60 * HD_US, 90 * HD_US, 0, "k1");
	add(t, L_COMPUTE, 1, HD_SPAN_KERNEL, 60 * HD_US, 90 * HD_US, 0, "k1");
	return t;
}

/* Lay the run screen out in a w x h rectangle at (3, 2) of a larger screen
 * filled with '@', at several playhead times: nothing outside is touched. */
static void
check_fits(int w, int h)
{
	struct hd_trace *t = sample_trace(), *ghost = sample_trace();
	struct hd_screen *s = hd_screen_new(w + 7, h + 5);
	struct hd_rect r = { 3, 2, w, h };
	struct hd_view_opts o;
	hd_time at[] = { 0, 5 * HD_US, 35 * HD_US, 75 * HD_US, 100 * HD_US, 200 * HD_US };
	size_t i;
	int x, y, drawn;

	ghost->makespan = 120 * HD_US;
	hd_view_opts_init(&o);
	for (i = 0; i < HD_ARRAY_LEN(at); i++) {
		o.t = at[i];
		o.ghost = i % 2 ? ghost : NULL;
		hd_screen_set_ascii(s, i % 3 == 0);
		hd_screen_fill(s, hd_screen_rect(s), "@", plain);
		hd_view_run(s, r, t, NULL, &o);
		drawn = 0;
		for (y = 0; y < h + 5; y++)
			for (x = 0; x < w + 7; x++) {
				const struct hd_cell *c = hd_screen_cell(s, x, y);
				int in = x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
				if (!in)
					ck_assert_msg(
					    strcmp(c->g, "@") == 0,
					    "%dx%d t=%zu: wrote '%s' at %d,%d outside the view", w,
					    h, i, c->g, x, y);
				else if (strcmp(c->g, "@") != 0)
					drawn++;
			}
		ck_assert_int_gt(drawn, 0);
		/* the status line is the last row */
		ck_assert_int_eq(hd_screen_cell(s, r.x, r.y + r.h - 1)->st.fg, HD_ROLE_STATUS);
	}
	hd_screen_free(s);
	hd_trace_free(t);
	hd_trace_free(ghost);
}

START_TEST(fits_80x24)
{
	check_fits(80, 24);
}
END_TEST
START_TEST(fits_200x60)
{
	check_fits(200, 60);
}
END_TEST
START_TEST(fits_40x10)
{
	check_fits(40, 10);
}
END_TEST
START_TEST(fits_tiny)
{
	check_fits(1, 1);
	check_fits(5, 2);
	check_fits(12, 3);
}
END_TEST

/* A timeline pane 112 wide: name column 11, bar 100 columns, 1 us each. */
#define TW    112
#define BAR_X 12

/* The row of a lane of the sample trace: display order is API, stream,
 * copy engine, compute, PCIe. */
static int
lane_row(int lane)
{
	static const int rows[] = {
		[L_API] = 0, [L_STREAM] = 1, [L_CE] = 2, [L_COMPUTE] = 3, [L_PCIE] = 4
	};
	return rows[lane];
}

static struct hd_screen *
timeline_at(const struct hd_trace *t, hd_time at, const struct hd_trace *ghost)
{
	struct hd_screen *s = hd_screen_new(TW, 8);
	struct hd_view_opts o;
	struct hd_tl_geom g;

	hd_view_opts_init(&o);
	o.t = at;
	o.ghost = ghost;
	hd_screen_set_ascii(s, true);
	hd_view_tl_geom(&g, t, ghost, hd_screen_rect(s));
	ck_assert_int_eq(g.name_w, 11);
	ck_assert_int_eq(g.bar_x, BAR_X);
	ck_assert_int_eq(g.bar_w, 100);
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	return s;
}

/* Cells of row y in the bar drawn by a span (any role other than the
 * default, the playhead's, the axis'). */
static int
span_cells(const struct hd_screen *s, int y, enum hd_role role)
{
	int x, n = 0;

	for (x = BAR_X; x < TW; x++)
		if (hd_screen_cell(s, x, y)->st.fg == role)
			n++;
	return n;
}

START_TEST(playhead_reveals)
{
	struct hd_trace *t = sample_trace();
	struct hd_screen *s;
	int y;
	char *r;

	s = timeline_at(t, 0, NULL);
	for (y = 0; y < 5; y++) {
		static const enum hd_role roles[] = { HD_ROLE_API, HD_ROLE_BLOCKED,
						      HD_ROLE_COPY_H2D, HD_ROLE_KERNEL };
		size_t k;
		for (k = 0; k < HD_ARRAY_LEN(roles); k++)
			ck_assert_int_eq(span_cells(s, y, roles[k]), 0);
		/* only the playhead, in column 0 */
		ck_assert_str_eq(hd_screen_cell(s, BAR_X, y)->g, "|");
		ck_assert_int_eq(hd_screen_cell(s, BAR_X, y)->st.fg, HD_ROLE_PLAYHEAD);
	}
	hd_screen_free(s);

	s = timeline_at(t, 100 * HD_US, NULL);
	ck_assert_int_eq(span_cells(s, lane_row(L_STREAM), HD_ROLE_KERNEL), 30);
	ck_assert_int_eq(span_cells(s, lane_row(L_COMPUTE), HD_ROLE_KERNEL), 30);
	ck_assert_int_eq(span_cells(s, lane_row(L_CE), HD_ROLE_COPY_H2D), 50);
	ck_assert_int_eq(span_cells(s, lane_row(L_PCIE), HD_ROLE_COPY_H2D), 50);
	/* API row: two calls (0-2, 2-3 us) then blocked 3-100 us */
	ck_assert_int_eq(span_cells(s, 0, HD_ROLE_API), 3);
	ck_assert_int_eq(span_cells(s, 0, HD_ROLE_BLOCKED), 97);
	/* blocked time is shaded and says why */
	ck_assert_int_eq(hd_screen_cell(s, BAR_X + 50, 0)->st.bg, HD_ROLE_BLOCKED);
	r = row_text(s, 0);
	ck_assert_ptr_nonnull(strstr(r, "stream-sync"));
	ck_assert_ptr_nonnull(strstr(r, "CUDA API"));
	free(r);
	r = row_text(s, lane_row(L_CE));
	ck_assert_ptr_nonnull(strstr(r, "h2d 64 MiB"));
	ck_assert_int_eq(strncmp(r, "Memcpy HtoD", 11), 0);
	free(r);
	hd_screen_free(s);

	/* half way through the copy: only the part before the playhead is drawn,
	 * and the playhead's column shows under the span that reaches it */
	s = timeline_at(t, 35 * HD_US + 500 * HD_NS, NULL);
	ck_assert_int_eq(span_cells(s, lane_row(L_CE), HD_ROLE_COPY_H2D), 26);
	ck_assert_int_eq(span_cells(s, lane_row(L_STREAM), HD_ROLE_KERNEL), 0);
	ck_assert_int_eq(hd_screen_cell(s, BAR_X + 35, lane_row(L_CE))->st.bg, HD_ROLE_PLAYHEAD);
	ck_assert_int_eq(hd_screen_cell(s, BAR_X + 35, lane_row(L_CE))->st.fg, HD_ROLE_COPY_H2D);
	ck_assert_str_eq(hd_screen_cell(s, BAR_X + 35, lane_row(L_STREAM))->g, "|");
	ck_assert_int_eq(hd_screen_cell(s, BAR_X + 35, lane_row(L_STREAM))->st.fg,
			 HD_ROLE_PLAYHEAD);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

START_TEST(span_columns)
{
	struct hd_trace *t = sample_trace();
	struct hd_screen *s = timeline_at(t, 100 * HD_US, NULL);
	int y = lane_row(L_STREAM), x;

	/* the kernel runs 60..90 us: bar columns 60..89 */
	for (x = BAR_X; x < TW; x++) {
		int c = x - BAR_X, in = c >= 60 && c < 90;
		ck_assert_msg((hd_screen_cell(s, x, y)->st.fg == HD_ROLE_KERNEL) == in, "column %d",
			      c);
	}
	ck_assert_str_eq(hd_screen_cell(s, BAR_X + 60, y)->g, "#");
	ck_assert_str_eq(hd_screen_cell(s, BAR_X + 89, y)->g, "#");
	/* the axis: ticks every 10 us (+), the playhead mark at the end */
	y = 5;
	ck_assert_str_eq(hd_screen_cell(s, BAR_X, y)->g, "+");
	ck_assert_str_eq(hd_screen_cell(s, BAR_X + 50, y)->g, "+");
	ck_assert_str_eq(hd_screen_cell(s, BAR_X + 51, y)->g, "-");
	ck_assert_str_eq(hd_screen_cell(s, BAR_X + 99, y)->g, "^");
	{
		char *r = row_text(s, 6);
		ck_assert_ptr_nonnull(strstr(r, "time (us)"));
		ck_assert_ptr_nonnull(strstr(r, "50"));
		ck_assert_str_eq(hd_screen_cell(s, BAR_X + 50, 6)->g, "5");
		free(r);
	}
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

START_TEST(ghost_beneath)
{
	struct hd_trace *t = sample_trace(), *g = sample_trace();
	struct hd_screen *s;
	struct hd_view_opts o;
	size_t i;
	int y = lane_row(L_STREAM), x, ghosts = 0;

	/* the previous run had its kernel 20 us earlier */
	for (i = 0; i < g->nspans; i++)
		if (g->spans[i].kind == HD_SPAN_KERNEL) {
			g->spans[i].start -= 20 * HD_US;
			g->spans[i].end -= 20 * HD_US;
		}
	s = timeline_at(t, 100 * HD_US, g);
	/* the stream's ghost on a row of its own beneath it, named, the kernel
	 * whole and dim where it ran; the current row has no ghost cells */
	ck_assert_int_eq(span_cells(s, y, HD_ROLE_GHOST), 0);
	ck_assert_int_eq(span_cells(s, y, HD_ROLE_KERNEL), 30);
	{
		char *r = row_text(s, y + 1);
		ck_assert_msg(strncmp(r, "  before", 8) == 0, "ghost row: '%s'", r);
		free(r);
	}
	for (x = BAR_X; x < TW; x++) {
		const struct hd_cell *c = hd_screen_cell(s, x, y + 1);
		int col = x - BAR_X;
		if (c->st.fg == HD_ROLE_GHOST) {
			ghosts++;
			ck_assert(c->st.attr & HD_ATTR_DIM);
			ck_assert_int_ge(col, 40);
			ck_assert_int_lt(col, 70); /* where the previous kernel ran */
		}
	}
	ck_assert_int_eq(ghosts, 30);
	/* lanes the ghost does not change get no ghost row: the API row, then
	 * the stream's */
	{
		char *r = row_text(s, lane_row(L_API) + 1);
		ck_assert_msg(strncmp(r, "Stream s1", 9) == 0, "row after the API: '%s'", r);
		free(r);
	}
	hd_screen_free(s);

	/* the status line gives the change in makespan */
	s = hd_screen_new(100, 1);
	hd_view_opts_init(&o);
	o.t = 50 * HD_US;
	o.ghost = g;
	g->makespan = 150 * HD_US;
	hd_view_status(s, hd_screen_rect(s), t, &o);
	{
		char *r = row_text(s, 0);
		ck_assert_ptr_nonnull(strstr(r, "50.000 / 100.000 us"));
		ck_assert_ptr_nonnull(strstr(r, "(-50"));
		free(r);
	}
	/* what the previous run was: in the status line and the legend */
	o.ghost_about = "cpu = 2.00 ms";
	hd_view_status(s, hd_screen_rect(s), t, &o);
	{
		char *r = row_text(s, 0);
		ck_assert_msg(strstr(r, "before 150 us (-50.0 us; cpu = 2.00 ms)") != NULL, "%s",
			      r);
		free(r);
	}
	hd_screen_free(s);
	s = hd_screen_new(100, 20);
	hd_view_legend(s, hd_screen_rect(s), t, NULL, &o);
	{
		char *d = dump(s);
		ck_assert_msg(strstr(d,
				     "before  previous run, whole and dim on its own rows: "
				     "cpu = 2.00 ms") != NULL,
			      "%s", d);
		free(d);
	}
	hd_screen_free(s);
	hd_trace_free(t);
	hd_trace_free(g);
}
END_TEST

/* ---- link use -------------------------------------------------------------
 * PCIe HtoD: copy a alone 0..10 us (64 MiB: the link's full rate), then b
 * and c share the link 10..30 us (64 MiB each at half the rate).
 */
static struct hd_trace *
link_trace(void)
{
	struct hd_trace *t = hd_trace_new();
	int host = hd_trace_lane(t, HD_LANE_HOST, 0, 0, "CPU thread");
	int ce = hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "Memcpy HtoD");
	int pcie = hd_trace_lane(t, HD_LANE_PCIE_H2D, 0, 0, "PCIe HtoD");

	add(t, host, 3, HD_SPAN_HOST, 0, 30 * HD_US, 0, "prep");
	add(t, pcie, 0, HD_SPAN_COPY, 0, 10 * HD_US, 64u << 20, "a");
	add(t, pcie, 1, HD_SPAN_COPY, 10 * HD_US, 30 * HD_US, 64u << 20, "b");
	add(t, pcie, 2, HD_SPAN_COPY, 10 * HD_US, 30 * HD_US, 64u << 20, "c");
	add(t, ce, 0, HD_SPAN_COPY, 0, 10 * HD_US, 64u << 20, "a");
	return t;
}

START_TEST(link_use_numbers)
{
	struct hd_trace *t = link_trace();
	struct hd_link_use u;
	double full = (double)(64u << 20) / 10e-6; /* bytes/s of copy a */

	hd_view_link_use(t, HD_LANE_PCIE_H2D, 5 * HD_US, 0, &u);
	ck_assert_int_eq(u.nflows, 1);
	ck_assert_double_eq_tol(u.peak, full, full * 1e-9);
	ck_assert_double_eq_tol(u.use, 1.0, 1e-9);
	ck_assert_double_eq_tol(u.share[0], 1.0, 1e-9);
	ck_assert_double_eq_tol(u.done[0], 0.5, 1e-9);
	ck_assert_uint_eq(u.in_flight, 32u << 20);

	hd_view_link_use(t, HD_LANE_PCIE_H2D, 20 * HD_US, 0, &u);
	ck_assert_int_eq(u.nflows, 2);
	ck_assert_double_eq_tol(u.use, 1.0, 1e-9);
	ck_assert_double_eq_tol(u.share[0], 0.5, 1e-9);
	ck_assert_double_eq_tol(u.share[1], 0.5, 1e-9);
	ck_assert_uint_eq(u.in_flight, 64u << 20);

	/* against a link twice as fast, one copy uses half of it */
	hd_view_link_use(t, HD_LANE_PCIE_H2D, 5 * HD_US, 2 * full, &u);
	ck_assert_double_eq_tol(u.use, 0.5, 1e-9);
	/* nothing after the last copy, nothing on the other direction */
	hd_view_link_use(t, HD_LANE_PCIE_H2D, 30 * HD_US, 0, &u);
	ck_assert_int_eq(u.nflows, 0);
	ck_assert_double_eq(u.use, 0);
	hd_view_link_use(t, HD_LANE_PCIE_D2H, 5 * HD_US, 0, &u);
	ck_assert_int_eq(u.nflows, 0);
	ck_assert_double_eq(u.use, 0);
	hd_trace_free(t);
}
END_TEST

/* Count glyph g in row y from column x on while the row shows meter cells. */
static int
meter_at(const struct hd_screen *s, int x, int y, const char *full, int *width)
{
	int n = 0, w = 0;
	const struct hd_cell *c;

	for (; (c = hd_screen_cell(s, x, y)) != NULL; x++, w++) {
		if (strcmp(c->g, full) == 0)
			n++;
		else if (strcmp(c->g, ".") != 0 && strcmp(c->g, ">") != 0)
			break;
	}
	*width = w;
	return n;
}

/* The column where "HtoD" starts in the diagram, and its row. */
static void
find_link(const struct hd_screen *s, int *x, int *y)
{
	int yy;

	for (yy = 0; yy < hd_screen_height(s); yy++) {
		char *r = row_text(s, yy), *p = strstr(r, "HtoD");
		if (p != NULL) {
			*x = (int)(p - r); /* ASCII rows: bytes are columns */
			*y = yy;
			free(r);
			return;
		}
		free(r);
	}
	ck_abort_msg("no HtoD link row");
}

START_TEST(link_use_bars)
{
	struct hd_trace *t = link_trace();
	struct hd_screen *s = hd_screen_new(100, 10);
	struct hd_view_opts o;
	int x, y, w, w2, n;
	char *r;

	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);

	/* one copy alone: the link meter is full */
	o.t = 5 * HD_US;
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	find_link(s, &x, &y);
	n = meter_at(s, x + 5, y, "#", &w);
	ck_assert_int_ge(w, 10);
	ck_assert_int_eq(n, w);
	r = row_text(s, y);
	ck_assert_ptr_nonnull(strstr(r, "100%"));
	free(r);
	r = row_text(s, y + 1);
	ck_assert_ptr_nonnull(strstr(r, "1 moving, 32 MiB left"));
	free(r);
	/* the host box says what the host does */
	r = dump(s);
	ck_assert_ptr_nonnull(strstr(r, "prep"));
	ck_assert_ptr_nonnull(strstr(r, "+- Host"));
	ck_assert_ptr_nonnull(strstr(r, "+- GPU"));
	free(r);

	/* two copies share it: still full, each transfer has half */
	hd_screen_clear(s);
	o.t = 29 * HD_US + 900 * HD_NS; /* heads at the far end */
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	find_link(s, &x, &y);
	ck_assert_int_eq(meter_at(s, x + 5, y, "#", &w2), w2);
	ck_assert_int_eq(w2, w);
	r = row_text(s, y + 1);
	ck_assert_ptr_nonnull(strstr(r, "2 moving"));
	free(r);
	ck_assert_int_eq(meter_at(s, x + 5, y + 2, "=", &w2), (w + 1) / 2);
	ck_assert_int_eq(meter_at(s, x + 5, y + 3, "=", &w2), (w + 1) / 2);
	ck_assert_str_eq(hd_screen_cell(s, x + 5 + w - 1, y + 2)->g, ">");
	r = row_text(s, y + 2);
	ck_assert_ptr_nonnull(strstr(r, " 50%"));
	free(r);

	/* against a link twice as fast, one copy fills half the meter */
	hd_screen_clear(s);
	o.t = 5 * HD_US;
	o.h2d_bw = 2 * (double)(64u << 20) / 10e-6;
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	find_link(s, &x, &y);
	ck_assert_int_eq(meter_at(s, x + 5, y, "#", &w2), (w + 1) / 2);

	/* after the copies the link is idle */
	hd_screen_clear(s);
	o.t = 30 * HD_US;
	o.h2d_bw = 0;
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	find_link(s, &x, &y);
	ck_assert_int_eq(meter_at(s, x + 5, y, "#", &w2), 0);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

START_TEST(roles_and_highlight)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_screen *s = hd_screen_new(40, 4);
	struct hd_view_opts o;
	int d2h = hd_trace_lane(t, HD_LANE_CE_D2H, 0, 0, "Memcpy DtoH");
	int dd = hd_trace_lane(t, HD_LANE_CE_D2D, 0, 0, "Memcpy DtoD");
	int x, hl = 0;

	add(t, d2h, 0, HD_SPAN_COPY, 0, 5 * HD_US, 1024, "back");
	add(t, dd, 1, HD_SPAN_COPY, 5 * HD_US, 10 * HD_US, 1024, "local");
	ck_assert_int_eq(hd_view_span_role(t, NULL, &t->spans[0]), HD_ROLE_COPY_D2H);
	ck_assert_int_eq(hd_view_span_role(t, NULL, &t->spans[1]), HD_ROLE_COPY_D2D);
	ck_assert_str_eq(hd_role_name(HD_ROLE_COPY_D2H), "copy-d2h");
	ck_assert_str_eq(hd_role_name(HD_ROLE__COUNT), "?");
	hd_view_opts_init(&o);
	o.t = t->makespan;
	o.highlight = 1;
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	for (x = 0; x < 40; x++) {
		const struct hd_cell *c = hd_screen_cell(s, x, 1);
		if (c->st.bg == HD_ROLE_HIGHLIGHT) {
			hl++;
			ck_assert_int_eq(c->st.fg, HD_ROLE_COPY_D2D);
		}
		/* the other span is not highlighted */
		ck_assert_int_ne(hd_screen_cell(s, x, 0)->st.bg, HD_ROLE_HIGHLIGHT);
	}
	ck_assert_int_gt(hl, 0);
	ck_assert_ptr_nonnull(strchr(hd_screen_cell(s, 12, 0)->g, '~'));
	/* restyling keeps glyphs */
	hd_screen_style(s, (struct hd_rect){ 0, 0, 40, 1 }, plain);
	ck_assert_str_eq(hd_screen_cell(s, 12, 0)->g, "~");
	ck_assert_int_eq(hd_screen_cell(s, 12, 0)->st.fg, HD_ROLE_TEXT);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

START_TEST(diagram_blocked_host)
{
	struct hd_trace *t = sample_trace();
	struct hd_screen *s = hd_screen_new(90, 8);
	struct hd_view_opts o;
	char *d;

	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = 70 * HD_US;
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_ptr_nonnull(strstr(d, "blocked"));
	ck_assert_ptr_nonnull(strstr(d, "stream-sync"));
	ck_assert_ptr_nonnull(strstr(d, "cudaStreamSynch"));
	ck_assert_ptr_nonnull(strstr(d, "# k1")); /* compute runs k1 */
	ck_assert_ptr_nonnull(strstr(d, "Memcpy HtoD"));
	ck_assert_ptr_nonnull(strstr(d, "idle")); /* the copy engine, after the copy */
	free(d);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

/* Four ranks: rank r blocked in a sync while its stream runs an all-reduce
 * and its NVLink row carries one transfer, half done at t = 50 us. */
static struct hd_trace *
ranks_trace(void)
{
	struct hd_trace *t = hd_trace_new();
	int sync = hd_trace_string(t, "cudaStreamSynchronize");
	int ar = hd_trace_string(t, "ar");
	int r;

	for (r = 0; r < 4; r++) {
		int api = hd_trace_lane(t, HD_LANE_API, r, 0, "CUDA API");
		int st = hd_trace_lane(t, HD_LANE_STREAM, r, 2, "Stream 2 (s)");
		int ln = hd_trace_lane(t, HD_LANE_LINK, r, 0, "NVLink out");
		struct hd_span a = {
			api, 1, 0, HD_SPAN_API, HD_WHY_NONE, 0, 100 * HD_US, 0, sync, 0
		};
		struct hd_span b = {
			api, 1,    0, HD_SPAN_BLOCKED, HD_WHY_STREAM_SYNC, 5 * HD_US, 100 * HD_US,
			0,   sync, 0
		};
		struct hd_span c = { st, 0,           0,        HD_SPAN_COMM, HD_WHY_NONE,
				     0,  100 * HD_US, 64 << 20, ar,           0 };
		struct hd_span d = { ln,         0,          0,        HD_SPAN_COMM, HD_WHY_NONE,
				     25 * HD_US, 75 * HD_US, 16 << 20, ar,           0 };

		hd_trace_add(t, &a);
		hd_trace_add(t, &b);
		hd_trace_add(t, &c);
		hd_trace_add(t, &d);
	}
	hd_trace_sort(t);
	return t;
}

START_TEST(diagram_ranks)
{
	struct hd_trace *t = ranks_trace();
	struct hd_screen *s = hd_screen_new(100, 9), *narrow = hd_screen_new(40, 9);
	struct hd_view_opts o;
	char *d, *n;

	hd_screen_set_ascii(s, true);
	hd_screen_set_ascii(narrow, true);
	hd_view_opts_init(&o);
	o.t = 50 * HD_US;
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_ptr_nonnull(strstr(d, "4 ranks, one GPU each"));
	ck_assert_ptr_nonnull(strstr(d, "Rank 0"));
	ck_assert_ptr_nonnull(strstr(d, "Rank 3"));
	ck_assert_ptr_nonnull(strstr(d, "stream-sync")); /* every host blocked */
	ck_assert_ptr_nonnull(strstr(d, "ar"));          /* every GPU in the all-reduce */
	ck_assert_ptr_nonnull(strstr(d, "NVLink out"));  /* the link moving data */
	ck_assert_ptr_null(strstr(d, "link idle"));
	/* too narrow for four boxes: the first and the last rank stand for all */
	hd_view_diagram(narrow, hd_screen_rect(narrow), t, NULL, &o);
	n = dump(narrow);
	ck_assert_ptr_nonnull(strstr(n, "Rank 0"));
	ck_assert_ptr_nonnull(strstr(n, "... R3"));
	ck_assert_ptr_null(strstr(n, "Rank 2"));
	free(d);
	free(n);
	/* after the transfer: the link is idle */
	o.t = 80 * HD_US;
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_ptr_nonnull(strstr(d, "link idle"));
	free(d);
	hd_screen_free(s);
	hd_screen_free(narrow);
	hd_trace_free(t);
}
END_TEST

/* ---- playback events ----------------------------------------------------- */

START_TEST(event_stepping)
{
	struct hd_trace *t = sample_trace();
	struct hd_events *ev = hd_events_new(t);
	static const hd_time want[] = { 0,          2 * HD_US,  3 * HD_US,  10 * HD_US,
					60 * HD_US, 90 * HD_US, 100 * HD_US };
	hd_time at;
	size_t i;

	ck_assert_uint_eq(hd_events_count(ev), HD_ARRAY_LEN(want));
	for (i = 0; i < HD_ARRAY_LEN(want); i++)
		ck_assert_int_eq(hd_events_at(ev, i), want[i]);
	/* forward from before the start visits every boundary in order */
	at = -1;
	for (i = 0; i < HD_ARRAY_LEN(want); i++) {
		at = hd_events_next(ev, at);
		ck_assert_int_eq(at, want[i]);
	}
	ck_assert_int_eq(hd_events_next(ev, at), at); /* stays at the end */
	for (i = HD_ARRAY_LEN(want) - 1; i > 0; i--) {
		at = hd_events_prev(ev, at);
		ck_assert_int_eq(at, want[i - 1]);
	}
	ck_assert_int_eq(hd_events_prev(ev, at), at); /* stays at the start */
	/* from between events */
	ck_assert_int_eq(hd_events_next(ev, 50 * HD_US), 60 * HD_US);
	ck_assert_int_eq(hd_events_prev(ev, 50 * HD_US), 10 * HD_US);
	hd_events_free(ev);
	hd_events_free(NULL);
	hd_trace_free(t);
}
END_TEST

/* ---- a whole small layout as text ------------------------------------------
 * 10 us; 29 columns: name column 8, bar 20 (0.5 us each).
 */
START_TEST(golden_small)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_screen *s = hd_screen_new(29, 5);
	struct hd_view_opts o;
	int api = hd_trace_lane(t, HD_LANE_API, 0, 0, "API");
	int st = hd_trace_lane(t, HD_LANE_STREAM, 0, 1, "Stream 1");
	int ce = hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "HtoD");
	char *d;

	add(t, api, 0, HD_SPAN_API, 0, 1 * HD_US, 0, "a");
	add(t, ce, 1, HD_SPAN_COPY, 1 * HD_US, 6 * HD_US, 1u << 20, "h2d");
	add(t, st, 2, HD_SPAN_KERNEL, 6 * HD_US, 10 * HD_US, 0, "k1");
	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = t->makespan;
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_str_eq(d,
			 "API      --                 |\n"
			 "Stream 1             ###k1###\n"
			 "HtoD       ===h2d====       |\n"
			 "         +---------+--------^\n"
			 "      us 0         5\n");
	free(d);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

static TCase *app_tcase(void);
static TCase *diagram_tcase(void);
/* ---- span looks ------------------------------------------------------------
 * The TUI draws spans from the table of looks (ir/spanlook.h) as the text
 * timeline does: each cell's glyph and role are its span's look's, and each
 * colour role gets the same colour on a 16-colour terminal as in the text
 * timeline's ANSI sequences.
 */
START_TEST(looks_agree_with_the_table)
{
	struct hd_trace *t = sample_trace();
	struct hd_screen *s = timeline_at(t, 100 * HD_US, NULL);
	const struct hd_spanlook *kern = hd_spanlook_get(HD_SPAN_KERNEL, HD_DIR_OUT);
	const struct hd_spanlook *copy = hd_spanlook_get(HD_SPAN_COPY, HD_DIR_OUT);
	const struct hd_cell *c;
	int h;

	/* the kernel 60..90 us, the copy 10..60 us: cells away from labels */
	c = hd_screen_cell(s, BAR_X + 61, lane_row(L_STREAM));
	ck_assert_str_eq(c->g, kern->glyph);
	ck_assert_int_eq(c->st.fg, hd_role_of_hue(kern->hue));
	ck_assert_int_eq(hd_view_span_role(t, NULL, &t->spans[5]), hd_role_of_hue(kern->hue));
	c = hd_screen_cell(s, BAR_X + 11, lane_row(L_CE));
	ck_assert_str_eq(c->g, copy->glyph);
	ck_assert_int_eq(c->st.fg, hd_role_of_hue(copy->hue));
	ck_assert_int_ne(hd_role_of_hue(kern->hue), hd_role_of_hue(copy->hue));
	ck_assert_int_eq(hd_role_of_hue(HD_HUE__COUNT), HD_ROLE_TEXT);
	/* every colour role: its own screen role, coloured as in the text
	 * timeline ("3N"/"9N": curses colour N, which numbers as ANSI does;
	 * dim "2" and grey "90" are white or black) */
	for (h = 0; h < HD_HUE__COUNT; h++) {
		enum hd_role r = hd_role_of_hue(h);
		const char *sgr = hd_timeline_sgr(h);
		short c16 = hd_term_role_color(r, HD_TERM_16);
		int n = sgr[1] - '0';

		ck_assert_int_ne(r, HD_ROLE_TEXT);
		ck_assert_int_ge(hd_term_role_color(r, HD_TERM_256), 0);
		ck_assert_int_eq(hd_term_role_color(r, HD_TERM_MONO), -1);
		if (strcmp(sgr, "2") == 0 || strcmp(sgr, "90") == 0)
			ck_assert_msg(c16 == 7 || c16 == 0, "hue %d: %d", h, c16);
		else
			ck_assert_msg((sgr[0] == '3' || sgr[0] == '9') && n == c16,
				      "hue %d: ANSI %s, curses %d", h, sgr, c16);
	}
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

static Suite *
tui_suite(void)
{
	Suite *s = suite_create("tui");
	TCase *tc = tcase_create("screen");

	tcase_add_test(tc, utf8_width);
	tcase_add_test(tc, clip_to_rect);
	tcase_add_test(tc, wide_chars);
	tcase_add_test(tc, boxes);
	suite_add_tcase(s, tc);
	tc = tcase_create("view");
	tcase_add_test(tc, fits_80x24);
	tcase_add_test(tc, fits_200x60);
	tcase_add_test(tc, fits_40x10);
	tcase_add_test(tc, fits_tiny);
	tcase_add_test(tc, playhead_reveals);
	tcase_add_test(tc, span_columns);
	tcase_add_test(tc, ghost_beneath);
	tcase_add_test(tc, link_use_numbers);
	tcase_add_test(tc, link_use_bars);
	tcase_add_test(tc, roles_and_highlight);
	tcase_add_test(tc, diagram_blocked_host);
	tcase_add_test(tc, diagram_ranks);
	tcase_add_test(tc, event_stepping);
	tcase_add_test(tc, golden_small);
	tcase_add_test(tc, looks_agree_with_the_table);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, app_tcase());
	suite_add_tcase(s, diagram_tcase());
	return s;
}

int
main(void)
{
	return hd_test_run(tui_suite());
}

/* ---- the lesson browser's screens and flow (tui/app_priv.h) --------------- */

/* The key names the help overlay lists on screen id in a w x h terminal,
 * comma-separated. */
static void
help_names_in(enum hd_tui_scr_id id, int w, int h, char *out, size_t n)
{
	struct hd_tui_app a;
	int y;

	memset(&a, 0, sizeof a);
	a.scr = hd_screen_new(w, h);
	hd_screen_set_ascii(a.scr, true);
	a.screen = id;
	hd_tui_scr_help.draw(&a, w, h);
	out[0] = '\0';
	for (y = 0; y < h; y++) {
		char *row = row_text(a.scr, y), *bar = strchr(row, '|'), *end;
		if (bar != NULL && bar[1] == ' ' && bar[2] != ' ' &&
		    (end = strstr(bar + 2, "  ")) != NULL) {
			*end = '\0';
			snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? "," : "",
				 bar + 2);
		}
		free(row);
	}
	hd_screen_free(a.scr);
}

static void
help_names(enum hd_tui_scr_id id, char *out, size_t n)
{
	help_names_in(id, 100, 40, out, n);
}

/* The help overlay lists each screen's own keys, in its table's order, then
 * the keys of every screen. */
START_TEST(help_per_screen)
{
	static const struct {
		enum hd_tui_scr_id id;
		const char *names;
	} want[] = {
		{ HD_TUI_LIST, "Up k,Down j,Home End,PgUp PgDn,Enter,/,P,?,Ctrl-L,q Esc" },
		{ HD_TUI_PAGE, "Right l PgDn Space,Left h PgUp,Home End,?,Ctrl-L,q Esc" },
		{ HD_TUI_QUESTION, "h,p,Enter,?,Ctrl-L,q Esc" },
		{ HD_TUI_CONFIDENCE, "Enter,?,Ctrl-L,q Esc" },
		{ HD_TUI_RUN,
		  "Space,Right l,Left h,+ -,Home End,r,Tab,R,Enter n,k,m,P,p,A,c,L,"
		  "] [ < > 0,z,PgDn PgUp J K,?,Ctrl-L,q Esc" },
		{ HD_TUI_KNOBS, "k,Up Down,Right Left l h,5ms Enter,m,P,p,A,?,Ctrl-L,q Esc" },
		{ HD_TUI_SUMMARY, "Enter,e,A,p,?,Ctrl-L,q Esc" },
	};
	char got[512];
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(want); i++) {
		help_names(want[i].id, got, sizeof got);
		ck_assert_str_eq(got, want[i].names);
		/* every key still listed in the smallest terminal the browser takes */
		help_names_in(want[i].id, 80, 24, got, sizeof got);
		ck_assert_str_eq(got, want[i].names);
	}
}
END_TEST

/* No key is listed twice for one screen: the second would never be reached. */
START_TEST(keys_unique)
{
	static const enum hd_tui_scr_id ids[] = {
		HD_TUI_LIST, HD_TUI_PAGE,  HD_TUI_QUESTION, HD_TUI_CONFIDENCE,
		HD_TUI_RUN,  HD_TUI_KNOBS, HD_TUI_SUMMARY,
	};
	struct hd_tui_app a;
	size_t s, i, j;

	memset(&a, 0, sizeof a);
	for (s = 0; s < HD_ARRAY_LEN(ids); s++) {
		const struct hd_tui_scr_ops *ops;
		struct hd_tui_keys t[2];

		a.screen = ids[s];
		ops = hd_tui_screen(&a);
		ck_assert_ptr_nonnull(ops->draw);
		ck_assert_ptr_nonnull(ops->footer);
		t[0] = ops->keys;
		t[1] = hd_tui_keys_all;
		for (i = 0; i < t[0].n + t[1].n; i++)
			for (j = i + 1; j < t[0].n + t[1].n; j++) {
				const struct hd_tui_key *ki = i < t[0].n ? &t[0].k[i] :
									   &t[1].k[i - t[0].n];
				const struct hd_tui_key *kj = j < t[0].n ? &t[0].k[j] :
									   &t[1].k[j - t[0].n];
				ck_assert_msg(ki->key != kj->key, "screen %d: key %d twice",
					      (int)ids[s], ki->key);
			}
	}
}
END_TEST

static void
press(struct hd_tui_app *a, const char *keys)
{
	for (; *keys != '\0'; keys++)
		hd_tui_key(a, (unsigned char)*keys);
}

/* Draw the screen a is on (the run screen notices the end of the run there). */
static char *
draw_app(struct hd_tui_app *a)
{
	hd_screen_clear(a->scr);
	hd_tui_screen(a)->draw(a, 100, 30);
	return dump(a->scr);
}

/*
 * Lesson 1 by keys, with no terminal: its pages, an order question (locked
 * run, incomplete answers refused), the run, the explanation that unlocks
 * the next question, a knob change that re-runs, a choice question, the
 * lesson done; the answers are stored and the next start resumes there.
 */
START_TEST(lesson_flow)
{
	char dir[64], db[96], *text;
	struct hd_catalog *cat = hd_catalog_new();
	struct hd_tui_opts o = { 0 };
	struct hd_tui_app a;
	double t;

	hd_test_mkdtemp(dir, sizeof dir, "tui-flow");
	snprintf(db, sizeof db, "%s/db", dir);
	o.db = db;
	o.learner = "t";
	ck_assert_int_eq(hd_catalog_add_builtin(cat), 0);
	hd_tui_app_init(&a, cat, hd_profile_builtin(0), &o);
	ck_assert_ptr_nonnull(a.store);
	a.scr = hd_screen_new(100, 30);
	hd_screen_set_ascii(a.scr, true);
	ck_assert_int_eq(a.rows[a.sel], 0);

	press(&a, "\r");
	ck_assert_int_eq(a.screen, HD_TUI_PAGE);
	press(&a, "  ");
	ck_assert_int_eq(a.screen, HD_TUI_QUESTION);
	ck_assert_int_eq(a.q, 0);
	press(&a, "xb\r"); /* x is no option; one letter is not enough */
	ck_assert_str_eq(a.input, "b");
	ck_assert_str_eq(a.msg, "type each of the 3 letters once");
	ck_assert_int_eq(a.screen, HD_TUI_QUESTION);
	press(&a, "ca\r");
	ck_assert_int_eq(a.screen, HD_TUI_CONFIDENCE);
	ck_assert_int_eq(a.correct, 1);
	ck_assert_str_eq(a.verdict,
			 "Right: b) The launch call, cudaLaunchKernel, on the host, "
			 "then c) The host's own 2 ms of work, then a) The kernel, on the GPU.");
	press(&a, "3");
	ck_assert_int_eq(a.screen, HD_TUI_QUESTION); /* every question before any run */
	ck_assert_int_eq(a.q, 1);
	press(&a, "b5");
	ck_assert_int_eq(a.screen, HD_TUI_RUN);
	ck_assert_int_eq(a.q, 0);
	press(&a, "n"); /* before the explanation: refused */
	ck_assert_int_eq(a.screen, HD_TUI_RUN);
	ck_assert_str_eq(a.msg, "play the run to its end (End) for the explanation");
	press(&a, "G");
	text = draw_app(&a);
	ck_assert_ptr_nonnull(strstr(text, " Explanation "));
	ck_assert_ptr_nonnull(strstr(text, "Right: b) The launch call, cudaLaunchKernel, on the"));
	free(text);
	ck_assert(a.explained);

	t = a.run.knobs[0];
	press(&a, "k+");
	ck_assert_int_eq(a.screen, HD_TUI_KNOBS);
	ck_assert(a.have_prev);
	ck_assert(a.run.knobs[0] == 2 * t);
	ck_assert(a.prev.knobs[0] == t);
	press(&a, "?");
	ck_assert(a.help);
	press(&a, "q"); /* closes the help, nothing else */
	ck_assert(!a.help);
	ck_assert_int_eq(a.screen, HD_TUI_KNOBS);
	press(&a, "k");
	ck_assert_int_eq(a.screen, HD_TUI_RUN);

	press(&a, "n"); /* the second question's run */
	ck_assert_int_eq(a.screen, HD_TUI_RUN);
	ck_assert_int_eq(a.q, 1);
	ck_assert_str_eq(a.verdict,
			 "Right. You chose b) About t (5 ms): the host's work hides "
			 "under the kernel");
	press(&a, "G");
	free(draw_app(&a));
	press(&a, "n");
	ck_assert_int_eq(a.screen, HD_TUI_SUMMARY);
	text = draw_app(&a);
	ck_assert_ptr_nonnull(strstr(text, "lesson 1 done, 2 of 2 predictions right"));
	ck_assert_ptr_nonnull(strstr(text, "Next: lesson 2,"));
	free(text);
	ck_assert_int_eq(a.marks[0].answered, 2);
	ck_assert_int_eq(a.marks[0].right, 2);
	hd_screen_free(a.scr);
	hd_tui_app_free(&a);

	/* a fresh start reads the answers back */
	hd_tui_app_init(&a, cat, hd_profile_builtin(0), &o);
	ck_assert_int_eq(a.resume, 0);
	ck_assert_int_eq(a.marks[0].answered, 2);
	ck_assert_int_eq(a.marks[0].wrong, 0);
	hd_tui_app_free(&a);
	hd_catalog_free(cat);
	hd_test_rmtree(dir);
}
END_TEST

/*
 * An option's feedback (`option ID "text" feedback "..."`): the confidence
 * screen shows it right after the choice, and the verdict, which the run's
 * explanation and the summary show, carries it.
 */
START_TEST(option_feedback)
{
	char dir[64], db[96], *text;
	struct hd_catalog *cat = hd_catalog_new();
	struct hd_tui_opts o = { 0 };
	struct hd_err e = { 0 };
	struct hd_tui_app a;
	int li;

	hd_test_mkdtemp(dir, sizeof dir, "tui-feedback");
	snprintf(db, sizeof db, "%s/db", dir);
	o.db = db;
	o.learner = "t";
	ck_assert_int_eq(hd_catalog_add_builtin(cat), 0);
	ck_assert_int_ge((li = hd_catalog_find(cat, "log-every-n", &e)), 0);
	hd_tui_app_init(&a, cat, hd_profile_builtin(0), &o);
	a.scr = hd_screen_new(100, 30);
	hd_screen_set_ascii(a.scr, true);
	hd_tui_flow_open(&a, li);
	ck_assert_int_eq(a.screen, HD_TUI_PAGE);
	press(&a, "  ");
	ck_assert_int_eq(a.screen, HD_TUI_QUESTION);
	ck_assert_ptr_null(hd_tui_flow_feedback(&a));
	press(&a, "c");
	ck_assert_int_eq(a.screen, HD_TUI_CONFIDENCE);
	ck_assert_int_eq(a.correct, 0);
	ck_assert_str_eq(hd_tui_flow_feedback(&a),
			 "Only the logged steps pay: between two logs the host gets ahead of the "
			 "GPU again, and its work hides under the GPU's.");
	text = draw_app(&a);
	ck_assert_ptr_nonnull(strstr(text, "On that answer: Only the logged steps pay"));
	free(text);
	ck_assert_ptr_nonnull(strstr(a.verdict, "the answer is b) About 10 x 2 ms"));
	ck_assert_ptr_nonnull(strstr(a.verdict, ". Only the logged steps pay: between two logs"));
	press(&a, "4");
	ck_assert_int_eq(a.screen, HD_TUI_QUESTION); /* the estimate: no feedback */
	ck_assert_ptr_null(hd_tui_flow_feedback(&a));
	hd_screen_free(a.scr);
	hd_tui_app_free(&a);
	hd_catalog_free(cat);
	hd_test_rmtree(dir);
}
END_TEST

/*
 * The lesson flow on lesson 1 (no terminal): pages from the run and back,
 * a typed knob value with its unit (and one out of range refused), the
 * summary's next lesson, a finished lesson re-opened straight into explore
 * mode, the questions again on request, a search that starts empty.
 */
START_TEST(lesson_flow_explore)
{
	char dir[64], db[96];
	struct hd_catalog *cat = hd_catalog_new();
	struct hd_tui_opts o = { 0 };
	struct hd_tui_app a;

	hd_test_mkdtemp(dir, sizeof dir, "tui-explore");
	snprintf(db, sizeof db, "%s/db", dir);
	o.db = db;
	o.learner = "t";
	ck_assert_int_eq(hd_catalog_add_builtin(cat), 0);
	hd_tui_app_init(&a, cat, hd_profile_builtin(0), &o);
	a.scr = hd_screen_new(100, 30);
	hd_screen_set_ascii(a.scr, true);

	press(&a, "\r  bca\r\ra\r");
	ck_assert_int_eq(a.screen, HD_TUI_RUN);
	press(&a, "p"); /* back to the pages, and on to the run */
	ck_assert_int_eq(a.screen, HD_TUI_PAGE);
	press(&a, "  ");
	ck_assert_int_eq(a.screen, HD_TUI_RUN);
	ck_assert_int_eq(a.q, 0);

	press(&a, "k"); /* the knob panel; cpu, typed with its unit */
	press(&a, "cpu = 7ms\r");
	ck_assert_str_eq(a.msg, "cpu=7ms is out of range: knob cpu goes from 100 us to 5.00 ms");
	ck_assert_int_eq(a.knob, 0);
	press(&a, "=cpu=5ms\r");
	ck_assert_int_eq(a.knob, 1);
	ck_assert(a.run.knobs[1] == 5e9);
	ck_assert_int_eq(a.run.claims_failed, 0);
	press(&a, "500us\r"); /* on the selected knob */
	ck_assert(a.run.knobs[1] == 5e8);
	press(&a, "l"); /* 1-2-5: 500 us -> 1 ms */
	ck_assert(a.run.knobs[1] == 1e9);
	press(&a, "k");

	press(&a, "G");
	free(draw_app(&a));
	press(&a, "nG");
	free(draw_app(&a));
	press(&a, "n");
	ck_assert_int_eq(a.screen, HD_TUI_SUMMARY);
	press(&a, "\r"); /* the next lesson */
	ck_assert_int_eq(a.li, 1);
	ck_assert_int_eq(a.screen, HD_TUI_PAGE);
	press(&a, "q");
	ck_assert_int_eq(a.screen, HD_TUI_LIST);

	press(&a, "G");
	ck_assert_int_eq(a.sel, a.nrows - 1);
	press(&a, "g");
	ck_assert_int_eq(a.sel, 0);
	press(&a, "\r"); /* answered: straight into explore */
	ck_assert_int_eq(a.screen, HD_TUI_RUN);
	ck_assert(a.explore);
	ck_assert_ptr_null(hd_tui_flow_cur(&a));
	press(&a, "\t");
	ck_assert_int_eq(a.sc, 1);
	press(&a, "A"); /* the questions again */
	ck_assert_int_eq(a.screen, HD_TUI_QUESTION);
	ck_assert_int_eq(a.q, 0);
	ck_assert(!a.explore);
	press(&a, "q");

	press(&a, "/host\r/"); /* a new search starts empty */
	ck_assert_str_eq(a.search, "");
	hd_screen_free(a.scr);
	hd_tui_app_free(&a);
	hd_catalog_free(cat);
	hd_test_rmtree(dir);
}
END_TEST

static TCase *
app_tcase(void)
{
	TCase *tc = tcase_create("app");

	tcase_add_test(tc, help_per_screen);
	tcase_add_test(tc, keys_unique);
	tcase_add_test(tc, lesson_flow);
	tcase_add_test(tc, option_feedback);
	tcase_add_test(tc, lesson_flow_explore);
	return tc;
}

/* ---- moving diagrams: stream queues, the ring (tui/diagram.h) ------------ */

/* Two kernels launched at 5 and 10 us onto one stream, run 8..50 and 50..80. */
static struct hd_trace *
queue_trace(void)
{
	struct hd_trace *t = hd_trace_new();
	int api = hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	int st = hd_trace_lane(t, HD_LANE_STREAM, 0, 2, "Stream s1");
	int l = hd_trace_string(t, "cudaLaunchKernel");
	struct hd_span s[] = {
		{ api, 0, 0, HD_SPAN_API, HD_WHY_NONE, 0, 5 * HD_US, 0, l, 0 },
		{ api, 1, 0, HD_SPAN_API, HD_WHY_NONE, 5 * HD_US, 10 * HD_US, 0, l, 0 },
		{ st, 0, 0, HD_SPAN_KERNEL, HD_WHY_NONE, 8 * HD_US, 50 * HD_US, 0,
		  hd_trace_string(t, "k1"), 0 },
		{ st, 1, 0, HD_SPAN_KERNEL, HD_WHY_NONE, 50 * HD_US, 80 * HD_US, 0,
		  hd_trace_string(t, "k2"), 0 },
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(s); i++)
		hd_trace_add(t, &s[i]);
	hd_trace_sort(t);
	return t;
}

/* The queue fills as the host launches and drains as the GPU runs. */
START_TEST(stream_queue)
{
	struct hd_trace *t = queue_trace();
	struct hd_screen *s = hd_screen_new(100, 8);
	const struct hd_span *q[4];
	struct hd_view_opts o;
	char *d;

	ck_assert_int_eq(hd_diagram_queue(t, NULL, 1, 2 * HD_US, q, 4), 0); /* launching */
	ck_assert_int_eq(hd_diagram_queue(t, NULL, 1, 6 * HD_US, q, 4), 1); /* k1 waits */
	ck_assert_int_eq(hd_diagram_queue(t, NULL, 1, 20 * HD_US, q, 4), 2);
	ck_assert_str_eq(t->strings[q[0]->label], "k1"); /* FIFO: the running one first */
	ck_assert_str_eq(t->strings[q[1]->label], "k2");
	ck_assert_int_eq(hd_diagram_queue(t, NULL, 1, 20 * HD_US, q, 1), 2); /* count past max */
	ck_assert_int_eq(hd_diagram_queue(t, NULL, 1, 60 * HD_US, q, 4), 1);
	ck_assert_int_eq(hd_diagram_queue(t, NULL, 1, 80 * HD_US, q, 4), 0); /* drained */
	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = 20 * HD_US;
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_msg(strstr(d, "queue 2: >k1 [k2]") != NULL, "no queue in:\n%s", d);
	free(d);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

/* An all-reduce on 8 ranks over 0..140 us: 14 ring steps of 10 us; rank 2's
 * link busy throughout. */
START_TEST(ring_steps)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_op op;
	struct hd_scenario sc;
	struct hd_diagram_coll c;
	struct hd_screen *s = hd_screen_new(100, 3);
	struct hd_view_opts o;
	int st = hd_trace_lane(t, HD_LANE_STREAM, 0, 2, "Stream 2 (s)");
	int ln = hd_trace_lane(t, HD_LANE_LINK, 2, 0, "NVLink out");
	int ar = hd_trace_string(t, "ar");
	struct hd_span a = { st, 0, 0, HD_SPAN_COMM, HD_WHY_NONE, 0, 140 * HD_US, 1 << 20, ar, 0 };
	struct hd_span b = { ln, 0, 0, HD_SPAN_COMM, HD_WHY_NONE, 0, 140 * HD_US, 1 << 20, ar, 0 };
	char *d;

	memset(&op, 0, sizeof op);
	op.kind = HD_OP_COLL;
	op.coll = HD_COLL_ALLREDUCE;
	op.label = "ar";
	op.bytes = 1 << 20;
	memset(&sc, 0, sizeof sc);
	sc.nranks = 8;
	sc.ops = &op;
	sc.nops = 1;
	hd_trace_add(t, &a);
	hd_trace_add(t, &b);
	ck_assert(!hd_diagram_coll_at(t, NULL, 5 * HD_US, &c));
	ck_assert(hd_diagram_coll_at(t, &sc, 5 * HD_US, &c));
	ck_assert_int_eq(c.nsteps, 14);
	ck_assert_int_eq(c.step, 1);
	ck_assert_str_eq(c.phase, "reduce-scatter");
	ck_assert_int_eq(hd_diagram_ring_chunk(&c, 2), 2);
	ck_assert(hd_diagram_coll_at(t, &sc, 75 * HD_US, &c));
	ck_assert_int_eq(c.step, 8);
	ck_assert_str_eq(c.phase, "all-gather");
	ck_assert_int_eq(c.phase_step, 1);
	ck_assert_int_eq(hd_diagram_ring_chunk(&c, 2), 3);
	ck_assert(hd_diagram_coll_at(t, &sc, 200 * HD_US, &c)); /* ended: its last step */
	ck_assert_int_eq(c.step, 14);
	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = 135 * HD_US;
	ck_assert_int_eq(hd_diagram_ring(s, hd_screen_rect(s), t, &sc, &o, 8), 2);
	d = dump(s);
	ck_assert_msg(strstr(d, "all-gather step 7 of 7 (ring step 14 of 14)") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "algBw 7.49 GB/s busBw 13.1 GB/s") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "R2 -[c") != NULL, "no chunk on R2's link:\n%s", d);
	ck_assert_msg(strstr(d, "R1 ------> R2") != NULL, "R1's idle link:\n%s", d);
	free(d);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

/* A collective of `coll` on n ranks over 0 .. 140 us, for its pieces. */
static struct hd_diagram_coll
coll_of(enum hd_coll coll, int n)
{
	struct hd_diagram_coll c;

	memset(&c, 0, sizeof c);
	c.coll = coll;
	c.nranks = n;
	c.nsteps = (coll == HD_COLL_ALLREDUCE ? 2 : 1) * (n - 1);
	c.phase_steps = n - 1;
	c.end = 140 * HD_US;
	return c;
}

/*
 * Each rank's buffer pieces as the ring fills them: on 4 ranks, rank 1
 * after 0, 1, 3 (reduce-scatter done), 4 (all-gather 1) and 6 steps; a lone
 * reduce-scatter and all-gather; and on 5 and 8 ranks, the chunk each rank
 * sends at step k (hd_diagram_ring_chunk) holds k ranks' sums in
 * reduce-scatter and is complete in all-gather, and the receiver, which
 * held only its own share of it, holds one more (or the complete piece)
 * after it.
 */
START_TEST(ring_pieces)
{
	struct hd_diagram_coll c = coll_of(HD_COLL_ALLREDUCE, 4);
	static const int want[][4] = {
		{ 1, 1, 1, 1 }, /* got 0 */
		{ 2, 1, 1, 1 }, /* got 1: piece 0 from rank 0 */
		{ 2, 1, 4, 3 }, /* got 3: piece 2 complete, piece 3 three ranks' */
		{ 2, 4, 4, 3 }, /* got 4: its own piece 1 comes back complete */
		{ 4, 4, 4, 4 }, /* got 6 */
	};
	static const int gots[] = { 0, 1, 3, 4, 6 };
	static const int ns[] = { 5, 8 };
	size_t i;
	int p, k, r, ni;

	for (i = 0; i < HD_ARRAY_LEN(gots); i++)
		for (p = 0; p < 4; p++)
			ck_assert_msg(hd_diagram_ring_piece(&c, gots[i], 1, p) == want[i][p],
				      "got %d piece %d: %d, not %d", gots[i], p,
				      hd_diagram_ring_piece(&c, gots[i], 1, p), want[i][p]);
	c = coll_of(HD_COLL_REDUCESCATTER, 4);
	ck_assert_int_eq(hd_diagram_ring_piece(&c, 3, 1, 2), 4);
	ck_assert_int_eq(hd_diagram_ring_piece(&c, 3, 1, 1), 1);
	c = coll_of(HD_COLL_ALLGATHER, 4); /* its own piece, then one a step */
	ck_assert_int_eq(hd_diagram_ring_piece(&c, 0, 1, 1), 4);
	ck_assert_int_eq(hd_diagram_ring_piece(&c, 0, 1, 0), 0);
	ck_assert_int_eq(hd_diagram_ring_piece(&c, 2, 1, 0), 4);
	ck_assert_int_eq(hd_diagram_ring_piece(&c, 2, 1, 3), 4);
	ck_assert_int_eq(hd_diagram_ring_piece(&c, 2, 1, 2), 0);
	c = coll_of(HD_COLL_BROADCAST, 4);
	c.nsteps = 0;
	ck_assert_int_eq(hd_diagram_ring_piece(&c, 0, 1, 1), 0);
	for (ni = 0; ni < 2; ni++) {
		int n = ns[ni];

		c = coll_of(HD_COLL_ALLREDUCE, n);
		for (k = 1; k <= c.nsteps; k++) {
			c.step = k;
			c.phase_step = (k - 1) % (n - 1) + 1;
			c.phase = k > n - 1 ? "all-gather" : "reduce-scatter";
			for (r = 0; r < n; r++) {
				int ch = hd_diagram_ring_chunk(&c, r), to = (r + 1) % n;
				int sent = hd_diagram_ring_piece(&c, k - 1, r, ch);
				int then = hd_diagram_ring_piece(&c, k, to, ch);

				ck_assert_int_eq(sent, k < n ? k : n);
				ck_assert_int_eq(then, k < n ? k + 1 : n);
				if (k < n) /* before: the receiver's own share alone */
					ck_assert_int_eq(hd_diagram_ring_piece(&c, k - 1, to, ch),
							 1);
			}
		}
	}
}
END_TEST

/*
 * The steps each rank has received, from the trace: an all-reduce on 3
 * ranks, 4 ring steps of 10 us on each rank's link, rank 2's 5 us late.  At
 * 22 us rank 0 has had one step from rank 2, ranks 1 and 2 two; the pieces
 * row draws each rank's buffer under its name.  A tree (one transfer on
 * rank 0's link) has no ring counter and no pieces.
 */
START_TEST(ring_got)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_op op;
	struct hd_scenario sc;
	struct hd_diagram_coll c;
	struct hd_screen *s = hd_screen_new(100, 3);
	struct hd_view_opts o;
	int st = hd_trace_lane(t, HD_LANE_STREAM, 0, 2, "Stream 2 (s)");
	int ar = hd_trace_string(t, "ar"), got[3], r, k;
	char *row;

	memset(&op, 0, sizeof op);
	op.kind = HD_OP_COLL;
	op.coll = HD_COLL_ALLREDUCE;
	op.label = "ar";
	op.bytes = 3 << 20;
	memset(&sc, 0, sizeof sc);
	sc.nranks = 3;
	sc.ops = &op;
	sc.nops = 1;
	add(t, st, 0, HD_SPAN_COMM, 0, 45 * HD_US, 3 << 20, "ar");
	for (r = 0; r < 3; r++) {
		int ln = hd_trace_lane(t, HD_LANE_LINK, r, 0, "NVLink out");
		hd_time late = r == 2 ? 5 * HD_US : 0;

		for (k = 0; k < 4; k++) {
			struct hd_span sp = { ln,
					      0,
					      0,
					      HD_SPAN_COMM,
					      HD_WHY_NONE,
					      late + k * 10 * HD_US,
					      late + (k + 1) * 10 * HD_US,
					      1 << 20,
					      ar,
					      0 };
			hd_trace_add(t, &sp);
		}
	}
	hd_trace_sort(t);
	ck_assert(hd_diagram_coll_at(t, &sc, 22 * HD_US, &c));
	ck_assert_int_eq(c.nsteps, 4);
	ck_assert_int_eq(hd_diagram_ring_got(t, &c, 22 * HD_US, got), 0);
	ck_assert_int_eq(got[0], 1);
	ck_assert_int_eq(got[1], 2);
	ck_assert_int_eq(got[2], 2);
	ck_assert_int_eq(hd_diagram_ring_got(t, &c, 0, got), 0);
	ck_assert_int_eq(got[0] + got[1] + got[2], 0);
	ck_assert_int_eq(hd_diagram_ring_got(t, &c, 45 * HD_US, got), 0);
	ck_assert_int_eq(got[0] + got[1] + got[2], 12);
	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = 22 * HD_US;
	ck_assert_int_eq(hd_diagram_ring(s, hd_screen_rect(s), t, &sc, &o, 3), 3);
	row = row_text(s, 2);
	/* rank 0: piece 2 holds two ranks' sums; rank 1: pieces 0 and 2, the
	 * latter complete; rank 2: pieces 0 (complete) and 1 */
	ck_assert_str_eq(row, "112        213        321 pieces: ranks summed in each");
	free(row);
	/* the same at the start: every piece its own rank's alone */
	o.t = 0;
	hd_screen_clear(s);
	hd_diagram_ring(s, hd_screen_rect(s), t, &sc, &o, 3);
	row = row_text(s, 2);
	ck_assert_str_eq(row, "111        111        111 pieces: ranks summed in each");
	free(row);
	/* two rows: no pieces */
	ck_assert_int_eq(hd_diagram_ring(s, (struct hd_rect){ 0, 0, 100, 2 }, t, &sc, &o, 3), 2);
	hd_trace_free(t);
	/* a tree: one transfer on rank 0's link */
	t = hd_trace_new();
	st = hd_trace_lane(t, HD_LANE_STREAM, 0, 2, "Stream 2 (s)");
	add(t, st, 0, HD_SPAN_COMM, 0, 45 * HD_US, 3 << 20, "ar");
	add(t, hd_trace_lane(t, HD_LANE_LINK, 0, 0, "NVLink out"), 0, HD_SPAN_COMM, 0, 20 * HD_US,
	    3 << 20, "ar");
	hd_trace_sort(t);
	ck_assert(hd_diagram_coll_at(t, &sc, 10 * HD_US, &c));
	ck_assert_int_eq(c.nsteps, 0);
	ck_assert_int_eq(hd_diagram_ring_got(t, &c, 10 * HD_US, got), -1);
	ck_assert_int_eq(hd_diagram_ring(s, hd_screen_rect(s), t, &sc, &o, 3), 2);
	hd_trace_free(t);
	hd_screen_free(s);
}
END_TEST

/* Four ranks of three lanes in 8 rows: rank 0, one row for ranks 1 and 2,
 * rank 3; a lane with no spans goes before anything is folded. */
START_TEST(timeline_folds)
{
	struct hd_trace *t = ranks_trace();
	struct hd_screen *s = hd_screen_new(80, 10);
	struct hd_view_opts o;
	char *d;

	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = 50 * HD_US;
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_msg(strstr(d, "R0 CUDA API") != NULL && strstr(d, "R0 NVLink out") != NULL &&
			  strstr(d, "R1-R2") != NULL &&
			  strstr(d, "(2 ranks like these not shown)") != NULL &&
			  strstr(d, "R3 CUDA API") != NULL && strstr(d, "R3 NVLink out") != NULL &&
			  strstr(d, "R1 CUDA API") == NULL,
		      "%s", d);
	free(d);
	/* room for all: nothing folded */
	hd_screen_resize(s, 80, 14);
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_msg(strstr(d, "R2 Stream") != NULL && strstr(d, "not shown") == NULL, "%s", d);
	free(d);
	hd_trace_free(t);
	/* one rank: an empty lane goes first, the others stay */
	t = sample_trace();
	hd_trace_lane(t, HD_LANE_HOST, 0, 0, "Host thread");
	hd_screen_resize(s, 80, 7);
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_msg(strstr(d, "Host thread") == NULL && strstr(d, "PCIe") != NULL, "%s", d);
	free(d);
	/* the run screen: the diagram gives way before a lane is lost (7 busy
	 * lanes, 14 rows: the diagram's 6 would leave the timeline 5) */
	add(t, hd_trace_lane(t, HD_LANE_STREAM, 0, 3, "Stream s2"), 3, HD_SPAN_KERNEL, 0, HD_US, 0,
	    "k3");
	add(t, hd_trace_lane(t, HD_LANE_CE_D2H, 0, 0, "Memcpy DtoH"), 4, HD_SPAN_COPY, 0, HD_US, 64,
	    "d2h");
	hd_screen_resize(s, 80, 14);
	hd_view_run(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_msg(strstr(d, "PCIe HtoD") != NULL && strstr(d, "Compute") != NULL, "%s", d);
	free(d);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

/*
 * Folded ranks scroll: four ranks of three lanes in 8 rows.  Scrolled to
 * rank 1, a row for rank 0, ranks 1 and 2 whole, a row for rank 3; to rank
 * 5, as far as the last rank shows at the end (rank 2: a row for ranks 0
 * and 1, then ranks 2 and 3); what was folded comes back in o.fold.
 */
START_TEST(timeline_scrolls)
{
	struct hd_trace *t = ranks_trace();
	struct hd_screen *s = hd_screen_new(80, 10);
	struct hd_view_opts o;
	struct hd_view_fold f;
	char *r;
	int y;

	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = 50 * HD_US;
	o.fold = &f;
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	ck_assert(f.folded);
	ck_assert_int_eq(f.from, 0);
	ck_assert_int_eq(f.first, 0);
	ck_assert_int_eq(f.last, 0); /* rank 0 whole, then the fold, then rank 3 */
	ck_assert_int_eq(f.nranks, 4);
	o.rank_from = 1;
	hd_screen_clear(s);
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	ck_assert_int_eq(f.from, 1);
	ck_assert_int_eq(f.first, 1);
	ck_assert_int_eq(f.last, 2);
	r = row_text(s, 0);
	ck_assert_msg(strncmp(r, "R0 ", 3) == 0 && strstr(r, "(1 rank like these not shown)") &&
			  strstr(r, "PgUp K"),
		      "%s", r);
	free(r);
	for (y = 1; y <= 6; y++) {
		r = row_text(s, y);
		ck_assert_msg(strncmp(r, y <= 3 ? "R1 " : "R2 ", 3) == 0, "row %d: %s", y, r);
		free(r);
	}
	r = row_text(s, 7);
	ck_assert_msg(strncmp(r, "R3 ", 3) == 0 && strstr(r, "PgDn J"), "%s", r);
	free(r);
	o.rank_from = 5;
	hd_screen_clear(s);
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	ck_assert_int_eq(f.from, 2);
	ck_assert_int_eq(f.last, 3);
	r = row_text(s, 0);
	ck_assert_msg(strncmp(r, "R0-R1 ", 6) == 0 && strstr(r, "(2 ranks like these not shown)"),
		      "%s", r);
	free(r);
	r = row_text(s, 6);
	ck_assert_msg(strncmp(r, "R3 NVLink out", 13) == 0, "%s", r);
	free(r);
	/* room for every rank: nothing folded, nothing to scroll */
	hd_screen_resize(s, 80, 16);
	hd_view_timeline(s, hd_screen_rect(s), t, NULL, &o);
	ck_assert(!f.folded);
	ck_assert_int_eq(f.from, 0);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

/*
 * Pages verbatim: an aligned table and indented code keep their spaces; a
 * line longer than the width wraps at a space, its continuation indented
 * under the line's own indentation; the row count agrees with the drawing.
 */
START_TEST(page_verbatim)
{
	static const char page[] = "A table:\n"
				   "\n"
				   "  size    time\n"
				   "  1 MiB   40 us\n"
				   "\n"
				   "    for (i = 0; i < n; i++)\n"
				   "        x[i] = 2 * x[i];\n"
				   "  - a long item that does not fit in the width";
	struct hd_tui_app a;
	char *r;
	int y;

	memset(&a, 0, sizeof a);
	a.scr = hd_screen_new(30, 12);
	y = hd_tui_wrap_draw(&a, 0, 0, 30, 12, "", page, plain);
	ck_assert_int_eq(y, 9);
	ck_assert_int_eq(hd_tui_wrap_lines(page, 30), 9);
	r = row_text(a.scr, 2);
	ck_assert_str_eq(r, "  size    time");
	free(r);
	r = row_text(a.scr, 3);
	ck_assert_str_eq(r, "  1 MiB   40 us");
	free(r);
	r = row_text(a.scr, 6);
	ck_assert_str_eq(r, "        x[i] = 2 * x[i];");
	free(r);
	r = row_text(a.scr, 7);
	ck_assert_str_eq(r, "  - a long item that does not");
	free(r);
	r = row_text(a.scr, 8);
	ck_assert_str_eq(r, "  fit in the width");
	free(r);
	hd_screen_free(a.scr);
}
END_TEST

/* Lesson 17's page keeps its aligned list of collectives. */
START_TEST(page_lesson_aligned)
{
	char dir[64], db[96], *text;
	struct hd_catalog *cat = hd_catalog_new();
	struct hd_tui_opts o = { 0 };
	struct hd_tui_app a;

	hd_test_mkdtemp(dir, sizeof dir, "tui-page");
	snprintf(db, sizeof db, "%s/db", dir);
	o.db = db;
	o.learner = "t";
	ck_assert_int_eq(hd_catalog_add_builtin(cat), 0);
	hd_tui_app_init(&a, cat, hd_profile_builtin(0), &o);
	a.scr = hd_screen_new(100, 30);
	hd_screen_set_ascii(a.scr, true);
	for (a.sel = 0; a.sel < a.nrows && a.rows[a.sel] != 16; a.sel++)
		;
	press(&a, "\r");
	ck_assert_int_eq(a.screen, HD_TUI_PAGE);
	text = draw_app(&a);
	ck_assert_msg(strstr(text, "  all-reduce      every rank ends with the sum") != NULL, "%s",
		      text);
	free(text);
	hd_screen_free(a.scr);
	hd_tui_app_free(&a);
	hd_catalog_free(cat);
	hd_test_rmtree(dir);
}
END_TEST

/* A staged copy of 8 chunks of 2 MiB: the host memcpy's chunk k into the
 * staging buffer over [10k, 10k + 10) us, and the chunk crosses PCIe over
 * [10k + 10, 10k + 18) us. */
START_TEST(staged_chunks)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_screen *s = hd_screen_new(140, 8);
	struct hd_diagram_staged sg;
	struct hd_view_opts o;
	int host = hd_trace_lane(t, HD_LANE_HOST, 0, 0, "Host thread");
	int pcie = hd_trace_lane(t, HD_LANE_PCIE_H2D, 0, 0, "PCIe HtoD");
	hd_time k;
	char *d;

	for (k = 0; k < 8; k++) {
		add(t, host, 0, HD_SPAN_STAGING, 10 * k * HD_US, (10 * k + 10) * HD_US, 2 << 20,
		    "staging memcpy");
		add(t, pcie, 0, HD_SPAN_COPY, (10 * k + 10) * HD_US, (10 * k + 18) * HD_US, 2 << 20,
		    "up");
	}
	hd_trace_sort(t);
	ck_assert(hd_diagram_staged_at(t, 25 * HD_US, &sg));
	ck_assert_int_eq(sg.nchunks, 8);
	ck_assert_int_eq(sg.host, 3);
	ck_assert_int_eq(sg.link, 2);
	ck_assert(hd_diagram_staged_at(t, 85 * HD_US, &sg)); /* the last chunk on the link */
	ck_assert_int_eq(sg.host, 0);
	ck_assert_int_eq(sg.link, 8);
	ck_assert(!hd_diagram_staged_at(t, 90 * HD_US, &sg));
	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = 25 * HD_US;
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_msg(strstr(d, "staging buffer: 8 chunks of 2 MiB") != NULL, "%s", d);
	ck_assert_msg(strstr(d, "chunk 3 of 8: host memcpy; chunk 2 of 8: on PCIe") != NULL, "%s",
		      d);
	free(d);
	/* narrower: one part a row */
	hd_screen_resize(s, 80, 8);
	hd_screen_clear(s);
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_msg(strstr(d, "chunk 3 of 8: host memcpy ") != NULL &&
			  strstr(d, "chunk 2 of 8: on PCIe") != NULL,
		      "%s", d);
	free(d);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

/* Managed memory: 1 MiB migrated by faults over [0, 160) us, at an even pace
 * (the compute lane's fault span is not counted again). */
START_TEST(fault_counter)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_screen *s = hd_screen_new(100, 8);
	struct hd_view_opts o;
	int comp = hd_trace_lane(t, HD_LANE_COMPUTE, 0, 0, "Compute");
	int pcie = hd_trace_lane(t, HD_LANE_PCIE_H2D, 0, 0, "PCIe HtoD");
	uint64_t b, g;
	char *d;

	ck_assert(!hd_diagram_faults_at(t, 0, 65536, &b, &g));
	add(t, comp, 0, HD_SPAN_FAULT, 0, 160 * HD_US, 1 << 20, "page faults");
	add(t, pcie, 0, HD_SPAN_FAULT, 0, 160 * HD_US, 1 << 20, "page faults");
	hd_trace_sort(t);
	ck_assert(hd_diagram_faults_at(t, 120 * HD_US, 65536, &b, &g));
	ck_assert_uint_eq(b, 768 << 10);
	ck_assert_uint_eq(g, 12);
	ck_assert(hd_diagram_faults_at(t, 200 * HD_US, 65536, &b, &g));
	ck_assert_uint_eq(g, 16);
	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = 120 * HD_US;
	hd_view_diagram(s, hd_screen_rect(s), t, NULL, &o);
	d = dump(s);
	ck_assert_msg(strstr(d, "faults: 12 groups, 768 KiB migrated") != NULL, "%s", d);
	free(d);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

/* Two ranks swap d with a send each way; the send of rank 1 on its link
 * over [10, 30) us, rank 0's over [20, 40) us. */
START_TEST(send_arrows)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_screen *s = hd_screen_new(100, 10);
	struct hd_buffer buf = { "d", HD_MEM_DEVICE, 1 << 20, 0, 0 };
	struct hd_op op[2];
	struct hd_scenario sc;
	struct hd_diagram_send d[2];
	struct hd_view_opts o;
	char *text;

	memset(op, 0, sizeof op);
	memset(&sc, 0, sizeof sc);
	op[0].kind = HD_OP_SEND;
	op[0].src = 0;
	op[0].dst = HD_NONE;
	op[0].peer = 1; /* to rank + 1 */
	op[0].peer_rel = true;
	op[1] = op[0];
	op[1].kind = HD_OP_RECV;
	sc.nranks = 2;
	sc.buffers = &buf;
	sc.nbuffers = 1;
	sc.ops = op;
	sc.nops = 2;
	add(t, hd_trace_lane(t, HD_LANE_LINK, 1, 0, "NVLink out"), 0, HD_SPAN_COMM, 10 * HD_US,
	    30 * HD_US, 1 << 20, "send d");
	add(t, hd_trace_lane(t, HD_LANE_LINK, 0, 0, "NVLink out"), 0, HD_SPAN_COMM, 20 * HD_US,
	    40 * HD_US, 1 << 20, "send d");
	add(t, hd_trace_lane(t, HD_LANE_STREAM, 0, 2, "Stream 2 (s)"), 1, HD_SPAN_COMM, 0,
	    40 * HD_US, 1 << 20, "recv d");
	hd_trace_sort(t);
	ck_assert_int_eq(hd_diagram_sends(t, &sc, 5 * HD_US, d, 2), 0);
	ck_assert_int_eq(hd_diagram_sends(t, &sc, 25 * HD_US, d, 2), 2);
	ck_assert_int_eq(d[0].from, 0); /* by sending rank */
	ck_assert_int_eq(d[0].to, 1);
	ck_assert_int_eq(d[1].from, 1);
	ck_assert_int_eq(d[1].to, 0);
	ck_assert_int_eq(hd_diagram_sends(t, &sc, 35 * HD_US, d, 2), 1);
	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	o.t = 25 * HD_US;
	hd_view_diagram(s, hd_screen_rect(s), t, &sc, &o);
	text = dump(s);
	ck_assert_msg(strstr(text, "R0 --d--> R1") != NULL && strstr(text, "R1 --d--> R0") != NULL,
		      "%s", text);
	ck_assert_msg(strstr(text, "Rank 0") != NULL, "%s", text); /* the boxes beneath */
	free(text);
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

/* A deadlock's note read as its cycle of waits: two ranks, and three where
 * rank 0 waits on the cycle of ranks 1 and 2 without being in it. */
START_TEST(deadlock_cycle)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_screen *s = hd_screen_new(100, 10);
	struct hd_scenario sc;
	struct hd_view_opts o;
	int c[8];
	char *text;

	ck_assert_int_eq(hd_diagram_deadlock_cycle(t, 2, c, 8), 0); /* no note */
	t->note = hd_xstrdup(
	    "deadlock at 10.0 us: 2 of 2 ranks wait and nothing left can wake "
	    "them\n"
	    "  rank 0: cudaStreamSynchronize (line 87) waits for ncclSend to rank 1 "
	    "(line 85), which waits for rank 1 to post the matching ncclRecv from "
	    "rank 0\n"
	    "  rank 1: cudaStreamSynchronize (line 87) waits for ncclSend to rank 0 "
	    "(line 85), which waits for rank 0 to post the matching ncclRecv from "
	    "rank 1\n");
	ck_assert_int_eq(hd_diagram_deadlock_cycle(t, 2, c, 8), 3);
	ck_assert_int_eq(c[0], 0);
	ck_assert_int_eq(c[1], 1);
	ck_assert_int_eq(c[2], 0);
	memset(&sc, 0, sizeof sc);
	sc.nranks = 2;
	hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	hd_trace_lane(t, HD_LANE_API, 1, 0, "CUDA API");
	hd_screen_set_ascii(s, true);
	hd_view_opts_init(&o);
	hd_view_diagram(s, hd_screen_rect(s), t, &sc, &o);
	text = dump(s);
	ck_assert_msg(strstr(text, "deadlock: R0 waits for R1 waits for R0") != NULL, "%s", text);
	free(text);
	free(t->note);
	t->note = hd_xstrdup("deadlock\n"
			     "  rank 0: x, which waits for rank 2 to post\n"
			     "  rank 1: x, which waits for rank 2 to post\n"
			     "  rank 2: x, which waits for rank 1 to post\n");
	ck_assert_int_eq(hd_diagram_deadlock_cycle(t, 3, c, 8), 3);
	ck_assert_int_eq(c[0], 2);
	ck_assert_int_eq(c[1], 1);
	ck_assert_int_eq(c[2], 2);
	ck_assert_int_eq(hd_diagram_deadlock_cycle(t, 2, c, 8), 0); /* rank 2 unknown: no cycle */
	hd_screen_free(s);
	hd_trace_free(t);
}
END_TEST

static TCase *
diagram_tcase(void)
{
	TCase *tc = tcase_create("diagram");

	tcase_add_test(tc, timeline_folds);
	tcase_add_test(tc, stream_queue);
	tcase_add_test(tc, ring_steps);
	tcase_add_test(tc, ring_pieces);
	tcase_add_test(tc, ring_got);
	tcase_add_test(tc, timeline_scrolls);
	tcase_add_test(tc, page_verbatim);
	tcase_add_test(tc, page_lesson_aligned);
	tcase_add_test(tc, staged_chunks);
	tcase_add_test(tc, fault_counter);
	tcase_add_test(tc, send_arrows);
	tcase_add_test(tc, deadlock_cycle);
	return tc;
}
