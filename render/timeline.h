/*
 * timeline.h - a trace drawn as text: one row per lane, a time axis, the
 * per-op table and the reasons the host was blocked.
 *
 * Everything is written into a struct hd_buf, so the same renderer serves a
 * terminal, a pipe and the tests.  Every span kind has its own glyph, so the
 * picture reads without colour; ANSI colour is added only when asked for.
 */
#ifndef HD_TIMELINE_H
#define HD_TIMELINE_H

#include <stdbool.h>

#include "base/util.h"
#include "ir/ir.h"
#include "ir/spanlook.h"
#include "ir/trace.h"

#define HD_TL_MIN_WIDTH     60
#define HD_TL_DEFAULT_WIDTH 100

struct hd_tl_opts {
	int width;  /* columns of every timeline row (>= HD_TL_MIN_WIDTH) */
	bool color; /* add ANSI colour sequences */
	bool utf8;  /* partly busy cells in eighth blocks (else the ASCII ramp) */
};

/* What the header names; any field may be NULL. */
struct hd_tl_info {
	const char *lesson_id;
	const char *lesson_title;
	int lesson_number; /* 0: not shown */
	const char *scenario_name;
	const char *scenario_title;
	const char *profile_name;
	const char *backend;          /* "sim" (predicted) or "cuda" (measured) */
	const struct hd_scenario *sc; /* op labels, calls and streams; may be NULL */
};

/* A unit for times on an axis: the largest of ps..s not above the makespan. */
struct hd_tunit {
	const char *name; /* "ps" "ns" "us" "ms" "s" */
	hd_time ps;       /* picoseconds in one unit */
};
struct hd_tunit hd_timeline_unit(hd_time makespan);
/* "1.345" for t in unit u with `decimals` places; writes buf (size n). */
char *hd_timeline_fmt(char *buf, size_t n, hd_time t, struct hd_tunit u, int decimals);

/* The ANSI SGR parameters ("34") that colour spans of colour role h; "0"
 * (none) out of range. */
const char *hd_timeline_sgr(enum hd_span_hue h);
/* The ASCII glyph that draws a span of this kind (its look towards the
 * device; ir/spanlook.h holds the looks and their priorities). */
char hd_timeline_glyph(enum hd_span_kind k);
/* The ASCII glyph of one span: its look's (hd_spanlook_of), so copies towards
 * the host ('~') are told by the lane or by the op in sc (may be NULL). */
char hd_timeline_span_glyph(const struct hd_trace *t, const struct hd_scenario *sc,
			    const struct hd_span *s);
/*
 * The label a span may carry inside its bar: l1 the long form ("h2d 64 MiB"),
 * l2 the short one ("h2d", or "" when there is none); blocked spans give the
 * reason's name, API calls and events their call.  Both are size n.
 */
void hd_timeline_span_labels(const struct hd_trace *t, const struct hd_scenario *sc,
			     const struct hd_span *s, char *l1, char *l2, size_t n);
/* Lane indices in display order (rank, then host, API, streams, engines,
 * links); t->nlanes entries, allocated: the caller frees it. */
int *hd_timeline_lane_order(const struct hd_trace *t);

/* Highest rank of any lane (0 for one-rank traces). */
int hd_timeline_max_rank(const struct hd_trace *t);
/* A lane's row name: "R1 CUDA API" when the trace has several ranks, else
 * the lane's own name (then buf is unused). */
const char *hd_timeline_lane_name(const struct hd_trace *t, int lane, char *buf, size_t n);
/* With many ranks, rows show only the first HD_TL_MAX_RANKS - 1 ranks and the
 * last: does `rank` get rows? */
#define HD_TL_MAX_RANKS 8
int hd_timeline_rank_shown(int rank, int max_rank);
/* A tick step of 1, 2 or 5 times a power of ten (ps) giving at most n ticks
 * across `span`. */
hd_time hd_timeline_tick_step(hd_time span, int n);
/*
 * The column of time t on a bar `width` columns wide showing [0, span):
 * rounded down, or up when `up` (so a span's end covers its last column).
 * Exact integer arithmetic; times at or before 0 give column 0.
 */
int hd_timeline_col(hd_time t, int width, hd_time span, int up);

/* ---- cells: one lane drawn into a bar ------------------------------------ */

/* The time a bar shows, [t0, t1); t1 > t0. */
struct hd_tl_window {
	hd_time t0, t1;
};

/* One column of a lane's bar. */
struct hd_tl_cell {
	const struct hd_spanlook *look; /* of the span with the highest priority in
					 * the column (ties: the later); NULL: idle */
	size_t owner;                   /* that span's index + 1; 0 when idle */
	hd_time busy;                   /* time of the column some span covers */
	unsigned char fill;             /* busy share in eighths: 0 idle, 1..7 partly
					 * busy (1 at least when a span touches the
					 * column), 8 busy throughout or owned by a
					 * zero-length span (an event: a mark) */
	bool edge;                      /* a span starts here exactly where the one
					 * before it on the lane ends, both at least
					 * two columns long: the boundary to show */
};

struct hd_tl_index; /* opaque: the spans of a trace by lane, then start */

/* Index t's spans by lane (O(n log n) once; every bar after it is linear).
 * Never NULL; t must outlive it. */
struct hd_tl_index *hd_tl_index_new(const struct hd_trace *t);
void hd_tl_index_free(struct hd_tl_index *ix); /* accepts NULL */
/* The trace ix indexes. */
const struct hd_trace *hd_tl_index_trace(const struct hd_tl_index *ix);

/*
 * Fill cells[0 .. w) with lane `lane` of ix's trace over window win: each
 * column's busy time (the union of the lane's spans, so nested spans count
 * once), its share in eighths, the look and span owning it, and the
 * boundaries between back-to-back spans.  Spans are cut at `upto` (a
 * playhead): those starting at or after it are left out, unless upto is at
 * or past the makespan (then every span, zero-length ones included).
 * sc (may be NULL) tells copies' directions.  One sweep over the lane's
 * spans: O(spans of the lane + w).
 */
void hd_timeline_cells(struct hd_tl_cell *cells, int w, const struct hd_tl_index *ix,
		       const struct hd_scenario *sc, int lane, struct hd_tl_window win,
		       hd_time upto);

/*
 * The glyph a cell is drawn with: " " idle; the boundary mark on an edge;
 * the look's glyph when busy throughout; else the fill as an eighth block
 * (U+258F .. U+2589) when utf8, or the ASCII ramp "," ";" "+" "*" (a quarter,
 * a half, three quarters, more) when not.  A static string.
 */
const char *hd_timeline_cell_glyph(const struct hd_tl_cell *c, bool utf8);

/*
 * Labels for a lane's cells (from hd_timeline_cells): over each run of
 * cells busy throughout, owned by one span (or by spans of one op and kind:
 * a copy cut into staging chunks reads as one bar) and with no boundary
 * inside, its label centred with a glyph each side; a run of several spans
 * is labelled without bytes.  Writes each label byte into ch[c] ('\0'
 * where there is none); labels with UTF-8 in them are left out.
 */
void hd_timeline_cell_labels(char *ch, const struct hd_tl_cell *cells, int w,
			     const struct hd_trace *t, const struct hd_scenario *sc);

/* The window [t0, t1) zoomed by `factor` (< 1 in, > 1 out) about time `at`
 * and kept inside [0, span), never narrower than `minw` ps. */
struct hd_tl_window hd_timeline_zoom(struct hd_tl_window win, double factor, hd_time at,
				     hd_time span, hd_time minw);
/* The window moved by `frac` of its width (negative: earlier), kept inside
 * [0, span). */
struct hd_tl_window hd_timeline_pan(struct hd_tl_window win, double frac, hd_time span);

/*
 * Columns to draw in: `requested` when > 0, else $COLUMNS, else the width of
 * the terminal on standard output, else HD_TL_DEFAULT_WIDTH; never below
 * HD_TL_MIN_WIDTH.
 */
int hd_timeline_width(int requested);

/*
 * Render the whole timeline of one run: header, lane rows, axis, legend,
 * op table and host-blocked lines.  Every lane row and the axis row are
 * exactly o->width visible columns.
 */
void hd_timeline_render(struct hd_buf *out, const struct hd_trace *t, const struct hd_tl_info *info,
			const struct hd_tl_opts *o);

/*
 * Time op `op` kept its stream busy, summed over its executions on rank 0:
 * its spans on stream lanes, or its API calls for ops that have none.
 */
hd_time hd_timeline_op_busy(const struct hd_trace *t, int op);

/*
 * Append `first` then `text`, word-wrapped so no line passes `width`
 * columns; continuation lines start with `indent` spaces.  Ends in '\n'.
 */
void hd_timeline_wrap(struct hd_buf *out, const char *first, const char *text, int width,
		      int indent);

/* The trace's note (a deadlock report) as a "Result:" paragraph. */
void hd_timeline_note(struct hd_buf *out, const struct hd_trace *t, const struct hd_tl_opts *o);

/*
 * The compare bar of trace t, w cells over win: its lanes of rank 0 merged,
 * the GPU's engines and links where any is busy, else the host's rows (API
 * calls, blocked time, host work); each cell the busiest lane's share and
 * the look with the highest priority.  Stream rows are left out.
 */
void hd_timeline_compare_bar(struct hd_tl_cell *bar, int w, const struct hd_trace *t,
			     const struct hd_scenario *sc, struct hd_tl_window win);
/*
 * Compare: traces[0 .. n) of one lesson's scenarios on one time axis, each
 * its compare bar as long as its makespan, its name before and its makespan
 * after, then the axis.  names[i] names traces[i]; sc[i] may be NULL.  Every
 * line fits o->width columns.
 */
void hd_timeline_compare(struct hd_buf *out, const struct hd_trace *const *traces,
			 const struct hd_scenario *const *sc, const char *const *names, int n,
			 const struct hd_tl_opts *o);

/* The legend from ir/spanlook.h's table (hd_spanlook_legend), headed
 * "Legend:", for the looks t uses. */
void hd_timeline_legend(struct hd_buf *out, const struct hd_trace *t, const struct hd_scenario *sc,
			const struct hd_tl_opts *o);

/* Parts of the above, for callers that compose their own output. */
void hd_timeline_rows(struct hd_buf *out, const struct hd_trace *t, const struct hd_scenario *sc,
		      const struct hd_tl_opts *o);
void hd_timeline_ops(struct hd_buf *out, const struct hd_trace *t, const struct hd_scenario *sc,
		     const struct hd_tl_opts *o);
void hd_timeline_blocked(struct hd_buf *out, const struct hd_trace *t, const struct hd_tl_opts *o);

#endif
