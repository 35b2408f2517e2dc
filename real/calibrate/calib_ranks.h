/*
 * calib_ranks.h - the multi-GPU part of `hdsim calibrate` (calib_ranks.c):
 * peer copies between every pair of GPUs and NCCL collectives over all of
 * them, fitted into the profile's topology, NVLink and collective keys.
 * Builds with CUDA only; calibrate.c runs it after the single-GPU stages, and
 * calib_peer.c, calib_hostdma.c and calib_nccl.c (or its stub) measure for it.
 */
#ifndef HD_CALIB_RANKS_H
#define HD_CALIB_RANKS_H

#include "base/util.h"
#include "profile/profile.h"

struct hd_calib_ranks {
	int quick;          /* fewer sizes and repeats */
	volatile int *stop; /* set asynchronously to stop between measurements */
	/* progress within this part: a fraction in [0,1] and what is measured */
	void (*progress)(void *ctx, double frac, const char *what);
	void *ctx;
	struct hd_buf *log;  /* the calibration's log: tables, fits, residuals */
	struct hd_buf *sum;  /* one line per profile key set or kept */
	double pcie_bw;      /* the host link's measured rate (faster direction), B/s */
	double copy_latency; /* pcie.latency as calibrated, s */
};

/*
 * With two or more GPUs visible: measure peer copies (bandwidth matrix at
 * large sizes, latency from small ones, both directions at once per pair)
 * every GPU copying pinned host memory at once (host.dma_h2d, _d2h,
 * _bidir: the node's totals), and, in builds with NCCL, all-reduce,
 * all-gather, broadcast and send/recv over all GPUs; classify the node and
 * fit topo.kind, topo.gpus_per_node, nvlink.links, nvlink.rate,
 * nvlink.latency, topo.p2p_pcie and coll.base into *p.  With one GPU it
 * logs why and changes nothing.  The current device is set back as it was.
 * Returns 0 with *set 1 when it set figures, 0 when it had nothing to
 * measure; -1 with e set on a failed call, a hung NCCL collective or an
 * interruption (every resource released).
 */
int hd_calib_ranks(const struct hd_calib_ranks *r, struct hd_profile *p, int *set,
		   struct hd_err *e);

#endif
