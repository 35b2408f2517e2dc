/*
 * bench.h - `hdsim bench`: how fast the simulator runs and how much memory
 * it holds, on synthetic scenarios of growing size and on the built-in
 * lessons.  The one place in hdsim that reads the wall clock.
 */
#ifndef HD_BENCH_H
#define HD_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"
#include "profile/profile.h"

/*
 * The synthetic workload: `iterations` times { async H2D copy on s1, event
 * record on s1, s2 waits for the event, spin kernel on s2 }, then a device
 * sync.  Four ops per iteration, two streams, work in flight bounded by the
 * streams' queues.  Free with hd_scenario_free.
 */
struct hd_scenario *hd_bench_scenario(uint64_t iterations);

/*
 * Run the benchmark and print its table to out as rows complete.  `quick`
 * keeps the smaller sizes only.  Returns an exit status (0, or 1 when a run
 * fails).
 */
int hd_bench_main(FILE *out, const struct hd_profile *p, bool quick);

#endif
