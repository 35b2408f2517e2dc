/*
 * check_fit.c - the calibration arithmetic: medians and spreads, the
 * t = alpha + n / beta fit, the pageable staging pipeline and its fit, the
 * bidirectional and managed-memory splits; the node's topology, the ring
 * all-reduce fit and the rank figures.  Synthetic data only: no GPU.  The
 * staging fit is also held against the model's own pageable copies.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ir/ir.h"
#include "ir/trace.h"
#include "profile/profile.h"
#include "real/calibrate/fit.h"
#include "real/calibrate/fit_ranks.h"
#include "sim/model.h"
#include "tests/testutil.h"

#define REL(a, b) (fabs((a) - (b)) / fabs(b))

/* A deterministic noise source in [-1, 1]. */
static double
noise(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return ((double)(*state >> 8) / (double)(1u << 24)) * 2 - 1;
}

START_TEST(stats_odd)
{
	const double v[] = { 5, 1, 3 };
	struct hd_stats st;
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_fit_stats(v, 3, &st, &e), 0);
	ck_assert(st.median == 3);
	ck_assert(st.q1 == 2 && st.q3 == 4 && st.iqr == 2);
	ck_assert(st.min == 1 && st.max == 5);
	ck_assert(v[0] == 5); /* the input is not reordered */
}
END_TEST

START_TEST(stats_even)
{
	const double v[] = { 4, 1, 3, 2 };
	struct hd_stats st;
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_fit_stats(v, 4, &st, &e), 0);
	ck_assert(st.median == 2.5);
	ck_assert(fabs(st.q1 - 1.75) < 1e-12 && fabs(st.q3 - 3.25) < 1e-12);
	ck_assert(fabs(st.iqr - 1.5) < 1e-12);
}
END_TEST

START_TEST(stats_one_and_none)
{
	const double one[] = { 7 }, bad[] = { 1, NAN, 2 };
	struct hd_stats st;
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_fit_stats(one, 1, &st, &e), 0);
	ck_assert(st.median == 7 && st.iqr == 0 && st.q1 == 7);
	ck_assert_int_eq(hd_fit_stats(one, 0, &st, &e), -1);
	ck_assert(e.set && strstr(e.msg, "no samples") != NULL);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_fit_stats(bad, 3, &st, &e), -1);
	ck_assert(e.set);
	ck_assert(!isnan(st.median));
}
END_TEST

/* The mean without the slowest: the values are left as they were. */
START_TEST(mean_low)
{
	double v[] = { 3, 100, 1, 2 };
	const double copy[] = { 3, 100, 1, 2 };

	ck_assert(hd_fit_mean_low(v, 4, 1) == 2);
	ck_assert(memcmp(v, copy, sizeof v) == 0);
	ck_assert(hd_fit_mean_low(v, 4, 0) == 26.5);
	ck_assert(hd_fit_mean_low(v, 4, 4) == 1); /* never all: the smallest */
}
END_TEST

START_TEST(ls_exact_and_degenerate)
{
	const double x[] = { 1, 2, 3, 4 }, y[] = { 5, 8, 11, 14 }, w[] = { 1, 2, 3, 4 };
	const double same[] = { 3, 3, 3 }, ys[] = { 1, 2, 3 };
	double a = -1, s = -1;
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_fit_ls(x, y, NULL, 4, &a, &s, &e), 0);
	ck_assert(fabs(a - 2) < 1e-12 && fabs(s - 3) < 1e-12);
	ck_assert_int_eq(hd_fit_ls(x, y, w, 4, &a, &s, &e), 0);
	ck_assert(fabs(a - 2) < 1e-12 && fabs(s - 3) < 1e-12);
	a = s = -1;
	ck_assert_int_eq(hd_fit_ls(x, y, NULL, 1, &a, &s, &e), -1);
	ck_assert(e.set);
	ck_assert(a == -1 && s == -1);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_fit_ls(same, ys, NULL, 3, &a, &s, &e), -1);
	ck_assert(e.set && strstr(e.msg, "distinct") != NULL);
	ck_assert(a == -1 && s == -1);
}
END_TEST

/* Powers of two from 4 B to 1 GiB, t = alpha + n / beta. */
static size_t
synth(double alpha, double beta, double jitter, double *n, double *t)
{
	uint32_t st = 12345;
	size_t k = 0;
	double b;

	for (b = 4; b <= 1073741824.0; b *= 2, k++) {
		n[k] = b;
		t[k] = (alpha + b / beta) * (1 + jitter * noise(&st));
	}
	return k;
}

START_TEST(alpha_beta_exact)
{
	double n[40], t[40];
	size_t k = synth(2e-6, 55e9, 0, n, t);
	struct hd_fit f;
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_fit_alpha_beta(n, t, k, 65536, 16 << 20, &f, &e), 0);
	ck_assert(REL(f.beta, 55e9) < 1e-9);
	ck_assert(REL(f.alpha, 2e-6) < 1e-6);
	ck_assert(f.max_rel < 1e-6);
	ck_assert_int_eq(f.n_large, 7);  /* 16 MiB .. 1 GiB */
	ck_assert_int_eq(f.n_small, 15); /* 4 B .. 64 KiB */
	ck_assert(!f.alpha_from_large && !f.alpha_clamped);
}
END_TEST

START_TEST(alpha_beta_quick_sizes)
{
	const double n[] = { 4096, 1048576, 67108864, 268435456 };
	double t[4];
	struct hd_fit f;
	struct hd_err e = { 0 };
	int i;

	for (i = 0; i < 4; i++)
		t[i] = 1.5e-6 + n[i] / 53e9;
	ck_assert_int_eq(hd_fit_alpha_beta(n, t, 4, 65536, 16 << 20, &f, &e), 0);
	ck_assert(REL(f.beta, 53e9) < 1e-9);
	ck_assert(REL(f.alpha, 1.5e-6) < 1e-6);
	ck_assert_int_eq(f.n_large, 2);
	ck_assert_int_eq(f.n_small, 1);
}
END_TEST

START_TEST(alpha_beta_noisy)
{
	double n[40], t[40];
	size_t k = synth(2e-6, 55e9, 0.02, n, t);
	struct hd_fit f;
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_fit_alpha_beta(n, t, k, 65536, 16 << 20, &f, &e), 0);
	ck_assert(REL(f.beta, 55e9) < 0.02);
	ck_assert(REL(f.alpha, 2e-6) < 0.05);
	ck_assert(f.max_rel > 0.001 && f.max_rel < 0.05);
	ck_assert(f.rms_rel <= f.max_rel);
}
END_TEST

START_TEST(alpha_beta_fallbacks)
{
	/* No size is "large": beta from the sizes above small_max. */
	const double n[] = { 1024, 1 << 20, 4 << 20 };
	double t[3], tneg[3];
	struct hd_fit f;
	struct hd_err e = { 0 };
	int i;

	for (i = 0; i < 3; i++) {
		t[i] = 3e-6 + n[i] / 20e9;
		tneg[i] = n[i] / 20e9 + 1e-9;
	}
	ck_assert_int_eq(hd_fit_alpha_beta(n, t, 3, 65536, 1 << 30, &f, &e), 0);
	ck_assert(REL(f.beta, 20e9) < 1e-9);
	ck_assert(REL(f.alpha, 3e-6) < 1e-6);
	/* No small sizes: alpha is the intercept of the large fit. */
	ck_assert_int_eq(hd_fit_alpha_beta(n, t, 3, 16, 1 << 20, &f, &e), 0);
	ck_assert(f.alpha_from_large);
	ck_assert(REL(f.alpha, 3e-6) < 1e-6);
	/* A negative intercept is clamped, not reported as negative. */
	for (i = 0; i < 3; i++)
		tneg[i] -= 2e-9;
	tneg[0] = 1e-12;
	ck_assert_int_eq(hd_fit_alpha_beta(n, tneg, 3, 2048, 1 << 20, &f, &e), 0);
	ck_assert(f.alpha == 0 && f.alpha_clamped);
}
END_TEST

START_TEST(alpha_beta_degenerate)
{
	const double n1[] = { 4096 }, t1[] = { 1e-6 };
	const double ns[] = { 4096, 4096, 4096 }, ts[] = { 1e-6, 2e-6, 3e-6 };
	const double nd[] = { 1 << 20, 1 << 24 }, td[] = { 1e-3, 1e-4 };
	const double nz[] = { 1 << 20, 1 << 24 }, tz[] = { 0, 1e-4 };
	struct hd_fit f;
	struct hd_err e = { 0 };

	ck_assert_int_eq(hd_fit_alpha_beta(n1, t1, 1, 65536, 1 << 24, &f, &e), -1);
	ck_assert(e.set);
	ck_assert(!isnan(f.alpha) && !isnan(f.beta));
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_fit_alpha_beta(ns, ts, 3, 65536, 1 << 24, &f, &e), -1);
	ck_assert(e.set && strstr(e.msg, "distinct") != NULL);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_fit_alpha_beta(nd, td, 2, 65536, 1 << 20, &f, &e), -1);
	ck_assert(e.set && strstr(e.msg, "does not grow") != NULL);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_fit_alpha_beta(nz, tz, 2, 65536, 1 << 20, &f, &e), -1);
	ck_assert(e.set);
}
END_TEST

static struct hd_staging
unit_staging(double memcpy_bw, double dma_bw)
{
	struct hd_staging p;

	memset(&p, 0, sizeof p);
	p.memcpy_bw[0] = p.memcpy_bw[1] = memcpy_bw;
	p.h2d_bw = p.d2h_bw = dma_bw;
	p.chunk = 1;
	p.buffers = 2;
	p.api_sync = 0.2;
	p.wake = 0.1;
	return p;
}

START_TEST(staging_by_hand)
{
	struct hd_staging p = unit_staging(1, 2);
	double call, total;

	/* HtoD, memcpy-bound: the host never waits for a buffer. */
	hd_staging_times(&p, 0, 4, &call, &total);
	ck_assert(fabs(call - 4) < 1e-12);
	ck_assert(fabs(total - 4.6) < 1e-12); /* last DMA 4.5, then the wake */
	/* HtoD, DMA-bound: chunk 2 waits for buffer 0, chunk 3 for buffer 1. */
	p = unit_staging(2, 1);
	hd_staging_times(&p, 0, 4, &call, &total);
	ck_assert(fabs(call - 3) < 1e-12);
	ck_assert(fabs(total - 4.6) < 1e-12);
	/* DtoH: DMAs first, the call returns after the last memcpy out; the
	 * host blocked on the first DMA (done at 0.5) wakes 0.1 after it. */
	p = unit_staging(1, 2);
	hd_staging_times(&p, 1, 4, &call, &total);
	ck_assert(fabs(call - 4.6) < 1e-12);
	ck_assert(fabs(total - 4.8) < 1e-12);
	/* One chunk, with the API cost and a DMA latency. */
	p = unit_staging(1, 2);
	p.api = 1;
	p.latency = 0.25;
	p.chunk = 8;
	hd_staging_times(&p, 0, 4, &call, &total);
	ck_assert(fabs(call - 5) < 1e-12);
	ck_assert(fabs(total - (5 + 0.25 + 2 + 0.1)) < 1e-12);
	hd_staging_times(&p, 1, 4, &call, &total);
	ck_assert(fabs(call - (1 + 0.25 + 2 + 0.1 + 4)) < 1e-12);
}
END_TEST

/* Realistic fixed figures; the caller sets memcpy_bw, chunk and buffers. */
static struct hd_staging
real_staging(void)
{
	struct hd_staging p;

	memset(&p, 0, sizeof p);
	p.h2d_bw = 55e9;
	p.d2h_bw = 53e9;
	p.latency = 2e-6;
	p.api = 5e-6;
	p.api_sync = 2e-6;
	p.wake = 4e-6;
	p.chunk = 2 << 20;
	p.buffers = 2;
	p.memcpy_bw[0] = p.memcpy_bw[1] = 1; /* refitted */
	return p;
}

static size_t
staging_data(const struct hd_staging *truth, double *n, double *t, int *d2h)
{
	size_t k = 0;
	double b;
	int d;

	for (d = 0; d < 2; d++)
		for (b = 65536; b <= 1073741824.0; b *= 4, k++) {
			n[k] = b;
			d2h[k] = d;
			hd_staging_times(truth, d, b, NULL, &t[k]);
		}
	return k;
}

START_TEST(staging_fit_keeps_base_shape)
{
	struct hd_staging truth = real_staging(), base = real_staging();
	struct hd_staging_fit f;
	struct hd_err e = { 0 };
	double n[32], t[32];
	int d[32];
	size_t k;

	truth.memcpy_bw[0] = 12e9;
	truth.memcpy_bw[1] = 7e9;
	k = staging_data(&truth, n, t, d);
	ck_assert_int_eq(hd_fit_staging(n, t, d, k, &base, &f, &e), 0);
	ck_assert(REL(f.memcpy_bw[0], 12e9) < 0.01);
	ck_assert(REL(f.memcpy_bw[1], 7e9) < 0.01);
	ck_assert(f.points[0] == 8 && f.points[1] == 8); /* 64 KiB .. 1 GiB, x4 */
	ck_assert(!f.shape_fitted);
	ck_assert(f.chunk == base.chunk && f.buffers == base.buffers);
	ck_assert(f.base_max_rel < 0.01);
	ck_assert(!f.at_top[0] && !f.at_top[1]);
}
END_TEST

START_TEST(staging_fit_finds_shape)
{
	struct hd_staging truth = real_staging(), base = real_staging();
	struct hd_staging_fit f;
	struct hd_err e = { 0 };
	double n[32], t[32];
	int d[32];
	size_t k;

	truth.memcpy_bw[0] = 8e9;
	truth.memcpy_bw[1] = 10e9;
	truth.chunk = 8 << 20;
	truth.buffers = 1;
	k = staging_data(&truth, n, t, d);
	ck_assert_int_eq(hd_fit_staging(n, t, d, k, &base, &f, &e), 0);
	ck_assert(f.shape_fitted);
	ck_assert(f.chunk == (double)(8 << 20));
	ck_assert_int_eq(f.buffers, 1);
	ck_assert(REL(f.memcpy_bw[0], 8e9) < 0.01);
	ck_assert(REL(f.memcpy_bw[1], 10e9) < 0.01);
	ck_assert(f.max_rel < 0.01);
	ck_assert(f.base_rms_rel > f.rms_rel);
}
END_TEST

START_TEST(staging_fit_one_direction)
{
	struct hd_staging truth = real_staging(), base = real_staging();
	struct hd_staging_fit f;
	struct hd_err e = { 0 };
	double n[32], t[32];
	int d[32];
	size_t k, i, h = 0;

	truth.memcpy_bw[0] = truth.memcpy_bw[1] = 9e9;
	base.memcpy_bw[1] = 3e9;
	k = staging_data(&truth, n, t, d);
	for (i = 0; i < k; i++) /* keep the HtoD points only */
		if (d[i] == 0) {
			n[h] = n[i];
			t[h] = t[i];
			d[h++] = 0;
		}
	ck_assert_int_eq(hd_fit_staging(n, t, d, h, &base, &f, &e), 0);
	ck_assert(REL(f.memcpy_bw[0], 9e9) < 0.01);
	ck_assert(f.memcpy_bw[1] == 3e9);
	ck_assert_int_eq(f.points[1], 0);
}
END_TEST

/* A host that copies faster than the link moves bytes decides no memcpy
 * rate: the search ends at its top and says so; the other direction's
 * rate is found as before. */
START_TEST(staging_fit_flags_a_rate_at_the_top)
{
	struct hd_staging truth = real_staging(), base = real_staging();
	struct hd_staging_fit f;
	struct hd_err e = { 0 };
	double n[32], t[32];
	int d[32];
	size_t k;

	truth.memcpy_bw[0] = 1e15;
	truth.memcpy_bw[1] = 7e9;
	k = staging_data(&truth, n, t, d);
	ck_assert_int_eq(hd_fit_staging(n, t, d, k, &base, &f, &e), 0);
	ck_assert_msg(f.at_top[0], "HtoD %g", f.memcpy_bw[0]);
	ck_assert(!f.at_top[1]);
	ck_assert(REL(f.memcpy_bw[1], 7e9) < 0.01);
}
END_TEST

START_TEST(staging_fit_degenerate)
{
	struct hd_staging base = real_staging();
	struct hd_staging_fit f;
	struct hd_err e = { 0 };
	const double n[] = { 65536 }, t[] = { 0 };
	const int d[] = { 0 };

	ck_assert_int_eq(hd_fit_staging(n, t, d, 0, &base, &f, &e), -1);
	ck_assert(e.set);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_fit_staging(n, t, d, 1, &base, &f, &e), -1);
	ck_assert(e.set);
}
END_TEST

/* --- the model's staging pipeline against fit.c's -------------------------------- */

/* a capped at b when b is a cap (> 0) */
static double
cap(double a, double b)
{
	return b > 0 && b < a ? b : a;
}

/*
 * A profile's figures as fit.c's pipeline takes them.  A staged chunk's DMA
 * flows alone through the GPU's link in its direction, the link's host side
 * (both directions) and the node's caps, as model.c builds them (world_init,
 * rank_init): its rate is the least of those.
 */
static struct hd_staging
staging_of(const struct hd_profile *p)
{
	struct hd_staging s;
	double both = p->node_bidir_bw;

	if (both > 0)
		both = fmax(both, fmax(p->node_h2d_bw, p->node_d2h_bw));
	memset(&s, 0, sizeof s);
	s.memcpy_bw[0] = p->host_memcpy_h2d_bw;
	s.memcpy_bw[1] = p->host_memcpy_d2h_bw;
	s.h2d_bw = cap(cap(cap(p->h2d_bw, p->bidir_bw), p->node_h2d_bw), both);
	s.d2h_bw = cap(cap(cap(p->d2h_bw, p->bidir_bw), p->node_d2h_bw), both);
	s.latency = hd_time_to_s(p->copy_latency);
	s.chunk = (double)p->staging_chunk;
	s.buffers = p->staging_buffers;
	s.api = hd_time_to_s(p->api_memcpy) + hd_time_to_s(p->api_memcpy_pageable);
	s.api_sync = hd_time_to_s(p->api_sync);
	s.wake = hd_time_to_s(p->sync_wake);
	s.hot_bw[0] = p->host_memcpy_h2d_hot_bw;
	s.hot_bw[1] = p->host_memcpy_d2h_hot_bw;
	s.cache = (double)p->host_cache;
	return s;
}

/*
 * The model's host times, in s, of cudaMemcpyAsync of n bytes between a
 * pageable and a device buffer (d2h: to the host) on an idle stream, then
 * cudaStreamSynchronize: when the copy call returns and when the sync does.
 */
static void
model_staging_times(const struct hd_profile *p, int d2h, uint64_t n, double *call, double *total)
{
	struct hd_buffer bufs[2] = {
		{ (char *)"h", HD_MEM_PAGEABLE, n, 1, 1 },
		{ (char *)"d", HD_MEM_DEVICE, n, 2, 1 },
	};
	struct hd_stream streams[2] = { { (char *)"default", 0, 0, 0, 0 },
					{ (char *)"per-thread", 0, 0, 0, 0 } };
	struct hd_op ops[2];
	struct hd_scenario sc;
	struct hd_trace *t = hd_trace_new();
	struct hd_sink sink = hd_trace_sink(t);
	struct hd_err e = { 0 };
	size_t i;

	memset(ops, 0, sizeof ops);
	for (i = 0; i < 2; i++) {
		ops[i].stream = HD_STREAM_LEGACY;
		ops[i].event = ops[i].peer = ops[i].root = HD_NONE;
		ops[i].line = (int)i + 3;
	}
	ops[0].kind = HD_OP_COPY;
	ops[0].src = d2h ? 1 : 0;
	ops[0].dst = d2h ? 0 : 1;
	ops[0].copy = d2h ? HD_COPY_D2H : HD_COPY_H2D;
	ops[0].async = true;
	ops[0].bytes = n;
	ops[1].kind = HD_OP_STREAM_SYNC;
	ops[1].src = ops[1].dst = HD_NONE;
	memset(&sc, 0, sizeof sc);
	sc.name = sc.title = (char *)"staging";
	sc.nranks = 1;
	sc.buffers = bufs;
	sc.nbuffers = 2;
	sc.streams = streams;
	sc.nstreams = 2;
	sc.ops = ops;
	sc.nops = 2;
	ck_assert_msg(hd_model_run(&sc, p, &sink, NULL, NULL, &e) == 0, "%s", e.msg);
	*call = *total = -1;
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->kind != HD_SPAN_API || t->lanes[s->lane].kind != HD_LANE_API)
			continue;
		*(s->op == 0 ? call : total) = hd_time_to_s(s->end);
	}
	ck_assert(*call > 0 && *total >= *call);
	hd_trace_free(t);
}

/* Pageable copies of 256 KiB .. 1 GiB each way: the model's call and sync times. */
static size_t
model_staging_data(const struct hd_profile *p, double *n, double *call, double *t, int *d2h)
{
	size_t k = 0;
	double b;
	int d;

	for (d = 0; d < 2; d++)
		for (b = 262144; b <= 1073741824.0; b *= 4, k++) {
			n[k] = b;
			d2h[k] = d;
			model_staging_times(p, d, (uint64_t)b, &call[k], &t[k]);
		}
	return k;
}

/*
 * The model (model_ops.c, op_copy_staged) and calibrate's pipeline (fit.c,
 * hd_staging_times) time pageable copies alike on every built-in profile,
 * and hd_fit_staging recovers a profile's memcpy rates from the model's
 * times: calibrate fits the figures the model then uses.
 */
START_TEST(staging_model_matches_fit)
{
	int i;

	for (i = 0; i < hd_profile_builtin_count(); i++) {
		const struct hd_profile *p = hd_profile_builtin(i);
		struct hd_staging st = staging_of(p), base = st;
		struct hd_staging_fit f;
		struct hd_err e = { 0 };
		double n[16], mc[16], t[16], fc, ft;
		int d[16];
		size_t k, j;

		k = model_staging_data(p, n, mc, t, d);
		for (j = 0; j < k; j++) {
			hd_staging_times(&st, d[j], n[j], &fc, &ft);
			ck_assert_msg(
			    REL(mc[j], fc) < 1e-6 && REL(t[j], ft) < 1e-6,
			    "%s, %s %.0f B: the model takes %.9g s (call %.9g s), fit.c %.9g s "
			    "(call %.9g s)",
			    p->name, d[j] ? "DtoH" : "HtoD", n[j], t[j], mc[j], ft, fc);
		}
		base.memcpy_bw[0] = base.memcpy_bw[1] = 1e9;
		ck_assert_int_eq(hd_fit_staging(n, t, d, k, &base, &f, &e), 0);
		ck_assert_msg(REL(f.memcpy_bw[0], p->host_memcpy_h2d_bw) < 1e-3 &&
				  REL(f.memcpy_bw[1], p->host_memcpy_d2h_bw) < 1e-3,
			      "%s: fitted %.4g and %.4g B/s, the profile says %.4g and %.4g",
			      p->name, f.memcpy_bw[0], f.memcpy_bw[1], p->host_memcpy_h2d_bw,
			      p->host_memcpy_d2h_bw);
		ck_assert(!f.shape_fitted);
		ck_assert(f.max_rel < 1e-4);
	}
}
END_TEST

/* From a wrong shape, the fit finds the profile's chunk and buffer count. */
START_TEST(staging_fit_finds_model_shape)
{
	const struct hd_profile *p = hd_profile_builtin_find("h100-sxm");
	struct hd_staging base;
	struct hd_staging_fit f;
	struct hd_err e = { 0 };
	double n[16], call[16], t[16];
	int d[16];
	size_t k;

	ck_assert_ptr_nonnull(p);
	base = staging_of(p);
	k = model_staging_data(p, n, call, t, d);
	base.chunk *= 8;
	base.buffers = 1;
	ck_assert_int_eq(hd_fit_staging(n, t, d, k, &base, &f, &e), 0);
	ck_assert(f.shape_fitted);
	ck_assert(f.chunk == (double)p->staging_chunk);
	ck_assert_int_eq(f.buffers, p->staging_buffers);
	ck_assert(REL(f.memcpy_bw[0], p->host_memcpy_h2d_bw) < 1e-3);
	ck_assert(REL(f.memcpy_bw[1], p->host_memcpy_d2h_bw) < 1e-3);
}
END_TEST

START_TEST(bidir)
{
	double total = 0;
	struct hd_err e = { 0 };

	/* Equal finish: both bytes over the common time. */
	ck_assert_int_eq(hd_fit_bidir(90, 1.8, 1.8, 50, 50, &total, &e), 0);
	ck_assert(fabs(total - 100) < 1e-9);
	/* 40 + 45 while both run; DtoH ends at 2, HtoD's last 10 alone at 50. */
	ck_assert_int_eq(hd_fit_bidir(90, 2.2, 2.0, 50, 55, &total, &e), 0);
	ck_assert(fabs(total - 85) < 1e-9);
	ck_assert_int_eq(hd_fit_bidir(90, 0, 2.0, 50, 55, &total, &e), -1);
	ck_assert(e.set);
}
END_TEST

START_TEST(um_split)
{
	double fault = -1, bw = -1, page = 65536;
	struct hd_err e = { 0 };
	double pb = 1 / 10e9 + 20e-6 / page;

	ck_assert_int_eq(hd_fit_um(pb, page, 20e-6, 50e9, &fault, &bw, &e), 0);
	ck_assert(fault == 20e-6 && REL(bw, 10e9) < 1e-9);
	/* The base fault cost alone is slower than measured: migrate at the link rate. */
	ck_assert_int_eq(hd_fit_um(1 / 20e9, page, 20e-6, 50e9, &fault, &bw, &e), 1);
	ck_assert(bw == 50e9);
	ck_assert(REL(fault / page + 1 / bw, 1 / 20e9) < 1e-9);
	/* Faster than the link: no fixed cost at all. */
	ck_assert_int_eq(hd_fit_um(1 / 80e9, page, 20e-6, 50e9, &fault, &bw, &e), 1);
	ck_assert(fault == 0 && REL(bw, 80e9) < 1e-9);
	ck_assert_int_eq(hd_fit_um(0, page, 20e-6, 50e9, &fault, &bw, &e), -1);
	ck_assert(e.set);
}
END_TEST

/* ---- ranks ------------------------------------------------------------------ */

/* All-reduce sizes as the calibration sweeps them: 8 B, then 16 B x4 .. 1 GiB. */
static size_t
ar_sizes(double *b)
{
	size_t k = 0;
	double s;

	b[k++] = 8;
	for (s = 16; s <= 1073741824.0; s *= 4)
		b[k++] = s;
	return k;
}

/* A node of n GPUs whose pairs with nv(i, j) run at nvbw, the others at pcie. */
static void
node_fill(struct hd_fit_node *nd, int n, int (*nv)(int, int), double nvbw, double p2pbw,
	  double nvlat, double plat, double hostbw)
{
	int i, j;

	memset(nd, 0, sizeof *nd);
	nd->n = n;
	nd->pcie_bw = hostbw;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			nd->p2p[i][j] = 1;
			nd->atomics[i][j] = nv(i, j);
			nd->bw[i][j] = nv(i, j) ? nvbw : p2pbw;
			nd->lat[i][j] = nv(i, j) ? nvlat : plat;
		}
}

static int
nv_all(int i, int j)
{
	return i != j;
}

static int
nv_pairs(int i, int j)
{
	return i != j && i / 2 == j / 2;
}

static int
nv_none(int i, int j)
{
	(void)i;
	(void)j;
	return 0;
}

static int
nv_ring(int i, int j)
{
	return abs(i - j) == 1;
}

START_TEST(coll_time_by_hand)
{
	struct hd_coll_fig f = { 4, 1e-6, 100e9, 10e-6, 1e6 };

	/* 10 us + 6 (1 us + 1 MB / 100 GB/s) = 10 + 6 * 11 us */
	ck_assert(REL(hd_fit_coll_time(HD_COLL_ALLREDUCE, &f, 4e6), 76e-6) < 1e-12);
	/* all-gather: 3 steps of S/4 */
	ck_assert(REL(hd_fit_coll_time(HD_COLL_ALLGATHER, &f, 4e6), 43e-6) < 1e-12);
	/* broadcast of 4 chunks of 1 MB over a chain of 3 hops: 6 steps of 11 us */
	ck_assert(REL(hd_fit_coll_time(HD_COLL_BROADCAST, &f, 4e6), 76e-6) < 1e-12);
	/* smaller than a chunk: 3 hops of the whole */
	ck_assert(REL(hd_fit_coll_time(HD_COLL_BROADCAST, &f, 1e5), 10e-6 + 3 * 2e-6) < 1e-12);
	f.n = 1;
	ck_assert(hd_fit_coll_time(HD_COLL_ALLREDUCE, &f, 4e6) == 10e-6);
}
END_TEST

START_TEST(ring_fit_exact)
{
	static const int ns[] = { 2, 4, 8 };
	double b[32], t[32];
	size_t k = ar_sizes(b), i, r;
	struct hd_fit_ring fr;
	struct hd_err e = { 0 };

	for (r = 0; r < 3; r++) {
		struct hd_coll_fig f = { ns[r], 0.9e-6, 370e9, 8e-6, 512 * 1024 };

		for (i = 0; i < k; i++)
			t[i] = hd_fit_coll_time(HD_COLL_ALLREDUCE, &f, b[i]);
		ck_assert_int_eq(hd_fit_ring(ns[r], b, t, k, 65536, 64 << 20, 0.9e-6, &fr, &e), 0);
		ck_assert_msg(REL(fr.beta, 370e9) < 1e-6, "n %d beta %g", ns[r], fr.beta);
		ck_assert(REL(fr.base, 8e-6) < 1e-4);
		ck_assert(REL(fr.intercept, 8e-6 + 2 * (ns[r] - 1) * 0.9e-6) < 1e-4);
		ck_assert(!fr.base_clamped);
		ck_assert(fr.max_rel < 1e-4);
	}
}
END_TEST

START_TEST(ring_fit_noisy)
{
	struct hd_coll_fig f = { 2, 1.5e-6, 360e9, 12e-6, 0 };
	double b[32], t[32];
	size_t k = ar_sizes(b), i;
	struct hd_fit_ring fr;
	struct hd_err e = { 0 };
	uint32_t st = 7;

	for (i = 0; i < k; i++)
		t[i] = hd_fit_coll_time(HD_COLL_ALLREDUCE, &f, b[i]) * (1 + 0.03 * noise(&st));
	ck_assert_int_eq(hd_fit_ring(2, b, t, k, 65536, 64 << 20, 1.5e-6, &fr, &e), 0);
	ck_assert_msg(REL(fr.beta, 360e9) < 0.04, "beta %g", fr.beta);
	ck_assert_msg(REL(fr.base, 12e-6) < 0.1, "base %g", fr.base);
	ck_assert(fr.max_rel < 0.07 && fr.max_rel > 0.005);
	ck_assert(fr.rms_rel <= fr.max_rel);
}
END_TEST

START_TEST(ring_fit_clamps_and_fails)
{
	struct hd_coll_fig f = { 2, 1e-6, 100e9, 2e-6, 0 };
	double b[32], t[32];
	size_t k = ar_sizes(b), i;
	struct hd_fit_ring fr;
	struct hd_err e = { 0 };

	for (i = 0; i < k; i++)
		t[i] = hd_fit_coll_time(HD_COLL_ALLREDUCE, &f, b[i]);
	/* a per-hop latency larger than the intercept allows: base 0 */
	ck_assert_int_eq(hd_fit_ring(2, b, t, k, 65536, 64 << 20, 5e-6, &fr, &e), 0);
	ck_assert(fr.base == 0 && fr.base_clamped);
	ck_assert(REL(fr.intercept, 4e-6) < 1e-4);
	ck_assert_int_eq(hd_fit_ring(1, b, t, k, 65536, 64 << 20, 1e-6, &fr, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "two ranks"));
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_fit_ring(2, b, t, 1, 65536, 64 << 20, 1e-6, &fr, &e), -1);
	ck_assert(e.set);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_fit_ring(2, b, t, k, 65536, 64 << 20, NAN, &fr, &e), -1);
	ck_assert(e.set);
}
END_TEST

START_TEST(topo_kinds)
{
	struct hd_fit_node nd;
	struct hd_fit_topo t;
	struct hd_err e = { 0 };

	/* every pair far faster than the host link */
	node_fill(&nd, 4, nv_all, 380e9, 0, 1e-6, 0, 55e9);
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert_int_eq(t.kind, HD_TOPO_NVSWITCH);
	ck_assert(t.exact && t.by_rate && t.nvlink_pairs == 6 && t.gpus_per_node == 4);
	/* two GPUs joined by NVLink */
	node_fill(&nd, 2, nv_all, 380e9, 0, 1e-6, 0, 55e9);
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert_int_eq(t.kind, HD_TOPO_NVSWITCH);
	/* pairs 0-1 and 2-3 */
	node_fill(&nd, 4, nv_pairs, 200e9, 20e9, 1e-6, 2e-6, 25e9);
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert_int_eq(t.kind, HD_TOPO_NVLINK_PAIRS);
	ck_assert(t.exact && t.nvlink_pairs == 2 && t.pcie_pairs == 4);
	ck_assert(t.nvlink[2][3] && t.nvlink[3][2] && !t.nvlink[1][2]);
	/* an odd GPU out: still pairs */
	node_fill(&nd, 3, nv_pairs, 200e9, 20e9, 1e-6, 2e-6, 25e9);
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert_int_eq(t.kind, HD_TOPO_NVLINK_PAIRS);
	ck_assert(t.exact);
	/* PCIe only: peer rates near the host link's, even with atomics reported */
	node_fill(&nd, 4, nv_all, 30e9, 0, 2e-6, 0, 25e9);
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert_int_eq(t.kind, HD_TOPO_PCIE);
	ck_assert(t.exact && t.nvlink_pairs == 0 && t.pcie_pairs == 6);
	/* a chain 0-1-2-3 matches no kind: the closest, flagged */
	node_fill(&nd, 4, nv_ring, 200e9, 20e9, 1e-6, 2e-6, 25e9);
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert(!t.exact);
	ck_assert_int_eq(t.kind, HD_TOPO_NVLINK_PAIRS);
	/* no rates: native atomics on a GPU with NVLinks decide */
	node_fill(&nd, 2, nv_all, 0, 0, -1, -1, 0);
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert_int_eq(t.kind, HD_TOPO_NVSWITCH);
	ck_assert(!t.by_rate);
	nd.links = -1;
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert_int_eq(t.kind, HD_TOPO_PCIE);
	/* peer access impossible: traffic through the host */
	node_fill(&nd, 2, nv_none, 10e9, 10e9, 5e-6, 5e-6, 25e9);
	nd.p2p[0][1] = nd.p2p[1][0] = 0;
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert_int_eq(t.kind, HD_TOPO_PCIE);
	ck_assert(t.host_pairs == 1 && t.pcie_pairs == 0);
	/* one GPU, and too many */
	nd.n = 1;
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), 0);
	ck_assert_int_eq(t.kind, HD_TOPO_SINGLE);
	nd.n = HD_FIT_MAX_GPUS + 1;
	ck_assert_int_eq(hd_fit_topo(&nd, &t, &e), -1);
	ck_assert(e.set);
	ck_assert(hd_fit_topo_link(HD_TOPO_NVLINK_PAIRS, 2, 3));
	ck_assert(!hd_fit_topo_link(HD_TOPO_NVLINK_PAIRS, 1, 2));
	ck_assert(hd_fit_topo_link(HD_TOPO_NVSWITCH, 5, 0));
	ck_assert(!hd_fit_topo_link(HD_TOPO_PCIE, 0, 1));
	ck_assert(!hd_fit_topo_link(HD_TOPO_NVSWITCH, 1, 1));
}
END_TEST

/* Synthetic all-reduce times over n GPUs from known figures, with noise. */
static size_t
ar_times(const struct hd_coll_fig *f, double amp, double *b, double *t)
{
	size_t k = ar_sizes(b), i;
	uint32_t st = 11;

	for (i = 0; i < k; i++)
		t[i] = hd_fit_coll_time(HD_COLL_ALLREDUCE, f, b[i]) * (1 + amp * noise(&st));
	return k;
}

START_TEST(ranks_nvswitch)
{
	/* 4 GPUs on NVSwitch, 18 links reported; NCCL's ring runs at 360 GB/s */
	struct hd_coll_fig f = { 4, 0.8e-6, 360e9, 9e-6, 0 };
	struct hd_fit_node nd;
	struct hd_fit_ranks r;
	struct hd_err e = { 0 };
	double b[32], t[32];
	size_t k = ar_times(&f, 0.02, b, t);

	node_fill(&nd, 4, nv_all, 390e9, 0, 0.8e-6, 0, 55e9);
	nd.links = 18;
	ck_assert_int_eq(hd_fit_ranks(&nd, 12, 2e-6, b, t, k, 65536, 64 << 20, &r, &e), 0);
	ck_assert_int_eq(r.topo.kind, HD_TOPO_NVSWITCH);
	ck_assert(r.ring_over_nvlink && r.have_ring && r.rate_from_ring);
	ck_assert(r.links == 18 && r.links_reported);
	ck_assert_msg(REL(r.nvlink_rate * 18, 360e9) < 0.03, "rate %g", r.nvlink_rate);
	ck_assert(REL(r.nvlink_latency, 0.8e-6) < 1e-9);
	ck_assert(r.alpha == r.nvlink_latency);
	ck_assert_msg(REL(r.coll_base, 9e-6) < 0.15, "base %g", r.coll_base);
	ck_assert(r.p2p_pcie == 0); /* no pair without NVLink: nothing to measure it */
	ck_assert(REL(r.copy_nvlink_bw, 390e9) < 1e-9);
	/* links not reported: the base profile's count */
	nd.links = 0;
	ck_assert_int_eq(hd_fit_ranks(&nd, 12, 2e-6, b, t, k, 65536, 64 << 20, &r, &e), 0);
	ck_assert(r.links == 12 && !r.links_reported);
	ck_assert(REL(r.nvlink_rate * 12, 360e9) < 0.03);
	/* neither: one link carrying it all */
	ck_assert_int_eq(hd_fit_ranks(&nd, 0, 2e-6, b, t, k, 65536, 64 << 20, &r, &e), 0);
	ck_assert(r.links == 1 && REL(r.nvlink_rate, 360e9) < 0.03);
}
END_TEST

START_TEST(ranks_pcie_only)
{
	/* 2 GPUs without NVLink: the ring runs at the peer PCIe rate, and its
	 * per-hop latency is pcie.latency */
	struct hd_coll_fig f = { 2, 2e-6, 20e9, 15e-6, 0 };
	struct hd_fit_node nd;
	struct hd_fit_ranks r;
	struct hd_err e = { 0 };
	double b[32], t[32];
	size_t k = ar_times(&f, 0, b, t);

	node_fill(&nd, 2, nv_none, 22e9, 22e9, 3e-6, 3e-6, 26e9);
	nd.links = -1;
	ck_assert_int_eq(hd_fit_ranks(&nd, 18, 2e-6, b, t, k, 65536, 64 << 20, &r, &e), 0);
	ck_assert_int_eq(r.topo.kind, HD_TOPO_PCIE);
	ck_assert(!r.ring_over_nvlink && r.links == 0 && r.nvlink_rate == 0);
	ck_assert(r.nvlink_latency < 0);
	ck_assert(r.alpha == 2e-6);
	ck_assert(REL(r.p2p_pcie, 20e9) < 1e-6);
	ck_assert(REL(r.coll_base, 15e-6) < 1e-4);
	/* no NCCL sweep: the peer copies give the rate, coll.base is not set */
	ck_assert_int_eq(hd_fit_ranks(&nd, 18, 2e-6, NULL, NULL, 0, 65536, 64 << 20, &r, &e), 0);
	ck_assert(!r.have_ring && !r.rate_from_ring);
	ck_assert(REL(r.p2p_pcie, 22e9) < 1e-9 && r.coll_base < 0);
}
END_TEST

START_TEST(ranks_pairs)
{
	/* 4 GPUs in NVLink pairs: the ring crosses PCIe, so all-reduce gives
	 * topo.p2p_pcie and the pairs' copies give nvlink.rate */
	struct hd_coll_fig f = { 4, 2e-6, 21e9, 10e-6, 0 };
	struct hd_fit_node nd;
	struct hd_fit_ranks r;
	struct hd_err e = { 0 };
	double b[32], t[32];
	size_t k = ar_times(&f, 0, b, t);

	node_fill(&nd, 4, nv_pairs, 240e9, 24e9, 1.2e-6, 3e-6, 25e9);
	nd.links = 12;
	ck_assert_int_eq(hd_fit_ranks(&nd, 4, 2e-6, b, t, k, 65536, 64 << 20, &r, &e), 0);
	ck_assert_int_eq(r.topo.kind, HD_TOPO_NVLINK_PAIRS);
	ck_assert(!r.ring_over_nvlink && r.alpha == 2e-6);
	ck_assert(REL(r.p2p_pcie, 21e9) < 1e-6);
	ck_assert(REL(r.nvlink_rate, 20e9) < 1e-9);
	ck_assert(REL(r.nvlink_latency, 1.2e-6) < 1e-9);
	ck_assert(REL(r.coll_base, 10e-6) < 1e-4);
	/* two GPUs of one pair: the whole ring is NVLink */
	node_fill(&nd, 2, nv_pairs, 240e9, 0, 1.2e-6, 0, 25e9);
	nd.links = 12;
	f.n = 2;
	f.alpha = 1.2e-6;
	f.beta = 230e9;
	k = ar_times(&f, 0, b, t);
	ck_assert_int_eq(hd_fit_ranks(&nd, 4, 2e-6, b, t, k, 65536, 64 << 20, &r, &e), 0);
	ck_assert(r.ring_over_nvlink);
	ck_assert(REL(r.nvlink_rate * 12, 230e9) < 1e-6);
	ck_assert(REL(r.coll_base, 10e-6) < 1e-4);
}
END_TEST

/* Live copies: sizes the host paced are left out of the engine's cost. */
START_TEST(live_latency_leaves_out_host_paced_sizes)
{
	const double rate = 50e9, n[] = { 4096, 16384, 65536 };
	/* an engine of 2.5 us + n / rate; the host's calls 2.6 us each, so the
	 * two small sizes are paced by the host (done = issue) */
	const double eng[] = { 2.5e-6 + 4096 / 50e9, 2.5e-6 + 16384 / 50e9, 2.5e-6 + 65536 / 50e9 };
	const double done[] = { 2.6e-6, 2.6e-6 + 1e-8, eng[2] };
	const double issue[] = { 2.6e-6, 2.6e-6, 2.6e-6 };
	const double slow[] = { 9e-6, 9e-6, 9e-6 };
	double alpha = -1;

	ck_assert_int_eq(hd_fit_live_latency(n, done, issue, 3, rate, &alpha), 1);
	ck_assert_msg(fabs(alpha - 2.5e-6) < 1e-12, "%g", alpha);
	/* every size engine-paced: the mean over all three */
	ck_assert_int_eq(
	    hd_fit_live_latency(n, eng, (const double[]){ 1e-6, 1e-6, 1e-6 }, 3, rate, &alpha), 3);
	ck_assert_msg(fabs(alpha - 2.5e-6) < 1e-12, "%g", alpha);
	/* the host slower than every copy: nothing used, alpha left alone */
	alpha = 7;
	ck_assert_int_eq(hd_fit_live_latency(n, slow, slow, 3, rate, &alpha), 0);
	ck_assert(alpha == 7);
}
END_TEST

/* Graphs: the GPU's per-node slope and the host's per-launch intercept. */
START_TEST(graph_fit)
{
	const double n[] = { 8, 32, 128, 512 };
	double gpu[4], host[4], flat[4] = { 3e-6, 3e-6, 3e-6, 3e-6 }, e0[2] = { 1, 1 };
	struct hd_fit_graph f;
	struct hd_err e = { 0 };
	int i;

	/* 2 us to start a launch, 0.7 us per node; the call 4 us + 1 ns per node */
	for (i = 0; i < 4; i++) {
		gpu[i] = 2e-6 + 0.7e-6 * n[i];
		host[i] = 4e-6 + 1e-9 * n[i];
	}
	ck_assert_int_eq(hd_fit_graph(n, host, gpu, 4, &f, &e), 0);
	ck_assert_msg(fabs(f.node - 0.7e-6) < 1e-15, "%g", f.node);
	ck_assert_msg(fabs(f.fixed - 2e-6) < 1e-14, "%g", f.fixed);
	ck_assert_msg(fabs(f.launch - 4e-6) < 1e-14, "%g", f.launch);
	ck_assert_msg(fabs(f.launch_node - 1e-9) < 1e-16, "%g", f.launch_node);
	ck_assert(f.max_rel < 1e-9 && !f.launch_clamped);
	/* a call whose line crosses 0 before the first node: clamped at 0 */
	for (i = 0; i < 4; i++)
		host[i] = -1e-6 + 1e-8 * n[i];
	ck_assert_int_eq(hd_fit_graph(n, host, gpu, 4, &f, &e), 0);
	ck_assert(f.launch == 0 && f.launch_clamped);
	ck_assert_msg(fabs(f.launch_node - 1e-8) < 1e-15, "%g", f.launch_node);
	/* GPU time flat in the nodes, one size, or not a number: refused */
	ck_assert_int_eq(hd_fit_graph(n, host, flat, 4, &f, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "does not grow"));
	ck_assert_int_eq(hd_fit_graph(e0, flat, flat, 2, &f, &e), -1);
	gpu[2] = NAN;
	ck_assert_int_eq(hd_fit_graph(n, host, gpu, 4, &f, &e), -1);
}
END_TEST

static Suite *
fit_suite(void)
{
	Suite *s = suite_create("fit");
	TCase *tc = tcase_create("fit");

	tcase_add_test(tc, stats_odd);
	tcase_add_test(tc, graph_fit);
	tcase_add_test(tc, stats_even);
	tcase_add_test(tc, stats_one_and_none);
	tcase_add_test(tc, mean_low);
	tcase_add_test(tc, ls_exact_and_degenerate);
	tcase_add_test(tc, alpha_beta_exact);
	tcase_add_test(tc, alpha_beta_quick_sizes);
	tcase_add_test(tc, alpha_beta_noisy);
	tcase_add_test(tc, alpha_beta_fallbacks);
	tcase_add_test(tc, alpha_beta_degenerate);
	tcase_add_test(tc, staging_by_hand);
	tcase_add_test(tc, staging_fit_keeps_base_shape);
	tcase_add_test(tc, staging_fit_finds_shape);
	tcase_add_test(tc, staging_fit_one_direction);
	tcase_add_test(tc, staging_fit_flags_a_rate_at_the_top);
	tcase_add_test(tc, staging_fit_degenerate);
	tcase_add_test(tc, staging_model_matches_fit);
	tcase_add_test(tc, staging_fit_finds_model_shape);
	tcase_add_test(tc, bidir);
	tcase_add_test(tc, um_split);
	tcase_add_test(tc, coll_time_by_hand);
	tcase_add_test(tc, ring_fit_exact);
	tcase_add_test(tc, ring_fit_noisy);
	tcase_add_test(tc, ring_fit_clamps_and_fails);
	tcase_add_test(tc, topo_kinds);
	tcase_add_test(tc, ranks_nvswitch);
	tcase_add_test(tc, ranks_pcie_only);
	tcase_add_test(tc, ranks_pairs);
	tcase_add_test(tc, live_latency_leaves_out_host_paced_sizes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(fit_suite());
}
