/*
 * fit_ranks.c - topology and rank-model figures for `hdsim calibrate`
 * (see fit_ranks.h).
 *
 * Nothing here touches a GPU: calib_ranks.c measures peer copies and NCCL
 * collectives, this file decides what they say about the node and turns
 * them into profile figures, and the tests drive it with synthetic data.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "real/calibrate/fit_ranks.h"

#define FIT_WHERE "calibrate"

/* A peer rate this many times the host link's cannot be PCIe. */
#define NVLINK_OVER_PCIE 1.5

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n), reordering v; 0 when n is 0. */
static double
median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
hd_fit_topo_link(enum hd_topo kind, int i, int j)
{
	if (i == j)
		return 0;
	switch (kind) {
	case HD_TOPO_NVSWITCH:
		return 1;
	case HD_TOPO_NVLINK_PAIRS:
		return i / 2 == j / 2;
	case HD_TOPO_SINGLE:
	case HD_TOPO_PCIE:
	case HD_TOPO__COUNT:
		return 0;
	}
	return 0;
}

/* Is the pair i, j (either direction) NVLink by the rules of hd_fit_topo? */
static int
pair_nvlink(const struct hd_fit_node *nd, int i, int j, int *by_rate)
{
	double bw = fmax(nd->bw[i][j], nd->bw[j][i]);

	if (bw > 0 && nd->pcie_bw > 0) {
		*by_rate = 1;
		return bw > NVLINK_OVER_PCIE * nd->pcie_bw;
	}
	return nd->p2p[i][j] && nd->p2p[j][i] && (nd->atomics[i][j] || nd->atomics[j][i]) &&
	    nd->links >= 0;
}

int
hd_fit_topo(const struct hd_fit_node *nd, struct hd_fit_topo *t, struct hd_err *e)
{
	int n = nd->n, i, j, all = 1, none = 1, pairs = 1;

	memset(t, 0, sizeof *t);
	if (n < 1 || n > HD_FIT_MAX_GPUS) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "a node of %d GPUs (1 to %d are handled)", n,
			   HD_FIT_MAX_GPUS);
		return -1;
	}
	t->gpus_per_node = n;
	t->exact = 1;
	if (n == 1) {
		t->kind = HD_TOPO_SINGLE;
		return 0;
	}
	t->by_rate = 1;
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			int by = 0, nv = pair_nvlink(nd, i, j, &by);

			t->by_rate &= by;
			t->nvlink[i][j] = t->nvlink[j][i] = nv;
			if (nv)
				t->nvlink_pairs++;
			else if (nd->p2p[i][j] && nd->p2p[j][i])
				t->pcie_pairs++;
			else
				t->host_pairs++;
			all &= nv;
			none &= !nv;
			/* an odd GPU out has no partner: the pairs kind leaves it on PCIe */
			if (nv != (i / 2 == j / 2))
				pairs = 0;
		}
	if (all)
		t->kind = HD_TOPO_NVSWITCH;
	else if (none)
		t->kind = HD_TOPO_PCIE;
	else if (pairs)
		t->kind = HD_TOPO_NVLINK_PAIRS;
	else {
		int ok_pairs = 1;

		t->exact = 0;
		for (i = 0; i + 1 < n; i += 2)
			ok_pairs &= t->nvlink[i][i + 1];
		if (ok_pairs)
			t->kind = HD_TOPO_NVLINK_PAIRS;
		else if (2 * t->nvlink_pairs > n * (n - 1) / 2)
			t->kind = HD_TOPO_NVSWITCH;
		else
			t->kind = HD_TOPO_PCIE;
	}
	return 0;
}

double
hd_fit_coll_time(enum hd_coll c, const struct hd_coll_fig *f, double bytes)
{
	double n = f->n > 1 ? f->n : 1, hop, k, cs;

	if (f->n < 2)
		return f->base;
	switch (c) {
	case HD_COLL_ALLREDUCE:
		return f->base + 2 * (n - 1) * (f->alpha + bytes / n / f->beta);
	case HD_COLL_BROADCAST:
	case HD_COLL_REDUCE:
		cs = f->chunk > 0 && f->chunk < bytes ? f->chunk : bytes;
		k = cs > 0 ? ceil(bytes / cs) : 1;
		hop = f->alpha + cs / f->beta;
		return f->base + (k + n - 2) * hop;
	case HD_COLL_ALLGATHER:
	case HD_COLL_REDUCESCATTER:
	case HD_COLL_GATHER:
	case HD_COLL_ALLTOALL:
	case HD_COLL__COUNT:
		break;
	}
	return f->base + (n - 1) * (f->alpha + bytes / n / f->beta);
}

int
hd_fit_ring(int n, const double *bytes, const double *t, size_t count, double small_max,
	    double large_min, double alpha, struct hd_fit_ring *r, struct hd_err *e)
{
	struct hd_coll_fig fig;
	double sum2 = 0;
	size_t i;

	memset(r, 0, sizeof *r);
	if (n < 2) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "a ring needs two ranks or more (got %d)",
			   n);
		return -1;
	}
	if (!(alpha >= 0) || !isfinite(alpha)) {
		hd_err_set(e, HD_EXIT_FAIL, FIT_WHERE, "the per-hop latency is not a time");
		return -1;
	}
	if (hd_fit_alpha_beta(bytes, t, count, small_max, large_min, &r->line, e) != 0)
		return -1;
	/* t = a + S / b and t = base + 2(n-1) alpha + 2(n-1)/n S / beta */
	r->beta = r->line.beta * 2.0 * (n - 1) / n;
	r->intercept = r->line.alpha;
	r->base = r->intercept - 2.0 * (n - 1) * alpha;
	if (r->base < 0) {
		r->base = 0;
		r->base_clamped = 1;
	}
	memset(&fig, 0, sizeof fig);
	fig.n = n;
	fig.alpha = alpha;
	fig.beta = r->beta;
	fig.base = r->base;
	for (i = 0; i < count; i++) {
		double m = hd_fit_coll_time(HD_COLL_ALLREDUCE, &fig, bytes[i]);
		double rel = fabs(m - t[i]) / t[i];

		if (rel > r->max_rel)
			r->max_rel = rel;
		sum2 += rel * rel;
	}
	r->rms_rel = sqrt(sum2 / (double)count);
	return 0;
}

int
hd_fit_ranks(const struct hd_fit_node *nd, int base_links, double copy_latency,
	     const double *ar_bytes, const double *ar_t, size_t ar_count, double small_max,
	     double large_min, struct hd_fit_ranks *out, struct hd_err *e)
{
	double lat[HD_FIT_MAX_GPUS * HD_FIT_MAX_GPUS], nvbw[HD_FIT_MAX_GPUS * HD_FIT_MAX_GPUS];
	double otbw[HD_FIT_MAX_GPUS * HD_FIT_MAX_GPUS];
	size_t nl = 0, nnv = 0, not = 0;
	int i, j, n = nd->n;
	double ring_rate;

	memset(out, 0, sizeof *out);
	out->nvlink_latency = -1;
	out->coll_base = -1;
	if (hd_fit_topo(nd, &out->topo, e) != 0)
		return -1;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			if (i == j)
				continue;
			if (out->topo.nvlink[i][j]) {
				if (nd->lat[i][j] >= 0 && nd->bw[i][j] > 0)
					lat[nl++] = nd->lat[i][j];
				if (nd->bw[i][j] > 0)
					nvbw[nnv++] = nd->bw[i][j];
			} else if (nd->bw[i][j] > 0)
				otbw[not ++] = nd->bw[i][j];
		}
	out->copy_nvlink_bw = median(nvbw, nnv);
	out->copy_other_bw = median(otbw, not );
	if (out->topo.nvlink_pairs > 0) {
		out->links_reported = nd->links > 0;
		out->links = nd->links > 0 ? nd->links : base_links > 0 ? base_links : 1;
		if (nl > 0)
			out->nvlink_latency = median(lat, nl);
	}
	out->ring_over_nvlink = out->topo.kind == HD_TOPO_NVSWITCH ||
	    (out->topo.kind == HD_TOPO_NVLINK_PAIRS && n == 2);
	out->alpha = out->ring_over_nvlink && out->nvlink_latency >= 0 ? out->nvlink_latency :
									 copy_latency;
	if (n >= 2 && ar_count >= 2) {
		if (hd_fit_ring(n, ar_bytes, ar_t, ar_count, small_max, large_min, out->alpha,
				&out->ring, e) != 0)
			return -1;
		out->have_ring = 1;
		out->rate_from_ring = 1;
		out->coll_base = out->ring.base;
		ring_rate = out->ring.beta;
	} else
		ring_rate = out->ring_over_nvlink ? out->copy_nvlink_bw : out->copy_other_bw;
	if (out->ring_over_nvlink) {
		if (ring_rate > 0)
			out->nvlink_rate = ring_rate / out->links;
		if (out->copy_other_bw > 0)
			out->p2p_pcie = out->copy_other_bw;
	} else {
		if (ring_rate > 0)
			out->p2p_pcie = ring_rate;
		if (out->links > 0 && out->copy_nvlink_bw > 0)
			out->nvlink_rate = out->copy_nvlink_bw / out->links;
	}
	return 0;
}
