/*
 * scr_summary.c - the end of a lesson (app_priv.h): each question with
 * what the learner predicted against what the run showed, how many were
 * right, and the next lesson offered.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>

#include "tui/app_priv.h"

static void
draw(struct hd_tui_app *a, int w, int h)
{
	int nq = hd_lesson_nquestions(a->l), i, y, right = 0;
	const struct hd_lesson *next = a->li + 1 < hd_catalog_count(a->cat) ?
	    hd_catalog_get(a->cat, a->li + 1) :
	    NULL;

	for (i = 0; i < nq; i++)
		right += a->said[i].correct == 1;
	hd_screen_printf(a->scr, NULL, 1, 0, hd_tui_style(HD_ROLE_TITLE, HD_ATTR_BOLD),
			 "%d  %s: lesson %d done, %d of %d predictions right", a->li + 1,
			 hd_lesson_title(a->l), a->li + 1, right, nq);
	hd_screen_puts(a->scr, NULL, 2, 2,
		       "Your predictions against the runs:", hd_tui_style(HD_ROLE_TITLE, 0));
	for (i = 0, y = 4; i < nq && y < h - 6; i++) {
		const struct hd_question *q = hd_lesson_question(a->l, i);
		char first[16];

		snprintf(first, sizeof first, "%d. ", i + 1);
		y = hd_tui_wrap_draw(a, 2, y, w - 4, h - 6, first, q->prompt,
				     hd_tui_style(HD_ROLE_TEXT, HD_ATTR_BOLD));
		y = hd_tui_wrap_draw(
		    a, 5, y, w - 7, h - 6, "", a->said[i].verdict,
		    hd_tui_style(a->said[i].correct == 1 ? HD_ROLE_GOOD : HD_ROLE_BAD, 0));
		y++;
	}
	if (next != NULL)
		hd_screen_printf(a->scr, NULL, 2, h - 4, hd_tui_style(HD_ROLE_TEXT, HD_ATTR_BOLD),
				 "Next: lesson %d, %s (Enter)", a->li + 2, hd_lesson_title(next));
	else
		hd_screen_puts(a->scr, NULL, 2, h - 4, "That was the last lesson of the course.",
			       hd_tui_style(HD_ROLE_TEXT, HD_ATTR_BOLD));
	hd_screen_puts(a->scr, NULL, 2, h - 3,
		       "e explore this lesson's runs and knobs   "
		       "A the questions again   p the pages   q the list",
		       hd_tui_style(HD_ROLE_AXIS, 0));
}

static const struct hd_tui_key keys[] = {
	{ '\r', hd_tui_flow_next_lesson, "Enter", "the next lesson" },
	{ '\n', hd_tui_flow_next_lesson, NULL, NULL },
	{ KEY_ENTER, hd_tui_flow_next_lesson, NULL, NULL },
	{ 'e', hd_tui_flow_explore, "e", "explore this lesson: runs and knobs" },
	{ 'A', hd_tui_flow_retry, "A", "try the questions again" },
	{ 'p', hd_tui_flow_pages, "p", "back to the lesson's pages" },
};

const struct hd_tui_scr_ops hd_tui_scr_summary = {
	.draw = draw,
	.keys = HD_TUI_KEYS(keys),
	.footer = "Enter next lesson  e explore  A questions again  q list  ? help",
};
