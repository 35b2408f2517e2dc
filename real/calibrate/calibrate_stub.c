/*
 * calibrate_stub.c - hd_real_calibrate in builds without CUDA: says so.
 */
#include "real/calibrate/calibrate.h"
#include "real/real.h"

int
hd_real_calibrate(const struct hd_calibrate_opts *o, struct hd_profile *out, struct hd_buf *log,
		  struct hd_err *e)
{
	(void)o;
	(void)out;
	(void)log;
	hd_err_set(e, HD_EXIT_FAIL, "", "%s", hd_real_no_cuda);
	return -1;
}
