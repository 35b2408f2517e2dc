/*
 * cmd_doctor.c - `hdsim doctor`: the GPU, driver, CUDA and NCCL this build
 * finds (real/doctor.c, or its stub without CUDA).
 */
#include "cli/cmd.h"
#include "real/real.h"

int
hd_cmd_doctor(struct hd_cmd_ctx *x)
{
	struct hd_err e = { 0 };
	struct hd_buf b;
	int rc;

	hd_buf_init(&b);
	rc = hd_real_doctor(&b, &e);
	hd_cmd_put(x, &b);
	hd_buf_free(&b);
	if (rc == 0)
		return 0;
	if (e.status == 0)
		e.status = HD_EXIT_FAIL;
	return hd_cmd_fail(x, &e);
}
