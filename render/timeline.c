/*
 * timeline.c - the text timeline: a trace drawn as rows of glyphs.
 *
 * Time maps linearly onto the bar area: column c covers
 * [c * makespan / bar, (c + 1) * makespan / bar).  A span fills every column
 * it touches, at least one, so a zero-length event still shows.  Where spans
 * of one lane overlap (a blocked part inside its API call, an event on a
 * busy stream) the look with the higher priority (ir/spanlook.h) wins the
 * cell; labels are written only over cells their own span owns, so they
 * never hide another span.
 */
#include <sys/ioctl.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/timeline.h"
#include "ir/spanlook.h"
#include "base/units.h"
#include "lang/opname.h"

/* The ANSI colour of each colour role (Nsight's: kernels blue, copies red). */
static const char *const hue_sgr[HD_HUE__COUNT] = {
	[HD_HUE_API] = "36",
	[HD_HUE_BLOCKED] = "2",
	[HD_HUE_HOST] = "32",
	[HD_HUE_STAGING] = "33",
	[HD_HUE_COPY_H2D] = "31",
	[HD_HUE_COPY_D2H] = "31",
	[HD_HUE_COPY_D2D] = "31",
	[HD_HUE_KERNEL] = "34",
	[HD_HUE_EVENT] = "35",
	[HD_HUE_WAIT] = "90",
	[HD_HUE_FAULT] = "91",
	[HD_HUE_PREFETCH] = "95",
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
	int name_w;         /* lane name column */
	int bar_w;          /* bar area */
	hd_time span;       /* time shown across the bar (makespan, at least 1) */
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

static int
col_ceil(const struct geom *g, hd_time t)
{
	return hd_timeline_col(t, g->bar_w, g->span, 1);
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
	return max_rank < HD_TL_MAX_RANKS || rank < HD_TL_MAX_RANKS - 1 ||
	    rank == max_rank;
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
	g->bar_w = width - w - 3;     /* "NAME |bar|" */
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

struct cell {
	char ch;
	const struct hd_spanlook *look;     /* NULL for blank */
	int prio;
	size_t owner;       /* span index + 1, or 0 */
};

static void
draw_lane(struct hd_buf *out, const struct hd_trace *t, const struct hd_scenario *sc,
	  int lane, const struct geom *g, const struct hd_tl_opts *o,
	  struct cell *cells)
{
	size_t i;
	int c;
	const char *cur = NULL;
	char l1[96], l2[96];

	for (c = 0; c < g->bar_w; c++) {
		cells[c].ch = ' ';
		cells[c].look = NULL;
		cells[c].prio = -1;
		cells[c].owner = 0;
	}
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		const struct hd_spanlook *look;
		int c0, c1;

		if (s->lane != lane)
			continue;
		look = hd_spanlook_of(t, sc, s);
		c0 = col_floor(g, s->start);
		c1 = col_ceil(g, s->end);
		if (c0 > g->bar_w - 1)
			c0 = g->bar_w - 1;
		if (c1 <= c0)
			c1 = c0 + 1;
		if (c1 > g->bar_w)
			c1 = g->bar_w;
		for (c = c0; c < c1; c++) {
			if (cells[c].prio > look->prio)
				continue;
			cells[c].ch = hd_spanlook_char(look);
			cells[c].look = look;
			cells[c].prio = look->prio;
			cells[c].owner = i + 1;
		}
	}
	/*
	 * Labels: one per run of cells drawn by spans of the same op and kind
	 * (a copy cut into staging chunks reads as one bar), centred, with a
	 * glyph each side.  A run of several spans is labelled without bytes.
	 */
	for (c = 0; c < g->bar_w;) {
		const struct hd_span *s;
		int z, k, single = 1;
		const char *lab;

		if (cells[c].owner == 0) {
			c++;
			continue;
		}
		s = &t->spans[cells[c].owner - 1];
		for (z = c + 1; z < g->bar_w && cells[z].owner != 0; z++) {
			const struct hd_span *o2 = &t->spans[cells[z].owner - 1];
			if (o2 == s)
				continue;
			if (s->op < 0 || o2->op != s->op || o2->kind != s->kind)
				break;
			single = 0;
		}
		if (z - c >= 4) {
			hd_timeline_span_labels(t, sc, s, l1, l2, sizeof l1);
			/* one byte per cell: a label with UTF-8 in it is left out */
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
					cells[k].ch = *lab;
			}
		}
		c = z;
	}
	/* one colour sequence per run of cells of one colour */
	for (c = 0; c < g->bar_w; c++) {
		const char *code = cells[c].look != NULL ? hue_sgr[cells[c].look->hue] : NULL;

		if (o->color && (code == NULL ? cur != NULL : cur == NULL || strcmp(code, cur))) {
			if (cur != NULL)
				sgr(out, o, "0");
			if (code != NULL)
				sgr(out, o, code);
			cur = code;
		}
		hd_buf_putc(out, cells[c].ch);
	}
	if (cur != NULL)
		sgr(out, o, "0");
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

static void
draw_legend(struct hd_buf *out, const struct hd_trace *t, const struct hd_tl_opts *o)
{
	bool seen[HD_SPAN__COUNT] = { false };
	size_t i;
	int k, col;

	for (i = 0; i < t->nspans; i++)
		if ((unsigned)t->spans[i].kind < HD_SPAN__COUNT)
			seen[t->spans[i].kind] = true;
	hd_buf_puts(out, "Legend:");
	col = 7;
	for (k = 0; k < HD_SPAN__COUNT; k++) {
		enum hd_span_kind kind = hd_spanlook_nth(k);
		const struct hd_spanlook *l = hd_spanlook_get(kind, HD_DIR_OUT);
		char text[64];
		int len;

		if (!seen[kind])
			continue;
		if (kind == HD_SPAN_COPY)       /* one entry: the glyph tells the way */
			snprintf(text, sizeof text, "%s (%c towards the host)", l->label,
				 hd_spanlook_char(hd_spanlook_get(kind, HD_DIR_BACK)));
		else
			snprintf(text, sizeof text, "%s", l->label);
		len = 4 + (int)strlen(text);
		if (col + len > o->width) {
			hd_buf_puts(out, "\n       ");
			col = 7;
		}
		hd_buf_puts(out, "  ");
		sgr(out, o, hue_sgr[l->hue]);
		hd_buf_putc(out, hd_spanlook_char(l));
		sgr(out, o, "0");
		hd_buf_printf(out, " %s", text);
		col += len;
	}
	hd_buf_putc(out, '\n');
}

void
hd_timeline_rows(struct hd_buf *out, const struct hd_trace *t,
		 const struct hd_scenario *sc, const struct hd_tl_opts *o)
{
	struct geom g;
	struct cell *cells;
	int *ord, i, maxr = hd_timeline_max_rank(t), hidden = 0;
	char nb[64];

	geom_init(&g, t, o->width);
	cells = hd_xcalloc((size_t)g.bar_w, sizeof *cells);
	ord = hd_timeline_lane_order(t);
	for (i = 0; i < t->nlanes; i++) {
		int r = t->lanes[ord[i]].rank;

		if (!hd_timeline_rank_shown(r, maxr)) {
			/* many ranks: the first few and the last stand for all */
			if (!hidden++) {
				snprintf(nb, sizeof nb, "R%d-R%d", r, maxr - 1);
				put_col(out, nb, g.name_w, 0);
				hd_buf_printf(out, "  (%d ranks like these not shown)\n",
				    maxr - r);
			}
			continue;
		}
		put_col(out, hd_timeline_lane_name(t, ord[i], nb, sizeof nb), g.name_w, 0);
		hd_buf_puts(out, " |");
		draw_lane(out, t, sc, ord[i], &g, o, cells);
		hd_buf_puts(out, "|\n");
	}
	draw_axis(out, &g);
	draw_legend(out, t, o);
	free(ord);
	free(cells);
}

/* ---- the op table -------------------------------------------------------- */

/* Does this op go to a stream (so the table names one)? */
static bool
op_on_stream(const struct hd_op *op)
{
	static const bool on[HD_OP__COUNT] = {
		[HD_OP_COPY] = true, [HD_OP_KERNEL] = true, [HD_OP_PREFETCH] = true,
		[HD_OP_RECORD] = true, [HD_OP_WAIT] = true, [HD_OP_STREAM_SYNC] = true,
		[HD_OP_SEND] = true, [HD_OP_RECV] = true, [HD_OP_COLL] = true,
	};
	return (unsigned)op->kind < HD_OP__COUNT && on[op->kind];
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
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		const struct hd_lane *ln = &t->lanes[s->lane];

		if (s->op != op || ln->rank != 0)
			continue;
		if (ln->kind == HD_LANE_STREAM && s->kind != HD_SPAN_WAIT &&
		    s->kind != HD_SPAN_EVENT)
			stream += s->end - s->start;
		else if (ln->kind == HD_LANE_API && s->kind == HD_SPAN_API)
			api += s->end - s->start;
	}
	return stream > 0 ? stream : api;
}

/*
 * The op table's columns.  When the width is short, columns go in order of
 * `drop` (lowest first) until the rest fit; the op's name always stays.
 */
enum { C_NAME, C_CALL, C_STREAM, C_START, C_END, C_BUSY, C_BYTES, C_RATE, C__COUNT };
static const struct opcol {
	const char *head;
	int w, right, drop;
} opcols[C__COUNT] = {
	[C_NAME] = { "op", 16, 0, 99 },
	[C_CALL] = { "call", 21, 0, 1 },
	[C_STREAM] = { "stream", 10, 0, 2 },
	[C_START] = { "start", 9, 1, 4 },
	[C_END] = { "end", 9, 1, 3 },
	[C_BUSY] = { "busy", 9, 1, 7 },
	[C_BYTES] = { "bytes", 9, 1, 6 },
	[C_RATE] = { "rate", 10, 1, 5 },
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

void
hd_timeline_ops(struct hd_buf *out, const struct hd_trace *t,
		const struct hd_scenario *sc, const struct hd_tl_opts *o)
{
	struct hd_tunit u = hd_timeline_unit(t->makespan > 0 ? t->makespan : 1);
	char name[64], call[48], stream[48], s0[32], s1[32], d[32], by[32], rate[32];
	char h0[16], h1[16], *cell[C__COUNT];
	bool on[C__COUNT];
	int i, k, rows = 0;

	if (sc == NULL)
		return;
	opcols_pick(on, o->width);
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];
		struct hd_op_time ot;
		hd_time dur;

		if (op->kind == HD_OP_REPEAT || op->kind == HD_OP_ON_RANK)
			continue;
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
			out->s[--out->len] = '\0';     /* reset colour before the newline */
			sgr(out, o, "0");
			hd_buf_putc(out, '\n');
		}
		op_name(name, sizeof name, sc, i);
		if (ot.execs > 1) {
			size_t l = strlen(name);
			snprintf(name + l, sizeof name - l, " x%" PRIu32, ot.execs);
		}
		snprintf(call, sizeof call, "%s", hd_op_api_name_sc(sc, op));
		snprintf(stream, sizeof stream, "%s", op_on_stream(op) && op->stream >= 0 &&
			 op->stream < sc->nstreams ? sc->streams[op->stream].name : "-");
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

			hd_buf_printf(out, "%16s   algBw %.1f GB/s, busBw %.1f GB/s "
				      "(algBw x %.3g on %d ranks, as nccl-tests)\n", "", alg,
				      alg * hd_coll_bus_factor(op->coll, sc->nranks),
				      hd_coll_bus_factor(op->coll, sc->nranks), sc->nranks);
		}
	}
}

void
hd_timeline_wrap(struct hd_buf *out, const char *first, const char *text,
		 int width, int indent)
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
hd_timeline_blocked(struct hd_buf *out, const struct hd_trace *t,
		    const struct hd_tl_opts *o)
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
hd_timeline_render(struct hd_buf *out, const struct hd_trace *t,
		   const struct hd_tl_info *info, const struct hd_tl_opts *o)
{
	char ms[32];

	char *head, *scen;
	const char *id = info->lesson_id;

	if (info->lesson_number > 0)
		head = hd_xasprintf("Lesson %d  %s", info->lesson_number,
				    info->lesson_title != NULL ? info->lesson_title : "(untitled)");
	else
		head = hd_xasprintf("Lesson  %s", info->lesson_title != NULL ?
				    info->lesson_title : "(untitled)");
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
		      info->backend != NULL && strcmp(info->backend, "sim") != 0 ?
		      "measured" : "simulated");
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
hd_timeline_note(struct hd_buf *out, const struct hd_trace *t,
		 const struct hd_tl_opts *o)
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
