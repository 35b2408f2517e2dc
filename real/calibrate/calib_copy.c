/*
 * calib_copy.c - pinned copies on one GPU, for `hdsim calibrate`
 * (calib_priv.h): each direction through the spin-kernel gate and fitted as
 * t = alpha + n / beta, copies issued live as lessons issue them, and both
 * directions at once with the PCIe link read from sysfs while they run.
 */
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "real/calibrate/calib_priv.h"

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
	struct calp_sweep sw;
	char title[96], sz[32], r[32];

	memset(&sw, 0, sizeof sw);
	*fitted = 0;
	snprintf(title, sizeof title, "Pinned %s (cudaMemcpyAsync, pinned host memory)", dir);
	calp_log_head(c, title,
		      "CUDA events around N copies queued behind a spin-kernel gate "
		      "on a non-blocking stream; time per copy");
	for (i = 0; i < ns; i++) {
		struct calp_copy_op op;
		struct calp_gate g;
		struct hd_stats st;

		hd_cal_fbytes(sz, sizeof sz, (double)sizes[i]);
		if (sizes[i] > c->max_copy) {
			hd_buf_printf(c->log, "  %12s skipped: larger than the largest buffer\n",
				      sz);
			continue;
		}
		calp_progress(c, i, ns, "pinned %s %s", dir, sz);
		op.dst = d2h ? c->hpin : c->dbuf;
		op.src = d2h ? c->dbuf : c->hpin;
		op.n = sizes[i];
		op.kind = d2h ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
		g.f = calp_enq_copy;
		g.arg = &op;
		calp_gate_counts(sizes[i], &g.warm, &g.reps);
		samples = c->quick || sizes[i] >= 64 * MiB ? 3 : 5;
		if (calp_sample_stats(c, calp_gated, &g, samples, &st) != 0)
			return -1;
		calp_log_row(c, sz, samples, g.reps, &st,
			     hd_cal_frate(r, sizeof r, (double)sizes[i] / st.median));
		sw.n[sw.count] = (double)sizes[i];
		sw.t[sw.count++] = st.median;
	}
	return calp_sweep_fit(c, &sw, 64.0 * KiB, 16.0 * MiB, "B/s", ">= 16 MiB",
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
	int k;                     /* samples taken */
	double issue[MAX_SAMPLES]; /* the host's time per call, per sample */
};

static int
sample_live(struct cal *c, const void *arg, double *done)
{
	struct live_op *op = (struct live_op *)arg;
	size_t span = (size_t)(c->max_copy < 64 * MiB ? c->max_copy : 64 * MiB);
	double t0, t1;
	int i;

	if (CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t0 = calp_now();
	for (i = 0; i < op->reps; i++) {
		size_t at = (size_t)i * op->n % span;

		if (CK(c,
		       cudaMemcpyAsync((char *)c->dbuf + at, (char *)c->hpin + at, op->n,
				       cudaMemcpyHostToDevice, c->s)))
			return -1;
	}
	t1 = calp_now();
	if (CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	*done = (calp_now() - t0) / op->reps;
	op->issue[op->k++ % MAX_SAMPLES] = (t1 - t0) / op->reps;
	return 0;
}

/*
 * The engine's fixed cost per copy when the host keeps feeding it: on the
 * H100 machines back-to-back copies issued live cost about 0.5 us more each
 * than the same copies queued behind a gate (bench/results/2026-11-22-h100-
 * host/), and lessons issue their copies live.  *alpha is the mean of
 * time - n / rate over the sizes where the engine set the pace, or -1 where
 * the host's calls did at every size (then the calp_gated figure stands).
 */
static int
live_latency(struct cal *c, double rate, double *alpha)
{
	static const size_t sizes[] = { 4 * KiB, 16 * KiB, 64 * KiB };
	enum {
		NS = (int)HD_ARRAY_LEN(sizes)
	};
	double n[NS], done[NS], issue[NS], dummy;
	int i, used;
	char sz[32], a[32], b[32];

	*alpha = -1;
	calp_log_head(
	    c, "Pinned H2D copies issued live (no gate), as lessons issue them",
	    "host clock from the first of 2048 cudaMemcpyAsync calls to the sync's return, "
	    "per copy; 'issue' is the host's time per call");
	for (i = 0; i < NS; i++) {
		static struct live_op op, warm; /* large: kept off the stack */
		struct hd_stats st, si;
		int samples = c->quick ? 3 : 5;

		memset(&op, 0, sizeof op);
		memset(&warm, 0, sizeof warm);
		op.n = warm.n = sizes[i];
		op.reps = 2048;
		warm.reps = 64;
		hd_cal_fbytes(sz, sizeof sz, (double)sizes[i]);
		calp_progress(c, i, NS, "live copies %s", sz);
		if (sample_live(c, &warm, &dummy) != 0 ||
		    calp_sample_stats(c, sample_live, &op, samples, &st) != 0 ||
		    hd_fit_stats(op.issue, (size_t)samples, &si, c->e) != 0)
			return -1;
		n[i] = (double)sizes[i];
		done[i] = st.median;
		issue[i] = si.median;
		calp_log_row(c, sz, samples, op.reps, &st, "");
		hd_buf_printf(c->log, "  %12s %7s %5s %12s (issue, median%s)\n", "", "", "",
			      hd_cal_ftime(a, sizeof a, si.median),
			      si.median >= 0.9 * st.median ? ": the host set the pace" : "");
	}
	used = hd_fit_live_latency(n, done, issue, NS, rate, alpha);
	if (used == 0) {
		hd_buf_printf(c->log,
			      "  the host's calls, not the engine, set the pace at every "
			      "size: the calp_gated figure stands\n");
		return 0;
	}
	hd_buf_printf(c->log,
		      "  engine cost per live copy = mean of t - n / %s over %d size%s "
		      "= %s\n",
		      hd_cal_frate(b, sizeof b, rate), used, used == 1 ? "" : "s",
		      hd_cal_ftime(a, sizeof a, *alpha));
	return 0;
}

int
calp_stage_pinned(struct cal *c)
{
	struct hd_fit fh, fd;
	int okh, okd;
	double lat = -1, lo = c->lo, w = (c->hi - c->lo) / 5;
	char how[128];

	calp_range(c, lo, lo + 2 * w);
	if (sweep_pinned(c, 0, &fh, &okh) != 0)
		return -1;
	calp_range(c, lo + 2 * w, lo + 4 * w);
	if (sweep_pinned(c, 1, &fd, &okd) != 0)
		return -1;
	calp_range(c, lo + 4 * w, lo + 5 * w);
	c->h2d = okh ? fh.beta : c->base.h2d_bw;
	c->d2h = okd ? fd.beta : c->base.d2h_bw;
	if (okh)
		hd_cal_set_rate(&c->sum, "pcie.h2d", &c->p->h2d_bw, fh.beta,
				"fitted beta, pinned H2D");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "pcie.h2d");
	if (okd)
		hd_cal_set_rate(&c->sum, "pcie.d2h", &c->p->d2h_bw, fd.beta,
				"fitted beta, pinned D2H");
	else
		hd_buf_printf(&c->sum, "  %-20s kept (no fit)\n", "pcie.d2h");
	/* The model charges copy_latency per copy, then the bytes at the link rate:
	 * exactly alpha of the calp_gated (back-to-back) fit.  One key serves both
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
			snprintf(how, sizeof how,
				 "back-to-back copies issued live, less the "
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
	int i, failed;

	c->flags[FLAG_LATCH] = 0;
	c->flags[FLAG_TIMED_OUT] = 0;
	__sync_synchronize();
	failed = KCK(c,
		     hd_kernel_latch((hd_cuda_stream)c->s, c->dflags + FLAG_LATCH, LATCH_TIMEOUT_NS,
				     c->dflags + FLAG_TIMED_OUT));
	/* s2 waits for the gate, warms up, and s waits for that before starting */
	failed = failed || CK(c, cudaEventRecord(c->ev[2], c->s));
	failed = failed || CK(c, cudaStreamWaitEvent(c->s2, c->ev[2], 0));
	failed = failed || CK(c, cudaMemcpyAsync(hp + b, dp + b, b, cudaMemcpyDeviceToHost, c->s2));
	failed = failed || CK(c, cudaEventRecord(c->ev[3], c->s2));
	failed = failed || CK(c, cudaMemcpyAsync(dp, hp, b, cudaMemcpyHostToDevice, c->s));
	failed = failed || CK(c, cudaStreamWaitEvent(c->s, c->ev[3], 0));
	failed = failed || CK(c, cudaEventRecord(c->ev[0], c->s));
	failed = failed || CK(c, cudaStreamWaitEvent(c->s2, c->ev[0], 0));
	for (i = 0; !failed && i < reps; i++)
		failed = CK(c, cudaMemcpyAsync(dp, hp, b, cudaMemcpyHostToDevice, c->s)) ||
		    CK(c, cudaMemcpyAsync(hp + b, dp + b, b, cudaMemcpyDeviceToHost, c->s2));
	failed = failed || CK(c, cudaEventRecord(c->ev[1], c->s));
	failed = failed || CK(c, cudaEventRecord(c->ev[3], c->s2));
	calp_release(c);
	if (!failed)
		calp_read_link(c, &r->gen, &r->lanes, r->link, sizeof r->link);
	failed = failed || CK(c, cudaStreamSynchronize(c->s)) ||
	    CK(c, cudaStreamSynchronize(c->s2));
	if (failed)
		return -1;
	if (c->flags[FLAG_TIMED_OUT]) {
		hd_err_set(c->e, HD_EXIT_FAIL, "",
			   "calibrate: the spin-kernel gate timed out "
			   "before the bidirectional copies were queued");
		return -1;
	}
	if (CK(c, cudaEventElapsedTime(&ms1, c->ev[0], c->ev[1])) ||
	    CK(c, cudaEventElapsedTime(&ms2, c->ev[0], c->ev[3])))
		return -1;
	r->t_h2d = (double)ms1 * 1e-3;
	r->t_d2h = (double)ms2 * 1e-3;
	return 0;
}

int
calp_stage_bidir(struct cal *c)
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
	calp_log_head(c, "Both directions at once (pinned H2D on one stream, D2H on another)",
		      "one spin-kernel gate releases both; total = bytes moved while both ran / "
		      "that time, the later direction's tail at its solo rate");
	memset(&r, 0, sizeof r);
	for (i = 0; i < samples; i++) {
		struct hd_err fe = { 0 };

		calp_progress(c, i, samples, "bidirectional %s", sz);
		if (calp_stopped(c) || sample_bidir(c, b, reps, &r) != 0)
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
	calp_log_row(c, sz, samples, reps, &sh, hd_cal_frate(a, sizeof a, (double)b / sh.median));
	hd_buf_printf(c->log, "    = H2D while D2H runs\n");
	calp_log_row(c, sz, samples, reps, &sd, hd_cal_frate(a, sizeof a, (double)b / sd.median));
	hd_buf_printf(c->log, "    = D2H while H2D runs\n");
	hd_buf_printf(c->log,
		      "  total while both ran: %s (median), IQR %s; alone: H2D %s, "
		      "D2H %s\n",
		      hd_cal_frate(a, sizeof a, st.median), hd_cal_frate(x, sizeof x, st.iqr),
		      hd_cal_frate(y, sizeof y, c->h2d), hd_cal_frate(sz, sizeof sz, c->d2h));
	hd_buf_printf(c->log, "  PCIe link during the copies (sysfs): %s\n", r.link);
	hd_cal_set_rate(&c->sum, "pcie.bidir", &c->p->bidir_bw, st.median,
			"total of both directions while both ran");
	c->bidir = st.median;
	if (r.gen > 0 && r.lanes > 0) {
		hd_buf_printf(&c->sum,
			      "  %-20s %-14d (base %d) sysfs current_link_speed under "
			      "load\n",
			      "pcie.gen", r.gen, c->p->pcie_gen);
		hd_buf_printf(&c->sum, "  %-20s %-14d (base %d) sysfs current_link_width\n",
			      "pcie.lanes", r.lanes, c->p->pcie_lanes);
		c->p->pcie_gen = r.gen;
		c->p->pcie_lanes = r.lanes;
	} else
		hd_buf_printf(&c->sum, "  %-20s kept (sysfs link unreadable)\n", "pcie.gen/lanes");
	return 0;
}
