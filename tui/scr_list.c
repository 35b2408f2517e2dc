/*
 * scr_list.c - the lesson list (app_priv.h): the lessons by part with the
 * learner's progress marks, the search line, opening a lesson.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tui/app_priv.h"

static bool
matches(const struct hd_lesson *l, const char *q)
{
	size_t n = strlen(q);
	const char *fields[2];
	size_t f;

	if (n == 0)
		return true;
	fields[0] = hd_lesson_title(l);
	fields[1] = hd_lesson_id(l);
	for (f = 0; f < 2; f++) {
		const char *s;
		for (s = fields[f]; s != NULL && *s != '\0'; s++)
			if (strncasecmp(s, q, n) == 0)
				return true;
	}
	return false;
}

void
hd_tui_list_filter(struct hd_tui_app *a)
{
	int i, keep = a->nrows > 0 && a->sel < a->nrows ? a->rows[a->sel] : -1;

	a->nrows = 0;
	a->sel = 0;
	for (i = 0; i < hd_catalog_count(a->cat); i++)
		if (matches(hd_catalog_get(a->cat, i), a->search)) {
			if (i == keep)
				a->sel = a->nrows;
			a->rows[a->nrows++] = i;
		}
}

static void
mark_text(const struct hd_tui_app *a, int li, char *buf, size_t n, const char **glyph)
{
	const struct hd_tui_mark *m = &a->marks[li];
	int nq = hd_lesson_nquestions(hd_catalog_get(a->cat, li));
	bool ascii = hd_screen_ascii(a->scr);

	*glyph = " ";
	buf[0] = '\0';
	if (m->answered == 0)
		return;
	/* in progress, done and right, done and partly right, done and wrong:
	 * one wrong answer does not make a finished lesson look failed */
	if (m->answered < nq)
		*glyph = ascii ? "." : "\u2022";
	else if (m->wrong == 0)
		*glyph = ascii ? "+" : "\u2713";
	else if (m->right > 0)
		*glyph = ascii ? "~" : "\u25d0";
	else
		*glyph = ascii ? "x" : "\u2717";
	snprintf(buf, n, "%s%d/%d answered, %d right, %d wrong",
		 m->answered < nq  ? "" :
		     m->wrong == 0 ? "done: " :
		     m->right > 0  ? "partly right: " :
				     "done: ",
		 m->answered, nq, m->right, m->wrong);
}

static void
draw(struct hd_tui_app *a, int w, int h)
{
	const char *part = NULL;
	int i, y, line, sel_line = 0, top, list_h = h - 4;
	struct {
		int li; /* -1: a part heading */
		const char *part;
	} *items = hd_xcalloc((size_t)a->nrows * 2 + 1, sizeof *items);
	int nitems = 0;

	hd_screen_printf(a->scr, NULL, 1, 0, hd_tui_style(HD_ROLE_TITLE, HD_ATTR_BOLD),
			 "hdsim lessons (%d)  learner: %s  profile: %s", hd_catalog_count(a->cat),
			 a->o->learner, a->prof.name);
	for (i = 0; i < a->nrows; i++) {
		const struct hd_lesson *l = hd_catalog_get(a->cat, a->rows[i]);
		const char *p = hd_lesson_part(l) ? hd_lesson_part(l) : "Lessons";
		if (part == NULL || strcmp(part, p) != 0) {
			items[nitems].li = -1;
			items[nitems++].part = p;
			part = p;
		}
		if (i == a->sel)
			sel_line = nitems;
		items[nitems++].li = i;
	}
	top = sel_line >= list_h ? sel_line - list_h + 1 : 0;
	for (line = top, y = 2; line < nitems && y < 2 + list_h; line++, y++) {
		char mt[96];
		const char *g;
		int r;
		const struct hd_lesson *l;

		if (items[line].li < 0) {
			hd_screen_puts(a->scr, NULL, 1, y, items[line].part,
				       hd_tui_style(HD_ROLE_LANE, HD_ATTR_BOLD));
			continue;
		}
		r = a->rows[items[line].li];
		l = hd_catalog_get(a->cat, r);
		mark_text(a, r, mt, sizeof mt, &g);
		hd_screen_puts(a->scr, NULL, 3, y, g, hd_tui_style(HD_ROLE_GOOD, HD_ATTR_BOLD));
		hd_screen_printf(a->scr, NULL, 5, y, hd_tui_style(HD_ROLE_TEXT, 0), "%2d  %s",
				 r + 1, hd_lesson_title(l));
		hd_screen_puts(a->scr, NULL,
			       w - 2 - hd_utf8_width(mt) > 50 ? w - 2 - hd_utf8_width(mt) : 50, y,
			       mt, hd_tui_style(HD_ROLE_AXIS, 0));
		if (items[line].li == a->sel) {
			struct hd_rect rr = { 1, y, w - 2, 1 };
			hd_screen_style(a->scr, rr, hd_tui_style(HD_ROLE_TEXT, HD_ATTR_REVERSE));
		}
	}
	if (a->nrows == 0)
		hd_screen_puts(a->scr, NULL, 3, 2, "no lesson matches the search",
			       hd_tui_style(HD_ROLE_TEXT, 0));
	if (a->searching || a->search[0] != '\0')
		hd_screen_printf(a->scr, NULL, 1, h - 2, hd_tui_style(HD_ROLE_TEXT, HD_ATTR_BOLD),
				 "/%s%s", a->search, a->searching ? "_" : "");
	free(items);
}

/* Keys typed into the search line while it is open. */
static bool
search_key(struct hd_tui_app *a, int k)
{
	size_t n = strlen(a->search);

	if (!a->searching)
		return false;
	if (k == HD_TUI_ESC) {
		a->search[0] = '\0';
		a->searching = false;
	} else if (k == '\r' || k == '\n' || k == KEY_ENTER)
		a->searching = false;
	else if (k == KEY_BACKSPACE || k == 127 || k == 8) {
		if (n > 0)
			a->search[n - 1] = '\0';
	} else if (k >= 32 && k < 127 && n + 1 < sizeof a->search) {
		a->search[n] = (char)k;
		a->search[n + 1] = '\0';
	} else
		return false;
	hd_tui_list_filter(a);
	return true;
}

static void
k_up(struct hd_tui_app *a)
{
	if (a->sel > 0)
		a->sel--;
}

static void
k_down(struct hd_tui_app *a)
{
	if (a->sel + 1 < a->nrows)
		a->sel++;
}

/* Rows of lessons a page of the list holds. */
static int
page_rows(const struct hd_tui_app *a)
{
	int h = a->scr != NULL ? hd_screen_height(a->scr) : 24;

	return h > 8 ? h - 6 : 2;
}

static void
k_home(struct hd_tui_app *a)
{
	a->sel = 0;
}

static void
k_end(struct hd_tui_app *a)
{
	a->sel = a->nrows > 0 ? a->nrows - 1 : 0;
}

static void
k_page_up(struct hd_tui_app *a)
{
	a->sel = a->sel > page_rows(a) ? a->sel - page_rows(a) : 0;
}

static void
k_page_down(struct hd_tui_app *a)
{
	a->sel += page_rows(a);
	if (a->sel >= a->nrows)
		k_end(a);
}

static void
k_open(struct hd_tui_app *a)
{
	if (a->nrows > 0)
		hd_tui_flow_open(a, a->rows[a->sel]);
}

/* A new search starts empty. */
static void
k_search(struct hd_tui_app *a)
{
	a->search[0] = '\0';
	a->searching = true;
	hd_tui_list_filter(a);
}

static const struct hd_tui_key keys[] = {
	{ KEY_UP, k_up, "Up k", "previous lesson" },
	{ 'k', k_up, NULL, NULL },
	{ KEY_DOWN, k_down, "Down j", "next lesson" },
	{ 'j', k_down, NULL, NULL },
	{ KEY_HOME, k_home, "Home End", "first / last lesson" },
	{ 'g', k_home, NULL, NULL },
	{ KEY_END, k_end, NULL, NULL },
	{ 'G', k_end, NULL, NULL },
	{ KEY_PPAGE, k_page_up, "PgUp PgDn", "a page up / down" },
	{ KEY_NPAGE, k_page_down, NULL, NULL },
	{ '\r', k_open, "Enter", "open the lesson" },
	{ '\n', k_open, NULL, NULL },
	{ KEY_ENTER, k_open, NULL, NULL },
	{ '/', k_search, "/", "search titles and ids" },
	{ 'P', hd_tui_flow_profile, "P", "next hardware profile (re-runs)" },
};

const struct hd_tui_scr_ops hd_tui_scr_list = {
	.draw = draw,
	.text = search_key,
	.keys = HD_TUI_KEYS(keys),
	.footer = "Up/Down move  Enter open  / search  ? help  q quit",
};
