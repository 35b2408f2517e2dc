/*
 * check_units.c - unit parsing and formatting, the band of repeats, and the
 * error convention.
 */
#include <stdio.h>
#include <string.h>

#include "base/band.h"
#include "base/units.h"
#include "base/util.h"
#include "tests/testutil.h"

START_TEST(parse_sizes)
{
	enum hd_dim d;
	double v;

	ck_assert(hd_quantity_parse("64MiB", &d, &v));
	ck_assert_int_eq(d, HD_DIM_BYTES);
	ck_assert(v == 67108864.0);
	ck_assert(hd_quantity_parse("1.5 GB", &d, &v));
	ck_assert(v == 1.5e9);
	ck_assert(hd_quantity_parse("4KiB", &d, &v) && v == 4096.0);
	ck_assert(!hd_quantity_parse("64 MiBs", &d, &v));
	ck_assert(!hd_quantity_parse("fast", &d, &v));
}
END_TEST

START_TEST(parse_other_dims)
{
	enum hd_dim d;
	double v;

	ck_assert(hd_quantity_parse("2ms", &d, &v) && d == HD_DIM_TIME && v == 2e9);
	ck_assert(hd_quantity_parse("5 \xc2\xb5s", &d, &v) && d == HD_DIM_TIME && v == 5e6);
	ck_assert(hd_quantity_parse("55 GB/s", &d, &v) && d == HD_DIM_RATE && v == 55e9);
	ck_assert(hd_quantity_parse("2TFLOP", &d, &v) && d == HD_DIM_FLOP && v == 2e12);
	ck_assert(hd_quantity_parse("67 TFLOP/s", &d, &v) && d == HD_DIM_FLOPS && v == 67e12);
	ck_assert(hd_quantity_parse("20%", &d, &v) && d == HD_DIM_PERCENT && v == 0.2);
	ck_assert(hd_quantity_parse("3", &d, &v) && d == HD_DIM_NONE && v == 3);
}
END_TEST

START_TEST(format)
{
	char b[32];

	ck_assert_str_eq(hd_fmt_time(b, sizeof b, 1342177280), "1.34 ms");
	ck_assert_str_eq(hd_fmt_time(b, sizeof b, 2 * HD_US), "2.00 us");
	ck_assert_str_eq(hd_fmt_time(b, sizeof b, 0), "0 s");
	ck_assert_str_eq(hd_fmt_time(b, sizeof b, 17), "17 ps");
	ck_assert_str_eq(hd_fmt_time(b, sizeof b, 999), "999 ps");
	ck_assert_str_eq(hd_fmt_time(b, sizeof b, 1000), "1.00 ns");
	ck_assert_str_eq(hd_fmt_time(b, sizeof b, -2 * HD_MS), "-2.00 ms");
	ck_assert_str_eq(hd_fmt_time(b, sizeof b, 150 * HD_S), "150 s");
	{
		double sc;

		ck_assert_str_eq(hd_time_unit(999, &sc), "ps");
		ck_assert(sc == 1);
		ck_assert_str_eq(hd_time_unit(1e3, &sc), "ns");
		ck_assert_str_eq(hd_time_unit(-2e9, &sc), "ms");
		ck_assert(sc == 1e9);
		ck_assert_str_eq(hd_time_unit(3e15, &sc), "s");
		ck_assert_int_eq(hd_fmt_decimals(99.9), 1);
		ck_assert_int_eq(hd_fmt_decimals(-0.5), 3);
	}
	ck_assert_str_eq(hd_fmt_bytes(b, sizeof b, 64u << 20), "64 MiB");
	ck_assert_str_eq(hd_fmt_bytes(b, sizeof b, 1536), "1.50 KiB");
	ck_assert_str_eq(hd_fmt_bytes(b, sizeof b, 17), "17 B");
	ck_assert_str_eq(hd_fmt_rate(b, sizeof b, 52.34e9), "52.3 GB/s");
}
END_TEST

START_TEST(time_for_bytes_exact)
{
	/* 64 MiB at 50 GB/s: 67108864 / 5e10 s = 1342177280 ps exactly. */
	ck_assert_int_eq(hd_time_for_bytes(67108864.0, 50e9), 1342177280);
	/* Rounds up to a whole picosecond: 1 B at 3 B/s = 333333333333.33 ps. */
	ck_assert_int_eq(hd_time_for_bytes(1, 3), 333333333334);
	ck_assert_int_eq(hd_time_for_bytes(0, 3), 0);
	/* durations saturate at HD_TIME_DUR_MAX, so time + duration cannot overflow */
	ck_assert_int_eq(hd_time_for_bytes(1, 0), HD_TIME_DUR_MAX);
	ck_assert_int_eq(hd_time_for_bytes(1e18, 1e-300), HD_TIME_DUR_MAX);
	ck_assert(HD_TIME_RUN_MAX <= HD_TIME_MAX - HD_TIME_DUR_MAX);
}
END_TEST

START_TEST(time_arithmetic_saturates)
{
	ck_assert_int_eq(hd_time_add(HD_TIME_DUR_MAX - 1, 5), HD_TIME_DUR_MAX);
	ck_assert_int_eq(hd_time_add(3, 4), 7);
	ck_assert_int_eq(hd_time_mul(HD_S, UINT64_MAX), HD_TIME_DUR_MAX);
	ck_assert_int_eq(hd_time_mul(HD_S, 3), 3 * HD_S);
	ck_assert_int_eq(hd_time_mul(0, UINT64_MAX), 0);
	ck_assert_int_eq(hd_time_from_s(1e300), HD_TIME_DUR_MAX);
	ck_assert_int_eq(hd_time_from_s(-1e300), -HD_TIME_DUR_MAX);
	ck_assert_int_eq(hd_time_from_ps(0.0 / 0.0), 0);
	ck_assert_int_eq(hd_time_from_ps(2.5), 3);
}
END_TEST

/* The band of an odd count: min, quartiles on values, the middle one. */
START_TEST(band_odd_count)
{
	/* 12.31 ms measured, five repeats out of order */
	const hd_time v[] = { 12310 * HD_US, 12580 * HD_US, 12100 * HD_US, 12400 * HD_US,
			      12200 * HD_US };
	hd_time copy[5];
	struct hd_band b;
	char s[96];

	memcpy(copy, v, sizeof v);
	ck_assert_int_eq(hd_band_of(v, 5, &b), 0);
	ck_assert(memcmp(copy, v, sizeof v) == 0); /* the values are not reordered */
	ck_assert_int_eq(b.n, 5);
	ck_assert_int_eq(b.min, 12100 * HD_US);
	ck_assert_int_eq(b.max, 12580 * HD_US);
	ck_assert_int_eq(b.median, 12310 * HD_US);
	ck_assert_int_eq(b.q1, 12200 * HD_US);
	ck_assert_int_eq(b.q3, 12400 * HD_US);
	ck_assert_int_eq(b.iqr, 200 * HD_US);
	ck_assert(hd_band_holds(&b, 12100 * HD_US) && hd_band_holds(&b, 12580 * HD_US));
	ck_assert(!hd_band_holds(&b, 12580 * HD_US + 1) && !hd_band_holds(&b, 12 * HD_MS));
	ck_assert_str_eq(hd_band_fmt(s, sizeof s, b.median, &b, HD_BAND_LONG),
			 "12.31 ms (band 12.10-12.58 ms, 5 repeats)");
	ck_assert_str_eq(hd_band_fmt(s, sizeof s, b.median, &b, HD_BAND_SHORT),
			 "12.31 ms (12.10-12.58 over 5 repeats)");
	ck_assert_str_eq(hd_band_range(s, sizeof s, &b, true), "12.10-12.58 ms");
}
END_TEST

/* An even count: the median and quartiles between two values, rounded to
 * the picosecond; a narrow band gets the decimals that tell its ends apart. */
START_TEST(band_even_count)
{
	const hd_time v[] = { 4, 1, 3, 2 }, w[] = { 100 * HD_US, 100 * HD_US + 3 * HD_NS };
	struct hd_band b;
	char s[96];

	ck_assert_int_eq(hd_band_of(v, 4, &b), 0);
	ck_assert_int_eq(b.min, 1);
	ck_assert_int_eq(b.max, 4);
	ck_assert_int_eq(b.median, 3); /* 2.5 ps, rounded up */
	ck_assert_int_eq(b.q1, 2);     /* 1.75 ps */
	ck_assert_int_eq(b.q3, 3);     /* 3.25 ps */
	ck_assert_int_eq(b.iqr, 1);
	ck_assert_str_eq(hd_band_range(s, sizeof s, &b, true), "1-4 ps");
	ck_assert_int_eq(hd_band_of(w, 2, &b), 0);
	ck_assert_int_eq(b.median, 100 * HD_US + 1500);
	/* 100 us and 100.003 us: three more decimals than "100 us" */
	ck_assert_str_eq(hd_band_fmt(s, sizeof s, w[0], &b, HD_BAND_LONG),
			 "100.000 us (band 100.000-100.003 us, 2 repeats)");
	/* the largest times a store holds: no step overflows */
	{
		const hd_time big[] = { ((hd_time)1 << 62) - 1, 0 };

		ck_assert_int_eq(hd_band_of(big, 2, &b), 0);
		ck_assert_int_eq(b.median, ((hd_time)1 << 61));
		ck_assert_int_eq(b.q3, 3 * ((hd_time)1 << 60) - 1); /* 3 x 2^60 - 0.75 */
	}
}
END_TEST

/* One repeat: a band of width 0, shown as one repeat; none: no band. */
START_TEST(band_one_repeat_and_none)
{
	const hd_time v[] = { 2 * HD_MS };
	struct hd_band b;
	char s[96];

	ck_assert_int_eq(hd_band_of(v, 1, &b), 0);
	ck_assert_int_eq(b.n, 1);
	ck_assert_int_eq(b.min, b.max);
	ck_assert_int_eq(b.median, 2 * HD_MS);
	ck_assert_int_eq(b.iqr, 0);
	ck_assert(hd_band_holds(&b, 2 * HD_MS));
	ck_assert_str_eq(hd_band_fmt(s, sizeof s, 2 * HD_MS, &b, HD_BAND_LONG),
			 "2.00 ms (1 repeat)");
	ck_assert_int_eq(hd_band_of(v, 0, &b), -1);
	ck_assert_int_eq(b.n, 0);
	ck_assert_int_eq(hd_band_of(NULL, 3, &b), -1);
	ck_assert_int_eq(hd_band_of(v, HD_BAND_MAX + 1, &b), -1);
	ck_assert(!hd_band_holds(&b, 0));
	ck_assert_str_eq(hd_band_fmt(s, sizeof s, 2 * HD_MS, &b, HD_BAND_LONG), "2.00 ms");
	ck_assert_str_eq(hd_band_range(s, sizeof s, &b, true), "");
}
END_TEST

START_TEST(err_format)
{
	struct hd_err e = { 0 };
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	hd_err_set(&e, HD_EXIT_INPUT, "a.hds:3:7", "expected %s", "a size");
	snprintf(e.context, sizeof e.context, "copy h -> d 5x\n      ^");
	hd_err_print(&e, f);
	fclose(f);
	ck_assert_str_eq(out, "a.hds:3:7: error: expected a size\ncopy h -> d 5x\n      ^\n");
	ck_assert_int_eq(e.status, 2);
	free(out);
}
END_TEST

START_TEST(buf_json)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_buf_json_str(&b, "a\"b\\c\n\x01");
	ck_assert_str_eq(b.s, "\"a\\\"b\\\\c\\n\\u0001\"");
	hd_buf_free(&b);
	hd_buf_free(&b);
}
END_TEST

static Suite *
units_suite(void)
{
	Suite *s = suite_create("units");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, parse_sizes);
	tcase_add_test(tc, parse_other_dims);
	tcase_add_test(tc, format);
	tcase_add_test(tc, time_for_bytes_exact);
	tcase_add_test(tc, time_arithmetic_saturates);
	tcase_add_test(tc, band_odd_count);
	tcase_add_test(tc, band_even_count);
	tcase_add_test(tc, band_one_repeat_and_none);
	tcase_add_test(tc, err_format);
	tcase_add_test(tc, buf_json);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(units_suite());
}
