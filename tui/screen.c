/*
 * screen.c - the render buffer: cells, clipped writes, boxes, text dumps.
 *
 * Pure memory: no terminal, no locale.  UTF-8 is decoded here with a small
 * width table (wide East Asian ranges and emoji are 2 columns, combining
 * marks 0) so layouts do not depend on the C library's locale.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/screen.h"

struct hd_screen {
	int w, h;
	bool ascii;
	struct hd_cell *cells;
};

static const char *const role_names[HD_ROLE__COUNT] = {
	[HD_ROLE_DEFAULT] = "default",
	[HD_ROLE_TEXT] = "text",
	[HD_ROLE_TITLE] = "title",
	[HD_ROLE_BORDER] = "border",
	[HD_ROLE_AXIS] = "axis",
	[HD_ROLE_LANE] = "lane",
	[HD_ROLE_STATUS] = "status",
	[HD_ROLE_HOST] = "host",
	[HD_ROLE_API] = "api",
	[HD_ROLE_BLOCKED] = "blocked",
	[HD_ROLE_STAGING] = "staging",
	[HD_ROLE_COPY_H2D] = "copy-h2d",
	[HD_ROLE_COPY_D2H] = "copy-d2h",
	[HD_ROLE_COPY_D2D] = "copy-d2d",
	[HD_ROLE_KERNEL] = "kernel",
	[HD_ROLE_EVENT] = "event",
	[HD_ROLE_WAIT] = "wait",
	[HD_ROLE_FAULT] = "fault",
	[HD_ROLE_PREFETCH] = "prefetch",
	[HD_ROLE_COMM] = "comm",
	[HD_ROLE_PLAYHEAD] = "playhead",
	[HD_ROLE_GHOST] = "ghost",
	[HD_ROLE_HIGHLIGHT] = "highlight",
	[HD_ROLE_BAR] = "bar",
	[HD_ROLE_GOOD] = "good",
	[HD_ROLE_BAD] = "bad",
	[HD_ROLE_NOTE] = "note",
};

static const enum hd_role hue_roles[HD_HUE__COUNT] = {
	[HD_HUE_API] = HD_ROLE_API,           [HD_HUE_BLOCKED] = HD_ROLE_BLOCKED,
	[HD_HUE_HOST] = HD_ROLE_HOST,         [HD_HUE_STAGING] = HD_ROLE_STAGING,
	[HD_HUE_COPY_H2D] = HD_ROLE_COPY_H2D, [HD_HUE_COPY_D2H] = HD_ROLE_COPY_D2H,
	[HD_HUE_COPY_D2D] = HD_ROLE_COPY_D2D, [HD_HUE_KERNEL] = HD_ROLE_KERNEL,
	[HD_HUE_EVENT] = HD_ROLE_EVENT,       [HD_HUE_WAIT] = HD_ROLE_WAIT,
	[HD_HUE_FAULT] = HD_ROLE_FAULT,       [HD_HUE_PREFETCH] = HD_ROLE_PREFETCH,
	[HD_HUE_COMM] = HD_ROLE_COMM,
};

const char *
hd_role_name(enum hd_role r)
{
	if ((unsigned)r >= HD_ROLE__COUNT)
		return "?";
	return role_names[r];
}

enum hd_role
hd_role_of_hue(enum hd_span_hue h)
{
	if ((unsigned)h >= HD_HUE__COUNT)
		return HD_ROLE_TEXT;
	return hue_roles[h];
}

/* UTF-8 form and ASCII fallback of each special glyph. */
static const struct {
	const char *utf8, *ascii;
} glyphs[HD_G__COUNT] = {
	[HD_G_HLINE] = { "\xe2\x94\x80", "-" },         /* ─ */
	[HD_G_VLINE] = { "\xe2\x94\x82", "|" },         /* │ */
	[HD_G_TL] = { "\xe2\x94\x8c", "+" },            /* ┌ */
	[HD_G_TR] = { "\xe2\x94\x90", "+" },            /* ┐ */
	[HD_G_BL] = { "\xe2\x94\x94", "+" },            /* └ */
	[HD_G_BR] = { "\xe2\x94\x98", "+" },            /* ┘ */
	[HD_G_PLAYHEAD] = { "\xe2\x94\x82", "|" },      /* │ */
	[HD_G_PLAYHEAD_AXIS] = { "\xe2\x96\xb2", "^" }, /* ▲ */
	[HD_G_FULL] = { "\xe2\x96\x88", "#" },          /* █ */
	[HD_G_EMPTY] = { "\xc2\xb7", "." },             /* · */
	[HD_G_ARROW_R] = { "\xe2\x96\xb6", ">" },       /* ▶ */
	[HD_G_ARROW_L] = { "\xe2\x97\x80", "<" },       /* ◀ */
	[HD_G_PLAY] = { "\xe2\x96\xb6", ">" },          /* ▶ */
	[HD_G_PAUSE] = { "\xe2\x80\x96", "||" },        /* ‖ */
};

const char *
hd_screen_glyph(const struct hd_screen *s, enum hd_glyph g)
{
	if ((unsigned)g >= HD_G__COUNT)
		return "?";
	return s->ascii ? glyphs[g].ascii : glyphs[g].utf8;
}

static void
blank(struct hd_cell *c)
{
	memset(c, 0, sizeof *c);
	c->g[0] = ' ';
	c->width = 1;
}

struct hd_screen *
hd_screen_new(int w, int h)
{
	struct hd_screen *s = hd_xcalloc(1, sizeof *s);

	hd_screen_resize(s, w, h);
	return s;
}

void
hd_screen_free(struct hd_screen *s)
{
	if (s == NULL)
		return;
	free(s->cells);
	free(s);
}

void
hd_screen_resize(struct hd_screen *s, int w, int h)
{
	free(s->cells);
	s->w = w > 0 ? w : 0;
	s->h = h > 0 ? h : 0;
	s->cells = hd_xcalloc((size_t)s->w * (size_t)s->h + 1, sizeof *s->cells);
	hd_screen_clear(s);
}

int
hd_screen_width(const struct hd_screen *s)
{
	return s->w;
}

int
hd_screen_height(const struct hd_screen *s)
{
	return s->h;
}

struct hd_rect
hd_screen_rect(const struct hd_screen *s)
{
	struct hd_rect r = { 0, 0, s->w, s->h };

	return r;
}

void
hd_screen_set_ascii(struct hd_screen *s, bool ascii)
{
	s->ascii = ascii;
}

bool
hd_screen_ascii(const struct hd_screen *s)
{
	return s->ascii;
}

void
hd_screen_clear(struct hd_screen *s)
{
	size_t i, n = (size_t)s->w * (size_t)s->h;

	for (i = 0; i < n; i++)
		blank(&s->cells[i]);
}

const struct hd_cell *
hd_screen_cell(const struct hd_screen *s, int x, int y)
{
	if (x < 0 || y < 0 || x >= s->w || y >= s->h)
		return NULL;
	return &s->cells[(size_t)y * (size_t)s->w + (size_t)x];
}

static struct hd_cell *
cell_at(struct hd_screen *s, int x, int y)
{
	return (struct hd_cell *)hd_screen_cell(s, x, y);
}

struct hd_rect
hd_rect_clip(struct hd_rect a, struct hd_rect b)
{
	struct hd_rect r;
	int x1 = a.x + a.w < b.x + b.w ? a.x + a.w : b.x + b.w;
	int y1 = a.y + a.h < b.y + b.h ? a.y + a.h : b.y + b.h;

	r.x = a.x > b.x ? a.x : b.x;
	r.y = a.y > b.y ? a.y : b.y;
	r.w = x1 > r.x ? x1 - r.x : 0;
	r.h = y1 > r.y ? y1 - r.y : 0;
	if (r.w == 0 || r.h == 0)
		r.w = r.h = 0;
	return r;
}

/* ---- UTF-8 ------------------------------------------------------------------ */

int
hd_utf8_decode(const char *str, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)str;
	unsigned c = p[0], v;
	int n, i;

	if (c == 0) {
		*cp = 0;
		return 0;
	}
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		v = c & 0x07;
	} else
		goto bad;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			goto bad;
		v = (v << 6) | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || (v >= 0xd800 && v <= 0xdfff) ||
	    v > 0x10ffff)
		goto bad;
	*cp = v;
	return n;
bad:
	*cp = 0xfffd;
	return 1;
}

/* Ranges of code points, sorted, for the width table. */
struct range {
	unsigned lo, hi;
};

static const struct range zero_width[] = {
	{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a },
	{ 0x064b, 0x065f }, { 0x0e31, 0x0e31 }, { 0x0e34, 0x0e3a }, { 0x1ab0, 0x1aff },
	{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f },
	{ 0xfe20, 0xfe2f },
};

static const struct range wide[] = {
	{ 0x1100, 0x115f },   { 0x2e80, 0x303e },   { 0x3041, 0x33ff },   { 0x3400, 0x4dbf },
	{ 0x4e00, 0x9fff },   { 0xa000, 0xa4cf },   { 0xac00, 0xd7a3 },   { 0xf900, 0xfaff },
	{ 0xfe30, 0xfe4f },   { 0xff00, 0xff60 },   { 0xffe0, 0xffe6 },   { 0x1f300, 0x1f64f },
	{ 0x1f900, 0x1f9ff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
};

static bool
in_ranges(unsigned cp, const struct range *r, size_t n)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cp < r[mid].lo)
			hi = mid;
		else if (cp > r[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

int
hd_cp_width(unsigned cp)
{
	if (in_ranges(cp, zero_width, HD_ARRAY_LEN(zero_width)))
		return 0;
	if (in_ranges(cp, wide, HD_ARRAY_LEN(wide)))
		return 2;
	return 1;
}

int
hd_utf8_width(const char *s)
{
	unsigned cp;
	int n, w = 0;

	while ((n = hd_utf8_decode(s, &cp)) > 0) {
		w += cp < 0x20 || cp == 0x7f ? 1 : hd_cp_width(cp);
		s += n;
	}
	return w;
}

/* ---- writing ------------------------------------------------------------- */

/*
 * Overwriting half of a wide character leaves its other half alone on the
 * screen: blank that half so the grid never holds a broken pair.
 */
static void
unpair(struct hd_screen *s, int x, int y)
{
	struct hd_cell *c = cell_at(s, x, y), *o;

	if (c == NULL)
		return;
	if (c->width == 0 && (o = cell_at(s, x - 1, y)) != NULL && o->width == 2)
		blank(o);
	if (c->width == 2 && (o = cell_at(s, x + 1, y)) != NULL && o->width == 0)
		blank(o);
}

/* Put one glyph (bytes g, n of them, w columns) at x, y; the caller has clipped. */
static void
put_cell(struct hd_screen *s, int x, int y, const char *g, size_t n, int w, struct hd_style st)
{
	struct hd_cell *c;

	unpair(s, x, y);
	if (w == 2)
		unpair(s, x + 1, y);
	c = cell_at(s, x, y);
	memset(c->g, 0, sizeof c->g);
	memcpy(c->g, g, n < 4 ? n : 4);
	c->width = (unsigned char)w;
	c->st = st;
	if (w == 2) {
		c = cell_at(s, x + 1, y);
		memset(c->g, 0, sizeof c->g);
		c->width = 0;
		c->st = st;
	}
}

static bool
inside(const struct hd_rect *r, int x, int y)
{
	return x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h;
}

int
hd_screen_puts(struct hd_screen *s, const struct hd_rect *clip, int x, int y, const char *text,
	       struct hd_style st)
{
	struct hd_rect full = hd_screen_rect(s), r;
	unsigned cp;
	int n, w;

	r = clip != NULL ? hd_rect_clip(*clip, full) : full;
	while ((n = hd_utf8_decode(text, &cp)) > 0) {
		const char *g = text;
		size_t gl = (size_t)n;

		text += n;
		if (cp < 0x20 || cp == 0x7f || cp == 0xfffd) {
			g = "?";
			gl = 1;
			w = 1;
		} else if ((w = hd_cp_width(cp)) == 0)
			continue;
		if (w == 2 && inside(&r, x, y) && !inside(&r, x + 1, y))
			put_cell(s, x, y, " ", 1, 1, st);
		else if (w == 2 && !inside(&r, x, y) && inside(&r, x + 1, y))
			put_cell(s, x + 1, y, " ", 1, 1, st);
		else if (inside(&r, x, y))
			put_cell(s, x, y, g, gl, w, st);
		x += w;
	}
	return x;
}

int
hd_screen_printf(struct hd_screen *s, const struct hd_rect *clip, int x, int y, struct hd_style st,
		 const char *fmt, ...)
{
	struct hd_buf b;
	va_list ap;

	hd_buf_init(&b);
	va_start(ap, fmt);
	hd_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	x = hd_screen_puts(s, clip, x, y, b.s != NULL ? b.s : "", st);
	hd_buf_free(&b);
	return x;
}

void
hd_screen_fill(struct hd_screen *s, struct hd_rect r, const char *glyph, struct hd_style st)
{
	int x, y;
	unsigned cp;
	int n = hd_utf8_decode(glyph, &cp);

	if (n == 0 || hd_cp_width(cp) != 1 || cp < 0x20) {
		glyph = " ";
		n = 1;
	}
	r = hd_rect_clip(r, hd_screen_rect(s));
	for (y = r.y; y < r.y + r.h; y++)
		for (x = r.x; x < r.x + r.w; x++)
			put_cell(s, x, y, glyph, (size_t)n, 1, st);
}

void
hd_screen_style(struct hd_screen *s, struct hd_rect r, struct hd_style st)
{
	int x, y;

	r = hd_rect_clip(r, hd_screen_rect(s));
	for (y = r.y; y < r.y + r.h; y++)
		for (x = r.x; x < r.x + r.w; x++)
			cell_at(s, x, y)->st = st;
}

void
hd_screen_box(struct hd_screen *s, struct hd_rect r, const char *title, struct hd_style st)
{
	struct hd_rect top;
	int x, y, x1 = r.x + r.w - 1, y1 = r.y + r.h - 1;
	const char *hl = hd_screen_glyph(s, HD_G_HLINE), *vl = hd_screen_glyph(s, HD_G_VLINE);

	if (r.w < 2 || r.h < 2)
		return;
	for (x = r.x + 1; x < x1; x++) {
		hd_screen_puts(s, NULL, x, r.y, hl, st);
		hd_screen_puts(s, NULL, x, y1, hl, st);
	}
	for (y = r.y + 1; y < y1; y++) {
		hd_screen_puts(s, NULL, r.x, y, vl, st);
		hd_screen_puts(s, NULL, x1, y, vl, st);
	}
	hd_screen_puts(s, NULL, r.x, r.y, hd_screen_glyph(s, HD_G_TL), st);
	hd_screen_puts(s, NULL, x1, r.y, hd_screen_glyph(s, HD_G_TR), st);
	hd_screen_puts(s, NULL, r.x, y1, hd_screen_glyph(s, HD_G_BL), st);
	hd_screen_puts(s, NULL, x1, y1, hd_screen_glyph(s, HD_G_BR), st);
	if (title != NULL && title[0] != '\0' && r.w >= 6) {
		struct hd_style ts = st;

		ts.fg = HD_ROLE_TITLE;
		ts.attr |= HD_ATTR_BOLD;
		top.x = r.x + 1;
		top.y = r.y;
		top.w = r.w - 2;
		top.h = 1;
		x = hd_screen_puts(s, &top, r.x + 2, r.y, " ", st);
		x = hd_screen_puts(s, &top, x, r.y, title, ts);
		hd_screen_puts(s, &top, x, r.y, " ", st);
	}
}

/* ---- dumps --------------------------------------------------------------- */

void
hd_screen_dump_row(const struct hd_screen *s, int y, struct hd_buf *out)
{
	size_t start = out->len, keep = out->len;
	int x;

	if (y < 0 || y >= s->h)
		return;
	for (x = 0; x < s->w; x++) {
		const struct hd_cell *c = hd_screen_cell(s, x, y);

		if (c->width == 0)
			continue;
		hd_buf_puts(out, c->g);
		if (!(c->g[0] == ' ' && c->g[1] == '\0'))
			keep = out->len;
	}
	/* cut trailing blanks */
	if (out->len > keep && keep >= start) {
		out->len = keep;
		out->s[keep] = '\0';
	}
}

void
hd_screen_dump(const struct hd_screen *s, struct hd_buf *out)
{
	int y;

	for (y = 0; y < s->h; y++) {
		hd_screen_dump_row(s, y, out);
		hd_buf_putc(out, '\n');
	}
}
