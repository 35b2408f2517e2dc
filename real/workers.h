/*
 * workers.h - the host threads and queues of a scenario on the real
 * machine (ir/threads.h): pthreads beside the executor's main thread,
 * bounded queues as a mutex and condition variables, host work as CPU time.
 *
 * real_cuda.c owns one struct hd_rt_threads per run.  Worker threads never
 * call CUDA: they run host work (busy on their own CPU time, so threads that
 * share a core take longer, as the model's host.cores says), memcpy between
 * host buffers, put and get.  Every thread records its own spans with
 * CLOCK_MONOTONIC; after the repeat the executor reads them, thread by
 * thread, each in its own order, so repeats line up span for span.
 *
 * A deadlock ends the repeat instead of hanging it: when every live thread
 * (the main one included, until it has walked its op list) waits on a queue
 * that cannot serve it, each waiter returns an error naming the threads and
 * their queues.
 */
#ifndef HD_WORKERS_H
#define HD_WORKERS_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "ir/ir.h"
#include "ir/trace.h"

struct hd_rt_threads;

/* A span one thread recorded; times in CLOCK_MONOTONIC ns. */
struct hd_rt_tspan {
	int thread; /* 1 .. T: the host lane of that index */
	int op;
	uint32_t iter;
	enum hd_span_kind kind;
	enum hd_why why;
	int64_t t0, t1;
	uint64_t bytes;
};

/* Where buffer i's memory is now (the executor allocates, frees and pins). */
typedef void *(*hd_rt_buf_fn)(void *ctx, int i);

/*
 * The threads and queues of sc, none started.  `buf` finds the buffers'
 * memory; `stop` (may be NULL) becoming non-zero stops the threads between
 * ops.  Never NULL.
 */
struct hd_rt_threads *hd_rt_threads_new(const struct hd_scenario *sc, hd_rt_buf_fn buf, void *ctx,
					volatile int *stop);
void hd_rt_threads_free(struct hd_rt_threads *th); /* accepts NULL */

/* Before a repeat: empty queues, no spans; `record`: keep this repeat's spans. */
void hd_rt_threads_reset(struct hd_rt_threads *th, int record);

/* The main thread reached workers op `op`: start its threads.  0, or -1 with e. */
int hd_rt_threads_start(struct hd_rt_threads *th, int op, struct hd_err *e);

/*
 * The main thread's put or get of op: returns when it is done (0) or can
 * never be (-1, with e naming the deadlock, or a stop).  *waited: 1 when it
 * had to wait.
 */
int hd_rt_threads_queue(struct hd_rt_threads *th, const struct hd_op *op, int *waited,
			struct hd_err *e);

/* The main thread has walked its op list (cancel: or failed, and the threads
 * must stop): wait for every started thread.  0, or -1 with e set to a
 * thread's error unless cancel. */
int hd_rt_threads_join(struct hd_rt_threads *th, int cancel, struct hd_err *e);

/* The spans of the last recorded repeat, thread by thread. */
const struct hd_rt_tspan *hd_rt_threads_spans(const struct hd_rt_threads *th, size_t *n);

/* Keep the calling thread busy for `ns` of its own CPU time. */
void hd_rt_cpu_work(int64_t ns);

#endif
