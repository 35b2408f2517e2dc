/*
 * model_xfer.c - the GPU's executors in the model: transfers (copies, chunks
 * of staged copies, prefetches, page faults, NCCL traffic) queue on copy
 * engines, wait out their latency and then flow through the shared flow
 * network; kernels take room on the SMs in order of readiness while it
 * lasts, fault in managed memory first, share the SMs' pipes and the memory
 * with the kernels running beside them, and run slower beside NCCL's.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model_priv.h"

/* --- transfers and copy engines ------------------------------------------- */

int
model_xfer_new(struct model *m, enum xfer_kind kind, int gi, enum dir d, uint64_t bytes, double cap,
	       hd_time lat, int engine)
{
	struct xfer *x;
	int i;

	if (m->xfree >= 0) {
		i = m->xfree;
		m->xfree = m->x[i].next_free;
	} else {
		if (m->nx == m->xcap)
			m->x = hd_xgrow(m->x, &m->xcap, m->nx + 1, sizeof *m->x);
		i = (int)m->nx++;
		m->x[i].gen = 0;
	}
	x = &m->x[i];
	x->kind = kind;
	x->gop = gi;
	x->dir = d;
	x->bytes = bytes;
	x->cap = cap;
	x->lat = lat;
	x->engine = engine;
	x->t0 = x->t1 = 0;
	x->next = -1;
	x->nres = 0;
	x->cls = HD_LINK_NVLINK;
	x->rgop = -1;
	x->rgen = 0;
	return i;
}

void
model_xfer_begin(struct model *m, int xi)
{
	struct xfer *x = &m->x[xi];
	hd_time now = hd_engine_now(m->eng);

	x->t0 = now;
	model_at(m, now + x->lat, EV_XLAT, (uint32_t)xi, x->gen);
}

static void
engine_kick(struct model *m, int e)
{
	struct engine *ce = &m->ce[e];
	int xi;

	if (ce->busy >= 0 || ce->head < 0)
		return;
	xi = ce->head;
	ce->head = m->x[xi].next;
	if (ce->head < 0)
		ce->tail = -1;
	ce->busy = xi;
	model_xfer_begin(m, xi);
}

void
model_engine_queue(struct model *m, int xi)
{
	struct engine *ce = &m->ce[m->x[xi].engine];

	if (ce->tail >= 0)
		m->x[ce->tail].next = xi;
	else
		ce->head = xi;
	ce->tail = xi;
	engine_kick(m, m->x[xi].engine);
}

static void
flow_resched(struct world *w)
{
	hd_time t = hd_flow_next(w->net), now = hd_engine_now(w->eng);

	if (t == HD_TIME_MAX || t == w->flow_at)
		return;
	if (t < now)
		t = now;
	if (!model_time_ok(w, t, w->sc, -1))
		return;
	w->flow_gen++;
	w->flow_at = t;
	hd_engine_at(w->eng, t, EV_FLOW, w->flow_gen, 0);
}

static void kernel_compute(struct model *m, int gi);
static void buf_arrived(struct model *m, int bi, int to_device, uint32_t move);

/*
 * Demand faults migrate managed memory group by group: the kernel touches a
 * group of the profile's um.page bytes that is on the host, the GPU raises
 * a fault and the driver handles it (um.fault, the link idle; the first
 * group also um.fault_base, the driver's first response), then the
 * group crosses PCIe at um.fault_rate, and the next group faults once it is
 * in.  Each transfer is a span of its own on the PCIe row, between the
 * handling times.  At most FAULT_BATCHES transfers per kernel: beyond that
 * many groups, neighbouring groups go together, as evenly as they divide
 * (their handling times add up, as do their bytes), so the time is the
 * same as group by group, up to rounding a batch's transfer to the
 * picosecond, and a kernel's fault spans stay few whatever the buffer size.
 */
#define FAULT_BATCHES 64u

static uint64_t
fault_page(const struct model *m)
{
	return m->p->um_page > 0 ? m->p->um_page : 4096;
}

hd_time
model_fault_in_time(const struct model *m, uint64_t bytes, uint64_t alloc)
{
	uint64_t page = fault_page(m), groups = (bytes + page - 1) / page;
	hd_time t = model_um_fixed(m->p->um_fault_base, alloc);

	t = hd_time_add(t, (hd_time)groups * m->p->um_fault);
	if (m->p->um_fault_bw > 0)
		t = hd_time_add(t, hd_time_for_bytes((double)bytes, m->p->um_fault_bw));
	return t;
}

/* Kernel gop gi's next batch of fault groups: handled, then migrated. */
static void
fault_next(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	uint64_t page = fault_page(m), b = g->fault_batch, n = g->fault_batches;
	uint64_t g0 = g->fault_groups * b / n, g1 = g->fault_groups * (b + 1) / n;
	uint64_t lo = g0 * page, hi = g1 * page < g->fault_bytes ? g1 * page : g->fault_bytes;
	hd_time handle = (hd_time)(g1 - g0) * m->p->um_fault;
	int xi;

	if (b == 0) /* the driver's first response to this kernel's faults */
		handle = hd_time_add(
		    handle,
		    hd_time_add(g->fault_nap, model_um_fixed(m->p->um_fault_base, g->fault_alloc)));
	xi = model_xfer_new(m, X_FAULT, gi, DIR_H2D, hi - lo, m->p->um_fault_bw, handle, -1);

	g->fault_batch++;
	model_xfer_begin(m, xi);
}

/* The bytes kernel g's faults have moved once its batch in progress is in. */
static uint64_t
fault_done(const struct model *m, const struct gop *g)
{
	uint64_t done = g->fault_groups * g->fault_batch / g->fault_batches * fault_page(m);

	return done < g->fault_bytes ? done : g->fault_bytes;
}

uint64_t
model_fault_takeover(struct model *m, int bi)
{
	struct gop *k = &m->g[m->buf[bi].faulting];
	uint64_t done = fault_done(m, k);

	if (k->fault_stop || done >= k->fault_bytes)
		return 0;
	k->fault_stop = 1;
	return k->fault_bytes - done;
}

/*
 * NCCL's kernels hold coll_sms SMs while they run: kernels computing beside
 * them get the rest, sms / (sms - coll_sms) times slower (a spin kernel
 * waits on the clock, not on SMs).
 */
static double
nccl_slowdown(const struct model *m)
{
	if (m->p->coll_sms <= 0 || m->p->coll_sms >= m->p->sms)
		return 1.0;
	return (double)m->p->sms / (double)(m->p->sms - m->p->coll_sms);
}

static void
xfer_done(struct model *m, int xi)
{
	struct xfer x = m->x[xi];
	struct gop *g = &m->g[x.gop];
	hd_time now = hd_engine_now(m->eng);
	enum hd_span_kind kind;
	int label;

	kind = x.kind == X_PREFETCH ? HD_SPAN_PREFETCH :
	    x.kind == X_FAULT       ? HD_SPAN_FAULT :
	    x.kind == X_COMM        ? HD_SPAN_COMM :
				      HD_SPAN_COPY;
	label = x.kind == X_FAULT ? m->lbl_fault : model_work_label(m, g->op);
	if (x.dir == DIR_P2P)
		model_emit(m, model_link_lane(m, x.cls), g->op, g->iter, kind, HD_WHY_NONE, x.t1,
			   now, x.bytes, label);
	else if (x.dir != DIR_D2D)
		model_emit(m, model_pcie_lane(m, x.dir), g->op, g->iter, kind, HD_WHY_NONE, x.t1,
			   now, x.bytes, label);
	if (x.engine >= 0) {
		model_emit(m, model_ce_lane(m, x.dir), g->op, g->iter, kind, HD_WHY_NONE, x.t0, now,
			   x.bytes, label);
		m->ce[x.engine].busy = -1;
		engine_kick(m, x.engine);
	}
	m->x[xi].gen++;
	m->x[xi].next_free = m->xfree;
	m->xfree = xi;
	g = &m->g[x.gop];
	switch (x.kind) {
	case X_COPY:
	case X_PREFETCH:
		if (g->parent >= 0) { /* a graph's node: the graph's span is the stream's */
			model_graph_node_done(m, x.gop);
			break;
		}
		model_emit(m, model_stream_lane(m, g->stream), g->op, g->iter, kind, HD_WHY_NONE,
			   g->start, now, g->bytes, label);
		model_gop_complete(m, x.gop);
		if (x.kind == X_PREFETCH && g->buf >= 0)
			buf_arrived(m, g->buf, g->to_device, g->move);
		break;
	case X_CHUNK:
		g->chunks_done++;
		if (g->chunks_done == g->nchunks) {
			model_emit(m, model_stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_COPY,
				   HD_WHY_NONE, g->start, now, g->bytes,
				   model_work_label(m, g->op));
			model_gop_complete(m, x.gop);
		}
		break;
	case X_FAULT:
		if (g->fault_batch < g->fault_batches && !g->fault_stop) {
			fault_next(m, x.gop);
			break;
		}
		model_emit(m, model_compute_lane(m), g->op, g->iter, HD_SPAN_FAULT, HD_WHY_NONE,
			   g->start, now, g->fault_stop ? fault_done(m, g) : g->fault_bytes,
			   m->lbl_fault);
		if (g->fault_buf >= 0) {
			struct mbuf *b = &m->buf[g->fault_buf];

			if (b->faulting == (int)x.gop)
				b->faulting = -1;
			g->fault_buf = -1;
			if (g->fault_stop && b->moving == 1) { /* the prefetch moves the rest */
				g->fault_stop = 0;
				g->bnext = b->waiters;
				b->waiters = (int)x.gop;
				break;
			}
			g->fault_stop = 0;
		}
		kernel_compute(m, x.gop);
		break;
	case X_COMM: {
		struct model *q = &m->w->rk[g->peer];
		struct gop *rg = &q->g[x.rgop];

		if (rg->gen != x.rgen)
			hd_fatal("model: stale receive on rank %d", g->peer);
		model_emit(m, model_stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_COMM,
			   HD_WHY_NONE, g->start, now, x.bytes, label);
		model_emit(q, model_stream_lane(q, rg->stream), rg->op, rg->iter, HD_SPAN_COMM,
			   HD_WHY_NONE, rg->start, now, x.bytes, model_work_label(q, rg->op));
		model_nccl_sms(m, -1);
		model_nccl_sms(q, -1);
		model_gop_complete(m, x.gop);
		model_gop_complete(q, x.rgop);
		break;
	}
	}
}

void
model_flow_start(struct model *m, int xi)
{
	struct xfer *x = &m->x[xi];
	hd_time now = hd_engine_now(m->eng);

	x->t1 = now;
	if (x->bytes == 0) {
		xfer_done(m, xi);
		return;
	}
	/* the tag: transfer (24 bits), rank (20 bits), generation (20 bits) */
	hd_flow_start(
	    m->net, now, (double)x->bytes, x->cap, x->dir == DIR_P2P ? x->res : m->res[x->dir],
	    x->dir == DIR_P2P ? x->nres : m->nres[x->dir],
	    ((uint64_t)(x->gen & 0xfffffu) << 44) | ((uint64_t)m->rank << 24) | (uint32_t)xi);
	flow_resched(m->w);
}

void
model_on_flow(struct world *w, uint32_t gen)
{
	uint64_t tag;
	hd_time now = hd_engine_now(w->eng);

	if (gen != w->flow_gen)
		return; /* rates changed since this was scheduled */
	w->flow_at = -1;
	while (hd_flow_done(w->net, now, &tag)) {
		int xi = (int)(tag & 0xffffffu);
		struct model *m = &w->rk[(tag >> 24) & 0xfffffu];

		if ((m->x[xi].gen & 0xfffffu) != (uint32_t)(tag >> 44))
			hd_fatal("model: stale transfer %d", xi);
		xfer_done(m, xi);
		model_touch(m);
	}
	flow_resched(w);
}

/* --- kernels ------------------------------------------------------------------ */

/*
 * The driver's thrashing heuristics (nvidia-uvm's defaults, the same on
 * every lent machine: bench/results/2026-12-07-heldout30-h100/run84/
 * uvm-params.txt): a page that moves again within 500 us of its last move
 * counts a thrashing event; from the third in a row the processor that
 * faults on it again is throttled (it waits), and after enough throttles
 * the page is pinned on the host and mapped remotely for 150 ms, then
 * moves again on demand.  A user's prefetch clears it all.
 *
 * In the model a trip is a kernel faulting pages over to the device: ones
 * on the host, or ones the driver's copies opened to the host (which stay
 * open to copies while pinned, and come back otherwise).  On lent H100s a
 * copy out of 8190 B of managed memory and a kernel on it, round after
 * round with each repeat on a buffer of its own, took 0.22 ms for 2
 * rounds, 0.86 for 4, 2.4 for 8, 7.6 for 24, 8.0 for 32 and 9.9 for 128
 * (bench/probe/umthrash.hds, runs 84 and 88): some 300-340 us a round from
 * the third to the 24th, then 10-40 us; with 600 us of host work between
 * rounds 100-250 us a round, no throttle (the model moves the pages both
 * ways for about 80 of those).  UM_FREE_TRIPS, UM_NAP and UM_NAPS are
 * fitted on those rounds (the first trip is the buffer's first fault-in):
 * the throttled ones pay UM_NAP beside moving the pages both ways; after
 * UM_NAPS of them the pages are pinned.
 */
#define UM_LAPSE      (500 * HD_US)
#define UM_FREE_TRIPS 3u
#define UM_NAP        (300 * HD_US)
#define UM_NAPS       22u
#define UM_PIN        (150 * HD_MS)

void
model_buf_settled(struct mbuf *b)
{
	b->host_bytes = b->host_copy = b->host_moved = 0;
	b->landed = b->written = 0;
	b->trip_open = 0;
	b->cpu_open = 0;
}

uint64_t
model_buf_back(const struct mbuf *b, uint64_t n, int opened)
{
	uint64_t back = b->host_bytes < n ? b->host_bytes : n;

	if (opened && b->host_copy > back)
		back = b->host_copy < n ? b->host_copy : n;
	return back;
}

void
model_buf_forget_trips(struct mbuf *b)
{
	b->trips = b->naps = 0;
	b->pin_end = 0;
}

int
model_trip_pinned(struct model *m, int bi, hd_time *nap)
{
	struct mbuf *b = &m->buf[bi];
	hd_time now = hd_engine_now(m->eng);

	if (now < b->pin_end)
		return 1;
	if (b->trips > 0 && now - b->trip_at <= UM_LAPSE) {
		b->trips++;
	} else {
		b->trips = 1;
		b->naps = 0;
	}
	b->trip_at = now;
	if (b->trips > UM_FREE_TRIPS) {
		if (b->naps >= UM_NAPS) {
			b->pin_end = hd_time_add(now, UM_PIN);
			b->trips = b->naps = 0;
			return 1;
		}
		b->naps++;
		*nap = hd_time_add(*nap, UM_NAP);
	}
	return 0;
}

/*
 * Kernel gi has its SMs: it faults in the managed buffers it names that are
 * not on the device (or the bytes host-to-host copies wrote back to the
 * host), then computes.  Pages a prefetch is moving to the device it waits
 * for, as their faults would (buf_arrived resumes it).  Pages the driver's
 * copies have opened to the host (host_copy) it brings back too, unless
 * the driver has pinned them there (model_trip_pinned).  The rule before, that
 * they stayed open whatever the kernel did, was fitted on repeats that
 * inherited the pin from the repeats before them (1.48 ms for 50 rounds
 * of a fill and a copy out on a lent H200, run75; 8.6 ms on a lent H100
 * with each repeat on a buffer of its own, run88).
 */
static void
kernel_begin(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	const struct hd_op *op = &m->sc->ops[g->op];
	uint64_t fault = 0, n, back;
	hd_time nap = 0;
	int bufs[2], k, nbuf = 0, fbuf = -1;

	bufs[0] = op->src;
	bufs[1] = op->dst != op->src ? op->dst : -1;
	for (k = 0; k < 2; k++) {
		struct mbuf *b = bufs[k] >= 0 ? &m->buf[bufs[k]] : NULL;

		if (b != NULL && b->mem == HD_MEM_MANAGED && b->moving == 1) {
			g->bnext = b->waiters;
			b->waiters = gi;
			return;
		}
	}
	for (k = 0; k < 2; k++) {
		struct mbuf *b = bufs[k] >= 0 ? &m->buf[bufs[k]] : NULL;

		if (b == NULL || b->mem != HD_MEM_MANAGED)
			continue;
		n = model_buf_bytes(m, bufs[k], op->bytes);
		/* what comes over: all of it from the host, else what host-to-
		 * host copies wrote back or the driver's copies opened */
		back = !b->resident ? n : model_buf_back(b, n, b->trip_open);
		if (back > 0 && model_trip_pinned(m, bufs[k], &nap))
			continue; /* pinned on the host: the kernel reads it there */
		if (back > 0) {
			if (b->bytes > g->fault_alloc)
				g->fault_alloc = b->bytes;
			b->copied = 0;
			model_buf_settled(b);
			fault += back;
			nbuf++;
			fbuf = bufs[k];
			model_heap_moved(m, bufs[k]);
		}
		b->resident = 1;
		b->host_bytes = 0;
	}
	g->fault_nap = nap;
	if (fault > 0) {
		if (nbuf == 1) { /* a prefetch of it may take over (model_fault_takeover) */
			g->fault_buf = fbuf;
			m->buf[fbuf].faulting = gi;
		}
		g->fault_bytes = fault;
		g->fault_groups = (fault + fault_page(m) - 1) / fault_page(m);
		g->fault_batch = 0;
		g->fault_batches = g->fault_groups < FAULT_BATCHES ? (uint32_t)g->fault_groups :
								     FAULT_BATCHES;
		fault_next(m, gi);
	} else
		kernel_compute(m, gi);
}

/* Prefetch number `move` of buffer bi (0: one that moved nothing) has
 * arrived.  The newest of the buffer's moves decides where its pages are:
 * an older one arriving after it, or one that only walked pages already
 * there (while a kernel may have faulted them over since), changes
 * nothing.  The newest one's arrival lets the gops waiting for the pages
 * go on (a prefetch behind it ends with it, a kernel begins). */
static void
buf_arrived(struct model *m, int bi, int to_device, uint32_t move)
{
	struct mbuf *b = &m->buf[bi];
	hd_time now = hd_engine_now(m->eng);
	int gi, next;

	if (move == 0 || move != b->moves)
		return;
	/* the newest move set b->moving to to_device, and only a newer one
	 * changes it */
	b->resident = to_device;
	if (to_device)
		model_heap_moved(m, bi);
	model_buf_settled(b);
	if (!to_device)
		b->landed = b->bytes;
	model_buf_forget_trips(b); /* a user's migration: the driver starts over */
	b->moving = -1;
	b->copied = 0;
	gi = b->waiters;
	b->waiters = -1;
	for (; gi >= 0; gi = next) {
		struct gop *g = &m->g[gi];

		next = g->bnext;
		if (g->kind == G_KERNEL) {
			kernel_begin(m, gi);
			continue;
		}
		model_emit(m, model_stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_PREFETCH,
			   HD_WHY_NONE, g->start, now, 0, model_work_label(m, g->op));
		model_gop_complete(m, gi);
	}
}

/* The room on one SM, in the units struct gop counts: 2048 threads or 32
 * blocks, whichever a kernel's blocks reach first (compute capability 8.0
 * and 9.0; the real backend's kernels use at most 23 registers a thread, so
 * registers never bind).  A full grid of 256-thread blocks, four to an SM,
 * takes half of every SM: a second kernel's blocks fit beside it. */
#define SM_UNITS 32

static void
kernel_dispatch(struct model *m)
{
	hd_time now = hd_engine_now(m->eng);
	int gi;

	while ((gi = m->kq_head) >= 0) {
		struct gop *g = &m->g[gi];

		if (m->units_used + g->units > m->p->sms * SM_UNITS)
			break;
		if (m->p->max_kernels > 0 && m->nkernels >= m->p->max_kernels)
			break;
		m->kq_head = g->qnext;
		if (m->kq_head < 0)
			m->kq_tail = -1;
		m->units_used += g->units;
		m->nkernels++;
		g->state = GS_RUNNING;
		g->start = now;
		kernel_begin(m, gi);
	}
}

/*
 * The buffer a memory or reduce kernel streams through (reading it), or -1
 * for other kernels.
 */
static int
read_buffer(const struct hd_op *op)
{
	switch (op->kernel) {
	case HD_KERNEL_MEMORY:
		return op->src >= 0 ? op->src : op->dst;
	case HD_KERNEL_REDUCE:
		return op->src;
	case HD_KERNEL_SPIN:
	case HD_KERNEL_COMPUTE:
	case HD_KERNEL_FILL:
	case HD_KERNEL__COUNT:
		break;
	}
	return -1;
}

/* The share of a kernel's draw on the HBM saved when it streams the buffer
 * another kernel on another stream streams beside it (kernels_share), or
 * of its time when it streamed it while it waited for room on the SMs. */
#define READ_SHARED 0.65

/*
 * Two kernels streaming one buffer, launched on two streams so that they
 * could run together: on a GPU their grids interleave and the second reads
 * much of the buffer from the L2 while the first brings it in.  Side by
 * side kernels_share has the second draw (1 - READ_SHARED) of its share of
 * the HBM; one that waited for room on the SMs while the first ran is
 * shortened here by READ_SHARED of the part of that run it waited
 * through.  On lent
 * H100s two memory kernels on one buffer took 1.15-1.27 times one alone at
 * 64 MiB and 1.20-1.63 times at 759 MB, on two buffers 1.56-1.61 and
 * 1.94-1.98 times (bench/probe/hot.hds, four processes, each against its
 * own process's one alone); tuning 001's two on 759 MB took 401 and 442 us
 * on two H100s, 1.37 and 1.52 times the probe's one alone (291.75 us on
 * average).  Those ten ratios on one buffer have a median of 1.32;
 * READ_SHARED makes a fully overlapped pair 1.35 times one.  Only two
 * kernels of one kind share so: a reduce and a memory kernel walk the
 * buffer differently (the memory kernel reads half and writes half), and
 * 2295 rounds of a reduce and a memory kernel on one 159 MB buffer, on
 * two streams, took 79 us a round on a lent H200, 0.93 times the two
 * alone (heldout14 002, bench/results/2026-11-28-heldout14-h200/, run51).
 */
static void
read_shared(struct model *m, struct gop *g, hd_time now)
{
	const struct hd_op *op = &m->sc->ops[g->op];
	int b = read_buffer(op);
	hd_time from;

	if (b < 0 || b != m->read_buf || op->kernel != m->read_kind ||
	    g->stream == m->read_stream || now != m->read_to || m->read_to <= m->read_from)
		return;
	from = g->ready > m->read_from ? g->ready : m->read_from;
	if (from >= m->read_to)
		return;
	g->dur -= hd_time_from_ps((double)g->dur * READ_SHARED * (double)(m->read_to - from) /
				  (double)(m->read_to - m->read_from));
}

/*
 * The kernels computing now share what they draw on.  On each pipe
 * (enum kernel_pipe) each takes, alone, `demand` of it: a compute kernel
 * the share of the FP32 rate its grid reaches, a memory kernel its rate
 * over the HBM's (or the L2's) whole.  When the demands on a pipe sum past
 * one, every kernel on it runs at 1 / sum of its own pace, so two full
 * grids of memory kernels side by side take as long as one after the
 * other, while a compute kernel and a memory kernel, or a small grid
 * beside a full one, overlap.  A second kernel of one kind streaming a
 * buffer another is streaming reads much of it from the L2 (read_shared):
 * it demands (1 - READ_SHARED) of its share.  NCCL's kernels holding
 * coll_sms SMs slow every kernel on a pipe by nccl_slowdown.  Each kernel
 * whose pace changes is re-timed from the work it has left; `fresh`, a
 * kernel just started (or -1), is timed whatever its pace, and a kernel's
 * old EV_KDONE no longer matches its kdone.  Linear in the kernels
 * computing, which the SMs' room bounds.
 */
static void
kernels_share(struct model *m, int fresh)
{
	hd_time now = hd_engine_now(m->eng);
	double sum[PIPE__COUNT] = { 0 }, nccl = m->nccl_running > 0 ? nccl_slowdown(m) : 1.0;
	size_t i;

	for (i = 0; i < m->nkrun; i++) {
		struct gop *g = &m->g[m->krun[i]];
		const struct hd_op *op = &m->sc->ops[g->op];
		int b = read_buffer(op);
		unsigned bit = 1u << op->kernel;

		if (b >= 0 && (m->buf[b].streaming & bit) != 0)
			sum[g->pipe] += g->demand * (1 - READ_SHARED);
		else
			sum[g->pipe] += g->demand;
		if (b >= 0)
			m->buf[b].streaming |= bit;
	}
	for (i = 0; i < m->nkrun; i++) {
		int gi = m->krun[i], b = read_buffer(&m->sc->ops[m->g[gi].op]);
		struct gop *g = &m->g[gi];
		double speed = (sum[g->pipe] > 1 ? 1 / sum[g->pipe] : 1) / nccl;
		hd_time kdone;

		if (b >= 0)
			m->buf[b].streaming = 0;
		if (speed == g->speed && gi != fresh)
			continue;
		g->left -= (double)(now - g->rated) * g->speed;
		if (g->left < 0)
			g->left = 0;
		g->rated = now;
		g->speed = speed;
		kdone = now + hd_time_from_ps(g->left / speed);
		if (kdone == g->kdone && gi != fresh)
			continue;
		g->kdone = kdone;
		model_at(m, kdone, EV_KDONE, (uint32_t)gi, g->gen);
	}
}

/* The first NCCL kernel on this GPU starts (delta 1) or the last one ends
 * (delta -1): the kernels computing go slower or faster for the rest of
 * their work. */
void
model_nccl_sms(struct model *m, int delta)
{
	int was = m->nccl_running > 0;

	m->nccl_running += delta;
	if ((m->nccl_running > 0) != was)
		kernels_share(m, -1);
}

static void
kernel_compute(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	hd_time now = hd_engine_now(m->eng);

	g->compute_start = now;
	read_shared(m, g, now);
	if (g->pipe == PIPE_NONE) {
		g->kdone = now + g->dur;
		model_at(m, g->kdone, EV_KDONE, (uint32_t)gi, g->gen);
		return;
	}
	g->left = (double)g->dur;
	g->speed = 1;
	g->rated = now;
	if (m->nkrun == m->krun_cap)
		m->krun = hd_xgrow(m->krun, &m->krun_cap, m->nkrun + 1, sizeof *m->krun);
	m->krun[m->nkrun++] = gi;
	kernels_share(m, gi);
}

void
model_kernel_ready(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];

	g->state = GS_WAITRES;
	g->qnext = -1;
	g->ready = hd_engine_now(m->eng);
	if (m->kq_tail >= 0)
		m->g[m->kq_tail].qnext = gi;
	else
		m->kq_head = gi;
	m->kq_tail = gi;
	kernel_dispatch(m);
}

void
model_kernel_done(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	hd_time now = hd_engine_now(m->eng);
	int label = model_work_label(m, g->op), rb = read_buffer(&m->sc->ops[g->op]);

	model_emit(m, model_compute_lane(m), g->op, g->iter, HD_SPAN_KERNEL, HD_WHY_NONE,
		   g->compute_start, now, 0, label);
	if (rb >= 0) {
		m->read_buf = rb;
		m->read_stream = g->stream;
		m->read_kind = m->sc->ops[g->op].kernel;
		m->read_from = g->compute_start;
		m->read_to = now;
	}
	if (g->parent < 0) /* a graph's node: the graph's span is the stream's */
		model_emit(m, model_stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_KERNEL,
			   HD_WHY_NONE, g->start, now, 0, label);
	m->units_used -= g->units;
	m->nkernels--;
	if (g->pipe != PIPE_NONE) {
		size_t i;

		for (i = 0; i < m->nkrun && m->krun[i] != gi; i++)
			;
		if (i < m->nkrun)
			m->krun[i] = m->krun[--m->nkrun];
		kernels_share(m, -1);
	}
	if (g->parent >= 0)
		model_graph_node_done(m, gi);
	else
		model_gop_complete(m, gi);
	kernel_dispatch(m);
}

/* Threads per block of the real backend's kernels, and the blocks per SM
 * of its default grid (kernels/kernels.cu: 256 threads, at most four
 * blocks per SM, fewer when the buffer has fewer items). */
#define BLOCK_THREADS      256
#define FULL_BLOCKS_PER_SM 4

/* The grid a kernel runs with: its own, or what the real backend picks for
 * `items` work items. */
static double
kernel_grid(const struct hd_profile *p, const struct hd_op *op, double items)
{
	double full = (double)p->sms * FULL_BLOCKS_PER_SM, need;

	if (op->grid != 0)
		return (double)op->grid;
	need = ceil(items / BLOCK_THREADS);
	if (need < 1)
		need = 1;
	return need < full ? need : full;
}

/* The HBM rate a memory-bound kernel of `grid` blocks reaches.  Each block
 * draws `block` bytes/s; the GPU's whole rate is gpu.hbm.  Between the two
 * the rate bends as a generalised mean, (H^-k + (grid * block)^-k)^(-1/k)
 * with k = 1.5 (fitted on the probes of bench/probe/grid.hds, H100,
 * 2026-11-24), H chosen so that a full grid (FULL_BLOCKS_PER_SM per SM)
 * reaches gpu.hbm exactly, as calibrate measures it. */
static double
grid_rate(const struct hd_profile *p, double grid, double block, double cap)
{
	const double k = 1.5;
	double full = (double)p->sms * FULL_BLOCKS_PER_SM, inv;

	if (block <= 0 || grid >= full)
		return cap;
	inv = pow(cap, -k) - pow(full * block, -k);
	if (inv <= 0) /* blocks so fast that the bend is below the noise */
		return fmin(cap, grid * block);
	return pow(inv + pow(grid * block, -k), -1.0 / k);
}

/*
 * What a memory-bound kernel's traffic runs at, whole grid: gpu.hbm, or,
 * when its buffer is at most gpu.l2 bytes, the L2's rate (gpu.l2_rate,
 * gpu.l2_fill for the write-only fill): the buffer stays in the L2 between
 * kernels and after the copy or memset that filled it (bench/probe/l2.hds,
 * H100, 2026-11-24: 32 MiB ran at twice gpu.hbm, 48 MiB at gpu.hbm).  A
 * grid too small for that rate bends towards it as grid_rate says.
 */
static double
traffic_cap(const struct hd_profile *p, double bytes, int fill)
{
	double l2 = fill ? p->l2_fill_bw : p->l2_bw;

	if (p->l2_bytes > 0 && l2 > 0 && bytes <= (double)p->l2_bytes)
		return l2;
	return p->hbm_bw;
}

/* The launches a kernel op makes: a fill whose size is not a multiple of
 * 16 bytes writes its tail with a second, one-block kernel (the real
 * backend's hd_kernel_fill), as a program handling a ragged end would. */
int
model_kernel_launches(const struct model *m, const struct hd_op *op)
{
	uint64_t bytes;

	if (op->kernel != HD_KERNEL_FILL)
		return 1;
	bytes = model_buf_bytes(m, op->dst, op->bytes);
	return bytes >= 16 && bytes % 16 != 0 ? 2 : 1;
}

/* The share of the GPU's FP32 rate a compute kernel of `grid` blocks gets.
 * One block keeps an SM's FMA pipes about as busy as several (the kernel
 * has independent FMA chains), so the rate follows the SMs a grid reaches,
 * in waves: blocks beyond the SM count share SMs, and the SMs with the
 * most blocks set the length (the same probes). */
static double
grid_share(const struct hd_profile *p, double grid)
{
	double s = (double)p->sms;

	if (grid <= 0)
		return 1;
	if (grid <= s)
		return grid / s;
	return grid / (ceil(grid / s) * s);
}

/* The real backend's launch for a kernel op (kernels/kernels.cu): its
 * blocks and threads a block (a buffer under one item gets one warp that
 * walks its bytes), how long its work takes alone, and what it draws on. */
struct kshape {
	double blocks;
	unsigned threads;
	hd_time dur;
	enum kernel_pipe pipe;
	double demand;
};

/* A memory-bound kernel on `bytes` of traffic, `item` bytes a work item,
 * each block drawing `block` bytes/s. */
static void
memory_shape(const struct model *m, const struct hd_op *op, double bytes, double item, double block,
	     int fill, struct kshape *k)
{
	const struct hd_profile *p = m->p;
	double cap = traffic_cap(p, bytes, fill), grid = kernel_grid(p, op, bytes / item), rate;
	int tiny = floor(bytes / item) < 1;

	k->pipe = PIPE_MEMORY;
	k->blocks = tiny ? 1 : grid;
	k->threads = tiny ? 32 : BLOCK_THREADS;
	rate = grid_rate(p, grid, block, cap);
	k->demand = cap > 0 ? fmin(1, rate / cap) : 1;
	k->dur = (hd_time)model_kernel_launches(m, op) * p->kernel_overhead +
	    hd_time_for_bytes(bytes, rate);
}

static void
kernel_shape(const struct model *m, const struct hd_op *op, struct kshape *k)
{
	const struct hd_profile *p = m->p;
	double full = (double)p->sms * FULL_BLOCKS_PER_SM;

	memset(k, 0, sizeof *k);
	switch (op->kernel) {
	case HD_KERNEL_SPIN:
		/* timed by the global timer (a stream adds the kernel's
		 * overhead: op_kernel; a graph its node gap) */
		k->blocks = op->grid ? (double)op->grid : 1;
		k->threads = 32;
		k->dur = op->duration;
		k->pipe = PIPE_NONE;
		return;
	case HD_KERNEL_COMPUTE:
		k->blocks = op->grid ? (double)op->grid : full;
		k->threads = BLOCK_THREADS;
		k->pipe = PIPE_FMA;
		k->demand = grid_share(p, k->blocks);
		k->dur = p->kernel_overhead + hd_time_for_bytes(op->flops, p->flops * k->demand);
		return;
	case HD_KERNEL_MEMORY:
		/* half the bytes read, half written, 16 bytes an item */
		memory_shape(
		    m, op, (double)model_buf_bytes(m, op->src >= 0 ? op->src : op->dst, op->bytes),
		    32, p->block_memory_bw, 0, k);
		return;
	case HD_KERNEL_FILL:
		memory_shape(m, op, (double)model_buf_bytes(m, op->dst, op->bytes), 16,
			     p->block_fill_bw, 1, k);
		return;
	case HD_KERNEL_REDUCE:
		memory_shape(m, op, (double)model_buf_bytes(m, op->src, op->bytes), 16,
			     p->block_reduce_bw, 0, k);
		return;
	case HD_KERNEL__COUNT:
		break;
	}
	k->blocks = 1;
	k->threads = 32;
	k->dur = p->kernel_overhead;
}

void
model_kernel_place(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	struct kshape k;
	double units, room = (double)m->p->sms * SM_UNITS;

	kernel_shape(m, &m->sc->ops[g->op], &k);
	/* a block takes 1/SM_UNITS of an SM for each 64 threads, and at least
	 * one: 2048 threads or 32 blocks fill an SM */
	units = k.blocks * (k.threads > 64 ? k.threads / 64 : 1);
	g->units = units < room ? (int)units : (int)room;
	g->dur = k.dur;
	g->pipe = k.pipe;
	g->demand = k.demand;
}
