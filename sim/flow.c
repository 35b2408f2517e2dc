/*
 * flow.c - max-min fair rates by progressive filling.
 *
 * All flows start unfrozen at rate 0.  Repeatedly find the tightest
 * constraint: a resource's remaining capacity split evenly among its
 * unfrozen flows, or a flow's own cap; freeze the flows it binds at that
 * rate and take their rates off every resource they cross.  The number of
 * flows in flight is small (a few copies), so the plain O(F * (F + R)) loop
 * is faster than anything clever.  Everything iterates in id order, so the
 * result depends only on the calls made.
 */
#include <math.h>
#include <stdlib.h>

#include "base/util.h"
#include "sim/flow.h"

struct flow {
	int active;
	int frozen;
	int nres;
	int res[HD_FLOW_MAXRES];
	double remaining; /* bytes still to move as of `last` */
	double rate;      /* bytes/s; INFINITY if nothing limits it */
	double cap;       /* own cap, INFINITY if none */
	hd_time last;     /* when `remaining` was last brought up to date */
	hd_time finish;
	uint64_t tag;
	int next_free;
};

struct resource {
	double cap;  /* INFINITY if unlimited */
	double left; /* while filling */
	int users;   /* unfrozen flows while filling */
};

struct hd_flownet {
	struct flow *f;
	size_t nf, fcap;
	int free_head;
	int nactive;
	struct resource *r;
	size_t nr, rcap;
	hd_time now;
	int dirty; /* flows ended since rates were computed */
};

struct hd_flownet *
hd_flow_new(void)
{
	struct hd_flownet *n = hd_xcalloc(1, sizeof *n);

	n->free_head = -1;
	return n;
}

void
hd_flow_free(struct hd_flownet *n)
{
	if (n == NULL)
		return;
	free(n->f);
	free(n->r);
	free(n);
}

int
hd_flow_resource(struct hd_flownet *n, double capacity)
{
	if (n->nr == n->rcap)
		n->r = hd_xgrow(n->r, &n->rcap, n->nr + 1, sizeof *n->r);
	n->r[n->nr].cap = capacity > 0 ? capacity : INFINITY;
	return (int)n->nr++;
}

/* Bring every flow's remaining bytes up to `now` at the current rates. */
static void
advance(struct hd_flownet *n, hd_time now)
{
	size_t i;
	double dt;

	if (now == n->now)
		return;
	for (i = 0; i < n->nf; i++) {
		struct flow *f = &n->f[i];

		if (!f->active || f->last == now)
			continue;
		dt = (double)(now - f->last);
		if (isinf(f->rate))
			f->remaining = 0;
		else
			f->remaining -= f->rate * dt / 1e12;
		if (f->remaining < 0)
			f->remaining = 0;
		f->last = now;
	}
	n->now = now;
}

static hd_time
finish_after(double bytes, double rate)
{
	double ps;

	if (!(bytes > 0) || isinf(rate))
		return 0;
	if (!(rate > 0))
		return HD_TIME_MAX;
	ps = ceil(bytes * 1e12 / rate - 1e-3);
	if (ps < 0)
		return 0;
	/* a finite rate finishes, however late: the model stops a run that
	 * would go past its longest (base/units.h) */
	if (ps >= (double)HD_TIME_DUR_MAX)
		return HD_TIME_DUR_MAX;
	return (hd_time)ps;
}

static void
recompute(struct hd_flownet *n)
{
	size_t i;
	int k, left;
	double best, share;
	long bres, bflow;

	for (i = 0; i < n->nr; i++) {
		n->r[i].left = n->r[i].cap;
		n->r[i].users = 0;
	}
	left = 0;
	for (i = 0; i < n->nf; i++) {
		struct flow *f = &n->f[i];

		if (!f->active)
			continue;
		f->frozen = 0;
		f->rate = 0;
		for (k = 0; k < f->nres; k++)
			n->r[f->res[k]].users++;
		left++;
	}
	while (left > 0) {
		best = INFINITY;
		bres = -1;
		bflow = -1;
		for (i = 0; i < n->nr; i++) {
			if (n->r[i].users == 0 || isinf(n->r[i].cap))
				continue;
			share = n->r[i].left / n->r[i].users;
			if (share < best) {
				best = share;
				bres = (long)i;
			}
		}
		for (i = 0; i < n->nf; i++) {
			struct flow *f = &n->f[i];

			if (f->active && !f->frozen && f->cap < best) {
				best = f->cap;
				bflow = (long)i;
				bres = -1;
			}
		}
		for (i = 0; i < n->nf; i++) {
			struct flow *f = &n->f[i];
			int binds;

			if (!f->active || f->frozen)
				continue;
			if (bflow >= 0)
				binds = (long)i == bflow;
			else if (bres >= 0) {
				binds = 0;
				for (k = 0; k < f->nres; k++)
					if (f->res[k] == bres)
						binds = 1;
			} else
				binds = 1; /* nothing limits what is left */
			if (!binds)
				continue;
			f->frozen = 1;
			f->rate = best < 0 ? 0 : best;
			left--;
			for (k = 0; k < f->nres; k++) {
				struct resource *r = &n->r[f->res[k]];

				r->users--;
				if (!isinf(best)) {
					r->left -= best;
					if (r->left < 0)
						r->left = 0;
				}
			}
		}
	}
	for (i = 0; i < n->nf; i++) {
		struct flow *f = &n->f[i];
		hd_time d;

		if (!f->active)
			continue;
		d = finish_after(f->remaining, f->rate);
		f->finish = d > HD_TIME_MAX - n->now ? HD_TIME_MAX : n->now + d;
	}
	n->dirty = 0;
}

int
hd_flow_start(struct hd_flownet *n, hd_time now, double bytes, double cap, const int *res, int nres,
	      uint64_t tag)
{
	struct flow *f;
	int id, k;

	if (nres < 0 || nres > HD_FLOW_MAXRES)
		hd_fatal("flow: %d resources (at most %d)", nres, HD_FLOW_MAXRES);
	advance(n, now);
	if (n->free_head >= 0) {
		id = n->free_head;
		n->free_head = n->f[id].next_free;
	} else {
		if (n->nf == n->fcap)
			n->f = hd_xgrow(n->f, &n->fcap, n->nf + 1, sizeof *n->f);
		id = (int)n->nf++;
	}
	f = &n->f[id];
	f->active = 1;
	f->nres = nres;
	for (k = 0; k < nres; k++) {
		if (res[k] < 0 || (size_t)res[k] >= n->nr)
			hd_fatal("flow: no resource %d", res[k]);
		f->res[k] = res[k];
	}
	f->remaining = bytes > 0 ? bytes : 0;
	f->cap = cap > 0 ? cap : INFINITY;
	f->rate = 0;
	f->last = now;
	f->finish = now;
	f->tag = tag;
	n->nactive++;
	recompute(n);
	return id;
}

int
hd_flow_done(struct hd_flownet *n, hd_time now, uint64_t *tag)
{
	size_t i;

	if (n->dirty && now != n->now) {
		/* flows ended earlier and nobody settled: settle at the old time */
		recompute(n);
	}
	for (i = 0; i < n->nf; i++) {
		struct flow *f = &n->f[i];

		if (f->active && f->finish <= now) {
			f->active = 0;
			f->next_free = n->free_head;
			n->free_head = (int)i;
			n->nactive--;
			*tag = f->tag;
			/* the others keep their old rates up to now */
			advance(n, now);
			n->dirty = 1;
			return 1;
		}
	}
	if (n->dirty) {
		advance(n, now);
		recompute(n);
	}
	return 0;
}

hd_time
hd_flow_next(struct hd_flownet *n)
{
	hd_time t = HD_TIME_MAX;
	size_t i;

	if (n->dirty)
		recompute(n);
	for (i = 0; i < n->nf; i++)
		if (n->f[i].active && n->f[i].finish < t)
			t = n->f[i].finish;
	return t;
}

double
hd_flow_rate(const struct hd_flownet *n, int id)
{
	if (id < 0 || (size_t)id >= n->nf || !n->f[id].active)
		return 0;
	return n->f[id].rate;
}

int
hd_flow_active(const struct hd_flownet *n)
{
	return n->nactive;
}
