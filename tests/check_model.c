/*
 * check_model.c - the event engine, fluid sharing, traces and the
 * single-GPU model, on scenarios built by hand and a profile with round
 * numbers so expected times can be worked out in comments.
 *
 * Over 1,200 lines as one suite: its cases share the round-number profile
 * and the scenario builders above them, and each is a few lines of set-up
 * and an exact expected trace.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/testutil.h"

#include "base/units.h"
#include "base/util.h"
#include "ir/backend.h"
#include "ir/ir.h"
#include "ir/opfacts.h"
#include "ir/trace.h"
#include "profile/profile.h"
#include "run/backends.h"
#include "sim/engine.h"
#include "sim/flow.h"
#include "sim/model.h"

#define MiB (1024ULL * 1024ULL)

/* --- a profile with round numbers --------------------------------------------- */

static struct hd_profile
test_profile(void)
{
	struct hd_profile p;

	memset(&p, 0, sizeof p);
	strcpy(p.name, "test");
	p.h2d_bw = 50e9;
	p.d2h_bw = 50e9;
	p.bidir_bw = 80e9;
	p.copy_latency = 2 * HD_US;
	p.copy_engines = 2;
	p.host_memcpy_h2d_bw = 10e9;
	p.host_memcpy_d2h_bw = 10e9;
	p.staging_chunk = 4 * MiB;
	p.staging_buffers = 2;
	p.pin_bw = 10e9;
	p.mallochost_bw = 2e9;
	p.pin_base = 10 * HD_US;
	p.malloc_cost = 5 * HD_US;
	p.free_cost = 5 * HD_US;
	p.api_launch = 5 * HD_US;
	p.api_memcpy = 4 * HD_US;
	p.api_event = 2 * HD_US;
	p.api_wait = 2 * HD_US;
	p.api_sync = 1 * HD_US;
	p.sync_wake = 2 * HD_US;
	p.stream_queue = 1024;
	p.sms = 100;
	p.hbm_bw = 2e12;
	p.flops = 50e12;
	p.launch_latency = 3 * HD_US;
	p.kernel_overhead = 2 * HD_US;
	p.max_kernels = 128;
	p.d2d_bw = 1e12;
	p.um_page = 2 * MiB;
	p.um_fault = 20 * HD_US;
	p.um_fault_bw = 10e9;
	p.um_prefetch_bw = 40e9;
	return p;
}

/* --- building scenarios by hand -------------------------------------------- */

static struct hd_scenario *
sc_new(const char *name)
{
	struct hd_scenario *sc = hd_xcalloc(1, sizeof *sc);

	sc->name = hd_xstrdup(name);
	sc->title = hd_xstrdup(name);
	sc->nranks = 1;
	sc->streams = hd_xcalloc(64, sizeof *sc->streams);
	sc->streams[0].name = hd_xstrdup("default");
	sc->streams[1].name = hd_xstrdup("per-thread");
	sc->nstreams = 2;
	sc->buffers = hd_xcalloc(64, sizeof *sc->buffers);
	sc->events = hd_xcalloc(64, sizeof *sc->events);
	sc->ops = hd_xcalloc(256, sizeof *sc->ops);
	return sc;
}

static void
sc_free(struct hd_scenario *sc)
{
	int i;

	for (i = 0; i < sc->nstreams; i++)
		free(sc->streams[i].name);
	for (i = 0; i < sc->nbuffers; i++)
		free(sc->buffers[i].name);
	for (i = 0; i < sc->nevents; i++)
		free(sc->events[i].name);
	for (i = 0; i < sc->nops; i++)
		free(sc->ops[i].label);
	free(sc->streams);
	free(sc->buffers);
	free(sc->events);
	free(sc->ops);
	free(sc->name);
	free(sc->title);
	free(sc);
}

static int
sc_stream(struct hd_scenario *sc, const char *name, unsigned flags)
{
	sc->streams[sc->nstreams].name = hd_xstrdup(name);
	sc->streams[sc->nstreams].flags = flags;
	return sc->nstreams++;
}

static int
sc_buf(struct hd_scenario *sc, const char *name, enum hd_mem mem, uint64_t bytes)
{
	sc->buffers[sc->nbuffers].name = hd_xstrdup(name);
	sc->buffers[sc->nbuffers].mem = mem;
	sc->buffers[sc->nbuffers].bytes = bytes;
	return sc->nbuffers++;
}

static int
sc_event(struct hd_scenario *sc, const char *name)
{
	sc->events[sc->nevents].name = hd_xstrdup(name);
	sc->events[sc->nevents].timing = true;
	return sc->nevents++;
}

static struct hd_op *
sc_op(struct hd_scenario *sc, enum hd_op_kind kind, int stream)
{
	struct hd_op *op = &sc->ops[sc->nops++];

	memset(op, 0, sizeof *op);
	op->kind = kind;
	op->line = sc->nops;
	op->stream = stream;
	op->event = op->src = op->dst = op->peer = op->root = HD_NONE;
	return op;
}

static struct hd_op *
sc_copy(struct hd_scenario *sc, int stream, int src, int dst, bool async)
{
	struct hd_op *op = sc_op(sc, HD_OP_COPY, stream);

	op->src = src;
	op->dst = dst;
	op->async = async;
	op->bytes = sc->buffers[src].bytes;
	op->copy = sc->buffers[src].mem == HD_MEM_DEVICE ?
	    (sc->buffers[dst].mem == HD_MEM_DEVICE ? HD_COPY_D2D : HD_COPY_D2H) :
	    (sc->buffers[dst].mem == HD_MEM_DEVICE ? HD_COPY_H2D : HD_COPY_H2H);
	return op;
}

static struct hd_op *
sc_prefetch(struct hd_scenario *sc, int stream, int buf, bool to_device)
{
	struct hd_op *op = sc_op(sc, HD_OP_PREFETCH, stream);

	op->dst = buf;
	op->to_device = to_device;
	return op;
}

static struct hd_op *
sc_spin(struct hd_scenario *sc, int stream, hd_time d, uint32_t grid)
{
	struct hd_op *op = sc_op(sc, HD_OP_KERNEL, stream);

	op->kernel = HD_KERNEL_SPIN;
	op->duration = d;
	op->grid = grid;
	return op;
}

/* A memory kernel on buffer buf. */
static struct hd_op *
sc_kernel_mem(struct hd_scenario *sc, int stream, int buf)
{
	struct hd_op *op = sc_op(sc, HD_OP_KERNEL, stream);

	op->kernel = HD_KERNEL_MEMORY;
	op->src = op->dst = buf;
	return op;
}

/* --- running and looking at traces -------------------------------------------- */

static struct hd_trace *
run_p(const struct hd_scenario *sc, const struct hd_profile *p)
{
	struct hd_trace *t = hd_trace_new();
	struct hd_sink sink = hd_trace_sink(t);
	struct hd_err e;

	memset(&e, 0, sizeof e);
	if (hd_model_run(sc, p, &sink, NULL, NULL, &e) != 0)
		ck_abort_msg("run failed: %s", e.msg);
	hd_trace_sort(t);
	return t;
}

static struct hd_trace *
run(const struct hd_scenario *sc)
{
	struct hd_profile p = test_profile();

	return run_p(sc, &p);
}

/* The first span of (op, iter) on a lane of kind lk with span kind k. */
static const struct hd_span *
span_of(const struct hd_trace *t, int op, uint32_t iter, enum hd_lane_kind lk, enum hd_span_kind k)
{
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->op == op && s->iter == iter && s->kind == k && t->lanes[s->lane].kind == lk)
			return s;
	}
	return NULL;
}

/* How long op's span of kind k on a lane of kind lk lasted (iteration 0),
 * or -1 when it has none. */
static hd_time
span_len(const struct hd_trace *t, int op, enum hd_lane_kind lk, enum hd_span_kind k)
{
	const struct hd_span *f = span_of(t, op, 0, lk, k);

	return f != NULL ? f->end - f->start : -1;
}

static const struct hd_span *
need(const struct hd_trace *t, int op, uint32_t iter, enum hd_lane_kind lk, enum hd_span_kind k)
{
	const struct hd_span *s = span_of(t, op, iter, lk, k);

	ck_assert_msg(s != NULL, "no span kind %d on lane kind %d for op %d iter %u", k, lk, op,
		      iter);
	return s;
}

/* How long op's first call kept the host in the API. */
static hd_time
api_len(const struct hd_trace *t, int op)
{
	const struct hd_span *s = need(t, op, 0, HD_LANE_API, HD_SPAN_API);

	return s->end - s->start;
}

/* Op's API span is as long in t1 as in t0 but for `bytes` at `rate`: what
 * one profile figure, 0 in t0 and `rate` in t1, adds to it. */
static void
ck_api_more(const struct hd_trace *t0, const struct hd_trace *t1, int op, double bytes, double rate)
{
	hd_time more = api_len(t1, op) - api_len(t0, op);

	ck_assert_msg(more == hd_time_for_bytes(bytes, rate), "op %d: %lld ps more, not %lld", op,
		      (long long)more, (long long)hd_time_for_bytes(bytes, rate));
}

static int
count_kind(const struct hd_trace *t, enum hd_span_kind k)
{
	size_t i;
	int n = 0;

	for (i = 0; i < t->nspans; i++)
		n += t->spans[i].kind == k;
	return n;
}

/* --- engine and flows ----------------------------------------------------------- */

START_TEST(engine_order)
{
	struct hd_engine *e = hd_engine_new();
	struct hd_event_rec ev;
	hd_time last = -1;
	uint64_t lastseq = 0;
	int i, n = 0;

	/* times 0..9 scheduled backwards, with ties */
	for (i = 9; i >= 0; i--) {
		hd_engine_at(e, (hd_time)(i % 5), 1, (uint32_t)i, 0);
	}
	while (hd_engine_pop(e, &ev)) {
		ck_assert(ev.t >= last);
		if (ev.t == last)
			ck_assert(ev.seq > lastseq); /* ties in scheduling order */
		last = ev.t;
		lastseq = ev.seq;
		ck_assert_int_eq(hd_engine_now(e), ev.t);
		n++;
	}
	ck_assert_int_eq(n, 10);
	ck_assert_uint_eq(hd_engine_events(e), 10);
	ck_assert_uint_eq(hd_engine_peak(e), 10);
	ck_assert_uint_eq(hd_engine_pending(e), 0);
	hd_engine_free(e);
}
END_TEST

START_TEST(flow_maxmin)
{
	struct hd_flownet *n = hd_flow_new();
	int a = hd_flow_resource(n, 100.0), b = hd_flow_resource(n, 30.0);
	int ra[1] = { a }, rab[2] = { a, b };
	int f1, f2, f3;
	uint64_t tag;

	/* f1 on a alone, f2 on a and b, f3 on a with its own cap 10:
	 * f3 is frozen at 10 first; b holds f2 to 30; f1 takes the other
	 * 60 of a */
	f1 = hd_flow_start(n, 0, 600, 0, ra, 1, 1);
	f2 = hd_flow_start(n, 0, 600, 0, rab, 2, 2);
	f3 = hd_flow_start(n, 0, 600, 10, ra, 1, 3);
	ck_assert(hd_flow_rate(n, f3) == 10.0);
	ck_assert(hd_flow_rate(n, f2) == 30.0);
	ck_assert(hd_flow_rate(n, f1) == 60.0);
	/* 600 B at 60 B/s: 10 s */
	ck_assert_int_eq(hd_flow_next(n), 10 * HD_S);
	ck_assert_int_eq(hd_flow_done(n, 10 * HD_S, &tag), 1);
	ck_assert_uint_eq(tag, 1);
	ck_assert_int_eq(hd_flow_done(n, 10 * HD_S, &tag), 0);
	ck_assert_int_eq(hd_flow_active(n), 2);
	/* f2 is still held by b: its other 300 B take 10 s more */
	ck_assert(hd_flow_rate(n, f2) == 30.0);
	ck_assert_int_eq(hd_flow_next(n), 20 * HD_S);
	ck_assert_int_eq(hd_flow_done(n, 20 * HD_S, &tag), 1);
	ck_assert_uint_eq(tag, 2);
	ck_assert_int_eq(hd_flow_done(n, 20 * HD_S, &tag), 0);
	/* alone now, f3 is still capped at 10: 400 B left, 40 s */
	ck_assert(hd_flow_rate(n, f3) == 10.0);
	ck_assert_int_eq(hd_flow_next(n), 60 * HD_S);
	hd_flow_free(n);
}
END_TEST

/* --- 1: one pinned copy, exactly ------------------------------------------------- */

START_TEST(exact_pinned_copy)
{
	struct hd_scenario *sc = sc_new("exact");
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 64 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 64 * MiB);
	struct hd_trace *t;
	const struct hd_span *s;

	sc_copy(sc, 0, h, d, true);      /* op 0 */
	sc_op(sc, HD_OP_STREAM_SYNC, 0); /* op 1 */
	t = run(sc);
	/*
	 * op 0, cudaMemcpyAsync: API span [0, api_memcpy = 4 us].  The copy is
	 * submitted at 4 us and the engine takes it at once: CE and stream
	 * spans start at 4 us.  copy_latency 2 us, so bytes move from 6 us:
	 * 67108864 B at 50e9 B/s = 1342177.28 ns = 1342177280 ps exactly (the
	 * flow rounds up to a whole ps, ignoring < 0.001 ps of noise).
	 * Wire span [6000000, 1348177280]; CE and stream [4000000, 1348177280].
	 * op 1, cudaStreamSynchronize from 4 us: blocked until the copy ends,
	 * then sync_wake 2 us: blocked and API spans [4000000, 1350177280].
	 */
	s = need(t, 0, 0, HD_LANE_API, HD_SPAN_API);
	ck_assert_int_eq(s->start, 0);
	ck_assert_int_eq(s->end, 4000000);
	s = need(t, 0, 0, HD_LANE_CE_H2D, HD_SPAN_COPY);
	ck_assert_int_eq(s->start, 4000000);
	ck_assert_int_eq(s->end, 1348177280);
	ck_assert_uint_eq(s->bytes, 64 * MiB);
	s = need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_COPY);
	ck_assert_int_eq(s->start, 4000000);
	ck_assert_int_eq(s->end, 1348177280);
	ck_assert_uint_eq(s->bytes, 64 * MiB);
	s = need(t, 0, 0, HD_LANE_PCIE_H2D, HD_SPAN_COPY);
	ck_assert_int_eq(s->start, 6000000);
	ck_assert_int_eq(s->end, 1348177280);
	s = need(t, 1, 0, HD_LANE_API, HD_SPAN_BLOCKED);
	ck_assert_int_eq(s->why, HD_WHY_STREAM_SYNC);
	ck_assert_int_eq(s->start, 4000000);
	ck_assert_int_eq(s->end, 1350177280);
	s = need(t, 1, 0, HD_LANE_API, HD_SPAN_API);
	ck_assert_int_eq(s->start, 4000000);
	ck_assert_int_eq(s->end, 1350177280);
	ck_assert_int_eq(t->makespan, 1350177280);
	ck_assert_str_eq(t->lanes[0].name, "Host thread");
	ck_assert_str_eq(t->lanes[1].name, "CUDA API");
	ck_assert_str_eq(t->lanes[2].name, "Stream 0 (default)");
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* --- 2: pinned beats pageable ------------------------------------------------------ */

static hd_time
copy_makespan(enum hd_mem host_mem, bool async)
{
	struct hd_scenario *sc = sc_new("copy");
	int h = sc_buf(sc, "h", host_mem, 256 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 256 * MiB);
	struct hd_trace *t;
	hd_time ms;

	sc_copy(sc, 0, h, d, async);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	ms = t->makespan;
	if (host_mem == HD_MEM_PAGEABLE) {
		/* staging shows on the host, the call is blocked as pageable */
		ck_assert_int_eq(count_kind(t, HD_SPAN_STAGING), 64);
		ck_assert(span_of(t, 0, 0, HD_LANE_API, HD_SPAN_BLOCKED) != NULL);
		ck_assert_int_eq(need(t, 0, 0, HD_LANE_API, HD_SPAN_BLOCKED)->why, HD_WHY_PAGEABLE);
	}
	hd_trace_free(t);
	sc_free(sc);
	return ms;
}

START_TEST(pinned_beats_pageable)
{
	hd_time pinned = copy_makespan(HD_MEM_PINNED, false);
	hd_time pageable = copy_makespan(HD_MEM_PAGEABLE, false);
	hd_time pageable_async = copy_makespan(HD_MEM_PAGEABLE, true);

	/* 256 MiB: pinned ~5.4 ms at 50 GB/s; pageable is bound by the 10 GB/s
	 * CPU memcpy into staging, ~27 ms */
	ck_assert_msg(pinned * 3 < pageable, "pinned %lld pageable %lld", (long long)pinned,
		      (long long)pageable);
	ck_assert_int_eq(pageable_async, pageable);
}
END_TEST

/* --- 3: two streams overlap copies and kernels ------------------------------------ */

static hd_time
pipeline_makespan(int two)
{
	struct hd_scenario *sc = sc_new("pipe");
	int s1 = sc_stream(sc, "s1", 0), s2 = sc_stream(sc, "s2", 0);
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 64 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 64 * MiB);
	struct hd_trace *t;
	hd_time ms;
	int i;

	for (i = 0; i < 2; i++) {
		int s = two && i == 1 ? s2 : s1;

		sc_copy(sc, s, h, d, true);
		sc_spin(sc, s, HD_MS, 0);
	}
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	ms = t->makespan;
	hd_trace_free(t);
	sc_free(sc);
	return ms;
}

START_TEST(two_streams_overlap)
{
	hd_time one = pipeline_makespan(0), two = pipeline_makespan(1);

	/* one stream: copy, kernel, copy, kernel ~ 4.7 ms; two: the second
	 * copy hides under the first kernel, ~3.7 ms */
	ck_assert_msg(two + 900 * HD_US < one, "one %lld two %lld", (long long)one, (long long)two);
}
END_TEST

/* --- 4: the legacy default stream ------------------------------------------------------ */

static void
legacy_case(unsigned flags, int expect_serial)
{
	struct hd_scenario *sc = sc_new("legacy");
	int s = sc_stream(sc, "s", flags);
	const struct hd_span *k1, *k2, *k3;
	struct hd_trace *t;

	sc_spin(sc, s, 100 * HD_US, 1); /* op 0: k1 on s */
	sc_spin(sc, 0, 100 * HD_US, 1); /* op 1: k2 on the legacy stream */
	sc_spin(sc, s, 100 * HD_US, 1); /* op 2: k3 on s */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	k1 = need(t, 0, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	k2 = need(t, 1, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	k3 = need(t, 2, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	if (expect_serial) {
		ck_assert_int_ge(k2->start, k1->end);
		ck_assert_int_ge(k3->start, k2->end);
	} else {
		/* k2 launched 5 us after k1 starts: it runs beside k1 */
		ck_assert_int_lt(k2->start, k1->end);
		ck_assert_int_lt(k3->start, k2->end);
	}
	hd_trace_free(t);
	sc_free(sc);
}

START_TEST(legacy_stream)
{
	legacy_case(0, 1);
	legacy_case(HD_STREAM_NONBLOCKING, 0);
}
END_TEST

/* --- 5: events order work across streams ---------------------------------------------- */

static void
event_case(int with_wait, hd_time *a_end, hd_time *b_start)
{
	struct hd_scenario *sc = sc_new("event");
	int s1 = sc_stream(sc, "s1", HD_STREAM_NONBLOCKING);
	int s2 = sc_stream(sc, "s2", HD_STREAM_NONBLOCKING);
	int e = sc_event(sc, "e");
	struct hd_trace *t;
	struct hd_op *op;

	sc_spin(sc, s1, 500 * HD_US, 1);  /* op 0: A */
	op = sc_op(sc, HD_OP_RECORD, s1); /* op 1 */
	op->event = e;
	op = sc_op(sc, with_wait ? HD_OP_WAIT : HD_OP_EVENT_QUERY, s2); /* op 2 */
	op->event = e;
	sc_spin(sc, s2, 10 * HD_US, 1); /* op 3: B */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	*a_end = need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_KERNEL)->end;
	*b_start = need(t, 3, 0, HD_LANE_STREAM, HD_SPAN_KERNEL)->start;
	ck_assert(span_of(t, 1, 0, HD_LANE_STREAM, HD_SPAN_EVENT) != NULL);
	if (with_wait)
		ck_assert(span_of(t, 2, 0, HD_LANE_STREAM, HD_SPAN_WAIT) != NULL);
	hd_trace_free(t);
	sc_free(sc);
}

START_TEST(event_wait_orders)
{
	hd_time a_end, b_start;

	event_case(1, &a_end, &b_start);
	ck_assert_int_ge(b_start, a_end);
	event_case(0, &a_end, &b_start);
	ck_assert_int_lt(b_start, a_end);
}
END_TEST

/* --- 6: the host blocks --------------------------------------------------------------- */

/*
 * A 1 ms kernel on blocking stream s, then `kind`, then host work.  The
 * blocking op must show a blocked span with `why`, and the host work must
 * start after the kernel ends plus sync_wake.
 */
static void
block_case(enum hd_op_kind kind, enum hd_why why)
{
	struct hd_scenario *sc = sc_new("block");
	int s = sc_stream(sc, "s", 0);
	int e = sc_event(sc, "e");
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 4 * MiB);
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 4 * MiB);
	const struct hd_span *k, *b, *w;
	struct hd_trace *t;
	struct hd_op *op;
	int bop;

	sc_spin(sc, s, HD_MS, 0);        /* op 0 */
	op = sc_op(sc, HD_OP_RECORD, s); /* op 1 */
	op->event = e;
	if (kind == HD_OP_COPY) {
		op = sc_copy(sc, 0, d, h, false); /* legacy stream waits for s */
	} else if (kind == HD_OP_READ) {
		op = sc_op(sc, HD_OP_READ, 0);
		op->src = d;
		op->bytes = 4;
	} else {
		op = sc_op(sc, kind, s);
		op->event = e;
	}
	bop = sc->nops - 1;
	op = sc_op(sc, HD_OP_HOST, 0);
	op->duration = 10 * HD_US;
	t = run(sc);
	k = need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_KERNEL);
	b = need(t, bop, 0, HD_LANE_API, HD_SPAN_BLOCKED);
	w = need(t, bop + 1, 0, HD_LANE_HOST, HD_SPAN_HOST);
	ck_assert_int_eq(b->why, why);
	ck_assert_int_ge(b->end, k->end + 2 * HD_US);
	ck_assert_int_ge(w->start, k->end + 2 * HD_US);
	ck_assert_int_ge(w->start, b->end);
	if (kind == HD_OP_COPY) {
		const struct hd_span *c = need(t, bop, 0, HD_LANE_STREAM, HD_SPAN_COPY);

		ck_assert_int_ge(c->start, k->end);
		ck_assert_int_ge(w->start, c->end + 2 * HD_US);
	}
	hd_trace_free(t);
	sc_free(sc);
}

START_TEST(host_blocks)
{
	hd_time blocked[HD_WHY__COUNT];
	struct hd_scenario *sc;
	struct hd_trace *t;
	int s;

	block_case(HD_OP_STREAM_SYNC, HD_WHY_STREAM_SYNC);
	block_case(HD_OP_EVENT_SYNC, HD_WHY_EVENT_SYNC);
	block_case(HD_OP_DEVICE_SYNC, HD_WHY_DEVICE_SYNC);
	block_case(HD_OP_COPY, HD_WHY_SYNC_COPY);
	block_case(HD_OP_READ, HD_WHY_READ);

	/* hd_trace_blocked adds the blocked time up by reason */
	sc = sc_new("sum");
	s = sc_stream(sc, "s", 0);
	sc_spin(sc, s, HD_MS, 0);
	sc_op(sc, HD_OP_STREAM_SYNC, s);
	t = run(sc);
	hd_trace_blocked(t, blocked);
	/* launch 5 us; the kernel starts at 5 + 3 (launch latency) and ends at
	 * 1010 us (1 ms and 2 of overhead); the sync blocks from 5 us to 1010 +
	 * 2 (wake) us */
	ck_assert_int_eq(blocked[HD_WHY_STREAM_SYNC], 1007 * HD_US);
	ck_assert_int_eq(blocked[HD_WHY_DEVICE_SYNC], 0);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* cudaMallocHost allocates fresh pages: slower than registering touched ones */
START_TEST(pinned_alloc_vs_register)
{
	struct hd_scenario *sc = sc_new("pin");
	struct hd_profile p = test_profile();
	int a = sc_buf(sc, "a", HD_MEM_PINNED, 64 * MiB);
	int b = sc_buf(sc, "b", HD_MEM_PAGEABLE, 64 * MiB);
	struct hd_trace *t;
	struct hd_op_time oa, ob;

	sc_op(sc, HD_OP_ALLOC, 0)->dst = a;
	sc_op(sc, HD_OP_PIN, 0)->dst = b;
	t = run(sc);
	oa = hd_trace_op_time(t, 0);
	ob = hd_trace_op_time(t, 1);
	/* the first 2 MiB come with the fixed part */
	ck_assert_int_eq(oa.end - oa.start,
			 p.pin_base + hd_time_for_bytes(62.0 * MiB, p.mallochost_bw));
	ck_assert_int_eq(ob.end - ob.start, p.pin_base + hd_time_for_bytes(64.0 * MiB, p.pin_bw));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* Rounds of cudaMallocHost and cudaFreeHost of small buffer `p`: beside
 * another small pinned buffer the driver's heap stays alive and each costs
 * microseconds (api.malloc_small, api.free_small); alone, or past
 * HD_ALLOC_SMALL, the fixed costs and the pages' bytes. */
static void
heap_round(uint64_t bytes, int beside, hd_time *alloc, hd_time *freed)
{
	struct hd_scenario *sc = sc_new("heap");
	struct hd_profile p = test_profile();
	int b = sc_buf(sc, "p", HD_MEM_PINNED, bytes), k;
	struct hd_trace *t;
	struct hd_op_time oa, of;

	if (beside)
		sc_buf(sc, "k", HD_MEM_PINNED, 4096);
	for (k = 0; k < 2; k++) {
		sc_op(sc, HD_OP_ALLOC, 0)->dst = b;
		sc_op(sc, HD_OP_FREE, 0)->dst = b;
	}
	p.malloc_small = 3 * HD_US;
	p.free_small = 2 * HD_US;
	p.mallochost_base = HD_MS;
	p.freehost_cost = 300 * HD_US;
	t = run_p(sc, &p);
	oa = hd_trace_op_time(t, 2); /* the second round */
	of = hd_trace_op_time(t, 3);
	ck_assert(oa.found && of.found);
	*alloc = oa.end - oa.start;
	*freed = of.end - of.start;
	hd_trace_free(t);
	sc_free(sc);
}

START_TEST(small_pinned_heap)
{
	hd_time a, f;

	heap_round(4096, 1, &a, &f);
	ck_assert_int_eq(a, 3 * HD_US);
	ck_assert_int_eq(f, 2 * HD_US);
	heap_round(4096, 0, &a, &f);
	ck_assert_int_eq(a, HD_MS);
	ck_assert_int_eq(f, 300 * HD_US);
	/* 4 MiB maps pages of its own, beside a small buffer or not */
	heap_round(4 * MiB, 1, &a, &f);
	ck_assert_int_eq(a, HD_MS + hd_time_for_bytes(2.0 * MiB, 2e9));
	ck_assert_int_eq(f, 300 * HD_US);
}
END_TEST

/* A kernel's time on the compute lane. */
static hd_time
kernel_time(const struct hd_scenario *sc, const struct hd_profile *p, int op)
{
	struct hd_trace *t = run_p(sc, p);
	struct hd_op_time ot = hd_trace_op_time(t, op);
	const struct hd_span *k = NULL;
	size_t i;
	hd_time d;

	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].op == op && t->spans[i].kind == HD_SPAN_KERNEL)
			k = &t->spans[i];
	ck_assert_ptr_nonnull(k);
	ck_assert(ot.found);
	d = k->end - k->start;
	hd_trace_free(t);
	return d;
}

/* A memory kernel on 256 MiB and a second kernel of `second_kind` on the
 * same buffer or another, launched back to back on two streams or one:
 * from the first's start to the last's end on the compute lane, and the
 * second's own span. */
static hd_time
two_kernels_of(int same_buf, int same_stream, enum hd_kernel_kind second_kind, hd_time *second)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("two");
	int s1 = sc_stream(sc, "s1", 0), s2 = same_stream ? s1 : sc_stream(sc, "s2", 0);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 256 * MiB);
	int e = same_buf ? d : sc_buf(sc, "e", HD_MEM_DEVICE, 256 * MiB);
	const struct hd_span *a, *b;
	struct hd_trace *t;
	hd_time span;

	sc_kernel_mem(sc, s1, d);
	sc_kernel_mem(sc, s2, e)->kernel = second_kind;
	t = run_p(sc, &p);
	a = need(t, 0, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	b = need(t, 1, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	span = (a->end > b->end ? a->end : b->end) - (a->start < b->start ? a->start : b->start);
	*second = b->end - b->start;
	hd_trace_free(t);
	sc_free(sc);
	return span;
}

/* Two full grids of memory traffic on two streams run side by side and
 * share the HBM: on two buffers the pair takes as long as one after the
 * other; on one buffer the second reads much of it from the L2 while the
 * first brings it in and demands 35 % of the HBM it would alone, so the
 * pair takes about 1.35 times one (two on one buffer took 1.15-1.63 times
 * one on lent H100s, on two 1.56-1.98: bench/probe/hot.hds).  On one
 * stream the second waits for the first; a reduce beside a memory kernel
 * on one buffer shares nothing (heldout14 002 on a lent H200). */
START_TEST(kernels_share_a_buffer_read)
{
	hd_time one = test_profile().kernel_overhead + hd_time_for_bytes(256.0 * MiB, 2e12), b,
		span;

	span = two_kernels_of(0, 0, HD_KERNEL_MEMORY, &b);
	ck_assert_msg(llabs(span - 2 * one) < HD_US, "two buffers: %lld ps, one alone %lld ps",
		      (long long)span, (long long)one);
	ck_assert(b > one); /* it ran beside the first, slower */
	span = two_kernels_of(1, 1, HD_KERNEL_MEMORY, &b);
	ck_assert_int_eq(b, one);
	ck_assert(span >= 2 * one);
	span = two_kernels_of(1, 0, HD_KERNEL_MEMORY, &b);
	ck_assert_msg(span > (hd_time)(1.3 * (double)one) && span < (hd_time)(1.4 * (double)one),
		      "one buffer: %lld ps, one alone %lld ps", (long long)span, (long long)one);
	/* a reduce reads the whole buffer, the memory kernel half of it: no
	 * sharing between kinds */
	span = two_kernels_of(1, 0, HD_KERNEL_REDUCE, &b);
	ck_assert_msg(llabs(span - 2 * one) < HD_US, "a reduce beside a memory kernel: %lld ps",
		      (long long)span);
}
END_TEST

/* A grid smaller than the GPU runs slower: compute kernels by the SMs their
 * blocks reach (in waves past one block an SM), memory-bound ones by what
 * each block draws, bent towards gpu.hbm; a full grid runs at the profile's
 * rates. */
START_TEST(kernel_grid_rates)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("grid");
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 256 * MiB);
	struct hd_op *op = sc_op(sc, HD_OP_KERNEL, 0);
	hd_time full, one, half, waves, m_full, m_8, m_400;
	double rate8, full_rate;

	op->kernel = HD_KERNEL_COMPUTE;
	op->flops = 1e12;
	full = kernel_time(sc, &p, 0);
	ck_assert_int_eq(full, p.kernel_overhead + hd_time_for_bytes(1e12, p.flops));
	op->grid = 1; /* one SM of 100 */
	one = kernel_time(sc, &p, 0);
	ck_assert_int_eq(one, p.kernel_overhead + hd_time_for_bytes(1e12, p.flops / 100));
	op->grid = 50;
	half = kernel_time(sc, &p, 0);
	ck_assert_int_eq(half, p.kernel_overhead + hd_time_for_bytes(1e12, p.flops / 2));
	op->grid = 150; /* two waves on 100 SMs: 150 of 200 slots busy */
	waves = kernel_time(sc, &p, 0);
	ck_assert_int_eq(waves, p.kernel_overhead + hd_time_for_bytes(1e12, p.flops * 0.75));

	op->kernel = HD_KERNEL_MEMORY;
	op->src = d;
	op->grid = 0;
	p.block_memory_bw = 20e9;
	m_full = kernel_time(sc, &p, 0);
	ck_assert_int_eq(m_full, p.kernel_overhead + hd_time_for_bytes(256.0 * MiB, p.hbm_bw));
	op->grid = 8;
	m_8 = kernel_time(sc, &p, 0);
	rate8 = 256.0 * MiB / hd_time_to_s(m_8 - p.kernel_overhead);
	/* below both what 8 blocks draw and the GPU's rate, within a percent of
	 * the generalised mean */
	ck_assert(rate8 < 8 * 20e9 && rate8 < p.hbm_bw);
	full_rate = pow(pow(p.hbm_bw, -1.5) - pow(400 * 20e9, -1.5) + pow(8 * 20e9, -1.5),
			-1 / 1.5);
	ck_assert(fabs(rate8 - full_rate) / full_rate < 0.01);
	op->grid = 400; /* four blocks an SM: the full grid's rate */
	m_400 = kernel_time(sc, &p, 0);
	ck_assert_int_eq(m_400, m_full);
	/* no per-block figure (an older calibrated profile): the grid is ignored */
	p.block_memory_bw = 0;
	op->grid = 8;
	ck_assert_int_eq(kernel_time(sc, &p, 0), m_full);
	sc_free(sc);
}
END_TEST

/* Allocations cost by kind and size: small device ones from the pool,
 * managed ones first touched on the host, cudaFreeHost unpinning. */
START_TEST(alloc_by_size)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("alloc");
	int small = sc_buf(sc, "small", HD_MEM_DEVICE, 64 * 1024);
	int big = sc_buf(sc, "big", HD_MEM_DEVICE, 64 * MiB);
	int man = sc_buf(sc, "man", HD_MEM_MANAGED, 16 * MiB);
	int pin = sc_buf(sc, "pin", HD_MEM_PINNED, 64 * MiB);
	int b[4] = { small, big, man, pin }, i;
	struct hd_trace *t;
	struct hd_op_time ot[8];

	p.malloc_small = 1 * HD_US;
	p.free_small = 2 * HD_US;
	p.freehost_cost = 30 * HD_US;
	p.unpin_bw = 4e9;
	p.um_touch_bw = 2e9;
	for (i = 0; i < 4; i++)
		sc_op(sc, HD_OP_ALLOC, 0)->dst = b[i];
	for (i = 0; i < 4; i++)
		sc_op(sc, HD_OP_FREE, 0)->dst = b[i];
	t = run_p(sc, &p);
	for (i = 0; i < 8; i++)
		ot[i] = hd_trace_op_time(t, i);
	ck_assert_int_eq(ot[0].end - ot[0].start, p.malloc_small);
	ck_assert_int_eq(ot[1].end - ot[1].start, p.malloc_cost);
	ck_assert_int_eq(ot[2].end - ot[2].start,
			 p.malloc_cost + hd_time_for_bytes(16.0 * MiB, p.um_touch_bw));
	ck_assert_int_eq(ot[3].end - ot[3].start,
			 p.pin_base + hd_time_for_bytes(62.0 * MiB, p.mallochost_bw));
	/* frees: an idle device, so the implicit sync costs api.sync's wake */
	ck_assert(ot[4].end - ot[4].start >= p.free_small && ot[4].end - ot[4].start < p.free_cost);
	ck_assert(ot[5].end - ot[5].start >= p.free_cost);
	ck_assert(ot[7].end - ot[7].start >=
		  p.freehost_cost + hd_time_for_bytes(62.0 * MiB, p.unpin_bw));
	ck_assert_int_eq((ot[7].end - ot[7].start) - (ot[5].end - ot[5].start),
			 p.freehost_cost + hd_time_for_bytes(62.0 * MiB, p.unpin_bw) - p.free_cost);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* With api.malloc_managed and api.free_managed, cudaMallocManaged costs
 * its fixed time with the first page's touch, the rest of the pages at
 * um.host_touch, whatever the size; cudaFree of it its own fixed time. */
START_TEST(alloc_free_managed)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("alloc");
	int tiny = sc_buf(sc, "tiny", HD_MEM_MANAGED, 197);
	int big = sc_buf(sc, "big", HD_MEM_MANAGED, 4 * MiB);
	int dev = sc_buf(sc, "dev", HD_MEM_DEVICE, 197);
	struct hd_trace *t;
	struct hd_op_time ot[6];
	int i;

	p.malloc_small = 1 * HD_US;
	p.free_small = 2 * HD_US;
	p.malloc_managed = 70 * HD_US;
	p.free_managed = 40 * HD_US;
	p.um_touch_bw = 4e9;
	sc_op(sc, HD_OP_ALLOC, 0)->dst = tiny;
	sc_op(sc, HD_OP_ALLOC, 0)->dst = big;
	sc_op(sc, HD_OP_ALLOC, 0)->dst = dev;
	sc_op(sc, HD_OP_FREE, 0)->dst = tiny;
	sc_op(sc, HD_OP_FREE, 0)->dst = big;
	sc_op(sc, HD_OP_FREE, 0)->dst = dev;
	t = run_p(sc, &p);
	for (i = 0; i < 6; i++)
		ot[i] = hd_trace_op_time(t, i);
	ck_assert_int_eq(ot[0].end - ot[0].start, 70 * HD_US);
	ck_assert_int_eq(ot[1].end - ot[1].start,
			 70 * HD_US + hd_time_for_bytes(4.0 * MiB - 4096, 4e9));
	ck_assert_int_eq(ot[2].end - ot[2].start, p.malloc_small);
	/* the same idle sync before each: they differ by their own times */
	ck_assert_int_eq((ot[3].end - ot[3].start) - (ot[5].end - ot[5].start),
			 40 * HD_US - p.free_small);
	ck_assert_int_eq(ot[4].end - ot[4].start, ot[3].end - ot[3].start);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A small managed block freed while another small managed buffer lives
 * keeps its pages mapped on the host: allocated again, it costs a small
 * cudaMalloc and a memset at twice the host's memcpy rate, and its free a
 * small cudaFree; the first allocation pays in full, and a prefetch of the
 * heap's pages sends the next one back to fresh pages (lent H200s:
 * bench/probe/umrealloc.hds, run77; heldout13 000). */
START_TEST(managed_heap_reuse)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("alloc");
	int m1 = sc_buf(sc, "m1", HD_MEM_MANAGED, 26300);
	int m2 = sc_buf(sc, "m2", HD_MEM_MANAGED, 623000);
	const hd_time full = 70 * HD_US + hd_time_for_bytes(623000.0 - 4096, 4e9);
	struct hd_trace *t;
	struct hd_op_time ot[8];
	int i;

	p.malloc_small = 1 * HD_US;
	p.free_small = 2 * HD_US;
	p.malloc_managed = 70 * HD_US;
	p.free_managed = 40 * HD_US;
	p.um_touch_bw = 4e9;
	p.host_memcpy_h2d_hot_bw = 10e9;
	for (i = 0; i < 2; i++) { /* ops 0-3 */
		sc_op(sc, HD_OP_ALLOC, 0)->dst = m2;
		sc_op(sc, HD_OP_FREE, 0)->dst = m2;
	}
	sc_prefetch(sc, 0, m1, true); /* op 4: there already, it walks */
	sc_op(sc, HD_OP_ALLOC, 0)->dst = m2;
	sc_op(sc, HD_OP_FREE, 0)->dst = m2;
	sc_op(sc, HD_OP_FREE, 0)->dst = m1; /* op 7: the heap empties */
	t = run_p(sc, &p);
	for (i = 0; i < 8; i++)
		ot[i] = hd_trace_op_time(t, i);
	ck_assert_int_eq(ot[0].end - ot[0].start, full);
	ck_assert_int_eq(ot[2].end - ot[2].start, HD_US + hd_time_for_bytes(623000.0, 20e9));
	ck_assert_int_eq(ot[5].end - ot[5].start, full);
	/* the same idle sync before each free */
	ck_assert_int_eq(ot[1].end - ot[1].start, ot[3].end - ot[3].start);
	ck_assert_int_eq((ot[7].end - ot[7].start) - (ot[1].end - ot[1].start),
			 40 * HD_US - p.free_small);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* cudaMalloc / cudaFree of device memory from 2 MiB up map and unmap their
 * bytes at api.malloc_rate / api.free_rate; pool sizes and managed buffers
 * do not. */
START_TEST(alloc_free_per_byte)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("alloc");
	int small = sc_buf(sc, "small", HD_MEM_DEVICE, 64 * 1024);
	int big = sc_buf(sc, "big", HD_MEM_DEVICE, 256 * MiB);
	int man = sc_buf(sc, "man", HD_MEM_MANAGED, 256 * MiB);
	int b[3] = { small, big, man }, i;
	struct hd_trace *t;
	struct hd_op_time ot[6];

	p.malloc_small = 1 * HD_US;
	p.free_small = 2 * HD_US;
	p.malloc_bw = 10e12;
	p.free_bw = 2e12;
	p.um_touch_bw = 0;
	for (i = 0; i < 3; i++)
		sc_op(sc, HD_OP_ALLOC, 0)->dst = b[i];
	for (i = 0; i < 3; i++)
		sc_op(sc, HD_OP_FREE, 0)->dst = b[i];
	t = run_p(sc, &p);
	for (i = 0; i < 6; i++)
		ot[i] = hd_trace_op_time(t, i);
	ck_assert_int_eq(ot[0].end - ot[0].start, p.malloc_small);
	ck_assert_int_eq(ot[1].end - ot[1].start,
			 p.malloc_cost + hd_time_for_bytes(256.0 * MiB, p.malloc_bw));
	ck_assert_int_eq(ot[2].end - ot[2].start, p.malloc_cost);
	/* the frees differ by the big one's unmapping alone (the same idle sync) */
	ck_assert_int_eq((ot[4].end - ot[4].start) - (ot[5].end - ot[5].start),
			 hd_time_for_bytes(256.0 * MiB, p.free_bw));
	ck_assert(ot[4].end - ot[4].start >=
		  p.free_cost + hd_time_for_bytes(256.0 * MiB, p.free_bw));
	hd_trace_free(t);
	sc_free(sc);
	/* without the rates, a big allocation costs the fixed parts alone */
	p.malloc_bw = p.free_bw = 0;
	sc = sc_new("alloc0");
	big = sc_buf(sc, "big", HD_MEM_DEVICE, 256 * MiB);
	sc_op(sc, HD_OP_ALLOC, 0)->dst = big;
	t = run_p(sc, &p);
	ot[0] = hd_trace_op_time(t, 0);
	ck_assert_int_eq(ot[0].end - ot[0].start, p.malloc_cost);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* From 2 MiB to 64 MiB, with api.malloc_mid / api.free_mid set, a cudaMalloc
 * that an earlier cudaFree of as many bytes served, and its cudaFree, cost
 * the mid figure up to 4 MiB, then rise linearly in bytes to what the fixed
 * parts and rates give at 64 MiB, and from there on follow those alone; a
 * first one follows those alone (a lent H100: 16 rounds of 2 to 10 MiB took
 * 68-71 us a round where 64 MiB's figures made 111, bench/probe/dmalloc.hds;
 * a lent H200: a first 4 MB took 179 and 114 us, heldout32 025). */
START_TEST(alloc_free_mid_sizes)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("mid");
	static const uint64_t size[5] = { 3 * MiB, 256 * MiB, 3 * MiB, 34 * MiB, 64 * MiB };
	hd_time top_m, top_f, want, cold_f;
	struct hd_trace *t;
	struct hd_op_time ot[10];
	int b[5], i;

	p.malloc_bw = 10e12;
	p.free_bw = 2e12;
	p.malloc_mid = 30 * HD_US;
	p.free_mid = 20 * HD_US;
	for (i = 0; i < 5; i++) {
		char name[8];

		snprintf(name, sizeof name, "d%d", i);
		b[i] = sc_buf(sc, name, HD_MEM_DEVICE, size[i]);
		sc_op(sc, HD_OP_ALLOC, 0)->dst = b[i];
		sc_op(sc, HD_OP_FREE, 0)->dst = b[i];
	}
	t = run_p(sc, &p);
	for (i = 0; i < 10; i++)
		ot[i] = hd_trace_op_time(t, i);
	top_m = p.malloc_cost + hd_time_for_bytes(64.0 * MiB, p.malloc_bw);
	top_f = p.free_cost + hd_time_for_bytes(64.0 * MiB, p.free_bw);
	/* the first 3 MiB: nothing freed before it, the fixed part and bytes */
	ck_assert_int_eq(ot[0].end - ot[0].start,
			 p.malloc_cost + hd_time_for_bytes(3.0 * MiB, p.malloc_bw));
	cold_f = p.free_cost + hd_time_for_bytes(3.0 * MiB, p.free_bw);
	ck_assert_int_eq(ot[2].end - ot[2].start,
			 p.malloc_cost + hd_time_for_bytes(256.0 * MiB, p.malloc_bw));
	/* after 256 MiB were freed: the mid rule */
	ck_assert_int_eq(ot[4].end - ot[4].start, p.malloc_mid);
	/* 34 MiB: halfway from 4 MiB to 64 MiB */
	want = p.malloc_mid + (top_m - p.malloc_mid) / 2;
	ck_assert_msg(llabs((long long)(ot[6].end - ot[6].start - want)) <= 1, "%lld against %lld",
		      (long long)(ot[6].end - ot[6].start), (long long)want);
	ck_assert_int_eq(ot[8].end - ot[8].start, top_m);
	/* the frees pay the same idle sync: their differences are the rule's */
	ck_assert_int_eq((ot[1].end - ot[1].start) - (ot[5].end - ot[5].start),
			 cold_f - p.free_mid);
	want = p.free_mid + (top_f - p.free_mid) / 2;
	ck_assert_msg(llabs((long long)((ot[7].end - ot[7].start) - (ot[5].end - ot[5].start) -
					(want - p.free_mid))) <= 1,
		      "%lld", (long long)((ot[7].end - ot[7].start) - (ot[5].end - ot[5].start)));
	ck_assert_int_eq((ot[9].end - ot[9].start) - (ot[5].end - ot[5].start), top_f - p.free_mid);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A buffer that fits gpu.l2 runs at the L2's rates (gpu.l2_fill for a fill);
 * a larger one, or a profile without them, at gpu.hbm. */
START_TEST(kernel_l2_rates)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("l2");
	int small = sc_buf(sc, "small", HD_MEM_DEVICE, 16 * MiB);
	int big = sc_buf(sc, "big", HD_MEM_DEVICE, 64 * MiB);
	struct hd_op *op = sc_op(sc, HD_OP_KERNEL, 0);

	op->kernel = HD_KERNEL_MEMORY;
	op->src = small;
	ck_assert_int_eq(kernel_time(sc, &p, 0),
			 p.kernel_overhead + hd_time_for_bytes(16.0 * MiB, p.hbm_bw));
	p.l2_bytes = 32 * MiB;
	p.l2_bw = 6e12;
	p.l2_fill_bw = 4e12;
	ck_assert_int_eq(kernel_time(sc, &p, 0),
			 p.kernel_overhead + hd_time_for_bytes(16.0 * MiB, 6e12));
	op->kernel = HD_KERNEL_REDUCE;
	ck_assert_int_eq(kernel_time(sc, &p, 0),
			 p.kernel_overhead + hd_time_for_bytes(16.0 * MiB, 6e12));
	op->kernel = HD_KERNEL_FILL;
	op->src = HD_NONE;
	op->dst = small;
	ck_assert_int_eq(kernel_time(sc, &p, 0),
			 p.kernel_overhead + hd_time_for_bytes(16.0 * MiB, 4e12));
	op->dst = big; /* past gpu.l2: HBM */
	ck_assert_int_eq(kernel_time(sc, &p, 0),
			 p.kernel_overhead + hd_time_for_bytes(64.0 * MiB, p.hbm_bw));
	sc_free(sc);
}
END_TEST

/* A fill whose size is not a multiple of 16 bytes launches a second kernel
 * for its tail: two launches on the host, two kernel overheads on the GPU. */
START_TEST(fill_tail_launches)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("fill");
	int even = sc_buf(sc, "even", HD_MEM_DEVICE, 1008);
	int ragged = sc_buf(sc, "ragged", HD_MEM_DEVICE, 1000);
	struct hd_op *a = sc_op(sc, HD_OP_KERNEL, 0), *b = sc_op(sc, HD_OP_KERNEL, 0);
	struct hd_trace *t;
	const struct hd_span *s;

	a->kernel = b->kernel = HD_KERNEL_FILL;
	a->dst = even;
	b->dst = ragged;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	s = need(t, 0, 0, HD_LANE_API, HD_SPAN_API);
	ck_assert_int_eq(s->end - s->start, p.api_launch);
	s = need(t, 1, 0, HD_LANE_API, HD_SPAN_API);
	ck_assert_int_eq(s->end - s->start, 2 * p.api_launch);
	ck_assert_int_eq(kernel_time(sc, &p, 1) - kernel_time(sc, &p, 0),
			 p.kernel_overhead + hd_time_for_bytes(1000, p.hbm_bw) -
			     hd_time_for_bytes(1008, p.hbm_bw));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A ragged fill's work goes on the stream after its first launch: on an
 * idle GPU it starts api.launch and gpu.launch_latency after the call
 * begins, while the host still pays the second launch. */
START_TEST(fill_tail_runs_during_second_launch)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("fill2");
	int ragged = sc_buf(sc, "ragged", HD_MEM_DEVICE, 1000);
	struct hd_op *a = sc_op(sc, HD_OP_KERNEL, 0);
	const struct hd_span *api, *k;
	struct hd_trace *t;

	a->kernel = HD_KERNEL_FILL;
	a->dst = ragged;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	api = need(t, 0, 0, HD_LANE_API, HD_SPAN_API);
	k = need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_KERNEL);
	ck_assert_int_eq(k->start, api->start + p.api_launch + p.launch_latency);
	ck_assert(k->start < api->end);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A sync of the legacy default stream with a 1 ms spin on stream s of
 * `flags`: how long the host took, from the sync's call to its return. */
static hd_time
legacy_sync_len(int flags, int per_thread)
{
	struct hd_scenario *sc = sc_new("lsync");
	int s1 = sc_stream(sc, "s1", flags);
	struct hd_trace *t;
	hd_time len;

	if (per_thread)
		sc->per_thread_default = 1;
	sc_spin(sc, s1, HD_MS, 1); /* op 0 */
	sc_op(sc, HD_OP_STREAM_SYNC, per_thread ? HD_STREAM_PER_THREAD : HD_STREAM_LEGACY);
	t = run(sc);
	len = api_len(t, 1);
	hd_trace_free(t);
	sc_free(sc);
	return len;
}

/* cudaStreamSynchronize of the legacy default stream waits for the
 * blocking streams' work, as work on that stream does; not for a
 * non-blocking stream's; a sync of the per-thread default stream waits
 * for its own work only. */
START_TEST(legacy_sync_waits_for_blocking_streams)
{
	ck_assert(legacy_sync_len(0, 0) > 900 * HD_US);
	ck_assert(legacy_sync_len(HD_STREAM_NONBLOCKING, 0) < 50 * HD_US);
	ck_assert(legacy_sync_len(0, 1) < 50 * HD_US);
}
END_TEST

/* The copies' own host costs: device to device api.memcpy_d2d, and more by
 * api.memcpy_managed (scaled to the buffer's 1 MiB) when a copy first names
 * managed memory (staged); a pageable copy of at most host.cache bytes
 * stages at the _hot rate, and so does a managed one while the managed
 * buffer fits host.cache too; a host-to-host copy by its size alone. */
START_TEST(copy_costs_by_kind)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("copies");
	int d1 = sc_buf(sc, "d1", HD_MEM_DEVICE, 1 * MiB);
	int d2 = sc_buf(sc, "d2", HD_MEM_DEVICE, 1 * MiB);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 1 * MiB);
	int g = sc_buf(sc, "g", HD_MEM_PAGEABLE, 1 * MiB);
	struct hd_trace *t;
	const struct hd_span *s;
	size_t i;
	int staged = 0;

	p.api_memcpy_d2d = 7 * HD_US;
	p.api_memcpy_managed = 3 * HD_US;
	p.host_memcpy_h2d_hot_bw = 20e9;
	p.host_cache = 2 * MiB;
	sc_copy(sc, 0, d1, d2, true); /* op 0: D2D */
	sc_copy(sc, 0, m, d2, true);  /* op 1: managed source */
	sc_copy(sc, 0, g, d1, false); /* op 2: pageable, fits host.cache */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	s = need(t, 0, 0, HD_LANE_API, HD_SPAN_API);
	ck_assert_int_eq(s->end - s->start, 7 * HD_US);
	s = need(t, 1, 0, HD_LANE_API, HD_SPAN_API);
	{ /* the same copy without api.memcpy_managed: that much shorter */
		struct hd_profile q = p;
		struct hd_trace *u;
		const struct hd_span *s0;

		q.api_memcpy_managed = 0;
		u = run_p(sc, &q);
		s0 = need(u, 1, 0, HD_LANE_API, HD_SPAN_API);
		ck_assert_int_eq((s->end - s->start) - (s0->end - s0->start),
				 (hd_time)llround(3.0 * HD_US * (0.25 + 0.75 * sqrt(0.5))));
		hd_trace_free(u);
	}
	s = need(t, 1, 0, HD_LANE_HOST, HD_SPAN_STAGING);
	ck_assert_int_eq(s->end - s->start, hd_time_for_bytes(1.0 * MiB, 20e9));
	ck_assert_int_eq(need(t, 1, 0, HD_LANE_API, HD_SPAN_API)->start,
			 need(t, 0, 0, HD_LANE_API, HD_SPAN_API)->end);
	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].op == 2 && t->spans[i].kind == HD_SPAN_STAGING) {
			ck_assert_int_eq(t->spans[i].end - t->spans[i].start,
					 hd_time_for_bytes(1.0 * MiB, 20e9));
			staged++;
		}
	ck_assert_int_eq(staged, 1);
	hd_trace_free(t);
	/* past host.cache: the cold rate, the managed copy's too */
	p.host_cache = 512 * 1024;
	t = run_p(sc, &p);
	for (i = 0; i < t->nspans; i++)
		if ((t->spans[i].op == 1 || t->spans[i].op == 2) &&
		    t->spans[i].kind == HD_SPAN_STAGING)
			ck_assert_int_eq(t->spans[i].end - t->spans[i].start,
					 hd_time_for_bytes(1.0 * MiB, p.host_memcpy_h2d_bw));
	hd_trace_free(t);
	sc_free(sc);
	/* 256 KiB out of a managed buffer past host.cache: cold still, where
	 * the same out of pageable memory and host to host out of it run hot */
	sc = sc_new("copies");
	m = sc_buf(sc, "m", HD_MEM_MANAGED, 1 * MiB);
	g = sc_buf(sc, "g", HD_MEM_PAGEABLE, 1 * MiB);
	d1 = sc_buf(sc, "d1", HD_MEM_DEVICE, 1 * MiB);
	d2 = sc_buf(sc, "d2", HD_MEM_PINNED, 1 * MiB);
	sc_copy(sc, 0, m, d1, false)->bytes = 256 * 1024; /* op 0 */
	sc_copy(sc, 0, g, d1, false)->bytes = 256 * 1024; /* op 1 */
	sc_copy(sc, 0, m, d2, false)->bytes = 256 * 1024; /* op 2: host to host */
	t = run_p(sc, &p);
	s = need(t, 0, 0, HD_LANE_HOST, HD_SPAN_STAGING);
	ck_assert_int_eq(s->end - s->start, hd_time_for_bytes(256.0 * 1024, p.host_memcpy_h2d_bw));
	s = need(t, 1, 0, HD_LANE_HOST, HD_SPAN_STAGING);
	ck_assert_int_eq(s->end - s->start, hd_time_for_bytes(256.0 * 1024, 20e9));
	s = need(t, 2, 0, HD_LANE_HOST, HD_SPAN_HOST);
	ck_assert_int_eq(s->end - s->start, hd_time_for_bytes(256.0 * 1024, 20e9));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* api.memcpy_pageable: every copy the driver stages because its host side
 * is pageable memory (to and from the device, a read) keeps the host that
 * much longer; a copy through pinned memory does not. */
START_TEST(pageable_copies_cost_more)
{
	struct hd_profile p = test_profile(), q;
	struct hd_scenario *sc = sc_new("pageable");
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 4);
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 4);
	int g = sc_buf(sc, "g", HD_MEM_PAGEABLE, 4);
	struct hd_trace *t, *u;
	struct hd_op *op;
	int i;

	sc_copy(sc, 0, d, h, false);   /* op 0: to pinned memory */
	sc_copy(sc, 0, d, g, false);   /* op 1: to pageable memory */
	op = sc_op(sc, HD_OP_READ, 0); /* op 2: a read */
	op->src = d;
	op->bytes = 4;
	sc_copy(sc, 0, g, d, true); /* op 3: from pageable memory, async */
	sc_copy(sc, 0, h, d, true); /* op 4: from pinned memory, async */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	p.api_memcpy_pageable = 0;
	q = p;
	q.api_memcpy_pageable = 2 * HD_US;
	t = run_p(sc, &p);
	u = run_p(sc, &q);
	for (i = 0; i < 5; i++)
		ck_assert_msg(api_len(u, i) - api_len(t, i) == (i == 0 || i == 4 ? 0 : 2 * HD_US),
			      "op %d: %lld ps more", i, (long long)(api_len(u, i) - api_len(t, i)));
	hd_trace_free(t);
	hd_trace_free(u);
	sc_free(sc);
}
END_TEST

/* Managed memory's fixed parts: a prefetch that moves pages takes
 * um.prefetch_base (not pcie.latency) before its bytes, one that moves
 * none does not; a faulting kernel's first group waits um.fault_base more. */
START_TEST(managed_fixed_parts)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s = sc_stream(sc, "s", 0);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 4 * MiB);
	struct hd_op *op;
	struct hd_trace *t;
	const struct hd_span *pf, *f, *stall;

	p.um_prefetch_base = 100 * HD_US;
	p.um_fault_base = 50 * HD_US;
	sc_prefetch(sc, s, m, true);     /* op 0: to the device, 4 MiB */
	sc_prefetch(sc, s, m, true);     /* op 1: already there */
	sc_prefetch(sc, s, m, false);    /* op 2: back to the host */
	op = sc_op(sc, HD_OP_KERNEL, s); /* op 3: faults 2 groups */
	op->kernel = HD_KERNEL_REDUCE;
	op->src = m;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	pf = need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(pf->end - pf->start,
			 100 * HD_US + hd_time_for_bytes(4.0 * MiB, p.um_prefetch_bw));
	pf = need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(pf->end - pf->start, p.copy_latency);
	stall = need(t, 3, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT);
	f = need(t, 3, 0, HD_LANE_PCIE_H2D, HD_SPAN_FAULT);
	ck_assert_int_eq(f->start - stall->start, 50 * HD_US + p.um_fault);
	ck_assert_int_eq(stall->end - stall->start,
			 50 * HD_US + 2 * p.um_fault +
			     2 * hd_time_for_bytes(2.0 * MiB, p.um_fault_bw));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* The driver's fixed costs for managed memory are measured on 2 MiB and
 * scale down with the buffer: a quarter at nothing, rising as the square
 * root of the size (sim/model.c, model_um_fixed); at 2 MiB and above they
 * are the profile's. */
static hd_time
um_scaled(hd_time t, uint64_t bytes)
{
	if (bytes >= 2 * MiB)
		return t;
	return (hd_time)llround((double)t * (0.25 + 0.75 * sqrt((double)bytes / (2.0 * MiB))));
}

START_TEST(managed_small_buffers)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s = sc_stream(sc, "s", 0);
	int small = sc_buf(sc, "small", HD_MEM_MANAGED, 8192);
	int big = sc_buf(sc, "big", HD_MEM_MANAGED, 4 * MiB);
	struct hd_op *op;
	struct hd_trace *t;
	const struct hd_span *pf, *f, *stall;

	p.um_prefetch_base = 100 * HD_US;
	p.um_fault_base = 80 * HD_US;
	p.um_host_fault = 40 * HD_US;
	p.um_host_fault_bw = 4e9;
	p.um_page = 4096;
	sc_prefetch(sc, s, small, true);  /* op 0 */
	sc_prefetch(sc, s, big, true);    /* op 1 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);  /* op 2 */
	sc_prefetch(sc, s, small, false); /* op 3: back to the host */
	op = sc_op(sc, HD_OP_KERNEL, s);  /* op 4: faults the small one in */
	op->kernel = HD_KERNEL_REDUCE;
	op->src = small;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0); /* op 5 */
	op = sc_copy(sc, 0, small, sc_buf(sc, "d", HD_MEM_DEVICE, 4096), false);
	op->bytes = 4; /* op 6: the host faults a page of it back */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	pf = need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(pf->end - pf->start,
			 um_scaled(100 * HD_US, 8192) +
			     hd_time_for_bytes(8192.0, p.um_prefetch_bw));
	ck_assert(um_scaled(100 * HD_US, 8192) < 30 * HD_US);
	pf = need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(pf->end - pf->start,
			 100 * HD_US + hd_time_for_bytes(4.0 * MiB, p.um_prefetch_bw));
	stall = need(t, 4, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT);
	f = need(t, 4, 0, HD_LANE_PCIE_H2D, HD_SPAN_FAULT);
	ck_assert_int_eq(f->start - stall->start, um_scaled(80 * HD_US, 8192) + p.um_fault);
	f = need(t, 6, 0, HD_LANE_HOST, HD_SPAN_FAULT);
	ck_assert_int_eq(f->end - f->start,
			 um_scaled(40 * HD_US, 8192) +
			     hd_time_for_bytes(4096.0, p.um_host_fault_bw));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* api.memcpy_managed is the driver's first look at a managed buffer's
 * pages: the first copy naming it pays it (for its size), the next ones do
 * not, until its pages move again (here a prefetch) or are new (an alloc). */
START_TEST(managed_copy_cost_once)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 4 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 4096);
	struct hd_op *op;
	struct hd_trace *t;
	hd_time a[5];
	int i, ops[5] = { 0, 1, 4, 5, 7 };

	p.api_memcpy_managed = 20 * HD_US;
	p.api_memcpy_sync = 0;
	for (i = 0; i < 2; i++) {
		op = sc_copy(sc, 0, d, m, false); /* ops 0, 1 */
		op->bytes = 4;
	}
	sc_prefetch(sc, 0, m, true);     /* op 2 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0); /* op 3 */
	for (i = 0; i < 2; i++) {
		op = sc_copy(sc, 0, d, m, true); /* ops 4, 5 */
		op->bytes = 4;
	}
	sc_op(sc, HD_OP_ALLOC, 0)->dst = m; /* op 6: new pages */
	op = sc_copy(sc, 0, d, m, false);   /* op 7 */
	op->bytes = 4;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	for (i = 0; i < 5; i++) {
		const struct hd_span *c = need(t, ops[i], 0, HD_LANE_API, HD_SPAN_API);

		a[i] = c->end - c->start;
	}
	ck_assert(a[0] >= p.api_memcpy + 20 * HD_US);
	ck_assert(a[1] < p.api_memcpy + 20 * HD_US);
	ck_assert(a[2] >= p.api_memcpy + 20 * HD_US);
	ck_assert(a[3] < p.api_memcpy + 20 * HD_US);
	ck_assert(a[4] >= p.api_memcpy + 20 * HD_US);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A read of managed memory on the host brings its pages to the device as
 * faults would (um.fault_base for its size, um.fault a group, the bytes at
 * um.fault_rate), on the host's row; they stay there, so a kernel on them
 * then faults nothing. */
START_TEST(managed_read_faults_in)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 1 * MiB);
	struct hd_op *op;
	struct hd_trace *t;
	const struct hd_span *f;

	p.um_fault_base = 80 * HD_US;
	p.um_page = 64 * 1024;
	op = sc_op(sc, HD_OP_READ, 0); /* op 0 */
	op->src = m;
	op->bytes = 256 * 1024;
	sc_kernel_mem(sc, 0, m);         /* op 1 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0); /* op 2 */
	t = run_p(sc, &p);
	f = need(t, 0, 0, HD_LANE_HOST, HD_SPAN_FAULT);
	ck_assert_int_eq(f->end - f->start,
			 um_scaled(80 * HD_US, MiB) + 4 * p.um_fault +
			     hd_time_for_bytes(256.0 * 1024, p.um_fault_bw));
	ck_assert_int_eq(f->bytes, 256 * 1024);
	ck_assert_ptr_null(span_of(t, 1, 0, HD_LANE_PCIE_H2D, HD_SPAN_FAULT));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* api.memcpy_sync: a cudaMemcpy the host waits in (a read too) keeps it
 * that much longer after the copy; an async one does not. */
START_TEST(sync_copy_costs_more)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("sync");
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 4096);
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 4096);
	struct hd_op *op;
	struct hd_trace *t0, *t1;
	int i;

	sc_copy(sc, 0, d, h, false);   /* op 0 */
	sc_copy(sc, 0, d, h, true);    /* op 1 */
	op = sc_op(sc, HD_OP_READ, 0); /* op 2 */
	op->src = d;
	op->bytes = 4;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	p.api_memcpy_sync = 0;
	t0 = run_p(sc, &p);
	p.api_memcpy_sync = 3 * HD_US;
	t1 = run_p(sc, &p);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(api_len(t1, i) - api_len(t0, i), i == 1 ? 0 : 3 * HD_US);
	hd_trace_free(t0);
	hd_trace_free(t1);
	sc_free(sc);
}
END_TEST

/* A stream or event sync that finds nothing to wait for costs
 * api.sync_kernel while a stream's last work is a kernel, on whichever
 * stream; a device sync does not (it costs api.sync_device where set), and
 * an event recorded after the kernel on its stream brings api.sync back. */
START_TEST(sync_after_kernel_costs_more)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("sync");
	int s1 = sc_stream(sc, "s1", HD_STREAM_NONBLOCKING);
	int s2 = sc_stream(sc, "s2", HD_STREAM_NONBLOCKING);
	int e = sc_event(sc, "e");
	int f = sc_event(sc, "f");
	static const struct {
		int op;
		hd_time cost;
	} want[] = {
		{ 2, 5 * HD_US },  /* s2 idle, s1's last work a kernel */
		{ 5, 5 * HD_US },  /* an event recorded on s2 does not help */
		{ 6, 1 * HD_US },  /* a device sync */
		{ 7, 5 * HD_US },  /* an event sync alike */
		{ 10, 1 * HD_US }, /* an event recorded after the kernel on s1 */
	};
	struct hd_trace *t;
	size_t i;

	sc_spin(sc, s1, 10 * HD_US, 1);            /* op 0 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);           /* op 1: waits for it */
	sc_op(sc, HD_OP_STREAM_SYNC, s2);          /* op 2 */
	sc_op(sc, HD_OP_RECORD, s2)->event = f;    /* op 3 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);           /* op 4: waits for it */
	sc_op(sc, HD_OP_STREAM_SYNC, s2);          /* op 5 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);           /* op 6 */
	sc_op(sc, HD_OP_EVENT_SYNC, 0)->event = f; /* op 7 */
	sc_op(sc, HD_OP_RECORD, s1)->event = e;    /* op 8 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);           /* op 9: waits for it */
	sc_op(sc, HD_OP_STREAM_SYNC, s2);          /* op 10 */
	p.api_sync_kernel = 5 * HD_US;
	t = run_p(sc, &p);
	for (i = 0; i < sizeof want / sizeof want[0]; i++)
		ck_assert_msg(api_len(t, want[i].op) == want[i].cost,
			      "op %d took %lld ps, not %lld", want[i].op,
			      (long long)api_len(t, want[i].op), (long long)want[i].cost);
	hd_trace_free(t);
	/* left out (0): api.sync */
	p.api_sync_kernel = 0;
	t = run_p(sc, &p);
	ck_assert_int_eq(api_len(t, 2), 1 * HD_US);
	ck_assert_int_eq(api_len(t, 6), 1 * HD_US);
	hd_trace_free(t);
	/* an idle device sync costs api.sync_device, a stream sync does not */
	p.api_sync_device = 3 * HD_US;
	t = run_p(sc, &p);
	ck_assert_int_eq(api_len(t, 6), 3 * HD_US);
	ck_assert_int_eq(api_len(t, 2), 1 * HD_US);
	ck_assert_int_eq(api_len(t, 10), 1 * HD_US);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/*
 * A timing event's record holds the GPU gpu.event_record for its timestamp,
 * one record at a time across the streams; a notiming event's takes none,
 * and its call costs api.event_notiming.
 */
START_TEST(timing_records_take_the_gpu)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("records");
	int s1 = sc_stream(sc, "s1", HD_STREAM_NONBLOCKING);
	int s2 = sc_stream(sc, "s2", HD_STREAM_NONBLOCKING);
	int e = sc_event(sc, "e");
	int f = sc_event(sc, "f");
	int n = sc_event(sc, "n");
	struct hd_trace *t;
	int i;

	sc->events[n].timing = false;
	/* ops 0-3: records of e on s1 and f on s2 in turn; op 4: of n on s1 */
	for (i = 0; i < 4; i++)
		sc_op(sc, HD_OP_RECORD, i % 2 ? s2 : s1)->event = i % 2 ? f : e;
	sc_op(sc, HD_OP_RECORD, s1)->event = n;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	p.event_record = 3 * HD_US;
	p.api_event_notiming = HD_US / 2;
	t = run_p(sc, &p);
	/* submitted at 2, 4, 6 and 8 us (api.event); the stamps follow one
	 * another from 2 us whichever the stream: they end at 5, 8, 11, 14 */
	for (i = 0; i < 4; i++)
		ck_assert_msg(need(t, i, 0, HD_LANE_STREAM, HD_SPAN_EVENT)->start ==
				  (hd_time)(5 + 3 * i) * HD_US,
			      "record %d at %lld ps", i,
			      (long long)need(t, i, 0, HD_LANE_STREAM, HD_SPAN_EVENT)->start);
	/* the notiming record: its call is cheaper, and it fires as soon as
	 * its stream reaches it (s1's last stamp ended at 11 us) */
	ck_assert_int_eq(api_len(t, 4), HD_US / 2);
	ck_assert_int_eq(need(t, 4, 0, HD_LANE_STREAM, HD_SPAN_EVENT)->start,
			 (hd_time)(11 * HD_US));
	hd_trace_free(t);
	/* left out (0): records take no GPU time, calls api.event */
	p.event_record = 0;
	p.api_event_notiming = 0;
	t = run_p(sc, &p);
	ck_assert_int_eq(need(t, 3, 0, HD_LANE_STREAM, HD_SPAN_EVENT)->start, (hd_time)(8 * HD_US));
	ck_assert_int_eq(api_len(t, 4), 2 * HD_US);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A spin kernel runs its time and the GPU's per-kernel overhead: back to
 * back on a stream, one starts gpu.kernel_overhead after the last's time. */
START_TEST(spin_kernels_pay_the_kernel_overhead)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("spins");
	int s1 = sc_stream(sc, "s1", HD_STREAM_NONBLOCKING);
	struct hd_trace *t;
	const struct hd_span *a, *b;

	sc_spin(sc, s1, 100 * HD_US, 1);
	sc_spin(sc, s1, 100 * HD_US, 1);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	a = need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_KERNEL);
	b = need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_KERNEL);
	ck_assert_int_eq(a->end - a->start, 102 * HD_US);
	ck_assert_int_eq(b->start, a->end);
	ck_assert_int_eq(b->end - b->start, 102 * HD_US);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* Copies into pageable memory malloc'd fresh (32 MiB and more) pay
 * host.touch for the bytes first written after each alloc; a buffer without
 * an alloc, pages written before and a small malloc do not. */
START_TEST(pageable_first_touch)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("touch");
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 64 * MiB);
	int g = sc_buf(sc, "g", HD_MEM_PAGEABLE, 64 * MiB);
	int k = sc_buf(sc, "k", HD_MEM_PAGEABLE, 64 * MiB);
	int s = sc_buf(sc, "s", HD_MEM_PAGEABLE, 1 * MiB);
	int h = sc_buf(sc, "h", HD_MEM_PAGEABLE, 64 * MiB);
	static const struct {
		int op;
		uint64_t fresh;
	} want[] = {
		{ 1, 16 * MiB }, /* the first 16 MiB */
		{ 2, 48 * MiB }, /* the rest */
		{ 3, 0 },        /* written before */
		{ 6, 64 * MiB }, /* allocated again */
		{ 7, 0 },        /* no alloc: touched beforehand */
		{ 9, 0 },        /* a small malloc: pages from the heap */
		{ 11, 8 * MiB }, /* a host-to-host copy writes them too */
	};
	struct hd_trace *t0, *t1;
	size_t i;

	sc_op(sc, HD_OP_ALLOC, 0)->dst = g;            /* op 0 */
	sc_copy(sc, 0, d, g, false)->bytes = 16 * MiB; /* op 1 */
	sc_copy(sc, 0, d, g, false);                   /* op 2 */
	sc_copy(sc, 0, d, g, false);                   /* op 3 */
	sc_op(sc, HD_OP_FREE, 0)->dst = g;             /* op 4 */
	sc_op(sc, HD_OP_ALLOC, 0)->dst = g;            /* op 5 */
	sc_copy(sc, 0, d, g, false);                   /* op 6 */
	sc_copy(sc, 0, d, k, false);                   /* op 7 */
	sc_op(sc, HD_OP_ALLOC, 0)->dst = s;            /* op 8 */
	sc_copy(sc, 0, d, s, false)->bytes = 1 * MiB;  /* op 9 */
	sc_op(sc, HD_OP_ALLOC, 0)->dst = h;            /* op 10 */
	sc_copy(sc, 0, k, h, false)->bytes = 8 * MiB;  /* op 11 */
	p.host_touch_bw = 0;
	t0 = run_p(sc, &p);
	p.host_touch_bw = 1e9;
	t1 = run_p(sc, &p);
	for (i = 0; i < sizeof want / sizeof want[0]; i++)
		ck_api_more(t0, t1, want[i].op, (double)want[i].fresh, 1e9);
	hd_trace_free(t0);
	hd_trace_free(t1);
	sc_free(sc);
}
END_TEST

/* A prefetch to the host migrates at um.prefetch_d2h_rate; one whose pages
 * are already where it sends them takes um.prefetch_stay (0: pcie.latency)
 * and its walk over them at um.prefetch_walk, in either direction. */
START_TEST(prefetch_direction_and_walk)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s = sc_stream(sc, "s", 0);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 64 * MiB);
	static const bool to_dev[5] = { true, true, false, false, true };
	const struct hd_span *pf[5];
	struct hd_trace *t;
	int i;

	p.um_prefetch_base = 100 * HD_US;
	p.um_prefetch_d2h_bw = p.um_prefetch_bw / 4;
	p.um_walk_bw = 500e9;
	for (i = 0; i < 5; i++) {
		sc_prefetch(sc, s, m, to_dev[i]);
	}
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	for (i = 0; i < 5; i++)
		pf[i] = need(t, i, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(pf[0]->end - pf[0]->start,
			 100 * HD_US + hd_time_for_bytes(64.0 * MiB, p.um_prefetch_bw));
	ck_assert_int_eq(pf[1]->end - pf[1]->start,
			 p.copy_latency + hd_time_for_bytes(64.0 * MiB, p.um_walk_bw));
	ck_assert_int_eq(pf[2]->end - pf[2]->start,
			 100 * HD_US + hd_time_for_bytes(64.0 * MiB, p.um_prefetch_d2h_bw));
	ck_assert_int_eq(pf[3]->end - pf[3]->start, pf[1]->end - pf[1]->start);
	/* back to the device at the rate to the device */
	ck_assert_int_eq(pf[4]->end - pf[4]->start, pf[0]->end - pf[0]->start);
	hd_trace_free(t);
	p.um_prefetch_stay = 7 * HD_US;
	t = run_p(sc, &p);
	ck_assert_int_eq(need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH)->end -
			     need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH)->start,
			 100 * HD_US + hd_time_for_bytes(64.0 * MiB, p.um_prefetch_bw));
	for (i = 1; i < 4; i += 2) {
		pf[i] = need(t, i, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
		ck_assert_int_eq(pf[i]->end - pf[i]->start,
				 7 * HD_US + hd_time_for_bytes(64.0 * MiB, p.um_walk_bw));
	}
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* The CPU's first write into managed pages a prefetch to the host brought
 * there costs um.prefetched_write beyond the copy, once per byte: a second
 * copy over them, pages the CPU had before, and pages a prefetch to the
 * device took away again pay nothing more (on a lent H100 a CPU copy of 64
 * MB into pages just prefetched to the host took 14.0 ms against 6.9 at
 * the memcpy rate: bench/probe/pftouch.hds, run96). */
START_TEST(prefetched_pages_first_write)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s = sc_stream(sc, "s", 0);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 64 * MiB);
	int m2 = sc_buf(sc, "m2", HD_MEM_MANAGED, 64 * MiB);
	int g = sc_buf(sc, "g", HD_MEM_PAGEABLE, 64 * MiB);
	static const struct {
		int op;
		double bytes; /* charged at the rate */
	} want[] = {
		{ 0, 0 },                  /* m2: the CPU's pages from the start */
		{ 4, 64.0 * MiB },         /* m: just prefetched to the host */
		{ 5, 0 },                  /* written already */
		{ 9, 4096 },               /* 4 KiB after the next round trip */
		{ 10, 64.0 * MiB - 4096 }, /* the rest */
		{ 13, 0 },                 /* on the device: faulted back, not landed */
	};
	struct hd_trace *t0, *t1;
	size_t i;

	sc_copy(sc, 0, g, m2, false);                 /* op 0 */
	sc_prefetch(sc, s, m, true);                  /* op 1 */
	sc_prefetch(sc, s, m, false);                 /* op 2 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);              /* op 3 */
	sc_copy(sc, 0, g, m, false);                  /* op 4 */
	sc_copy(sc, 0, g, m, false);                  /* op 5 */
	sc_prefetch(sc, s, m, true);                  /* op 6 */
	sc_prefetch(sc, s, m, false);                 /* op 7 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);              /* op 8 */
	sc_copy(sc, 0, g, m, false)->bytes = 4096;    /* op 9 */
	sc_copy(sc, 0, g, m, false);                  /* op 10 */
	sc_prefetch(sc, s, m, true);                  /* op 11 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);              /* op 12 */
	sc_copy(sc, 0, g, m, false)->bytes = 1 * MiB; /* op 13 */
	p.um_prefetched_write_bw = 0;
	t0 = run_p(sc, &p);
	p.um_prefetched_write_bw = 1e9;
	t1 = run_p(sc, &p);
	for (i = 0; i < sizeof want / sizeof want[0]; i++)
		ck_api_more(t0, t1, want[i].op, want[i].bytes, 1e9);
	hd_trace_free(t0);
	hd_trace_free(t1);
	sc_free(sc);
}
END_TEST

/* A prefetch that moves nothing, called while a kernel is unfinished on its
 * stream, waits um.prefetch_defer more (the driver carries it out once the
 * kernel is done); one behind another prefetch, or on an idle stream, does
 * not (on lent H100s 51 rounds of a fill kernel and such a prefetch took
 * 1.37-1.49 ms, the prefetches alone 0.24-0.33: bench/probe/umtiny.hds). */
START_TEST(prefetch_behind_work_deferred)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s = sc_stream(sc, "s", 0);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 4096);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 64 * MiB);
	hd_time stay;
	struct hd_trace *t;
	int i;

	p.um_prefetch_stay = 7 * HD_US;
	p.um_prefetch_defer = 30 * HD_US;
	sc_kernel_mem(sc, s, m); /* op 0: the pages to the device */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	sc_prefetch(sc, s, m, true); /* op 2: an idle stream */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	sc_kernel_mem(sc, s, d);     /* op 4 */
	sc_prefetch(sc, s, m, true); /* op 5: behind the kernel */
	sc_prefetch(sc, s, m, true); /* op 6: behind a prefetch */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	stay = span_len(t, 2, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_ge(stay, 7 * HD_US);
	ck_assert_int_lt(stay, 8 * HD_US); /* the stay and a short walk */
	ck_assert_int_eq(span_len(t, 5, HD_LANE_STREAM, HD_SPAN_PREFETCH), stay + 30 * HD_US);
	ck_assert_int_eq(span_len(t, 6, HD_LANE_STREAM, HD_SPAN_PREFETCH), stay);
	hd_trace_free(t);
	/* 0, as in the profiles that leave it out: none deferred */
	p.um_prefetch_defer = 0;
	t = run_p(sc, &p);
	for (i = 5; i < 7; i++)
		ck_assert_int_eq(span_len(t, i, HD_LANE_STREAM, HD_SPAN_PREFETCH), stay);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* Two prefetches of one buffer to the device on two streams at once move
 * its pages once: the second ends with the first.  A kernel on a third
 * stream over the pages in flight waits for them instead of faulting. */
START_TEST(prefetch_in_flight_shared)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s1 = sc_stream(sc, "s1", HD_STREAM_NONBLOCKING);
	int s2 = sc_stream(sc, "s2", HD_STREAM_NONBLOCKING);
	int s3 = sc_stream(sc, "s3", HD_STREAM_NONBLOCKING);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 64 * MiB);
	const struct hd_span *a, *b, *k;
	struct hd_trace *t;
	size_t i;
	int moves = 0;

	p.um_prefetch_base = 100 * HD_US;
	sc_prefetch(sc, s1, m, true);
	sc_prefetch(sc, s2, m, true);
	sc_kernel_mem(sc, s3, m);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	a = need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	b = need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(a->end - a->start,
			 100 * HD_US + hd_time_for_bytes(64.0 * MiB, p.um_prefetch_bw));
	ck_assert_int_eq(b->end, a->end);
	ck_assert_int_eq(b->bytes, 0);
	for (i = 0; i < t->nspans; i++)
		moves += t->spans[i].kind == HD_SPAN_PREFETCH &&
		    t->lanes[t->spans[i].lane].kind == HD_LANE_CE_H2D;
	ck_assert_int_eq(moves, 1);
	ck_assert_int_eq(count_kind(t, HD_SPAN_FAULT), 0);
	k = need(t, 2, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	ck_assert(k->start >= a->end);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A prefetch to the device of pages a kernel is faulting in moves the rest
 * (what the kernel's batch in progress does not cover), and the kernel
 * waits for it: sooner than its faults alone, which move none after. */
START_TEST(prefetch_takes_over_faults)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s1 = sc_stream(sc, "s1", HD_STREAM_NONBLOCKING);
	int s2 = sc_stream(sc, "s2", HD_STREAM_NONBLOCKING);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 256 * MiB);
	const struct hd_span *k0, *k1, *pf, *f;
	struct hd_trace *t0, *t1;

	sc_kernel_mem(sc, s1, m);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t0 = run_p(sc, &p); /* the faults alone */
	sc->nops = 1;
	sc_op(sc, HD_OP_HOST, 0)->duration = 50 * HD_US; /* while faults are under way */
	sc_prefetch(sc, s2, m, true);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t1 = run_p(sc, &p);
	k0 = need(t0, 0, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	k1 = need(t1, 0, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	pf = need(t1, 2, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	f = need(t1, 0, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT);
	/* it moved part of the buffer: neither nothing nor all of it */
	ck_assert(pf->bytes > 0 && pf->bytes < 256 * MiB);
	ck_assert_uint_eq(f->bytes + pf->bytes, 256 * MiB); /* between them, all of it */
	/* the faults stopped before the prefetch arrived; the kernel ran after it */
	ck_assert(f->end <= pf->end);
	ck_assert(k1->start >= pf->end);
	ck_assert(k1->end < k0->end);
	hd_trace_free(t0);
	hd_trace_free(t1);
	sc_free(sc);
}
END_TEST

/* A copy whose host side is managed memory is staged like a pageable one:
 * even cudaMemcpyAsync waits for its stream.  Pages a prefetch put on the
 * device the CPU faults over first (um.host_fault, then whole um.page
 * groups at um.host_fault_rate reading, um.host_fault_write writing), once:
 * a second copy of them, either way, faults nothing more.  A kernel on
 * them brings them back (a round trip), so the next copy faults them over
 * again; a prefetch to the device moves those a copy wrote; the CPU's
 * writes (a host-to-host copy) bring them back, and a prefetch to the
 * device then moves those. */
START_TEST(managed_copy_faults_back)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s = sc_stream(sc, "s", HD_STREAM_NONBLOCKING);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 64 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 64 * MiB);
	int h = sc_buf(sc, "h", HD_MEM_PAGEABLE, 64 * MiB);
	const struct hd_span *f, *k, *c;
	struct hd_op *op;
	struct hd_trace *t;

	p.um_host_fault = 50 * HD_US;
	p.um_host_fault_bw = 4e9;
	p.um_host_fault_write_bw = 2e9;
	p.um_prefetch_base = 100 * HD_US;
	p.um_page = 64 * 1024;
	sc_prefetch(sc, 0, m, true);     /* op 0 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0); /* op 1 */
	sc_spin(sc, s, 1000 * HD_US, 1); /* op 2 */
	op = sc_copy(sc, s, m, d, true); /* op 3: 1 MiB + 1 B, reading */
	op->bytes = MiB + 1;
	op = sc_copy(sc, 0, m, d, false); /* op 4: again */
	op->bytes = MiB;
	sc_kernel_mem(sc, 0, m);          /* op 5: brings back the pages read */
	op = sc_copy(sc, 0, d, m, false); /* op 6: 2 MiB, writing */
	op->bytes = 2 * MiB;
	sc_prefetch(sc, 0, m, true);      /* op 7: the 2 MiB written */
	op = sc_copy(sc, 0, h, m, false); /* op 8: 3 MiB, the CPU writing */
	op->bytes = 3 * MiB;
	sc_prefetch(sc, 0, m, true); /* op 9: those 3 MiB */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	k = need(t, 2, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	c = need(t, 3, 0, HD_LANE_API, HD_SPAN_API);
	ck_assert(c->end > k->end); /* the async copy waited for the kernel */
	f = need(t, 3, 0, HD_LANE_HOST, HD_SPAN_FAULT);
	ck_assert(f->start >= k->end);
	ck_assert_int_eq(f->end - f->start, 50 * HD_US + hd_time_for_bytes(MiB + 64.0 * 1024, 4e9));
	ck_assert_int_eq(f->bytes, MiB + 64 * 1024);
	ck_assert_ptr_null(span_of(t, 4, 0, HD_LANE_HOST, HD_SPAN_FAULT));
	ck_assert_int_eq(need(t, 5, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT)->bytes, MiB + 64 * 1024);
	f = need(t, 6, 0, HD_LANE_HOST, HD_SPAN_FAULT);
	ck_assert_int_eq(f->bytes, 2 * MiB);
	ck_assert_int_eq(f->end - f->start, 50 * HD_US + hd_time_for_bytes(2.0 * MiB, 2e9));
	ck_assert_int_eq(need(t, 7, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH)->bytes, 2 * MiB);
	f = need(t, 9, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(f->bytes, 3 * MiB);
	ck_assert_int_eq(f->end - f->start,
			 100 * HD_US + hd_time_for_bytes(3.0 * MiB, p.um_prefetch_bw));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* Duration of op's fault span on the compute lane (the kernel's wait for
 * its pages), or -1 when it faults nothing. */
static hd_time
fault_wait(const struct hd_trace *t, int op)
{
	return span_len(t, op, HD_LANE_COMPUTE, HD_SPAN_FAULT);
}

/* A kernel and a small copy out of the same managed buffer, in turn: each
 * copy faults a group over to the host, each kernel brings it back (a
 * round trip).  Trips in a row within 500 us of each other set off the
 * driver's thrashing heuristics: from the fourth the kernel waits a nap
 * first, and after the naps the pages stay pinned on the host, nothing
 * moving (on lent H100s, with each repeat on a buffer of its own, 8
 * rounds took 2.1-2.6 ms, 32 rounds 7.3-9.0, 128 rounds 9.9-10.7:
 * bench/probe/umthrash.hds).  Rounds further apart than that never nap.  A
 * new allocation starts on the host again, its record cleared. */
START_TEST(managed_round_trips_nap_then_pin)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 169000);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 512);
	struct hd_trace *t;
	struct hd_op *op;
	hd_time plain, first = -1;
	int i, naps = 0, pinned = 0;

	p.um_host_fault = 50 * HD_US;
	p.um_host_fault_bw = 4e9;
	p.um_page = 64 * 1024;     /* h100-sxm's: the kernel writes past the first page */
	for (i = 0; i < 40; i++) { /* ops 0-79 */
		sc_kernel_mem(sc, 0, m);
		op = sc_copy(sc, 0, m, d, false);
		op->bytes = 19;
	}
	sc_op(sc, HD_OP_ALLOC, 0)->dst = m; /* op 80 */
	for (i = 0; i < 6; i++) {           /* ops 81-98: 1 ms of host work apart */
		sc_kernel_mem(sc, 0, m);
		sc_copy(sc, 0, m, d, false)->bytes = 19;
		sc_op(sc, HD_OP_HOST, 0)->duration = HD_MS;
	}
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	plain = fault_wait(t, 2); /* the second trip: a round trip, no nap */
	ck_assert(plain > 0);
	ck_assert_ptr_nonnull(span_of(t, 1, 0, HD_LANE_HOST, HD_SPAN_FAULT));
	ck_assert_ptr_nonnull(span_of(t, 3, 0, HD_LANE_HOST, HD_SPAN_FAULT));
	ck_assert_int_eq(fault_wait(t, 4), plain); /* the third: none yet */
	for (i = 3; i < 40; i++) {
		hd_time w = fault_wait(t, 2 * i);

		if (w < 0) { /* pinned: neither side moves the pages again */
			pinned++;
			ck_assert_ptr_null(span_of(t, 2 * i + 1, 0, HD_LANE_HOST, HD_SPAN_FAULT));
			continue;
		}
		ck_assert_msg(pinned == 0, "round %d faults after the pin", i);
		ck_assert_msg(w >= plain + 200 * HD_US, "round %d waited %lld ps", i, (long long)w);
		if (first < 0)
			first = w;
		ck_assert_int_eq(w, first); /* every nap alike */
		naps++;
	}
	ck_assert_msg(naps >= 10 && pinned >= 5, "%d naps, %d rounds pinned", naps, pinned);
	/* a new allocation: fresh pages, and rounds 1 ms apart never nap */
	ck_assert_ptr_nonnull(span_of(t, 81, 0, HD_LANE_PCIE_H2D, HD_SPAN_FAULT));
	for (i = 1; i < 6; i++) {
		hd_time w = fault_wait(t, 81 + 3 * i);

		ck_assert_msg(w > 0 && w < plain + 200 * HD_US, "round %d waited %lld ps", i,
			      (long long)w);
	}
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A READ and a host-to-host copy out of one managed buffer, in turn: the
 * READ's DMA brings the pages to the device, the CPU's copy faults them
 * back, and the next READ brings them over again (a trip, as a kernel's:
 * from the fourth in a row within 500 us the driver throttles it).  On
 * two lent H100s 9 B READs of a 26 B buffer and 9 B copies out of it to
 * pinned memory took 0.35-0.39 ms a round over 4, 9 and 20 rounds
 * (bench/probe/umtiny.hds, umflip.hds).  READs alone move nothing after
 * the first two, nor READs beside the driver's staged copies. */
START_TEST(read_and_copy_round_trips)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 26);
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 64);
	const struct hd_span *f;
	hd_time plain = 0;
	struct hd_trace *t;
	int i;

	p.um_host_fault = 50 * HD_US;
	p.um_host_fault_bw = 4e9;
	for (i = 0; i < 6; i++) { /* ops 0-17 */
		sc_op(sc, HD_OP_READ, 0)->src = m;
		sc->ops[sc->nops - 1].bytes = 9;
		sc_copy(sc, 0, m, h, true)->bytes = 9;
		sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	}
	for (i = 0; i < 4; i++) /* ops 18-21: READs alone, after the last copy */
		sc_op(sc, HD_OP_READ, 0)->src = m;
	sc_copy(sc, 0, m, h, true)->bytes = 9; /* op 22 */
	sc_copy(sc, 0, m, h, true)->bytes = 9; /* op 23 */
	t = run_p(sc, &p);
	ck_assert(span_len(t, 22, HD_LANE_HOST, HD_SPAN_HOST) >
		  span_len(t, 23, HD_LANE_HOST, HD_SPAN_HOST));
	for (i = 0; i < 6; i++) {
		hd_time w;

		f = span_of(t, 3 * i, 0, HD_LANE_HOST, HD_SPAN_FAULT);
		ck_assert_msg(f != NULL, "READ %d moved nothing", i);
		w = f->end - f->start;
		if (i == 1)
			plain = w;
		if (i >= 1 && i < 3) /* the second and third trips: no nap */
			ck_assert_int_eq(w, plain);
		if (i >= 3) /* the fourth trip on: the driver's nap first */
			ck_assert_msg(w >= plain + 200 * HD_US, "READ %d took %lld ps", i,
				      (long long)w);
		/* the CPU's copy faults the pages back each time: as long as
		 * op 22's, longer than op 23's, which finds them open */
		ck_assert_msg(span_len(t, 3 * i + 1, HD_LANE_HOST, HD_SPAN_HOST) ==
				  span_len(t, 22, HD_LANE_HOST, HD_SPAN_HOST),
			      "copy %d faulted nothing back", i);
	}
	/* the first READ after the last copy brings the pages back; the one
	 * after it opens them to READs (UM_DEV_READ), and the rest find them
	 * so, while a copy still faults them back (op 22) */
	ck_assert_ptr_nonnull(span_of(t, 18, 0, HD_LANE_HOST, HD_SPAN_FAULT));
	for (i = 20; i < 22; i++)
		ck_assert_ptr_null(span_of(t, i, 0, HD_LANE_HOST, HD_SPAN_FAULT));
	hd_trace_free(t);
	sc_free(sc);

	/* the driver's staged copy out of it to the device instead: no trip
	 * (heldout26 001 and heldout17 017 on lent H200s) */
	sc = sc_new("um");
	m = sc_buf(sc, "m", HD_MEM_MANAGED, 26);
	h = sc_buf(sc, "d", HD_MEM_DEVICE, 64);
	for (i = 0; i < 6; i++) { /* ops 0-17 */
		sc_op(sc, HD_OP_READ, 0)->src = m;
		sc->ops[sc->nops - 1].bytes = 9;
		sc_copy(sc, 0, m, h, true)->bytes = 9;
		sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	}
	t = run_p(sc, &p);
	ck_assert_ptr_nonnull(span_of(t, 0, 0, HD_LANE_HOST, HD_SPAN_FAULT));
	for (i = 1; i < 6; i++)
		ck_assert_msg(span_of(t, 3 * i, 0, HD_LANE_HOST, HD_SPAN_FAULT) == NULL,
			      "READ %d after a staged copy moved pages", i);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* Two prefetches of one buffer in flight the opposite ways: the newer one
 * decides where the pages end up, whichever arrives last.  Here the newer
 * one, to the device, arrives first; the older one to the host, four times
 * slower, arrives after it and moves nothing back, so a kernel then finds
 * the pages on the device.  A prefetch that only walks pages already there
 * does not move them back either after a kernel faulted them over. */
START_TEST(newest_prefetch_decides)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s1 = sc_stream(sc, "s1", HD_STREAM_NONBLOCKING);
	int s2 = sc_stream(sc, "s2", HD_STREAM_NONBLOCKING);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 64 * MiB);
	const struct hd_span *to_host, *to_dev;
	struct hd_trace *t;

	p.um_prefetch_base = 100 * HD_US;
	p.um_prefetch_d2h_bw = p.um_prefetch_bw / 4;
	sc_prefetch(sc, s1, m, true); /* op 0 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	sc_prefetch(sc, s1, m, false); /* op 2: older, slower */
	sc_prefetch(sc, s2, m, true);  /* op 3: newer */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	sc_kernel_mem(sc, s1, m); /* op 5 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	to_host = need(t, 2, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	to_dev = need(t, 3, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert(to_dev->end < to_host->end);
	ck_assert_ptr_null(span_of(t, 5, 0, HD_LANE_PCIE_H2D, HD_SPAN_FAULT));
	hd_trace_free(t);
	sc_free(sc);

	/* fresh pages on the host; the walk to the host behind a spin kernel
	 * ends after a kernel on another stream faulted them over */
	sc = sc_new("um");
	s1 = sc_stream(sc, "s1", HD_STREAM_NONBLOCKING);
	s2 = sc_stream(sc, "s2", HD_STREAM_NONBLOCKING);
	m = sc_buf(sc, "m", HD_MEM_MANAGED, 64 * MiB);
	p.um_walk_bw = 500e9;                        /* 64 MiB: 134 us */
	sc_spin(sc, s1, 10 * HD_MS, 1);              /* op 0 */
	sc_prefetch(sc, s1, m, false);               /* op 1: walks them */
	sc_spin(sc, s2, 10 * HD_MS + 50 * HD_US, 1); /* op 2 */
	sc_kernel_mem(sc, s2, m);                    /* op 3: faults them over */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	sc_kernel_mem(sc, s2, m); /* op 5: finds them there */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	ck_assert_int_eq(need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH)->bytes, 0);
	ck_assert(need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH)->end >
		  need(t, 3, 0, HD_LANE_PCIE_H2D, HD_SPAN_FAULT)->start);
	ck_assert_ptr_null(span_of(t, 5, 0, HD_LANE_PCIE_H2D, HD_SPAN_FAULT));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A prefetch to the device moves back the pages a copy wrote into or the
 * CPU read out of (host to host), not those a staged copy only read. */
START_TEST(prefetch_moves_copied_pages)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 4 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 4 * MiB);
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 4 * MiB);
	const struct hd_span *pf;
	struct hd_trace *t;
	hd_time moved;

	p.um_prefetch_base = 100 * HD_US;
	p.um_host_fault = 50 * HD_US;
	p.um_host_fault_bw = 4e9;
	p.um_page = 64 * 1024;
	sc_prefetch(sc, 0, m, true);             /* op 0 */
	sc_copy(sc, 0, d, m, false)->bytes = 19; /* op 1: written by the copy */
	sc_prefetch(sc, 0, m, true);             /* op 2: moves its page group */
	sc_copy(sc, 0, m, d, false)->bytes = 19; /* op 3: read by a staged copy */
	sc_prefetch(sc, 0, m, true);             /* op 4: moves nothing */
	sc_copy(sc, 0, m, h, false)->bytes = 19; /* op 5: read by the CPU */
	sc_prefetch(sc, 0, m, true);             /* op 6: moves its page group */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	moved = 100 * HD_US + hd_time_for_bytes(64.0 * 1024, p.um_prefetch_bw);
	pf = need(t, 2, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(pf->end - pf->start, moved);
	pf = need(t, 4, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(pf->end - pf->start, p.copy_latency);
	pf = need(t, 6, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	ck_assert_int_eq(pf->end - pf->start, moved);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* Whatever a kernel does to the pages the driver's copies opened to the
 * host, it brings them back, and the next copy faults them over again: a
 * fill and a 19 B copy out, a memory kernel and a 19 B copy in, each round
 * both ways (on a lent H100, with each repeat on a buffer of its own, 50
 * rounds of a fill and a copy out took 8.6 ms, of a memory kernel and a
 * copy in 8.8, against 1.1 with a 4 B read instead of the copy:
 * bench/probe/umkcopy.hds, run88).  A copy that writes all of the buffer
 * brings it back, and the next kernel faults it in. */
START_TEST(kernel_brings_back_host_copy)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 4 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 4 * MiB);
	const struct hd_span *f;
	struct hd_trace *t;
	struct hd_op *op;
	int i;

	p.um_host_fault = 50 * HD_US;
	p.um_host_fault_bw = 4e9;
	p.um_host_fault_write_bw = 2e9;
	p.um_page = 64 * 1024;
	sc_prefetch(sc, 0, m, true); /* op 0 */
	for (i = 0; i < 3; i++) {    /* ops 1-6: fill, copy out */
		op = sc_op(sc, HD_OP_KERNEL, 0);
		op->kernel = HD_KERNEL_FILL;
		op->dst = m;
		op = sc_copy(sc, 0, m, d, false);
		op->bytes = 19;
	}
	for (i = 0; i < 3; i++) { /* ops 7-12: memory kernel, copy in */
		sc_kernel_mem(sc, 0, m);
		op = sc_copy(sc, 0, d, m, false);
		op->bytes = 19;
	}
	sc_copy(sc, 0, d, m, false); /* op 13: all of it, written */
	sc_kernel_mem(sc, 0, m);     /* op 14: faults it in */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	ck_assert_ptr_null(span_of(t, 1, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT));
	for (i = 2; i <= 12; i += 2) { /* each copy faults a group over */
		f = need(t, i, 0, HD_LANE_HOST, HD_SPAN_FAULT);
		ck_assert_int_eq(f->bytes, 64 * 1024);
	}
	for (i = 3; i <= 11; i += 2) /* each kernel after one brings it back */
		ck_assert_int_eq(need(t, i, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT)->bytes, 64 * 1024);
	f = need(t, 13, 0, HD_LANE_HOST, HD_SPAN_FAULT); /* op 12's group is over already */
	ck_assert_int_eq(f->bytes, 4 * MiB - 64 * 1024);
	ck_assert_int_eq(f->end - f->start,
			 50 * HD_US + hd_time_for_bytes(4.0 * MiB - 64 * 1024, 2e9));
	ck_assert_ptr_nonnull(span_of(t, 14, 0, HD_LANE_PCIE_H2D, HD_SPAN_FAULT));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A READ of managed memory on the device is the copy engine's alone: the
 * kernel after it brings nothing back (a memory kernel and a 4 B read of
 * 169 KB of managed memory, 50 rounds, took 1.1 ms on a lent H100 with each
 * repeat on a buffer of its own: bench/probe/umkcopy.hds kmem_read, run88). */
START_TEST(read_is_no_round_trip)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 169000);
	struct hd_trace *t;
	int i;

	p.um_page = 64 * 1024;
	for (i = 0; i < 10; i++) { /* ops 0-19 */
		sc_kernel_mem(sc, 0, m);
		sc_op(sc, HD_OP_READ, 0)->src = m;
	}
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	ck_assert_ptr_nonnull(span_of(t, 0, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT));
	for (i = 1; i < 10; i++)
		ck_assert_ptr_null(span_of(t, 2 * i, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT));
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A copy out of managed memory returns when its DMA is done, async or not
 * (the wake-up after it), where one out of pageable memory returns after
 * its last chunk's CPU copy: on a lent H200 50 rounds of a memory kernel
 * and a 19 B cudaMemcpy out of 169 KB of managed memory took 1.30-1.32 ms,
 * 1.12 modelled so, 0.87 without (bench/probe/umkcopy.hds). */
START_TEST(managed_copy_waits_for_dma)
{
	struct hd_profile p = test_profile();
	struct hd_scenario *sc = sc_new("um");
	int s = sc_stream(sc, "s", HD_STREAM_NONBLOCKING);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 16 * MiB);
	int g = sc_buf(sc, "g", HD_MEM_PAGEABLE, 16 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 16 * MiB);
	const struct hd_span *api, *cp;
	struct hd_trace *t;
	int k;

	for (k = 0; k < 2; k++) {
		sc_copy(sc, s, g, d, k == 1); /* ops 0, 2 */
		sc_copy(sc, s, m, d, k == 1); /* ops 1, 3 */
	}
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	for (k = 0; k < 4; k++) {
		api = need(t, k, 0, HD_LANE_API, HD_SPAN_API);
		cp = need(t, k, 0, HD_LANE_STREAM, HD_SPAN_COPY);
		if (k % 2 == 0)
			ck_assert(api->end < cp->end);
		else
			ck_assert(api->end >= cp->end + p.sync_wake);
	}
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* cudaMemcpyAsync from pageable memory of at most 64 KiB returns without
 * waiting for its stream; 128 KiB waits. */
START_TEST(small_pageable_async_returns)
{
	struct hd_scenario *sc = sc_new("inline");
	int s = sc_stream(sc, "s", HD_STREAM_NONBLOCKING);
	int g = sc_buf(sc, "g", HD_MEM_PAGEABLE, 128 * 1024);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 128 * 1024);
	const struct hd_span *k;
	struct hd_op *op;
	struct hd_trace *t;

	sc_spin(sc, s, 1000 * HD_US, 1);
	op = sc_copy(sc, s, g, d, true);
	op->bytes = 64 * 1024;
	sc_copy(sc, s, g, d, true);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	k = need(t, 0, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	ck_assert(need(t, 1, 0, HD_LANE_API, HD_SPAN_API)->end < k->end);
	ck_assert_ptr_null(span_of(t, 1, 0, HD_LANE_HOST, HD_SPAN_STAGING));
	ck_assert(need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_COPY)->start >= k->end);
	ck_assert(need(t, 2, 0, HD_LANE_API, HD_SPAN_API)->end > k->end);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* A host-to-host cudaMemcpy waits for the legacy stream, and so for a
 * blocking stream's kernel, not for a non-blocking stream's; then the CPU
 * copies. */
START_TEST(host_copy_waits_for_legacy)
{
	struct hd_scenario *sc = sc_new("h2h");
	int sb = sc_stream(sc, "sb", 0);
	int sn = sc_stream(sc, "sn", HD_STREAM_NONBLOCKING);
	int g = sc_buf(sc, "g", HD_MEM_PAGEABLE, 4096);
	int q = sc_buf(sc, "q", HD_MEM_PINNED, 4096);
	const struct hd_span *k1, *k2;
	struct hd_trace *t;

	sc_spin(sc, sn, 500 * HD_US, 1); /* op 0 */
	sc_copy(sc, 0, g, q, false);     /* op 1: does not wait for it */
	sc_spin(sc, sb, 500 * HD_US, 1); /* op 2 */
	sc_copy(sc, 0, g, q, false);     /* op 3: waits */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	k1 = need(t, 0, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	k2 = need(t, 2, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	ck_assert(need(t, 1, 0, HD_LANE_API, HD_SPAN_API)->end < k1->end);
	ck_assert(need(t, 3, 0, HD_LANE_HOST, HD_SPAN_HOST)->start >= k2->end);
	ck_assert_int_eq(need(t, 3, 0, HD_LANE_API, HD_SPAN_BLOCKED)->why, HD_WHY_SYNC_COPY);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* --- 7: determinism -------------------------------------------------------------------- */

static struct hd_scenario *
mixed_scenario(uint64_t bytes)
{
	struct hd_scenario *sc = sc_new("mixed");
	int s1 = sc_stream(sc, "s1", 0), s2 = sc_stream(sc, "s2", HD_STREAM_NONBLOCKING);
	int hp = sc_buf(sc, "hp", HD_MEM_PINNED, bytes);
	int hq = sc_buf(sc, "hq", HD_MEM_PAGEABLE, bytes);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, bytes);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, bytes);
	int e = sc_event(sc, "e");
	struct hd_op *op;

	sc_op(sc, HD_OP_ALLOC, 0)->dst = hp;
	op = sc_op(sc, HD_OP_REPEAT, 0);
	op->count = 3;
	op->body_len = 7;
	sc_copy(sc, s1, hp, d, true);
	sc_copy(sc, s2, hq, d, true);
	op = sc_op(sc, HD_OP_KERNEL, s1);
	op->kernel = HD_KERNEL_REDUCE;
	op->src = m;
	op = sc_op(sc, HD_OP_RECORD, s1);
	op->event = e;
	op = sc_op(sc, HD_OP_WAIT, s2);
	op->event = e;
	sc_copy(sc, s2, d, hp, true);
	op = sc_op(sc, HD_OP_READ, 0);
	op->src = d;
	op->bytes = 4;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	sc_op(sc, HD_OP_FREE, 0)->dst = hp;
	return sc;
}

START_TEST(deterministic)
{
	struct hd_scenario *sc = mixed_scenario(32 * MiB);
	struct hd_scenario *sc2 = mixed_scenario(32 * MiB + 4096);
	struct hd_trace *a = run(sc), *b = run(sc), *c = run(sc2);

	ck_assert_uint_gt(a->nspans, 50);
	ck_assert_int_eq(hd_trace_cmp(a, b), 0);
	ck_assert_uint_eq(hd_trace_digest(a), hd_trace_digest(b));
	/* and the digest does see a change */
	ck_assert_int_ne(hd_trace_cmp(a, c), 0);
	ck_assert_uint_ne(hd_trace_digest(a), hd_trace_digest(c));
	/* the loop ran its body three times */
	ck_assert_uint_eq(hd_trace_op_time(a, 2).execs, 3);
	ck_assert_uint_eq(hd_trace_op_time(a, 2).bytes, 3 * 32 * MiB);
	hd_trace_free(a);
	hd_trace_free(b);
	hd_trace_free(c);
	sc_free(sc);
	sc_free(sc2);
}
END_TEST

/* --- 8: sharing the link ---------------------------------------------------------------- */

START_TEST(same_direction_fifo)
{
	struct hd_scenario *sc = sc_new("fifo");
	int s1 = sc_stream(sc, "s1", 0), s2 = sc_stream(sc, "s2", 0);
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 64 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 64 * MiB);
	const struct hd_span *a, *b;
	struct hd_trace *t;

	sc_copy(sc, s1, h, d, true);
	sc_copy(sc, s2, h, d, true);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	/* one HtoD engine: the second copy waits for the first */
	a = need(t, 0, 0, HD_LANE_CE_H2D, HD_SPAN_COPY);
	b = need(t, 1, 0, HD_LANE_CE_H2D, HD_SPAN_COPY);
	ck_assert_int_ge(b->start, a->end);
	ck_assert_int_eq(b->end - b->start, a->end - a->start);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

START_TEST(bidirectional_shares)
{
	struct hd_scenario *sc = sc_new("bidir");
	int s1 = sc_stream(sc, "s1", 0), s2 = sc_stream(sc, "s2", 0);
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 64 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 64 * MiB);
	const struct hd_span *up, *down;
	struct hd_trace *t;
	double total;

	sc_copy(sc, s1, h, d, true); /* op 0: HtoD */
	sc_copy(sc, s2, d, h, true); /* op 1: DtoH */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	up = need(t, 0, 0, HD_LANE_PCIE_H2D, HD_SPAN_COPY);
	down = need(t, 1, 0, HD_LANE_PCIE_D2H, HD_SPAN_COPY);
	/*
	 * HtoD on the wire from 6 us alone at 50 GB/s: 200000 B by 10 us,
	 * when DtoH (submitted at 8 us) starts; both then share the 80 GB/s
	 * host side at 40 GB/s each.  HtoD's other 66908864 B take
	 * 1672721600 ps: it ends at 1682721600.  DtoH has moved as much by
	 * then, and its last 200000 B at 50 GB/s take 4 us: 1686721600.
	 */
	ck_assert_int_eq(up->start, 6000000);
	ck_assert_int_eq(up->end, 1682721600);
	ck_assert_int_eq(down->start, 10000000);
	ck_assert_int_eq(down->end, 1686721600);
	/* each slower than alone (1342177280 ps), together under bidir_bw */
	ck_assert_int_gt(up->end - up->start, 1342177280);
	ck_assert_int_gt(down->end - down->start, 1342177280);
	total = 2.0 * 64 * MiB / ((double)(down->end - up->start) / 1e12);
	ck_assert(total <= 80e9);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

START_TEST(one_engine_serialises)
{
	struct hd_scenario *sc = sc_new("one-ce");
	int s1 = sc_stream(sc, "s1", 0), s2 = sc_stream(sc, "s2", 0);
	int h = sc_buf(sc, "h", HD_MEM_PINNED, 64 * MiB);
	int d = sc_buf(sc, "d", HD_MEM_DEVICE, 64 * MiB);
	struct hd_profile p = test_profile();
	const struct hd_span *up, *down;
	struct hd_trace *t;

	p.copy_engines = 1;
	sc_copy(sc, s1, h, d, true);
	sc_copy(sc, s2, d, h, true);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	up = need(t, 0, 0, HD_LANE_CE_H2D, HD_SPAN_COPY);
	down = need(t, 1, 0, HD_LANE_CE_D2H, HD_SPAN_COPY);
	ck_assert_int_ge(down->start, up->end);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* --- 9: queue and SM limits ---------------------------------------------------------------- */

START_TEST(queue_full_blocks)
{
	struct hd_scenario *sc = sc_new("queue");
	int s = sc_stream(sc, "s", 0);
	struct hd_profile p = test_profile();
	const struct hd_span *b, *k0;
	struct hd_trace *t;
	struct hd_op *op;

	p.stream_queue = 2;
	op = sc_op(sc, HD_OP_REPEAT, 0);
	op->count = 5;
	op->body_len = 1;
	sc_spin(sc, s, HD_MS, 0); /* op 1 */
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run_p(sc, &p);
	/* the first two launches go through; the third waits for the first
	 * kernel to finish */
	ck_assert(span_of(t, 1, 1, HD_LANE_API, HD_SPAN_BLOCKED) == NULL);
	b = need(t, 1, 2, HD_LANE_API, HD_SPAN_BLOCKED);
	k0 = need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_KERNEL);
	ck_assert_int_eq(b->why, HD_WHY_QUEUE_FULL);
	ck_assert_int_eq(b->end, k0->end + p.sync_wake);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

static int
kernels_overlap(uint32_t grid)
{
	struct hd_scenario *sc = sc_new("sms");
	int s1 = sc_stream(sc, "s1", 0), s2 = sc_stream(sc, "s2", 0);
	const struct hd_span *a, *b;
	struct hd_trace *t;
	int r;

	sc_spin(sc, s1, HD_MS, grid);
	sc_spin(sc, s2, HD_MS, grid);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	a = need(t, 0, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	b = need(t, 1, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	r = b->start < a->end && a->start < b->end;
	hd_trace_free(t);
	sc_free(sc);
	return r;
}

/* Kernels take room on the SMs, 2048 threads or 32 blocks an SM, and run
 * side by side while it lasts: spin kernels (one warp a block, one block
 * without a grid) beside each other up to 32 blocks an SM of the two (two
 * 3 ms spin kernels on two streams took 3.03 ms on a lent H200,
 * bench/probe/coreside.hds; the model that gave each kernel every SM said
 * 6.01). */
START_TEST(kernel_concurrency)
{
	ck_assert_int_eq(kernels_overlap(0), 1);
	ck_assert_int_eq(kernels_overlap(60), 1);
	ck_assert_int_eq(kernels_overlap(1600), 1); /* 3200 blocks: 32 on each of 100 SMs */
	ck_assert_int_eq(kernels_overlap(1601), 0);
}
END_TEST

/* n (2 or 3) kernels of kinds k[] and grids g[] launched back to back on
 * n streams, each on a 256 MiB buffer of its own (compute: 100 GFLOP, 2 ms
 * at the test profile's 50 TFLOP/s; spin: 1 ms): the compute lane's span
 * from the first start to the last end, and whether the last started
 * before the first ended. */
static hd_time
kernels_side(int n, const enum hd_kernel_kind *k, const uint32_t *g, int *last_beside)
{
	struct hd_scenario *sc = sc_new("side");
	const struct hd_span *s[3];
	struct hd_trace *t;
	hd_time lo, hi;
	int i;

	for (i = 0; i < n; i++) {
		char name[8];
		struct hd_op *op;

		snprintf(name, sizeof name, "s%d", i);
		op = sc_kernel_mem(sc, sc_stream(sc, name, 0),
				   sc_buf(sc, name, HD_MEM_DEVICE, 256 * MiB));
		op->kernel = k[i];
		op->grid = g[i];
		op->flops = 100e9;
		op->duration = HD_MS;
	}
	t = run(sc);
	lo = HD_TIME_MAX;
	hi = 0;
	for (i = 0; i < n; i++) {
		s[i] = need(t, i, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
		lo = s[i]->start < lo ? s[i]->start : lo;
		hi = s[i]->end > hi ? s[i]->end : hi;
	}
	*last_beside = s[n - 1]->start < s[0]->end;
	hd_trace_free(t);
	sc_free(sc);
	return hi - lo;
}

/* Kernels side by side share what they draw on (lent H200,
 * bench/probe/coreside.hds, 2026-11-28): two full grids of compute took
 * 5.75 ms, one 2.90, so the FP32 pipes split between them; a full grid of
 * compute and one of memory traffic took 2.90 ms, as the compute alone
 * (the model that gave each kernel every SM said 3.16); two compute
 * kernels of 66 blocks on 132 SMs, 3.03 ms, as one.  A full grid takes
 * half of every SM's room: a third kernel waits for the first two. */
START_TEST(kernels_share_pipes)
{
	static const enum hd_kernel_kind cc[] = { HD_KERNEL_COMPUTE, HD_KERNEL_COMPUTE,
						  HD_KERNEL_COMPUTE },
					 cm[] = { HD_KERNEL_COMPUTE, HD_KERNEL_MEMORY },
					 ccs[] = { HD_KERNEL_COMPUTE, HD_KERNEL_COMPUTE,
						   HD_KERNEL_SPIN };
	static const uint32_t full[] = { 0, 0, 0 }, half[] = { 50, 50, 0 };
	const double two_ms = 2e-3 * 1e12;
	hd_time span;
	int last;

	span = kernels_side(2, cc, full, &last);
	ck_assert_int_eq(last, 1);
	ck_assert_msg(span > (hd_time)(1.99 * two_ms) && span < (hd_time)(2.01 * two_ms),
		      "two full compute grids: %lld ps", (long long)span);
	span = kernels_side(2, cm, full, &last);
	ck_assert_msg(span < (hd_time)(1.01 * two_ms), "compute beside memory: %lld ps",
		      (long long)span);
	/* each reaches half the SMs: 4 ms alone, 4 ms side by side */
	span = kernels_side(2, cc, half, &last);
	ck_assert_msg(span > (hd_time)(1.99 * two_ms) && span < (hd_time)(2.01 * two_ms),
		      "two half grids: %lld ps", (long long)span);
	kernels_side(3, cc, full, &last);
	ck_assert_int_eq(last, 0);
	kernels_side(3, ccs, full, &last);
	ck_assert_int_eq(last, 0); /* two full grids fill every SM's 2048 threads */
	kernels_side(3, ccs, half, &last);
	ck_assert_int_eq(last, 1); /* beside two half grids one warp still fits */
}
END_TEST

/* --- 10: managed memory ---------------------------------------------------------------- */

static void
managed_case(int prefetch, hd_time *kernel, hd_time *makespan, int *faults)
{
	struct hd_scenario *sc = sc_new("um");
	int s = sc_stream(sc, "s", 0);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 64 * MiB);
	const struct hd_span *k;
	struct hd_trace *t;
	struct hd_op *op;

	if (prefetch) {
		sc_prefetch(sc, s, m, true);
	} else
		sc_op(sc, HD_OP_EVENT_QUERY, 0)->event = sc_event(sc, "e");
	op = sc_op(sc, HD_OP_KERNEL, s); /* op 1 */
	op->kernel = HD_KERNEL_REDUCE;
	op->src = m;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	k = need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_KERNEL);
	*kernel = k->end - k->start;
	*makespan = t->makespan;
	*faults = count_kind(t, HD_SPAN_FAULT);
	hd_trace_free(t);
	sc_free(sc);
}

START_TEST(managed_faults)
{
	hd_time k_fault, k_pre, ms_fault, ms_pre;
	int f_fault, f_pre;

	managed_case(0, &k_fault, &ms_fault, &f_fault);
	managed_case(1, &k_pre, &ms_pre, &f_pre);
	/*
	 * Faulting: 32 groups of 2 MiB at 20 us = 640 us, then 64 MiB at
	 * 10 GB/s = 6710.88640 us, then the reduce: 2 us + 64 MiB / 2 TB/s.
	 */
	ck_assert_int_eq(
	    k_fault, 640 * HD_US + 6710886400LL + 2 * HD_US + hd_time_for_bytes(64.0 * MiB, 2e12));
	ck_assert_int_eq(k_pre, 2 * HD_US + hd_time_for_bytes(64.0 * MiB, 2e12));
	ck_assert_int_eq(f_fault, 33); /* compute lane, and a PCIe span per group */
	ck_assert_int_eq(f_pre, 0);
	ck_assert_int_lt(ms_pre, ms_fault);
}
END_TEST

/* A kernel reading a managed buffer of `bytes` on the host, with um.page =
 * `page`: its trace. */
static struct hd_trace *
fault_run(uint64_t bytes, uint64_t page)
{
	struct hd_scenario *sc = sc_new("um");
	struct hd_profile p = test_profile();
	int s = sc_stream(sc, "s", 0);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, bytes);
	struct hd_trace *t;
	struct hd_op *op;

	op = sc_op(sc, HD_OP_KERNEL, s);
	op->kernel = HD_KERNEL_REDUCE;
	op->src = m;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	p.um_page = page;
	t = run_p(sc, &p);
	sc_free(sc);
	return t;
}

/* The fault spans on the PCIe HtoD lane in order into out[] (at most max);
 * returns how many there are. */
static int
fault_spans(const struct hd_trace *t, const struct hd_span **out, int max)
{
	size_t i;
	int n = 0;

	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].kind == HD_SPAN_FAULT &&
		    t->lanes[t->spans[i].lane].kind == HD_LANE_PCIE_H2D) {
			if (n < max)
				out[n] = &t->spans[i];
			n++;
		}
	return n;
}

/*
 * Demand faults group by group: 5 MiB in groups of 2 MiB are three groups
 * (2, 2 and 1 MiB), each 20 us of fault handling with PCIe idle, then its
 * transfer at 10 GB/s as a span of its own; the kernel's stall on the
 * compute lane covers them all, and the kernel computes after the last.
 */
START_TEST(managed_fault_groups)
{
	struct hd_trace *t = fault_run(5 * MiB, 2 * MiB);
	const struct hd_span *f[4], *stall, *k;
	hd_time at, two = 209715200, one = 104857600; /* 2 and 1 MiB at 10 GB/s, ps */
	int i;

	ck_assert_int_eq(fault_spans(t, f, 4), 3);
	stall = need(t, 0, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT);
	at = stall->start;
	for (i = 0; i < 3; i++) {
		hd_time len = i < 2 ? two : one;

		ck_assert_int_eq(f[i]->start, at + 20 * HD_US);
		ck_assert_int_eq(f[i]->end, at + 20 * HD_US + len);
		ck_assert_uint_eq(f[i]->bytes, i < 2 ? 2 * MiB : 1 * MiB);
		at = f[i]->end;
	}
	ck_assert_int_eq(stall->end, f[2]->end);
	ck_assert_uint_eq(stall->bytes, 5 * MiB);
	ck_assert_int_eq(stall->end - stall->start, 3 * 20 * HD_US + 2 * two + one);
	k = need(t, 0, 0, HD_LANE_COMPUTE, HD_SPAN_KERNEL);
	ck_assert_int_eq(k->start, stall->end);
	hd_trace_free(t);
}
END_TEST

/*
 * Past 64 groups they go in 64 batches: 100 groups of 1 MiB make batches of
 * one or two groups (100 * b / 64 .. 100 * (b + 1) / 64), each its groups'
 * handling time then its bytes; the stall is what 100 groups one by one
 * take (100 x 20 us and 100 MiB at 10 GB/s), up to a picosecond a batch.
 */
START_TEST(managed_fault_batches)
{
	struct hd_trace *t = fault_run(100 * MiB, 1 * MiB);
	const struct hd_span *f[64], *stall;
	hd_time at, one = 104857600, want = 100 * 20 * HD_US + 100 * one;
	uint64_t total = 0, g0, g1;
	int i;

	ck_assert_int_eq(fault_spans(t, f, 64), 64);
	stall = need(t, 0, 0, HD_LANE_COMPUTE, HD_SPAN_FAULT);
	at = stall->start;
	for (i = 0; i < 64; i++) {
		g0 = 100u * (uint64_t)i / 64;
		g1 = 100u * (uint64_t)(i + 1) / 64;
		ck_assert_uint_eq(f[i]->bytes, (g1 - g0) * MiB);
		ck_assert_int_eq(f[i]->start, at + (hd_time)(g1 - g0) * 20 * HD_US);
		ck_assert_int_eq(f[i]->end - f[i]->start, (hd_time)(g1 - g0) * one);
		total += f[i]->bytes;
		at = f[i]->end;
	}
	ck_assert_uint_eq(total, 100 * MiB);
	ck_assert_int_eq(stall->end, at);
	ck_assert_int_ge(stall->end - stall->start, want);
	ck_assert_int_le(stall->end - stall->start, want + 64);
	hd_trace_free(t);
	/* a million groups of 1 byte: still 64 transfers */
	t = fault_run(1000000, 1);
	ck_assert_int_eq(fault_spans(t, f, 64), 64);
	hd_trace_free(t);
}
END_TEST

/* --- 11: a million iterations --------------------------------------------------------- */

struct counter {
	uint64_t spans;
	hd_time last;
};

static int
count_lane(void *ctx, enum hd_lane_kind kind, int rank, int index, const char *name)
{
	(void)ctx;
	(void)rank;
	(void)name;
	return (int)kind * 1000 + index;
}

static int
count_string(void *ctx, const char *s)
{
	(void)ctx;
	return (int)strlen(s);
}

static void
count_span(void *ctx, const struct hd_span *s)
{
	struct counter *c = ctx;

	c->spans++;
	if (s->end > c->last)
		c->last = s->end;
}

/* valgrind preloads its own libraries into the program it runs */
static int
under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");

	return p != NULL && strstr(p, "vgpreload") != NULL;
}

START_TEST(million_iterations)
{
	struct hd_scenario *sc = sc_new("loop");
	int s = sc_stream(sc, "s", 0);
	int e = sc_event(sc, "e");
	struct hd_profile p = test_profile();
	struct hd_model_stats st;
	struct counter c = { 0, 0 };
	struct hd_sink sink = { &c, count_lane, count_string, count_span, NULL, NULL, 0, NULL };
	struct timespec t0, t1;
	struct hd_err err;
	struct hd_op *op;
	double secs;

	memset(&err, 0, sizeof err);
	op = sc_op(sc, HD_OP_REPEAT, 0);
	op->count = 1000000;
	op->body_len = 3;
	sc_spin(sc, s, HD_US, 1);
	sc_op(sc, HD_OP_RECORD, s)->event = e;
	sc_op(sc, HD_OP_HOST, 0)->duration = HD_US;
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(hd_model_run(sc, &p, &sink, NULL, &st, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr,
		"million_iterations: %.3f s, %llu events, %llu spans, "
		"peak %zu events, %zu ops in flight\n",
		secs, (unsigned long long)st.events, (unsigned long long)st.spans, st.peak_pending,
		st.peak_ops);
	sc_free(sc);
	/* generous for a loaded machine; valgrind is ~50x slower, skip it there */
	if (!under_valgrind())
		ck_assert_msg(secs < 5.0, "took %.3f s", secs);
	/* kernel: API, stream, compute; record: API, event; host: 1 */
	ck_assert_uint_ge(c.spans, 6000000);
	ck_assert_uint_eq(c.spans, st.spans);
	ck_assert_uint_eq(st.op_execs, 3000001);
	ck_assert_int_eq(st.makespan, c.last);
	/* each iteration costs the host 5 + 2 + 1 us */
	ck_assert_int_ge(st.makespan, 8 * HD_S);
	/* work in flight stays small: memory does not grow with iterations */
	ck_assert_uint_lt(st.peak_pending, 64);
	ck_assert_uint_lt(st.peak_ops, 64);
}
END_TEST

/* --- more: stop, deep queues, prefetch where the pages are ------------------------ */

START_TEST(stop_flag)
{
	struct hd_scenario *sc = sc_new("stop");
	struct hd_profile p = test_profile();
	struct hd_trace *t = hd_trace_new();
	struct hd_sink sink = hd_trace_sink(t);
	volatile int stop = 1;
	struct hd_err e;

	memset(&e, 0, sizeof e);
	sc_op(sc, HD_OP_HOST, 0)->duration = HD_MS;
	ck_assert_int_eq(hd_model_run(sc, &p, &sink, &stop, NULL, &e), -1);
	ck_assert(e.set);
	ck_assert_ptr_nonnull(strstr(e.msg, "stopped"));
	ck_assert_uint_eq(t->nspans, 0);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

START_TEST(deep_queue_bounded)
{
	struct hd_scenario *sc = sc_new("deep");
	int s = sc_stream(sc, "s", 0);
	struct hd_profile p = test_profile();
	struct hd_model_stats st;
	struct counter c = { 0, 0 };
	struct hd_sink sink = { &c, count_lane, count_string, count_span, NULL, NULL, 0, NULL };
	struct hd_err e;
	struct hd_op *op;

	/* kernels of 50 us launched every 5 us: the queue of 16 fills and the
	 * host then runs at the GPU's pace; what is in flight stays at the
	 * queue's size */
	memset(&e, 0, sizeof e);
	p.stream_queue = 16;
	op = sc_op(sc, HD_OP_REPEAT, 0);
	op->count = 100000;
	op->body_len = 1;
	sc_spin(sc, s, 50 * HD_US, 0);
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	ck_assert_int_eq(hd_model_run(sc, &p, &sink, NULL, &st, &e), 0);
	ck_assert_uint_le(st.peak_ops, 16);
	ck_assert_uint_lt(st.peak_pending, 64);
	/* 100000 kernels back to back, 50 us and 2 of overhead each: at least
	 * 5.2 s of GPU time */
	ck_assert_int_ge(st.makespan, 100000 * 52 * HD_US);
	ck_assert_int_lt(st.makespan, 100000 * 52 * HD_US + 100 * HD_MS);
	sc_free(sc);
}
END_TEST

START_TEST(prefetch_resident_is_free)
{
	struct hd_scenario *sc = sc_new("pf");
	int s = sc_stream(sc, "s", 0);
	int m = sc_buf(sc, "m", HD_MEM_MANAGED, 64 * MiB);
	const struct hd_span *a, *b;
	struct hd_trace *t;
	int i;

	for (i = 0; i < 2; i++) {
		sc_prefetch(sc, s, m, true);
	}
	sc_op(sc, HD_OP_DEVICE_SYNC, 0);
	t = run(sc);
	a = need(t, 0, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	b = need(t, 1, 0, HD_LANE_STREAM, HD_SPAN_PREFETCH);
	/* 64 MiB at the 40 GB/s prefetch rate after 2 us; the second finds
	 * the pages on the device and moves nothing */
	ck_assert_int_eq(a->end - a->start, 2 * HD_US + hd_time_for_bytes(64.0 * MiB, 40e9));
	ck_assert_uint_eq(a->bytes, 64 * MiB);
	ck_assert_uint_eq(b->bytes, 0);
	ck_assert_int_eq(b->end - b->start, 2 * HD_US);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* --- 12: what the model refuses ------------------------------------------------------ */

START_TEST(multi_rank_refused)
{
	struct hd_scenario *sc = sc_new("ring");
	struct hd_profile p = test_profile();
	struct hd_run_opts o;
	struct hd_trace *t;
	struct hd_err e;

	sc->nranks = 0;
	sc_spin(sc, 0, HD_US, 0);
	memset(&e, 0, sizeof e);
	memset(&o, 0, sizeof o);
	o.profile = &p;
	t = hd_backend_trace(&hd_sim_backend, sc, &o, &e);
	ck_assert(t == NULL);
	ck_assert(e.set);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "has 0 ranks; the simulator runs 1 to"));

	/* one rank but a send to rank 1, which does not exist */
	sc->nranks = 1;
	sc_op(sc, HD_OP_SEND, 0)->peer = 1;
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_sim_backend.run(sc, &o, NULL, &e), -1);
	ck_assert(e.set);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "refers to something that does not exist"));
	sc_free(sc);
}
END_TEST

START_TEST(backend_trace_sorted)
{
	struct hd_scenario *sc = mixed_scenario(8 * MiB);
	struct hd_profile p = test_profile();
	struct hd_run_opts o;
	struct hd_trace *t;
	struct hd_err e;
	size_t i;

	memset(&e, 0, sizeof e);
	memset(&o, 0, sizeof o);
	o.profile = &p;
	ck_assert_int_eq(hd_sim_backend.available(&e), 0);
	t = hd_backend_trace(&hd_sim_backend, sc, &o, &e);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_gt(t->events, 0);
	for (i = 1; i < t->nspans; i++)
		ck_assert_int_le(t->spans[i - 1].start, t->spans[i].start);
	for (i = 0; i < t->nspans; i++) {
		ck_assert_int_le(t->spans[i].start, t->spans[i].end);
		ck_assert_int_le(t->spans[i].end, t->makespan);
	}
	ck_assert_str_eq(hd_why_name(HD_WHY_QUEUE_FULL), "queue-full");
	ck_assert_str_eq(hd_span_kind_name(HD_SPAN_STAGING), "staging");
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

START_TEST(on_rank_zero_only)
{
	struct hd_scenario *sc = sc_new("onrank");
	struct hd_trace *t;
	struct hd_op *op;

	op = sc_op(sc, HD_OP_ON_RANK, 0);
	op->rank = 1;
	op->body_len = 1;
	sc_op(sc, HD_OP_HOST, 0)->duration = HD_MS; /* op 1: skipped */
	op = sc_op(sc, HD_OP_ON_RANK, 0);
	op->rank = 0;
	op->body_len = 1;
	sc_op(sc, HD_OP_HOST, 0)->duration = 2 * HD_MS; /* op 3: runs */
	/* a huge loop whose body is all for another rank ends at once */
	op = sc_op(sc, HD_OP_REPEAT, 0);
	op->count = UINT64_MAX;
	op->body_len = 2;
	op = sc_op(sc, HD_OP_ON_RANK, 0);
	op->rank = 1;
	op->body_len = 1;
	sc_op(sc, HD_OP_HOST, 0)->duration = HD_MS; /* op 6: skipped */
	t = run(sc);
	ck_assert(span_of(t, 6, 0, HD_LANE_HOST, HD_SPAN_HOST) == NULL);
	ck_assert(span_of(t, 1, 0, HD_LANE_HOST, HD_SPAN_HOST) == NULL);
	ck_assert(span_of(t, 3, 0, HD_LANE_HOST, HD_SPAN_HOST) != NULL);
	ck_assert_int_eq(t->makespan, 2 * HD_MS);
	/* a host-only op is timed by its host span */
	ck_assert_int_eq(hd_trace_op_time(t, 3).found, 1);
	ck_assert_int_eq(hd_trace_op_time(t, 3).end, 2 * HD_MS);
	ck_assert_int_eq(hd_trace_op_time(t, 1).found, 0);
	hd_trace_free(t);
	sc_free(sc);
}
END_TEST

/* --- every op kind: complete facts, a handler, its operands checked ------------- */

START_TEST(every_kind_handled)
{
	struct hd_scenario *sc = sc_new("kinds");
	int h = sc_buf(sc, "h", HD_MEM_PINNED, MiB), k;
	struct hd_op *op;
	struct hd_err e;

	for (k = 0; k < HD_OP__COUNT; k++) {
		ck_assert_msg(hd_op_fact_ok((enum hd_op_kind)k),
			      "op kind %d has an incomplete row in ir/opfacts.c", k);
		ck_assert_msg(hd_model_handles_ok((enum hd_op_kind)k),
			      "op kind %d (%s) has no handler in sim/model_ops.c", k,
			      hd_op_kind_name((enum hd_op_kind)k));
	}
	ck_assert(!hd_model_handles_ok(HD_OP__COUNT));
	ck_assert(!hd_op_fact_ok(HD_OP__COUNT));
	ck_assert_ptr_null(hd_op_fact(HD_OP__COUNT));
	ck_assert(hd_op_fact(HD_OP_KERNEL)->on_stream);
	ck_assert(!hd_op_fact(HD_OP_STREAM_SYNC)->on_stream);
	ck_assert(hd_op_fact(HD_OP_BARRIER)->ranks && !hd_op_fact(HD_OP_COPY)->ranks);

	/* a copy must have both buffers: the model refuses one without dst */
	op = sc_op(sc, HD_OP_COPY, 0);
	op->src = h;
	op->copy = HD_COPY_H2H;
	ck_assert(!hd_op_operands_ok(sc, op));
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_model_check(sc, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg,
				     "op 0 (copy) refers to something that does not "
				     "exist"));
	op->dst = h;
	ck_assert(hd_op_operands_ok(sc, op));
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_model_check(sc, &e), 0);
	/* an event op needs its event */
	sc_op(sc, HD_OP_EVENT_QUERY, 0);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_model_check(sc, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "op 1 (query)"));
	sc_free(sc);
}
END_TEST

static Suite *
model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, engine_order);
	tcase_add_test(tc, flow_maxmin);
	tcase_add_test(tc, exact_pinned_copy);
	tcase_add_test(tc, pinned_beats_pageable);
	tcase_add_test(tc, two_streams_overlap);
	tcase_add_test(tc, legacy_stream);
	tcase_add_test(tc, event_wait_orders);
	tcase_add_test(tc, host_blocks);
	tcase_add_test(tc, pinned_alloc_vs_register);
	tcase_add_test(tc, small_pinned_heap);
	tcase_add_test(tc, kernels_share_a_buffer_read);
	tcase_add_test(tc, kernels_share_pipes);
	tcase_add_test(tc, kernel_grid_rates);
	tcase_add_test(tc, alloc_by_size);
	tcase_add_test(tc, kernel_l2_rates);
	tcase_add_test(tc, fill_tail_launches);
	tcase_add_test(tc, fill_tail_runs_during_second_launch);
	tcase_add_test(tc, legacy_sync_waits_for_blocking_streams);
	tcase_add_test(tc, copy_costs_by_kind);
	tcase_add_test(tc, pageable_copies_cost_more);
	tcase_add_test(tc, managed_fixed_parts);
	tcase_add_test(tc, managed_small_buffers);
	tcase_add_test(tc, managed_copy_cost_once);
	tcase_add_test(tc, managed_read_faults_in);
	tcase_add_test(tc, sync_copy_costs_more);
	tcase_add_test(tc, sync_after_kernel_costs_more);
	tcase_add_test(tc, timing_records_take_the_gpu);
	tcase_add_test(tc, spin_kernels_pay_the_kernel_overhead);
	tcase_add_test(tc, pageable_first_touch);
	tcase_add_test(tc, prefetch_direction_and_walk);
	tcase_add_test(tc, prefetch_in_flight_shared);
	tcase_add_test(tc, prefetch_takes_over_faults);
	tcase_add_test(tc, managed_copy_faults_back);
	tcase_add_test(tc, managed_round_trips_nap_then_pin);
	tcase_add_test(tc, read_and_copy_round_trips);
	tcase_add_test(tc, prefetch_behind_work_deferred);
	tcase_add_test(tc, prefetched_pages_first_write);
	tcase_add_test(tc, alloc_free_managed);
	tcase_add_test(tc, small_pageable_async_returns);
	tcase_add_test(tc, host_copy_waits_for_legacy);
	tcase_add_test(tc, prefetch_moves_copied_pages);
	tcase_add_test(tc, kernel_brings_back_host_copy);
	tcase_add_test(tc, read_is_no_round_trip);
	tcase_add_test(tc, managed_copy_waits_for_dma);
	tcase_add_test(tc, newest_prefetch_decides);
	tcase_add_test(tc, alloc_free_per_byte);
	tcase_add_test(tc, alloc_free_mid_sizes);
	tcase_add_test(tc, managed_heap_reuse);
	tcase_add_test(tc, deterministic);
	tcase_add_test(tc, same_direction_fifo);
	tcase_add_test(tc, bidirectional_shares);
	tcase_add_test(tc, one_engine_serialises);
	tcase_add_test(tc, queue_full_blocks);
	tcase_add_test(tc, kernel_concurrency);
	tcase_add_test(tc, managed_faults);
	tcase_add_test(tc, managed_fault_groups);
	tcase_add_test(tc, managed_fault_batches);
	tcase_add_test(tc, million_iterations);
	tcase_add_test(tc, multi_rank_refused);
	tcase_add_test(tc, backend_trace_sorted);
	tcase_add_test(tc, on_rank_zero_only);
	tcase_add_test(tc, stop_flag);
	tcase_add_test(tc, deep_queue_bounded);
	tcase_add_test(tc, prefetch_resident_is_free);
	tcase_add_test(tc, every_kind_handled);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(model_suite());
}
