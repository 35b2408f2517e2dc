/*
 * check_ranks.c - one process per rank, against a fake GPU and a fake NCCL
 * (fake_cuda.c, fake_nccl.c).
 *
 * This program is its own rank worker: the coordinator execs /proc/self/exe
 * with HD_RANKS_WORKER_ARG, and main() hands that to the worker.  The suite
 * asserts that the IR crosses the wire exactly, that 2 and 4 ranks each send
 * back spans with their rank and the right op ids, that a killed rank, a
 * failing NCCL call, an asynchronous NCCL error, a hung rank and an
 * interrupt each end the run within a bounded time with a message naming
 * the rank (and the call), that the workers get NCCL_NVLS_ENABLE=0 unless
 * the user set it, that a pinned coordinator does not pin its ranks, and
 * that `hdsim --real` skips a scenario needing more GPUs than there are.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lang/lesson.h"
#include "real/fault.h"
#include "real/ranks.h"
#include "real/wire.h"
#include "render/report.h"
#include "run/backends.h"
#include "run/verify.h"
#include "tests/testutil.h"

static const char lesson_text[] =
    "hdsim 1\nlesson ranks\ntitle \"Ranks\"\n"
    "knob n 2 2 .. 8 \"ranks\"\n"
    "scenario ring \"a ring\"\n"
    "  ranks n\n"
    "  buffer d device 1MiB\n"
    "  buffer e device 1MiB\n"
    "  stream s\n"
    "  sum: allreduce d on s\n"
    "  repeat 2\n"
    "    pass: send d to rank + 1 on s\n"
    "    take: recv e from rank - 1 on s\n"
    "  end\n"
    "  rank 1\n"
    "    only1: kernel fill e on s\n"
    "  end\n"
    "  peer: copy d -> e@rank + 1 async on s\n"
    "  gath: allgather d on s\n"
    "  all: alltoall e on s\n"
    "  barrier\n"
    "  sync device\n"
    "end\n"
    "scenario one \"one GPU\"\n  buffer d device 1MiB\n  kernel fill d\n  sync device\nend\n";

static struct hd_lesson *
parse(void)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(lesson_text, sizeof lesson_text - 1, "ranks.hds", &e);

	ck_assert_msg(l != NULL, "%s: %s", e.where, e.msg);
	return l;
}

/* The ring scenario on n ranks. */
static struct hd_scenario *
ring(struct hd_lesson *l, int n)
{
	struct hd_err e = { 0 };
	double knobs[1] = { n };
	struct hd_scenario *sc = hd_lesson_instantiate(l, 0, knobs, &e);

	ck_assert_msg(sc != NULL, "%s", e.msg);
	ck_assert_int_eq(sc->nranks, n);
	return sc;
}

static int
op_index(const struct hd_scenario *sc, const char *label)
{
	int i;

	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].label != NULL && strcmp(sc->ops[i].label, label) == 0)
			return i;
	ck_abort_msg("no op labelled %s", label);
	return -1;
}

/* Every knob of the fakes, cleared; CK_FORK=no runs all tests in one process. */
static void
knobs(const char *devices)
{
	setenv("FAKE_CUDA_DEVICES", devices, 1);
	unsetenv("FAKE_NCCL_DIE");
	unsetenv("FAKE_NCCL_HANG");
	unsetenv("FAKE_NCCL_ASYNC");
	unsetenv("FAKE_NCCL_FAIL");
	unsetenv("FAKE_NCCL_EXPECT_NVLS");
	unsetenv("FAKE_NCCL_EXPECT_FREE");
	unsetenv("NCCL_NVLS_ENABLE");
	unsetenv("HDSIM_RANK_TIMEOUT");
}

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run the ring on n ranks; the trace, or NULL with e set. */
static struct hd_trace *
run_ring(int n, struct hd_err *e, double *took)
{
	struct hd_lesson *l = parse();
	struct hd_scenario *sc = ring(l, n);
	struct hd_run_opts ro = { .warmup = 1, .repeats = 3 };
	double t0 = seconds();
	struct hd_trace *t = hd_backend_trace(&hd_real_backend, sc, &ro, e);

	if (took != NULL)
		*took = seconds() - t0;
	hd_scenario_free(sc);
	hd_lesson_free(l);
	return t;
}

START_TEST(scenario_crosses_the_wire_exactly)
{
	struct hd_lesson *l = parse();
	struct hd_scenario *sc = ring(l, 4), *back;
	struct hd_wbuf a = { 0 }, b = { 0 };
	struct hd_rbuf r;
	struct hd_err e = { 0 };
	size_t cut;

	hd_wire_put_scenario(&a, sc);
	r = (struct hd_rbuf){ .p = a.p, .len = a.len };
	back = hd_wire_get_scenario(&r, &e);
	ck_assert_msg(back != NULL, "%s", e.msg);
	ck_assert_uint_eq(r.off, a.len);
	hd_wire_put_scenario(&b, back);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert(memcmp(a.p, b.p, a.len) == 0);
	ck_assert_str_eq(back->name, "ring");
	ck_assert_int_eq(back->nranks, 4);
	ck_assert_int_eq(back->nops, sc->nops);
	ck_assert_str_eq(back->ops[op_index(back, "pass")].label, "pass");
	ck_assert(back->ops[op_index(back, "pass")].peer_rel);
	ck_assert_uint_eq(back->ops[op_index(back, "sum")].bytes, 1 << 20);
	hd_scenario_free(back);
	/* Every cut-short message is refused, none crashes. */
	for (cut = 0; cut < a.len; cut += 1 + cut / 16) {
		r = (struct hd_rbuf){ .p = a.p, .len = cut };
		ck_assert_ptr_null(hd_wire_get_scenario(&r, &e));
	}
	ck_assert_ptr_nonnull(strstr(e.msg, "cut short"));
	hd_wbuf_free(&a);
	hd_wbuf_free(&b);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* Queues and host threads cross too: each rank runs its own. */
/* A rank's repeats cross the wire with its spans; two ranks' repeat i is
 * the later of the two; a message cut short in them is refused. */
START_TEST(repeats_cross_the_wire)
{
	struct hd_trace *a = hd_trace_new(), *back = hd_trace_new();
	struct hd_sink in = hd_trace_sink(a), out = hd_trace_sink(back);
	struct hd_span sp = { .lane = 0, .op = 0, .kind = HD_SPAN_API, .start = 0, .end = 9 };
	struct hd_wbuf w = { 0 };
	struct hd_rbuf r;
	struct hd_err e = { 0 };

	sp.lane = hd_trace_lane(a, HD_LANE_API, 0, 0, "CUDA API");
	sp.label = -1;
	hd_trace_add(a, &sp);
	in.repeat(in.ctx, 0, 10, 0);
	in.repeat(in.ctx, 2, 30, 0); /* repeat 1 comes later: 0 until then */
	in.repeat(in.ctx, 1, 20, 0);
	ck_assert_int_eq(a->nreps, 3);
	ck_assert_ptr_null(a->reps_bare);
	hd_wire_put_trace(&w, a);
	r = (struct hd_rbuf){ .p = w.p, .len = w.len };
	ck_assert_msg(hd_wire_get_trace(&r, &out, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(r.off, w.len);
	ck_assert_int_eq(back->nreps, 3);
	ck_assert_int_eq(back->reps[0], 10);
	ck_assert_int_eq(back->reps[1], 20);
	ck_assert_int_eq(back->reps[2], 30);
	ck_assert_ptr_null(back->reps_bare);
	/* another rank, later in repeat 1 and with a bare makespan */
	out.repeat(out.ctx, 1, 25, 7);
	out.repeat(out.ctx, 0, 5, 0);
	ck_assert_int_eq(back->reps[0], 10);
	ck_assert_int_eq(back->reps[1], 25);
	ck_assert_ptr_nonnull(back->reps_bare);
	ck_assert_int_eq(back->reps_bare[0], 0);
	ck_assert_int_eq(back->reps_bare[1], 7);
	/* out of range: not kept */
	out.repeat(out.ctx, -1, 5, 0);
	out.repeat(out.ctx, HD_TRACE_MAX_REPS, 5, 0);
	ck_assert_int_eq(back->nreps, 3);
	/* cut in the repeats */
	r = (struct hd_rbuf){ .p = w.p, .len = w.len - 5 };
	hd_trace_free(back);
	back = hd_trace_new();
	out = hd_trace_sink(back);
	ck_assert_int_eq(hd_wire_get_trace(&r, &out, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "cut short or garbled"));
	hd_wbuf_free(&w);
	hd_trace_free(a);
	hd_trace_free(back);
}
END_TEST

START_TEST(threads_cross_the_wire)
{
	static const char text[] = "hdsim 1\nlesson q\ntitle \"Q\"\n"
				   "scenario q\n  ranks 2\n  queue batches 3\n"
				   "  thread loader\n    host 1us\n    put batches\n  end\n"
				   "  get batches\nend\n";
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, sizeof text - 1, "q.hds", &e);
	struct hd_scenario *sc, *back;
	struct hd_wbuf a = { 0 }, b = { 0 };
	struct hd_rbuf r;

	ck_assert_msg(l != NULL, "%s", e.msg);
	sc = hd_lesson_instantiate(l, 0, NULL, &e);
	ck_assert_msg(sc != NULL, "%s", e.msg);
	hd_wire_put_scenario(&a, sc);
	r = (struct hd_rbuf){ .p = a.p, .len = a.len };
	back = hd_wire_get_scenario(&r, &e);
	ck_assert_msg(back != NULL, "%s", e.msg);
	hd_wire_put_scenario(&b, back);
	ck_assert(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
	ck_assert_int_eq(back->nqueues, 1);
	ck_assert_str_eq(back->queues[0].name, "batches");
	ck_assert_uint_eq(back->queues[0].depth, 3);
	ck_assert_int_eq(back->ops[0].kind, HD_OP_WORKERS);
	ck_assert_str_eq(back->ops[0].text, "loader");
	ck_assert_int_eq(back->ops[3].kind, HD_OP_GET);
	ck_assert_int_eq(back->ops[3].queue, 0);
	/* a queue deeper than the language allows is garbled, not trusted */
	back->queues[0].depth = 1u << 20;
	hd_wbuf_free(&b);
	memset(&b, 0, sizeof b);
	hd_wire_put_scenario(&b, back);
	hd_scenario_free(back);
	r = (struct hd_rbuf){ .p = b.p, .len = b.len };
	ck_assert_ptr_null(hd_wire_get_scenario(&r, &e));
	hd_wbuf_free(&a);
	hd_wbuf_free(&b);
	/* both ranks run their loader thread, on its own lane */
	{
		struct hd_run_opts ro = { .warmup = 1, .repeats = 3 };
		struct hd_trace *t;
		size_t i;
		int seen = 0;

		knobs("2");
		t = hd_backend_trace(&hd_real_backend, sc, &ro, &e);
		ck_assert_msg(t != NULL, "%s", e.msg);
		for (i = 0; i < t->nspans; i++) {
			const struct hd_lane *ln = &t->lanes[t->spans[i].lane];

			if (t->spans[i].op == 1 && ln->kind == HD_LANE_HOST && ln->index == 1 &&
			    strcmp(ln->name, "Thread loader") == 0)
				seen |= 1 << ln->rank;
		}
		ck_assert_int_eq(seen, 3);
		hd_trace_free(t);
	}
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* Spans of op `op` and kind `kind` on stream lanes of rank `rank`. */
static int
stream_spans(const struct hd_trace *t, int op, int rank, enum hd_span_kind kind)
{
	size_t i;
	int n = 0;

	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].op == op && t->lanes[t->spans[i].lane].rank == rank &&
		    t->lanes[t->spans[i].lane].kind == HD_LANE_STREAM && t->spans[i].kind == kind)
			n++;
	return n;
}

static void
check_ranks(int n)
{
	struct hd_lesson *l = parse();
	struct hd_scenario *sc = ring(l, n);
	struct hd_err e = { 0 };
	struct hd_trace *t;
	int r, lanes_of[8] = { 0 }, i, only1 = op_index(sc, "only1");
	double alg = 0, bus = 0;
	size_t k;

	knobs("4");
	t = run_ring(n, &e, NULL);
	ck_assert_msg(t != NULL, "%s", e.msg);
	for (i = 0; i < t->nlanes; i++) {
		ck_assert_int_ge(t->lanes[i].rank, 0);
		ck_assert_int_lt(t->lanes[i].rank, n);
		lanes_of[t->lanes[i].rank]++;
	}
	for (r = 0; r < n; r++) {
		ck_assert_int_gt(lanes_of[r], 0);
		ck_assert_int_eq(stream_spans(t, op_index(sc, "sum"), r, HD_SPAN_COMM), 1);
		ck_assert_int_eq(stream_spans(t, op_index(sc, "pass"), r, HD_SPAN_COMM), 2);
		ck_assert_int_eq(stream_spans(t, op_index(sc, "take"), r, HD_SPAN_COMM), 2);
		ck_assert_int_eq(stream_spans(t, op_index(sc, "gath"), r, HD_SPAN_COMM), 1);
		ck_assert_int_eq(stream_spans(t, op_index(sc, "all"), r, HD_SPAN_COMM), 1);
		ck_assert_int_eq(stream_spans(t, op_index(sc, "peer"), r, HD_SPAN_COPY), 1);
		ck_assert_int_eq(stream_spans(t, only1, r, HD_SPAN_KERNEL), r == 1);
	}
	for (k = 0; k < t->nspans; k++) {
		const struct hd_span *s = &t->spans[k];

		ck_assert_int_ge(s->op, 0);
		ck_assert_int_lt(s->op, sc->nops);
		ck_assert_int_le(s->start, s->end);
		ck_assert_int_ge(s->start, 0);
		/* one time base: every span within the run's makespan */
		ck_assert_int_le(s->end, t->makespan);
		ck_assert(s->label >= 0 && s->label < t->nstrings);
		if (s->op == op_index(sc, "sum") && t->lanes[s->lane].kind == HD_LANE_API)
			ck_assert_str_eq(t->strings[s->label], "sum");
	}
	/* The fake all-reduce runs below its 100 GB/s links: algBw under that,
	 * busBw the all-reduce's 2(n-1)/n of it. */
	ck_assert_int_eq(hd_run_coll_bw(sc, op_index(sc, "sum"), t, &alg, &bus), 0);
	ck_assert_msg(alg > 5e9 && alg < 100e9, "algBw %g", alg);
	ck_assert_double_eq_tol(bus, alg * 2.0 * (n - 1) / n, 1);
	/* each repeat's makespan came back from every rank: one per repeat, the
	 * latest rank's, reaching the trace's; no repeats without per-op events
	 * on several ranks */
	ck_assert_int_eq(t->nreps, 3);
	ck_assert_ptr_null(t->reps_bare);
	{
		hd_time top = 0;

		for (r = 0; r < t->nreps; r++) {
			ck_assert(t->reps[r] > 0);
			if (t->reps[r] > top)
				top = t->reps[r];
		}
		ck_assert(t->makespan <= top);
	}
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}

START_TEST(two_ranks_send_back_their_spans)
{
	check_ranks(2);
}
END_TEST

START_TEST(four_ranks_send_back_their_spans)
{
	check_ranks(4);
}
END_TEST

START_TEST(killed_rank_ends_the_run)
{
	struct hd_err e = { 0 };
	double took;

	knobs("4");
	setenv("FAKE_NCCL_DIE", "1", 1);
	setenv("HDSIM_RANK_TIMEOUT", "30", 1);
	ck_assert_ptr_null(run_ring(4, &e, &took));
	ck_assert_msg(strstr(e.msg, "rank 1 died (killed by signal 9") != NULL, "%s", e.msg);
	ck_assert_msg(strstr(e.msg, "while measuring") != NULL, "%s", e.msg);
	ck_assert_msg(took < 10, "took %.1f s", took);
}
END_TEST

START_TEST(failing_call_is_named)
{
	struct hd_err e = { 0 };

	knobs("4");
	setenv("FAKE_NCCL_FAIL", "2:ncclAllReduce", 1);
	ck_assert_ptr_null(run_ring(4, &e, NULL));
	ck_assert_msg(strstr(e.msg, "rank 2: ncclAllReduce failed: fake failure") != NULL, "%s",
		      e.msg);
	ck_assert_msg(strstr(e.msg, "scenario 'ring'") != NULL, "%s", e.msg);
}
END_TEST

/*
 * Every kind of NCCL call the ring makes, failed through the wrapper layer's
 * hook (real/fault.h) in one rank process after another: the run ends with
 * the call named, never a hang.
 */
START_TEST(every_nccl_call_fails_cleanly)
{
	static const char *const calls[] = {
		"ncclGetUniqueId", "ncclCommInitRank", "ncclAllReduce", "ncclSend",
		"ncclRecv",        "ncclGroupStart",   "ncclAllGather", "ncclGroupEnd",
	};
	size_t i;

	for (i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		struct hd_err e = { 0 };
		double took;

		knobs("2");
		setenv("HDSIM_FAULT", calls[i], 1);
		ck_assert_msg(run_ring(2, &e, &took) == NULL, "%s did not fail", calls[i]);
		ck_assert_msg(strstr(e.msg, calls[i]) != NULL && strstr(e.msg, "failed") != NULL,
			      "%s: %s", calls[i], e.msg);
		ck_assert_msg(took < 10, "%s: took %.1f s", calls[i], took);
		unsetenv("HDSIM_FAULT");
	}
	hd_fault_set("");
}
END_TEST

START_TEST(async_error_ends_the_run)
{
	struct hd_err e = { 0 };
	double took;

	knobs("2");
	setenv("FAKE_NCCL_ASYNC", "0", 1);
	setenv("HDSIM_RANK_TIMEOUT", "30", 1);
	ck_assert_ptr_null(run_ring(2, &e, &took));
	ck_assert_msg(strstr(e.msg,
			     "rank 0: NCCL reported an asynchronous error "
			     "(ncclCommGetAsyncError): remote process") != NULL,
		      "%s", e.msg);
	ck_assert_msg(took < 10, "took %.1f s", took);
}
END_TEST

START_TEST(hung_rank_times_out)
{
	struct hd_err e = { 0 };
	double took;

	knobs("4");
	setenv("FAKE_NCCL_HANG", "3", 1);
	setenv("HDSIM_RANK_TIMEOUT", "3", 1);
	ck_assert_ptr_null(run_ring(4, &e, &took));
	ck_assert_msg(strstr(e.msg, "no progress for 3 s: rank 3 (measuring)") != NULL, "%s",
		      e.msg);
	ck_assert_msg(took >= 3 && took < 12, "took %.1f s", took);
}
END_TEST

START_TEST(interrupt_ends_the_ranks)
{
	struct hd_lesson *l = parse();
	struct hd_scenario *sc = ring(l, 2);
	volatile int stop = 1;
	struct hd_run_opts ro = { .warmup = 1, .repeats = 3, .stop = &stop };
	struct hd_err e = { 0 };

	knobs("2");
	setenv("FAKE_NCCL_HANG", "0", 1); /* without the interrupt: no end */
	ck_assert_ptr_null(hd_backend_trace(&hd_real_backend, sc, &ro, &e));
	ck_assert_int_eq(e.status, 130);
	ck_assert_msg(strstr(e.msg, "interrupted while running scenario 'ring' on 2 ranks"), "%s",
		      e.msg);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

START_TEST(workers_get_nvls_off)
{
	struct hd_err e = { 0 };
	struct hd_trace *t;

	knobs("2");
	setenv("FAKE_NCCL_EXPECT_NVLS", "0", 1);
	t = run_ring(2, &e, NULL);
	ck_assert_msg(t != NULL, "%s", e.msg);
	hd_trace_free(t);
	/* A value the user set is kept. */
	setenv("NCCL_NVLS_ENABLE", "1", 1);
	setenv("FAKE_NCCL_EXPECT_NVLS", "1", 1);
	t = run_ring(2, &e, NULL);
	ck_assert_msg(t != NULL, "%s", e.msg);
	hd_trace_free(t);
	/* And the fake does notice a difference. */
	setenv("FAKE_NCCL_EXPECT_NVLS", "0", 1);
	ck_assert_ptr_null(run_ring(2, &e, NULL));
	ck_assert_msg(strstr(e.msg, "ncclCommInitRank failed") != NULL, "%s", e.msg);
	knobs("1");
}
END_TEST

/* A coordinator pinned to one CPU (as single-GPU runs pin it) does not pin
 * its ranks there too. */
START_TEST(ranks_are_not_pinned)
{
	cpu_set_t old, one;
	struct hd_err e = { 0 };
	struct hd_trace *t;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	knobs("2");
	setenv("FAKE_NCCL_EXPECT_FREE", "1", 1);
	ck_assert_int_eq(sched_getaffinity(0, sizeof old, &old), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
	t = run_ring(2, &e, NULL);
	ck_assert_int_eq(sched_setaffinity(0, sizeof old, &old), 0);
	ck_assert_msg(t != NULL, "%s", e.msg);
	hd_trace_free(t);
	knobs("1");
}
END_TEST

START_TEST(too_many_ranks_are_skipped)
{
	struct hd_lesson *l = parse();
	const struct hd_lesson *ls[1] = { l };
	struct hd_scenario *sc = ring(l, 4);
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_profile h100;
	struct hd_err e = { 0 };
	struct hd_buf out;
	char dir[64], why[256], *db;
	char *sets[] = { (char *)"n=4" };

	knobs("2");
	ck_assert_int_eq(hd_real_backend.fits(sc, why, sizeof why), 0);
	ck_assert_str_eq(why, "needs 4 GPUs; this machine has 2");
	hd_test_mkdtemp(dir, sizeof dir, "ranks");
	db = hd_xasprintf("%s/r.db", dir);
	ck_assert_int_eq(hd_profile_resolve("h100-sxm", &h100, &e), 0);
	memset(&o, 0, sizeof o);
	o.measured = &hd_real_backend;
	o.profile = &h100;
	o.db_path = db;
	o.sets = sets;
	o.nsets = 1;
	o.warmup = 1;
	o.repeats = 3;
	o.width = 100;
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(ls, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(res.scenarios_run, 1);
	ck_assert_int_eq(res.scenarios_skipped, 1);
	ck_assert_msg(strstr(out.s, "scenario ring needs 4 GPUs; this machine has 2: skipped"),
		      "%s", out.s);
	ck_assert_msg(strstr(out.s, "Skipped on this machine (1):\n  ranks/ring: needs 4 GPUs"),
		      "%s", out.s);
	ck_assert_int_eq(res.runs_stored, 2);
	/* the one-GPU scenario was also timed without per-op events, and that
	 * makespan is the one compared, the instrumented one beside it */
	ck_assert_msg(strstr(out.s,
			     "(timed with an event around every op, as in the table "
			     "below: "),
		      "%s", out.s);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	hd_test_rmtree(dir);
	free(db);
	hd_scenario_free(sc);
	hd_lesson_free(l);
	knobs("1");
}
END_TEST

static Suite *
ranks_suite(void)
{
	Suite *s = suite_create("ranks");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, scenario_crosses_the_wire_exactly);
	tcase_add_test(tc, threads_cross_the_wire);
	tcase_add_test(tc, repeats_cross_the_wire);
	tcase_add_test(tc, two_ranks_send_back_their_spans);
	tcase_add_test(tc, four_ranks_send_back_their_spans);
	tcase_add_test(tc, killed_rank_ends_the_run);
	tcase_add_test(tc, failing_call_is_named);
	tcase_add_test(tc, every_nccl_call_fails_cleanly);
	tcase_add_test(tc, async_error_ends_the_run);
	tcase_add_test(tc, hung_rank_times_out);
	tcase_add_test(tc, interrupt_ends_the_ranks);
	tcase_add_test(tc, workers_get_nvls_off);
	tcase_add_test(tc, ranks_are_not_pinned);
	tcase_add_test(tc, too_many_ranks_are_skipped);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], HD_RANKS_WORKER_ARG) == 0)
		return hd_ranks_worker_main(argc, argv);
	return hd_test_run(ranks_suite());
}
