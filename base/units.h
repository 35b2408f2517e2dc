/*
 * units.h - the quantities hdsim deals in, and their text forms.
 *
 * Time is an integer count of picoseconds (hd_time): fine enough for a
 * 16-byte copy on NVLink, wide enough (int64) for 106 days.  Sizes are bytes
 * in uint64_t.  Rates are double bytes (or FLOP) per second.  Text always
 * uses 10^9 for GB/s and 2^30 for GiB, the convention of nvbandwidth and
 * nccl-tests.
 */
#ifndef HD_UNITS_H
#define HD_UNITS_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t hd_time; /* picoseconds */

#define HD_PS       ((hd_time)1)
#define HD_NS       ((hd_time)1000)
#define HD_US       ((hd_time)1000000)
#define HD_MS       ((hd_time)1000000000)
#define HD_S        ((hd_time)1000000000000)
#define HD_TIME_MAX INT64_MAX
/*
 * The model's time arithmetic cannot overflow: a run may reach at most
 * HD_TIME_RUN_MAX (2^61 ps, about 26.7 days), and one duration computed
 * from sizes, rates and work saturates at HD_TIME_DUR_MAX (2^62 ps), so a
 * time within the run plus a duration always fits in an hd_time.  A run that
 * would go past HD_TIME_RUN_MAX is stopped with an error naming the op.
 */
#define HD_TIME_RUN_MAX ((hd_time)1 << 61)
#define HD_TIME_DUR_MAX ((hd_time)1 << 62)

/* What a number with a unit suffix means. */
enum hd_dim {
	HD_DIM_NONE,    /* a plain number: counts, factors */
	HD_DIM_BYTES,   /* B KB MB GB TB (10^3) KiB MiB GiB TiB (2^10) */
	HD_DIM_TIME,    /* ps ns us µs ms s */
	HD_DIM_RATE,    /* B/s KB/s MB/s GB/s TB/s KiB/s ... GiB/s */
	HD_DIM_FLOP,    /* FLOP KFLOP MFLOP GFLOP TFLOP PFLOP */
	HD_DIM_FLOPS,   /* FLOP/s ... TFLOP/s, and "TFLOPS" */
	HD_DIM_PERCENT, /* % */
};

/*
 * Look up a unit suffix such as "MiB", "us", "GB/s".  On success stores the
 * dimension and the factor that turns the number into base units (bytes,
 * picoseconds, bytes/s, FLOP, FLOP/s, fraction) and returns 1; returns 0 for
 * an unknown suffix.  The empty suffix is HD_DIM_NONE with factor 1.
 */
int hd_unit_lookup(const char *suffix, size_t len, enum hd_dim *dim, double *factor);
/* The name of a dimension, for messages: "a size", "a time" ... */
const char *hd_dim_name(enum hd_dim dim);

/*
 * Parse a whole string "256MiB", "1.5 ms", "55GB/s", "3".  Returns 1 and sets
 * *dim and *value (base units) or returns 0 when the text is not a number
 * with a known unit.
 */
int hd_quantity_parse(const char *s, enum hd_dim *dim, double *value);

/* The unit a time of |ps| picoseconds is written in: the largest of s, ms,
 * us, ns not above it, else ps; its picoseconds per unit in *scale. */
const char *hd_time_unit(double ps, double *scale);
/* The decimals a value already in its unit is written with: three
 * significant digits, at most three decimals (as every hd_fmt_* below). */
int hd_fmt_decimals(double x);

/* Text forms for output.  All write into buf (size n) and return buf. */
char *hd_fmt_time(char *buf, size_t n, hd_time t);   /* "1.234 ms" */
char *hd_fmt_bytes(char *buf, size_t n, uint64_t b); /* "256 MiB", "1.5 KiB", "17 B" */
char *hd_fmt_rate(char *buf, size_t n, double bps);  /* "52.3 GB/s" */
char *hd_fmt_flops(char *buf, size_t n, double f);   /* "67 TFLOP/s" */
char *hd_fmt_flop(char *buf, size_t n, double f);    /* work: "40 GFLOP" */
/* A value of dimension d in its unit, as knobs and estimates show it:
 * "256 MiB", "5.00 ms", "40 GFLOP", "25%", "8". */
char *hd_fmt_quantity(char *buf, size_t n, enum hd_dim d, double v);

/* Seconds <-> picoseconds, rounding to nearest; saturates at
 * +-HD_TIME_DUR_MAX. */
hd_time hd_time_from_s(double s);
/* Picoseconds held in a double (a scaled duration) as an hd_time, rounded,
 * saturating at +-HD_TIME_DUR_MAX; NaN is 0. */
hd_time hd_time_from_ps(double ps);
/* a * n for a duration and a count (both >= 0), saturating at HD_TIME_DUR_MAX. */
hd_time hd_time_mul(hd_time a, uint64_t n);
/* a + b for durations and times (both >= 0), saturating at HD_TIME_DUR_MAX. */
hd_time hd_time_add(hd_time a, hd_time b);
double hd_time_to_s(hd_time t);
/* Time to move `bytes` at `rate` bytes/s, rounded up to a whole picosecond;
 * saturates at HD_TIME_DUR_MAX (and a rate of 0 takes that long). */
hd_time hd_time_for_bytes(double bytes, double rate);

#endif
