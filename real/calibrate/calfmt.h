/*
 * calfmt.h - what the calibration parts share to write their log and set
 * the profile's figures: units for the log, rounding of fitted figures, and
 * the summary line each figure set leaves ("key  value (base old) how").
 *
 * Used by every file of the calibration (calib_priv.h), one GPU's and the
 * links' and NCCL's alike, so all round and report alike.
 */
#ifndef HD_CALFMT_H
#define HD_CALFMT_H

#include <stddef.h>

#include "base/units.h"
#include "base/util.h"

/* Seconds, bytes and bytes/s as the log writes them ("1.23 ms", "64 MiB"). */
char *hd_cal_ftime(char *b, size_t n, double s);
char *hd_cal_fbytes(char *b, size_t n, double bytes);
char *hd_cal_frate(char *b, size_t n, double bps);

/* 4 significant digits, so a profile file reads "55.23 GB/s"; non-positive
 * and non-finite values come back unchanged. */
double hd_cal_round_sig(double v);
/* Seconds to picoseconds, rounded to 10 ns. */
hd_time hd_cal_to_time(double s);

/*
 * Set a figure of the profile being written and append its summary line to
 * `sum`; a value that is not usable (not finite, or not positive for rates)
 * keeps the old one and says so.
 */
void hd_cal_set_rate(struct hd_buf *sum, const char *key, double *f, double v, const char *how);
void hd_cal_set_time(struct hd_buf *sum, const char *key, hd_time *f, double s, const char *how);
void hd_cal_set_int(struct hd_buf *sum, const char *key, int *f, int v, const char *how);

/* Has the user asked to stop (*stop set, stop may be NULL)?  -1 with e saying
 * "calibration interrupted", else 0: checked between measurements. */
int hd_cal_check_stop(volatile int *stop, struct hd_err *e);

#endif
