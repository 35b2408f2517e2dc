/*
 * view.h - the run screen as a view of a trace: timeline, diagram, status.
 *
 * Pure functions of (trace, scenario, playhead, rectangle) that draw into a
 * render buffer (screen.h); nothing here reads a clock or a terminal, so a
 * frame is reproducible and testable.  The timeline pane uses the text
 * timeline's glyphs, lane order and tick steps (render/timeline.h) so the TUI
 * and `hdsim run` draw a run alike.
 *
 * Spans appear as the playhead passes them: at time t a span is drawn from
 * its start up to min(end, t); at t >= makespan every span is whole (zero
 * length events included), at t = 0 none is.
 */
#ifndef HD_VIEW_H
#define HD_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/units.h"
#include "ir/ir.h"
#include "ir/trace.h"
#include "tui/screen.h"

struct hd_view_opts {
	hd_time t;                    /* the playhead */
	double speed;                 /* playback speed shown in the status line (1 = 1x) */
	bool playing;                 /* status line: playing or paused */
	const struct hd_trace *ghost; /* previous run drawn dim beneath, or NULL */
	const char *ghost_name;       /* what the ghost is, for the status line and its
					 * rows (NULL: "before", the run before a knob change) */
	const char *ghost_about;      /* how the ghost's run differs, for the status
					 * line ("cpu = 2.00 ms"), or NULL */
	int highlight;                /* span index drawn highlighted, or -1 */
	double h2d_bw, d2h_bw;        /* PCIe peak per direction, bytes/s; 0: the
					 * fastest span of that lane in the trace */
	hd_time z0, z1;               /* zoom: the timeline shows [z0, z1); z1 <= z0:
					 * the whole run */
	uint64_t fault_group;         /* bytes one demand fault migrates (the profile's
					 * um.page); 0: 64 KiB */
	int rank_from;                /* ranks folded in the timeline: 0 keeps the first
					 * ranks and the last (as hdsim run folds them);
					 * k > 0 scrolls, rank k first (see hd_view_fold) */
	struct hd_view_fold *fold;    /* where the timeline says what it folded, or NULL */
};

/* What the timeline folded, for scrolling through ranks (written by
 * hd_view_timeline into o->fold when it is set). */
struct hd_view_fold {
	bool folded; /* some ranks are in a fold row */
	int from;    /* o->rank_from, kept to what can be shown: with it the
			* last rank fits at the end */
	int first;   /* the first rank of the ranks shown whole after the fold
			* above (0 unscrolled) */
	int last;    /* the last of them (the final rank itself not counted
			* when unscrolled) */
	int nranks;  /* ranks in the trace */
};
/* Defaults: t 0, speed 1, paused, no ghost, no highlight, bandwidth from the
 * trace, the whole run. */
void hd_view_opts_init(struct hd_view_opts *o);

/* The role a span is drawn in (copies by direction, as their glyph). */
enum hd_role hd_view_span_role(const struct hd_trace *t, const struct hd_scenario *sc,
			       const struct hd_span *s);

/* ---- timeline pane ------------------------------------------------------- */

/*
 * Geometry of the timeline pane in rectangle r: the lane name column, the
 * bar area and the time it spans (from t0 = 0, the longer of the trace's and
 * the ghost's makespans, at least 1 ps; a zoom narrows it).  Column c of the
 * bar covers [t0 + c * span / bar_w, t0 + (c + 1) * span / bar_w).
 */
struct hd_tl_geom {
	int name_w;       /* lane name column */
	int bar_x, bar_w; /* first column of the bar area and its width (may be 0) */
	int lanes_y;      /* row of the first lane */
	int nrows;        /* lane rows shown (lanes beyond them are left out) */
	int axis_y;       /* axis row, or -1 when there is no room */
	hd_time t0, span; /* the time at the bar's left edge, and its width */
};
void hd_view_tl_geom(struct hd_tl_geom *g, const struct hd_trace *t, const struct hd_trace *ghost,
		     struct hd_rect r);
/* The bar column (relative to bar_x) of time tm: floor((tm - t0) * bar_w / span). */
int hd_view_tl_col(const struct hd_tl_geom *g, hd_time tm);

/*
 * Draw the timeline pane into r: one row per lane in display order with its
 * name, spans up to the playhead in the cells of render/timeline.h (each
 * cell's share of busy time, boundaries between back-to-back ops; blocked
 * host time shaded and labelled with its reason), the playhead column, and
 * the time axis with tick labels in the last two rows when they fit; o's
 * zoom window when set.  With a ghost, each lane whose spans differ in the
 * ghost gets a row of its own beneath it, named after the ghost ("  before"),
 * the ghost's spans whole and dim.  Where the rows do not fit, lanes with
 * no spans go first; then, with several ranks, ranks fold: unscrolled
 * (o->rank_from 0) the first ranks and the last keep their rows and one row
 * stands for those between ("R2-R62  (61 ranks like these not shown)");
 * scrolled to rank k, one row stands for the ranks before k, then ranks
 * k .. as many as fit, then one row for the rest (none once the last rank
 * fits; k is kept to the most that shows the last rank).  Writes only
 * inside r, and what it folded into *o->fold when o->fold is set.
 */
void hd_view_timeline(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		      const struct hd_scenario *sc, const struct hd_view_opts *o);

/* ---- diagram pane -------------------------------------------------------- */

#define HD_LINK_MAX_FLOWS 8

/* What one link direction carries at one instant. */
struct hd_link_use {
	int nflows;                      /* transfers on the link at that time */
	uint64_t in_flight;              /* bytes of those transfers not yet delivered */
	double rate;                     /* their summed average rates, bytes/s */
	double peak;                     /* the link's bandwidth used as 100 %, bytes/s */
	double use;                      /* rate / peak, 0 .. 1 */
	double share[HD_LINK_MAX_FLOWS]; /* each transfer's rate / peak, in span order */
	double done[HD_LINK_MAX_FLOWS];  /* each transfer's fraction delivered */
};

/*
 * The use of the link lanes of kind `lane` (HD_LANE_PCIE_H2D / _D2H, or
 * HD_LANE_LINK) of rank 0 at time `at`: every span active at `at`
 * (start <= at < end) counts with its average rate bytes / (end - start).
 * `peak` is the bandwidth that is 100 %; 0 takes the fastest average rate of
 * any span on those lanes (the rate of a transfer that had the link alone).
 */
void hd_view_link_use(const struct hd_trace *t, enum hd_lane_kind lane, hd_time at, double peak,
		      struct hd_link_use *out);

/*
 * Draw the diagram pane into r: boxes for the host (what it is doing or why
 * it is blocked), the PCIe link in both directions (a meter of link use,
 * the transfers moving, bytes in flight) and the GPU (copy engines, compute,
 * streams: what each runs at the playhead).  Writes only inside r; parts
 * that do not fit are left out.
 */
void hd_view_diagram(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		     const struct hd_scenario *sc, const struct hd_view_opts *o);

/* Draw a meter of `frac` (0..1) in w cells at x, y: round(frac * w) full
 * cells, then empty ones; the full part in style `full`. */
void hd_view_meter(struct hd_screen *scr, const struct hd_rect *clip, int x, int y, int w,
		   double frac, const char *glyph, struct hd_style full);

/* ---- status line --------------------------------------------------------- */

/* One row: playhead time of makespan, play state and speed, and the change
 * in makespan against the ghost when there is one, with what the ghost's run
 * was ("previous run: cpu = 2.00 ms") when o says. */
void hd_view_status(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		    const struct hd_view_opts *o);

/* ---- the whole run screen ----------------------------------------------- */

/*
 * The run screen in r: the diagram pane on top (when r has room for it), the
 * timeline pane below it, the status line at the bottom.  r may be any size,
 * even 0 x 0; nothing is written outside it.
 */
void hd_view_run(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		 const struct hd_scenario *sc, const struct hd_view_opts *o);

/* ---- compare and legend -------------------------------------------------- */

/*
 * A box in r: traces[0 .. n) (a lesson's scenarios, names[i] naming each,
 * sc[i] may be NULL) on one time axis, each its compare bar
 * (hd_timeline_compare_bar) as long as its makespan with the makespan after
 * it, scenario `cur` in bold, the axis beneath.  Writes only inside r;
 * nothing when r is too small.
 */
void hd_view_compare(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *const *traces,
		     const struct hd_scenario *const *sc, const char *const *names, int n, int cur);

/*
 * The legend (hd_timeline_legend: the looks t uses from ir/spanlook.h, the
 * busy-share glyphs, the boundary; then, when o has a ghost, its rows'
 * name and what the previous run was) in a box at the top right of r.  o
 * may be NULL.  Returns the number of entries.
 */
int hd_view_legend(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		   const struct hd_scenario *sc, const struct hd_view_opts *o);

/* ---- playback events ----------------------------------------------------- */

struct hd_events; /* opaque: the sorted distinct span boundaries of a trace */

/* Every distinct span start and end time of t, ascending.  Never NULL. */
struct hd_events *hd_events_new(const struct hd_trace *t);
void hd_events_free(struct hd_events *ev); /* accepts NULL */
size_t hd_events_count(const struct hd_events *ev);
hd_time hd_events_at(const struct hd_events *ev, size_t i); /* 0 when i >= count */
/* The first event strictly after t, or t when there is none. */
hd_time hd_events_next(const struct hd_events *ev, hd_time t);
/* The last event strictly before t, or t when there is none. */
hd_time hd_events_prev(const struct hd_events *ev, hd_time t);

#endif
