/*
 * diagram.h - the run screen's moving diagrams, drawn from the trace at the
 * playhead: each stream as the queue of ops the host has launched and the
 * GPU has not finished, and a collective's ranks on their ring with the
 * chunk on each link, the ring's step and the collective's bandwidths.
 *
 * Pure functions of (trace, scenario, playhead, rectangle) like view.h;
 * nothing here reads a clock or a terminal.
 */
#ifndef HD_DIAGRAM_H
#define HD_DIAGRAM_H

#include <stdbool.h>

#include "base/units.h"
#include "ir/ir.h"
#include "ir/trace.h"
#include "tui/screen.h"
#include "tui/view.h"

/*
 * The queue of stream lane `lane` at `at`: the spans of the lane whose op
 * the host has launched (its API span on the lane's rank ended at or before
 * `at`) and whose work has not ended (end > at), one per execution, in FIFO
 * order (by start).  Ops that do not go on a stream (ir/opfacts.h, when sc
 * is given) are left out.  Up to max of them into out[]; returns how many
 * there are (may exceed max).
 */
int hd_diagram_queue(const struct hd_trace *t, const struct hd_scenario *sc, int lane, hd_time at,
		     const struct hd_span **out, int max);

/* Where a collective is at one instant. */
struct hd_diagram_coll {
	int op;        /* the collective op (one of sc->ops) */
	uint32_t iter; /* its execution */
	enum hd_coll coll;
	int nranks;
	int step, nsteps;            /* the ring step, 1 .. nsteps (0: not started yet);
			   * nsteps 0: no ring counter */
	int phase_step, phase_steps; /* the step within its phase, and the phase's */
	const char *phase;           /* "reduce-scatter", "all-gather", or NULL */
	hd_time start, end;          /* its span on rank 0's stream */
};

/*
 * The collective on rank 0's stream at `at` (the one running, else the last
 * one ended at or before `at`, else the first to come, at step 0): false
 * when there is none.  Ring algorithms
 * (all-reduce: reduce-scatter then all-gather, n - 1 steps each;
 * reduce-scatter or all-gather alone: n - 1 steps) count their step by the
 * share of the op's time gone.  An all-reduce whose transfers on rank 0's
 * links are not one a ring step (a tree) has no ring counter (nsteps 0).
 */
bool hd_diagram_coll_at(const struct hd_trace *t, const struct hd_scenario *sc, hd_time at,
			struct hd_diagram_coll *out);

/*
 * The chunk rank `rank` sends on the ring at step `step` of c (the textbook
 * ring, as the model moves it: in reduce-scatter step k, and in a lone
 * all-gather's, (rank - k + 1) mod n; in an all-reduce's all-gather step k,
 * (rank - k + 2) mod n).
 */
int hd_diagram_ring_chunk(const struct hd_diagram_coll *c, int rank);

/*
 * The ring steps each rank has received by `at`, into got[0 .. c->nranks):
 * the transfers of c on the links out of the rank before it in the ring
 * (rank - 1) that have ended by then, one a step.  Where the trace has no
 * link spans of c (too many transfers to draw, or a measured run), the
 * steps gone by the share of time: c->step - 1 while it runs, all of them
 * once it has ended.  Returns 0, or -1 when c has no ring counter or a
 * rank's link spans of c are not one a ring step (got[] is then unset).
 * One pass over the trace.
 */
int hd_diagram_ring_got(const struct hd_trace *t, const struct hd_diagram_coll *c, hd_time at,
			int *got);

/*
 * What piece `piece` (0 .. n - 1) of rank `rank`'s buffer holds once the
 * rank has received `got` ring steps of c (hd_diagram_ring_got), pieces
 * moving as hd_diagram_ring_chunk says: in a reduce-scatter, and in an
 * all-reduce's first n - 1 steps, how many ranks' contributions are summed
 * into it, 1 (its own) .. n (complete): rank r's piece (r - j) mod n holds
 * j + 1 once it has received j steps or more.  In the all-gather that
 * follows, each step brings one complete piece (n): rank r's piece
 * (r + 1 - i) mod n after i of its steps.  In a lone all-gather a rank
 * starts with its own piece and gets piece (r - j) mod n at step j: n for
 * the pieces it has, 0 for those still to come.  0 for a collective
 * without ring steps.
 */
int hd_diagram_ring_piece(const struct hd_diagram_coll *c, int got, int rank, int piece);

/*
 * The ring of ranks in r (rows r.y ..): the collective's name, its step
 * counter and phase, algBw and busBw (measured beside them when o's ghost is
 * the measured run), then the ranks in ring order with the chunk on each
 * busy link ("R2 -[c5]-> R3"; "-[==]->" where the collective has no ring
 * steps), folded to the first ranks and the last when
 * they do not fit; with a third row, under each rank its buffer as n pieces
 * (hd_diagram_ring_piece): a digit for the ranks summed into each
 * (n <= 9), else a shade of the share, a full block once complete, a dot
 * where a piece has not come.  Returns the rows used (0 when there is no
 * collective).
 */
int hd_diagram_ring(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		    const struct hd_scenario *sc, const struct hd_view_opts *o, int nranks);

/* ---- the host's path to the link -------------------------------------- */

/* Where a staged copy (pageable memory, through the pinned staging buffer)
 * is at one instant. */
struct hd_diagram_staged {
	int op;         /* the copy's op */
	uint32_t iter;  /* its execution */
	int nchunks;    /* its chunks (its staging spans on rank 0) */
	uint64_t chunk; /* the bytes of its first chunk */
	int host, link; /* the chunk the host memcpy's and the one on PCIe,
			      * 1 .. nchunks (0: none at the instant) */
};

/*
 * The staged copy on rank 0 at `at`: the one whose staging memcpy (a span
 * of kind staging) or a chunk on a PCIe lane is under the playhead.  False
 * when there is none.  Chunks count in the order they start.
 */
bool hd_diagram_staged_at(const struct hd_trace *t, hd_time at, struct hd_diagram_staged *out);

/*
 * Managed memory at `at`: the bytes the fault spans on rank 0's PCIe lanes
 * have migrated by then (each at an even pace over its span) into *bytes,
 * and the groups of `group` bytes they make (rounded up) into *groups.
 * False when the trace has no fault spans there.
 */
bool hd_diagram_faults_at(const struct hd_trace *t, hd_time at, uint64_t group, uint64_t *bytes,
			  uint64_t *groups);

/*
 * The host's path to the link in r, as much of it as is happening at the
 * playhead: a staged copy's staging buffer with its chunks ("chunk 3 of 8:
 * host memcpy; chunk 2 of 8: on PCIe"), then the managed-memory fault
 * counter ("faults: 12 groups, 768 KiB migrated", groups of `group` bytes).
 * Returns the rows used (0 when neither is there or r has no room).
 */
int hd_diagram_path(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t, hd_time at,
		    uint64_t group);

/* ---- send / recv between ranks ------------------------------------------ */

/* A send on the wire: rank `from` to rank `to`, op `op` of the scenario. */
struct hd_diagram_send {
	int from, to, op;
};

/*
 * The sends whose bytes are on a link at `at` (comm spans of send ops on
 * link lanes; the peer from the scenario), by sending rank: up to max into
 * out[]; returns how many there are (may exceed max).
 */
int hd_diagram_sends(const struct hd_trace *t, const struct hd_scenario *sc, hd_time at,
		     struct hd_diagram_send *out, int max);

/*
 * The cycle of waits of a deadlocked run, read from its note (ir/trace.h:
 * each stuck rank's line names the rank it waits for): the ranks of the
 * first cycle in rank order into out[], the first again at the end
 * (0 1 0: rank 0 waits for 1, which waits for 0).  Returns how many were
 * written (0: no note, or no cycle among its ranks; at most max).
 */
int hd_diagram_deadlock_cycle(const struct hd_trace *t, int nranks, int *out, int max);

/*
 * Point-to-point traffic in r: the sends on the wire at the playhead as
 * arrows between ranks named by their buffer ("R0 --d--> R1"), and a
 * deadlock as its cycle ("deadlock: R0 waits for R1 waits for R0").
 * Returns the rows used (0 when there is neither).
 */
int hd_diagram_p2p(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		   const struct hd_scenario *sc, hd_time at, int nranks);

#endif
