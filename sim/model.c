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
 * Gops and transfers live in pools of reusable slots with generation
 * numbers, so memory grows with work in flight, never with history.
 * Nothing here reads a clock or an address for ordering: same input, same
 * trace.
 *
 * Simplifications, stated once: managed memory on the host side of a copy
 * counts as pinned (no faults on copies or reads; a read from a managed
 * buffer is a plain staged copy); a kernel faults in the managed buffers it
 * names that are not resident on the device when it starts, and they stay
 * resident until a prefetch to the host; host-to-host copies are a CPU
 * memcpy; device-to-device copies use the third copy engine when there are
 * three or more, else share the host-to-device engine.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/coll.h"
#include "sim/engine.h"
#include "sim/flow.h"
#include "sim/model.h"

enum ev_type {
	EV_HOST,        /* the host thread resumes */
	EV_READY,       /* a kernel's launch latency has passed */
	EV_KDONE,       /* a kernel finishes */
	EV_XLAT,        /* a transfer's set-up latency has passed: start its flow */
	EV_FLOW,        /* the earliest flow finishes (a = generation) */
	EV_COLL,        /* this rank's part of a collective ends */
};
/* Event types carry the rank above the low four bits. */
#define EV_SHIFT 4
#define EV_MASK 0xfu
/* Spans one run may draw: keeps a run's trace within about 1 GB however
 * the ops multiply out (a pageable copy stages in many chunks). */

/* DIR_P2P: a peer copy or send/recv; its path comes with the transfer. */
enum dir { DIR_H2D, DIR_D2H, DIR_D2D, DIR_P2P, DIR__COUNT };

enum gop_kind {
	G_KERNEL, G_COPY, G_PREFETCH, G_RECORD, G_WAIT, G_STAGED,
	G_SEND, G_RECV, G_COLL,
};

enum gop_state {
	GS_FREE,
	GS_QUEUED,      /* in its stream, waiting to be head with dependencies met */
	GS_LAUNCH,      /* kernel: waiting for launch latency */
	GS_WAITRES,     /* waiting for SMs or a copy engine */
	GS_RUNNING,
};

enum xfer_kind { X_COPY, X_CHUNK, X_PREFETCH, X_FAULT, X_COMM };

struct dep {
	int stream;
	uint64_t ticket;        /* done when the stream has completed this many */
};

struct gop {
	enum gop_kind kind;
	enum gop_state state;
	uint32_t gen;
	int op;
	uint32_t iter;
	int stream;
	uint64_t ticket;        /* its number on its stream (1-based) */
	hd_time submit, start, head_since, compute_start;
	hd_time kdone;          /* kernels: when its EV_KDONE fires (0: not computing) */
	int next;               /* next in its stream */
	int qnext;              /* next in the kernel queue */
	int next_free;
	struct dep *deps;       /* kept across reuse of the slot */
	int ndeps, depcap;
	/* kernels */
	int sms;
	hd_time dur;
	/* copies */
	enum dir dir;
	uint64_t bytes;
	uint64_t chunks_done;   /* staged copies: chunk DMAs finished */
	uint64_t nchunks;
	int buf;                /* prefetch: the buffer */
	int to_device;
	/* communication */
	int peer;               /* send / recv / peer copy: the other rank */
	int pnext;              /* next in the rank's list of posted sends or recvs */
	uint64_t seq;           /* collectives: which of the rank's collectives */
};

struct xfer {
	enum xfer_kind kind;
	uint32_t gen;
	int gop;
	enum dir dir;
	uint64_t bytes;
	double cap;
	hd_time lat;
	int engine;             /* -1: no copy engine (page faults, NCCL) */
	hd_time t0, t1;         /* on the engine, on the wire */
	int next, next_free;
	/* DIR_P2P: the path, and for send/recv the receiving rank's gop */
	int res[4], nres;
	enum hd_link_class cls;
	int rgop;
	uint32_t rgen;
};

struct engine {
	int head, tail;         /* FIFO of transfers */
	int busy;               /* transfer in progress, or -1 */
};

struct mstream {
	int head, tail;
	uint64_t submitted, completed;
	int blocking;           /* synchronises with the legacy stream */
	int lane;
};

struct mevent {
	int recorded;
	int stream;
	uint64_t ticket;
};

struct mbuf {
	enum hd_mem mem;        /* changes when cudaHostRegister pins it */
	int resident;           /* managed: on the device */
	uint64_t bytes;
};

enum wait_kind {
	W_NONE,
	W_TICKET,       /* stream `stream` has completed `ticket` ops */
	W_ALL,          /* every stream idle */
	W_QUEUE,        /* stream has room in its queue */
	W_STARTED,      /* staged gop (slot, gen) is running */
	W_CHUNKS,       /* staged gop (slot, gen) has `ticket` chunks done */
	W_BARRIER,      /* every rank has reached barrier number `ticket` */
};

struct hwait {
	enum wait_kind kind;
	int stream;
	uint64_t ticket;
	int slot;
	uint32_t gen;
	enum hd_why why;
	int quiet;              /* part of a longer blocked span: draw none */
	hd_time wake;
	hd_time since;
};

struct loop {
	int start, end;
	uint64_t left;
	uint64_t mark;          /* ops returned when this iteration began */
};

struct host {
	int pc;
	uint64_t returned;      /* ops host_next has handed out */
	struct loop *stack;
	size_t sp, stack_cap;
	int op;                 /* op being executed, or -1 */
	uint32_t iter;
	int phase;
	hd_time t0;             /* when the call began */
	int blocked;            /* waiting in `w` */
	struct hwait w;
	int done;
	/* the staged copy the host is driving */
	int g;
	uint32_t ggen;
	uint64_t chunk, nchunks, i, issued;
	enum dir dir;
	enum hd_why why;
	hd_time stage_start;
};

struct world;

/* One rank: its host thread and its GPU. */
struct model {
	struct world *w;
	int rank;
	int touched;            /* on the world's list of ranks to look at */
	const struct hd_scenario *sc;
	const struct hd_profile *p;
	const struct hd_sink *sink;
	struct hd_engine *eng;
	struct hd_flownet *net;
	int res[DIR__COUNT][4], nres[DIR__COUNT];

	struct gop *g;
	size_t ng, gcap;
	int gfree;
	size_t inflight, peak_inflight;

	struct xfer *x;
	size_t nx, xcap;
	int xfree;

	struct engine ce[3];
	int ce_of[DIR__COUNT];

	struct mstream *st;
	struct mevent *ev;
	struct mbuf *buf;
	uint32_t *execs;

	int kq_head, kq_tail;
	int sms_used, nkernels;

	struct host h;
	int dirty;              /* a gop completed: heads may start */

	/* lanes and labels */
	int lane_host, lane_api, lane_ce[DIR__COUNT], lane_compute, lane_pcie[2];
	int lane_link[HD_LINK__COUNT];
	int *work_label;        /* per op, -1 until interned (the world's) */
	int *api_label;         /* per op, -1 until interned (the world's) */
	int lbl_staging, lbl_fault;

	/* communication */
	int res_out, res_in;    /* NVLink ports (flow resources) */
	int sends, recvs;       /* posted sends / recvs not yet matched (lists of gops) */
	uint64_t ncoll;         /* collectives started on this rank */
	int nccl_running;       /* NCCL kernels on the GPU now (they hold coll_sms SMs) */
	int comm_stream;        /* the stream and ticket of the last NCCL call, */
	uint64_t comm_ticket;   /* which the next one waits for (-1: none) */
	uint64_t nbarrier;      /* barriers reached */

	uint64_t spans, op_execs;
	hd_time makespan;
};

/* A collective some ranks have reached. */
struct coll {
	uint64_t seq;
	int arrived;
	int op;                 /* the first arrival's op, for checks and messages */
	int rank0;              /* the first rank that arrived */
	hd_time *at;            /* arrival per rank */
	int *gop;               /* per rank: its gop (or -1) */
	uint32_t *gen;
};

/* Every rank, and what they share: time, the flow network, collectives. */
struct world {
	const struct hd_scenario *sc;
	const struct hd_profile *p;
	const struct hd_sink *sink;
	struct hd_engine *eng;
	struct hd_flownet *net;
	int n;
	struct model *rk;
	int *touched;           /* ranks to look at after this event */
	int ntouched;
	uint32_t flow_gen;
	hd_time flow_at;        /* time of the live EV_FLOW, or -1 */
	int *work_label, *api_label;
	int *nic_out, *nic_in;  /* network resources per node, -1 until needed */
	int (*host_dma)[3];     /* per node: the host's caps on all its GPUs' DMA,
				 * H2D, D2H and both (-1: none) */
	struct coll *colls;     /* collectives in progress, oldest first */
	size_t ncolls, collcap;
	uint64_t barrier_arrived, barrier_done;
	char *problem;          /* a mismatch found: the run stops */
	uint64_t spans;         /* drawn by every rank so far, at most the sink's max_spans */
	int lbl_link[HD_LINK__COUNT];
};

/* --- spans, lanes and labels ------------------------------------------------- */

static void
emit(struct model *m, int lane, int op, uint32_t iter, enum hd_span_kind kind,
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
	if (++m->w->spans > m->sink->max_spans && m->sink->max_spans > 0 &&
	    m->w->problem == NULL)
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
	[HD_KERNEL_SPIN] = "kernel spin",
	[HD_KERNEL_COMPUTE] = "kernel compute",
	[HD_KERNEL_MEMORY] = "kernel memory",
	[HD_KERNEL_FILL] = "kernel fill",
	[HD_KERNEL_REDUCE] = "kernel reduce",
};

static const char *const copy_labels[HD_COPY__COUNT] = {
	[HD_COPY_H2D] = "memcpy HtoD",
	[HD_COPY_D2H] = "memcpy DtoH",
	[HD_COPY_D2D] = "memcpy DtoD",
	[HD_COPY_H2H] = "memcpy HtoH",
	[HD_COPY_P2P] = "memcpy PtoP",
};

/* What the work of an op is called on the GPU-side lanes. */
static int
work_label(struct model *m, int opi)
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
			s = (unsigned)op->kernel < HD_KERNEL__COUNT ?
			    kernel_labels[op->kernel] : "kernel";
			break;
		case HD_OP_COPY:
			s = (unsigned)op->copy < HD_COPY__COUNT ?
			    copy_labels[op->copy] : "memcpy";
			break;
		case HD_OP_READ:
			snprintf(tmp, sizeof tmp, "read %s", op->src >= 0 ?
			    m->sc->buffers[op->src].name : "device data");
			break;
		case HD_OP_RECORD:
			snprintf(tmp, sizeof tmp, "record %s",
			    m->sc->events[op->event].name);
			break;
		case HD_OP_WAIT:
			snprintf(tmp, sizeof tmp, "wait %s",
			    m->sc->events[op->event].name);
			break;
		case HD_OP_PREFETCH:
			s = op->to_device ? "prefetch to device" : "prefetch to host";
			break;
		case HD_OP_HOST:
			s = op->text != NULL && op->text[0] != '\0' ?
			    op->text : "host work";
			break;
		case HD_OP_SEND:
		case HD_OP_RECV:
			snprintf(tmp, sizeof tmp, "%s %s", op->kind == HD_OP_SEND ?
			    "send" : "recv", op->kind == HD_OP_SEND ?
			    (op->src >= 0 ? m->sc->buffers[op->src].name : "") :
			    (op->dst >= 0 ? m->sc->buffers[op->dst].name : ""));
			break;
		case HD_OP_COLL:
			s = hd_coll_name(op->coll);
			break;
		default:
			s = "op";
			break;
		}
	}
	m->work_label[opi] = intern(m, s);
	return m->work_label[opi];
}

static int
api_label(struct model *m, int opi)
{
	if (m->api_label[opi] < 0)
		m->api_label[opi] = intern(m, hd_op_api_name_sc(m->sc, &m->sc->ops[opi]));
	return m->api_label[opi];
}

static int
stream_lane(struct model *m, int s)
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
		snprintf(name, sizeof name, "Stream %d (%s)", s,
		    hs->name != NULL ? hs->name : "?");
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

static int
ce_lane(struct model *m, enum dir d)
{
	static const enum hd_lane_kind k[DIR__COUNT] = {
		HD_LANE_CE_H2D, HD_LANE_CE_D2H, HD_LANE_CE_D2D, HD_LANE_CE_D2D };
	static const char *const n[DIR__COUNT] = {
		"Memcpy HtoD", "Memcpy DtoH", "Memcpy DtoD", "Memcpy DtoD" };

	if (d == DIR_P2P)
		d = DIR_D2D;    /* peer copies use the device-to-device engine */
	return lane_get(m, &m->lane_ce[d], k[d], n[d]);
}

static int
compute_lane(struct model *m)
{
	return lane_get(m, &m->lane_compute, HD_LANE_COMPUTE, "Compute");
}

static int
pcie_lane(struct model *m, enum dir d)
{
	if (d == DIR_H2D)
		return lane_get(m, &m->lane_pcie[0], HD_LANE_PCIE_H2D, "PCIe HtoD");
	return lane_get(m, &m->lane_pcie[1], HD_LANE_PCIE_D2H, "PCIe DtoH");
}

/* The row of this rank's traffic out over one kind of link. */
static int
link_lane(struct model *m, enum hd_link_class c)
{
	static const char *const n[HD_LINK__COUNT] = {
		[HD_LINK_NVLINK] = "NVLink out", [HD_LINK_PCIE] = "PCIe peer out",
		[HD_LINK_NET] = "Network out",
	};

	if (m->lane_link[c] < 0)
		m->lane_link[c] = m->sink->lane(m->sink->ctx, HD_LANE_LINK,
		    m->rank, (int)c, n[c]);
	return m->lane_link[c];
}

static uint64_t
buf_bytes(const struct model *m, int b, uint64_t fallback)
{
	if (b < 0)
		return fallback;
	return m->buf[b].bytes != 0 ? m->buf[b].bytes : fallback;
}

static int
is_staged(const struct model *m, const struct hd_op *op)
{
	if (op->copy == HD_COPY_H2D)
		return op->src >= 0 && m->buf[op->src].mem == HD_MEM_PAGEABLE;
	if (op->copy == HD_COPY_D2H)
		return op->dst >= 0 && m->buf[op->dst].mem == HD_MEM_PAGEABLE;
	return 0;
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
		default:
			break;
		}
	}
	m->lane_host = m->sink->lane(m->sink->ctx, HD_LANE_HOST, m->rank, 0, "Host thread");
	m->lane_api = m->sink->lane(m->sink->ctx, HD_LANE_API, m->rank, 0, "CUDA API");
	for (i = 0; i < sc->nstreams; i++)
		if (used[i])
			stream_lane(m, i);
	for (i = 0; i < DIR__COUNT; i++)
		if (ce[i])
			ce_lane(m, (enum dir)i);
	if (compute)
		compute_lane(m);
	if (pcie[0])
		pcie_lane(m, DIR_H2D);
	if (pcie[1])
		pcie_lane(m, DIR_D2H);
	free(used);
}

/* --- events and ranks -------------------------------------------------------- */

/* Schedule an event for this rank. */
static void
at(struct model *m, hd_time t, enum ev_type type, uint32_t a, uint64_t b)
{
	hd_engine_at(m->eng, t, (uint32_t)type | ((uint32_t)m->rank << EV_SHIFT), a, b);
}

/* Something changed on rank m: look at its streams and host after this event. */
static void
touch(struct model *m)
{
	if (!m->touched) {
		m->touched = 1;
		m->w->touched[m->w->ntouched++] = m->rank;
	}
}

/* --- gops and streams ------------------------------------------------------ */

static int
gop_new(struct model *m, enum gop_kind kind, int stream, int op, uint32_t iter)
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
	g->kdone = 0;
	g->bytes = 0;
	g->buf = -1;
	g->peer = -1;
	g->pnext = -1;
	m->inflight++;
	if (m->inflight > m->peak_inflight)
		m->peak_inflight = m->inflight;
	return i;
}

static void
gop_dep(struct model *m, int gi, int stream, uint64_t ticket)
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
static void
stream_submit(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	struct mstream *s = &m->st[g->stream];
	int j;

	g->submit = hd_engine_now(m->eng);
	g->ticket = ++s->submitted;
	if (g->stream == HD_STREAM_LEGACY) {
		for (j = 0; j < m->sc->nstreams; j++)
			if (j != HD_STREAM_LEGACY && m->st[j].blocking)
				gop_dep(m, gi, j, m->st[j].submitted);
	} else if (s->blocking)
		gop_dep(m, gi, HD_STREAM_LEGACY, m->st[HD_STREAM_LEGACY].submitted);
	g = &m->g[gi];
	if (s->tail >= 0)
		m->g[s->tail].next = gi;
	else {
		s->head = gi;
		g->head_since = g->submit;
	}
	s->tail = gi;
	m->dirty = 1;
	touch(m);
}

static void
gop_complete(struct model *m, int gi)
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
	touch(m);
}

/* --- transfers and copy engines ------------------------------------------- */

static int
xfer_new(struct model *m, enum xfer_kind kind, int gi, enum dir d,
	 uint64_t bytes, double cap, hd_time lat, int engine)
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

static void
xfer_begin(struct model *m, int xi)
{
	struct xfer *x = &m->x[xi];
	hd_time now = hd_engine_now(m->eng);

	x->t0 = now;
	at(m, now + x->lat, EV_XLAT, (uint32_t)xi, x->gen);
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
	xfer_begin(m, xi);
}

static void
engine_queue(struct model *m, int xi)
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
	w->flow_gen++;
	w->flow_at = t;
	hd_engine_at(w->eng, t, EV_FLOW, w->flow_gen, 0);
}

static void kernel_compute(struct model *m, int gi);

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

static int
sm_bound(const struct model *m, const struct gop *g)
{
	return m->sc->ops[g->op].kernel != HD_KERNEL_SPIN;
}

/*
 * The first NCCL kernel on this GPU starts (delta 1) or the last one ends
 * (delta -1): kernels already computing go slower or faster for the rest
 * of their work.  Their old EV_KDONE no longer matches g->kdone.
 */
static void
nccl_sms(struct model *m, int delta)
{
	hd_time now = hd_engine_now(m->eng);
	double f = nccl_slowdown(m);
	size_t i;

	m->nccl_running += delta;
	if (f == 1.0 || (delta > 0 && m->nccl_running != 1) ||
	    (delta < 0 && m->nccl_running != 0))
		return;
	for (i = 0; i < m->ng; i++) {
		struct gop *g = &m->g[i];
		hd_time left;

		if (g->kind != G_KERNEL || g->state != GS_RUNNING || g->kdone <= now ||
		    !sm_bound(m, g))
			continue;
		left = g->kdone - now;
		left = (hd_time)((double)left * (delta > 0 ? f : 1.0 / f) + 0.5);
		g->kdone = now + left;
		at(m, g->kdone, EV_KDONE, (uint32_t)i, g->gen);
	}
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
	    x.kind == X_FAULT ? HD_SPAN_FAULT :
	    x.kind == X_COMM ? HD_SPAN_COMM : HD_SPAN_COPY;
	label = x.kind == X_FAULT ? m->lbl_fault : work_label(m, g->op);
	if (x.dir == DIR_P2P)
		emit(m, link_lane(m, x.cls), g->op, g->iter, kind, HD_WHY_NONE,
		    x.t1, now, x.bytes, label);
	else if (x.dir != DIR_D2D)
		emit(m, pcie_lane(m, x.dir), g->op, g->iter, kind, HD_WHY_NONE,
		    x.t1, now, x.bytes, label);
	if (x.engine >= 0) {
		emit(m, ce_lane(m, x.dir), g->op, g->iter, kind, HD_WHY_NONE,
		    x.t0, now, x.bytes, label);
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
		emit(m, stream_lane(m, g->stream), g->op, g->iter, kind,
		    HD_WHY_NONE, g->start, now, g->bytes, label);
		if (x.kind == X_PREFETCH && g->buf >= 0)
			m->buf[g->buf].resident = g->to_device;
		gop_complete(m, x.gop);
		break;
	case X_CHUNK:
		g->chunks_done++;
		if (g->chunks_done == g->nchunks) {
			emit(m, stream_lane(m, g->stream), g->op, g->iter,
			    HD_SPAN_COPY, HD_WHY_NONE, g->start, now, g->bytes,
			    work_label(m, g->op));
			gop_complete(m, x.gop);
		}
		break;
	case X_FAULT:
		emit(m, compute_lane(m), g->op, g->iter, HD_SPAN_FAULT,
		    HD_WHY_NONE, g->start, now, x.bytes, m->lbl_fault);
		kernel_compute(m, x.gop);
		break;
	case X_COMM: {
		struct model *q = &m->w->rk[g->peer];
		struct gop *rg = &q->g[x.rgop];

		if (rg->gen != x.rgen)
			hd_fatal("model: stale receive on rank %d", g->peer);
		emit(m, stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_COMM,
		    HD_WHY_NONE, g->start, now, x.bytes, label);
		emit(q, stream_lane(q, rg->stream), rg->op, rg->iter, HD_SPAN_COMM,
		    HD_WHY_NONE, rg->start, now, x.bytes, work_label(q, rg->op));
		nccl_sms(m, -1);
		nccl_sms(q, -1);
		gop_complete(m, x.gop);
		gop_complete(q, x.rgop);
		break;
	}
	}
}

static void
flow_start(struct model *m, int xi)
{
	struct xfer *x = &m->x[xi];
	hd_time now = hd_engine_now(m->eng);

	x->t1 = now;
	if (x->bytes == 0) {
		xfer_done(m, xi);
		return;
	}
	/* the tag: transfer (24 bits), rank (20 bits), generation (20 bits) */
	hd_flow_start(m->net, now, (double)x->bytes, x->cap,
	    x->dir == DIR_P2P ? x->res : m->res[x->dir],
	    x->dir == DIR_P2P ? x->nres : m->nres[x->dir],
	    ((uint64_t)(x->gen & 0xfffffu) << 44) | ((uint64_t)m->rank << 24) |
	    (uint32_t)xi);
	flow_resched(m->w);
}

static void
on_flow(struct world *w, uint32_t gen)
{
	uint64_t tag;
	hd_time now = hd_engine_now(w->eng);

	if (gen != w->flow_gen)
		return;         /* rates changed since this was scheduled */
	w->flow_at = -1;
	while (hd_flow_done(w->net, now, &tag)) {
		int xi = (int)(tag & 0xffffffu);
		struct model *m = &w->rk[(tag >> 24) & 0xfffffu];

		if ((m->x[xi].gen & 0xfffffu) != (uint32_t)(tag >> 44))
			hd_fatal("model: stale transfer %d", xi);
		xfer_done(m, xi);
		touch(m);
	}
	flow_resched(w);
}

/* --- kernels ------------------------------------------------------------------ */

static void
kernel_dispatch(struct model *m)
{
	hd_time now = hd_engine_now(m->eng);
	int gi;

	while ((gi = m->kq_head) >= 0) {
		struct gop *g = &m->g[gi];
		const struct hd_op *op = &m->sc->ops[g->op];
		uint64_t fault = 0;
		int bufs[2], k;

		if (m->sms_used + g->sms > m->p->sms)
			break;
		if (m->p->max_kernels > 0 && m->nkernels >= m->p->max_kernels)
			break;
		m->kq_head = g->qnext;
		if (m->kq_head < 0)
			m->kq_tail = -1;
		m->sms_used += g->sms;
		m->nkernels++;
		g->state = GS_RUNNING;
		g->start = now;
		bufs[0] = op->src;
		bufs[1] = op->dst != op->src ? op->dst : -1;
		for (k = 0; k < 2; k++) {
			struct mbuf *b;

			if (bufs[k] < 0)
				continue;
			b = &m->buf[bufs[k]];
			if (b->mem == HD_MEM_MANAGED && !b->resident) {
				fault += buf_bytes(m, bufs[k], op->bytes);
				b->resident = 1;
			}
		}
		if (fault > 0) {
			uint64_t page = m->p->um_page > 0 ? m->p->um_page : 4096;
			uint64_t groups = (fault + page - 1) / page;
			int xi = xfer_new(m, X_FAULT, gi, DIR_H2D, fault,
			    m->p->um_fault_bw, (hd_time)groups * m->p->um_fault, -1);

			xfer_begin(m, xi);
		} else
			kernel_compute(m, gi);
	}
}

static void
kernel_compute(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	hd_time now = hd_engine_now(m->eng);

	g->compute_start = now;
	if (m->nccl_running > 0 && sm_bound(m, g))
		g->dur = (hd_time)((double)g->dur * nccl_slowdown(m) + 0.5);
	g->kdone = now + g->dur;
	at(m, g->kdone, EV_KDONE, (uint32_t)gi, g->gen);
}

static void
kernel_ready(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];

	g->state = GS_WAITRES;
	g->qnext = -1;
	if (m->kq_tail >= 0)
		m->g[m->kq_tail].qnext = gi;
	else
		m->kq_head = gi;
	m->kq_tail = gi;
	kernel_dispatch(m);
}

static void
kernel_done(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	hd_time now = hd_engine_now(m->eng);
	int label = work_label(m, g->op);

	emit(m, compute_lane(m), g->op, g->iter, HD_SPAN_KERNEL, HD_WHY_NONE,
	    g->compute_start, now, 0, label);
	emit(m, stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_KERNEL,
	    HD_WHY_NONE, g->start, now, 0, label);
	m->sms_used -= g->sms;
	m->nkernels--;
	gop_complete(m, gi);
	kernel_dispatch(m);
}

/* Duration of a kernel's work on the SMs, from the profile's rates. */
static hd_time
kernel_duration(const struct model *m, const struct hd_op *op)
{
	const struct hd_profile *p = m->p;

	switch (op->kernel) {
	case HD_KERNEL_SPIN:
		return op->duration;    /* timed by the global timer: no overhead */
	case HD_KERNEL_COMPUTE:
		return p->kernel_overhead + hd_time_for_bytes(op->flops, p->flops);
	case HD_KERNEL_MEMORY:
		return p->kernel_overhead + hd_time_for_bytes(
		    (double)buf_bytes(m, op->src >= 0 ? op->src : op->dst,
		    op->bytes), p->hbm_bw);
	case HD_KERNEL_FILL:
		return p->kernel_overhead + hd_time_for_bytes(
		    (double)buf_bytes(m, op->dst, op->bytes), p->hbm_bw);
	case HD_KERNEL_REDUCE:
		return p->kernel_overhead + hd_time_for_bytes(
		    (double)buf_bytes(m, op->src, op->bytes), p->hbm_bw);
	default:
		return p->kernel_overhead;
	}
}

/* --- between ranks ----------------------------------------------------------- */

/* The flow-network path of a transfer from rank m to rank peer. */
static void
peer_path(struct model *m, struct xfer *x, int peer)
{
	struct world *w = m->w;
	struct model *q = &w->rk[peer];
	struct hd_link l = hd_coll_link(m->p, m->rank, peer);
	int na, nb;

	x->cls = l.cls;
	x->lat += l.lat;
	x->cap = l.bw;
	/* a copy engine's peer copy runs at its own rate over NVLink */
	if (x->kind == X_COPY && l.cls == HD_LINK_NVLINK && m->p->nvlink_copy_bw > 0)
		x->cap = m->p->nvlink_copy_bw;
	switch (l.cls) {
	case HD_LINK_NVLINK:
		x->res[0] = m->res_out;
		x->res[1] = q->res_in;
		x->nres = 2;
		break;
	case HD_LINK_PCIE:
		/* through the root complex: up one GPU's link, down the other's */
		x->res[0] = m->res[DIR_D2H][0];
		x->res[1] = q->res[DIR_H2D][0];
		x->nres = 2;
		break;
	case HD_LINK_NET:
	default:
		na = hd_coll_node(m->p, m->rank);
		nb = hd_coll_node(m->p, peer);
		if (w->nic_out[na] < 0)
			w->nic_out[na] = hd_flow_resource(w->net, m->p->nic_bw);
		if (w->nic_in[nb] < 0)
			w->nic_in[nb] = hd_flow_resource(w->net, m->p->nic_bw);
		x->res[0] = w->nic_out[na];
		x->res[1] = w->nic_in[nb];
		x->nres = 2;
		break;
	}
}

/* A matched send (on snd) and recv (on rcv): the data moves. */
static void
comm_start(struct model *snd, int sgi, struct model *rcv, int rgi)
{
	struct gop *g = &snd->g[sgi];
	int xi = xfer_new(snd, X_COMM, sgi, DIR_P2P, g->bytes, 0,
	    snd->p->coll_base, -1);
	struct xfer *x = &snd->x[xi];

	peer_path(snd, x, rcv->rank);
	x->rgop = rgi;
	x->rgen = rcv->g[rgi].gen;
	xfer_begin(snd, xi);
}

/* Take from list *head the first gop whose peer is `peer`, or -1. */
static int
unlist(struct model *m, int *head, int peer)
{
	int *pp = head;

	while (*pp >= 0) {
		int gi = *pp;

		if (m->g[gi].peer == peer) {
			*pp = m->g[gi].pnext;
			m->g[gi].pnext = -1;
			return gi;
		}
		pp = &m->g[gi].pnext;
	}
	return -1;
}

static void
enlist(struct model *m, int *head, int gi)
{
	int *pp = head;

	while (*pp >= 0)
		pp = &m->g[*pp].pnext;
	*pp = gi;
	m->g[gi].pnext = -1;
}

/*
 * A send or recv reached the head of its stream: match it with the peer's
 * oldest posted counterpart (NCCL matches them in order per pair of ranks),
 * or post it to wait for one.
 */
static void
post(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	struct model *q = &m->w->rk[g->peer];
	int other;

	if (g->kind == G_SEND) {
		other = unlist(q, &q->recvs, m->rank);
		if (other >= 0)
			comm_start(m, gi, q, other);
		else
			enlist(m, &m->sends, gi);
	} else {
		other = unlist(q, &q->sends, m->rank);
		if (other >= 0)
			comm_start(q, other, m, gi);
		else
			enlist(m, &m->recvs, gi);
	}
}

struct coll_ctx {
	struct world *w;
	const struct coll *c;
};

/* A transfer of a collective's schedule: a span on the sender's link row. */
static void
coll_span(void *ctx, const struct hd_coll_xfer *x)
{
	struct coll_ctx *cc = ctx;
	struct model *m = &cc->w->rk[x->src];
	const struct gop *g = &m->g[cc->c->gop[x->src]];

	emit(m, link_lane(m, x->cls), g->op, g->iter, HD_SPAN_COMM, HD_WHY_NONE,
	    x->start, x->end, x->bytes, work_label(m, g->op));
}

/* Transfers a schedule makes, roughly: beyond a million, no link spans. */
static uint64_t
coll_transfers(enum hd_coll c, uint64_t bytes, int n, const struct hd_profile *p)
{
	uint64_t N = (uint64_t)n, K = p->coll_chunk > 0 ?
	    bytes / p->coll_chunk + 1 : 1;

	switch (c) {
	case HD_COLL_ALLREDUCE:
		return 2 * N * (N + K);
	case HD_COLL_BROADCAST:
	case HD_COLL_REDUCE:
		return N * K;
	case HD_COLL_GATHER:
		return N;
	default:
		return N * N;
	}
}

#define COLL_SPAN_LIMIT 1000000u

static void
coll_fail(struct world *w, struct model *m, const struct coll *c, int opi)
{
	const struct hd_op *a = &w->sc->ops[c->op], *b = &w->sc->ops[opi];
	struct hd_buf t;

	hd_buf_init(&t);
	hd_buf_printf(&t, "collective mismatch: as collective number %llu, rank %d "
	    "calls %s of %llu bytes (root %d, line %d) but rank %d calls %s of "
	    "%llu bytes (root %d, line %d); NCCL would hang or corrupt data: "
	    "every rank must make the same collective calls in the same order",
	    (unsigned long long)c->seq + 1, c->rank0, hd_coll_name(a->coll),
	    (unsigned long long)a->bytes, a->root, a->line, m->rank,
	    hd_coll_name(b->coll), (unsigned long long)b->bytes, b->root, b->line);
	free(w->problem);
	w->problem = hd_xstrdup(t.s);
	hd_buf_free(&t);
}

/* Rank m's collective gop gi starts: when every rank is there, run it. */
static void
coll_arrive(struct model *m, int gi)
{
	struct world *w = m->w;
	struct gop *g = &m->g[gi];
	const struct hd_op *op = &w->sc->ops[g->op];
	struct coll *c = NULL;
	hd_time now = hd_engine_now(w->eng), *done;
	size_t i;
	int r;

	for (i = 0; i < w->ncolls; i++)
		if (w->colls[i].seq == g->seq) {
			c = &w->colls[i];
			break;
		}
	if (c == NULL) {
		/* keep them ordered by seq */
		w->colls = hd_xgrow(w->colls, &w->collcap, w->ncolls + 1, sizeof *w->colls);
		for (i = w->ncolls; i > 0 && w->colls[i - 1].seq > g->seq; i--)
			w->colls[i] = w->colls[i - 1];
		c = &w->colls[i];
		w->ncolls++;
		memset(c, 0, sizeof *c);
		c->seq = g->seq;
		c->op = g->op;
		c->rank0 = m->rank;
		c->at = hd_xmalloc((size_t)w->n * sizeof *c->at);
		c->gop = hd_xmalloc((size_t)w->n * sizeof *c->gop);
		c->gen = hd_xmalloc((size_t)w->n * sizeof *c->gen);
		for (r = 0; r < w->n; r++)
			c->gop[r] = -1;
	} else {
		const struct hd_op *first = &w->sc->ops[c->op];

		if (first->coll != op->coll || first->bytes != op->bytes ||
		    (first->root != op->root && first->coll != HD_COLL_ALLREDUCE &&
		    first->coll != HD_COLL_ALLGATHER &&
		    first->coll != HD_COLL_REDUCESCATTER &&
		    first->coll != HD_COLL_ALLTOALL)) {
			coll_fail(w, m, c, g->op);
			return;
		}
	}
	c->at[m->rank] = now;
	c->gop[m->rank] = gi;
	c->gen[m->rank] = g->gen;
	if (++c->arrived < w->n)
		return;

	done = hd_xmalloc((size_t)w->n * sizeof *done);
	if (w->p->coll_model == HD_CMODEL_FORMULA) {
		hd_time last = 0, t = hd_coll_formula(op->coll, w->p->coll_algo,
		    op->bytes, w->n, w->p);

		for (r = 0; r < w->n; r++)
			if (c->at[r] > last)
				last = c->at[r];
		for (r = 0; r < w->n; r++)
			done[r] = last + t;
	} else {
		struct coll_ctx cc;

		cc.w = w;
		cc.c = c;
		hd_coll_schedule(op->coll, w->p->coll_algo, op->bytes,
		    op->root, w->n, w->p, c->at, done,
		    coll_transfers(op->coll, op->bytes, w->n, w->p) <=
		    COLL_SPAN_LIMIT ? coll_span : NULL, &cc, NULL);
	}
	for (r = 0; r < w->n; r++)
		at(&w->rk[r], done[r] > now ? done[r] : now, EV_COLL,
		    (uint32_t)c->gop[r], c->gen[r]);
	free(done);
	free(c->at);
	free(c->gop);
	free(c->gen);
	i = (size_t)(c - w->colls);
	memmove(&w->colls[i], &w->colls[i + 1], (w->ncolls - i - 1) * sizeof *w->colls);
	w->ncolls--;
}

/* Rank m's part of a collective is over. */
static void
coll_done(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];

	emit(m, stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_COMM,
	    HD_WHY_NONE, g->start, hd_engine_now(m->eng), g->bytes,
	    work_label(m, g->op));
	nccl_sms(m, -1);
	gop_complete(m, gi);
}

/* --- starting stream heads -------------------------------------------------- */

/* The head of a stream has its dependencies: start it. */
static void
gop_start(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	hd_time now = hd_engine_now(m->eng), ready;
	int xi;

	switch (g->kind) {
	case G_KERNEL:
		ready = g->submit + m->p->launch_latency;
		if (ready > now) {
			g->state = GS_LAUNCH;
			at(m, ready, EV_READY, (uint32_t)gi, g->gen);
		} else
			kernel_ready(m, gi);
		break;
	case G_COPY:
	case G_PREFETCH:
		/* pages already where a prefetch sends them do not move */
		if (g->kind == G_PREFETCH && g->buf >= 0 &&
		    m->buf[g->buf].mem == HD_MEM_MANAGED &&
		    m->buf[g->buf].resident == g->to_device)
			g->bytes = 0;
		g->state = GS_WAITRES;
		g->start = now;
		xi = xfer_new(m, g->kind == G_COPY ? X_COPY : X_PREFETCH, gi,
		    g->dir, g->bytes,
		    g->kind == G_PREFETCH ? m->p->um_prefetch_bw : 0,
		    g->dir == DIR_P2P ? 0 : m->p->copy_latency, m->ce_of[g->dir]);
		if (g->dir == DIR_P2P)
			peer_path(m, &m->x[xi], g->peer);
		engine_queue(m, xi);
		break;
	case G_RECORD:
		emit(m, stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_EVENT,
		    HD_WHY_NONE, now, now, 0, work_label(m, g->op));
		gop_complete(m, gi);
		break;
	case G_WAIT:
		if (now > g->head_since)
			emit(m, stream_lane(m, g->stream), g->op, g->iter,
			    HD_SPAN_WAIT, HD_WHY_NONE, g->head_since, now, 0,
			    work_label(m, g->op));
		gop_complete(m, gi);
		break;
	case G_STAGED:
		g->state = GS_RUNNING;  /* the host thread drives it now */
		g->start = now;
		break;
	case G_SEND:
	case G_RECV:
		g->state = GS_WAITRES;
		g->start = now;
		nccl_sms(m, 1);
		post(m, gi);
		break;
	case G_COLL:
		g->state = GS_WAITRES;
		g->start = now;
		nccl_sms(m, 1);
		coll_arrive(m, gi);
		break;
	}
}

static void
kick(struct model *m)
{
	int s, gi, progress = 1;

	while (progress) {
		progress = 0;
		m->dirty = 0;
		for (s = 0; s < m->sc->nstreams; s++) {
			while ((gi = m->st[s].head) >= 0 &&
			    m->g[gi].state == GS_QUEUED && deps_met(m, &m->g[gi])) {
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

/* --- the host thread ------------------------------------------------------- */

enum { H_YIELD, H_NEXT, H_DONE };

static int
wait_holds(struct model *m, const struct hwait *w)
{
	const struct mstream *s;
	const struct gop *g;
	int i;

	switch (w->kind) {
	case W_NONE:
		return 1;
	case W_TICKET:
		return m->st[w->stream].completed >= w->ticket;
	case W_ALL:
		for (i = 0; i < m->sc->nstreams; i++)
			if (m->st[i].completed < m->st[i].submitted)
				return 0;
		return 1;
	case W_QUEUE:
		s = &m->st[w->stream];
		return m->p->stream_queue <= 0 ||
		    s->submitted - s->completed < (uint64_t)m->p->stream_queue;
	case W_STARTED:
		g = &m->g[w->slot];
		return g->gen != w->gen || g->state == GS_RUNNING;
	case W_CHUNKS:
		g = &m->g[w->slot];
		return g->gen != w->gen || g->chunks_done >= w->ticket;
	case W_BARRIER:
		return m->w->barrier_done >= w->ticket;
	}
	return 1;
}

/*
 * Block the host until w holds, then continue at `phase`.  Returns H_NEXT
 * when it already holds (no cost), H_YIELD when the host now waits.
 */
static int
host_wait(struct model *m, struct hwait w, int phase)
{
	struct host *h = &m->h;

	h->phase = phase;
	if (wait_holds(m, &w))
		return H_NEXT;
	w.since = hd_engine_now(m->eng);
	h->w = w;
	h->blocked = 1;
	return H_YIELD;
}

/* Called after every GPU-side event: wake the host if its wait is over. */
static void
host_poll(struct model *m)
{
	struct host *h = &m->h;
	hd_time now, end;

	if (!h->blocked || !wait_holds(m, &h->w))
		return;
	now = hd_engine_now(m->eng);
	end = now + h->w.wake;
	h->blocked = 0;
	if (!h->w.quiet && end > h->w.since)
		emit(m, m->lane_api, h->op, h->iter, HD_SPAN_BLOCKED, h->w.why,
		    h->w.since, end, 0, api_label(m, h->op));
	at(m, end, EV_HOST, 0, 0);
}

static int
host_sleep(struct model *m, hd_time dt, int phase)
{
	m->h.phase = phase;
	at(m, hd_engine_now(m->eng) + (dt > 0 ? dt : 0), EV_HOST, 0, 0);
	return H_YIELD;
}

/* End the current call: its API span covers [t0, now]. */
static int
host_api_end(struct model *m)
{
	struct host *h = &m->h;

	emit(m, m->lane_api, h->op, h->iter, HD_SPAN_API, HD_WHY_NONE, h->t0,
	    hd_engine_now(m->eng), 0, api_label(m, h->op));
	return H_DONE;
}

static struct hwait
wait_of(enum wait_kind kind, int stream, uint64_t ticket, enum hd_why why,
	hd_time wake)
{
	struct hwait w;

	memset(&w, 0, sizeof w);
	w.kind = kind;
	w.stream = stream;
	w.ticket = ticket;
	w.why = why;
	w.wake = wake;
	return w;
}

/* A sync call: blocks until w holds; costs at least api_sync. */
static int
op_sync(struct model *m, struct hwait w)
{
	struct host *h = &m->h;
	hd_time now = hd_engine_now(m->eng);

	switch (h->phase) {
	case 0:
		if (host_wait(m, w, 1) == H_YIELD)
			return H_YIELD;
		/* FALLTHROUGH */
	case 1:
		if (now < h->t0 + m->p->api_sync)
			return host_sleep(m, h->t0 + m->p->api_sync - now, 2);
		/* FALLTHROUGH */
	default:
		return host_api_end(m);
	}
}

static int
op_stream_sync(struct model *m, const struct hd_op *op, int opi)
{
	(void)opi;
	/* the ticket is fixed when the call begins: later work does not count */
	if (m->h.phase == 0)
		m->h.w.ticket = m->st[op->stream].submitted;
	return op_sync(m, wait_of(W_TICKET, op->stream, m->h.w.ticket,
	    HD_WHY_STREAM_SYNC, m->p->sync_wake));
}

static int
op_event_sync(struct model *m, const struct hd_op *op, int opi)
{
	const struct mevent *ev = &m->ev[op->event];

	(void)opi;
	if (!ev->recorded)
		return op_sync(m, wait_of(W_NONE, 0, 0, HD_WHY_EVENT_SYNC, 0));
	return op_sync(m, wait_of(W_TICKET, ev->stream, ev->ticket,
	    HD_WHY_EVENT_SYNC, m->p->sync_wake));
}

static int
op_device_sync(struct model *m, const struct hd_op *op, int opi)
{
	(void)opi;
	(void)op;
	return op_sync(m, wait_of(W_ALL, 0, 0, HD_WHY_DEVICE_SYNC,
	    m->p->sync_wake));
}

/* A call that costs `cost` on the host and does nothing else. */
static int
op_cost(struct model *m, hd_time cost)
{
	if (m->h.phase == 0)
		return host_sleep(m, cost, 1);
	return host_api_end(m);
}

static hd_time
pin_cost(const struct model *m, uint64_t bytes)
{
	return m->p->pin_base + hd_time_for_bytes((double)bytes, m->p->pin_bw);
}

static int
op_alloc(struct model *m, const struct hd_op *op, int opi)
{
	const struct hd_profile *p = m->p;
	uint64_t bytes = buf_bytes(m, op->dst, op->bytes);
	hd_time cost;

	(void)opi;
	switch (m->sc->buffers[op->dst].mem) {
	case HD_MEM_PINNED:
		/* the OS allocates and zeroes fresh pages before they are pinned */
		cost = p->pin_base + hd_time_for_bytes((double)bytes, p->mallochost_bw);
		break;
	case HD_MEM_PAGEABLE:
		cost = HD_US;   /* malloc: the pages are touched later */
		break;
	default:
		cost = p->malloc_cost;
		break;
	}
	return op_cost(m, cost);
}

static int
op_pin(struct model *m, const struct hd_op *op, int opi)
{
	(void)opi;
	if (m->h.phase == 0)
		return host_sleep(m, pin_cost(m, buf_bytes(m, op->dst, op->bytes)), 1);
	m->buf[op->dst].mem = HD_MEM_PINNED;
	return host_api_end(m);
}

static int
op_free(struct model *m, const struct hd_op *op, int opi)
{
	struct host *h = &m->h;

	(void)opi;
	if (m->sc->buffers[op->dst].mem == HD_MEM_PAGEABLE)
		return op_cost(m, HD_US);
	switch (h->phase) {
	case 0:
		/* cudaFree and cudaFreeHost synchronise the device first */
		if (host_wait(m, wait_of(W_ALL, 0, 0, HD_WHY_DEVICE_SYNC,
		    m->p->sync_wake), 1) == H_YIELD)
			return H_YIELD;
		/* FALLTHROUGH */
	case 1:
		return host_sleep(m, m->p->free_cost, 2);
	default:
		return host_api_end(m);
	}
}

static int
op_host(struct model *m, const struct hd_op *op, int opi)
{
	hd_time now = hd_engine_now(m->eng);

	if (m->h.phase == 0) {
		emit(m, m->lane_host, opi, m->h.iter, HD_SPAN_HOST, HD_WHY_NONE,
		    now, now + op->duration, 0, work_label(m, opi));
		return host_sleep(m, op->duration, 1);
	}
	return H_DONE;
}

static int
op_query(struct model *m, const struct hd_op *op, int opi)
{
	(void)opi;
	(void)op;
	return op_cost(m, m->p->api_event);
}

/*
 * The common shape of a call that puts work on a stream: wait for room in
 * the stream's queue, pay the call's cost, then `submit` (phase 2).
 */
static int
submit_prologue(struct model *m, int stream, hd_time cost)
{
	struct host *h = &m->h;

	switch (h->phase) {
	case 0:
		if (host_wait(m, wait_of(W_QUEUE, stream, 0, HD_WHY_QUEUE_FULL,
		    m->p->sync_wake), 1) == H_YIELD)
			return H_YIELD;
		/* FALLTHROUGH */
	case 1:
		return host_sleep(m, cost, 2);
	default:
		return H_NEXT;
	}
}

static int
op_kernel(struct model *m, const struct hd_op *op, int opi)
{
	int gi, r;

	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_launch)) != H_NEXT)
			return r;
	}
	gi = gop_new(m, G_KERNEL, op->stream, opi, m->h.iter);
	m->g[gi].sms = op->grid == 0 || op->grid > (uint32_t)m->p->sms ?
	    m->p->sms : (int)op->grid;
	m->g[gi].dur = kernel_duration(m, op);
	stream_submit(m, gi);
	kick(m);
	return host_api_end(m);
}

static int
op_record(struct model *m, const struct hd_op *op, int opi)
{
	struct mevent *ev = &m->ev[op->event];
	int gi, r;

	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_event)) != H_NEXT)
			return r;
	}
	gi = gop_new(m, G_RECORD, op->stream, opi, m->h.iter);
	stream_submit(m, gi);
	ev->recorded = 1;
	ev->stream = op->stream;
	ev->ticket = m->g[gi].ticket;
	kick(m);
	return host_api_end(m);
}

static int
op_wait(struct model *m, const struct hd_op *op, int opi)
{
	const struct mevent *ev = &m->ev[op->event];
	int gi, r;

	/* waiting on an event never recorded is a no-op, as in CUDA */
	if (!ev->recorded)
		return op_cost(m, m->p->api_wait);
	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_wait)) != H_NEXT)
			return r;
	}
	gi = gop_new(m, G_WAIT, op->stream, opi, m->h.iter);
	gop_dep(m, gi, ev->stream, ev->ticket);
	stream_submit(m, gi);
	kick(m);
	return host_api_end(m);
}

static int
op_prefetch(struct model *m, const struct hd_op *op, int opi)
{
	int gi, r;

	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_memcpy)) != H_NEXT)
			return r;
	}
	if (m->h.phase == 2) {
		gi = gop_new(m, G_PREFETCH, op->stream, opi, m->h.iter);
		m->g[gi].dir = op->to_device ? DIR_H2D : DIR_D2H;
		m->g[gi].bytes = buf_bytes(m, op->dst, op->bytes);
		m->g[gi].buf = op->dst;
		m->g[gi].to_device = op->to_device;
		stream_submit(m, gi);
		kick(m);
	}
	return host_api_end(m);
}

/* Pinned (or device-side) copies: the copy engine does all the work. */
static int
op_copy_dma(struct model *m, const struct hd_op *op, int opi)
{
	static const enum dir dirs[HD_COPY__COUNT] = {
		[HD_COPY_H2D] = DIR_H2D, [HD_COPY_D2H] = DIR_D2H,
		[HD_COPY_D2D] = DIR_D2D, [HD_COPY_P2P] = DIR_P2P };
	struct host *h = &m->h;
	int gi, r;

	switch (h->phase) {
	case 0:
	case 1:
		if ((r = submit_prologue(m, op->stream, m->p->api_memcpy)) != H_NEXT)
			return r;
		/* FALLTHROUGH */
	case 2:
		gi = gop_new(m, G_COPY, op->stream, opi, h->iter);
		m->g[gi].dir = dirs[op->copy];
		m->g[gi].bytes = op->bytes;
		if (op->copy == HD_COPY_P2P)
			m->g[gi].peer = hd_op_peer(m->sc, op, m->rank);
		stream_submit(m, gi);
		kick(m);
		/* cudaMemcpy to or from the host returns when the copy is done;
		 * device-to-device cudaMemcpy does not block the host */
		if (op->async || op->copy == HD_COPY_D2D)
			return host_api_end(m);
		h->w.ticket = m->g[gi].ticket;
		if (host_wait(m, wait_of(W_TICKET, op->stream, h->w.ticket,
		    HD_WHY_SYNC_COPY, m->p->sync_wake), 3) == H_YIELD)
			return H_YIELD;
		/* FALLTHROUGH */
	default:
		return host_api_end(m);
	}
}

static int
op_copy_host(struct model *m, const struct hd_op *op)
{
	struct host *h = &m->h;
	hd_time now = hd_engine_now(m->eng), d;

	switch (h->phase) {
	case 0:
		return host_sleep(m, m->p->api_memcpy, 1);
	case 1:
		d = hd_time_for_bytes((double)op->bytes, m->p->host_memcpy_h2d_bw);
		emit(m, m->lane_host, h->op, h->iter, HD_SPAN_HOST, HD_WHY_NONE,
		    now, now + d, op->bytes, work_label(m, h->op));
		return host_sleep(m, d, 2);
	default:
		return host_api_end(m);
	}
}

/* Issue the DMA of staged chunk k (bytes of the last chunk may be short). */
static void
staged_dma(struct model *m, uint64_t k)
{
	struct host *h = &m->h;
	uint64_t bytes = h->chunk;
	struct gop *g = &m->g[h->g];
	int xi;

	if (k == h->nchunks - 1)
		bytes = g->bytes - k * h->chunk;
	xi = xfer_new(m, X_CHUNK, h->g, h->dir, bytes, 0, m->p->copy_latency,
	    m->ce_of[h->dir]);
	engine_queue(m, xi);
}

/*
 * A copy through pageable memory (and a READ).  The host submits the copy,
 * waits until the stream reaches it (the documented stream sync before a
 * pageable copy), then moves the data chunk by chunk through
 * staging_buffers pinned buffers used in turn: for HtoD a CPU memcpy into
 * a free buffer, then that chunk's DMA; for DtoH the DMA into a buffer,
 * then a CPU memcpy out of it.  HtoD returns after the last memcpy (its
 * DMA may still be in flight); DtoH returns after the last memcpy, which
 * follows the last DMA.
 */
static int
op_copy_staged(struct model *m, const struct hd_op *op, int opi,
	       enum dir d, uint64_t bytes, enum hd_why why)
{
	struct host *h = &m->h;
	const struct hd_profile *p = m->p;
	hd_time now = hd_engine_now(m->eng), dt;
	uint64_t nbuf = p->staging_buffers > 0 ? (uint64_t)p->staging_buffers : 1;
	uint64_t cb;
	struct hwait w;
	int gi, r;

	for (;;) {
		switch (h->phase) {
		case 0:
		case 1:
			if ((r = submit_prologue(m, op->stream, p->api_memcpy)) != H_NEXT)
				return r;
			/* FALLTHROUGH */
		case 2:
			gi = gop_new(m, G_STAGED, op->stream, opi, h->iter);
			h->g = gi;
			h->ggen = m->g[gi].gen;
			h->dir = d;
			h->why = why;
			h->chunk = p->staging_chunk > 0 ? p->staging_chunk : bytes;
			if (h->chunk == 0)
				h->chunk = 1;
			h->nchunks = bytes == 0 ? 1 : (bytes + h->chunk - 1) / h->chunk;
			h->i = 0;
			h->issued = 0;
			m->g[gi].bytes = bytes;
			m->g[gi].nchunks = h->nchunks;
			stream_submit(m, gi);
			kick(m);
			w = wait_of(W_STARTED, 0, 0,
			    why == HD_WHY_READ ? HD_WHY_READ : HD_WHY_PRIOR_WORK,
			    p->sync_wake);
			w.slot = h->g;
			w.gen = h->ggen;
			if (host_wait(m, w, 3) == H_YIELD)
				return H_YIELD;
			/* FALLTHROUGH */
		case 3:
			h->stage_start = hd_engine_now(m->eng);
			if (h->dir == DIR_D2H)
				for (; h->issued < h->nchunks && h->issued < nbuf; h->issued++)
					staged_dma(m, h->issued);
			h->phase = 4;
			/* FALLTHROUGH */
		case 4:
			/* chunk i: HtoD needs its buffer free (the DMA of chunk
			 * i - nbuf done); DtoH needs its own DMA done */
			w = wait_of(W_CHUNKS, 0, 0, h->why, 0);
			w.quiet = 1;
			w.slot = h->g;
			w.gen = h->ggen;
			if (h->dir == DIR_H2D)
				w.ticket = h->i >= nbuf ? h->i - nbuf + 1 : 0;
			else
				w.ticket = h->i + 1;
			if (host_wait(m, w, 5) == H_YIELD)
				return H_YIELD;
			/* FALLTHROUGH */
		case 5:
			now = hd_engine_now(m->eng);
			cb = h->i == h->nchunks - 1 ? bytes - h->i * h->chunk : h->chunk;
			dt = hd_time_for_bytes((double)cb, h->dir == DIR_H2D ?
					       p->host_memcpy_h2d_bw : p->host_memcpy_d2h_bw);
			emit(m, m->lane_host, opi, h->iter, HD_SPAN_STAGING,
			    HD_WHY_NONE, now, now + dt, cb, m->lbl_staging);
			return host_sleep(m, dt, 6);
		case 6:
			if (h->dir == DIR_H2D)
				staged_dma(m, h->i);
			else if (h->issued < h->nchunks)
				staged_dma(m, h->issued++);
			h->i++;
			if (h->i < h->nchunks) {
				h->phase = 4;
				continue;
			}
			now = hd_engine_now(m->eng);
			if (now > h->stage_start)
				emit(m, m->lane_api, opi, h->iter, HD_SPAN_BLOCKED,
				    h->why, h->stage_start, now, 0, api_label(m, opi));
			return host_api_end(m);
		}
	}
}

static int
op_copy(struct model *m, const struct hd_op *op, int opi)
{
	if (op->copy == HD_COPY_H2H)
		return op_copy_host(m, op);
	if (is_staged(m, op))
		return op_copy_staged(m, op, opi,
		    op->copy == HD_COPY_H2D ? DIR_H2D : DIR_D2H, op->bytes,
		    HD_WHY_PAGEABLE);
	return op_copy_dma(m, op, opi);
}

static int
op_read(struct model *m, const struct hd_op *op, int opi)
{
	return op_copy_staged(m, op, opi, DIR_D2H,
	    op->bytes != 0 ? op->bytes : buf_bytes(m, op->src, 0), HD_WHY_READ);
}

/* ncclSend, ncclRecv and the collectives: a launch, then work on the stream. */
static int
op_comm(struct model *m, const struct hd_op *op, int opi)
{
	static const enum gop_kind kinds[HD_OP__COUNT] = {
		[HD_OP_SEND] = G_SEND, [HD_OP_RECV] = G_RECV, [HD_OP_COLL] = G_COLL,
	};
	int gi, r, buf = op->kind == HD_OP_RECV ? op->dst : op->src;

	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_launch)) != H_NEXT)
			return r;
	}
	gi = gop_new(m, kinds[op->kind], op->stream, opi, m->h.iter);
	m->g[gi].bytes = op->bytes != 0 ? op->bytes :
	    buf_bytes(m, buf >= 0 ? buf : op->dst, 0);
	if (op->kind == HD_OP_COLL)
		m->g[gi].seq = m->ncoll++;
	else
		m->g[gi].peer = hd_op_peer(m->sc, op, m->rank);
	stream_submit(m, gi);
	/* one communicator runs its calls one at a time, in the order they were
	 * made, whatever their streams (NVIDIA/nccl#574) */
	if (m->comm_stream >= 0 && m->comm_stream != op->stream)
		gop_dep(m, gi, m->comm_stream, m->comm_ticket);
	m->comm_stream = op->stream;
	m->comm_ticket = m->g[gi].ticket;
	kick(m);
	return host_api_end(m);
}

/* A host barrier across ranks (MPI_Barrier). */
static int
op_barrier(struct model *m, const struct hd_op *op, int opi)
{
	struct world *w = m->w;
	int r;

	(void)op;
	(void)opi;
	if (m->h.phase == 0) {
		m->nbarrier++;
		if (++w->barrier_arrived == (uint64_t)w->n) {
			w->barrier_arrived = 0;
			w->barrier_done++;
			for (r = 0; r < w->n; r++)
				touch(&w->rk[r]);
		}
	}
	return op_sync(m, wait_of(W_BARRIER, 0, m->nbarrier, HD_WHY_COLLECTIVE,
	    m->p->sync_wake));
}

typedef int (*op_fn)(struct model *, const struct hd_op *, int);

/* What the host thread does for each kind of op, one step at a time. */
static const op_fn op_table[HD_OP__COUNT] = {
	[HD_OP_ALLOC] = op_alloc,
	[HD_OP_FREE] = op_free,
	[HD_OP_PIN] = op_pin,
	[HD_OP_COPY] = op_copy,
	[HD_OP_KERNEL] = op_kernel,
	[HD_OP_PREFETCH] = op_prefetch,
	[HD_OP_RECORD] = op_record,
	[HD_OP_WAIT] = op_wait,
	[HD_OP_EVENT_SYNC] = op_event_sync,
	[HD_OP_EVENT_QUERY] = op_query,
	[HD_OP_STREAM_SYNC] = op_stream_sync,
	[HD_OP_DEVICE_SYNC] = op_device_sync,
	[HD_OP_HOST] = op_host,
	[HD_OP_READ] = op_read,
	[HD_OP_SEND] = op_comm,
	[HD_OP_RECV] = op_comm,
	[HD_OP_COLL] = op_comm,
	[HD_OP_BARRIER] = op_barrier,
	/* loops and rank blocks are walked by host_next */
};

/* Run one step of op opi; H_DONE when the op is over. */
static int
host_op(struct model *m, int opi)
{
	const struct hd_op *op = &m->sc->ops[opi];

	if (op_table[op->kind] == NULL)
		return H_DONE;
	return op_table[op->kind](m, op, opi);
}

/* The next op the host thread executes, or -1 at the end of the list. */
static int
host_next(struct model *m)
{
	struct host *h = &m->h;
	const struct hd_scenario *sc = m->sc;
	const struct hd_op *op;
	struct loop *l;

	for (;;) {
		while (h->sp > 0 && h->pc == h->stack[h->sp - 1].end) {
			l = &h->stack[h->sp - 1];
			/* an iteration that ran nothing (its ops were all for
			 * other ranks) would run nothing again: stop there */
			if (--l->left > 0 && h->returned != l->mark) {
				h->pc = l->start;
				l->mark = h->returned;
			} else
				h->sp--;
		}
		if (h->pc >= sc->nops)
			return -1;
		op = &sc->ops[h->pc];
		if (op->kind == HD_OP_REPEAT) {
			if (op->count == 0 || op->body_len <= 0) {
				h->pc += 1 + (op->body_len > 0 ? op->body_len : 0);
				continue;
			}
			h->stack = hd_xgrow(h->stack, &h->stack_cap, h->sp + 1,
			    sizeof *h->stack);
			l = &h->stack[h->sp++];
			l->start = h->pc + 1;
			l->end = h->pc + 1 + op->body_len;
			l->left = op->count;
			l->mark = h->returned;
			h->pc++;
			continue;
		}
		if (op->kind == HD_OP_ON_RANK) {
			h->pc += op->rank == m->rank ? 1 : 1 + op->body_len;
			continue;
		}
		h->returned++;
		return h->pc++;
	}
}

static void
host_step(struct model *m, volatile int *stop)
{
	struct host *h = &m->h;

	for (;;) {
		if (h->op < 0) {
			if (stop != NULL && *stop)
				return;
			h->op = host_next(m);
			if (h->op < 0) {
				h->done = 1;
				return;
			}
			h->iter = m->execs[h->op]++;
			h->phase = 0;
			h->t0 = hd_engine_now(m->eng);
			m->op_execs++;
		}
		if (host_op(m, h->op) != H_DONE)
			return;
		h->op = -1;
	}
}

/* --- checks and the run ------------------------------------------------------ */

int
hd_model_check(const struct hd_scenario *sc, struct hd_err *e)
{
	int i;

	if (sc->nranks < 1 || sc->nranks > HD_MODEL_MAX_RANKS) {
		hd_err_set(e, HD_EXIT_INPUT, sc->name != NULL ? sc->name : "",
		    "scenario '%s' has %d ranks; the simulator runs 1 to %d",
		    sc->name, sc->nranks, HD_MODEL_MAX_RANKS);
		return -1;
	}
	if (sc->nstreams < 2) {
		hd_err_set(e, HD_EXIT_INPUT, sc->name != NULL ? sc->name : "",
		    "scenario '%s' lacks the two built-in streams", sc->name);
		return -1;
	}
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];
		char where[64];
		int multi, bad = 0;

		snprintf(where, sizeof where, "line %d", op->line);
		multi = op->kind == HD_OP_SEND || op->kind == HD_OP_RECV ||
		    (op->kind == HD_OP_COPY && op->copy == HD_COPY_P2P);
		if (multi && (op->peer < 0 || op->peer >= sc->nranks ||
		    (!op->peer_rel && sc->nranks < 2) || (op->peer_rel && op->peer == 0)))
			bad = 1;
		if (op->kind == HD_OP_COLL && (unsigned)op->coll >= HD_COLL__COUNT)
			bad = 1;
		if ((unsigned)op->kind >= HD_OP__COUNT)
			bad = 1;
		switch (op->kind) {
		case HD_OP_KERNEL:
		case HD_OP_COPY:
		case HD_OP_PREFETCH:
		case HD_OP_RECORD:
		case HD_OP_WAIT:
		case HD_OP_STREAM_SYNC:
		case HD_OP_READ:
		case HD_OP_SEND:
		case HD_OP_RECV:
		case HD_OP_COLL:
			if (op->stream < 0 || op->stream >= sc->nstreams)
				bad = 1;
			break;
		default:
			break;
		}
		if ((op->kind == HD_OP_RECORD || op->kind == HD_OP_WAIT ||
		    op->kind == HD_OP_EVENT_SYNC || op->kind == HD_OP_EVENT_QUERY) &&
		    (op->event < 0 || op->event >= sc->nevents))
			bad = 1;
		if ((op->kind == HD_OP_ALLOC || op->kind == HD_OP_FREE ||
		    op->kind == HD_OP_PIN || op->kind == HD_OP_PREFETCH) &&
		    (op->dst < 0 || op->dst >= sc->nbuffers))
			bad = 1;
		if (op->src >= sc->nbuffers || op->dst >= sc->nbuffers ||
		    op->src < HD_NONE || op->dst < HD_NONE)
			bad = 1;
		if (op->kind == HD_OP_COPY && (unsigned)op->copy >= HD_COPY__COUNT)
			bad = 1;
		if (op->kind == HD_OP_KERNEL && (unsigned)op->kernel >= HD_KERNEL__COUNT)
			bad = 1;
		if ((op->kind == HD_OP_REPEAT || op->kind == HD_OP_ON_RANK) &&
		    (op->body_len < 0 || op->body_len > sc->nops - i - 1))
			bad = 1;
		if (bad) {
			hd_err_set(e, HD_EXIT_INPUT, where, "scenario '%s': op %d "
			    "(%s) refers to something that does not exist",
			    sc->name, i, (unsigned)op->kind < HD_OP__COUNT ?
			    hd_op_kind_name(op->kind) : "?");
			return -1;
		}
	}
	return 0;
}

static int
check_profile(const struct hd_profile *p, struct hd_err *e)
{
	static const struct {
		const char *key;
		size_t off;
	} rates[] = {
		{ "h2d_bw", offsetof(struct hd_profile, h2d_bw) },
		{ "d2h_bw", offsetof(struct hd_profile, d2h_bw) },
		{ "host_memcpy_h2d_bw", offsetof(struct hd_profile, host_memcpy_h2d_bw) },
		{ "host_memcpy_d2h_bw", offsetof(struct hd_profile, host_memcpy_d2h_bw) },
		{ "pin_bw", offsetof(struct hd_profile, pin_bw) },
		{ "mallochost_bw", offsetof(struct hd_profile, mallochost_bw) },
		{ "hbm_bw", offsetof(struct hd_profile, hbm_bw) },
		{ "flops", offsetof(struct hd_profile, flops) },
		{ "d2d_bw", offsetof(struct hd_profile, d2d_bw) },
		{ "um_fault_bw", offsetof(struct hd_profile, um_fault_bw) },
		{ "um_prefetch_bw", offsetof(struct hd_profile, um_prefetch_bw) },
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(rates); i++) {
		double v = *(const double *)(const void *)((const char *)p + rates[i].off);

		if (!(v > 0)) {
			hd_err_set(e, HD_EXIT_INPUT, "--profile", "profile '%s': %s "
			    "must be a positive rate", p->name, rates[i].key);
			return -1;
		}
	}
	if (p->sms < 1) {
		hd_err_set(e, HD_EXIT_INPUT, "--profile",
		    "profile '%s': sms must be at least 1", p->name);
		return -1;
	}
	return 0;
}

static void
model_free(struct model *m)
{
	size_t i;

	for (i = 0; i < m->ng; i++)
		free(m->g[i].deps);
	free(m->g);
	free(m->x);
	free(m->st);
	free(m->ev);
	free(m->buf);
	free(m->execs);
	free(m->h.stack);
}

static void
model_init(struct model *m, struct world *w, int rank)
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
	}
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

/* --- deadlocks ------------------------------------------------------------- */

/* What the gop at the head of a stream waits for, in words. */
static void
describe_gop(struct world *w, struct model *m, int gi, struct hd_buf *b)
{
	const struct gop *g = &m->g[gi];
	const struct hd_op *op = &w->sc->ops[g->op];
	size_t i;
	int r, k = 0;

	if ((g->kind == G_SEND || g->kind == G_RECV || g->kind == G_COLL) &&
	    g->state == GS_QUEUED && g->ndeps > 0) {
		hd_buf_printf(b, "%s (line %d), queued behind this rank's earlier NCCL "
		    "call: one communicator runs one call at a time", hd_op_api_name(op),
		    op->line);
		return;
	}
	switch (g->kind) {
	case G_SEND:
		hd_buf_printf(b, "ncclSend to rank %d (line %d), which waits for rank "
		    "%d to post the matching ncclRecv from rank %d", g->peer,
		    op->line, g->peer, m->rank);
		return;
	case G_RECV:
		hd_buf_printf(b, "ncclRecv from rank %d (line %d), which waits for "
		    "rank %d to post the matching ncclSend to rank %d", g->peer,
		    op->line, g->peer, m->rank);
		return;
	case G_COLL:
		hd_buf_printf(b, "%s (line %d), which waits for", hd_op_api_name(op),
		    op->line);
		for (i = 0; i < w->ncolls; i++) {
			if (w->colls[i].seq != g->seq)
				continue;
			for (r = 0; r < w->n; r++) {
				if (w->colls[i].gop[r] >= 0)
					continue;
				if (k < 6)
					hd_buf_printf(b, "%s rank %d", k > 0 ? "," : "", r);
				k++;
			}
		}
		if (k > 6)
			hd_buf_printf(b, " and %d more ranks", k - 6);
		hd_buf_printf(b, " to call it");
		return;
	default:
		if (g->state == GS_QUEUED && g->ndeps > 0)
			hd_buf_printf(b, "%s (line %d), which waits for work on another "
			    "stream", hd_op_kind_name(op->kind), op->line);
		else
			hd_buf_printf(b, "%s (line %d)", hd_op_kind_name(op->kind),
			    op->line);
		return;
	}
}

/* Why rank m's host thread cannot go on, in words. */
static void
describe_rank(struct world *w, struct model *m, struct hd_buf *b)
{
	const struct host *h = &m->h;
	const struct hd_op *op = h->op >= 0 ? &w->sc->ops[h->op] : NULL;
	int s, said = 0;

	hd_buf_printf(b, "  rank %d: ", m->rank);
	if (op == NULL) {
		hd_buf_printf(b, "waits\n");
		return;
	}
	hd_buf_printf(b, "%s (line %d) ", hd_op_api_name_sc(w->sc, op), op->line);
	if (h->w.kind == W_BARRIER) {
		hd_buf_printf(b, "waits for every rank to reach the barrier\n");
		return;
	}
	hd_buf_printf(b, "waits for ");
	for (s = 0; s < w->sc->nstreams; s++) {
		int gi = m->st[s].head;

		if (gi < 0)
			continue;
		if (h->w.kind == W_TICKET && s != h->w.stream)
			continue;
		if (m->g[gi].kind != G_SEND && m->g[gi].kind != G_RECV &&
		    m->g[gi].kind != G_COLL && said)
			continue;
		hd_buf_printf(b, "%s", said ? "; and " : "");
		describe_gop(w, m, gi, b);
		said = 1;
	}
	if (!said)
		hd_buf_printf(b, "work that cannot start");
	hd_buf_printf(b, "\n");
}

static char *
deadlock_text(struct world *w)
{
	struct hd_buf b;
	char when[32];
	int r, shown = 0, stuck = 0;

	hd_buf_init(&b);
	for (r = 0; r < w->n; r++)
		if (!w->rk[r].h.done)
			stuck++;
	hd_buf_printf(&b, "deadlock at %s: %d of %d ranks wait and nothing left "
	    "can wake them\n", hd_fmt_time(when, sizeof when, hd_engine_now(w->eng)),
	    stuck, w->n);
	for (r = 0; r < w->n; r++) {
		if (w->rk[r].h.done)
			continue;
		if (shown++ == 8) {
			hd_buf_printf(&b, "  ... and %d more ranks\n", stuck - 8);
			break;
		}
		describe_rank(w, &w->rk[r], &b);
	}
	return b.s;
}

/* --- the run ---------------------------------------------------------------- */

static void
world_free(struct world *w)
{
	size_t i;
	int r;

	if (w->rk != NULL)
		for (r = 0; r < w->n; r++)
			model_free(&w->rk[r]);
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
	hd_flow_free(w->net);
	hd_engine_free(w->eng);
}

static void
world_init(struct world *w, const struct hd_scenario *sc,
	   const struct hd_profile *p, const struct hd_sink *sink)
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
		w->host_dma[i][0] = p->node_h2d_bw > 0 ?
		    hd_flow_resource(w->net, p->node_h2d_bw) : -1;
		w->host_dma[i][1] = p->node_d2h_bw > 0 ?
		    hd_flow_resource(w->net, p->node_d2h_bw) : -1;
		w->host_dma[i][2] = both > 0 ? hd_flow_resource(w->net, both) : -1;
	}
	w->rk = hd_xcalloc((size_t)n, sizeof *w->rk);
	for (i = 0; i < n; i++)
		model_init(&w->rk[i], w, i);
}

static void
handle(struct world *w, const struct hd_event_rec *ev, volatile int *stop)
{
	struct model *m = &w->rk[ev->type >> EV_SHIFT];

	switch ((enum ev_type)(ev->type & EV_MASK)) {
	case EV_HOST:
		host_step(m, stop);
		break;
	case EV_READY:
		if (m->g[ev->a].gen == (uint32_t)ev->b)
			kernel_ready(m, (int)ev->a);
		break;
	case EV_KDONE:
		/* a kernel re-timed beside NCCL has a later EV_KDONE */
		if (m->g[ev->a].gen == (uint32_t)ev->b && m->g[ev->a].kdone == ev->t)
			kernel_done(m, (int)ev->a);
		break;
	case EV_XLAT:
		if (m->x[ev->a].gen == (uint32_t)ev->b)
			flow_start(m, (int)ev->a);
		break;
	case EV_FLOW:
		on_flow(w, ev->a);
		return;
	case EV_COLL:
		if (m->g[ev->a].gen == (uint32_t)ev->b)
			coll_done(m, (int)ev->a);
		break;
	}
	touch(m);
}

int
hd_model_run(const struct hd_scenario *sc, const struct hd_profile *p,
	     const struct hd_sink *sink, volatile int *stop,
	     struct hd_model_stats *st, struct hd_err *e)
{
	struct world w;
	struct hd_event_rec ev;
	int rc = 0, r, i, stuck = 0;

	if (hd_model_check(sc, e) < 0 || check_profile(p, e) < 0)
		return -1;
	world_init(&w, sc, p, sink);
	for (r = 0; r < w.n; r++) {
		struct model *m = &w.rk[r];

		make_lanes(m);
		m->lbl_staging = intern(m, "staging memcpy");
		m->lbl_fault = intern(m, "page faults");
		at(m, 0, EV_HOST, 0, 0);
	}
	while (w.problem == NULL && hd_engine_pop(w.eng, &ev)) {
		handle(&w, &ev, stop);
		/* ranks whose state changed: start stream heads, wake hosts */
		for (i = 0; i < w.ntouched; i++) {
			struct model *m = &w.rk[w.touched[i]];

			if (m->dirty)
				kick(m);
			host_poll(m);
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

		if (m->h.done)
			continue;
		stuck++;
		/* a deadlocked rank's call never returns: show it open until now */
		if (w.problem == NULL && !(stop != NULL && *stop) && m->h.op >= 0) {
			if (m->h.blocked && now > m->h.w.since)
				emit(m, m->lane_api, m->h.op, m->h.iter, HD_SPAN_BLOCKED,
				    m->h.w.why, m->h.w.since, now, 0, api_label(m, m->h.op));
			emit(m, m->lane_api, m->h.op, m->h.iter, HD_SPAN_API, HD_WHY_NONE,
			    m->h.t0, now, 0, api_label(m, m->h.op));
		}
	}
	if (stop != NULL && *stop) {
		hd_err_set(e, HD_EXIT_FAIL, "",
		    "the run of scenario '%s' was stopped", sc->name);
		rc = -1;
	} else if (w.problem != NULL) {
		hd_err_set(e, sink->max_spans > 0 && w.spans > sink->max_spans ?
		    HD_EXIT_INPUT : HD_EXIT_FAIL, "",
		    "scenario '%s': %s", sc->name, w.problem);
		rc = -1;
	} else if (stuck > 0 || sc->expect_deadlock) {
		char *text = stuck > 0 ? deadlock_text(&w) : NULL;

		if (stuck > 0 && sc->expect_deadlock) {
			if (sink->note != NULL)
				sink->note(sink->ctx, text);
		} else if (stuck > 0) {
			hd_err_set(e, HD_EXIT_FAIL, "", "scenario '%s': %s", sc->name, text);
			if (sink->note != NULL)
				sink->note(sink->ctx, text);
			rc = -1;
		} else {
			hd_err_set(e, HD_EXIT_INPUT, "", "scenario '%s' says 'expect "
			    "deadlock' but every rank finished", sc->name);
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
