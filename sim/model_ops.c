/*
 * model_ops.c - the host thread in the model: it walks the op list (loops
 * through a small stack, never unrolled) and runs each op as a little state
 * machine of phases through one handler per op kind: pay an API cost, put
 * work on a stream, or block until a GPU condition holds.  Pageable copies
 * are staged here, chunk by chunk, through pinned buffers.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model_priv.h"

/* --- the host thread ------------------------------------------------------- */

enum {
	H_YIELD,
	H_NEXT,
	H_DONE
};

static int
wait_holds(struct model *m, const struct hwait *w)
{
	const struct mstream *s;
	const struct gop *g;
	int i;

	switch (w->kind) {
	case W_NONE:
		return 1;
	case W_TICKET:
		return m->st[w->stream].completed >= w->ticket;
	case W_ALL:
		for (i = 0; i < m->sc->nstreams; i++)
			if (m->st[i].completed < m->st[i].submitted)
				return 0;
		return 1;
	case W_LEGACY:
		for (i = 0; i < m->sc->nstreams; i++)
			if ((i == HD_STREAM_LEGACY || m->st[i].blocking) &&
			    m->st[i].completed < m->st[i].submitted)
				return 0;
		return 1;
	case W_QUEUE:
		s = &m->st[w->stream];
		return m->p->stream_queue <= 0 ||
		    s->submitted - s->completed < (uint64_t)m->p->stream_queue;
	case W_STARTED:
		g = &m->g[w->slot];
		return g->gen != w->gen || g->state == GS_RUNNING;
	case W_CHUNKS:
		g = &m->g[w->slot];
		return g->gen != w->gen || g->chunks_done >= w->ticket;
	case W_BARRIER:
		return m->w->barrier_done >= w->ticket;
	case W_HANDOFF:
		return w->ticket != 0;
	}
	return 1;
}

/*
 * Block the host until w holds, then continue at `phase`.  Returns H_NEXT
 * when it already holds (no cost), H_YIELD when the host now waits.
 */
static int
host_wait(struct model *m, struct hwait w, int phase)
{
	struct host *h = &m->h;

	h->phase = phase;
	if (wait_holds(m, &w))
		return H_NEXT;
	w.since = hd_engine_now(m->eng);
	h->w = w;
	h->blocked = 1;
	return H_YIELD;
}

/* Called after every GPU-side event: wake the host if its wait is over. */
void
model_host_poll(struct model *m)
{
	struct host *h = &m->h;
	hd_time now, end;

	if (!h->blocked || !wait_holds(m, &h->w))
		return;
	now = hd_engine_now(m->eng);
	end = now + h->w.wake;
	h->blocked = 0;
	if (!h->w.quiet && end > h->w.since)
		model_emit(m, m->lane_api, h->op, h->iter, HD_SPAN_BLOCKED, h->w.why, h->w.since,
			   end, 0, model_api_label(m, h->op));
	model_at(m, end, EV_HOST, 0, 0);
}

static int
host_sleep(struct model *m, hd_time dt, int phase)
{
	m->h.phase = phase;
	model_at(m, hd_engine_now(m->eng) + (dt > 0 ? dt : 0), EV_HOST, 0, 0);
	return H_YIELD;
}

/* End the current call: its API span covers [t0, now]. */
static int
host_api_end(struct model *m)
{
	struct host *h = &m->h;

	model_emit(m, m->lane_api, h->op, h->iter, HD_SPAN_API, HD_WHY_NONE, h->t0,
		   hd_engine_now(m->eng), 0, model_api_label(m, h->op));
	return H_DONE;
}

static struct hwait
wait_of(enum wait_kind kind, int stream, uint64_t ticket, enum hd_why why, hd_time wake)
{
	struct hwait w;

	memset(&w, 0, sizeof w);
	w.kind = kind;
	w.stream = stream;
	w.ticket = ticket;
	w.why = why;
	w.wake = wake;
	return w;
}

/* Stream si's last work is a kernel (on 1) or an event record (on 0). */
static void
model_kernel_last(struct model *m, int si, int on)
{
	struct mstream *st = &m->st[si];

	if (st->kernel_last != on)
		m->kernel_last += on ? 1 : -1;
	st->kernel_last = on;
}

/*
 * A sync call: blocks until w holds; costs at least api_sync.  A stream or
 * event sync (stream_kind) costs at least api_sync_kernel instead while a
 * stream's last work is a kernel: on lent H200s 1952 syncs of a stream took
 * 0.33-0.54 us each with nothing run, 1.45-1.7 us after one kernel, on that
 * stream or another, and 0.33 us again once an event was recorded after the
 * kernel on its stream (bench/probe/syncmix.hds, syncafter.hds, 2026-11-28).
 * A device sync costs at least api_sync_device where set: ten idle
 * cudaDeviceSynchronize took 7.7-8.9 us in nine of twelve processes on five
 * lent H200s and 4.3-5.1 us in the other three, median 7.9, where their
 * calibrations put an idle stream sync at 0.31-0.52 us
 * (bench/probe/first.hds, 2026-11-28/29).
 */
static int
op_sync(struct model *m, struct hwait w, int stream_kind)
{
	struct host *h = &m->h;
	hd_time now = hd_engine_now(m->eng);
	hd_time floor = m->p->api_sync;

	if (stream_kind && m->kernel_last > 0 && m->p->api_sync_kernel > 0)
		floor = m->p->api_sync_kernel;
	if (w.kind == W_ALL && m->p->api_sync_device > 0)
		floor = m->p->api_sync_device;

	switch (h->phase) {
	case 0:
		if (host_wait(m, w, 1) == H_YIELD)
			return H_YIELD;
		/* FALLTHROUGH */
	case 1:
		if (now < h->t0 + floor)
			return host_sleep(m, h->t0 + floor - now, 2);
		/* FALLTHROUGH */
	default:
		return host_api_end(m);
	}
}

/*
 * cudaStreamSynchronize.  Of the legacy default stream it waits for every
 * blocking stream too, as work on that stream does (the driver's stream
 * sync behaviour; cuda.core's LEGACY_DEFAULT_STREAM.sync() says so): 14
 * rounds of a sync of it, two kernels and a copy on a blocking stream took
 * 24 us a round on two lent H200s, where a sync of the legacy stream's own
 * work alone let the rounds overlap in 12.6 (heldout20 018, 2026-11-29).
 */
static int
op_stream_sync(struct model *m, const struct hd_op *op, int opi)
{
	(void)opi;
	if (op->stream == HD_STREAM_LEGACY)
		return op_sync(m, wait_of(W_LEGACY, 0, 0, HD_WHY_STREAM_SYNC, m->p->sync_wake), 1);
	/* the ticket is fixed when the call begins: later work does not count */
	if (m->h.phase == 0)
		m->h.w.ticket = m->st[op->stream].submitted;
	return op_sync(
	    m, wait_of(W_TICKET, op->stream, m->h.w.ticket, HD_WHY_STREAM_SYNC, m->p->sync_wake),
	    1);
}

static int
op_event_sync(struct model *m, const struct hd_op *op, int opi)
{
	const struct mevent *ev = &m->ev[op->event];

	(void)opi;
	if (!ev->recorded)
		return op_sync(m, wait_of(W_NONE, 0, 0, HD_WHY_EVENT_SYNC, 0), 1);
	return op_sync(
	    m, wait_of(W_TICKET, ev->stream, ev->ticket, HD_WHY_EVENT_SYNC, m->p->sync_wake), 1);
}

static int
op_device_sync(struct model *m, const struct hd_op *op, int opi)
{
	(void)opi;
	(void)op;
	return op_sync(m, wait_of(W_ALL, 0, 0, HD_WHY_DEVICE_SYNC, m->p->sync_wake), 0);
}

/* A call that costs `cost` on the host and does nothing else. */
static int
op_cost(struct model *m, hd_time cost)
{
	if (m->h.phase == 0)
		return host_sleep(m, cost, 1);
	return host_api_end(m);
}

static hd_time
pin_cost(const struct model *m, uint64_t bytes)
{
	return m->p->pin_base + hd_time_for_bytes((double)bytes, m->p->pin_bw);
}

/* The bytes of a cudaMallocHost (or cudaFreeHost) beyond its fixed part,
 * which covers the first HD_ALLOC_SMALL: on lent H100s a round of
 * cudaMallocHost and cudaFreeHost took the same 1.0-1.4 ms from 64 B to
 * 1.7 MiB, and 4 MiB about 1.2 ms more (bench/probe/alloc.hds, 2026-11-24;
 * bench/probe/hostalloc.hds, 2026-11-25). */
static uint64_t
pinned_beyond(uint64_t bytes)
{
	return bytes > HD_ALLOC_SMALL ? bytes - HD_ALLOC_SMALL : 0;
}

/* The first page of a managed allocation, whose touch api.malloc_managed
 * covers: a cudaMallocManaged of 197 B and 15.6 KB, touched, and its
 * cudaFree took 117-145 us a round in a loop on a lent H100, 256 KiB 170-186
 * us (bench/probe/thrash.hds). */
#define MANAGED_FIRST 4096u

/* The host's memset of `bytes` of pages mapped already: a memcpy reads each
 * byte and writes it, a memset only writes, so twice the host's memcpy
 * rate (16 rounds of a 1 MiB managed block from the live heap, touched and
 * freed, took 36 us a round on a lent H200 where that H200's memcpy rate
 * was 15.7 GB/s: bench/probe/umrealloc.hds, run77). */
static hd_time
mapped_memset(const struct hd_profile *p, uint64_t bytes)
{
	double bw = p->host_memcpy_h2d_hot_bw > 0 ? p->host_memcpy_h2d_hot_bw :
						    p->host_memcpy_h2d_bw;

	return bw > 0 ? hd_time_for_bytes((double)bytes, 2 * bw) : 0;
}

/*
 * cudaMalloc or cudaFree of `bytes` of device memory, 2 MiB up: `fixed` and
 * the bytes at `bw`; below HD_ALLOC_MID_TOP, when `mid` is set, `mid` up to
 * HD_ALLOC_MID and from there linear in bytes to the first rule's time at
 * HD_ALLOC_MID_TOP.  The callers pass `mid` for a buffer whose cudaMalloc
 * an earlier cudaFree of as many bytes or more served (mbuf.warm), as
 * calibrate's rounds are.  On a lent H100 16 rounds of a cudaMalloc and
 * cudaFree of 2, 4 and 10 MiB took 68-71 us a round, 32 MiB 85-128, 64 MiB
 * 97-128, where calibrate's 64 MiB and 1 GiB put 111 us under every size
 * (bench/probe/dmalloc.hds, run90); a first one of 4 MB in a scenario took
 * 179 and 114 us on a lent H200 (heldout32 025, run91).
 */
static hd_time
fixed_and_bytes(hd_time fixed, double bw, uint64_t bytes)
{
	return bw > 0 ? hd_time_add(fixed, hd_time_for_bytes((double)bytes, bw)) : fixed;
}

static hd_time
device_map_cost(hd_time fixed, double bw, hd_time mid, uint64_t bytes)
{
	hd_time top;

	if (mid <= 0 || bytes >= HD_ALLOC_MID_TOP)
		return fixed_and_bytes(fixed, bw, bytes);
	if (bytes <= HD_ALLOC_MID)
		return mid;
	top = fixed_and_bytes(fixed, bw, HD_ALLOC_MID_TOP);
	return mid +
	    (hd_time)((double)(top - mid) * (double)(bytes - HD_ALLOC_MID) /
		      (double)(HD_ALLOC_MID_TOP - HD_ALLOC_MID));
}

/* What an allocation of `bytes` of `mem` costs the host: cudaMalloc and
 * cudaMallocManaged take small sizes from the driver's pools, large ones map
 * fresh pages (device memory's bytes at api.malloc_rate); cudaMallocHost
 * allocates, zeroes and pins fresh pages, unless `heap` (in_live_heap
 * below): then a small block comes from the driver's pool as cudaMalloc's
 * do; a managed buffer is then first touched on the host (as the real
 * backend does, so that it starts resident there), a small one from the
 * live heap (`heap`) on pages mapped already. */
static hd_time
alloc_cost(const struct hd_profile *p, enum hd_mem mem, uint64_t bytes, int heap, int warm)
{
	hd_time cost = bytes < HD_ALLOC_SMALL && p->malloc_small > 0 ? p->malloc_small :
								       p->malloc_cost;

	switch (mem) {
	case HD_MEM_PINNED:
		if (heap) /* a small block from the driver's live heap (below) */
			return cost;
		return (p->mallochost_base > 0 ? p->mallochost_base : p->pin_base) +
		    hd_time_for_bytes((double)pinned_beyond(bytes), p->mallochost_bw);
	case HD_MEM_PAGEABLE:
		return HD_US; /* malloc: the pages are touched later */
	case HD_MEM_MANAGED:
		if (heap) /* a block of the live heap, its pages mapped already */
			return hd_time_add(cost, mapped_memset(p, bytes));
		if (p->malloc_managed > 0) /* it covers the first page's touch */
			return hd_time_add(
			    p->malloc_managed,
			    p->um_touch_bw > 0 && bytes > MANAGED_FIRST ?
				hd_time_for_bytes((double)(bytes - MANAGED_FIRST), p->um_touch_bw) :
				0);
		if (p->um_touch_bw > 0)
			cost = hd_time_add(cost, hd_time_for_bytes((double)bytes, p->um_touch_bw));
		return cost;
	case HD_MEM_DEVICE:
		if (bytes >= HD_ALLOC_SMALL)
			return device_map_cost(p->malloc_cost, p->malloc_bw,
					       warm ? p->malloc_mid : 0, bytes);
		return cost;
	case HD_MEM__COUNT:
		break;
	}
	return cost;
}

/* What freeing it costs, after the implicit device sync (large device
 * buffers unmap their bytes at api.free_rate; a small pinned block whose
 * `heap` stays alive costs what a small cudaFree does). */
static hd_time
free_cost(const struct hd_profile *p, enum hd_mem mem, uint64_t bytes, int heap, int warm)
{
	hd_time cost;

	switch (mem) {
	case HD_MEM_PINNED:
		if (heap) /* its block stays in the driver's live heap */
			break;
		cost = p->freehost_cost > 0 ? p->freehost_cost : p->free_cost;
		if (p->unpin_bw > 0)
			cost = hd_time_add(
			    cost, hd_time_for_bytes((double)pinned_beyond(bytes), p->unpin_bw));
		return cost;
	case HD_MEM_PAGEABLE:
		return HD_US;
	case HD_MEM_DEVICE:
		if (bytes >= HD_ALLOC_SMALL)
			return device_map_cost(p->free_cost, p->free_bw, warm ? p->free_mid : 0,
					       bytes);
		break;
	case HD_MEM_MANAGED:
		if (!heap && p->free_managed > 0)
			return p->free_managed;
		break;
	case HD_MEM__COUNT:
		break;
	}
	return bytes < HD_ALLOC_SMALL && p->free_small > 0 ? p->free_small : p->free_cost;
}

/*
 * The driver's heaps of small blocks, one for pinned and one for managed
 * memory.  A cudaMallocHost and cudaFreeHost of less than HD_ALLOC_SMALL
 * cost about a millisecond a round when no other small pinned allocation
 * is alive (the heap is made and released each time: 1.2-1.5 ms a round
 * of 4 KiB or 2 MB in a loop, with or without a kernel, a copy or host
 * work between them, on a lent H100, bench/probe/pinloop.hds), but
 * microseconds while one is: 58 B beside a pinned 285 KB took 19.9 us
 * (tuning 032 on an H200), 28 rounds of 2 MB beside 77.9 KB 2.6 ms in all
 * with a 2 ms kernel's wait (heldout3 004 on an H100).  Larger ones map
 * pages of their own and cost the same either way (5.43 MB beside four
 * small pinned buffers: 2.41 ms to allocate and 1.03 ms to free, tuning
 * 004).  Managed memory alike: 16 rounds of a cudaMallocManaged of 64 KiB,
 * 623 KB or 1 MiB, touched on the host, and its cudaFree took 8.6, 26 and
 * 36 us a round beside a live 26 KB managed buffer, 136-442 us alone or
 * beside a 4 MiB one, and 4 MiB 1.1-1.5 ms a round either way (lent H200,
 * bench/probe/umrealloc.hds, run77).
 */
int
model_heap_small(const struct hd_scenario *sc, int i)
{
	return (sc->buffers[i].mem == HD_MEM_PINNED || sc->buffers[i].mem == HD_MEM_MANAGED) &&
	    sc->buffers[i].bytes < HD_ALLOC_SMALL;
}

void
model_heap_moved(struct model *m, int bi)
{
	if (bi >= 0 && m->sc->buffers[bi].mem == HD_MEM_MANAGED && model_heap_small(m->sc, bi))
		m->um_heap_epoch++;
}

/* Mark buffer i allocated (1) or freed (0), counting small heap ones; a
 * small managed block freed while others live keeps its mapped pages. */
static void
set_live(struct model *m, int i, int live)
{
	enum hd_mem mem = m->sc->buffers[i].mem;
	struct mbuf *b = &m->buf[i];

	if (b->live == live)
		return;
	b->live = live;
	b->kept = 0;
	if (!model_heap_small(m->sc, i))
		return;
	m->heap_live[mem] += live ? 1 : -1;
	if (mem != HD_MEM_MANAGED)
		return;
	if (live) /* its pages stay on the host until the heap's move */
		b->kept_epoch = m->um_heap_epoch;
	else if (m->heap_live[mem] > 0)
		b->kept = b->kept_epoch == m->um_heap_epoch;
	else
		m->um_heap_epoch++;
}

/* Is buffer i small, pinned or managed, with another small buffer of its
 * kind alive?  A managed one being allocated must also have kept its
 * mapped pages since it was last freed. */
static int
in_live_heap(const struct model *m, int i)
{
	const struct mbuf *b = &m->buf[i];

	if (!model_heap_small(m->sc, i) ||
	    m->heap_live[m->sc->buffers[i].mem] - (b->live ? 1 : 0) <= 0)
		return 0;
	return b->live || m->sc->buffers[i].mem != HD_MEM_MANAGED ||
	    (b->kept && b->kept_epoch == m->um_heap_epoch);
}

/* glibc's malloc maps blocks of this size and more afresh each time and
 * unmaps them at free (its mmap threshold rises with what is freed, to
 * 32 MiB at most on 64-bit); smaller ones come back from its heap, their
 * pages mapped already. */
#define MALLOC_FRESH (32u * 1024 * 1024)

/*
 * The first writes to pageable buffer b up to byte `end`: what mapping its
 * fresh pages costs (host.touch, the free's unmapping included), 0 for
 * pages written before or another kind of memory.  On lent H200s 51 rounds
 * of a malloc, a 29.4 MB staged copy into it and a free took 20.8 ms a
 * round more than the copy alone (heldout9 039, 2026-11-28).
 */
static hd_time
first_touch(struct model *m, int b, uint64_t end)
{
	struct mbuf *mb;
	hd_time t;

	if (b < 0 || (mb = &m->buf[b])->mem != HD_MEM_PAGEABLE || end <= mb->touched)
		return 0;
	t = m->p->host_touch_bw > 0 ?
	    hd_time_for_bytes((double)(end - mb->touched), m->p->host_touch_bw) :
	    0;
	mb->touched = end;
	return t;
}

static int
op_alloc(struct model *m, const struct hd_op *op, int opi)
{
	struct mbuf *b = &m->buf[op->dst];
	enum hd_mem mem = m->sc->buffers[op->dst].mem;
	uint64_t bytes = model_buf_bytes(m, op->dst, op->bytes);
	hd_time cost;

	(void)opi;
	if (m->h.phase != 0)
		return host_api_end(m);
	if (b->mem == HD_MEM_MANAGED && b->moving < 0) { /* fresh pages, touched on the host */
		b->resident = 0;
		model_buf_settled(b);
		model_buf_forget_trips(b);
		b->copied = 0;
	}
	if (b->mem == HD_MEM_PAGEABLE) /* fresh pages, mapped as written (large) */
		b->touched = bytes >= MALLOC_FRESH ? 0 : b->bytes;
	b->warm = mem == HD_MEM_DEVICE && bytes <= m->dev_freed;
	cost = alloc_cost(m->p, mem, bytes, in_live_heap(m, op->dst), b->warm);
	set_live(m, op->dst, 1);
	return host_sleep(m, cost, 1);
}

static int
op_pin(struct model *m, const struct hd_op *op, int opi)
{
	(void)opi;
	if (m->h.phase == 0)
		return host_sleep(m, pin_cost(m, model_buf_bytes(m, op->dst, op->bytes)), 1);
	m->buf[op->dst].mem = HD_MEM_PINNED;
	m->buf[op->dst].touched = m->buf[op->dst].bytes; /* cudaHostRegister maps every page */
	return host_api_end(m);
}

static int
op_free(struct model *m, const struct hd_op *op, int opi)
{
	struct host *h = &m->h;
	enum hd_mem mem = m->sc->buffers[op->dst].mem;

	(void)opi;
	if (mem == HD_MEM_PAGEABLE)
		return op_cost(m, HD_US);
	switch (h->phase) {
	case 0:
		/* cudaFree and cudaFreeHost synchronise the device first */
		if (host_wait(m, wait_of(W_ALL, 0, 0, HD_WHY_DEVICE_SYNC, m->p->sync_wake), 1) ==
		    H_YIELD)
			return H_YIELD;
		/* FALLTHROUGH */
	case 1: {
		uint64_t bytes = model_buf_bytes(m, op->dst, op->bytes);
		hd_time cost = free_cost(m->p, mem, bytes, in_live_heap(m, op->dst),
					 m->buf[op->dst].warm);

		if (mem == HD_MEM_DEVICE && bytes >= HD_ALLOC_SMALL && bytes > m->dev_freed)
			m->dev_freed = bytes;
		set_live(m, op->dst, 0);
		return host_sleep(m, cost, 2);
	}
	default:
		return host_api_end(m);
	}
}

static int
op_host(struct model *m, const struct hd_op *op, int opi)
{
	hd_time now = hd_engine_now(m->eng);

	if (m->thr != NULL) { /* host threads share the cores (model_host.c) */
		if (m->h.phase++ > 0)
			return H_DONE;
		model_cpu_start(m, 0, m->lane_host, opi, m->h.iter, op->duration, 0,
				model_work_label(m, opi));
		return H_YIELD;
	}
	if (m->h.phase == 0) {
		model_emit(m, m->lane_host, opi, m->h.iter, HD_SPAN_HOST, HD_WHY_NONE, now,
			   now + op->duration, 0, model_work_label(m, opi));
		return host_sleep(m, op->duration, 1);
	}
	return H_DONE;
}

static int
op_query(struct model *m, const struct hd_op *op, int opi)
{
	(void)opi;
	(void)op;
	return op_cost(m, m->p->api_event);
}

/*
 * The common shape of a call that puts work on a stream: wait for room in
 * the stream's queue, pay the call's cost, then `submit` (phase 2).
 */
static int
submit_prologue(struct model *m, int stream, hd_time cost)
{
	struct host *h = &m->h;

	switch (h->phase) {
	case 0:
		if (host_wait(m, wait_of(W_QUEUE, stream, 0, HD_WHY_QUEUE_FULL, m->p->sync_wake),
			      1) == H_YIELD)
			return H_YIELD;
		/* FALLTHROUGH */
	case 1:
		return host_sleep(m, cost, 2);
	default:
		return H_NEXT;
	}
}

/* The CPU's memcpy rate through the staging buffers: a copy of at most
 * host.cache bytes finds its host side in the CPU's caches, unless `cold`
 * (see big_managed). */
static double
staging_rate(const struct hd_profile *p, enum dir d, uint64_t bytes, int cold)
{
	double hot = d == DIR_H2D ? p->host_memcpy_h2d_hot_bw : p->host_memcpy_d2h_hot_bw;

	if (hot > 0 && !cold && bytes <= p->host_cache)
		return hot;
	return d == DIR_H2D ? p->host_memcpy_h2d_bw : p->host_memcpy_d2h_bw;
}

/*
 * Buffer bi is managed memory larger than host.cache: the driver's staged
 * copy out of it or into it runs at the CPU's cold memcpy rate, whatever
 * its size (on a lent H100 copies of 2 and 16 MiB out of 256 MiB of it ran
 * at the cold rate: bench/probe/umcopy.hds).  One that fits the caches
 * copies as pageable memory does: on a lent H200 50 copies of 1 MiB out of
 * 4 MiB of it took 90-100 us each to the device, the pages on the host or
 * on the device, as from pageable memory (87-90 us), where the cold rate
 * made 168 us (bench/probe/umpath.hds, run80).
 */
static int
big_managed(const struct model *m, int bi)
{
	return bi >= 0 && m->buf[bi].mem == HD_MEM_MANAGED && m->buf[bi].bytes > m->p->host_cache;
}

/*
 * A host-to-host copy is the CPU's memcpy, at the hot rate when it fits
 * the caches, managed memory or not: on a lent H200 50 copies of 1 MiB out
 * of 4 MiB of managed memory into pinned memory took 78-88 us each (the
 * cold rate: 159 us; umpath.hds, run80), and 2303 copies of 6.2 MB from
 * pageable memory into a 471 MB managed buffer 0.51 ms each, 12 GB/s
 * (heldout26 037, runs 76-78).
 */
hd_time
model_h2h_time(const struct model *m, const struct hd_op *op)
{
	return hd_time_for_bytes((double)op->bytes, staging_rate(m->p, DIR_H2D, op->bytes, 0));
}

/*
 * cudaMemcpyAsync from pageable memory of at most 64 KiB: the driver copies
 * it into its staging memory at once and returns; the DMA follows in stream
 * order.  Behind a 2 ms kernel on a lent H100, 64 KiB did not wait for the
 * stream, 16 MiB did, and so did 64 KiB to pageable memory or to or from
 * managed memory (bench/probe/umasync.hds).
 */
#define INLINE_COPY (64u * 1024u)

static int
is_inline(const struct model *m, const struct hd_op *op)
{
	return op->kind == HD_OP_COPY && op->async && op->copy == HD_COPY_H2D && op->src >= 0 &&
	    m->buf[op->src].mem == HD_MEM_PAGEABLE && op->bytes <= INLINE_COPY;
}

/*
 * How long a synchronous cudaMemcpy (a read is one) keeps the host after
 * the GPU is done with it: the wake-up, and what the driver's return takes
 * beyond that.  On a lent H200 64 cudaMemcpy of 4 B to pinned memory took
 * 8.2 us each where the call, the copy and the wake-up made 6.9 (bench/
 * probe/apicost.hds); calibrate measures the rest, api.memcpy_sync.
 */
static hd_time
sync_copy_wake(const struct model *m)
{
	return hd_time_add(m->p->sync_wake, m->p->api_memcpy_sync);
}

/* Copy (or read) op's source (k 0) or destination (k 1) if it is managed
 * memory, else -1. */
static int
managed_side(const struct model *m, const struct hd_op *op, int k)
{
	int b = k == 0 ? op->src : op->dst;

	return b >= 0 && m->buf[b].mem == HD_MEM_MANAGED ? b : -1;
}

/* The largest managed buffer copy (or read) op names that no copy has named
 * since its pages last moved; 0 if none. */
static uint64_t
managed_unseen(const struct model *m, const struct hd_op *op)
{
	uint64_t n = 0;
	int k, b;

	for (k = 0; k < 2; k++)
		if ((b = managed_side(m, op, k)) >= 0 && !m->buf[b].copied && m->buf[b].bytes > n)
			n = m->buf[b].bytes;
	return n;
}

/* Copy (or read) op is on its stream: the driver has looked at the pages
 * of the managed buffers it names. */
static void
managed_seen(struct model *m, const struct hd_op *op)
{
	int k, b;

	for (k = 0; k < 2; k++)
		if ((b = managed_side(m, op, k)) >= 0)
			m->buf[b].copied = 1;
}

/*
 * The host's time to submit copy (or read) op: a device-to-device copy has
 * its own cost, and the first that names a managed buffer since its pages
 * moved the driver's look at where they are (api.memcpy_managed, for the
 * buffer's size).  On a lent H200 40 copies of 14 B into managed memory on
 * the host took 8.4 us each, as many out of pinned memory 8.1, one alone
 * 13 us; a second copy out of 256 MiB of it took as long as one from
 * pageable memory, the first 20 us more (bench/probe/umloop.hds,
 * umcopy.hds, umsize.hds).
 */
/*
 * A copy the driver stages because its host side is pageable memory: host
 * to device, device to host, or a read (whose landing buffer is malloc'd).
 * Each pays api.memcpy_pageable more on the host than through pinned
 * memory: a 4 B read took 8.54-8.93 us in six processes on two lent H200s
 * where the pinned path made 6.49-6.74 (bench/probe/first.hds).  Over the
 * 26 H200 runs of the generated sets kept, the built-in's 2.1 us took the
 * mean of the runs' median errors from 5.99 to 5.67 %, and 2 us added to
 * the calibrated profiles (which did not measure it) theirs from 6.64 to
 * 6.32 % (bench/results/2026-11-28-apicost-h200/).
 */
static int
pageable_staged(const struct model *m, const struct hd_op *op)
{
	if (op->kind == HD_OP_READ)
		return 1;
	if (op->kind != HD_OP_COPY)
		return 0;
	if (op->copy == HD_COPY_H2D)
		return op->src >= 0 && m->buf[op->src].mem == HD_MEM_PAGEABLE;
	if (op->copy == HD_COPY_D2H)
		return op->dst >= 0 && m->buf[op->dst].mem == HD_MEM_PAGEABLE;
	return 0;
}

static hd_time
copy_api_cost(const struct model *m, const struct hd_op *op)
{
	const struct hd_profile *p = m->p;
	hd_time cost = op->copy == HD_COPY_D2D && p->api_memcpy_d2d > 0 ? p->api_memcpy_d2d :
									  p->api_memcpy;
	uint64_t unseen = managed_unseen(m, op);
	if (unseen > 0)
		cost = hd_time_add(cost, model_um_fixed(p->api_memcpy_managed, unseen));
	if (pageable_staged(m, op))
		cost = hd_time_add(cost, p->api_memcpy_pageable);
	if (is_inline(m, op)) /* the CPU's copy into staging memory */
		cost = hd_time_add(
		    cost,
		    hd_time_for_bytes((double)op->bytes, staging_rate(p, DIR_H2D, op->bytes, 0)));
	return cost;
}

/*
 * A kernel launch.  A fill with a ragged end launches a second, one-block
 * kernel for its tail (model_kernel_launches): the work goes on the stream
 * after the first launch, and the host pays the second while the first
 * runs (138 rounds of a 26 B fill on a blocking stream and a sync of the
 * legacy stream took 14.6 us a round on a lent H200, heldout16 021, where
 * work waiting for both launches took 18.1).
 */
static int
op_kernel(struct model *m, const struct hd_op *op, int opi)
{
	int gi, r, launches = model_kernel_launches(m, op);

	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_launch)) != H_NEXT)
			return r;
	}
	if (m->h.phase == 2) {
		gi = model_gop_new(m, G_KERNEL, op->stream, opi, m->h.iter);
		model_kernel_place(m, gi);
		/* a spin kernel launched on a stream also leaves the gap every
		 * kernel leaves to the next (200 spins of 10 us back to back took
		 * 11.5 us each on a lent H200, bench/probe/evrec.hds, 2026-11-28);
		 * in a graph the node gap, gpu.graph_node, stands for it */
		if (op->kernel == HD_KERNEL_SPIN)
			m->g[gi].dur += m->p->kernel_overhead;
		model_stream_submit(m, gi);
		model_kernel_last(m, op->stream, 1);
		model_kick(m);
		if (launches > 1)
			return host_sleep(m, (hd_time)(launches - 1) * m->p->api_launch, 3);
	}
	return host_api_end(m);
}

/* cudaEventRecord's host time: an event without timing takes less (200
 * records on a lent H200: 0.2-0.4 us each, 0.9-1.4 with timing;
 * bench/probe/apictx.hds, 2026-11-28). */
static hd_time
record_cost(const struct model *m, const struct hd_op *op)
{
	if (!m->sc->events[op->event].timing && m->p->api_event_notiming > 0)
		return m->p->api_event_notiming;
	return m->p->api_event;
}

static int
op_record(struct model *m, const struct hd_op *op, int opi)
{
	struct mevent *ev = &m->ev[op->event];
	int gi, r;

	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, record_cost(m, op))) != H_NEXT)
			return r;
	}
	gi = model_gop_new(m, G_RECORD, op->stream, opi, m->h.iter);
	model_stream_submit(m, gi);
	ev->recorded = 1;
	ev->stream = op->stream;
	ev->ticket = m->g[gi].ticket;
	model_kernel_last(m, op->stream, 0);
	model_kick(m);
	return host_api_end(m);
}

static int
op_wait(struct model *m, const struct hd_op *op, int opi)
{
	const struct mevent *ev = &m->ev[op->event];
	int gi, r;

	/* waiting on an event never recorded is a no-op, as in CUDA */
	if (!ev->recorded)
		return op_cost(m, m->p->api_wait);
	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_wait)) != H_NEXT)
			return r;
	}
	gi = model_gop_new(m, G_WAIT, op->stream, opi, m->h.iter);
	model_gop_dep(m, gi, ev->stream, ev->ticket);
	model_stream_submit(m, gi);
	model_kick(m);
	return host_api_end(m);
}

static int
op_prefetch(struct model *m, const struct hd_op *op, int opi)
{
	int gi, r;

	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_memcpy)) != H_NEXT)
			return r;
	}
	if (m->h.phase == 2) {
		const struct mstream *s = &m->st[op->stream];
		int deferred = s->tail >= 0 && m->g[s->tail].kind != G_PREFETCH;

		gi = model_gop_new(m, G_PREFETCH, op->stream, opi, m->h.iter);
		m->g[gi].deferred = deferred;
		m->g[gi].dir = op->to_device ? DIR_H2D : DIR_D2H;
		m->g[gi].bytes = model_buf_bytes(m, op->dst, op->bytes);
		m->g[gi].buf = op->dst;
		m->g[gi].to_device = op->to_device;
		model_stream_submit(m, gi);
		model_kick(m);
	}
	return host_api_end(m);
}

/* The host-side buffer of a copy between host and device (-1: none). */
static int
host_side(const struct hd_op *op)
{
	return op->copy == HD_COPY_H2D ? op->src : op->copy == HD_COPY_D2H ? op->dst : -1;
}

/* A copy the driver stages through its pinned buffers: its host side is
 * pageable or managed memory (cudaMemcpy of managed memory on the host ran
 * at the pageable rates, async or not, on a lent H100:
 * bench/probe/umcopy.hds). */
static int
is_staged(const struct model *m, const struct hd_op *op)
{
	int b = host_side(op);

	return b >= 0 && !is_inline(m, op) &&
	    (m->buf[b].mem == HD_MEM_PAGEABLE || m->buf[b].mem == HD_MEM_MANAGED);
}

/* Pinned (or device-side) copies: the copy engine does all the work. */
static int
op_copy_dma(struct model *m, const struct hd_op *op, int opi)
{
	static const enum dir dirs[HD_COPY__COUNT] = { [HD_COPY_H2D] = DIR_H2D,
						       [HD_COPY_D2H] = DIR_D2H,
						       [HD_COPY_D2D] = DIR_D2D,
						       [HD_COPY_P2P] = DIR_P2P };
	struct host *h = &m->h;
	int gi, r;

	switch (h->phase) {
	case 0:
	case 1:
		if ((r = submit_prologue(m, op->stream, copy_api_cost(m, op))) != H_NEXT)
			return r;
		/* FALLTHROUGH */
	case 2:
		managed_seen(m, op);
		gi = model_gop_new(m, G_COPY, op->stream, opi, h->iter);
		m->g[gi].dir = dirs[op->copy];
		m->g[gi].bytes = op->bytes;
		if (op->copy == HD_COPY_P2P)
			m->g[gi].peer = hd_op_peer(m->sc, op, m->rank);
		model_stream_submit(m, gi);
		model_kick(m);
		/* cudaMemcpy to or from the host returns when the copy is done;
		 * device-to-device cudaMemcpy does not block the host */
		if (op->async || op->copy == HD_COPY_D2D)
			return host_api_end(m);
		h->w.ticket = m->g[gi].ticket;
		if (host_wait(m,
			      wait_of(W_TICKET, op->stream, h->w.ticket, HD_WHY_SYNC_COPY,
				      sync_copy_wake(m)),
			      3) == H_YIELD)
			return H_YIELD;
		/* FALLTHROUGH */
	default:
		return host_api_end(m);
	}
}

/* How a copy reaches the managed pages of its host side. */
enum um_access {
	UM_READ,      /* read out of them by the driver's staged copy */
	UM_CPU_READ,  /* read out of them by the CPU (a host-to-host copy) */
	UM_DMA_WRITE, /* written by the driver's staged copy */
	UM_CPU_WRITE, /* written by the CPU (a host-to-host copy) */
	UM_DEV_READ,  /* read out of them by a READ's DMA: the CPU does not touch
		       * them, and a kernel after it is no round trip (a memory
		       * kernel and a 4 B read of 169 KB of managed memory,
		       * 50 rounds, took 1.1 ms on a lent H100 with each repeat on
		       * a buffer of its own, with a copy to the device instead of
		       * the read 9.4 ms: bench/probe/umkcopy.hds, run88) */
};

/*
 * Copy op's host side is managed buffer bi, `bytes` of it from its start:
 * pages of it on the device the CPU faults over to the host first, whole
 * um.page groups.  On a lent H100 a 7 B cudaMemcpy from managed memory
 * prefetched to the device took about 100 us more than the next one; 16
 * MiB out of it, and into it, took as long more as 9 and 2.9 GB/s against
 * a copy with the pages on the host, the second copy no more
 * (bench/probe/umcopy.hds).  The pages the driver's copies fault over stay
 * open to the next copy (host_copy) until a kernel brings them back
 * (model_xfer.c's kernel_begin, with the driver's thrashing heuristics:
 * a memory kernel on 169 KB of managed memory and a 9 B copy out of it,
 * 100 times in turn, took 8.9-10.1 ms on lent H100s with each repeat on a
 * buffer of its own; 1.4 ms measured before, with the repeats inheriting
 * the pages' pin: bench/probe/umthrash2.hds, managed.hds).  The CPU's own
 * writes (a host-to-host copy) bring the pages back (host_bytes): sixteen
 * rounds of a copy out of 24 KB of managed memory, its prefetch to the
 * device and a host-to-host copy into it took as long as moving it every
 * round (heldout13 010, runs 49-50).  The pages a copy writes into, or the CPU
 * reads out of, a prefetch to the device moves back (host_moved), those a
 * staged copy reads out of it need not: on a lent H200 90 rounds of a
 * prefetch of 169 KB of managed memory to the device and a 10 B copy from
 * the device into it took 6.6-7.0 ms, with a host-to-host copy out of it
 * instead 8.0-8.5 ms, where a prefetch that moved nothing was modelled at
 * 1.4 and 1.9 (bench/probe/umround.hds, run81); 8 rounds of a staged 181 B
 * copy out of 1540 KB of it and its prefetch took 0.41-0.45 ms, where
 * moving a page group back each round is modelled 20-40 % longer
 * (syncafter.hds, runs 37 and 39).  Returns the time (0 if none), and the
 * bytes into *moved, if not NULL.
 */
static hd_time
fault_back(struct model *m, int bi, uint64_t bytes, enum um_access acc, uint64_t *moved)
{
	const struct hd_profile *p = m->p;
	uint64_t page = p->um_page > 0 ? p->um_page : 4096, end, n, have, open;
	int write = acc == UM_DMA_WRITE || acc == UM_CPU_WRITE;
	double bw = write && p->um_host_fault_write_bw > 0 ? p->um_host_fault_write_bw :
							     p->um_host_fault_bw;
	struct mbuf *b;
	hd_time t;

	if (moved != NULL)
		*moved = 0;
	if (bi < 0 || m->buf[bi].mem != HD_MEM_MANAGED || !m->buf[bi].resident)
		return 0;
	b = &m->buf[bi];
	end = bytes / page * page < bytes ? (bytes / page + 1) * page : bytes;
	if (end > b->bytes)
		end = b->bytes;
	/* what READs alone opened serves READs, not a copy: after five READs
	 * a copy out of the buffer cost as much as after one (umtiny.hds) */
	open = acc == UM_DEV_READ || b->trip_open ? b->host_copy : 0;
	if (acc != UM_DEV_READ)
		b->trip_open = 1;
	if (acc == UM_CPU_READ)
		b->cpu_open = 1;
	if (acc != UM_READ && acc != UM_DEV_READ && acc != UM_CPU_WRITE && end > b->host_moved)
		b->host_moved = end;
	have = acc == UM_CPU_WRITE ? b->host_bytes : b->host_bytes > open ? b->host_bytes : open;
	if (end <= have)
		return 0;
	n = end - have;
	if (moved != NULL)
		*moved = n;
	if (acc == UM_CPU_WRITE)
		b->host_bytes = end;
	else
		b->host_copy = end;
	if (write && end >= b->bytes) { /* all of it written: on the host */
		b->resident = 0;
		model_buf_settled(b);
	}
	t = model_um_fixed(p->um_host_fault, b->bytes);
	if (bw > 0)
		t = hd_time_add(t, hd_time_for_bytes((double)n, bw));
	return t;
}

/*
 * The CPU's first write into the pages of managed buffer bi a prefetch to
 * the host brought there: `bytes` of it from its start, those not written
 * since, at um.prefetched_write beyond the write itself.  On a lent H100 a
 * CPU copy of 64 MB from pageable memory into managed memory just
 * prefetched to the host took 14.0 ms where the model's memcpy took 6.9,
 * five rounds of a round trip and that copy 98.9 ms against 60.9; a copy
 * of 4 KB into it, or none, left the next round trip as fast as one whose
 * pages the CPU never wrote (bench/probe/pftouch.hds, run96).  Returns the
 * time (0 if none).
 */
static hd_time
landed_write(struct model *m, int bi, uint64_t bytes)
{
	struct mbuf *b;
	uint64_t end;

	if (bi < 0 || m->buf[bi].mem != HD_MEM_MANAGED || m->buf[bi].resident ||
	    m->buf[bi].moving >= 0 || !(m->p->um_prefetched_write_bw > 0))
		return 0;
	b = &m->buf[bi];
	end = bytes < b->landed ? bytes : b->landed;
	if (end <= b->written)
		return 0;
	bytes = end - b->written;
	b->written = end;
	return hd_time_for_bytes((double)bytes, m->p->um_prefetched_write_bw);
}

/*
 * A host-to-host copy: the CPU's memcpy, faulting managed pages back from
 * the device.  cudaMemcpy first waits for the default stream (op->stream:
 * the legacy one, and so the blocking streams, or the per-thread one),
 * cudaMemcpyAsync for its own stream: behind a 2 ms kernel on the legacy or
 * a blocking stream a 21 B host-to-host cudaMemcpy waited for the kernel,
 * on a non-blocking stream it did not (lent H100, bench/probe/h2h.hds).
 */
static int
op_copy_host(struct model *m, const struct hd_op *op, int opi)
{
	struct host *h = &m->h;
	int stream = op->stream;
	hd_time now, d;
	int gi, r;

	switch (h->phase) {
	case 0:
	case 1:
		if ((r = submit_prologue(m, stream, copy_api_cost(m, op))) != H_NEXT)
			return r;
		/* FALLTHROUGH */
	case 2:
		managed_seen(m, op);
		gi = model_gop_new(m, G_MARK, stream, opi, h->iter);
		model_stream_submit(m, gi);
		model_kick(m);
		h->w.ticket = m->g[gi].ticket;
		if (host_wait(
			m,
			wait_of(W_TICKET, stream, h->w.ticket, HD_WHY_SYNC_COPY, m->p->sync_wake),
			3) == H_YIELD)
			return H_YIELD;
		/* FALLTHROUGH */
	case 3:
		now = hd_engine_now(m->eng);
		d = model_h2h_time(m, op);
		d = hd_time_add(d, fault_back(m, op->src, op->bytes, UM_CPU_READ, NULL));
		d = hd_time_add(d, fault_back(m, op->dst, op->bytes, UM_CPU_WRITE, NULL));
		d = hd_time_add(d, first_touch(m, op->dst, op->bytes));
		d = hd_time_add(d, landed_write(m, op->dst, op->bytes));
		if (m->thr != NULL) { /* on the cores the host threads share */
			h->phase = 4;
			model_cpu_start(m, 0, m->lane_host, h->op, h->iter, d, op->bytes,
					model_work_label(m, h->op));
			return H_YIELD;
		}
		model_emit(m, m->lane_host, h->op, h->iter, HD_SPAN_HOST, HD_WHY_NONE, now, now + d,
			   op->bytes, model_work_label(m, h->op));
		return host_sleep(m, d, 4);
	default:
		return host_api_end(m);
	}
}

/* Issue the DMA of staged chunk k (bytes of the last chunk may be short). */
static void
staged_dma(struct model *m, uint64_t k)
{
	struct host *h = &m->h;
	uint64_t bytes = h->chunk;
	struct gop *g = &m->g[h->g];
	int xi;

	if (k == h->nchunks - 1)
		bytes = g->bytes - k * h->chunk;
	xi = model_xfer_new(m, X_CHUNK, h->g, h->dir, bytes, 0, m->p->copy_latency,
			    m->ce_of[h->dir]);
	model_engine_queue(m, xi);
}

/* A staged copy whose host side is managed memory (a READ's is not). */
static int
staged_managed(const struct model *m, const struct hd_op *op)
{
	int b = op->kind == HD_OP_READ ? -1 : host_side(op);

	return b >= 0 && m->buf[b].mem == HD_MEM_MANAGED;
}

/*
 * A READ (cudaMemcpy device-to-host) of managed memory whose pages are on
 * the host: the driver brings them to the device first, as a kernel's
 * faults would, and they stay there.  On a lent H200 a read of all of a
 * managed buffer on the host took 47 us at 4 KiB, 0.48 ms at 2 MiB and
 * 5.4 ms at 32 MiB, against 8, 180 and 2000 us had the pages been on the
 * device; a second read of 298 KB of 3 MB took 50-70 us, the first 0.2-0.3
 * ms (bench/probe/umsize.hds, umloop.hds).
 */
static hd_time
read_fault_in(struct model *m, int bi, uint64_t bytes, uint64_t *moved)
{
	struct mbuf *b;
	hd_time nap = 0;

	*moved = 0;
	if (bi < 0 || m->buf[bi].mem != HD_MEM_MANAGED || m->buf[bi].resident ||
	    m->buf[bi].moving >= 0)
		return 0;
	b = &m->buf[bi];
	if (model_trip_pinned(m, bi, &nap)) /* the first trip of a run, as a kernel's */
		return 0;
	b->resident = 1;
	model_buf_settled(b);
	model_heap_moved(m, bi);
	*moved = bytes;
	return hd_time_add(nap, model_fault_in_time(m, bytes, b->bytes));
}

/*
 * A READ of managed memory on the device whose pages the CPU has since read
 * or written (a host-to-host copy): its DMA brings them over to the device
 * again, a trip as a kernel's is (model_trip_pinned: the driver throttles
 * the fourth in a row on), and the next such copy faults them back.  On two
 * lent H100s a 9 B READ of a 26 B managed buffer and a 9 B copy out of it
 * to pinned or pageable memory, each synced, took 0.35-0.39 ms a round
 * over 4, 9 and 20 rounds, where the model had the pages stay open to both
 * after the first round (0.06 ms a round); the READ alone 15-16 us a time,
 * with a fill kernel on the buffer in place of the copy 40-45 us a round
 * (bench/probe/umtiny.hds, umflip.hds: runs 92 and 93).  The driver's own
 * staged copies are left out: on lent H200s heldout17 017 (26 rounds of a
 * 21 B copy into 422 KB of managed memory and a READ of it, then more)
 * took 9.2-9.8 ms (run56) and heldout26 001 (5 rounds of a READ of 51 B,
 * a 5 B cudaMemcpy out of it to the device and a READ again, then more)
 * 0.73-0.79 ms (runs 76-78), where a trip each READ put them at 14.1 ms
 * and 1.89 ms with h200-sxm; a lent H100 did flip the pages with a
 * cudaMemcpyAsync to the device (umflip.hds rd).
 */
static hd_time
read_trip(struct model *m, int bi, uint64_t bytes, uint64_t *moved)
{
	struct mbuf *b;
	uint64_t back;
	hd_time nap = 0;

	*moved = 0;
	if (bi < 0 || m->buf[bi].mem != HD_MEM_MANAGED || !m->buf[bi].resident)
		return 0;
	b = &m->buf[bi];
	back = model_buf_back(b, bytes, b->cpu_open);
	if (back == 0 || model_trip_pinned(m, bi, &nap))
		return 0;
	model_buf_settled(b);
	b->copied = 0;
	model_heap_moved(m, bi);
	*moved = back;
	return hd_time_add(nap, model_fault_in_time(m, back, b->bytes));
}

/* What staged copy op (or READ) pays for the managed pages of its host
 * side that are on the device: reading or writing them, the CPU faults
 * them back first; a READ's on the host go to the device. */
static hd_time
staged_fault_back(struct model *m, const struct hd_op *op, uint64_t bytes, uint64_t *moved)
{
	if (op->kind == HD_OP_READ) {
		hd_time t = read_fault_in(m, op->src, bytes, moved);

		if (*moved == 0)
			t = read_trip(m, op->src, bytes, moved);
		return *moved > 0 ? t : fault_back(m, op->src, bytes, UM_DEV_READ, moved);
	}
	return fault_back(m, host_side(op), bytes, op->copy == HD_COPY_D2H ? UM_DMA_WRITE : UM_READ,
			  moved);
}

/*
 * A copy through pageable memory, or managed memory (and a READ).  The
 * host submits the copy,
 * waits until the stream reaches it (the documented stream sync before a
 * pageable copy), then moves the data chunk by chunk through
 * staging_buffers pinned buffers used in turn: for HtoD a CPU memcpy into
 * a free buffer, then that chunk's DMA; for DtoH the DMA into a buffer,
 * then a CPU memcpy out of it.  HtoD returns after the last memcpy (its
 * DMA may still be in flight), out of managed memory only once the last
 * DMA is done, async or not: on a lent H200 50 rounds of a memory kernel
 * and a 19 B copy out of 169 KB of managed memory took 1.30-1.32 ms
 * (cudaMemcpy) and 0.77-0.89 ms (cudaMemcpyAsync on another stream),
 * modelled at 0.87 and 0.59 ms before it waited, 1.12 and 0.81 since
 * (bench/probe/umkcopy.hds, run75's calibrated profile).  DtoH returns
 * after the last memcpy, which follows the last DMA.
 */
static int
op_copy_staged(struct model *m, const struct hd_op *op, int opi, enum dir d, uint64_t bytes,
	       enum hd_why why)
{
	struct host *h = &m->h;
	const struct hd_profile *p = m->p;
	hd_time now = hd_engine_now(m->eng), dt;
	uint64_t nbuf = p->staging_buffers > 0 ? (uint64_t)p->staging_buffers : 1;
	uint64_t cb;
	struct hwait w;
	int gi, r;

	for (;;) {
		switch (h->phase) {
		case 0:
		case 1:
			if ((r = submit_prologue(m, op->stream, copy_api_cost(m, op))) != H_NEXT)
				return r;
			/* FALLTHROUGH */
		case 2:
			managed_seen(m, op);
			gi = model_gop_new(m, G_STAGED, op->stream, opi, h->iter);
			h->g = gi;
			h->ggen = m->g[gi].gen;
			h->dir = d;
			h->why = why;
			h->chunk = p->staging_chunk > 0 ? p->staging_chunk : bytes;
			if (h->chunk == 0)
				h->chunk = 1;
			h->nchunks = bytes == 0 ? 1 : (bytes + h->chunk - 1) / h->chunk;
			h->i = 0;
			h->issued = 0;
			m->g[gi].bytes = bytes;
			m->g[gi].nchunks = h->nchunks;
			model_stream_submit(m, gi);
			model_kick(m);
			w = wait_of(W_STARTED, 0, 0,
				    why == HD_WHY_READ ? HD_WHY_READ : HD_WHY_PRIOR_WORK,
				    p->sync_wake);
			w.slot = h->g;
			w.gen = h->ggen;
			if (host_wait(m, w, 3) == H_YIELD)
				return H_YIELD;
			/* FALLTHROUGH */
		case 3:
			/* managed pages on the device come back first */
			dt = staged_fault_back(m, op, bytes, &cb);
			if (dt > 0) {
				now = hd_engine_now(m->eng);
				model_emit(m, m->lane_host, opi, h->iter, HD_SPAN_FAULT,
					   HD_WHY_NONE, now, now + dt, cb, m->lbl_fault);
				return host_sleep(m, dt, 4);
			}
			/* FALLTHROUGH */
		case 4:
			h->stage_start = hd_engine_now(m->eng);
			if (h->dir == DIR_D2H)
				for (; h->issued < h->nchunks && h->issued < nbuf; h->issued++)
					staged_dma(m, h->issued);
			h->phase = 5;
			/* FALLTHROUGH */
		case 5:
			/* chunk i: HtoD needs its buffer free (the DMA of chunk
			 * i - nbuf done); DtoH needs its own DMA done, and a host
			 * blocked on it wakes as from any wait (a 4 B pageable
			 * DtoH cudaMemcpy took 7-9 us on a lent H100, a pinned
			 * one 7: bench/probe/smallsync.hds) */
			w = wait_of(W_CHUNKS, 0, 0, h->why, h->dir == DIR_D2H ? p->sync_wake : 0);
			/* the last chunk's wait ends the synchronous copy's */
			if (h->dir == DIR_D2H && !op->async && h->i == h->nchunks - 1)
				w.wake = sync_copy_wake(m);
			w.quiet = 1;
			w.slot = h->g;
			w.gen = h->ggen;
			if (h->dir == DIR_H2D)
				w.ticket = h->i >= nbuf ? h->i - nbuf + 1 : 0;
			else
				w.ticket = h->i + 1;
			if (host_wait(m, w, 6) == H_YIELD)
				return H_YIELD;
			/* FALLTHROUGH */
		case 6:
			now = hd_engine_now(m->eng);
			cb = h->i == h->nchunks - 1 ? bytes - h->i * h->chunk : h->chunk;
			dt = hd_time_for_bytes(
			    (double)cb,
			    staging_rate(p, h->dir, m->g[h->g].bytes,
					 staged_managed(m, op) && big_managed(m, host_side(op))));
			if (h->dir == DIR_D2H && op->kind == HD_OP_COPY) /* into pageable pages */
				dt = hd_time_add(dt, first_touch(m, op->dst, h->i * h->chunk + cb));
			model_emit(m, m->lane_host, opi, h->iter, HD_SPAN_STAGING, HD_WHY_NONE, now,
				   now + dt, cb, m->lbl_staging);
			return host_sleep(m, dt, 7);
		case 7:
			if (h->dir == DIR_H2D)
				staged_dma(m, h->i);
			else if (h->issued < h->nchunks)
				staged_dma(m, h->issued++);
			h->i++;
			if (h->i < h->nchunks) {
				h->phase = 5;
				continue;
			}
			if (h->dir == DIR_H2D && staged_managed(m, op)) {
				/* out of managed memory: back when its DMA is done */
				w = wait_of(W_CHUNKS, 0, 0, h->why,
					    op->async ? p->sync_wake : sync_copy_wake(m));
				w.quiet = 1;
				w.slot = h->g;
				w.gen = h->ggen;
				w.ticket = h->nchunks;
				if (host_wait(m, w, 8) == H_YIELD)
					return H_YIELD;
			}
			/* FALLTHROUGH */
		case 8:
			now = hd_engine_now(m->eng);
			if (now > h->stage_start)
				model_emit(m, m->lane_api, opi, h->iter, HD_SPAN_BLOCKED, h->why,
					   h->stage_start, now, 0, model_api_label(m, opi));
			return host_api_end(m);
		}
	}
}

static int
op_copy(struct model *m, const struct hd_op *op, int opi)
{
	if (op->copy == HD_COPY_H2H)
		return op_copy_host(m, op, opi);
	if (is_staged(m, op))
		return op_copy_staged(m, op, opi, op->copy == HD_COPY_H2D ? DIR_H2D : DIR_D2H,
				      op->bytes, HD_WHY_PAGEABLE);
	return op_copy_dma(m, op, opi);
}

static int
op_read(struct model *m, const struct hd_op *op, int opi)
{
	return op_copy_staged(m, op, opi, DIR_D2H,
			      op->bytes != 0 ? op->bytes : model_buf_bytes(m, op->src, 0),
			      HD_WHY_READ);
}

/* ncclSend, ncclRecv and the collectives: a launch, then work on the stream. */
static int
op_comm(struct model *m, const struct hd_op *op, int opi)
{
	static const enum gop_kind kinds[HD_OP__COUNT] = {
		[HD_OP_SEND] = G_SEND,
		[HD_OP_RECV] = G_RECV,
		[HD_OP_COLL] = G_COLL,
	};
	int gi, r, buf = op->kind == HD_OP_RECV ? op->dst : op->src;

	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_launch)) != H_NEXT)
			return r;
	}
	gi = model_gop_new(m, kinds[op->kind], op->stream, opi, m->h.iter);
	m->g[gi].bytes = op->bytes != 0 ? op->bytes :
					  model_buf_bytes(m, buf >= 0 ? buf : op->dst, 0);
	if (op->kind == HD_OP_COLL)
		m->g[gi].seq = m->ncoll++;
	else
		m->g[gi].peer = hd_op_peer(m->sc, op, m->rank);
	model_stream_submit(m, gi);
	/* one communicator runs its calls one at a time, in the order they were
	 * made, whatever their streams (NVIDIA/nccl#574) */
	if (m->comm_stream >= 0 && m->comm_stream != op->stream)
		model_gop_dep(m, gi, m->comm_stream, m->comm_ticket);
	m->comm_stream = op->stream;
	m->comm_ticket = m->g[gi].ticket;
	model_kick(m);
	return host_api_end(m);
}

/* cudaGraphLaunch: one call, one entry on the stream for the whole graph. */
static int
op_launch(struct model *m, const struct hd_op *op, int opi)
{
	int gi, r;

	if (m->h.phase < 2) {
		if ((r = submit_prologue(m, op->stream, m->p->api_graph_launch)) != H_NEXT)
			return r;
	}
	gi = model_gop_new(m, G_GRAPH, op->stream, opi, m->h.iter);
	model_graph_gop(m, gi, op->graph);
	model_stream_submit(m, gi);
	model_kick(m);
	return host_api_end(m);
}

/* A host barrier across ranks (MPI_Barrier). */
static int
op_barrier(struct model *m, const struct hd_op *op, int opi)
{
	struct world *w = m->w;
	int r;

	(void)op;
	(void)opi;
	if (m->h.phase == 0) {
		m->nbarrier++;
		if (++w->barrier_arrived == (uint64_t)w->n) {
			w->barrier_arrived = 0;
			w->barrier_done++;
			for (r = 0; r < w->n; r++)
				model_touch(&w->rk[r]);
		}
	}
	return op_sync(m, wait_of(W_BARRIER, 0, m->nbarrier, HD_WHY_COLLECTIVE, m->p->sync_wake),
		       0);
}

/* A workers block: its threads start now and run its body; the main thread
 * goes on after it (model_host.c). */
static int
op_workers(struct model *m, const struct hd_op *op, int opi)
{
	model_threads_start(m, opi);
	m->h.pc += op->body_len;
	return H_DONE;
}

/* put or get: done at once, or the main thread waits until another host
 * thread takes an item or puts one (model_host.c). */
static int
op_queue(struct model *m, const struct hd_op *op, int opi)
{
	struct hwait w;

	(void)opi;
	if (m->h.phase == 0 && model_queue_op(m, 0, op) != 0) {
		w = wait_of(W_HANDOFF, 0, 0, op->kind == HD_OP_GET ? HD_WHY_DATA : HD_WHY_ROOM, 0);
		w.slot = op->queue;
		if (host_wait(m, w, 1) == H_YIELD)
			return H_YIELD;
	}
	return host_api_end(m);
}

/* A loop or rank block's header: host_next walks into its body or past it,
 * so the host never runs the header itself. */
static int
op_block(struct model *m, const struct hd_op *op, int opi)
{
	(void)m;
	(void)op;
	(void)opi;
	return H_DONE;
}

typedef int (*op_fn)(struct model *, const struct hd_op *, int);

/* What the host thread does for each kind of op, one step at a time. */
static const op_fn op_table[HD_OP__COUNT] = {
	[HD_OP_ALLOC] = op_alloc,
	[HD_OP_FREE] = op_free,
	[HD_OP_PIN] = op_pin,
	[HD_OP_COPY] = op_copy,
	[HD_OP_KERNEL] = op_kernel,
	[HD_OP_PREFETCH] = op_prefetch,
	[HD_OP_RECORD] = op_record,
	[HD_OP_WAIT] = op_wait,
	[HD_OP_EVENT_SYNC] = op_event_sync,
	[HD_OP_EVENT_QUERY] = op_query,
	[HD_OP_STREAM_SYNC] = op_stream_sync,
	[HD_OP_DEVICE_SYNC] = op_device_sync,
	[HD_OP_HOST] = op_host,
	[HD_OP_READ] = op_read,
	[HD_OP_SEND] = op_comm,
	[HD_OP_RECV] = op_comm,
	[HD_OP_COLL] = op_comm,
	[HD_OP_BARRIER] = op_barrier,
	[HD_OP_REPEAT] = op_block,
	[HD_OP_ON_RANK] = op_block,
	[HD_OP_WORKERS] = op_workers,
	[HD_OP_PUT] = op_queue,
	[HD_OP_GET] = op_queue,
	[HD_OP_GRAPH] = op_block,
	[HD_OP_LAUNCH] = op_launch,
};

bool
hd_model_handles_ok(enum hd_op_kind k)
{
	return (unsigned)k < HD_OP__COUNT && op_table[k] != NULL;
}

/* Run one step of op opi; H_DONE when the op is over. */
static int
host_op(struct model *m, int opi)
{
	const struct hd_op *op = &m->sc->ops[opi];

	return op_table[op->kind](m, op, opi);
}

/* The next op the host thread executes, or -1 at the end of the list. */
static int
host_next(struct model *m)
{
	struct host *h = &m->h;
	const struct hd_scenario *sc = m->sc;
	const struct hd_op *op;
	struct loop *l;

	for (;;) {
		while (h->sp > 0 && h->pc == h->stack[h->sp - 1].end) {
			l = &h->stack[h->sp - 1];
			/* an iteration that ran nothing (its ops were all for
			 * other ranks) would run nothing again: stop there */
			if (--l->left > 0 && h->returned != l->mark) {
				h->pc = l->start;
				l->mark = h->returned;
			} else
				h->sp--;
		}
		if (h->pc >= sc->nops)
			return -1;
		op = &sc->ops[h->pc];
		if (op->kind == HD_OP_REPEAT) {
			if (op->count == 0 || op->body_len <= 0) {
				h->pc += 1 + (op->body_len > 0 ? op->body_len : 0);
				continue;
			}
			h->stack = hd_xgrow(h->stack, &h->stack_cap, h->sp + 1, sizeof *h->stack);
			l = &h->stack[h->sp++];
			l->start = h->pc + 1;
			l->end = h->pc + 1 + op->body_len;
			l->left = op->count;
			l->mark = h->returned;
			h->pc++;
			continue;
		}
		if (op->kind == HD_OP_ON_RANK) {
			h->pc += op->rank == m->rank ? 1 : 1 + op->body_len;
			continue;
		}
		if (op->kind == HD_OP_GRAPH) { /* captured before the run: its launches run it */
			h->pc += 1 + op->body_len;
			continue;
		}
		h->returned++;
		return h->pc++;
	}
}

void
model_host_step(struct model *m, volatile int *stop)
{
	struct host *h = &m->h;

	for (;;) {
		if (h->op < 0) {
			if (stop != NULL && *stop)
				return;
			h->op = host_next(m);
			if (h->op < 0) {
				h->done = 1;
				return;
			}
			h->iter = m->execs[h->op]++;
			h->phase = 0;
			h->t0 = hd_engine_now(m->eng);
			m->op_execs++;
		}
		if (host_op(m, h->op) != H_DONE)
			return;
		h->op = -1;
	}
}
