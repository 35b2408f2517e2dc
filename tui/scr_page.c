/*
 * scr_page.c - a lesson's pages (app_priv.h): one page at a time in a box;
 * past the last page comes the first question not answered, or back to
 * the run (flow.c).
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>

#include "tui/app_priv.h"

static void
draw(struct hd_tui_app *a, int w, int h)
{
	const struct hd_page *pg = hd_lesson_page(a->l, a->page);
	struct hd_rect box = { 0, 1, w, h - 2 };
	char title[256];

	hd_screen_printf(a->scr, NULL, 1, 0, hd_tui_style(HD_ROLE_TITLE, HD_ATTR_BOLD), "%d  %s",
			 a->li + 1, hd_lesson_title(a->l));
	snprintf(title, sizeof title, " %s (page %d of %d) ", pg->title ? pg->title : "",
		 a->page + 1, hd_lesson_npages(a->l));
	hd_screen_box(a->scr, box, title, hd_tui_style(HD_ROLE_BORDER, 0));
	hd_tui_wrap_draw(a, 2, 3, w - 4, h - 2, "", pg->text, hd_tui_style(HD_ROLE_TEXT, 0));
}

static void
k_next(struct hd_tui_app *a)
{
	if (a->page + 1 < hd_lesson_npages(a->l))
		a->page++;
	else
		hd_tui_flow_pages_done(a);
}

static void
k_prev(struct hd_tui_app *a)
{
	if (a->page > 0)
		a->page--;
}

static void
k_first(struct hd_tui_app *a)
{
	a->page = 0;
}

static void
k_last(struct hd_tui_app *a)
{
	a->page = hd_lesson_npages(a->l) - 1;
}

static const struct hd_tui_key keys[] = {
	{ KEY_RIGHT, k_next, "Right l PgDn Space", "next page" },
	{ 'l', k_next, NULL, NULL },
	{ KEY_NPAGE, k_next, NULL, NULL },
	{ ' ', k_next, NULL, NULL },
	{ '\r', k_next, NULL, NULL },
	{ '\n', k_next, NULL, NULL },
	{ KEY_LEFT, k_prev, "Left h PgUp", "previous page" },
	{ 'h', k_prev, NULL, NULL },
	{ KEY_PPAGE, k_prev, NULL, NULL },
	{ KEY_HOME, k_first, "Home End", "first / last page" },
	{ KEY_END, k_last, NULL, NULL },
};

const struct hd_tui_scr_ops hd_tui_scr_page = {
	.draw = draw,
	.keys = HD_TUI_KEYS(keys),
	.footer = "Left/Right page  q back  ? help",
};
