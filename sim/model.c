/*
 * model.c - one GPU and its host thread in simulated time.
 *
 * Three kinds of actor share the event engine:
 *
 * - The host thread walks the op list (loops through a small stack, never
 *   unrolled) and runs each op as a little state machine of phases: pay an
 *   API cost (sleep), submit work to a stream, or block until a GPU
 *   condition holds and then wake up sync_wake later.
 * - Streams are FIFO queues of GPU operations ("gops").  A stream's head
 *   starts once its dependencies hold: a dependency is "stream S has
 *   completed its op number N", which covers the legacy default stream's
 *   implicit ordering, cudaStreamWaitEvent and event records alike.  Gops
 *   complete in order on their stream, so a completed-count per stream says
 *   everything.
 * - Executors: SMs (kernels, FIFO by readiness while they fit), copy
 *   engines (FIFO per engine; latency, then a fluid flow on the link), and
 *   the flow network that shares PCIe and HBM bandwidth max-min fairly.
 *
 * The files: this one (spans and lanes, gops and streams, the world and
 * the run), model_xfer.c (transfers and kernels), model_ranks.c (between
 * ranks), model_ops.c (the host thread), model_check.c (checks, deadlocks);
 * model_priv.h holds what they share.
 *
 * Gops and transfers live in pools of reusable slots with generation
 * numbers, so memory grows with work in flight, never with history.
 * Nothing here reads a clock or an address for ordering: same input, same
 * trace.
 *
 * Simplifications, stated once: a copy whose host side is managed memory
 * is staged like a pageable one (model_ops.c), its pages on the device
 * faulted over by the CPU, from the start of the buffer; a read from a
 * managed buffer is a plain staged copy that moves nothing; a kernel
 * faults in the managed buffers it names that are not resident on the
 * device when it starts, or that copies faulted over since, group by group
 * (at most 64 transfers a kernel, neighbouring groups batched beyond that:
 * model_xfer.c), the driver's thrashing heuristics (naps, then pages
 * pinned on the host) counted per buffer, not per page; pages stay resident
 * until a copy, a prefetch to the host or a host-to-host copy writing them
 * brings them back; host-to-host copies are
 * a CPU memcpy; device-to-device copies use the third copy engine when
 * there are three or more, else share the host-to-device engine.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model_priv.h"

/* --- spans, lanes and labels ------------------------------------------------- */

void
model_emit(struct model *m, int lane, int op, uint32_t iter, enum hd_span_kind kind,
	   enum hd_why why, hd_time start, hd_time end, uint64_t bytes, int label)
{
	struct hd_span s = { 0 };

	s.lane = lane;
	s.op = op;
	s.iter = iter;
	s.kind = kind;
	s.why = why;
	s.start = start;
	s.end = end;
	s.bytes = bytes;
	s.label = label;
	m->sink->span(m->sink->ctx, &s);
	m->spans++;
	/* a sink that keeps spans holds them in memory: past its limit, stop */
	if (++m->w->spans > m->sink->max_spans && m->sink->max_spans > 0 && m->w->problem == NULL)
		m->w->problem = hd_xasprintf("it draws more than %llu spans; the limit is "
					     "10^7 (fewer repeats, or larger copies and chunks)",
					     (unsigned long long)m->sink->max_spans);
	if (end > m->makespan)
		m->makespan = end;
}

static int
intern(struct model *m, const char *s)
{
	return m->sink->string(m->sink->ctx, s);
}

static const char *const kernel_labels[HD_KERNEL__COUNT] = {
	[HD_KERNEL_SPIN] = "kernel spin",     [HD_KERNEL_COMPUTE] = "kernel compute",
	[HD_KERNEL_MEMORY] = "kernel memory", [HD_KERNEL_FILL] = "kernel fill",
	[HD_KERNEL_REDUCE] = "kernel reduce",
};

static const char *const copy_labels[HD_COPY__COUNT] = {
	[HD_COPY_H2D] = "memcpy HtoD", [HD_COPY_D2H] = "memcpy DtoH", [HD_COPY_D2D] = "memcpy DtoD",
	[HD_COPY_H2H] = "memcpy HtoH", [HD_COPY_P2P] = "memcpy PtoP",
};

/* What the work of an op is called on the GPU-side lanes. */
int
model_work_label(struct model *m, int opi)
{
	const struct hd_op *op = &m->sc->ops[opi];
	char tmp[160];
	const char *s = tmp;

	if (m->work_label[opi] >= 0)
		return m->work_label[opi];
	if (op->label != NULL && op->label[0] != '\0')
		s = op->label;
	else {
		switch (op->kind) {
		case HD_OP_KERNEL:
			s = (unsigned)op->kernel < HD_KERNEL__COUNT ? kernel_labels[op->kernel] :
								      "kernel";
			break;
		case HD_OP_COPY:
			s = (unsigned)op->copy < HD_COPY__COUNT ? copy_labels[op->copy] : "memcpy";
			break;
		case HD_OP_READ:
			snprintf(tmp, sizeof tmp, "read %s",
				 op->src >= 0 ? m->sc->buffers[op->src].name : "device data");
			break;
		case HD_OP_RECORD:
			snprintf(tmp, sizeof tmp, "record %s", m->sc->events[op->event].name);
			break;
		case HD_OP_WAIT:
			snprintf(tmp, sizeof tmp, "wait %s", m->sc->events[op->event].name);
			break;
		case HD_OP_PREFETCH:
			s = op->to_device ? "prefetch to device" : "prefetch to host";
			break;
		case HD_OP_HOST:
			s = op->text != NULL && op->text[0] != '\0' ? op->text : "host work";
			break;
		case HD_OP_SEND:
		case HD_OP_RECV:
			snprintf(tmp, sizeof tmp, "%s %s", op->kind == HD_OP_SEND ? "send" : "recv",
				 op->kind == HD_OP_SEND ?
				     (op->src >= 0 ? m->sc->buffers[op->src].name : "") :
				     (op->dst >= 0 ? m->sc->buffers[op->dst].name : ""));
			break;
		case HD_OP_COLL:
			s = hd_coll_name(op->coll);
			break;
		case HD_OP_LAUNCH:
			snprintf(tmp, sizeof tmp, "graph %.120s",
				 op->graph >= 0 && m->sc->ops[op->graph].text != NULL ?
				     m->sc->ops[op->graph].text :
				     "");
			break;
		case HD_OP_ALLOC:
		case HD_OP_FREE:
		case HD_OP_PIN:
		case HD_OP_EVENT_SYNC:
		case HD_OP_EVENT_QUERY:
		case HD_OP_STREAM_SYNC:
		case HD_OP_DEVICE_SYNC:
		case HD_OP_REPEAT:
		case HD_OP_ON_RANK:
		case HD_OP_BARRIER:
		case HD_OP_WORKERS:
		case HD_OP_PUT:
		case HD_OP_GET:
		case HD_OP_GRAPH:
		case HD_OP__COUNT:
			s = "op"; /* no work on the GPU */
			break;
		}
	}
	m->work_label[opi] = intern(m, s);
	return m->work_label[opi];
}

int
model_api_label(struct model *m, int opi)
{
	if (m->api_label[opi] < 0)
		m->api_label[opi] = intern(m, hd_op_api_name_sc(m->sc, &m->sc->ops[opi]));
	return m->api_label[opi];
}

int
model_stream_lane(struct model *m, int s)
{
	const struct hd_stream *hs = &m->sc->streams[s];
	char name[48];

	if (m->st[s].lane >= 0)
		return m->st[s].lane;
	if (s == HD_STREAM_LEGACY)
		snprintf(name, sizeof name, "Stream 0 (default)");
	else if (s == HD_STREAM_PER_THREAD)
		snprintf(name, sizeof name, "Stream 1 (per-thread)");
	else
		snprintf(name, sizeof name, "Stream %d (%s)", s, hs->name != NULL ? hs->name : "?");
	m->st[s].lane = m->sink->lane(m->sink->ctx, HD_LANE_STREAM, m->rank, s, name);
	return m->st[s].lane;
}

static int
lane_get(struct model *m, int *slot, enum hd_lane_kind kind, const char *name)
{
	if (*slot < 0)
		*slot = m->sink->lane(m->sink->ctx, kind, m->rank, 0, name);
	return *slot;
}

int
model_ce_lane(struct model *m, enum dir d)
{
	static const enum hd_lane_kind k[DIR__COUNT] = { HD_LANE_CE_H2D, HD_LANE_CE_D2H,
							 HD_LANE_CE_D2D, HD_LANE_CE_D2D };
	static const char *const n[DIR__COUNT] = { "Memcpy HtoD", "Memcpy DtoH", "Memcpy DtoD",
						   "Memcpy DtoD" };

	if (d == DIR_P2P)
		d = DIR_D2D; /* peer copies use the device-to-device engine */
	return lane_get(m, &m->lane_ce[d], k[d], n[d]);
}

int
model_compute_lane(struct model *m)
{
	return lane_get(m, &m->lane_compute, HD_LANE_COMPUTE, "Compute");
}

int
model_pcie_lane(struct model *m, enum dir d)
{
	if (d == DIR_H2D)
		return lane_get(m, &m->lane_pcie[0], HD_LANE_PCIE_H2D, "PCIe HtoD");
	return lane_get(m, &m->lane_pcie[1], HD_LANE_PCIE_D2H, "PCIe DtoH");
}

/* The row of this rank's traffic out over one kind of link. */
int
model_link_lane(struct model *m, enum hd_link_class c)
{
	static const char *const n[HD_LINK__COUNT] = {
		[HD_LINK_NVLINK] = "NVLink out",
		[HD_LINK_PCIE] = "PCIe peer out",
		[HD_LINK_NET] = "Network out",
	};

	if (m->lane_link[c] < 0)
		m->lane_link[c] = m->sink->lane(m->sink->ctx, HD_LANE_LINK, m->rank, (int)c, n[c]);
	return m->lane_link[c];
}

uint64_t
model_buf_bytes(const struct model *m, int b, uint64_t fallback)
{
	if (b < 0)
		return fallback;
	return m->buf[b].bytes != 0 ? m->buf[b].bytes : fallback;
}

/*
 * The driver's fixed costs for managed memory grow with the buffer up to
 * 2 MiB, where calibrate measures them: on a lent H200 (2026-11-28,
 * bench/probe/umsize.hds, buffers of 4 KiB to 32 MiB prefetched, faulted
 * in and copied out of whole) a prefetch's fixed part was 14, 18, 35 and
 * 53 us at 4 KiB, 64 KiB, 512 KiB and 2 MiB, flat above; a fault-in's and
 * a copy's fault-back grew alike.  A quarter of the cost at one page,
 * rising as the square root of the size, follows all three within a few
 * microseconds.
 */
#define UM_FIXED_FULL (2u * 1024u * 1024u)

hd_time
model_um_fixed(hd_time t, uint64_t bytes)
{
	double f;

	if (bytes >= UM_FIXED_FULL || t <= 0)
		return t;
	f = 0.25 + 0.75 * sqrt((double)bytes / (double)UM_FIXED_FULL);
	return (hd_time)llround((double)t * f);
}

/*
 * Create every lane the run can use in one fixed order, so traces of the
 * same scenario always list lanes alike: host, API, streams by index, copy
 * engines, compute, links.
 */
static void
make_lanes(struct model *m)
{
	const struct hd_scenario *sc = m->sc;
	int ce[DIR__COUNT] = { 0 }, compute = 0, pcie[2] = { 0 };
	char *used;
	int i, managed = 0;

	used = hd_xcalloc((size_t)sc->nstreams, 1);
	for (i = 0; i < sc->nbuffers; i++)
		if (sc->buffers[i].mem == HD_MEM_MANAGED)
			managed = 1;
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		switch (op->kind) {
		case HD_OP_KERNEL:
			used[op->stream] = 1;
			compute = 1;
			if (managed)
				pcie[0] = 1;
			break;
		case HD_OP_SEND:
		case HD_OP_RECV:
		case HD_OP_COLL:
			used[op->stream] = 1;
			break;
		case HD_OP_COPY:
			if (op->copy == HD_COPY_H2H)
				break;
			used[op->stream] = 1;
			if (op->copy == HD_COPY_H2D)
				ce[DIR_H2D] = pcie[0] = 1;
			else if (op->copy == HD_COPY_D2H)
				ce[DIR_D2H] = pcie[1] = 1;
			else
				ce[DIR_D2D] = 1;
			break;
		case HD_OP_READ:
			used[op->stream] = 1;
			ce[DIR_D2H] = pcie[1] = 1;
			break;
		case HD_OP_PREFETCH:
			used[op->stream] = 1;
			ce[op->to_device ? DIR_H2D : DIR_D2H] = 1;
			pcie[op->to_device ? 0 : 1] = 1;
			break;
		case HD_OP_RECORD:
		case HD_OP_WAIT:
			used[op->stream] = 1;
			break;
		case HD_OP_LAUNCH:
			used[op->stream] = 1;
			model_graph_lanes(sc, op->graph, managed, &compute, ce, pcie);
			break;
		case HD_OP_GRAPH:
			i += op->body_len; /* its nodes draw where it is launched */
			break;
		case HD_OP_ALLOC:
		case HD_OP_FREE:
		case HD_OP_PIN:
		case HD_OP_EVENT_SYNC:
		case HD_OP_EVENT_QUERY:
		case HD_OP_STREAM_SYNC:
		case HD_OP_DEVICE_SYNC:
		case HD_OP_HOST:
		case HD_OP_REPEAT:
		case HD_OP_ON_RANK:
		case HD_OP_BARRIER:
		case HD_OP_WORKERS:
		case HD_OP_PUT:
		case HD_OP_GET:
		case HD_OP__COUNT:
			break; /* on the host: the host and API lanes */
		}
	}
	m->lane_host = m->sink->lane(m->sink->ctx, HD_LANE_HOST, m->rank, 0, "Host thread");
	m->lane_api = m->sink->lane(m->sink->ctx, HD_LANE_API, m->rank, 0, "CUDA API");
	model_threads_init(m); /* the lanes of its other host threads */
	for (i = 0; i < sc->nstreams; i++)
		if (used[i])
			model_stream_lane(m, i);
	for (i = 0; i < DIR__COUNT; i++)
		if (ce[i])
			model_ce_lane(m, (enum dir)i);
	if (compute)
		model_compute_lane(m);
	if (pcie[0])
		model_pcie_lane(m, DIR_H2D);
	if (pcie[1])
		model_pcie_lane(m, DIR_D2H);
	free(used);
}

/* --- events and ranks -------------------------------------------------------- */

bool
model_time_ok(struct world *w, hd_time t, const struct hd_scenario *sc, int op)
{
	char at[64];

	if (t <= HD_TIME_RUN_MAX)
		return true;
	if (w->problem != NULL)
		return false;
	hd_fmt_time(at, sizeof at, HD_TIME_RUN_MAX);
	w->problem_input = true;
	if (op >= 0 && op < sc->nops)
		w->problem = hd_xasprintf(
		    "the %s on line %d would run past %s, the longest "
		    "run the model can time (make it shorter, or repeat it fewer times)",
		    hd_op_kind_name(sc->ops[op].kind), sc->ops[op].line, at);
	else
		w->problem = hd_xasprintf("the run would go on past %s, the longest run the "
					  "model can time",
					  at);
	return false;
}

/* Schedule an event for this rank; one past the longest run stops the run
 * (model_time_ok) instead. */
void
model_at(struct model *m, hd_time t, enum ev_type type, uint32_t a, uint64_t b)
{
	int op = -1;

	if (t > HD_TIME_RUN_MAX) {
		switch (type) {
		case EV_HOST:
			op = m->h.op;
			break;
		case EV_READY:
		case EV_KDONE:
			op = m->g[a].op;
			break;
		case EV_XLAT:
			op = m->g[m->x[a].gop].op;
			break;
		case EV_NODE:
		case EV_STAMP:
			op = m->g[a].op;
			break;
		case EV_FLOW:
		case EV_COLL:
		case EV_CPU:
			break;
		}
		model_time_ok(m->w, t, m->w->sc, op);
		return;
	}
	hd_engine_at(m->eng, t, (uint32_t)type | ((uint32_t)m->rank << EV_SHIFT), a, b);
}

/* Something changed on rank m: look at its streams and host after this event. */
void
model_touch(struct model *m)
{
	if (!m->touched) {
		m->touched = 1;
		m->w->touched[m->w->ntouched++] = m->rank;
	}
}

/* --- gops and streams ------------------------------------------------------ */

int
model_gop_new(struct model *m, enum gop_kind kind, int stream, int op, uint32_t iter)
{
	struct gop *g;
	int i;

	if (m->gfree >= 0) {
		i = m->gfree;
		m->gfree = m->g[i].next_free;
	} else {
		if (m->ng == m->gcap)
			m->g = hd_xgrow(m->g, &m->gcap, m->ng + 1, sizeof *m->g);
		i = (int)m->ng++;
		memset(&m->g[i], 0, sizeof m->g[i]);
	}
	g = &m->g[i];
	g->kind = kind;
	g->state = GS_QUEUED;
	g->op = op;
	g->iter = iter;
	g->stream = stream;
	g->ndeps = 0;
	g->next = g->qnext = -1;
	g->chunks_done = g->nchunks = 0;
	g->fault_bytes = g->fault_groups = 0;
	g->fault_batch = g->fault_batches = 0;
	g->fault_alloc = 0;
	g->fault_buf = -1;
	g->fault_stop = 0;
	g->kdone = 0;
	g->bytes = 0;
	g->buf = -1;
	g->deferred = 0;
	g->peer = -1;
	g->pnext = -1;
	g->parent = -1;
	m->inflight++;
	if (m->inflight > m->peak_inflight)
		m->peak_inflight = m->inflight;
	return i;
}

void
model_gop_dep(struct model *m, int gi, int stream, uint64_t ticket)
{
	struct gop *g = &m->g[gi];
	size_t cap = (size_t)g->depcap;

	if (m->st[stream].completed >= ticket)
		return;
	if (g->ndeps == g->depcap) {
		g->deps = hd_xgrow(g->deps, &cap, (size_t)g->ndeps + 1, sizeof *g->deps);
		g->depcap = (int)cap;
	}
	g->deps[g->ndeps].stream = stream;
	g->deps[g->ndeps].ticket = ticket;
	g->ndeps++;
}

static int
deps_met(struct model *m, struct gop *g)
{
	while (g->ndeps > 0) {
		struct dep *d = &g->deps[g->ndeps - 1];

		if (m->st[d->stream].completed < d->ticket)
			return 0;
		g->ndeps--;
	}
	return 1;
}

/*
 * Put a new gop on its stream with the legacy default stream's ordering:
 * work on the legacy stream waits for the last op of every blocking
 * stream; work on a blocking stream waits for the last legacy-stream op.
 */
void
model_stream_submit(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	struct mstream *s = &m->st[g->stream];
	int j;

	g->submit = hd_engine_now(m->eng);
	g->ticket = ++s->submitted;
	if (g->stream == HD_STREAM_LEGACY) {
		for (j = 0; j < m->sc->nstreams; j++)
			if (j != HD_STREAM_LEGACY && m->st[j].blocking)
				model_gop_dep(m, gi, j, m->st[j].submitted);
	} else if (s->blocking)
		model_gop_dep(m, gi, HD_STREAM_LEGACY, m->st[HD_STREAM_LEGACY].submitted);
	g = &m->g[gi];
	if (s->tail >= 0)
		m->g[s->tail].next = gi;
	else {
		s->head = gi;
		g->head_since = g->submit;
	}
	s->tail = gi;
	m->dirty = 1;
	model_touch(m);
}

void
model_gop_complete(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	struct mstream *s = &m->st[g->stream];

	if (s->head != gi)
		hd_fatal("model: stream %d completes out of order", g->stream);
	s->head = g->next;
	if (s->head < 0)
		s->tail = -1;
	else
		m->g[s->head].head_since = hd_engine_now(m->eng);
	s->completed++;
	g->state = GS_FREE;
	g->gen++;
	g->next_free = m->gfree;
	m->gfree = gi;
	m->inflight--;
	m->dirty = 1;
	model_touch(m);
}

/* --- starting stream heads -------------------------------------------------- */

/* A transfer's fixed time: the copy engine's set-up, or the driver's work
 * for a prefetch: um.prefetch_base (for its buffer's size) when it moves
 * pages, else um.prefetch_stay and its walk over `walked` bytes of pages
 * already there (40 prefetches of a 4 KiB buffer on the device, one after
 * another on a stream, took about 5 us each on a lent H200, 6-11 us queued
 * behind a spin kernel, where pcie.latency and the walk made 2.5:
 * bench/probe/pfres.hds, run58).  One called behind unfinished work on its
 * stream other than a prefetch the driver carries out once that work is
 * done, um.prefetch_defer later: on two lent H100s 51 rounds of a fill
 * kernel and a prefetch of 94 B already on the device, on one stream, took
 * 1.37-1.49 ms where the model had 0.45, 51 such prefetches alone 0.24-0.33
 * (0.32), 40 behind one 2 ms spin kernel some 3-8 us each on a lent H200
 * (bench/probe/umtiny.hds, umflip.hds: runs 92-93; pfres.hds, run58).
 * Peer copies pay the link's latency. */
static hd_time
xfer_latency(const struct model *m, const struct gop *g, uint64_t walked)
{
	hd_time stay;

	if (g->dir == DIR_P2P)
		return 0;
	if (g->kind == G_PREFETCH && g->bytes > 0 && m->p->um_prefetch_base > 0)
		return model_um_fixed(m->p->um_prefetch_base, model_buf_bytes(m, g->buf, g->bytes));
	if (g->kind != G_PREFETCH || g->bytes > 0)
		return m->p->copy_latency;
	stay = m->p->um_prefetch_stay > 0 ? m->p->um_prefetch_stay : m->p->copy_latency;
	if (g->deferred)
		stay = hd_time_add(stay, m->p->um_prefetch_defer);
	if (walked > 0 && m->p->um_walk_bw > 0)
		return hd_time_add(stay, hd_time_for_bytes((double)walked, m->p->um_walk_bw));
	return stay;
}

/* The rate a prefetch migrates at: to the host at its own rate. */
static double
prefetch_rate(const struct hd_profile *p, int to_device)
{
	return !to_device && p->um_prefetch_d2h_bw > 0 ? p->um_prefetch_d2h_bw : p->um_prefetch_bw;
}

/*
 * What prefetch g moves of its managed buffer: pages already where it sends
 * them stay (the driver walks them, *walked bytes); pages another prefetch
 * is moving there are that prefetch's, and g waits for it to finish
 * (returns -1: on a lent H100, two prefetches of 256 MiB to the device on
 * two streams at once took as long as one, and a kernel on the pages in
 * flight waited for them instead of faulting them: bench/probe/umcopy.hds).
 * A buffer on the device may have had its first host_bytes written back
 * by host-to-host copies, or its first host_moved written or read by
 * copies (model_ops.c's fault_back): those are what a prefetch to the
 * device moves, and what one to the host need not.
 */
static int
prefetch_plan(struct model *m, struct gop *g, uint64_t *walked)
{
	struct mbuf *b;
	uint64_t back, moved;
	int there;

	*walked = 0;
	g->move = 0;
	if (g->buf < 0 || m->buf[g->buf].mem != HD_MEM_MANAGED)
		return 0;
	b = &m->buf[g->buf];
	if (b->moving == g->to_device)
		return -1;
	/* even one that moves nothing: heldout13 000 (32 rounds of a 679 KB
	 * managed alloc, a prefetch of a live 285 KB managed buffer to the
	 * device, there already, and the free) took 9.9 ms on lent H200s,
	 * some 240 us a round once the model's rest of it is taken off, where
	 * beside a live managed buffer and nothing else 623 KB took 26 (runs
	 * 49-50; bench/probe/umrealloc.hds, run77) */
	model_heap_moved(m, g->buf);
	/* to the device while a kernel faults it in: the prefetch moves what
	 * the kernel has not begun to, and the kernel waits for it (a kernel
	 * on 1020 MB of managed memory on the host, with a prefetch of it on
	 * another stream just after, took about 25 ms in all on a lent H200
	 * where its faults alone are modelled at 107: heldout10 002,
	 * 2026-11-28) */
	if (g->to_device && b->moving < 0 && b->faulting >= 0 &&
	    (moved = model_fault_takeover(m, g->buf)) > 0) {
		if (moved > g->bytes)
			moved = g->bytes;
		*walked = g->bytes - moved;
		g->bytes = moved;
		b->moving = 1;
		g->move = ++b->moves;
		return 0;
	}
	there = b->moving >= 0 ? b->moving : b->resident; /* on the device, or going */
	back = there && b->moving < 0 ? b->host_bytes : 0;
	if (there && b->moving < 0 && b->host_moved > back)
		back = b->host_moved;
	if (back > g->bytes)
		back = g->bytes;
	if (g->to_device)
		moved = there ? back : g->bytes;
	else
		moved = there ? g->bytes - back : 0;
	*walked = g->bytes - moved;
	g->bytes = moved;
	if (moved > 0) {
		b->moving = g->to_device;
		g->move = ++b->moves;
	}
	return 0;
}

/*
 * A record of a timing event takes the GPU gpu.event_record to write its
 * timestamp, one record at a time whichever stream it is on (on a lent
 * H200, 200 records queued behind a kernel drained at 1.3 us each, on two
 * streams at 2.6 us a pair; submitted one by one to an idle stream, or
 * each after a kernel or a copy, 1.5-1.9 us; a notiming event's at once:
 * bench/probe/evrec.hds, apictx.hds, 2026-11-28).
 */
static int
record_stamps(const struct model *m, const struct gop *g)
{
	return m->p->event_record > 0 && m->sc->events[m->sc->ops[g->op].event].timing;
}

/* Record gi reaches its event: the event fires now. */
static void
record_done(struct model *m, int gi)
{
	const struct gop *g = &m->g[gi];
	hd_time now = hd_engine_now(m->eng);

	model_emit(m, model_stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_EVENT, HD_WHY_NONE,
		   now, now, 0, model_work_label(m, g->op));
	model_gop_complete(m, gi);
}

/* The head of a stream has its dependencies: start it. */
static void
gop_start(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	hd_time now = hd_engine_now(m->eng), ready;
	uint64_t walked;
	int xi;

	switch (g->kind) {
	case G_KERNEL:
		ready = g->submit + m->p->launch_latency;
		if (ready > now) {
			g->state = GS_LAUNCH;
			model_at(m, ready, EV_READY, (uint32_t)gi, g->gen);
		} else
			model_kernel_ready(m, gi);
		break;
	case G_COPY:
	case G_PREFETCH:
		walked = 0;
		g->start = now;
		if (g->kind == G_PREFETCH && prefetch_plan(m, g, &walked) != 0) {
			g->state = GS_WAITRES; /* behind the prefetch moving its pages */
			g->bnext = m->buf[g->buf].waiters;
			m->buf[g->buf].waiters = gi;
			break;
		}
		g->state = GS_WAITRES;
		xi = model_xfer_new(m, g->kind == G_COPY ? X_COPY : X_PREFETCH, gi, g->dir,
				    g->bytes,
				    g->kind == G_PREFETCH ? prefetch_rate(m->p, g->to_device) : 0,
				    xfer_latency(m, g, walked), m->ce_of[g->dir]);
		if (g->dir == DIR_P2P)
			model_peer_path(m, &m->x[xi], g->peer);
		model_engine_queue(m, xi);
		break;
	case G_MARK:
		model_gop_complete(m, gi);
		break;
	case G_RECORD:
		if (record_stamps(m, g)) {
			hd_time t = (m->stamp_free > now ? m->stamp_free : now) +
			    m->p->event_record;

			m->stamp_free = t;
			g->state = GS_RUNNING;
			g->start = now;
			model_at(m, t, EV_STAMP, (uint32_t)gi, g->gen);
		} else
			record_done(m, gi);
		break;
	case G_WAIT:
		if (now > g->head_since)
			model_emit(m, model_stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_WAIT,
				   HD_WHY_NONE, g->head_since, now, 0, model_work_label(m, g->op));
		model_gop_complete(m, gi);
		break;
	case G_STAGED:
		g->state = GS_RUNNING; /* the host thread drives it now */
		g->start = now;
		break;
	case G_SEND:
	case G_RECV:
		g->state = GS_WAITRES;
		g->start = now;
		model_nccl_sms(m, 1);
		model_post(m, gi);
		break;
	case G_COLL:
		g->state = GS_WAITRES;
		g->start = now;
		model_nccl_sms(m, 1);
		model_coll_arrive(m, gi);
		break;
	case G_GRAPH:
		model_graph_start(m, gi);
		break;
	}
}

void
model_kick(struct model *m)
{
	int s, gi, progress = 1;

	while (progress) {
		progress = 0;
		m->dirty = 0;
		for (s = 0; s < m->sc->nstreams; s++) {
			while ((gi = m->st[s].head) >= 0 && m->g[gi].state == GS_QUEUED &&
			       deps_met(m, &m->g[gi])) {
				gop_start(m, gi);
				if (m->st[s].head == gi)
					break;
				progress = 1;
			}
		}
		if (m->dirty)
			progress = 1;
	}
}

/* --- one rank ------------------------------------------------------------------ */

static void
rank_free(struct model *m)
{
	size_t i;

	for (i = 0; i < m->ng; i++)
		free(m->g[i].deps);
	free(m->g);
	free(m->krun);
	free(m->x);
	free(m->st);
	free(m->ev);
	free(m->buf);
	free(m->execs);
	free(m->h.stack);
	model_threads_free(m);
}

static void
rank_init(struct model *m, struct world *w, int rank)
{
	const struct hd_scenario *sc = w->sc;
	const struct hd_profile *p = w->p;
	int i;

	memset(m, 0, sizeof *m);
	m->w = w;
	m->rank = rank;
	m->sc = sc;
	m->p = p;
	m->sink = w->sink;
	m->eng = w->eng;
	m->net = w->net;
	m->gfree = m->xfree = -1;
	m->kq_head = m->kq_tail = -1;
	m->sends = m->recvs = -1;
	m->comm_stream = -1;

	/* PCIe: a link per direction plus the host side both directions share */
	{
		int h2d = hd_flow_resource(m->net, p->h2d_bw);
		int d2h = hd_flow_resource(m->net, p->d2h_bw);
		int host = hd_flow_resource(m->net, p->bidir_bw);
		int hbm = hd_flow_resource(m->net, p->d2d_bw);

		const int *node = w->host_dma[hd_coll_node(p, rank)];

		m->res[DIR_H2D][0] = h2d;
		m->res[DIR_H2D][1] = host;
		m->nres[DIR_H2D] = 2;
		m->res[DIR_D2H][0] = d2h;
		m->res[DIR_D2H][1] = host;
		m->nres[DIR_D2H] = 2;
		m->res[DIR_D2D][0] = hbm;
		m->nres[DIR_D2D] = 1;
		/* and the node's host, shared with the other GPUs there */
		if (node[0] >= 0)
			m->res[DIR_H2D][m->nres[DIR_H2D]++] = node[0];
		if (node[1] >= 0)
			m->res[DIR_D2H][m->nres[DIR_D2H]++] = node[1];
		if (node[2] >= 0) {
			m->res[DIR_H2D][m->nres[DIR_H2D]++] = node[2];
			m->res[DIR_D2H][m->nres[DIR_D2H]++] = node[2];
		}
	}
	/* NVLink ports, out and in, when peers can use them */
	m->res_out = m->res_in = -1;
	if (sc->nranks > 1 && p->nvlinks > 0 && p->nvlink_bw > 0) {
		double port = (double)p->nvlinks * p->nvlink_bw;

		if (p->nvlink_copy_bw > port)
			port = p->nvlink_copy_bw;
		m->res_out = hd_flow_resource(m->net, port);
		m->res_in = hd_flow_resource(m->net, port);
	}
	/* one engine serves both directions; two split them; a third takes DtoD */
	m->ce_of[DIR_H2D] = 0;
	m->ce_of[DIR_D2H] = p->copy_engines >= 2 ? 1 : 0;
	m->ce_of[DIR_D2D] = m->ce_of[DIR_P2P] = p->copy_engines >= 3 ? 2 : 0;
	for (i = 0; i < 3; i++) {
		m->ce[i].head = m->ce[i].tail = -1;
		m->ce[i].busy = -1;
	}

	m->st = hd_xcalloc((size_t)sc->nstreams, sizeof *m->st);
	for (i = 0; i < sc->nstreams; i++) {
		m->st[i].head = m->st[i].tail = -1;
		m->st[i].lane = -1;
		m->st[i].blocking = i != HD_STREAM_LEGACY &&
		    !(sc->streams[i].flags & HD_STREAM_NONBLOCKING);
	}
	m->ev = hd_xcalloc((size_t)(sc->nevents > 0 ? sc->nevents : 1), sizeof *m->ev);
	m->buf = hd_xcalloc((size_t)(sc->nbuffers > 0 ? sc->nbuffers : 1), sizeof *m->buf);
	for (i = 0; i < sc->nbuffers; i++) {
		m->buf[i].mem = sc->buffers[i].mem;
		m->buf[i].bytes = sc->buffers[i].bytes;
		m->buf[i].resident = sc->buffers[i].mem == HD_MEM_DEVICE;
		m->buf[i].moving = m->buf[i].waiters = m->buf[i].faulting = -1;
		m->buf[i].live = 1;
		m->buf[i].touched = sc->buffers[i].bytes;
	}
	m->read_buf = -1;
	/* a buffer with an alloc of its own starts unallocated, as the real
	 * backend leaves it */
	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == HD_OP_ALLOC && sc->ops[i].dst >= 0)
			m->buf[sc->ops[i].dst].live = 0;
	for (i = 0; i < sc->nbuffers; i++)
		if (model_heap_small(sc, i) && m->buf[i].live)
			m->heap_live[sc->buffers[i].mem]++;
	m->execs = hd_xcalloc((size_t)(sc->nops > 0 ? sc->nops : 1), sizeof *m->execs);
	m->work_label = w->work_label;
	m->api_label = w->api_label;
	for (i = 0; i < DIR__COUNT; i++)
		m->lane_ce[i] = -1;
	for (i = 0; i < HD_LINK__COUNT; i++)
		m->lane_link[i] = -1;
	m->lane_compute = m->lane_pcie[0] = m->lane_pcie[1] = -1;
	m->h.op = -1;
}

/* --- the run ---------------------------------------------------------------- */

static void
world_free(struct world *w)
{
	size_t i;
	int r;

	if (w->rk != NULL)
		for (r = 0; r < w->n; r++)
			rank_free(&w->rk[r]);
	for (i = 0; i < w->ncolls; i++) {
		free(w->colls[i].at);
		free(w->colls[i].gop);
		free(w->colls[i].gen);
	}
	free(w->colls);
	free(w->rk);
	free(w->touched);
	free(w->work_label);
	free(w->api_label);
	free(w->nic_out);
	free(w->nic_in);
	free(w->host_dma);
	free(w->problem);
	model_graph_free(w);
	hd_flow_free(w->net);
	hd_engine_free(w->eng);
}

static void
world_init(struct world *w, const struct hd_scenario *sc, const struct hd_profile *p,
	   const struct hd_sink *sink)
{
	int i, nodes, n = sc->nranks;
	double both;

	memset(w, 0, sizeof *w);
	w->sc = sc;
	w->p = p;
	w->sink = sink;
	w->n = n;
	w->eng = hd_engine_new();
	w->net = hd_flow_new();
	w->flow_at = -1;
	w->touched = hd_xmalloc((size_t)n * sizeof *w->touched);
	w->work_label = hd_xmalloc((size_t)(sc->nops > 0 ? sc->nops : 1) * sizeof(int));
	w->api_label = hd_xmalloc((size_t)(sc->nops > 0 ? sc->nops : 1) * sizeof(int));
	for (i = 0; i < sc->nops; i++)
		w->work_label[i] = w->api_label[i] = -1;
	nodes = (n + (p->gpus_per_node > 0 ? p->gpus_per_node : 1) - 1) /
	    (p->gpus_per_node > 0 ? p->gpus_per_node : 1);
	w->nic_out = hd_xmalloc((size_t)nodes * sizeof *w->nic_out);
	w->nic_in = hd_xmalloc((size_t)nodes * sizeof *w->nic_in);
	/* One cap shared by both directions cannot be lower than either's own
	 * (one direction alone would be held to it): the larger serves. */
	both = p->node_bidir_bw;
	if (both > 0 && p->node_h2d_bw > both)
		both = p->node_h2d_bw;
	if (both > 0 && p->node_d2h_bw > both)
		both = p->node_d2h_bw;
	w->host_dma = hd_xmalloc((size_t)nodes * sizeof *w->host_dma);
	for (i = 0; i < nodes; i++) {
		w->nic_out[i] = w->nic_in[i] = -1;
		w->host_dma[i][0] = p->node_h2d_bw > 0 ? hd_flow_resource(w->net, p->node_h2d_bw) :
							 -1;
		w->host_dma[i][1] = p->node_d2h_bw > 0 ? hd_flow_resource(w->net, p->node_d2h_bw) :
							 -1;
		w->host_dma[i][2] = both > 0 ? hd_flow_resource(w->net, both) : -1;
	}
	model_graph_init(w);
	w->rk = hd_xcalloc((size_t)n, sizeof *w->rk);
	for (i = 0; i < n; i++)
		rank_init(&w->rk[i], w, i);
}

static void
handle(struct world *w, const struct hd_event_rec *ev, volatile int *stop)
{
	struct model *m = &w->rk[ev->type >> EV_SHIFT];

	switch ((enum ev_type)(ev->type & EV_MASK)) {
	case EV_HOST:
		if (ev->a == 0)
			model_host_step(m, stop);
		else
			model_thread_step(m, (int)ev->a, stop);
		break;
	case EV_READY:
		if (m->g[ev->a].gen == (uint32_t)ev->b)
			model_kernel_ready(m, (int)ev->a);
		break;
	case EV_KDONE:
		/* a kernel re-timed beside NCCL has a later EV_KDONE */
		if (m->g[ev->a].gen == (uint32_t)ev->b && m->g[ev->a].kdone == ev->t)
			model_kernel_done(m, (int)ev->a);
		break;
	case EV_XLAT:
		if (m->x[ev->a].gen == (uint32_t)ev->b)
			model_flow_start(m, (int)ev->a);
		break;
	case EV_FLOW:
		model_on_flow(w, ev->a);
		return;
	case EV_COLL:
		if (m->g[ev->a].gen == (uint32_t)ev->b)
			model_coll_done(m, (int)ev->a);
		break;
	case EV_CPU:
		model_on_cpu(m, ev->a);
		break;
	case EV_NODE:
		if (m->g[ev->a].gen == (uint32_t)ev->b)
			model_graph_node_ready(m, (int)ev->a);
		break;
	case EV_STAMP:
		if (m->g[ev->a].gen == (uint32_t)ev->b)
			record_done(m, (int)ev->a);
		break;
	}
	model_touch(m);
}

int
hd_model_run(const struct hd_scenario *sc, const struct hd_profile *p, const struct hd_sink *sink,
	     volatile int *stop, struct hd_model_stats *st, struct hd_err *e)
{
	struct world w;
	struct hd_event_rec ev;
	int rc = 0, r, i, stuck = 0;

	if (hd_model_check(sc, e) < 0 || model_check_threads(sc, e) < 0 ||
	    model_check_profile(p, e) < 0)
		return -1;
	world_init(&w, sc, p, sink);
	for (r = 0; r < w.n; r++) {
		struct model *m = &w.rk[r];

		make_lanes(m);
		m->lbl_staging = intern(m, "staging memcpy");
		m->lbl_fault = intern(m, "page faults");
		model_at(m, 0, EV_HOST, 0, 0);
	}
	while (w.problem == NULL && hd_engine_pop(w.eng, &ev)) {
		handle(&w, &ev, stop);
		/* ranks whose state changed: start stream heads, wake hosts */
		for (i = 0; i < w.ntouched; i++) {
			struct model *m = &w.rk[w.touched[i]];

			if (m->dirty)
				model_kick(m);
			model_host_poll(m);
		}
		for (i = 0; i < w.ntouched; i++)
			w.rk[w.touched[i]].touched = 0;
		w.ntouched = 0;
		if (stop != NULL && *stop)
			break;
	}
	for (r = 0; r < w.n; r++) {
		struct model *m = &w.rk[r];
		hd_time now = hd_engine_now(w.eng);

		if (m->h.done && model_threads_done(m))
			continue;
		stuck++;
		/* a deadlocked rank's call never returns: show it open until now */
		if (w.problem == NULL && !(stop != NULL && *stop) && m->h.op >= 0) {
			if (m->h.blocked && now > m->h.w.since)
				model_emit(m, m->lane_api, m->h.op, m->h.iter, HD_SPAN_BLOCKED,
					   m->h.w.why, m->h.w.since, now, 0,
					   model_api_label(m, m->h.op));
			model_emit(m, m->lane_api, m->h.op, m->h.iter, HD_SPAN_API, HD_WHY_NONE,
				   m->h.t0, now, 0, model_api_label(m, m->h.op));
		}
		if (w.problem == NULL && !(stop != NULL && *stop))
			model_threads_stuck(m, now);
	}
	if (stop != NULL && *stop) {
		hd_err_set(e, HD_EXIT_FAIL, "", "the run of scenario '%s' was stopped", sc->name);
		rc = -1;
	} else if (w.problem != NULL) {
		hd_err_set(e,
			   w.problem_input || (sink->max_spans > 0 && w.spans > sink->max_spans) ?
			       HD_EXIT_INPUT :
			       HD_EXIT_FAIL,
			   "", "scenario '%s': %s", sc->name, w.problem);
		rc = -1;
	} else if (stuck > 0 || sc->expect_deadlock) {
		char *text = stuck > 0 ? model_deadlock_text(&w) : NULL;

		if (stuck > 0 && sc->expect_deadlock) {
			if (sink->note != NULL)
				sink->note(sink->ctx, text);
		} else if (stuck > 0) {
			hd_err_set(e, HD_EXIT_FAIL, "", "scenario '%s': %s", sc->name, text);
			if (sink->note != NULL)
				sink->note(sink->ctx, text);
			rc = -1;
		} else {
			hd_err_set(e, HD_EXIT_INPUT, "",
				   "scenario '%s' says 'expect "
				   "deadlock' but every rank finished",
				   sc->name);
			rc = -1;
		}
		free(text);
	}
	if (st != NULL) {
		memset(st, 0, sizeof *st);
		st->events = hd_engine_events(w.eng);
		st->peak_pending = hd_engine_peak(w.eng);
		for (r = 0; r < w.n; r++) {
			struct model *m = &w.rk[r];

			st->peak_ops += m->peak_inflight;
			st->spans += m->spans;
			st->op_execs += m->op_execs;
			if (m->makespan > st->makespan)
				st->makespan = m->makespan;
		}
		st->deadlocked = stuck > 0;
	}
	world_free(&w);
	return rc;
}
