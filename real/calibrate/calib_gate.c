/*
 * calib_gate.c - what every stage of `hdsim calibrate` uses (calib_priv.h):
 * checked CUDA calls, the host clock, progress, the log's tables, samples
 * and their statistics, and the spin-kernel gate.
 *
 * The gate (nvbandwidth's): a latch kernel holds a non-blocking stream
 * while the host queues warm-ups, the start event, N operations and the end
 * event behind it; released, they run back to back, so host submission gaps
 * stay out of the interval.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kernels/kernels.h"
#include "real/calibrate/calib_priv.h"
#include "real/cudaerr.h"

/* ---- checks and clocks ------------------------------------------------------------ */

double
calp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
calp_cuda(struct hd_err *e, cudaError_t rc, const char *call)
{
	if (rc == cudaSuccess)
		return 0;
	hd_cuda_fail(e, "calibrate: ", call, 1, rc);
	cudaGetLastError(); /* clear a sticky launch error so clean-up can run */
	return -1;
}

int
calp_elapsed(struct hd_err *e, cudaEvent_t a, cudaEvent_t b, double *sec)
{
	float ms = 0;

	if (calp_cuda(e, cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime") != 0)
		return -1;
	*sec = (double)ms * 1e-3;
	return 0;
}

void
calp_gate_counts(uint64_t n, int *warm, int *reps)
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

uint64_t
calp_pow2_floor(uint64_t v)
{
	uint64_t p = 1;

	while (p <= v / 2)
		p *= 2;
	return v == 0 ? 0 : p;
}

/* ---- progress and the log ------------------------------------------------------------ */

int
calp_stopped(struct cal *c)
{
	return hd_cal_check_stop(c->o->stop, c->e);
}

void
calp_range(struct cal *c, double lo, double hi)
{
	c->lo = lo;
	c->hi = hi;
}

void
calp_progress(struct cal *c, int k, int n, const char *fmt, ...)
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

void
calp_log_head(struct cal *c, const char *title, const char *method)
{
	hd_buf_printf(c->log, "\n%s\n  %s\n", title, method);
	hd_buf_printf(c->log, "  %12s %7s %5s %12s %12s %14s\n", "size", "samples", "ops", "median",
		      "IQR", "rate");
}

void
calp_log_row(struct cal *c, const char *size, int samples, int ops, const struct hd_stats *st,
	     const char *rate)
{
	char m[32], q[32];

	hd_buf_printf(c->log, "  %12s %7d %5d %12s %12s %14s\n", size, samples, ops,
		      hd_cal_ftime(m, sizeof m, st->median), hd_cal_ftime(q, sizeof q, st->iqr),
		      rate);
}

static void
log_fit(struct cal *c, const struct hd_fit *f, int count, const char *rate_what, const char *large,
	const char *small)
{
	char a[32], b[32];

	if (strcmp(rate_what, "FLOP/s") == 0)
		hd_fmt_flops(b, sizeof b, f->beta);
	else
		hd_cal_frate(b, sizeof b, f->beta);
	hd_buf_printf(c->log,
		      "  fit t = alpha + n / beta: beta = %s (least squares over %d "
		      "sizes %s); alpha = %s (%s); residual over %d sizes: max %.1f %%, "
		      "rms %.1f %%\n",
		      b, f->n_large, large, hd_cal_ftime(a, sizeof a, f->alpha),
		      f->alpha_from_large ? "the intercept of that fit" : small, count,
		      100 * f->max_rel, 100 * f->rms_rel);
	if (f->alpha_clamped)
		hd_buf_printf(c->log, "  (alpha came out negative and was set to 0)\n");
}

int
calp_sweep_fit(struct cal *c, const struct calp_sweep *sw, double small, double large,
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

/* ---- samples ------------------------------------------------------------------------- */

int
calp_sample_stats(struct cal *c, calp_sample_fn f, const void *arg, int samples,
		  struct hd_stats *st)
{
	double v[MAX_SAMPLES];
	int i;

	if (samples > MAX_SAMPLES)
		samples = MAX_SAMPLES;
	for (i = 0; i < samples; i++) {
		if (calp_stopped(c) != 0 || f(c, arg, &v[i]) != 0)
			return -1;
	}
	return hd_fit_stats(v, (size_t)samples, st, c->e);
}

/* ---- the spin-kernel gate -------------------------------------------------------------- */

void
calp_release(struct cal *c)
{
	if (c->flags != NULL) {
		c->flags[FLAG_LATCH] = 1;
		__sync_synchronize();
	}
}

int
calp_gated(struct cal *c, const void *gate, double *sec)
{
	const struct calp_gate *g = gate;
	float ms = 0;
	int i, failed;

	c->flags[FLAG_LATCH] = 0;
	c->flags[FLAG_TIMED_OUT] = 0;
	__sync_synchronize();
	failed = KCK(c,
		     hd_kernel_latch((hd_cuda_stream)c->s, c->dflags + FLAG_LATCH, LATCH_TIMEOUT_NS,
				     c->dflags + FLAG_TIMED_OUT)) != 0;
	for (i = 0; !failed && i < g->warm; i++)
		failed = g->f(c, c->s, g->arg) != 0;
	failed = failed || CK(c, cudaEventRecord(c->ev[0], c->s));
	for (i = 0; !failed && i < g->reps; i++)
		failed = g->f(c, c->s, g->arg) != 0;
	failed = failed || CK(c, cudaEventRecord(c->ev[1], c->s));
	/* Always let go: a failed enqueue must not leave the GPU spinning. */
	calp_release(c);
	failed = failed || CK(c, cudaStreamSynchronize(c->s));
	if (failed)
		return -1;
	if (c->flags[FLAG_TIMED_OUT]) {
		hd_err_set(c->e, HD_EXIT_FAIL, "",
			   "calibrate: the spin-kernel gate timed out "
			   "(%llu s) before the host had queued %d operations behind it, so the "
			   "timing would include host submission; is the machine overloaded?",
			   LATCH_TIMEOUT_NS / 1000000000ull, g->warm + g->reps);
		return -1;
	}
	if (CK(c, cudaEventElapsedTime(&ms, c->ev[0], c->ev[1])) != 0)
		return -1;
	*sec = (double)ms * 1e-3 / g->reps;
	return 0;
}

int
calp_enq_copy(struct cal *c, cudaStream_t s, const void *arg)
{
	const struct calp_copy_op *op = arg;

	return CK(c, cudaMemcpyAsync(op->dst, op->src, op->n, op->kind, s));
}
