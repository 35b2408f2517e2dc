/*
 * band.c - the spread of a measurement over its repeats (see band.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/band.h"
#include "base/util.h"

static int
cmp_time(const void *a, const void *b)
{
	hd_time x = *(const hd_time *)a, y = *(const hd_time *)b;

	return x < y ? -1 : x > y;
}

/* The quantile k/4 of sorted v[0..n), interpolated between neighbours and
 * rounded to the nearest picosecond; no step can overflow for |v| < 2^62. */
static hd_time
quartile(const hd_time *v, int n, int k)
{
	int h4 = (n - 1) * k, i = h4 / 4, rem = h4 % 4;
	hd_time d;

	if (rem == 0)
		return v[i];
	d = v[i + 1] - v[i];
	return v[i] + (d / 4) * rem + ((d % 4) * rem + 2) / 4;
}

int
hd_band_of(const hd_time *v, int n, struct hd_band *out)
{
	hd_time *s;

	memset(out, 0, sizeof *out);
	if (v == NULL || n < 1 || n > HD_BAND_MAX)
		return -1;
	s = hd_xmalloc((size_t)n * sizeof *s);
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_time);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->q1 = quartile(s, n, 1);
	out->median = quartile(s, n, 2);
	out->q3 = quartile(s, n, 3);
	out->iqr = out->q3 - out->q1;
	free(s);
	return 0;
}

bool
hd_band_holds(const struct hd_band *b, hd_time x)
{
	return b != NULL && b->n > 0 && b->min <= x && x <= b->max;
}

/* The unit and decimals that write b's min and max apart: the unit of the
 * larger, its usual three significant digits, then more decimals (up to
 * three) until the width shows two digits. */
static const char *
band_unit(const struct hd_band *b, double *scale, int *decimals)
{
	double big = fmax(fabs((double)b->min), fabs((double)b->max)), width;
	const char *unit = hd_time_unit(big, scale);
	int more;

	*decimals = *scale == 1 ? 0 : hd_fmt_decimals(big / *scale);
	width = (double)(b->max - b->min) / *scale;
	for (more = 0; more < 3 && *scale > 1 && width > 0 && width * pow(10, *decimals) < 10;
	     more++)
		(*decimals)++;
	return unit;
}

char *
hd_band_range(char *buf, size_t n, const struct hd_band *b, bool with_unit)
{
	const char *unit;
	double scale;
	int d;

	if (b == NULL || b->n < 1) {
		if (n > 0)
			buf[0] = '\0';
		return buf;
	}
	unit = band_unit(b, &scale, &d);
	snprintf(buf, n, "%.*f-%.*f%s%s", d, (double)b->min / scale, d, (double)b->max / scale,
		 with_unit ? " " : "", with_unit ? unit : "");
	return buf;
}

char *
hd_band_fmt(char *buf, size_t n, hd_time value, const struct hd_band *b, enum hd_band_style st)
{
	static const char *const forms[HD_BAND__COUNT] = {
		[HD_BAND_LONG] = "%.*f %s (band %s, %d repeats)",
		[HD_BAND_SHORT] = "%.*f %s (%s over %d repeats)",
	};
	char range[64];
	const char *unit;
	double scale;
	int d;

	if (b == NULL || b->n < 1 || (unsigned)st >= HD_BAND__COUNT)
		return hd_fmt_time(buf, n, value);
	unit = band_unit(b, &scale, &d);
	if (b->n == 1) {
		snprintf(buf, n, "%.*f %s (1 repeat)", d, (double)value / scale, unit);
		return buf;
	}
	hd_band_range(range, sizeof range, b, st == HD_BAND_LONG);
	snprintf(buf, n, forms[st], d, (double)value / scale, unit, range, b->n);
	return buf;
}
