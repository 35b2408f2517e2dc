/*
 * engine.h - the deterministic discrete-event core.
 *
 * A priority queue of small fixed-size events ordered by (time, sequence
 * number).  Time is integer picoseconds; the sequence number is the order in
 * which events were scheduled, so events at the same time run in the order
 * they were made and a run never depends on addresses or a wall clock.
 * Events carry a type tag and two integer payloads that the caller
 * interprets; there is no allocation per event (the heap is one growable
 * array of events).
 */
#ifndef HD_ENGINE_H
#define HD_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "base/units.h"

struct hd_event_rec {
	hd_time t;     /* when it fires */
	uint64_t seq;  /* scheduling order: the tie-break at equal times */
	uint32_t type; /* the caller's tag */
	uint32_t a;    /* the caller's payloads */
	uint64_t b;
};

struct hd_engine;

struct hd_engine *hd_engine_new(void);
void hd_engine_free(struct hd_engine *e); /* accepts NULL */

/* The time of the event being handled (0 before the first pop). */
hd_time hd_engine_now(const struct hd_engine *e);

/*
 * Schedule an event at time t (t >= now; an earlier time is a bug in the
 * caller and is fatal).  Never fails.
 */
void hd_engine_at(struct hd_engine *e, hd_time t, uint32_t type, uint32_t a, uint64_t b);

/*
 * Remove the earliest event into *out and advance now to its time.
 * Returns 1, or 0 when the queue is empty.
 */
int hd_engine_pop(struct hd_engine *e, struct hd_event_rec *out);

/* Handler for hd_engine_run. */
typedef void (*hd_engine_fn)(void *ctx, const struct hd_event_rec *ev);

/*
 * Pop and handle events until the queue is empty, or until *stop (if stop
 * is not NULL) becomes non-zero.  Returns the number of events handled.
 */
uint64_t hd_engine_run(struct hd_engine *e, hd_engine_fn fn, void *ctx, volatile int *stop);

/* Statistics, for `hdsim bench` and the tests. */
uint64_t hd_engine_events(const struct hd_engine *e); /* events popped so far */
size_t hd_engine_pending(const struct hd_engine *e);  /* events queued now */
size_t hd_engine_peak(const struct hd_engine *e);     /* most ever queued at once */

#endif
