/*
 * check_calibrate.c - hd_real_calibrate against a fake GPU with known
 * figures (tests/fake_cuda.c): the fits find them, the profile reads back,
 * failing CUDA calls and interruptions end cleanly with a clear message,
 * and a timed-out spin-kernel gate is reported.  Built in CUDA builds only
 * (it needs the CUDA headers), and runs without a GPU.
 */
#include <math.h>
#include <string.h>

#include "fake_cuda.h"
#include "real.h"
#include "testutil.h"

#define REL(a, b) (fabs((a) - (b)) / fabs(b))

struct prog {
	double last;
	int calls, backwards;
	double stop_at;         /* set *stop once the fraction reaches this (0: never) */
	volatile int *stop;
};

static void
on_progress(void *ctx, double frac, const char *what)
{
	struct prog *p = ctx;

	if (frac < p->last - 1e-12 || frac < 0 || frac > 1 || what == NULL || !what[0])
		p->backwards++;
	p->last = frac;
	p->calls++;
	if (p->stop_at > 0 && frac >= p->stop_at)
		*p->stop = 1;
}

static int
run(int fail_at, double stop_at, struct hd_profile *p, struct hd_buf *log, struct hd_err *e,
    struct prog *pr)
{
	static volatile int stop;
	struct hd_calibrate_opts o;

	memset(&o, 0, sizeof o);
	memset(pr, 0, sizeof *pr);
	stop = 0;
	pr->stop_at = stop_at;
	pr->stop = &stop;
	o.quick = 1;
	o.stop = &stop;
	o.progress = on_progress;
	o.ctx = pr;
	fake_cuda_calls = 0;
	fake_cuda_fail_at = fail_at;
	ck_assert_int_eq(hd_profile_resolve("h100-sxm", p, e), 0);
	hd_buf_init(log);
	return hd_real_calibrate(&o, p, log, e);
}

START_TEST(quick_run_finds_the_figures)
{
	struct hd_profile p, back;
	struct hd_buf log;
	struct hd_err e = { 0 };
	struct prog pr;
	char *text;

	ck_assert_msg(run(0, 0, &p, &log, &e, &pr) == 0, "%s", e.msg);
	ck_assert(REL(p.h2d_bw, FAKE_H2D) < 0.03);
	ck_assert(REL(p.d2h_bw, FAKE_D2H) < 0.03);
	ck_assert(REL(p.d2d_bw, FAKE_D2D) < 0.03);
	ck_assert(REL(p.hbm_bw, FAKE_HBM) < 0.03);
	ck_assert(REL(p.flops, FAKE_FLOPS) < 0.03);
	ck_assert(REL(p.pin_bw, FAKE_PIN) < 0.15);
	ck_assert(REL(p.um_prefetch_bw, FAKE_PREFETCH) < 0.1);
	/* both directions ran at full rate at once */
	ck_assert(REL(p.bidir_bw, FAKE_H2D + FAKE_D2H) < 0.05);
	ck_assert(p.copy_latency > HD_US && p.copy_latency < 4 * HD_US);
	ck_assert(p.api_launch > 0 && p.api_memcpy > 0 && p.api_sync > 0);
	ck_assert(p.host_memcpy_h2d_bw > 1e9 && p.host_memcpy_h2d_bw < 100e9);
	ck_assert(p.host_memcpy_d2h_bw > 1e9 && p.host_memcpy_d2h_bw < 100e9);
	ck_assert_str_eq(p.origin, "calibrated");
	ck_assert_str_eq(p.name, "calibrated-nvidia-h100-80gb-hbm3-fake");
	ck_assert_str_eq(p.gpu_name, "NVIDIA H100 80GB HBM3 (fake)");
	ck_assert_int_eq(p.sms, 132);
	/* kept from the base: nothing measures them on one GPU */
	ck_assert_int_eq(p.pcie_gen, 5);
	ck_assert_int_eq(p.max_kernels, hd_profile_builtin_find("h100-sxm")->max_kernels);
	ck_assert_ptr_nonnull(strstr(log.s, "Pinned H2D"));
	ck_assert_ptr_nonnull(strstr(log.s, "Pageable D2H"));
	ck_assert_ptr_nonnull(strstr(log.s, "residual"));
	ck_assert_ptr_nonnull(strstr(log.s, "figures set by this run"));
	ck_assert_ptr_nonnull(strstr(log.s, "PCIe link during the copies (sysfs): unreadable"));
	ck_assert_int_eq(pr.backwards, 0);
	ck_assert(pr.calls > 10 && pr.last == 1);
	text = hd_profile_format(&p);
	ck_assert_int_eq(hd_profile_parse(text, "calibrated", &back, &e), 0);
	ck_assert(hd_profile_equal(&p, &back));
	free(text);
	hd_buf_free(&log);
}
END_TEST

START_TEST(failing_calls_are_named)
{
	/* set-up, preloading, the API costs, the gate, and every later stage */
	static const int at[] = { 1, 7, 8, 21, 24, 40, 300, 700, 1000, 1300, 1600, 1900 };
	struct hd_profile p, base;
	struct hd_buf log;
	struct hd_err e;
	struct prog pr;
	size_t i;

	ck_assert_int_eq(hd_profile_resolve("h100-sxm", &base, &e), 0);
	for (i = 0; i < sizeof at / sizeof at[0]; i++) {
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(run(at[i], 0, &p, &log, &e, &pr), -1);
		ck_assert_msg(strstr(e.msg, "failed: fake failure (cudaErrorFake)") != NULL,
			      "call %d: %s", at[i], e.msg);
		ck_assert_msg(strchr(e.msg, '(') == strrchr(e.msg, '('), "%s", e.msg);
		/* nothing half-written into the profile */
		ck_assert(hd_profile_equal(&p, &base));
		hd_buf_free(&log);
	}
	fake_cuda_fail_at = 0;
}
END_TEST

START_TEST(interrupted)
{
	struct hd_profile p;
	struct hd_buf log;
	struct hd_err e = { 0 };
	struct prog pr;

	ck_assert_int_eq(run(0, 0.3, &p, &log, &e, &pr), -1);
	ck_assert_str_eq(e.msg, "calibration interrupted");
	ck_assert(pr.last < 0.5);
	hd_buf_free(&log);
}
END_TEST

START_TEST(gate_timeout_reported)
{
	struct hd_profile p;
	struct hd_buf log;
	struct hd_err e = { 0 };
	struct prog pr;

	fake_cuda_latch_times_out = 1;
	ck_assert_int_eq(run(0, 0, &p, &log, &e, &pr), -1);
	fake_cuda_latch_times_out = 0;
	ck_assert_ptr_nonnull(strstr(e.msg, "spin-kernel gate timed out"));
	hd_buf_free(&log);
}
END_TEST

static Suite *
calibrate_suite(void)
{
	Suite *s = suite_create("calibrate");
	TCase *tc = tcase_create("calibrate");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, quick_run_finds_the_figures);
	tcase_add_test(tc, failing_calls_are_named);
	tcase_add_test(tc, interrupted);
	tcase_add_test(tc, gate_timeout_reported);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(calibrate_suite());
}
