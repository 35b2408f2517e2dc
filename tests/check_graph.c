/*
 * check_graph.c - CUDA graphs from lesson text to trace: the statements
 * `graph NAME ... end` and `launch NAME on S` as the parser reads them (and
 * refuses them, at line and column), the IR they lower to, and the model's
 * exact traces of small graphs on a profile with round numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "base/util.h"
#include "ir/graph.h"
#include "ir/ir.h"
#include "ir/trace.h"
#include "lang/lesson.h"
#include "profile/profile.h"
#include "sim/model.h"
#include "tests/testutil.h"

#define HDR "hdsim 1\nlesson g\ntitle \"T\"\n"
#define US  HD_US

/* --- the lesson language ------------------------------------------------------ */

/* Scenario `name` of text, lowered with its defaults. */
static struct hd_scenario *
lower(const char *text, const char *name)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, strlen(text), "g.hds", &e);
	struct hd_scenario *sc;

	ck_assert_msg(l != NULL, "%s: %s", e.where, e.msg);
	sc = hd_lesson_instantiate(l, hd_lesson_find_scenario(l, name), NULL, &e);
	ck_assert_msg(sc != NULL, "%s: %s", e.where, e.msg);
	hd_lesson_free(l);
	return sc;
}

static const char good[] = HDR "scenario g\n"
			       "  buffer h pinned 1MiB\n"
			       "  buffer d device 1MiB\n"
			       "  stream s\n"
			       "  graph gr\n"
			       "    a: kernel spin 10us\n"
			       "    repeat 2\n"
			       "      b: kernel spin 10us\n"
			       "    end\n"
			       "  end\n"
			       "  repeat 2\n"
			       "    l: launch gr on s\n"
			       "  end\n"
			       "  sync s\n"
			       "end\n"
			       "scenario c\n"
			       "  buffer h pinned 1MiB\n"
			       "  buffer d device 1MiB\n"
			       "  stream s\n"
			       "  graph up\n"
			       "    c: copy h -> d async\n"
			       "    k: kernel spin 5us\n"
			       "  end\n"
			       "  l: launch up on s\n"
			       "  sync s\n"
			       "end\n"
			       "claim \"the graph runs\" time(g.l) > 0s\n"
			       "claim \"a node is named\" time(g.b) > 0s\n";

START_TEST(lowers_to_a_header_and_its_body)
{
	struct hd_scenario *sc = lower(good, "g");
	size_t n = 0;
	int *nodes;

	/* graph (0), a (1), repeat (2), b (3), repeat (4), launch (5), sync (6) */
	ck_assert_int_eq(sc->nops, 7);
	ck_assert_int_eq(sc->ops[0].kind, HD_OP_GRAPH);
	ck_assert_str_eq(sc->ops[0].text, "gr");
	ck_assert_int_eq(sc->ops[0].body_len, 3);
	ck_assert_uint_eq(sc->ops[0].count, 3); /* a, b, b */
	ck_assert(sc->ops[1].in_graph && sc->ops[2].in_graph && sc->ops[3].in_graph);
	ck_assert(!sc->ops[0].in_graph && !sc->ops[5].in_graph);
	ck_assert_int_eq(sc->ops[5].kind, HD_OP_LAUNCH);
	ck_assert_int_eq(sc->ops[5].graph, 0);
	ck_assert_str_eq(sc->ops[5].label, "l");
	ck_assert_int_eq(sc->ops[5].stream, 2);
	ck_assert_str_eq(hd_op_api_name(&sc->ops[5]), "cudaGraphLaunch");
	ck_assert_str_eq(hd_op_api_name(&sc->ops[1]), "kernel node");
	nodes = hd_graph_nodes(sc, 0, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(nodes[0], 1);
	ck_assert_int_eq(nodes[1], 3);
	ck_assert_int_eq(nodes[2], 3);
	free(nodes);
	ck_assert_ptr_null(hd_graph_nodes(sc, 5, &n)); /* not a graph */
	ck_assert_uint_eq(n, 0);
	/* the host runs: the graph header, 2 x (repeat, launch of 3 nodes), sync */
	ck_assert_uint_eq(hd_scenario_op_instances(sc, 0), 1 + 1 + 2 * (1 + 3) + 1);
	hd_scenario_free(sc);
	sc = lower(good, "c");
	ck_assert_str_eq(hd_op_api_name(&sc->ops[1]), "memcpy node");
	ck_assert_int_eq(sc->ops[1].copy, HD_COPY_H2D);
	ck_assert_uint_eq(sc->ops[1].bytes, 1 << 20);
	hd_scenario_free(sc);
}
END_TEST

struct bad {
	const char *text;
	int line, col;
	const char *frag;
};

#define SC "scenario a\n  stream s\n  buffer d device 1MiB\n  buffer h pinned 1MiB\n"

/* What the parser refuses, where, and why (lines: HDR is 3, SC 4 more). */
static const struct bad bad[] = {
	{ HDR SC "  launch nosuch on s\nend\n", 8, 10,
	  "no graph named 'nosuch' in scenario a (graphs: none declared" },
	{ HDR SC "  graph g\n    kernel spin 1us\n  end\n  launch gg\nend\n", 11, 10,
	  "no graph named 'gg' in scenario a (graphs: g)" },
	{ HDR SC "  launch d on s\nend\n", 8, 10, "'d' is a buffer, but 'launch' needs a graph" },
	{ HDR SC "  graph g\n    kernel spin 1us\n    sync s\n  end\nend\n", 10, 5,
	  "'sync' cannot be captured in graph g: a synchronize while a stream is capturing is an "
	  "error (cudaErrorStreamCaptureUnsupported)" },
	{ HDR SC "  graph g\n    sync device\n  end\nend\n", 9, 5, "'sync' cannot be captured" },
	{ HDR SC "  graph g\n    host 1us\n  end\nend\n", 9, 5,
	  "'host' cannot be captured in graph g: a graph replays GPU work only" },
	{ HDR SC "  graph g\n    read d\n  end\nend\n", 9, 5,
	  "'read' cannot be captured in graph g: it is a synchronous cudaMemcpy" },
	{ HDR SC "  graph g\n    alloc d\n  end\nend\n", 9, 5,
	  "cudaMalloc and cudaMallocHost are not allowed while a stream is capturing" },
	{ HDR SC "  graph g\n    free d\n  end\nend\n", 9, 5, "'free' cannot be captured" },
	{ HDR SC "  event e\n  graph g\n    record e\n  end\nend\n", 10, 5,
	  "record and wait on events around the 'launch'" },
	{ HDR SC "  graph g\n    copy h -> d\n  end\nend\n", 9, 5,
	  "'copy' without 'async' cannot be captured in graph g: cudaMemcpy is synchronous" },
	{ HDR SC "  buffer p pageable 1MiB\n  graph g\n    copy p -> d async\n  end\nend\n", 10, 5,
	  "buffer p is pageable memory: a copy through pageable memory cannot be captured" },
	{ HDR SC "  buffer h2 pinned 1MiB\n  graph g\n    copy h -> h2 async\n  end\nend\n", 10, 5,
	  "a copy between two host buffers is CPU work" },
	{ HDR SC "  graph g\n    kernel spin 1us on s\n  end\nend\n", 9, 21,
	  "'on s' inside graph g: a graph's work runs on the stream it is launched on "
	  "('launch g on s')" },
	{ HDR SC "  graph g\n    buffer x device 1MiB\n  end\nend\n", 9, 5,
	  "'buffer' inside graph g: declare buffers, streams and events at the top" },
	{ HDR SC "  graph g\n    graph g2\n    end\n  end\nend\n", 9, 5, "graphs do not nest" },
	{ HDR SC "  graph g\n    kernel spin 1us\n  end\n  graph g2\n    launch g\n  end\nend\n",
	  12, 5, "hdsim's graphs do not launch other graphs" },
	{ HDR SC "  repeat 2\n    graph g\n      kernel spin 1us\n    end\n  end\nend\n", 9, 5,
	  "'graph' belongs at the top of the scenario, not inside a block" },
	{ HDR SC "  graph g\n  end\nend\n", 8, 3, "graph g captures no work" },
	{ HDR SC "  x: graph g\n    kernel spin 1us\n  end\nend\n", 8, 6,
	  "a label names an operation; 'graph' declares one" },
	{ HDR SC "  graph d\n    kernel spin 1us\n  end\nend\n", 8, 9,
	  "'d' is already declared as a buffer in scenario a" },
	{ HDR SC "  graph g\n    kernel spin 1us\n  end\n  event g\nend\n", 11, 9,
	  "'g' is already declared as a graph in scenario a (line 8)" },
	{ HDR SC "  graph g\n    kernel spin 1us\n  end\n  sync g\nend\n", 11, 8,
	  "'g' is a graph, but 'sync' needs an event or a stream here" },
	/* a graph keeps the addresses it was captured with */
	{ HDR SC "  graph g\n    kernel fill d\n  end\n  launch g on s\n  free d\nend\n", 12, 3,
	  "buffer d is used by graph g (line 8): a graph keeps the addresses it was captured "
	  "with, before the run, so d cannot be freed while the scenario runs" },
	{ HDR SC "  alloc h\n  graph g\n    copy h -> d async\n  end\nend\n", 8, 3,
	  "so h cannot be allocated" },
	{ HDR "graph g\n", 4, 1, "'graph' is a scenario statement" },
	/* host threads and queues stay outside graphs, graphs outside host threads */
	{ HDR SC "  queue q 2\n  graph g\n    put q\n  end\nend\n", 10, 5,
	  "'put' cannot be captured in graph g: a queue is between host threads" },
	{ HDR SC "  graph g\n    workers 2\n      host 1us\n    end\n  end\nend\n", 9, 5,
	  "'workers' cannot be captured in graph g: host threads start beside the main one" },
	{ HDR SC "  graph g\n    kernel spin 1us\n  end\n  workers 2\n    launch g\n  end\nend\n",
	  12, 5, "'launch' cannot run in a host thread" },
	/* a graph replays the same nodes at every launch: no condition inside */
	{ HDR "knob k 1 1 .. 2 \"k\"\n" SC "  graph g\n    kernel spin 1us\n    if k > 1\n"
	      "      kernel spin 1us\n    end\n  end\nend\n",
	  11, 5, "'if' cannot be used in graph g: a graph replays the same nodes at every launch" },
	{ HDR "knob k 1 1 .. 2 \"k\"\n" SC "  if k == 1\n    graph g\n      kernel spin 1us\n"
	      "    end\n  end\nend\n",
	  10, 5, "'graph' belongs at the top of the scenario, not inside a block" },
};

START_TEST(refused_at_line_and_column)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(bad); i++) {
		struct hd_err e = { 0 };
		struct hd_lesson *l;
		char where[64];

		l = hd_lesson_parse(bad[i].text, strlen(bad[i].text), "g.hds", &e);
		ck_assert_msg(l == NULL, "accepted:\n%s", bad[i].text);
		snprintf(where, sizeof where, "g.hds:%d:%d", bad[i].line, bad[i].col);
		ck_assert_msg(strcmp(e.where, where) == 0, "at %s, not %s (%s) for:\n%s", e.where,
			      where, e.msg, bad[i].text);
		ck_assert_msg(strstr(e.msg, bad[i].frag) != NULL, "'%s' lacks '%s'", e.msg,
			      bad[i].frag);
		ck_assert_int_eq(e.status, HD_EXIT_INPUT);
		ck_assert_ptr_nonnull(strchr(e.context, '^'));
	}
}
END_TEST

/* Values only instantiation sees: a graph of more nodes than the limit. */
START_TEST(node_limit_at_instantiation)
{
	const char *text = HDR "knob n 10 1 .. 1000000 \"nodes\"\n" SC
			       "  graph g\n    repeat n\n      kernel spin 1us\n    end\n  end\n"
			       "  launch g on s\nend\n";
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, strlen(text), "g.hds", &e);
	double n = 100001;
	struct hd_scenario *sc;

	ck_assert_msg(l != NULL, "%s", e.msg);
	sc = hd_lesson_instantiate(l, 0, NULL, &e);
	ck_assert_ptr_nonnull(sc);
	ck_assert_uint_eq(sc->ops[0].count, 10);
	hd_scenario_free(sc);
	ck_assert_ptr_null(hd_lesson_instantiate(l, 0, &n, &e));
	ck_assert_str_eq(e.where, "g.hds:9:3");
	ck_assert_ptr_nonnull(strstr(e.msg, "graph g runs 100001 nodes at each launch"));
	ck_assert_ptr_nonnull(strstr(e.msg, "a graph holds 1 to 100000"));
	n = 100000;
	sc = hd_lesson_instantiate(l, 0, &n, &e);
	ck_assert_ptr_nonnull(sc);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* --- the model ---------------------------------------------------------------- */

/* h100-sxm with round figures for what these scenarios touch. */
static struct hd_profile
round_profile(void)
{
	struct hd_profile p;
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_profile_resolve("h100-sxm", &p, &e), 0);
	p.api_launch = 5 * US;
	p.api_graph_launch = 7 * US;
	p.launch_latency = 3 * US;
	p.graph_node = 1 * US;
	p.api_sync = 1 * US;
	p.sync_wake = 2 * US;
	p.copy_latency = 2 * US;
	p.h2d_bw = 50e9;
	return p;
}

static struct hd_trace *
run_model(const struct hd_scenario *sc, const struct hd_profile *p)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_sink sink = hd_trace_sink(t);
	struct hd_err e = { 0 };

	ck_assert_msg(hd_model_run(sc, p, &sink, NULL, NULL, &e) == 0, "%s", e.msg);
	hd_trace_sort(t);
	return t;
}

/* The span of (op, iter) of kind k on a lane of kind lk; fails when there is none. */
static const struct hd_span *
need(const struct hd_trace *t, int op, uint32_t iter, enum hd_lane_kind lk, enum hd_span_kind k)
{
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->op == op && s->iter == iter && s->kind == k && t->lanes[s->lane].kind == lk)
			return s;
	}
	ck_abort_msg("no span of op %d iter %u kind %d on lane kind %d", op, iter, k, lk);
	return NULL;
}

/* Spans of op on lanes of kind lk. */
static int
count(const struct hd_trace *t, int op, enum hd_lane_kind lk)
{
	size_t i;
	int n = 0;

	for (i = 0; i < t->nspans; i++)
		n += t->spans[i].op == op && t->lanes[t->spans[i].lane].kind == lk;
	return n;
}

static void
at(const struct hd_span *s, hd_time start, hd_time end)
{
	ck_assert_msg(s->start == start && s->end == end,
		      "span [%lld, %lld], expected [%lld, %lld]", (long long)s->start,
		      (long long)s->end, (long long)start, (long long)end);
}

/*
 * A graph of 3 spin kernels of 10 us (a, then b twice), launched twice on s.
 * Launch 1: the call [0, 7]; submitted at 7, the launch latency ends at 10,
 * each node starts 1 us after the one before (the first 1 us after 10):
 * a [11, 21], b [22, 32], b [33, 43]; the stream shows the graph [11, 43].
 * Launch 2: the call [7, 14], at the head of s when launch 1 ends at 43:
 * a [44, 54], b [55, 65], b [66, 76]; the stream [44, 76].  sync s from 14
 * waits until 76, wakes 2 us later: [14, 78].
 */
START_TEST(graph_of_three_launched_twice)
{
	struct hd_scenario *sc = lower(good, "g");
	struct hd_profile p = round_profile();
	struct hd_trace *t = run_model(sc, &p);

	at(need(t, 5, 0, HD_LANE_API, HD_SPAN_API), 0, 7 * US);
	at(need(t, 5, 1, HD_LANE_API, HD_SPAN_API), 7 * US, 14 * US);
	at(need(t, 5, 0, HD_LANE_STREAM, HD_SPAN_KERNEL), 11 * US, 43 * US);
	at(need(t, 5, 1, HD_LANE_STREAM, HD_SPAN_KERNEL), 44 * US, 76 * US);
	at(need(t, 1, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL), 11 * US, 21 * US);
	at(need(t, 3, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL), 22 * US, 32 * US);
	at(need(t, 3, 1, HD_LANE_COMPUTE, HD_SPAN_KERNEL), 33 * US, 43 * US);
	at(need(t, 1, 1, HD_LANE_COMPUTE, HD_SPAN_KERNEL), 44 * US, 54 * US);
	at(need(t, 3, 2, HD_LANE_COMPUTE, HD_SPAN_KERNEL), 55 * US, 65 * US);
	at(need(t, 3, 3, HD_LANE_COMPUTE, HD_SPAN_KERNEL), 66 * US, 76 * US);
	at(need(t, 6, 0, HD_LANE_API, HD_SPAN_API), 14 * US, 78 * US);
	ck_assert_int_eq(t->makespan, 78 * US);
	/* the nodes draw on the Compute row only; the graph header draws nothing */
	ck_assert_int_eq(count(t, 1, HD_LANE_STREAM) + count(t, 3, HD_LANE_STREAM), 0);
	ck_assert_int_eq(count(t, 1, HD_LANE_COMPUTE) + count(t, 3, HD_LANE_COMPUTE), 6);
	ck_assert_int_eq(count(t, 0, HD_LANE_STREAM) + count(t, 0, HD_LANE_API), 0);
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

/*
 * A copy node, then a kernel node.  The call [0, 7], the latency ends at 10,
 * the copy node starts at 11 on the HtoD engine, its bytes move after the
 * engine's 2 us: 1 MiB at 50 GB/s is 20.97152 us, so [11, 33.97152] on the
 * engine and [13, 33.97152] on the link.  The kernel 1 us after it:
 * [34.97152, 39.97152].  The stream shows [11, 39.97152].
 */
START_TEST(copy_node_then_kernel_node)
{
	struct hd_scenario *sc = lower(good, "c");
	struct hd_profile p = round_profile();
	struct hd_trace *t = run_model(sc, &p);
	const hd_time copy_end = 11 * US + 2 * US + 20971520;

	at(need(t, 3, 0, HD_LANE_API, HD_SPAN_API), 0, 7 * US);
	at(need(t, 1, 0, HD_LANE_CE_H2D, HD_SPAN_COPY), 11 * US, copy_end);
	at(need(t, 1, 0, HD_LANE_PCIE_H2D, HD_SPAN_COPY), 13 * US, copy_end);
	ck_assert_uint_eq(need(t, 1, 0, HD_LANE_CE_H2D, HD_SPAN_COPY)->bytes, 1 << 20);
	at(need(t, 2, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL), copy_end + 1 * US, copy_end + 6 * US);
	at(need(t, 3, 0, HD_LANE_STREAM, HD_SPAN_KERNEL), 11 * US, copy_end + 6 * US);
	ck_assert_int_eq(count(t, 1, HD_LANE_STREAM), 0);
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

/*
 * A launch takes one place in its stream's queue, whatever the graph holds:
 * with room for two, two launches of a 3-node graph queue without the host
 * waiting, where three kernels launched one by one would fill it.
 */
START_TEST(a_launch_is_one_queue_entry)
{
	struct hd_scenario *sc = lower(good, "g");
	struct hd_profile p = round_profile();
	struct hd_trace *t;
	size_t i;

	p.stream_queue = 2;
	t = run_model(sc, &p);
	for (i = 0; i < t->nspans; i++)
		ck_assert_msg(t->spans[i].why != HD_WHY_QUEUE_FULL,
			      "the host waited for the queue");
	at(need(t, 5, 1, HD_LANE_API, HD_SPAN_API), 7 * US, 14 * US);
	hd_trace_free(t);
	/* room for one: the second launch waits until the first graph is done */
	p.stream_queue = 1;
	t = run_model(sc, &p);
	ck_assert_int_eq(need(t, 5, 1, HD_LANE_API, HD_SPAN_BLOCKED)->why, HD_WHY_QUEUE_FULL);
	at(need(t, 5, 1, HD_LANE_API, HD_SPAN_BLOCKED), 7 * US, 43 * US + p.sync_wake);
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

/* The same scenario and profile give the same trace; profile keys read back. */
START_TEST(deterministic_and_keys_read_back)
{
	struct hd_scenario *sc = lower(good, "g");
	struct hd_profile p = round_profile(), q;
	struct hd_trace *a = run_model(sc, &p), *b = run_model(sc, &p);
	struct hd_err e = { 0 };
	char *text;
	size_t i;

	ck_assert_uint_eq(a->nspans, b->nspans);
	for (i = 0; i < a->nspans; i++)
		ck_assert(memcmp(&a->spans[i], &b->spans[i], sizeof a->spans[i]) == 0);
	text = hd_profile_format(&p);
	ck_assert_ptr_nonnull(strstr(text, "api.graph_launch = 7 us"));
	ck_assert_ptr_nonnull(strstr(text, "gpu.graph_node = 1 us"));
	memset(&q, 0, sizeof q);
	ck_assert_int_eq(hd_profile_parse(text, "t", &q, &e), 0);
	ck_assert(hd_profile_equal(&p, &q));
	free(text);
	/* every built-in profile states both figures */
	for (i = 0; i < (size_t)hd_profile_builtin_count(); i++) {
		ck_assert(hd_profile_builtin((int)i)->api_graph_launch > 0);
		ck_assert(hd_profile_builtin((int)i)->graph_node > 0);
	}
	hd_trace_free(a);
	hd_trace_free(b);
	hd_scenario_free(sc);
}
END_TEST

/* Spans on lanes of kind lk of the ops labelled label. */
static int
count_label(const struct hd_scenario *sc, const struct hd_trace *t, const char *label,
	    enum hd_lane_kind lk)
{
	size_t i;
	int n = 0;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_op *op = &sc->ops[t->spans[i].op];

		n += op->label != NULL && strcmp(op->label, label) == 0 &&
		    t->lanes[t->spans[i].lane].kind == lk;
	}
	return n;
}

/*
 * An `if` on a loop index around a launch is decided at lowering, as
 * anywhere: of 4 iterations, 0 and 2 launch the graph, 1 and 3 run a kernel
 * beside it.  The first launch is the call [0, 7], its node [11, 21].
 */
START_TEST(if_around_a_launch)
{
	static const char text[] = HDR "scenario g\n"
				       "  stream s\n"
				       "  graph gr\n"
				       "    n: kernel spin 10us\n"
				       "  end\n"
				       "  repeat 4 as i\n"
				       "    if i % 2 == 0\n"
				       "      l: launch gr on s\n"
				       "    else\n"
				       "      k: kernel spin 10us on s\n"
				       "    end\n"
				       "  end\n"
				       "  sync s\n"
				       "end\n";
	struct hd_scenario *sc = lower(text, "g");
	struct hd_profile p = round_profile();
	struct hd_trace *t = run_model(sc, &p);
	int i, launches = 0;

	ck_assert_int_eq(sc->ops[0].kind, HD_OP_GRAPH);
	ck_assert_uint_eq(sc->ops[0].count, 1);
	for (i = 0; i < sc->nops; i++) {
		ck_assert_int_eq(sc->ops[i].cblock, 0); /* decided: no condition is left */
		if (sc->ops[i].kind == HD_OP_LAUNCH) {
			ck_assert_int_eq(sc->ops[i].graph, 0);
			launches++;
		}
	}
	ck_assert_int_ge(launches, 1);
	ck_assert_int_eq(count_label(sc, t, "l", HD_LANE_API), 2);
	ck_assert_int_eq(count_label(sc, t, "n", HD_LANE_COMPUTE), 2);
	ck_assert_int_eq(count_label(sc, t, "k", HD_LANE_COMPUTE), 2);
	at(need(t, 1, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL), 11 * US, 21 * US);
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

static Suite *
graph_suite(void)
{
	Suite *s = suite_create("graph");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, lowers_to_a_header_and_its_body);
	tcase_add_test(tc, refused_at_line_and_column);
	tcase_add_test(tc, node_limit_at_instantiation);
	tcase_add_test(tc, graph_of_three_launched_twice);
	tcase_add_test(tc, copy_node_then_kernel_node);
	tcase_add_test(tc, a_launch_is_one_queue_entry);
	tcase_add_test(tc, deterministic_and_keys_read_back);
	tcase_add_test(tc, if_around_a_launch);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(graph_suite());
}
