/*
 * flow.c - the flow of a lesson in the browser (app_priv.h): open it (one
 * run through run/run.h's hd_run_lesson), its pages, then every question
 * before any run (each names the scenario that answers it, which stays
 * locked until then); grading; the confidence, which records the answer;
 * then each question's scenario played with its explanation, and the
 * summary with the next lesson.  A lesson answered before opens in explore
 * mode: runs and knobs unlocked, the questions again on request.  Re-runs
 * for a knob or a profile go through hd_run_lesson as well.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/backends.h"
#include "run/verify.h"
#include "tui/app_priv.h"

const struct hd_question *
hd_tui_flow_cur(const struct hd_tui_app *a)
{
	if (a->l == NULL || a->q < 0 || a->q >= hd_lesson_nquestions(a->l))
		return NULL;
	return hd_lesson_question(a->l, a->q);
}

/* ---- a lesson ------------------------------------------------------------ */

void
hd_tui_flow_close(struct hd_tui_app *a)
{
	if (a->have_run)
		hd_run_free(&a->run);
	if (a->have_prev)
		hd_run_free(&a->prev);
	a->have_run = a->have_prev = false;
	hd_trace_free(a->measured);
	a->measured = NULL;
	a->knob = 0;
	hd_events_free(a->ev);
	a->ev = NULL;
	free(a->said);
	a->said = NULL;
	a->explore = false;
	a->run_seen = false;
	a->l = NULL;
}

/* Has every question of the open lesson been answered since it opened? */
static bool
all_said_ok(const struct hd_tui_app *a)
{
	int i, nq = hd_lesson_nquestions(a->l);

	for (i = 0; i < nq; i++)
		if (!a->said[i].done)
			return false;
	return true;
}

/* The first question after q (wrapping) not yet answered, or -1. */
static int
next_unsaid(const struct hd_tui_app *a, int q)
{
	int i, nq = hd_lesson_nquestions(a->l);

	for (i = 1; i <= nq; i++)
		if (!a->said[(q + i + nq) % nq].done)
			return (q + i + nq) % nq;
	return -1;
}

void
hd_tui_flow_open(struct hd_tui_app *a, int li)
{
	struct hd_err e = { 0 };

	hd_tui_flow_close(a);
	a->li = li;
	a->l = hd_catalog_get(a->cat, li);
	memset(&a->run, 0, sizeof a->run);
	if (hd_run_lesson(&a->run, a->l, li + 1, &a->prof, &hd_sim_backend, NULL, 0, &e) != 0) {
		snprintf(a->msg, sizeof a->msg, "cannot run lesson %s: %s", hd_lesson_id(a->l),
			 e.msg);
		a->l = NULL;
		return;
	}
	a->have_run = true;
	a->said = hd_xcalloc((size_t)hd_lesson_nquestions(a->l) + 1, sizeof *a->said);
	a->page = 0;
	a->q = -1;
	a->msg[0] = '\0';
	if (hd_lesson_nquestions(a->l) > 0 && a->marks[li].answered >= hd_lesson_nquestions(a->l))
		hd_tui_flow_explore(a);
	else if (hd_lesson_npages(a->l) > 0)
		a->screen = HD_TUI_PAGE;
	else
		hd_tui_flow_question(a, 0);
}

/* The run, unlocked: the current question's scenario first (the first
 * scenario when there is no question). */
static void
start_run(struct hd_tui_app *a)
{
	const struct hd_question *q = hd_tui_flow_cur(a);
	int sc = 0;

	if (!a->have_run || a->run.nscen == 0) {
		a->screen = HD_TUI_LIST;
		snprintf(a->msg, sizeof a->msg, "this lesson has nothing to run");
		return;
	}
	if (q != NULL && q->scenario != NULL &&
	    (sc = hd_lesson_find_scenario(a->l, q->scenario)) < 0)
		sc = 0;
	a->qsc = q != NULL ? sc : -1;
	a->explained = false;
	a->screen = HD_TUI_RUN;
	a->run_seen = true; /* answers from now on are given having seen it */
	hd_tui_run_show(a, sc);
}

void
hd_tui_flow_question(struct hd_tui_app *a, int q)
{
	a->q = q;
	a->input[0] = '\0';
	a->hints = 0;
	a->correct = -1;
	a->verdict[0] = '\0';
	a->t0 = hd_tui_now();
	a->explore = false;
	if (q < hd_lesson_nquestions(a->l))
		a->screen = HD_TUI_QUESTION;
	else
		hd_tui_flow_explore(a); /* no questions: straight to the run */
}

/* Question q's run, with what the learner said to it for the explanation. */
static void
review(struct hd_tui_app *a, int q)
{
	const struct hd_tui_said *s = &a->said[q];

	a->q = q;
	a->correct = s->correct;
	snprintf(a->shown, sizeof a->shown, "%s", s->shown);
	snprintf(a->verdict, sizeof a->verdict, "%s", s->verdict);
	start_run(a);
}

void
hd_tui_flow_continue(struct hd_tui_app *a)
{
	if (a->explore) {
		snprintf(a->msg, sizeof a->msg,
			 "exploring: Tab scenario, k knobs, A the questions "
			 "again, p pages, q the list");
		return;
	}
	if (a->qsc >= 0 && !a->explained) {
		snprintf(a->msg, sizeof a->msg,
			 "play the run to its end (End) for the explanation");
		return;
	}
	if (a->q + 1 < hd_lesson_nquestions(a->l))
		review(a, a->q + 1);
	else {
		a->playing = false;
		a->screen = HD_TUI_SUMMARY;
	}
}

void
hd_tui_flow_explore(struct hd_tui_app *a)
{
	a->explore = true;
	a->q = -1;
	if (!a->have_run || a->run.nscen == 0) {
		a->screen = HD_TUI_LIST;
		snprintf(a->msg, sizeof a->msg, "this lesson has nothing to run");
		return;
	}
	a->qsc = -1;
	a->explained = false;
	a->screen = HD_TUI_RUN;
	a->run_seen = true;
	hd_tui_run_show(a, 0);
	snprintf(a->msg, sizeof a->msg,
		 "exploring lesson %d: every scenario and knob unlocked; "
		 "A tries the questions again, p the pages",
		 a->li + 1);
}

void
hd_tui_flow_retry(struct hd_tui_app *a)
{
	int nq = hd_lesson_nquestions(a->l);

	if (nq == 0) {
		snprintf(a->msg, sizeof a->msg, "this lesson has no questions");
		return;
	}
	memset(a->said, 0, (size_t)nq * sizeof *a->said);
	a->playing = false;
	hd_tui_flow_question(a, 0);
}

void
hd_tui_flow_pages(struct hd_tui_app *a)
{
	if (hd_lesson_npages(a->l) == 0) {
		snprintf(a->msg, sizeof a->msg, "this lesson has no pages");
		return;
	}
	a->playing = false;
	a->screen = HD_TUI_PAGE;
}

void
hd_tui_flow_pages_done(struct hd_tui_app *a)
{
	int nq = hd_lesson_nquestions(a->l);

	if (a->explore || (nq > 0 && all_said_ok(a) && a->q >= 0)) {
		a->screen = HD_TUI_RUN;
		a->playing = false;
	} else if (nq > 0 && all_said_ok(a))
		review(a, 0);
	else
		hd_tui_flow_question(a, nq > 0 ? next_unsaid(a, -1) : 0);
}

void
hd_tui_flow_next_lesson(struct hd_tui_app *a)
{
	if (a->li + 1 < hd_catalog_count(a->cat))
		hd_tui_flow_open(a, a->li + 1);
	else {
		hd_tui_flow_close(a);
		a->screen = HD_TUI_LIST;
		snprintf(a->msg, sizeof a->msg, "that was the last lesson");
	}
}

const char *
hd_tui_flow_next_step(const struct hd_tui_app *a)
{
	const struct hd_question *q = hd_tui_flow_cur(a);

	switch (a->screen) {
	case HD_TUI_LIST:
		return "Enter: open the lesson";
	case HD_TUI_PAGE:
		if (a->page + 1 < hd_lesson_npages(a->l))
			return "Space: the next page";
		return a->explore || all_said_ok(a) ? "Space: back to the run" :
						      "Space: the questions";
	case HD_TUI_QUESTION:
		return q != NULL && q->kind == HD_Q_CHOICE ? "a letter: your answer" :
							     "Enter: your answer";
	case HD_TUI_CONFIDENCE:
		return next_unsaid(a, a->q) >= 0 && next_unsaid(a, a->q) != a->q ?
		    "1-5 or Enter: then the next question" :
		    "1-5 or Enter: then the runs";
	case HD_TUI_RUN:
	case HD_TUI_KNOBS:
		if (a->explore)
			return "exploring: A the questions again";
		if (!a->explained)
			return "End: the explanation";
		return a->q + 1 < hd_lesson_nquestions(a->l) ? "n: the next question's run" :
							       "n: the summary";
	case HD_TUI_SUMMARY:
		return "Enter: the next lesson";
	}
	return "";
}

/* ---- grading ------------------------------------------------------------- */

static void
to_confidence(struct hd_tui_app *a)
{
	a->msg[0] = '\0';
	a->screen = HD_TUI_CONFIDENCE;
}

void
hd_tui_flow_choose(struct hd_tui_app *a, int i)
{
	const struct hd_question *q = hd_tui_flow_cur(a);

	a->correct = i == q->answer;
	snprintf(a->answer, sizeof a->answer, "%s", q->option_ids[i]);
	snprintf(a->shown, sizeof a->shown, "%c) %s", 'a' + i, q->options[i]);
	if (a->correct)
		snprintf(a->verdict, sizeof a->verdict, "Right. You chose %s", a->shown);
	else
		snprintf(a->verdict, sizeof a->verdict,
			 "Not quite. You chose %s; the answer "
			 "is %c) %s",
			 a->shown, 'a' + q->answer, q->options[q->answer]);
	/* the lesson's word on this choice follows the verdict wherever it shows */
	if (hd_tui_flow_feedback(a) != NULL)
		snprintf(a->verdict + strlen(a->verdict), sizeof a->verdict - strlen(a->verdict),
			 ". %s", hd_tui_flow_feedback(a));
	to_confidence(a);
}

const char *
hd_tui_flow_feedback(const struct hd_tui_app *a)
{
	const struct hd_question *q = hd_tui_flow_cur(a);
	int i;

	if (q == NULL || q->kind != HD_Q_CHOICE || q->option_feedback == NULL)
		return NULL;
	for (i = 0; i < q->noptions; i++)
		if (strcmp(q->option_ids[i], a->answer) == 0)
			return q->option_feedback[i];
	return NULL;
}

/* What a bare number in an estimate means: ms, MiB or GB/s in base units. */
static double
bare_unit(enum hd_dim d)
{
	static const struct {
		enum hd_dim dim;
		double factor;
	} units[] = {
		{ HD_DIM_TIME, 1e9 },        /* ms in ps */
		{ HD_DIM_BYTES, 1048576.0 }, /* MiB */
		{ HD_DIM_RATE, 1e9 },        /* GB/s */
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(units); i++)
		if (units[i].dim == d)
			return units[i].factor;
	return 1;
}

/* The items of an order question in the order idx gives, in words:
 * "the launch call, then the host's work, then the kernel". */
static void
order_words(char *buf, size_t n, const struct hd_question *q, const int *idx)
{
	int i;

	buf[0] = '\0';
	for (i = 0; i < q->noptions; i++)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s%c) %s", i ? ", then " : "",
			 'a' + idx[i], q->options[idx[i]]);
}

/* An order question: each letter once; false (with a message) otherwise. */
static bool
grade_order(struct hd_tui_app *a, const struct hd_question *q)
{
	bool used[26] = { false };
	int i, n = (int)strlen(a->input), idx[26];

	if (n != q->noptions) {
		snprintf(a->msg, sizeof a->msg, "type each of the %d letters once", q->noptions);
		return false;
	}
	a->answer[0] = '\0';
	a->correct = 1;
	for (i = 0; i < n; i++) {
		int k = a->input[i] - 'a';
		if (k < 0 || k >= q->noptions || used[k]) {
			snprintf(a->msg, sizeof a->msg, "type each of the %d letters once",
				 q->noptions);
			return false;
		}
		used[k] = true;
		idx[i] = k;
		if (q->order == NULL || q->order[i] != k)
			a->correct = 0;
		snprintf(a->answer + strlen(a->answer), sizeof a->answer - strlen(a->answer),
			 "%s%s", i ? " " : "", q->option_ids[k]);
	}
	order_words(a->shown, sizeof a->shown, q, idx);
	if (a->correct)
		snprintf(a->verdict, sizeof a->verdict, "Right: %s.", a->shown);
	else if (q->order != NULL) {
		char ot[448];
		order_words(ot, sizeof ot, q, q->order);
		snprintf(a->verdict, sizeof a->verdict,
			 "Not quite: you said %s. The order is "
			 "%s.",
			 a->shown, ot);
	} else
		snprintf(a->verdict, sizeof a->verdict, "Not quite: you said %s.", a->shown);
	return true;
}

/* An estimate: a number with a unit of the right kind, within the
 * question's tolerance of what the model gives; false (with a message)
 * when it is not one. */
static bool
grade_estimate(struct hd_tui_app *a, const struct hd_question *q)
{
	struct hd_err e = { 0 };
	enum hd_dim dim;
	double v, truth;
	char got[64], want[64];

	if (!hd_quantity_parse(a->input, &dim, &v)) {
		snprintf(a->msg, sizeof a->msg, "'%s' is not a number with a known unit", a->input);
		return false;
	}
	if (dim == HD_DIM_NONE && q->estimate_dim != HD_DIM_NONE) {
		v *= bare_unit(q->estimate_dim);
		dim = q->estimate_dim;
	}
	if (dim != q->estimate_dim) {
		snprintf(a->msg, sizeof a->msg, "the answer is %s", hd_dim_name(q->estimate_dim));
		return false;
	}
	if (!a->have_run || hd_run_eval_expr(&a->run, q->estimate_expr, &truth, &e) != 0) {
		snprintf(a->msg, sizeof a->msg, "cannot grade: %s", e.msg);
		a->correct = -1;
		snprintf(a->answer, sizeof a->answer, "%s", a->input);
		snprintf(a->shown, sizeof a->shown, "%s", a->input);
		snprintf(a->verdict, sizeof a->verdict, "Not graded.");
		return true;
	}
	a->correct = fabs(v - truth) <= q->tolerance * fabs(truth);
	snprintf(a->answer, sizeof a->answer, "%s", a->input);
	snprintf(a->shown, sizeof a->shown, "%s", a->input);
	hd_fmt_quantity(got, sizeof got, dim, v);
	hd_fmt_quantity(want, sizeof want, dim, truth);
	snprintf(a->verdict, sizeof a->verdict,
		 "%s You said %s; the model gives %s (within "
		 "%g %% counts).",
		 a->correct ? "Right." : "Off.", got, want, q->tolerance * 100);
	return true;
}

void
hd_tui_flow_grade(struct hd_tui_app *a)
{
	const struct hd_question *q = hd_tui_flow_cur(a);

	if (q->kind == HD_Q_ORDER ? grade_order(a, q) : grade_estimate(a, q))
		to_confidence(a);
}

void
hd_tui_flow_answered(struct hd_tui_app *a, int confidence)
{
	struct hd_tui_said *s = &a->said[a->q];
	int next;

	hd_tui_store_answer(a, confidence);
	s->done = true;
	s->correct = a->correct;
	snprintf(s->shown, sizeof s->shown, "%s", a->shown);
	snprintf(s->verdict, sizeof s->verdict, "%s", a->verdict);
	if ((next = next_unsaid(a, a->q)) >= 0)
		hd_tui_flow_question(a, next);
	else
		review(a, 0);
}

/* ---- re-runs ------------------------------------------------------------- */

/* The unit a knob value is written in for hd_lesson_knob_set: base units. */
static const char *
base_suffix(enum hd_dim d)
{
	static const struct {
		enum hd_dim dim;
		const char *suffix;
	} suffixes[] = {
		{ HD_DIM_BYTES, "B" },
		{ HD_DIM_TIME, "ps" },
		{ HD_DIM_FLOP, "FLOP" },
		{ HD_DIM_RATE, "B/s" },
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(suffixes); i++)
		if (suffixes[i].dim == d)
			return suffixes[i].suffix;
	return "";
}

void
hd_tui_flow_rerun(struct hd_tui_app *a, int kn, double v)
{
	int nk = hd_lesson_nknobs(a->l), i;
	char **sets = hd_xcalloc((size_t)nk + 1, sizeof *sets);
	struct hd_run next;
	struct hd_err e = { 0 };

	for (i = 0; i < nk; i++) {
		const struct hd_knob *ki = hd_lesson_knob(a->l, i);
		double vi = i == kn ? v : a->run.knobs[i];
		if (ki->dim == HD_DIM_BYTES || ki->dim == HD_DIM_NONE)
			vi = floor(vi);
		sets[i] = hd_xmalloc(160);
		snprintf(sets[i], 160, "%s=%.17g%s", ki->name, vi, base_suffix(ki->dim));
	}
	memset(&next, 0, sizeof next);
	if (hd_run_lesson(&next, a->l, a->li + 1, &a->prof, &hd_sim_backend, sets, nk, &e) != 0)
		snprintf(a->msg, sizeof a->msg, "cannot re-run: %s", e.msg);
	else {
		if (a->have_prev)
			hd_run_free(&a->prev);
		a->prev = a->run;
		a->have_prev = true;
		a->run = next;
		hd_trace_free(a->measured); /* the knob change shows as the ghost */
		a->measured = NULL;
		hd_tui_run_show(a, a->sc < a->run.nscen ? a->sc : 0);
		a->playing = false;
		a->t = a->run.traces[a->sc]->makespan;
	}
	for (i = 0; i < nk; i++)
		free(sets[i]);
	free(sets);
}

void
hd_tui_flow_profile(struct hd_tui_app *a)
{
	struct hd_verify_calibrated *cal = NULL;
	int nb = hd_profile_builtin_count(), nc = hd_verify_calibrated_profiles(&cal);
	int n = nb + nc, i, cur = -1;

	if (n == 0)
		return;
	for (i = 0; i < n; i++)
		if (strcmp(i < nb ? hd_profile_builtin(i)->name : cal[i - nb].profile.name,
			   a->prof.name) == 0)
			cur = i;
	i = (cur + 1) % n;
	a->prof = i < nb ? *hd_profile_builtin(i) : cal[i - nb].profile;
	free(cal);
	snprintf(a->msg, sizeof a->msg, "profile %s: %s", a->prof.name, a->prof.description);
	if (a->screen == HD_TUI_RUN || a->screen == HD_TUI_KNOBS)
		hd_tui_flow_rerun(a, -1, 0);
}
