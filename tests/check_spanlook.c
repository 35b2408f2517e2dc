/*
 * check_spanlook.c - the table of span looks: every kind and copy direction
 * has a complete look, each look its own colour role, directions follow the
 * lane and the op, and the legend is written from the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

#include "ir/ir.h"
#include "ir/spanlook.h"
#include "ir/trace.h"

static bool
is_color(const char *s)
{
	size_t i;

	if (s == NULL || strlen(s) != 7 || s[0] != '#')
		return false;
	for (i = 1; i < 7; i++)
		if (strchr("0123456789abcdef", s[i]) == NULL)
			return false;
	return true;
}

static bool
is_ascii_char(const char *s)
{
	return s != NULL && strlen(s) == 1 && s[0] > ' ' && s[0] < 0x7f;
}

/* Every look of every kind, each direction once (NULL-terminated). */
static int
all_looks(const struct hd_spanlook **out)
{
	int k, d, n = 0;

	for (k = 0; k < HD_SPAN__COUNT; k++)
		for (d = 0; d < HD_DIR__COUNT; d++) {
			const struct hd_spanlook *l = hd_spanlook_get(k, d);
			if (d == HD_DIR_OUT || l != hd_spanlook_get(k, HD_DIR_OUT))
				out[n++] = l;
		}
	out[n] = NULL;
	return n;
}

START_TEST(every_kind_complete)
{
	const struct hd_spanlook *looks[HD_SPAN__COUNT * HD_DIR__COUNT + 1];
	int n = all_looks(looks), i;

	for (i = 0; i < n; i++) {
		const struct hd_spanlook *l = looks[i];

		ck_assert_ptr_nonnull(l->name);
		ck_assert_msg(l->glyph != NULL && l->glyph[0] != '\0', "%s: no glyph", l->name);
		/* a glyph that is not ASCII needs its fallback; one that is needs none */
		ck_assert_msg(is_ascii_char(l->glyph) || is_ascii_char(l->ascii),
			      "%s: no ASCII glyph", l->name);
		ck_assert_msg(is_ascii_char(hd_spanlook_glyph(l, true)), "%s", l->name);
		ck_assert_int_eq(hd_spanlook_char(l), hd_spanlook_glyph(l, true)[0]);
		ck_assert_msg(l->prio >= 0, "%s: prio", l->name);
		ck_assert_msg((unsigned)l->hue < HD_HUE__COUNT, "%s: hue", l->name);
		ck_assert_msg(is_color(l->svg), "%s: svg colour %s", l->name, l->svg);
		ck_assert_msg(is_color(l->ink), "%s: ink %s", l->name, l->ink);
		ck_assert_msg(l->perfetto != NULL && l->perfetto[0] != '\0', "%s", l->name);
		ck_assert_msg(l->cat != NULL && l->cat[0] != '\0', "%s", l->name);
		ck_assert_msg(l->label != NULL && l->label[0] != '\0', "%s", l->name);
		ck_assert_msg(l->legend != NULL && strlen(l->legend) >= 5, "%s", l->name);
	}
	/* each look its own colour role, and every role used: 11 kinds and
	 * two more directions of copies */
	ck_assert_int_eq(n, HD_HUE__COUNT);
	for (i = 0; i < n; i++) {
		int j;
		for (j = i + 1; j < n; j++)
			ck_assert_int_ne(looks[i]->hue, looks[j]->hue);
	}
	/* names are the identifiers of the store and exports */
	ck_assert_str_eq(hd_span_kind_name(HD_SPAN_KERNEL), "kernel");
	ck_assert_str_eq(hd_span_kind_name(HD_SPAN_COPY), hd_spanlook_get(HD_SPAN_COPY, 0)->name);
	ck_assert_str_eq(hd_span_kind_name(HD_SPAN__COUNT), "?");
	/* out of range: the API call's look */
	ck_assert_ptr_eq(hd_spanlook_get(HD_SPAN__COUNT, HD_DIR_OUT),
			 hd_spanlook_get(HD_SPAN_API, HD_DIR_OUT));
	ck_assert_ptr_eq(hd_spanlook_get(HD_SPAN_KERNEL, HD_DIR_BACK),
			 hd_spanlook_get(HD_SPAN_KERNEL, HD_DIR_OUT));
}
END_TEST

START_TEST(legend_order_is_every_kind_once)
{
	bool seen[HD_SPAN__COUNT] = { false };
	int i;

	for (i = 0; i < HD_SPAN__COUNT; i++) {
		enum hd_span_kind k = hd_spanlook_nth(i);
		ck_assert_int_lt(k, HD_SPAN__COUNT);
		ck_assert_msg(!seen[k], "kind %d twice", k);
		seen[k] = true;
		if (i > 0) /* by priority */
			ck_assert_int_ge(hd_spanlook_get(k, 0)->prio,
					 hd_spanlook_get(hd_spanlook_nth(i - 1), 0)->prio);
	}
}
END_TEST

/* A trace of a kernel, and copies on the HtoD, DtoH and DtoD engines and
 * on a stream. */
static struct hd_trace *
copies_trace(void)
{
	struct hd_trace *t = hd_trace_new();
	int lanes[4];
	struct hd_span s = { 0 };
	int i;

	lanes[0] = hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "Memcpy HtoD");
	lanes[1] = hd_trace_lane(t, HD_LANE_CE_D2H, 0, 0, "Memcpy DtoH");
	lanes[2] = hd_trace_lane(t, HD_LANE_CE_D2D, 0, 0, "Memcpy DtoD");
	lanes[3] = hd_trace_lane(t, HD_LANE_STREAM, 0, 0, "Stream 7");
	s.kind = HD_SPAN_COPY;
	s.label = -1;
	for (i = 0; i < 4; i++) {
		s.lane = lanes[i];
		s.op = i;
		s.start = i * HD_US;
		s.end = s.start + HD_US;
		hd_trace_add(t, &s);
	}
	s.kind = HD_SPAN_KERNEL;
	s.lane = lanes[3];
	s.op = 4;
	hd_trace_add(t, &s);
	return t;
}

START_TEST(directions)
{
	struct hd_trace *t = copies_trace();
	struct hd_scenario sc;
	struct hd_op ops[5];
	bool *back;
	int n;

	ck_assert_int_eq(hd_spanlook_dir(t, NULL, &t->spans[0]), HD_DIR_OUT);
	ck_assert_int_eq(hd_spanlook_dir(t, NULL, &t->spans[1]), HD_DIR_BACK);
	ck_assert_int_eq(hd_spanlook_dir(t, NULL, &t->spans[2]), HD_DIR_LOCAL);
	ck_assert_int_eq(hd_spanlook_dir(t, NULL, &t->spans[3]), HD_DIR_OUT);
	ck_assert_int_eq(hd_spanlook_dir(t, NULL, &t->spans[4]), HD_DIR_OUT);
	ck_assert_int_eq(hd_spanlook_of(t, NULL, &t->spans[1])->hue, HD_HUE_COPY_D2H);
	ck_assert_str_eq(hd_spanlook_of(t, NULL, &t->spans[1])->glyph, "~");
	/* the op tells a stream lane's copy its direction */
	memset(&sc, 0, sizeof sc);
	memset(ops, 0, sizeof ops);
	ops[3].kind = HD_OP_COPY;
	ops[3].copy = HD_COPY_D2H;
	sc.ops = ops;
	sc.nops = 5;
	ck_assert_int_eq(hd_spanlook_dir(t, &sc, &t->spans[3]), HD_DIR_BACK);
	/* without the scenario, ops seen on a DtoH lane */
	back = hd_spanlook_back_ops(t, &n);
	ck_assert_int_eq(n, 5);
	ck_assert(!back[0] && back[1] && !back[2] && !back[3] && !back[4]);
	free(back);
	hd_trace_free(t);
}
END_TEST

START_TEST(legend_lines)
{
	struct hd_trace *t = copies_trace();
	struct hd_buf b;
	const struct hd_spanlook *l;
	int n;

	hd_buf_init(&b);
	n = hd_spanlook_legend(&b, t, NULL, true);
	/* legend order: copies (each direction once) before the kernel */
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(b.s,
			 "  =  copy host to device\n"
			 "  ~  copy device to host\n"
			 "  =  copy on the device or to a peer\n"
			 "  #  kernel running\n");
	hd_buf_free(&b);
	/* no trace: every look, one line each, from the table */
	hd_buf_init(&b);
	n = hd_spanlook_legend(&b, NULL, NULL, false);
	ck_assert_int_eq(n, HD_HUE__COUNT);
	l = hd_spanlook_get(HD_SPAN_BLOCKED, HD_DIR_OUT);
	{
		char line[128];
		snprintf(line, sizeof line, "\n  %s  %s\n", l->glyph, l->legend);
		ck_assert_ptr_nonnull(strstr(b.s, line));
	}
	ck_assert(strncmp(b.s, "  -  ", 5) == 0); /* the API call first */
	hd_buf_free(&b);
	hd_trace_free(t);
}
END_TEST

static Suite *
spanlook_suite(void)
{
	Suite *s = suite_create("spanlook");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, every_kind_complete);
	tcase_add_test(tc, legend_order_is_every_kind_once);
	tcase_add_test(tc, directions);
	tcase_add_test(tc, legend_lines);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(spanlook_suite());
}
