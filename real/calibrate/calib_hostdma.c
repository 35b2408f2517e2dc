/*
 * calib_hostdma.c - every GPU of the node copying pinned host memory at
 * once, for `hdsim calibrate` (calib_priv.h).
 *
 * One host serves all GPUs of a node: each alone reaches its PCIe link's
 * rate, but together they may get less than the sum (host memory, the root
 * complex).  The first k GPUs copy pinned host memory at once, released by
 * one gate: host to device, device to host, and both ways (a second stream
 * per GPU).  Each GPU has its own pinned buffers, as each rank of a lesson
 * does.  The totals with every GPU copying become host.dma_h2d, _d2h and
 * _bidir; the smaller groups are logged to show where the host stops keeping up.
 * In builds with NCCL the keys come from one process per GPU, as ranks run
 * (calib_nccl.c), the one-process table staying for comparison.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real/calibrate/calib_priv.h"

const char *const calp_hdma_name[HDMA__COUNT] = {
	[HDMA_H2D] = "host to device",
	[HDMA_D2H] = "device to host",
	[HDMA_BOTH] = "both ways",
};

/* One sample: the first k GPUs copy at once; the total over the slowest
 * GPU's time, and that GPU's own rate (it moved the same bytes). */
static int
hdma_sample(struct rk *k, struct calp_host_dma *hd, int ng, int dir, double *total, double *least)
{
	int g, w, failed = 0;
	double worst = 0, t1, t2;
	uint64_t n = hd->size;

	for (g = 0; !failed && g < ng; g++) {
		failed = calp_rk_hold(k, g) || CK(k, cudaEventRecord(k->ev[g][0], k->s[g]));
		if (!failed && dir == HDMA_BOTH)
			failed = CK(k, cudaStreamWaitEvent(hd->s2[g], k->ev[g][0], 0));
	}
	/* copy by copy across the GPUs, so that none is queued far ahead */
	for (w = 0; !failed && w < hd->reps; w++)
		for (g = 0; !failed && g < ng; g++) {
			failed = CK(k, cudaSetDevice(g));
			if (!failed && dir != HDMA_D2H)
				failed = CK(k,
					    cudaMemcpyAsync(k->dst[g], hd->h_src[g], n,
							    cudaMemcpyHostToDevice, k->s[g]));
			if (!failed && dir != HDMA_H2D)
				failed = CK(k,
					    cudaMemcpyAsync(
						hd->h_dst[g], k->src[g], n, cudaMemcpyDeviceToHost,
						dir == HDMA_BOTH ? hd->s2[g] : k->s[g]));
		}
	for (g = 0; !failed && g < ng; g++) {
		failed = CK(k, cudaSetDevice(g)) || CK(k, cudaEventRecord(k->ev[g][1], k->s[g]));
		if (!failed && dir == HDMA_BOTH)
			failed = CK(k, cudaEventRecord(k->ev[g][2], hd->s2[g]));
	}
	calp_rk_release(k); /* always: a failed enqueue must not leave a GPU spinning */
	for (g = 0; g < ng; g++) {
		if (CK(k, cudaSetDevice(g)) || CK(k, cudaStreamSynchronize(k->s[g])) ||
		    CK(k, cudaStreamSynchronize(hd->s2[g])))
			failed = 1;
	}
	if (failed || calp_rk_timed_out(k, ng * hd->reps * (dir == HDMA_BOTH ? 2 : 1)))
		return -1;
	for (g = 0; g < ng; g++) {
		if (calp_elapsed(k->e, k->ev[g][0], k->ev[g][1], &t1))
			return -1;
		if (dir == HDMA_BOTH) {
			if (calp_elapsed(k->e, k->ev[g][0], k->ev[g][2], &t2))
				return -1;
			if (t2 > t1)
				t1 = t2;
		}
		if (t1 > worst)
			worst = t1;
	}
	if (!(worst > 0))
		return -1;
	w = dir == HDMA_BOTH ? 2 : 1;
	*least = (double)n * hd->reps * w / worst;
	*total = *least * ng;
	return 0;
}

static int
hdma_setup(struct rk *k, struct calp_host_dma *hd)
{
	int g, c;

	hd->size = k->bufsize < 64 * MiB ? k->bufsize : 64 * MiB;
	hd->reps = k->r->quick ? 2 : 4;
	for (g = 0; g < k->n; g++) {
		if (CK(k, cudaSetDevice(g)) ||
		    CK(k, cudaStreamCreateWithFlags(&hd->s2[g], cudaStreamNonBlocking)) ||
		    CK(k, cudaMallocHost(&hd->h_src[g], hd->size)) ||
		    CK(k, cudaMallocHost(&hd->h_dst[g], hd->size)))
			return -1;
		memset(hd->h_src[g], 1, hd->size);
		memset(hd->h_dst[g], 0, hd->size);
	}
	/* 1, 2, 4, ... GPUs, and all of them */
	for (c = 1; c < k->n; c *= 2)
		hd->groups[hd->ngroups++] = c;
	hd->groups[hd->ngroups++] = k->n;
	return 0;
}

void
calp_rk_hdma_teardown(struct rk *k, struct calp_host_dma *hd)
{
	int g;

	for (g = 0; g < k->n; g++) {
		if (cudaSetDevice(g) != cudaSuccess)
			continue;
		if (hd->s2[g] != NULL) {
			cudaStreamSynchronize(hd->s2[g]);
			cudaStreamDestroy(hd->s2[g]);
		}
		cudaFreeHost(hd->h_src[g]);
		cudaFreeHost(hd->h_dst[g]);
		hd->s2[g] = NULL;
		hd->h_src[g] = hd->h_dst[g] = NULL;
	}
	cudaGetLastError();
}

int
calp_rk_stage_host_dma(struct rk *k)
{
	struct calp_host_dma *hd = hd_xcalloc(1, sizeof *hd);
	const int samples = k->r->quick ? 3 : 5;
	int gi, d, m, rc = -1, last;
	double keys[HDMA__COUNT];
	const char *from = "";
	char a[32], b[32], how[200];

	if (hdma_setup(k, hd) != 0)
		goto out;
	hd_buf_printf(k->log,
		      "\nEvery GPU copying pinned host memory at once (the first k "
		      "GPUs, %d x %s per GPU and direction, each GPU its own cudaMallocHost "
		      "buffers, all released by one gate; median of %d samples)\n  total: "
		      "bytes of all k GPUs over the slowest GPU's time; per GPU: that GPU's "
		      "rate (GB/s)\n  %4s",
		      hd->reps, hd_cal_fbytes(a, sizeof a, (double)hd->size), samples, "k");
	for (d = 0; d < HDMA__COUNT; d++)
		hd_buf_printf(k->log, " %15s total / per GPU", calp_hdma_name[d]);
	hd_buf_printf(k->log, "\n");
	for (gi = 0; gi < hd->ngroups; gi++) {
		hd_buf_printf(k->log, "  %4d", hd->groups[gi]);
		for (d = 0; d < HDMA__COUNT; d++) {
			double tv[RK_MAX_SAMPLES], lv[RK_MAX_SAMPLES];
			struct hd_stats st, sl;

			calp_rk_progress(k, gi * HDMA__COUNT + d, hd->ngroups * HDMA__COUNT,
					 "host memory, %d GPUs at once, %s", hd->groups[gi],
					 calp_hdma_name[d]);
			for (m = 0; m < samples; m++)
				if (calp_rk_stopped(k) ||
				    hdma_sample(k, hd, hd->groups[gi], d, &tv[m], &lv[m]) != 0)
					goto out;
			if (hd_fit_stats(tv, (size_t)samples, &st, k->e) != 0 ||
			    hd_fit_stats(lv, (size_t)samples, &sl, k->e) != 0)
				goto out;
			hd->total[gi][d] = st.median;
			hd->least[gi][d] = sl.median;
			hd_buf_printf(k->log, " %17.2f / %10.2f", st.median / 1e9, sl.median / 1e9);
		}
		hd_buf_printf(k->log, "\n");
	}
	last = hd->ngroups - 1;
	for (d = 0; d < HDMA__COUNT; d++) {
		hd_buf_printf(k->log,
			      "  %s: %d GPUs at once get %.0f %% of %d x one GPU's "
			      "rate\n",
			      calp_hdma_name[d], k->n,
			      100 * hd->total[last][d] / (k->n * hd->total[0][d]), k->n);
		keys[d] = hd->total[last][d];
		from = "one process";
	}
	/* the keys from what ranks see; the table above stays for comparison */
	if (calp_nccl_host_dma(k, hd, keys, &from) != 0)
		goto out;
	snprintf(how, sizeof how,
		 "%d GPUs copying from pinned memory at once, total, %s "
		 "(one alone: %s)",
		 k->n, from, hd_cal_frate(b, sizeof b, hd->total[0][HDMA_H2D]));
	hd_cal_set_rate(k->r->sum, "host.dma_h2d", &k->p->node_h2d_bw, keys[HDMA_H2D], how);
	snprintf(how, sizeof how,
		 "%d GPUs copying to pinned memory at once, total, %s "
		 "(one alone: %s)",
		 k->n, from, hd_cal_frate(b, sizeof b, hd->total[0][HDMA_D2H]));
	hd_cal_set_rate(k->r->sum, "host.dma_d2h", &k->p->node_d2h_bw, keys[HDMA_D2H], how);
	snprintf(how, sizeof how,
		 "%d GPUs copying both ways at once, total, %s (one alone: "
		 "%s)",
		 k->n, from, hd_cal_frate(b, sizeof b, hd->total[0][HDMA_BOTH]));
	hd_cal_set_rate(k->r->sum, "host.dma_bidir", &k->p->node_bidir_bw, keys[HDMA_BOTH], how);
	rc = 0;
out:
	calp_rk_hdma_teardown(k, hd);
	free(hd);
	return rc;
}
