/*
 * check_cli.c - the text timeline, the plain and JSON reports, the lesson
 * catalogue and option parsing, on hand-made traces and the shipped lessons;
 * the command table and help, the configuration file, and the writer of
 * calibrated profiles.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/jsoncheck.h"
#include "tests/testutil.h"

#include "base/units.h"
#include "cli/bench.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/rcfile.h"
#include "ir/backend.h"
#include "ir/trace.h"
#include "lang/catalog.h"
#include "lang/lesson.h"
#include "profile/profile.h"
#include "profile/profile_write.h"
#include "render/report.h"
#include "render/timeline.h"
#include "run/backends.h"

/* ---- a hand-made trace ----------------------------------------------------
 * 100 us long.  At width 114 the name column is 11 ("Memcpy HtoD") and the
 * bar 100 columns, so one column is exactly 1 us.
 */
#define W      114
#define NAME_W 11
#define BAR0   (NAME_W + 2) /* column of the bar's first cell in a row */

static struct hd_trace *
sample_trace(void)
{
	struct hd_trace *t = hd_trace_new();
	int api = hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	int st = hd_trace_lane(t, HD_LANE_STREAM, 0, 2, "Stream s1");
	int ce = hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "Memcpy HtoD");
	struct hd_span s;

	memset(&s, 0, sizeof s);
	s.lane = api;
	s.op = 0;
	s.kind = HD_SPAN_API;
	s.start = 0;
	s.end = 2 * HD_US;
	s.label = hd_trace_string(t, "cudaMemcpyAsync");
	hd_trace_add(t, &s);
	s.op = 2;
	s.start = 2 * HD_US;
	s.end = 100 * HD_US;
	s.label = hd_trace_string(t, "cudaStreamSynchronize");
	hd_trace_add(t, &s);
	s.kind = HD_SPAN_BLOCKED;
	s.why = HD_WHY_STREAM_SYNC;
	s.start = 3 * HD_US;
	hd_trace_add(t, &s);
	memset(&s, 0, sizeof s);
	s.lane = ce;
	s.op = 0;
	s.kind = HD_SPAN_COPY;
	s.start = 10 * HD_US;
	s.end = 60 * HD_US;
	s.bytes = 64u << 20;
	s.label = hd_trace_string(t, "memcpy");
	hd_trace_add(t, &s);
	s.lane = st;
	s.op = 1;
	s.kind = HD_SPAN_KERNEL;
	s.bytes = 0;
	s.start = 60 * HD_US;
	s.end = 90 * HD_US;
	s.label = hd_trace_string(t, "kernel spin");
	hd_trace_add(t, &s);
	s.kind = HD_SPAN_EVENT;
	s.start = s.end = 90 * HD_US;
	s.label = hd_trace_string(t, "e");
	hd_trace_add(t, &s);
	hd_trace_sort(t);
	return t;
}

/* The n-th line of s (0-based) into buf; returns buf or NULL. */
static char *
line_of(const char *s, int n, char *buf, size_t size)
{
	const char *nl;
	size_t len;

	for (; n > 0 && s != NULL; n--) {
		s = strchr(s, '\n');
		if (s != NULL)
			s++;
	}
	if (s == NULL || *s == '\0')
		return NULL;
	nl = strchr(s, '\n');
	len = nl != NULL ? (size_t)(nl - s) : strlen(s);
	if (len >= size)
		len = size - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return buf;
}

/* Find the line that starts with prefix. */
static char *
line_starting(const char *s, const char *prefix, char *buf, size_t size)
{
	int i;

	for (i = 0; line_of(s, i, buf, size) != NULL; i++)
		if (strncmp(buf, prefix, strlen(prefix)) == 0)
			return buf;
	return NULL;
}

/* Visible width: ANSI CSI sequences take no columns. */
static size_t
visible(const char *s)
{
	size_t n = 0;

	while (*s != '\0') {
		if (s[0] == '\033' && s[1] == '[') {
			s += 2;
			while (*s != '\0' && !(*s >= '@' && *s <= '~'))
				s++;
			if (*s != '\0')
				s++;
			continue;
		}
		n++;
		s++;
	}
	return n;
}

START_TEST(test_rows_fit_width)
{
	static const int widths[] = { 60, 80, W, 200 };
	struct hd_trace *t = sample_trace();
	char line[1024];
	size_t k;
	int i;

	for (k = 0; k < HD_ARRAY_LEN(widths); k++) {
		struct hd_tl_opts o = { .width = widths[k], .color = false };
		struct hd_buf b;

		hd_buf_init(&b);
		hd_timeline_rows(&b, t, NULL, &o);
		/* three lanes and the axis row are exactly the width */
		for (i = 0; i < 4; i++) {
			ck_assert_ptr_nonnull(line_of(b.s, i, line, sizeof line));
			ck_assert_int_eq((int)strlen(line), widths[k]);
		}
		/* the tick labels never run past it */
		ck_assert_ptr_nonnull(line_of(b.s, 4, line, sizeof line));
		ck_assert_int_le((int)strlen(line), widths[k]);
		hd_buf_free(&b);
	}
	hd_trace_free(t);
}
END_TEST

START_TEST(test_utf8_label)
{
	struct hd_trace *t = hd_trace_new();
	int host = hd_trace_lane(t, HD_LANE_HOST, 0, 0, "Host thread");
	struct hd_tl_opts o = { .width = 80, .color = false };
	struct hd_span s;
	struct hd_buf b;
	char line[256];

	memset(&s, 0, sizeof s);
	s.lane = host;
	s.kind = HD_SPAN_HOST;
	s.op = -1;
	s.start = 0;
	s.end = 10 * HD_US;
	s.label = hd_trace_string(t,
				  "pr\xc3\xa9"
				  "parer les donn\xc3\xa9"
				  "es");
	hd_trace_add(t, &s);
	hd_buf_init(&b);
	hd_timeline_rows(&b, t, NULL, &o);
	ck_assert_ptr_nonnull(line_of(b.s, 0, line, sizeof line));
	ck_assert_int_eq((int)strlen(line), 80);
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

START_TEST(test_glyph_columns)
{
	struct hd_trace *t = sample_trace();
	struct hd_tl_opts o = { .width = W, .color = false };
	struct hd_buf b;
	char line[1024];
	int c;

	hd_buf_init(&b);
	hd_timeline_rows(&b, t, NULL, &o);

	/* lanes in display order: API, stream, copy engine */
	ck_assert_ptr_nonnull(line_starting(b.s, "CUDA API", line, sizeof line));
	ck_assert_int_eq(line[BAR0 - 1], '|');
	ck_assert_int_eq(line[BAR0 + 0], hd_timeline_glyph(HD_SPAN_API));
	ck_assert_int_eq(line[BAR0 + 1], hd_timeline_glyph(HD_SPAN_API));
	/* the sync call starts where the copy call ends: the boundary shows */
	ck_assert_int_eq(line[BAR0 + 2], '!');
	ck_assert_int_eq(line[BAR0 + 3], hd_timeline_glyph(HD_SPAN_BLOCKED));
	ck_assert_int_eq(line[BAR0 + 99], hd_timeline_glyph(HD_SPAN_BLOCKED));
	ck_assert_int_eq(line[BAR0 + 100], '|');
	ck_assert_ptr_nonnull(strstr(line, hd_why_name(HD_WHY_STREAM_SYNC)));

	ck_assert_ptr_nonnull(line_starting(b.s, "Memcpy HtoD", line, sizeof line));
	ck_assert_int_eq(line[BAR0 + 9], ' ');
	ck_assert_int_eq(line[BAR0 + 10], '=');
	ck_assert_int_eq(line[BAR0 + 59], '=');
	ck_assert_int_eq(line[BAR0 + 60], ' ');
	/* the label sits inside the bar, with glyphs either side */
	{
		char *lab = strstr(line, "memcpy 64 MiB");
		ck_assert_ptr_nonnull(lab);
		ck_assert_int_ge((int)(lab - line), BAR0 + 11);
		ck_assert_int_le((int)(lab - line) + 13, BAR0 + 59);
	}
	/* the rest of the span's cells keep the glyph */
	{
		char *lab = strstr(line, "memcpy 64 MiB");
		for (c = BAR0 + 10; c < BAR0 + 60; c++)
			if (line + c < lab - 1 || line + c > lab + 13)
				ck_assert_int_eq(line[c], '=');
	}

	ck_assert_ptr_nonnull(line_starting(b.s, "Stream s1", line, sizeof line));
	ck_assert_int_eq(line[BAR0 + 59], ' ');
	ck_assert_int_eq(line[BAR0 + 60], '#');
	ck_assert_int_eq(line[BAR0 + 89], '#');
	ck_assert_int_eq(line[BAR0 + 90], hd_timeline_glyph(HD_SPAN_EVENT));
	ck_assert_int_eq(line[BAR0 + 91], ' ');
	ck_assert_ptr_nonnull(strstr(line, "kernel spin"));

	/* glyphs are distinct per kind */
	ck_assert_int_ne(hd_timeline_glyph(HD_SPAN_COPY), hd_timeline_glyph(HD_SPAN_KERNEL));
	ck_assert_int_ne(hd_timeline_glyph(HD_SPAN_BLOCKED), hd_timeline_glyph(HD_SPAN_WAIT));
	ck_assert_int_ne(hd_timeline_glyph(HD_SPAN_HOST), hd_timeline_glyph(HD_SPAN_STAGING));
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

START_TEST(test_axis)
{
	struct hd_trace *t = sample_trace();
	struct hd_tl_opts o = { .width = W, .color = false };
	struct hd_buf b;
	char axis[1024], labels[1024];
	int i;

	hd_buf_init(&b);
	hd_timeline_rows(&b, t, NULL, &o);
	ck_assert_ptr_nonnull(line_of(b.s, 3, axis, sizeof axis));
	ck_assert_ptr_nonnull(line_of(b.s, 4, labels, sizeof labels));
	/* 100 us over 100 columns: a tick every 10 us, every 10 columns */
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(axis[BAR0 + i], i % 10 == 0 ? '+' : '-');
	ck_assert_ptr_nonnull(strstr(labels, "time (us)"));
	ck_assert_int_eq(labels[BAR0], '0');
	ck_assert_int_eq(labels[BAR0 + 50], '5');
	ck_assert_int_eq(labels[BAR0 + 51], '0');
	ck_assert_int_eq(labels[BAR0 + 90], '9');
	/* the legend names the kinds that appear, and only those */
	ck_assert_ptr_nonnull(strstr(b.s, "Legend:"));
	ck_assert_ptr_nonnull(strstr(b.s, "kernel"));
	ck_assert_ptr_null(strstr(b.s, "page fault"));
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

START_TEST(test_units_and_fmt)
{
	char buf[32];

	ck_assert_str_eq(hd_timeline_unit(999).name, "ps");
	ck_assert_str_eq(hd_timeline_unit(HD_NS).name, "ns");
	ck_assert_str_eq(hd_timeline_unit(5 * HD_US).name, "us");
	ck_assert_str_eq(hd_timeline_unit(1345 * HD_US).name, "ms");
	ck_assert_str_eq(hd_timeline_unit(3 * HD_S).name, "s");
	ck_assert_str_eq(hd_timeline_fmt(buf, sizeof buf, 1345 * HD_US, hd_timeline_unit(HD_MS), 3),
			 "1.345");
	ck_assert_str_eq(hd_timeline_fmt(buf, sizeof buf, 999999999, hd_timeline_unit(HD_MS), 3),
			 "1.000");
	ck_assert_str_eq(hd_timeline_fmt(buf, sizeof buf, 2 * HD_US, hd_timeline_unit(HD_MS), 3),
			 "0.002");
	ck_assert_str_eq(hd_timeline_fmt(buf, sizeof buf, 0, hd_timeline_unit(HD_MS), 3), "0.000");
	ck_assert_str_eq(hd_timeline_fmt(buf, sizeof buf, 20 * HD_US, hd_timeline_unit(HD_US), 0),
			 "20");
}
END_TEST

START_TEST(test_color)
{
	struct hd_trace *t = sample_trace();
	struct hd_tl_opts o = { .width = 90, .color = true };
	struct hd_buf b;
	char line[2048];
	int i;

	hd_buf_init(&b);
	hd_timeline_rows(&b, t, NULL, &o);
	ck_assert_ptr_nonnull(strchr(b.s, '\033'));
	for (i = 0; i < 4; i++) {
		ck_assert_ptr_nonnull(line_of(b.s, i, line, sizeof line));
		ck_assert_uint_eq(visible(line), 90);
	}
	hd_buf_free(&b);
	/* without colour: not one escape */
	o.color = false;
	hd_buf_init(&b);
	hd_timeline_rows(&b, t, NULL, &o);
	hd_timeline_blocked(&b, t, &o);
	ck_assert_ptr_null(strchr(b.s, '\033'));
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

START_TEST(test_blocked_lines)
{
	struct hd_trace *t = sample_trace();
	struct hd_tl_opts o = { .width = W, .color = false };
	struct hd_buf b;
	char line[1024];

	hd_buf_init(&b);
	hd_timeline_blocked(&b, t, &o);
	ck_assert_ptr_nonnull(line_starting(b.s, "Host blocked:", line, sizeof line));
	ck_assert_ptr_nonnull(strstr(line, "97"));
	ck_assert_ptr_nonnull(line_starting(b.s, "  stream-sync", line, sizeof line));
	ck_assert_ptr_nonnull(strstr(line, hd_why_text(HD_WHY_STREAM_SYNC)));
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

START_TEST(test_empty_trace)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_tl_opts o = { .width = 60, .color = false };
	struct hd_tl_info info = { 0 };
	struct hd_buf b;

	hd_buf_init(&b);
	hd_timeline_render(&b, t, &info, &o);
	hd_report_plain_trace(&b, t, NULL);
	ck_assert_ptr_nonnull(strstr(b.s, "Makespan"));
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

START_TEST(test_plain_order)
{
	struct hd_trace *t = sample_trace();
	struct hd_buf b;
	char line[1024], prev_unit[8] = "";
	double prev = -1, at;
	int i, events = 0;

	hd_buf_init(&b);
	hd_report_plain_trace(&b, t, NULL);
	ck_assert_ptr_null(strchr(b.s, '\033'));
	ck_assert_ptr_nonnull(line_of(b.s, 0, line, sizeof line));
	{
		char d[32], want[128];
		snprintf(want, sizeof want, "At 0.000 us the host calls cudaMemcpyAsync (%s).",
			 hd_fmt_time(d, sizeof d, 2 * HD_US));
		ck_assert_str_eq(line, want);
	}
	for (i = 0; line_of(b.s, i, line, sizeof line) != NULL; i++) {
		char unit[8];
		if (strncmp(line, "At ", 3) != 0)
			continue;
		ck_assert_int_eq(sscanf(line, "At %lf %7s", &at, unit), 2);
		if (prev_unit[0] != '\0')
			ck_assert_str_eq(unit, prev_unit);
		snprintf(prev_unit, sizeof prev_unit, "%s", unit);
		ck_assert(at >= prev);
		prev = at;
		events++;
	}
	/* six spans and the end of the run */
	ck_assert_int_eq(events, 7);
	ck_assert_ptr_nonnull(strstr(b.s, "copy engine HtoD starts copying 64 MiB"));
	ck_assert_ptr_nonnull(strstr(b.s, "the host waits (stream sync) until 100.000 us."));
	ck_assert_ptr_nonnull(strstr(b.s, "The makespan is"));
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

START_TEST(test_plain_unsorted)
{
	struct hd_trace *t = hd_trace_new();
	int api = hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	struct hd_span s;
	struct hd_buf b;
	char line[256];

	memset(&s, 0, sizeof s);
	s.lane = api;
	s.kind = HD_SPAN_API;
	s.op = -1;
	s.start = 5 * HD_US;
	s.end = 6 * HD_US;
	s.label = hd_trace_string(t, "second");
	hd_trace_add(t, &s);
	s.start = 0;
	s.end = 1 * HD_US;
	s.label = hd_trace_string(t, "first");
	hd_trace_add(t, &s);
	hd_buf_init(&b);
	hd_report_plain_trace(&b, t, NULL);
	ck_assert_ptr_nonnull(line_of(b.s, 0, line, sizeof line));
	ck_assert_ptr_nonnull(strstr(line, "calls first"));
	ck_assert_ptr_nonnull(line_of(b.s, 1, line, sizeof line));
	ck_assert_ptr_nonnull(strstr(line, "calls second"));
	ck_assert_ptr_nonnull(strstr(b.s, "never blocked"));
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

START_TEST(test_op_labels_and_table)
{
	struct hd_scenario *sc = hd_bench_scenario(1);
	struct hd_trace *t = hd_trace_new();
	int ce = hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "Memcpy HtoD");
	int st = hd_trace_lane(t, HD_LANE_STREAM, 0, 2, "Stream 2 (s1)");
	struct hd_tl_opts o = { .width = 100, .color = false };
	struct hd_span s;
	struct hd_buf b;
	char line[1024];

	/* op 1 of the bench scenario is the async copy on s1 */
	ck_assert_int_eq(sc->ops[1].kind, HD_OP_COPY);
	sc->ops[1].label = hd_xstrdup("up");
	memset(&s, 0, sizeof s);
	s.op = 1;
	s.kind = HD_SPAN_COPY;
	s.bytes = 64u << 20;
	s.label = hd_trace_string(t, "cudaMemcpyAsync");
	s.lane = ce;
	s.start = 0;
	s.end = 100 * HD_US;
	hd_trace_add(t, &s);
	s.lane = st;
	hd_trace_add(t, &s);
	hd_trace_sort(t);

	hd_buf_init(&b);
	hd_timeline_rows(&b, t, sc, &o);
	ck_assert_ptr_nonnull(line_starting(b.s, "Memcpy HtoD", line, sizeof line));
	ck_assert_ptr_nonnull(strstr(line, "up 64 MiB"));
	hd_buf_free(&b);

	hd_buf_init(&b);
	hd_timeline_ops(&b, t, sc, &o);
	ck_assert_ptr_nonnull(line_starting(b.s, "up ", line, sizeof line));
	ck_assert_ptr_nonnull(strstr(line, "cudaMemcpyAsync"));
	ck_assert_ptr_nonnull(strstr(line, "s1"));
	ck_assert_ptr_nonnull(strstr(line, "64 MiB"));
	/* 64 MiB in 100 us: 671.1 GB/s */
	ck_assert_ptr_nonnull(strstr(line, "671.1 GB/s"));
	ck_assert_int_eq(hd_timeline_op_busy(t, 1), 100 * HD_US);
	hd_buf_free(&b);

	/* narrower: columns drop out, no line passes the width */
	o.width = 60;
	hd_buf_init(&b);
	hd_timeline_ops(&b, t, sc, &o);
	{
		int i;
		for (i = 0; line_of(b.s, i, line, sizeof line) != NULL; i++)
			ck_assert_int_le((int)strlen(line), 60);
	}
	ck_assert_ptr_nonnull(line_starting(b.s, "up ", line, sizeof line));
	ck_assert_ptr_nonnull(strstr(line, "671.1 GB/s"));
	hd_buf_free(&b);
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

START_TEST(test_bench_scenario)
{
	struct hd_scenario *sc = hd_bench_scenario(10);
	struct hd_err e = { 0 };
	struct hd_profile p;
	struct hd_run_opts ro;
	struct hd_trace *t;
	struct hd_op_time ot;

	/* four ops per iteration and the final sync (a loop header may count too) */
	ck_assert_uint_ge(hd_scenario_op_instances(sc, 0), 41);
	ck_assert_uint_le(hd_scenario_op_instances(sc, 0), 42);
	ck_assert_int_eq(hd_profile_resolve(NULL, &p, &e), 0);
	memset(&ro, 0, sizeof ro);
	ro.profile = &p;
	t = hd_backend_trace(&hd_sim_backend, sc, &ro, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	/* ten kernels of 20 us on one stream: at least 200 us */
	ck_assert_int_ge(t->makespan, 200 * HD_US);
	ot = hd_trace_op_time(t, 4);
	ck_assert(ot.found);
	ck_assert_uint_eq(ot.execs, 10);
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

START_TEST(test_wrap)
{
	struct hd_buf b;
	char line[256];
	int i;

	hd_buf_init(&b);
	hd_timeline_wrap(&b, "  head  ",
			 "one two three four five six seven eight nine ten "
			 "eleven twelve",
			 24, 8);
	for (i = 0; line_of(b.s, i, line, sizeof line) != NULL; i++) {
		ck_assert_int_le((int)strlen(line), 24);
		if (i > 0)
			ck_assert_int_eq(strncmp(line, "        ", 8), 0);
	}
	ck_assert_int_ge(i, 3);
	ck_assert_int_eq(strncmp(b.s, "  head  one two", 15), 0);
	ck_assert_ptr_nonnull(strstr(b.s, "twelve\n"));
	hd_buf_free(&b);
}
END_TEST

START_TEST(test_json_checker)
{
	ck_assert(hd_test_json_valid("{\"a\":[1,2.5,-3e4,true,false,null,\"x\\n\"]}"));
	ck_assert(!hd_test_json_valid("{\"a\":[1,2,]}"));
	ck_assert(!hd_test_json_valid("{\"a\" 1}"));
	ck_assert(!hd_test_json_valid("{\"a\":01}"));
	ck_assert(!hd_test_json_valid("{\"a\":1} x"));
}
END_TEST

/* ---- on the shipped lessons ---------------------------------------------- */

static struct hd_catalog *
builtin_catalog(void)
{
	struct hd_catalog *c = hd_catalog_new();

	ck_assert_int_eq(hd_catalog_add_builtin(c), 0);
	return c;
}

START_TEST(test_catalog_find)
{
	struct hd_catalog *c = builtin_catalog();
	struct hd_err e = { 0 };
	const char *id0;
	char path[1024];
	int n = hd_catalog_count(c), i, k, ts;

	ck_assert_int_ge(n, 3);
	/* sorted by order, then id */
	for (i = 1; i < n; i++)
		ck_assert(hd_lesson_order(hd_catalog_get(c, i - 1)) <=
			  hd_lesson_order(hd_catalog_get(c, i)));
	id0 = hd_lesson_id(hd_catalog_get(c, 0));
	ck_assert_int_eq(hd_catalog_find(c, "1", &e), 0);
	ck_assert_int_eq(hd_catalog_find(c, "01", &e), 0);
	ck_assert_int_eq(hd_catalog_find(c, "2", &e), 1);
	ck_assert_int_eq(hd_catalog_find(c, id0, &e), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(hd_catalog_find(c, hd_lesson_id(hd_catalog_get(c, i)), &e), i);

	ts = hd_catalog_find(c, "two-streams", &e);
	ck_assert_int_ge(ts, 0);
	ck_assert_str_eq(hd_lesson_id(hd_catalog_get(c, ts)), "two-streams");
	ck_assert_int_eq(hd_catalog_find(c, "two-str", &e), ts);

	snprintf(path, sizeof path, "%s/lessons/06-two-streams.hds", HDSIM_SRCDIR);
	k = hd_catalog_find(c, path, &e);
	ck_assert_int_ge(k, 0);
	ck_assert_str_eq(hd_lesson_id(hd_catalog_get(c, k)), "two-streams");
	ck_assert_str_eq(hd_catalog_origin(c, k), path);
	ck_assert_int_eq(hd_catalog_count(c), n); /* it replaced the built-in */

	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_catalog_find(c, "nosuchlesson", &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "nosuchlesson"));

	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_catalog_find(c, "two-streamz", &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "did you mean 'two-streams'"));

	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_catalog_find(c, "99", &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);

	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_catalog_find(c, "/nonexistent/x.hds", &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	hd_catalog_free(c);
}
END_TEST

START_TEST(test_catalog_dirs)
{
	struct hd_catalog *c = hd_catalog_new();
	char dir[1024];

	snprintf(dir, sizeof dir, "/nonexistent:%s/lessons", HDSIM_SRCDIR);
	hd_catalog_add_dirs(c, dir);
	ck_assert_int_ge(hd_catalog_count(c), 3);
	ck_assert_int_eq(hd_catalog_nerrors(c), 0);
	ck_assert_ptr_nonnull(strstr(hd_catalog_origin(c, 0), "/lessons/"));
	hd_catalog_free(c);

	/* a directory of broken lessons: every parse failure is kept */
	c = hd_catalog_new();
	{
		struct hd_err e = { 0 };
		snprintf(dir, sizeof dir, "%s/tests/bad", HDSIM_SRCDIR);
		ck_assert_int_eq(hd_catalog_add_path(c, dir, &e), -1);
		ck_assert_int_eq(e.status, HD_EXIT_INPUT);
		ck_assert_ptr_nonnull(strstr(e.where, "/tests/bad/"));
		ck_assert_int_ge(hd_catalog_nerrors(c), 2);
		ck_assert_ptr_nonnull(hd_catalog_error(c, 0));
		ck_assert_ptr_null(hd_catalog_error(c, hd_catalog_nerrors(c)));
	}
	hd_catalog_free(c);
}
END_TEST

static void
run_lesson(struct hd_run *r, struct hd_catalog *c, int i)
{
	struct hd_err e = { 0 };
	struct hd_profile p;

	ck_assert_int_eq(hd_profile_resolve(NULL, &p, &e), 0);
	if (hd_run_lesson(r, hd_catalog_get(c, i), i + 1, &p, &hd_sim_backend, NULL, 0, &e) != 0)
		ck_abort_msg("%s: %s", e.where, e.msg);
}

START_TEST(test_lessons_json_plain_text)
{
	struct hd_catalog *c = builtin_catalog();
	int i, j;

	for (i = 0; i < hd_catalog_count(c); i++) {
		struct hd_run r;
		struct hd_buf b;
		struct hd_tl_opts o = { .width = 100, .color = false };
		char line[4096];

		run_lesson(&r, c, i);
		ck_assert_int_eq(r.claims_failed, 0);
		ck_assert_int_eq(r.claims_unchecked, 0);

		hd_buf_init(&b);
		hd_report_json(&b, &r, -1);
		ck_assert_msg(hd_test_json_valid(b.s), "invalid JSON for lesson %d", i + 1);
		ck_assert_ptr_nonnull(strstr(b.s, "\"makespan_ps\":"));
		ck_assert_ptr_nonnull(strstr(b.s, "\"claims\":["));
		hd_buf_free(&b);

		hd_buf_init(&b);
		hd_report_json(&b, &r, 0);
		ck_assert(hd_test_json_valid(b.s));
		hd_buf_free(&b);

		hd_buf_init(&b);
		hd_report_plain(&b, &r, -1);
		ck_assert_ptr_null(strchr(b.s, '\033'));
		ck_assert_ptr_nonnull(strstr(b.s, "The makespan is"));
		hd_buf_free(&b);

		for (j = 0; j < r.nscen; j++) {
			struct hd_tl_info info = { .sc = r.sc[j],
						   .profile_name = "x",
						   .scenario_name = "s" };
			int k, rows = 0, lanes = r.traces[j]->nlanes;
			hd_buf_init(&b);
			hd_timeline_render(&b, r.traces[j], &info, &o);
			ck_assert_ptr_nonnull(strstr(b.s, "Makespan"));
			/*
			 * header (3 lines + blank), then the lane rows and the axis;
			 * with many ranks, the middle ranks' lanes fold into one
			 * shorter "not shown" line
			 */
			for (k = 4;; k++) {
				ck_assert_ptr_nonnull(line_of(b.s, k, line, sizeof line));
				if (strstr(line, "ranks like these not shown") != NULL)
					continue;
				ck_assert_int_eq((int)strlen(line), 100);
				if (strstr(line, "+-") != NULL)
					break; /* the axis ends the drawing */
				rows++;
			}
			ck_assert_int_ge(rows, 1);
			ck_assert_int_le(rows, lanes);
			hd_buf_free(&b);
		}
		hd_run_free(&r);
	}
	hd_catalog_free(c);
}
END_TEST

/*
 * Every claim of every built-in lesson, on every built-in profile: it holds
 * where it is stated (all profiles, or those its 'on' names), and a claim
 * that names profiles names built-in ones, so it is checked somewhere.
 */
START_TEST(test_claims_every_profile)
{
	struct hd_catalog *c = builtin_catalog();
	int np = hd_profile_builtin_count(), i, j, k, m;

	ck_assert_int_ge(np, 1);
	for (i = 0; i < hd_catalog_count(c); i++) {
		const struct hd_lesson *l = hd_catalog_get(c, i);

		for (k = 0; k < hd_lesson_nclaims(l); k++) {
			const struct hd_claim *cl = hd_lesson_claim(l, k);
			for (m = 0; m < cl->nprofiles; m++)
				ck_assert_msg(
				    hd_profile_builtin_find(cl->profiles[m]) != NULL,
				    "%s: claim '%s' names profile '%s', which is not built in",
				    hd_lesson_id(l), cl->text, cl->profiles[m]);
		}
		for (j = 0; j < np; j++) {
			const struct hd_profile *p = hd_profile_builtin(j);
			struct hd_err e = { 0 };
			struct hd_run r;

			if (hd_run_lesson(&r, l, i + 1, p, &hd_sim_backend, NULL, 0, &e) != 0)
				ck_abort_msg("%s on %s: %s: %s", hd_lesson_id(l), p->name, e.where,
					     e.msg);
			ck_assert_int_eq(r.nclaims, hd_lesson_nclaims(l));
			for (k = 0; k < r.nclaims; k++) {
				const struct hd_claim *cl = hd_lesson_claim(l, k);
				int stated = cl->nprofiles == 0;

				for (m = 0; m < cl->nprofiles; m++)
					if (strcmp(cl->profiles[m], p->name) == 0)
						stated = 1;
				ck_assert_msg(r.claims[k].status == (stated ? 1 : -1),
					      "%s on %s: claim '%s' (%s): %s", hd_lesson_id(l),
					      p->name, cl->text, cl->expr, r.claims[k].detail);
			}
			ck_assert_int_eq(r.claims_failed, 0);
			ck_assert_int_eq(r.claims_unchecked, 0);
			hd_run_free(&r);
		}
	}
	hd_catalog_free(c);
}
END_TEST

START_TEST(test_deterministic_output)
{
	struct hd_catalog *c = builtin_catalog();
	struct hd_run r1, r2;
	struct hd_buf a, b;

	run_lesson(&r1, c, 0);
	run_lesson(&r2, c, 0);
	hd_buf_init(&a);
	hd_buf_init(&b);
	hd_report_json(&a, &r1, -1);
	hd_report_json(&b, &r2, -1);
	ck_assert_str_eq(a.s, b.s);
	hd_buf_free(&a);
	hd_buf_free(&b);
	hd_run_free(&r1);
	hd_run_free(&r2);
	hd_catalog_free(c);
}
END_TEST

START_TEST(test_bad_knob)
{
	struct hd_catalog *c = builtin_catalog();
	struct hd_err e = { 0 };
	struct hd_profile p;
	struct hd_run r;
	char *sets[] = { "no-such-knob=3" };

	ck_assert_int_eq(hd_profile_resolve(NULL, &p, &e), 0);
	ck_assert_int_eq(
	    hd_run_lesson(&r, hd_catalog_get(c, 0), 1, &p, &hd_sim_backend, sets, 1, &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	hd_run_free(&r);
	hd_catalog_free(c);
}
END_TEST

/* ---- options ------------------------------------------------------------- */

static int
parse(int argc, char **argv, struct hd_cli_opts *o, char **msg)
{
	size_t len = 0;
	FILE *f = open_memstream(msg, &len);
	int rc = hd_cli_parse(argc, argv, o, f);

	fclose(f);
	return rc;
}

START_TEST(test_options)
{
	struct hd_cli_opts o;
	char *msg = NULL;
	char *a1[] = { "hdsim",   "run",       "--json",    "1",
		       "--set",   "size=1MiB", "--set=n=2", "--profile=a100-pcie",
		       "--width", "80",        "--",        "--x" };
	char *a2[] = { "hdsim", "--frobnicate", "list" };
	char *a3[] = { "hdsim", "run", "--width", "wide" };
	char *a4[] = { "hdsim", "run", "--profile" };

	ck_assert_int_eq(parse(12, a1, &o, &msg), 0);
	ck_assert_int_eq(o.nargs, 3);
	ck_assert_str_eq(o.args[0], "run");
	ck_assert_str_eq(o.args[1], "1");
	ck_assert_str_eq(o.args[2], "--x");
	ck_assert(o.json);
	ck_assert_int_eq(o.nsets, 2);
	ck_assert_str_eq(o.sets[1], "n=2");
	ck_assert_str_eq(o.profile, "a100-pcie");
	ck_assert_int_eq(o.width, 80);
	ck_assert(!hd_cli_color(&o));
	hd_cli_opts_free(&o);
	free(msg);

	ck_assert_int_eq(parse(3, a2, &o, &msg), HD_EXIT_INPUT);
	ck_assert_str_eq(msg, "hdsim: unknown option '--frobnicate'; see 'hdsim --help'\n");
	hd_cli_opts_free(&o);
	free(msg);

	ck_assert_int_eq(parse(4, a3, &o, &msg), HD_EXIT_INPUT);
	ck_assert_ptr_nonnull(strstr(msg, "--width"));
	hd_cli_opts_free(&o);
	free(msg);

	ck_assert_int_eq(parse(3, a4, &o, &msg), HD_EXIT_INPUT);
	ck_assert_ptr_nonnull(strstr(msg, "needs a value"));
	hd_cli_opts_free(&o);
	free(msg);
}
END_TEST

START_TEST(test_width)
{
	unsetenv("COLUMNS");
	ck_assert_int_eq(hd_timeline_width(70), 70);
	ck_assert_int_eq(hd_timeline_width(10), HD_TL_MIN_WIDTH);
	setenv("COLUMNS", "123", 1);
	ck_assert_int_eq(hd_timeline_width(0), 123);
	ck_assert_int_eq(hd_timeline_width(90), 90);
	setenv("COLUMNS", "20", 1);
	ck_assert_int_eq(hd_timeline_width(0), HD_TL_MIN_WIDTH);
	unsetenv("COLUMNS");
}
END_TEST

/* ---- the command table and help ----------------------------------------- */

/* The whole help (c NULL) or c's, as a string (freed by the caller). */
static char *
help_text(const struct hd_cmd_entry *c)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	ck_assert_ptr_nonnull(f);
	if (c == NULL)
		hd_cmd_help_print(f);
	else
		hd_cmd_help_print_cmd(f, c);
	fclose(f);
	return s;
}

START_TEST(test_command_table)
{
	static const char *const names[] = { "list",     "show",   "run",       "lint",
					     "profiles", "bench",  "calibrate", "doctor",
					     "progress", "export", "help" };
	const struct hd_cmd_entry *cmds, *run;
	char *all = help_text(NULL), *one, line[64];
	size_t n, i;

	cmds = hd_cli_commands(&n);
	ck_assert_uint_eq(n, HD_ARRAY_LEN(names));
	for (i = 0; i < n; i++) {
		ck_assert_str_eq(cmds[i].name, names[i]);
		ck_assert_ptr_eq(hd_cli_find_command(names[i]), &cmds[i]);
		ck_assert_ptr_nonnull(cmds[i].fn);
		/* help lists every command, in the table's order */
		snprintf(line, sizeof line, "\n  %-10s %s", names[i], "");
		ck_assert_msg(strstr(all, line) != NULL, "help lacks '%s'", names[i]);
	}
	ck_assert_ptr_null(hd_cli_find_command("version"));
	ck_assert_ptr_null(hd_cli_find_command("--real"));
	ck_assert_ptr_nonnull(strstr(all, "  -o, --output FILE"));
	free(all);

	/* one command's help: its usage, and only the options it takes */
	run = hd_cli_find_command("run");
	ck_assert_ptr_nonnull(run);
	one = help_text(run);
	ck_assert(strncmp(one, "usage: hdsim run LESSON", 23) == 0);
	ck_assert_ptr_nonnull(strstr(one, "\n  --json "));
	ck_assert_ptr_nonnull(strstr(one, "\n  --profile NAME|FILE "));
	ck_assert_ptr_null(strstr(one, "--format"));
	ck_assert_ptr_null(strstr(one, "--help"));
	free(one);
}
END_TEST

/* ---- the configuration file ---------------------------------------------- */

static void
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_config_learner)
{
	char dir[64], path[128], *user = getenv("USER") ? hd_xstrdup(getenv("USER")) : NULL;

	hd_test_mkdtemp(dir, sizeof dir, "config");
	setenv("XDG_CONFIG_HOME", dir, 1);
	unsetenv("HDSIM_LEARNER");
	setenv("USER", "user-name", 1);

	/* no file: nobody, so $USER */
	ck_assert_ptr_null(hd_rcfile_file_learner());
	ck_assert_str_eq(hd_rcfile_learner(NULL), "user-name");

	snprintf(path, sizeof path, "%s/hdsim", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/hdsim/config", dir);
	write_text(path,
		   "# learner = commented\n\nlearners = other-key\n"
		   "colour = never\n\t learner\t=  ada lovelace \t\r\n");
	ck_assert_str_eq(hd_rcfile_file_learner(), "ada lovelace");
	ck_assert_str_eq(hd_rcfile_learner(NULL), "ada lovelace");
	ck_assert_str_eq(hd_rcfile_learner("grace"), "grace");
	setenv("HDSIM_LEARNER", "env-learner", 1);
	ck_assert_str_eq(hd_rcfile_learner(NULL), "env-learner");
	unsetenv("HDSIM_LEARNER");

	/* the last learner line wins; an empty value names nobody */
	write_text(path, "learner = first\nlearner = second\n");
	ck_assert_str_eq(hd_rcfile_file_learner(), "second");
	write_text(path, "learner =   \n");
	ck_assert_ptr_null(hd_rcfile_file_learner());
	unsetenv("USER");
	ck_assert_str_eq(hd_rcfile_learner(NULL), "learner");

	/* the learner id: the file's learner-id, $HDSIM_LEARNER_ID before it */
	unsetenv("HDSIM_LEARNER_ID");
	ck_assert_ptr_null(hd_rcfile_learner_id(NULL));
	write_text(path, "learner = ada\nlearner-ids = no\n learner-id =  s1234567 \r\n");
	{
		const char *from = NULL;

		ck_assert_str_eq(hd_rcfile_learner_id(&from), "s1234567");
		ck_assert_str_eq(from, path);
		ck_assert_str_eq(hd_rcfile_file_learner(), "ada");
		setenv("HDSIM_LEARNER_ID", "alovelace", 1);
		ck_assert_str_eq(hd_rcfile_learner_id(&from), "alovelace");
		ck_assert_str_eq(from, "$HDSIM_LEARNER_ID");
		unsetenv("HDSIM_LEARNER_ID");
	}
	write_text(path, "learner-id =\n");
	ck_assert_ptr_null(hd_rcfile_learner_id(NULL));

	unsetenv("XDG_CONFIG_HOME");
	if (user != NULL)
		setenv("USER", user, 1);
	free(user);
	hd_test_rmtree(dir);
}
END_TEST

/* ---- the calibrated-profile writer --------------------------------------- */

START_TEST(test_profile_write)
{
	struct hd_profile p = *hd_profile_builtin(0), q;
	struct hd_err e = { 0 };
	char dir[64], *folder, *file, *path, *want, *text, *head, line[256];
	FILE *f;
	size_t len;

	snprintf(p.name, sizeof p.name, "measured-gpu");
	hd_test_mkdtemp(dir, sizeof dir, "profwrite");
	/* a folder two levels down, made on the way */
	folder = hd_xasprintf("%s/data/profiles", dir);
	path = hd_profile_write_calibrated(&p, folder, "Test GPU 9000", &e);
	ck_assert_msg(path != NULL, "%s", e.msg);
	want = hd_xasprintf("%s/measured-gpu.hdp", folder);
	ck_assert_str_eq(path, want);
	file = hd_xasprintf("%s.tmp", path);
	ck_assert_int_ne(access(file, F_OK), 0);

	/* the header line, the comment on where it came from, then the rest */
	text = hd_profile_format(&p);
	head = strchr(text, '\n');
	ck_assert_ptr_nonnull(head);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	len = (size_t)(head - text) + 1;
	ck_assert(strlen(line) == len && strncmp(line, text, len) == 0);
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	ck_assert_str_eq(line,
			 "# Measured on this machine's Test GPU 9000 by 'hdsim "
			 "calibrate'; the figures it could\n");
	fclose(f);

	/* it reads back as the same profile */
	ck_assert_int_eq(hd_profile_resolve(path, &q, &e), 0);
	ck_assert(hd_profile_equal(&q, &p));
	free(text);
	free(file);
	free(path);
	free(want);

	/* a folder that cannot be made: NULL, and why */
	file = hd_xasprintf("%s/a-file", dir);
	write_text(file, "x\n");
	free(folder);
	folder = hd_xasprintf("%s/below", file);
	memset(&e, 0, sizeof e);
	ck_assert_ptr_null(hd_profile_write_calibrated(&p, folder, "Test GPU", &e));
	ck_assert_int_eq(e.status, HD_EXIT_FAIL);
	ck_assert_ptr_nonnull(strstr(e.msg, "cannot create the folder"));
	free(folder);
	free(file);
	hd_test_rmtree(dir);
}
END_TEST

static Suite *
cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("timeline");

	tcase_add_test(tc, test_rows_fit_width);
	tcase_add_test(tc, test_utf8_label);
	tcase_add_test(tc, test_glyph_columns);
	tcase_add_test(tc, test_axis);
	tcase_add_test(tc, test_units_and_fmt);
	tcase_add_test(tc, test_color);
	tcase_add_test(tc, test_blocked_lines);
	tcase_add_test(tc, test_empty_trace);
	tcase_add_test(tc, test_plain_order);
	tcase_add_test(tc, test_plain_unsorted);
	tcase_add_test(tc, test_op_labels_and_table);
	tcase_add_test(tc, test_wrap);
	tcase_add_test(tc, test_json_checker);
	suite_add_tcase(s, tc);

	tc = tcase_create("lessons");
	tcase_add_test(tc, test_catalog_find);
	tcase_add_test(tc, test_catalog_dirs);
	tcase_add_test(tc, test_lessons_json_plain_text);
	tcase_add_test(tc, test_claims_every_profile);
	tcase_add_test(tc, test_deterministic_output);
	tcase_add_test(tc, test_bad_knob);
	tcase_add_test(tc, test_bench_scenario);
	suite_add_tcase(s, tc);

	tc = tcase_create("options");
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_width);
	tcase_add_test(tc, test_command_table);
	tcase_add_test(tc, test_config_learner);
	tcase_add_test(tc, test_profile_write);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(cli_suite());
}
