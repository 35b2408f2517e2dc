/*
 * rt.h - the CUDA executor of real_cuda.c as a rank runs it.
 *
 * real_cuda.c walks a scenario's IR on one GPU and times every op.  A rank
 * of a multi-rank scenario runs the same executor with a struct hd_rt_comm
 * that supplies what one process cannot do alone: NCCL calls, a host
 * barrier across ranks, and the addresses of other ranks' buffers for peer
 * copies.  Builds with CUDA only.
 */
#ifndef HD_RT_H
#define HD_RT_H

#include <cuda_runtime_api.h>

#include "ir/backend.h"

struct hd_rt_comm {
	void *ctx;
	int rank, nranks;
	int device; /* the CUDA device this rank uses */
	/* Enqueue a send, recv or collective on stream s; `peer` is the resolved
	 * other side of a send or recv.  0, or -1 with e naming the call. */
	int (*issue)(void *ctx, const struct hd_op *op, int peer, void *src, void *dst,
		     cudaStream_t s, struct hd_err *e);
	/* Wait until every rank arrives; *release_ns (unless NULL) gets the
	 * moment all were there.  0, or -1 with e set. */
	int (*barrier)(void *ctx, int64_t *release_ns, struct hd_err *e);
	/* Where a repeat's span times count from, given this rank's start t0
	 * (CLOCK_MONOTONIC ns): on one node, where the ranks share that clock,
	 * the earliest t0 of all ranks, so every rank's spans lie on one time
	 * base; across nodes t0 itself.  0, or -1 with e set. */
	int (*origin)(void *ctx, int64_t t0, int64_t *origin, struct hd_err *e);
	/* After set-up: publish this rank's buffers (ptrs[i], NULL where not
	 * allocated on the device) and learn the others', so peer_ptr can answer.
	 * 0, or -1 with e set. */
	int (*share)(void *ctx, const struct hd_scenario *sc, void *const *ptrs, struct hd_err *e);
	/* Rank `peer`'s buffer `buf`, mapped into this process. */
	void *(*peer_ptr)(void *ctx, int peer, int buf);
};

/*
 * Run sc with warm-up and repeats as the real backend does; with comm, as
 * rank comm->rank on device comm->device (its lanes carry that rank, each
 * repeat starts after comm->barrier, and span times count from
 * comm->origin).  0, or -1 with e set.
 */
int hd_rt_run(const struct hd_scenario *sc, const struct hd_run_opts *o,
	      const struct hd_rt_comm *comm, const struct hd_sink *sink, struct hd_err *e);

/* Number of CUDA devices, or -1 with e set. */
int hd_rt_device_count(struct hd_err *e);

#endif
