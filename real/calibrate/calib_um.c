/*
 * calib_um.c - managed memory, for `hdsim calibrate` (calib_priv.h): a
 * prefetch each way and of pages already there, a kernel faulting the pages
 * in, their fixed parts from a small buffer, the CPU's first write into
 * pages a prefetch has brought to the host, copies whose host side is
 * managed memory on the GPU, which the CPU faults over first, and a small
 * cudaMallocManaged and cudaFree.  CUDA events
 * around GPU work, the host clock around what the driver does on the host.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "real/calibrate/calib_priv.h"
#include "real/real.h"

/* One sample: a prefetch to the GPU, the memory kernel on resident pages
 * and faulting them in (CUDA events); a prefetch to the host of pages on
 * the GPU, and one to the GPU of pages already there (host clock around the
 * call and a stream sync: the driver does this work on the host). */
struct um_res {
	double prefetch, resident, faulting, tohost, walk;
	double landed, again; /* memsets of the pages a prefetch brought to the host */
};

/* A prefetch of n bytes of buf to the GPU or the host, waited for. */
static int
prefetch_to(struct cal *c, void *buf, size_t n, int device)
{
	struct cudaMemLocation loc;

	memset(&loc, 0, sizeof loc);
	loc.type = device ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
	loc.id = device ? c->dev : 0;
	if (CK(c, cudaMemPrefetchAsync(buf, n, loc, 0, c->s)) || CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	return 0;
}

/*
 * Prefetch to the host (its time in *sec when not NULL), then touch there.
 * With r not NULL, the touch is timed (r->landed), and a second memset
 * over the same pages after it (r->again): what the first costs beyond
 * the second is the CPU's first write into pages a prefetch brought over.
 * On a lent H100 a CPU copy of 64 MB into managed memory just prefetched
 * to the host took 14.0 ms, against 6.9 at the CPU's memcpy rate; into
 * pages it had written once already, or a copy of 4 KB, no more than the
 * memcpy (bench/probe/pftouch.hds, run96).
 */
static int
to_host(struct cal *c, void *buf, size_t n, double *sec, struct um_res *r)
{
	double t0 = calp_now();

	if (prefetch_to(c, buf, n, 0) != 0)
		return -1;
	if (sec != NULL)
		*sec = calp_now() - t0;
	t0 = calp_now();
	memset(buf, 1, n); /* resident on the host and touched there */
	if (r != NULL) {
		r->landed = calp_now() - t0;
		t0 = calp_now();
		memset(buf, 2, n);
		r->again = calp_now() - t0;
	}
	return 0;
}

/* Fault-ins vary by a third from one to the next on the lent H100s. */
#define UM_SAMPLES 5

/*
 * The first touch on the host of fresh managed pages, as an explicit alloc
 * of a managed buffer does in --real: a memset of a buffer of n bytes just
 * allocated, the median over UM_SAMPLES buffers after a warm-up one, each
 * freed before the next.  One memset of one buffer spread from 2.1 to 3.2
 * GB/s between calibrations on a lent H100 where scenarios' allocations
 * touched at 3.3 to 4.2 (bench/results/2026-12-07-heldout30-h100, run89).
 */
static int
um_touch(struct cal *c, uint64_t n, const char *sz)
{
	double t[UM_SAMPLES], t0;
	struct hd_stats st;
	char a[32];
	void *p;
	int i;

	for (i = -1; i < UM_SAMPLES; i++) {
		if (calp_stopped(c))
			return -1;
		if (CK(c, cudaMallocManaged(&p, n, cudaMemAttachGlobal)))
			return -1;
		t0 = calp_now();
		memset(p, 1, n);
		if (i >= 0)
			t[i] = calp_now() - t0;
		if (CK(c, cudaFree(p)))
			return -1;
	}
	if (hd_fit_stats(t, UM_SAMPLES, &st, c->e) != 0)
		return -1;
	calp_log_row(c, sz, UM_SAMPLES, 1, &st, hd_cal_frate(a, sizeof a, (double)n / st.median));
	hd_buf_printf(c->log,
		      "    = first touch on the host (memset of a fresh buffer each sample)\n");
	if (st.median > 0)
		hd_cal_set_rate(&c->sum, "um.host_touch", &c->p->um_touch_bw, (double)n / st.median,
				"median memset of fresh managed memory on the host");
	return 0;
}

/*
 * um.prefetched_write from the medians of the two memsets after a prefetch
 * to the host (to_host): the first's time beyond the second's.  Under a
 * fiftieth of the second's, the difference is the clock's and the load's,
 * and the rate is 0 (free).
 */
static void
landed_write(struct cal *c, uint64_t n, const char *sz, const struct hd_stats *first,
	     const struct hd_stats *again)
{
	double extra = first->median - again->median;
	char a[32];

	calp_log_row(c, sz, UM_SAMPLES, 1, first,
		     hd_cal_frate(a, sizeof a, (double)n / first->median));
	hd_buf_printf(c->log, "    = memset on the host of the pages a prefetch brought there\n");
	calp_log_row(c, sz, UM_SAMPLES, 1, again,
		     hd_cal_frate(a, sizeof a, (double)n / again->median));
	hd_buf_printf(c->log, "    = the same memset again\n");
	if (!(extra > again->median / 50)) {
		hd_buf_printf(c->log,
			      "  the first memset was not slower than the second: "
			      "um.prefetched_write is 0 (free)\n");
		c->p->um_prefetched_write_bw = 0;
		hd_buf_printf(&c->sum, "  %-20s 0 (free: the first write cost no more)\n",
			      "um.prefetched_write");
		return;
	}
	hd_cal_set_rate(&c->sum, "um.prefetched_write", &c->p->um_prefetched_write_bw,
			(double)n / extra,
			"bytes / the first memset's time beyond the second's, after a "
			"prefetch to the host");
}

static int
sample_um(struct cal *c, void *buf, size_t n, struct um_res *r)
{
	struct cudaMemLocation dev;
	double t0;

	memset(&dev, 0, sizeof dev);
	dev.type = cudaMemLocationTypeDevice;
	dev.id = c->dev;
	/* to the host (the pages are on the GPU after the last sample's
	 * kernel), prefetched back, then the kernel on resident pages */
	if (to_host(c, buf, n, &r->tohost, NULL) || CK(c, cudaEventRecord(c->ev[0], c->s)) ||
	    CK(c, cudaMemPrefetchAsync(buf, n, dev, 0, c->s)) ||
	    CK(c, cudaEventRecord(c->ev[1], c->s)) ||
	    KCK(c, hd_kernel_memory((hd_cuda_stream)c->s, buf, n, 0)) ||
	    CK(c, cudaEventRecord(c->ev[2], c->s)) || CK(c, cudaStreamSynchronize(c->s)) ||
	    calp_elapsed(c->e, c->ev[0], c->ev[1], &r->prefetch) ||
	    calp_elapsed(c->e, c->ev[1], c->ev[2], &r->resident))
		return -1;
	/* a prefetch of pages already on the GPU: the driver walks them */
	t0 = calp_now();
	if (prefetch_to(c, buf, n, 1) != 0)
		return -1;
	r->walk = calp_now() - t0;
	/* the same kernel faulting the pages in */
	if (to_host(c, buf, n, NULL, r) || CK(c, cudaEventRecord(c->ev[0], c->s)) ||
	    KCK(c, hd_kernel_memory((hd_cuda_stream)c->s, buf, n, 0)) ||
	    CK(c, cudaEventRecord(c->ev[1], c->s)) || CK(c, cudaStreamSynchronize(c->s)) ||
	    calp_elapsed(c->e, c->ev[0], c->ev[1], &r->faulting))
		return -1;
	return 0;
}

/*
 * A prefetch of all of managed buffer buf (n bytes) to the GPU as a
 * scenario's repeat makes it: the pages sent to the host and touched there,
 * the device idle, then the host clock around the call and a stream sync.
 */
static int
prefetch_as_scenario(struct cal *c, void *buf, size_t n, double *sec)
{
	struct cudaMemLocation dev;
	double t0;

	memset(&dev, 0, sizeof dev);
	dev.type = cudaMemLocationTypeDevice;
	dev.id = c->dev;
	if (to_host(c, buf, n, NULL, NULL) || CK(c, cudaDeviceSynchronize()))
		return -1;
	t0 = calp_now();
	if (CK(c, cudaMemPrefetchAsync(buf, n, dev, 0, c->s)) || CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	*sec = calp_now() - t0;
	return 0;
}

/*
 * The fixed parts, from a buffer of its own of 2 MiB, where they dominate:
 * a prefetch's time (host clock, as prefetch_as_scenario) less the call's
 * api.memcpy, the sync's api.wake and its bytes at um.prefetch_rate
 * (um.prefetch_base), and a faulting kernel's extra time less its groups'
 * um.fault and bytes at um.fault_rate (um.fault_base).  A part that comes
 * out negative is 0.  A buffer of its own, prefetched as a scenario does:
 * on lent H200s (2026-11-28, bench/probe/umsize.hds) a 2 MiB buffer
 * prefetched whole took 96-125 us with the sync, where the first 2 MiB of
 * a larger one between kernels that fault had come out at 190-330 us
 * (CUDA events) on the same machines.  The model scales both down for
 * smaller buffers (sim/model.c, model_um_fixed).
 */
static int
um_small(struct cal *c, uint64_t big)
{
	const uint64_t n = 2 * MiB;
	double pf[UM_SAMPLES], ex[UM_SAMPLES], groups, rest;
	struct hd_stats spf, sex;
	struct um_res r;
	char sz[32], a[32];
	void *buf = NULL;
	int i, rc = -1;

	if (big < 2 * n || !(c->p->um_prefetch_bw > 0) || !(c->p->um_fault_bw > 0) ||
	    c->p->um_page == 0)
		return 0;
	if (CK(c, cudaMallocManaged(&buf, n, cudaMemAttachGlobal)))
		return -1;
	for (i = -1; i < UM_SAMPLES; i++) {
		if (calp_stopped(c) || sample_um(c, buf, n, &r) != 0 ||
		    prefetch_as_scenario(c, buf, n, &pf[i < 0 ? 0 : i]) != 0)
			goto out;
		if (i >= 0)
			ex[i] = r.faulting - r.resident;
	}
	if (hd_fit_stats(pf, UM_SAMPLES, &spf, c->e) != 0 ||
	    hd_fit_stats(ex, UM_SAMPLES, &sex, c->e) != 0)
		goto out;
	hd_cal_fbytes(sz, sizeof sz, (double)n);
	calp_log_row(c, sz, UM_SAMPLES, 1, &spf, hd_cal_frate(a, sizeof a, (double)n / spf.median));
	hd_buf_printf(c->log, "    = cudaMemPrefetchAsync to the GPU\n");
	calp_log_row(c, sz, UM_SAMPLES, 1, &sex, "");
	hd_buf_printf(c->log, "    = memory kernel faulting the pages in, less resident\n");
	hd_buf_printf(c->log,
		      "    (host clock, with a stream sync, after the pages went to the host)\n");
	hd_cal_set_time(&c->sum, "um.prefetch_base", &c->p->um_prefetch_base,
			calp_less_bytes(spf.median - hd_time_to_s(c->p->api_memcpy) -
					    hd_time_to_s(c->p->sync_wake),
					n, c->p->um_prefetch_bw),
			"prefetch of a 2 MiB buffer, less its call, its sync and its bytes at "
			"um.prefetch_rate");
	groups = ceil((double)n / (double)c->p->um_page);
	rest = calp_less_bytes(sex.median - groups * hd_time_to_s(c->p->um_fault), n,
			       c->p->um_fault_bw);
	hd_cal_set_time(&c->sum, "um.fault_base", &c->p->um_fault_base, rest,
			"a 2 MiB buffer faulted in, less its groups at um.fault and bytes "
			"at um.fault_rate");
	rc = 0;
out:
	cudaFree(buf);
	return rc;
}

/* One cudaMemcpy of n bytes, host clock around it, after the pages of the
 * managed buffer `um` (its first `all` bytes) were prefetched to the GPU
 * (device) or the host. */
static int
copy_after(struct cal *c, void *um, size_t all, int device, void *dst, const void *src, size_t n,
	   enum cudaMemcpyKind kind, double *sec)
{
	double t0;

	if (prefetch_to(c, um, all, device) != 0)
		return -1;
	t0 = calp_now();
	if (CK(c, cudaMemcpy(dst, src, n, kind)))
		return -1;
	*sec = calp_now() - t0;
	return 0;
}

/*
 * A prefetch of pages already on the GPU walks them, and its time per byte
 * grows with the range: 0.2 ms for 256 MiB, about 1 ms for 512 MiB and
 * 2.5 ms for 1020 MB on lent H100s (calibrate; bench/probe/driver2.hds;
 * tuning scenario 032).  Scenarios prefetch up to 1 GiB, so the walk is
 * timed on the largest buffer up to that which fits (a quarter of free
 * device memory, the host cap) when it is larger than n: its rate into
 * *rate and its size into *size (*rate 0: not measured).
 */
static int
walk_large(struct cal *c, size_t dfree, uint64_t n, double *rate, uint64_t *size)
{
	uint64_t w = (uint64_t)dfree / 4;
	double t[3], t0;
	struct hd_stats st;
	void *buf = NULL;
	int i, rc = -1;

	*rate = 0;
	*size = 0;
	if (w > GiB)
		w = GiB;
	if (w > c->host_cap)
		w = c->host_cap;
	w = w / (2 * MiB) * (2 * MiB);
	if (w <= n)
		return 0;
	if (CK(c, cudaMallocManaged(&buf, w, cudaMemAttachGlobal)))
		return -1;
	memset(buf, 1, w); /* touched on the host, as a scenario's buffer */
	if (prefetch_to(c, buf, w, 1) != 0)
		goto out;
	for (i = 0; i < 3; i++) {
		t0 = calp_now();
		if (prefetch_to(c, buf, w, 1) != 0)
			goto out;
		t[i] = calp_now() - t0;
	}
	if (hd_fit_stats(t, 3, &st, c->e) != 0)
		goto out;
	if (st.median > 0) {
		*rate = (double)w / st.median;
		*size = w;
	}
	rc = 0;
out:
	cudaFree(buf);
	return rc;
}

/*
 * cudaMallocManaged of one page, touched on the host as --real does, and
 * its cudaFree: what a scenario's alloc and free of a small managed buffer
 * cost (on a lent H100 a round took 117-145 us, bench/probe/thrash.hds,
 * against 1-2 us for cudaMalloc from the driver's pool).  The first round
 * is a warm-up.
 */
static int
um_alloc(struct cal *c)
{
	double al[UM_SAMPLES], fr[UM_SAMPLES], t0, t1, t2;
	struct hd_stats sal, sfr;
	void *p;
	int i;

	for (i = -1; i < UM_SAMPLES; i++) {
		if (calp_stopped(c))
			return -1;
		t0 = calp_now();
		if (CK(c, cudaMallocManaged(&p, 4096, cudaMemAttachGlobal)))
			return -1;
		memset(p, 1, 4096);
		t1 = calp_now();
		if (CK(c, cudaFree(p)))
			return -1;
		t2 = calp_now();
		if (i >= 0) {
			al[i] = t1 - t0;
			fr[i] = t2 - t1;
		}
	}
	if (hd_fit_stats(al, UM_SAMPLES, &sal, c->e) != 0 ||
	    hd_fit_stats(fr, UM_SAMPLES, &sfr, c->e) != 0)
		return -1;
	hd_buf_printf(c->log,
		      "  cudaMallocManaged of a page, touched on the host, and its "
		      "cudaFree (host clock)\n");
	calp_log_row(c, "4 KiB", UM_SAMPLES, 1, &sal, "");
	hd_buf_printf(c->log, "    = cudaMallocManaged and memset\n");
	calp_log_row(c, "4 KiB", UM_SAMPLES, 1, &sfr, "");
	hd_buf_printf(c->log, "    = cudaFree\n");
	hd_cal_set_time(&c->sum, "api.malloc_managed", &c->p->malloc_managed, sal.median,
			"median cudaMallocManaged of 4 KiB with its memset");
	hd_cal_set_time(&c->sum, "api.free_managed", &c->p->free_managed, sfr.median,
			"median cudaFree of it");
	return 0;
}

#define FB_TINY 4

/*
 * Copies whose host side is managed memory that is on the GPU: the CPU
 * faults the pages back before the driver stages them.  Each sample times
 * a copy of q bytes out of the buffer and one into it, and one of 4 B out,
 * after a prefetch to the GPU and after one to the host; um.host_fault is
 * the 4 B difference, um.host_fault_rate and um.host_fault_write q over the
 * q-byte differences less it.  (On a lent H100: 95-116 us, 9 and 3 GB/s,
 * bench/probe/umcopy.hds.)  api.memcpy_managed is the 4 B copy with the
 * pages on the host less one from pageable memory (on a lent H100 two 7 B
 * copies out of managed memory on the host took 66-74 us, against the 26
 * us the model gave them with the base's 8 us).
 */
static int
um_fault_back(struct cal *c, void *buf, uint64_t n)
{
	size_t q = 16 * MiB;
	double rd[UM_SAMPLES], wr[UM_SAMPLES], tiny[UM_SAMPLES], th[UM_SAMPLES], pg[UM_SAMPLES];
	double h, d, t0;
	struct hd_stats srd, swr, sti, sth, spg;
	char sz[32], a[32];
	char pgbuf[64];
	int i;

	if (q > n)
		q = n;
	if (q > c->max_copy)
		q = c->max_copy;
	if (q < 2 * MiB || c->dbuf == NULL) {
		hd_buf_printf(&c->sum, "  %-20s kept (no 2 MiB copy to time)\n",
			      "um.host_fault*, api.memcpy_managed");
		return 0;
	}
	hd_cal_fbytes(sz, sizeof sz, (double)q);
	for (i = -1; i < UM_SAMPLES; i++) {
		if (calp_stopped(c))
			return -1;
		if (copy_after(c, buf, n, 0, c->dbuf, buf, q, cudaMemcpyHostToDevice, &h) != 0 ||
		    copy_after(c, buf, n, 1, c->dbuf, buf, q, cudaMemcpyHostToDevice, &d) != 0)
			return -1;
		if (i >= 0)
			rd[i] = d - h;
		if (copy_after(c, buf, n, 0, buf, c->dbuf, q, cudaMemcpyDeviceToHost, &h) != 0 ||
		    copy_after(c, buf, n, 1, buf, c->dbuf, q, cudaMemcpyDeviceToHost, &d) != 0)
			return -1;
		if (i >= 0)
			wr[i] = d - h;
		if (copy_after(c, buf, n, 0, c->dbuf, buf, FB_TINY, cudaMemcpyHostToDevice, &h) !=
			0 ||
		    copy_after(c, buf, n, 1, c->dbuf, buf, FB_TINY, cudaMemcpyHostToDevice, &d) !=
			0)
			return -1;
		if (i >= 0) {
			tiny[i] = d - h;
			th[i] = h;
		}
		memset(pgbuf, 1, sizeof pgbuf); /* pageable, touched */
		t0 = calp_now();
		if (CK(c, cudaMemcpy(c->dbuf, pgbuf, FB_TINY, cudaMemcpyHostToDevice)))
			return -1;
		if (i >= 0)
			pg[i] = calp_now() - t0;
	}
	if (prefetch_to(c, buf, n, 0) != 0 || hd_fit_stats(rd, UM_SAMPLES, &srd, c->e) != 0 ||
	    hd_fit_stats(wr, UM_SAMPLES, &swr, c->e) != 0 ||
	    hd_fit_stats(tiny, UM_SAMPLES, &sti, c->e) != 0 ||
	    hd_fit_stats(th, UM_SAMPLES, &sth, c->e) != 0 ||
	    hd_fit_stats(pg, UM_SAMPLES, &spg, c->e) != 0)
		return -1;
	hd_buf_printf(c->log, "  cudaMemcpy of 4 B to the GPU (host clock)\n");
	calp_log_row(c, "4 B", UM_SAMPLES, 1, &sth, "");
	hd_buf_printf(c->log, "    = out of managed memory on the host\n");
	calp_log_row(c, "4 B", UM_SAMPLES, 1, &spg, "");
	hd_buf_printf(c->log, "    = out of pageable memory\n");
	hd_cal_set_time(&c->sum, "api.memcpy_managed", &c->p->api_memcpy_managed,
			sth.median > spg.median ? sth.median - spg.median : 0,
			"4 B out of managed memory on the host, less out of pageable memory");
	hd_buf_printf(c->log,
		      "  cudaMemcpy with the pages on the GPU, less with them on the host "
		      "(host clock)\n");
	calp_log_row(c, "4 B", UM_SAMPLES, 1, &sti, "");
	hd_buf_printf(c->log, "    = out of managed memory\n");
	h = sti.median > 0 ? sti.median : 0;
	d = srd.median - h;
	calp_log_row(c, sz, UM_SAMPLES, 1, &srd,
		     d > 0 ? hd_cal_frate(a, sizeof a, (double)q / d) : "");
	hd_buf_printf(c->log, "    = out of managed memory\n");
	calp_log_row(c, sz, UM_SAMPLES, 1, &swr,
		     swr.median - h > 0 ? hd_cal_frate(a, sizeof a, (double)q / (swr.median - h)) :
					  "");
	hd_buf_printf(c->log, "    = into managed memory\n");
	hd_cal_set_time(&c->sum, "um.host_fault", &c->p->um_host_fault, h,
			"4 B copied out of managed memory on the GPU, less on the host");
	if (d > 0)
		hd_cal_set_rate(&c->sum, "um.host_fault_rate", &c->p->um_host_fault_bw,
				(double)q / d, "the same for the larger copy, less um.host_fault");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no fault cost seen)\n", "um.host_fault_rate");
	if (swr.median - h > 0)
		hd_cal_set_rate(&c->sum, "um.host_fault_write", &c->p->um_host_fault_write_bw,
				(double)q / (swr.median - h),
				"the larger copy into managed memory on the GPU, less on the host, "
				"less um.host_fault");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no fault cost seen)\n",
			      "um.host_fault_write");
	return 0;
}

int
calp_stage_managed(struct cal *c)
{
	int managed = 0, concurrent = 0, i, rc = -1;
	size_t dfree = 0, dtotal = 0;
	uint64_t n;
	void *buf = NULL;
	double pf[UM_SAMPLES], res[UM_SAMPLES], fl[UM_SAMPLES], th[UM_SAMPLES], wk[UM_SAMPLES];
	double lw[UM_SAMPLES], ag[UM_SAMPLES];
	double fault = 0, bw = 0;
	struct hd_stats spf, sres, sfl, sth, swk, slw, sag;
	struct um_res r;
	struct hd_err fe = { 0 };
	char sz[32], sz2[32], a[32], b[32];
	double wrate = 0;
	uint64_t wsize = 0;
	int how;

	if (CK(c, cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, c->dev)) ||
	    CK(c,
	       cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, c->dev)) ||
	    CK(c, cudaMemGetInfo(&dfree, &dtotal)))
		return -1;
	hd_buf_printf(c->log, "\nManaged memory (cudaMallocManaged, touched on the host)\n");
	if (!managed || !concurrent) {
		hd_buf_printf(c->log,
			      "  skipped: the GPU has managedMemory %d, "
			      "concurrentManagedAccess %d (on-demand faults need both)\n",
			      managed, concurrent);
		hd_buf_printf(&c->sum,
			      "  %-20s kept (no on-demand page faults on this "
			      "system)\n",
			      "um.*, api.*_managed");
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
		hd_buf_printf(&c->sum, "  %-20s kept (too little free memory)\n",
			      "um.*, api.*_managed");
		return 0;
	}
	hd_cal_fbytes(sz, sizeof sz, (double)n);
	hd_buf_printf(
	    c->log,
	    "  CUDA events; the memory kernel (as lessons use it) over %s: prefetched to the GPU "
	    "first, and faulting the pages in from the host\n",
	    sz);
	hd_buf_printf(c->log, "  %12s %7s %5s %12s %12s %14s\n", "size", "samples", "ops", "median",
		      "IQR", "rate");
	if (um_touch(c, n, sz) != 0)
		return -1;
	if (CK(c, cudaMallocManaged(&buf, n, cudaMemAttachGlobal)))
		return -1;
	memset(buf, 1, n); /* resident on the host, as --real starts it */
	for (i = -1; i < UM_SAMPLES; i++) {
		calp_progress(c, i + 1, UM_SAMPLES + 1, "managed memory %s", sz);
		if (calp_stopped(c) || sample_um(c, buf, n, &r) != 0)
			goto out;
		if (i >= 0) {
			pf[i] = r.prefetch;
			res[i] = r.resident;
			fl[i] = r.faulting;
			th[i] = r.tohost;
			wk[i] = r.walk;
			lw[i] = r.landed;
			ag[i] = r.again;
		}
	}
	if (hd_fit_stats(pf, UM_SAMPLES, &spf, c->e) != 0 ||
	    hd_fit_stats(res, UM_SAMPLES, &sres, c->e) != 0 ||
	    hd_fit_stats(fl, UM_SAMPLES, &sfl, c->e) != 0 ||
	    hd_fit_stats(th, UM_SAMPLES, &sth, c->e) != 0 ||
	    hd_fit_stats(wk, UM_SAMPLES, &swk, c->e) != 0 ||
	    hd_fit_stats(lw, UM_SAMPLES, &slw, c->e) != 0 ||
	    hd_fit_stats(ag, UM_SAMPLES, &sag, c->e) != 0)
		goto out;
	calp_log_row(c, sz, UM_SAMPLES, 1, &spf, hd_cal_frate(a, sizeof a, (double)n / spf.median));
	hd_buf_printf(c->log, "    = cudaMemPrefetchAsync to the GPU\n");
	calp_log_row(c, sz, UM_SAMPLES, 1, &sres,
		     hd_cal_frate(a, sizeof a, (double)n / sres.median));
	hd_buf_printf(c->log, "    = memory kernel, pages resident\n");
	calp_log_row(c, sz, UM_SAMPLES, 1, &sfl, hd_cal_frate(a, sizeof a, (double)n / sfl.median));
	hd_buf_printf(c->log, "    = memory kernel, faulting the pages in\n");
	calp_log_row(c, sz, UM_SAMPLES, 1, &sth, hd_cal_frate(a, sizeof a, (double)n / sth.median));
	hd_buf_printf(c->log,
		      "    = cudaMemPrefetchAsync to the host of pages on the GPU "
		      "(host clock, with a stream sync)\n");
	calp_log_row(c, sz, UM_SAMPLES, 1, &swk, hd_cal_frate(a, sizeof a, (double)n / swk.median));
	hd_buf_printf(c->log,
		      "    = cudaMemPrefetchAsync to the GPU of pages already there "
		      "(host clock, with a stream sync)\n");
	hd_cal_set_rate(&c->sum, "um.prefetch_rate", &c->p->um_prefetch_bw, (double)n / spf.median,
			"bytes / time of cudaMemPrefetchAsync");
	hd_cal_set_rate(&c->sum, "um.prefetch_d2h_rate", &c->p->um_prefetch_d2h_bw,
			(double)n / sth.median, "bytes / time of a prefetch to the host");
	landed_write(c, n, sz, &slw, &sag);
	if (!c->quick && walk_large(c, dfree, n, &wrate, &wsize) != 0)
		goto out;
	if (wrate > 0) {
		hd_cal_fbytes(b, sizeof b, (double)wsize);
		hd_buf_printf(c->log, "  %12s %7d %5d %12s %12s %14s\n", b, 3, 1,
			      hd_cal_ftime(sz2, sizeof sz2, (double)wsize / wrate), "",
			      hd_cal_frate(a, sizeof a, wrate));
		hd_buf_printf(c->log,
			      "    = cudaMemPrefetchAsync to the GPU of pages already there, "
			      "the largest buffer (host clock, with a stream sync)\n");
		hd_cal_set_rate(&c->sum, "um.prefetch_walk", &c->p->um_walk_bw, wrate,
				"bytes / time of a prefetch of the largest buffer's pages, "
				"already on the GPU");
	} else if (!c->o->host_only)
		hd_cal_set_rate(&c->sum, "um.prefetch_walk", &c->p->um_walk_bw,
				(double)n / swk.median,
				"bytes / time of a prefetch of pages already on the GPU");
	else /* the stored profile's, from the largest buffer */
		hd_buf_printf(&c->sum, "  %-20s kept (no large buffer in the host-only pass)\n",
			      "um.prefetch_walk");
	/* half again over resident at least: on a GPU that faults, 256 MiB took
	 * 27.0 ms against 95.9 us resident (a lent H100, 2026-11-27); a few
	 * microseconds more is noise, and fitting it would give a fault rate
	 * of TB/s */
	if (!(sfl.median > 1.5 * sres.median)) {
		hd_buf_printf(c->log,
			      "  faulting was not slower than resident by half: um.fault, "
			      "um.fault_rate and um.fault_base kept\n");
		hd_buf_printf(&c->sum, "  %-20s kept (no fault cost seen)\n",
			      "um.fault/fault_rate/fault_base");
		goto rest;
	}
	how = hd_fit_um((sfl.median - sres.median) / (double)n, (double)c->p->um_page,
			hd_time_to_s(c->p->um_fault), c->h2d, &fault, &bw, &fe);
	if (how < 0) {
		hd_buf_printf(c->log, "  no fit: %s\n", fe.msg);
		hd_buf_printf(&c->sum, "  %-20s kept (no fit: see the managed-memory section)\n",
			      "um.fault/fault_rate/fault_base");
		goto rest;
	}
	hd_buf_printf(c->log,
		      "  extra time for faults: %s, per %s page %s; the model "
		      "charges um.fault per page plus the bytes at um.fault_rate: %s\n",
		      hd_cal_ftime(a, sizeof a, sfl.median - sres.median),
		      hd_cal_fbytes(b, sizeof b, (double)c->p->um_page),
		      hd_cal_ftime(sz, sizeof sz,
				   (sfl.median - sres.median) / (double)n * (double)c->p->um_page),
		      how == 0 ?
			  "um.fault kept from the base, the rate fitted" :
			  "the base um.fault leaves no room, so migration at the H2D link rate "
			  "and the rest per page");
	hd_buf_printf(c->log,
		      "  (um.page is kept from the base: whole-buffer faults cannot "
		      "tell the granule from the rate)\n");
	if (how == 0)
		hd_buf_printf(&c->sum, "  %-20s kept (split: see the managed-memory section)\n",
			      "um.fault");
	else
		hd_cal_set_time(&c->sum, "um.fault", &c->p->um_fault, fault,
				"rest of the fault time per page after migrating at the link rate");
	hd_cal_set_rate(&c->sum, "um.fault_rate", &c->p->um_fault_bw, bw,
			"fault time per byte less um.fault per page");
	if (um_small(c, n) != 0)
		goto out;
rest: /* copies of managed memory and its allocation need no fault fit */
	rc = um_fault_back(c, buf, n);
	if (rc == 0)
		rc = um_alloc(c);
out:
	if (buf != NULL)
		cudaFree(buf);
	return rc;
}
