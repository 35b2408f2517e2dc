/*
 * calib_kernel.c - the GPU's own figures, for `hdsim calibrate`
 * (calib_priv.h): launch latency and the host's wake-up from a sync, then
 * device-local copies, a memory-bound and a compute-bound kernel through
 * the spin-kernel gate, and the cost of a minimal kernel.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "real/calibrate/calib_priv.h"

#define POLL_TIMEOUT_S 1.0       /* a kernel's write to host memory */
#define SPIN_WAKE_NS   200000ull /* the kernel the host sleeps on for sync_wake */

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
	if (CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	*w = 0;
	__sync_synchronize();
	if (KCK(c,
		hd_kernel_fill((hd_cuda_stream)c->s, c->dflags + FLAG_STARTED, 4, 0xa5a5a5a5u, 1)))
		return -1;
	t1 = calp_now();
	do
		t2 = calp_now();
	while (*w == 0 && t2 - t1 < POLL_TIMEOUT_S);
	if (CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	if (t2 - t1 >= POLL_TIMEOUT_S) {
		*sec = -1; /* the write never showed: the caller keeps the base */
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
	if (CK(c, cudaStreamSynchronize(c->s)) ||
	    KCK(c, hd_kernel_spin((hd_cuda_stream)c->s, SPIN_WAKE_NS, 1)))
		return -1;
	t1 = calp_now();
	if (CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t2 = calp_now();
	*sec = t2 - t1;
	return 0;
}

/* Event, empty kernel, event on an idle stream: GPU time between the events. */
static int
sample_event_gap(struct cal *c, const void *arg, double *sec)
{
	float ms = 0;

	(void)arg;
	if (CK(c, cudaStreamSynchronize(c->s)) || CK(c, cudaEventRecord(c->ev[0], c->s)) ||
	    KCK(c, hd_kernel_spin((hd_cuda_stream)c->s, 0, 1)) ||
	    CK(c, cudaEventRecord(c->ev[1], c->s)) || CK(c, cudaStreamSynchronize(c->s)) ||
	    CK(c, cudaEventElapsedTime(&ms, c->ev[0], c->ev[1])))
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
	if (CK(c, cudaStreamSynchronize(c->s)) ||
	    CK(c, cudaMemcpyAsync(c->dbuf, c->hpin, 4, cudaMemcpyHostToDevice, c->s)))
		return -1;
	t1 = calp_now();
	if (CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t2 = calp_now();
	*sec = t2 - t1;
	return 0;
}

int
calp_stage_latency(struct cal *c)
{
	const int n = c->quick ? 9 : 25;
	struct hd_stats st, sw, sg, sc;
	double wake, dummy;
	char a[32], b[32], x[32], y[32];

	calp_log_head(c, "Launch latency and sync wake-up",
		      "host clock on an idle GPU; the "
		      "kernel's write to a mapped host word marks its start");
	calp_progress(c, 0, 4, "launch latency");
	if (sample_started(c, NULL, &dummy) != 0 || /* warm-up */
	    calp_sample_stats(c, sample_started, NULL, n, &st) != 0)
		return -1;
	if (st.min < 0) {
		hd_buf_printf(c->log,
			      "  the kernel's write to host memory was not seen within "
			      "%.0f s: launch latency kept from the base profile\n",
			      POLL_TIMEOUT_S);
		c->launch_latency = hd_time_to_s(c->base.launch_latency);
		hd_buf_printf(&c->sum,
			      "  %-20s kept (a kernel's write to host memory was not "
			      "seen)\n",
			      "gpu.launch_latency");
	} else {
		calp_log_row(c, "launch->start", n, 1, &st, "");
		c->launch_latency = st.median;
		c->have_launch_latency = 1;
		hd_cal_set_time(
		    &c->sum, "gpu.launch_latency", &c->p->launch_latency, st.median,
		    "launch call's return to the kernel's first write seen by the host");
	}
	calp_progress(c, 1, 4, "sync wake-up");
	if (sample_spin_sync(c, NULL, &dummy) != 0 ||
	    calp_sample_stats(c, sample_spin_sync, NULL, n, &sw) != 0)
		return -1;
	calp_log_row(c, "spin+sync", n, 1, &sw, "");
	wake = sw.median - (double)SPIN_WAKE_NS * 1e-9 - c->launch_latency;
	hd_buf_printf(c->log,
		      "  sync wake-up = %s (launch's return to sync's return) - %s "
		      "(spin) - %s (launch latency) = %s%s\n",
		      hd_cal_ftime(a, sizeof a, sw.median),
		      hd_cal_ftime(b, sizeof b, (double)SPIN_WAKE_NS * 1e-9),
		      hd_cal_ftime(x, sizeof x, c->launch_latency),
		      hd_cal_ftime(y, sizeof y, fmax(wake, 0)), wake < 0 ? " (clamped at 0)" : "");
	c->wake = fmax(wake, 0);
	hd_cal_set_time(&c->sum, "api.wake", &c->p->sync_wake, c->wake,
			"spin-and-sync time less the spin and the launch latency");
	calp_progress(c, 2, 4, "event gap");
	if (sample_event_gap(c, NULL, &dummy) != 0 ||
	    calp_sample_stats(c, sample_event_gap, NULL, n, &sg) != 0)
		return -1;
	calp_log_row(c, "event gap", n, 1, &sg, "");
	hd_buf_printf(c->log,
		      "    = GPU time from an event to an event after an empty "
		      "kernel (includes the host's launch call; for comparison)\n");
	calp_progress(c, 3, 4, "isolated copy");
	if (sample_copy_sync(c, NULL, &dummy) != 0 ||
	    calp_sample_stats(c, sample_copy_sync, NULL, n, &sc) != 0)
		return -1;
	calp_log_row(c, "4 B copy+sync", n, 1, &sc, "");
	hd_buf_printf(c->log,
		      "    = an isolated 4 B copy from the call's return to the "
		      "sync's; less the wake-up: %s (compare with pcie.latency below)\n",
		      hd_cal_ftime(a, sizeof a, fmax(sc.median - c->wake, 0)));
	return 0;
}

/* ---- device-local copies and kernels ------------------------------------------------- */

struct kern_op {
	void *buf;
	uint64_t bytes;
	double flops;
	double done; /* compute: FLOP actually launched */
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

/* One of the memory-bound kernels on a small grid. */
struct block_op {
	const char *key, *what;
	int kind; /* 0 memory, 1 fill, 2 reduce */
	void *buf;
	uint64_t bytes;
	unsigned grid;
};

static int
enq_block(struct cal *c, cudaStream_t s, const void *arg)
{
	const struct block_op *b = arg;

	switch (b->kind) {
	case 0:
		return KCK(c, hd_kernel_memory((hd_cuda_stream)s, b->buf, b->bytes, b->grid));
	case 1:
		return KCK(
		    c, hd_kernel_fill((hd_cuda_stream)s, b->buf, b->bytes, 0x5a5a5a5au, b->grid));
	default:
		return KCK(
		    c, hd_kernel_reduce((hd_cuda_stream)s, b->buf, b->bytes, c->scratch, b->grid));
	}
}

/*
 * What one block draws, from the rate r of a grid of g blocks: the model
 * bends the rate as (H^-k + (g b)^-k)^(-1/k), k = 1.5, with H^-k = hbm^-k -
 * (F b)^-k so that a full grid F reaches gpu.hbm (sim/model_xfer.c); solved
 * for b by a few fixed-point steps (g b is far below hbm, so it converges at
 * once).
 */
static double
block_rate(double r, double g, double full, double hbm)
{
	const double k = 1.5;
	double b = r / g, inv;
	int i;

	for (i = 0; i < 8; i++) {
		inv = pow(r, -k) - (pow(hbm, -k) - pow(full * b, -k));
		if (!(inv > 0))
			break;
		b = pow(inv, -1.0 / k) / g;
	}
	return b;
}

/* Kernel b, `reps` back to back behind a gate after `warm`, three samples:
 * its bytes over the median time per kernel less gpu.kernel_overhead (0
 * when that leaves no time), logged as a row. */
static int
kernel_rate(struct cal *c, struct block_op *b, int warm, int reps, double *rate)
{
	struct calp_gate g;
	struct hd_stats st;
	char a[32], r[32];
	double per;

	g.f = enq_block;
	g.arg = b;
	g.warm = warm;
	g.reps = reps;
	if (calp_sample_stats(c, calp_gated, &g, 3, &st) != 0)
		return -1;
	per = st.median - hd_time_to_s(c->p->kernel_overhead);
	*rate = per > 0 ? (double)b->bytes / per : 0;
	calp_log_row(c, hd_cal_fbytes(a, sizeof a, (double)b->bytes), 3, reps, &st,
		     hd_cal_frate(r, sizeof r, *rate));
	return 0;
}

/* The memory, fill and reduce kernels on GRID blocks over 64 MiB: the
 * per-block rates a grid too small to fill the GPU runs at. */
static int
block_rates(struct cal *c)
{
	static const struct {
		const char *key, *what;
		size_t off;
	} kinds[] = {
		{ "gpu.block_memory", "memory kernel",
		  offsetof(struct hd_profile, block_memory_bw) },
		{ "gpu.block_fill", "fill kernel", offsetof(struct hd_profile, block_fill_bw) },
		{ "gpu.block_reduce", "reduce kernel",
		  offsetof(struct hd_profile, block_reduce_bw) },
	};
	const unsigned grid = 8;
	uint64_t n = c->max_copy < 64 * MiB ? c->max_copy : 64 * MiB;
	double full = (double)hd_kernel_full_grid();
	size_t i;

	calp_log_head(c, "Memory-bound kernels on a grid of 8 blocks (the rate one block draws)",
		      "CUDA events around N kernels queued behind a spin-kernel gate; time per "
		      "kernel");
	for (i = 0; i < HD_ARRAY_LEN(kinds); i++) {
		struct block_op b = { kinds[i].key, kinds[i].what, (int)i, c->dbuf, n, grid };
		double rate;

		calp_progress(c, (int)i, (int)HD_ARRAY_LEN(kinds), "%s, grid %u", kinds[i].what,
			      grid);
		if (kernel_rate(c, &b, 1, 2, &rate) != 0)
			return -1;
		if (!(rate > 0)) {
			hd_buf_printf(&c->sum, "  %-20s kept (no usable time)\n", kinds[i].key);
			continue;
		}
		hd_cal_set_rate(&c->sum, kinds[i].key, (double *)((char *)c->p + kinds[i].off),
				block_rate(rate, grid, full, c->p->hbm_bw),
				"one block's rate, from a grid of 8");
	}
	return 0;
}

/* The memory and fill kernels, full grid, back to back on a buffer of half
 * gpu.l2 (kept from the base), which stays in the L2 between them: the
 * rates the model gives a kernel whose buffer fits gpu.l2. */
static int
l2_rates(struct cal *c)
{
	static const struct {
		const char *key, *what;
		int kind;
		size_t off;
	} kinds[] = {
		{ "gpu.l2_rate", "memory kernel", 0, offsetof(struct hd_profile, l2_bw) },
		{ "gpu.l2_fill", "fill kernel", 1, offsetof(struct hd_profile, l2_fill_bw) },
	};
	uint64_t n = c->p->l2_bytes / 2 / MiB * MiB;
	char r[32];
	size_t i;

	if (n == 0 || n > c->max_copy) {
		hd_buf_printf(&c->sum, "  %-20s kept (no gpu.l2 size to measure at)\n",
			      "gpu.l2_rate/l2_fill");
		return 0;
	}
	calp_log_head(c, "Memory-bound kernels on a buffer that fits the L2 (half of gpu.l2)",
		      "CUDA events around 16 kernels queued behind a spin-kernel gate on the same "
		      "buffer; time per kernel less gpu.kernel_overhead");
	for (i = 0; i < HD_ARRAY_LEN(kinds); i++) {
		struct block_op b = { kinds[i].key, kinds[i].what, kinds[i].kind, c->dbuf, n, 0 };
		double rate;

		if (kernel_rate(c, &b, 2, 16, &rate) != 0)
			return -1;
		if (!(rate > c->p->hbm_bw)) {
			hd_buf_printf(&c->sum, "  %-20s kept (not faster than gpu.hbm: %s)\n",
				      kinds[i].key, hd_cal_frate(r, sizeof r, rate));
			continue;
		}
		hd_cal_set_rate(&c->sum, kinds[i].key, (double *)((char *)c->p + kinds[i].off),
				rate, "full grid, back to back on half of gpu.l2");
	}
	return 0;
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
	hd_buf_printf(&c->sum, "  %-20s %-14s (base %s) %s\n", key, hd_fmt_flops(b, sizeof b, v),
		      hd_fmt_flops(a, sizeof a, *f), how);
	*f = v;
}

/* Gated operations over sizes x (bytes or FLOP); the fit gives the rate. */
static int
sweep_gated(struct cal *c, const char *title, const char *what, calp_enq_fn f, void *arg,
	    struct kern_op *k, struct calp_copy_op *cp, const double *xs, int nx, int flop,
	    struct hd_fit *fit, int *fitted)
{
	struct calp_sweep sw;
	char sz[32], r[32];
	int i;

	memset(&sw, 0, sizeof sw);
	*fitted = 0;
	calp_log_head(c, title,
		      "CUDA events around N operations queued behind a spin-kernel "
		      "gate; time per operation");
	for (i = 0; i < nx; i++) {
		struct calp_gate g;
		struct hd_stats st;
		double amount;

		if (flop)
			snprintf(sz, sizeof sz, "%.3g FLOP", xs[i]);
		else
			hd_cal_fbytes(sz, sizeof sz, xs[i]);
		calp_progress(c, i, nx, "%s %s", what, sz);
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
		if (calp_sample_stats(c, calp_gated, &g, 3, &st) != 0)
			return -1;
		/* compute kernels do a whole number of rounds; memory kernels move a
		 * whole number of 32-byte pairs */
		amount = flop ? k->done : k != NULL ? (double)(k->bytes / 32 * 32) : xs[i];
		if (flop)
			hd_fmt_flops(r, sizeof r, amount / st.median);
		else
			hd_cal_frate(r, sizeof r, amount / st.median);
		calp_log_row(c, sz, 3, g.reps, &st, r);
		sw.n[sw.count] = amount;
		sw.t[sw.count++] = st.median;
	}
	return calp_sweep_fit(c, &sw, 0, 0, flop ? "FLOP/s" : "B/s", "(all)", "", fit, fitted);
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

int
calp_stage_kernels(struct cal *c)
{
	double xs[4];
	int nx, ok;
	struct hd_fit f;
	struct kern_op k;
	struct calp_copy_op cp;
	struct hd_stats st;
	struct calp_gate g;
	double hbm_alpha = -1, per;
	char a[32];
	uint64_t half = c->max_copy / 2;

	/* device-local copies: the buffer's first half into its second */
	calp_range(c, c->lo, c->lo + (c->hi - c->lo) / 4);
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
			"D2D copy", calp_enq_copy, &cp, NULL, &cp, xs, nx, 0, &f, &ok) != 0)
		return -1;
	if (ok)
		hd_cal_set_rate(&c->sum, "gpu.d2d", &c->p->d2d_bw, f.beta,
				"fitted rate of D2D copies");

	/* memory-bound kernel: traffic = bytes (half read, half written), well
	 * above the L2 size */
	calp_range(c, c->hi, c->hi + (c->hi - c->lo));
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
	calp_range(c, c->hi, c->hi + (c->hi - c->lo));
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

	/* per-kernel overhead: back-to-back minimal full-grid kernels (half of
	 * this stage's last quarter; the block rates take the other half) */
	calp_range(c, c->hi, c->hi + (c->hi - c->lo) / 2);
	calp_progress(c, 0, 1, "kernel overhead");
	calp_log_head(c, "Kernel overhead (hd_kernel_compute, one round, full grid, back to back)",
		      "CUDA events around 32 kernels queued behind a spin-kernel gate; time per "
		      "kernel less its FLOP at the rate above");
	memset(&k, 0, sizeof k);
	k.flops = 1;
	g.f = enq_compute;
	g.arg = &k;
	g.warm = 4;
	g.reps = 32;
	if (calp_sample_stats(c, calp_gated, &g, c->quick ? 3 : 5, &st) != 0)
		return -1;
	calp_log_row(c, "1 round", c->quick ? 3 : 5, 32, &st, "");
	per = st.median - k.done / c->flops;
	if (hbm_alpha >= 0)
		hd_buf_printf(c->log, "  (for comparison: the memory kernel fit's alpha is %s)\n",
			      hd_cal_ftime(a, sizeof a, hbm_alpha));
	hd_cal_set_time(&c->sum, "gpu.kernel_overhead", &c->p->kernel_overhead, fmax(per, 0),
			"time per back-to-back minimal kernel");

	calp_range(c, c->hi, c->hi + (c->hi - c->lo));
	if (block_rates(c) != 0)
		return -1;
	return l2_rates(c);
}
