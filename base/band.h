/*
 * band.h - the spread of a measurement over its repeats: min, quartiles,
 * median and max of a few times, and the text that shows a measured value
 * with its band ("12.31 ms (band 12.10-12.58 ms, 5 repeats)").
 *
 * A measured makespan is one of several repeats; the band says how far the
 * repeats went, so a prediction can be called inside or outside what the
 * machine itself did.  Quartiles interpolate between the sorted values
 * (the (n - 1) p rule, numpy's default), so the median of an even count is
 * the mean of the middle two, and one repeat is a band of width 0.
 */
#ifndef HD_BAND_H
#define HD_BAND_H

#include <stdbool.h>
#include <stddef.h>

#include "base/units.h"

/* The most values hd_band_of takes: a repeat count far beyond any run's. */
#define HD_BAND_MAX 100000

struct hd_band {
	int n;            /* how many values (repeats); 0: no band */
	hd_time min, max; /* the extremes */
	hd_time q1, median, q3;
	hd_time iqr; /* q3 - q1 */
};

/*
 * The band of v[0..n) (any order; v is not changed; negative times are
 * allowed, every |v| below 2^62).  Returns 0 with *out filled, or -1 with
 * *out zeroed (n 0 included) when n is not 1 .. HD_BAND_MAX.  Costs a copy
 * and a sort of n values.
 */
int hd_band_of(const hd_time *v, int n, struct hd_band *out);

/* Is x within the band, min <= x <= max?  False for an empty band. */
bool hd_band_holds(const struct hd_band *b, hd_time x);

/* How the value and its band are written. */
enum hd_band_style {
	HD_BAND_LONG,  /* "12.31 ms (band 12.10-12.58 ms, 5 repeats)" */
	HD_BAND_SHORT, /* "12.31 ms (12.10-12.58 over 5 repeats)" */
	HD_BAND__COUNT
};

/*
 * The band's min and max in one unit, with the decimals that tell them
 * apart (at most three more than the unit's usual): "12.10-12.58 ms";
 * with_unit false leaves the unit off ("12.10-12.58").  Writes into buf
 * (size n) and returns buf; "" for an empty band.
 */
char *hd_band_range(char *buf, size_t n, const struct hd_band *b, bool with_unit);

/*
 * value with its band in style st, value in the band's unit and decimals.
 * One repeat has no band to show: "12.31 ms (1 repeat)"; an empty band
 * gives the value alone, as hd_fmt_time writes it.  Writes into buf (size
 * n) and returns buf.
 */
char *hd_band_fmt(char *buf, size_t n, hd_time value, const struct hd_band *b,
		  enum hd_band_style st);

#endif
