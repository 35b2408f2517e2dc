/*
 * scr_knobs.c - the knob panel over the run (app_priv.h): the lesson's
 * knobs with their values; doubling or halving one re-runs the lesson at
 * once (flow.c) and the run before shows as the ghost.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>

#include "tui/app_priv.h"

static void
knob_value_text(const struct hd_knob *k, double v, char *buf, size_t n)
{
	if (k->dim == HD_DIM_BYTES)
		hd_fmt_bytes(buf, n, (uint64_t)v);
	else if (k->dim == HD_DIM_TIME)
		hd_fmt_time(buf, n, (hd_time)v);
	else
		snprintf(buf, n, "%g", v);
}

/* The selected knob times `factor`, clamped to its range, then re-run. */
static void
change_knob(struct hd_tui_app *a, double factor)
{
	const struct hd_knob *k = hd_lesson_knob(a->l, a->knob);
	double v = a->run.knobs[a->knob] * factor;

	if (v < k->min)
		v = k->min;
	if (v > k->max)
		v = k->max;
	if (v == a->run.knobs[a->knob])
		snprintf(a->msg, sizeof a->msg, "%s is at its %s", k->name,
			 factor > 1 ? "maximum" : "minimum");
	else
		hd_tui_flow_rerun(a, a->knob, v);
}

/* The run, with the panel at its top right. */
static void
draw(struct hd_tui_app *a, int w, int h)
{
	int nk = hd_lesson_nknobs(a->l), i, y;
	struct hd_rect box;

	hd_tui_scr_run.draw(a, w, h);
	box.w = w < 70 ? w : 70;
	box.h = nk + 5 < h ? nk + 5 : h;
	box.x = w - box.w;
	box.y = 1;
	hd_screen_fill(a->scr, box, " ", hd_tui_style(HD_ROLE_TEXT, 0));
	hd_screen_box(a->scr, box, " Knobs (Left/Right halve/double, k close) ",
		      hd_tui_style(HD_ROLE_BORDER, HD_ATTR_BOLD));
	if (nk == 0)
		hd_screen_puts(a->scr, &box, box.x + 2, box.y + 2, "this lesson has no knobs",
			       hd_tui_style(HD_ROLE_TEXT, 0));
	for (i = 0, y = box.y + 2; i < nk && y < box.y + box.h - 1; i++, y++) {
		const struct hd_knob *k = hd_lesson_knob(a->l, i);
		char v[64];
		knob_value_text(k, a->run.knobs[i], v, sizeof v);
		hd_screen_printf(a->scr, &box, box.x + 2, y, hd_tui_style(HD_ROLE_TEXT, 0),
				 "%-10s %-12s %s", k->name, v, k->text ? k->text : "");
		if (i == a->knob) {
			struct hd_rect r = { box.x + 1, y, box.w - 2, 1 };
			hd_screen_style(a->scr, r, hd_tui_style(HD_ROLE_TEXT, HD_ATTR_REVERSE));
		}
	}
}

void
hd_tui_knobs_toggle(struct hd_tui_app *a)
{
	a->screen = a->screen == HD_TUI_KNOBS ? HD_TUI_RUN : HD_TUI_KNOBS;
	a->playing = false;
}

static void
k_up(struct hd_tui_app *a)
{
	if (a->knob > 0)
		a->knob--;
}

static void
k_down(struct hd_tui_app *a)
{
	if (a->knob + 1 < hd_lesson_nknobs(a->l))
		a->knob++;
}

static void
k_more(struct hd_tui_app *a)
{
	if (hd_lesson_nknobs(a->l) > 0)
		change_knob(a, 2);
}

static void
k_less(struct hd_tui_app *a)
{
	if (hd_lesson_nknobs(a->l) > 0)
		change_knob(a, 0.5);
}

static const struct hd_tui_key keys[] = {
	{ 'k', hd_tui_knobs_toggle, "k", "knobs: change one, re-run, compare" },
	{ KEY_UP, k_up, "Up Down", "choose a knob" },
	{ KEY_DOWN, k_down, NULL, NULL },
	{ KEY_RIGHT, k_more, "Right Left", "double / halve it (re-runs at once)" },
	{ '+', k_more, NULL, NULL },
	{ KEY_LEFT, k_less, NULL, NULL },
	{ '-', k_less, NULL, NULL },
	{ 'm', hd_tui_run_measured, "m", "measured beside predicted" },
	{ 'P', hd_tui_flow_profile, "P", "next hardware profile (re-runs)" },
};

const struct hd_tui_scr_ops hd_tui_scr_knobs = {
	.draw = draw,
	.keys = HD_TUI_KEYS(keys),
	.footer = "Up/Down knob  Left/Right halve/double  k close  ? help",
};
