/*
 * cudaerr.h - one way to report a failed CUDA runtime call.
 *
 * The executor, calibration and the rank runner all turn a failed call
 * into the same words: what was called, the runtime's message and the
 * error's name, so a learner can search for either.  Builds with CUDA only.
 */
#ifndef HD_CUDAERR_H
#define HD_CUDAERR_H

#include <cuda_runtime_api.h>

#include "base/util.h"

/*
 * Fill e (exit status HD_EXIT_FAIL) with "<prefix><call> failed: <message>
 * (<cudaErrorName>)".  `call` is the call as written in the source; with
 * name_only it is cut at its '(' so only the function's name shows.
 * Returns -1.
 */
int hd_cuda_fail(struct hd_err *e, const char *prefix, const char *call, int name_only,
		 cudaError_t rc);

#endif
