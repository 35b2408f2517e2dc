/*
 * model.h - the single-GPU model: one rank's host thread, its streams,
 * copy engines, PCIe link and SMs, driven by the event engine.
 *
 * Scenarios with ranks run one such rank per GPU, all in one simulated
 * time: peer copies and send/recv cross the profile's links (NVLink,
 * PCIe, network) in the shared flow network; collectives run step by step
 * by sim/coll.c when the last rank reaches them.  Ranks that end up
 * waiting on each other are a deadlock: the run reports which rank waits
 * for what instead of hanging (scenarios that say `expect deadlock` succeed
 * with that report as the trace's note).
 *
 * The model walks a scenario's op list as the host thread would, charges
 * every CUDA call its host cost from the profile, and plays the GPU side
 * (streams, legacy-stream ordering, events, kernels sharing the SMs, copies
 * through copy engines and a fluid PCIe link, pageable staging, managed
 * memory faults and prefetches) in simulated time.  Spans go to a sink as
 * they end.  Same scenario and profile, same spans, bit for bit.
 */
#ifndef HD_MODEL_H
#define HD_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "ir/ir.h"
#include "ir/trace.h"
#include "profile/profile.h"

struct hd_model_stats {
	uint64_t events;     /* engine events handled */
	size_t peak_pending; /* most engine events queued at once */
	size_t peak_ops;     /* most GPU operations in flight at once */
	uint64_t spans;      /* spans written to the sink */
	uint64_t op_execs;   /* ops the host thread executed (loops multiplied out) */
	hd_time makespan;    /* end of the last span */
	int deadlocked;      /* the ranks ended waiting on each other */
};

/* Most ranks one simulated scenario may have. */
#define HD_MODEL_MAX_RANKS 65536

/*
 * Can the model run sc?  0, or -1 with e set (status HD_EXIT_INPUT) for a
 * rank count out of range or out-of-range indices in the IR.
 */
int hd_model_check(const struct hd_scenario *sc, struct hd_err *e);

/* Has the model's host thread a handler for op kind k?  (Every kind has one;
 * the tests hold each kind to it.) */
bool hd_model_handles_ok(enum hd_op_kind k);

/*
 * Run sc on profile p; spans go to sink.  stop may be NULL; when it becomes
 * non-zero the run ends before the next op with an error.  st may be NULL.
 * Returns 0, or -1 with e set (the sink may then hold part of the trace):
 * a deadlock or a collective mismatch is an error (HD_EXIT_FAIL) naming
 * what each rank waits for, unless sc->expect_deadlock.
 */
int hd_model_run(const struct hd_scenario *sc, const struct hd_profile *p,
		 const struct hd_sink *sink, volatile int *stop, struct hd_model_stats *st,
		 struct hd_err *e);

#endif
