/*
 * cmd_bench.c - `hdsim bench [--quick]`: the benchmark of the simulator
 * itself (cli/bench.c) on the chosen profile.
 */
#include "cli/bench.h"
#include "cli/cmd.h"

int
hd_cmd_bench(struct hd_cmd_ctx *x)
{
	return hd_bench_main(x->out, &x->profile, x->o->quick);
}
