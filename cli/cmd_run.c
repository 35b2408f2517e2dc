/*
 * cmd_run.c - `hdsim run LESSON`: run a lesson's scenarios on the model (or
 * the GPU with --real) and print their timelines and claims.
 */
#include "cli/cmd.h"

int
hd_cmd_run(struct hd_cmd_ctx *x)
{
	struct hd_err e = { 0 };
	int idx;

	if ((idx = hd_catalog_find(x->cat, x->args[0], &e)) < 0)
		return hd_cmd_fail(x, &e);
	return hd_cmd_run_print(x, idx);
}
