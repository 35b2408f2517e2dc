/*
 * ir.h - the scenario IR: the one input of both backends.
 *
 * A lesson's scenario, with every knob and expression already evaluated, is
 * lowered to a struct hd_scenario: tables of buffers, streams and events and
 * one flat op list that every rank's host thread walks (SPMD, like torchrun).
 * Loops and rank-only blocks stay structured (a header op followed by its
 * body) so a million-iteration loop costs one op, not a million; a backend
 * walks them with a small stack.
 *
 * Every op has an index in `ops`; that index plus the iteration number is the
 * op id that predicted and measured traces join on.  Indices depend only on
 * the lesson and the knob values.
 *
 * Ranks.  The op list is the same on every rank (SPMD); `rank N` blocks
 * become HD_OP_ON_RANK headers.  Peers that depend on the rank are lowered
 * without duplicating ops where possible:
 *   - a peer that is the same on every rank is a literal rank (peer_rel false);
 *   - a peer of the form (rank + k) mod nranks -- rings: `send d to rank + 1`,
 *     `recv d from rank - 1` -- is one op with peer_rel true and peer = k
 *     (0 <= k < nranks): on rank r the other side is (r + k) mod nranks;
 *   - any other rank-dependent peer (`send d to nranks - 1 - rank`) becomes
 *     one HD_OP_ON_RANK block per rank holding the op with a literal peer.
 * A backend resolves a peer with hd_op_peer().  Peer expressions wrap modulo
 * nranks in the lesson language, so every peer is in 0 .. nranks-1.
 *
 * Ops that do not go on a stream (host work, syncs other than stream sync,
 * alloc, free, barrier) carry the default stream in `stream`.
 *
 * Conditions.  A lesson's `if` is decided when the scenario is lowered, so
 * the ops a backend runs never hold one.  A loop whose body reads the loop's
 * index (`repeat N as i` ... `if i % 10 == 0`) is built iteration by
 * iteration: consecutive iterations that come out the same merge into one
 * HD_OP_REPEAT, and a pattern of those that repeats into an HD_OP_REPEAT
 * around it (`repeat 100 { repeat 1 {A B}; repeat 9 {A} }`), each header
 * carrying the loop's label.  The printers' form of a scenario
 * (hd_lesson_instantiate_written, for `show --cuda`) keeps such an `if` as
 * the lesson wrote it: the ops of both branches, each marked with its
 * condition block (op->cblock, op->cblock_else), the blocks in sc->cblocks
 * with their condition as a tree of hd_cx nodes, knobs and constants folded
 * into numbers.  That form is for printing only: never run it.
 *
 * Graphs.  A `graph NAME` block of the lesson is an HD_OP_GRAPH header (its
 * name in `text`, the nodes one launch runs -- loops multiplied out -- in
 * `count`) followed by its body: kernels, async copies and loops of them,
 * which carry the default stream and never run where they stand.  A backend
 * captures the body once before the run (CUDA stream capture) and walks
 * past it; each HD_OP_LAUNCH (`launch NAME on S`) runs the whole body on
 * its stream, node after node.  A node's work keeps its own op index, so a
 * label inside a graph names that node in every launch.  The language
 * refuses an `if` inside a graph, so a graph's body holds no condition
 * block in either form.
 */
#ifndef HD_IR_H
#define HD_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/units.h"

enum hd_mem {
	HD_MEM_PAGEABLE, /* malloc'd host memory */
	HD_MEM_PINNED,   /* cudaMallocHost / cudaHostAlloc */
	HD_MEM_MANAGED,  /* cudaMallocManaged; starts resident on the host */
	HD_MEM_DEVICE,   /* cudaMalloc */
	HD_MEM__COUNT
};

struct hd_buffer {
	char *name;
	enum hd_mem mem;
	uint64_t bytes;
	int line, col; /* where it was declared */
};

/* Built-in streams: index 0 and 1 exist in every scenario. */
#define HD_STREAM_LEGACY     0 /* the legacy default stream ("stream 0") */
#define HD_STREAM_PER_THREAD 1 /* cudaStreamPerThread */

enum hd_stream_flags {
	HD_STREAM_NONBLOCKING = 1, /* cudaStreamNonBlocking */
};

struct hd_stream {
	char *name; /* "default", "per-thread", or the user's */
	unsigned flags;
	int priority; /* lower is higher priority, as in CUDA */
	int line, col;
};

struct hd_event {
	char *name;
	bool timing; /* false: cudaEventDisableTiming */
	int line, col;
};

/* A bounded queue between the host threads of a rank (`queue NAME DEPTH`):
 * `put` blocks while it holds `depth` items, `get` while it is empty.  Items
 * carry no data; they say "a batch is ready".  See ir/threads.h. */
struct hd_queue {
	char *name;
	uint32_t depth; /* 1 .. HD_QUEUE_MAX_DEPTH */
	int line, col;
};

/* What each kind is and takes, for every layer: ir/opfacts.h. */
enum hd_op_kind {
	HD_OP_ALLOC,       /* allocate buffer `dst` now (cost shows; pinning costs) */
	HD_OP_FREE,        /* free buffer `dst` (cudaFree/cudaFreeHost sync the device) */
	HD_OP_PIN,         /* cudaHostRegister a pageable buffer: it becomes pinned */
	HD_OP_COPY,        /* src -> dst, `bytes`; `async` or not, on `stream` */
	HD_OP_KERNEL,      /* `kernel` kind on `stream` */
	HD_OP_PREFETCH,    /* cudaMemPrefetchAsync of managed `dst` to `to_device` */
	HD_OP_RECORD,      /* cudaEventRecord(event, stream) */
	HD_OP_WAIT,        /* cudaStreamWaitEvent(stream, event) */
	HD_OP_EVENT_SYNC,  /* cudaEventSynchronize(event) */
	HD_OP_EVENT_QUERY, /* cudaEventQuery(event): costs a call, never blocks */
	HD_OP_STREAM_SYNC, /* cudaStreamSynchronize(stream) */
	HD_OP_DEVICE_SYNC, /* cudaDeviceSynchronize() */
	HD_OP_HOST,        /* CPU work for `duration` */
	HD_OP_READ,        /* host reads `bytes` of device buffer `src`: print(t), .item() */
	HD_OP_REPEAT,      /* run the next `body_len` ops `count` times */
	HD_OP_ON_RANK,     /* run the next `body_len` ops only on rank `rank` */
	HD_OP_SEND,        /* ncclSend(src, bytes, peer) on stream */
	HD_OP_RECV,        /* ncclRecv(dst, bytes, peer) on stream */
	HD_OP_COLL,        /* collective `coll` over all ranks on stream */
	HD_OP_BARRIER,     /* host barrier across ranks (MPI_Barrier-like) */
	HD_OP_WORKERS,     /* `count` host threads beside the main one, each running the
			    * next `body_len` ops; `text`: a `thread NAME`'s name (ir/threads.h) */
	HD_OP_PUT,         /* put an item into queue `queue`: waits while it is full */
	HD_OP_GET,         /* take an item from queue `queue`: waits while it is empty */
	HD_OP_GRAPH,       /* a CUDA graph: the next `body_len` ops, captured once (see below) */
	HD_OP_LAUNCH,      /* cudaGraphLaunch of the graph at op `graph` on `stream` */
	HD_OP__COUNT
};

enum hd_kernel_kind {
	HD_KERNEL_SPIN,    /* runs for exactly `duration` (global timer) */
	HD_KERNEL_COMPUTE, /* `flops` of FMA work: compute-bound */
	HD_KERNEL_MEMORY,  /* streams `bytes` through HBM: memory-bound */
	HD_KERNEL_FILL,    /* writes every byte of `dst` (create on device) */
	HD_KERNEL_REDUCE,  /* reads every byte of `src`, writes a scalar */
	HD_KERNEL__COUNT
};

enum hd_coll {
	HD_COLL_ALLREDUCE,
	HD_COLL_BROADCAST,
	HD_COLL_REDUCE,
	HD_COLL_ALLGATHER,
	HD_COLL_REDUCESCATTER,
	HD_COLL_GATHER,
	HD_COLL_ALLTOALL,
	HD_COLL__COUNT
};

/* Where a copy goes, derived from the buffers' memory kinds. */
enum hd_copy_kind {
	HD_COPY_H2D,
	HD_COPY_D2H,
	HD_COPY_D2D,
	HD_COPY_H2H,
	HD_COPY_P2P, /* device buffer on another rank's GPU */
	HD_COPY__COUNT
};

#define HD_NONE (-1)

/* A node of a condition in the printers' form (see "Conditions" above). */
enum hd_cx_kind {
	HD_CX_NUM,   /* num: a constant, knobs folded in (1 or 0 for a condition) */
	HD_CX_INDEX, /* the index of the loop whose HD_OP_REPEAT header is op `loop` */
	HD_CX_NEG,   /* -a */
	HD_CX_ADD,
	HD_CX_SUB,
	HD_CX_MUL,
	HD_CX_DIV, /* a / b, not rounded */
	HD_CX_MOD, /* the remainder, sign of a (C's fmod) */
	HD_CX_LT,
	HD_CX_LE,
	HD_CX_GT,
	HD_CX_GE,
	HD_CX_EQ,
	HD_CX_NE,
	HD_CX_NOT, /* !a */
	HD_CX_AND,
	HD_CX_OR,
	HD_CX__COUNT
};

struct hd_cx {
	enum hd_cx_kind kind;
	double num; /* NUM */
	int a, b;   /* operands: indices into the block's nodes, or HD_NONE */
	int loop;   /* INDEX: the op index of the loop's header */
};

/* An `if` of the printers' form: the ops marked with it are its branches. */
struct hd_cblock {
	int parent;       /* the block around it + 1, or 0 */
	bool parent_else; /* it sits in that block's else branch */
	char *text;       /* the condition as the lesson wrote it */
	struct hd_cx *cx; /* the condition's nodes; the root is the last */
	int ncx;
};

struct hd_op {
	enum hd_op_kind kind;
	int line, col; /* source position, for messages and `show` */
	char *label;   /* the lesson's name for the op, or NULL */
	char *text;    /* HD_OP_HOST: what the work stands for, or NULL */

	int stream;     /* stream index (ops off streams: the default stream) */
	int event;      /* event index, or HD_NONE */
	int src, dst;   /* buffer indices, or HD_NONE */
	int peer;       /* rank of the other side (P2P, send, recv), or HD_NONE;
				   * with peer_rel, an offset (see "Ranks" above) */
	bool peer_rel;  /* the other side is rank (r + peer) mod nranks on rank r */
	int root;       /* root rank of rooted collectives, else HD_NONE */
	int rank;       /* HD_OP_ON_RANK: the rank */
	bool async;     /* copies: cudaMemcpyAsync instead of cudaMemcpy */
	bool to_device; /* prefetch direction */

	enum hd_copy_kind copy; /* copies: derived from src and dst */
	enum hd_kernel_kind kernel;
	enum hd_coll coll;

	uint64_t bytes;   /* copy / read / memory kernel / p2p / collective size */
	double flops;     /* compute kernels */
	hd_time duration; /* spin kernels, host work */
	uint32_t grid;    /* kernels: thread blocks; 0 means "enough to fill the GPU" */

	uint64_t count; /* HD_OP_REPEAT: iterations; HD_OP_WORKERS: threads */
	int body_len;   /* HD_OP_REPEAT / HD_OP_ON_RANK / HD_OP_WORKERS: ops in the body */
	int queue;      /* HD_OP_PUT / HD_OP_GET: queue index, else HD_NONE */
	bool worker;    /* in a workers block's body: its threads run it (a copy is a memcpy) */

	/* The printers' form only (see "Conditions"); 0, false, NULL otherwise. */
	int cblock;       /* the innermost condition block holding the op + 1, or 0 */
	bool cblock_else; /* the op is in that block's else branch */
	char *index_name; /* HD_OP_REPEAT: the lesson's name of the loop's index */

	/* HD_OP_GRAPH: `count` is the nodes one launch runs, `body_len` its body */
	int graph;     /* HD_OP_LAUNCH: index of its HD_OP_GRAPH op, else HD_NONE */
	bool in_graph; /* in a graph's body: a node or a loop of them, not run where it is */
};

struct hd_scenario {
	char *name;  /* identifier used in claims and on the command line */
	char *title; /* one line for people */
	int nranks;  /* 1 unless the scenario says `ranks N` */
	bool
	    per_thread_default; /* nvcc --default-stream per-thread: unqualified ops go to stream 1 */
	bool expect_deadlock;   /* the lesson shows a deadlock: ending in one is the result */

	struct hd_buffer *buffers;
	int nbuffers;
	struct hd_stream *streams; /* [0] legacy, [1] per-thread, then the user's */
	int nstreams;
	struct hd_event *events;
	int nevents;
	struct hd_op *ops;
	int nops;
	struct hd_cblock *cblocks; /* the printers' form only (see "Conditions") */
	int ncblocks;
	struct hd_queue *queues; /* bounded queues between host threads */
	int nqueues;
};

/* Names for the enums above, for output and the lesson language. */
const char *hd_mem_name(enum hd_mem m);            /* "pageable" "pinned" "managed" "device" */
const char *hd_op_kind_name(enum hd_op_kind k);    /* "copy" "kernel" ... */
const char *hd_kernel_name(enum hd_kernel_kind k); /* "spin" "compute" "memory" "fill" "reduce" */
const char *hd_coll_name(enum hd_coll c);          /* "allreduce" ... */
/* Does collective c take a root rank (broadcast, reduce, gather)? */
bool hd_coll_rooted_ok(enum hd_coll c);
const char *hd_copy_kind_name(enum hd_copy_kind c); /* "HtoD" "DtoH" "DtoD" "HtoH" "PtoP" */
/*
 * Collective sizes follow nccl-tests: an op's `bytes` is the size of the
 * buffer each rank passes (for all-gather the whole gathered buffer, each
 * rank contributing bytes / nranks).  algBw = bytes / time; busBw = algBw
 * times this factor (all-reduce 2(n-1)/n, all-gather, reduce-scatter,
 * gather and all-to-all (n-1)/n, broadcast and reduce 1).
 */
double hd_coll_bus_factor(enum hd_coll c, int nranks);
/* The CUDA / NCCL call an op becomes, e.g. "cudaMemcpyAsync", "ncclAllReduce".
 * ALLOC and FREE give the device forms ("cudaMalloc", "cudaFree"); see
 * hd_op_api_name_sc for the form that matches the buffer. */
const char *hd_op_api_name(const struct hd_op *op);

/* The CUDA call with the buffer kind taken into account: ALLOC of a pinned
 * buffer is "cudaMallocHost", FREE of a pageable one "free". */
const char *hd_op_api_name_sc(const struct hd_scenario *sc, const struct hd_op *op);
/* The other side of a P2P copy, send or recv executed on `rank`. */
int hd_op_peer(const struct hd_scenario *sc, const struct hd_op *op, int rank);

/* Derive a copy's kind from the two memory kinds (peer: dst on another rank). */
enum hd_copy_kind hd_copy_kind_of(enum hd_mem src, enum hd_mem dst, bool peer);

/* Count of op executions on one rank, loops multiplied out (saturates at
 * UINT64_MAX).  A loop or rank-block header counts once each time it is
 * reached; a rank block's body counts only on its rank. */
uint64_t hd_scenario_op_instances(const struct hd_scenario *sc, int rank);

/* Deep copy and free.  Free accepts NULL. */
struct hd_scenario *hd_scenario_clone(const struct hd_scenario *sc);
void hd_scenario_free(struct hd_scenario *sc);

#endif
