/*
 * plain.c - the lesson browser in plain text (plain.h), for screen readers.
 *
 * It drives the browser's own state and flow (app_priv.h, flow.c) without
 * a terminal: the same lesson run, the same order (the pages, then every
 * question before any run, then each question's run with its explanation,
 * then the summary; a finished lesson opens in explore mode), the same
 * grading and the same rows in the database.  Only the telling differs:
 * each screen is said once when it is reached, in sentences, and the keys
 * become typed commands (one table, which `help` reads).  Everything said
 * goes through the terminal's sanitiser.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sanitize.h"
#include "render/report.h"
#include "tui/app_priv.h"
#include "tui/plain.h"

struct plain {
	struct hd_tui_app a;
	FILE *in, *out;
	struct hd_buf say; /* what is said next, not yet sanitised */
	int ncat;          /* the catalogue's size when the app was made */
};

/* Where the learner is: a change of it is said (announce). */
struct place {
	enum hd_tui_scr_id screen;
	const struct hd_lesson *l;
	int page, q, sc;
	bool explore;
};

static void say(struct plain *p, const char *fmt, ...) HD_PRINTF(2, 3);

static void
say(struct plain *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hd_buf_vprintf(&p->say, fmt, ap);
	va_end(ap);
}

/* Write what was said, sanitised for the terminal, and the prompt. */
static void
flush_said(struct plain *p, bool prompt)
{
	struct hd_buf clean;

	hd_buf_init(&clean);
	if (p->say.len > 0)
		hd_san_term(&clean, p->say.s, true);
	if (prompt)
		hd_buf_puts(&clean, "> ");
	if (clean.len > 0)
		fwrite(clean.s, 1, clean.len, p->out);
	fflush(p->out);
	hd_buf_free(&clean);
	hd_buf_free(&p->say);
	hd_buf_init(&p->say);
}

/* The footer's message, as a line of its own, then cleared. */
static void
say_msg(struct plain *p)
{
	if (p->a.msg[0] != '\0')
		say(p, "%s.\n", p->a.msg);
	p->a.msg[0] = '\0';
}

static struct place
place_of(const struct hd_tui_app *a)
{
	struct place w = { a->screen, a->l, a->page, a->q, a->sc, a->explore };
	return w;
}

static bool
same_place_ok(const struct place *x, const struct place *y)
{
	return x->screen == y->screen && x->l == y->l && x->page == y->page && x->q == y->q &&
	    x->sc == y->sc && x->explore == y->explore;
}

/* ---- saying each screen --------------------------------------------------- */

static void
say_list(struct plain *p)
{
	struct hd_tui_app *a = &p->a;
	int i;

	say(p, "Lessons (%d):\n", hd_catalog_count(a->cat));
	for (i = 0; i < p->ncat; i++) {
		const struct hd_lesson *l = hd_catalog_get(a->cat, i);
		const struct hd_tui_mark *m = &a->marks[i];

		say(p, "%d. %s", i + 1, hd_lesson_title(l));
		if (m->answered > 0)
			say(p, " (%d of %d answered, %d right)", m->answered,
			    hd_lesson_nquestions(l), m->right);
		say(p, "\n");
	}
	say(p, "Type a lesson's number to open it");
	if (a->resume >= 0)
		say(p, ", or Enter for lesson %d, where you left off", a->resume + 1);
	say(p, ". 'help' lists the commands.\n");
}

/* Has every question of the open lesson been answered since it opened? */
static bool
all_said_ok(const struct hd_tui_app *a)
{
	int i;

	for (i = 0; i < hd_lesson_nquestions(a->l); i++)
		if (!a->said[i].done)
			return false;
	return true;
}

static void
say_page(struct plain *p)
{
	struct hd_tui_app *a = &p->a;
	const struct hd_page *pg = hd_lesson_page(a->l, a->page);
	bool last = a->page + 1 >= hd_lesson_npages(a->l);

	say(p, "Lesson %d, %s. Page %d of %d: %s\n", a->li + 1, hd_lesson_title(a->l), a->page + 1,
	    hd_lesson_npages(a->l), pg->title != NULL ? pg->title : "");
	say(p, "%s\n", pg->text != NULL ? pg->text : "");
	say(p, "Enter: %s; 'back': the page before.\n",
	    !last                            ? "the next page" :
		a->explore || all_said_ok(a) ? "the runs" :
					       "the questions");
}

/* The hints taken so far. */
static void
say_hints(struct plain *p, const struct hd_question *q)
{
	int i;

	for (i = 0; i < p->a.hints && i < q->nhints; i++)
		say(p, "Hint %d: %s\n", i + 1, q->hints[i]);
}

static void
say_question(struct plain *p)
{
	static const char *const ask[] = {
		[HD_Q_CHOICE] = "Type the letter of your answer.",
		[HD_Q_ORDER] = "Type the letters in the right order.",
		[HD_Q_ESTIMATE] = "Type your estimate with its unit (a bare number means ms "
				  "for times, MiB for sizes).",
	};
	struct hd_tui_app *a = &p->a;
	const struct hd_question *q = hd_tui_flow_cur(a);
	int sc = q->scenario != NULL ? hd_lesson_find_scenario(a->l, q->scenario) : 0;
	int i;

	say(p, "Lesson %d, %s: predict before you run. Question %d of %d.\n", a->li + 1,
	    hd_lesson_title(a->l), a->q + 1, hd_lesson_nquestions(a->l));
	say(p, "%s\n", q->prompt);
	for (i = 0; i < q->noptions; i++)
		say(p, "%c) %s\n", 'a' + i, q->options[i]);
	say(p, "The run of scenario '%s' answers it; it stays locked until you answer.\n",
	    hd_lesson_scenario_name(a->l, sc >= 0 ? sc : 0));
	say_hints(p, q);
	say(p, "%s%s\n", ask[q->kind], q->nhints > a->hints ? " 'hint' shows a hint." : "");
}

static void
say_confidence(struct plain *p)
{
	say(p, "Your answer: %s\n", p->a.shown);
	if (hd_tui_flow_feedback(&p->a) != NULL)
		say(p, "On that answer: %s\n", hd_tui_flow_feedback(&p->a));
	say(p, "How sure are you? 1 (a guess) to 5 (sure), or Enter to skip.\n");
}

/* Scenario sc's makespan in words. */
static void
say_makespan(struct plain *p, const struct hd_run *r, int sc)
{
	char t[32];

	hd_fmt_time(t, sizeof t, r->traces[sc]->makespan);
	say(p, "Scenario %s takes %s", hd_lesson_scenario_name(p->a.l, sc), t);
}

/* The claims with the knobs as they are. */
static void
say_claims(struct plain *p)
{
	const struct hd_run *r = &p->a.run;
	int i, held = 0;

	for (i = 0; i < r->nclaims; i++)
		held += r->claims[i].status == 1;
	if (r->nclaims > 0)
		say(p, "With these values %d of %d claims hold.\n", held, r->nclaims);
}

static void
say_run(struct plain *p)
{
	struct hd_tui_app *a = &p->a;
	const struct hd_question *q = hd_tui_flow_cur(a);
	const char *title = hd_lesson_scenario_title(a->l, a->sc);

	say(p, "Lesson %d, %s. Scenario %d of %d: %s%s%s, on profile %s.\n", a->li + 1,
	    hd_lesson_title(a->l), a->sc + 1, a->run.nscen, hd_lesson_scenario_name(a->l, a->sc),
	    title != NULL && title[0] != '\0' ? ", " : "", title != NULL ? title : "",
	    a->prof.name);
	say_msg(p);
	hd_report_plain_trace(&p->say, a->run.traces[a->sc], a->run.sc[a->sc]);
	say_makespan(p, &a->run, a->sc);
	say(p, " in all.\n");
	if (a->explore) {
		say(p,
		    "Exploring: every scenario and knob unlocked. 'scenario N', 'knobs', "
		    "'set NAME = VALUE', 'run', 'compare', 'retry' for the questions again, "
		    "'list' for the lessons.\n");
		return;
	}
	if (q != NULL && a->sc == a->qsc) {
		a->explained = true;
		say(p, "Question %d: %s\n", a->q + 1, q->prompt);
		say(p, "%s\n", a->verdict);
		say(p, "Explanation: %s\n", q->explain != NULL ? q->explain : "");
	}
	say(p, "Enter: %s. 'knobs' and 'set' change the run, 'compare' the scenarios.\n",
	    a->q + 1 < hd_lesson_nquestions(a->l) ? "the next question's run" : "the summary");
}

static void
say_summary(struct plain *p)
{
	struct hd_tui_app *a = &p->a;
	int nq = hd_lesson_nquestions(a->l), i, right = 0;

	for (i = 0; i < nq; i++)
		right += a->said[i].correct == 1;
	say(p, "Lesson %d, %s, done: %d of %d predictions right.\n", a->li + 1,
	    hd_lesson_title(a->l), right, nq);
	for (i = 0; i < nq; i++)
		say(p, "%d. %s\n%s\n", i + 1, hd_lesson_question(a->l, i)->prompt,
		    a->said[i].verdict);
	if (a->li + 1 < hd_catalog_count(a->cat))
		say(p, "Enter: lesson %d, %s.", a->li + 2,
		    hd_lesson_title(hd_catalog_get(a->cat, a->li + 1)));
	else
		say(p, "That was the last lesson of the course.");
	say(p,
	    " 'explore' this lesson's runs and knobs, 'retry' the questions, 'pages', "
	    "'list'.\n");
}

/* Say the screen the learner is on. */
static void
announce(struct plain *p)
{
	switch (p->a.screen) {
	case HD_TUI_LIST:
		say_list(p);
		break;
	case HD_TUI_PAGE:
		say_page(p);
		break;
	case HD_TUI_QUESTION:
		say_question(p);
		break;
	case HD_TUI_CONFIDENCE:
		say_confidence(p);
		break;
	case HD_TUI_RUN:
	case HD_TUI_KNOBS:
		say_run(p);
		break;
	case HD_TUI_SUMMARY:
		say_summary(p);
		break;
	}
}

/* ---- Enter and answers, by screen ----------------------------------------- */

static void
open_lesson(struct plain *p, int li)
{
	hd_tui_flow_open(&p->a, li);
	if (p->a.explore)
		p->a.msg[0] = '\0'; /* the browser's message names its keys */
}

static void
open_named(struct plain *p, const char *arg)
{
	struct hd_err e = { 0 };
	int li;

	if (strchr(arg, '/') != NULL || strstr(arg, ".hds") != NULL) {
		say(p,
		    "Open a lesson by its number or id here; to open a file: hdsim --plain "
		    "FILE.\n");
		return;
	}
	if ((li = hd_catalog_find(p->a.cat, arg, &e)) < 0 || li >= p->ncat)
		say(p, "%s\n", e.msg);
	else
		open_lesson(p, li);
}

/* Enter (an empty line) on screen a->screen. */
static void
enter(struct plain *p)
{
	struct hd_tui_app *a = &p->a;

	switch (a->screen) {
	case HD_TUI_LIST:
		if (a->resume >= 0 && a->resume < p->ncat)
			open_lesson(p, a->resume);
		else
			say(p, "Type a lesson's number.\n");
		break;
	case HD_TUI_PAGE:
		if (a->page + 1 < hd_lesson_npages(a->l))
			a->page++;
		else
			hd_tui_flow_pages_done(a);
		break;
	case HD_TUI_QUESTION:
		say_question(p);
		break;
	case HD_TUI_CONFIDENCE:
		hd_tui_flow_answered(a, 0);
		break;
	case HD_TUI_RUN:
	case HD_TUI_KNOBS:
		if (a->explore)
			say(p, "Exploring: 'help' lists what can be done.\n");
		else
			hd_tui_flow_continue(a);
		break;
	case HD_TUI_SUMMARY:
		hd_tui_flow_next_lesson(a);
		break;
	}
}

/* A line that is no command: an answer, a confidence, a lesson. */
static void
answer(struct plain *p, const char *line)
{
	struct hd_tui_app *a = &p->a;
	const struct hd_question *q = hd_tui_flow_cur(a);
	size_t n = 0;

	if (a->screen == HD_TUI_LIST) {
		open_named(p, line);
		return;
	}
	if (a->screen == HD_TUI_CONFIDENCE) {
		if (line[0] >= '1' && line[0] <= '5' && line[1] == '\0')
			hd_tui_flow_answered(a, line[0] - '0');
		else
			say(p, "A number from 1 (a guess) to 5 (sure), or Enter to skip.\n");
		return;
	}
	if (a->screen != HD_TUI_QUESTION) {
		say(p, "Not a command here: 'help' lists them.\n");
		return;
	}
	if (q->kind == HD_Q_CHOICE) {
		int k = tolower((unsigned char)line[0]) - 'a';
		if (line[1] == '\0' && k >= 0 && k < q->noptions)
			hd_tui_flow_choose(a, k);
		else
			say(p, "Type a letter from a to %c.\n", 'a' + q->noptions - 1);
		return;
	}
	/* an order without its spaces and commas; an estimate as typed */
	for (; *line != '\0' && n + 1 < sizeof a->input; line++)
		if (q->kind == HD_Q_ESTIMATE || isalpha((unsigned char)*line))
			a->input[n++] = q->kind == HD_Q_ORDER ?
			    (char)tolower((unsigned char)*line) :
			    *line;
	a->input[n] = '\0';
	hd_tui_flow_grade(a);
}

/* ---- commands --------------------------------------------------------------- */

/* Are the open lesson's runs unlocked (every question answered, or exploring)? */
static bool
runs_ok(const struct hd_tui_app *a)
{
	return a->l != NULL && a->have_run &&
	    (a->screen == HD_TUI_RUN || a->screen == HD_TUI_KNOBS || a->screen == HD_TUI_SUMMARY);
}

static void
c_quit(struct plain *p, const char *arg)
{
	(void)arg;
	p->a.quit = true;
}

static void
c_list(struct plain *p, const char *arg)
{
	(void)arg;
	hd_tui_flow_close(&p->a);
	hd_tui_store_marks(&p->a);
	p->a.screen = HD_TUI_LIST;
	say_list(p);
}

static void
c_open(struct plain *p, const char *arg)
{
	if (arg[0] == '\0')
		say(p, "open what? A lesson's number or id.\n");
	else
		open_named(p, arg);
}

static void
c_back(struct plain *p, const char *arg)
{
	(void)arg;
	if (p->a.screen == HD_TUI_PAGE && p->a.page > 0)
		p->a.page--;
	else if (p->a.screen == HD_TUI_PAGE)
		say(p, "This is the first page.\n");
	else
		say(p, "'back' turns the pages; 'pages' goes to them, 'list' to the lessons.\n");
}

static void
c_pages(struct plain *p, const char *arg)
{
	(void)arg;
	if (p->a.l == NULL) {
		say(p, "Open a lesson first.\n");
		return;
	}
	p->a.page = 0;
	hd_tui_flow_pages(&p->a);
}

static void
c_hint(struct plain *p, const char *arg)
{
	const struct hd_question *q = hd_tui_flow_cur(&p->a);

	(void)arg;
	if (p->a.screen != HD_TUI_QUESTION || q == NULL)
		say(p, "Hints come with the questions.\n");
	else if (p->a.hints >= q->nhints)
		say(p, "No more hints.\n");
	else {
		p->a.hints++;
		say(p, "Hint %d: %s\n", p->a.hints, q->hints[p->a.hints - 1]);
	}
}

static void
c_knobs(struct plain *p, const char *arg)
{
	const struct hd_tui_app *a = &p->a;
	int i, nk = hd_lesson_nknobs(a->l);
	char v[64], lo[64], hi[64];

	(void)arg;
	if (nk == 0)
		say(p, "This lesson has no knobs.\n");
	for (i = 0; i < nk; i++) {
		const struct hd_knob *k = hd_lesson_knob(a->l, i);
		hd_fmt_quantity(v, sizeof v, k->dim, a->run.knobs[i]);
		hd_fmt_quantity(lo, sizeof lo, k->dim, k->min);
		hd_fmt_quantity(hi, sizeof hi, k->dim, k->max);
		say(p, "%s = %s (from %s to %s): %s\n", k->name, v, lo, hi,
		    k->text != NULL ? k->text : "");
	}
	if (nk > 0)
		say(p, "Change one with 'set NAME = VALUE', e.g. 'set %s = %s'.\n",
		    hd_lesson_knob(a->l, 0)->name, v);
	say_claims(p);
}

/* `set NAME = VALUE`: checked as --set checks it, then the lesson re-run. */
static void
c_set(struct plain *p, const char *arg)
{
	struct hd_tui_app *a = &p->a;
	int nk = hd_lesson_nknobs(a->l), kn, sc = a->sc;
	double *vals = hd_xcalloc((size_t)nk + 1, sizeof *vals);
	struct hd_err e = { 0 };
	char name[72], set[160], v[64];
	const char *eq = strchr(arg, '='), *val;
	size_t len;
	hd_time before = a->run.traces[sc]->makespan;

	if (eq == NULL) {
		say(p, "set NAME = VALUE, e.g. set %s = ...; 'knobs' lists them.\n",
		    nk > 0 ? hd_lesson_knob(a->l, 0)->name : "NAME");
		goto out;
	}
	for (len = (size_t)(eq - arg); len > 0 && arg[len - 1] == ' '; len--)
		;
	snprintf(name, sizeof name, "%.*s", (int)(len < 64 ? len : 64), arg);
	for (val = eq + 1; *val == ' '; val++)
		;
	snprintf(set, sizeof set, "%s=%s", name, val);
	memcpy(vals, a->run.knobs, (size_t)nk * sizeof *vals);
	if ((kn = hd_lesson_find_knob(a->l, name)) < 0)
		say(p, "No knob named '%s' in this lesson; 'knobs' lists them.\n", name);
	else if (hd_lesson_knob_set(a->l, vals, set, &e) != 0)
		say(p, "%s.\n", e.msg);
	else {
		hd_tui_flow_rerun(a, kn, vals[kn]);
		hd_fmt_quantity(v, sizeof v, hd_lesson_knob(a->l, kn)->dim, a->run.knobs[kn]);
		say(p, "%s = %s. ", name, v);
		say_makespan(p, &a->run, a->sc);
		hd_fmt_time(v, sizeof v, before);
		say(p, " (it took %s). 'run' narrates it.\n", v);
		say_msg(p);
		say_claims(p);
	}
out:
	free(vals);
}

static void
c_run(struct plain *p, const char *arg)
{
	(void)arg;
	say_run(p);
}

static void
c_scenario(struct plain *p, const char *arg)
{
	struct hd_tui_app *a = &p->a;
	int sc = hd_lesson_find_scenario(a->l, arg);

	if (sc < 0 && arg[0] >= '1' && arg[0] <= '9')
		sc = atoi(arg) - 1;
	if (sc < 0 || sc >= a->run.nscen) {
		say(p, "No scenario '%s': 'compare' lists them.\n", arg);
		return;
	}
	hd_tui_run_show(a, sc);
	a->playing = false;
	if (a->screen == HD_TUI_SUMMARY)
		a->screen = HD_TUI_RUN;
}

static void
c_compare(struct plain *p, const char *arg)
{
	const struct hd_run *r = &p->a.run;
	int i, fast = 0;

	(void)arg;
	for (i = 0; i < r->nscen; i++)
		if (r->traces[i]->makespan < r->traces[fast]->makespan)
			fast = i;
	for (i = 0; i < r->nscen; i++) {
		say(p, "%d. ", i + 1);
		say_makespan(p, r, i);
		if (i != fast && r->traces[fast]->makespan > 0)
			say(p, ", %.2f times the fastest",
			    (double)r->traces[i]->makespan / (double)r->traces[fast]->makespan);
		say(p, "%s\n", i == fast ? ", the fastest." : ".");
	}
	say_claims(p);
}

static void
c_explore(struct plain *p, const char *arg)
{
	(void)arg;
	hd_tui_flow_explore(&p->a);
	p->a.msg[0] = '\0';
}

static void
c_retry(struct plain *p, const char *arg)
{
	(void)arg;
	if (p->a.l == NULL)
		say(p, "Open a lesson first.\n");
	else
		hd_tui_flow_retry(&p->a);
}

static void
c_profile(struct plain *p, const char *arg)
{
	(void)arg;
	hd_tui_flow_profile(&p->a);
}

static void c_help(struct plain *p, const char *arg);

/* The commands; `help` lists them in this order. */
static const struct plain_cmd {
	const char *name;
	void (*fn)(struct plain *p, const char *arg);
	bool needs_run; /* only once the lesson's runs are unlocked */
	const char *usage, *help;
} cmds[] = {
	{ "help", c_help, false, "help", "these commands, and what Enter does here" },
	{ "list", c_list, false, "list", "the lessons" },
	{ "open", c_open, false, "open N", "open lesson N (a number or an id)" },
	{ "back", c_back, false, "back", "the page before" },
	{ "pages", c_pages, false, "pages", "the open lesson's pages again" },
	{ "hint", c_hint, false, "hint", "a hint for the question (counted)" },
	{ "knobs", c_knobs, true, "knobs", "the lesson's knobs and their values" },
	{ "set", c_set, true, "set NAME = VALUE", "change a knob, e.g. set cpu = 5ms; re-runs" },
	{ "run", c_run, true, "run", "narrate the scenario's run again" },
	{ "scenario", c_scenario, true, "scenario N", "narrate scenario N (a number or name)" },
	{ "compare", c_compare, true, "compare", "every scenario's time side by side" },
	{ "explore", c_explore, false, "explore", "the lesson's runs and knobs, all unlocked" },
	{ "retry", c_retry, false, "retry", "the lesson's questions again" },
	{ "profile", c_profile, false, "profile", "the next hardware profile" },
	{ "quit", c_quit, false, "quit", "leave (also 'q', or the end of input)" },
	{ "q", c_quit, false, NULL, NULL },
	{ "exit", c_quit, false, NULL, NULL },
};

/* What Enter does on each screen, for `help`. */
static const char *const enter_help[] = {
	[HD_TUI_LIST] = "open the lesson where you left off",
	[HD_TUI_PAGE] = "the next page; past the last, the questions (or the run)",
	[HD_TUI_QUESTION] = "the question again",
	[HD_TUI_CONFIDENCE] = "skip the confidence; then the next question, or the runs",
	[HD_TUI_RUN] = "the next question's run, or the summary after the last",
	[HD_TUI_KNOBS] = "the next question's run, or the summary after the last",
	[HD_TUI_SUMMARY] = "the next lesson",
};

static void
c_help(struct plain *p, const char *arg)
{
	size_t i;

	(void)arg;
	say(p, "Commands:\n");
	for (i = 0; i < HD_ARRAY_LEN(cmds); i++)
		if (cmds[i].usage != NULL)
			say(p, "%s: %s%s.\n", cmds[i].usage, cmds[i].help,
			    cmds[i].needs_run ? " (once the runs are unlocked)" : "");
	say(p, "Here, Enter means: %s.\n", enter_help[p->a.screen]);
}

/* The command the line starts with, its argument in *arg; NULL when none. */
static const struct plain_cmd *
find_cmd(const char *line, const char **arg)
{
	size_t i, len = strcspn(line, " \t");

	for (i = 0; i < HD_ARRAY_LEN(cmds); i++)
		if (strlen(cmds[i].name) == len && strncmp(cmds[i].name, line, len) == 0) {
			for (*arg = line + len; **arg == ' ' || **arg == '\t'; (*arg)++)
				;
			return &cmds[i];
		}
	return NULL;
}

/* One line typed by the learner, trimmed. */
static void
dispatch(struct plain *p, const char *line)
{
	const struct plain_cmd *c;
	const char *arg = "";

	if (line[0] == '\0')
		enter(p);
	else if ((c = find_cmd(line, &arg)) == NULL)
		answer(p, line);
	else if (c->needs_run && !runs_ok(&p->a))
		say(p, "%s\n",
		    p->a.l == NULL ? "Open a lesson first." :
				     "The runs unlock once every question is answered.");
	else
		c->fn(p, arg);
}

int
hd_tui_plain_main(struct hd_catalog *cat, const struct hd_profile *prof,
		  const struct hd_tui_opts *o, int lesson, FILE *in, FILE *out)
{
	struct plain p;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	memset(&p, 0, sizeof p);
	p.in = in;
	p.out = out;
	p.ncat = hd_catalog_count(cat);
	hd_buf_init(&p.say);
	hd_tui_app_init(&p.a, cat, prof, o);
	say(&p, "hdsim, plain mode: one line at a time; 'help' lists the commands.\n");
	say_msg(&p);
	if (lesson >= 0 && lesson < p.ncat)
		open_lesson(&p, lesson);
	say_msg(&p);
	announce(&p);
	flush_said(&p, true);
	while (!p.a.quit && (n = getline(&line, &cap, in)) >= 0) {
		struct place before = place_of(&p.a), after;
		char *s = line, *e = line + n;

		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		while (isspace((unsigned char)*s))
			s++;
		dispatch(&p, s);
		after = place_of(&p.a);
		say_msg(&p);
		if (!p.a.quit && !same_place_ok(&before, &after))
			announce(&p);
		flush_said(&p, !p.a.quit);
	}
	if (!p.a.quit)
		fputc('\n', out);
	free(line);
	hd_buf_free(&p.say);
	hd_tui_app_free(&p.a);
	return HD_EXIT_OK;
}
