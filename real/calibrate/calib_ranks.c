/*
 * calib_ranks.c - the multi-GPU part of `hdsim calibrate` (calib_ranks.h).
 *
 * Peer copies: for every ordered pair of GPUs, cudaMemcpyPeerAsync on a
 * non-blocking stream of the source GPU, timed with CUDA events around N
 * copies queued behind a spin-kernel gate (as calibrate.c times host
 * copies), after warm-ups; medians of samples.  Large sizes give the rate,
 * small ones the fixed cost (t = alpha + n / beta, fit.c).  Each pair also
 * runs both directions at once.  Peer access is enabled where the runtime
 * allows it and disabled again afterwards; pairs without it are measured
 * anyway (the runtime stages those copies through host memory) and named.
 *
 * Host memory shared by the GPUs: the first 1, 2, 4 ... and all GPUs copy
 * pinned host memory at once (each its own buffers, one gate), host to
 * device, device to host and both ways; the totals with all of them are the
 * node's caps.
 *
 * NCCL collectives (builds with NCCL): one process, one communicator per GPU
 * (ncclCommInitRank for each inside one group), one stream per GPU, every
 * call of an iteration inside ncclGroupStart/End, as nccl-tests does in its
 * single-process mode.  Per size: warm-up iterations, then batches of
 * iterations between CUDA events on every GPU's stream; a batch's time per
 * iteration is the slowest GPU's, and the median over batches is reported
 * with algBw and busBw as nccl-tests prints them: all-reduce, all-gather,
 * broadcast, and send/recv as nccl-tests' sendrecv runs it.  NCCL_NVLS_ENABLE=0 is
 * set unless the user set it, so the ring formula describes what runs.  A
 * collective that does not finish within WAIT_LIMIT_S ends the calibration
 * with a message (the communicators are aborted), never a hang.  NVLink
 * counts come from NVML when the driver's library can be opened.
 *
 * The fits are in fit_ranks.c; this file measures, logs and writes keys.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#ifdef HAVE_NCCL
#include <nccl.h>
#endif

#include "real/calibrate/calfmt.h"
#include "real/cudaerr.h"
#include "real/calibrate/calib_ranks.h"
#include "sim/coll.h"
#include "real/calibrate/fit_ranks.h"
#include "ir/ir.h"
#include "kernels/kernels.h"
#include "lang/lesson.h"
#include "real/ranks.h"
#include "ir/trace.h"

extern char **environ;

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

#define MAXG HD_FIT_MAX_GPUS
#define MAX_SAMPLES 16
#define MAX_SIZES 24
#define LATCH_TIMEOUT_NS 5000000000ull
#define WAIT_LIMIT_S 60.0       /* a collective or copy batch that takes longer is hung */

enum { FLAG_LATCH = 0, FLAG_TIMED_OUT = 32, FLAG_WORDS = 64 };

struct rk {
	const struct hd_calib_ranks *r;
	struct hd_profile *p;
	struct hd_err *e;
	struct hd_buf *log;
	int n, dev0;
	cudaStream_t s[MAXG];
	cudaEvent_t ev[MAXG][3];
	void *src[MAXG], *dst[MAXG];    /* bufsize bytes on each GPU */
	uint64_t bufsize;
	volatile int *flags;
	int *dflags[MAXG];
	int enabled[MAXG][MAXG];        /* peer access this run enabled */
	struct hd_fit_node nd;
	double lo, hi;                  /* progress range of the current part */
	const char *nvml_note;          /* how the link count was found */
	int nvml_links[MAXG];           /* active NVLinks per GPU, -1: not reported */
};

/* ---- plumbing ------------------------------------------------------------------ */

#ifdef HAVE_NCCL
static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#endif

static int
ck(struct rk *k, cudaError_t rc, const char *call)
{
	if (rc == cudaSuccess)
		return 1;
	hd_cuda_fail(k->e, "calibrate: ", call, 1, rc);
	cudaGetLastError();
	return 0;
}
#define CK(k, call) ck((k), (call), #call)
#define KCK(k, call) ck((k), (cudaError_t)(call), #call)

static int
stopped(struct rk *k)
{
	return hd_cal_stopped(k->r->stop, k->e);
}

static void HD_PRINTF(4, 5)
progress(struct rk *k, int i, int n, const char *fmt, ...)
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

static uint64_t
pow2_floor(uint64_t v)
{
	uint64_t p = 1;

	while (p <= v / 2)
		p *= 2;
	return v == 0 ? 0 : p;
}

static int
setup(struct rk *k)
{
	size_t fr, tot, least = SIZE_MAX;
	void *fp = NULL;
	int g, i;
	char a[32];

	if (!CK(k, cudaHostAlloc(&fp, FLAG_WORDS * sizeof(int),
				 cudaHostAllocMapped | cudaHostAllocPortable)))
		return -1;
	k->flags = fp;
	memset(fp, 0, FLAG_WORDS * sizeof(int));
	for (g = 0; g < k->n; g++) {
		void *dp = NULL;

		if (!CK(k, cudaSetDevice(g)) || !CK(k, cudaMemGetInfo(&fr, &tot)) ||
		    !CK(k, cudaHostGetDevicePointer(&dp, fp, 0)) ||
		    !CK(k, cudaStreamCreateWithFlags(&k->s[g], cudaStreamNonBlocking)))
			return -1;
		k->dflags[g] = dp;
		for (i = 0; i < 3; i++)
			if (!CK(k, cudaEventCreate(&k->ev[g][i])))
				return -1;
		if (fr < least)
			least = fr;
	}
	/* two buffers per GPU within a quarter of its free memory, at most 1 GiB */
	k->bufsize = pow2_floor((uint64_t)least / 8);
	if (k->bufsize > GiB)
		k->bufsize = GiB;
	if (k->bufsize < 16 * MiB) {
		hd_err_set(k->e, HD_EXIT_FAIL, "", "calibrate: too little free GPU memory for "
			   "peer copies (%s on the fullest GPU; need 128 MiB)",
			   hd_cal_fbytes(a, sizeof a, (double)least));
		return -1;
	}
	for (g = 0; g < k->n; g++) {
		if (!CK(k, cudaSetDevice(g)) || !CK(k, cudaMalloc(&k->src[g], k->bufsize)) ||
		    !CK(k, cudaMalloc(&k->dst[g], k->bufsize)) ||
		    !CK(k, cudaMemset(k->src[g], 1, k->bufsize)) ||
		    !CK(k, cudaMemset(k->dst[g], 0, k->bufsize)))
			return -1;
		/* load the latch kernel on this GPU now: a lazy load behind a spinning
		 * gate would block the host until the gate timed out */
		k->flags[FLAG_LATCH] = 1;
		__sync_synchronize();
		if (!KCK(k, hd_kernel_latch((hd_cuda_stream)k->s[g], k->dflags[g] + FLAG_LATCH,
					    LATCH_TIMEOUT_NS, k->dflags[g] + FLAG_TIMED_OUT)) ||
		    !CK(k, cudaStreamSynchronize(k->s[g])) || !CK(k, cudaDeviceSynchronize()))
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

	hd_buf_printf(k->log, "\nPeer access between the %d GPUs (cudaDeviceCanAccessPeer, then "
		      "cudaDeviceEnablePeerAccess)\n", k->n);
	for (i = 0; i < k->n; i++)
		for (j = 0; j < k->n; j++) {
			int can = 0, atom = 0, rank = 0;
			cudaError_t rc;

			if (i == j)
				continue;
			if (!CK(k, cudaDeviceCanAccessPeer(&can, i, j)))
				return -1;
			if (!can) {
				hd_buf_printf(k->log, "  GPU%d -> GPU%d: peer access impossible: "
					      "copies between them go through host memory\n", i, j);
				none++;
				continue;
			}
			if (!CK(k, cudaDeviceGetP2PAttribute(&atom,
					cudaDevP2PAttrNativeAtomicSupported, i, j)) ||
			    !CK(k, cudaDeviceGetP2PAttribute(&rank,
					cudaDevP2PAttrPerformanceRank, i, j)) ||
			    !CK(k, cudaSetDevice(i)))
				return -1;
			rc = cudaDeviceEnablePeerAccess(j, 0);
			if (rc == cudaErrorPeerAccessAlreadyEnabled)
				cudaGetLastError();
			else if (!ck(k, rc, "cudaDeviceEnablePeerAccess"))
				return -1;
			else
				k->enabled[i][j] = 1;
			k->nd.p2p[i][j] = 1;
			k->nd.atomics[i][j] = atom;
			hd_buf_printf(k->log, "  GPU%d -> GPU%d: enabled; native atomics %s, "
				      "performance rank %d\n", i, j, atom ? "yes" : "no", rank);
		}
	if (none == 0)
		hd_buf_printf(k->log, "  every ordered pair has peer access\n");
	return 0;
}

/* ---- gated peer copies ------------------------------------------------------------- */

static void
release(struct rk *k)
{
	if (k->flags != NULL) {
		k->flags[FLAG_LATCH] = 1;
		__sync_synchronize();
	}
}

/* Hold GPU i's stream with the latch kernel (flags reset first). */
static int
hold(struct rk *k, int i)
{
	k->flags[FLAG_LATCH] = 0;
	k->flags[FLAG_TIMED_OUT] = 0;
	__sync_synchronize();
	return CK(k, cudaSetDevice(i)) &&
	       KCK(k, hd_kernel_latch((hd_cuda_stream)k->s[i], k->dflags[i] + FLAG_LATCH,
				      LATCH_TIMEOUT_NS, k->dflags[i] + FLAG_TIMED_OUT));
}

static int
timed_out(struct rk *k, int ops)
{
	if (!k->flags[FLAG_TIMED_OUT])
		return 0;
	hd_err_set(k->e, HD_EXIT_FAIL, "", "calibrate: the spin-kernel gate timed out (%llu s) "
		   "before the host had queued %d peer copies behind it, so the timing would "
		   "include host submission; is the machine overloaded?",
		   LATCH_TIMEOUT_NS / 1000000000ull, ops);
	return 1;
}

static int
elapsed(struct rk *k, cudaEvent_t a, cudaEvent_t b, double *sec)
{
	float ms = 0;

	if (!CK(k, cudaEventElapsedTime(&ms, a, b)))
		return 0;
	*sec = (double)ms * 1e-3;
	return 1;
}

static int
copy(struct rk *k, int i, int j, uint64_t n, int stream_of)
{
	return CK(k, cudaMemcpyPeerAsync(k->dst[j], j, k->src[i], i, n, k->s[stream_of]));
}

/*
 * Hold GPU i's stream with the gate when the pair i, j has peer access; a
 * copy without it is staged through host memory by the runtime and may
 * block the host until it is done, which behind a held stream would wait
 * for the gate's timeout: those copies are queued ungated (their times then
 * include the host's submission).
 */
static int
hold_pair(struct rk *k, int i, int j)
{
	if (k->nd.p2p[i][j] && k->nd.p2p[j][i])
		return hold(k, i);
	return CK(k, cudaSetDevice(i));
}

/* One sample: `reps` copies of n bytes from GPU i to GPU j behind the gate on
 * i's stream, after `warm` of them: seconds per copy. */
static int
peer_sample(struct rk *k, int i, int j, uint64_t n, int warm, int reps, double *sec)
{
	int w, good = hold_pair(k, i, j);

	for (w = 0; good && w < warm; w++)
		good = copy(k, i, j, n, i);
	good = good && CK(k, cudaEventRecord(k->ev[i][0], k->s[i]));
	for (w = 0; good && w < reps; w++)
		good = copy(k, i, j, n, i);
	good = good && CK(k, cudaEventRecord(k->ev[i][1], k->s[i]));
	release(k);     /* always: a failed enqueue must not leave the GPU spinning */
	good = good && CK(k, cudaStreamSynchronize(k->s[i]));
	if (!good || timed_out(k, warm + reps) || !elapsed(k, k->ev[i][0], k->ev[i][1], sec))
		return -1;
	*sec /= reps;
	return 0;
}

/* Copies per sample and warm-ups before the start event, by size (as calibrate.c). */
static void
gate_counts(uint64_t n, int *warm, int *reps)
{
	if (n <= MiB) {
		*warm = 4;
		*reps = 16;
	} else if (n <= 16 * MiB) {
		*warm = 2;
		*reps = 8;
	} else if (n <= 64 * MiB) {
		*warm = 2;
		*reps = 4;
	} else {
		*warm = 1;
		*reps = 2;
	}
}

struct peer_sweep {
	uint64_t size[MAX_SIZES];
	int count;
	double small_max, large_min;
	double t[MAXG][MAXG][MAX_SIZES];        /* median seconds per copy */
	double iqr[MAXG][MAXG][MAX_SIZES];
	struct hd_fit fit[MAXG][MAXG];
	int fitted[MAXG][MAXG];
	double bi_total[MAXG][MAXG];            /* both directions at once, i < j */
	double bi_dir[MAXG][MAXG];              /* i -> j while j -> i runs */
	uint64_t bi_size;
};

static void
peer_sizes(struct rk *k, struct peer_sweep *ps)
{
	static const uint64_t small_full[] = { 4, 64, KiB, 4 * KiB, 16 * KiB, 64 * KiB };
	static const uint64_t large_full[] = { 256 * MiB, GiB };
	static const uint64_t small_quick[] = { 4, KiB, 64 * KiB };
	static const uint64_t large_quick[] = { 16 * MiB, 64 * MiB };
	const uint64_t *sm = k->r->quick ? small_quick : small_full;
	const uint64_t *lg = k->r->quick ? large_quick : large_full;
	size_t nsm = k->r->quick ? HD_ARRAY_LEN(small_quick) : HD_ARRAY_LEN(small_full);
	size_t nlg = k->r->quick ? HD_ARRAY_LEN(large_quick) : HD_ARRAY_LEN(large_full);
	size_t i;

	ps->count = 0;
	for (i = 0; i < nsm; i++)
		ps->size[ps->count++] = sm[i];
	for (i = 0; i < nlg; i++)
		if (lg[i] <= k->bufsize)
			ps->size[ps->count++] = lg[i];
	/* a small machine: its largest buffer stands in for the large sizes */
	if (ps->size[ps->count - 1] < lg[0])
		ps->size[ps->count++] = k->bufsize;
	ps->small_max = (double)sm[nsm - 1];
	ps->large_min = (double)(lg[0] <= k->bufsize ? lg[0] : k->bufsize);
}

static int
peer_pair(struct rk *k, struct peer_sweep *ps, int i, int j)
{
	double v[MAX_SAMPLES];
	struct hd_stats st;
	struct hd_err fe = { 0 };
	double x[MAX_SIZES];
	int s, m;

	for (s = 0; s < ps->count; s++) {
		int warm, reps, samples = k->r->quick || ps->size[s] >= 64 * MiB ? 3 : 5;

		gate_counts(ps->size[s], &warm, &reps);
		for (m = 0; m < samples; m++)
			if (stopped(k) || peer_sample(k, i, j, ps->size[s], warm, reps, &v[m]) != 0)
				return -1;
		if (hd_fit_stats(v, (size_t)samples, &st, k->e) != 0)
			return -1;
		ps->t[i][j][s] = st.median;
		ps->iqr[i][j][s] = st.iqr;
		x[s] = (double)ps->size[s];
	}
	if (hd_fit_alpha_beta(x, ps->t[i][j], (size_t)ps->count, ps->small_max, ps->large_min,
			      &ps->fit[i][j], &fe) == 0) {
		ps->fitted[i][j] = 1;
		k->nd.bw[i][j] = ps->fit[i][j].beta;
		k->nd.lat[i][j] = ps->fit[i][j].alpha;
	} else {
		hd_buf_printf(k->log, "  GPU%d -> GPU%d: no fit: %s\n", i, j, fe.msg);
		k->nd.lat[i][j] = -1;
	}
	return 0;
}

/*
 * Both directions of the pair i, j at once, released by one gate: i's stream
 * holds the gate and records the start, j's waits for it; i's stream then
 * waits for j's last copy and records the end of both.
 */
static int
bidir_sample(struct rk *k, int i, int j, uint64_t n, int reps, double *ti, double *tj,
	     double *tot)
{
	int w, good = hold_pair(k, i, j);

	good = good && CK(k, cudaEventRecord(k->ev[i][0], k->s[i]));
	good = good && CK(k, cudaSetDevice(j)) &&
	       CK(k, cudaStreamWaitEvent(k->s[j], k->ev[i][0], 0)) &&
	       CK(k, cudaEventRecord(k->ev[j][0], k->s[j]));
	/* each copy from its own GPU, on that GPU's stream */
	for (w = 0; good && w < reps; w++)
		good = CK(k, cudaSetDevice(i)) && copy(k, i, j, n, i) &&
		       CK(k, cudaSetDevice(j)) && copy(k, j, i, n, j);
	good = good && CK(k, cudaEventRecord(k->ev[j][1], k->s[j]));
	good = good && CK(k, cudaSetDevice(i)) && CK(k, cudaEventRecord(k->ev[i][1], k->s[i])) &&
	       CK(k, cudaStreamWaitEvent(k->s[i], k->ev[j][1], 0)) &&
	       CK(k, cudaEventRecord(k->ev[i][2], k->s[i]));
	release(k);
	good = good && CK(k, cudaStreamSynchronize(k->s[i])) &&
	       CK(k, cudaStreamSynchronize(k->s[j]));
	if (!good || timed_out(k, 2 * reps) || !elapsed(k, k->ev[i][0], k->ev[i][1], ti) ||
	    !elapsed(k, k->ev[j][0], k->ev[j][1], tj) || !elapsed(k, k->ev[i][0], k->ev[i][2], tot))
		return -1;
	return 0;
}

static int
bidir_pair(struct rk *k, struct peer_sweep *ps, int i, int j)
{
	const int samples = 3, reps = k->r->quick ? 2 : 4;
	double a[3], b[3], t[3];
	struct hd_stats sa, sb, stt;
	int m;

	for (m = 0; m < samples; m++)
		if (stopped(k) || bidir_sample(k, i, j, ps->bi_size, reps, &a[m], &b[m], &t[m]) != 0)
			return -1;
	if (hd_fit_stats(a, 3, &sa, k->e) != 0 || hd_fit_stats(b, 3, &sb, k->e) != 0 ||
	    hd_fit_stats(t, 3, &stt, k->e) != 0)
		return -1;
	ps->bi_dir[i][j] = (double)ps->bi_size * reps / sa.median;
	ps->bi_dir[j][i] = (double)ps->bi_size * reps / sb.median;
	ps->bi_total[i][j] = ps->bi_total[j][i] = 2.0 * (double)ps->bi_size * reps / stt.median;
	return 0;
}

/* A matrix of GPU pairs: cell(i, j) formats one entry, "-" on the diagonal. */
static void
log_matrix(struct rk *k, const char *title, const struct peer_sweep *ps,
	   void (*cell)(const struct peer_sweep *, int, int, char *, size_t))
{
	int i, j;
	char c[32];

	hd_buf_printf(k->log, "  %s\n  %6s", title, "");
	for (j = 0; j < k->n; j++) {
		snprintf(c, sizeof c, "GPU%d", j);
		hd_buf_printf(k->log, " %10s", c);
	}
	hd_buf_printf(k->log, "\n");
	for (i = 0; i < k->n; i++) {
		snprintf(c, sizeof c, "GPU%d", i);
		hd_buf_printf(k->log, "  %-6s", c);
		for (j = 0; j < k->n; j++) {
			if (i == j)
				snprintf(c, sizeof c, "-");
			else
				cell(ps, i, j, c, sizeof c);
			hd_buf_printf(k->log, " %10s", c);
		}
		hd_buf_printf(k->log, "\n");
	}
}

static void
cell_rate(const struct peer_sweep *ps, int i, int j, char *c, size_t n)
{
	snprintf(c, n, "%.2f", (double)ps->size[ps->count - 1] / ps->t[i][j][ps->count - 1] / 1e9);
}

static void
cell_beta(const struct peer_sweep *ps, int i, int j, char *c, size_t n)
{
	if (ps->fitted[i][j])
		snprintf(c, n, "%.2f", ps->fit[i][j].beta / 1e9);
	else
		snprintf(c, n, "no fit");
}

static void
cell_alpha(const struct peer_sweep *ps, int i, int j, char *c, size_t n)
{
	if (ps->fitted[i][j])
		snprintf(c, n, "%.2f", ps->fit[i][j].alpha * 1e6);
	else
		snprintf(c, n, "no fit");
}

static void
cell_bidir(const struct peer_sweep *ps, int i, int j, char *c, size_t n)
{
	snprintf(c, n, "%.2f", ps->bi_total[i][j] / 1e9);
}

static void
cell_bidir_dir(const struct peer_sweep *ps, int i, int j, char *c, size_t n)
{
	snprintf(c, n, "%.2f", ps->bi_dir[i][j] / 1e9);
}

static int
stage_peer(struct rk *k, struct peer_sweep *ps)
{
	int i, j, s, pairs = k->n * (k->n - 1), at = 0;
	char a[32], b[32], title[96];

	peer_sizes(k, ps);
	hd_buf_printf(k->log, "\nPeer copies (cudaMemcpyPeerAsync from GPU i to GPU j on a "
		      "non-blocking stream of GPU i)\n  CUDA events around N copies queued "
		      "behind a spin-kernel gate on that stream, after warm-ups; median of 3-5 "
		      "samples; time per copy in us (GB/s = 10^9 B/s)\n");
	hd_buf_printf(k->log, "  %-12s", "pair");
	for (s = 0; s < ps->count; s++)
		hd_buf_printf(k->log, " %9s", hd_cal_fbytes(a, sizeof a, (double)ps->size[s]));
	hd_buf_printf(k->log, "   fit: beta, alpha, residual max/rms\n");
	for (i = 0; i < k->n; i++)
		for (j = 0; j < k->n; j++) {
			char pr[32];

			if (i == j)
				continue;
			progress(k, at++, pairs, "peer copies GPU%d->GPU%d", i, j);
			if (peer_pair(k, ps, i, j) != 0)
				return -1;
			snprintf(pr, sizeof pr, "GPU%d->GPU%d", i, j);
			hd_buf_printf(k->log, "  %-12s", pr);
			for (s = 0; s < ps->count; s++)
				hd_buf_printf(k->log, " %9.2f", ps->t[i][j][s] * 1e6);
			if (ps->fitted[i][j])
				hd_buf_printf(k->log, "   %s, %s, %.1f/%.1f %%", hd_cal_frate(a, sizeof a,
					      ps->fit[i][j].beta), hd_cal_ftime(b, sizeof b,
					      ps->fit[i][j].alpha), 100 * ps->fit[i][j].max_rel,
					      100 * ps->fit[i][j].rms_rel);
			hd_buf_printf(k->log, "\n");
		}
	hd_buf_printf(k->log, "  fit t = alpha + n / beta: beta the least-squares slope over "
		      "sizes >= %s, alpha the mean of t - n / beta over sizes <= %s\n",
		      hd_cal_fbytes(a, sizeof a, ps->large_min), hd_cal_fbytes(b, sizeof b, ps->small_max));
	for (i = 0; i < k->n; i++)
		for (j = 0; j < k->n; j++)
			if (i != j && !(k->nd.p2p[i][j] && k->nd.p2p[j][i])) {
				hd_buf_printf(k->log, "  (pairs without peer access both ways are "
					      "staged through host memory and timed without the gate: "
					      "their times include the host's submission)\n");
				i = j = k->n;
			}
	snprintf(title, sizeof title, "rate at %s (GB/s), row: from, column: to",
		 hd_cal_fbytes(b, sizeof b, (double)ps->size[ps->count - 1]));
	log_matrix(k, title, ps, cell_rate);
	log_matrix(k, "fitted beta (GB/s)", ps, cell_beta);
	log_matrix(k, "fitted alpha (us)", ps, cell_alpha);

	ps->bi_size = ps->size[ps->count - 1];
	hd_buf_printf(k->log, "\nPeer copies both ways at once (%s each way, GPU i's stream "
		      "and GPU j's, released by one gate)\n",
		      hd_cal_fbytes(a, sizeof a, (double)ps->bi_size));
	at = 0;
	for (i = 0; i < k->n; i++)
		for (j = i + 1; j < k->n; j++) {
			progress(k, pairs + at++, pairs + pairs / 2, "peer copies both ways "
				 "GPU%d<->GPU%d", i, j);
			if (bidir_pair(k, ps, i, j) != 0)
				return -1;
		}
	log_matrix(k, "total of both directions (GB/s)", ps, cell_bidir);
	log_matrix(k, "row -> column while column -> row runs (GB/s)", ps, cell_bidir_dir);
	return 0;
}

/* ---- every GPU copying host memory at once ------------------------------------------ */

/*
 * One host serves all GPUs of a node: each alone reaches its PCIe link's
 * rate, but together they may get less than the sum (host memory, the root
 * complex).  The first k GPUs copy pinned host memory at once, released by
 * one gate: host to device, device to host, and both ways (a second stream
 * per GPU).  Each GPU has its own pinned buffers, as each rank of a lesson
 * does.  The totals with every GPU copying become host.dma_h2d, _d2h and
 * _bidir; the smaller groups are logged to show where the host stops keeping up.
 */
enum { HDMA_H2D, HDMA_D2H, HDMA_BOTH, HDMA__COUNT };

static const char *const hdma_name[HDMA__COUNT] = {
	[HDMA_H2D] = "host to device", [HDMA_D2H] = "device to host",
	[HDMA_BOTH] = "both ways",
};

struct host_dma {
	uint64_t size;                  /* bytes per copy */
	int reps;                       /* copies per GPU and direction */
	void *h_src[MAXG], *h_dst[MAXG];        /* pinned, one pair per GPU */
	cudaStream_t s2[MAXG];          /* the second direction's stream */
	int groups[MAXG], ngroups;      /* GPU counts measured */
	double total[MAXG][HDMA__COUNT];        /* bytes/s, all GPUs of the group */
	double least[MAXG][HDMA__COUNT];        /* bytes/s, the slowest GPU's own */
};

/* One sample: the first k GPUs copy at once; the total over the slowest
 * GPU's time, and that GPU's own rate (it moved the same bytes). */
static int
hdma_sample(struct rk *k, struct host_dma *hd, int ng, int dir, double *total, double *least)
{
	int g, w, good = 1;
	double worst = 0, t1, t2;
	uint64_t n = hd->size;

	for (g = 0; good && g < ng; g++) {
		good = hold(k, g) && CK(k, cudaEventRecord(k->ev[g][0], k->s[g]));
		if (good && dir == HDMA_BOTH)
			good = CK(k, cudaStreamWaitEvent(hd->s2[g], k->ev[g][0], 0));
	}
	/* copy by copy across the GPUs, so that none is queued far ahead */
	for (w = 0; good && w < hd->reps; w++)
		for (g = 0; good && g < ng; g++) {
			good = CK(k, cudaSetDevice(g));
			if (good && dir != HDMA_D2H)
				good = CK(k, cudaMemcpyAsync(k->dst[g], hd->h_src[g], n,
							     cudaMemcpyHostToDevice, k->s[g]));
			if (good && dir != HDMA_H2D)
				good = CK(k, cudaMemcpyAsync(hd->h_dst[g], k->src[g], n,
							     cudaMemcpyDeviceToHost,
							     dir == HDMA_BOTH ? hd->s2[g] : k->s[g]));
		}
	for (g = 0; good && g < ng; g++) {
		good = CK(k, cudaSetDevice(g)) && CK(k, cudaEventRecord(k->ev[g][1], k->s[g]));
		if (good && dir == HDMA_BOTH)
			good = CK(k, cudaEventRecord(k->ev[g][2], hd->s2[g]));
	}
	release(k);     /* always: a failed enqueue must not leave a GPU spinning */
	for (g = 0; g < ng; g++) {
		if (!CK(k, cudaSetDevice(g)) || !CK(k, cudaStreamSynchronize(k->s[g])) ||
		    !CK(k, cudaStreamSynchronize(hd->s2[g])))
			good = 0;
	}
	if (!good || timed_out(k, ng * hd->reps * (dir == HDMA_BOTH ? 2 : 1)))
		return -1;
	for (g = 0; g < ng; g++) {
		if (!elapsed(k, k->ev[g][0], k->ev[g][1], &t1))
			return -1;
		if (dir == HDMA_BOTH) {
			if (!elapsed(k, k->ev[g][0], k->ev[g][2], &t2))
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
hdma_setup(struct rk *k, struct host_dma *hd)
{
	int g, c;

	hd->size = k->bufsize < 64 * MiB ? k->bufsize : 64 * MiB;
	hd->reps = k->r->quick ? 2 : 4;
	for (g = 0; g < k->n; g++) {
		if (!CK(k, cudaSetDevice(g)) ||
		    !CK(k, cudaStreamCreateWithFlags(&hd->s2[g], cudaStreamNonBlocking)) ||
		    !CK(k, cudaMallocHost(&hd->h_src[g], hd->size)) ||
		    !CK(k, cudaMallocHost(&hd->h_dst[g], hd->size)))
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

static void
hdma_teardown(struct rk *k, struct host_dma *hd)
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

#ifdef HAVE_NCCL
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
			*worst = -1;    /* a rank without the copies: no figure */
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
		[HDMA_H2D] = { "up", NULL }, [HDMA_D2H] = { "down", NULL },
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
		total[d] = worst > 0 ? (double)size * reps * k->n *
			   (d == HDMA_BOTH ? 2 : 1) / worst : 0;
	}
	rc = 0;
out:
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
	free(text);
	return rc;
}
#endif

static int
stage_host_dma(struct rk *k)
{
	struct host_dma *hd = hd_xcalloc(1, sizeof *hd);
	const int samples = k->r->quick ? 3 : 5;
	int gi, d, m, rc = -1, last;
	double keys[HDMA__COUNT];
	const char *from = "";
	char a[32], b[32], how[200];
#ifdef HAVE_NCCL
	double ranks[HDMA__COUNT];
	const char *nvls;
#endif

	if (hdma_setup(k, hd) != 0)
		goto out;
	hd_buf_printf(k->log, "\nEvery GPU copying pinned host memory at once (the first k "
		      "GPUs, %d x %s per GPU and direction, each GPU its own cudaMallocHost "
		      "buffers, all released by one gate; median of %d samples)\n  total: "
		      "bytes of all k GPUs over the slowest GPU's time; per GPU: that GPU's "
		      "rate (GB/s)\n  %4s", hd->reps, hd_cal_fbytes(a, sizeof a, (double)hd->size),
		      samples, "k");
	for (d = 0; d < HDMA__COUNT; d++)
		hd_buf_printf(k->log, " %15s total / per GPU", hdma_name[d]);
	hd_buf_printf(k->log, "\n");
	for (gi = 0; gi < hd->ngroups; gi++) {
		hd_buf_printf(k->log, "  %4d", hd->groups[gi]);
		for (d = 0; d < HDMA__COUNT; d++) {
			double tv[MAX_SAMPLES], lv[MAX_SAMPLES];
			struct hd_stats st, sl;

			progress(k, gi * HDMA__COUNT + d, hd->ngroups * HDMA__COUNT,
				 "host memory, %d GPUs at once, %s", hd->groups[gi], hdma_name[d]);
			for (m = 0; m < samples; m++)
				if (stopped(k) || hdma_sample(k, hd, hd->groups[gi], d, &tv[m],
							      &lv[m]) != 0)
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
		hd_buf_printf(k->log, "  %s: %d GPUs at once get %.0f %% of %d x one GPU's "
			      "rate\n", hdma_name[d], k->n, 100 * hd->total[last][d] /
			      (k->n * hd->total[0][d]), k->n);
		keys[d] = hd->total[last][d];
		from = "one process";
	}
#ifdef HAVE_NCCL
	/* the keys from what ranks see; the table above stays for comparison */
	hdma_teardown(k, hd);
	progress(k, 1, 1, "host memory, one process per GPU");
	nvls = getenv("NCCL_NVLS_ENABLE");
	hd_buf_printf(k->log, "  one process per GPU, as ranks run (each its own buffers, "
		      "a barrier before each direction; median of the repeats; NCCL_NVLS_ENABLE=%s%s)",
		      nvls != NULL ? nvls : "0", nvls != NULL ? " (set by the user)" :
		      " set for the ranks");
	if (hdma_ranks(k, hd->size, hd->reps, ranks) != 0) {
		hd_buf_printf(k->log, ": failed\n");
		goto out;
	}
	hd_buf_printf(k->log, ", totals:");
	for (d = 0; d < HDMA__COUNT; d++) {
		hd_buf_printf(k->log, " %s %s%s", hdma_name[d],
			      hd_cal_frate(a, sizeof a, ranks[d]), d + 1 < HDMA__COUNT ? "," : "\n");
		if (ranks[d] > 0) {
			keys[d] = ranks[d];
			from = "one process per GPU";
		}
	}
#endif
	snprintf(how, sizeof how, "%d GPUs copying from pinned memory at once, total, %s "
		 "(one alone: %s)", k->n, from, hd_cal_frate(b, sizeof b, hd->total[0][HDMA_H2D]));
	hd_cal_set_rate(k->r->sum, "host.dma_h2d", &k->p->node_h2d_bw, keys[HDMA_H2D], how);
	snprintf(how, sizeof how, "%d GPUs copying to pinned memory at once, total, %s "
		 "(one alone: %s)", k->n, from, hd_cal_frate(b, sizeof b, hd->total[0][HDMA_D2H]));
	hd_cal_set_rate(k->r->sum, "host.dma_d2h", &k->p->node_d2h_bw, keys[HDMA_D2H], how);
	snprintf(how, sizeof how, "%d GPUs copying both ways at once, total, %s (one alone: "
		 "%s)", k->n, from, hd_cal_frate(b, sizeof b, hd->total[0][HDMA_BOTH]));
	hd_cal_set_rate(k->r->sum, "host.dma_bidir", &k->p->node_bidir_bw, keys[HDMA_BOTH],
			how);
	rc = 0;
out:
	hdma_teardown(k, hd);
	free(hd);
	return rc;
}

/* ---- NCCL collectives ---------------------------------------------------------------- */

struct coll_res {
	double size[MAX_SIZES], count[MAX_SIZES], t[MAX_SIZES], iqr[MAX_SIZES];
	double host[MAX_SIZES];
	int iters[MAX_SIZES], n;
};

/* What is swept, all-reduce first (the fit needs it before the others are
 * logged against it).  Send/recv is nccl-tests' sendrecv: every rank sends to
 * the next and receives from the previous in one group, busBw factor 1. */
enum { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_BROADCAST, COLL_SENDRECV, COLL__COUNT };

static const struct {
	enum hd_coll c;         /* unused for send/recv */
	const char *name, *call, *model;
} coll_list[COLL__COUNT] = {
	[COLL_ALLREDUCE] = { HD_COLL_ALLREDUCE, "all-reduce", "ncclAllReduce (float, sum)",
			     "coll.base + 2(n-1) (alpha + (S/n) / beta)" },
	[COLL_ALLGATHER] = { HD_COLL_ALLGATHER, "all-gather", "ncclAllGather (float)",
			     "coll.base + (n-1) (alpha + (S/n) / beta)" },
	[COLL_BROADCAST] = { HD_COLL_BROADCAST, "broadcast", "ncclBroadcast (float, root 0)",
			     "coll.base + (chunks + n - 2) (alpha + chunk / beta), a pipelined "
			     "chain in coll.chunk pieces" },
	[COLL_SENDRECV] = { HD_COLL_BROADCAST, "send/recv", "ncclSend to rank + 1 and "
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

#ifdef HAVE_NCCL
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
		for (s = 16; s <= k->bufsize && m < MAX_SIZES; s *= 4)
			sz[m++] = (double)s;
		*large_min = 64.0 * MiB;
	}
	*small_max = 64.0 * KiB;
	if (*large_min > (double)k->bufsize / 4)
		*large_min = (double)k->bufsize / 4;
	return m;
}
#endif

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

#ifdef HAVE_NCCL

struct nccl {
	ncclComm_t comm[MAXG];
	int made;
};

static int
nck(struct rk *k, ncclResult_t rc, const char *call)
{
	const char *last = NULL;

	if (rc == ncclSuccess)
		return 1;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 13, 0)
	last = ncclGetLastError(NULL);
#endif
	hd_err_set(k->e, HD_EXIT_FAIL, "", "calibrate: %.*s failed: %s%s%s",
		   (int)strcspn(call, "("), call, ncclGetErrorString(rc),
		   last != NULL && last[0] ? ": " : "", last != NULL ? last : "");
	cudaGetLastError();
	return 0;
}
#define NCK(k, call) nck((k), (call), #call)

/* Wait for every GPU's stream, checking NCCL's own errors; a collective that
 * does not end within WAIT_LIMIT_S is reported instead of waited for. */
static int
wait_all(struct rk *k, struct nccl *nc, const char *what)
{
	double t0 = now_s();
	int g, busy;

	do {
		busy = 0;
		for (g = 0; g < k->n; g++) {
			cudaError_t rc = cudaStreamQuery(k->s[g]);
			ncclResult_t ar = ncclSuccess;

			if (rc == cudaErrorNotReady)
				busy = 1;
			else if (!ck(k, rc, "cudaStreamQuery"))
				return 0;
			if (!NCK(k, ncclCommGetAsyncError(nc->comm[g], &ar)) || !nck(k, ar,
							"an NCCL collective (ncclCommGetAsyncError)"))
				return 0;
		}
		if (busy && now_s() - t0 > WAIT_LIMIT_S) {
			hd_err_set(k->e, HD_EXIT_FAIL, "", "calibrate: NCCL %s did not finish "
				   "within %.0f s; the communicators were aborted", what,
				   WAIT_LIMIT_S);
			return 0;
		}
		if (busy)
			sched_yield();
	} while (busy);
	return 1;
}

/* One iteration: sweep ci's calls on every GPU inside one group. */
static int
coll_iter(struct rk *k, struct nccl *nc, int ci, size_t count)
{
	int g, good = NCK(k, ncclGroupStart());

	if (!good)
		return 0;
	for (g = 0; good && g < k->n; g++) {
		switch (ci) {
		case COLL_SENDRECV:
			good = NCK(k, ncclSend(k->src[g], count, ncclFloat, (g + 1) % k->n,
					       nc->comm[g], k->s[g])) &&
			       NCK(k, ncclRecv(k->dst[g], count, ncclFloat, (g + k->n - 1) % k->n,
					       nc->comm[g], k->s[g]));
			break;
		case COLL_ALLGATHER:
			good = NCK(k, ncclAllGather(k->src[g], k->dst[g], count, ncclFloat,
						    nc->comm[g], k->s[g]));
			break;
		case COLL_BROADCAST:
			good = NCK(k, ncclBroadcast(k->src[g], k->dst[g], count, ncclFloat, 0,
						    nc->comm[g], k->s[g]));
			break;
		default:
			good = NCK(k, ncclAllReduce(k->src[g], k->dst[g], count, ncclFloat,
						    ncclSum, nc->comm[g], k->s[g]));
			break;
		}
	}
	/* a group once started is always ended */
	return NCK(k, ncclGroupEnd()) && good;
}

/* One batch of `iters` iterations: the slowest GPU's event time per iteration,
 * and the host's. */
static int
coll_sample(struct rk *k, struct nccl *nc, int ci, size_t count, int iters, double *sec,
	    double *host)
{
	double t0, worst = 0, d;
	int g, it;

	for (g = 0; g < k->n; g++)
		if (!CK(k, cudaSetDevice(g)) || !CK(k, cudaEventRecord(k->ev[g][0], k->s[g])))
			return -1;
	t0 = now_s();
	for (it = 0; it < iters; it++)
		if (!coll_iter(k, nc, ci, count))
			return -1;
	for (g = 0; g < k->n; g++)
		if (!CK(k, cudaSetDevice(g)) || !CK(k, cudaEventRecord(k->ev[g][1], k->s[g])))
			return -1;
	if (!wait_all(k, nc, coll_list[ci].name))
		return -1;
	*host = (now_s() - t0) / iters;
	for (g = 0; g < k->n; g++) {
		if (!elapsed(k, k->ev[g][0], k->ev[g][1], &d))
			return -1;
		if (d > worst)
			worst = d;
	}
	*sec = worst / iters;
	return 0;
}

static int
coll_sweep(struct rk *k, struct nccl *nc, int ci, const double *sz, int nsz,
	   struct coll_res *cr)
{
	const int samples = k->r->quick ? 3 : 5;
	double prev = -1;
	int i, m;

	memset(cr, 0, sizeof *cr);
	for (i = 0; i < nsz; i++) {
		double v[MAX_SAMPLES], h[MAX_SAMPLES], bytes;
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
			sz[i] <= 64.0 * MiB ? (k->r->quick ? 5 : 10) : (k->r->quick ? 3 : 5);
		progress(k, i, nsz, "NCCL %s %.0f B", coll_list[ci].name, bytes);
		/* warm-up: NCCL connects lazily and picks its protocol per size */
		if (stopped(k) || coll_sample(k, nc, ci, count, 2, &v[0], &h[0]) != 0)
			return -1;
		for (m = 0; m < samples; m++)
			if (stopped(k) || coll_sample(k, nc, ci, count, iters, &v[m], &h[m]) != 0)
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

static void
nccl_close(struct rk *k, struct nccl *nc, int failed)
{
	int g;

	/* as NCCL's single-thread, several-GPU example ends: destroy each */
	for (g = 0; g < nc->made; g++) {
		if (failed)
			ncclCommAbort(nc->comm[g]);
		else
			ncclCommDestroy(nc->comm[g]);
	}
	nc->made = 0;
	(void)k;
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
nccl_open(struct rk *k, struct nccl *nc)
{
	const char *nvls = getenv("NCCL_NVLS_ENABLE");
	ncclUniqueId id;
	int ver = 0, g, good = 1;
	double t0;
	char v[32];

	memset(nc, 0, sizeof *nc);
	if (!NCK(k, ncclGetVersion(&ver)))
		return -1;
	if (ver >= 10000)
		snprintf(v, sizeof v, "%d.%d.%d", ver / 10000, ver % 10000 / 100, ver % 100);
	else
		snprintf(v, sizeof v, "%d.%d.%d", ver / 1000, ver % 1000 / 100, ver % 100);
	hd_buf_printf(k->log, "\nNCCL collectives over all %d GPUs (NCCL %s, one process: "
		      "a communicator and a non-blocking stream per GPU, ncclGroupStart/End around "
		      "each iteration's calls, out of place)\n", k->n, v);
	if (nvls == NULL) {
		setenv("NCCL_NVLS_ENABLE", "0", 0);
		hd_buf_printf(k->log, "  NCCL_NVLS_ENABLE=0 set for this run (it was not set): "
			      "NVLink SHARP off, so the ring formula describes what runs; set it "
			      "yourself to measure otherwise\n");
	} else
		hd_buf_printf(k->log, "  NCCL_NVLS_ENABLE=%s (set by the user)%s\n", nvls,
			      strcmp(nvls, "0") != 0 ? ": with NVLink SHARP the busBw figures "
			      "need not describe the links, and the fit below may not either" : "");
	log_nccl_env(k);
	/* as nccl-tests does in one process: every communicator inside one group
	 * (what ncclCommInitAll does, with the time of it measurable) */
	t0 = now_s();
	if (!NCK(k, ncclGetUniqueId(&id)) || !NCK(k, ncclGroupStart()))
		return -1;
	for (g = 0; good && g < k->n; g++) {
		good = CK(k, cudaSetDevice(g)) &&
		       NCK(k, ncclCommInitRank(&nc->comm[g], k->n, id, g));
		if (good)
			nc->made = g + 1;
	}
	if (!NCK(k, ncclGroupEnd()) || !good)
		return -1;
	hd_buf_printf(k->log, "  communicators (ncclCommInitRank for every GPU in one group) "
		      "took %.3f s\n", now_s() - t0);
	hd_buf_printf(k->log, "  time: CUDA events around a batch of iterations on every GPU's "
		      "stream, the slowest GPU's time per iteration, median of %d batches after 2 "
		      "warm-up iterations; host: the host clock around the same batch (as "
		      "nccl-tests times); algbw = size / time and busbw = algbw x the collective's "
		      "factor, as nccl-tests prints them (GB/s = 10^9 B/s)\n",
		      k->r->quick ? 3 : 5);
	return 0;
}
#endif /* HAVE_NCCL */

/* ---- the fit and the profile --------------------------------------------------------- */

/* The model's time for a peer copy i -> j under the profile being written. */
static double
peer_model(struct rk *k, int i, int j, double bytes)
{
	/* the simulator's own path, and its copy-engine rate over NVLink */
	struct hd_link l = hd_coll_link(k->p, i, j);
	double beta = l.cls == HD_LINK_NVLINK && k->p->nvlink_copy_bw > 0 ?
	    k->p->nvlink_copy_bw : l.bw;

	return hd_time_to_s(l.lat) + bytes / beta;
}

static void
log_peer_model(struct rk *k, const struct peer_sweep *ps)
{
	int i, j, f = 0, l = ps->count - 1;
	char a[32], b[32];

	hd_buf_printf(k->log, "\nPeer copies under the fitted profile (alpha + n / beta with "
		      "the keys written below)\n  %-12s %10s %10s %7s %10s %10s %7s\n", "pair",
		      hd_cal_fbytes(a, sizeof a, (double)ps->size[f]), "model", "err",
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
			hd_buf_printf(k->log, "  %-12s %10.2f %10.2f %+6.1f%% %10.2f %10.2f %+6.1f%%"
				      "\n", pr, ps->t[i][j][f] * 1e6, m0 * 1e6,
				      100 * (m0 - ps->t[i][j][f]) / ps->t[i][j][f],
				      ps->t[i][j][l] * 1e6, m1 * 1e6,
				      100 * (m1 - ps->t[i][j][l]) / ps->t[i][j][l]);
		}
	hd_buf_printf(k->log, "  (times in us; the model sends copy-engine peer copies at "
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
	default:
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
		"link's" : "; NVLink where peer access has native atomics";
	char how[256];

	hd_buf_printf(k->r->sum, "  %-20s %-14s (base %s) %s%s\n", "topo.kind",
		      hd_topo_name(f->topo.kind), hd_topo_name(p->topo),
		      kind_why(&f->topo, k->n), src);
	p->topo = f->topo.kind;
	hd_cal_set_int(k->r->sum, "topo.gpus_per_node", &p->gpus_per_node, f->topo.gpus_per_node,
		"GPUs visible to CUDA");
	if (f->topo.nvlink_pairs > 0)
		hd_cal_set_int(k->r->sum, "nvlink.links", &p->nvlinks, f->links, f->links_reported ?
			"active NVLinks of a GPU (NVML)" : "kept from the base (NVML gave no count)");
	else
		hd_cal_set_int(k->r->sum, "nvlink.links", &p->nvlinks, 0, "no pair over NVLink");
	if (f->nvlink_rate > 0) {
		snprintf(how, sizeof how, "%s / %d links",
			 f->ring_over_nvlink && f->rate_from_ring ?
			 "all-reduce busBw at large sizes (fitted slope)" :
			 "median fitted peer copy rate over NVLink pairs", f->links);
		hd_cal_set_rate(k->r->sum, "nvlink.rate", &p->nvlink_bw, f->nvlink_rate, how);
	} else
		hd_buf_printf(k->r->sum, "  %-20s kept (nothing over NVLink measured)\n",
			      "nvlink.rate");
	if (f->nvlink_latency >= 0)
		hd_cal_set_time(k->r->sum, "nvlink.latency", &p->nvlink_latency, f->nvlink_latency,
			 "median fitted alpha of peer copies over NVLink");
	if (f->copy_nvlink_bw > 0)
		hd_cal_set_rate(k->r->sum, "nvlink.copy_rate", &p->nvlink_copy_bw, f->copy_nvlink_bw,
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

static void
log_fit(struct rk *k, const struct hd_fit_ranks *f)
{
	char a[32], b[32], c[32];

	hd_buf_printf(k->log, "  fit of the ring formula T(S) = coll.base + 2(n-1) (alpha + "
		      "(S/n) / beta), n = %d:\n", k->n);
	hd_buf_printf(k->log, "    beta = %s from the slope over sizes >= the large limit "
		      "(%d sizes): the busBw the formula reaches at large sizes\n",
		      hd_cal_frate(a, sizeof a, f->ring.beta), f->ring.line.n_large);
	hd_buf_printf(k->log, "    intercept %s (%s); alpha %s (%s); coll.base = intercept - "
		      "%d alpha = %s%s\n", hd_cal_ftime(a, sizeof a, f->ring.intercept),
		      f->ring.line.alpha_from_large ? "the large fit's intercept" :
		      "mean of t - the slope's share over sizes <= 64 KiB",
		      hd_cal_ftime(b, sizeof b, f->alpha), f->ring_over_nvlink ?
		      "nvlink.latency: peer copies over NVLink" : "pcie.latency",
		      2 * (k->n - 1), hd_cal_ftime(c, sizeof c, f->ring.base),
		      f->ring.base_clamped ? " (negative: clamped at 0)" : "");
	hd_buf_printf(k->log, "    residual of the formula over every size: max %.1f %%, rms "
		      "%.1f %% (NCCL changes protocol with size; one line cannot follow "
		      "every size)\n", 100 * f->ring.max_rel, 100 * f->ring.rms_rel);
	if (f->ring.base_clamped && f->ring.intercept > 0)
		hd_buf_printf(k->log, "    warning: the intercept is below 2(n-1) alpha = %s: a "
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
		hd_buf_printf(k->log, "NVLinks per GPU: not reported (%s); the base profile's "
			      "nvlink.links (%d) divides the link rate\n", k->nvml_note, base_links);
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
hd_calib_ranks(const struct hd_calib_ranks *r, struct hd_profile *p, struct hd_err *e)
{
	struct rk *k;
	struct peer_sweep *ps;
	struct coll_res *cr = NULL;
	struct hd_fit_ranks fit;
	struct hd_coll_fig fig;
	struct hd_err fe = { 0 };
	double ar_size[MAX_SIZES], ar_t[MAX_SIZES];
	size_t ar_n = 0;
	int n = 0, rc = -1, have_coll = 0, fitted = 0, i;
	double small_max = 64.0 * KiB, large_min = 64.0 * MiB;
#ifdef HAVE_NCCL
	struct nccl nc;
	double sz[MAX_SIZES];
	int nsz = 0, ci;

	memset(&nc, 0, sizeof nc);
#endif
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		n = 1;
	}
	if (n < 2) {
		hd_buf_printf(r->log, "\nPeer copies and NCCL collectives: skipped (one GPU is "
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
	if (!CK(k, cudaGetDevice(&k->dev0)))
		goto out_free;
	hd_buf_printf(k->log, "\nRanks: %d GPUs visible%s\n", n, n > MAXG ?
		      ": the first 16 are measured" : "");
	for (i = 0; i < k->n; i++) {
		struct cudaDeviceProp prop;
		char bus[32] = "?";

		if (!CK(k, cudaGetDeviceProperties(&prop, i)))
			goto out_free;
		if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, i) != cudaSuccess)
			cudaGetLastError();
		hd_buf_printf(k->log, "  GPU%d: %s, %d SMs, PCI %s\n", i, prop.name,
			      prop.multiProcessorCount, bus);
	}
	log_links(k, p->nvlinks);
	k->lo = 0;
	k->hi = 0.02;
	progress(k, 0, 1, "peer access");
	if (setup(k) != 0 || peer_access(k) != 0)
		goto out;
	k->lo = 0.02;
	k->hi = 0.45;
	if (stage_peer(k, ps) != 0)
		goto out;
	k->lo = 0.45;
	k->hi = 0.5;
	if (stage_host_dma(k) != 0)
		goto out;
	/* NCCL sets up its own peer access: leave the GPUs as NCCL expects them */
	for (i = 0; i < k->n; i++) {
		int j;

		if (!CK(k, cudaSetDevice(i)))
			goto out;
		for (j = 0; j < k->n; j++)
			if (k->enabled[i][j]) {
				if (!CK(k, cudaDeviceDisablePeerAccess(j)))
					goto out;
				k->enabled[i][j] = 0;
			}
	}
	cr = hd_xcalloc(COLL__COUNT, sizeof *cr);
#ifdef HAVE_NCCL
	k->lo = 0.5;
	k->hi = 0.7;
	nsz = coll_sizes(k, sz, &small_max, &large_min);
	if (nccl_open(k, &nc) != 0 ||
	    coll_sweep(k, &nc, COLL_ALLREDUCE, sz, nsz, &cr[COLL_ALLREDUCE]) != 0)
		goto out;
	for (i = 0; i < cr[COLL_ALLREDUCE].n; i++) {
		ar_size[ar_n] = cr[COLL_ALLREDUCE].size[i];
		ar_t[ar_n++] = cr[COLL_ALLREDUCE].t[i];
	}
	have_coll = 1;
#else
	hd_buf_printf(k->log, "\nNCCL collectives: skipped: this build has no NCCL (configure "
		      "found no nccl.h and libnccl); coll.base is kept and the link rates come "
		      "from the peer copies\n");
#endif
	for (i = 0; i < k->n * k->n; i++)
		fitted += ps->fitted[i / k->n][i % k->n];
	if (fitted == 0) {
		/* nothing says how fast the links are: write nothing rather than guess */
		hd_buf_printf(k->log, "\n  no peer copy could be fitted: the topology, NVLink and "
			      "collective keys are kept from the base\n");
		hd_buf_printf(r->sum, "  %-20s kept (no peer copy could be fitted)\n",
			      "topo.*, nvlink.*");
		rc = 0;
		goto out;
	}
	if (hd_fit_ranks(&k->nd, p->nvlinks, r->copy_latency, ar_size, ar_t, ar_n, small_max,
			 large_min, &fit, &fe) != 0) {
		/* the all-reduce times cannot be fitted: the peer copies still can */
		hd_buf_printf(k->log, "\n  all-reduce: no fit (%s); the link rates come from the "
			      "peer copies and coll.base is kept\n", fe.msg);
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
	if (have_coll) {
		hd_buf_printf(k->log, "\n  %s, %d ranks, %s; model: %s\n",
			      coll_list[COLL_ALLREDUCE].name, k->n, coll_list[COLL_ALLREDUCE].call,
			      coll_list[COLL_ALLREDUCE].model);
		log_coll(k, COLL_ALLREDUCE, &cr[COLL_ALLREDUCE], fit.have_ring ? &fig : NULL);
		if (fit.have_ring)
			log_fit(k, &fit);
	}
#ifdef HAVE_NCCL
	for (ci = COLL_ALLREDUCE + 1; ci < COLL__COUNT; ci++) {
		k->lo = 0.7 + 0.1 * (ci - 1);
		k->hi = k->lo + 0.1;
		if (coll_sweep(k, &nc, ci, sz, nsz, &cr[ci]) != 0)
			goto out;
		hd_buf_printf(k->log, "\n  %s, %d ranks, %s; model: %s\n", coll_list[ci].name,
			      k->n, coll_list[ci].call, coll_list[ci].model);
		log_coll(k, ci, &cr[ci], fit.have_ring ? &fig : NULL);
	}
#endif
	log_peer_model(k, ps);
	rc = 1;
out:
#ifdef HAVE_NCCL
	nccl_close(k, &nc, rc < 0);
#endif
	teardown(k);
out_free:
	free(cr);
	free(ps);
	free(k);
	return rc;
}
