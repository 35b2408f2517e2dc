/*
 * ncclinfo.c - what doctor says of NCCL in builds with it (ncclinfo.h).
 */
#include <stdio.h>

#include <nccl.h>

#include "real/ncclinfo.h"

void
hd_ncclinfo_version_str(int code, char *dst, size_t n)
{
	if (code >= 10000)
		snprintf(dst, n, "%d.%d.%d", code / 10000, code % 10000 / 100, code % 100);
	else
		snprintf(dst, n, "%d.%d.%d", code / 1000, code % 1000 / 100, code % 100);
}

static int
version(char *dst, size_t n)
{
	ncclResult_t r;
	int code = 0;

	r = ncclGetVersion(&code);
	if (r != ncclSuccess) {
		snprintf(dst, n, "ncclGetVersion failed: %s", ncclGetErrorString(r));
		return -1;
	}
	hd_ncclinfo_version_str(code, dst, n);
	return 0;
}

static void
report_ranks(struct hd_buf *out, int ngpu)
{
	if (ngpu >= 2)
		hd_buf_printf(out,
			      "  yes  rank lessons with up to %d ranks, one GPU each, "
			      "through NCCL\n",
			      ngpu);
	else
		hd_buf_printf(out,
			      "  no   rank lessons on GPUs: they need one GPU per rank "
			      "and this machine has %d usable GPU%s\n",
			      ngpu, ngpu == 1 ? "" : "s");
}

const struct hd_ncclinfo_ops hd_ncclinfo = {
	.configured = "yes",
	.with_peer_copies = " and NCCL collectives over all of them",
	.version = version,
	.report_ranks = report_ranks,
};
