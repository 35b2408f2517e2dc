/*
 * trace.h - what a run produced: lanes and spans.
 *
 * One trace type for the simulator and the real backend.  A lane is a row
 * on a timeline (the host thread, the CUDA API row, each stream, each copy
 * engine direction, compute, each link); a span is an interval on a lane
 * belonging to one op execution.  Predicted and measured traces of one
 * scenario join on (op, iter): that join is the comparison.
 *
 * Backends emit spans through a sink so a benchmark can count spans without
 * keeping them (memory grows with work in flight, not with history); the
 * ordinary sink appends them to a struct hd_trace.
 */
#ifndef HD_TRACE_H
#define HD_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "base/band.h"
#include "base/units.h"

enum hd_lane_kind {
	HD_LANE_HOST,     /* the host thread's own work: host compute, staging memcpy;
			   * index 0 is the main thread, 1 .. the threads of `workers`
			   * blocks (ir/threads.h), with their queue waits */
	HD_LANE_API,      /* CUDA / NCCL API calls, with the blocked part shaded */
	HD_LANE_STREAM,   /* work executing on a stream (index = stream index) */
	HD_LANE_CE_H2D,   /* copy engine, host to device */
	HD_LANE_CE_D2H,   /* copy engine, device to host */
	HD_LANE_CE_D2D,   /* copy engine for device-local and peer copies */
	HD_LANE_COMPUTE,  /* kernels resident on the SMs */
	HD_LANE_PCIE_H2D, /* bytes on the PCIe link towards the GPU */
	HD_LANE_PCIE_D2H, /* bytes on the PCIe link towards the host */
	HD_LANE_LINK,     /* NVLink / network link (index = link index) */
	HD_LANE__COUNT
};

/* Why the host was blocked; HD_WHY_NONE on spans that are not blocking. */
enum hd_why {
	HD_WHY_NONE,
	HD_WHY_SYNC_COPY,   /* cudaMemcpy waits for its copy */
	HD_WHY_PAGEABLE,    /* staging a pageable copy through pinned memory */
	HD_WHY_STREAM_SYNC, /* cudaStreamSynchronize */
	HD_WHY_EVENT_SYNC,  /* cudaEventSynchronize */
	HD_WHY_DEVICE_SYNC, /* cudaDeviceSynchronize, or an implicit one (cudaFree) */
	HD_WHY_READ,        /* reading device data: print(tensor), .item() */
	HD_WHY_QUEUE_FULL,  /* the stream's launch queue is full */
	HD_WHY_PRIOR_WORK,  /* a legacy-stream copy waits for earlier work first */
	HD_WHY_COLLECTIVE,  /* waiting for other ranks */
	HD_WHY_DATA,        /* `get`: the queue is empty, waiting for another host thread */
	HD_WHY_ROOM,        /* `put`: the queue is full, waiting for another host thread */
	HD_WHY__COUNT
};
const char *hd_why_text(enum hd_why w); /* one short sentence for people */
const char *hd_why_name(enum hd_why w); /* identifier: "stream-sync" ... */

/* What kind of activity a span is; how each looks (glyph, colours, names)
 * is the table in ir/spanlook.h. */
enum hd_span_kind {
	HD_SPAN_API,     /* an API call on the API lane */
	HD_SPAN_BLOCKED, /* the blocked part of an API call (nested in it) */
	HD_SPAN_HOST,    /* host compute */
	HD_SPAN_STAGING, /* host memcpy into / out of the pinned staging buffer */
	HD_SPAN_COPY,    /* a copy (on stream, copy engine and link lanes) */
	HD_SPAN_KERNEL,
	HD_SPAN_EVENT, /* an event record reached on a stream (zero length allowed) */
	HD_SPAN_WAIT,  /* a stream waiting on an event or on the legacy stream */
	HD_SPAN_FAULT, /* managed-memory page migration on demand */
	HD_SPAN_PREFETCH,
	HD_SPAN_COMM, /* send / recv / collective */
	HD_SPAN__COUNT
};
/* Identifier of a kind, from the table of looks: "kernel" ("?" out of range). */
const char *hd_span_kind_name(enum hd_span_kind k);

struct hd_lane {
	enum hd_lane_kind kind;
	int rank;
	int index;     /* stream index, link index; 0 otherwise */
	char name[48]; /* Nsight-style: "CUDA API", "Stream 13 (s1)", "Memcpy HtoD" */
};

struct hd_span {
	int lane;      /* index into trace lanes */
	int op;        /* op index in the scenario, or -1 */
	uint32_t iter; /* which execution of that op (0-based, per rank) */
	enum hd_span_kind kind;
	enum hd_why why;
	hd_time start, end; /* picoseconds from the run's start */
	uint64_t bytes;     /* bytes moved, 0 if none */
	int label;          /* index into trace strings: "cudaMemcpyAsync", "kernel spin" */
	hd_time spread;     /* measured: interquartile range of the duration over the
			     * repeats; 0 for the model */
};

struct hd_trace {
	struct hd_lane *lanes;
	int nlanes, lanes_cap;
	struct hd_span *spans;
	size_t nspans, spans_cap;
	char **strings; /* interned labels */
	int nstrings, strings_cap;
	hd_time makespan;       /* end of the last span */
	uint64_t events;        /* engine events processed (0 for measured traces) */
	char *note;             /* what the run ended with, when not plain success
			     * (a deadlock report), or NULL */
	hd_time bare;           /* measured: the makespan without per-op events, 0 if
			     * not measured; hd_trace_makespan prefers it */
	struct hd_trace_ix *ix; /* the trace's indexes (lanes by key, spans by op),
				 * made by hd_trace_new, kept up to date by the
				 * functions below; NULL in a trace made otherwise */
	/* Measured: each timed repeat's makespan, in repeat order (reps: timed
	 * as the spans are, with per-op events, on the spans' time base;
	 * reps_bare: the repeats without per-op events, the ones bare's median
	 * comes from, NULL where none were run), nreps of each; NULL and 0 for
	 * the model.  Several ranks' repeats are one repeat: the latest of them. */
	hd_time *reps, *reps_bare;
	int nreps;
};

/* The most repeats a trace keeps, as many as a band takes; a repeat past
 * them is not kept. */
#define HD_TRACE_MAX_REPS HD_BAND_MAX

/* The run's makespan for comparisons: the uninstrumented one when measured. */
hd_time hd_trace_makespan(const struct hd_trace *t);

struct hd_trace *hd_trace_new(void);
void hd_trace_free(struct hd_trace *t); /* accepts NULL */
/* Find or add a lane; returns its index.  The name is set on creation.
 * O(1) on average: lanes are hashed by (kind, rank, index). */
int hd_trace_lane(struct hd_trace *t, enum hd_lane_kind kind, int rank, int index,
		  const char *name);
/* Intern a label; returns its index. */
int hd_trace_string(struct hd_trace *t, const char *s);
/* Append a span (also raises makespan). */
void hd_trace_add(struct hd_trace *t, const struct hd_span *s);
/* Sort spans by (start, lane, op, iter, end): a stable, canonical order. */
void hd_trace_sort(struct hd_trace *t);
/* Fill order[0 .. nspans) with span indexes by lane, then start, the longest
 * first at one start: the order that stacks nested spans for drawing. */
void hd_trace_order_by_lane(const struct hd_trace *t, size_t *order);
/* Compare two traces bit for bit (lanes, spans, strings). 0 if equal. */
int hd_trace_cmp(const struct hd_trace *a, const struct hd_trace *b);
/* A stable 64-bit digest of the whole trace, for determinism checks. */
uint64_t hd_trace_digest(const struct hd_trace *t);

/* Timing of one op (all its executions on rank 0, or one iteration). */
struct hd_op_time {
	hd_time start, end; /* first start, last end over its spans */
	uint64_t bytes;     /* bytes of its copy / link spans, counted once per execution */
	uint32_t execs;     /* executions seen */
	int found;
};
/* The indexes of op `op`'s spans, in trace order; *n receives how many.  An
 * index of every op's spans is built once (O(spans + ops), 4 bytes a span)
 * on the first call and again after spans are added or sorted, so asking
 * for each op of a trace in turn costs the trace's spans once, not once per
 * op.  The array is the trace's: valid until the trace changes.  NULL (and
 * *n = 0) where there is no index: a trace not made by hd_trace_new, an op
 * below -1 or far past the span count, 2^32 spans or more; then scan every
 * span. */
const uint32_t *hd_trace_op_spans(const struct hd_trace *t, int op, size_t *n);
/* Summarise op `op` over all its spans on lanes other than HOST/API if any
 * such spans exist, else over its API spans. */
struct hd_op_time hd_trace_op_time(const struct hd_trace *t, int op);
/* Total time the host (rank 0's main thread: lanes of index 0) spent blocked,
 * by reason (array of HD_WHY__COUNT). */
void hd_trace_blocked(const struct hd_trace *t, hd_time out[HD_WHY__COUNT]);

/*
 * The sink a backend writes to.  `span` receives each span; `lane` each new
 * lane (returns its index).  hd_trace_sink() makes a sink that fills a trace.
 */
struct hd_sink {
	void *ctx;
	int (*lane)(void *ctx, enum hd_lane_kind kind, int rank, int index, const char *name);
	int (*string)(void *ctx, const char *s);
	void (*span)(void *ctx, const struct hd_span *s);
	/* A message about the run as a whole (a deadlock report); may be NULL. */
	void (*note)(void *ctx, const char *text);
	/* Measured runs: the makespan of repeats timed without per-op events
	 * (instrumenting every op costs the host time of its own); may be NULL. */
	void (*makespan)(void *ctx, hd_time t);
	/* Most spans the sink will keep (a trace holds them all in memory), or
	 * 0 for no limit (a sink that only counts them). */
	uint64_t max_spans;
	/* Measured runs: repeat i's makespan with per-op events (the latest span
	 * end of that repeat, on the spans' time base) and without them (bare;
	 * 0 where not measured), once per repeat and rank, i from 0 below
	 * HD_TRACE_MAX_REPS; may be NULL. */
	void (*repeat)(void *ctx, int i, hd_time makespan, hd_time bare);
};

/* What hd_trace_sink keeps: more than this is an error of the run. */
#define HD_TRACE_MAX_SPANS 10000000u
struct hd_sink hd_trace_sink(struct hd_trace *t);

#endif
