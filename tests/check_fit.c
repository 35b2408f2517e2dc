/*
 * check_fit.c - the calibration arithmetic: medians and spreads, the
 * t = alpha + n / beta fit, the pageable staging pipeline and its fit, the
 * bidirectional and managed-memory splits.  Synthetic data only: no GPU.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fit.h"
#include "testutil.h"

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
	ck_assert(v[0] == 5);   /* the input is not reordered */
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
	ck_assert_int_eq(f.n_large, 7);         /* 16 MiB .. 1 GiB */
	ck_assert_int_eq(f.n_small, 15);        /* 4 B .. 64 KiB */
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
	ck_assert(fabs(total - 4.6) < 1e-12);      /* last DMA 4.5, then the wake */
	/* HtoD, DMA-bound: chunk 2 waits for buffer 0, chunk 3 for buffer 1. */
	p = unit_staging(2, 1);
	hd_staging_times(&p, 0, 4, &call, &total);
	ck_assert(fabs(call - 3) < 1e-12);
	ck_assert(fabs(total - 4.6) < 1e-12);
	/* DtoH: DMAs first, the call returns after the last memcpy out. */
	p = unit_staging(1, 2);
	hd_staging_times(&p, 1, 4, &call, &total);
	ck_assert(fabs(call - 4.5) < 1e-12);
	ck_assert(fabs(total - 4.7) < 1e-12);
	/* One chunk, with the API cost and a DMA latency. */
	p = unit_staging(1, 2);
	p.api = 1;
	p.latency = 0.25;
	p.chunk = 8;
	hd_staging_times(&p, 0, 4, &call, &total);
	ck_assert(fabs(call - 5) < 1e-12);
	ck_assert(fabs(total - (5 + 0.25 + 2 + 0.1)) < 1e-12);
	hd_staging_times(&p, 1, 4, &call, &total);
	ck_assert(fabs(call - (1 + 0.25 + 2 + 4)) < 1e-12);
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
	p.memcpy_bw[0] = p.memcpy_bw[1] = 1;    /* refitted */
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
	ck_assert(f.points[0] == 8 && f.points[1] == 8);      /* 64 KiB .. 1 GiB, x4 */
	ck_assert(!f.shape_fitted);
	ck_assert(f.chunk == base.chunk && f.buffers == base.buffers);
	ck_assert(f.base_max_rel < 0.01);
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
	for (i = 0; i < k; i++)         /* keep the HtoD points only */
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

static Suite *
fit_suite(void)
{
	Suite *s = suite_create("fit");
	TCase *tc = tcase_create("fit");

	tcase_add_test(tc, stats_odd);
	tcase_add_test(tc, stats_even);
	tcase_add_test(tc, stats_one_and_none);
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
	tcase_add_test(tc, staging_fit_degenerate);
	tcase_add_test(tc, bidir);
	tcase_add_test(tc, um_split);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(fit_suite());
}
