/*
 * cudaerr.c - one way to report a failed CUDA runtime call (cudaerr.h).
 */
#include <string.h>

#include "real/cudaerr.h"

int
hd_cuda_fail(struct hd_err *e, const char *prefix, const char *call, int name_only, cudaError_t rc)
{
	int len = name_only ? (int)strcspn(call, "(") : (int)strlen(call);

	hd_err_set(e, HD_EXIT_FAIL, "", "%s%.*s failed: %s (%s)", prefix, len, call,
		   cudaGetErrorString(rc), cudaGetErrorName(rc));
	return -1;
}
