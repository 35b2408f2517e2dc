/*
 * model_priv.h - what the files of the model share, private to sim/: the
 * state of one rank (struct model) and of the run (struct world), and the
 * functions one file calls in another.
 *
 *   model.c        spans, lanes and labels; events; gops and streams; the
 *                  world and the run
 *   model_xfer.c   transfers on copy engines and the flow network; kernels
 *                  on the SMs
 *   model_ranks.c  between ranks: peer paths, send/recv matching, collectives
 *   model_ops.c    the host thread: walking the op list, one handler per op kind
 *   model_check.c  checks of the input, and the deadlock report
 *   model_host.c   host threads beside the main one, the queues between
 *                  them, and the CPU cores they share
 *   model_graph.c  CUDA graphs: a launch's nodes, one after another
 *
 * Everything here is the model's own: names carry a model_ prefix and no
 * other layer includes this file.
 */
#ifndef HD_MODEL_PRIV_H
#define HD_MODEL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/coll.h"
#include "sim/engine.h"
#include "sim/flow.h"
#include "sim/model.h"

enum ev_type {
	EV_HOST,  /* the host thread resumes */
	EV_READY, /* a kernel's launch latency has passed */
	EV_KDONE, /* a kernel finishes */
	EV_XLAT,  /* a transfer's set-up latency has passed: start its flow */
	EV_FLOW,  /* the earliest flow finishes (a = generation) */
	EV_COLL,  /* this rank's part of a collective ends */
	EV_CPU,   /* the earliest host work on the CPU cores ends (a = generation) */
	EV_NODE,  /* a graph node's gap has passed: it starts (model_graph.c) */
	EV_STAMP, /* a timing event's record has its timestamp: it completes */
};
/* Event types carry the rank above the low four bits. */
#define EV_SHIFT 4
#define EV_MASK  0xfu
/* DIR_P2P: a peer copy or send/recv; its path comes with the transfer. */
enum dir {
	DIR_H2D,
	DIR_D2H,
	DIR_D2D,
	DIR_P2P,
	DIR__COUNT
};

enum gop_kind {
	G_KERNEL,
	G_COPY,
	G_PREFETCH,
	G_RECORD,
	G_WAIT,
	G_STAGED,
	G_SEND,
	G_RECV,
	G_COLL,
	G_GRAPH, /* a graph launch: its nodes run one by one as gops off the stream */
	G_MARK,  /* no work: done when its stream reaches it (a host copy's wait) */
};

enum gop_state {
	GS_FREE,
	GS_QUEUED,  /* in its stream, waiting to be head with dependencies met */
	GS_LAUNCH,  /* kernel: waiting for launch latency */
	GS_WAITRES, /* waiting for room on the SMs, or a copy engine */
	GS_RUNNING,
};

enum xfer_kind {
	X_COPY,
	X_CHUNK,
	X_PREFETCH,
	X_FAULT,
	X_COMM
};

struct dep {
	int stream;
	uint64_t ticket; /* done when the stream has completed this many */
};

/* What a kernel draws on while it computes (struct gop.pipe, model_xfer.c). */
enum kernel_pipe {
	PIPE_NONE,   /* spin kernels: a timer, not the SMs' pipes */
	PIPE_FMA,    /* compute kernels: the SMs' FP32 pipes */
	PIPE_MEMORY, /* memory, fill and reduce kernels: HBM, or the L2 */
	PIPE__COUNT
};

struct gop {
	enum gop_kind kind;
	enum gop_state state;
	uint32_t gen;
	int op;
	uint32_t iter;
	int stream;
	uint64_t ticket; /* its number on its stream (1-based) */
	hd_time submit, start, head_since, compute_start;
	hd_time kdone; /* kernels: when its EV_KDONE fires (0: not computing) */
	int next;      /* next in its stream */
	int qnext;     /* next in the kernel queue */
	int next_free;
	struct dep *deps; /* kept across reuse of the slot */
	int ndeps, depcap;
	/* kernels */
	int units;     /* the SM room its blocks hold, in 1/32 of an SM (model_xfer.c) */
	hd_time dur;   /* its work alone on the GPU */
	hd_time ready; /* when it joined the kernel queue */
	int pipe;      /* what it draws on while computing: enum kernel_pipe */
	double demand; /* the share of that pipe it takes alone (0-1) */
	double left;   /* computing: its work still to do, in ps alone */
	double speed;  /* computing: its rate now, 1 alone */
	hd_time rated; /* computing: when left and speed were last set */
	/* copies */
	enum dir dir;
	uint64_t bytes;
	uint64_t chunks_done; /* staged copies: chunk DMAs finished */
	uint64_t nchunks;
	int buf; /* prefetch: the buffer */
	int to_device;
	/* prefetch: its number among the buffer's moves (struct mbuf), or 0
	 * when it moves nothing */
	uint32_t move;
	/* prefetch: called while other work than a prefetch was last on its
	 * stream, unfinished (the driver defers it: um.prefetch_defer) */
	int deferred;
	int bnext; /* next gop waiting for a buffer's migration (struct mbuf) */
	/* kernels faulting in managed memory: the bytes and fault groups to
	 * migrate, in batches of groups (model_xfer.c, FAULT_BATCHES) */
	uint64_t fault_bytes, fault_groups;
	uint32_t fault_batch, fault_batches; /* the batch in progress, and how many */
	uint64_t fault_alloc;                /* the largest managed buffer it faults in */
	hd_time fault_nap; /* the driver throttles it this long first (model_trip_pinned) */
	/* the one managed buffer it faults in, or -1; fault_stop: a prefetch
	 * took over the rest (model_fault_takeover), so it waits for that
	 * after the batch in progress */
	int fault_buf, fault_stop;
	/* communication */
	int peer;     /* send / recv / peer copy: the other rank */
	int pnext;    /* next in the rank's list of posted sends or recvs */
	uint64_t seq; /* collectives: which of the rank's collectives */
	/* graphs */
	int parent;  /* a graph's node: the G_GRAPH gop it belongs to, else -1 */
	int graph;   /* G_GRAPH: which of the world's graphs */
	size_t node; /* G_GRAPH: the node running now (index in its node list) */
};

struct xfer {
	enum xfer_kind kind;
	uint32_t gen;
	int gop;
	enum dir dir;
	uint64_t bytes;
	double cap;
	hd_time lat;
	int engine;     /* -1: no copy engine (page faults, NCCL) */
	hd_time t0, t1; /* on the engine, on the wire */
	int next, next_free;
	/* DIR_P2P: the path, and for send/recv the receiving rank's gop */
	int res[4], nres;
	enum hd_link_class cls;
	int rgop;
	uint32_t rgen;
};

struct engine {
	int head, tail; /* FIFO of transfers */
	int busy;       /* transfer in progress, or -1 */
};

struct mstream {
	int head, tail;
	uint64_t submitted, completed;
	int blocking; /* synchronises with the legacy stream */
	/* its last work is a kernel: no event recorded on it since (while any
	 * stream's is, a stream or event sync costs api.sync_kernel) */
	int kernel_last;
	int lane;
};

struct mevent {
	int recorded;
	int stream;
	uint64_t ticket;
};

struct mbuf {
	enum hd_mem mem; /* changes when cudaHostRegister pins it */
	int resident;    /* managed: on the device */
	uint64_t bytes;
	/* managed, resident on the device: its first host_bytes bytes were
	 * written back to the host by host-to-host copies (copies start at
	 * offset 0) */
	uint64_t host_bytes;
	/* managed, resident on the device: the driver's copies have opened its
	 * first host_copy bytes to the host, and they stay open to copies
	 * until the pages move */
	uint64_t host_copy;
	/* of those, the first host_moved bytes a copy wrote into, or the CPU
	 * read out of (a host-to-host copy): a prefetch to the device moves
	 * them back (model.c's prefetch_plan) */
	uint64_t host_moved;
	/* managed, on the host: a prefetch to the host brought its pages
	 * there (landed: all its bytes; 0: not so), and the CPU has written
	 * the first `written` of them since (model_ops.c's landed_write) */
	uint64_t landed, written;
	/* managed: a prefetch is migrating it to the device (1) or the host
	 * (0); -1: none */
	int moving;
	/* prefetches planned that move its pages: the newest one's arrival
	 * decides where they are */
	uint32_t moves;
	int waiters;  /* gops waiting for that migration (linked by bnext), or -1 */
	int faulting; /* the kernel gop faulting its pages in now, or -1 */
	int live;     /* allocated now: from the start, or between its alloc and free */
	/* a small managed block freed while its heap lived on, none of the
	 * heap's pages moving to the device since its alloc: its pages stay
	 * mapped on the host while um_heap_epoch is still kept_epoch (the
	 * epoch at its alloc) */
	int kept;
	uint32_t kept_epoch;
	/* device memory of HD_ALLOC_SMALL bytes up: its cudaMalloc was served
	 * from what an earlier cudaFree left the driver (model_ops.c's
	 * op_alloc), so it and its cudaFree take the api.*_mid rule */
	int warm;
	/* pageable: its first `touched` bytes were written since its alloc (a
	 * buffer without one: all, as the real backend touches it beforehand) */
	uint64_t touched;
	/* managed: the driver's thrashing heuristics (model_xfer.c's
	 * model_trip_pinned).  trips: kernels (or READs) in a row that faulted its pages over
	 * to the device, each within UM_LAPSE of the one before (trip_at: the
	 * last); naps: of those, the ones throttled; until pin_end the pages
	 * stay pinned on the host, mapped remotely, and nothing moves */
	hd_time trip_at, pin_end;
	uint32_t trips, naps;
	/* of host_copy, some was opened by a copy the CPU makes (not a READ's
	 * DMA alone): a kernel on it is a round trip */
	int trip_open;
	/* of host_copy, some the CPU itself read (a host-to-host copy): a READ
	 * brings that back (model_ops.c's read_trip) */
	int cpu_open;
	/* managed: a copy has named it since a kernel or a prefetch last moved
	 * its pages (the driver's look at them, api.memcpy_managed, is paid
	 * once; the pages a copy itself moves do not count) */
	int copied;
	/* model_xfer.c's scratch while it shares the pipes out: the kernel
	 * kinds streaming it then, one bit each (0 between) */
	unsigned streaming;
};

enum wait_kind {
	W_NONE,
	W_TICKET,  /* stream `stream` has completed `ticket` ops */
	W_ALL,     /* every stream idle */
	W_LEGACY,  /* the legacy stream and every blocking stream idle */
	W_QUEUE,   /* stream has room in its queue */
	W_STARTED, /* staged gop (slot, gen) is running */
	W_CHUNKS,  /* staged gop (slot, gen) has `ticket` chunks done */
	W_BARRIER, /* every rank has reached barrier number `ticket` */
	W_HANDOFF, /* another host thread handed over the item or room of queue `slot`
		    * (model_host.c sets `ticket`) */
};

struct hwait {
	enum wait_kind kind;
	int stream;
	uint64_t ticket;
	int slot;
	uint32_t gen;
	enum hd_why why;
	int quiet; /* part of a longer blocked span: draw none */
	hd_time wake;
	hd_time since;
};

struct loop {
	int start, end;
	uint64_t left;
	uint64_t mark; /* ops returned when this iteration began */
};

struct host {
	int pc;
	uint64_t returned; /* ops host_next has handed out */
	struct loop *stack;
	size_t sp, stack_cap;
	int op; /* op being executed, or -1 */
	uint32_t iter;
	int phase;
	hd_time t0;  /* when the call began */
	int blocked; /* waiting in `w` */
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
	int touched; /* on the world's list of ranks to look at */
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
	int units_used, nkernels;
	int *krun; /* the kernels computing now that draw on a pipe (gop indices) */
	size_t nkrun, krun_cap;

	struct host h;
	int dirty;          /* a gop completed: heads may start */
	int kernel_last;    /* streams whose last work is a kernel (mstream.kernel_last) */
	hd_time stamp_free; /* when the GPU may start the next event timestamp */

	/* lanes and labels */
	int lane_host, lane_api, lane_ce[DIR__COUNT], lane_compute, lane_pcie[2];
	int lane_link[HD_LINK__COUNT];
	int *work_label; /* per op, -1 until interned (the world's) */
	int *api_label;  /* per op, -1 until interned (the world's) */
	int lbl_staging, lbl_fault;

	/* communication */
	int res_out, res_in;  /* NVLink ports (flow resources) */
	int sends, recvs;     /* posted sends / recvs not yet matched (lists of gops) */
	uint64_t ncoll;       /* collectives started on this rank */
	int nccl_running;     /* NCCL kernels on the GPU now (they hold coll_sms SMs) */
	int comm_stream;      /* the stream and ticket of the last NCCL call, */
	uint64_t comm_ticket; /* which the next one waits for (-1: none) */
	uint64_t nbarrier;    /* barriers reached */

	uint64_t spans, op_execs;
	hd_time makespan;

	struct mthreads *thr; /* host threads beside the main one, their queues
			       * and the CPU (model_host.c); NULL without any */

	/* small pinned and managed buffers allocated now, by memory kind: the
	 * driver's heaps of small blocks (model_ops.c) */
	int heap_live[HD_MEM__COUNT];
	/* moves on when the managed heap empties or pages of it go to the
	 * device: the blocks freed before are fresh pages again */
	uint32_t um_heap_epoch;
	/* the largest device buffer of HD_ALLOC_SMALL bytes up freed so far */
	uint64_t dev_freed;
	/* the last kernel that read a buffer through (model_xfer.c, read_shared):
	 * its buffer (-1: none yet), stream and compute span */
	int read_buf, read_stream;
	enum hd_kernel_kind read_kind; /* the kernel that last streamed read_buf */
	hd_time read_from, read_to;
};

/* A collective some ranks have reached. */
struct coll {
	uint64_t seq;
	int arrived;
	int op;      /* the first arrival's op, for checks and messages */
	int rank0;   /* the first rank that arrived */
	hd_time *at; /* arrival per rank */
	int *gop;    /* per rank: its gop (or -1) */
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
	int *touched; /* ranks to look at after this event */
	int ntouched;
	uint32_t flow_gen;
	hd_time flow_at; /* time of the live EV_FLOW, or -1 */
	int *work_label, *api_label;
	int *nic_out, *nic_in; /* network resources per node, -1 until needed */
	int (*host_dma)[3];    /* per node: the host's caps on all its GPUs' DMA,
				 * H2D, D2H and both (-1: none) */
	struct coll *colls;    /* collectives in progress, oldest first */
	size_t ncolls, collcap;
	uint64_t barrier_arrived, barrier_done;
	char *problem;      /* a mismatch found: the run stops */
	bool problem_input; /* ... and it is the lesson's (exit status 2) */
	uint64_t spans;     /* drawn by every rank so far, at most the sink's max_spans */
	int lbl_link[HD_LINK__COUNT];
	struct model_graph *graphs; /* the scenario's graphs, by op index (model_graph.c) */
	int ngraphs;
};

/* --- model.c: spans, lanes and labels --------------------------------------------- */

/* Write one span to the sink (and count it against the sink's limit). */
void model_emit(struct model *m, int lane, int op, uint32_t iter, enum hd_span_kind kind,
		enum hd_why why, hd_time start, hd_time end, uint64_t bytes, int label);
/* The interned label of op opi's GPU-side work / of its API call. */
int model_work_label(struct model *m, int opi);
int model_api_label(struct model *m, int opi);
/* Lanes, created on first use: a stream's, a copy engine's, the SMs', a PCIe
 * direction's, and this rank's traffic out over one kind of link. */
int model_stream_lane(struct model *m, int s);
int model_ce_lane(struct model *m, enum dir d);
int model_compute_lane(struct model *m);
int model_pcie_lane(struct model *m, enum dir d);
int model_link_lane(struct model *m, enum hd_link_class c);
/* Buffer b's size, or fallback for no buffer or one of size 0. */
uint64_t model_buf_bytes(const struct model *m, int b, uint64_t fallback);
/* A managed-memory fixed cost t measured on a buffer of 2 MiB or more
 * (um.prefetch_base, um.fault_base, um.host_fault, api.memcpy_managed),
 * for a managed buffer of `bytes` (model.c). */
hd_time model_um_fixed(hd_time t, uint64_t bytes);
/* The CPU's memcpy of host-to-host copy op: at host.memcpy_h2d_hot when it
 * fits host.cache, else host.memcpy_h2d (model_ops.c). */
hd_time model_h2h_time(const struct model *m, const struct hd_op *op);
/* How long faulting `bytes` of a managed buffer of `alloc` bytes in to the
 * device takes, as a kernel's faults would (model_xfer.c). */
hd_time model_fault_in_time(const struct model *m, uint64_t bytes, uint64_t alloc);
/* A prefetch to the device of buffer bi, which a kernel is faulting in:
 * the bytes past the kernel's batch in progress, which the prefetch moves
 * instead (the kernel then waits for it), or 0 when none are left. */
uint64_t model_fault_takeover(struct model *m, int bi);
/* How many kernels kernel op `op` launches (model_xfer.c). */
int model_kernel_launches(const struct model *m, const struct hd_op *op);

/* --- model.c: events, gops and streams -------------------------------------------- */

/* Schedule an event of this rank at time t. */
void model_at(struct model *m, hd_time t, enum ev_type type, uint32_t a, uint64_t b);
/* Is t within the longest run (HD_TIME_RUN_MAX)?  If not, the run stops with
 * w->problem naming op (-1: none known). */
bool model_time_ok(struct world *w, hd_time t, const struct hd_scenario *sc, int op);
/* Something changed on rank m: look at its streams and host after this event. */
void model_touch(struct model *m);
/* A new gop in a free slot; its index. */
int model_gop_new(struct model *m, enum gop_kind kind, int stream, int op, uint32_t iter);
/* Gop gi waits until `stream` has completed `ticket` gops. */
void model_gop_dep(struct model *m, int gi, int stream, uint64_t ticket);
/* Put gop gi on its stream, with the legacy default stream's ordering. */
void model_stream_submit(struct model *m, int gi);
/* Gop gi, the head of its stream, is done: its slot is freed. */
void model_gop_complete(struct model *m, int gi);
/* Start every stream head whose dependencies hold. */
void model_kick(struct model *m);

/* --- model_xfer.c: transfers and kernels ------------------------------------------ */

/* A new transfer for gop gi (engine -1: none); its index. */
int model_xfer_new(struct model *m, enum xfer_kind kind, int gi, enum dir d, uint64_t bytes,
		   double cap, hd_time lat, int engine);
/* Transfer xi starts: its latency, then its flow. */
void model_xfer_begin(struct model *m, int xi);
/* Queue transfer xi on its copy engine (FIFO). */
void model_engine_queue(struct model *m, int xi);
/* Transfer xi's latency is over: its bytes start to flow. */
void model_flow_start(struct model *m, int xi);
/* EV_FLOW: the flows that are done end (gen: the event's generation). */
void model_on_flow(struct world *w, uint32_t gen);
/* An NCCL kernel starts (delta 1) or ends (-1) on this GPU. */
void model_nccl_sms(struct model *m, int delta);
/* Kernel gop gi's launch latency is over / its work is done. */
void model_kernel_ready(struct model *m, int gi);
void model_kernel_done(struct model *m, int gi);
/* Kernel gop gi (its op set): the room its blocks take on the SMs, how long
 * its work takes alone, and what it draws on, from the profile's rates. */
void model_kernel_place(struct model *m, int gi);

/* --- model_ranks.c: between ranks ------------------------------------------------- */

/* The flow-network path of transfer x from rank m to rank peer. */
void model_peer_path(struct model *m, struct xfer *x, int peer);
/* Send or recv gop gi reached the head of its stream: match it or post it. */
void model_post(struct model *m, int gi);
/* Collective gop gi starts on rank m / rank m's part of it is over. */
void model_coll_arrive(struct model *m, int gi);
void model_coll_done(struct model *m, int gi);

/* --- model_ops.c: the host thread ------------------------------------------------- */

/* After a GPU-side event: wake the host if what it waits for holds. */
void model_host_poll(struct model *m);
/* EV_HOST: run the host thread until it waits or is done (or *stop). */
void model_host_step(struct model *m, volatile int *stop);
/* Is buffer i pinned by cudaMallocHost, or managed, and smaller than
 * HD_ALLOC_SMALL (the driver's heap of small blocks of its kind serves it)? */
int model_heap_small(const struct hd_scenario *sc, int i);
/* Managed buffer bi's pages go to the device: if it is a block of the
 * managed heap, the heap's freed blocks are fresh pages again. */
void model_heap_moved(struct model *m, int bi);
/* Managed buffer b's pages are all on one side now: none written back,
 * opened or moved by copies. */
void model_buf_settled(struct mbuf *b);
/* Of managed buffer b's first n bytes, on the device: what a trip there
 * brings back, the bytes host-to-host copies wrote back to the host and,
 * when `opened`, those copies opened to it (host_copy). */
uint64_t model_buf_back(const struct mbuf *b, uint64_t n, int opened);
/* A user's migration or a new allocation: the driver's record of b's
 * trips starts over. */
void model_buf_forget_trips(struct mbuf *b);
/* A kernel, or a READ, is about to fault pages of managed buffer bi over
 * to the device (a trip): 1 when they are pinned on the host instead
 * (mapped remotely, nothing moves), else 0, the trip counted and the
 * throttle's wait added to *nap (model_xfer.c's thrashing heuristics). */
int model_trip_pinned(struct model *m, int bi, hd_time *nap);

/* --- model_host.c: host threads, queues, the CPU ------------------------------------ */

/* Set up rank m's host threads and queues, and make their lanes (after the
 * main thread's); nothing when the scenario starts none. */
void model_threads_init(struct model *m);
void model_threads_free(struct model *m);
/* The main thread reached workers op opi: its threads start now. */
void model_threads_start(struct model *m, int opi);
/* EV_HOST for thread k >= 1: run it until it waits or ends. */
void model_thread_step(struct model *m, int k, volatile int *stop);
/* put or get of op by thread k (0: the main thread): 0 when it is done at
 * once, 1 when thread k now waits (the main thread: until m->h.w.ticket). */
int model_queue_op(struct model *m, int k, const struct hd_op *op);
/* Host work of thread k on the CPU cores: `work` of one core's time; its
 * span (lane, op, iter, label, bytes) is drawn when it ends, then the
 * thread resumes (EV_HOST). */
void model_cpu_start(struct model *m, int k, int lane, int op, uint32_t iter, hd_time work,
		     uint64_t bytes, int label);
/* EV_CPU: the work that is done ends. */
void model_on_cpu(struct model *m, uint32_t gen);
/* Have all of rank m's other threads ended? */
bool model_threads_done(const struct model *m);
/* A run that ended in a deadlock: draw each waiting thread's open wait up to now. */
void model_threads_stuck(struct model *m, hd_time now);
/* The deadlock's words for the main thread's queue wait (true if it had
 * one) and for rank m's waiting threads (lines appended to b). */
bool model_threads_main_text(struct world *w, struct model *m, struct hd_buf *b);
void model_threads_text(struct world *w, struct model *m, struct hd_buf *b);
/* 0, or -1 with e set when sc's threads break ir/threads.h's rules. */
int model_check_threads(const struct hd_scenario *sc, struct hd_err *e);
/* --- model_graph.c: CUDA graphs --------------------------------------------------- */

/* One graph of the scenario: its HD_OP_GRAPH op and the nodes a launch runs. */
struct model_graph {
	int op;
	int *nodes;
	size_t n;
};

/* The scenario's graphs into w->graphs; free them. */
void model_graph_init(struct world *w);
void model_graph_free(struct world *w);
/* The lanes launches of graph op g draw on: set compute, ce[dir] and pcie[0 or 1]
 * for its kernels (faulting in managed memory when `managed`) and copies. */
void model_graph_lanes(const struct hd_scenario *sc, int g, int managed, int *compute, int *ce,
		       int *pcie);
/* G_GRAPH gop gi launches graph op g: set it up before it is submitted. */
void model_graph_gop(struct model *m, int gi, int g);
/* Graph gop gi, the head of its stream, starts: its first node is scheduled. */
void model_graph_start(struct model *m, int gi);
/* EV_NODE: node gop ci's gap is over, it starts. */
void model_graph_node_ready(struct model *m, int ci);
/* Node gop ci is done (its spans drawn): its slot is freed and the next node,
 * or the end of the graph, follows. */
void model_graph_node_done(struct model *m, int ci);

/* --- model_check.c ---------------------------------------------------------------- */

/* 0, or -1 with e set when a rate the model divides by is not positive. */
int model_check_profile(const struct hd_profile *p, struct hd_err *e);
/* What each stuck rank waits for, in words (a new string). */
char *model_deadlock_text(struct world *w);

#endif
