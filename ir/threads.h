/*
 * threads.h - the host threads of a scenario beside each rank's main thread,
 * and the bounded queues between them: what the parser, both backends and
 * the printers agree on.
 *
 * A `workers N` block (HD_OP_WORKERS, count N) starts N threads when the
 * main thread reaches it; each runs the block's body once, then ends.  A
 * `thread NAME` block is one such thread with a name.  Blocks stand at the
 * top of a scenario, so every rank has the same threads, numbered 1 .. T in
 * the order of their blocks (0 is the main thread).  Thread k's lane is the
 * host lane of index k (ir/trace.h).
 *
 * The body of a worker holds host work only: `host`, `copy` between host
 * buffers (a memcpy), `put`, `get` and `repeat`.  An op a worker runs has
 * one op index for all the threads of its block; the threads' executions
 * are numbered apart: execution j of thread i (0-based within a block of n)
 * is iteration j * n + i, so predicted and measured traces join on (op,
 * iter) whatever order the threads ran in.
 */
#ifndef HD_THREADS_H
#define HD_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

#define HD_THREADS_MAX     64   /* threads beside the main one, per rank */
#define HD_QUEUE_MAX_DEPTH 4096 /* items one queue holds */

/* Where thread k (1 .. T) comes from. */
struct hd_thread_info {
	int op;    /* its HD_OP_WORKERS op */
	int index; /* 0 .. n-1 within that block */
	int n;     /* threads of the block */
};

/* Threads beside the main one (T): the sum of the workers blocks' counts,
 * saturating at INT32_MAX. */
int hd_threads_count(const struct hd_scenario *sc);

/* Fill *info for thread k (1 .. T).  0, or -1 when there is no thread k. */
int hd_thread_info(const struct hd_scenario *sc, int k, struct hd_thread_info *info);

/*
 * Thread k's lane name, into buf: "Thread NAME" for `thread NAME`, "LABEL i"
 * for a labelled workers block, "Worker j" otherwise (j counting the threads
 * of unlabelled workers blocks from 0).  Truncated to n - 1 bytes.
 */
void hd_thread_lane_name(const struct hd_scenario *sc, int k, char *buf, size_t n);

/*
 * Every thread's origin and lane name at once, in one pass over the ops:
 * info[k] and name[k] for k = 1 .. min(T, n - 1) (either may be NULL).
 * Returns T.  What hd_thread_info and hd_thread_lane_name give one at a
 * time, for callers that want them all.
 */
int hd_threads_table(const struct hd_scenario *sc, struct hd_thread_info *info, char (*name)[48],
		     int n);

/* The iteration number of a worker's `exec`-th execution (see above). */
uint32_t hd_thread_iter(uint64_t exec, int index, int n);

/* May a worker's body hold an op of kind k (copies: between host buffers)?
 * An `if` is no op: it is decided when the scenario is built, and the ops of
 * its branches are checked as the body's own. */
bool hd_thread_op_ok(enum hd_op_kind k);

/* Does sc start any host thread? */
bool hd_threads_any(const struct hd_scenario *sc);

#endif
