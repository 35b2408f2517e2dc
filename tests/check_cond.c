/*
 * check_cond.c - conditions and loop indices in the lesson language (`if`,
 * `else`, `repeat N as i`), profile values in claims (`profile(KEY)`) and
 * options' feedback: parsing with its errors, the ops they lower to, the
 * model's exact trace of a conditioned loop, the printers' form and what
 * `show --cuda` makes of it, lint's warnings, and profile-reading claims on
 * every built-in profile.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "base/util.h"
#include "ir/ir.h"
#include "ir/trace.h"
#include "lang/catalog.h"
#include "lang/claims.h"
#include "lang/lesson.h"
#include "lang/lint.h"
#include "lang/profkeys.h"
#include "profile/profile.h"
#include "real/cudagen.h"
#include "run/backends.h"
#include "run/run.h"
#include "tests/testutil.h"

#define HDR "hdsim 1\nlesson t\ntitle \"T\"\n"

static struct hd_lesson *
parse_ok(const char *text)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, strlen(text), "t.hds", &e);

	if (l == NULL)
		ck_abort_msg("parse failed: %s: %s\n%s", e.where, e.msg, e.context);
	return l;
}

static struct hd_scenario *
inst_ok(const struct hd_lesson *l, int i, const double *knobs, bool written)
{
	struct hd_err e = { 0 };
	struct hd_scenario *sc = written ? hd_lesson_instantiate_written(l, i, knobs, &e) :
					   hd_lesson_instantiate(l, i, knobs, &e);

	if (sc == NULL)
		ck_abort_msg("instantiate failed: %s: %s\n%s", e.where, e.msg, e.context);
	return sc;
}

/* e is an input error at line:col whose message holds frag, with a caret. */
static void
check_error(const struct hd_err *e, int line, int col, const char *frag, const char *text)
{
	char where[64];

	snprintf(where, sizeof where, "t.hds:%d:%d", line, col);
	ck_assert_msg(e->set, "no error for:\n%s", text);
	ck_assert_int_eq(e->status, HD_EXIT_INPUT);
	ck_assert_msg(strcmp(e->where, where) == 0, "where '%s', expected '%s' (msg: %s) for:\n%s",
		      e->where, where, e->msg, text);
	ck_assert_msg(strstr(e->msg, frag) != NULL, "message '%s' lacks '%s'", e->msg, frag);
	ck_assert_ptr_nonnull(strchr(e->context, '^'));
}

/* --- parsing ------------------------------------------------------------------------ */

/* Every form of a condition, parsed and built. */
static const char good[] = HDR "knob every 3 1 .. 10 \"steps between logs\"\n"
			       "knob size 1MiB 1KiB .. 1GiB \"bytes\"\n"
			       "scenario a\n"
			       "  buffer d device 4B\n"
			       "  buffer h pinned 4B\n"
			       "  repeat 10 as i\n"
			       "    if i % every == 0 && i > 0\n"
			       "      read d\n"
			       "    else if i == 5 || !(i < 9) || (i != 1 && size >= 64KiB)\n"
			       "      copy h -> d\n"
			       "    else\n"
			       "      host 1us\n"
			       "    end\n"
			       "    repeat 2 as j\n"
			       "      if (i + j) / 2 >= 3 && every > 0 && i % every <= every - 1\n"
			       "        host 2us\n"
			       "      end\n"
			       "    end\n"
			       "  end\n"
			       "  if size > 512KiB\n"
			       "    host 5us\n"
			       "  end\n"
			       "end\n";

START_TEST(parse_good)
{
	struct hd_lesson *l = parse_ok(good);
	struct hd_err e = { 0 };

	hd_scenario_free(inst_ok(l, 0, NULL, false));
	hd_scenario_free(inst_ok(l, 0, NULL, true));
	ck_assert_int_eq(hd_lint_knobs(l, &e), 0);
	hd_lesson_free(l);
}
END_TEST

struct bad_case {
	const char *text;
	int line, col;
	const char *frag;
};

#define SC(body) HDR "knob every 3 1 .. 10 \"e\"\nscenario a\n  buffer d device 4B\n" body "end\n"

/* Errors found by parsing, each at its line and column (line 6 is the first
 * line of the body). */
static const struct bad_case bad[] = {
	{ SC("  repeat 4 as i\n    if i % every\n      read d\n    end\n  end\n"), 8, 8,
	  "expected a condition such as 'i % 10 == 0' after 'if', found a number 'i % every': "
	  "compare it, as in 'i % every == 0'" },
	{ SC("  else\n"), 7, 3, "'else' without an 'if'" },
	{ SC("  if every > 1\n    read d\n  else\n    read d\n  else\n  end\n"), 11, 3,
	  "a second 'else' for the 'if' at line 7 (its first is at line 9)" },
	{ SC("  repeat 4 as i\n    host i * 1us\n  end\n"), 8, 10,
	  "the loop index 'i' can only be read in an 'if' condition" },
	{ SC("  repeat 4 as i\n    read d i * 1B\n  end\n"), 8, 12,
	  "the loop index 'i' can only be read in an 'if' condition" },
	{ HDR "scenario a\n  ranks 2\n  if rank == 0\n  end\nend\n", 6, 6,
	  "a condition must be the same on every rank: it cannot use 'rank'" },
	{ SC("  if every > 2ms\n  end\n"), 7, 12,
	  "units do not agree: cannot compare a number ('every') with a time ('2ms')" },
	{ HDR "knob every 3 1 .. 10 \"e\"\nscenario a\n  buffer d device 4B\n  if every > 1\n"
	      "    read d\nclaim \"c\" makespan(a) > 0s\n",
	  7, 3,
	  "'if every > 1' opened here is never closed: found 'claim' at line 9 before its 'end'" },
	{ SC("  repeat 4 as every\n  end\n"), 7, 15,
	  "'every' is a knob: choose another name for the loop's index" },
	{ SC("  repeat 4 as d\n  end\n"), 7, 15,
	  "'d' is already declared as a buffer in scenario a" },
	{ SC("  repeat 4 as i\n    repeat 2 as i\n    end\n  end\n"), 8, 17,
	  "'i' is already the index of a loop around this one" },
	{ SC("  repeat 4 as i\n    buffer i device 4B\n  end\n"), 8, 12,
	  "'i' is the index of a loop around this line" },
	{ SC("  repeat 4 as rank\n  end\n"), 7, 15, "'rank' is reserved" },
	{ SC("  repeat 4 as\n  end\n"), 7, 14, "expected a name for the loop's index after 'as'" },
	{ SC("  log: if every > 1\n  end\n"), 7, 3, "a label names an operation; 'if' is not one" },
	{ SC("  repeat 4 as i\n    if i && i == 0\n    end\n  end\n"), 8, 10,
	  "'i' is a number, not a condition: '&&' joins conditions" },
	{ SC("  repeat 4 as i\n    if !i\n    end\n  end\n"), 8, 8,
	  "'i' is a number, not a condition: '!' joins conditions" },
	{ SC("  repeat 4 as i\n    if (i == 0) == (i == 1)\n    end\n  end\n"), 8, 17,
	  "'(i == 0)' is a condition: compare numbers" },
	{ SC("  repeat 4 as i\n    if (i == 0) + 1 > 0\n    end\n  end\n"), 8, 17,
	  "'(i == 0)' is a condition, not a number" },
	{ SC("  repeat 4 as i\n    if -(i == 0)\n    end\n  end\n"), 8, 8,
	  "cannot negate a condition with '-'" },
	{ SC("  if every > 1 extra\n  end\n"), 7, 16, "unexpected 'extra' after 'if every > 1'" },
	{ SC("  if i == 0\n  end\n"), 7, 6, "found 'i', which is not a knob" },
	{ SC("  host profile(api.launch)\n"), 7, 8,
	  "profile() reads the hardware profile of a run: it can only be used in claims" },
	{ HDR "scenario a\n  host 1us\nend\nclaim \"c\" makespan(a) > profile(api.lunch)\n", 7, 33,
	  "no profile key 'api.lunch' that a lesson can read: did you mean 'api.launch'? (the "
	  "keys of its group: api.launch," },
	{ HDR "scenario a\n  host 1us\nend\nclaim \"c\" makespan(a) > profile(name)\n", 7, 33,
	  "profile() takes a profile key such as api.launch" },
	{ HDR "scenario a\n  host 1us\nend\nclaim \"c\" makespan(a) > profile(gpu.name)\n", 7, 33,
	  "no profile key 'gpu.name' that a lesson can read (the keys of its group: gpu.sms" },
	{ HDR "scenario a\n  host 1us\nend\nclaim \"c\" makespan(a) > profile(api.launch\n", 7, 43,
	  "expected ')' to close profile(" },
	{ HDR "scenario a\n  host 1us\nend\nclaim \"c\" profile(api.launch) > 1us\n", 7, 1,
	  "the claim names no scenario" },
	{ HDR "question q order \"O?\"\n  item a \"A\" feedback \"no\"\n  item b \"B\"\n  answer a "
	      "b\nend\nscenario a\n  host 1us\nend\n",
	  5, 14, "'feedback' belongs to the options of a choice question" },
	{ HDR "question q choice \"C?\"\n  option a \"A\" feedback \"x\" feedback \"y\"\n  option "
	      "b \"B\"\n  answer a\nend\nscenario a\n  host 1us\nend\n",
	  5, 29, "'feedback' is given twice" },
	{ HDR "question q choice \"C?\"\n  option a \"A\" points 2\n  option b \"B\"\n  answer "
	      "a\nend\nscenario a\n  host 1us\nend\n",
	  5, 16,
	  "unexpected 'points' after 'option a \"A\"': expected 'feedback \"...\"' or the end of "
	  "the line" },
};

START_TEST(parse_errors)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(bad); i++) {
		struct hd_err e = { 0 };
		struct hd_lesson *l = hd_lesson_parse(bad[i].text, strlen(bad[i].text), "t.hds",
						      &e);

		ck_assert_msg(l == NULL, "case %zu parsed:\n%s", i, bad[i].text);
		check_error(&e, bad[i].line, bad[i].col, bad[i].frag, bad[i].text);
	}
}
END_TEST

/* Errors that only values show, at the operator or statement. */
START_TEST(value_errors)
{
	static const char zero[] = HDR "knob every 0 0 .. 10 \"e\"\nscenario a\n"
				       "  repeat 4 as i\n    if i % every == 0\n      host 1us\n"
				       "    end\n  end\nend\n";
	static const char guarded[] = HDR "knob every 0 0 .. 10 \"e\"\nscenario a\n"
					  "  repeat 4 as i\n    if every > 0 && i % every == 0\n"
					  "      host 1us\n    end\n  end\nend\n";
	static const char huge[] = HDR "scenario a\n  repeat 20000000 as i\n    if i == 0\n"
				       "      host 1us\n    end\n  end\nend\n";
	struct hd_lesson *l = parse_ok(zero);
	struct hd_err e = { 0 };
	struct hd_scenario *sc;

	ck_assert_ptr_null(hd_lesson_instantiate(l, 0, NULL, &e));
	check_error(&e, 7, 10, "division by zero", zero);
	/* the printers' form folds the knob and sees the zero too */
	memset(&e, 0, sizeof e);
	ck_assert_ptr_null(hd_lesson_instantiate_written(l, 0, NULL, &e));
	check_error(&e, 7, 10, "division by zero", zero);
	hd_lesson_free(l);

	/* && looks no further when its left side fails: no division */
	l = parse_ok(guarded);
	sc = inst_ok(l, 0, NULL, false);
	/* every iteration empty alike: one loop of nothing */
	ck_assert_int_eq(sc->nops, 1);
	ck_assert_int_eq(sc->ops[0].body_len, 0);
	ck_assert_uint_eq(hd_scenario_op_instances(sc, 0), 1);
	hd_scenario_free(sc);
	hd_lesson_free(l);

	/* a loop built iteration by iteration past 10^7 ops, at the loop */
	l = parse_ok(huge);
	memset(&e, 0, sizeof e);
	ck_assert_ptr_null(hd_lesson_instantiate(l, 0, NULL, &e));
	check_error(&e, 5, 3,
		    "this loop reads its index 'i', so scenario a builds it iteration by "
		    "iteration, and the loops built so come to more than 10000000 ops",
		    huge);
	hd_lesson_free(l);
}
END_TEST

/* --- lowering --------------------------------------------------------------------- */

struct want_op {
	enum hd_op_kind kind;
	uint64_t count; /* REPEAT */
	int body_len;   /* REPEAT */
	int line;       /* its statement */
};

static void
check_ops(const struct hd_scenario *sc, const struct want_op *w, int n)
{
	int i;

	ck_assert_int_eq(sc->nops, n);
	for (i = 0; i < n; i++) {
		const struct hd_op *op = &sc->ops[i];

		ck_assert_msg(op->kind == w[i].kind, "op %d: kind %s, expected %s", i,
			      hd_op_kind_name(op->kind), hd_op_kind_name(w[i].kind));
		ck_assert_int_eq(op->line, w[i].line);
		if (op->kind == HD_OP_REPEAT) {
			ck_assert_msg(op->count == w[i].count, "op %d: count %llu, expected %llu",
				      i, (unsigned long long)op->count,
				      (unsigned long long)w[i].count);
			ck_assert_int_eq(op->body_len, w[i].body_len);
		}
		ck_assert_int_eq(op->cblock, 0);
		ck_assert_ptr_null(op->index_name);
	}
}

#define LOG_EVERY \
	HDR "knob every 3 1 .. 10 \"e\"\n" /* line 4 */ \
	    "scenario a\n"                 /* 5 */ \
	    "  buffer d device 4B\n"       /* 6 */ \
	    "  loop: repeat 10 as i\n"     /* 7 */ \
	    "    step: kernel spin 10us\n" /* 8 */ \
	    "    if i % every == 0\n"      /* 9 */ \
	    "      log: read d\n"          /* 10 */ \
	    "    end\n"                    /* 11 */ \
	    "  end\n"                      /* 12 */ \
	    "end\n"

/*
 * i = 0 .. 9, every = 3: the read at 0, 3, 6 and 9.  Iterations merge into
 * groups [step log] [step]x2, a pattern three times over, then [step log]:
 * repeat 3 { repeat 1 {step log}; repeat 2 {step} }; repeat 1 {step log}.
 */
START_TEST(lower_groups)
{
	static const struct want_op want[] = {
		{ HD_OP_REPEAT, 3, 5, 7 }, { HD_OP_REPEAT, 1, 2, 7 }, { HD_OP_KERNEL, 0, 0, 8 },
		{ HD_OP_READ, 0, 0, 10 },  { HD_OP_REPEAT, 2, 1, 7 }, { HD_OP_KERNEL, 0, 0, 8 },
		{ HD_OP_REPEAT, 1, 2, 7 }, { HD_OP_KERNEL, 0, 0, 8 }, { HD_OP_READ, 0, 0, 10 },
	};
	static const struct want_op every1[] = {
		{ HD_OP_REPEAT, 10, 2, 7 },
		{ HD_OP_KERNEL, 0, 0, 8 },
		{ HD_OP_READ, 0, 0, 10 },
	};
	struct hd_lesson *l = parse_ok(LOG_EVERY);
	struct hd_scenario *sc = inst_ok(l, 0, NULL, false);
	double k[1];
	struct hd_err e = { 0 };
	int i;

	check_ops(sc, want, (int)HD_ARRAY_LEN(want));
	/* 10 kernels, 4 reads, 1 + 3 x 2 + 1 headers reached */
	ck_assert_uint_eq(hd_scenario_op_instances(sc, 0), 10 + 4 + 8);
	/* the loop's label is on every header, the statements' on theirs */
	for (i = 0; i < sc->nops; i++)
		ck_assert_str_eq(sc->ops[i].label,
				 sc->ops[i].kind == HD_OP_REPEAT     ? "loop" :
				     sc->ops[i].kind == HD_OP_KERNEL ? "step" :
								       "log");
	hd_scenario_free(sc);

	/* every = 1: every iteration alike, one loop */
	hd_lesson_knob_defaults(l, k);
	ck_assert_int_eq(hd_lesson_knob_set(l, k, "every=1", &e), 0);
	sc = inst_ok(l, 0, k, false);
	check_ops(sc, every1, (int)HD_ARRAY_LEN(every1));
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* A loop that does not read its index stays one header; a condition on
 * knobs alone picks its branch; nested loops read both indices. */
START_TEST(lower_plain)
{
	static const char text[] = HDR "knob pinned 1 0 .. 1 \"pinned or not\"\n" /* 4 */
				       "scenario a\n"                             /* 5 */
				       "  repeat 5 as i\n"                        /* 6 */
				       "    if pinned == 1\n"                     /* 7 */
				       "      host 1us\n"                         /* 8 */
				       "    else\n"                               /* 9 */
				       "      host 2us\n"                         /* 10 */
				       "    end\n"                                /* 11 */
				       "  end\n"                                  /* 12 */
				       "  repeat 3 as i\n"                        /* 13 */
				       "    repeat 3 as j\n"                      /* 14 */
				       "      if i == j\n"                        /* 15 */
				       "        host 3us\n"                       /* 16 */
				       "      end\n"                              /* 17 */
				       "    end\n"                                /* 18 */
				       "  end\n"                                  /* 19 */
				       "end\n";
	static const struct want_op pinned[] = {
		{ HD_OP_REPEAT, 5, 1, 6 },
		{ HD_OP_HOST, 0, 0, 8 },
		/* i = 0: j = 0 (host), j = 1..2; i = 1: j = 0, j = 1 (host), j = 2;
		 * i = 2: j = 0..1, j = 2 (host): three groups, none alike */
		{ HD_OP_REPEAT, 1, 3, 13 },
		{ HD_OP_REPEAT, 1, 1, 14 },
		{ HD_OP_HOST, 0, 0, 16 },
		{ HD_OP_REPEAT, 2, 0, 14 },
		{ HD_OP_REPEAT, 1, 4, 13 },
		{ HD_OP_REPEAT, 1, 0, 14 },
		{ HD_OP_REPEAT, 1, 1, 14 },
		{ HD_OP_HOST, 0, 0, 16 },
		{ HD_OP_REPEAT, 1, 0, 14 },
		{ HD_OP_REPEAT, 1, 3, 13 },
		{ HD_OP_REPEAT, 2, 0, 14 },
		{ HD_OP_REPEAT, 1, 1, 14 },
		{ HD_OP_HOST, 0, 0, 16 },
	};
	struct hd_lesson *l = parse_ok(text);
	struct hd_scenario *sc = inst_ok(l, 0, NULL, false);
	struct hd_err e = { 0 };
	double k[1];

	check_ops(sc, pinned, (int)HD_ARRAY_LEN(pinned));
	ck_assert_int_eq(sc->ops[1].duration, 1 * HD_US);
	hd_scenario_free(sc);
	hd_lesson_knob_defaults(l, k);
	ck_assert_int_eq(hd_lesson_knob_set(l, k, "pinned=0", &e), 0);
	sc = inst_ok(l, 0, k, false);
	ck_assert_int_eq(sc->ops[1].kind, HD_OP_HOST);
	ck_assert_int_eq(sc->ops[1].duration, 2 * HD_US);
	ck_assert_int_eq(sc->ops[1].line, 10);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* --- the model ------------------------------------------------------------------------ */

static struct hd_trace *
model_trace(const struct hd_scenario *sc)
{
	struct hd_profile p;
	struct hd_run_opts o;
	struct hd_err e = { 0 };
	struct hd_trace *t;

	ck_assert_int_eq(hd_profile_resolve("h100-sxm", &p, &e), 0);
	memset(&o, 0, sizeof o);
	o.profile = &p;
	t = hd_backend_trace(&hd_sim_backend, sc, &o, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	return t;
}

/*
 * repeat 4 as i { host 1us; if i % 2 == 0 {host 2us} else {host 3us} }:
 * ops R2 { R1 {A B} R1 {A C} } (A op 2, B op 3, A op 5, C op 6), and host
 * work runs back to back: A [0,1] B [1,3] A [3,4] C [4,7] A [7,8] B [8,10]
 * A [10,11] C [11,14] us, the second pass as iteration 1 of each op.
 */
START_TEST(model_exact)
{
	static const char text[] = HDR "scenario a\n  repeat 4 as i\n    host 1us\n"
				       "    if i % 2 == 0\n      host 2us\n    else\n"
				       "      host 3us\n    end\n  end\nend\n";
	static const struct {
		int op;
		uint32_t iter;
		hd_time start, end;
	} want[] = {
		{ 2, 0, 0, 1 }, { 3, 0, 1, 3 },  { 5, 0, 3, 4 },   { 6, 0, 4, 7 },
		{ 2, 1, 7, 8 }, { 3, 1, 8, 10 }, { 5, 1, 10, 11 }, { 6, 1, 11, 14 },
	};
	struct hd_lesson *l = parse_ok(text);
	struct hd_scenario *sc = inst_ok(l, 0, NULL, false);
	struct hd_trace *t = model_trace(sc);
	size_t i, k, n = 0;

	ck_assert_int_eq(sc->nops, 7);
	ck_assert_uint_eq(sc->ops[0].count, 2);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->kind != HD_SPAN_HOST)
			continue;
		ck_assert_msg(n < HD_ARRAY_LEN(want), "more host spans than expected");
		for (k = 0; k < HD_ARRAY_LEN(want); k++)
			if (want[k].op == s->op && want[k].iter == s->iter)
				break;
		ck_assert_msg(k < HD_ARRAY_LEN(want), "host span of op %d iter %u", s->op, s->iter);
		ck_assert_int_eq(s->start, want[k].start * HD_US);
		ck_assert_int_eq(s->end, want[k].end * HD_US);
		n++;
	}
	ck_assert_uint_eq(n, HD_ARRAY_LEN(want));
	ck_assert_int_eq(t->makespan, 14 * HD_US);
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* The model runs a conditioned loop exactly as the nested loops one would
 * write by hand: the same spans at the same times. */
START_TEST(model_as_by_hand)
{
	static const char text[] = LOG_EVERY
	    "scenario b\n  buffer d device 4B\n"
	    "  repeat 3\n    repeat 1\n      kernel spin 10us\n"
	    "      read d\n    end\n    repeat 2\n"
	    "      kernel spin 10us\n    end\n  end\n"
	    "  repeat 1\n    kernel spin 10us\n    read d\n  end\nend\n";
	struct hd_lesson *l = parse_ok(text);
	struct hd_scenario *a = inst_ok(l, 0, NULL, false), *b = inst_ok(l, 1, NULL, false);
	struct hd_trace *ta = model_trace(a), *tb = model_trace(b);
	size_t i;

	ck_assert_int_eq(a->nops, b->nops);
	ck_assert_uint_eq(ta->nspans, tb->nspans);
	ck_assert_int_gt((int)ta->nspans, 20);
	for (i = 0; i < ta->nspans; i++) {
		ck_assert_int_eq(ta->spans[i].op, tb->spans[i].op);
		ck_assert_uint_eq(ta->spans[i].iter, tb->spans[i].iter);
		ck_assert_int_eq(ta->spans[i].kind, tb->spans[i].kind);
		ck_assert_int_eq(ta->spans[i].start, tb->spans[i].start);
		ck_assert_int_eq(ta->spans[i].end, tb->spans[i].end);
	}
	ck_assert_int_eq(ta->makespan, tb->makespan);
	hd_trace_free(ta);
	hd_trace_free(tb);
	hd_scenario_free(a);
	hd_scenario_free(b);
	hd_lesson_free(l);
}
END_TEST

/* --- the printers' form and show --cuda ------------------------------------------- */

START_TEST(written_form)
{
	struct hd_lesson *l = parse_ok(LOG_EVERY);
	struct hd_scenario *sc = inst_ok(l, 0, NULL, true), *c;
	const struct hd_cblock *k;
	struct hd_buf b;

	/* the loop once, named; the read in the condition's block */
	ck_assert_int_eq(sc->nops, 3);
	ck_assert_int_eq(sc->ops[0].kind, HD_OP_REPEAT);
	ck_assert_uint_eq(sc->ops[0].count, 10);
	ck_assert_int_eq(sc->ops[0].body_len, 2);
	ck_assert_str_eq(sc->ops[0].index_name, "i");
	ck_assert_int_eq(sc->ops[1].cblock, 0);
	ck_assert_int_eq(sc->ops[2].cblock, 1);
	ck_assert(!sc->ops[2].cblock_else);
	ck_assert_int_eq(sc->ncblocks, 1);
	k = &sc->cblocks[0];
	ck_assert_str_eq(k->text, "i % every == 0");
	ck_assert_int_eq(k->parent, 0);
	/* EQ(MOD(INDEX, 3), 0): the knob folded in */
	ck_assert_int_eq(k->ncx, 5);
	ck_assert_int_eq(k->cx[4].kind, HD_CX_EQ);
	ck_assert_int_eq(k->cx[k->cx[4].a].kind, HD_CX_MOD);
	ck_assert_int_eq(k->cx[k->cx[k->cx[4].a].a].kind, HD_CX_INDEX);
	ck_assert_int_eq(k->cx[k->cx[k->cx[4].a].a].loop, 0);
	ck_assert(k->cx[k->cx[k->cx[4].a].b].num == 3);
	ck_assert(k->cx[k->cx[4].b].num == 0);
	/* a deep copy */
	c = hd_scenario_clone(sc);
	ck_assert_ptr_ne(c->cblocks, sc->cblocks);
	ck_assert_str_eq(c->cblocks[0].text, "i % every == 0");
	ck_assert_str_eq(c->ops[0].index_name, "i");
	ck_assert_int_eq(c->cblocks[0].cx[4].kind, HD_CX_EQ);
	hd_scenario_free(c);

	hd_buf_init(&b);
	hd_cudagen_c(sc, &b);
	ck_assert_ptr_nonnull(strstr(b.s, "    for (long i = 0; i < 10L; i++) {\n"));
	ck_assert_ptr_nonnull(strstr(b.s,
				     "        if (i % 3 == 0) {  /* if i % every == 0 */\n"
				     "            /* log */\n"
				     "            CK(cudaMemcpy(landing, d, 4ULL,"));
	ck_assert_ptr_null(strstr(b.s, "#include <math.h>"));
	hd_buf_free(&b);
	hd_buf_init(&b);
	hd_cudagen_torch(sc, &b);
	ck_assert_ptr_nonnull(strstr(b.s, "for i in range(10):\n"));
	ck_assert_ptr_nonnull(strstr(b.s,
				     "    if i % 3 == 0:  # if i % every == 0\n"
				     "        # log\n"
				     "        print(d[:4])"));
	ck_assert_ptr_null(strstr(b.s, "import math"));
	hd_buf_free(&b);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* else, else if, a branch that is only an else, negatives and fractions. */
START_TEST(written_else)
{
	static const char text[] = HDR "knob f 50% 10% .. 90% \"a fraction\"\n"
				       "scenario a\n"
				       "  repeat 6 as i\n"
				       "    if i < 2\n"
				       "      host 1us\n"
				       "    else if (i - 5) % 3 == -1 || i % 2.5 == 0\n"
				       "      host 2us\n"
				       "    else\n"
				       "      host 3us\n"
				       "    end\n"
				       "    if i * f > 2 && !(i != 4)\n"
				       "    else\n"
				       "      host 4us\n"
				       "    end\n"
				       "  end\n"
				       "end\n";
	struct hd_lesson *l = parse_ok(text);
	struct hd_scenario *sc = inst_ok(l, 0, NULL, true);
	struct hd_buf b;

	ck_assert_int_eq(sc->ncblocks, 3);
	ck_assert_int_eq(sc->cblocks[1].parent, 1);
	ck_assert(sc->cblocks[1].parent_else);
	hd_buf_init(&b);
	hd_cudagen_c(sc, &b);
	ck_assert_ptr_nonnull(strstr(b.s, "#include <math.h>"));
	ck_assert_ptr_nonnull(strstr(b.s,
				     "        if (i < 2) {  /* if i < 2 */\n"
				     "            busy_cpu_ns(1000LL);"));
	ck_assert_ptr_nonnull(
	    strstr(b.s,
		   "        } else {\n"
		   "            if ((i - 5) % 3 == (-1) || fmod(i, 2.5) == 0) {"));
	ck_assert_ptr_nonnull(strstr(b.s,
				     "            } else {\n"
				     "                busy_cpu_ns(3000LL);"));
	ck_assert_ptr_nonnull(strstr(b.s,
				     "        if (!(i * 0.5 > 2 && !(i != 4))) {  /* if "
				     "i * f > 2 && !(i != 4), else */\n"));
	hd_buf_free(&b);
	hd_buf_init(&b);
	hd_cudagen_torch(sc, &b);
	ck_assert_ptr_nonnull(strstr(b.s, "import math\n"));
	ck_assert_ptr_nonnull(strstr(b.s,
				     "    else:\n"
				     "        if math.fmod(i - 5, 3) == (-1) or i % 2.5 == 0:"));
	ck_assert_ptr_nonnull(strstr(b.s, "    if not (i * 0.5 > 2 and not (i != 4)):"));
	hd_buf_free(&b);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* --- lint -------------------------------------------------------------------------- */

struct notes {
	int n;
	char msg[4][sizeof(((struct hd_err *)0)->msg)];
	char where[4][sizeof(((struct hd_err *)0)->where)];
};

static void
note(void *arg, const struct hd_err *w)
{
	struct notes *s = arg;

	if (s->n < 4) {
		snprintf(s->msg[s->n], sizeof s->msg[s->n], "%s", w->msg);
		snprintf(s->where[s->n], sizeof s->where[s->n], "%s", w->where);
	}
	s->n++;
}

START_TEST(lint_warns)
{
	static const char text[] = HDR
	    "knob every 3 1 .. 10 \"e\"\n"
	    "knob steps 20 10 .. 40 \"s\"\n"
	    "scenario a\n"
	    "  repeat steps as i\n"
	    "    if i % every == 0 && i > steps\n" /* 8: never */
	    "      host 1us\n"
	    "    end\n"
	    "    if every >= 1\n" /* 11: always, with an else */
	    "      host 1us\n"
	    "    else\n"
	    "      if i == 0\n" /* 14: never reached: no note */
	    "        host 1us\n"
	    "      end\n"
	    "    end\n"
	    "    if i == every\n" /* 18: sometimes: fine */
	    "      host 1us\n"
	    "    end\n"
	    "    if steps > 30\n" /* 21: only at steps' max and corners: fine */
	    "      host 1us\n"
	    "    end\n"
	    "  end\n"
	    "end\n";
	struct hd_lesson *l = parse_ok(text);
	struct notes s;
	struct hd_err e = { 0 };

	memset(&s, 0, sizeof s);
	ck_assert_int_eq(hd_lint_knobs_warn(l, note, &s, &e), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_str_eq(s.where[0], "t.hds:8:5");
	ck_assert_str_eq(s.msg[0],
			 "the condition 'i % every == 0 && i > steps' never holds where it "
			 "is reached, at any of the knob values lint tried (the defaults, "
			 "each knob's limits and the corners of their ranges): what it "
			 "guards never runs");
	ck_assert_str_eq(s.where[1], "t.hds:11:5");
	ck_assert_ptr_nonnull(
	    strstr(s.msg[1], "'every >= 1' holds wherever it is reached, at every knob value"));
	ck_assert_ptr_nonnull(strstr(s.msg[1], "its 'else' never runs"));
	hd_lesson_free(l);
}
END_TEST

/* Every shipped lesson lints without a warning. */
START_TEST(shipped_lint_clean)
{
	struct hd_catalog *cat = hd_catalog_new();
	int i;

	hd_catalog_add_builtin(cat);
	ck_assert_int_ge(hd_catalog_count(cat), 21);
	for (i = 0; i < hd_catalog_count(cat); i++) {
		struct notes s;
		struct hd_err e = { 0 };

		memset(&s, 0, sizeof s);
		ck_assert_msg(hd_lint_knobs_warn(hd_catalog_get(cat, i), note, &s, &e) == 0,
			      "lesson %d: %s", i + 1, e.msg);
		ck_assert_msg(s.n == 0, "lesson %d: %s: %s", i + 1, s.where[0], s.msg[0]);
	}
	hd_catalog_free(cat);
}
END_TEST

/* --- profile values ------------------------------------------------------------------ */

/* lang/profkeys.c lists exactly the numeric keys of the profile format. */
START_TEST(profkeys_match_profile)
{
	const struct hd_profile *p = hd_profile_builtin(0);
	int i, numeric = 0;
	double v;
	enum hd_dim dim;

	for (i = 0; hd_profile_key(i, NULL) != NULL; i++) {
		const char *key = hd_profile_key(i, NULL);
		int k = hd_profkey_find(key, strlen(key));

		if (hd_profile_value(p, key, &v, &dim) != 0) {
			ck_assert_msg(k < 0, "profile key %s holds text, but lessons may read it",
				      key);
			continue;
		}
		numeric++;
		ck_assert_msg(k >= 0,
			      "profile key %s is not readable by lessons: add it to "
			      "lang/profkeys.c",
			      key);
		ck_assert_msg(hd_profkey(k)->dim == dim, "profile key %s: dimensions differ", key);
	}
	ck_assert_int_eq(numeric, hd_profkey_count());
	ck_assert_int_eq(hd_profile_value(p, "api.lunch", &v, &dim), -1);
	ck_assert_ptr_null(hd_profkey(hd_profkey_count()));
}
END_TEST

/* profile() on each built-in profile: the profile's own figures, in claims
 * and estimates, the claims holding on every one. */
START_TEST(profile_claims_every_profile)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l;
	int i, j;

	l = parse_ok(HDR "scenario a\n  loop: repeat 10\n    k: kernel spin 1us\n  end\n"
			 "  sync device\nend\n"
			 "claim \"the launches cost the host 10 launch costs\" "
			 "call(a.k) == 10 * profile(api.launch) within 1%\n"
			 "claim \"the run outlasts the launches\" "
			 "makespan(a) >= 10 * profile(api.launch) + profile(gpu.launch_latency)\n");
	ck_assert_int_eq(hd_profile_builtin_count(), 5);
	for (i = 0; i < hd_profile_builtin_count(); i++) {
		const struct hd_profile *p = hd_profile_builtin(i);
		struct hd_run r;
		double v;

		memset(&e, 0, sizeof e);
		ck_assert_msg(hd_run_lesson(&r, l, 0, p, &hd_sim_backend, NULL, 0, &e) == 0,
			      "%s: %s", p->name, e.msg);
		ck_assert_int_eq(r.nclaims, 2);
		for (j = 0; j < r.nclaims; j++)
			ck_assert_msg(r.claims[j].status == 1, "%s: claim %d: %s", p->name, j,
				      r.claims[j].detail);
		ck_assert(r.claims[0].rhs == 10.0 * (double)p->api_launch);
		ck_assert_ptr_nonnull(
		    strstr(r.claims[0].detail, "10 * profile(api.launch) = 10 * "));
		ck_assert_int_eq(hd_run_eval_expr(&r, "profile(api.launch)", &v, &e), 0);
		ck_assert(v == (double)p->api_launch);
		ck_assert_int_eq(hd_run_eval_expr(&r, "profile(pcie.h2d)", &v, &e), 0);
		ck_assert(v == p->h2d_bw);
		ck_assert_int_eq(hd_run_eval_expr(&r, "profile(staging.chunk)", &v, &e), 0);
		ck_assert(v == (double)p->staging_chunk);
		ck_assert_int_eq(hd_run_eval_expr(&r, "profile(pcie.lanes)", &v, &e), 0);
		ck_assert(v == p->pcie_lanes);
		ck_assert_int_eq(hd_run_eval_expr(&r, "profile(gpu.fp32) * 1ms", &v, &e), 0);
		ck_assert(fabs(v - p->flops * 1e-3) <= 1e-6 * p->flops * 1e-3);
		ck_assert_int_eq(hd_run_eval_expr(&r, "profile(gpu.sms)", &v, &e), 0);
		ck_assert(v == p->sms);
		hd_run_free(&r);
	}
	/* without a profile, a claim reading one is not checked */
	{
		struct hd_trace *none[1] = { NULL };
		double v;

		memset(&e, 0, sizeof e);
		ck_assert_int_eq(hd_lesson_eval_expr(l, "profile(api.launch)", NULL, none, &v, &e),
				 -1);
		ck_assert_ptr_nonnull(
		    strstr(e.msg, "profile(api.launch) needs the run's hardware"));
	}
	hd_lesson_free(l);
}
END_TEST

/* The shipped lesson on logging every N steps: its claims, profile() among
 * them, hold on every built-in profile. */
START_TEST(log_every_n_every_profile)
{
	struct hd_catalog *cat = hd_catalog_new();
	struct hd_err e = { 0 };
	const struct hd_lesson *l;
	int i, j, idx;

	hd_catalog_add_builtin(cat);
	ck_assert_int_ge((idx = hd_catalog_find(cat, "log-every-n", &e)), 0);
	l = hd_catalog_get(cat, idx);
	for (i = 0; i < hd_profile_builtin_count(); i++) {
		const struct hd_profile *p = hd_profile_builtin(i);
		struct hd_run r;

		ck_assert_msg(hd_run_lesson(&r, l, idx + 1, p, &hd_sim_backend, NULL, 0, &e) == 0,
			      "%s: %s", p->name, e.msg);
		ck_assert_int_ge(r.nclaims, 4);
		for (j = 0; j < r.nclaims; j++)
			ck_assert_msg(r.claims[j].status == 1, "%s: %s: %s", p->name,
				      hd_lesson_claim(l, j)->text, r.claims[j].detail);
		hd_run_free(&r);
	}
	hd_catalog_free(cat);
}
END_TEST

/* --- feedback --------------------------------------------------------------------------- */

START_TEST(option_feedback)
{
	static const char text[] = HDR "question q choice \"Which?\"\n"
				       "  option a \"A\" feedback \"a is \\\"right\\\"\\nreally\"\n"
				       "  option b \"B\"\n"
				       "  option c \"C\" feedback \"c is not\"\n"
				       "  answer a\n"
				       "end\n"
				       "question r choice \"No feedback\"\n"
				       "  option x \"X\"\n"
				       "  option y \"Y\"\n"
				       "  answer y\n"
				       "end\n"
				       "scenario s\n  host 1us\nend\n";
	struct hd_lesson *l = parse_ok(text);
	const struct hd_question *q = hd_lesson_question(l, 0);

	ck_assert_int_eq(q->noptions, 3);
	ck_assert_ptr_nonnull(q->option_feedback);
	ck_assert_str_eq(q->option_feedback[0], "a is \"right\"\nreally");
	ck_assert_ptr_null(q->option_feedback[1]);
	ck_assert_str_eq(q->option_feedback[2], "c is not");
	ck_assert_str_eq(q->options[2], "C");
	ck_assert_ptr_null(hd_lesson_question(l, 1)->option_feedback);
	hd_lesson_free(l);
}
END_TEST

static Suite *
cond_suite(void)
{
	Suite *s = suite_create("cond");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, parse_good);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, value_errors);
	tcase_add_test(tc, lower_groups);
	tcase_add_test(tc, lower_plain);
	tcase_add_test(tc, model_exact);
	tcase_add_test(tc, model_as_by_hand);
	tcase_add_test(tc, written_form);
	tcase_add_test(tc, written_else);
	tcase_add_test(tc, lint_warns);
	tcase_add_test(tc, shipped_lint_clean);
	tcase_add_test(tc, profkeys_match_profile);
	tcase_add_test(tc, profile_claims_every_profile);
	tcase_add_test(tc, log_every_n_every_profile);
	tcase_add_test(tc, option_feedback);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(cond_suite());
}
