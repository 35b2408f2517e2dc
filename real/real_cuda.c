/*
 * real_cuda.c - the real backend in builds configured with CUDA.
 *
 * This version checks whether the machine has a usable GPU and says why not
 * when it has none; executing scenarios on the GPU is the real backend's own
 * piece of work and is reported as absent rather than faked.
 */
#include <cuda_runtime_api.h>

#include "backend.h"
#include "real.h"

static int
cuda_available(struct hd_err *e)
{
	cudaError_t rc;
	int n = 0;

	rc = cudaGetDeviceCount(&n);
	if (rc != cudaSuccess) {
		hd_err_set(e, HD_EXIT_FAIL, "",
			   "no CUDA-capable GPU was found: cudaGetDeviceCount failed: %s (%s)",
			   cudaGetErrorString(rc), cudaGetErrorName(rc));
		return -1;
	}
	if (n == 0) {
		hd_err_set(e, HD_EXIT_FAIL, "",
			   "no CUDA-capable GPU was found: cudaGetDeviceCount reports 0 devices");
		return -1;
	}
	return 0;
}

static int
cuda_run(const struct hd_scenario *sc, const struct hd_run_opts *o,
	 const struct hd_sink *sink, struct hd_err *e)
{
	(void)o;
	(void)sink;
	if (cuda_available(e) != 0)
		return -1;
	hd_err_set(e, HD_EXIT_FAIL, "",
		   "scenario '%s': executing scenarios on the GPU is not part of this version of hdsim",
		   sc->name);
	return -1;
}

const struct hd_backend_ops hd_real_backend = {
	.name = "cuda",
	.available = cuda_available,
	.run = cuda_run,
};

#define HD_STR2(x) #x
#define HD_STR(x) HD_STR2(x)

const char *
hd_real_build_info(void)
{
	/* CUDART_VERSION is 1000 * major + 10 * minor. */
	return "GPU support: CUDA (built against CUDA runtime API " HD_STR(CUDART_VERSION) ")";
}
