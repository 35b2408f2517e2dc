/*
 * real.h - the real (CUDA) backend's entry points beyond the backend table.
 *
 * The backend table, hd_real_backend (ir/backend.h's interface), is here too.  In
 * builds configured with CUDA, real_cuda.c and doctor.c
 * implement these; otherwise real_stub.c does, and every entry point says
 * plainly that the build has no GPU support.  Callers never test for CUDA.
 */
#ifndef HD_REAL_H
#define HD_REAL_H

#include "base/util.h"
#include "ir/backend.h"
#include "profile/profile.h"
#include "store/store.h"

extern const struct hd_backend_ops hd_real_backend;

/* What every entry point of a build without CUDA says (real_stub.c). */
extern const char hd_real_no_cuda[];

/* One line naming what this build can do with GPUs, for --version. */
const char *hd_real_build_info(void);

/*
 * What this machine has: GPUs, driver, CUDA runtime, NCCL, P2P / NVLink
 * matrix, PCIe link as reported, NUMA, and what hdsim can and cannot do here,
 * as text for `hdsim doctor` (appended to out).  Returns 0 when at least one
 * GPU is usable, else -1 with e saying why (out still holds what was found).
 */
int hd_real_doctor(struct hd_buf *out, struct hd_err *e);

/*
 * Describe GPU `dev` for the store (strings owned by a static buffer valid
 * until the next call).  0, or -1 with e set.
 */
int hd_real_machine(int dev, struct hd_store_machine *m, struct hd_err *e);

/*
 * Keep the calling thread on one CPU near GPU `dev` so host-side copies
 * (pageable staging, pinning) are measured from the same place every run.
 * Returns the CPU, or -1.  Builds with CUDA only.
 */
int hd_real_pin_host_thread(int dev);

/*
 * Give the calling thread back the CPUs the process had before
 * hd_real_pin_host_thread kept its thread on one: host threads started by
 * that thread (which inherit its one CPU) share the process's cores.  0, or
 * -1 when nothing was saved or the call failed.  Builds with CUDA only.
 */
int hd_real_unpin_thread(void);

/* How many CPUs the process may run on (before the host thread was kept on
 * one), or -1 if unknown: what `hdsim calibrate` writes as host.cores. */
int hd_real_host_cpus(void);

#endif
