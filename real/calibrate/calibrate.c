/*
 * calibrate.c - `hdsim calibrate`: microbenchmarks on one GPU, fitted into
 * the profile figures the model runs on (real.h, hd_real_calibrate).
 *
 * Every figure is measured the way sim/model.c uses it:
 *
 * - Pinned copies, device-local copies and kernel rates: CUDA events on a
 *   non-blocking stream held by a latch kernel (nvbandwidth's spin-kernel
 *   gate): warm-ups, the start event, N operations and the end event queue
 *   behind it and run back to back once the host releases it, so host
 *   submission gaps stay out of the interval.  Time per operation against
 *   size is fitted as t = alpha + n / beta (fit.c).
 * - Host API costs, pageable copies, pinning and allocation: CLOCK_MONOTONIC
 *   around the calls, on buffers touched beforehand.
 * - Pageable copies are fitted with the model's own staging pipeline, so
 *   the memcpy rate of each direction, staging_chunk and staging_buffers
 *   reproduce the measured times under the model's semantics, not a
 *   formula of their own.
 * - With two or more GPUs, peer copies and NCCL collectives give the
 *   topology, NVLink and collective keys (calib_ranks.c).
 *
 * Every statistic is a median over samples, with the interquartile range as
 * its spread.  Sizes that do not fit a quarter of free GPU memory or an
 * eighth of available host memory are skipped and logged.  Every CUDA call
 * is checked; a failure names the call and the runtime's message, and every
 * resource is released on every path.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "real/calibrate/calib_ranks.h"
#include "real/calibrate/calfmt.h"
#include "real/cudaerr.h"
#include "real/calibrate/fit.h"
#include "kernels/kernels.h"
#include "real/pcie.h"
#include "real/real.h"
#include "real/calibrate/calibrate.h"

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

#define MAX_SAMPLES 64
#define MAX_SIZES 40
#define LATCH_TIMEOUT_NS 5000000000ull  /* the gate lets go by itself after 5 s */
#define POLL_TIMEOUT_S 1.0              /* a kernel's write to host memory */
#define SPIN_WAKE_NS 200000ull          /* the kernel the host sleeps on for sync_wake */

/* Offsets (in ints) of the flags in the mapped pinned page. */
enum { FLAG_LATCH = 0, FLAG_TIMED_OUT = 32, FLAG_STARTED = 64, FLAG_WORDS = 96 };

struct cal {
	const struct hd_calibrate_opts *o;
	struct hd_profile *p;           /* being filled */
	struct hd_profile base;         /* as the caller gave it */
	struct hd_buf *log;
	struct hd_buf sum;              /* the figures set, for the end of the log */
	struct hd_err *e;
	int dev, quick;
	double lo, hi;                  /* progress range of the current stage */

	cudaStream_t s, s2;
	cudaEvent_t ev[4];
	volatile int *flags;            /* mapped pinned: latch, timed_out, started */
	int *dflags;                    /* the same, as the device sees it */
	void *hpin, *hpage, *dbuf;      /* copy buffers of max_copy bytes */
	float *scratch;                 /* kernels' output */
	uint64_t max_copy, host_cap, dev_cap;

	/* measured, used by later stages (seconds, bytes/s) */
	double api_memcpy, api_sync, wake, launch_latency, copy_latency;
	double h2d, d2h, bidir, flops;
	int have_launch_latency;
	int ranks;                      /* the multi-GPU part set figures */
};

/* ---- plumbing -------------------------------------------------------------------- */

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Check a CUDA call; on failure fill e with the call and the runtime's words. */
static int
ck(struct cal *c, cudaError_t rc, const char *call)
{
	if (rc == cudaSuccess)
		return 1;
	hd_cuda_fail(c->e, "calibrate: ", call, 1, rc);
	cudaGetLastError();     /* clear a sticky launch error so clean-up can run */
	return 0;
}
#define CK(c, call) ck((c), (call), #call)
/* The kernel launchers return a cudaError_t as int. */
#define KCK(c, call) ck((c), (cudaError_t)(call), #call)

static int
stopped(struct cal *c)
{
	return hd_cal_stopped(c->o->stop, c->e);
}

static void
stage(struct cal *c, double lo, double hi)
{
	c->lo = lo;
	c->hi = hi;
}

static void HD_PRINTF(4, 5)
progress(struct cal *c, int k, int n, const char *fmt, ...)
{
	char what[128];
	va_list ap;

	if (c->o->progress == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	c->o->progress(c->o->ctx, c->lo + (c->hi - c->lo) * (n > 0 ? (double)k / n : 0), what);
}

static void
set_flops(struct cal *c, const char *key, double *f, double v, const char *how)
{
	char a[32], b[32];

	if (!(v > 0) || !isfinite(v)) {
		hd_buf_printf(&c->sum, "  %-20s kept (the measurement gave no usable value)\n",
			      key);
		return;
	}
	v = hd_cal_round_sig(v);
	hd_buf_printf(&c->sum, "  %-20s %-14s (base %s) %s\n", key,
		      hd_fmt_flops(b, sizeof b, v), hd_fmt_flops(a, sizeof a, *f), how);
	*f = v;
}

static void
log_head(struct cal *c, const char *title, const char *method)
{
	hd_buf_printf(c->log, "\n%s\n  %s\n", title, method);
	hd_buf_printf(c->log, "  %12s %7s %5s %12s %12s %14s\n", "size", "samples", "ops",
		      "median", "IQR", "rate");
}

static void
log_row(struct cal *c, const char *size, int samples, int ops, const struct hd_stats *st,
	const char *rate)
{
	char m[32], q[32];

	hd_buf_printf(c->log, "  %12s %7d %5d %12s %12s %14s\n", size, samples, ops,
		      hd_cal_ftime(m, sizeof m, st->median), hd_cal_ftime(q, sizeof q, st->iqr), rate);
}

static void
log_fit(struct cal *c, const struct hd_fit *f, int count, const char *rate_what,
	const char *large, const char *small)
{
	char a[32], b[32];

	if (strcmp(rate_what, "FLOP/s") == 0)
		hd_fmt_flops(b, sizeof b, f->beta);
	else
		hd_cal_frate(b, sizeof b, f->beta);
	hd_buf_printf(c->log, "  fit t = alpha + n / beta: beta = %s (least squares over %d "
		      "sizes %s); alpha = %s (%s); residual over %d sizes: max %.1f %%, "
		      "rms %.1f %%\n", b, f->n_large, large, hd_cal_ftime(a, sizeof a, f->alpha),
		      f->alpha_from_large ? "the intercept of that fit" : small, count,
		      100 * f->max_rel, 100 * f->rms_rel);
	if (f->alpha_clamped)
		hd_buf_printf(c->log, "  (alpha came out negative and was set to 0)\n");
}

/* ---- samples --------------------------------------------------------------------- */

typedef int (*sample_fn)(struct cal *c, const void *arg, double *sec);

/* `samples` runs of f, each giving seconds (per op), into *st. */
static int
sample_stats(struct cal *c, sample_fn f, const void *arg, int samples, struct hd_stats *st)
{
	double v[MAX_SAMPLES];
	int i;

	if (samples > MAX_SAMPLES)
		samples = MAX_SAMPLES;
	for (i = 0; i < samples; i++) {
		if (stopped(c) || f(c, arg, &v[i]) != 0)
			return -1;
	}
	return hd_fit_stats(v, (size_t)samples, st, c->e);
}

/* ---- the spin-kernel gate ---------------------------------------------------------- */

typedef int (*enq_fn)(struct cal *c, cudaStream_t s, const void *arg);

static void
release(struct cal *c)
{
	if (c->flags != NULL) {
		c->flags[FLAG_LATCH] = 1;
		__sync_synchronize();
	}
}

struct gate {
	enq_fn f;
	const void *arg;
	int warm, reps;
};

/*
 * Hold c->s with the latch kernel, queue warm-ups, the start event, `reps`
 * operations and the end event, then release: seconds per operation.
 */
static int
gated(struct cal *c, const void *garg, double *sec)
{
	const struct gate *g = garg;
	float ms = 0;
	int i, good;

	c->flags[FLAG_LATCH] = 0;
	c->flags[FLAG_TIMED_OUT] = 0;
	__sync_synchronize();
	good = KCK(c, hd_kernel_latch((hd_cuda_stream)c->s, c->dflags + FLAG_LATCH,
				      LATCH_TIMEOUT_NS, c->dflags + FLAG_TIMED_OUT));
	for (i = 0; good && i < g->warm; i++)
		good = g->f(c, c->s, g->arg);
	good = good && CK(c, cudaEventRecord(c->ev[0], c->s));
	for (i = 0; good && i < g->reps; i++)
		good = g->f(c, c->s, g->arg);
	good = good && CK(c, cudaEventRecord(c->ev[1], c->s));
	/* Always let go: a failed enqueue must not leave the GPU spinning. */
	release(c);
	good = good && CK(c, cudaStreamSynchronize(c->s));
	if (!good)
		return -1;
	if (c->flags[FLAG_TIMED_OUT]) {
		hd_err_set(c->e, HD_EXIT_FAIL, "", "calibrate: the spin-kernel gate timed out "
			   "(%llu s) before the host had queued %d operations behind it, so the "
			   "timing would include host submission; is the machine overloaded?",
			   LATCH_TIMEOUT_NS / 1000000000ull, g->warm + g->reps);
		return -1;
	}
	if (!CK(c, cudaEventElapsedTime(&ms, c->ev[0], c->ev[1])))
		return -1;
	*sec = (double)ms * 1e-3 / g->reps;
	return 0;
}

struct copy_op {
	void *dst;
	const void *src;
	size_t n;
	enum cudaMemcpyKind kind;
};

static int
enq_copy(struct cal *c, cudaStream_t s, const void *arg)
{
	const struct copy_op *op = arg;

	return CK(c, cudaMemcpyAsync(op->dst, op->src, op->n, op->kind, s));
}

struct kern_op {
	void *buf;
	uint64_t bytes;
	double flops;
	double done;            /* compute: FLOP actually launched */
};

static int
enq_memory(struct cal *c, cudaStream_t s, const void *arg)
{
	const struct kern_op *k = arg;

	return KCK(c, hd_kernel_memory((hd_cuda_stream)s, k->buf, k->bytes, 0));
}

static int
enq_compute(struct cal *c, cudaStream_t s, const void *arg)
{
	struct kern_op *k = (struct kern_op *)arg;

	return KCK(c, hd_kernel_compute((hd_cuda_stream)s, c->scratch, k->flops, 0, &k->done));
}

/* Operations per sample and warm-ups before the start event, by size. */
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

/* ---- set-up ------------------------------------------------------------------------ */

static uint64_t
host_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	while (f != NULL && fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return (uint64_t)kb * 1024;
}

static uint64_t
pow2_floor(uint64_t v)
{
	uint64_t p = 1;

	while (p <= v / 2)
		p *= 2;
	return v == 0 ? 0 : p;
}

/* The GPU's folder in sysfs; 0 when its PCI address is unknown. */
static int
pci_dir(struct cal *c, char *dir, size_t n)
{
	int dom = 0, bus = 0, devn = 0;

	if (cudaDeviceGetAttribute(&dom, cudaDevAttrPciDomainId, c->dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, c->dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&devn, cudaDevAttrPciDeviceId, c->dev) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	snprintf(dir, n, "/sys/bus/pci/devices/%04x:%02x:%02x.0", dom, bus, devn);
	return 1;
}

/* The GPU's PCIe link as sysfs reports it now (and its maximum, for the log). */
static void
read_link(struct cal *c, int *gen, int *lanes, char *text, size_t n)
{
	struct hd_pcie_link l;
	char dir[128];

	*gen = *lanes = 0;
	snprintf(text, n, "unreadable");
	if (!pci_dir(c, dir, sizeof dir) || hd_pcie_link_read(dir, &l) != 0)
		return;
	*gen = l.gen_cur;
	*lanes = l.lanes_cur;
	snprintf(text, n, "%.24s x%.4s (max %.24s x%.4s) at %.128s", l.speed_cur, l.width_cur,
		 l.speed_max[0] ? l.speed_max : "?", l.width_max[0] ? l.width_max : "?", dir);
}

/*
 * Launch every kernel once, ungated.  With lazy loading (the default since
 * CUDA 12.2) a kernel's first launch loads it, which may synchronise the
 * context: behind a spinning latch that would block the host until the
 * gate timed out.
 */
static int
preload(struct cal *c)
{
	double done = 0;

	c->flags[FLAG_LATCH] = 1;       /* the latch returns at once */
	__sync_synchronize();
	return KCK(c, hd_kernel_latch((hd_cuda_stream)c->s, c->dflags + FLAG_LATCH,
				      LATCH_TIMEOUT_NS, c->dflags + FLAG_TIMED_OUT)) &&
	       KCK(c, hd_kernel_spin((hd_cuda_stream)c->s, 0, 1)) &&
	       KCK(c, hd_kernel_compute((hd_cuda_stream)c->s, c->scratch, 1, 0, &done)) &&
	       KCK(c, hd_kernel_memory((hd_cuda_stream)c->s, c->dbuf, 4096, 0)) &&
	       KCK(c, hd_kernel_fill((hd_cuda_stream)c->s, c->dbuf, 4100, 0, 0)) &&
	       KCK(c, hd_kernel_reduce((hd_cuda_stream)c->s, c->dbuf, 4096, c->scratch, 0)) &&
	       CK(c, cudaStreamSynchronize(c->s)) && CK(c, cudaDeviceSynchronize()) ? 0 : -1;
}

static int
setup(struct cal *c, struct cudaDeviceProp *prop)
{
	size_t dfree = 0, dtotal = 0;
	unsigned flags = 0;
	int n = 0, map = 0, uva = 0, i;
	uint64_t avail;
	char a[32], b[32], d[32];
	cudaError_t rc;

	rc = cudaGetDeviceCount(&n);
	if (rc != cudaSuccess)
		return hd_cuda_fail(c->e, "no CUDA-capable GPU was found: ", "cudaGetDeviceCount",
				    1, rc);
	if (c->dev < 0 || c->dev >= n) {
		hd_err_set(c->e, HD_EXIT_FAIL, "", "calibrate: there is no GPU %d (%d found)",
			   c->dev, n);
		return -1;
	}
	if (!CK(c, cudaSetDevice(c->dev)) || !CK(c, cudaFree(NULL)) ||
	    !CK(c, cudaGetDeviceProperties(prop, c->dev)) ||
	    !CK(c, cudaDeviceGetAttribute(&map, cudaDevAttrCanMapHostMemory, c->dev)) ||
	    !CK(c, cudaDeviceGetAttribute(&uva, cudaDevAttrUnifiedAddressing, c->dev)) ||
	    !CK(c, cudaGetDeviceFlags(&flags)) ||
	    !CK(c, cudaMemGetInfo(&dfree, &dtotal)))
		return -1;
	if (!map || !uva) {
		hd_err_set(c->e, HD_EXIT_FAIL, "", "calibrate: GPU %d cannot map host memory "
			   "(canMapHostMemory %d, unifiedAddressing %d), which the spin-kernel "
			   "gate needs", c->dev, map, uva);
		return -1;
	}
	avail = host_available();
	c->dev_cap = (uint64_t)dfree / 4;
	c->host_cap = avail > 0 ? avail / 8 : GiB;
	c->max_copy = pow2_floor(c->dev_cap < c->host_cap ? c->dev_cap : c->host_cap);
	if (c->max_copy > GiB)
		c->max_copy = GiB;
	if (c->max_copy < 64 * MiB) {
		hd_err_set(c->e, HD_EXIT_FAIL, "", "calibrate: too little free memory to "
			   "measure (GPU %s free, host %s available; need 256 MiB of each)",
			   hd_cal_fbytes(a, sizeof a, (double)dfree), hd_cal_fbytes(b, sizeof b, (double)avail));
		return -1;
	}
	hd_buf_printf(c->log, "GPU %d: %s, %d SMs, %d copy engines, %s of %s free; host %s "
		      "available\n", c->dev, prop->name, prop->multiProcessorCount,
		      prop->asyncEngineCount, hd_cal_fbytes(a, sizeof a, (double)dfree),
		      hd_cal_fbytes(b, sizeof b, (double)dtotal), hd_cal_fbytes(d, sizeof d, (double)avail));
	hd_buf_printf(c->log, "Largest buffer: %s (a quarter of free GPU memory, an eighth "
		      "of available host memory, at most 1 GiB)\n",
		      hd_cal_fbytes(a, sizeof a, (double)c->max_copy));
	{
		/* Host-transfer rates depend on which socket's memory and CPU serve
		 * them (measuring.md, pitfall 3): say where this run ran. */
		char dir[128], node[32] = "?", cpus[256] = "?";
		cpu_set_t set;
		int kept = hd_real_pin_host_thread(c->dev);
		int cpu = sched_getcpu(), j, first = -1, count = 0;

		if (pci_dir(c, dir, sizeof dir)) {
			if (hd_pcie_read_line(dir, "numa_node", node, sizeof node) != 0)
				snprintf(node, sizeof node, "?");
			if (hd_pcie_read_line(dir, "local_cpulist", cpus, sizeof cpus) != 0)
				snprintf(cpus, sizeof cpus, "?");
		}
		CPU_ZERO(&set);
		if (sched_getaffinity(0, sizeof set, &set) == 0)
			for (j = 0; j < CPU_SETSIZE; j++)
				if (CPU_ISSET(j, &set)) {
					if (first < 0)
						first = j;
					count++;
				}
		if (kept >= 0)
			hd_buf_printf(c->log, "GPU's NUMA node %s, its local CPUs %s; this thread "
				      "is kept on CPU %d for the whole calibration, as 'hdsim --real' "
				      "keeps its own, so host-side copies run from the same place\n",
				      node, cpus, kept);
		else
			hd_buf_printf(c->log, "GPU's NUMA node %s, its local CPUs %s; this thread "
				      "is on CPU %d and may run on %d CPUs (from %d); pin it "
				      "(numactl, taskset) to the GPU's node for stable host-transfer "
				      "figures\n", node, cpus, cpu, count, first);
	}
	hd_buf_printf(c->log, "Host wait policy (cudaGetDeviceFlags): %s\n",
		      (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleSpin ? "spin" :
		      (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleYield ? "yield" :
		      (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync ?
		      "blocking sync" : "auto (spin while contexts <= CPUs, else yield)");
	if (!CK(c, cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking)) ||
	    !CK(c, cudaStreamCreateWithFlags(&c->s2, cudaStreamNonBlocking)))
		return -1;
	for (i = 0; i < (int)HD_ARRAY_LEN(c->ev); i++)
		if (!CK(c, cudaEventCreate(&c->ev[i])))
			return -1;
	{
		void *fp = NULL, *dp = NULL;

		if (!CK(c, cudaHostAlloc(&fp, FLAG_WORDS * sizeof(int), cudaHostAllocMapped)))
			return -1;
		c->flags = fp;
		memset(fp, 0, FLAG_WORDS * sizeof(int));
		if (!CK(c, cudaHostGetDevicePointer(&dp, fp, 0)))
			return -1;
		c->dflags = dp;
	}
	if (!CK(c, cudaMalloc((void **)&c->scratch, 4096)) ||
	    !CK(c, cudaMemset(c->scratch, 0, 4096)) ||
	    !CK(c, cudaMallocHost(&c->hpin, c->max_copy)) ||
	    !CK(c, cudaMalloc(&c->dbuf, c->max_copy)) ||
	    !CK(c, cudaMemset(c->dbuf, 0, c->max_copy)))
		return -1;
	memset(c->hpin, 1, c->max_copy);
	/* malloc'd as lessons' pageable buffers are (real_cuda.c): glibc puts a
	 * large block 16 bytes past a page boundary, and pageable D2H copies into
	 * such a buffer ran 20-25 % slower than into a page-aligned one on the
	 * lent H100s (bench/results/2026-11-22-h100-host/align/) */
	c->hpage = malloc(c->max_copy);
	if (c->hpage == NULL) {
		hd_err_set(c->e, HD_EXIT_FAIL, "", "calibrate: malloc of %s of pageable memory "
			   "failed", hd_cal_fbytes(a, sizeof a, (double)c->max_copy));
		return -1;
	}
	memset(c->hpage, 1, c->max_copy);   /* touched: no first-touch faults in copies */
	return preload(c);
}

static void
teardown(struct cal *c)
{
	size_t i;

	release(c);
	cudaDeviceSynchronize();
	cudaGetLastError();
	if (c->s)
		cudaStreamDestroy(c->s);
	if (c->s2)
		cudaStreamDestroy(c->s2);
	for (i = 0; i < HD_ARRAY_LEN(c->ev); i++)
		if (c->ev[i])
			cudaEventDestroy(c->ev[i]);
	if (c->flags)
		cudaFreeHost((void *)c->flags);
	if (c->hpin)
		cudaFreeHost(c->hpin);
	cudaFree(c->dbuf);
	cudaFree(c->scratch);
	free(c->hpage);
	cudaGetLastError();
}

/* ---- host API costs ---------------------------------------------------------------- */

enum api_kind { API_LAUNCH, API_MEMCPY, API_EVENT, API_WAIT, API_SYNC, API__COUNT };

static const struct {
	const char *name, *key, *how;
} api_names[API__COUNT] = {
	[API_LAUNCH] = { "kernel launch (hd_kernel_spin 0 ns, 1 block)", "api.launch",
			 "median host time of a kernel launch" },
	[API_MEMCPY] = { "cudaMemcpyAsync 4 B pinned -> device", "api.memcpy",
			 "median host time of a 4 B pinned cudaMemcpyAsync" },
	[API_EVENT] = { "cudaEventRecord", "api.event", "median host time of cudaEventRecord" },
	[API_WAIT] = { "cudaStreamWaitEvent (event still pending)", "api.wait",
		       "median host time of cudaStreamWaitEvent" },
	[API_SYNC] = { "cudaStreamSynchronize (idle stream)", "api.sync",
		       "median host time of a sync with nothing to wait for" },
};

static int
api_call(struct cal *c, enum api_kind k)
{
	switch (k) {
	case API_LAUNCH:
		return KCK(c, hd_kernel_spin((hd_cuda_stream)c->s, 0, 1));
	case API_MEMCPY:
		return CK(c, cudaMemcpyAsync(c->dbuf, c->hpin, 4, cudaMemcpyHostToDevice, c->s));
	case API_EVENT:
		return CK(c, cudaEventRecord(c->ev[2], c->s));
	case API_WAIT:
		return CK(c, cudaStreamWaitEvent(c->s, c->ev[3], 0));
	case API_SYNC:
	default:
		return CK(c, cudaStreamSynchronize(c->s));
	}
}

/* Median host time of one call of kind k: batches of 32, the first a warm-up. */
static int
api_cost(struct cal *c, enum api_kind k, double *median)
{
	const int per = 32, batches = c->quick ? 4 : 10;
	double v[32 * 10];
	struct hd_stats st;
	char what[32];
	int b, j, nv = 0;

	for (b = -1; b < batches; b++) {
		if (stopped(c))
			return -1;
		if (k == API_WAIT) {
			/* something pending to wait for, on the other stream */
			if (!KCK(c, hd_kernel_spin((hd_cuda_stream)c->s2, 2000000, 1)) ||
			    !CK(c, cudaEventRecord(c->ev[3], c->s2)))
				return -1;
		}
		for (j = 0; j < per; j++) {
			double t0 = now_s(), t1;

			if (!api_call(c, k))
				return -1;
			t1 = now_s();
			if (b >= 0)
				v[nv++] = t1 - t0;
		}
		if (!CK(c, cudaStreamSynchronize(c->s)) || !CK(c, cudaStreamSynchronize(c->s2)))
			return -1;
	}
	if (hd_fit_stats(v, (size_t)nv, &st, c->e) != 0)
		return -1;
	snprintf(what, sizeof what, "1 call");
	log_row(c, what, nv, 1, &st, "");
	hd_buf_printf(c->log, "    = %s\n", api_names[k].name);
	*median = st.median;
	return 0;
}

static int
stage_api(struct cal *c)
{
	double v[API__COUNT];
	int k;

	log_head(c, "Host API costs", "CLOCK_MONOTONIC around each call, batches of 32 "
		 "after a warm-up batch, median over the calls");
	for (k = 0; k < API__COUNT; k++) {
		progress(c, k, API__COUNT, "API cost: %s", api_names[k].key);
		if (api_cost(c, (enum api_kind)k, &v[k]) != 0)
			return -1;
	}
	hd_cal_set_time(&c->sum, "api.launch", &c->p->api_launch, v[API_LAUNCH], api_names[API_LAUNCH].how);
	hd_cal_set_time(&c->sum, "api.memcpy", &c->p->api_memcpy, v[API_MEMCPY], api_names[API_MEMCPY].how);
	hd_cal_set_time(&c->sum, "api.event", &c->p->api_event, v[API_EVENT], api_names[API_EVENT].how);
	hd_cal_set_time(&c->sum, "api.wait", &c->p->api_wait, v[API_WAIT], api_names[API_WAIT].how);
	hd_cal_set_time(&c->sum, "api.sync", &c->p->api_sync, v[API_SYNC], api_names[API_SYNC].how);
	c->api_memcpy = v[API_MEMCPY];
	c->api_sync = v[API_SYNC];
	return 0;
}

/* ---- latencies --------------------------------------------------------------------- */

/*
 * Launch a 4-byte fill of a mapped host word on an idle GPU and spin on the
 * word: from the launch call's return to the write showing up.
 */
static int
sample_started(struct cal *c, const void *arg, double *sec)
{
	volatile int *w = c->flags + FLAG_STARTED;
	double t1, t2;

	(void)arg;
	if (!CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	*w = 0;
	__sync_synchronize();
	if (!KCK(c, hd_kernel_fill((hd_cuda_stream)c->s, c->dflags + FLAG_STARTED, 4,
				   0xa5a5a5a5u, 1)))
		return -1;
	t1 = now_s();
	do
		t2 = now_s();
	while (*w == 0 && t2 - t1 < POLL_TIMEOUT_S);
	if (!CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	if (t2 - t1 >= POLL_TIMEOUT_S) {
		*sec = -1;      /* the write never showed: the caller keeps the base */
		return 0;
	}
	*sec = t2 - t1;
	return 0;
}

/* Launch a spin of SPIN_WAKE_NS and sync: from the launch's return to the sync's. */
static int
sample_spin_sync(struct cal *c, const void *arg, double *sec)
{
	double t1, t2;

	(void)arg;
	if (!CK(c, cudaStreamSynchronize(c->s)) ||
	    !KCK(c, hd_kernel_spin((hd_cuda_stream)c->s, SPIN_WAKE_NS, 1)))
		return -1;
	t1 = now_s();
	if (!CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t2 = now_s();
	*sec = t2 - t1;
	return 0;
}

/* Event, empty kernel, event on an idle stream: GPU time between the events. */
static int
sample_event_gap(struct cal *c, const void *arg, double *sec)
{
	float ms = 0;

	(void)arg;
	if (!CK(c, cudaStreamSynchronize(c->s)) || !CK(c, cudaEventRecord(c->ev[0], c->s)) ||
	    !KCK(c, hd_kernel_spin((hd_cuda_stream)c->s, 0, 1)) ||
	    !CK(c, cudaEventRecord(c->ev[1], c->s)) || !CK(c, cudaStreamSynchronize(c->s)) ||
	    !CK(c, cudaEventElapsedTime(&ms, c->ev[0], c->ev[1])))
		return -1;
	*sec = (double)ms * 1e-3;
	return 0;
}

/* A 4 B pinned copy on an idle stream, then a sync: from the copy call's return. */
static int
sample_copy_sync(struct cal *c, const void *arg, double *sec)
{
	double t1, t2;

	(void)arg;
	if (!CK(c, cudaStreamSynchronize(c->s)) ||
	    !CK(c, cudaMemcpyAsync(c->dbuf, c->hpin, 4, cudaMemcpyHostToDevice, c->s)))
		return -1;
	t1 = now_s();
	if (!CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t2 = now_s();
	*sec = t2 - t1;
	return 0;
}

static int
stage_latency(struct cal *c)
{
	const int n = c->quick ? 9 : 25;
	struct hd_stats st, sw, sg, sc;
	double wake, dummy;
	char a[32], b[32], x[32], y[32];

	log_head(c, "Launch latency and sync wake-up", "host clock on an idle GPU; the "
		 "kernel's write to a mapped host word marks its start");
	progress(c, 0, 4, "launch latency");
	if (sample_started(c, NULL, &dummy) != 0 ||     /* warm-up */
	    sample_stats(c, sample_started, NULL, n, &st) != 0)
		return -1;
	if (st.min < 0) {
		hd_buf_printf(c->log, "  the kernel's write to host memory was not seen within "
			      "%.0f s: launch latency kept from the base profile\n",
			      POLL_TIMEOUT_S);
		c->launch_latency = hd_time_to_s(c->base.launch_latency);
		hd_buf_printf(&c->sum, "  %-20s kept (a kernel's write to host memory was not "
			      "seen)\n", "gpu.launch_latency");
	} else {
		log_row(c, "launch->start", n, 1, &st, "");
		c->launch_latency = st.median;
		c->have_launch_latency = 1;
		hd_cal_set_time(&c->sum, "gpu.launch_latency", &c->p->launch_latency, st.median,
			 "launch call's return to the kernel's first write seen by the host");
	}
	progress(c, 1, 4, "sync wake-up");
	if (sample_spin_sync(c, NULL, &dummy) != 0 ||
	    sample_stats(c, sample_spin_sync, NULL, n, &sw) != 0)
		return -1;
	log_row(c, "spin+sync", n, 1, &sw, "");
	wake = sw.median - (double)SPIN_WAKE_NS * 1e-9 - c->launch_latency;
	hd_buf_printf(c->log, "  sync wake-up = %s (launch's return to sync's return) - %s "
		      "(spin) - %s (launch latency) = %s%s\n", hd_cal_ftime(a, sizeof a, sw.median),
		      hd_cal_ftime(b, sizeof b, (double)SPIN_WAKE_NS * 1e-9),
		      hd_cal_ftime(x, sizeof x, c->launch_latency), hd_cal_ftime(y, sizeof y, fmax(wake, 0)),
		      wake < 0 ? " (clamped at 0)" : "");
	c->wake = fmax(wake, 0);
	hd_cal_set_time(&c->sum, "api.wake", &c->p->sync_wake, c->wake,
		 "spin-and-sync time less the spin and the launch latency");
	progress(c, 2, 4, "event gap");
	if (sample_event_gap(c, NULL, &dummy) != 0 ||
	    sample_stats(c, sample_event_gap, NULL, n, &sg) != 0)
		return -1;
	log_row(c, "event gap", n, 1, &sg, "");
	hd_buf_printf(c->log, "    = GPU time from an event to an event after an empty "
		      "kernel (includes the host's launch call; for comparison)\n");
	progress(c, 3, 4, "isolated copy");
	if (sample_copy_sync(c, NULL, &dummy) != 0 ||
	    sample_stats(c, sample_copy_sync, NULL, n, &sc) != 0)
		return -1;
	log_row(c, "4 B copy+sync", n, 1, &sc, "");
	hd_buf_printf(c->log, "    = an isolated 4 B copy from the call's return to the "
		      "sync's; less the wake-up: %s (compare with pcie.latency below)\n",
		      hd_cal_ftime(a, sizeof a, fmax(sc.median - c->wake, 0)));
	return 0;
}

/* ---- pinned copies ------------------------------------------------------------------- */

struct sweep {
	double n[MAX_SIZES], t[MAX_SIZES];
	int count;
};

/*
 * Fit t = alpha + n / beta over a sweep (alpha from sizes up to `small`,
 * beta from sizes from `large`; 0 and 0: one least-squares fit over all),
 * and log it.  Sets *fitted; a sweep that cannot be fitted is logged, not
 * an error.
 */
static int
sweep_fit(struct cal *c, const struct sweep *sw, double small, double large,
	  const char *rate_what, const char *beta_from, const char *alpha_from,
	  struct hd_fit *fit, int *fitted)
{
	struct hd_err fe = { 0 };

	if (hd_fit_alpha_beta(sw->n, sw->t, (size_t)sw->count, small, large, fit, &fe) != 0) {
		hd_buf_printf(c->log, "  no fit: %s\n", fe.msg);
		return 0;
	}
	log_fit(c, fit, sw->count, rate_what, beta_from, alpha_from);
	*fitted = 1;
	return 0;
}

static int
copy_sizes(const struct cal *c, uint64_t *sizes)
{
	static const uint64_t quick[] = { 4 * KiB, MiB, 64 * MiB, 256 * MiB };
	uint64_t b;
	int k = 0;

	if (c->quick) {
		memcpy(sizes, quick, sizeof quick);
		return (int)HD_ARRAY_LEN(quick);
	}
	for (b = 4; b <= GiB; b *= 2)
		sizes[k++] = b;
	return k;
}

/* Gated copies of every size in one direction; fit and log. */
static int
sweep_pinned(struct cal *c, int d2h, struct hd_fit *fit, int *fitted)
{
	uint64_t sizes[MAX_SIZES];
	int ns = copy_sizes(c, sizes), i, samples;
	const char *dir = d2h ? "D2H" : "H2D";
	struct sweep sw;
	char title[96], sz[32], r[32];

	memset(&sw, 0, sizeof sw);
	*fitted = 0;
	snprintf(title, sizeof title, "Pinned %s (cudaMemcpyAsync, pinned host memory)", dir);
	log_head(c, title, "CUDA events around N copies queued behind a spin-kernel gate "
		 "on a non-blocking stream; time per copy");
	for (i = 0; i < ns; i++) {
		struct copy_op op;
		struct gate g;
		struct hd_stats st;

		hd_cal_fbytes(sz, sizeof sz, (double)sizes[i]);
		if (sizes[i] > c->max_copy) {
			hd_buf_printf(c->log, "  %12s skipped: larger than the largest buffer\n",
				      sz);
			continue;
		}
		progress(c, i, ns, "pinned %s %s", dir, sz);
		op.dst = d2h ? c->hpin : c->dbuf;
		op.src = d2h ? c->dbuf : c->hpin;
		op.n = sizes[i];
		op.kind = d2h ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
		g.f = enq_copy;
		g.arg = &op;
		gate_counts(sizes[i], &g.warm, &g.reps);
		samples = c->quick || sizes[i] >= 64 * MiB ? 3 : 5;
		if (sample_stats(c, gated, &g, samples, &st) != 0)
			return -1;
		log_row(c, sz, samples, g.reps, &st, hd_cal_frate(r, sizeof r,
							    (double)sizes[i] / st.median));
		sw.n[sw.count] = (double)sizes[i];
		sw.t[sw.count++] = st.median;
	}
	return sweep_fit(c, &sw, 64.0 * KiB, 16.0 * MiB, "B/s", ">= 16 MiB",
			 "mean of t - n / beta over sizes <= 64 KiB", fit, fitted);
}

/*
 * Copies as a program issues them: the host calls cudaMemcpyAsync `reps`
 * times in a row on an ungated stream while the engine works through them.
 * Seconds per copy from the first call to the sync's return (*done), and
 * the host's time per call (*issue).
 */
struct live_op {
	size_t n;
	int reps;
	int k;                          /* samples taken */
	double issue[MAX_SAMPLES];      /* the host's time per call, per sample */
};

static int
sample_live(struct cal *c, const void *arg, double *done)
{
	struct live_op *op = (struct live_op *)arg;
	size_t span = (size_t)(c->max_copy < 64 * MiB ? c->max_copy : 64 * MiB);
	double t0, t1;
	int i;

	if (!CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t0 = now_s();
	for (i = 0; i < op->reps; i++) {
		size_t at = (size_t)i * op->n % span;

		if (!CK(c, cudaMemcpyAsync((char *)c->dbuf + at, (char *)c->hpin + at, op->n,
					   cudaMemcpyHostToDevice, c->s)))
			return -1;
	}
	t1 = now_s();
	if (!CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	*done = (now_s() - t0) / op->reps;
	op->issue[op->k++ % MAX_SAMPLES] = (t1 - t0) / op->reps;
	return 0;
}

/*
 * The engine's fixed cost per copy when the host keeps feeding it: on the
 * H100 machines back-to-back copies issued live cost about 0.5 us more each
 * than the same copies queued behind a gate (bench/results/2026-11-22-h100-
 * host/), and lessons issue their copies live.  *alpha is the mean of
 * time - n / rate over the sizes where the engine set the pace, or -1 where
 * the host's calls did at every size (then the gated figure stands).
 */
static int
live_latency(struct cal *c, double rate, double *alpha)
{
	static const size_t sizes[] = { 4 * KiB, 16 * KiB, 64 * KiB };
	enum { NS = (int)HD_ARRAY_LEN(sizes) };
	double n[NS], done[NS], issue[NS], dummy;
	int i, used;
	char sz[32], a[32], b[32];

	*alpha = -1;
	log_head(c, "Pinned H2D copies issued live (no gate), as lessons issue them",
		 "host clock from the first of 2048 cudaMemcpyAsync calls to the sync's return, "
		 "per copy; 'issue' is the host's time per call");
	for (i = 0; i < NS; i++) {
		static struct live_op op, warm;        /* large: kept off the stack */
		struct hd_stats st, si;
		int samples = c->quick ? 3 : 5;

		memset(&op, 0, sizeof op);
		memset(&warm, 0, sizeof warm);
		op.n = warm.n = sizes[i];
		op.reps = 2048;
		warm.reps = 64;
		hd_cal_fbytes(sz, sizeof sz, (double)sizes[i]);
		progress(c, i, NS, "live copies %s", sz);
		if (sample_live(c, &warm, &dummy) != 0 ||
		    sample_stats(c, sample_live, &op, samples, &st) != 0 ||
		    hd_fit_stats(op.issue, (size_t)samples, &si, c->e) != 0)
			return -1;
		n[i] = (double)sizes[i];
		done[i] = st.median;
		issue[i] = si.median;
		log_row(c, sz, samples, op.reps, &st, "");
		hd_buf_printf(c->log, "  %12s %7s %5s %12s (issue, median%s)\n", "", "", "",
			      hd_cal_ftime(a, sizeof a, si.median),
			      si.median >= 0.9 * st.median ? ": the host set the pace" : "");
	}
	used = hd_fit_live_latency(n, done, issue, NS, rate, alpha);
	if (used == 0) {
		hd_buf_printf(c->log, "  the host's calls, not the engine, set the pace at every "
			      "size: the gated figure stands\n");
		return 0;
	}
	hd_buf_printf(c->log, "  engine cost per live copy = mean of t - n / %s over %d size%s "
		      "= %s\n", hd_cal_frate(b, sizeof b, rate), used, used == 1 ? "" : "s",
		      hd_cal_ftime(a, sizeof a, *alpha));
	return 0;
}

static int
stage_pinned(struct cal *c)
{
	struct hd_fit fh, fd;
	int okh, okd;
	double lat = -1, lo = c->lo, w = (c->hi - c->lo) / 5;
	char how[128];

	stage(c, lo, lo + 2 * w);
	if (sweep_pinned(c, 0, &fh, &okh) != 0)
		return -1;
	stage(c, lo + 2 * w, lo + 4 * w);
	if (sweep_pinned(c, 1, &fd, &okd) != 0)
		return -1;
	stage(c, lo + 4 * w, lo + 5 * w);
	c->h2d = okh ? fh.beta : c->base.h2d_bw;
	c->d2h = okd ? fd.beta : c->base.d2h_bw;
	if (okh)
		hd_cal_set_rate(&c->sum, "pcie.h2d", &c->p->h2d_bw, fh.beta, "fitted beta, pinned H2D");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "pcie.h2d");
	if (okd)
		hd_cal_set_rate(&c->sum, "pcie.d2h", &c->p->d2h_bw, fd.beta, "fitted beta, pinned D2H");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "pcie.d2h");
	/* The model charges copy_latency per copy, then the bytes at the link rate:
	 * exactly alpha of the gated (back-to-back) fit.  One key serves both
	 * directions: the mean of the two. */
	if (okh && okd)
		lat = (fh.alpha + fd.alpha) / 2;
	else if (okh || okd)
		lat = okh ? fh.alpha : fd.alpha;
	snprintf(how, sizeof how, "fitted alpha of back-to-back copies%s",
		 okh && okd ? ", mean of H2D and D2H" : "");
	if (lat >= 0) {
		double live;

		if (live_latency(c, c->h2d, &live) != 0)
			return -1;
		if (live > lat) {
			lat = live;
			snprintf(how, sizeof how, "back-to-back copies issued live, less the "
				 "bytes at pcie.h2d");
		}
	}
	if (lat >= 0) {
		hd_cal_set_time(&c->sum, "pcie.latency", &c->p->copy_latency, lat, how);
		c->copy_latency = lat;
	} else {
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "pcie.latency");
		c->copy_latency = hd_time_to_s(c->base.copy_latency);
	}
	return 0;
}

/* ---- both directions at once ----------------------------------------------------------- */

struct bidir_res {
	double t_h2d, t_d2h;
	int gen, lanes;
	char link[256];
};

/*
 * One sample: H2D on s and D2H on s2 start together behind one gate, each
 * `reps` copies of b bytes; the link is read from sysfs while they run.
 */
static int
sample_bidir(struct cal *c, uint64_t b, int reps, struct bidir_res *r)
{
	char *hp = c->hpin, *dp = c->dbuf;
	float ms1 = 0, ms2 = 0;
	int i, good;

	c->flags[FLAG_LATCH] = 0;
	c->flags[FLAG_TIMED_OUT] = 0;
	__sync_synchronize();
	good = KCK(c, hd_kernel_latch((hd_cuda_stream)c->s, c->dflags + FLAG_LATCH,
				      LATCH_TIMEOUT_NS, c->dflags + FLAG_TIMED_OUT));
	/* s2 waits for the gate, warms up, and s waits for that before starting */
	good = good && CK(c, cudaEventRecord(c->ev[2], c->s));
	good = good && CK(c, cudaStreamWaitEvent(c->s2, c->ev[2], 0));
	good = good && CK(c, cudaMemcpyAsync(hp + b, dp + b, b, cudaMemcpyDeviceToHost, c->s2));
	good = good && CK(c, cudaEventRecord(c->ev[3], c->s2));
	good = good && CK(c, cudaMemcpyAsync(dp, hp, b, cudaMemcpyHostToDevice, c->s));
	good = good && CK(c, cudaStreamWaitEvent(c->s, c->ev[3], 0));
	good = good && CK(c, cudaEventRecord(c->ev[0], c->s));
	good = good && CK(c, cudaStreamWaitEvent(c->s2, c->ev[0], 0));
	for (i = 0; good && i < reps; i++)
		good = CK(c, cudaMemcpyAsync(dp, hp, b, cudaMemcpyHostToDevice, c->s)) &&
		       CK(c, cudaMemcpyAsync(hp + b, dp + b, b, cudaMemcpyDeviceToHost, c->s2));
	good = good && CK(c, cudaEventRecord(c->ev[1], c->s));
	good = good && CK(c, cudaEventRecord(c->ev[3], c->s2));
	release(c);
	if (good)
		read_link(c, &r->gen, &r->lanes, r->link, sizeof r->link);
	good = good && CK(c, cudaStreamSynchronize(c->s)) &&
	       CK(c, cudaStreamSynchronize(c->s2));
	if (!good)
		return -1;
	if (c->flags[FLAG_TIMED_OUT]) {
		hd_err_set(c->e, HD_EXIT_FAIL, "", "calibrate: the spin-kernel gate timed out "
			   "before the bidirectional copies were queued");
		return -1;
	}
	if (!CK(c, cudaEventElapsedTime(&ms1, c->ev[0], c->ev[1])) ||
	    !CK(c, cudaEventElapsedTime(&ms2, c->ev[0], c->ev[3])))
		return -1;
	r->t_h2d = (double)ms1 * 1e-3;
	r->t_d2h = (double)ms2 * 1e-3;
	return 0;
}

static int
stage_bidir(struct cal *c)
{
	uint64_t b = c->max_copy / 2 < 256 * MiB ? c->max_copy / 2 : 256 * MiB;
	const int samples = 3, reps = c->quick ? 2 : 4;
	double tot[3], h[3], d[3];
	struct bidir_res r;
	struct hd_stats st, sh, sd;
	char sz[32], a[32], x[32], y[32];
	int i;

	if (c->quick && b > 64 * MiB)
		b = 64 * MiB;
	hd_cal_fbytes(sz, sizeof sz, (double)b);
	log_head(c, "Both directions at once (pinned H2D on one stream, D2H on another)",
		 "one spin-kernel gate releases both; total = bytes moved while both ran / "
		 "that time, the later direction's tail at its solo rate");
	memset(&r, 0, sizeof r);
	for (i = 0; i < samples; i++) {
		struct hd_err fe = { 0 };

		progress(c, i, samples, "bidirectional %s", sz);
		if (stopped(c) || sample_bidir(c, b, reps, &r) != 0)
			return -1;
		h[i] = r.t_h2d / reps;
		d[i] = r.t_d2h / reps;
		if (hd_fit_bidir((double)b * reps, r.t_h2d, r.t_d2h, c->h2d, c->d2h, &tot[i],
				 &fe) != 0) {
			hd_buf_printf(c->log, "  no fit: %s\n", fe.msg);
			return 0;
		}
	}
	if (hd_fit_stats(h, samples, &sh, c->e) != 0 || hd_fit_stats(d, samples, &sd, c->e) != 0 ||
	    hd_fit_stats(tot, samples, &st, c->e) != 0)
		return -1;
	log_row(c, sz, samples, reps, &sh, hd_cal_frate(a, sizeof a, (double)b / sh.median));
	hd_buf_printf(c->log, "    = H2D while D2H runs\n");
	log_row(c, sz, samples, reps, &sd, hd_cal_frate(a, sizeof a, (double)b / sd.median));
	hd_buf_printf(c->log, "    = D2H while H2D runs\n");
	hd_buf_printf(c->log, "  total while both ran: %s (median), IQR %s; alone: H2D %s, "
		      "D2H %s\n", hd_cal_frate(a, sizeof a, st.median), hd_cal_frate(x, sizeof x, st.iqr),
		      hd_cal_frate(y, sizeof y, c->h2d), hd_cal_frate(sz, sizeof sz, c->d2h));
	hd_buf_printf(c->log, "  PCIe link during the copies (sysfs): %s\n", r.link);
	hd_cal_set_rate(&c->sum, "pcie.bidir", &c->p->bidir_bw, st.median,
		 "total of both directions while both ran");
	c->bidir = st.median;
	if (r.gen > 0 && r.lanes > 0) {
		hd_buf_printf(&c->sum, "  %-20s %-14d (base %d) sysfs current_link_speed under "
			      "load\n", "pcie.gen", r.gen, c->p->pcie_gen);
		hd_buf_printf(&c->sum, "  %-20s %-14d (base %d) sysfs current_link_width\n",
			      "pcie.lanes", r.lanes, c->p->pcie_lanes);
		c->p->pcie_gen = r.gen;
		c->p->pcie_lanes = r.lanes;
	} else
		hd_buf_printf(&c->sum, "  %-20s kept (sysfs link unreadable)\n",
			      "pcie.gen/lanes");
	return 0;
}

/* ---- pageable copies ------------------------------------------------------------------- */

struct page_op {
	uint64_t n;
	int d2h;
	double call;            /* out: the copy call alone */
};

/* cudaMemcpyAsync to or from pageable memory, then a sync: host clock. */
static int
sample_pageable(struct cal *c, const void *arg, double *sec)
{
	struct page_op *op = (struct page_op *)arg;
	double t0, t1, t2;
	int good;

	if (!CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t0 = now_s();
	if (op->d2h)
		good = CK(c, cudaMemcpyAsync(c->hpage, c->dbuf, op->n, cudaMemcpyDeviceToHost,
					     c->s));
	else
		good = CK(c, cudaMemcpyAsync(c->dbuf, c->hpage, op->n, cudaMemcpyHostToDevice,
					     c->s));
	t1 = now_s();
	if (!good || !CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t2 = now_s();
	op->call = t1 - t0;
	*sec = t2 - t0;
	return 0;
}

static int
stage_pageable(struct cal *c)
{
	static const uint64_t quick[] = { MiB, 64 * MiB, 256 * MiB };
	uint64_t sizes[MAX_SIZES], s;
	double n[2 * MAX_SIZES], t[2 * MAX_SIZES];
	int d2h[2 * MAX_SIZES], ns = 0, np = 0, dir, i;
	struct hd_staging base;
	struct hd_staging_fit f;
	struct hd_err fe = { 0 };
	char sz[32], r[32], a[32], b[32], x[32];

	/* --real's host-only pass takes every size as calibrate does: fitted to
	 * three sizes, the staging model's memcpy rate wandered to twice what any
	 * copy reached (bench/results/2026-11-22-h100-host/h100-live/) */
	if (c->quick && !c->o->host_only) {
		memcpy(sizes, quick, sizeof quick);
		ns = (int)HD_ARRAY_LEN(quick);
	} else
		for (s = 64 * KiB; s <= GiB; s *= 2)
			sizes[ns++] = s;
	for (dir = 0; dir < 2; dir++) {
		char title[96];

		snprintf(title, sizeof title, "Pageable %s (cudaMemcpyAsync from malloc'd memory, "
			 "then cudaStreamSynchronize)", dir ? "D2H" : "H2D");
		log_head(c, title, "host clock from the copy call to the sync's return, buffer "
			 "touched beforehand; 'call' is the copy call alone");
		for (i = 0; i < ns; i++) {
			struct page_op op;
			struct hd_stats st;
			double dummy;
			int samples = 5;       /* host-side figures are noisy, even quick */

			hd_cal_fbytes(sz, sizeof sz, (double)sizes[i]);
			if (sizes[i] > c->max_copy) {
				hd_buf_printf(c->log, "  %12s skipped: larger than the largest "
					      "buffer\n", sz);
				continue;
			}
			progress(c, dir * ns + i, 2 * ns, "pageable %s %s", dir ? "D2H" : "H2D",
				 sz);
			op.n = sizes[i];
			op.d2h = dir;
			if (sample_pageable(c, &op, &dummy) != 0 ||     /* warm-up */
			    sample_stats(c, sample_pageable, &op, samples, &st) != 0)
				return -1;
			log_row(c, sz, samples, 1, &st, hd_cal_frate(r, sizeof r,
							      (double)sizes[i] / st.median));
			hd_buf_printf(c->log, "  %12s %7s %5s %12s (last sample's call)\n", "",
				      "", "", hd_cal_ftime(a, sizeof a, op.call));
			n[np] = (double)sizes[i];
			t[np] = st.median;
			d2h[np++] = dir;
		}
	}
	memset(&base, 0, sizeof base);
	base.memcpy_bw[0] = c->base.host_memcpy_h2d_bw;
	base.memcpy_bw[1] = c->base.host_memcpy_d2h_bw;
	base.h2d_bw = fmin(c->h2d, c->bidir > 0 ? c->bidir : c->h2d);
	base.d2h_bw = fmin(c->d2h, c->bidir > 0 ? c->bidir : c->d2h);
	base.latency = c->copy_latency;
	base.chunk = (double)c->base.staging_chunk;
	base.buffers = c->base.staging_buffers;
	base.api = c->api_memcpy;
	base.api_sync = c->api_sync;
	base.wake = c->wake;
	if (hd_fit_staging(n, t, d2h, (size_t)np, &base, &f, &fe) != 0) {
		hd_buf_printf(c->log, "  no fit: %s\n", fe.msg);
		hd_buf_printf(&c->sum, "  %-20s kept (no pageable fit)\n", "host.memcpy_*");
		return 0;
	}
	hd_buf_printf(c->log, "  fit of the model's staging pipeline (the pinned rates, latency "
		      "and API costs above held fixed; one memcpy rate per direction):\n");
	hd_buf_printf(c->log, "    base shape (chunk %s, %d buffers): host memcpy HtoD %s, DtoH "
		      "%s; residual max %.1f %%, rms %.1f %%\n", hd_cal_fbytes(a, sizeof a, base.chunk),
		      base.buffers, hd_cal_frate(b, sizeof b, f.base_memcpy_bw[0]),
		      hd_cal_frate(x, sizeof x, f.base_memcpy_bw[1]), 100 * f.base_max_rel,
		      100 * f.base_rms_rel);
	if (f.shape_fitted)
		hd_buf_printf(c->log, "    best shape (chunk %s, %d buffers): host memcpy HtoD %s, "
			      "DtoH %s; residual max %.1f %%, rms %.1f %%: taken\n",
			      hd_cal_fbytes(a, sizeof a, f.chunk), f.buffers,
			      hd_cal_frate(b, sizeof b, f.memcpy_bw[0]),
			      hd_cal_frate(x, sizeof x, f.memcpy_bw[1]),
			      100 * f.max_rel, 100 * f.rms_rel);
	else
		hd_buf_printf(c->log, "    no other chunk size or buffer count fits clearly "
			      "better (by a fifth of the rms error, with the base shape off by "
			      "more than 2 %%): the base's staging.chunk and staging.buffers are "
			      "kept\n");
	/*
	 * The rates again on the large copies alone, with the shape just chosen:
	 * a small source still in the CPU's caches copies faster than one that
	 * streams from DRAM, and lesson-size copies stream from DRAM.
	 */
	{
		struct hd_staging big = base;
		struct hd_staging_fit f2;
		struct hd_err fe2 = { 0 };
		double bn[64], bt[64];
		int bd[64], nb = 0, k;

		/*
		 * One thread's memcpy sees one core complex's L3 (32 MiB on the
		 * EPYC hosts measured), not the total that sysfs may report (300
		 * MiB on one of them): on both the H100 and H200 hosts the rate
		 * dropped between 64 and 128 MiB and stayed flat above.
		 */
		double from = 128.0 * MiB;

		big.chunk = f.chunk;
		big.buffers = f.buffers;
		/* At least the two largest sizes of each direction take part. */
		for (k = 0; k < np; k++)
			if (n[k] < from && n[k] * 2 >= n[np - 1])
				from = n[k];
		for (k = 0; k < np && nb < 64; k++)
			if (n[k] >= from) {
				bn[nb] = n[k];
				bt[nb] = t[k];
				bd[nb++] = d2h[k];
			}
		if (nb > 0 && hd_fit_staging(bn, bt, bd, (size_t)nb, &big, &f2, &fe2) == 0) {
			hd_buf_printf(c->log, "    rates on copies of %s and more (the source "
				      "streams from DRAM, as in lesson-size copies; smaller ones run "
				      "partly from the CPU caches): HtoD %s, DtoH %s; residual max "
				      "%.1f %%: taken\n", hd_cal_fbytes(a, sizeof a, from),
				      hd_cal_frate(b, sizeof b, f2.points[0] ? f2.memcpy_bw[0] : f.memcpy_bw[0]),
				      hd_cal_frate(x, sizeof x, f2.points[1] ? f2.memcpy_bw[1] : f.memcpy_bw[1]),
				      100 * f2.max_rel);
			for (k = 0; k < 2; k++)
				if (f2.points[k] > 0)
					f.memcpy_bw[k] = f2.memcpy_bw[k];
		}
	}
	if (f.points[0] > 0)
		hd_cal_set_rate(&c->sum, "host.memcpy_h2d", &c->p->host_memcpy_h2d_bw, f.memcpy_bw[0],
			 "fitted through the model's staging pipeline");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no HtoD pageable copies)\n",
			      "host.memcpy_h2d");
	if (f.points[1] > 0)
		hd_cal_set_rate(&c->sum, "host.memcpy_d2h", &c->p->host_memcpy_d2h_bw, f.memcpy_bw[1],
			 "fitted through the model's staging pipeline");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no DtoH pageable copies)\n",
			      "host.memcpy_d2h");
	if (f.shape_fitted) {
		hd_buf_printf(&c->sum, "  %-20s %-14s (base %s) fitted staging shape\n",
			      "staging.chunk", hd_cal_fbytes(a, sizeof a, f.chunk),
			      hd_cal_fbytes(b, sizeof b, (double)c->p->staging_chunk));
		hd_buf_printf(&c->sum, "  %-20s %-14d (base %d) fitted staging shape\n",
			      "staging.buffers", f.buffers, c->p->staging_buffers);
		c->p->staging_chunk = (uint64_t)f.chunk;
		c->p->staging_buffers = f.buffers;
	} else
		hd_buf_printf(&c->sum, "  %-20s kept (the data do not decide them)\n",
			      "staging.chunk/buffers");
	return 0;
}

/* ---- device-local copies and kernels ------------------------------------------------- */

/* Gated operations over sizes x (bytes or FLOP); the fit gives the rate. */
static int
sweep_gated(struct cal *c, const char *title, const char *what, enq_fn f, void *arg,
	    struct kern_op *k, struct copy_op *cp, const double *xs, int nx, int flop,
	    struct hd_fit *fit, int *fitted)
{
	struct sweep sw;
	char sz[32], r[32];
	int i;

	memset(&sw, 0, sizeof sw);
	*fitted = 0;
	log_head(c, title, "CUDA events around N operations queued behind a spin-kernel "
		 "gate; time per operation");
	for (i = 0; i < nx; i++) {
		struct gate g;
		struct hd_stats st;
		double amount;

		if (flop)
			snprintf(sz, sizeof sz, "%.3g FLOP", xs[i]);
		else
			hd_cal_fbytes(sz, sizeof sz, xs[i]);
		progress(c, i, nx, "%s %s", what, sz);
		if (k != NULL) {
			k->bytes = (uint64_t)xs[i];
			k->flops = xs[i];
		}
		if (cp != NULL)
			cp->n = (size_t)xs[i];
		g.f = f;
		g.arg = arg;
		g.warm = 1;
		g.reps = flop ? 2 : 4;
		if (sample_stats(c, gated, &g, 3, &st) != 0)
			return -1;
		/* compute kernels do a whole number of rounds; memory kernels move a
		 * whole number of 32-byte pairs */
		amount = flop ? k->done : k != NULL ? (double)(k->bytes / 32 * 32) : xs[i];
		if (flop)
			hd_fmt_flops(r, sizeof r, amount / st.median);
		else
			hd_cal_frate(r, sizeof r, amount / st.median);
		log_row(c, sz, 3, g.reps, &st, r);
		sw.n[sw.count] = amount;
		sw.t[sw.count++] = st.median;
	}
	return sweep_fit(c, &sw, 0, 0, flop ? "FLOP/s" : "B/s", "(all)", "", fit, fitted);
}

/* Append v to xs unless it is larger than max or already there. */
static void
add_size(double *xs, int *nx, double v, double max)
{
	int i;

	if (v > max || v <= 0)
		return;
	for (i = 0; i < *nx; i++)
		if (xs[i] == v)
			return;
	xs[(*nx)++] = v;
}

static int
stage_kernels(struct cal *c)
{
	double xs[4];
	int nx, ok;
	struct hd_fit f;
	struct kern_op k;
	struct copy_op cp;
	struct hd_stats st;
	struct gate g;
	double hbm_alpha = -1, per;
	char a[32];
	uint64_t half = c->max_copy / 2;

	/* device-local copies: the buffer's first half into its second */
	stage(c, c->lo, c->lo + (c->hi - c->lo) / 4);
	nx = 0;
	if (!c->quick)
		add_size(xs, &nx, 32.0 * MiB, half);
	add_size(xs, &nx, (c->quick ? 64.0 : 128.0) * MiB, half);
	add_size(xs, &nx, (double)(half < 512 * MiB ? half : 512 * MiB), half);
	memset(&cp, 0, sizeof cp);
	cp.dst = (char *)c->dbuf + half;
	cp.src = c->dbuf;
	cp.kind = cudaMemcpyDeviceToDevice;
	if (sweep_gated(c, "Device-local copies (cudaMemcpyAsync D2D, bytes counted once)",
			"D2D copy", enq_copy, &cp, NULL, &cp, xs, nx, 0, &f, &ok) != 0)
		return -1;
	if (ok)
		hd_cal_set_rate(&c->sum, "gpu.d2d", &c->p->d2d_bw, f.beta, "fitted rate of D2D copies");

	/* memory-bound kernel: traffic = bytes (half read, half written), well
	 * above the L2 size */
	stage(c, c->hi, c->hi + (c->hi - c->lo));
	nx = 0;
	if (c->max_copy < 256 * MiB)
		add_size(xs, &nx, 64.0 * MiB, (double)c->max_copy);
	add_size(xs, &nx, 256.0 * MiB, (double)c->max_copy);
	if (!c->quick)
		add_size(xs, &nx, 512.0 * MiB, (double)c->max_copy);
	add_size(xs, &nx, (double)c->max_copy, (double)c->max_copy);
	memset(&k, 0, sizeof k);
	k.buf = c->dbuf;
	if (sweep_gated(c, "Memory-bound kernel (hd_kernel_memory: half read, half written)",
			"memory kernel", enq_memory, &k, &k, NULL, xs, nx, 0, &f, &ok) != 0)
		return -1;
	if (ok) {
		hd_cal_set_rate(&c->sum, "gpu.hbm", &c->p->hbm_bw, f.beta,
			 "fitted rate of the memory kernel (read + write traffic)");
		hbm_alpha = f.alpha;
	}

	/* compute-bound kernel */
	stage(c, c->hi, c->hi + (c->hi - c->lo));
	nx = 0;
	if (!c->quick)
		xs[nx++] = 1e10;
	xs[nx++] = 1e11;
	xs[nx++] = 1e12;
	memset(&k, 0, sizeof k);
	if (sweep_gated(c, "Compute-bound kernel (hd_kernel_compute: FP32 FMA, 2 FLOP each)",
			"compute kernel", enq_compute, &k, &k, NULL, xs, nx, 1, &f, &ok) != 0)
		return -1;
	c->flops = ok ? f.beta : c->base.flops;
	if (ok)
		set_flops(c, "gpu.fp32", &c->p->flops, f.beta,
			  "fitted rate of the FMA kernel (FLOP it actually ran)");

	/* per-kernel overhead: back-to-back minimal full-grid kernels */
	stage(c, c->hi, c->hi + (c->hi - c->lo));
	progress(c, 0, 1, "kernel overhead");
	log_head(c, "Kernel overhead (hd_kernel_compute, one round, full grid, back to back)",
		 "CUDA events around 32 kernels queued behind a spin-kernel gate; time per "
		 "kernel less its FLOP at the rate above");
	memset(&k, 0, sizeof k);
	k.flops = 1;
	g.f = enq_compute;
	g.arg = &k;
	g.warm = 4;
	g.reps = 32;
	if (sample_stats(c, gated, &g, c->quick ? 3 : 5, &st) != 0)
		return -1;
	log_row(c, "1 round", c->quick ? 3 : 5, 32, &st, "");
	per = st.median - k.done / c->flops;
	if (hbm_alpha >= 0)
		hd_buf_printf(c->log, "  (for comparison: the memory kernel fit's alpha is %s)\n",
			      hd_cal_ftime(a, sizeof a, hbm_alpha));
	hd_cal_set_time(&c->sum, "gpu.kernel_overhead", &c->p->kernel_overhead, fmax(per, 0),
		 "time per back-to-back minimal kernel");
	return 0;
}

/* ---- pinning and allocation -------------------------------------------------------------- */

struct pin_op {
	uint64_t n;
	void *buf;              /* malloc'd and touched */
	void *dev;              /* device buffer the pinned pages are copied to, or NULL */
	int alloc;              /* 1: cudaMallocHost / cudaFreeHost instead */
	double undo;            /* out: unregister / free time */
};

static int
sample_pin(struct cal *c, const void *arg, double *sec)
{
	struct pin_op *op = (struct pin_op *)arg;
	double t0, t1, u0, u1;
	void *p = NULL;

	if (op->alloc) {
		t0 = now_s();
		if (!CK(c, cudaMallocHost(&p, op->n)))
			return -1;
		t1 = now_s();
		u0 = t1;
		if (!CK(c, cudaFreeHost(p)))
			return -1;
		u1 = now_s();
	} else {
		t0 = now_s();
		if (!CK(c, cudaHostRegister(op->buf, op->n, cudaHostRegisterDefault)))
			return -1;
		t1 = now_s();
		/* Used as lessons use pinned pages: copied to the GPU once (untimed),
		 * which changes what the next registration of them costs. */
		if (op->dev != NULL &&
		    !CK(c, cudaMemcpy(op->dev, op->buf, op->n, cudaMemcpyHostToDevice)))
			return -1;
		u0 = now_s();
		if (!CK(c, cudaHostUnregister(op->buf)))
			return -1;
		u1 = now_s();
	}
	op->undo = u1 - u0;
	*sec = t1 - t0;
	return 0;
}

static int
sweep_pin(struct cal *c, int alloc, struct hd_fit *fit, int *fitted)
{
	static const uint64_t full[] = { MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, GiB };
	static const uint64_t quick[] = { 16 * MiB, 64 * MiB, 256 * MiB };
	const uint64_t *sizes = c->quick ? quick : full;
	int ns = c->quick ? (int)HD_ARRAY_LEN(quick) : (int)HD_ARRAY_LEN(full), i;
	struct sweep sw;
	char sz[32], r[32], a[32];

	memset(&sw, 0, sizeof sw);
	*fitted = 0;
	log_head(c, alloc ? "cudaMallocHost (then cudaFreeHost)" :
		 "cudaHostRegister of malloc'd, touched memory (then cudaHostUnregister)",
		 "host clock around the call; 'undo' is the free / unregister of the last "
		 "sample");
	for (i = 0; i < ns; i++) {
		struct pin_op op;
		struct hd_stats st;
		double dummy;
		/* one registration of 4 KiB pages varies by a third from the next on
		 * a VM host (bench/results/2026-11-22-h100-host/): five, even quick */
		int samples = 5;

		hd_cal_fbytes(sz, sizeof sz, (double)sizes[i]);
		if (sizes[i] > c->host_cap) {
			hd_buf_printf(c->log, "  %12s skipped: more than an eighth of available "
				      "host memory\n", sz);
			continue;
		}
		progress(c, i, ns, "%s %s", alloc ? "cudaMallocHost" : "cudaHostRegister", sz);
		memset(&op, 0, sizeof op);
		op.n = sizes[i];
		op.alloc = alloc;
		if (!alloc) {
			op.buf = malloc(sizes[i]);      /* as lessons' buffers are */
			if (op.buf == NULL) {
				hd_err_set(c->e, HD_EXIT_FAIL, "", "calibrate: malloc of %s failed",
					   sz);
				return -1;
			}
			memset(op.buf, 1, sizes[i]);
			if (cudaMalloc(&op.dev, sizes[i]) != cudaSuccess) {
				cudaGetLastError();
				op.dev = NULL;  /* no room: register and unregister only */
			}
		}
		if (sample_pin(c, &op, &dummy) != 0 ||  /* warm-up */
		    sample_stats(c, sample_pin, &op, samples, &st) != 0) {
			free(op.buf);
			if (op.dev != NULL)
				cudaFree(op.dev);
			return -1;
		}
		free(op.buf);
		if (op.dev != NULL && !CK(c, cudaFree(op.dev)))
			return -1;
		log_row(c, sz, samples, 1, &st, hd_cal_frate(r, sizeof r, (double)sizes[i] / st.median));
		hd_buf_printf(c->log, "  %12s %7s %5s %12s (undo)\n", "", "", "",
			      hd_cal_ftime(a, sizeof a, op.undo));
		sw.n[sw.count] = (double)sizes[i];
		sw.t[sw.count++] = st.median;
	}
	return sweep_fit(c, &sw, 4.0 * MiB, 64.0 * MiB, "B/s", ">= 64 MiB",
			 "mean of t - n / beta over sizes <= 4 MiB", fit, fitted);
}

static int
sample_malloc(struct cal *c, const void *arg, double *sec)
{
	double *undo = (double *)arg, t0, t1, t2;
	void *p = NULL;

	if (!CK(c, cudaDeviceSynchronize()))
		return -1;
	t0 = now_s();
	if (!CK(c, cudaMalloc(&p, 64 * MiB)))
		return -1;
	t1 = now_s();
	if (!CK(c, cudaFree(p)))
		return -1;
	t2 = now_s();
	*undo = t2 - t1;
	*sec = t1 - t0;
	return 0;
}

static int
stage_pinning(struct cal *c)
{
	struct hd_fit f, fa;
	int ok, oka, i;
	const int n = c->quick ? 7 : 21;
	double m[MAX_SAMPLES], fr[MAX_SAMPLES], undo = 0;
	struct hd_stats sm, sf;

	stage(c, c->lo, c->lo + (c->hi - c->lo) * 0.45);
	if (sweep_pin(c, 0, &f, &ok) != 0)
		return -1;
	stage(c, c->hi, c->hi + (c->hi - c->lo));
	if (sweep_pin(c, 1, &fa, &oka) != 0)
		return -1;
	if (ok) {
		hd_cal_set_rate(&c->sum, "host.pin_rate", &c->p->pin_bw, f.beta,
			 "fitted beta of cudaHostRegister");
		hd_cal_set_time(&c->sum, "host.pin_base", &c->p->pin_base, f.alpha,
			 "fitted alpha of cudaHostRegister");
	} else
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "host.pin_rate/pin_base");
	if (oka)
		hd_cal_set_rate(&c->sum, "host.mallochost_rate", &c->p->mallochost_bw, fa.beta,
			 "fitted beta of cudaMallocHost");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "host.mallochost_rate");

	stage(c, c->hi, c->hi + (c->hi - c->lo) / 9);
	progress(c, 0, 1, "cudaMalloc / cudaFree");
	log_head(c, "cudaMalloc / cudaFree of 64 MiB on an idle device", "host clock around "
		 "each call; the first call is a warm-up");
	if (sample_malloc(c, &undo, &m[0]) != 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (stopped(c) || sample_malloc(c, &undo, &m[i]) != 0)
			return -1;
		fr[i] = undo;
	}
	if (hd_fit_stats(m, (size_t)n, &sm, c->e) != 0 ||
	    hd_fit_stats(fr, (size_t)n, &sf, c->e) != 0)
		return -1;
	log_row(c, "cudaMalloc", n, 1, &sm, "");
	log_row(c, "cudaFree", n, 1, &sf, "");
	hd_cal_set_time(&c->sum, "api.malloc", &c->p->malloc_cost, sm.median, "median cudaMalloc of 64 MiB");
	hd_cal_set_time(&c->sum, "api.free", &c->p->free_cost, sf.median, "median cudaFree of 64 MiB");
	return 0;
}

/* ---- managed memory ------------------------------------------------------------------------ */

struct um_res {
	double prefetch, resident, faulting;
};

static int
elapsed(struct cal *c, cudaEvent_t a, cudaEvent_t b, double *sec)
{
	float ms = 0;

	if (!CK(c, cudaEventElapsedTime(&ms, a, b)))
		return 0;
	*sec = (double)ms * 1e-3;
	return 1;
}

static int
to_host(struct cal *c, void *buf, size_t n)
{
	struct cudaMemLocation host;

	memset(&host, 0, sizeof host);
	host.type = cudaMemLocationTypeHost;
	if (!CK(c, cudaMemPrefetchAsync(buf, n, host, 0, c->s)) ||
	    !CK(c, cudaStreamSynchronize(c->s)))
		return 0;
	memset(buf, 1, n);      /* resident on the host and touched there */
	return 1;
}

/* Fault-ins vary by a third from one to the next on the lent H100s. */
#define UM_SAMPLES 5

static int
sample_um(struct cal *c, void *buf, size_t n, struct um_res *r)
{
	struct cudaMemLocation dev;

	memset(&dev, 0, sizeof dev);
	dev.type = cudaMemLocationTypeDevice;
	dev.id = c->dev;
	/* prefetched, then the kernel on resident pages */
	if (!to_host(c, buf, n) || !CK(c, cudaEventRecord(c->ev[0], c->s)) ||
	    !CK(c, cudaMemPrefetchAsync(buf, n, dev, 0, c->s)) ||
	    !CK(c, cudaEventRecord(c->ev[1], c->s)) ||
	    !KCK(c, hd_kernel_memory((hd_cuda_stream)c->s, buf, n, 0)) ||
	    !CK(c, cudaEventRecord(c->ev[2], c->s)) || !CK(c, cudaStreamSynchronize(c->s)) ||
	    !elapsed(c, c->ev[0], c->ev[1], &r->prefetch) ||
	    !elapsed(c, c->ev[1], c->ev[2], &r->resident))
		return -1;
	/* the same kernel faulting the pages in */
	if (!to_host(c, buf, n) || !CK(c, cudaEventRecord(c->ev[0], c->s)) ||
	    !KCK(c, hd_kernel_memory((hd_cuda_stream)c->s, buf, n, 0)) ||
	    !CK(c, cudaEventRecord(c->ev[1], c->s)) || !CK(c, cudaStreamSynchronize(c->s)) ||
	    !elapsed(c, c->ev[0], c->ev[1], &r->faulting))
		return -1;
	return 0;
}

static int
stage_managed(struct cal *c)
{
	int managed = 0, concurrent = 0, i, rc = -1;
	size_t dfree = 0, dtotal = 0;
	uint64_t n;
	void *buf = NULL;
	double pf[UM_SAMPLES], res[UM_SAMPLES], fl[UM_SAMPLES], fault = 0, bw = 0;
	struct hd_stats spf, sres, sfl;
	struct um_res r;
	struct hd_err fe = { 0 };
	char sz[32], a[32], b[32];
	int how;

	if (!CK(c, cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, c->dev)) ||
	    !CK(c, cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess,
					   c->dev)) ||
	    !CK(c, cudaMemGetInfo(&dfree, &dtotal)))
		return -1;
	hd_buf_printf(c->log, "\nManaged memory (cudaMallocManaged, touched on the host)\n");
	if (!managed || !concurrent) {
		hd_buf_printf(c->log, "  skipped: the GPU has managedMemory %d, "
			      "concurrentManagedAccess %d (on-demand faults need both)\n",
			      managed, concurrent);
		hd_buf_printf(&c->sum, "  %-20s kept (no on-demand page faults on this "
			      "system)\n", "um.*");
		return 0;
	}
	/* never more than a quarter of free memory: oversubscribing managed memory
	 * can stall the GPU for a long time */
	n = (uint64_t)dfree / 4;
	/* the host-only pass measures what lessons fault in: 256 MiB, even quick */
	if (n > (c->quick && !c->o->host_only ? 64 : 256) * MiB)
		n = (c->quick && !c->o->host_only ? 64 : 256) * MiB;
	if (n > c->host_cap)
		n = c->host_cap;
	n = n / (2 * MiB) * (2 * MiB);
	if (n < 2 * MiB) {
		hd_buf_printf(c->log, "  skipped: too little free memory\n");
		hd_buf_printf(&c->sum, "  %-20s kept (too little free memory)\n", "um.*");
		return 0;
	}
	hd_cal_fbytes(sz, sizeof sz, (double)n);
	hd_buf_printf(c->log, "  CUDA events; the memory kernel (as lessons use it) over %s: prefetched to the GPU "
		      "first, and faulting the pages in from the host\n", sz);
	hd_buf_printf(c->log, "  %12s %7s %5s %12s %12s %14s\n", "size", "samples", "ops",
		      "median", "IQR", "rate");
	if (!CK(c, cudaMallocManaged(&buf, n, cudaMemAttachGlobal)))
		return -1;
	for (i = -1; i < UM_SAMPLES; i++) {
		progress(c, i + 1, UM_SAMPLES + 1, "managed memory %s", sz);
		if (stopped(c) || sample_um(c, buf, n, &r) != 0)
			goto out;
		if (i >= 0) {
			pf[i] = r.prefetch;
			res[i] = r.resident;
			fl[i] = r.faulting;
		}
	}
	if (hd_fit_stats(pf, UM_SAMPLES, &spf, c->e) != 0 ||
	    hd_fit_stats(res, UM_SAMPLES, &sres, c->e) != 0 ||
	    hd_fit_stats(fl, UM_SAMPLES, &sfl, c->e) != 0)
		goto out;
	log_row(c, sz, UM_SAMPLES, 1, &spf, hd_cal_frate(a, sizeof a, (double)n / spf.median));
	hd_buf_printf(c->log, "    = cudaMemPrefetchAsync to the GPU\n");
	log_row(c, sz, UM_SAMPLES, 1, &sres, hd_cal_frate(a, sizeof a, (double)n / sres.median));
	hd_buf_printf(c->log, "    = memory kernel, pages resident\n");
	log_row(c, sz, UM_SAMPLES, 1, &sfl, hd_cal_frate(a, sizeof a, (double)n / sfl.median));
	hd_buf_printf(c->log, "    = memory kernel, faulting the pages in\n");
	hd_cal_set_rate(&c->sum, "um.prefetch_rate", &c->p->um_prefetch_bw, (double)n / spf.median,
		 "bytes / time of cudaMemPrefetchAsync");
	if (!(sfl.median > sres.median)) {
		hd_buf_printf(c->log, "  faulting was not slower than resident: um.fault and "
			      "um.fault_rate kept\n");
		hd_buf_printf(&c->sum, "  %-20s kept (no fault cost seen)\n",
			      "um.fault/fault_rate");
		rc = 0;
		goto out;
	}
	how = hd_fit_um((sfl.median - sres.median) / (double)n, (double)c->p->um_page,
			hd_time_to_s(c->p->um_fault), c->h2d, &fault, &bw, &fe);
	if (how < 0) {
		hd_buf_printf(c->log, "  no fit: %s\n", fe.msg);
		rc = 0;
		goto out;
	}
	hd_buf_printf(c->log, "  extra time for faults: %s, per %s page %s; the model "
		      "charges um.fault per page plus the bytes at um.fault_rate: %s\n",
		      hd_cal_ftime(a, sizeof a, sfl.median - sres.median),
		      hd_cal_fbytes(b, sizeof b, (double)c->p->um_page),
		      hd_cal_ftime(sz, sizeof sz, (sfl.median - sres.median) / (double)n *
			    (double)c->p->um_page),
		      how == 0 ? "um.fault kept from the base, the rate fitted" :
		      "the base um.fault leaves no room, so migration at the H2D link rate "
		      "and the rest per page");
	hd_buf_printf(c->log, "  (um.page is kept from the base: whole-buffer faults cannot "
		      "tell the granule from the rate)\n");
	if (how == 0)
		hd_buf_printf(&c->sum, "  %-20s kept (split: see the managed-memory section)\n",
			      "um.fault");
	else
		hd_cal_set_time(&c->sum, "um.fault", &c->p->um_fault, fault,
			 "rest of the fault time per page after migrating at the link rate");
	hd_cal_set_rate(&c->sum, "um.fault_rate", &c->p->um_fault_bw, bw,
		 "fault time per byte less um.fault per page");
	rc = 0;
out:
	if (buf != NULL)
		cudaFree(buf);
	return rc;
}

/* ---- peer links and collectives (calib_ranks.c) ------------------------------------ */

static void
ranks_progress(void *ctx, double frac, const char *what)
{
	progress(ctx, (int)(frac * 1000 + 0.5), 1000, "%s", what);
}

static int
stage_ranks(struct cal *c)
{
	struct hd_calib_ranks r;
	int rc;

	memset(&r, 0, sizeof r);
	r.quick = c->quick;
	r.stop = c->o->stop;
	r.progress = ranks_progress;
	r.ctx = c;
	r.log = c->log;
	r.sum = &c->sum;
	r.pcie_bw = fmax(c->h2d, c->d2h);
	r.copy_latency = c->copy_latency;
	rc = hd_calib_ranks(&r, c->p, c->e);
	if (rc < 0)
		return -1;
	c->ranks = rc;
	return 0;
}

/* ---- the whole run --------------------------------------------------------------------------- */

static void
name_profile(struct cal *c, const struct cudaDeviceProp *prop)
{
	char san[64], date[32];
	size_t i, k = 0;
	time_t now = time(NULL);
	struct tm tm;

	for (i = 0; prop->name[i] != '\0' && k + 1 < sizeof san; i++) {
		unsigned char ch = (unsigned char)prop->name[i];

		if (isalnum(ch))
			san[k++] = (char)tolower(ch);
		else if (k > 0 && san[k - 1] != '-')
			san[k++] = '-';
	}
	while (k > 0 && san[k - 1] == '-')
		k--;
	san[k] = '\0';
	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%d", &tm);
	snprintf(c->p->name, sizeof c->p->name, "calibrated-%.48s", k ? san : "gpu");
	snprintf(c->p->description, sizeof c->p->description,
		 "%.80s, calibrated by hdsim on %.10s (base profile %.24s)", prop->name, date,
		 c->base.name);
	snprintf(c->p->origin, sizeof c->p->origin, "calibrated");
	snprintf(c->p->gpu_name, sizeof c->p->gpu_name, "%.63s", prop->name);
	c->p->sms = prop->multiProcessorCount;
	if (prop->asyncEngineCount > 0)
		c->p->copy_engines = prop->asyncEngineCount;
}

typedef int (*stage_fn)(struct cal *c);

/*
 * Host-only runs keep the GPU's figures of the profile they start from (a
 * calibrated one): the later stages read them from here instead of from
 * the stages that measure them.
 */
static void
seed_from_base(struct cal *c)
{
	c->h2d = c->base.h2d_bw;
	c->d2h = c->base.d2h_bw;
	c->bidir = c->base.bidir_bw;
	c->copy_latency = hd_time_to_s(c->base.copy_latency);
	c->launch_latency = hd_time_to_s(c->base.launch_latency);
	c->wake = hd_time_to_s(c->base.sync_wake);
	c->flops = c->base.flops;
}

int
hd_real_calibrate(const struct hd_calibrate_opts *o, struct hd_profile *out,
		  struct hd_buf *log, struct hd_err *e)
{
	/* progress weights roughly follow each stage's run time */
	static const struct stage_def {
		stage_fn fn;
		double weight;
	} stages[] = {
		{ stage_api, 3 }, { stage_latency, 3 }, { stage_pinned, 16 }, { stage_bidir, 4 },
		{ stage_pageable, 24 }, { stage_kernels, 8 }, { stage_pinning, 30 },
		{ stage_managed, 6 }, { stage_ranks, 8 },
	}, host_stages[] = {
		/* what the host CPU does: its figures move between processes (the
		 * driver's fault handling runs on the host too) */
		{ stage_api, 3 }, { stage_pageable, 24 }, { stage_pinning, 30 },
		{ stage_managed, 6 },
	};
	const struct stage_def *run = o->host_only ? host_stages : stages;
	size_t nrun = o->host_only ? HD_ARRAY_LEN(host_stages) : HD_ARRAY_LEN(stages);
	struct cal c;
	struct cudaDeviceProp prop;
	struct hd_profile work;
	double total = 0, at = 0, t0 = now_s();
	size_t i;
	int rc = -1;
	char *text;

	memset(&c, 0, sizeof c);
	memset(&prop, 0, sizeof prop);
	c.o = o;
	c.base = *out;
	work = *out;
	c.p = &work;
	c.log = log;
	c.e = e;
	c.dev = o->device;
	c.quick = o->quick;
	hd_buf_init(&c.sum);
	if (o->host_only)
		hd_buf_printf(log, "hdsim: the host's figures again, in this process, starting "
			      "from profile %s\n", out->name);
	else
		hd_buf_printf(log, "hdsim calibrate%s: starting from the built-in profile %s\n",
			      o->quick ? " --quick" : "", out->name);
	if (setup(&c, &prop) != 0)
		goto out;
	if (o->host_only)
		seed_from_base(&c);
	else
		name_profile(&c, &prop);
	for (i = 0; i < nrun; i++)
		total += run[i].weight;
	for (i = 0; i < nrun; i++) {
		if (stopped(&c))
			goto out;
		stage(&c, at / total, (at + run[i].weight) / total);
		if (run[i].fn(&c) != 0)
			goto out;
		at += run[i].weight;
	}
	if (o->progress != NULL)
		o->progress(o->ctx, 1, "done");
	hd_buf_printf(log, "\nProfile %s: figures set by this run (each rounded to 4 digits "
		      "or 10 ns)\n%s", work.name, c.sum.s ? c.sum.s : "");
	if (o->host_only)
		hd_buf_printf(log, "  every other figure kept from %s\n", c.base.name);
	else if (c.ranks)
		hd_buf_printf(log, "  kept from %s: api.queue_depth, gpu.max_kernels, um.page, "
			      "net.rate and net.latency (one node cannot measure them), "
			      "coll.algorithm, coll.model, coll.chunk\n", c.base.name);
	else
		hd_buf_printf(log, "  kept from %s: api.queue_depth, gpu.max_kernels, um.page, "
			      "and the topology, NVLink, network and collective keys (one GPU "
			      "cannot measure them)\n", c.base.name);
	hd_buf_printf(log, "Calibration took %.1f s.\n", now_s() - t0);
	/* the result must read back as a profile the model accepts */
	text = hd_profile_format(&work);
	{
		struct hd_profile back = c.base;

		if (hd_profile_parse(text, "calibrated profile", &back, e) != 0) {
			free(text);
			goto out;
		}
	}
	free(text);
	*out = work;
	rc = 0;
out:
	teardown(&c);
	hd_buf_free(&c.sum);
	return rc;
}
