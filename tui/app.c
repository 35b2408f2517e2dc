/*
 * app.c - the terminal lesson browser (app.h): the app's state, the main
 * loop, and dispatch to the screens (app_priv.h).
 *
 * One loop: draw the current screen into the render buffer, paint it, wait
 * for a key (blocking while nothing moves, with the screen's frame timeout
 * while a run plays), then hand the key to the help overlay when it is
 * open, else to the screen's text keys, else to its key table and then the
 * keys of every screen.  The flow of a lesson (flow.c) is pages -> every
 * question with its confidence (each scenario locked until its question is
 * answered) -> each question's run and explanation -> the summary; a
 * finished lesson opens in explore mode.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/app_priv.h"

#define MIN_W 80
#define MIN_H 24

/* The screens by id. */
static const struct hd_tui_scr_ops *const screens[] = {
	[HD_TUI_LIST] = &hd_tui_scr_list,         [HD_TUI_PAGE] = &hd_tui_scr_page,
	[HD_TUI_QUESTION] = &hd_tui_scr_question, [HD_TUI_CONFIDENCE] = &hd_tui_scr_confidence,
	[HD_TUI_RUN] = &hd_tui_scr_run,           [HD_TUI_KNOBS] = &hd_tui_scr_knobs,
	[HD_TUI_SUMMARY] = &hd_tui_scr_summary,
};

const struct hd_tui_scr_ops *
hd_tui_screen(const struct hd_tui_app *a)
{
	return screens[a->screen];
}

struct hd_style
hd_tui_style(enum hd_role fg, unsigned char attr)
{
	struct hd_style s = { (unsigned char)fg, HD_ROLE_DEFAULT, attr };
	return s;
}

double
hd_tui_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the keys of every screen -------------------------------------------- */

void
hd_tui_back(struct hd_tui_app *a)
{
	if (a->screen == HD_TUI_LIST) {
		if (a->search[0] != '\0') {
			a->search[0] = '\0';
			hd_tui_list_filter(a);
		} else
			a->quit = true;
		return;
	}
	a->screen = a->screen == HD_TUI_KNOBS ? HD_TUI_RUN : HD_TUI_LIST;
	a->msg[0] = '\0';
}

static void
k_quit(struct hd_tui_app *a)
{
	if (a->screen == HD_TUI_LIST)
		a->quit = true;
	else
		hd_tui_back(a);
}

static void
k_help(struct hd_tui_app *a)
{
	a->help = true;
}

static void
k_redraw(struct hd_tui_app *a)
{
	hd_term_invalidate(a->term);
}

static const struct hd_tui_key all_keys[] = {
	{ '?', k_help, "?", "this help" },
	{ HD_TUI_CTRL('L'), k_redraw, "Ctrl-L", "redraw the screen" },
	{ 'q', k_quit, "q Esc", "back; quit from the lesson list" },
	{ HD_TUI_ESC, hd_tui_back, NULL, NULL },
};
const struct hd_tui_keys hd_tui_keys_all = HD_TUI_KEYS(all_keys);

/* The key k in table t, or NULL. */
static const struct hd_tui_key *
find_key(struct hd_tui_keys t, int k)
{
	size_t i;

	for (i = 0; i < t.n; i++)
		if (t.k[i].key == k)
			return &t.k[i];
	return NULL;
}

void
hd_tui_key(struct hd_tui_app *a, int k)
{
	const struct hd_tui_scr_ops *s = hd_tui_screen(a);
	const struct hd_tui_key *key;

	if (a->help) {
		hd_tui_scr_help.text(a, k); /* any key closes it; the message stays */
		return;
	}
	a->msg[0] = '\0';
	if (s->text != NULL && s->text(a, k))
		return;
	if ((key = find_key(s->keys, k)) == NULL)
		key = find_key(hd_tui_keys_all, k);
	if (key != NULL && key->fn != NULL)
		key->fn(a);
}

/* ---- drawing ------------------------------------------------------------- */

/* The footer: a message when there is one, else the next step and its key,
 * then the screen's main keys. */
static void
draw_footer(struct hd_tui_app *a, int w, int h)
{
	struct hd_rect r = { 0, h - 1, w, 1 };
	int x;

	if (a->msg[0] != '\0') {
		hd_screen_puts(a->scr, &r, 1, h - 1, a->msg,
			       hd_tui_style(HD_ROLE_TITLE, HD_ATTR_BOLD));
		return;
	}
	x = hd_screen_printf(a->scr, &r, 1, h - 1, hd_tui_style(HD_ROLE_TITLE, HD_ATTR_BOLD),
			     "Next: %s", hd_tui_flow_next_step(a));
	hd_screen_puts(a->scr, &r, x + 3, h - 1, hd_tui_screen(a)->footer,
		       hd_tui_style(HD_ROLE_AXIS, 0));
}

static void
draw(struct hd_tui_app *a)
{
	int w, h, y;

	hd_term_size(a->term, &w, &h);
	if (hd_screen_width(a->scr) != w || hd_screen_height(a->scr) != h)
		hd_screen_resize(a->scr, w, h);
	hd_screen_clear(a->scr);
	if (w < MIN_W || h < MIN_H) {
		char m[96];
		snprintf(m, sizeof m, "terminal too small:%cneed %dx%d, have %dx%d",
			 w >= 42 ? ' ' : '\n', MIN_W, MIN_H, w, h);
		y = hd_tui_wrap_draw(a, 0, h / 2 - 1, w, h, "", m,
				     hd_tui_style(HD_ROLE_BAD, HD_ATTR_BOLD));
		hd_screen_puts(a->scr, NULL, 0, y, "q quits", hd_tui_style(HD_ROLE_TEXT, 0));
		hd_term_paint(a->term, a->scr);
		return;
	}
	hd_tui_screen(a)->draw(a, w, h);
	draw_footer(a, w, h);
	if (a->help)
		hd_tui_scr_help.draw(a, w, h);
	hd_term_paint(a->term, a->scr);
}

/* ---- the app's state ----------------------------------------------------- */

void
hd_tui_app_init(struct hd_tui_app *a, struct hd_catalog *cat, const struct hd_profile *p,
		const struct hd_tui_opts *o)
{
	int n = hd_catalog_count(cat), i;

	memset(a, 0, sizeof *a);
	a->cat = cat;
	a->prof = *p;
	a->o = o;
	a->reduced = o->reduced_motion;
	a->speed = 1;
	a->qsc = -1;
	a->rows = hd_xcalloc((size_t)n + 1, sizeof *a->rows);
	a->marks = hd_xcalloc((size_t)n + 1, sizeof *a->marks);
	a->screen = HD_TUI_LIST;
	hd_tui_store_open(a);
	hd_tui_list_filter(a);
	for (i = 0; i < a->nrows; i++)
		if (a->rows[i] == a->resume)
			a->sel = i;
}

void
hd_tui_app_free(struct hd_tui_app *a)
{
	hd_tui_flow_close(a);
	hd_store_close(a->store);
	free(a->rows);
	free(a->marks);
}

/* ---- the main loop ------------------------------------------------------- */

int
hd_tui_main(struct hd_catalog *cat, const struct hd_profile *p, const struct hd_tui_opts *o)
{
	struct hd_tui_app a;
	struct hd_err e = { 0 };
	const struct hd_tui_scr_ops *s;
	int k, status = HD_EXIT_OK;

	hd_tui_app_init(&a, cat, p, o);
	if ((a.term = hd_term_open(o->no_color, &e)) == NULL) {
		hd_tui_app_free(&a);
		return -1;
	}
	a.scr = hd_screen_new(0, 0);
	hd_screen_set_ascii(a.scr, !hd_term_utf8(a.term));
	while (!a.quit) {
		draw(&a);
		s = hd_tui_screen(&a);
		k = hd_term_getkey(a.term, s->key_wait != NULL ? s->key_wait(&a) : -1);
		if (k == HD_TERM_SIGNAL) {
			/* The shell's convention for a program ended by a signal. */
			status = 128 + hd_term_signal();
			break;
		}
		if (s->tick != NULL)
			s->tick(&a);
		if (k == HD_TERM_TIMEOUT || k == KEY_RESIZE)
			continue;
		hd_tui_key(&a, k);
	}
	hd_term_close(a.term);
	hd_screen_free(a.scr);
	hd_tui_app_free(&a);
	return status;
}
