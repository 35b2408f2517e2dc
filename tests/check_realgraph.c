/*
 * check_realgraph.c - the real backend running CUDA graphs, against the fake
 * GPU of tests/fake_cuda.c: each graph captured once, before the run, and
 * every launch one cudaGraphLaunch whose span on its stream holds the
 * graph's nodes, as the fake GPU runs them; a managed buffer no graph
 * holds is allocated anew for each repeat, one a graph holds keeps its
 * address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/band.h"
#include "base/units.h"
#include "ir/backend.h"
#include "ir/trace.h"
#include "lang/lesson.h"
#include "real/fault.h"
#include "real/real.h"
#include "run/backends.h"
#include "tests/fake_cuda.h"
#include "tests/testutil.h"

static const char text[] = "hdsim 1\nlesson g\ntitle \"T\"\n"
			   "scenario g\n"
			   "  buffer h pinned 1MiB\n"
			   "  buffer d device 1MiB\n"
			   "  stream s\n"
			   "  graph gr\n"
			   "    a: kernel spin 10us\n"
			   "    repeat 2\n"
			   "      b: kernel spin 10us\n"
			   "    end\n"
			   "    c: copy h -> d async\n"
			   "  end\n"
			   "  repeat 2\n"
			   "    l: launch gr on s\n"
			   "  end\n"
			   "  sync s\n"
			   "end\n";

/* Op indices: graph 0, a 1, repeat 2, b 3, c 4, repeat 5, launch 6, sync 7. */
enum {
	GRAPH,
	A,
	REP,
	B,
	C,
	REP2,
	LAUNCH,
	SYNC
};

/* Scenario `src` run on the fake GPU (one warm-up, three repeats): the
 * trace, the scenario into *out. */
static struct hd_trace *
measure_text(const char *src, struct hd_scenario **out)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(src, strlen(src), "g.hds", &e);
	struct hd_run_opts o;
	struct hd_scenario *sc;
	struct hd_trace *t;

	ck_assert_msg(l != NULL, "%s", e.msg);
	sc = hd_lesson_instantiate(l, 0, NULL, &e);
	ck_assert_msg(sc != NULL, "%s", e.msg);
	hd_lesson_free(l);
	memset(&o, 0, sizeof o);
	o.warmup = 1;
	o.repeats = 3;
	t = hd_backend_trace(&hd_real_backend, sc, &o, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	*out = sc;
	return t;
}

static struct hd_trace *
measure(struct hd_scenario **out)
{
	return measure_text(text, out);
}

static const struct hd_span *
find(const struct hd_trace *t, int op, uint32_t iter, enum hd_lane_kind lk, enum hd_span_kind k)
{
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->op == op && s->iter == iter && s->kind == k && t->lanes[s->lane].kind == lk)
			return s;
	}
	return NULL;
}

START_TEST(a_launch_runs_the_captured_graph)
{
	struct hd_scenario *sc;
	struct hd_trace *t;
	/* each node: the fake's gap, then its work (a spin runs 1 us longer; a
	 * pinned copy pays 1.8 us and its bytes at the fake's HtoD rate) */
	const double node = FAKE_GRAPH_NODE, spin = 10e-6 + 1e-6 + node;
	const double graph = 3 * spin + node + 1.8e-6 + (double)(1 << 20) / FAKE_H2D;
	uint32_t it;
	size_t i;

	fake_cuda_captures = 0;
	t = measure(&sc);
	/* one capture for the run: warm-up, timed and bare repeats launch it */
	ck_assert_int_eq(fake_cuda_captures, 1);
	for (it = 0; it < 2; it++) {
		const struct hd_span *api = find(t, LAUNCH, it, HD_LANE_API, HD_SPAN_API);
		const struct hd_span *s = find(t, LAUNCH, it, HD_LANE_STREAM, HD_SPAN_KERNEL);
		double d;

		ck_assert_ptr_nonnull(api);
		ck_assert_ptr_nonnull(s);
		/* the host's call: the fake's launch cost */
		ck_assert_msg(hd_time_to_s(api->end - api->start) >= FAKE_GRAPH_LAUNCH * 0.99,
			      "call %g s", hd_time_to_s(api->end - api->start));
		/* the stream's span holds every node (and, for the first, the call) */
		d = hd_time_to_s(s->end - s->start);
		ck_assert_msg(d >= graph * 0.99 && d < graph + FAKE_GRAPH_LAUNCH + 200e-6,
			      "launch %u: %g s for a graph of %g s", it, d, graph);
	}
	/* the second launch follows the first on the stream */
	ck_assert(find(t, LAUNCH, 1, HD_LANE_STREAM, HD_SPAN_KERNEL)->start >=
		  find(t, LAUNCH, 0, HD_LANE_STREAM, HD_SPAN_KERNEL)->end);
	/* the nodes are not timed one by one, and the graph itself runs no call */
	for (i = 0; i < t->nspans; i++)
		ck_assert_msg(t->spans[i].op != GRAPH && t->spans[i].op != A &&
				  t->spans[i].op != B && t->spans[i].op != C,
			      "a span of op %d", t->spans[i].op);
	ck_assert_ptr_nonnull(find(t, SYNC, 0, HD_LANE_API, HD_SPAN_BLOCKED));
	ck_assert(t->bare > 0);
	ck_assert(t->bare >= (hd_time)(2 * graph * 1e12));
	/* every timed repeat's makespan, with per-op events and without: the
	 * three of each, the bare makespan their median, the trace's within the
	 * timed ones' reach */
	ck_assert_int_eq(t->nreps, 3);
	ck_assert_ptr_nonnull(t->reps);
	ck_assert_ptr_nonnull(t->reps_bare);
	{
		struct hd_band timed, bare;

		ck_assert_int_eq(hd_band_of(t->reps, t->nreps, &timed), 0);
		ck_assert_int_eq(hd_band_of(t->reps_bare, t->nreps, &bare), 0);
		ck_assert_int_eq(bare.median, t->bare);
		ck_assert(bare.min >= (hd_time)(2 * graph * 1e12));
		ck_assert(timed.min >= (hd_time)(2 * graph * 1e12));
		ck_assert(t->makespan <= timed.max);
	}
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

/* A graph the device refuses to capture, instantiate or launch stops the
 * run with that call named, and leaves nothing behind (the sanitizer and
 * valgrind runs check the last). */
START_TEST(a_failing_graph_call_is_named)
{
	static const char *const calls[] = { "cudaStreamBeginCapture", "cudaStreamEndCapture",
					     "cudaGraphInstantiate",   "cudaGraphDestroy",
					     "cudaGraphLaunch",        "kernel launch" };
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, sizeof text - 1, "g.hds", &e);
	struct hd_scenario *sc = hd_lesson_instantiate(l, 0, NULL, &e);
	struct hd_run_opts o;
	size_t i;

	ck_assert_ptr_nonnull(sc);
	memset(&o, 0, sizeof o);
	o.repeats = 1;
	for (i = 0; i < HD_ARRAY_LEN(calls); i++) {
		ck_assert_int_eq(hd_fault_set(calls[i]), 0);
		memset(&e, 0, sizeof e);
		ck_assert_msg(hd_backend_trace(&hd_real_backend, sc, &o, &e) == NULL,
			      "%s did not fail", calls[i]);
		ck_assert_msg(strstr(e.msg, calls[i]) != NULL && strstr(e.msg, "failed") != NULL,
			      "%s: %s", calls[i], e.msg);
	}
	hd_fault_set("");
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* How many cudaMallocManaged calls a run of `src` makes. */
static int
managed_allocs(const char *src)
{
	struct hd_scenario *sc;

	fake_cuda_managed_allocs = 0;
	hd_trace_free(measure_text(src, &sc));
	hd_scenario_free(sc);
	return fake_cuda_managed_allocs;
}

/* Pages moved there and back by one repeat leave the driver's migration
 * heuristics in a state the next would inherit: each repeat gets a buffer of
 * its own, unless a captured graph holds the address (then it is moved back
 * to the host instead). */
START_TEST(managed_buffers_are_new_each_repeat)
{
	static const char loose[] = "hdsim 1\nlesson m\ntitle \"T\"\n"
				    "scenario m\n"
				    "  buffer m managed 64KiB\n"
				    "  stream s\n"
				    "  kernel memory m on s\n"
				    "  sync s\n"
				    "end\n";
	static const char held[] = "hdsim 1\nlesson m\ntitle \"T\"\n"
				   "scenario m\n"
				   "  buffer m managed 64KiB\n"
				   "  stream s\n"
				   "  graph gr\n"
				   "    kernel memory m\n"
				   "  end\n"
				   "  launch gr on s\n"
				   "  sync s\n"
				   "end\n";
	int n = managed_allocs(loose);

	/* set-up's, then one for each run of the op list: the warm-up, the
	 * three timed repeats and the bare ones */
	ck_assert_msg(n >= 1 + 1 + 3 + 3, "%d cudaMallocManaged calls", n);
	ck_assert_int_eq(managed_allocs(held), 1);
}
END_TEST

/* Every managed buffer is freed before any is allocated again: one kept
 * alive beside another keeps the driver's record of the pages' moves (a
 * loop on one 169 KB buffer beside a second, untouched, took 2.2 ms where
 * alone it took 10.1: bench/probe/umthrash2.hds, run86). */
START_TEST(managed_buffers_are_all_freed_first)
{
	static const char two[] = "hdsim 1\nlesson m\ntitle \"T\"\n"
				  "scenario m\n"
				  "  buffer m managed 64KiB\n"
				  "  buffer n managed 64KiB\n"
				  "  stream s\n"
				  "  kernel memory m on s\n"
				  "  sync s\n"
				  "end\n";

	memset(fake_cuda_managed_log, 0, sizeof fake_cuda_managed_log);
	ck_assert_int_ge(managed_allocs(two), 2 * (1 + 1 + 3 + 3));
	/* set-up, then each repeat: both freed, both allocated */
	ck_assert_msg(strncmp(fake_cuda_managed_log, "AAFFAAFFAA", 10) == 0, "%s",
		      fake_cuda_managed_log);
	ck_assert_msg(strstr(fake_cuda_managed_log, "FAF") == NULL, "%s", fake_cuda_managed_log);
}
END_TEST

static Suite *
realgraph_suite(void)
{
	Suite *s = suite_create("realgraph");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, a_launch_runs_the_captured_graph);
	tcase_add_test(tc, a_failing_graph_call_is_named);
	tcase_add_test(tc, managed_buffers_are_new_each_repeat);
	tcase_add_test(tc, managed_buffers_are_all_freed_first);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(realgraph_suite());
}
