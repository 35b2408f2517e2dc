/*
 * check_threads.c - host threads and queues (ir/threads.h) from the lesson
 * text to the model's trace: what the parser builds, and the exact traces
 * of small cases worked out by hand in the comments (a producer and a
 * consumer through queues of depth 1 and 2, four workers on two cores, the
 * threads' iteration numbers, deadlocks on a queue).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

#include "base/units.h"
#include "base/util.h"
#include "ir/ir.h"
#include "ir/opfacts.h"
#include "ir/threads.h"
#include "ir/trace.h"
#include "lang/lesson.h"
#include "profile/profile.h"
#include "run/run.h"
#include "sim/model.h"
#include "sim/sim_backend.h"

/* --- lessons, runs and traces as text ---------------------------------------------- */

static const char header[] = "hdsim 1\nlesson t\ntitle \"threads\"\n";

/* Parse header + body and instantiate its first scenario (knobs: defaults). */
static struct hd_scenario *
build(const char *body)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l;
	struct hd_scenario *sc;
	char *text = hd_xasprintf("%s%s", header, body);

	l = hd_lesson_parse(text, strlen(text), "t.hds", &e);
	ck_assert_msg(l != NULL, "%s: %s", e.where, e.msg);
	sc = hd_lesson_instantiate(l, 0, NULL, &e);
	ck_assert_msg(sc != NULL, "%s: %s", e.where, e.msg);
	hd_lesson_free(l);
	free(text);
	return sc;
}

/* The error of parsing (and instantiating) a lesson that must fail. */
static void
refused(const char *body, const char *where, const char *fragment)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l;
	struct hd_scenario *sc = NULL;
	char *text = hd_xasprintf("%s%s", header, body);

	l = hd_lesson_parse(text, strlen(text), "t.hds", &e);
	if (l != NULL) {
		sc = hd_lesson_instantiate(l, 0, NULL, &e);
		hd_lesson_free(l);
	}
	ck_assert_msg(sc == NULL, "accepted: %s", body);
	ck_assert_msg(strstr(e.where, where) != NULL, "where '%s', wanted '%s'", e.where, where);
	ck_assert_msg(strstr(e.msg, fragment) != NULL, "message '%s' lacks '%s'", e.msg, fragment);
	free(text);
}

static struct hd_profile
profile(int cores)
{
	struct hd_profile p;
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_profile_resolve("h100-sxm", &p, &e), 0);
	p.host_cores = cores;
	return p;
}

static struct hd_trace *
run(const struct hd_scenario *sc, int cores, int ok)
{
	struct hd_profile p = profile(cores);
	struct hd_trace *t = hd_trace_new();
	struct hd_sink sink = hd_trace_sink(t);
	struct hd_err e = { 0 };

	ck_assert_msg((hd_model_run(sc, &p, &sink, NULL, NULL, &e) == 0) == ok, "run: %s", e.msg);
	hd_trace_sort(t);
	return t;
}

/* A time in ms, as short as it is exact: "2", "2.5". */
static void
ms(struct hd_buf *b, hd_time t)
{
	hd_buf_printf(b, "%.9g", (double)t / (double)HD_MS);
}

/*
 * The spans of rank 0's lane `name`, in trace order, one word each:
 * H (host work), A (a call), B (blocked, with its reason); then op.iter and
 * start-end in ms.  "H2.0 0-1 A3.0 1-1 ..."
 */
static char *
lane_text(const struct hd_trace *t, const char *name)
{
	struct hd_buf b;
	size_t i;
	int lane = -1, l;

	for (l = 0; l < t->nlanes; l++)
		if (t->lanes[l].rank == 0 && strcmp(t->lanes[l].name, name) == 0)
			lane = l;
	ck_assert_msg(lane >= 0, "no lane '%s'", name);
	hd_buf_init(&b);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->lane != lane)
			continue;
		hd_buf_printf(&b, "%s%c%d.%u ", b.len > 0 ? " " : "",
			      s->kind == HD_SPAN_HOST        ? 'H' :
				  s->kind == HD_SPAN_API     ? 'A' :
				  s->kind == HD_SPAN_BLOCKED ? 'B' :
							       '?',
			      s->op, s->iter);
		ms(&b, s->start);
		hd_buf_putc(&b, '-');
		ms(&b, s->end);
		if (s->kind == HD_SPAN_BLOCKED)
			hd_buf_printf(&b, " %s", hd_why_name(s->why));
	}
	return b.s != NULL ? b.s : hd_xstrdup("");
}

static void
lane_is(const struct hd_trace *t, const char *name, const char *want)
{
	char *got = lane_text(t, name);

	ck_assert_msg(strcmp(got, want) == 0, "lane %s:\n  got  %s\n  want %s", name, got, want);
	free(got);
}

/* --- the parser --------------------------------------------------------------------------- */

START_TEST(parse_builds_threads_and_queues)
{
	struct hd_scenario *sc = build("knob depth 3 1 .. 8 \"batches in flight\"\n"
				       "scenario a\n"
				       "  buffer raw pageable 1MiB\n"
				       "  buffer pin pinned 1MiB\n"
				       "  queue batches depth\n"
				       "  queue ready 1\n"
				       "  loaders: workers 2\n"
				       "    repeat 3\n"
				       "      host 1ms \"decode\"\n"
				       "      put batches\n"
				       "    end\n"
				       "  end\n"
				       "  thread pinner\n"
				       "    get batches\n"
				       "    copy raw -> pin 512KiB\n"
				       "    put ready\n"
				       "  end\n"
				       "  workers 3\n"
				       "    host 1ms\n"
				       "  end\n"
				       "  get ready\n"
				       "end\n");
	struct hd_thread_info ti;
	char name[48];

	ck_assert_int_eq(sc->nqueues, 2);
	ck_assert_str_eq(sc->queues[0].name, "batches");
	ck_assert_uint_eq(sc->queues[0].depth, 3);
	ck_assert_uint_eq(sc->queues[1].depth, 1);
	/* workers, repeat, host, put | workers, get, copy, put | workers, host | get */
	ck_assert_int_eq(sc->nops, 11);
	ck_assert_int_eq(sc->ops[0].kind, HD_OP_WORKERS);
	ck_assert_uint_eq(sc->ops[0].count, 2);
	ck_assert_int_eq(sc->ops[0].body_len, 3);
	ck_assert_str_eq(sc->ops[0].label, "loaders");
	ck_assert_int_eq(sc->ops[3].kind, HD_OP_PUT);
	ck_assert_int_eq(sc->ops[3].queue, 0);
	ck_assert_int_eq(sc->ops[4].kind, HD_OP_WORKERS);
	ck_assert_uint_eq(sc->ops[4].count, 1);
	ck_assert_str_eq(sc->ops[4].text, "pinner");
	ck_assert_int_eq(sc->ops[5].kind, HD_OP_GET);
	ck_assert_int_eq(sc->ops[6].kind, HD_OP_COPY);
	ck_assert_int_eq(sc->ops[6].copy, HD_COPY_H2H);
	ck_assert_uint_eq(sc->ops[6].bytes, 512 * 1024);
	ck_assert_int_eq(sc->ops[7].queue, 1);
	ck_assert_int_eq(sc->ops[10].kind, HD_OP_GET);
	ck_assert_int_eq(sc->ops[10].queue, 1);
	/* threads 1 .. 6: two loaders, the pinner, three unnamed workers */
	ck_assert_int_eq(hd_threads_count(sc), 6);
	ck_assert_int_eq(hd_thread_info(sc, 2, &ti), 0);
	ck_assert(ti.op == 0 && ti.index == 1 && ti.n == 2);
	ck_assert_int_eq(hd_thread_info(sc, 6, &ti), 0);
	ck_assert(ti.op == 8 && ti.index == 2 && ti.n == 3);
	ck_assert_int_eq(hd_thread_info(sc, 7, &ti), -1);
	ck_assert_int_eq(hd_thread_info(sc, 0, &ti), -1);
	hd_thread_lane_name(sc, 2, name, sizeof name);
	ck_assert_str_eq(name, "loaders 1");
	hd_thread_lane_name(sc, 3, name, sizeof name);
	ck_assert_str_eq(name, "Thread pinner");
	hd_thread_lane_name(sc, 6, name, sizeof name);
	ck_assert_str_eq(name, "Worker 2");
	/* all at once, as one at a time */
	{
		struct hd_thread_info tab[8];
		char names[8][48];
		int k;

		ck_assert_int_eq(hd_threads_table(sc, tab, names, 8), 6);
		for (k = 1; k <= 6; k++) {
			ck_assert_int_eq(hd_thread_info(sc, k, &ti), 0);
			ck_assert(tab[k].op == ti.op && tab[k].index == ti.index &&
				  tab[k].n == ti.n);
			hd_thread_lane_name(sc, k, name, sizeof name);
			ck_assert_str_eq(names[k], name);
		}
		ck_assert_int_eq(hd_threads_table(sc, NULL, NULL, 0), 6);
	}
	/* the workers' bodies run once per thread: 1 + 2 * (1 + 3 * 2) + 1 + 3 + 1 + 3 * 1 + 1 */
	ck_assert_uint_eq(hd_scenario_op_instances(sc, 0), 24);
	ck_assert(hd_op_operands_ok(sc, &sc->ops[3]));
	ck_assert_uint_eq(hd_thread_iter(2, 1, 3), 7);
	hd_scenario_free(sc);
}
END_TEST

START_TEST(parse_refuses)
{
	refused("scenario a\n  queue q 2\n  put r\nend\n", "6:7", "no queue named 'r'");
	refused("scenario a\n  queue q 0\nend\n", "5:11", "a queue's depth must be from 1 to 4096");
	refused("scenario a\n  queue q 2.5\nend\n", "5:11", "must be a whole number");
	refused("scenario a\n  event q\n  queue q 1\nend\n", "6:9", "already declared as an event");
	refused("scenario a\n  ranks 2\n  queue q rank + 1\nend\n", "6:11", "cannot use 'rank'");
	refused("scenario a\n  workers 0\n    host 1ms\n  end\nend\n", "5:11",
		"the number of threads must be from 1 to 64");
	refused("scenario a\n  workers 2\n    host 1ms\n", "5:3",
		"'workers 2' opened here is never closed");
	refused("scenario a\n  thread t\n    thread u\n    end\n  end\nend\n", "6:5",
		"'thread' cannot run in a host thread");
	refused("scenario a\n  queue q 1\n  thread t\n    sync device\n  end\nend\n", "7:5",
		"'sync' cannot run in a host thread");
	refused("scenario a\n  buffer m managed 1MiB\n  buffer h pinned 1MiB\n  thread t\n"
		"    copy m -> h\n  end\nend\n",
		"8:5", "buffer m is managed memory");
	refused("scenario a\n  buffer h pinned 1MiB\n  buffer g pinned 1MiB\n  thread t\n"
		"    copy h -> g on default\n  end\nend\n",
		"8:17", "unexpected 'on'");
	refused("scenario a\n  workers 2\n    host 1ms\n  end\n  workers 63\n    host 1ms\n"
		"  end\nend\n",
		"8:3", "more than 64 host threads");
	refused("scenario a\n  ranks 2\n  rank 0\n    thread t\n    end\n  end\nend\n", "7:5",
		"belongs at the top of the scenario");
	refused("scenario a\n  queue q 1\n  l: queue r 1\nend\n", "6:3",
		"a label names an operation; 'queue' is not one");
	/* an `if` in a thread's body: its branches hold host work only too */
	refused("scenario a\n  thread t\n    repeat 2 as i\n      if i == 0\n        host 1ms\n"
		"      else\n        sync device\n      end\n    end\n  end\nend\n",
		"10:9", "'sync' cannot run in a host thread");
	refused("scenario a\n  repeat 2 as i\n    if i == 0\n      thread t\n      end\n    end\n"
		"  end\nend\n",
		"7:7", "belongs at the top of the scenario");
}
END_TEST

/* --- exact traces ------------------------------------------------------------------------ */

/* One producer and the main thread as consumer: the producer makes a batch
 * in 1 ms, the consumer uses one in 2 ms. */
static const char pc_text[] = "scenario pc\n"
			      "  queue q %d\n"
			      "  thread prod\n"  /* op 0 */
			      "    repeat 4\n"   /* op 1 */
			      "      host 1ms\n" /* op 2 */
			      "      put q\n"    /* op 3 */
			      "    end\n"
			      "  end\n"
			      "  repeat 4\n"   /* op 4 */
			      "    get q\n"    /* op 5 */
			      "    host 2ms\n" /* op 6 */
			      "  end\n"
			      "end\n";

/*
 * Depth 1.  0: the consumer waits; 1: the first batch goes straight to it
 * (blocked 0-1), it uses it 1-3; 2: the second waits in the queue; 3: both
 * finish work, the consumer first: it takes the second, the producer puts
 * the third; 4: the fourth finds the queue full and waits until the
 * consumer takes the third at 5; uses 5-7 and 7-9.
 */
START_TEST(producer_consumer_depth_1)
{
	char *body = hd_xasprintf(pc_text, 1);
	struct hd_scenario *sc = build(body);
	struct hd_trace *t = run(sc, 0, 1);

	lane_is(t, "Thread prod",
		"H2.0 0-1 H2.1 1-2 A3.0 1-1 H2.2 2-3 A3.1 2-2 H2.3 3-4 A3.2 3-3 A3.3 4-5 "
		"B3.3 4-5 queue-room");
	lane_is(t, "CUDA API", "A5.0 0-1 B5.0 0-1 queue-empty A5.1 3-3 A5.2 5-5 A5.3 7-7");
	lane_is(t, "Host thread", "H6.0 1-3 H6.1 3-5 H6.2 5-7 H6.3 7-9");
	ck_assert_int_eq(t->makespan, 9 * HD_MS);
	hd_trace_free(t);
	hd_scenario_free(sc);
	free(body);
}
END_TEST

/* Depth 2: the fourth batch fits beside the third; the producer is done at 4. */
START_TEST(producer_consumer_depth_2)
{
	char *body = hd_xasprintf(pc_text, 2);
	struct hd_scenario *sc = build(body);
	struct hd_trace *t = run(sc, 0, 1);
	hd_time blocked[HD_WHY__COUNT];

	lane_is(t, "Thread prod",
		"H2.0 0-1 H2.1 1-2 A3.0 1-1 H2.2 2-3 A3.1 2-2 H2.3 3-4 A3.2 3-3 A3.3 4-4");
	lane_is(t, "CUDA API", "A5.0 0-1 B5.0 0-1 queue-empty A5.1 3-3 A5.2 5-5 A5.3 7-7");
	lane_is(t, "Host thread", "H6.0 1-3 H6.1 3-5 H6.2 5-7 H6.3 7-9");
	/* blocked() is the main thread's: 1 ms waiting for data */
	hd_trace_blocked(t, blocked);
	ck_assert_int_eq(blocked[HD_WHY_DATA], HD_MS);
	ck_assert_int_eq(blocked[HD_WHY_ROOM], 0);
	hd_trace_free(t);
	hd_scenario_free(sc);
	free(body);
}
END_TEST

static const char share_text[] = "scenario share\n"
				 "  queue q 4\n"
				 "  workers 4\n"  /* op 0 */
				 "    host 4ms\n" /* op 1 */
				 "    put q\n"    /* op 2 */
				 "  end\n"
				 "  host 2ms\n" /* op 3 */
				 "  repeat 4\n" /* op 4 */
				 "    get q\n"  /* op 5 */
				 "  end\n"
				 "end\n";

/*
 * Four workers of 4 ms and the main thread's 2 ms on two cores: five busy
 * threads get 2/5 of a core each, so the main thread's work ends at 5 ms;
 * the workers then have 2 ms left and four threads get half a core: they
 * end at 9 ms.  The first put goes to the waiting main thread, the other
 * three queue up and it takes them at once.
 */
START_TEST(four_workers_on_two_cores)
{
	struct hd_scenario *sc = build(share_text);
	struct hd_trace *t = run(sc, 2, 1);
	char name[16];
	int w;

	for (w = 0; w < 4; w++) {
		char want[64];

		snprintf(name, sizeof name, "Worker %d", w);
		snprintf(want, sizeof want, "H1.%d 0-9 A2.%d 9-9", w, w);
		lane_is(t, name, want);
	}
	lane_is(t, "Host thread", "H3.0 0-5");
	lane_is(t, "CUDA API", "A5.0 5-9 B5.0 5-9 queue-empty A5.1 9-9 A5.2 9-9 A5.3 9-9");
	ck_assert_int_eq(t->makespan, 9 * HD_MS);
	hd_trace_free(t);
	/* four cores: five threads at 4/5 of a core, then the workers alone */
	t = run(sc, 4, 1);
	lane_is(t, "Host thread", "H3.0 0-2.5");
	lane_is(t, "Worker 3", "H1.3 0-4.5 A2.3 4.5-4.5");
	hd_trace_free(t);
	/* as many cores as threads (0: one per thread): nobody waits for a core */
	t = run(sc, 0, 1);
	lane_is(t, "Host thread", "H3.0 0-2");
	lane_is(t, "Worker 0", "H1.0 0-4 A2.0 4-4");
	ck_assert_int_eq(t->makespan, 4 * HD_MS);
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

static const char cond_text[] = "scenario cond\n"
				"  queue q 4\n"
				"  thread t\n" /* op 0 */
				"    repeat 4 as i\n"
				"      host 1ms\n"
				"      if i % 2 == 0\n"
				"        put q\n"
				"      else\n"
				"        host 500us\n"
				"      end\n"
				"    end\n"
				"  end\n"
				"  repeat 2\n"
				"    get q\n"
				"  end\n"
				"end\n";

/*
 * An `if` on a loop index inside a thread's body is decided when the
 * scenario is built, so the model's thread runs plain ops: iterations 0
 * and 2 put, 1 and 3 do half a millisecond more host work.  The loop is
 * built as repeat 2 { repeat 1 { host; put }  repeat 1 { host; host } }:
 * op 0 thread, 1 repeat 2, 2 repeat 1, 3 host, 4 put, 5 repeat 1, 6 host,
 * 7 host, then the main thread's 8 repeat 2, 9 get.  The thread puts at 1
 * and 3.5 ms; the main thread waits for each.
 */
START_TEST(condition_in_a_thread)
{
	struct hd_scenario *sc = build(cond_text);
	struct hd_trace *t = run(sc, 0, 1);
	int i, puts = 0;

	ck_assert_int_eq(sc->nops, 10);
	for (i = 0; i < sc->nops; i++) {
		ck_assert_int_eq(sc->ops[i].cblock, 0);
		puts += sc->ops[i].kind == HD_OP_PUT;
	}
	ck_assert_int_eq(puts, 1);
	ck_assert_int_eq(sc->ops[1].kind, HD_OP_REPEAT);
	ck_assert_int_eq(sc->ops[1].count, 2);
	ck_assert_int_eq(sc->ops[4].kind, HD_OP_PUT);
	lane_is(t, "Thread t",
		"H3.0 0-1 A4.0 1-1 H6.0 1-2 H7.0 2-2.5 H3.1 2.5-3.5 A4.1 3.5-3.5 H6.1 3.5-4.5 "
		"H7.1 4.5-5");
	lane_is(t, "CUDA API", "A9.0 0-1 B9.0 0-1 queue-empty A9.1 1-3.5 B9.1 1-3.5 queue-empty");
	ck_assert_int_eq(t->makespan, 5 * HD_MS);
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

/* A worker's executions are numbered j * n + i: thread i of n, its j-th. */
START_TEST(worker_iterations)
{
	struct hd_scenario *sc = build("scenario it\n"
				       "  workers 2\n"
				       "    repeat 3\n"
				       "      host 1ms\n"
				       "    end\n"
				       "  end\n"
				       "end\n");
	struct hd_trace *t = run(sc, 0, 1);

	lane_is(t, "Worker 0", "H2.0 0-1 H2.2 1-2 H2.4 2-3");
	lane_is(t, "Worker 1", "H2.1 0-1 H2.3 1-2 H2.5 2-3");
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

/* The same scenario, the same trace, bit for bit; and each rank its threads. */
START_TEST(deterministic_and_per_rank)
{
	struct hd_scenario *sc = build(share_text);
	struct hd_trace *a = run(sc, 3, 1), *b = run(sc, 3, 1);
	int l, hosts = 0;

	ck_assert_int_eq(hd_trace_cmp(a, b), 0);
	ck_assert_uint_eq(hd_trace_digest(a), hd_trace_digest(b));
	hd_trace_free(a);
	hd_trace_free(b);
	hd_scenario_free(sc);
	sc = build("scenario r\n  ranks 2\n  queue q 1\n  thread t\n    put q\n  end\n"
		   "  get q\nend\n");
	a = run(sc, 0, 1);
	for (l = 0; l < a->nlanes; l++)
		if (a->lanes[l].kind == HD_LANE_HOST && a->lanes[l].index == 1 &&
		    strcmp(a->lanes[l].name, "Thread t") == 0)
			hosts |= 1 << a->lanes[l].rank;
	ck_assert_int_eq(hosts, 3);
	hd_trace_free(a);
	hd_scenario_free(sc);
}
END_TEST

/* --- deadlocks ----------------------------------------------------------------------------- */

START_TEST(get_without_producer_is_a_deadlock)
{
	struct hd_scenario *sc = build("scenario d\n"
				       "  queue q 2\n"
				       "  queue r 1\n"
				       "  thread t\n"   /* op 0 */
				       "    repeat 2\n" /* op 1 */
				       "      put r\n"  /* op 2 */
				       "    end\n"
				       "  end\n"
				       "  host 1ms\n" /* op 3 */
				       "  get q\n"    /* op 4 */
				       "end\n");
	struct hd_profile p = profile(0);
	struct hd_trace *t = hd_trace_new();
	struct hd_sink sink = hd_trace_sink(t);
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_model_run(sc, &p, &sink, NULL, NULL, &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_FAIL);
	ck_assert_msg(strstr(e.msg, "deadlock at 1.00 ms: 1 of 1 ranks wait") != NULL, "%s", e.msg);
	ck_assert_msg(strstr(e.msg,
			     "rank 0: get (line 13) waits for an item of queue q, and no "
			     "statement puts into it") != NULL,
		      "%s", e.msg);
	ck_assert_msg(strstr(e.msg,
			     "Thread t: put (line 9) waits for room in queue r (1 of 1 "
			     "items), and no thread will get from it") != NULL,
		      "%s", e.msg);
	hd_trace_sort(t);
	/* the waits are drawn open up to the deadlock */
	lane_is(t, "Thread t", "A2.0 0-0 A2.1 0-1 B2.1 0-1 queue-room");
	lane_is(t, "CUDA API", "A4.0 1-1");
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

/* `expect deadlock`: the run succeeds with the report as its note; a queue
 * emptied by more gets than puts deadlocks the main thread after its threads end. */
START_TEST(expected_deadlock_on_a_queue)
{
	struct hd_scenario *sc = build("scenario d\n"
				       "  expect deadlock\n"
				       "  queue q 4\n"
				       "  workers 2\n"
				       "    put q\n"
				       "  end\n"
				       "  repeat 3\n"
				       "    get q\n"
				       "  end\n"
				       "end\n");
	struct hd_trace *t = run(sc, 0, 1);

	ck_assert_ptr_nonnull(t->note);
	ck_assert_msg(strstr(t->note,
			     "get (line 11) waits for an item of queue q, empty after 2 "
			     "puts, and no thread will put into it") != NULL,
		      "%s", t->note);
	hd_trace_free(t);
	hd_scenario_free(sc);
}
END_TEST

/* Claims read threads: a label on a workers block covers its body on every
 * thread; blocked() and call() are the main thread's. */
START_TEST(claims_on_threads)
{
	static const char text[] = "hdsim 1\nlesson t\ntitle \"t\"\n"
				   "scenario s\n"
				   "  queue q 4\n"
				   "  loaders: workers 2\n"
				   "    work: host 3ms\n"
				   "    put q\n"
				   "  end\n"
				   "  repeat 2\n"
				   "    take: get q\n"
				   "  end\n"
				   "end\n"
				   "claim \"a\" time(s.loaders) == 3ms within 0.1%\n"
				   "claim \"b\" time(s.work) == 3ms within 0.1%\n"
				   "claim \"c\" blocked(s) == 3ms within 0.1%\n"
				   "claim \"d\" call(s.take) == 3ms within 0.1%\n"
				   "claim \"e\" makespan(s) == 3ms within 0.1%\n";
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, sizeof text - 1, "t.hds", &e);
	struct hd_profile p = profile(0);
	struct hd_run r;
	int i;

	ck_assert_msg(l != NULL, "%s", e.msg);
	ck_assert_msg(hd_run_lesson(&r, l, 0, &p, &hd_sim_backend, NULL, 0, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(r.nclaims, 5);
	for (i = 0; i < r.nclaims; i++)
		ck_assert_msg(r.claims[i].status == 1, "claim %d: %s", i, r.claims[i].detail);
	hd_run_free(&r);
	hd_lesson_free(l);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("threads");
	TCase *tc = tcase_create("threads");

	tcase_add_test(tc, parse_builds_threads_and_queues);
	tcase_add_test(tc, parse_refuses);
	tcase_add_test(tc, producer_consumer_depth_1);
	tcase_add_test(tc, producer_consumer_depth_2);
	tcase_add_test(tc, four_workers_on_two_cores);
	tcase_add_test(tc, worker_iterations);
	tcase_add_test(tc, condition_in_a_thread);
	tcase_add_test(tc, deterministic_and_per_rank);
	tcase_add_test(tc, get_without_producer_is_a_deadlock);
	tcase_add_test(tc, expected_deadlock_on_a_queue);
	tcase_add_test(tc, claims_on_threads);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(suite());
}
