/*
 * view.c - the run screen drawn from a trace: timeline, diagram, status
 * line, and the event list playback steps through.
 *
 * The timeline pane draws with the text timeline's cells (render/timeline.h):
 * column c covers [t0 + c * span / bar_w, t0 + (c + 1) * span / bar_w), a
 * cell shows the share of its time the lane is busy, back-to-back ops show
 * a boundary, and where spans of one lane overlap the look with the higher
 * priority owns the cell.  Labels go only over cells their own span owns.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/spanlook.h"
#include "render/timeline.h"
#include "tui/diagram.h"
#include "tui/view.h"

/* The role a kind's spans are drawn in (for copies, those towards the device). */
static enum hd_role
kind_role(enum hd_span_kind k)
{
	return hd_role_of_hue(hd_spanlook_get(k, HD_DIR_OUT)->hue);
}

static int
prio_of(const struct hd_span *s)
{
	return hd_spanlook_get(s->kind, HD_DIR_OUT)->prio;
}

static struct hd_style
style(enum hd_role fg, unsigned attr)
{
	struct hd_style st = { (unsigned char)fg, HD_ROLE_DEFAULT, (unsigned char)attr };

	return st;
}

void
hd_view_opts_init(struct hd_view_opts *o)
{
	memset(o, 0, sizeof *o);
	o->speed = 1.0;
	o->highlight = -1;
}

enum hd_role
hd_view_span_role(const struct hd_trace *t, const struct hd_scenario *sc, const struct hd_span *s)
{
	if ((unsigned)s->kind >= HD_SPAN__COUNT)
		return HD_ROLE_TEXT;
	return hd_role_of_hue(hd_spanlook_of(t, sc, s)->hue);
}

/* ---- timeline pane ------------------------------------------------------- */

/* The rows the time axis takes in a pane of r's height: 2, 1 or none. */
static int
axis_rows_of(struct hd_rect r)
{
	return r.h >= 4 ? 2 : r.h >= 2 ? 1 : 0;
}

void
hd_view_tl_geom(struct hd_tl_geom *g, const struct hd_trace *t, const struct hd_trace *ghost,
		struct hd_rect r)
{
	int i, w = 8, axis_rows;
	char nb[64];

	for (i = 0; i < t->nlanes; i++) {
		int l = hd_utf8_width(hd_timeline_lane_name(t, i, nb, sizeof nb));
		if (l > w)
			w = l;
	}
	if (w > 24)
		w = 24;
	if (w > r.w / 3)
		w = r.w / 3;
	g->name_w = w;
	g->bar_x = r.x + w + 1;
	g->bar_w = r.w - w - 1 > 0 ? r.w - w - 1 : 0;
	axis_rows = axis_rows_of(r);
	g->nrows = t->nlanes < r.h - axis_rows ? t->nlanes : r.h - axis_rows;
	if (g->nrows < 0)
		g->nrows = 0;
	g->lanes_y = r.y;
	g->axis_y = axis_rows > 0 ? r.y + g->nrows : -1;
	g->t0 = 0;
	g->span = t->makespan;
	if (ghost != NULL && ghost->makespan > g->span)
		g->span = ghost->makespan;
	if (g->span < 1)
		g->span = 1;
}

int
hd_view_tl_col(const struct hd_tl_geom *g, hd_time tm)
{
	return hd_timeline_col(tm - g->t0, g->bar_w, g->span, 0);
}

/* The ghost trace's lane that matches lane `ln`, or -1. */
static int
ghost_lane(const struct hd_trace *gh, const struct hd_lane *ln)
{
	int i;

	for (i = 0; i < gh->nlanes; i++)
		if (gh->lanes[i].kind == ln->kind && gh->lanes[i].rank == ln->rank &&
		    gh->lanes[i].index == ln->index)
			return i;
	return -1;
}

/* The window the pane shows. */
static struct hd_tl_window
view_window(const struct hd_tl_geom *g)
{
	struct hd_tl_window w = { g->t0, g->t0 + g->span };

	return w;
}

static void
draw_axis(struct hd_screen *scr, const struct hd_rect *r, const struct hd_tl_geom *g, int pc)
{
	struct hd_tunit u = hd_timeline_unit(g->span);
	hd_time step = hd_timeline_tick_step(g->span, g->bar_w / 8 > 0 ? g->bar_w / 8 : 1);
	hd_time tk, div, first = (g->t0 + step - 1) / step * step;
	struct hd_style ax = style(HD_ROLE_AXIS, 0);
	int c, decimals = 0, next, y = g->axis_y;
	char lab[48], cap[32];

	for (div = u.ps; div > 1 && step % div != 0; div /= 10)
		decimals++;
	for (c = 0; c < g->bar_w; c++)
		hd_screen_puts(scr, r, g->bar_x + c, y, "-", ax);
	for (tk = first; tk <= g->t0 + g->span && g->bar_w > 0; tk += step) {
		c = hd_view_tl_col(g, tk);
		if (c < g->bar_w)
			hd_screen_puts(scr, r, g->bar_x + c, y, "+", ax);
	}
	if (g->bar_w > 0 && pc >= 0)
		hd_screen_puts(scr, r, g->bar_x + pc, y, hd_screen_glyph(scr, HD_G_PLAYHEAD_AXIS),
			       style(HD_ROLE_PLAYHEAD, HD_ATTR_BOLD));
	if (y + 1 >= r->y + r->h)
		return;
	/* tick labels left-aligned on their tick, skipped where they would touch */
	snprintf(cap, sizeof cap, g->name_w >= 9 ? "time (%s)" : "%s", u.name);
	if ((int)strlen(cap) <= g->name_w)
		hd_screen_puts(scr, r, r->x + g->name_w - (int)strlen(cap), y + 1, cap, ax);
	next = 0;
	for (tk = first; tk <= g->t0 + g->span && g->bar_w > 0; tk += step) {
		int l;
		c = hd_view_tl_col(g, tk);
		hd_timeline_fmt(lab, sizeof lab, tk, u, decimals);
		l = (int)strlen(lab);
		if (c < next || c + l > g->bar_w)
			continue;
		hd_screen_puts(scr, r, g->bar_x + c, y + 1, lab, ax);
		next = c + l + 1;
	}
}

/* One lane's bar at row y: its cells, labels, the highlight, blocked time
 * shaded and the playhead column; a ghost row (ix the ghost's) has the
 * ghost's spans whole, dim, in the ghost's role. */
static void
draw_lane(struct hd_screen *scr, const struct hd_rect *r, const struct hd_tl_geom *g, int y,
	  const struct hd_tl_index *ix, const struct hd_scenario *sc, int lane, bool ghost,
	  const struct hd_view_opts *o, int pc, struct hd_tl_cell *cells, char *lab)
{
	bool utf8 = !hd_screen_ascii(scr);
	int c;

	hd_timeline_cells(cells, g->bar_w, ix, ghost ? NULL : sc, lane, view_window(g),
			  ghost ? HD_TIME_MAX : o->t);
	hd_timeline_cell_labels(lab, cells, g->bar_w, hd_tl_index_trace(ix), ghost ? NULL : sc);
	for (c = 0; c < g->bar_w; c++) {
		const struct hd_tl_cell *k = &cells[c];
		const struct hd_span *s = k->owner > 0 && !ghost ?
		    &hd_tl_index_trace(ix)->spans[k->owner - 1] :
		    NULL;
		struct hd_style st = style(k->look == NULL ? HD_ROLE_DEFAULT :
					       ghost       ? HD_ROLE_GHOST :
							     hd_role_of_hue(k->look->hue),
					   ghost ? HD_ATTR_DIM : 0);
		const char *gl_txt = hd_timeline_cell_glyph(k, utf8);
		char ch[2] = { lab[c], 0 };

		if (lab[c] != '\0')
			gl_txt = ch;
		if (s != NULL && s->kind == HD_SPAN_BLOCKED)
			st.bg = kind_role(HD_SPAN_BLOCKED); /* shaded */
		if (s != NULL && o->highlight >= 0 && k->owner - 1 == (size_t)o->highlight) {
			st.bg = HD_ROLE_HIGHLIGHT;
			st.attr |= HD_ATTR_BOLD;
		}
		if (c == pc) {
			if (k->look == NULL) {
				hd_screen_puts(scr, r, g->bar_x + c, y,
					       hd_screen_glyph(scr, HD_G_PLAYHEAD),
					       style(HD_ROLE_PLAYHEAD, 0));
				continue;
			}
			st.bg = HD_ROLE_PLAYHEAD;
		}
		hd_screen_puts(scr, r, g->bar_x + c, y, gl_txt, st);
	}
}

/* A row of the pane: a lane of the trace, the ghost's row beneath it, or
 * ranks folded into one row. */
struct tl_row {
	int lane;   /* in the trace; -1: the fold row of ranks lo .. hi */
	int glane;  /* in the ghost: the ghost's row; -1: the trace's row */
	int lo, hi; /* the fold row's ranks */
};

static uint64_t
span_hash(const struct hd_span *s)
{
	uint64_t h = 1469598103934665603u,
		 v[] = { (uint64_t)s->start, (uint64_t)s->end, (uint64_t)s->kind,
			 (uint64_t)(int64_t)s->op };
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(v); i++)
		h = (h ^ v[i]) * 1099511628211u;
	return h;
}

static int
row_rank(const struct hd_trace *t, const struct tl_row *w)
{
	return w->lane >= 0 ? t->lanes[w->lane].rank : w->lo;
}

/* Rows out[m ..] for rows[0 .. n) of ranks lo .. hi (rows of ranks outside
 * left out); returns the new m. */
static int
keep_ranks(const struct hd_trace *t, const struct tl_row *rows, int n, int lo, int hi,
	   struct tl_row *out, int m)
{
	int i, r;

	for (i = 0; i < n; i++) {
		r = row_rank(t, &rows[i]);
		if (r >= lo && r <= hi)
			out[m++] = rows[i];
	}
	return m;
}

/*
 * Fold rows[0 .. n) into `avail` rows where they do not fit: lanes with no
 * spans (in the run or its ghost) go first; then, with several ranks,
 * ranks fold (hd_view_timeline says how; `from` is o->rank_from).  Returns
 * the rows left; *f says what was folded.
 */
static int
fold_rows(const struct hd_trace *t, struct tl_row *rows, int n, int avail, const size_t *cnt,
	  int from, struct hd_view_fold *f)
{
	int i, k, m = 0, maxr = hd_timeline_max_rank(t), *per, need, e;
	struct tl_row *out;

	memset(f, 0, sizeof *f);
	f->nranks = maxr + 1;
	f->last = maxr;
	if (n <= avail)
		return n;
	for (i = 0; i < n; i++)
		if (rows[i].glane >= 0 || cnt[rows[i].lane] > 0)
			rows[m++] = rows[i];
	n = m;
	if (n <= avail || maxr == 0)
		return n;
	per = hd_xcalloc((size_t)maxr + 1, sizeof *per);
	for (i = 0; i < n; i++)
		per[row_rank(t, &rows[i])]++;
	out = hd_xcalloc((size_t)n + 2, sizeof *out);
	f->folded = true;
	/* scrolled: no further than where the last rank shows at the end */
	for (k = maxr, need = 1 + per[maxr]; k > 1 && need + per[k - 1] <= avail; k--)
		need += per[k - 1];
	if (from > k)
		from = k;
	if (from > 0) {
		/* a row for the ranks above, ranks from .. e, a row for the rest */
		for (e = from, need = 1 + per[from]; e < maxr; e++) {
			int more = per[e + 1] + (e + 1 < maxr ? 1 : 0);

			if (need + more > avail)
				break;
			need += per[e + 1];
		}
		out[0] = (struct tl_row){ -1, -1, 0, from - 1 };
		m = keep_ranks(t, rows, n, from, e, out, 1);
		if (e < maxr)
			out[m++] = (struct tl_row){ -1, -1, e + 1, maxr };
		f->from = f->first = from;
		f->last = e;
		goto out;
	}
	/* the most first ranks k that fit with the fold row and the last rank */
	for (k = maxr - 1; k > 1; k--) {
		need = 1 + per[maxr];
		for (i = 0; i < k; i++)
			need += per[i];
		if (need <= avail)
			break;
	}
	m = keep_ranks(t, rows, n, 0, k - 1, out, 0);
	out[m++] = (struct tl_row){ -1, -1, k, maxr - 1 };
	m = keep_ranks(t, rows, n, maxr, maxr, out, m);
	f->last = k - 1;
out:
	memcpy(rows, out, (size_t)m * sizeof *rows);
	free(out);
	free(per);
	return m;
}

/*
 * The pane's rows in `avail` rows: the lanes in display order, each lane
 * whose spans differ in the ghost followed by the ghost's row (lanes
 * compared by a sum of their spans' hashes), folded (fold_rows) where they
 * do not fit.  Returns how many rows; *rows is allocated.
 */
static int
tl_rows(const struct hd_trace *t, const struct hd_trace *gh, int avail, int from,
	struct hd_view_fold *f, struct tl_row **rows)
{
	int *ord = hd_timeline_lane_order(t), i, n = 0;
	uint64_t *a = hd_xcalloc((size_t)t->nlanes + 1, sizeof *a);
	uint64_t *b = hd_xcalloc((size_t)t->nlanes + 1, sizeof *b);
	size_t *cnt = hd_xcalloc((size_t)t->nlanes + 1, sizeof *cnt);
	int *map = hd_xcalloc((size_t)t->nlanes + 1, sizeof *map), *gmap = NULL;
	size_t k;

	*rows = hd_xcalloc(2 * (size_t)t->nlanes + 2, sizeof **rows);
	for (i = 0; i < t->nlanes; i++)
		map[i] = gh != NULL ? ghost_lane(gh, &t->lanes[i]) : -1;
	for (k = 0; k < t->nspans; k++) {
		a[t->spans[k].lane] += span_hash(&t->spans[k]);
		cnt[t->spans[k].lane]++;
	}
	if (gh != NULL) {
		gmap = hd_xcalloc((size_t)gh->nlanes + 1, sizeof *gmap);
		for (i = 0; i < gh->nlanes; i++)
			gmap[i] = -1;
		for (i = 0; i < t->nlanes; i++)
			if (map[i] >= 0)
				gmap[map[i]] = i;
		for (k = 0; k < gh->nspans; k++)
			if (gmap[gh->spans[k].lane] >= 0) {
				b[gmap[gh->spans[k].lane]] += span_hash(&gh->spans[k]);
				cnt[gmap[gh->spans[k].lane]]++;
			}
	} else
		memcpy(b, a, ((size_t)t->nlanes + 1) * sizeof *b);
	for (i = 0; i < t->nlanes; i++) {
		(*rows)[n++] = (struct tl_row){ ord[i], -1, 0, 0 };
		if (map[ord[i]] >= 0 && a[ord[i]] != b[ord[i]])
			(*rows)[n++] = (struct tl_row){ ord[i], map[ord[i]], 0, 0 };
	}
	n = fold_rows(t, *rows, n, avail, cnt, from, f);
	free(gmap);
	free(map);
	free(cnt);
	free(b);
	free(a);
	free(ord);
	return n;
}

/* The fewest rows the timeline's lanes fold into, axis not counted. */
static int
tl_rows_min(const struct hd_trace *t, const struct hd_trace *gh)
{
	struct hd_view_fold f;
	struct tl_row *rows;
	int n = tl_rows(t, gh, 0, 0, &f, &rows);

	free(rows);
	return n;
}

void
hd_view_timeline(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		 const struct hd_scenario *sc, const struct hd_view_opts *o)
{
	struct hd_tl_geom g;
	struct hd_tl_cell *cells;
	struct hd_tl_index *ix, *gix = NULL;
	struct hd_view_fold fold;
	struct tl_row *rows;
	int row, pc, nrows;
	char *lab;

	r = hd_rect_clip(r, hd_screen_rect(scr));
	if (r.w <= 0 || r.h <= 0)
		return;
	hd_view_tl_geom(&g, t, o->ghost, r);
	if (o->z1 > o->z0) {
		g.t0 = o->z0;
		g.span = o->z1 - o->z0;
	}
	nrows = tl_rows(t, o->ghost, r.h - axis_rows_of(r), o->rank_from, &fold, &rows);
	if (o->fold != NULL)
		*o->fold = fold;
	g.nrows = nrows < r.h - axis_rows_of(r) ? nrows : r.h - axis_rows_of(r);
	if (g.axis_y >= 0)
		g.axis_y = g.lanes_y + g.nrows;
	/* the playhead column; -1 when it is outside the window */
	pc = o->t < g.t0 || o->t > g.t0 + g.span ? -1 : hd_view_tl_col(&g, o->t);
	if (pc > g.bar_w - 1)
		pc = g.bar_w - 1;
	cells = hd_xcalloc((size_t)g.bar_w + 1, sizeof *cells);
	lab = hd_xcalloc((size_t)g.bar_w + 1, 1);
	ix = hd_tl_index_new(t);
	if (o->ghost != NULL)
		gix = hd_tl_index_new(o->ghost);
	for (row = 0; row < g.nrows; row++) {
		const struct tl_row *w = &rows[row];
		int y = g.lanes_y + row;
		struct hd_rect namer = { r.x, y, g.name_w, 1 };
		char nb[64];

		if (w->lane < 0) {
			int x;

			if (w->lo == w->hi)
				hd_screen_printf(scr, &namer, r.x, y, style(HD_ROLE_LANE, 0), "R%d",
						 w->lo);
			else
				hd_screen_printf(scr, &namer, r.x, y, style(HD_ROLE_LANE, 0),
						 "R%d-R%d", w->lo, w->hi);
			x = hd_screen_printf(scr, &r, g.bar_x, y, style(HD_ROLE_TEXT, HD_ATTR_DIM),
					     "(%d rank%s like these not shown)", w->hi - w->lo + 1,
					     w->hi > w->lo ? "s" : "");
			/* the keys that scroll to them (tui/scr_run.c) */
			hd_screen_puts(scr, &r, x + 2, y,
				       w->lo == 0 && fold.from > 0 ? "PgUp K: scroll up" :
								     "PgDn J: scroll to them",
				       style(HD_ROLE_TEXT, HD_ATTR_DIM));
			continue;
		} else if (w->glane >= 0)
			hd_screen_printf(scr, &namer, r.x, y, style(HD_ROLE_GHOST, HD_ATTR_DIM),
					 "  %s", o->ghost_name != NULL ? o->ghost_name : "before");
		else
			hd_screen_puts(scr, &namer, r.x, y,
				       hd_timeline_lane_name(t, w->lane, nb, sizeof nb),
				       style(HD_ROLE_LANE, 0));
		if (g.bar_w > 0)
			draw_lane(scr, &r, &g, y, w->glane >= 0 ? gix : ix, sc,
				  w->glane >= 0 ? w->glane : w->lane, w->glane >= 0, o, pc, cells,
				  lab);
	}
	if (g.axis_y >= 0)
		draw_axis(scr, &r, &g, pc);
	free(rows);
	hd_tl_index_free(gix);
	hd_tl_index_free(ix);
	free(lab);
	free(cells);
}

/* ---- link use ------------------------------------------------------------ */

struct edge {
	hd_time at;
	double rate; /* + at a start, - at an end */
};

static int
edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	/* ends before starts at the same instant */
	return (x->rate > y->rate) - (x->rate < y->rate);
}

static bool
on_link(const struct hd_trace *t, const struct hd_span *s, enum hd_lane_kind lane)
{
	return s->lane >= 0 && s->lane < t->nlanes && t->lanes[s->lane].kind == lane &&
	    t->lanes[s->lane].rank == 0 && s->end > s->start && s->bytes > 0;
}

static double
span_rate(const struct hd_span *s)
{
	return (double)s->bytes / hd_time_to_s(s->end - s->start);
}

/* The highest summed rate of the link's spans at any instant. */
static double
busiest(const struct hd_trace *t, enum hd_lane_kind lane)
{
	struct edge *e;
	size_t i, n = 0;
	double cur = 0, best = 0;

	e = hd_xcalloc(2 * t->nspans + 1, sizeof *e);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		if (!on_link(t, s, lane))
			continue;
		e[n].at = s->start;
		e[n++].rate = span_rate(s);
		e[n].at = s->end;
		e[n++].rate = -span_rate(s);
	}
	qsort(e, n, sizeof *e, edge_cmp);
	for (i = 0; i < n; i++) {
		cur += e[i].rate;
		if (cur > best)
			best = cur;
	}
	free(e);
	return best;
}

void
hd_view_link_use(const struct hd_trace *t, enum hd_lane_kind lane, hd_time at, double peak,
		 struct hd_link_use *out)
{
	size_t i;

	memset(out, 0, sizeof *out);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		double done;

		if (!on_link(t, s, lane) || at < s->start || at >= s->end)
			continue;
		done = (double)(at - s->start) / (double)(s->end - s->start);
		out->rate += span_rate(s);
		out->in_flight += (uint64_t)((double)s->bytes * (1.0 - done) + 0.5);
		if (out->nflows < HD_LINK_MAX_FLOWS) {
			out->share[out->nflows] = span_rate(s);
			out->done[out->nflows] = done;
		}
		out->nflows++;
	}
	out->peak = peak > 0 ? peak : busiest(t, lane);
	if (out->peak <= 0)
		return;
	out->use = out->rate / out->peak;
	if (out->use > 1)
		out->use = 1;
	for (i = 0; i < HD_LINK_MAX_FLOWS && (int)i < out->nflows; i++)
		out->share[i] /= out->peak;
}

/* ---- diagram pane -------------------------------------------------------- */

void
hd_view_meter(struct hd_screen *scr, const struct hd_rect *clip, int x, int y, int w, double frac,
	      const char *glyph, struct hd_style full)
{
	int c, n;

	if (w <= 0)
		return;
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	n = (int)(frac * w + 0.5);
	for (c = 0; c < w; c++)
		hd_screen_puts(scr, clip, x + c, y,
			       c < n ? glyph : hd_screen_glyph(scr, HD_G_EMPTY),
			       c < n ? full : style(HD_ROLE_BAR, HD_ATTR_DIM));
}

/* The span of the lane active at `at` with the highest priority, or NULL. */
static const struct hd_span *
active_span(const struct hd_trace *t, int lane, hd_time at)
{
	const struct hd_span *best = NULL;
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		if (s->lane != lane || at < s->start || at >= s->end)
			continue;
		if (best == NULL || prio_of(s) > prio_of(best))
			best = s;
	}
	return best;
}

/* The most important span active at `at` on rank's lanes of the kinds given. */
static const struct hd_span *
rank_active(const struct hd_trace *t, int rank, const enum hd_lane_kind *kinds, size_t nk,
	    hd_time at)
{
	const struct hd_span *best = NULL;
	size_t i, k;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		const struct hd_lane *ln = &t->lanes[s->lane];

		if (ln->rank != rank || at < s->start || at >= s->end)
			continue;
		/* the host is the main thread: other host threads have lanes of their own */
		if (ln->kind == HD_LANE_HOST && ln->index != 0)
			continue;
		for (k = 0; k < nk && kinds[k] != ln->kind; k++)
			;
		if (k == nk)
			continue;
		if (best == NULL || prio_of(s) > prio_of(best))
			best = s;
	}
	return best;
}

/* The short label of a span: its op's name or call, without bytes. */
static void
short_label(const struct hd_trace *t, const struct hd_scenario *sc, const struct hd_span *s,
	    char *buf, size_t n)
{
	char l1[96], l2[96];

	hd_timeline_span_labels(t, sc, s, l1, l2, sizeof l1);
	snprintf(buf, n, "%s",
		 l2[0] != '\0'     ? l2 :
		     l1[0] != '\0' ? l1 :
				     hd_span_kind_name(s->kind));
}

static const enum hd_lane_kind host_kinds[] = { HD_LANE_HOST, HD_LANE_API };

static void
draw_host(struct hd_screen *scr, struct hd_rect b, const struct hd_trace *t,
	  const struct hd_scenario *sc, hd_time at)
{
	struct hd_rect in = { b.x + 2, b.y + 1, b.w - 3, b.h - 2 };
	const struct hd_span *best = NULL, *s;
	char lab[96];
	int y = in.y;
	size_t k;

	hd_screen_box(scr, b, "Host", style(HD_ROLE_BORDER, 0));
	if (in.w <= 0 || in.h <= 0)
		return;
	best = rank_active(t, 0, host_kinds, HD_ARRAY_LEN(host_kinds), at);
	if (best == NULL) {
		hd_screen_puts(scr, &in, in.x, y, "idle", style(HD_ROLE_TEXT, HD_ATTR_DIM));
		return;
	}
	if (best->kind == HD_SPAN_BLOCKED) {
		struct hd_style bs = style(kind_role(HD_SPAN_BLOCKED), HD_ATTR_BOLD);
		bs.bg = kind_role(HD_SPAN_BLOCKED);
		hd_screen_puts(scr, &in, in.x, y++, "blocked", bs);
		hd_screen_puts(scr, &in, in.x, y++, hd_why_name(best->why),
			       style(kind_role(HD_SPAN_BLOCKED), 0));
		/* the call it is blocked in */
		for (k = 0; k < t->nspans; k++) {
			s = &t->spans[k];
			if (s->kind == HD_SPAN_API && s->lane == best->lane && s->start <= at &&
			    at < s->end) {
				short_label(t, sc, s, lab, sizeof lab);
				hd_screen_puts(scr, &in, in.x, y, lab,
					       style(kind_role(HD_SPAN_API), 0));
				break;
			}
		}
		return;
	}
	short_label(t, sc, best, lab, sizeof lab);
	hd_screen_puts(scr, &in, in.x, y++, best->kind == HD_SPAN_API ? "in call" : "running",
		       style(HD_ROLE_TEXT, 0));
	hd_screen_puts(scr, &in, in.x, y++, lab, style(hd_view_span_role(t, sc, best), 0));
	/* its place in the program */
	if (sc != NULL && best->op >= 0 && best->op < sc->nops)
		hd_screen_printf(scr, &in, in.x, y, style(HD_ROLE_TEXT, HD_ATTR_DIM), "op %d of %d",
				 best->op + 1, sc->nops);
}

#define QUEUE_SHOWN 8 /* a stream's pending ops named on its row */

/*
 * A stream's row from column x: its queue at `at`, FIFO order, the op at
 * the GPU end first ("queue 2: >k [k2]": running, then waiting), or idle.
 */
static void
draw_queue(struct hd_screen *scr, const struct hd_rect *row, int x, const struct hd_trace *t,
	   const struct hd_scenario *sc, int lane, hd_time at)
{
	const struct hd_span *q[QUEUE_SHOWN];
	int n = hd_diagram_queue(t, sc, lane, at, q, QUEUE_SHOWN), i;
	char lab[96];

	if (n == 0) {
		hd_screen_puts(scr, row, x, row->y, "idle", style(HD_ROLE_TEXT, HD_ATTR_DIM));
		return;
	}
	x = hd_screen_printf(scr, row, x, row->y, style(HD_ROLE_TEXT, 0), "queue %d:", n);
	for (i = 0; i < n && i < QUEUE_SHOWN; i++) {
		bool run = q[i]->start <= at;
		enum hd_role role = hd_view_span_role(t, sc, q[i]);

		short_label(t, sc, q[i], lab, sizeof lab);
		if (run)
			x = hd_screen_printf(scr, row, x + 1, row->y, style(role, HD_ATTR_BOLD),
					     "%s%s", hd_screen_glyph(scr, HD_G_PLAY), lab);
		else
			x = hd_screen_printf(scr, row, x + 1, row->y, style(role, 0), "[%s]", lab);
	}
	if (n > QUEUE_SHOWN)
		hd_screen_printf(scr, row, x + 1, row->y, style(HD_ROLE_TEXT, HD_ATTR_DIM), "+%d",
				 n - QUEUE_SHOWN);
}

/* One PCIe direction in `rows` rows at y: a meter of use, the bytes in
 * flight, then one row per transfer. */
static void
draw_link(struct hd_screen *scr, const struct hd_rect *clip, int x, int y, int w, int rows,
	  const struct hd_trace *t, enum hd_lane_kind lane, const struct hd_view_opts *o)
{
	struct hd_link_use u;
	bool d2h = lane == HD_LANE_PCIE_D2H;
	const struct hd_spanlook *look = hd_spanlook_get(HD_SPAN_COPY,
							 d2h ? HD_DIR_BACK : HD_DIR_OUT);
	enum hd_role role = hd_role_of_hue(look->hue);
	const char *name = d2h ? "DtoH" : "HtoD";
	char bytes[32];
	int mw = w - 12, k, y0 = y;

	hd_view_link_use(t, lane, o->t, d2h ? o->d2h_bw : o->h2d_bw, &u);
	if (mw < 4 || rows < 1)
		return;
	hd_screen_puts(scr, clip, x, y, name, style(role, HD_ATTR_BOLD));
	hd_view_meter(scr, clip, x + 5, y, mw, u.use, hd_screen_glyph(scr, HD_G_FULL),
		      style(role, 0));
	hd_screen_printf(scr, clip, x + 6 + mw, y, style(HD_ROLE_TEXT, 0), "%3d%%",
			 (int)(u.use * 100 + 0.5));
	y++;
	if (y - y0 < rows) {
		if (u.nflows == 0)
			hd_screen_puts(scr, clip, x + 5, y, "idle",
				       style(HD_ROLE_TEXT, HD_ATTR_DIM));
		else
			hd_screen_printf(scr, clip, x + 5, y, style(HD_ROLE_TEXT, 0),
					 "%d moving, %s left", u.nflows,
					 hd_fmt_bytes(bytes, sizeof bytes, u.in_flight));
		y++;
	}
	/* each transfer: its share of the link, its head moving as bytes arrive */
	for (k = 0; k < u.nflows && k < HD_LINK_MAX_FLOWS && y - y0 < rows; k++, y++) {
		int head = (int)(u.done[k] * (mw - 1) + 0.5);

		hd_view_meter(scr, clip, x + 5, y, mw, u.share[k], hd_spanlook_glyph(look, true),
			      style(role, 0));
		if (d2h)
			head = mw - 1 - head;
		hd_screen_puts(scr, clip, x + 5 + head, y,
			       hd_screen_glyph(scr, d2h ? HD_G_ARROW_L : HD_G_ARROW_R),
			       style(role, HD_ATTR_BOLD));
		hd_screen_printf(scr, clip, x + 6 + mw, y, style(HD_ROLE_TEXT, 0), "%3d%%",
				 (int)(u.share[k] * 100 + 0.5));
	}
}

static void
draw_gpu(struct hd_screen *scr, struct hd_rect b, const struct hd_trace *t,
	 const struct hd_scenario *sc, hd_time at)
{
	static const enum hd_lane_kind order[] = {
		HD_LANE_CE_H2D, HD_LANE_CE_D2H, HD_LANE_CE_D2D, HD_LANE_COMPUTE, HD_LANE_STREAM,
	};
	struct hd_rect in = { b.x + 2, b.y + 1, b.w - 3, b.h - 2 };
	int *ord = hd_timeline_lane_order(t), y = in.y, shown = 0, total = 0, i;
	size_t k;
	char lab[96], g[2] = { 0, 0 };

	hd_screen_box(scr, b, "GPU", style(HD_ROLE_BORDER, 0));
	for (k = 0; k < HD_ARRAY_LEN(order); k++)
		for (i = 0; i < t->nlanes; i++) {
			const struct hd_lane *ln = &t->lanes[ord[i]];
			const struct hd_span *s;
			struct hd_rect row = { in.x, y, in.w, 1 };
			int x;

			if (ln->kind != order[k] || ln->rank != 0)
				continue;
			total++;
			if (in.h <= 0 || y >= in.y + in.h)
				continue;
			if (y == in.y + in.h - 1 && shown + 1 < total)
				continue; /* the last row says how many are left out */
			s = active_span(t, ord[i], at);
			x = hd_screen_puts(scr, &row, in.x, y, ln->name, style(HD_ROLE_LANE, 0));
			x = x < in.x + in.w / 2 ? in.x + in.w / 2 : x + 1;
			if (ln->kind == HD_LANE_STREAM)
				draw_queue(scr, &row, x, t, sc, ord[i], at);
			else if (s == NULL)
				hd_screen_puts(scr, &row, x, y, "idle",
					       style(HD_ROLE_TEXT, HD_ATTR_DIM));
			else {
				g[0] = hd_timeline_span_glyph(t, sc, s);
				short_label(t, sc, s, lab, sizeof lab);
				x = hd_screen_puts(
				    scr, &row, x, y, g,
				    style(hd_view_span_role(t, sc, s), HD_ATTR_BOLD));
				hd_screen_puts(scr, &row, x + 1, y, lab,
					       style(hd_view_span_role(t, sc, s), 0));
			}
			y++;
			shown++;
		}
	if (shown < total && in.h > 0) {
		hd_screen_fill(scr, (struct hd_rect){ in.x, in.y + in.h - 1, in.w, 1 }, " ",
			       style(HD_ROLE_TEXT, 0));
		hd_screen_printf(scr, &in, in.x, in.y + in.h - 1, style(HD_ROLE_TEXT, HD_ATTR_DIM),
				 "+%d more", total - shown);
	}
	free(ord);
}

/*
 * Several ranks: a box per rank (as many as fit, from the rank the
 * timeline is scrolled to; the last one stands at the end with "..."
 * between) with what its host thread and its GPU do at
 * the playhead, and under each the rank's link out (NVLink, PCIe peer or
 * network): a meter of its use and the transfer's head moving as bytes
 * arrive.
 */
static void
draw_ranks(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
	   const struct hd_scenario *sc, const struct hd_view_opts *o, int maxr)
{
	static const enum hd_lane_kind gpu_k[] = { HD_LANE_STREAM, HD_LANE_COMPUTE, HD_LANE_CE_H2D,
						   HD_LANE_CE_D2H, HD_LANE_CE_D2D };
	int n = maxr + 1, bw = 16, fit, shown, i, rank, ring, base, top;
	double peak = 0;
	size_t k;
	char lab[96];

	/* 100 % of a link: the fastest transfer on any link row */
	for (k = 0; k < t->nspans; k++) {
		const struct hd_span *s = &t->spans[k];

		if (t->lanes[s->lane].kind == HD_LANE_LINK && s->end > s->start &&
		    (double)s->bytes * 1e12 / (double)(s->end - s->start) > peak)
			peak = (double)s->bytes * 1e12 / (double)(s->end - s->start);
	}
	/* the ranks on their topology; under it, where there is a row to
	 * spare, the path of each transfer on a link */
	top = hd_diagram_topo_line(scr, (struct hd_rect){ r.x, r.y, r.w, 1 }, o->profile, n);
	if (r.h >= 9 && o->profile != NULL)
		top += hd_diagram_hops_line(scr, (struct hd_rect){ r.x, r.y + top, r.w, 1 }, t, sc,
					    o->profile, o->t, n);
	/* the collective on its ring, when there is room for boxes beneath;
	 * the ranks' buffers under it where the boxes keep two rows inside */
	ring = r.h - top >= 6 ?
	    hd_diagram_ring(scr, (struct hd_rect){ r.x, r.y + top, r.w, r.h - top >= 7 ? 3 : 2 }, t,
			    sc, o, n) :
	    0;
	/* else sends between ranks and a deadlock's cycle */
	if (ring == 0 && r.h - top >= 6)
		ring = hd_diagram_p2p(scr, (struct hd_rect){ r.x, r.y + top, r.w, 2 }, t, sc, o->t,
				      n);
	ring += top - 1;
	fit = (r.w + 1) / (bw + 1);
	if (fit < 1)
		return;
	shown = n <= fit ? n : fit;
	/* from the rank the timeline is scrolled to, as far as the last */
	base = o->rank_from < n - shown ? o->rank_from : n - shown;
	if (base < 0)
		base = 0;
	for (i = 0; i < shown; i++) {
		struct hd_rect b = { r.x + i * (bw + 1), r.y + 1 + ring, bw, r.h - 1 - ring };
		struct hd_rect in = { b.x + 1, b.y + 1, b.w - 2, b.h - 2 };
		const struct hd_span *h, *g;
		char name[24];
		int y = in.y;

		/* too many to show: the first ones (from base) and the last */
		rank = n > fit && i == shown - 1 ? maxr : base + i;
		snprintf(name, sizeof name, n > fit && i == shown - 1 ? "... R%d" : "Rank %d",
			 rank);
		hd_screen_box(scr, b, name, style(HD_ROLE_BORDER, 0));
		if (in.h <= 0 || in.w <= 0)
			continue;
		h = rank_active(t, rank, host_kinds, HD_ARRAY_LEN(host_kinds), o->t);
		if (h == NULL)
			hd_screen_puts(scr, &in, in.x, y, "host idle",
				       style(HD_ROLE_TEXT, HD_ATTR_DIM));
		else if (h->kind == HD_SPAN_BLOCKED)
			hd_screen_puts(scr, &in, in.x, y, hd_why_name(h->why),
				       style(kind_role(HD_SPAN_BLOCKED), HD_ATTR_BOLD));
		else {
			short_label(t, sc, h, lab, sizeof lab);
			hd_screen_puts(scr, &in, in.x, y, lab,
				       style(hd_view_span_role(t, sc, h), 0));
		}
		if (++y >= in.y + in.h)
			continue;
		g = rank_active(t, rank, gpu_k, HD_ARRAY_LEN(gpu_k), o->t);
		if (g == NULL)
			hd_screen_puts(scr, &in, in.x, y, "GPU idle",
				       style(HD_ROLE_TEXT, HD_ATTR_DIM));
		else {
			short_label(t, sc, g, lab, sizeof lab);
			hd_screen_puts(scr, &in, in.x, y, lab,
				       style(hd_view_span_role(t, sc, g), HD_ATTR_BOLD));
		}
		if (++y >= in.y + in.h)
			continue;
		/* the rank's link out, with the transfer's head moving */
		{
			static const enum hd_lane_kind link_k[] = { HD_LANE_LINK };
			const struct hd_span *l = rank_active(t, rank, link_k, 1, o->t);
			int mw = in.w - 2;

			if (l == NULL || mw < 3) {
				hd_screen_puts(scr, &in, in.x, y, "link idle",
					       style(HD_ROLE_TEXT, HD_ATTR_DIM));
				continue;
			}
			{
				double rate = (double)l->bytes * 1e12 / (double)(l->end - l->start);
				double done = (double)(o->t - l->start) /
				    (double)(l->end - l->start);
				int head = (int)(done * (mw - 1) + 0.5);

				hd_view_meter(scr, &in, in.x, y, mw, peak > 0 ? rate / peak : 1,
					      "=", style(kind_role(HD_SPAN_COMM), 0));
				hd_screen_puts(scr, &in, in.x + head, y,
					       hd_screen_glyph(scr, HD_G_ARROW_R),
					       style(kind_role(HD_SPAN_COMM), HD_ATTR_BOLD));
				if (y + 1 < in.y + in.h)
					hd_screen_puts(scr, &in, in.x, y + 1,
						       t->lanes[l->lane].name,
						       style(HD_ROLE_TEXT, 0));
			}
		}
	}
}

/* Managed memory migrates in groups of the profile's um.page; this many
 * bytes when the caller does not say. */
#define FAULT_GROUP (64 * 1024)

void
hd_view_diagram(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		const struct hd_scenario *sc, const struct hd_view_opts *o)
{
	struct hd_rect host, gpu, link;
	int hw, gw, rows, maxr;

	r = hd_rect_clip(r, hd_screen_rect(scr));
	if (r.w < 40 || r.h < 3)
		return;
	if ((maxr = hd_timeline_max_rank(t)) > 0) {
		draw_ranks(scr, r, t, sc, o, maxr);
		return;
	}
	hw = r.w / 5 < 12 ? 12 : r.w / 5 > 24 ? 24 : r.w / 5;
	gw = r.w * 2 / 5 < 20 ? 20 : r.w * 2 / 5 > 56 ? 56 : r.w * 2 / 5;
	host = (struct hd_rect){ r.x, r.y, hw, r.h };
	gpu = (struct hd_rect){ r.x + r.w - gw, r.y, gw, r.h };
	link = (struct hd_rect){ r.x + hw + 1, r.y, r.w - hw - gw - 2, r.h };
	draw_host(scr, host, t, sc, o->t);
	draw_gpu(scr, gpu, t, sc, o->t);
	hd_screen_puts(scr, &link, link.x, link.y, "PCIe", style(HD_ROLE_TITLE, HD_ATTR_BOLD));
	/* a staged copy's chunks and the fault counter in the last two rows */
	if (hd_diagram_path(scr, (struct hd_rect){ link.x, link.y + link.h - 2, link.w, 2 }, t,
			    o->t, o->fault_group > 0 ? o->fault_group : FAULT_GROUP) > 0)
		link.h -= 2;
	/* each direction gets half the rows under the title (r.h >= 3: at least one) */
	rows = (link.h - 1) / 2;
	draw_link(scr, &link, link.x, link.y + 1, link.w, rows, t, HD_LANE_PCIE_H2D, o);
	draw_link(scr, &link, link.x, link.y + 1 + rows, link.w, link.h - 1 - rows, t,
		  HD_LANE_PCIE_D2H, o);
}

/* ---- status line --------------------------------------------------------- */

void
hd_view_status(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
	       const struct hd_view_opts *o)
{
	struct hd_style st = style(HD_ROLE_STATUS, HD_ATTR_REVERSE);
	struct hd_tunit u = hd_timeline_unit(t->makespan > 0 ? t->makespan : 1);
	char now[32], end[32], ms[32], d[32];
	int x;

	r = hd_rect_clip(r, hd_screen_rect(scr));
	if (r.w <= 0 || r.h <= 0)
		return;
	r.h = 1;
	hd_screen_fill(scr, r, " ", st);
	x = hd_screen_printf(scr, &r, r.x + 1, r.y, st, "t %s / %s %s  ",
			     hd_timeline_fmt(now, sizeof now, o->t, u, 3),
			     hd_timeline_fmt(end, sizeof end, t->makespan, u, 3), u.name);
	x = hd_screen_puts(scr, &r, x, r.y,
			   hd_screen_glyph(scr, o->playing ? HD_G_PLAY : HD_G_PAUSE), st);
	x = hd_screen_printf(scr, &r, x, r.y, st, " %gx   makespan %s", o->speed,
			     hd_fmt_time(ms, sizeof ms, t->makespan));
	if (o->ghost != NULL) {
		hd_time delta = t->makespan - o->ghost->makespan;
		hd_fmt_time(d, sizeof d, delta < 0 ? -delta : delta);
		x = hd_screen_printf(scr, &r, x, r.y, st, "   %s %s (%s%s)",
				     o->ghost_name != NULL ? o->ghost_name : "before",
				     hd_fmt_time(ms, sizeof ms, o->ghost->makespan),
				     delta < 0 ? "-" : "+", d);
		if (o->ghost_about != NULL)
			hd_screen_printf(scr, &r, x - 1, r.y, st, "; %s)", o->ghost_about);
	}
}

/* ---- the run screen ------------------------------------------------------ */

/* Do t's ranks fill more than one node of p? */
static bool
multi_node(const struct hd_trace *t, const struct hd_profile *p)
{
	struct hd_diagram_topo tp;
	int maxr = hd_timeline_max_rank(t);

	if (maxr < 1)
		return false;
	hd_diagram_topo_of(p, maxr + 1, &tp);
	return tp.nodes > 1;
}

void
hd_view_run(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
	    const struct hd_scenario *sc, const struct hd_view_opts *o)
{
	struct hd_rect d, tl, st;
	int dh, need;

	r = hd_rect_clip(r, hd_screen_rect(scr));
	if (r.w <= 0 || r.h <= 0)
		return;
	dh = r.h >= 40 ? 12 : r.h >= 20 ? 8 : r.h >= 14 ? 6 : 0;
	/* ranks on several nodes: a row for the path each transfer takes,
	 * where the timeline keeps room to fold its ranks */
	if (dh == 8 && r.h >= 26 && o->profile != NULL && multi_node(t, o->profile))
		dh = 9;
	/* the timeline's lanes before the diagram: it shrinks, then goes, where
	 * they would not fit even folded (status line and axis: 3 rows) */
	need = dh > 0 && r.h - dh - 3 < t->nlanes ? tl_rows_min(t, o->ghost) : 0;
	if (dh > 0 && r.h - dh - 3 < need) {
		dh = r.h - 3 - need;
		if (dh < 3)
			dh = 0;
	}
	d = (struct hd_rect){ r.x, r.y, r.w, dh };
	tl = (struct hd_rect){ r.x, r.y + dh, r.w, r.h - dh - 1 };
	st = (struct hd_rect){ r.x, r.y + r.h - 1, r.w, 1 };
	if (dh > 0)
		hd_view_diagram(scr, d, t, sc, o);
	if (tl.h > 0)
		hd_view_timeline(scr, tl, t, sc, o);
	hd_view_status(scr, st, t, o);
}

/* ---- compare and legend -------------------------------------------------- */

void
hd_view_compare(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *const *traces,
		const struct hd_scenario *const *sc, const char *const *names, int n, int cur)
{
	struct hd_tl_geom g;
	struct hd_tl_cell *bar;
	struct hd_rect in;
	bool utf8 = !hd_screen_ascii(scr);
	int i, c;

	r = hd_rect_clip(r, hd_screen_rect(scr));
	if (r.w < 24 || r.h < 4)
		return;
	hd_screen_fill(scr, r, " ", style(HD_ROLE_TEXT, 0));
	hd_screen_box(scr, r, " Compare: one time axis ", style(HD_ROLE_BORDER, 0));
	in = (struct hd_rect){ r.x + 1, r.y + 1, r.w - 2, r.h - 2 };
	memset(&g, 0, sizeof g);
	g.name_w = 8;
	g.span = 1;
	for (i = 0; i < n; i++) {
		int l = hd_utf8_width(names[i]);
		if (l > g.name_w)
			g.name_w = l > 16 ? 16 : l;
		if (traces[i]->makespan > g.span)
			g.span = traces[i]->makespan;
	}
	g.bar_x = in.x + g.name_w + 1;
	g.bar_w = in.w - g.name_w - 1 - 10; /* room for the makespan */
	if (g.bar_w < 4)
		return;
	bar = hd_xcalloc((size_t)g.bar_w + 1, sizeof *bar);
	for (i = 0; i < n && i < in.h - 2; i++) {
		struct hd_tl_window win = { 0, g.span };
		int y = in.y + i, w = hd_timeline_col(traces[i]->makespan, g.bar_w, g.span, 1);
		char ms[32];
		struct hd_rect namer = { in.x, y, g.name_w, 1 };

		hd_screen_puts(scr, &namer, in.x, y, names[i],
			       style(HD_ROLE_LANE, i == cur ? HD_ATTR_BOLD : 0));
		hd_timeline_compare_bar(bar, g.bar_w, traces[i], sc[i], win);
		for (c = 0; c < w && c < g.bar_w; c++) {
			const struct hd_spanlook *lk = bar[c].look;

			hd_screen_puts(
			    scr, &in, g.bar_x + c, y, hd_timeline_cell_glyph(&bar[c], utf8),
			    style(lk != NULL ? hd_role_of_hue(lk->hue) : HD_ROLE_DEFAULT, 0));
		}
		hd_screen_puts(scr, &in, g.bar_x + c, y, "|", style(HD_ROLE_AXIS, 0));
		hd_screen_puts(scr, &in, g.bar_x + c + 2, y,
			       hd_fmt_time(ms, sizeof ms, traces[i]->makespan),
			       style(HD_ROLE_TEXT, i == cur ? HD_ATTR_BOLD : 0));
	}
	g.axis_y = in.y + i;
	draw_axis(scr, &in, &g, -1);
	free(bar);
}

int
hd_view_legend(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
	       const struct hd_scenario *sc, const struct hd_view_opts *vo)
{
	struct hd_tl_opts o = { .width = 80, .utf8 = !hd_screen_ascii(scr) };
	struct hd_buf b;
	const char *p;
	int y, w = 0, n = 0;

	hd_buf_init(&b);
	hd_timeline_legend(&b, t, sc, &o);
	if (vo != NULL && vo->ghost != NULL)
		hd_buf_printf(&b, "  %s  previous run, whole and dim on its own rows%s%s\n",
			      vo->ghost_name != NULL ? vo->ghost_name : "before",
			      vo->ghost_about != NULL ? ": " : "",
			      vo->ghost_about != NULL ? vo->ghost_about : "");
	for (p = b.s; p != NULL && *p != '\0'; n++) {
		const char *nl = strchr(p, '\n');
		char line[160];
		int l;

		snprintf(line, sizeof line, "%.*s", (int)(nl - p), p);
		if ((l = hd_utf8_width(line)) > w)
			w = l;
		p = nl + 1;
	}
	r = hd_rect_clip(r, hd_screen_rect(scr));
	if (r.w > w + 4) {
		r.x += r.w - (w + 4);
		r.w = w + 4;
	}
	if (r.h > n + 1)
		r.h = n + 1;
	if (r.w >= 8 && r.h >= 3) {
		hd_screen_fill(scr, r, " ", style(HD_ROLE_TEXT, 0));
		hd_screen_box(scr, r, " Legend (L) ", style(HD_ROLE_BORDER, 0));
		/* the first line is the heading the box title replaces */
		p = strchr(b.s, '\n') + 1;
		for (y = r.y + 1; *p != '\0' && y < r.y + r.h - 1; y++) {
			const char *nl = strchr(p, '\n');
			char line[160];

			snprintf(line, sizeof line, "%.*s", (int)(nl - p), p);
			hd_screen_puts(scr, &r, r.x + 1, y, line, style(HD_ROLE_TEXT, 0));
			p = nl + 1;
		}
	}
	hd_buf_free(&b);
	return n - 1;
}

/* ---- playback events ----------------------------------------------------- */

struct hd_events {
	hd_time *t;
	size_t n;
};

static int
time_cmp(const void *a, const void *b)
{
	hd_time x = *(const hd_time *)a, y = *(const hd_time *)b;

	return (x > y) - (x < y);
}

struct hd_events *
hd_events_new(const struct hd_trace *t)
{
	struct hd_events *ev = hd_xcalloc(1, sizeof *ev);
	size_t i, n = 0;

	ev->t = hd_xcalloc(2 * t->nspans + 1, sizeof *ev->t);
	for (i = 0; i < t->nspans; i++) {
		ev->t[n++] = t->spans[i].start;
		ev->t[n++] = t->spans[i].end;
	}
	qsort(ev->t, n, sizeof *ev->t, time_cmp);
	for (i = 0; i < n; i++)
		if (ev->n == 0 || ev->t[ev->n - 1] != ev->t[i])
			ev->t[ev->n++] = ev->t[i];
	return ev;
}

void
hd_events_free(struct hd_events *ev)
{
	if (ev == NULL)
		return;
	free(ev->t);
	free(ev);
}

size_t
hd_events_count(const struct hd_events *ev)
{
	return ev->n;
}

hd_time
hd_events_at(const struct hd_events *ev, size_t i)
{
	return i < ev->n ? ev->t[i] : 0;
}

/* Index of the first event > t (ev->n when none). */
static size_t
upper(const struct hd_events *ev, hd_time t)
{
	size_t lo = 0, hi = ev->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ev->t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

hd_time
hd_events_next(const struct hd_events *ev, hd_time t)
{
	size_t i = upper(ev, t);

	return i < ev->n ? ev->t[i] : t;
}

hd_time
hd_events_prev(const struct hd_events *ev, hd_time t)
{
	size_t lo = 0, hi = ev->n;

	/* first index with event >= t */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ev->t[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 ? ev->t[lo - 1] : t;
}
