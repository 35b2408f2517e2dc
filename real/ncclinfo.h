/*
 * ncclinfo.h - what `hdsim doctor` and the machine facts say of NCCL.
 *
 * Builds with NCCL link ncclinfo.c, which asks the library; builds without
 * link ncclinfo_stub.c, which says the build has none.  Callers never test
 * for NCCL.
 */
#ifndef HD_NCCLINFO_H
#define HD_NCCLINFO_H

#include <stddef.h>

#include "base/util.h"

struct hd_ncclinfo_ops {
	const char *configured; /* "yes" or "no", for doctor's build line */
	/* what doctor adds after "the peer copies between the N GPUs" */
	const char *with_peer_copies;
	/* The library's version ("2.28.9") into dst: 0, or -1 with why in dst. */
	int (*version)(char *dst, size_t n);
	/* Doctor's line on rank lessons with `ngpu` usable GPUs, appended to out. */
	void (*report_ranks)(struct hd_buf *out, int ngpu);
};

extern const struct hd_ncclinfo_ops hd_ncclinfo;

/* "2.28.9" from an NCCL version code (NCCL_VERSION in nccl.h) into dst.
 * Builds with NCCL only (ncclinfo.c). */
void hd_ncclinfo_version_str(int code, char *dst, size_t n);

#endif
