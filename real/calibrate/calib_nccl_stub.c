/*
 * calib_nccl_stub.c - the multi-GPU calibration's NCCL parts in builds
 * without NCCL (calib_priv.h): the host-memory keys stay those of one
 * process, the collectives are skipped with a line in the log, and
 * coll.base is kept.
 */
#include "real/calibrate/calib_priv.h"

int
calp_nccl_host_dma(struct rk *k, struct calp_host_dma *hd, double keys[HDMA__COUNT],
		   const char **from)
{
	(void)k;
	(void)hd;
	(void)keys;
	(void)from;
	return 0;
}

int
calp_nccl_allreduce(struct rk *k, struct calp_nccl **nc, double *ar_size, double *ar_t,
		    size_t *ar_n, double *small_max, double *large_min)
{
	(void)ar_size;
	(void)ar_t;
	(void)small_max;
	(void)large_min;
	*nc = NULL;
	*ar_n = 0;
	hd_buf_printf(k->log,
		      "\nNCCL collectives: skipped: this build has no NCCL (configure "
		      "found no nccl.h and libnccl); coll.base is kept and the link rates come "
		      "from the peer copies\n");
	return 0;
}

int
calp_nccl_report(struct rk *k, struct calp_nccl *nc, const struct hd_fit_ranks *fit,
		 const struct hd_coll_fig *fig)
{
	(void)k;
	(void)nc;
	(void)fit;
	(void)fig;
	return 0;
}

void
calp_nccl_close(struct calp_nccl *nc, int failed)
{
	(void)nc;
	(void)failed;
}
