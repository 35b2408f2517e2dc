/*
 * backend.h - the one interface both backends implement.
 *
 * A backend runs a scenario and writes its trace to a sink.  The simulator
 * (hd_sim_backend, sim/sim_backend.h) is always present; the CUDA backend
 * (hd_real_backend, real/real.h) exists only in builds configured with CUDA,
 * and otherwise a stub says so.  Callers pick one through this table and
 * never test for CUDA themselves; run/backends.h runs one into a trace.
 */
#ifndef HD_BACKEND_H
#define HD_BACKEND_H

#include "base/util.h"
#include "ir/ir.h"
#include "ir/trace.h"

struct hd_profile; /* profile/profile.h */

struct hd_run_opts {
	const struct hd_profile *profile; /* the model's hardware (sim) */
	int warmup, repeats;              /* real backend */
	volatile int *stop;               /* set asynchronously to stop between ops; may be NULL */
};

struct hd_backend_ops {
	const char *name; /* "sim", "cuda" */
	/* Can this backend run here?  0, or -1 with e saying why not. */
	int (*available)(struct hd_err *e);
	/* Run sc; spans go to sink.  0, or -1 with e set; on error the sink may
	 * hold a prefix of the trace, which the caller discards. */
	int (*run)(const struct hd_scenario *sc, const struct hd_run_opts *o,
		   const struct hd_sink *sink, struct hd_err *e);
	/* Can sc run here (enough GPUs, NCCL for ranks)?  1, or 0 with `why`
	 * saying what it needs, e.g. "needs 4 GPUs; this machine has 1".  NULL:
	 * only scenarios of one rank fit. */
	int (*fits)(const struct hd_scenario *sc, char *why, size_t n);
};

#endif
