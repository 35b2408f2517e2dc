/*
 * scr_run.c - the run view (app_priv.h): one scenario's run played back
 * (or stepped event by event), the ghost of the run before a knob change
 * or the measured run beneath it, and the explanation once the question's
 * scenario has played to its end.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/timeline.h"
#include "tui/app_priv.h"

#define PLAY_SECONDS 6.0 /* a whole run at 1x */
#define STEP_SECONDS 0.6 /* reduced motion: one event per step at 1x */
#define FRAME_MS     33
#define SPEED_MIN    0.25
#define SPEED_MAX    8.0

/*
 * The decisive event of an explanation, by a simple rule: the longest
 * stretch of blocked host time in the question's scenario (what most
 * lessons are about); failing that, the longest span whose label the
 * explanation names; failing that, the longest span of all.
 */
static int
decisive_span(const struct hd_trace *t, const char *explain)
{
	int best[3] = { -1, -1, -1 };
	hd_time len[3] = { -1, -1, -1 };
	size_t i;
	int r;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		hd_time d = s->end - s->start;
		const char *lab = s->label >= 0 && s->label < t->nstrings ? t->strings[s->label] :
									    NULL;
		bool named = lab != NULL && lab[0] != '\0' && explain != NULL &&
		    strstr(explain, lab) != NULL;
		bool cand[3] = { s->kind == HD_SPAN_BLOCKED, named, true };
		for (r = 0; r < 3; r++)
			if (cand[r] && d > len[r]) {
				len[r] = d;
				best[r] = (int)i;
			}
	}
	for (r = 0; r < 3; r++)
		if (best[r] >= 0)
			return best[r];
	return -1;
}

void
hd_tui_run_show(struct hd_tui_app *a, int sc)
{
	const struct hd_question *q = hd_tui_flow_cur(a);
	const struct hd_trace *t = a->run.traces[sc];

	a->sc = sc;
	hd_events_free(a->ev);
	a->ev = hd_events_new(t);
	a->t = 0;
	a->playing = true;
	a->last = hd_tui_now();
	a->highlight = sc == a->qsc ? decisive_span(t, q ? q->explain : NULL) : -1;
	a->z0 = a->z1 = 0;
	a->rank_from = 0;
	memset(&a->fold, 0, sizeof a->fold);
	/* a run that ends in a deadlock says so from the start: the first line */
	if (t->note != NULL) {
		const char *nl = strchr(t->note, '\n');
		int len = nl != NULL ? (int)(nl - t->note) : (int)strlen(t->note);

		snprintf(a->msg, sizeof a->msg, "this run ends in a %.*s", len, t->note);
	}
}

/* Move the playhead on by the time since the last frame. */
static void
advance(struct hd_tui_app *a)
{
	const struct hd_trace *t;
	double n = hd_tui_now(), dt = n - a->last;

	if (!a->playing)
		return;
	t = a->run.traces[a->sc];
	if (a->reduced) {
		if (dt < STEP_SECONDS / a->speed)
			return;
		a->t = hd_events_next(a->ev, a->t);
		a->last = n;
	} else {
		a->t += (hd_time)((double)t->makespan * dt * a->speed / PLAY_SECONDS);
		a->last = n;
	}
	if (a->t >= t->makespan) {
		a->t = t->makespan;
		a->playing = false;
	}
}

/* How long to wait for a key: forever unless the run is moving. */
static int
key_timeout(const struct hd_tui_app *a)
{
	if (!a->playing)
		return -1;
	if (a->reduced)
		return (int)(STEP_SECONDS / a->speed * 1000);
	return FRAME_MS;
}

/* The explanation box at the foot, h rows: the verdict, then the text. */
static void
draw_explanation(struct hd_tui_app *a, const struct hd_question *q, int w, int h, int expl_h)
{
	struct hd_rect box = { 0, h - 1 - expl_h, w, expl_h };
	int y;

	hd_screen_box(a->scr, box, " Explanation ", hd_tui_style(HD_ROLE_BORDER, 0));
	y = hd_tui_wrap_draw(
	    a, 2, box.y + 1, w - 4, box.y + box.h - 1, "", a->verdict,
	    hd_tui_style(a->correct == 1 ? HD_ROLE_GOOD : HD_ROLE_BAD, HD_ATTR_BOLD));
	hd_tui_wrap_draw(a, 2, y, w - 4, box.y + box.h - 1, "", q->explain,
			 hd_tui_style(HD_ROLE_TEXT, 0));
}

/* Every scenario of the run on one time axis, in rectangle r. */
static void
draw_compare(struct hd_tui_app *a, struct hd_rect r)
{
	const char **names = hd_xcalloc((size_t)a->run.nscen + 1, sizeof *names);
	int i;

	for (i = 0; i < a->run.nscen; i++)
		names[i] = hd_lesson_scenario_name(a->l, i);
	hd_view_compare(a->scr, r, (const struct hd_trace *const *)a->run.traces,
			(const struct hd_scenario *const *)a->run.sc, names, a->run.nscen, a->sc);
	free(names);
}

/*
 * What the previous run was, for the ghost's legend: the profile it ran on
 * when that changed, else the knobs whose values differ ("cpu = 2.00 ms");
 * NULL when nothing differs.
 */
static const char *
ghost_about(const struct hd_tui_app *a, char *buf, size_t n)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	if (strcmp(a->prev.profile.name, a->run.profile.name) != 0) {
		snprintf(buf, n, "profile %s", a->prev.profile.name);
		return buf;
	}
	for (i = 0; i < hd_lesson_nknobs(a->l) && len < n; i++) {
		const struct hd_knob *k = hd_lesson_knob(a->l, i);
		char v[32];

		if (a->prev.knobs[i] == a->run.knobs[i])
			continue;
		hd_fmt_quantity(v, sizeof v, k->dim, a->prev.knobs[i]);
		len += (size_t)snprintf(buf + len, n - len, "%s%s = %s", len > 0 ? ", " : "",
					k->name, v);
	}
	return buf[0] != '\0' ? buf : NULL;
}

static void
draw(struct hd_tui_app *a, int w, int h)
{
	const struct hd_question *q = hd_tui_flow_cur(a);
	const struct hd_trace *t = a->run.traces[a->sc];
	struct hd_view_opts vo;
	struct hd_rect r;
	int expl_h = 0, cmp_h = 0, ew = a->compare ? w / 2 : w; /* compare beside it */
	char about[160];

	if (a->sc == a->qsc && a->t >= t->makespan)
		a->explained = true;
	hd_screen_printf(a->scr, NULL, 1, 0, hd_tui_style(HD_ROLE_TITLE, HD_ATTR_BOLD),
			 "%d  %s  scenario %d of %d: %s  [%s]%s", a->li + 1, hd_lesson_title(a->l),
			 a->sc + 1, a->run.nscen, hd_lesson_scenario_name(a->l, a->sc),
			 a->prof.name, a->reduced ? "  (reduced motion)" : "");
	if (a->explained && q != NULL) {
		/* As tall as the text needs, leaving the run at least 14 rows. */
		expl_h = hd_tui_wrap_lines(a->verdict, ew - 4) +
		    hd_tui_wrap_lines(q->explain, ew - 4) + 2;
		if (expl_h > h - 2 - 14)
			expl_h = h - 2 - 14;
		if (expl_h < 3)
			expl_h = 3;
	}
	hd_view_opts_init(&vo);
	vo.t = a->t;
	vo.speed = a->speed;
	vo.playing = a->playing;
	vo.highlight = a->explained && a->sc == a->qsc ? a->highlight : -1;
	vo.fault_group = a->prof.um_page;
	vo.profile = &a->prof;
	vo.ghost = a->have_prev && a->sc < a->prev.nscen ? a->prev.traces[a->sc] : NULL;
	if (vo.ghost != NULL)
		vo.ghost_about = ghost_about(a, about, sizeof about);
	if (a->measured != NULL && a->measured_sc == a->sc) {
		vo.ghost = a->measured;
		vo.ghost_name = "measured";
		vo.ghost_about = NULL;
		if (a->measured_band.n >= 2) {
			char range[64];

			/* beside its makespan in the status line: "band 12.10-12.58 ms" */
			snprintf(about, sizeof about, "band %s",
				 hd_band_range(range, sizeof range, &a->measured_band, true));
			vo.ghost_about = about;
		}
	}
	vo.z0 = a->z0;
	vo.z1 = a->z1;
	vo.rank_from = a->rank_from;
	memset(&a->fold, 0, sizeof a->fold);
	vo.fold = &a->fold;
	r.x = 0;
	r.y = 1;
	r.w = w;
	r.h = h - 2 - expl_h;
	if (a->compare && expl_h == 0) {
		cmp_h = a->run.nscen + 4;
		r.h -= cmp_h;
	}
	hd_view_run(a->scr, r, t, a->run.sc[a->sc], &vo);
	a->rank_from = a->fold.from; /* as far as it could scroll */
	if (a->legend)
		hd_view_legend(a->scr, r, t, a->run.sc[a->sc], &vo);
	if (expl_h > 0)
		draw_explanation(a, q, ew, h, expl_h);
	if (a->compare)
		draw_compare(a,
			     expl_h > 0 ? (struct hd_rect){ ew, h - 1 - expl_h, w - ew, expl_h } :
					  (struct hd_rect){ 0, r.y + r.h, w, cmp_h });
}

/*
 * Measured beside predicted: the newest measured run of this scenario in
 * the database (from `hdsim --real`) as ghost bars beneath, its makespan
 * with the band of its repeats (min to max) against the model's, the
 * model's error and whether the prediction is inside the band; m again
 * hides it.  The measured run has the knob values it was run with.
 */
void
hd_tui_run_measured(struct hd_tui_app *a)
{
	struct hd_store_run_row row;
	char meas[96], pred[32];
	hd_time p = a->run.traces[a->sc]->makespan;
	double err;

	if (a->measured != NULL && a->measured_sc == a->sc) {
		hd_trace_free(a->measured);
		a->measured = NULL;
		snprintf(a->msg, sizeof a->msg, "measured run hidden");
		return;
	}
	if (!hd_tui_store_measured(a, &row))
		return;
	hd_fmt_time(pred, sizeof pred, p);
	err = 100.0 * ((double)p - (double)row.makespan) / (double)row.makespan;
	if (a->measured_band.n < 2) {
		hd_fmt_time(meas, sizeof meas, row.makespan);
		snprintf(a->msg, sizeof a->msg,
			 "measured %s (%s, %s) vs predicted %s: error %+.1f %%", meas,
			 row.profile[0] ? row.profile : "?", row.created, pred, err);
		return;
	}
	/* "measured 12.31 ms (12.10-12.58 over 5 repeats) vs predicted ...",
	 * the run it is last, where a narrow footer cuts */
	hd_band_fmt(meas, sizeof meas, row.makespan, &a->measured_band, HD_BAND_SHORT);
	snprintf(a->msg, sizeof a->msg,
		 "measured %s vs predicted %s: error %+.1f %%, %s the band (%s, %s)", meas, pred,
		 err, hd_band_holds(&a->measured_band, p) ? "inside" : "outside",
		 row.profile[0] ? row.profile : "?", row.created);
}

/* ---- keys ---------------------------------------------------------------- */

static void
k_play(struct hd_tui_app *a)
{
	if (!a->playing && a->t >= a->run.traces[a->sc]->makespan)
		a->t = 0;
	a->playing = !a->playing;
	a->last = hd_tui_now();
}

static void
k_step_next(struct hd_tui_app *a)
{
	a->playing = false;
	a->t = hd_events_next(a->ev, a->t);
}

static void
k_step_prev(struct hd_tui_app *a)
{
	a->playing = false;
	a->t = hd_events_prev(a->ev, a->t);
}

static void
k_faster(struct hd_tui_app *a)
{
	if (a->speed < SPEED_MAX)
		a->speed *= 2;
}

static void
k_slower(struct hd_tui_app *a)
{
	if (a->speed > SPEED_MIN)
		a->speed /= 2;
}

static void
k_home(struct hd_tui_app *a)
{
	a->playing = false;
	a->t = 0;
}

static void
k_end(struct hd_tui_app *a)
{
	a->playing = false;
	a->t = a->run.traces[a->sc]->makespan;
}

static void
k_replay(struct hd_tui_app *a)
{
	a->t = 0;
	a->playing = true;
	a->last = hd_tui_now();
}

static void
k_next_scenario(struct hd_tui_app *a)
{
	hd_tui_run_show(a, (a->sc + 1) % a->run.nscen);
}

static void
k_reduced(struct hd_tui_app *a)
{
	a->reduced = !a->reduced;
	snprintf(a->msg, sizeof a->msg, "reduced motion %s", a->reduced ? "on" : "off");
}

static void
k_compare(struct hd_tui_app *a)
{
	a->compare = !a->compare;
}

static void
k_legend(struct hd_tui_app *a)
{
	a->legend = !a->legend;
}

/* The zoom window as it is now: the whole run when none is set. */
static struct hd_tl_window
zoom_now(const struct hd_tui_app *a)
{
	struct hd_tl_window w = { a->z0, a->z1 };

	if (w.t1 <= w.t0) {
		w.t0 = 0;
		w.t1 = a->run.traces[a->sc]->makespan > 0 ? a->run.traces[a->sc]->makespan : 1;
	}
	return w;
}

static void
zoom_set(struct hd_tui_app *a, struct hd_tl_window w)
{
	char t0[32], t1[32];

	a->z0 = w.t0;
	a->z1 = w.t1;
	snprintf(a->msg, sizeof a->msg, "showing %s .. %s (0: the whole run)",
		 hd_fmt_time(t0, sizeof t0, w.t0), hd_fmt_time(t1, sizeof t1, w.t1));
}

#define ZOOM_MIN_PS 64 /* the narrowest window: a few ps a column */

static void
zoom_by(struct hd_tui_app *a, double f)
{
	hd_time span = a->run.traces[a->sc]->makespan;

	zoom_set(a, hd_timeline_zoom(zoom_now(a), f, a->t, span > 0 ? span : 1, ZOOM_MIN_PS));
}

static void
k_zoom_in(struct hd_tui_app *a)
{
	zoom_by(a, 0.5);
}

static void
k_zoom_out(struct hd_tui_app *a)
{
	zoom_by(a, 2.0);
}

static void
pan_by(struct hd_tui_app *a, double f)
{
	hd_time span = a->run.traces[a->sc]->makespan;

	zoom_set(a, hd_timeline_pan(zoom_now(a), f, span > 0 ? span : 1));
}

static void
k_pan_left(struct hd_tui_app *a)
{
	pan_by(a, -0.25);
}

static void
k_pan_right(struct hd_tui_app *a)
{
	pan_by(a, 0.25);
}

static void
k_zoom_all(struct hd_tui_app *a)
{
	a->z0 = a->z1 = 0;
	snprintf(a->msg, sizeof a->msg, "showing the whole run");
}

/*
 * Zoom to the selected op: the highlighted span, else the shortest span
 * under the playhead, else the longest span; its time with a quarter of it
 * either side.
 */
static void
k_zoom_op(struct hd_tui_app *a)
{
	const struct hd_trace *t = a->run.traces[a->sc];
	const struct hd_span *best = NULL;
	struct hd_tl_window w;
	size_t i;
	hd_time pad;

	if (a->highlight >= 0 && (size_t)a->highlight < t->nspans)
		best = &t->spans[a->highlight];
	for (i = 0; best == NULL && i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		if (s->start <= a->t && a->t < s->end &&
		    (best == NULL || s->end - s->start < best->end - best->start))
			best = s;
	}
	if (best == NULL && (i = (size_t)decisive_span(t, NULL)) < t->nspans)
		best = &t->spans[i];
	if (best == NULL)
		return;
	pad = (best->end - best->start) / 4 + ZOOM_MIN_PS;
	w.t0 = best->start - pad;
	w.t1 = best->end + pad;
	zoom_set(a, hd_timeline_pan(w, 0, t->makespan > 0 ? t->makespan : 1));
}

/*
 * Scroll the ranks the timeline folds away by `by` ranks, from where the
 * last frame was; the next frame keeps it where the last rank still shows
 * at the end (view.h, hd_view_fold).
 */
static void
scroll_ranks(struct hd_tui_app *a, int by)
{
	const struct hd_view_fold *f = &a->fold;

	if (!f->folded) {
		snprintf(a->msg, sizeof a->msg, "every rank is shown");
		return;
	}
	a->rank_from = f->from + by;
	if (a->rank_from < 0)
		a->rank_from = 0;
	if (a->rank_from > f->nranks - 1)
		a->rank_from = f->nranks - 1;
}

/* A page of ranks: those the timeline shows whole (unscrolled, the first
 * ones), at least one. */
static int
rank_page(const struct hd_tui_app *a)
{
	int n = a->fold.last - a->fold.first + 1;

	return n > 1 ? n : 1;
}

static void
k_ranks_down(struct hd_tui_app *a)
{
	scroll_ranks(a, rank_page(a));
}

static void
k_ranks_up(struct hd_tui_app *a)
{
	scroll_ranks(a, -rank_page(a));
}

static void
k_rank_next(struct hd_tui_app *a)
{
	scroll_ranks(a, 1);
}

static void
k_rank_prev(struct hd_tui_app *a)
{
	scroll_ranks(a, -1);
}

static const struct hd_tui_key keys[] = {
	{ ' ', k_play, "Space", "play / pause" },
	{ KEY_RIGHT, k_step_next, "Right l", "step to the next event" },
	{ 'l', k_step_next, NULL, NULL },
	{ KEY_LEFT, k_step_prev, "Left h", "step to the previous event" },
	{ 'h', k_step_prev, NULL, NULL },
	{ '+', k_faster, "+ -", "faster / slower (0.25x .. 8x)" },
	{ '=', k_faster, NULL, NULL },
	{ '-', k_slower, NULL, NULL },
	{ KEY_HOME, k_home, "Home End", "start / end of the run" },
	{ 'g', k_home, NULL, NULL },
	{ KEY_END, k_end, NULL, NULL },
	{ 'G', k_end, NULL, NULL },
	{ 'r', k_replay, "r", "replay" },
	{ '\t', k_next_scenario, "Tab", "next scenario" },
	{ 'R', k_reduced, "R", "reduced motion: jump between events" },
	{ '\r', hd_tui_flow_continue, "Enter n", "next question after the explanation" },
	{ '\n', hd_tui_flow_continue, NULL, NULL },
	{ KEY_ENTER, hd_tui_flow_continue, NULL, NULL },
	{ 'n', hd_tui_flow_continue, NULL, NULL },
	{ 'k', hd_tui_knobs_toggle, "k", "knobs: change one, re-run, compare" },
	{ 'm', hd_tui_run_measured, "m", "measured beside predicted" },
	{ 'P', hd_tui_flow_profile, "P", "next hardware profile (re-runs)" },
	{ 'p', hd_tui_flow_pages, "p", "back to the lesson's pages" },
	{ 'A', hd_tui_flow_retry, "A", "try the questions again" },
	{ 'c', k_compare, "c", "compare: every scenario on one time axis" },
	{ 'L', k_legend, "L", "legend: what each glyph shows" },
	{ ']', k_zoom_in, "] [ < > 0", "zoom in / out, pan; 0: the whole run" },
	{ '[', k_zoom_out, NULL, NULL },
	{ '>', k_pan_right, NULL, NULL },
	{ '<', k_pan_left, NULL, NULL },
	{ 'z', k_zoom_op, "z", "zoom to the selected op" },
	{ '0', k_zoom_all, NULL, NULL },
	{ KEY_NPAGE, k_ranks_down, "PgDn PgUp J K", "scroll the folded ranks: a page, one" },
	{ KEY_PPAGE, k_ranks_up, NULL, NULL },
	{ 'J', k_rank_next, NULL, NULL },
	{ 'K', k_rank_prev, NULL, NULL },
};

const struct hd_tui_scr_ops hd_tui_scr_run = {
	.draw = draw,
	.keys = HD_TUI_KEYS(keys),
	.footer = "Space play  Left/Right step  +/- speed  [ ] zoom  c compare  L legend  k knobs  "
		  "? help",
	.tick = advance,
	.key_wait = key_timeout,
};
