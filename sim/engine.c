/*
 * engine.c - binary min-heap of events keyed on (time, seq).
 *
 * The heap sifts with a hole instead of swapping, pops bottom-up, and
 * compares times before sequence numbers, which keeps push and pop to a
 * handful of loads and stores per level: tens of millions of events per
 * second on one core while the queue fits in cache.
 */
#include <stdlib.h>

#include "base/util.h"
#include "sim/engine.h"

struct hd_engine {
	struct hd_event_rec *heap;
	size_t n, cap, peak;
	uint64_t seq;
	uint64_t popped;
	hd_time now;
};

struct hd_engine *
hd_engine_new(void)
{
	struct hd_engine *e = hd_xcalloc(1, sizeof *e);

	e->cap = 64;
	e->heap = hd_xmalloc(e->cap * sizeof *e->heap);
	return e;
}

void
hd_engine_free(struct hd_engine *e)
{
	if (e == NULL)
		return;
	free(e->heap);
	free(e);
}

hd_time
hd_engine_now(const struct hd_engine *e)
{
	return e->now;
}

static inline int
ev_before(const struct hd_event_rec *x, const struct hd_event_rec *y)
{
	if (x->t != y->t)
		return x->t < y->t;
	return x->seq < y->seq;
}

void
hd_engine_at(struct hd_engine *e, hd_time t, uint32_t type, uint32_t a, uint64_t b)
{
	struct hd_event_rec ev;
	size_t i, parent;

	if (t < e->now)
		hd_fatal("engine: event at %lld ps is before now (%lld ps)", (long long)t,
			 (long long)e->now);
	if (e->n == e->cap)
		e->heap = hd_xgrow(e->heap, &e->cap, e->n + 1, sizeof *e->heap);
	ev.t = t;
	ev.seq = e->seq++;
	ev.type = type;
	ev.a = a;
	ev.b = b;
	i = e->n++;
	while (i > 0) {
		parent = (i - 1) / 2;
		if (!ev_before(&ev, &e->heap[parent]))
			break;
		e->heap[i] = e->heap[parent];
		i = parent;
	}
	e->heap[i] = ev;
	if (e->n > e->peak)
		e->peak = e->n;
}

int
hd_engine_pop(struct hd_engine *e, struct hd_event_rec *out)
{
	struct hd_event_rec *h = e->heap, last;
	size_t i, child, parent, n;

	if (e->n == 0)
		return 0;
	*out = h[0];
	n = --e->n;
	if (n > 0) {
		/*
		 * Bottom-up: walk the hole down to a leaf along the smaller
		 * children (one comparison per level), then sift the last
		 * event up from there; it rarely climbs far, so this does about
		 * half the comparisons of the textbook sift-down.
		 */
		last = h[n];
		i = 0;
		while ((child = 2 * i + 1) < n) {
			if (child + 1 < n && ev_before(&h[child + 1], &h[child]))
				child++;
			h[i] = h[child];
			i = child;
		}
		while (i > 0) {
			parent = (i - 1) / 2;
			if (!ev_before(&last, &h[parent]))
				break;
			h[i] = h[parent];
			i = parent;
		}
		h[i] = last;
	}
	e->now = out->t;
	e->popped++;
	return 1;
}

uint64_t
hd_engine_run(struct hd_engine *e, hd_engine_fn fn, void *ctx, volatile int *stop)
{
	struct hd_event_rec ev;
	uint64_t n = 0;

	while ((stop == NULL || *stop == 0) && hd_engine_pop(e, &ev)) {
		fn(ctx, &ev);
		n++;
	}
	return n;
}

uint64_t
hd_engine_events(const struct hd_engine *e)
{
	return e->popped;
}

size_t
hd_engine_pending(const struct hd_engine *e)
{
	return e->n;
}

size_t
hd_engine_peak(const struct hd_engine *e)
{
	return e->peak;
}
