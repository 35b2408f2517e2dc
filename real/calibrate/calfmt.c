/*
 * calfmt.c - units, rounding and summary lines of the calibration log.
 */
#include <math.h>
#include <stdint.h>

#include "real/calibrate/calfmt.h"

char *
hd_cal_ftime(char *b, size_t n, double s)
{
	return hd_fmt_time(b, n, (hd_time)llround(s * 1e12));
}

char *
hd_cal_fbytes(char *b, size_t n, double bytes)
{
	return hd_fmt_bytes(b, n, (uint64_t)bytes);
}

char *
hd_cal_frate(char *b, size_t n, double bps)
{
	return hd_fmt_rate(b, n, bps);
}

double
hd_cal_round_sig(double v)
{
	double m;

	if (!(v > 0) || !isfinite(v))
		return v;
	m = pow(10, floor(log10(v)) - 3);
	return round(v / m) * m;
}

hd_time
hd_cal_to_time(double s)
{
	return (hd_time)llround(s * 1e8) * 10 * HD_NS;
}

void
hd_cal_set_rate(struct hd_buf *sum, const char *key, double *f, double v, const char *how)
{
	char a[32], b[32];

	if (!(v > 0) || !isfinite(v)) {
		hd_buf_printf(sum,
			      "  %-20s %-14s kept (the measurement gave no usable "
			      "value)\n",
			      key, hd_cal_frate(a, sizeof a, *f));
		return;
	}
	v = hd_cal_round_sig(v);
	hd_buf_printf(sum, "  %-20s %-14s (base %s) %s\n", key, hd_cal_frate(b, sizeof b, v),
		      hd_cal_frate(a, sizeof a, *f), how);
	*f = v;
}

void
hd_cal_set_time(struct hd_buf *sum, const char *key, hd_time *f, double s, const char *how)
{
	char a[32], b[32];

	if (!(s >= 0) || !isfinite(s)) {
		hd_buf_printf(sum,
			      "  %-20s %-14s kept (the measurement gave no usable "
			      "value)\n",
			      key, hd_fmt_time(a, sizeof a, *f));
		return;
	}
	hd_buf_printf(sum, "  %-20s %-14s (base %s) %s\n", key,
		      hd_fmt_time(b, sizeof b, hd_cal_to_time(s)), hd_fmt_time(a, sizeof a, *f),
		      how);
	*f = hd_cal_to_time(s);
}

void
hd_cal_set_int(struct hd_buf *sum, const char *key, int *f, int v, const char *how)
{
	hd_buf_printf(sum, "  %-20s %-14d (base %d) %s\n", key, v, *f, how);
	*f = v;
}

int
hd_cal_check_stop(volatile int *stop, struct hd_err *e)
{
	if (stop != NULL && *stop) {
		hd_err_set(e, HD_EXIT_FAIL, "", "calibration interrupted");
		return -1;
	}
	return 0;
}
