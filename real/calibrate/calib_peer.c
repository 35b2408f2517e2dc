/*
 * calib_peer.c - peer copies between every pair of GPUs, for the multi-GPU
 * calibration (calib_priv.h), and the gate each GPU's stream is held by.
 *
 * For every ordered pair of GPUs, cudaMemcpyPeerAsync on a non-blocking
 * stream of the source GPU, timed with CUDA events around N copies queued
 * behind a spin-kernel gate (as calib_gate.c times host copies), after
 * warm-ups; medians of samples.  Large sizes give the rate, small ones the
 * fixed cost (t = alpha + n / beta, fit.c).  Each pair also runs both
 * directions at once.  Peer access is enabled where the runtime allows it
 * (calib_ranks.c); pairs without it are measured anyway (the runtime stages
 * those copies through host memory) and named.
 */
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "real/calibrate/calib_priv.h"

/* ---- the gate on each GPU --------------------------------------------------------------- */

void
calp_rk_release(struct rk *k)
{
	if (k->flags != NULL) {
		k->flags[FLAG_LATCH] = 1;
		__sync_synchronize();
	}
}

/* Hold GPU i's stream with the latch kernel (flags reset first). */
int
calp_rk_hold(struct rk *k, int i)
{
	k->flags[FLAG_LATCH] = 0;
	k->flags[FLAG_TIMED_OUT] = 0;
	__sync_synchronize();
	return CK(k, cudaSetDevice(i)) ||
		KCK(k,
		    hd_kernel_latch((hd_cuda_stream)k->s[i], k->dflags[i] + FLAG_LATCH,
				    LATCH_TIMEOUT_NS, k->dflags[i] + FLAG_TIMED_OUT)) ?
	    -1 :
	    0;
}

int
calp_rk_timed_out(struct rk *k, int ops)
{
	if (!k->flags[FLAG_TIMED_OUT])
		return 0;
	hd_err_set(k->e, HD_EXIT_FAIL, "",
		   "calibrate: the spin-kernel gate timed out (%llu s) "
		   "before the host had queued %d peer copies behind it, so the timing would "
		   "include host submission; is the machine overloaded?",
		   LATCH_TIMEOUT_NS / 1000000000ull, ops);
	return -1;
}

/* ---- gated peer copies ------------------------------------------------------------- */

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
		return calp_rk_hold(k, i);
	return CK(k, cudaSetDevice(i));
}

/* One sample: `reps` copies of n bytes from GPU i to GPU j behind the gate on
 * i's stream, after `warm` of them: seconds per copy. */
static int
peer_sample(struct rk *k, int i, int j, uint64_t n, int warm, int reps, double *sec)
{
	int w, failed = hold_pair(k, i, j);

	for (w = 0; !failed && w < warm; w++)
		failed = copy(k, i, j, n, i);
	failed = failed || CK(k, cudaEventRecord(k->ev[i][0], k->s[i]));
	for (w = 0; !failed && w < reps; w++)
		failed = copy(k, i, j, n, i);
	failed = failed || CK(k, cudaEventRecord(k->ev[i][1], k->s[i]));
	calp_rk_release(k); /* always: a failed enqueue must not leave the GPU spinning */
	failed = failed || CK(k, cudaStreamSynchronize(k->s[i]));
	if (failed || calp_rk_timed_out(k, warm + reps) ||
	    calp_elapsed(k->e, k->ev[i][0], k->ev[i][1], sec))
		return -1;
	*sec /= reps;
	return 0;
}

static void
peer_sizes(struct rk *k, struct calp_peer_sweep *ps)
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
peer_pair(struct rk *k, struct calp_peer_sweep *ps, int i, int j)
{
	double v[RK_MAX_SAMPLES];
	struct hd_stats st;
	struct hd_err fe = { 0 };
	double x[RK_MAX_SIZES];
	int s, m;

	for (s = 0; s < ps->count; s++) {
		int warm, reps, samples = k->r->quick || ps->size[s] >= 64 * MiB ? 3 : 5;

		calp_gate_counts(ps->size[s], &warm, &reps);
		for (m = 0; m < samples; m++)
			if (calp_rk_stopped(k) ||
			    peer_sample(k, i, j, ps->size[s], warm, reps, &v[m]) != 0)
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
bidir_sample(struct rk *k, int i, int j, uint64_t n, int reps, double *ti, double *tj, double *tot)
{
	int w, failed = hold_pair(k, i, j);

	failed = failed || CK(k, cudaEventRecord(k->ev[i][0], k->s[i]));
	failed = failed || CK(k, cudaSetDevice(j)) ||
	    CK(k, cudaStreamWaitEvent(k->s[j], k->ev[i][0], 0)) ||
	    CK(k, cudaEventRecord(k->ev[j][0], k->s[j]));
	/* each copy from its own GPU, on that GPU's stream */
	for (w = 0; !failed && w < reps; w++)
		failed = CK(k, cudaSetDevice(i)) || copy(k, i, j, n, i) ||
		    CK(k, cudaSetDevice(j)) || copy(k, j, i, n, j);
	failed = failed || CK(k, cudaEventRecord(k->ev[j][1], k->s[j]));
	failed = failed || CK(k, cudaSetDevice(i)) ||
	    CK(k, cudaEventRecord(k->ev[i][1], k->s[i])) ||
	    CK(k, cudaStreamWaitEvent(k->s[i], k->ev[j][1], 0)) ||
	    CK(k, cudaEventRecord(k->ev[i][2], k->s[i]));
	calp_rk_release(k);
	failed = failed || CK(k, cudaStreamSynchronize(k->s[i])) ||
	    CK(k, cudaStreamSynchronize(k->s[j]));
	if (failed || calp_rk_timed_out(k, 2 * reps) ||
	    calp_elapsed(k->e, k->ev[i][0], k->ev[i][1], ti) ||
	    calp_elapsed(k->e, k->ev[j][0], k->ev[j][1], tj) ||
	    calp_elapsed(k->e, k->ev[i][0], k->ev[i][2], tot))
		return -1;
	return 0;
}

static int
bidir_pair(struct rk *k, struct calp_peer_sweep *ps, int i, int j)
{
	const int samples = 3, reps = k->r->quick ? 2 : 4;
	double a[3], b[3], t[3];
	struct hd_stats sa, sb, stt;
	int m;

	for (m = 0; m < samples; m++)
		if (calp_rk_stopped(k) ||
		    bidir_sample(k, i, j, ps->bi_size, reps, &a[m], &b[m], &t[m]) != 0)
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
log_matrix(struct rk *k, const char *title, const struct calp_peer_sweep *ps,
	   void (*cell)(const struct calp_peer_sweep *, int, int, char *, size_t))
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
cell_rate(const struct calp_peer_sweep *ps, int i, int j, char *c, size_t n)
{
	snprintf(c, n, "%.2f", (double)ps->size[ps->count - 1] / ps->t[i][j][ps->count - 1] / 1e9);
}

static void
cell_beta(const struct calp_peer_sweep *ps, int i, int j, char *c, size_t n)
{
	if (ps->fitted[i][j])
		snprintf(c, n, "%.2f", ps->fit[i][j].beta / 1e9);
	else
		snprintf(c, n, "no fit");
}

static void
cell_alpha(const struct calp_peer_sweep *ps, int i, int j, char *c, size_t n)
{
	if (ps->fitted[i][j])
		snprintf(c, n, "%.2f", ps->fit[i][j].alpha * 1e6);
	else
		snprintf(c, n, "no fit");
}

static void
cell_bidir(const struct calp_peer_sweep *ps, int i, int j, char *c, size_t n)
{
	snprintf(c, n, "%.2f", ps->bi_total[i][j] / 1e9);
}

static void
cell_bidir_dir(const struct calp_peer_sweep *ps, int i, int j, char *c, size_t n)
{
	snprintf(c, n, "%.2f", ps->bi_dir[i][j] / 1e9);
}

int
calp_rk_stage_peer(struct rk *k, struct calp_peer_sweep *ps)
{
	int i, j, s, pairs = k->n * (k->n - 1), at = 0;
	char a[32], b[32], title[96];

	peer_sizes(k, ps);
	hd_buf_printf(k->log,
		      "\nPeer copies (cudaMemcpyPeerAsync from GPU i to GPU j on a "
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
			calp_rk_progress(k, at++, pairs, "peer copies GPU%d->GPU%d", i, j);
			if (peer_pair(k, ps, i, j) != 0)
				return -1;
			snprintf(pr, sizeof pr, "GPU%d->GPU%d", i, j);
			hd_buf_printf(k->log, "  %-12s", pr);
			for (s = 0; s < ps->count; s++)
				hd_buf_printf(k->log, " %9.2f", ps->t[i][j][s] * 1e6);
			if (ps->fitted[i][j])
				hd_buf_printf(k->log, "   %s, %s, %.1f/%.1f %%",
					      hd_cal_frate(a, sizeof a, ps->fit[i][j].beta),
					      hd_cal_ftime(b, sizeof b, ps->fit[i][j].alpha),
					      100 * ps->fit[i][j].max_rel,
					      100 * ps->fit[i][j].rms_rel);
			hd_buf_printf(k->log, "\n");
		}
	hd_buf_printf(k->log,
		      "  fit t = alpha + n / beta: beta the least-squares slope over "
		      "sizes >= %s, alpha the mean of t - n / beta over sizes <= %s\n",
		      hd_cal_fbytes(a, sizeof a, ps->large_min),
		      hd_cal_fbytes(b, sizeof b, ps->small_max));
	for (i = 0; i < k->n; i++)
		for (j = 0; j < k->n; j++)
			if (i != j && !(k->nd.p2p[i][j] && k->nd.p2p[j][i])) {
				hd_buf_printf(
				    k->log,
				    "  (pairs without peer access both ways are "
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
	hd_buf_printf(k->log,
		      "\nPeer copies both ways at once (%s each way, GPU i's stream "
		      "and GPU j's, released by one gate)\n",
		      hd_cal_fbytes(a, sizeof a, (double)ps->bi_size));
	at = 0;
	for (i = 0; i < k->n; i++)
		for (j = i + 1; j < k->n; j++) {
			calp_rk_progress(k, pairs + at++, pairs + pairs / 2,
					 "peer copies both ways "
					 "GPU%d<->GPU%d",
					 i, j);
			if (bidir_pair(k, ps, i, j) != 0)
				return -1;
		}
	log_matrix(k, "total of both directions (GB/s)", ps, cell_bidir);
	log_matrix(k, "row -> column while column -> row runs (GB/s)", ps, cell_bidir_dir);
	return 0;
}
