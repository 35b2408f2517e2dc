/*
 * calibrate.c - `hdsim calibrate`: microbenchmarks on one GPU, fitted into
 * the profile figures the model runs on (calibrate.h, hd_real_calibrate).
 * This file sets up, runs the stages in order and assembles the profile and
 * its summary; the stages are in calib_copy.c, calib_host.c and
 * calib_kernel.c, what they share in calib_gate.c (calib_priv.h).
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
 * its spread.  What the host's CPU does (API costs, pageable copies,
 * pinning and allocation, managed memory) is measured in three rounds, the
 * last two after the GPU's stages, and each of its figures is the median of
 * the rounds, the API calls' costs the slowest round's and the first touch
 * of managed memory the fastest (host_rounds below, calib_host.c's
 * calp_rounds_pick).  Sizes that do not fit a quarter of free GPU memory or an
 * eighth of available host memory are skipped and logged.  Every CUDA call
 * is checked; a failure names the call and the runtime's message, and every
 * resource is released on every path.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/kernels.h"
#include "real/calibrate/calib_priv.h"
#include "real/cudaerr.h"
#include "real/pcie.h"
#include "real/real.h"

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

/* The GPU's folder in sysfs: 0, or -1 when its PCI address is unknown. */
static int
pci_dir(struct cal *c, char *dir, size_t n)
{
	int dom = 0, bus = 0, devn = 0;

	if (cudaDeviceGetAttribute(&dom, cudaDevAttrPciDomainId, c->dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, c->dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&devn, cudaDevAttrPciDeviceId, c->dev) != cudaSuccess) {
		cudaGetLastError();
		return -1;
	}
	snprintf(dir, n, "/sys/bus/pci/devices/%04x:%02x:%02x.0", dom, bus, devn);
	return 0;
}

/* The GPU's PCIe link as sysfs reports it now (and its maximum, for the log). */
void
calp_read_link(struct cal *c, int *gen, int *lanes, char *text, size_t n)
{
	struct hd_pcie_link l;
	char dir[128];

	*gen = *lanes = 0;
	snprintf(text, n, "unreadable");
	if (pci_dir(c, dir, sizeof dir) != 0 || hd_pcie_link_read(dir, &l) != 0)
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

	c->flags[FLAG_LATCH] = 1; /* the latch returns at once */
	__sync_synchronize();
	return KCK(c,
		   hd_kernel_latch((hd_cuda_stream)c->s, c->dflags + FLAG_LATCH, LATCH_TIMEOUT_NS,
				   c->dflags + FLAG_TIMED_OUT)) ||
		KCK(c, hd_kernel_spin((hd_cuda_stream)c->s, 0, 1)) ||
		KCK(c, hd_kernel_compute((hd_cuda_stream)c->s, c->scratch, 1, 0, &done)) ||
		KCK(c, hd_kernel_memory((hd_cuda_stream)c->s, c->dbuf, 4096, 0)) ||
		KCK(c, hd_kernel_fill((hd_cuda_stream)c->s, c->dbuf, 4100, 0, 0)) ||
		KCK(c, hd_kernel_reduce((hd_cuda_stream)c->s, c->dbuf, 4096, c->scratch, 0)) ||
		CK(c, cudaStreamSynchronize(c->s)) || CK(c, cudaDeviceSynchronize()) ?
	    -1 :
	    0;
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
	if (CK(c, cudaSetDevice(c->dev)) || CK(c, cudaFree(NULL)) ||
	    CK(c, cudaGetDeviceProperties(prop, c->dev)) ||
	    CK(c, cudaDeviceGetAttribute(&map, cudaDevAttrCanMapHostMemory, c->dev)) ||
	    CK(c, cudaDeviceGetAttribute(&uva, cudaDevAttrUnifiedAddressing, c->dev)) ||
	    CK(c, cudaGetDeviceFlags(&flags)) || CK(c, cudaMemGetInfo(&dfree, &dtotal)))
		return -1;
	if (!map || !uva) {
		hd_err_set(c->e, HD_EXIT_FAIL, "",
			   "calibrate: GPU %d cannot map host memory "
			   "(canMapHostMemory %d, unifiedAddressing %d), which the spin-kernel "
			   "gate needs",
			   c->dev, map, uva);
		return -1;
	}
	avail = host_available();
	c->dev_cap = (uint64_t)dfree / 4;
	c->host_cap = avail > 0 ? avail / 8 : GiB;
	c->max_copy = calp_pow2_floor(c->dev_cap < c->host_cap ? c->dev_cap : c->host_cap);
	if (c->max_copy > GiB)
		c->max_copy = GiB;
	if (c->max_copy < 64 * MiB) {
		hd_err_set(c->e, HD_EXIT_FAIL, "",
			   "calibrate: too little free memory to "
			   "measure (GPU %s free, host %s available; need 256 MiB of each)",
			   hd_cal_fbytes(a, sizeof a, (double)dfree),
			   hd_cal_fbytes(b, sizeof b, (double)avail));
		return -1;
	}
	hd_buf_printf(c->log,
		      "GPU %d: %s, %d SMs, %d copy engines, %s of %s free; host %s "
		      "available\n",
		      c->dev, prop->name, prop->multiProcessorCount, prop->asyncEngineCount,
		      hd_cal_fbytes(a, sizeof a, (double)dfree),
		      hd_cal_fbytes(b, sizeof b, (double)dtotal),
		      hd_cal_fbytes(d, sizeof d, (double)avail));
	hd_buf_printf(c->log,
		      "Largest buffer: %s (a quarter of free GPU memory, an eighth "
		      "of available host memory, at most 1 GiB)\n",
		      hd_cal_fbytes(a, sizeof a, (double)c->max_copy));
	{
		/* Host-transfer rates depend on which socket's memory and CPU serve
		 * them (measuring.md, pitfall 3): say where this run ran. */
		char dir[128], node[32] = "?", cpus[256] = "?";
		cpu_set_t set;
		int kept = hd_real_pin_host_thread(c->dev);
		int cpu = sched_getcpu(), j, first = -1, count = 0;

		if (pci_dir(c, dir, sizeof dir) == 0) {
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
			hd_buf_printf(
			    c->log,
			    "GPU's NUMA node %s, its local CPUs %s; this thread "
			    "is kept on CPU %d for the whole calibration, as 'hdsim --real' "
			    "keeps its own, so host-side copies run from the same place\n",
			    node, cpus, kept);
		else
			hd_buf_printf(
			    c->log,
			    "GPU's NUMA node %s, its local CPUs %s; this thread "
			    "is on CPU %d and may run on %d CPUs (from %d); pin it "
			    "(numactl, taskset) to the GPU's node for stable host-transfer "
			    "figures\n",
			    node, cpus, cpu, count, first);
	}
	hd_buf_printf(c->log, "Host wait policy (cudaGetDeviceFlags): %s\n",
		      (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleSpin ?
			  "spin" :
			  (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleYield ?
			  "yield" :
			  (flags & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync ?
			  "blocking sync" :
			  "auto (spin while contexts <= CPUs, else yield)");
	if (CK(c, cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking)) ||
	    CK(c, cudaStreamCreateWithFlags(&c->s2, cudaStreamNonBlocking)))
		return -1;
	for (i = 0; i < (int)HD_ARRAY_LEN(c->ev); i++)
		if (CK(c, cudaEventCreate(&c->ev[i])))
			return -1;
	if (CK(c, cudaEventCreateWithFlags(&c->ev_nt, cudaEventDisableTiming)))
		return -1;
	{
		void *fp = NULL, *dp = NULL;

		if (CK(c, cudaHostAlloc(&fp, FLAG_WORDS * sizeof(int), cudaHostAllocMapped)))
			return -1;
		c->flags = fp;
		memset(fp, 0, FLAG_WORDS * sizeof(int));
		if (CK(c, cudaHostGetDevicePointer(&dp, fp, 0)))
			return -1;
		c->dflags = dp;
	}
	if (CK(c, cudaMalloc((void **)&c->scratch, 4096)) ||
	    CK(c, cudaMemset(c->scratch, 0, 4096)) ||
	    CK(c, cudaMallocHost(&c->hpin, c->max_copy)) ||
	    CK(c, cudaMalloc(&c->dbuf, c->max_copy)) || CK(c, cudaMemset(c->dbuf, 0, c->max_copy)))
		return -1;
	memset(c->hpin, 1, c->max_copy);
	/* malloc'd as lessons' pageable buffers are (real_cuda.c): glibc puts a
	 * large block 16 bytes past a page boundary, and pageable D2H copies into
	 * such a buffer ran 20-25 % slower than into a page-aligned one on the
	 * lent H100s (bench/results/2026-11-22-h100-host/align/) */
	c->hpage = malloc(c->max_copy);
	if (c->hpage == NULL) {
		hd_err_set(c->e, HD_EXIT_FAIL, "",
			   "calibrate: malloc of %s of pageable memory "
			   "failed",
			   hd_cal_fbytes(a, sizeof a, (double)c->max_copy));
		return -1;
	}
	memset(c->hpage, 1, c->max_copy); /* touched: no first-touch faults in copies */
	return preload(c);
}

static void
teardown(struct cal *c)
{
	size_t i;

	calp_release(c);
	cudaDeviceSynchronize();
	cudaGetLastError();
	if (c->s)
		cudaStreamDestroy(c->s);
	if (c->s2)
		cudaStreamDestroy(c->s2);
	for (i = 0; i < HD_ARRAY_LEN(c->ev); i++)
		if (c->ev[i])
			cudaEventDestroy(c->ev[i]);
	if (c->ev_nt)
		cudaEventDestroy(c->ev_nt);
	if (c->flags)
		cudaFreeHost((void *)c->flags);
	if (c->hpin)
		cudaFreeHost(c->hpin);
	cudaFree(c->dbuf);
	cudaFree(c->scratch);
	free(c->hpage);
	cudaGetLastError();
}

/* ---- peer links and collectives (calib_ranks.c) ------------------------------------ */

static void
ranks_progress(void *ctx, double frac, const char *what)
{
	calp_progress(ctx, (int)(frac * 1000 + 0.5), 1000, "%s", what);
}

static int
stage_ranks(struct cal *c)
{
	struct hd_calib_ranks r;

	memset(&r, 0, sizeof r);
	r.quick = c->quick;
	r.stop = c->o->stop;
	r.progress = ranks_progress;
	r.ctx = c;
	r.log = c->log;
	r.sum = &c->sum;
	r.pcie_bw = fmax(c->h2d, c->d2h);
	r.copy_latency = c->copy_latency;
	return hd_calib_ranks(&r, c->p, &c->ranks, c->e);
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

/* A stage and its progress weight, roughly its share of the run time. */
struct stage_def {
	stage_fn fn;
	double weight;
};

static const struct stage_def stages[] = {
	{ calp_stage_api, 3 },      { calp_stage_latency, 3 },   { calp_stage_pinned, 16 },
	{ calp_stage_bidir, 4 },    { calp_stage_pageable, 24 }, { calp_stage_kernels, 8 },
	{ calp_stage_pinning, 30 }, { calp_stage_managed, 6 },   { stage_ranks, 8 },
	{ calp_stage_graphs, 3 },
};
/* what the host CPU does: its figures move between processes (the driver's
 * fault handling runs on the host too) */
static const struct stage_def host_stages[] = {
	{ calp_stage_api, 3 },
	{ calp_stage_pageable, 24 },
	{ calp_stage_pinning, 30 },
	{ calp_stage_managed, 6 },
};

/* The host's figures are measured this many times in a full calibration
 * (hd_calibrate_opts.host_rounds 0), and at most HOST_ROUNDS_MAX. */
#define HOST_ROUNDS     3
#define HOST_ROUNDS_MAX 9

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

/* A figure's value as the summary writes it (v as hd_profile_value gives it). */
static char *
fvalue(char *b, size_t n, double v, enum hd_dim dim)
{
	switch (dim) {
	case HD_DIM_RATE:
		return hd_cal_frate(b, n, v);
	case HD_DIM_TIME:
		return hd_cal_ftime(b, n, v * 1e-12);
	case HD_DIM_BYTES:
		return hd_cal_fbytes(b, n, v);
	case HD_DIM_FLOPS:
		snprintf(b, n, "%.4g TFLOP/s", v / 1e12);
		return b;
	case HD_DIM_NONE:
	case HD_DIM_FLOP:
	case HD_DIM_PERCENT:
		break;
	}
	snprintf(b, n, "%.4g", v);
	return b;
}

/*
 * The summary again, each line of a figure the rounds r[0..n-1] disagree on
 * saying the median the profile holds (`final`) and every round's value:
 * "  key  median  (median of 3 rounds: a, b, c; base old) how".
 */
static void
restate(struct hd_buf *sum, const struct hd_profile *r, int n, const struct hd_profile *final)
{
	struct hd_buf out;
	const char *line = sum->s, *end;

	if (line == NULL)
		return;
	hd_buf_init(&out);
	for (; *line != '\0'; line = *end ? end + 1 : end) {
		char key[64], a[32];
		const char *base;
		double v, w;
		enum hd_dim dim;
		int len = 0, k, differ = 0;

		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		if (sscanf(line, "  %63[a-z0-9_.]%n", key, &len) != 1 || len == 0 ||
		    hd_profile_value(final, key, &v, &dim) != 0) {
			hd_buf_printf(&out, "%.*s\n", (int)(end - line), line);
			continue;
		}
		for (k = 1; k < n; k++) {
			double x, y;
			enum hd_dim d;

			if (hd_profile_value(&r[0], key, &x, &d) == 0 &&
			    hd_profile_value(&r[k], key, &y, &d) == 0 && x != y)
				differ = 1;
		}
		if (!differ) {
			hd_buf_printf(&out, "%.*s\n", (int)(end - line), line);
			continue;
		}
		hd_buf_printf(&out, "  %-20s %-14s (%s of %d rounds:", key,
			      fvalue(a, sizeof a, v, dim), calp_rounds_rule(key, n), n);
		for (k = 0; k < n; k++) {
			if (hd_profile_value(&r[k], key, &w, &dim) != 0)
				w = 0;
			hd_buf_printf(&out, "%s %s", k ? "," : "", fvalue(a, sizeof a, w, dim));
		}
		base = strstr(line, " (base ");
		if (base != NULL && base < end)
			hd_buf_printf(&out, "; %.*s\n", (int)(end - base - 2), base + 2);
		else
			hd_buf_printf(&out, ")\n");
	}
	hd_buf_free(sum);
	*sum = out;
}

/*
 * The host's figures measured n - 1 more times after the GPU's stages, each
 * then the median of the n rounds (the first being the stages' own; the
 * API calls' costs a slow round's, um.host_touch the fastest:
 * calp_rounds_pick).  On a
 * lent VM they move by tens of percent from one few-second window to the
 * next (four calibrations within a minute on one H100 host gave
 * host.memcpy_d2h 8.3 to 13.6 GB/s and host.pin_base 69 to 135 us:
 * bench/results/2026-11-28-fidelity-h100/run20/), and one pass carries
 * whichever window it caught.  The later rounds' summaries are dropped; the
 * first's is restated with the medians.  0, or -1 with the error set.
 */
static int
host_rounds(struct cal *c, int n, double *at, double total)
{
	struct hd_profile r[HOST_ROUNDS_MAX], *work = c->p;
	struct hd_buf first = c->sum;
	size_t i;
	int k, rc = -1;

	r[0] = *work;
	hd_buf_init(&c->sum);
	for (k = 1; k < n; k++) {
		r[k] = r[0];
		c->p = &r[k];
		hd_buf_printf(c->log, "\nThe host's figures again: round %d of %d\n", k + 1, n);
		for (i = 0; i < HD_ARRAY_LEN(host_stages); i++) {
			if (calp_stopped(c))
				goto out;
			calp_range(c, *at / total, (*at + host_stages[i].weight) / total);
			if (host_stages[i].fn(c) != 0)
				goto out;
			*at += host_stages[i].weight;
		}
	}
	hd_profile_median(r, n, work);
	calp_rounds_pick(r, n, work);
	restate(&first, r, n, work);
	rc = 0;
out:
	c->p = work;
	hd_buf_free(&c->sum);
	c->sum = first;
	return rc;
}

int
hd_real_calibrate(const struct hd_calibrate_opts *o, struct hd_profile *out, struct hd_buf *log,
		  struct hd_err *e)
{
	const struct stage_def *run = o->host_only ? host_stages : stages;
	size_t nrun = o->host_only ? HD_ARRAY_LEN(host_stages) : HD_ARRAY_LEN(stages);
	struct cal c;
	struct cudaDeviceProp prop;
	struct hd_profile work;
	double total = 0, at = 0, t0 = calp_now();
	size_t i;
	int rc = -1, rounds = o->host_rounds;
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
		hd_buf_printf(log,
			      "hdsim: the host's figures again, in this process, starting "
			      "from profile %s\n",
			      out->name);
	else
		hd_buf_printf(log, "hdsim calibrate%s: starting from the built-in profile %s\n",
			      o->quick ? " --quick" : "", out->name);
	if (setup(&c, &prop) != 0)
		goto out;
	if (o->host_only)
		seed_from_base(&c);
	else
		name_profile(&c, &prop);
	if (rounds <= 0)
		rounds = o->quick || o->host_only ? 1 : HOST_ROUNDS;
	if (rounds > HOST_ROUNDS_MAX)
		rounds = HOST_ROUNDS_MAX;
	for (i = 0; i < nrun; i++)
		total += run[i].weight;
	for (i = 0; i < HD_ARRAY_LEN(host_stages); i++)
		total += (rounds - 1) * host_stages[i].weight;
	for (i = 0; i < nrun; i++) {
		if (calp_stopped(&c))
			goto out;
		calp_range(&c, at / total, (at + run[i].weight) / total);
		if (run[i].fn(&c) != 0)
			goto out;
		at += run[i].weight;
	}
	if (rounds > 1 && host_rounds(&c, rounds, &at, total) != 0)
		goto out;
	if (o->progress != NULL)
		o->progress(o->ctx, 1, "done");
	hd_buf_printf(log,
		      "\nProfile %s: figures set by this run (each rounded to 4 digits "
		      "or 10 ns)\n%s",
		      work.name, c.sum.s ? c.sum.s : "");
	if (o->host_only)
		hd_buf_printf(log, "  every other figure kept from %s\n", c.base.name);
	else if (c.ranks)
		hd_buf_printf(log,
			      "  kept from %s: api.queue_depth, gpu.max_kernels, um.page, "
			      "net.rate and net.latency (one node cannot measure them), "
			      "coll.algorithm, coll.model, coll.chunk\n",
			      c.base.name);
	else
		hd_buf_printf(log,
			      "  kept from %s: api.queue_depth, gpu.max_kernels, um.page, "
			      "and the topology, NVLink, network and collective keys (one GPU "
			      "cannot measure them)\n",
			      c.base.name);
	hd_buf_printf(log, "Calibration took %.1f s.\n", calp_now() - t0);
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
