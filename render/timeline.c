/*
 * timeline.c - the text timeline: a trace drawn as rows of cells, and the
 * one cell renderer the browser's view and the Markdown export draw with.
 *
 * Time maps linearly onto the bar area: column c covers
 * [t0 + c * (t1 - t0) / bar, t0 + (c + 1) * (t1 - t0) / bar).  A cell shows
 * the share of its time the lane is busy (the union of the lane's spans),
 * so idle time shows at any zoom; a span touching a column marks it at
 * least a little, so a zero-length event still shows.  Where spans of one
 * lane overlap (a blocked part inside its API call, an event on a busy
 * stream) the look with the higher priority (ir/spanlook.h) owns the cell;
 * labels are written only over cells their own span owns, busy throughout.
 * Each lane is one sweep over its spans in start order: linear.
 *
 * Over 1,200 lines: the cell renderer, the rows, the op table, the compare
 * block and the legend all read the one cell index and window built here,
 * which is what keeps the browser, `hdsim run` and Markdown drawing alike.
 */
#include <sys/ioctl.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/units.h"
#include "ir/spanlook.h"
#include "lang/opname.h"
#include "render/timeline.h"

/* The ANSI colour of each colour role (Nsight's: kernels blue, copies red). */
static const char *const hue_sgr[HD_HUE__COUNT] = {
	[HD_HUE_API] = "36",      [HD_HUE_BLOCKED] = "2",   [HD_HUE_HOST] = "32",
	[HD_HUE_STAGING] = "33",  [HD_HUE_COPY_H2D] = "31", [HD_HUE_COPY_D2H] = "31",
	[HD_HUE_COPY_D2D] = "31", [HD_HUE_KERNEL] = "34",   [HD_HUE_EVENT] = "35",
	[HD_HUE_WAIT] = "90",     [HD_HUE_FAULT] = "91",    [HD_HUE_PREFETCH] = "95",
	[HD_HUE_COMM] = "92",
};

const char *
hd_timeline_sgr(enum hd_span_hue h)
{
	return (unsigned)h < HD_HUE__COUNT ? hue_sgr[h] : "0";
}

char
hd_timeline_glyph(enum hd_span_kind k)
{
	return hd_spanlook_char(hd_spanlook_get(k, HD_DIR_OUT));
}

static const struct hd_tunit tunits[] = {
	{ "ps", HD_PS }, { "ns", HD_NS }, { "us", HD_US }, { "ms", HD_MS }, { "s", HD_S },
};

struct hd_tunit
hd_timeline_unit(hd_time makespan)
{
	size_t i;
	struct hd_tunit u = tunits[0];

	for (i = 0; i < HD_ARRAY_LEN(tunits); i++)
		if (makespan >= tunits[i].ps)
			u = tunits[i];
	return u;
}

char *
hd_timeline_fmt(char *buf, size_t n, hd_time t, struct hd_tunit u, int decimals)
{
	hd_time whole = t / u.ps, frac = t % u.ps, scale = 1;
	int i;
	const char *sign = "";

	if (t < 0) {
		sign = "-";
		whole = -whole;
		frac = -frac;
	}
	if (decimals <= 0) {
		if (frac * 2 >= u.ps)
			whole++;
		snprintf(buf, n, "%s%" PRId64, sign, whole);
		return buf;
	}
	/* Round the fraction to `decimals` places in integers: exact output. */
	if (decimals > 12)
		decimals = 12;
	for (i = 0; i < decimals; i++)
		scale *= 10;
	{
		__int128 f = (__int128)frac * scale;
		hd_time q = (hd_time)(f / u.ps);
		char digits[16];
		if ((f % u.ps) * 2 >= u.ps)
			q++;
		if (q >= scale) {
			whole++;
			q -= scale;
		}
		for (i = decimals - 1; i >= 0; i--) {
			digits[i] = (char)('0' + q % 10);
			q /= 10;
		}
		digits[decimals] = '\0';
		snprintf(buf, n, "%s%" PRId64 ".%s", sign, whole, digits);
	}
	return buf;
}

int
hd_timeline_width(int requested)
{
	int w = requested;
	const char *cols;
	struct winsize ws;

	if (w <= 0 && (cols = getenv("COLUMNS")) != NULL && *cols != '\0')
		w = atoi(cols);
	if (w <= 0 && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
		w = ws.ws_col;
	if (w <= 0)
		w = HD_TL_DEFAULT_WIDTH;
	if (w < HD_TL_MIN_WIDTH)
		w = HD_TL_MIN_WIDTH;
	if (w > 1000)
		w = 1000;
	return w;
}

/* ---- geometry ------------------------------------------------------------ */

struct geom {
	int name_w;   /* lane name column */
	int bar_w;    /* bar area */
	hd_time span; /* time shown across the bar (makespan, at least 1) */
};

int
hd_timeline_col(hd_time t, int width, hd_time span, int up)
{
	__int128 x;

	if (t <= 0 || span <= 0)
		return 0;
	x = (__int128)t * width;
	return (int)(up ? (x + span - 1) / span : x / span);
}

static int
col_floor(const struct geom *g, hd_time t)
{
	return hd_timeline_col(t, g->bar_w, g->span, 0);
}

int
hd_timeline_max_rank(const struct hd_trace *t)
{
	int i, r = 0;

	for (i = 0; i < t->nlanes; i++)
		if (t->lanes[i].rank > r)
			r = t->lanes[i].rank;
	return r;
}

const char *
hd_timeline_lane_name(const struct hd_trace *t, int lane, char *buf, size_t n)
{
	const struct hd_lane *ln = &t->lanes[lane];

	if (hd_timeline_max_rank(t) == 0)
		return ln->name;
	snprintf(buf, n, "R%d %s", ln->rank, ln->name);
	return buf;
}

int
hd_timeline_rank_shown(int rank, int max_rank)
{
	return max_rank < HD_TL_MAX_RANKS || rank < HD_TL_MAX_RANKS - 1 || rank == max_rank;
}

static void
geom_init(struct geom *g, const struct hd_trace *t, int width)
{
	int i, w = 8;
	char nb[64];

	for (i = 0; i < t->nlanes; i++) {
		int l = (int)strlen(hd_timeline_lane_name(t, i, nb, sizeof nb));
		if (l > w)
			w = l;
	}
	if (w > 24)
		w = 24;
	g->name_w = w;
	g->bar_w = width - w - 3; /* "NAME |bar|" */
	g->span = t->makespan > 0 ? t->makespan : 1;
}

/* Pad or cut s to exactly w columns (left-aligned unless right). */
static void
put_col(struct hd_buf *b, const char *s, int w, int right)
{
	int l = (int)strlen(s);

	if (l > w) {
		if (w >= 2) {
			hd_buf_putn(b, s, (size_t)(w - 1));
			hd_buf_putc(b, '~');
		} else
			hd_buf_putn(b, s, (size_t)w);
		return;
	}
	if (right)
		for (; l < w; l++)
			hd_buf_putc(b, ' ');
	hd_buf_puts(b, s);
	if (!right)
		for (; l < w; l++)
			hd_buf_putc(b, ' ');
}

static void
sgr(struct hd_buf *b, const struct hd_tl_opts *o, const char *code)
{
	if (o->color)
		hd_buf_printf(b, "\033[%sm", code);
}

/* ---- lane rows ----------------------------------------------------------- */

static const struct hd_op *
span_op(const struct hd_scenario *sc, const struct hd_span *s)
{
	if (sc == NULL || s->op < 0 || s->op >= sc->nops)
		return NULL;
	return &sc->ops[s->op];
}

char
hd_timeline_span_glyph(const struct hd_trace *t, const struct hd_scenario *sc,
		       const struct hd_span *s)
{
	return hd_spanlook_char(hd_spanlook_of(t, sc, s));
}

/* The label a span may carry in its bar, longest form first. */
void
hd_timeline_span_labels(const struct hd_trace *t, const struct hd_scenario *sc,
			const struct hd_span *s, char *l1, char *l2, size_t n)
{
	const struct hd_op *op = span_op(sc, s);
	const char *base = NULL;
	char bytes[32];

	l1[0] = l2[0] = '\0';
	if (s->kind == HD_SPAN_BLOCKED) {
		snprintf(l1, n, "%s", hd_why_name(s->why));
		return;
	}
	if (s->kind == HD_SPAN_API || s->kind == HD_SPAN_EVENT) {
		if (s->label >= 0 && s->label < t->nstrings)
			snprintf(l1, n, "%s", t->strings[s->label]);
		return;
	}
	if (op != NULL && op->label != NULL)
		base = op->label;
	else if (s->label >= 0 && s->label < t->nstrings)
		base = t->strings[s->label];
	if (base == NULL)
		return;
	if (s->bytes > 0) {
		hd_fmt_bytes(bytes, sizeof bytes, s->bytes);
		snprintf(l1, n, "%s %s", base, bytes);
		snprintf(l2, n, "%s", base);
	} else
		snprintf(l1, n, "%s", base);
}

static bool
ascii(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static int
lane_cmp(const struct hd_lane *a, const struct hd_lane *b)
{
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return 0;
}

/* Lane indices in display order: by rank, then host, API, streams, engines, links. */
int *
hd_timeline_lane_order(const struct hd_trace *t)
{
	int *ord = hd_xcalloc((size_t)t->nlanes + 1, sizeof *ord);
	int i, j;

	for (i = 0; i < t->nlanes; i++) {
		int k = i;
		for (j = i; j > 0 && lane_cmp(&t->lanes[k], &t->lanes[ord[j - 1]]) < 0; j--)
			ord[j] = ord[j - 1];
		ord[j] = k;
	}
	return ord;
}

/* ---- cells --------------------------------------------------------------- */

struct hd_tl_index {
	const struct hd_trace *t;
	size_t *order; /* span indices by lane, then start (longest first) */
	size_t *first; /* [nlanes + 1]: lane l's spans are order[first[l] .. first[l+1]) */
};

/* Order of spans within a lane: by start, the longer first at one start
 * (so a call comes before the blocked part nested in it). */
struct span_key {
	hd_time start, end;
	size_t i;
};

static int
by_start(const void *a, const void *b)
{
	const struct span_key *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Sort order[0 .. n) (span indices of t) by by_start. */
static void
sort_by_start(const struct hd_trace *t, size_t *order, size_t n)
{
	struct span_key *k = hd_xcalloc(n + 1, sizeof *k);
	size_t i;

	for (i = 0; i < n; i++) {
		k[i].start = t->spans[order[i]].start;
		k[i].end = t->spans[order[i]].end;
		k[i].i = order[i];
	}
	qsort(k, n, sizeof *k, by_start);
	for (i = 0; i < n; i++)
		order[i] = k[i].i;
	free(k);
}

/*
 * A counting sort by lane keeps each lane's spans in trace order: already by
 * start in a sorted trace (hd_trace_sort), so the index is linear; a lane
 * found out of order is sorted on its own.
 */
struct hd_tl_index *
hd_tl_index_new(const struct hd_trace *t)
{
	struct hd_tl_index *ix = hd_xcalloc(1, sizeof *ix);
	size_t i, *at;
	int l;

	ix->t = t;
	ix->order = hd_xcalloc(t->nspans + 1, sizeof *ix->order);
	ix->first = hd_xcalloc((size_t)t->nlanes + 2, sizeof *ix->first);
	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].lane >= 0 && t->spans[i].lane < t->nlanes)
			ix->first[t->spans[i].lane + 1]++;
	for (l = 0; l < t->nlanes; l++)
		ix->first[l + 1] += ix->first[l];
	at = hd_xcalloc((size_t)t->nlanes + 1, sizeof *at);
	memcpy(at, ix->first, (size_t)t->nlanes * sizeof *at);
	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].lane >= 0 && t->spans[i].lane < t->nlanes)
			ix->order[at[t->spans[i].lane]++] = i;
	free(at);
	for (l = 0; l < t->nlanes; l++) {
		size_t a = ix->first[l], b = ix->first[l + 1];

		for (i = a + 1; i < b; i++)
			if (t->spans[ix->order[i]].start < t->spans[ix->order[i - 1]].start)
				break;
		if (i < b)
			sort_by_start(t, ix->order + a, b - a);
	}
	return ix;
}

void
hd_tl_index_free(struct hd_tl_index *ix)
{
	if (ix == NULL)
		return;
	free(ix->order);
	free(ix->first);
	free(ix);
}

const struct hd_trace *
hd_tl_index_trace(const struct hd_tl_index *ix)
{
	return ix->t;
}

/* Start of column c of a w-column bar over win. */
static hd_time
col_start(struct hd_tl_window win, int w, int c)
{
	return win.t0 + (hd_time)((__int128)(win.t1 - win.t0) * c / w);
}

/* The column of t in a w-column bar over win, clamped to [0, w]. */
static int
win_col(struct hd_tl_window win, int w, hd_time t, int up)
{
	int c = hd_timeline_col(t - win.t0, w, win.t1 - win.t0, up);

	return c > w ? w : c;
}

/* Add the busy interval [a, b) to the columns it covers. */
static void
add_busy(struct hd_tl_cell *cells, int w, struct hd_tl_window win, hd_time a, hd_time b)
{
	int c, c1;

	if (a < win.t0)
		a = win.t0;
	if (b > win.t1)
		b = win.t1;
	if (b <= a)
		return;
	c1 = win_col(win, w, b, 1);
	for (c = win_col(win, w, a, 0); c < c1; c++) {
		hd_time lo = col_start(win, w, c), hi = col_start(win, w, c + 1);

		cells[c].busy += (b < hi ? b : hi) - (a > lo ? a : lo);
	}
}

void
hd_timeline_cells(struct hd_tl_cell *cells, int w, const struct hd_tl_index *ix,
		  const struct hd_scenario *sc, int lane, struct hd_tl_window win, hd_time upto)
{
	const struct hd_trace *t = ix->t;
	bool whole = upto >= t->makespan;
	hd_time ma = 0, mb = -1;
	/* two columns' worth of time, in double: span * w overflows for spans of days */
	double two = 2.0 * (double)(win.t1 - win.t0);
	const struct hd_span *prev = NULL; /* the span that ended the merged run */
	size_t k;
	int c;

	memset(cells, 0, (size_t)(w > 0 ? w : 0) * sizeof *cells);
	if (w <= 0 || win.t1 <= win.t0 || lane < 0 || lane >= t->nlanes)
		return;
	for (k = ix->first[lane]; k < ix->first[lane + 1]; k++) {
		size_t i = ix->order[k];
		const struct hd_span *s = &t->spans[i];
		const struct hd_spanlook *look;
		hd_time end = s->end;
		int c0, c1;

		if (!whole) {
			if (s->start >= upto)
				break; /* by start: none after it is shown either */
			if (end > upto)
				end = upto;
		}
		/* busy time: the union of the lane's spans, one merged run at a time */
		if (s->start > mb) {
			add_busy(cells, w, win, ma, mb);
			ma = s->start;
		} else if (s->start == mb && prev != NULL && mb > ma &&
			   (prev->op < 0 || prev->op != s->op || prev->iter != s->iter) &&
			   (double)(prev->end - prev->start) * w >= two &&
			   (double)(end - s->start) * w >= two && s->start >= win.t0 &&
			   s->start < win.t1)
			cells[win_col(win, w, s->start, 0)].edge = true;
		if (end >= mb) {
			mb = end;
			prev = s;
		}
		if (end < win.t0 || s->start >= win.t1 || (end == win.t0 && end > s->start))
			continue;
		look = hd_spanlook_of(t, sc, s);
		c0 = win_col(win, w, s->start, 0);
		c1 = win_col(win, w, end, 1);
		if (c0 > w - 1)
			c0 = w - 1;
		if (c1 <= c0)
			c1 = c0 + 1;
		for (c = c0; c < c1; c++) {
			if (cells[c].look != NULL && cells[c].look->prio > look->prio)
				continue;
			cells[c].look = look;
			cells[c].owner = i + 1;
		}
	}
	add_busy(cells, w, win, ma, mb);
	for (c = 0; c < w; c++) {
		hd_time cw = col_start(win, w, c + 1) - col_start(win, w, c);
		__int128 e8;

		const struct hd_span *o;

		if (cells[c].look == NULL)
			continue;
		o = &t->spans[cells[c].owner - 1];
		/* a zero-length span (an event) is a mark, drawn whole */
		if (cw <= 0 || cells[c].busy >= cw || o->end == o->start) {
			cells[c].fill = 8;
			continue;
		}
		e8 = ((__int128)cells[c].busy * 8 + cw - 1) / cw;
		cells[c].fill = (unsigned char)(e8 < 1 ? 1 : e8 > 7 ? 7 : e8);
	}
}

/*
 * Partly busy cells: eighth blocks, left-aligned, where the terminal has
 * UTF-8; an ASCII ramp otherwise (, a quarter or less, ; a half or less,
 * + three quarters or less, * more).  The boundary between back-to-back
 * spans: a thin bar.
 */
static const char *const eighths[8] = {
	"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589",
};
static const char *const ascii_ramp[8] = { "", ",", ",", ";", ";", "+", "+", "*" };
#define EDGE_UTF8  "\u2502"
#define EDGE_ASCII "!"

const char *
hd_timeline_cell_glyph(const struct hd_tl_cell *c, bool utf8)
{
	if (c->look == NULL)
		return " ";
	if (c->edge)
		return utf8 ? EDGE_UTF8 : EDGE_ASCII;
	if (c->fill >= 8)
		return hd_spanlook_glyph(c->look, !utf8);
	return (utf8 ? eighths : ascii_ramp)[c->fill];
}

struct hd_tl_window
hd_timeline_zoom(struct hd_tl_window win, double factor, hd_time at, hd_time span, hd_time minw)
{
	hd_time w = win.t1 - win.t0, nw;

	if (span < 1)
		span = 1;
	if (minw < 1)
		minw = 1;
	nw = (hd_time)((double)w * factor);
	if (nw < minw)
		nw = minw;
	if (nw > span)
		nw = span;
	if (at < win.t0 || at > win.t1)
		at = win.t0 + w / 2;
	/* keep `at` at the same place on the bar */
	win.t0 = at - (hd_time)((double)(at - win.t0) * ((double)nw / (double)(w > 0 ? w : 1)));
	win.t1 = win.t0 + nw;
	return hd_timeline_pan(win, 0, span);
}

struct hd_tl_window
hd_timeline_pan(struct hd_tl_window win, double frac, hd_time span)
{
	hd_time w = win.t1 - win.t0, d = (hd_time)((double)w * frac);

	if (w > span)
		w = span;
	if (w < 1)
		w = 1;
	win.t0 += d;
	if (win.t0 + w > span)
		win.t0 = span - w;
	if (win.t0 < 0)
		win.t0 = 0;
	win.t1 = win.t0 + w;
	return win;
}

/* ---- lane rows ----------------------------------------------------------- */

/* Labels over runs of cells owned by one span (or by spans of one op and
 * kind), a run of several spans labelled without bytes (timeline.h). */
void
hd_timeline_cell_labels(char *ch, const struct hd_tl_cell *cells, int w, const struct hd_trace *t,
			const struct hd_scenario *sc)
{
	char l1[96], l2[96];
	int c, z, k;

	for (c = 0; c < w; c++)
		ch[c] = '\0';
	for (c = 0; c < w;) {
		const struct hd_span *s;
		const char *lab;
		int single = 1;

		if (cells[c].owner == 0 || cells[c].fill < 8) {
			c++;
			continue;
		}
		s = &t->spans[cells[c].owner - 1];
		for (z = c + 1;
		     z < w && cells[z].owner != 0 && cells[z].fill == 8 && !cells[z].edge; z++) {
			const struct hd_span *o2 = &t->spans[cells[z].owner - 1];
			if (o2 == s)
				continue;
			if (s->op < 0 || o2->op != s->op || o2->kind != s->kind)
				break;
			single = 0;
		}
		if (z - c >= 4) {
			hd_timeline_span_labels(t, sc, s, l1, l2, sizeof l1);
			if (!ascii(l1))
				l1[0] = '\0';
			if (!ascii(l2))
				l2[0] = '\0';
			if (l1[0] == '\0') {
				memcpy(l1, l2, sizeof l1);
				l2[0] = '\0';
			}
			lab = single ? l1 : l2[0] != '\0' ? l2 : l1;
			if ((int)strlen(lab) + 2 > z - c)
				lab = l2;
			if (lab[0] != '\0' && (int)strlen(lab) + 2 <= z - c) {
				k = c + (z - c - (int)strlen(lab)) / 2;
				for (; *lab != '\0'; lab++, k++)
					ch[k] = *lab;
			}
		}
		c = z;
	}
}

/* Cells as text: glyphs (labels over them), one colour sequence per run of
 * cells of one colour. */
static void
put_cells(struct hd_buf *out, const struct hd_tl_cell *cells, const char *lab, int w,
	  const struct hd_tl_opts *o)
{
	const char *cur = NULL;
	int c;

	for (c = 0; c < w; c++) {
		const char *code = cells[c].look != NULL ? hue_sgr[cells[c].look->hue] : NULL;

		if (o->color && (code == NULL ? cur != NULL : cur == NULL || strcmp(code, cur))) {
			if (cur != NULL)
				sgr(out, o, "0");
			if (code != NULL)
				sgr(out, o, code);
			cur = code;
		}
		if (lab != NULL && lab[c] != '\0')
			hd_buf_putc(out, lab[c]);
		else
			hd_buf_puts(out, hd_timeline_cell_glyph(&cells[c], o->utf8));
	}
	if (cur != NULL)
		sgr(out, o, "0");
}

static void
draw_lane(struct hd_buf *out, const struct hd_tl_index *ix, const struct hd_scenario *sc, int lane,
	  const struct geom *g, const struct hd_tl_opts *o, struct hd_tl_cell *cells, char *lab)
{
	struct hd_tl_window win = { 0, g->span };

	hd_timeline_cells(cells, g->bar_w, ix, sc, lane, win, HD_TIME_MAX);
	hd_timeline_cell_labels(lab, cells, g->bar_w, ix->t, sc);
	put_cells(out, cells, lab, g->bar_w, o);
}

/* A step of 1, 2 or 5 times a power of ten (ps) giving at most `n` ticks. */
hd_time
hd_timeline_tick_step(hd_time span, int n)
{
	hd_time p = 1;
	static const int m[] = { 1, 2, 5 };
	size_t i;

	if (n < 1)
		n = 1;
	for (;;) {
		for (i = 0; i < HD_ARRAY_LEN(m); i++)
			if (p * m[i] * n >= span)
				return p * m[i];
		if (p > HD_TIME_MAX / 100)
			return p;
		p *= 10;
	}
}

static void
draw_axis(struct hd_buf *out, const struct geom *g)
{
	struct hd_tunit u = hd_timeline_unit(g->span);
	hd_time step = hd_timeline_tick_step(g->span, g->bar_w / 8), tk, div;
	int c, decimals = 0, next = 0;
	char *line = hd_xmalloc((size_t)g->bar_w + 1), lab[48], cap[32];
	struct hd_buf lb;

	for (div = u.ps; div > 1 && step % div != 0; div /= 10)
		decimals++;
	memset(line, '-', (size_t)g->bar_w);
	line[g->bar_w] = '\0';
	for (tk = 0; tk <= g->span; tk += step) {
		c = col_floor(g, tk);
		if (c < g->bar_w)
			line[c] = '+';
	}
	/* The row ends in '|' where the bar ends: the makespan. */
	put_col(out, "", g->name_w, 0);
	hd_buf_puts(out, "  ");
	hd_buf_puts(out, line);
	hd_buf_puts(out, "|\n");

	/* Tick labels, left-aligned on their tick, skipped where they would touch. */
	hd_buf_init(&lb);
	snprintf(cap, sizeof cap, g->name_w >= 9 ? "time (%s)" : "%s", u.name);
	put_col(&lb, cap, g->name_w, 1);
	hd_buf_puts(&lb, "  ");
	for (tk = 0; tk <= g->span; tk += step) {
		int l;
		c = col_floor(g, tk);
		hd_timeline_fmt(lab, sizeof lab, tk, u, decimals);
		l = (int)strlen(lab);
		if (c < next || c + l > g->bar_w + 1)
			continue;
		for (; next < c; next++)
			hd_buf_putc(&lb, ' ');
		hd_buf_puts(&lb, lab);
		next = c + l + 1;
		if (next <= g->bar_w)
			hd_buf_putc(&lb, ' ');
	}
	while (lb.len > 0 && lb.s[lb.len - 1] == ' ')
		lb.s[--lb.len] = '\0';
	hd_buf_puts(out, lb.s);
	hd_buf_putc(out, '\n');
	hd_buf_free(&lb);
	free(line);
}

void
hd_timeline_legend(struct hd_buf *out, const struct hd_trace *t, const struct hd_scenario *sc,
		   const struct hd_tl_opts *o)
{
	struct hd_tl_cell c = { .look = hd_spanlook_get(HD_SPAN_KERNEL, HD_DIR_OUT) };
	int f;

	hd_buf_puts(out, "Legend:\n");
	hd_spanlook_legend(out, t, sc, !o->utf8);
	hd_buf_puts(out, " ");
	for (f = 1; f < 8; f += o->utf8 ? 1 : 2) {
		c.fill = (unsigned char)f;
		hd_buf_printf(out, " %s", hd_timeline_cell_glyph(&c, o->utf8));
	}
	hd_buf_puts(out, "  lane busy part of the column's time (idle: blank)\n");
	c.fill = 8;
	c.edge = true;
	hd_buf_printf(out, "  %s  boundary between back-to-back ops\n",
		      hd_timeline_cell_glyph(&c, o->utf8));
}

/* One bar per lane row in display order, many ranks cut to a few. */
void
hd_timeline_rows(struct hd_buf *out, const struct hd_trace *t, const struct hd_scenario *sc,
		 const struct hd_tl_opts *o)
{
	struct geom g;
	struct hd_tl_cell *cells;
	struct hd_tl_index *ix = hd_tl_index_new(t);
	int *ord, i, maxr = hd_timeline_max_rank(t), hidden = 0;
	char nb[64], *lab;

	geom_init(&g, t, o->width);
	cells = hd_xcalloc((size_t)g.bar_w, sizeof *cells);
	lab = hd_xcalloc((size_t)g.bar_w + 1, 1);
	ord = hd_timeline_lane_order(t);
	for (i = 0; i < t->nlanes; i++) {
		int r = t->lanes[ord[i]].rank;

		if (!hd_timeline_rank_shown(r, maxr)) {
			/* many ranks: the first few and the last stand for all */
			if (!hidden++) {
				snprintf(nb, sizeof nb, "R%d-R%d", r, maxr - 1);
				put_col(out, nb, g.name_w, 0);
				hd_buf_printf(out, "  (%d ranks like these not shown)\n", maxr - r);
			}
			continue;
		}
		put_col(out, hd_timeline_lane_name(t, ord[i], nb, sizeof nb), g.name_w, 0);
		hd_buf_puts(out, " |");
		draw_lane(out, ix, sc, ord[i], &g, o, cells, lab);
		hd_buf_puts(out, "|\n");
	}
	draw_axis(out, &g);
	hd_timeline_legend(out, t, sc, o);
	free(ord);
	free(lab);
	free(cells);
	hd_tl_index_free(ix);
}

/* ---- compare: the scenarios on one axis ---------------------------------- */

/* Merge lane cells `c` into the bar `bar`: the busiest lane's share, the
 * look of the higher priority. */
static void
merge_cells(struct hd_tl_cell *bar, const struct hd_tl_cell *c, int w)
{
	int k;

	for (k = 0; k < w; k++) {
		if (c[k].look == NULL)
			continue;
		if (bar[k].look == NULL || c[k].look->prio >= bar[k].look->prio) {
			bar[k].look = c[k].look;
			bar[k].owner = c[k].owner;
		}
		if (c[k].fill > bar[k].fill)
			bar[k].fill = c[k].fill;
	}
}

/* Which side of a compare bar a lane speaks for (stream rows repeat their
 * engines' spans and are left out). */
enum side {
	SIDE_NONE,
	SIDE_HOST,
	SIDE_DEVICE
};
static const enum side lane_side[HD_LANE__COUNT] = {
	[HD_LANE_HOST] = SIDE_HOST,       [HD_LANE_API] = SIDE_HOST,
	[HD_LANE_STREAM] = SIDE_NONE,     [HD_LANE_CE_H2D] = SIDE_DEVICE,
	[HD_LANE_CE_D2H] = SIDE_DEVICE,   [HD_LANE_CE_D2D] = SIDE_DEVICE,
	[HD_LANE_COMPUTE] = SIDE_DEVICE,  [HD_LANE_PCIE_H2D] = SIDE_DEVICE,
	[HD_LANE_PCIE_D2H] = SIDE_DEVICE, [HD_LANE_LINK] = SIDE_DEVICE,
};

void
hd_timeline_compare_bar(struct hd_tl_cell *bar, int w, const struct hd_trace *t,
			const struct hd_scenario *sc, struct hd_tl_window win)
{
	struct hd_tl_index *ix = hd_tl_index_new(t);
	struct hd_tl_cell *host = hd_xcalloc((size_t)w + 1, sizeof *host);
	struct hd_tl_cell *cells = hd_xcalloc((size_t)w + 1, sizeof *cells);
	int l, k;

	memset(bar, 0, (size_t)w * sizeof *bar);
	for (l = 0; l < t->nlanes; l++) {
		enum side sd = (unsigned)t->lanes[l].kind < HD_LANE__COUNT ?
		    lane_side[t->lanes[l].kind] :
		    SIDE_NONE;

		if (t->lanes[l].rank != 0 || sd == SIDE_NONE)
			continue;
		hd_timeline_cells(cells, w, ix, sc, l, win, HD_TIME_MAX);
		merge_cells(sd == SIDE_DEVICE ? bar : host, cells, w);
	}
	for (k = 0; k < w; k++)
		if (bar[k].look == NULL)
			bar[k] = host[k];
	free(cells);
	free(host);
	hd_tl_index_free(ix);
}

void
hd_timeline_compare(struct hd_buf *out, const struct hd_trace *const *traces,
		    const struct hd_scenario *const *sc, const char *const *names, int n,
		    const struct hd_tl_opts *o)
{
	struct geom g = { 8, 0, 1 };
	struct hd_tl_cell *bar;
	int i;
	char ms[32];

	for (i = 0; i < n; i++) {
		int len = (int)strlen(names[i]);
		if (len > g.name_w)
			g.name_w = len > 24 ? 24 : len;
		if (traces[i]->makespan > g.span)
			g.span = traces[i]->makespan;
	}
	g.bar_w = o->width - g.name_w - 3 - 11; /* " |bar| 123.456 ms" */
	bar = hd_xcalloc((size_t)g.bar_w + 1, sizeof *bar);
	hd_buf_puts(out, "\n");
	hd_timeline_wrap(out, "Compare  ",
			 "the scenarios on one time axis, each as long as "
			 "its makespan: the GPU's engines, the host where they idle",
			 o->width, 9);
	for (i = 0; i < n; i++) {
		struct hd_tl_window win = { 0, g.span };
		int w = hd_timeline_col(traces[i]->makespan, g.bar_w, g.span, 1);

		hd_timeline_compare_bar(bar, g.bar_w, traces[i], sc[i], win);
		put_col(out, names[i], g.name_w, 0);
		hd_buf_puts(out, " |");
		put_cells(out, bar, NULL, w > 0 ? w : 1, o);
		hd_buf_printf(out, "| %s\n", hd_fmt_time(ms, sizeof ms, traces[i]->makespan));
	}
	draw_axis(out, &g);
	free(bar);
}

/* ---- the op table -------------------------------------------------------- */

/* Does this op go to a stream (so the table names one)? */
static bool
op_on_stream(const struct hd_op *op)
{
	static const bool on[HD_OP__COUNT] = {
		[HD_OP_COPY] = true,   [HD_OP_KERNEL] = true, [HD_OP_PREFETCH] = true,
		[HD_OP_RECORD] = true, [HD_OP_WAIT] = true,   [HD_OP_STREAM_SYNC] = true,
		[HD_OP_SEND] = true,   [HD_OP_RECV] = true,   [HD_OP_COLL] = true,
		[HD_OP_LAUNCH] = true,
	};
	/* a graph's nodes run where the graph is launched; a worker's ops on no stream */
	return (unsigned)op->kind < HD_OP__COUNT && on[op->kind] && !op->in_graph && !op->worker;
}

/* The name an op goes by in tables: its label, else its statement. */
static void
op_name(char *buf, size_t n, const struct hd_scenario *sc, int i)
{
	hd_opname(buf, n, sc, i);
}

hd_time
hd_timeline_op_busy(const struct hd_trace *t, int op)
{
	hd_time stream = 0, api = 0;
	size_t i, n;
	/* the op's own spans through the trace's index; all of them without one */
	const uint32_t *ix = hd_trace_op_spans(t, op, &n);

	if (ix == NULL)
		n = t->nspans;
	for (i = 0; i < n; i++) {
		const struct hd_span *s = &t->spans[ix != NULL ? ix[i] : i];
		const struct hd_lane *ln = &t->lanes[s->lane];

		if (s->op != op || ln->rank != 0)
			continue;
		if (ln->kind == HD_LANE_STREAM && s->kind != HD_SPAN_WAIT &&
		    s->kind != HD_SPAN_EVENT)
			stream += s->end - s->start;
		else if ((ln->kind == HD_LANE_API || ln->kind == HD_LANE_HOST) &&
			 s->kind == HD_SPAN_API) /* a host thread's calls are on its own lane */
			api += s->end - s->start;
	}
	return stream > 0 ? stream : api;
}

/*
 * The op table's columns.  When the width is short, columns go in order of
 * `drop` (lowest first) until the rest fit; the op's name always stays.
 */
enum {
	C_NAME,
	C_CALL,
	C_STREAM,
	C_START,
	C_END,
	C_BUSY,
	C_BYTES,
	C_RATE,
	C__COUNT
};
static const struct opcol {
	const char *head;
	int w, right, drop;
} opcols[C__COUNT] = {
	[C_NAME] = { "op", 16, 0, 99 },      [C_CALL] = { "call", 21, 0, 1 },
	[C_STREAM] = { "stream", 10, 0, 2 }, [C_START] = { "start", 9, 1, 4 },
	[C_END] = { "end", 9, 1, 3 },        [C_BUSY] = { "busy", 9, 1, 7 },
	[C_BYTES] = { "bytes", 9, 1, 6 },    [C_RATE] = { "rate", 10, 1, 5 },
};

static void
opcols_pick(bool on[C__COUNT], int width)
{
	int k, total, drop;

	for (k = 0; k < C__COUNT; k++)
		on[k] = true;
	for (drop = 1;; drop++) {
		for (k = 0, total = -1; k < C__COUNT; k++)
			if (on[k])
				total += opcols[k].w + 1;
		if (total <= width || drop > C__COUNT)
			return;
		for (k = 0; k < C__COUNT; k++)
			if (opcols[k].drop == drop)
				on[k] = false;
	}
}

static void
opcols_row(struct hd_buf *out, const bool on[C__COUNT], char *const cell[C__COUNT])
{
	int k, first = 1;

	for (k = 0; k < C__COUNT; k++) {
		if (!on[k])
			continue;
		if (!first)
			hd_buf_putc(out, ' ');
		first = 0;
		put_col(out, cell[k], opcols[k].w, opcols[k].right);
	}
	while (out->len > 0 && out->s[out->len - 1] == ' ')
		out->s[--out->len] = '\0';
	hd_buf_putc(out, '\n');
}

/*
 * t's span indices grouped by op (a counting sort, O(spans + ops)): op i's
 * spans are t->spans[idx[k]] for k in [first[i], first[i + 1]), in trace
 * order.  The caller frees both.
 */
static size_t *
spans_by_op(const struct hd_trace *t, int nops, size_t **first)
{
	size_t *idx = hd_xcalloc(t->nspans + 1, sizeof *idx);
	size_t *f = hd_xcalloc((size_t)nops + 2, sizeof *f), i, *at;
	int k;

	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].op >= 0 && t->spans[i].op < nops)
			f[t->spans[i].op + 1]++;
	for (k = 0; k < nops; k++)
		f[k + 1] += f[k];
	at = hd_xcalloc((size_t)nops + 1, sizeof *at);
	memcpy(at, f, (size_t)nops * sizeof *at);
	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].op >= 0 && t->spans[i].op < nops)
			idx[at[t->spans[i].op]++] = i;
	free(at);
	*first = f;
	return idx;
}

/* An op with at most this many spans is timed over a copy of its own spans;
 * one with more over the whole trace (memory stays bounded). */
#define OP_VIEW_MAX 65536

void
hd_timeline_ops(struct hd_buf *out, const struct hd_trace *full, const struct hd_scenario *sc,
		const struct hd_tl_opts *o)
{
	/* each op is timed over a view of t holding its own spans only, so
	 * the table is linear in the spans however many ops there are */
	struct hd_trace view, *t = &view;
	struct hd_span *own = hd_xcalloc(OP_VIEW_MAX, sizeof *own);
	size_t *grouped, *first, j;
	struct hd_tunit u = hd_timeline_unit(full->makespan > 0 ? full->makespan : 1);
	char name[64], call[48], stream[48], s0[32], s1[32], d[32], by[32], rate[32];
	char h0[16], h1[16], *cell[C__COUNT];
	bool on[C__COUNT];
	int i, k, rows = 0;

	if (sc == NULL) {
		free(own);
		return;
	}
	view = *full;
	grouped = spans_by_op(full, sc->nops, &first);
	opcols_pick(on, o->width);
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];
		struct hd_op_time ot;
		hd_time dur;

		if (op->kind == HD_OP_REPEAT || op->kind == HD_OP_ON_RANK)
			continue;
		view = *full;
		if (first[i + 1] - first[i] <= OP_VIEW_MAX) {
			for (j = first[i]; j < first[i + 1]; j++)
				own[j - first[i]] = full->spans[grouped[j]];
			view.spans = own;
			view.nspans = first[i + 1] - first[i];
		}
		ot = hd_trace_op_time(t, i);
		if (!ot.found)
			continue;
		if (rows++ == 0) {
			char *head[C__COUNT];
			snprintf(h0, sizeof h0, "start %s", u.name);
			snprintf(h1, sizeof h1, "end %s", u.name);
			for (k = 0; k < C__COUNT; k++)
				head[k] = (char *)opcols[k].head;
			head[C_START] = h0;
			head[C_END] = h1;
			hd_buf_puts(out, "\n");
			sgr(out, o, "1");
			opcols_row(out, on, head);
			out->s[--out->len] = '\0'; /* reset colour before the newline */
			sgr(out, o, "0");
			hd_buf_putc(out, '\n');
		}
		op_name(name, sizeof name, sc, i);
		if (ot.execs > 1) {
			size_t l = strlen(name);
			snprintf(name + l, sizeof name - l, " x%" PRIu32, ot.execs);
		}
		snprintf(call, sizeof call, "%s", hd_op_api_name_sc(sc, op));
		snprintf(stream, sizeof stream, "%s",
			 op_on_stream(op) && op->stream >= 0 && op->stream < sc->nstreams ?
			     sc->streams[op->stream].name :
			     "-");
		dur = hd_timeline_op_busy(t, i);
		hd_timeline_fmt(s0, sizeof s0, ot.start, u, 3);
		hd_timeline_fmt(s1, sizeof s1, ot.end, u, 3);
		hd_fmt_time(d, sizeof d, dur);
		if (ot.bytes > 0)
			hd_fmt_bytes(by, sizeof by, ot.bytes);
		else
			snprintf(by, sizeof by, "-");
		if (ot.bytes > 0 && dur > 0)
			snprintf(rate, sizeof rate, "%.1f GB/s",
				 (double)ot.bytes / hd_time_to_s(dur) / 1e9);
		else
			snprintf(rate, sizeof rate, "-");
		cell[C_NAME] = name;
		cell[C_CALL] = call;
		cell[C_STREAM] = stream;
		cell[C_START] = s0;
		cell[C_END] = s1;
		cell[C_BUSY] = d;
		cell[C_BYTES] = by;
		cell[C_RATE] = rate;
		opcols_row(out, on, cell);
		/* a collective's rate is nccl-tests' algBw; its busBw beside it */
		if (op->kind == HD_OP_COLL && ot.bytes > 0 && dur > 0 && sc->nranks > 1) {
			double alg = (double)ot.bytes / hd_time_to_s(dur) / 1e9;

			hd_buf_printf(out,
				      "%16s   algBw %.1f GB/s, busBw %.1f GB/s "
				      "(algBw x %.3g on %d ranks, as nccl-tests)\n",
				      "", alg, alg * hd_coll_bus_factor(op->coll, sc->nranks),
				      hd_coll_bus_factor(op->coll, sc->nranks), sc->nranks);
		}
	}
	free(grouped);
	free(first);
	free(own);
}

void
hd_timeline_wrap(struct hd_buf *out, const char *first, const char *text, int width, int indent)
{
	int col = (int)strlen(first), len;
	bool space = false;
	const char *p = text;

	hd_buf_puts(out, first);
	for (;;) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (*p == '\0')
			break;
		for (len = 0; p[len] != '\0' && p[len] != ' ' && p[len] != '\n'; len++)
			;
		if (space && col + 1 + len > width && col > indent) {
			hd_buf_printf(out, "\n%*s", indent, "");
			col = indent;
			space = false;
		}
		if (space) {
			hd_buf_putc(out, ' ');
			col++;
		}
		hd_buf_putn(out, p, (size_t)len);
		col += len;
		space = true;
		p += len;
	}
	hd_buf_putc(out, '\n');
}

void
hd_timeline_blocked(struct hd_buf *out, const struct hd_trace *t, const struct hd_tl_opts *o)
{
	hd_time b[HD_WHY__COUNT], total = 0;
	char buf[32];
	int w;

	hd_trace_blocked(t, b);
	for (w = 0; w < HD_WHY__COUNT; w++)
		if (w != HD_WHY_NONE)
			total += b[w];
	hd_buf_putc(out, '\n');
	sgr(out, o, "1");
	hd_buf_printf(out, "Host blocked: %s", hd_fmt_time(buf, sizeof buf, total));
	sgr(out, o, "0");
	if (total == 0) {
		hd_buf_puts(out, " (the host never waited)\n");
		return;
	}
	hd_buf_printf(out, " of %s\n", hd_fmt_time(buf, sizeof buf, t->makespan));
	for (w = 0; w < HD_WHY__COUNT; w++) {
		if (w == HD_WHY_NONE || b[w] == 0)
			continue;
		char first[64];
		snprintf(first, sizeof first, "  %-14s %10s  ", hd_why_name((enum hd_why)w),
			 hd_fmt_time(buf, sizeof buf, b[w]));
		hd_timeline_wrap(out, first, hd_why_text((enum hd_why)w), o->width,
				 (int)strlen(first));
	}
}

void
hd_timeline_render(struct hd_buf *out, const struct hd_trace *t, const struct hd_tl_info *info,
		   const struct hd_tl_opts *o)
{
	char ms[32];

	char *head, *scen;
	const char *id = info->lesson_id;

	if (info->lesson_number > 0)
		head = hd_xasprintf("Lesson %d  %s", info->lesson_number,
				    info->lesson_title != NULL ? info->lesson_title : "(untitled)");
	else
		head = hd_xasprintf("Lesson  %s",
				    info->lesson_title != NULL ? info->lesson_title : "(untitled)");
	sgr(out, o, "1");
	hd_buf_puts(out, head);
	sgr(out, o, "0");
	/* the id only where it fits */
	if (id != NULL && (int)(strlen(head) + strlen(id) + 4) <= o->width)
		hd_buf_printf(out, "  [%s]", id);
	hd_buf_putc(out, '\n');
	free(head);
	if (info->scenario_name != NULL) {
		if (info->scenario_title != NULL && info->scenario_title[0] != '\0')
			scen = hd_xasprintf("%s: %s", info->scenario_name, info->scenario_title);
		else
			scen = hd_xstrdup(info->scenario_name);
		hd_timeline_wrap(out, "Scenario  ", scen, o->width, 10);
		free(scen);
	}
	hd_buf_printf(out, "Profile   %s (%s)   Makespan ",
		      info->profile_name != NULL ? info->profile_name : "-",
		      info->backend != NULL && strcmp(info->backend, "sim") != 0 ? "measured" :
										   "simulated");
	sgr(out, o, "1");
	hd_buf_puts(out, hd_fmt_time(ms, sizeof ms, t->makespan));
	sgr(out, o, "0");
	hd_buf_puts(out, "\n\n");
	hd_timeline_rows(out, t, info->sc, o);
	if (t->note != NULL)
		hd_timeline_note(out, t, o);
	hd_timeline_ops(out, t, info->sc, o);
	hd_timeline_blocked(out, t, o);
}

void
hd_timeline_note(struct hd_buf *out, const struct hd_trace *t, const struct hd_tl_opts *o)
{
	const char *p = t->note, *nl;

	hd_buf_putc(out, '\n');
	sgr(out, o, "1");
	hd_buf_puts(out, "Result:");
	sgr(out, o, "0");
	hd_buf_putc(out, ' ');
	while (p != NULL && *p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		hd_buf_putn(out, p, (size_t)(nl - p));
		hd_buf_putc(out, '\n');
		p = *nl != '\0' ? nl + 1 : nl;
	}
}
