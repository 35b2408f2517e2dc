/*
 * rank_exec.h - one rank of a multi-rank scenario, whatever started it.
 *
 * hd_rank_execute joins the NCCL communicator and runs the scenario with
 * the CUDA executor.  What connects the ranks is a struct hd_rank_boot: the
 * pipes to the coordinator on one node (ranks.c), or MPI across nodes
 * (boot_mpi.c).  Builds with NCCL only.
 */
#ifndef HD_RANK_EXEC_H
#define HD_RANK_EXEC_H

#include "ir/backend.h"
#include "real/wire.h"

struct hd_rank_boot {
	void *ctx;
	int rank, nranks;
	int device;       /* the CUDA device of this rank */
	int shared_clock; /* all ranks read one CLOCK_MONOTONIC (one node) */
	/*
	 * Every rank contributes p[0..n); when all have, `all` gets each rank's
	 * contribution in rank order as (u32 length, bytes), and *release_ns the
	 * moment the last one arrived (the ranks' shared clock on one node, the
	 * rank's own clock across nodes).  A barrier is an empty allgather.
	 * 0, or -1 with e set.
	 */
	int (*allgather)(void *ctx, const void *p, size_t n, struct hd_wbuf *all,
			 int64_t *release_ns, struct hd_err *e);
	/* A barrier faster than an empty allgather (shared memory on one
	 * node), for the scenario's `barrier` op and the start of each repeat;
	 * *release_ns (unless NULL) gets the moment the last rank arrived, on
	 * the shared clock.  May be NULL.  0, or -1 with e set. */
	int (*host_barrier)(void *ctx, int64_t *release_ns, struct hd_err *e);
	/* Say what the rank is doing now (for the watchdog's messages). */
	void (*phase)(void *ctx, const char *what);
	/* Report a fatal error from any thread; the process then ends. */
	void (*fail)(void *ctx, const char *msg);
};

/*
 * Run sc as rank b->rank: cudaSetDevice, the NCCL unique id from rank 0 by
 * b->allgather, ncclCommInitRank, then warm-up and repeats (rt.h) into
 * `out`.  A watcher thread checks ncclCommGetAsyncError and a SIGTERM while
 * the rank runs; either aborts the communicator and ends the process after
 * b->fail.  0, or -1 with e naming the call that failed (the communicator is
 * aborted).
 */
int hd_rank_execute(const struct hd_scenario *sc, const struct hd_run_opts *o,
		    const struct hd_rank_boot *b, struct hd_trace *out, struct hd_err *e);

/* Install the SIGTERM handler the watcher looks at (call before starting). */
void hd_rank_catch_term(void);

#endif
