/*
 * fit.h - the arithmetic of `hdsim calibrate`: robust statistics of repeated
 * timings, the t = alpha + n / beta line, and the model's pageable staging
 * pipeline fitted to measured times.
 *
 * Pure C with no CUDA, so every figure a calibration derives from its raw
 * timings is tested without a GPU.  Times are seconds, sizes bytes (or FLOP),
 * rates per second.  Degenerate input fails with e set, never with a NaN.
 */
#ifndef HD_FIT_H
#define HD_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* Order statistics of one set of samples. */
struct hd_stats {
	size_t n;
	double median;
	double q1, q3, iqr; /* quartiles by linear interpolation (numpy's default) */
	double min, max;
};

/* Sort a copy of v[0..n) and fill *st.  -1 with e set when n is 0 or a sample
 * is not a finite number. */
int hd_fit_stats(const double *v, size_t n, struct hd_stats *st, struct hd_err *e);
/* The q-quantile (0 <= q <= 1) of sorted[0..n), n >= 1, interpolated. */
double hd_fit_quantile(const double *sorted, size_t n, double q);
/* The mean of v[0..n), n >= 1, without its `drop` largest values (fewer
 * than n); v is not changed. */
double hd_fit_mean_low(const double *v, size_t n, size_t drop);

/*
 * Weighted least squares of y = a + s x over n points (w NULL: equal
 * weights).  -1 with e set with fewer than two distinct x (zero variance),
 * non-finite input or weights that are not positive.
 */
int hd_fit_ls(const double *x, const double *y, const double *w, size_t n, double *a, double *s,
	      struct hd_err *e);

/* A fitted t(n) = alpha + n / beta and how well it fits. */
struct hd_fit {
	double alpha;         /* fixed time per operation, s (>= 0) */
	double beta;          /* rate, units of n per second */
	double max_rel;       /* max over every point of |t - fit| / t */
	double rms_rel;       /* root mean square of the same */
	int n_large;          /* points that set beta */
	int n_small;          /* points that set alpha (0: see alpha_from_large) */
	int alpha_from_large; /* no small points: alpha is the large fit's intercept */
	int alpha_clamped;    /* alpha came out negative and was set to 0 */
};

/*
 * Fit t = alpha + n / beta in two steps, so neither end of a sweep over many
 * decades swamps the other: beta is the least-squares slope over the points
 * with n >= large_min (falling back to those with n > small_max, then to
 * all points, when fewer than two distinct sizes are that large); alpha is
 * then the least-squares intercept with that slope held fixed, over the
 * points with n <= small_max: the mean of t - n / beta (the large fit's own
 * intercept when there are none), clamped at 0.  The residuals are over
 * every point.  -1 with e set on degenerate input or a slope that is not
 * positive (time that does not grow with size).
 */
int hd_fit_alpha_beta(const double *n, const double *t, size_t count, double small_max,
		      double large_min, struct hd_fit *f, struct hd_err *e);

/*
 * The model's pageable copy (model.c, op_copy_staged): the CPU copies chunks
 * of `chunk` bytes at the direction's memcpy rate through `buffers` pinned
 * staging buffers in turn, and a copy engine moves each chunk (latency, then
 * the link rate).
 * HtoD: memcpy a chunk into a free buffer, then its DMA; the call returns
 * after the last memcpy.  DtoH: DMAs fill the buffers, each memcpy out frees
 * one for the next DMA; the call returns after the last memcpy.
 */
struct hd_staging {
	double memcpy_bw[2];   /* host_memcpy_h2d_bw (into staging), host_memcpy_d2h_bw (out) */
	double h2d_bw, d2h_bw; /* pinned DMA rates (already capped by bidir) */
	double latency;        /* copy_latency, s */
	double chunk;          /* staging_chunk, bytes */
	int buffers;           /* staging_buffers */
	double api;      /* api_memcpy and api_memcpy_pageable, s: the submit before the pipeline */
	double api_sync; /* a sync that finds nothing to wait for, s */
	double wake;     /* sync_wake, s */
	/* A copy of at most `cache` bytes (0: none) runs at hot_bw[d] instead of
	 * memcpy_bw[d] where that is set: the profile's host.cache and _hot rates. */
	double hot_bw[2];
	double cache;
};

/*
 * Host times of cudaMemcpyAsync of n bytes from (d2h 0) or to (d2h 1)
 * pageable memory on an idle stream, then cudaStreamSynchronize, as the
 * model times them: *call when the copy call returns, *total when the sync
 * returns (either may be NULL).
 */
void hd_staging_times(const struct hd_staging *p, int d2h, double n, double *call, double *total);

struct hd_staging_fit {
	double memcpy_bw[2];               /* best memcpy rate per direction (0 HtoD, 1 DtoH) */
	int points[2];                     /* points per direction (none: base's rate kept) */
	double chunk;                      /* best staging_chunk */
	int buffers;                       /* best staging_buffers */
	double rms_rel, max_rel;           /* of the best fit */
	double base_rms_rel, base_max_rel; /* memcpy_bw refitted, chunk and buffers kept */
	double base_memcpy_bw[2];          /* that refit's memcpy rates */
	int shape_fitted; /* 1: the data chose chunk and buffers; 0: kept the base's */
	int at_top[2];    /* the direction's rate sits at the search's top: its
			   * copies ran no slower than the rest of the pipeline
			   * allows and determine no memcpy rate (keep the base's) */
};

/*
 * Fit the pipeline above to measured totals t[i] of copies of n[i] bytes in
 * direction d2h[i].  `base` gives every fixed figure, the memcpy rate of a
 * direction without points, and the chunk and buffer count to keep when the
 * data do not decide them.  Each direction's memcpy rate is searched over
 * 0.1 GB/s .. 1 TB/s on that direction's points, for each chunk (64 KiB ..
 * 64 MiB, powers of two) and buffer count (1 .. 4) shared by both,
 * minimising the squared log ratios of model to measurement.  The chunk and
 * buffer count are taken from the data (shape_fitted) only when they cut the
 * rms error by a fifth or more and the base shape is off by more than 2 %;
 * otherwise the base's are kept and the rates are the refit with them.  A
 * rate within half a search step of 1 TB/s is flagged at_top.  -1
 * with e set when there are no usable points.
 */
int hd_fit_staging(const double *n, const double *t, const int *d2h, size_t count,
		   const struct hd_staging *base, struct hd_staging_fit *f, struct hd_err *e);

/*
 * Total rate of both directions at once, from copies of `bytes` each way
 * started together that ended after t_h2d and t_d2h seconds, given each
 * direction's rate alone.  The direction that ends last ran alone at its
 * solo rate after the other finished; the rest of its bytes moved while
 * both ran.  -1 with e set on times or rates that are not positive.
 */
int hd_fit_bidir(double bytes, double t_h2d, double t_d2h, double solo_h2d, double solo_d2h,
		 double *total, struct hd_err *e);

/*
 * Split the extra seconds per byte a kernel pays for demand faults on
 * managed memory into the model's two figures, so that
 * fault / page + 1 / bw == per_byte: keep base_fault per fault group when
 * that leaves a migration rate no faster than the link (returns 0); else
 * migrate at the link rate and put the rest in the per-group cost (returns
 * 1), which is 0 when even the link alone is slower than measured (bw is
 * then 1 / per_byte).  -1 with e set on input that is not positive.
 */
int hd_fit_um(double per_byte, double page, double base_fault, double link_bw, double *fault,
	      double *bw, struct hd_err *e);

/*
 * The copy engine's fixed cost per copy from back-to-back copies issued live:
 * sizes n[i] took done[i] seconds per copy while the host's calls took
 * issue[i] each.  A size whose calls took at least 90 % of the copy's time
 * was paced by the host and only bounds the engine's cost, so it is left
 * out; *alpha is the mean of done - n / rate over the others.  Returns the
 * number of sizes used (0: the host paced every one, *alpha untouched).
 */
int hd_fit_live_latency(const double *n, const double *done, const double *issue, size_t count,
			double rate, double *alpha);

/* CUDA graphs, fitted against their node count. */
struct hd_fit_graph {
	double launch;      /* host seconds inside one cudaGraphLaunch: the intercept (>= 0) */
	double launch_node; /* host seconds the call adds per node: the slope */
	double node;        /* GPU seconds per node: the slope of the GPU's time (> 0) */
	double fixed;       /* GPU seconds per launch beyond its nodes: that intercept */
	double max_rel;     /* the GPU fit's worst |time - fit| / time */
	int launch_clamped; /* the host's intercept came out negative and was set to 0 */
};

/*
 * Graphs of nodes[i] kernels: one cudaGraphLaunch call took host[i] seconds
 * on the host, and the GPU ran one launch in gpu[i] seconds.  Least squares
 * of both against the node count.  -1 with e set with fewer than two
 * distinct node counts, input that is not finite, or a GPU time that does
 * not grow with the nodes.
 */
int hd_fit_graph(const double *nodes, const double *host, const double *gpu, size_t count,
		 struct hd_fit_graph *f, struct hd_err *e);

#endif
