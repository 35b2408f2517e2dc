/*
 * calib_host.c - what the host does, for `hdsim calibrate` (calib_priv.h):
 * the API calls' own costs, pageable copies fitted through the model's
 * staging pipeline, pinning and allocation (managed memory: calib_um.c).
 * These figures move between processes on one machine, so `hdsim --real`
 * measures them again in its own (hd_calibrate_opts.host_only).  Host clock
 * (CLOCK_MONOTONIC) around the calls, on buffers touched beforehand.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "real/calibrate/calib_priv.h"
#include "real/real.h"

/* Why a host memcpy rate the staging fit puts at its top (fit.h's at_top)
 * keeps the base's figure. */
#define NO_HOST_RATE "the copies ran as fast as the DMA allows: no host rate to fit"

/*
 * The host memcpy rates key[k] (*at[k]) that staging fit f found, noted as
 * `why`: a rate at the fit's top keeps the base's figure, with a line
 * saying so; a direction without copies keeps it, with the line none[k]
 * (none NULL: no line).
 */
static void
set_memcpy_rates(struct cal *c, const struct hd_staging_fit *f, const char *const key[2],
		 double *const at[2], const char *why, const char *const *none)
{
	int k;

	for (k = 0; k < 2; k++)
		if (f->points[k] == 0) {
			if (none != NULL)
				hd_buf_printf(&c->sum, "  %-20s kept (%s)\n", key[k], none[k]);
		} else if (f->at_top[k])
			hd_buf_printf(&c->sum, "  %-20s kept (%s)\n", key[k], NO_HOST_RATE);
		else
			hd_cal_set_rate(&c->sum, key[k], at[k], f->memcpy_bw[k], why);
}

/* ---- host API costs ---------------------------------------------------------------- */

enum api_kind {
	API_LAUNCH,
	API_MEMCPY,
	API_EVENT,
	API_EVENT_NOTIMING,
	API_WAIT,
	API_SYNC,
	API_MEMCPY_D2D,
	API_MEMCPY_SYNC,
	API_SYNC_KERNEL,
	API_MEMCPY_PAGEABLE,
	API_SYNC_DEVICE,
	API__COUNT
};

/* Each call the API stage times: what it is, its key, how the key is got,
 * and whether the key is a difference of two calls (api.memcpy_sync,
 * api.memcpy_pageable), which takes the rounds' median as every other host
 * figure does, not a slow round's (calp_rounds_pick below). */
static const struct {
	const char *name, *key, *how;
	int difference;
} api_names[API__COUNT] = {
	[API_LAUNCH] = { "kernel launch (hd_kernel_spin 0 ns, 1 block)", "api.launch",
			 "mean host time of a kernel launch" },
	[API_MEMCPY] = { "cudaMemcpyAsync 4 B pinned -> device", "api.memcpy",
			 "mean host time of a 4 B pinned cudaMemcpyAsync" },
	[API_EVENT] = { "cudaEventRecord", "api.event", "mean host time of cudaEventRecord" },
	[API_EVENT_NOTIMING] = { "cudaEventRecord (event without timing)", "api.event_notiming",
				 "mean host time of cudaEventRecord of a notiming event" },
	[API_WAIT] = { "cudaStreamWaitEvent (event still pending)", "api.wait",
		       "mean host time of cudaStreamWaitEvent" },
	[API_SYNC] = { "cudaStreamSynchronize (idle stream)", "api.sync",
		       "mean host time of a sync with nothing to wait for" },
	[API_MEMCPY_D2D] = { "cudaMemcpy 4 B device -> device", "api.memcpy_d2d",
			     "mean host time of a 4 B device-to-device cudaMemcpy" },
	[API_MEMCPY_SYNC] = { "cudaMemcpy 4 B device -> pinned", "api.memcpy_sync",
			      "mean host time of a 4 B cudaMemcpy to pinned memory, less "
			      "api.memcpy, pcie.latency and api.wake",
			      1 },
	[API_SYNC_KERNEL] = { "cudaStreamSynchronize (idle, its last work a kernel)",
			      "api.sync_kernel",
			      "mean host time of a sync with nothing to wait for after a kernel on "
			      "the stream" },
	[API_MEMCPY_PAGEABLE] = { "cudaMemcpy 4 B device -> pageable", "api.memcpy_pageable",
				  "mean host time of a 4 B cudaMemcpy to pageable memory, less one "
				  "to pinned memory",
				  1 },
	[API_SYNC_DEVICE] = { "cudaDeviceSynchronize (idle device)", "api.sync_device",
			      "mean host time of a device sync with nothing to wait for" },
};

/*
 * Over the host's rounds (calibrate.c) a call's own cost is not the
 * rounds' median but a slow round's.  A loop of 32 identical calls runs
 * faster in some rounds than a scenario's calls ever do: on lent H200s a
 * scenario's kernel launches took 4.9-5.3 us and its idle syncs 0.55-0.8
 * us each where calibrate's three rounds in the same process gave
 * launches of 4.88, 3.52 and 3.90 us and syncs of 490, 310 and 320 ns
 * (bench/probe/apimix.hds, first.hds).  The generated sets kept from 13
 * H200 runs, scored again with each run's rounds, came out 6.5 % short at
 * the median below 1 ms with the rounds' median and 4.4 % with the
 * slowest round (bench/results/2026-11-28-apicost-h200/).  A difference
 * of two calls, whose slow parts cancel, stays the median: on one H200
 * api.memcpy_pageable's rounds gave 2.06, 1.72 and 3.23 us, and a 4 B
 * read predicted with the slowest came out 17 and 37 % long (run68 there).
 */
/* The rank, in order from the fastest, of the round a call's cost takes
 * out of n: the slowest of up to four, the upper quartile of more. */
static int
slow_rank(int n)
{
	return n - 1 - (n - 1) / 4;
}

/*
 * Figures whose host rounds rose one after the other, the scenarios run
 * after calibrate at the last round's rate or above: they take the fastest
 * round, the most settled.  um.host_touch (each round the median memset of
 * five fresh managed buffers) gave 1.82, 2.01 and 2.76 GB/s where
 * scenarios' managed allocations touched at 2.7-2.9 (bench/probe/umalloc.hds),
 * and 2.07, 2.25 and 3.17 GB/s (one memset a round) where they touched at
 * 3.3-4.2, on two lent H100s (bench/results/2026-12-07-heldout32,
 * run90; 2026-12-07-heldout30-h100, run89).  Rates: the fastest is the
 * largest.
 */
static const char *const fastest_keys[] = { "um.host_touch" };

static int
fastest_key(const char *key)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(fastest_keys); i++)
		if (strcmp(fastest_keys[i], key) == 0)
			return 1;
	return 0;
}

const char *
calp_rounds_rule(const char *key, int n)
{
	int k;

	if (fastest_key(key))
		return "fastest";
	for (k = 0; k < API__COUNT; k++)
		if (!api_names[k].difference && strcmp(api_names[k].key, key) == 0)
			return slow_rank(n) == n - 1 ? "slowest" : "upper quartile";
	return "median";
}

void
calp_rounds_pick(const struct hd_profile *r, int n, struct hd_profile *out)
{
	double v[16], x;
	enum hd_dim dim;
	int k, i, j;

	if (n > (int)HD_ARRAY_LEN(v))
		n = (int)HD_ARRAY_LEN(v);
	for (k = 0; k < API__COUNT && n > 0; k++) {
		if (api_names[k].difference) /* the slow parts cancel: the median */
			continue;
		for (i = 0; i < n; i++) { /* in order, by insertion: n is a few */
			if (hd_profile_value(&r[i], api_names[k].key, &x, &dim) != 0)
				return;
			for (j = i; j > 0 && v[j - 1] > x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		(void)hd_profile_set_value(out, api_names[k].key, v[slow_rank(n)]);
	}
	for (k = 0; k < (int)HD_ARRAY_LEN(fastest_keys) && n > 0; k++) {
		double best = 0;

		for (i = 0; i < n; i++) {
			if (hd_profile_value(&r[i], fastest_keys[k], &x, &dim) != 0)
				return;
			if (i == 0 || x > best)
				best = x;
		}
		(void)hd_profile_set_value(out, fastest_keys[k], best);
	}
}

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
	case API_EVENT_NOTIMING:
		return CK(c, cudaEventRecord(c->ev_nt, c->s));
	case API_WAIT:
		return CK(c, cudaStreamWaitEvent(c->s, c->ev[3], 0));
	case API_MEMCPY_D2D: /* as a scenario's `copy a -> b` between device buffers */
		return CK(c,
			  cudaMemcpy((char *)c->dbuf + 64, c->dbuf, 4, cudaMemcpyDeviceToDevice));
	case API_MEMCPY_SYNC: /* the host waits for the copy */
		return CK(c, cudaMemcpy(c->hpin, c->dbuf, 4, cudaMemcpyDeviceToHost));
	case API_MEMCPY_PAGEABLE: /* the same, staged: the landing buffer is malloc'd */
		return CK(c, cudaMemcpy(c->hpage, c->dbuf, 4, cudaMemcpyDeviceToHost));
	case API_SYNC_DEVICE:
		return CK(c, cudaDeviceSynchronize());
	case API_SYNC:
	case API_SYNC_KERNEL:
	case API__COUNT:
		break;
	}
	return CK(c, cudaStreamSynchronize(c->s));
}

/*
 * Host time of one call of kind k: batches of 32, the first a warm-up.  A
 * loop of calls costs their mean, and the times are skewed (a launch now and
 * then takes several times the median), so the figure is the mean; the
 * slowest 2 % are left out as the scheduler's, not the call's.
 */
static int
api_cost(struct cal *c, enum api_kind k, double *mean)
{
	const int per = 32, batches = c->quick ? 4 : 10;
	double v[32 * 10];
	struct hd_stats st;
	char what[32], mt[32], all[32];
	int b, j, nv = 0;

	for (b = -1; b < batches; b++) {
		if (calp_stopped(c))
			return -1;
		if (k == API_WAIT) {
			/* something pending to wait for, on the other stream */
			if (KCK(c, hd_kernel_spin((hd_cuda_stream)c->s2, 2000000, 1)) ||
			    CK(c, cudaEventRecord(c->ev[3], c->s2)))
				return -1;
		}
		if (k == API_SYNC_KERNEL) {
			/* a kernel done, no event after it: the stream's last work */
			if (KCK(c, hd_kernel_spin((hd_cuda_stream)c->s, 0, 1)) ||
			    CK(c, cudaStreamSynchronize(c->s)))
				return -1;
		}
		for (j = 0; j < per; j++) {
			double t0 = calp_now(), t1;

			if (api_call(c, k))
				return -1;
			t1 = calp_now();
			if (b >= 0)
				v[nv++] = t1 - t0;
		}
		if (CK(c, cudaStreamSynchronize(c->s)) || CK(c, cudaStreamSynchronize(c->s2)))
			return -1;
	}
	/* an event after the kernel: later stages' syncs cost api.sync again */
	if (k == API_SYNC_KERNEL && CK(c, cudaEventRecord(c->ev[2], c->s)))
		return -1;
	if (hd_fit_stats(v, (size_t)nv, &st, c->e) != 0)
		return -1;
	*mean = hd_fit_mean_low(v, (size_t)nv, (size_t)nv / 50);
	snprintf(what, sizeof what, "1 call");
	calp_log_row(c, what, nv, 1, &st, "");
	hd_buf_printf(c->log, "    = %s; mean %s (slowest 2 %% left out), %s with them\n",
		      api_names[k].name, hd_cal_ftime(mt, sizeof mt, *mean),
		      hd_cal_ftime(all, sizeof all, hd_fit_mean_low(v, (size_t)nv, 0)));
	return 0;
}

/* One sample for event_record: host time of n timing records submitted one
 * by one to an idle stream, and the stream's sync (arg: n). */
static int
records(struct cal *c, const void *arg, double *sec)
{
	int i, n = *(const int *)arg;
	double t0 = calp_now();

	for (i = 0; i < n; i++)
		if (CK(c, cudaEventRecord(c->ev[2], c->s)))
			return -1;
	if (CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	*sec = calp_now() - t0;
	return 0;
}

/*
 * gpu.event_record: what a timing record adds when many follow one another,
 * the time of 200 less that of 20, over 180 (the call, the sync and the
 * wake-up cancel).  The GPU writes each record's timestamp; when that takes
 * longer than the call it sets the pace (on a lent H200, 1.6-1.9 us a
 * record where the call took 0.9-1.4; bench/probe/apictx.hds), else the
 * call does and the figure is at most api.event.
 */
static int
event_record(struct cal *c, double *per)
{
	static const int few = 20, many = 200;
	const int samples = c->quick ? 3 : 5;
	struct hd_stats s1, s2;
	char a[32];

	calp_log_head(c, "Timing event records, one after another on an idle stream",
		      "CLOCK_MONOTONIC around N cudaEventRecord and the stream's sync; per "
		      "record: (time of 200 - time of 20) / 180");
	if (calp_sample_stats(c, records, &few, samples, &s1) != 0 ||
	    calp_sample_stats(c, records, &many, samples, &s2) != 0)
		return -1;
	calp_log_row(c, "20 records", samples, 1, &s1, "");
	calp_log_row(c, "200 records", samples, 1, &s2, "");
	*per = fmax((s2.median - s1.median) / (many - few), 0);
	hd_buf_printf(c->log, "    = %s a record\n", hd_cal_ftime(a, sizeof a, *per));
	return 0;
}

int
calp_stage_api(struct cal *c)
{
	double v[API__COUNT], rec;
	int k;

	calp_log_head(c, "Host API costs",
		      "CLOCK_MONOTONIC around each call, batches of 32 "
		      "after a warm-up batch; the figure is the mean over the calls");
	for (k = 0; k < API__COUNT; k++) {
		calp_progress(c, k, API__COUNT, "API cost: %s", api_names[k].key);
		if (api_cost(c, (enum api_kind)k, &v[k]) != 0)
			return -1;
	}
	if (event_record(c, &rec) != 0)
		return -1;
	hd_cal_set_time(&c->sum, "api.launch", &c->p->api_launch, v[API_LAUNCH],
			api_names[API_LAUNCH].how);
	hd_cal_set_time(&c->sum, "api.memcpy", &c->p->api_memcpy, v[API_MEMCPY],
			api_names[API_MEMCPY].how);
	hd_cal_set_time(&c->sum, "api.event", &c->p->api_event, v[API_EVENT],
			api_names[API_EVENT].how);
	hd_cal_set_time(&c->sum, "api.event_notiming", &c->p->api_event_notiming,
			v[API_EVENT_NOTIMING], api_names[API_EVENT_NOTIMING].how);
	hd_cal_set_time(&c->sum, "gpu.event_record", &c->p->event_record, rec,
			"timing records one after another on an idle stream, the time of 200 "
			"less that of 20 over 180");
	hd_cal_set_time(&c->sum, "api.wait", &c->p->api_wait, v[API_WAIT], api_names[API_WAIT].how);
	hd_cal_set_time(&c->sum, "api.sync", &c->p->api_sync, v[API_SYNC], api_names[API_SYNC].how);
	hd_cal_set_time(&c->sum, "api.sync_kernel", &c->p->api_sync_kernel,
			fmax(v[API_SYNC_KERNEL], v[API_SYNC]), api_names[API_SYNC_KERNEL].how);
	hd_cal_set_time(&c->sum, "api.sync_device", &c->p->api_sync_device, v[API_SYNC_DEVICE],
			api_names[API_SYNC_DEVICE].how);
	hd_cal_set_time(&c->sum, "api.memcpy_d2d", &c->p->api_memcpy_d2d, v[API_MEMCPY_D2D],
			api_names[API_MEMCPY_D2D].how);
	/* what staging adds to the same copy (a read lands in pageable memory) */
	hd_cal_set_time(&c->sum, "api.memcpy_pageable", &c->p->api_memcpy_pageable,
			fmax(v[API_MEMCPY_PAGEABLE] - v[API_MEMCPY_SYNC], 0),
			api_names[API_MEMCPY_PAGEABLE].how);
	c->api_memcpy = v[API_MEMCPY];
	c->api_sync = v[API_SYNC];
	c->memcpy_sync_call = v[API_MEMCPY_SYNC]; /* api.memcpy_sync once the rest is known */
	/* the cores a rank's host threads share: this process's CPUs */
	if (hd_real_host_cpus() > 0)
		hd_cal_set_int(&c->sum, "host.cores", &c->p->host_cores, hd_real_host_cpus(),
			       "CPUs this process may run on (sched_getaffinity)");
	return 0;
}

/* ---- pageable copies ------------------------------------------------------------------- */

struct page_op {
	uint64_t n;
	int d2h;
	double call; /* out: the copy call alone */
};

/* cudaMemcpyAsync to or from pageable memory, then a sync: host clock. */
static int
sample_pageable(struct cal *c, const void *arg, double *sec)
{
	struct page_op *op = (struct page_op *)arg;
	double t0, t1, t2;
	int failed;

	if (CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t0 = calp_now();
	if (op->d2h)
		failed = CK(
		    c, cudaMemcpyAsync(c->hpage, c->dbuf, op->n, cudaMemcpyDeviceToHost, c->s));
	else
		failed = CK(
		    c, cudaMemcpyAsync(c->dbuf, c->hpage, op->n, cudaMemcpyHostToDevice, c->s));
	t1 = calp_now();
	if (failed || CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t2 = calp_now();
	op->call = t1 - t0;
	*sec = t2 - t0;
	return 0;
}

/* The staging pipeline fitted again on the copies of lo to hi bytes alone
 * (n[k], t[k], direction d2h[k] of np), the base's figures with the chunk
 * and buffers of the whole fit `all`: 0 with *out, -1 when none are in
 * range or the fit fails. */
static int
fit_sizes(const double *n, const double *t, const int *d2h, int np, double lo, double hi,
	  const struct hd_staging *base, const struct hd_staging_fit *all,
	  struct hd_staging_fit *out)
{
	struct hd_staging shape = *base;
	struct hd_err fe = { 0 };
	double sn[64], st[64];
	int sd[64], ns = 0, k;

	shape.chunk = all->chunk;
	shape.buffers = all->buffers;
	for (k = 0; k < np && ns < 64; k++)
		if (n[k] >= lo && n[k] <= hi) {
			sn[ns] = n[k];
			st[ns] = t[k];
			sd[ns++] = d2h[k];
		}
	if (ns == 0)
		return -1;
	return hd_fit_staging(sn, st, sd, (size_t)ns, &shape, out, &fe);
}

/*
 * host.touch: a malloc of 64 MiB (glibc maps it afresh and unmaps it at
 * free), its first memset and its free, less a second memset of the same
 * pages: what mapping and zeroing fresh pages costs beyond writing them.
 * The median of five rounds (three quick).
 */
static int
host_touch(struct cal *c)
{
	const size_t n = 64 * MiB;
	double v[5];
	struct hd_stats st;
	char r[32];
	int i, rounds = c->quick ? 3 : 5;

	calp_log_head(c, "First touch of malloc'd memory",
		      "host clock around a 64 MiB malloc's first memset and its free, less "
		      "a second memset of the same pages");
	for (i = 0; i < rounds; i++) {
		double t0, t1, t2, t3;
		char *p;

		if (calp_stopped(c))
			return -1;
		if ((p = malloc(n)) == NULL) {
			hd_buf_printf(c->log, "  malloc of 64 MiB failed: host.touch kept\n");
			return 0;
		}
		t0 = calp_now();
		/* each memset must write the pages: the barriers keep the compiler
		 * from dropping either as a dead store */
		memset(p, 1, n);
		__asm__ __volatile__("" : : "r"(p) : "memory");
		t1 = calp_now();
		memset(p, 2, n);
		__asm__ __volatile__("" : : "r"(p) : "memory");
		t2 = calp_now();
		free(p);
		t3 = calp_now();
		v[i] = (t1 - t0) - (t2 - t1) + (t3 - t2);
	}
	if (hd_fit_stats(v, (size_t)rounds, &st, c->e) != 0)
		return -1;
	calp_log_row(c, "64 MiB", rounds, 1, &st, hd_cal_frate(r, sizeof r, (double)n / st.median));
	if (st.median > 0)
		hd_cal_set_rate(&c->sum, "host.touch", &c->p->host_touch_bw, (double)n / st.median,
				"64 MiB malloc'd, first memset and free less a second memset");
	return 0;
}

int
calp_stage_pageable(struct cal *c)
{
	static const uint64_t quick[] = { MiB, 64 * MiB, 256 * MiB };
	uint64_t sizes[MAX_SIZES], s;
	double n[2 * MAX_SIZES], t[2 * MAX_SIZES];
	int d2h[2 * MAX_SIZES], ns = 0, np = 0, dir, i;
	struct hd_staging base;
	struct hd_staging_fit f;
	struct hd_err fe = { 0 };
	char sz[32], r[32], a[32], b[32], x[32];

	/* the API stage's whole cudaMemcpy to pinned memory, less what the
	 * model already gives it (the call, the copy's latency, the wake-up:
	 * measured by now, or the profile's on a host-only pass) */
	if (c->memcpy_sync_call > 0)
		hd_cal_set_time(
		    &c->sum, "api.memcpy_sync", &c->p->api_memcpy_sync,
		    fmax(c->memcpy_sync_call - c->api_memcpy - c->copy_latency - c->wake, 0),
		    api_names[API_MEMCPY_SYNC].how);
	if (host_touch(c) != 0)
		return -1;
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

		snprintf(title, sizeof title,
			 "Pageable %s (cudaMemcpyAsync from malloc'd memory, "
			 "then cudaStreamSynchronize)",
			 dir ? "D2H" : "H2D");
		calp_log_head(c, title,
			      "host clock from the copy call to the sync's return, buffer "
			      "touched beforehand; 'call' is the copy call alone");
		for (i = 0; i < ns; i++) {
			struct page_op op;
			struct hd_stats st;
			double dummy;
			int samples = 5; /* host-side figures are noisy, even quick */

			hd_cal_fbytes(sz, sizeof sz, (double)sizes[i]);
			if (sizes[i] > c->max_copy) {
				hd_buf_printf(c->log,
					      "  %12s skipped: larger than the largest "
					      "buffer\n",
					      sz);
				continue;
			}
			calp_progress(c, dir * ns + i, 2 * ns, "pageable %s %s",
				      dir ? "D2H" : "H2D", sz);
			op.n = sizes[i];
			op.d2h = dir;
			if (sample_pageable(c, &op, &dummy) != 0 || /* warm-up */
			    calp_sample_stats(c, sample_pageable, &op, samples, &st) != 0)
				return -1;
			calp_log_row(c, sz, samples, 1, &st,
				     hd_cal_frate(r, sizeof r, (double)sizes[i] / st.median));
			hd_buf_printf(c->log, "  %12s %7s %5s %12s (last sample's call)\n", "", "",
				      "", hd_cal_ftime(a, sizeof a, op.call));
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
	/* cudaMemcpyAsync (no api.memcpy_sync) and what staging adds to its call,
	 * api.memcpy_pageable, as the model has them */
	base.api = c->api_memcpy + hd_time_to_s(c->p->api_memcpy_pageable);
	base.api_sync = c->api_sync;
	base.wake = c->wake;
	if (hd_fit_staging(n, t, d2h, (size_t)np, &base, &f, &fe) != 0) {
		hd_buf_printf(c->log, "  no fit: %s\n", fe.msg);
		hd_buf_printf(&c->sum, "  %-20s kept (no pageable fit)\n", "host.memcpy_*");
		return 0;
	}
	hd_buf_printf(c->log,
		      "  fit of the model's staging pipeline (the pinned rates, latency "
		      "and API costs above held fixed; one memcpy rate per direction):\n");
	hd_buf_printf(c->log,
		      "    base shape (chunk %s, %d buffers): host memcpy HtoD %s, DtoH "
		      "%s; residual max %.1f %%, rms %.1f %%\n",
		      hd_cal_fbytes(a, sizeof a, base.chunk), base.buffers,
		      hd_cal_frate(b, sizeof b, f.base_memcpy_bw[0]),
		      hd_cal_frate(x, sizeof x, f.base_memcpy_bw[1]), 100 * f.base_max_rel,
		      100 * f.base_rms_rel);
	if (f.shape_fitted)
		hd_buf_printf(c->log,
			      "    best shape (chunk %s, %d buffers): host memcpy HtoD %s, "
			      "DtoH %s; residual max %.1f %%, rms %.1f %%: taken\n",
			      hd_cal_fbytes(a, sizeof a, f.chunk), f.buffers,
			      hd_cal_frate(b, sizeof b, f.memcpy_bw[0]),
			      hd_cal_frate(x, sizeof x, f.memcpy_bw[1]), 100 * f.max_rel,
			      100 * f.rms_rel);
	else
		hd_buf_printf(c->log,
			      "    no other chunk size or buffer count fits clearly "
			      "better (by a fifth of the rms error, with the base shape off by "
			      "more than 2 %%): the base's staging.chunk and staging.buffers are "
			      "kept\n");
	/*
	 * The rates again on the large copies alone, with the shape just chosen:
	 * a small source still in the CPU's caches copies faster than one that
	 * streams from DRAM, and lesson-size copies stream from DRAM.
	 */
	{
		struct hd_staging_fit f2;
		/*
		 * One thread's memcpy sees one core complex's L3 (32 MiB on the
		 * EPYC hosts measured), not the total that sysfs may report (300
		 * MiB on one of them): on both the H100 and H200 hosts the rate
		 * dropped between 64 and 128 MiB and stayed flat above.
		 */
		double from = 128.0 * MiB;
		int k;

		/* At least the two largest sizes of each direction take part. */
		for (k = 0; k < np; k++)
			if (n[k] < from && n[k] * 2 >= n[np - 1])
				from = n[k];
		if (fit_sizes(n, t, d2h, np, from, INFINITY, &base, &f, &f2) == 0) {
			hd_buf_printf(
			    c->log,
			    "    rates on copies of %s and more (the source "
			    "streams from DRAM, as in lesson-size copies; smaller ones run "
			    "partly from the CPU caches): HtoD %s, DtoH %s; residual max "
			    "%.1f %%: taken\n",
			    hd_cal_fbytes(a, sizeof a, from),
			    hd_cal_frate(b, sizeof b,
					 f2.points[0] ? f2.memcpy_bw[0] : f.memcpy_bw[0]),
			    hd_cal_frate(x, sizeof x,
					 f2.points[1] ? f2.memcpy_bw[1] : f.memcpy_bw[1]),
			    100 * f2.max_rel);
			for (k = 0; k < 2; k++)
				if (f2.points[k] > 0 && !f2.at_top[k])
					f.memcpy_bw[k] = f2.memcpy_bw[k];
		}
	}
	/*
	 * And on the copies that fit the CPU's caches (host.cache, kept from
	 * the base): from 512 KiB, where the API and DMA set-up no longer
	 * dominate, to half the cache.  The model runs a copy of at most
	 * host.cache bytes at these rates.
	 */
	if (c->p->host_cache > 0) {
		static const char *const key[2] = { "host.memcpy_h2d_hot", "host.memcpy_d2h_hot" };
		double *const at[2] = { &c->p->host_memcpy_h2d_hot_bw,
					&c->p->host_memcpy_d2h_hot_bw };
		struct hd_staging_fit f3;

		if (fit_sizes(n, t, d2h, np, 512.0 * KiB, (double)c->p->host_cache / 2, &base, &f,
			      &f3) == 0) {
			hd_buf_printf(
			    c->log,
			    "    rates on copies of 512 KiB to %s (host.cache / 2: the "
			    "host side stays in the CPU's caches): HtoD %s, DtoH %s; "
			    "residual max %.1f %%\n",
			    hd_cal_fbytes(a, sizeof a, (double)c->p->host_cache / 2),
			    f3.points[0] ? hd_cal_frate(b, sizeof b, f3.memcpy_bw[0]) : "-",
			    f3.points[1] ? hd_cal_frate(x, sizeof x, f3.memcpy_bw[1]) : "-",
			    100 * f3.max_rel);
			set_memcpy_rates(c, &f3, key, at, "fitted on copies that fit host.cache",
					 NULL);
		}
	}
	{
		static const char *const key[2] = { "host.memcpy_h2d", "host.memcpy_d2h" };
		static const char *const none[2] = { "no HtoD pageable copies",
						     "no DtoH pageable copies" };
		double *const at[2] = { &c->p->host_memcpy_h2d_bw, &c->p->host_memcpy_d2h_bw };

		set_memcpy_rates(c, &f, key, at, "fitted through the model's staging pipeline",
				 none);
	}
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

/* ---- pinning and allocation -------------------------------------------------------------- */

struct pin_op {
	uint64_t n;
	void *buf;   /* malloc'd and touched */
	void *dev;   /* device buffer the pinned pages are copied to, or NULL */
	int alloc;   /* 1: cudaMallocHost / cudaFreeHost instead */
	double undo; /* out: unregister / free time */
};

static int
sample_pin(struct cal *c, const void *arg, double *sec)
{
	struct pin_op *op = (struct pin_op *)arg;
	double t0, t1, u0, u1;
	void *p = NULL;

	if (op->alloc) {
		t0 = calp_now();
		if (CK(c, cudaMallocHost(&p, op->n)))
			return -1;
		t1 = calp_now();
		u0 = t1;
		if (CK(c, cudaFreeHost(p)))
			return -1;
		u1 = calp_now();
	} else {
		t0 = calp_now();
		if (CK(c, cudaHostRegister(op->buf, op->n, cudaHostRegisterDefault)))
			return -1;
		t1 = calp_now();
		/* Used as lessons use pinned pages: copied to the GPU once (untimed),
		 * which changes what the next registration of them costs. */
		if (op->dev != NULL &&
		    CK(c, cudaMemcpy(op->dev, op->buf, op->n, cudaMemcpyHostToDevice)))
			return -1;
		u0 = calp_now();
		if (CK(c, cudaHostUnregister(op->buf)))
			return -1;
		u1 = calp_now();
	}
	op->undo = u1 - u0;
	*sec = t1 - t0;
	return 0;
}

static int
sweep_pin(struct cal *c, int alloc, struct hd_fit *fit, int *fitted, struct calp_sweep *undo)
{
	static const uint64_t full[] = { MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, GiB };
	static const uint64_t quick[] = { 16 * MiB, 64 * MiB, 256 * MiB };
	const uint64_t *sizes = c->quick ? quick : full;
	int ns = c->quick ? (int)HD_ARRAY_LEN(quick) : (int)HD_ARRAY_LEN(full), i;
	struct calp_sweep sw;
	char sz[32], r[32], a[32];

	memset(&sw, 0, sizeof sw);
	*fitted = 0;
	calp_log_head(c,
		      alloc ?
			  "cudaMallocHost (then cudaFreeHost)" :
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
			hd_buf_printf(c->log,
				      "  %12s skipped: more than an eighth of available "
				      "host memory\n",
				      sz);
			continue;
		}
		calp_progress(c, i, ns, "%s %s", alloc ? "cudaMallocHost" : "cudaHostRegister", sz);
		memset(&op, 0, sizeof op);
		op.n = sizes[i];
		op.alloc = alloc;
		if (!alloc) {
			op.buf = malloc(sizes[i]); /* as lessons' buffers are */
			if (op.buf == NULL) {
				hd_err_set(c->e, HD_EXIT_FAIL, "", "calibrate: malloc of %s failed",
					   sz);
				return -1;
			}
			memset(op.buf, 1, sizes[i]);
			if (cudaMalloc(&op.dev, sizes[i]) != cudaSuccess) {
				cudaGetLastError();
				op.dev = NULL; /* no room: register and unregister only */
			}
		}
		if (sample_pin(c, &op, &dummy) != 0 || /* warm-up */
		    calp_sample_stats(c, sample_pin, &op, samples, &st) != 0) {
			free(op.buf);
			if (op.dev != NULL)
				cudaFree(op.dev);
			return -1;
		}
		free(op.buf);
		if (op.dev != NULL && CK(c, cudaFree(op.dev)))
			return -1;
		calp_log_row(c, sz, samples, 1, &st,
			     hd_cal_frate(r, sizeof r, (double)sizes[i] / st.median));
		hd_buf_printf(c->log, "  %12s %7s %5s %12s (undo)\n", "", "", "",
			      hd_cal_ftime(a, sizeof a, op.undo));
		sw.n[sw.count] = (double)sizes[i];
		sw.t[sw.count++] = st.median;
		if (undo != NULL) {
			undo->n[undo->count] = (double)sizes[i];
			undo->t[undo->count++] = op.undo;
		}
	}
	return calp_sweep_fit(c, &sw, 4.0 * MiB, 64.0 * MiB, "B/s", ">= 64 MiB",
			      "mean of t - n / beta over sizes <= 4 MiB", fit, fitted);
}

static int
sample_malloc(struct cal *c, uint64_t n, double *undo, double *sec)
{
	double t0, t1, t2;
	void *p = NULL;

	if (CK(c, cudaDeviceSynchronize()))
		return -1;
	t0 = calp_now();
	if (CK(c, cudaMalloc(&p, n)))
		return -1;
	t1 = calp_now();
	if (CK(c, cudaFree(p)))
		return -1;
	t2 = calp_now();
	*undo = t2 - t1;
	*sec = t1 - t0;
	return 0;
}

/* cudaMalloc / cudaFree of n bytes, n times after a warm-up: the medians. */
static int
malloc_pair(struct cal *c, uint64_t n, int samples, struct hd_stats *sm, struct hd_stats *sf)
{
	double m[MAX_SAMPLES], fr[MAX_SAMPLES], undo = 0;
	int i;

	if (sample_malloc(c, n, &undo, &m[0]) != 0)
		return -1;
	for (i = 0; i < samples; i++) {
		if (calp_stopped(c) || sample_malloc(c, n, &undo, &m[i]) != 0)
			return -1;
		fr[i] = undo;
	}
	if (hd_fit_stats(m, (size_t)samples, sm, c->e) != 0 ||
	    hd_fit_stats(fr, (size_t)samples, sf, c->e) != 0)
		return -1;
	return 0;
}

/* cudaMalloc / cudaFree of `size` bytes (`sz` in words), logged, their
 * medians the figures mkey and fkey. */
static int
malloc_fixed(struct cal *c, uint64_t size, int n, const char *sz, const char *mkey, hd_time *mfield,
	     const char *fkey, hd_time *ffield)
{
	struct hd_stats sm, sf;
	char how[64];

	if (malloc_pair(c, size, n, &sm, &sf) != 0)
		return -1;
	calp_log_row(c, "cudaMalloc", n, 1, &sm, sz);
	calp_log_row(c, "cudaFree", n, 1, &sf, sz);
	snprintf(how, sizeof how, "median cudaMalloc of %s", sz);
	hd_cal_set_time(&c->sum, mkey, mfield, sm.median, how);
	snprintf(how, sizeof how, "median cudaFree of %s", sz);
	hd_cal_set_time(&c->sum, fkey, ffield, sf.median, how);
	return 0;
}

double
calp_less_bytes(double t, uint64_t n, double rate)
{
	if (rate > 0)
		t -= (double)n / rate;
	return t > 0 ? t : 0;
}

/* One fixed part and one rate from the medians at two sizes (a slope that
 * is not positive leaves the rate 0: no per-byte cost). */
static void
set_two_sizes(struct cal *c, const char *key, hd_time *fixed, const char *rkey, double *rate,
	      uint64_t n0, double t0, uint64_t n1, double t1, const char *what)
{
	double slope = (t1 - t0) / (double)(n1 - n0);
	char why[96];

	snprintf(why, sizeof why, "%s of 64 MiB less its bytes at %s", what, rkey);
	hd_cal_set_time(&c->sum, key, fixed, calp_less_bytes(t0, n0, slope > 0 ? 1 / slope : 0),
			why);
	if (!(slope > 0)) {
		*rate = 0;
		hd_buf_printf(&c->sum,
			      "  %-20s 0 (no per-byte cost: the largest buffer took no "
			      "longer than 64 MiB)\n",
			      rkey);
		return;
	}
	snprintf(why, sizeof why, "%s: bytes / extra time from 64 MiB up", what);
	hd_cal_set_rate(&c->sum, rkey, rate, 1 / slope, why);
}

/*
 * cudaMalloc / cudaFree of 64 MiB and of the largest buffer: a fixed part
 * and a per-byte rate each (mapping and unmapping pages; on lent H100s
 * cudaFree of 1 GiB took 0.3-0.6 ms against 60-90 us for 64 MiB,
 * bench/probe/driver2.hds).  Without a large enough buffer the rates are
 * left as they were and the fixed parts are the 64 MiB medians less their
 * bytes at them.
 */
static int
malloc_rates(struct cal *c, int n, const struct hd_stats *sm, const struct hd_stats *sf)
{
	uint64_t big = c->max_copy;
	struct hd_stats bm, bf;
	char sz[32];

	if (big < 4 * 64 * MiB) {
		hd_cal_set_time(&c->sum, "api.malloc", &c->p->malloc_cost,
				calp_less_bytes(sm->median, 64 * MiB, c->p->malloc_bw),
				"median cudaMalloc of 64 MiB less its bytes at api.malloc_rate");
		hd_cal_set_time(&c->sum, "api.free", &c->p->free_cost,
				calp_less_bytes(sf->median, 64 * MiB, c->p->free_bw),
				"median cudaFree of 64 MiB less its bytes at api.free_rate");
		return 0;
	}
	if (malloc_pair(c, big, n, &bm, &bf) != 0)
		return -1;
	hd_cal_fbytes(sz, sizeof sz, (double)big);
	calp_log_row(c, "cudaMalloc", n, 1, &bm, sz);
	calp_log_row(c, "cudaFree", n, 1, &bf, sz);
	set_two_sizes(c, "api.malloc", &c->p->malloc_cost, "api.malloc_rate", &c->p->malloc_bw,
		      64 * MiB, sm->median, big, bm.median, "cudaMalloc");
	set_two_sizes(c, "api.free", &c->p->free_cost, "api.free_rate", &c->p->free_bw, 64 * MiB,
		      sf->median, big, bf.median, "cudaFree");
	return 0;
}

int
calp_stage_pinning(struct cal *c)
{
	struct hd_fit f, fa;
	int ok, oka, oku = 0;
	const int n = c->quick ? 7 : 21;
	struct hd_stats sm, sf;
	struct calp_sweep undo;
	struct hd_fit fu;

	calp_range(c, c->lo, c->lo + (c->hi - c->lo) * 0.45);
	if (sweep_pin(c, 0, &f, &ok, NULL) != 0)
		return -1;
	calp_range(c, c->hi, c->hi + (c->hi - c->lo));
	memset(&undo, 0, sizeof undo);
	if (sweep_pin(c, 1, &fa, &oka, &undo) != 0)
		return -1;
	if (ok) {
		hd_cal_set_rate(&c->sum, "host.pin_rate", &c->p->pin_bw, f.beta,
				"fitted beta of cudaHostRegister");
		/* the quick pass has no size under 16 MiB: its intercept is an
		 * extrapolation that came out at 0.6 ms on a lent H100 (a 107 B
		 * registration took under 0.1 ms), so the fixed part is kept */
		if (c->quick)
			hd_buf_printf(&c->sum, "  %-20s kept (no small size in the quick pass)\n",
				      "host.pin_base");
		else
			hd_cal_set_time(&c->sum, "host.pin_base", &c->p->pin_base, f.alpha,
					"fitted alpha of cudaHostRegister");
	} else
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "host.pin_rate/pin_base");
	if (oka)
		hd_cal_set_rate(&c->sum, "host.mallochost_rate", &c->p->mallochost_bw, fa.beta,
				"fitted beta of cudaMallocHost");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "host.mallochost_rate");
	/* cudaFreeHost of the same sizes: a fixed part and the pages unpinned */
	calp_log_head(c, "cudaFreeHost (the last sample of each size above)", "host clock");
	if (calp_sweep_fit(c, &undo, 4.0 * MiB, 64.0 * MiB, "B/s", ">= 64 MiB", "the intercept",
			   &fu, &oku) != 0)
		return -1;
	if (oku)
		hd_cal_set_rate(&c->sum, "host.unpin_rate", &c->p->unpin_bw, fu.beta,
				"fitted beta of cudaFreeHost");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "host.unpin_rate");
	/*
	 * The fixed parts, host.mallochost_base and api.freehost, are kept
	 * from the base: neither the fits' intercepts (0 to 74 us) nor a loop
	 * of 4 KiB cudaMallocHost / cudaFreeHost (3.2 and 1.7 us, the driver
	 * reusing the pages) show what a scenario's allocation costs, 0.76 to
	 * 1.12 ms around a kernel on the lent H100s (bench/probe/hot.hds,
	 * 2026-11-24; bench/results/2026-11-25-fidelity-h100/README.md).
	 */

	calp_range(c, c->hi, c->hi + (c->hi - c->lo) / 9);
	calp_progress(c, 0, 1, "cudaMalloc / cudaFree");
	calp_log_head(c,
		      "cudaMalloc / cudaFree of 64 MiB, the largest buffer, 4 MiB and 64 KiB on an "
		      "idle device",
		      "host clock around "
		      "each call; the first call is a warm-up");
	if (malloc_pair(c, 64 * MiB, n, &sm, &sf) != 0)
		return -1;
	calp_log_row(c, "cudaMalloc", n, 1, &sm, "64 MiB");
	calp_log_row(c, "cudaFree", n, 1, &sf, "64 MiB");
	if (malloc_rates(c, n, &sm, &sf) != 0)
		return -1;
	/* from 2 MiB to 64 MiB the driver's time is not 64 MiB's less its
	 * bytes: 4 MiB, the foot of the rise the model draws to 64 MiB
	 * (sim/model_ops.c's device_map_cost) */
	if (malloc_fixed(c, HD_ALLOC_MID, n, "4 MiB", "api.malloc_mid", &c->p->malloc_mid,
			 "api.free_mid", &c->p->free_mid) != 0)
		return -1;
	/* below 2 MiB the driver serves allocations from its pool */
	if (malloc_fixed(c, 64 * KiB, n, "64 KiB", "api.malloc_small", &c->p->malloc_small,
			 "api.free_small", &c->p->free_small) != 0)
		return -1;
	return 0;
}
