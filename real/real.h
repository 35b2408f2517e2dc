/*
 * real.h - the real (CUDA) backend's entry points beyond the backend table.
 *
 * The backend table itself, hd_real_backend, is declared in backend.h.  In
 * builds configured with CUDA, real_cuda.c, doctor.c and calibrate.c
 * implement these; otherwise real_stub.c does, and every entry point says
 * plainly that the build has no GPU support.  Callers never test for CUDA.
 */
#ifndef HD_REAL_H
#define HD_REAL_H

#include "profile.h"
#include "store.h"
#include "util.h"

/* One line naming what this build can do with GPUs, for --version. */
const char *hd_real_build_info(void);

/*
 * What this machine has: GPUs, driver, CUDA runtime, NCCL, P2P / NVLink
 * matrix, PCIe link as reported, NUMA, and what hdsim can and cannot do here,
 * as text for `hdsim doctor` (appended to out).  Returns 0 when at least one
 * GPU is usable, else -1 with e saying why (out still holds what was found).
 */
int hd_real_doctor(struct hd_buf *out, struct hd_err *e);

/*
 * Describe GPU `dev` for the store (strings owned by a static buffer valid
 * until the next call).  0, or -1 with e set.
 */
int hd_real_machine(int dev, struct hd_store_machine *m, struct hd_err *e);

/*
 * Keep the calling thread on one CPU near GPU `dev` so host-side copies
 * (pageable staging, pinning) are measured from the same place every run.
 * Returns the CPU, or -1.  Builds with CUDA only.
 */
int hd_real_pin_host_thread(int dev);

struct hd_calibrate_opts {
	int device;             /* CUDA device ordinal */
	int quick;              /* fewer sizes and repeats (a smoke run) */
	int host_only;          /* only what the host CPU does (API costs, pageable
				 * staging, pinning), the rest kept from *out: these
				 * move between processes on one machine, so
				 * `hdsim --real` measures them again in its own */
	volatile int *stop;     /* set asynchronously to stop between measurements */
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
int hd_real_calibrate(const struct hd_calibrate_opts *o, struct hd_profile *out,
		      struct hd_buf *log, struct hd_err *e);

#endif
