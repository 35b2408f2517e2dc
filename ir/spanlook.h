/*
 * spanlook.h - how each kind of span looks wherever it is drawn: one table.
 *
 * The text timeline, the TUI, the SVG and HTML pictures and the Perfetto
 * export all draw a span from its look: the glyph that fills its bar, the
 * colour role a terminal maps to its colours, the SVG colour, the Perfetto
 * colour name, and the words a legend gives it.  A look belongs to a span
 * kind; copies have three, told apart by direction (the lane kind, else the
 * op), so a copy towards the host reads differently from one towards the
 * device everywhere.  Each look has a colour role of its own.
 */
#ifndef HD_SPANLOOK_H
#define HD_SPANLOOK_H

#include <stdbool.h>

#include "base/util.h"
#include "ir/trace.h"

struct hd_scenario;

/* The colour role of a look: terminals map it to colour pairs, the text
 * timeline to ANSI colours.  One per look. */
enum hd_span_hue {
	HD_HUE_API,
	HD_HUE_BLOCKED,
	HD_HUE_HOST,
	HD_HUE_STAGING,
	HD_HUE_COPY_H2D, /* copies towards the device */
	HD_HUE_COPY_D2H, /* copies towards the host */
	HD_HUE_COPY_D2D, /* device-local and peer copies */
	HD_HUE_KERNEL,
	HD_HUE_EVENT,
	HD_HUE_WAIT,
	HD_HUE_FAULT,
	HD_HUE_PREFETCH,
	HD_HUE_COMM,
	HD_HUE__COUNT
};

/* Which way a span moves bytes, where its look depends on it (copies). */
enum hd_span_dir {
	HD_DIR_OUT,   /* towards the device; every span that is not a copy */
	HD_DIR_BACK,  /* towards the host */
	HD_DIR_LOCAL, /* within the device or to a peer */
	HD_DIR__COUNT
};

struct hd_spanlook {
	const char *name;  /* identifier of the kind: "kernel" (exports, the store) */
	const char *glyph; /* fill of text timelines: one column of UTF-8 */
	const char *ascii; /* its ASCII fallback where glyph is not ASCII, else NULL */
	int prio;          /* where spans of one lane overlap, the higher owns the cell */
	enum hd_span_hue hue;
	const char *svg;      /* SVG and HTML fill, "#rrggbb" */
	const char *ink;      /* SVG colour of text written on that fill */
	const char *perfetto; /* trace-event colour name ("cname") */
	const char *cat;      /* trace-event category of the kind */
	const char *label;    /* the kind in a word or two: "kernel", "API call" */
	const char *legend;   /* what it shows, for learners: "kernel running" */
};

/* The look of kind k going direction d (d matters only for copies).  A kind
 * out of range gives the API call's look.  Never NULL. */
const struct hd_spanlook *hd_spanlook_get(enum hd_span_kind k, enum hd_span_dir d);

/* The direction of span s of t: towards the host on a DtoH copy engine or
 * PCIe lane or when its op in sc (may be NULL) copies DtoH or reads; within
 * the device on the DtoD copy-engine lane; else out. */
enum hd_span_dir hd_spanlook_dir(const struct hd_trace *t, const struct hd_scenario *sc,
				 const struct hd_span *s);
/* The look of span s of t: hd_spanlook_get(kind, hd_spanlook_dir(...)). */
const struct hd_spanlook *hd_spanlook_of(const struct hd_trace *t, const struct hd_scenario *sc,
					 const struct hd_span *s);

/* The glyph to draw: the ASCII form when `ascii` (or l->glyph when it is
 * ASCII already), else the UTF-8 one. */
const char *hd_spanlook_glyph(const struct hd_spanlook *l, bool ascii);
/* The ASCII glyph as one byte, for text drawn a byte per cell. */
char hd_spanlook_char(const struct hd_spanlook *l);

/* The i-th span kind in legend order (0 <= i < HD_SPAN__COUNT): by
 * priority, the API call first and the event last. */
enum hd_span_kind hd_spanlook_nth(int i);

/*
 * For callers without the scenario: which ops copy towards the host, as
 * their spans on DtoH copy-engine and PCIe lanes show.  Returns an array of
 * *n flags indexed by op (allocated, at least one entry; the caller frees it).
 */
bool *hd_spanlook_back_ops(const struct hd_trace *t, int *n);
/* The look of span s of t without the scenario: hd_spanlook_of's, but
 * towards the host where back (n flags, from hd_spanlook_back_ops) says its
 * op copies that way, so its spans on stream lanes match its engine's. */
const struct hd_spanlook *hd_spanlook_of_back(const struct hd_trace *t, const bool *back, int n,
					      const struct hd_span *s);

/*
 * A legend as text lines: for each look the spans of t use (every look when
 * t is NULL), in legend order, "  G  legend\n" with G its glyph (the ASCII
 * form when `ascii`).  sc (may be NULL) tells copies' directions as in
 * hd_spanlook_dir.  Returns the number of lines written.
 */
int hd_spanlook_legend(struct hd_buf *out, const struct hd_trace *t, const struct hd_scenario *sc,
		       bool ascii);

#endif
