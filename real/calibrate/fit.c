/*
 * fit.c - statistics and fits for `hdsim calibrate` (see fit.h).
 *
 * Nothing here touches a GPU: calibrate.c measures, this file turns raw
 * timings into profile figures, and the tests drive it with synthetic data.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "real/calibrate/fit.h"

#define FIT_WHERE "calibrate"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
all_finite(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

double
hd_fit_quantile(const double *sorted, size_t n, double q)
{
	double pos, frac;
	size_t lo;

	if (n == 0)
		return 0;
	if (q <= 0)
		return sorted[0];
	if (q >= 1)
		return sorted[n - 1];
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	if (lo + 1 >= n)
		return sorted[n - 1];
	frac = pos - (double)lo;
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

double
hd_fit_mean_low(const double *v, size_t n, size_t drop)
{
	double *s = hd_xmalloc(n * sizeof *s), sum = 0;
	size_t i, keep = drop < n ? n - drop : 1;

	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	for (i = 0; i < keep; i++)
		sum += s[i];
	free(s);
	return sum / (double)keep;
}

int
hd_fit_stats(const double *v, size_t n, struct hd_stats *st, struct hd_err *e)
{
	double *s;

	memset(st, 0, sizeof *st);
	if (n == 0) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "no samples to take a median of");
		return -1;
	}
	if (!all_finite(v, n)) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "a sample is not a finite number");
		return -1;
	}
	s = hd_xmalloc(n * sizeof *s);
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	st->n = n;
	st->min = s[0];
	st->max = s[n - 1];
	st->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	st->q1 = hd_fit_quantile(s, n, 0.25);
	st->q3 = hd_fit_quantile(s, n, 0.75);
	st->iqr = st->q3 - st->q1;
	free(s);
	return 0;
}

int
hd_fit_ls(const double *x, const double *y, const double *w, size_t n, double *a, double *s,
	  struct hd_err *e)
{
	double sw = 0, mx = 0, my = 0, sxx = 0, sxy = 0;
	size_t i;

	if (n < 2) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "a line needs at least two points (got %zu)",
			   n);
		return -1;
	}
	if (!all_finite(x, n) || !all_finite(y, n) || (w != NULL && !all_finite(w, n))) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "a point is not a finite number");
		return -1;
	}
	for (i = 0; i < n; i++) {
		double wi = w ? w[i] : 1;

		if (!(wi > 0)) {
			hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "weight %zu is not positive", i);
			return -1;
		}
		sw += wi;
		mx += wi * x[i];
		my += wi * y[i];
	}
	mx /= sw;
	my /= sw;
	for (i = 0; i < n; i++) {
		double wi = w ? w[i] : 1;

		sxx += wi * (x[i] - mx) * (x[i] - mx);
		sxy += wi * (x[i] - mx) * (y[i] - my);
	}
	/* Relative test: sizes spread over decades, so compare with the mean. */
	if (!(sxx > 1e-24 * sw * (mx * mx + 1))) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE,
			   "a line needs at least two distinct sizes (all %zu are %g)", n, mx);
		return -1;
	}
	*s = sxy / sxx;
	*a = my - *s * mx;
	return 0;
}

/* Indices of points with lo <= n <= hi into idx; returns how many. */
static size_t
select_range(const double *n, size_t count, double lo, double hi, size_t *idx)
{
	size_t i, k = 0;

	for (i = 0; i < count; i++)
		if (n[i] >= lo && n[i] <= hi)
			idx[k++] = i;
	return k;
}

static size_t
distinct(const double *n, const size_t *idx, size_t k)
{
	size_t i, j, d = 0;

	for (i = 0; i < k; i++) {
		for (j = 0; j < i; j++)
			if (n[idx[j]] == n[idx[i]])
				break;
		if (j == i)
			d++;
	}
	return d;
}

int
hd_fit_alpha_beta(const double *n, const double *t, size_t count, double small_max,
		  double large_min, struct hd_fit *f, struct hd_err *e)
{
	size_t *idx = NULL, k, i;
	double *x = NULL, *y = NULL, a, s, sum2 = 0;
	int rc = -1;

	memset(f, 0, sizeof *f);
	if (count < 2) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE,
			   "fitting t = alpha + n / beta needs at least two sizes (got %zu)",
			   count);
		return -1;
	}
	if (!all_finite(n, count) || !all_finite(t, count)) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "a point is not a finite number");
		return -1;
	}
	for (i = 0; i < count; i++)
		if (n[i] < 0 || !(t[i] > 0)) {
			hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE,
				   "point %zu has a negative size or a time that is not "
				   "positive",
				   i);
			return -1;
		}
	idx = hd_xmalloc(count * sizeof *idx);
	x = hd_xmalloc(count * sizeof *x);
	y = hd_xmalloc(count * sizeof *y);
	k = select_range(n, count, large_min, INFINITY, idx);
	if (distinct(n, idx, k) < 2)
		k = select_range(n, count, nextafter(small_max, INFINITY), INFINITY, idx);
	if (distinct(n, idx, k) < 2)
		k = select_range(n, count, -INFINITY, INFINITY, idx);
	for (i = 0; i < k; i++) {
		x[i] = n[idx[i]];
		y[i] = t[idx[i]];
	}
	if (hd_fit_ls(x, y, NULL, k, &a, &s, e) != 0)
		goto out;
	if (!(s > 0)) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE,
			   "time does not grow with size over the %zu largest sizes "
			   "(slope %g s per unit): no rate to fit",
			   k, s);
		goto out;
	}
	f->beta = 1 / s;
	f->n_large = (int)k;
	k = select_range(n, count, -INFINITY, small_max, idx);
	if (k == 0) {
		f->alpha = a;
		f->alpha_from_large = 1;
	} else {
		double sum = 0;

		for (i = 0; i < k; i++)
			sum += t[idx[i]] - n[idx[i]] * s;
		f->alpha = sum / (double)k;
		f->n_small = (int)k;
	}
	if (f->alpha < 0) {
		f->alpha = 0;
		f->alpha_clamped = 1;
	}
	for (i = 0; i < count; i++) {
		double r = fabs(t[i] - (f->alpha + n[i] * s)) / t[i];

		if (r > f->max_rel)
			f->max_rel = r;
		sum2 += r * r;
	}
	f->rms_rel = sqrt(sum2 / (double)count);
	rc = 0;
out:
	free(idx);
	free(x);
	free(y);
	return rc;
}

/* ---- the pageable staging pipeline ------------------------------------------ */

#define MAX_BUFFERS 64

void
hd_staging_times(const struct hd_staging *p, int d2h, double n, double *call, double *total)
{
	double done[MAX_BUFFERS];
	double chunk = p->chunk > 0 ? p->chunk : (n > 0 ? n : 1);
	double dma = d2h ? p->d2h_bw : p->h2d_bw;
	double t0 = p->api, eng = t0, prev = t0, end, last;
	int nb = p->buffers < 1 ? 1 : p->buffers > MAX_BUFFERS ? MAX_BUFFERS : p->buffers;
	uint64_t nch, i, issued = 0;
	int hot = p->cache > 0 && n <= p->cache;
	double cpu = hot && p->hot_bw[d2h ? 1 : 0] > 0 ? p->hot_bw[d2h ? 1 : 0] :
							 p->memcpy_bw[d2h ? 1 : 0];

	if (n <= 0)
		n = 0;
	nch = n == 0 ? 1 : (uint64_t)ceil(n / chunk);
	if (nch == 0)
		nch = 1;
#define CB(k) ((k) == nch - 1 ? n - (double)(k)*chunk : chunk)
	if (d2h) {
		for (; issued < nch && issued < (uint64_t)nb; issued++) {
			eng = eng + p->latency + CB(issued) / dma;
			done[issued % (uint64_t)nb] = eng;
		}
		for (i = 0; i < nch; i++) {
			/* a host blocked on the chunk's DMA wakes api.wake after it */
			double ready = done[i % (uint64_t)nb];
			double start = ready > prev ? ready + p->wake : prev;

			prev = start + CB(i) / cpu;
			if (issued < nch) {
				eng = fmax(prev, eng) + p->latency + CB(issued) / dma;
				done[issued % (uint64_t)nb] = eng;
				issued++;
			}
		}
	} else {
		for (i = 0; i < nch; i++) {
			double start = prev;

			if (i >= (uint64_t)nb)
				start = fmax(start, done[i % (uint64_t)nb]);
			prev = start + CB(i) / cpu;
			eng = fmax(prev, eng) + p->latency + CB(i) / dma;
			done[i % (uint64_t)nb] = eng;
		}
	}
#undef CB
	end = prev;
	last = eng;
	if (call)
		*call = end;
	if (total)
		*total = last > end ? fmax(last + p->wake, end + p->api_sync) : end + p->api_sync;
}

/* Sum of squared log ratios of model to measurement over direction dir's
 * points (dir < 0: all). */
static double
staging_cost(const struct hd_staging *p, const double *n, const double *t, const int *d2h,
	     size_t count, int dir)
{
	double sum = 0, m;
	size_t i;

	for (i = 0; i < count; i++) {
		if (dir >= 0 && d2h[i] != dir)
			continue;
		hd_staging_times(p, d2h[i], n[i], NULL, &m);
		sum += log(m / t[i]) * log(m / t[i]);
	}
	return sum;
}

/* The memcpy rate's search: 0.1 GB/s to 1 TB/s, in FIT_BW_STEPS log steps. */
#define FIT_BW_LO    1e8
#define FIT_BW_HI    1e12
#define FIT_BW_STEPS 48

/* Is rate bw within half a search step of the top: no rate the data decide? */
static int
at_top(double bw)
{
	return bw >= FIT_BW_HI * exp(-log(FIT_BW_HI / FIT_BW_LO) / (2 * FIT_BW_STEPS));
}

/* Best memcpy rate of direction dir for p's shape: a log scan, then golden
 * sections; left in p->memcpy_bw[dir]. */
static void
fit_memcpy_bw(struct hd_staging *p, const double *n, const double *t, const int *d2h, size_t count,
	      int dir)
{
	const double lo = log(FIT_BW_LO), hi = log(FIT_BW_HI), phi = 0.6180339887498949;
	const int steps = FIT_BW_STEPS;
	double best = INFINITY, a, b, c, d, fc, fd;
	int i, bi = 0;

	for (i = 0; i <= steps; i++) {
		double c0;

		p->memcpy_bw[dir] = exp(lo + (hi - lo) * i / steps);
		c0 = staging_cost(p, n, t, d2h, count, dir);
		if (c0 < best) {
			best = c0;
			bi = i;
		}
	}
	a = lo + (hi - lo) * (bi > 0 ? bi - 1 : 0) / steps;
	b = lo + (hi - lo) * (bi < steps ? bi + 1 : steps) / steps;
	c = b - phi * (b - a);
	d = a + phi * (b - a);
	p->memcpy_bw[dir] = exp(c);
	fc = staging_cost(p, n, t, d2h, count, dir);
	p->memcpy_bw[dir] = exp(d);
	fd = staging_cost(p, n, t, d2h, count, dir);
	for (i = 0; i < 60; i++) {
		if (fc < fd) {
			b = d;
			d = c;
			fd = fc;
			c = b - phi * (b - a);
			p->memcpy_bw[dir] = exp(c);
			fc = staging_cost(p, n, t, d2h, count, dir);
		} else {
			a = c;
			c = d;
			fc = fd;
			d = a + phi * (b - a);
			p->memcpy_bw[dir] = exp(d);
			fd = staging_cost(p, n, t, d2h, count, dir);
		}
	}
	p->memcpy_bw[dir] = exp((a + b) / 2);
}

/* Both directions' rates for p's shape (a direction without points keeps its rate). */
static void
fit_rates(struct hd_staging *p, const double *n, const double *t, const int *d2h, size_t count,
	  const int *points)
{
	int dir;

	for (dir = 0; dir < 2; dir++)
		if (points[dir] > 0)
			fit_memcpy_bw(p, n, t, d2h, count, dir);
}

static void
staging_errors(const struct hd_staging *p, const double *n, const double *t, const int *d2h,
	       size_t count, double *rms, double *mx)
{
	double sum = 0, m, r;
	size_t i;

	*mx = 0;
	for (i = 0; i < count; i++) {
		hd_staging_times(p, d2h[i], n[i], NULL, &m);
		r = fabs(m - t[i]) / t[i];
		sum += r * r;
		if (r > *mx)
			*mx = r;
	}
	*rms = sqrt(sum / (double)count);
}

int
hd_fit_staging(const double *n, const double *t, const int *d2h, size_t count,
	       const struct hd_staging *base, struct hd_staging_fit *f, struct hd_err *e)
{
	struct hd_staging p = *base, bp = *base;
	double best = INFINITY, rms, mx;
	size_t i;
	int sh, nb;

	memset(f, 0, sizeof *f);
	if (count == 0) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "no pageable copies to fit");
		return -1;
	}
	if (!all_finite(n, count) || !all_finite(t, count)) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "a pageable time is not a finite number");
		return -1;
	}
	for (i = 0; i < count; i++) {
		if (!(t[i] > 0) || n[i] < 0) {
			hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE,
				   "pageable copy %zu has a time that is not positive", i);
			return -1;
		}
		f->points[d2h[i] ? 1 : 0]++;
	}
	if (!(base->h2d_bw > 0) || !(base->d2h_bw > 0) || !(base->chunk > 0) || base->buffers < 1 ||
	    !(base->memcpy_bw[0] > 0) || !(base->memcpy_bw[1] > 0)) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE,
			   "the staging fit needs positive link "
			   "and memcpy rates, chunk and buffers");
		return -1;
	}
	/* The base shape, memcpy rates refitted. */
	fit_rates(&p, n, t, d2h, count, f->points);
	staging_errors(&p, n, t, d2h, count, &f->base_rms_rel, &f->base_max_rel);
	memcpy(f->base_memcpy_bw, p.memcpy_bw, sizeof f->base_memcpy_bw);
	memcpy(f->memcpy_bw, p.memcpy_bw, sizeof f->memcpy_bw);
	f->chunk = base->chunk;
	f->buffers = base->buffers;
	f->rms_rel = f->base_rms_rel;
	f->max_rel = f->base_max_rel;
	/* Every shape on the grid; the best is taken only if it is clearly better. */
	for (sh = 16; sh <= 26; sh++) {
		for (nb = 1; nb <= 4; nb++) {
			double c;

			p = *base;
			p.chunk = (double)((uint64_t)1 << sh);
			p.buffers = nb;
			fit_rates(&p, n, t, d2h, count, f->points);
			c = staging_cost(&p, n, t, d2h, count, -1);
			if (c < best) {
				best = c;
				bp = p;
			}
		}
	}
	staging_errors(&bp, n, t, d2h, count, &rms, &mx);
	if (rms < 0.8 * f->base_rms_rel && f->base_rms_rel > 0.02) {
		memcpy(f->memcpy_bw, bp.memcpy_bw, sizeof f->memcpy_bw);
		f->chunk = bp.chunk;
		f->buffers = bp.buffers;
		f->rms_rel = rms;
		f->max_rel = mx;
		f->shape_fitted = 1;
	}
	for (i = 0; i < 2; i++)
		f->at_top[i] = f->points[i] > 0 && at_top(f->memcpy_bw[i]);
	return 0;
}

/* ---- both directions, managed memory ------------------------------------------ */

int
hd_fit_bidir(double bytes, double t_h2d, double t_d2h, double solo_h2d, double solo_d2h,
	     double *total, struct hd_err *e)
{
	double t_first, t_last, solo_last, alone;

	if (!(bytes > 0) || !(t_h2d > 0) || !(t_d2h > 0) || !(solo_h2d > 0) || !(solo_d2h > 0) ||
	    !isfinite(bytes + t_h2d + t_d2h + solo_h2d + solo_d2h)) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE,
			   "the bidirectional fit needs positive sizes, times and rates");
		return -1;
	}
	t_first = fmin(t_h2d, t_d2h);
	t_last = fmax(t_h2d, t_d2h);
	solo_last = t_h2d >= t_d2h ? solo_h2d : solo_d2h;
	alone = fmin(bytes, solo_last * (t_last - t_first));
	*total = (2 * bytes - alone) / t_first;
	return 0;
}

int
hd_fit_um(double per_byte, double page, double base_fault, double link_bw, double *fault,
	  double *bw, struct hd_err *e)
{
	double rest;

	if (!(per_byte > 0) || !(page > 0) || !(base_fault >= 0) || !(link_bw > 0) ||
	    !isfinite(per_byte + page + base_fault + link_bw)) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE,
			   "the managed-memory fit needs a positive fault cost, page and "
			   "link rate");
		return -1;
	}
	rest = per_byte - base_fault / page;
	if (rest >= 1 / link_bw) {
		*fault = base_fault;
		*bw = 1 / rest;
		return 0;
	}
	if (per_byte > 1 / link_bw) {
		*bw = link_bw;
		*fault = (per_byte - 1 / link_bw) * page;
	} else {
		*bw = 1 / per_byte;
		*fault = 0;
	}
	return 1;
}

int
hd_fit_live_latency(const double *n, const double *done, const double *issue, size_t count,
		    double rate, double *alpha)
{
	double sum = 0;
	size_t i;
	int used = 0;

	for (i = 0; i < count; i++) {
		if (issue[i] >= 0.9 * done[i])
			continue;
		sum += done[i] - n[i] / rate;
		used++;
	}
	if (used > 0)
		*alpha = sum / used;
	return used;
}

int
hd_fit_graph(const double *nodes, const double *host, const double *gpu, size_t count,
	     struct hd_fit_graph *f, struct hd_err *e)
{
	size_t i;

	memset(f, 0, sizeof *f);
	if (hd_fit_ls(nodes, gpu, NULL, count, &f->fixed, &f->node, e) != 0 ||
	    hd_fit_ls(nodes, host, NULL, count, &f->launch, &f->launch_node, e) != 0)
		return -1;
	if (!(f->node > 0)) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE,
			   "a graph's GPU time does not grow with its nodes (%.3g s per node)",
			   f->node);
		return -1;
	}
	if (f->launch < 0) {
		f->launch = 0;
		f->launch_clamped = 1;
	}
	for (i = 0; i < count; i++) {
		double r = fabs(gpu[i] - (f->fixed + f->node * nodes[i])) / gpu[i];

		if (gpu[i] > 0 && r > f->max_rel)
			f->max_rel = r;
	}
	return 0;
}
