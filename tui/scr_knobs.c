/*
 * scr_knobs.c - the knob panel over the run (app_priv.h): the lesson's
 * knobs with their values in their units.  A step follows the knob's own
 * scale (1-2-5 for times, work and rates, doubling for sizes and counts
 * over a wide range, a tenth of the range for narrow ones); a value can be
 * typed with its unit ("5ms" on the selected knob, or "cpu = 5ms"), checked
 * against the knob's range.  Each change re-runs the lesson at once
 * (flow.c) and the run before shows as the ghost.
 */
#include "config.h"

#include <ctype.h>
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app_priv.h"

/* A knob steps by a factor when its range spans at least 20x. */
static bool
wide_ok(const struct hd_knob *k)
{
	return k->min > 0 && k->max >= 20 * k->min;
}

/* The next value of the 1-2-5 sequence above v (up) or below it. */
static double
step_125(double v, bool up)
{
	static const double mant[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50 };
	double d = pow(10, floor(log10(v))), best = up ? HUGE_VAL : 0;
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(mant); i++) {
		double c = mant[i] * d;
		if (up && c > v * (1 + 1e-9) && c < best)
			best = c;
		if (!up && c < v * (1 - 1e-9) && c > best)
			best = c;
	}
	return best;
}

/* The value one step up or down from v on k's scale, not yet clamped. */
static double
step_value(const struct hd_knob *k, double v, bool up)
{
	double s;

	if (!wide_ok(k) || v <= 0) {
		s = (k->max - k->min) / 10;
		if (k->dim == HD_DIM_NONE && k->min == floor(k->min) && s < 1)
			s = 1;
		return up ? v + s : v - s;
	}
	if (k->dim == HD_DIM_BYTES || k->dim == HD_DIM_NONE)
		return up ? v * 2 : v / 2;
	return step_125(v, up);
}

/* The selected knob one step up or down, clamped to its range, then re-run. */
static void
change_knob(struct hd_tui_app *a, bool up)
{
	const struct hd_knob *k = hd_lesson_knob(a->l, a->knob);
	double v = step_value(k, a->run.knobs[a->knob], up);

	if (k->dim == HD_DIM_NONE && k->min == floor(k->min))
		v = up ? ceil(v) : floor(v);
	if (v < k->min)
		v = k->min;
	if (v > k->max)
		v = k->max;
	if (v == a->run.knobs[a->knob])
		snprintf(a->msg, sizeof a->msg, "%s is at its %s", k->name,
			 up ? "maximum" : "minimum");
	else
		hd_tui_flow_rerun(a, a->knob, v);
}

/*
 * Apply the typed text: "NAME = VALUE" or a VALUE for the selected knob,
 * with its unit.  A value the knob cannot take is said in the footer, as
 * `--set` says it, and changes nothing.
 */
static void
apply_typed(struct hd_tui_app *a)
{
	const struct hd_knob *k = hd_lesson_knob(a->l, a->knob);
	int nk = hd_lesson_nknobs(a->l), kn;
	double *vals = hd_xcalloc((size_t)nk + 1, sizeof *vals);
	struct hd_err e = { 0 };
	char set[160], name[72] = "";
	const char *in = a->kinput + (a->kinput[0] == '='), *eq = strchr(in, '='), *val = in;

	if (eq != NULL) {
		size_t len = (size_t)(eq - in);
		while (len > 0 && in[len - 1] == ' ')
			len--;
		snprintf(name, sizeof name, "%.*s", (int)(len < 64 ? len : 64), in);
		val = eq + 1;
	} else
		snprintf(name, sizeof name, "%s", k->name);
	while (*val == ' ')
		val++;
	snprintf(set, sizeof set, "%s=%s", name, val);
	memcpy(vals, a->run.knobs, (size_t)nk * sizeof *vals);
	a->kinput[0] = '\0';
	a->kinput_on = false;
	if ((kn = hd_lesson_find_knob(a->l, name)) < 0)
		snprintf(a->msg, sizeof a->msg, "no knob named '%s' in this lesson", name);
	else if (hd_lesson_knob_set(a->l, vals, set, &e) != 0)
		snprintf(a->msg, sizeof a->msg, "%s", e.msg);
	else {
		a->knob = kn;
		hd_tui_flow_rerun(a, kn, vals[kn]);
	}
	free(vals);
}

/* The lesson's claims with the knobs as they are, from row y of box. */
static void
draw_claims(struct hd_tui_app *a, struct hd_rect box, int y)
{
	static const char *const mark[] = { "[not checked]", "[fails]", "[holds]" };
	int i, held = 0;

	for (i = 0; i < a->run.nclaims; i++)
		held += a->run.claims[i].status == 1;
	hd_screen_printf(a->scr, &box, box.x + 2, y++, hd_tui_style(HD_ROLE_TITLE, 0),
			 "With these values %d of %d claims hold:", held, a->run.nclaims);
	for (i = 0; i < a->run.nclaims && y < box.y + box.h - 2; i++, y++) {
		int st = a->run.claims[i].status;
		hd_screen_printf(a->scr, &box, box.x + 2, y,
				 hd_tui_style(st == 1     ? HD_ROLE_GOOD :
						  st == 0 ? HD_ROLE_BAD :
							    HD_ROLE_NOTE,
					      0),
				 "%s %.*s", mark[st + 1], box.w - 6 - (int)strlen(mark[st + 1]),
				 hd_lesson_claim(a->l, i)->text);
	}
}

/* The run, with the panel at its top right. */
static void
draw(struct hd_tui_app *a, int w, int h)
{
	int nk = hd_lesson_nknobs(a->l), nc = a->run.nclaims, i, y;
	struct hd_rect box;

	hd_tui_scr_run.draw(a, w, h);
	box.w = w < 76 ? w : 76;
	box.h = nk + (nc > 0 ? nc + 2 : 0) + 6 < h ? nk + (nc > 0 ? nc + 2 : 0) + 6 : h;
	box.x = w - box.w;
	box.y = 1;
	hd_screen_fill(a->scr, box, " ", hd_tui_style(HD_ROLE_TEXT, 0));
	hd_screen_box(a->scr, box, " Knobs (Left/Right step, type a value, k close) ",
		      hd_tui_style(HD_ROLE_BORDER, HD_ATTR_BOLD));
	if (nk == 0)
		hd_screen_puts(a->scr, &box, box.x + 2, box.y + 2, "this lesson has no knobs",
			       hd_tui_style(HD_ROLE_TEXT, 0));
	for (i = 0, y = box.y + 2; i < nk && y < box.y + box.h - 2; i++, y++) {
		const struct hd_knob *k = hd_lesson_knob(a->l, i);
		char v[64];
		hd_fmt_quantity(v, sizeof v, k->dim, a->run.knobs[i]);
		hd_screen_printf(a->scr, &box, box.x + 2, y, hd_tui_style(HD_ROLE_TEXT, 0),
				 "%-10s %-12s %s", k->name, v, k->text ? k->text : "");
		if (i == a->knob) {
			struct hd_rect r = { box.x + 1, y, box.w - 2, 1 };
			hd_screen_style(a->scr, r, hd_tui_style(HD_ROLE_TEXT, HD_ATTR_REVERSE));
		}
	}
	if (nc > 0)
		draw_claims(a, box, y + 1);
	if (nk > 0 && a->kinput_on)
		hd_screen_printf(a->scr, &box, box.x + 2, box.y + box.h - 2,
				 hd_tui_style(HD_ROLE_TEXT, HD_ATTR_BOLD), "set %s: %s_",
				 hd_lesson_knob(a->l, a->knob)->name, a->kinput);
	else if (nk > 0) {
		const struct hd_knob *k = hd_lesson_knob(a->l, a->knob);
		char lo[64], hi[64];
		hd_fmt_quantity(lo, sizeof lo, k->dim, k->min);
		hd_fmt_quantity(hi, sizeof hi, k->dim, k->max);
		hd_screen_printf(a->scr, &box, box.x + 2, box.y + box.h - 2,
				 hd_tui_style(HD_ROLE_AXIS, 0), "%s goes from %s to %s", k->name,
				 lo, hi);
	}
}

void
hd_tui_knobs_toggle(struct hd_tui_app *a)
{
	a->screen = a->screen == HD_TUI_KNOBS ? HD_TUI_RUN : HD_TUI_KNOBS;
	a->playing = false;
	a->kinput[0] = '\0';
	a->kinput_on = false;
}

/*
 * Typing a value: a digit, '.' or '=' starts it, and so does a letter no
 * key of the panel takes; then every printable character goes in, until
 * Enter applies it, Esc drops it, Backspace takes one back.
 */
static bool
type_key(struct hd_tui_app *a, int k)
{
	size_t n = strlen(a->kinput);

	if (hd_lesson_nknobs(a->l) == 0)
		return false;
	if (!a->kinput_on) {
		if (!(isdigit(k) || k == '.' || k == '=' ||
		      (k >= 'a' && k <= 'z' && strchr("kmqhljp", k) == NULL)))
			return false;
		a->kinput_on = true;
	}
	if (k == '\r' || k == '\n' || k == KEY_ENTER) {
		apply_typed(a);
		return true;
	}
	if (k == HD_TUI_ESC) {
		a->kinput[0] = '\0';
		a->kinput_on = false;
		return true;
	}
	if (k == KEY_BACKSPACE || k == 127 || k == 8) {
		if (n > 0)
			a->kinput[n - 1] = '\0';
		else
			a->kinput_on = false;
		return true;
	}
	if (k >= 32 && k < 127 && n + 1 < sizeof a->kinput) {
		a->kinput[n] = (char)k;
		a->kinput[n + 1] = '\0';
	}
	return true;
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
		change_knob(a, true);
}

static void
k_less(struct hd_tui_app *a)
{
	if (hd_lesson_nknobs(a->l) > 0)
		change_knob(a, false);
}

static const struct hd_tui_key keys[] = {
	{ 'k', hd_tui_knobs_toggle, "k", "knobs: change one, re-run, compare" },
	{ KEY_UP, k_up, "Up Down", "choose a knob" },
	{ KEY_DOWN, k_down, NULL, NULL },
	{ KEY_RIGHT, k_more, "Right Left l h", "one step up / down its scale (re-runs)" },
	{ 'l', k_more, NULL, NULL },
	{ '+', k_more, NULL, NULL },
	{ KEY_LEFT, k_less, NULL, NULL },
	{ 'h', k_less, NULL, NULL },
	{ '-', k_less, NULL, NULL },
	{ '0', NULL, "5ms Enter", "type a value with its unit; or cpu = 5ms" },
	{ 'm', hd_tui_run_measured, "m", "measured beside predicted" },
	{ 'P', hd_tui_flow_profile, "P", "next hardware profile (re-runs)" },
	{ 'p', hd_tui_flow_pages, "p", "back to the lesson's pages" },
	{ 'A', hd_tui_flow_retry, "A", "try the questions again" },
};

const struct hd_tui_scr_ops hd_tui_scr_knobs = {
	.draw = draw,
	.text = type_key,
	.keys = HD_TUI_KEYS(keys),
	.footer = "Up/Down knob  Left/Right step  type 5ms Enter to set  k close  ? help",
};
