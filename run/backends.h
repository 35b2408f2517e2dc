/*
 * backends.h - running a scenario on a backend into a fresh trace: what
 * every caller of a backend shares (the lesson run, verification, export's
 * on-the-spot simulation, bench, the tests).
 */
#ifndef HD_BACKENDS_H
#define HD_BACKENDS_H

#include "ir/backend.h"
#include "ir/trace.h"
#include "real/real.h"
#include "sim/sim_backend.h"

/* Run sc on `b` into a fresh sorted trace (the simulator's also carries its
 * event count).  NULL with e set on error, its status HD_EXIT_FAIL where the
 * backend gave none. */
struct hd_trace *hd_backend_trace(const struct hd_backend_ops *b, const struct hd_scenario *sc,
				  const struct hd_run_opts *o, struct hd_err *e);

#endif
