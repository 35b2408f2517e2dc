/*
 * calib_ranks.c - the multi-GPU part of `hdsim calibrate` (calib_ranks.h):
 * the GPUs and their NVLinks, peer access, the stages in order, and the
 * topology, NVLink and collective keys written from their fits.
 *
 * The stages are in calib_peer.c (peer copies between every pair of GPUs),
 * calib_hostdma.c (every GPU copying host memory at once) and calib_nccl.c
 * (NCCL collectives, and host memory as ranks see it; calib_nccl_stub.c in
 * builds without NCCL).  NVLink counts come from NVML when the driver's
 * library can be opened.  The fits are in fit_ranks.c; these files measure,
 * log and write keys.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "real/calibrate/calib_priv.h"
#include "sim/coll.h"

/* ---- plumbing ------------------------------------------------------------------ */

int
calp_rk_stopped(struct rk *k)
{
	return hd_cal_check_stop(k->r->stop, k->e);
}

void
calp_rk_progress(struct rk *k, int i, int n, const char *fmt, ...)
{
	char what[128];
	va_list ap;

	if (k->r->progress == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	k->r->progress(k->r->ctx, k->lo + (k->hi - k->lo) * (n > 0 ? (double)i / n : 0), what);
}

/* ---- NVLink count from NVML, loaded at run time ----------------------------------- */

/*
 * NVML ships with the driver, not the toolkit, so it is opened with dlopen:
 * the build needs no NVML headers and a machine without it still calibrates.
 * The four calls used keep these signatures in every NVML release.
 */
typedef int (*nvml_void_fn)(void);
typedef int (*nvml_handle_fn)(const char *bus, void **dev);
typedef int (*nvml_link_fn)(void *dev, unsigned link, int *active);

static void
nvml_links(struct rk *k)
{
	void *lib, *dev;
	nvml_void_fn init, shut;
	nvml_handle_fn handle;
	nvml_link_fn state;
	int g;

	for (g = 0; g < k->n; g++)
		k->nvml_links[g] = -1;
	k->nvml_note = "NVML (libnvidia-ml.so.1) could not be opened";
	lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL)
		return;
	*(void **)&init = dlsym(lib, "nvmlInit_v2");
	*(void **)&shut = dlsym(lib, "nvmlShutdown");
	*(void **)&handle = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&state = dlsym(lib, "nvmlDeviceGetNvLinkState");
	k->nvml_note = "NVML lacks nvmlDeviceGetNvLinkState";
	if (init == NULL || shut == NULL || handle == NULL || state == NULL) {
		dlclose(lib);
		return;
	}
	k->nvml_note = "nvmlInit failed";
	if (init() != 0) {
		dlclose(lib);
		return;
	}
	k->nvml_note = "NVML nvmlDeviceGetNvLinkState";
	for (g = 0; g < k->n; g++) {
		char bus[32];
		unsigned l;
		int active, count = 0;

		if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, g) != cudaSuccess) {
			cudaGetLastError();
			continue;
		}
		if (handle(bus, &dev) != 0)
			continue;
		/* links past the GPU's last answer with an error */
		for (l = 0; l < 64; l++) {
			active = 0;
			if (state(dev, l, &active) != 0)
				break;
			count += active == 1;
		}
		k->nvml_links[g] = count;
	}
	shut();
	dlclose(lib);
}

/* ---- set-up ---------------------------------------------------------------------- */

static int
setup(struct rk *k)
{
	size_t fr, tot, least = SIZE_MAX;
	void *fp = NULL;
	int g, i;
	char a[32];

	if (CK(k,
	       cudaHostAlloc(&fp, RK_FLAG_WORDS * sizeof(int),
			     cudaHostAllocMapped | cudaHostAllocPortable)))
		return -1;
	k->flags = fp;
	memset(fp, 0, RK_FLAG_WORDS * sizeof(int));
	for (g = 0; g < k->n; g++) {
		void *dp = NULL;

		if (CK(k, cudaSetDevice(g)) || CK(k, cudaMemGetInfo(&fr, &tot)) ||
		    CK(k, cudaHostGetDevicePointer(&dp, fp, 0)) ||
		    CK(k, cudaStreamCreateWithFlags(&k->s[g], cudaStreamNonBlocking)))
			return -1;
		k->dflags[g] = dp;
		for (i = 0; i < 3; i++)
			if (CK(k, cudaEventCreate(&k->ev[g][i])))
				return -1;
		if (fr < least)
			least = fr;
	}
	/* two buffers per GPU within a quarter of its free memory, at most 1 GiB */
	k->bufsize = calp_pow2_floor((uint64_t)least / 8);
	if (k->bufsize > GiB)
		k->bufsize = GiB;
	if (k->bufsize < 16 * MiB) {
		hd_err_set(k->e, HD_EXIT_FAIL, "",
			   "calibrate: too little free GPU memory for "
			   "peer copies (%s on the fullest GPU; need 128 MiB)",
			   hd_cal_fbytes(a, sizeof a, (double)least));
		return -1;
	}
	for (g = 0; g < k->n; g++) {
		if (CK(k, cudaSetDevice(g)) || CK(k, cudaMalloc(&k->src[g], k->bufsize)) ||
		    CK(k, cudaMalloc(&k->dst[g], k->bufsize)) ||
		    CK(k, cudaMemset(k->src[g], 1, k->bufsize)) ||
		    CK(k, cudaMemset(k->dst[g], 0, k->bufsize)))
			return -1;
		/* load the latch kernel on this GPU now: a lazy load behind a spinning
		 * gate would block the host until the gate timed out */
		k->flags[FLAG_LATCH] = 1;
		__sync_synchronize();
		if (KCK(k,
			hd_kernel_latch((hd_cuda_stream)k->s[g], k->dflags[g] + FLAG_LATCH,
					LATCH_TIMEOUT_NS, k->dflags[g] + FLAG_TIMED_OUT)) ||
		    CK(k, cudaStreamSynchronize(k->s[g])) || CK(k, cudaDeviceSynchronize()))
			return -1;
	}
	return 0;
}

static void
teardown(struct rk *k)
{
	int g, h, i;

	if (k->flags != NULL) {
		k->flags[FLAG_LATCH] = 1;
		__sync_synchronize();
	}
	for (g = 0; g < k->n; g++) {
		if (cudaSetDevice(g) != cudaSuccess)
			continue;
		cudaDeviceSynchronize();
		for (h = 0; h < k->n; h++)
			if (k->enabled[g][h])
				cudaDeviceDisablePeerAccess(h);
		cudaFree(k->src[g]);
		cudaFree(k->dst[g]);
		for (i = 0; i < 3; i++)
			if (k->ev[g][i] != NULL)
				cudaEventDestroy(k->ev[g][i]);
		if (k->s[g] != NULL)
			cudaStreamDestroy(k->s[g]);
	}
	if (k->flags != NULL)
		cudaFreeHost((void *)k->flags);
	cudaGetLastError();
	cudaSetDevice(k->dev0);
	cudaGetLastError();
}

/* ---- peer access ------------------------------------------------------------------- */

static int
peer_access(struct rk *k)
{
	int i, j, none = 0;

	hd_buf_printf(k->log,
		      "\nPeer access between the %d GPUs (cudaDeviceCanAccessPeer, then "
		      "cudaDeviceEnablePeerAccess)\n",
		      k->n);
	for (i = 0; i < k->n; i++)
		for (j = 0; j < k->n; j++) {
			int can = 0, atom = 0, rank = 0;
			cudaError_t rc;

			if (i == j)
				continue;
			if (CK(k, cudaDeviceCanAccessPeer(&can, i, j)))
				return -1;
			if (!can) {
				hd_buf_printf(k->log,
					      "  GPU%d -> GPU%d: peer access impossible: "
					      "copies between them go through host memory\n",
					      i, j);
				none++;
				continue;
			}
			if (CK(k,
			       cudaDeviceGetP2PAttribute(&atom, cudaDevP2PAttrNativeAtomicSupported,
							 i, j)) ||
			    CK(k,
			       cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, i,
							 j)) ||
			    CK(k, cudaSetDevice(i)))
				return -1;
			rc = cudaDeviceEnablePeerAccess(j, 0);
			if (rc == cudaErrorPeerAccessAlreadyEnabled)
				cudaGetLastError();
			else if (calp_cuda(k->e, rc, "cudaDeviceEnablePeerAccess") != 0)
				return -1;
			else
				k->enabled[i][j] = 1;
			k->nd.p2p[i][j] = 1;
			k->nd.atomics[i][j] = atom;
			hd_buf_printf(k->log,
				      "  GPU%d -> GPU%d: enabled; native atomics %s, "
				      "performance rank %d\n",
				      i, j, atom ? "yes" : "no", rank);
		}
	if (none == 0)
		hd_buf_printf(k->log, "  every ordered pair has peer access\n");
	return 0;
}

/* ---- the fit and the profile --------------------------------------------------------- */

/* The model's time for a peer copy i -> j under the profile being written. */
static double
peer_model(struct rk *k, int i, int j, double bytes)
{
	/* the simulator's own path, and its copy-engine rate over NVLink */
	struct hd_link l = hd_coll_link(k->p, i, j);
	double beta = l.cls == HD_LINK_NVLINK && k->p->nvlink_copy_bw > 0 ? k->p->nvlink_copy_bw :
									    l.bw;

	return hd_time_to_s(l.lat) + bytes / beta;
}

static void
log_peer_model(struct rk *k, const struct calp_peer_sweep *ps)
{
	int i, j, f = 0, l = ps->count - 1;
	char a[32], b[32];

	hd_buf_printf(k->log,
		      "\nPeer copies under the fitted profile (alpha + n / beta with "
		      "the keys written below)\n  %-12s %10s %10s %7s %10s %10s %7s\n",
		      "pair", hd_cal_fbytes(a, sizeof a, (double)ps->size[f]), "model", "err",
		      hd_cal_fbytes(b, sizeof b, (double)ps->size[l]), "model", "err");
	for (i = 0; i < k->n; i++)
		for (j = 0; j < k->n; j++) {
			double m0, m1;
			char pr[32];

			if (i == j)
				continue;
			m0 = peer_model(k, i, j, (double)ps->size[f]);
			m1 = peer_model(k, i, j, (double)ps->size[l]);
			snprintf(pr, sizeof pr, "GPU%d->GPU%d", i, j);
			hd_buf_printf(k->log,
				      "  %-12s %10.2f %10.2f %+6.1f%% %10.2f %10.2f %+6.1f%%"
				      "\n",
				      pr, ps->t[i][j][f] * 1e6, m0 * 1e6,
				      100 * (m0 - ps->t[i][j][f]) / ps->t[i][j][f],
				      ps->t[i][j][l] * 1e6, m1 * 1e6,
				      100 * (m1 - ps->t[i][j][l]) / ps->t[i][j][l]);
		}
	hd_buf_printf(k->log,
		      "  (times in us; the model sends copy-engine peer copies at "
		      "nvlink.copy_rate over NVLink, at the link rate otherwise)\n");
}

static const char *
kind_why(const struct hd_fit_topo *t, int n)
{
	static char b[160];

	switch (t->kind) {
	case HD_TOPO_NVSWITCH:
		if (n == 2)
			snprintf(b, sizeof b, "the two GPUs are joined by NVLink");
		else
			snprintf(b, sizeof b, "%d of the %d pairs over NVLink%s", t->nvlink_pairs,
				 n * (n - 1) / 2, t->exact ? "" : " (not all: the closest kind)");
		break;
	case HD_TOPO_NVLINK_PAIRS:
		snprintf(b, sizeof b, "NVLink between GPUs 2k and 2k+1 only%s",
			 t->exact ? "" : " (not exactly: the closest kind)");
		break;
	case HD_TOPO_SINGLE:
	case HD_TOPO_PCIE:
	case HD_TOPO__COUNT:
		snprintf(b, sizeof b, "no pair of the %d GPUs over NVLink%s", n,
			 t->exact ? "" : " (some are: the closest kind)");
		break;
	}
	return b;
}

static void
write_keys(struct rk *k, const struct hd_fit_ranks *f)
{
	struct hd_profile *p = k->p;
	const char *src = f->topo.by_rate ? "; NVLink where the peer rate is over 1.5x the host "
					    "link's" :
					    "; NVLink where peer access has native atomics";
	char how[256];

	hd_buf_printf(k->r->sum, "  %-20s %-14s (base %s) %s%s\n", "topo.kind",
		      hd_topo_name(f->topo.kind), hd_topo_name(p->topo), kind_why(&f->topo, k->n),
		      src);
	p->topo = f->topo.kind;
	hd_cal_set_int(k->r->sum, "topo.gpus_per_node", &p->gpus_per_node, f->topo.gpus_per_node,
		       "GPUs visible to CUDA");
	if (f->topo.nvlink_pairs > 0)
		hd_cal_set_int(k->r->sum, "nvlink.links", &p->nvlinks, f->links,
			       f->links_reported ? "active NVLinks of a GPU (NVML)" :
						   "kept from the base (NVML gave no count)");
	else
		hd_cal_set_int(k->r->sum, "nvlink.links", &p->nvlinks, 0, "no pair over NVLink");
	if (f->nvlink_rate > 0) {
		snprintf(how, sizeof how, "%s / %d links",
			 f->ring_over_nvlink && f->rate_from_ring ?
			     "all-reduce busBw at large sizes (fitted slope)" :
			     "median fitted peer copy rate over NVLink pairs",
			 f->links);
		hd_cal_set_rate(k->r->sum, "nvlink.rate", &p->nvlink_bw, f->nvlink_rate, how);
	} else
		hd_buf_printf(k->r->sum, "  %-20s kept (nothing over NVLink measured)\n",
			      "nvlink.rate");
	if (f->nvlink_latency >= 0)
		hd_cal_set_time(k->r->sum, "nvlink.latency", &p->nvlink_latency, f->nvlink_latency,
				"median fitted alpha of peer copies over NVLink");
	if (f->copy_nvlink_bw > 0)
		hd_cal_set_rate(k->r->sum, "nvlink.copy_rate", &p->nvlink_copy_bw,
				f->copy_nvlink_bw,
				"median fitted rate of copy-engine peer copies over NVLink");
	else
		hd_buf_printf(k->r->sum, "  %-20s kept (nothing over NVLink measured)\n",
			      "nvlink.latency");
	if (f->p2p_pcie > 0)
		hd_cal_set_rate(k->r->sum, "topo.p2p_pcie", &p->p2p_pcie_bw, f->p2p_pcie,
				!f->ring_over_nvlink && f->rate_from_ring ?
				    "all-reduce busBw at large sizes (the ring crosses PCIe)" :
				    "median fitted peer copy rate over pairs without NVLink");
	else
		hd_buf_printf(k->r->sum, "  %-20s kept (every pair is NVLink)\n", "topo.p2p_pcie");
	if (f->coll_base >= 0) {
		snprintf(how, sizeof how, "all-reduce intercept - 2(n-1) x per-hop latency%s",
			 f->ring.base_clamped ? " (negative: clamped at 0)" : "");
		hd_cal_set_time(k->r->sum, "coll.base", &p->coll_base, f->coll_base, how);
	} else
		hd_buf_printf(k->r->sum, "  %-20s kept (no NCCL all-reduce measured)\n",
			      "coll.base");
}

void
calp_rk_log_ring_fit(struct rk *k, const struct hd_fit_ranks *f)
{
	char a[32], b[32], c[32];

	hd_buf_printf(k->log,
		      "  fit of the ring formula T(S) = coll.base + 2(n-1) (alpha + "
		      "(S/n) / beta), n = %d:\n",
		      k->n);
	hd_buf_printf(k->log,
		      "    beta = %s from the slope over sizes >= the large limit "
		      "(%d sizes): the busBw the formula reaches at large sizes\n",
		      hd_cal_frate(a, sizeof a, f->ring.beta), f->ring.line.n_large);
	hd_buf_printf(
	    k->log,
	    "    intercept %s (%s); alpha %s (%s); coll.base = intercept - "
	    "%d alpha = %s%s\n",
	    hd_cal_ftime(a, sizeof a, f->ring.intercept),
	    f->ring.line.alpha_from_large ? "the large fit's intercept" :
					    "mean of t - the slope's share over sizes <= 64 KiB",
	    hd_cal_ftime(b, sizeof b, f->alpha),
	    f->ring_over_nvlink ? "nvlink.latency: peer copies over NVLink" : "pcie.latency",
	    2 * (k->n - 1), hd_cal_ftime(c, sizeof c, f->ring.base),
	    f->ring.base_clamped ? " (negative: clamped at 0)" : "");
	hd_buf_printf(k->log,
		      "    residual of the formula over every size: max %.1f %%, rms "
		      "%.1f %% (NCCL changes protocol with size; one line cannot follow "
		      "every size)\n",
		      100 * f->ring.max_rel, 100 * f->ring.rms_rel);
	if (f->ring.base_clamped && f->ring.intercept > 0)
		hd_buf_printf(k->log,
			      "    warning: the intercept is below 2(n-1) alpha = %s: a "
			      "hop inside NCCL costs less here than a peer copy's fixed cost, so "
			      "with one nvlink.latency for both the model over-predicts the "
			      "smallest all-reduce by %.0f %%\n",
			      hd_cal_ftime(a, sizeof a, 2.0 * (k->n - 1) * f->alpha),
			      100 * (2.0 * (k->n - 1) * f->alpha - f->ring.intercept) /
				  f->ring.intercept);
}

/* ---- the whole part ------------------------------------------------------------------ */

static void
log_links(struct rk *k, int base_links)
{
	int g, least = -1, differ = 0;

	nvml_links(k);
	for (g = 0; g < k->n; g++) {
		if (k->nvml_links[g] < 0)
			continue;
		if (least >= 0 && k->nvml_links[g] != least)
			differ = 1;
		if (least < 0 || k->nvml_links[g] < least)
			least = k->nvml_links[g];
	}
	if (least < 0) {
		hd_buf_printf(k->log,
			      "NVLinks per GPU: not reported (%s); the base profile's "
			      "nvlink.links (%d) divides the link rate\n",
			      k->nvml_note, base_links);
		k->nd.links = 0;
		return;
	}
	hd_buf_printf(k->log, "NVLinks per GPU (%s):", k->nvml_note);
	for (g = 0; g < k->n; g++)
		if (k->nvml_links[g] >= 0)
			hd_buf_printf(k->log, " GPU%d %d", g, k->nvml_links[g]);
		else
			hd_buf_printf(k->log, " GPU%d ?", g);
	hd_buf_printf(k->log, "%s\n", differ ? " (they differ: the least is used)" : "");
	k->nd.links = least > 0 ? least : -1;
}

int
hd_calib_ranks(const struct hd_calib_ranks *r, struct hd_profile *p, int *set, struct hd_err *e)
{
	struct rk *k;
	struct calp_peer_sweep *ps;
	struct calp_nccl *nc = NULL;
	struct hd_fit_ranks fit;
	struct hd_coll_fig fig;
	struct hd_err fe = { 0 };
	double ar_size[RK_MAX_SIZES], ar_t[RK_MAX_SIZES];
	size_t ar_n = 0;
	int n = 0, rc = -1, fitted = 0, i;
	double small_max = 64.0 * KiB, large_min = 64.0 * MiB;

	*set = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		n = 1;
	}
	if (n < 2) {
		hd_buf_printf(r->log,
			      "\nPeer copies and NCCL collectives: skipped (one GPU is "
			      "visible; they need two or more)\n");
		return 0;
	}
	k = hd_xcalloc(1, sizeof *k);
	ps = hd_xcalloc(1, sizeof *ps);
	k->r = r;
	k->p = p;
	k->e = e;
	k->log = r->log;
	k->n = n > MAXG ? MAXG : n;
	k->nd.n = k->n;
	k->nd.pcie_bw = r->pcie_bw;
	if (CK(k, cudaGetDevice(&k->dev0)))
		goto out_free;
	hd_buf_printf(k->log, "\nRanks: %d GPUs visible%s\n", n,
		      n > MAXG ? ": the first 16 are measured" : "");
	for (i = 0; i < k->n; i++) {
		struct cudaDeviceProp prop;
		char bus[32] = "?";

		if (CK(k, cudaGetDeviceProperties(&prop, i)))
			goto out_free;
		if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, i) != cudaSuccess)
			cudaGetLastError();
		hd_buf_printf(k->log, "  GPU%d: %s, %d SMs, PCI %s\n", i, prop.name,
			      prop.multiProcessorCount, bus);
	}
	log_links(k, p->nvlinks);
	k->lo = 0;
	k->hi = 0.02;
	calp_rk_progress(k, 0, 1, "peer access");
	if (setup(k) != 0 || peer_access(k) != 0)
		goto out;
	k->lo = 0.02;
	k->hi = 0.45;
	if (calp_rk_stage_peer(k, ps) != 0)
		goto out;
	k->lo = 0.45;
	k->hi = 0.5;
	if (calp_rk_stage_host_dma(k) != 0)
		goto out;
	/* NCCL sets up its own peer access: leave the GPUs as NCCL expects them */
	for (i = 0; i < k->n; i++) {
		int j;

		if (CK(k, cudaSetDevice(i)))
			goto out;
		for (j = 0; j < k->n; j++)
			if (k->enabled[i][j]) {
				if (CK(k, cudaDeviceDisablePeerAccess(j)))
					goto out;
				k->enabled[i][j] = 0;
			}
	}
	if (calp_nccl_allreduce(k, &nc, ar_size, ar_t, &ar_n, &small_max, &large_min) != 0)
		goto out;
	for (i = 0; i < k->n * k->n; i++)
		fitted += ps->fitted[i / k->n][i % k->n];
	if (fitted == 0) {
		/* nothing says how fast the links are: write nothing rather than guess */
		hd_buf_printf(k->log,
			      "\n  no peer copy could be fitted: the topology, NVLink and "
			      "collective keys are kept from the base\n");
		hd_buf_printf(r->sum, "  %-20s kept (no peer copy could be fitted)\n",
			      "topo.*, nvlink.*");
		rc = 0;
		goto out;
	}
	if (hd_fit_ranks(&k->nd, p->nvlinks, r->copy_latency, ar_size, ar_t, ar_n, small_max,
			 large_min, &fit, &fe) != 0) {
		/* the all-reduce times cannot be fitted: the peer copies still can */
		hd_buf_printf(k->log,
			      "\n  all-reduce: no fit (%s); the link rates come from the "
			      "peer copies and coll.base is kept\n",
			      fe.msg);
		if (hd_fit_ranks(&k->nd, p->nvlinks, r->copy_latency, NULL, NULL, 0, small_max,
				 large_min, &fit, e) != 0)
			goto out;
	}
	write_keys(k, &fit);
	memset(&fig, 0, sizeof fig);
	fig.n = k->n;
	fig.alpha = fit.alpha;
	fig.beta = fit.ring.beta;
	fig.base = fit.coll_base;
	fig.chunk = (double)p->coll_chunk;
	if (calp_nccl_report(k, nc, &fit, &fig) != 0)
		goto out;
	log_peer_model(k, ps);
	*set = 1;
	rc = 0;
out:
	calp_nccl_close(nc, rc < 0);
	teardown(k);
out_free:
	free(ps);
	free(k);
	return rc;
}
