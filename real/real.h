/*
 * real.h - the real (CUDA) backend's entry points beyond the backend table.
 *
 * The backend table itself, hd_real_backend, is declared in backend.h.  Two
 * files implement it: real_cuda.c in builds configured with CUDA, and
 * real_stub.c otherwise, which says plainly that the build has no GPU support.
 */
#ifndef HD_REAL_H
#define HD_REAL_H

#include "util.h"

/* One line naming what this build can do with GPUs, for --version. */
const char *hd_real_build_info(void);

#endif
