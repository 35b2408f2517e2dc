/*
 * calib_nccl.c - the parts of the multi-GPU calibration that need NCCL
 * (calib_priv.h); builds without NCCL link calib_nccl_stub.c instead.
 *
 * Host memory as ranks see it: one process per GPU, started as `hdsim
 * --real` starts ranks, each copying its own pinned buffers.
 *
 * NCCL collectives: one process, one communicator per GPU (ncclCommInitRank
 * for each inside one group), one stream per GPU, every call of an
 * iteration inside ncclGroupStart/End, as nccl-tests does in its
 * single-process mode.  Per size: warm-up iterations, then batches of
 * iterations between CUDA events on every GPU's stream; a batch's time per
 * iteration is the slowest GPU's, and the median over batches is reported
 * with algBw and busBw as nccl-tests prints them: all-reduce, all-gather,
 * broadcast, and send/recv as nccl-tests' sendrecv runs it.  NCCL_NVLS_ENABLE=0
 * is set unless the user set it, so the ring formula describes what runs.  A
 * collective that does not finish within WAIT_LIMIT_S ends the calibration
 * with a message (the communicators are aborted), never a hang.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nccl.h>

#include "ir/ir.h"
#include "ir/trace.h"
#include "lang/lesson.h"
#include "real/calibrate/calib_priv.h"
#include "real/ncclinfo.h"
#include "real/ranks.h"
#include "sim/coll.h"

extern char **environ;

/*
 * The same as the ranks of a lesson see it: one process per GPU, each
 * allocating its own pinned buffers (where its process runs, which decides
 * which host memory serves it), started as `hdsim --real` starts ranks.  A
 * barrier before each direction starts the ranks together; a rank's time is
 * from its first copy's start to its last copy's end (the median over the
 * repeats), and the total is every rank's bytes over the slowest rank's
 * time, as a scenario of equal shares sees it.
 */
static const char hdma_scenario[] =
    "hdsim 1\nlesson calibrate-host-dma\ntitle \"every GPU copying host memory at once\"\n"
    "scenario all \"host to device, device to host, both ways\"\n"
    "  ranks %d\n"
    "  buffer a pinned %lluMiB\n  buffer b pinned %lluMiB\n"
    "  buffer d device %lluMiB\n  buffer e device %lluMiB\n"
    "  stream s\n  stream t\n"
    "  barrier\n"
    "  repeat %d\n    up: copy a -> d async on s\n  end\n  sync s\n  barrier\n"
    "  repeat %d\n    down: copy e -> b async on s\n  end\n  sync s\n  barrier\n"
    "  repeat %d\n    bu: copy a -> d async on s\n    bd: copy e -> b async on t\n  end\n"
    "  sync s\n  sync t\n"
    "end\n";

/* Per rank: seconds from the first start to the last end of spans labelled
 * a or b (b may be NULL); the slowest rank's into *worst. */
static void
hdma_rank_times(const struct hd_trace *t, int n, const char *a, const char *b, double *worst)
{
	hd_time lo[MAXG], hi[MAXG];
	size_t i;
	int r;

	for (r = 0; r < n; r++)
		lo[r] = hi[r] = -1;
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *sp = &t->spans[i];
		const char *l = sp->label >= 0 ? t->strings[sp->label] : "";

		r = t->lanes[sp->lane].rank;
		if (sp->kind != HD_SPAN_COPY || r < 0 || r >= n ||
		    (strcmp(l, a) != 0 && (b == NULL || strcmp(l, b) != 0)))
			continue;
		if (lo[r] < 0 || sp->start < lo[r])
			lo[r] = sp->start;
		if (sp->end > hi[r])
			hi[r] = sp->end;
	}
	*worst = 0;
	for (r = 0; r < n; r++) {
		if (lo[r] < 0) {
			*worst = -1; /* a rank without the copies: no figure */
			return;
		}
		if (hd_time_to_s(hi[r] - lo[r]) > *worst)
			*worst = hd_time_to_s(hi[r] - lo[r]);
	}
}

static int
hdma_ranks(struct rk *k, uint64_t size, int reps, double total[HDMA__COUNT])
{
	unsigned long long mib = (unsigned long long)(size / MiB);
	char *text = hd_xasprintf(hdma_scenario, k->n, mib, mib, mib, mib, reps, reps, reps);
	struct hd_lesson *l = hd_lesson_parse(text, strlen(text), "calibrate", k->e);
	struct hd_scenario *sc = NULL;
	struct hd_trace *t = NULL;
	struct hd_run_opts o;
	struct hd_sink sink;
	static const char *const labels[HDMA__COUNT][2] = {
		[HDMA_H2D] = { "up", NULL },
		[HDMA_D2H] = { "down", NULL },
		[HDMA_BOTH] = { "bu", "bd" },
	};
	double worst;
	int d, rc = -1;

	if (l == NULL || (sc = hd_lesson_instantiate(l, 0, NULL, k->e)) == NULL)
		goto out;
	memset(&o, 0, sizeof o);
	o.warmup = 1;
	o.repeats = k->r->quick ? 3 : 5;
	o.stop = k->r->stop;
	t = hd_trace_new();
	sink = hd_trace_sink(t);
	if (hd_ranks_run(sc, &o, &sink, k->e) != 0)
		goto out;
	for (d = 0; d < HDMA__COUNT; d++) {
		hdma_rank_times(t, k->n, labels[d][0], labels[d][1], &worst);
		total[d] = worst > 0 ?
		    (double)size * reps * k->n * (d == HDMA_BOTH ? 2 : 1) / worst :
		    0;
	}
	rc = 0;
out:
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
	free(text);
	return rc;
}

int
calp_nccl_host_dma(struct rk *k, struct calp_host_dma *hd, double keys[HDMA__COUNT],
		   const char **from)
{
	double ranks[HDMA__COUNT];
	const char *nvls;
	char a[32];
	int d;

	calp_rk_hdma_teardown(k, hd);
	calp_rk_progress(k, 1, 1, "host memory, one process per GPU");
	nvls = getenv("NCCL_NVLS_ENABLE");
	hd_buf_printf(
	    k->log,
	    "  one process per GPU, as ranks run (each its own buffers, "
	    "a barrier before each direction; median of the repeats; NCCL_NVLS_ENABLE=%s%s)",
	    nvls != NULL ? nvls : "0", nvls != NULL ? " (set by the user)" : " set for the ranks");
	if (hdma_ranks(k, hd->size, hd->reps, ranks) != 0) {
		hd_buf_printf(k->log, ": failed\n");
		return -1;
	}
	hd_buf_printf(k->log, ", totals:");
	for (d = 0; d < HDMA__COUNT; d++) {
		hd_buf_printf(k->log, " %s %s%s", calp_hdma_name[d],
			      hd_cal_frate(a, sizeof a, ranks[d]),
			      d + 1 < HDMA__COUNT ? "," : "\n");
		if (ranks[d] > 0) {
			keys[d] = ranks[d];
			*from = "one process per GPU";
		}
	}
	return 0;
}

/* ---- NCCL collectives ---------------------------------------------------------------- */

struct coll_res {
	double size[RK_MAX_SIZES], count[RK_MAX_SIZES], t[RK_MAX_SIZES], iqr[RK_MAX_SIZES];
	double host[RK_MAX_SIZES];
	int iters[RK_MAX_SIZES], n;
};

/* What is swept, all-reduce first (the fit needs it before the others are
 * logged against it).  Send/recv is nccl-tests' sendrecv: every rank sends to
 * the next and receives from the previous in one group, busBw factor 1. */
enum {
	COLL_ALLREDUCE,
	COLL_ALLGATHER,
	COLL_BROADCAST,
	COLL_SENDRECV,
	COLL__COUNT
};

static const struct {
	enum hd_coll c; /* unused for send/recv */
	const char *name, *call, *model;
} coll_list[COLL__COUNT] = {
	[COLL_ALLREDUCE] = { HD_COLL_ALLREDUCE, "all-reduce", "ncclAllReduce (float, sum)",
			     "coll.base + 2(n-1) (alpha + (S/n) / beta)" },
	[COLL_ALLGATHER] = { HD_COLL_ALLGATHER, "all-gather", "ncclAllGather (float)",
			     "coll.base + (n-1) (alpha + (S/n) / beta)" },
	[COLL_BROADCAST] = { HD_COLL_BROADCAST, "broadcast", "ncclBroadcast (float, root 0)",
			     "coll.base + (chunks + n - 2) (alpha + chunk / beta), a pipelined "
			     "chain in coll.chunk pieces" },
	[COLL_SENDRECV] = { HD_COLL_BROADCAST, "send/recv",
			    "ncclSend to rank + 1 and "
			    "ncclRecv from rank - 1 in one group (float)",
			    "coll.base + alpha + S / beta" },
};

/* The rank model's time for sweep ci, and nccl-tests' busBw factor. */
static double
coll_model(int ci, const struct hd_coll_fig *f, double bytes)
{
	if (ci == COLL_SENDRECV)
		return f->base + f->alpha + bytes / f->beta;
	return hd_fit_coll_time(coll_list[ci].c, f, bytes);
}

static double
coll_factor(int ci, int n)
{
	return ci == COLL_SENDRECV ? 1 : hd_coll_bus_factor(coll_list[ci].c, n);
}

/* The sizes swept: 8 B, then 16 B x4 up to the buffer (quick: a handful). */
static int
coll_sizes(struct rk *k, double *sz, double *small_max, double *large_min)
{
	static const uint64_t quick[] = { 8, 4 * KiB, 64 * KiB, MiB, 16 * MiB, 64 * MiB };
	uint64_t s;
	int m = 0;
	size_t i;

	if (k->r->quick) {
		for (i = 0; i < HD_ARRAY_LEN(quick); i++)
			if (quick[i] <= k->bufsize)
				sz[m++] = (double)quick[i];
		*large_min = 16.0 * MiB;
	} else {
		sz[m++] = 8;
		for (s = 16; s <= k->bufsize && m < RK_MAX_SIZES; s *= 4)
			sz[m++] = (double)s;
		*large_min = 64.0 * MiB;
	}
	*small_max = 64.0 * KiB;
	if (*large_min > (double)k->bufsize / 4)
		*large_min = (double)k->bufsize / 4;
	return m;
}

static void
log_coll(struct rk *k, int ci, const struct coll_res *cr, const struct hd_coll_fig *fig)
{
	double fac = coll_factor(ci, k->n);
	int i;

	hd_buf_printf(k->log, "  %12s %12s %6s %10s %9s %10s %10s %10s", "size(B)", "count",
		      "iters", "time(us)", "IQR(us)", "algbw", "busbw", "host(us)");
	if (fig != NULL)
		hd_buf_printf(k->log, " %10s %7s", "model(us)", "err");
	hd_buf_printf(k->log, "\n");
	for (i = 0; i < cr->n; i++) {
		double alg = cr->size[i] / cr->t[i] / 1e9;

		hd_buf_printf(k->log, "  %12.0f %12.0f %6d %10.2f %9.2f %10.2f %10.2f %10.2f",
			      cr->size[i], cr->count[i], cr->iters[i], cr->t[i] * 1e6,
			      cr->iqr[i] * 1e6, alg, alg * fac, cr->host[i] * 1e6);
		if (fig != NULL) {
			double m = coll_model(ci, fig, cr->size[i]);

			hd_buf_printf(k->log, " %10.2f %+6.1f%%", m * 1e6,
				      100 * (m - cr->t[i]) / cr->t[i]);
		}
		hd_buf_printf(k->log, "\n");
	}
}

struct calp_nccl {
	ncclComm_t comm[MAXG];
	int made;
	double sz[RK_MAX_SIZES]; /* the sizes swept */
	int nsz;
	struct coll_res cr[COLL__COUNT];
};

static int
nck(struct rk *k, ncclResult_t rc, const char *call)
{
	const char *last = NULL;

	if (rc == ncclSuccess)
		return 0;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 13, 0)
	last = ncclGetLastError(NULL);
#endif
	hd_err_set(k->e, HD_EXIT_FAIL, "", "calibrate: %.*s failed: %s%s%s",
		   (int)strcspn(call, "("), call, ncclGetErrorString(rc),
		   last != NULL && last[0] ? ": " : "", last != NULL ? last : "");
	cudaGetLastError();
	return -1;
}
#define NCK(k, call) nck((k), (call), #call)

/* Wait for every GPU's stream, checking NCCL's own errors; a collective that
 * does not end within WAIT_LIMIT_S is reported instead of waited for. */
static int
wait_all(struct rk *k, struct calp_nccl *nc, const char *what)
{
	double t0 = calp_now();
	int g, busy;

	do {
		busy = 0;
		for (g = 0; g < k->n; g++) {
			cudaError_t rc = cudaStreamQuery(k->s[g]);
			ncclResult_t ar = ncclSuccess;

			if (rc == cudaErrorNotReady)
				busy = 1;
			else if (calp_cuda(k->e, rc, "cudaStreamQuery") != 0)
				return -1;
			if (NCK(k, ncclCommGetAsyncError(nc->comm[g], &ar)) ||
			    nck(k, ar, "an NCCL collective (ncclCommGetAsyncError)"))
				return -1;
		}
		if (busy && calp_now() - t0 > WAIT_LIMIT_S) {
			hd_err_set(k->e, HD_EXIT_FAIL, "",
				   "calibrate: NCCL %s did not finish "
				   "within %.0f s; the communicators were aborted",
				   what, WAIT_LIMIT_S);
			return -1;
		}
		if (busy)
			sched_yield();
	} while (busy);
	return 0;
}

/* One iteration: sweep ci's calls on every GPU inside one group. */
static int
coll_iter(struct rk *k, struct calp_nccl *nc, int ci, size_t count)
{
	int g, failed = NCK(k, ncclGroupStart());

	if (failed)
		return -1;
	for (g = 0; !failed && g < k->n; g++) {
		switch (ci) {
		case COLL_SENDRECV:
			failed = NCK(k,
				     ncclSend(k->src[g], count, ncclFloat, (g + 1) % k->n,
					      nc->comm[g], k->s[g])) ||
			    NCK(k,
				ncclRecv(k->dst[g], count, ncclFloat, (g + k->n - 1) % k->n,
					 nc->comm[g], k->s[g]));
			break;
		case COLL_ALLGATHER:
			failed = NCK(k,
				     ncclAllGather(k->src[g], k->dst[g], count, ncclFloat,
						   nc->comm[g], k->s[g]));
			break;
		case COLL_BROADCAST:
			failed = NCK(k,
				     ncclBroadcast(k->src[g], k->dst[g], count, ncclFloat, 0,
						   nc->comm[g], k->s[g]));
			break;
		default:
			failed = NCK(k,
				     ncclAllReduce(k->src[g], k->dst[g], count, ncclFloat, ncclSum,
						   nc->comm[g], k->s[g]));
			break;
		}
	}
	/* a group once started is always ended */
	return NCK(k, ncclGroupEnd()) || failed ? -1 : 0;
}

/* One batch of `iters` iterations: the slowest GPU's event time per iteration,
 * and the host's. */
static int
coll_sample(struct rk *k, struct calp_nccl *nc, int ci, size_t count, int iters, double *sec,
	    double *host)
{
	double t0, worst = 0, d;
	int g, it;

	for (g = 0; g < k->n; g++)
		if (CK(k, cudaSetDevice(g)) || CK(k, cudaEventRecord(k->ev[g][0], k->s[g])))
			return -1;
	t0 = calp_now();
	for (it = 0; it < iters; it++)
		if (coll_iter(k, nc, ci, count))
			return -1;
	for (g = 0; g < k->n; g++)
		if (CK(k, cudaSetDevice(g)) || CK(k, cudaEventRecord(k->ev[g][1], k->s[g])))
			return -1;
	if (wait_all(k, nc, coll_list[ci].name))
		return -1;
	*host = (calp_now() - t0) / iters;
	for (g = 0; g < k->n; g++) {
		if (calp_elapsed(k->e, k->ev[g][0], k->ev[g][1], &d))
			return -1;
		if (d > worst)
			worst = d;
	}
	*sec = worst / iters;
	return 0;
}

static int
coll_sweep(struct rk *k, struct calp_nccl *nc, int ci, const double *sz, int nsz,
	   struct coll_res *cr)
{
	const int samples = k->r->quick ? 3 : 5;
	double prev = -1;
	int i, m;

	memset(cr, 0, sizeof *cr);
	for (i = 0; i < nsz; i++) {
		double v[RK_MAX_SAMPLES], h[RK_MAX_SAMPLES], bytes;
		struct hd_stats st, sh;
		size_t count;
		int iters;

		/* NCCL counts elements per rank for all-gather, per buffer otherwise */
		if (ci == COLL_ALLGATHER) {
			count = (size_t)(sz[i] / (4.0 * k->n));
			bytes = (double)count * 4 * k->n;
		} else {
			count = (size_t)(sz[i] / 4);
			bytes = (double)count * 4;
		}
		if (count == 0 || bytes == prev)
			continue;
		prev = bytes;
		iters = sz[i] <= (double)MiB ? (k->r->quick ? 10 : 20) :
		    sz[i] <= 64.0 * MiB      ? (k->r->quick ? 5 : 10) :
					       (k->r->quick ? 3 : 5);
		calp_rk_progress(k, i, nsz, "NCCL %s %.0f B", coll_list[ci].name, bytes);
		/* warm-up: NCCL connects lazily and picks its protocol per size */
		if (calp_rk_stopped(k) || coll_sample(k, nc, ci, count, 2, &v[0], &h[0]) != 0)
			return -1;
		for (m = 0; m < samples; m++)
			if (calp_rk_stopped(k) ||
			    coll_sample(k, nc, ci, count, iters, &v[m], &h[m]) != 0)
				return -1;
		if (hd_fit_stats(v, (size_t)samples, &st, k->e) != 0 ||
		    hd_fit_stats(h, (size_t)samples, &sh, k->e) != 0)
			return -1;
		cr->size[cr->n] = bytes;
		cr->count[cr->n] = (double)count;
		cr->t[cr->n] = st.median;
		cr->iqr[cr->n] = st.iqr;
		cr->host[cr->n] = sh.median;
		cr->iters[cr->n] = iters;
		cr->n++;
	}
	return 0;
}

/* The NCCL_* variables in force, sorted: they change what NCCL runs. */
static void
log_nccl_env(struct rk *k)
{
	const char *v[64];
	size_t n = 0, i, j;
	char **ep;

	for (ep = environ; ep != NULL && *ep != NULL && n < HD_ARRAY_LEN(v); ep++)
		if (strncmp(*ep, "NCCL_", 5) == 0)
			v[n++] = *ep;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			const char *t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	hd_buf_printf(k->log, "  NCCL environment:");
	for (i = 0; i < n; i++)
		hd_buf_printf(k->log, " %s", v[i]);
	hd_buf_printf(k->log, "\n");
}

static int
nccl_open(struct rk *k, struct calp_nccl *nc)
{
	const char *nvls = getenv("NCCL_NVLS_ENABLE");
	ncclUniqueId id;
	int ver = 0, g, failed = 0;
	double t0;
	char v[32];

	if (NCK(k, ncclGetVersion(&ver)))
		return -1;
	hd_ncclinfo_version_str(ver, v, sizeof v);
	hd_buf_printf(k->log,
		      "\nNCCL collectives over all %d GPUs (NCCL %s, one process: "
		      "a communicator and a non-blocking stream per GPU, ncclGroupStart/End around "
		      "each iteration's calls, out of place)\n",
		      k->n, v);
	if (nvls == NULL) {
		setenv("NCCL_NVLS_ENABLE", "0", 0);
		hd_buf_printf(k->log,
			      "  NCCL_NVLS_ENABLE=0 set for this run (it was not set): "
			      "NVLink SHARP off, so the ring formula describes what runs; set it "
			      "yourself to measure otherwise\n");
	} else
		hd_buf_printf(k->log, "  NCCL_NVLS_ENABLE=%s (set by the user)%s\n", nvls,
			      strcmp(nvls, "0") != 0 ?
				  ": with NVLink SHARP the busBw figures "
				  "need not describe the links, and the fit below may not either" :
				  "");
	log_nccl_env(k);
	/* as nccl-tests does in one process: every communicator inside one group
	 * (what ncclCommInitAll does, with the time of it measurable) */
	t0 = calp_now();
	if (NCK(k, ncclGetUniqueId(&id)) || NCK(k, ncclGroupStart()))
		return -1;
	for (g = 0; !failed && g < k->n; g++) {
		failed = CK(k, cudaSetDevice(g)) ||
		    NCK(k, ncclCommInitRank(&nc->comm[g], k->n, id, g));
		if (!failed)
			nc->made = g + 1;
	}
	if (NCK(k, ncclGroupEnd()) || failed)
		return -1;
	hd_buf_printf(k->log,
		      "  communicators (ncclCommInitRank for every GPU in one group) "
		      "took %.3f s\n",
		      calp_now() - t0);
	hd_buf_printf(k->log,
		      "  time: CUDA events around a batch of iterations on every GPU's "
		      "stream, the slowest GPU's time per iteration, median of %d batches after 2 "
		      "warm-up iterations; host: the host clock around the same batch (as "
		      "nccl-tests times); algbw = size / time and busbw = algbw x the collective's "
		      "factor, as nccl-tests prints them (GB/s = 10^9 B/s)\n",
		      k->r->quick ? 3 : 5);
	return 0;
}

/* ---- the interface (calib_priv.h) ---------------------------------------------------- */

int
calp_nccl_allreduce(struct rk *k, struct calp_nccl **ncp, double *ar_size, double *ar_t,
		    size_t *ar_n, double *small_max, double *large_min)
{
	struct calp_nccl *nc = hd_xcalloc(1, sizeof *nc);
	struct coll_res *ar = &nc->cr[COLL_ALLREDUCE];
	int i;

	*ncp = nc;
	*ar_n = 0;
	k->lo = 0.5;
	k->hi = 0.7;
	nc->nsz = coll_sizes(k, nc->sz, small_max, large_min);
	if (nccl_open(k, nc) != 0 || coll_sweep(k, nc, COLL_ALLREDUCE, nc->sz, nc->nsz, ar) != 0)
		return -1;
	for (i = 0; i < ar->n; i++) {
		ar_size[*ar_n] = ar->size[i];
		ar_t[(*ar_n)++] = ar->t[i];
	}
	return 0;
}

int
calp_nccl_report(struct rk *k, struct calp_nccl *nc, const struct hd_fit_ranks *fit,
		 const struct hd_coll_fig *fig)
{
	int ci;

	if (nc == NULL)
		return 0;
	for (ci = COLL_ALLREDUCE; ci < COLL__COUNT; ci++) {
		if (ci != COLL_ALLREDUCE) {
			k->lo = 0.7 + 0.1 * (ci - 1);
			k->hi = k->lo + 0.1;
			if (coll_sweep(k, nc, ci, nc->sz, nc->nsz, &nc->cr[ci]) != 0)
				return -1;
		}
		hd_buf_printf(k->log, "\n  %s, %d ranks, %s; model: %s\n", coll_list[ci].name, k->n,
			      coll_list[ci].call, coll_list[ci].model);
		log_coll(k, ci, &nc->cr[ci], fit->have_ring ? fig : NULL);
		if (ci == COLL_ALLREDUCE && fit->have_ring)
			calp_rk_log_ring_fit(k, fit);
	}
	return 0;
}

void
calp_nccl_close(struct calp_nccl *nc, int failed)
{
	int g;

	if (nc == NULL)
		return;
	/* as NCCL's single-thread, several-GPU example ends: destroy each */
	for (g = 0; g < nc->made; g++) {
		if (failed)
			ncclCommAbort(nc->comm[g]);
		else
			ncclCommDestroy(nc->comm[g]);
	}
	free(nc);
}
