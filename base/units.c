/*
 * units.c - unit suffixes, quantity parsing and human-readable formatting.
 *
 * One table of suffixes serves the lesson language, profile files and
 * `--set`, so "64MiB" means the same everywhere.  Formatting picks the unit
 * that keeps 1 to 3 digits before the point.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"

struct unit {
	const char *name;
	enum hd_dim dim;
	double factor;
};

static const struct unit units[] = {
	{ "", HD_DIM_NONE, 1 },
	{ "%", HD_DIM_PERCENT, 0.01 },

	{ "B", HD_DIM_BYTES, 1 },
	{ "KB", HD_DIM_BYTES, 1e3 },
	{ "MB", HD_DIM_BYTES, 1e6 },
	{ "GB", HD_DIM_BYTES, 1e9 },
	{ "TB", HD_DIM_BYTES, 1e12 },
	{ "KiB", HD_DIM_BYTES, 1024.0 },
	{ "MiB", HD_DIM_BYTES, 1024.0 * 1024 },
	{ "GiB", HD_DIM_BYTES, 1024.0 * 1024 * 1024 },
	{ "TiB", HD_DIM_BYTES, 1024.0 * 1024 * 1024 * 1024 },

	{ "ps", HD_DIM_TIME, 1 },
	{ "ns", HD_DIM_TIME, 1e3 },
	{ "us", HD_DIM_TIME, 1e6 },
	{ "\xc2\xb5s", HD_DIM_TIME, 1e6 }, /* µs */
	{ "ms", HD_DIM_TIME, 1e9 },
	{ "s", HD_DIM_TIME, 1e12 },

	{ "B/s", HD_DIM_RATE, 1 },
	{ "KB/s", HD_DIM_RATE, 1e3 },
	{ "MB/s", HD_DIM_RATE, 1e6 },
	{ "GB/s", HD_DIM_RATE, 1e9 },
	{ "TB/s", HD_DIM_RATE, 1e12 },
	{ "KiB/s", HD_DIM_RATE, 1024.0 },
	{ "MiB/s", HD_DIM_RATE, 1024.0 * 1024 },
	{ "GiB/s", HD_DIM_RATE, 1024.0 * 1024 * 1024 },

	{ "FLOP", HD_DIM_FLOP, 1 },
	{ "KFLOP", HD_DIM_FLOP, 1e3 },
	{ "MFLOP", HD_DIM_FLOP, 1e6 },
	{ "GFLOP", HD_DIM_FLOP, 1e9 },
	{ "TFLOP", HD_DIM_FLOP, 1e12 },
	{ "PFLOP", HD_DIM_FLOP, 1e15 },

	{ "FLOP/s", HD_DIM_FLOPS, 1 },
	{ "GFLOP/s", HD_DIM_FLOPS, 1e9 },
	{ "TFLOP/s", HD_DIM_FLOPS, 1e12 },
	{ "PFLOP/s", HD_DIM_FLOPS, 1e15 },
	{ "GFLOPS", HD_DIM_FLOPS, 1e9 },
	{ "TFLOPS", HD_DIM_FLOPS, 1e12 },
	{ "PFLOPS", HD_DIM_FLOPS, 1e15 },
};

static const char *const dim_names[] = {
	[HD_DIM_NONE] = "a plain number",
	[HD_DIM_BYTES] = "a size",
	[HD_DIM_TIME] = "a time",
	[HD_DIM_RATE] = "a rate",
	[HD_DIM_FLOP] = "an amount of work (FLOP)",
	[HD_DIM_FLOPS] = "a compute rate (FLOP/s)",
	[HD_DIM_PERCENT] = "a percentage",
};

int
hd_unit_lookup(const char *suffix, size_t len, enum hd_dim *dim, double *factor)
{
	size_t i;

	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strlen(units[i].name) == len && memcmp(units[i].name, suffix, len) == 0) {
			*dim = units[i].dim;
			*factor = units[i].factor;
			return 1;
		}
	}
	return 0;
}

const char *
hd_dim_name(enum hd_dim dim)
{
	if ((unsigned)dim >= sizeof dim_names / sizeof dim_names[0])
		return "a quantity";
	return dim_names[dim];
}

int
hd_quantity_parse(const char *s, enum hd_dim *dim, double *value)
{
	const char *end;
	char *num_end;
	double v, factor;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s) && *s != '.' && *s != '-' && *s != '+')
		return 0;
	v = strtod(s, &num_end);
	if (num_end == s || !isfinite(v))
		return 0;
	s = num_end;
	while (*s == ' ')
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (!hd_unit_lookup(s, (size_t)(end - s), dim, &factor))
		return 0;
	*value = v * factor;
	return isfinite(*value);
}

int
hd_fmt_decimals(double x)
{
	double ax = fabs(x);

	return ax >= 100 ? 0 : ax >= 10 ? 1 : ax >= 1 ? 2 : 3;
}

/* Format v / scale with 3 significant digits (up to 3 decimals), then unit. */
static char *
fmt_scaled(char *buf, size_t n, double v, double scale, const char *unit)
{
	double x = v / scale;

	snprintf(buf, n, "%.*f %s", hd_fmt_decimals(x), x, unit);
	return buf;
}

const char *
hd_time_unit(double ps, double *scale)
{
	static const struct {
		double scale;
		const char *unit;
	} steps[] = {
		{ 1e12, "s" }, { 1e9, "ms" }, { 1e6, "us" }, { 1e3, "ns" }, { 1, "ps" },
	};
	double a = fabs(ps);
	size_t i;

	for (i = 0; i + 1 < sizeof steps / sizeof steps[0] && a < steps[i].scale; i++)
		;
	*scale = steps[i].scale;
	return steps[i].unit;
}

char *
hd_fmt_time(char *buf, size_t n, hd_time t)
{
	double scale;
	const char *unit = hd_time_unit((double)t, &scale);

	if (t == 0)
		snprintf(buf, n, "0 s");
	else if (scale == 1)
		snprintf(buf, n, "%lld ps", (long long)t);
	else
		fmt_scaled(buf, n, (double)t, scale, unit);
	return buf;
}

char *
hd_fmt_bytes(char *buf, size_t n, uint64_t b)
{
	static const char *const names[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)b;
	int i = -1;

	if (b < 1024) {
		snprintf(buf, n, "%llu B", (unsigned long long)b);
		return buf;
	}
	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (v == floor(v))
		snprintf(buf, n, "%.0f %s", v, names[i]);
	else
		snprintf(buf, n, "%.*f %s", v >= 100 ? 0 : v >= 10 ? 1 : 2, v, names[i]);
	return buf;
}

char *
hd_fmt_rate(char *buf, size_t n, double bps)
{
	if (bps >= 1e12)
		return fmt_scaled(buf, n, bps, 1e12, "TB/s");
	if (bps >= 1e9)
		return fmt_scaled(buf, n, bps, 1e9, "GB/s");
	if (bps >= 1e6)
		return fmt_scaled(buf, n, bps, 1e6, "MB/s");
	if (bps >= 1e3)
		return fmt_scaled(buf, n, bps, 1e3, "KB/s");
	return fmt_scaled(buf, n, bps, 1, "B/s");
}

char *
hd_fmt_flops(char *buf, size_t n, double f)
{
	if (f >= 1e15)
		return fmt_scaled(buf, n, f, 1e15, "PFLOP/s");
	if (f >= 1e12)
		return fmt_scaled(buf, n, f, 1e12, "TFLOP/s");
	if (f >= 1e9)
		return fmt_scaled(buf, n, f, 1e9, "GFLOP/s");
	return fmt_scaled(buf, n, f, 1, "FLOP/s");
}

hd_time
hd_time_from_ps(double ps)
{
	if (ps != ps)
		return 0;
	if (ps >= (double)HD_TIME_DUR_MAX)
		return HD_TIME_DUR_MAX;
	if (ps <= -(double)HD_TIME_DUR_MAX)
		return -HD_TIME_DUR_MAX;
	return (hd_time)llround(ps);
}

hd_time
hd_time_from_s(double s)
{
	return hd_time_from_ps(s * 1e12);
}

hd_time
hd_time_mul(hd_time a, uint64_t n)
{
	if (a <= 0 || n == 0)
		return 0;
	if (n > (uint64_t)(HD_TIME_DUR_MAX / a))
		return HD_TIME_DUR_MAX;
	return a * (hd_time)n;
}

hd_time
hd_time_add(hd_time a, hd_time b)
{
	if (a < 0)
		a = 0;
	if (b < 0)
		b = 0;
	if (a >= HD_TIME_DUR_MAX || b >= HD_TIME_DUR_MAX - a)
		return HD_TIME_DUR_MAX;
	return a + b;
}

double
hd_time_to_s(hd_time t)
{
	return (double)t / 1e12;
}

hd_time
hd_time_for_bytes(double bytes, double rate)
{
	if (bytes <= 0)
		return 0;
	if (!(rate > 0))
		return HD_TIME_DUR_MAX;
	/* bytes * 1e12 first: exact for power-of-two sizes and round rates */
	return hd_time_from_ps(ceil(bytes * 1e12 / rate));
}

char *
hd_fmt_flop(char *buf, size_t n, double f)
{
	static const char *const pre[] = { "", "K", "M", "G", "T", "P" };
	size_t i = 0;

	while (i + 1 < sizeof pre / sizeof pre[0] && f >= 1000) {
		f /= 1000;
		i++;
	}
	snprintf(buf, n, "%.4g %sFLOP", f, pre[i]);
	return buf;
}

char *
hd_fmt_quantity(char *buf, size_t n, enum hd_dim d, double v)
{
	switch (d) {
	case HD_DIM_BYTES:
		if (v >= 0 && v < 1.8e19)
			return hd_fmt_bytes(buf, n, (uint64_t)v);
		snprintf(buf, n, "%g B", v);
		return buf;
	case HD_DIM_TIME:
		return hd_fmt_time(buf, n, hd_time_from_ps(v));
	case HD_DIM_RATE:
		return hd_fmt_rate(buf, n, v);
	case HD_DIM_FLOP:
		return hd_fmt_flop(buf, n, v);
	case HD_DIM_FLOPS:
		return hd_fmt_flops(buf, n, v);
	case HD_DIM_PERCENT:
		snprintf(buf, n, "%g%%", v * 100);
		return buf;
	case HD_DIM_NONE:
		break;
	}
	snprintf(buf, n, "%g", v);
	return buf;
}
