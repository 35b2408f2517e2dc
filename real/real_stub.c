/*
 * real_stub.c - the real backend in builds without CUDA.
 *
 * Every entry point fails with the same clear message, so `hdsim --real`,
 * `calibrate` and `doctor` say what is missing instead of pretending.
 */
#include "ir/backend.h"
#include "real/ranks.h"
#include "real/real.h"

const char hd_real_no_cuda[] =
    "this build of hdsim has no GPU support: it was configured without the CUDA "
    "toolkit (install it and run ./configure --with-cuda, or ./quickstart)";

static int
stub_available(struct hd_err *e)
{
	hd_err_set(e, HD_EXIT_FAIL, "", "%s", hd_real_no_cuda);
	return -1;
}

static int
stub_run(const struct hd_scenario *sc, const struct hd_run_opts *o, const struct hd_sink *sink,
	 struct hd_err *e)
{
	(void)sc;
	(void)o;
	(void)sink;
	return stub_available(e);
}

const struct hd_backend_ops hd_real_backend = {
	.name = "cuda",
	.available = stub_available,
	.run = stub_run,
	.fits = hd_ranks_fits,
};

const char *
hd_real_build_info(void)
{
	return "GPU support: none (built without CUDA)";
}

int
hd_real_doctor(struct hd_buf *out, struct hd_err *e)
{
	hd_buf_printf(out, "GPU support in this build: none\n");
	return stub_available(e);
}

int
hd_real_machine(int dev, struct hd_store_machine *m, struct hd_err *e)
{
	(void)dev;
	(void)m;
	return stub_available(e);
}
