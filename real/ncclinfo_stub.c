/*
 * ncclinfo_stub.c - what doctor says of NCCL in builds without it
 * (ncclinfo.h): that the build has none.
 */
#include <stdio.h>

#include "real/ncclinfo.h"

static int
version(char *dst, size_t n)
{
	snprintf(dst, n, "not in this build (configured without NCCL)");
	return -1;
}

static void
report_ranks(struct hd_buf *out, int ngpu)
{
	hd_buf_printf(out,
		      "  no   rank lessons on GPUs: this build has no NCCL "
		      "(install NCCL and reconfigure)%s\n",
		      ngpu < 2 ? ", and they need at least 2 GPUs" : "");
}

const struct hd_ncclinfo_ops hd_ncclinfo = {
	.configured = "no",
	.with_peer_copies = " (no NCCL collectives: this build has no NCCL)",
	.version = version,
	.report_ranks = report_ranks,
};
