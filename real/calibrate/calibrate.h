/*
 * calibrate.h - `hdsim calibrate`: measure this machine's GPUs and fit the
 * profile figures the model runs on.  In builds configured with CUDA,
 * calibrate.c (and calib_ranks.c for several GPUs) implement it; otherwise
 * calibrate_stub.c says plainly that the build has no GPU support.
 */
#ifndef HD_CALIBRATE_H
#define HD_CALIBRATE_H

#include "base/util.h"
#include "profile/profile.h"

struct hd_calibrate_opts {
	int device;         /* CUDA device ordinal */
	int quick;          /* fewer sizes and repeats (a smoke run) */
	int host_only;      /* only what the host CPU does (API costs, pageable
				 * staging, pinning), the rest kept from *out: these
				 * move between processes on one machine, so
				 * `hdsim --real` measures them again in its own */
	int host_rounds;    /* how often the host's figures are measured, each
			     * figure the median of the rounds (0: 3, or 1
			     * with quick or host_only) */
	volatile int *stop; /* set asynchronously to stop between measurements */
	/* progress: called with a fraction in [0,1] and what is being measured */
	void (*progress)(void *ctx, double frac, const char *what);
	void *ctx;
};

/*
 * Measure GPU o->device and fit a profile: starts from *out (the closest
 * built-in, which the caller chooses) and replaces every figure it measures;
 * with two or more GPUs also the topology, NVLink and collective figures
 * from peer copies and NCCL collectives (calib_ranks.h).
 * `log` gets a human-readable table of what was measured and fitted (raw
 * medians, spreads, fits with residuals).  0, or -1 with e set.
 */
int hd_real_calibrate(const struct hd_calibrate_opts *o, struct hd_profile *out, struct hd_buf *log,
		      struct hd_err *e);

#endif
