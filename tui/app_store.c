/*
 * app_store.c - the browser's database I/O (app_priv.h): the learner's
 * progress (a mark per lesson, the lesson to resume), storing an answer
 * (with whether the run had been seen, and the lesson as answered), and the
 * newest measured run of a scenario.  Without a database the
 * browser works and nothing is stored.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app_priv.h"

/* ---- progress ------------------------------------------------------------ */

struct seen {
	struct hd_tui_app *a;
	char **keys; /* "lesson\tquestion" already counted */
	int n;
};

static int
count_answer(void *ctx, const struct hd_store_progress *row)
{
	struct seen *s = ctx;
	char key[512];
	int i;

	snprintf(key, sizeof key, "%s\t%s", row->lesson, row->question);
	for (i = 0; i < s->n; i++)
		if (strcmp(s->keys[i], key) == 0)
			return 0; /* an older answer: the newest counts */
	s->keys = hd_xrealloc(s->keys, sizeof *s->keys * (size_t)(s->n + 1));
	s->keys[s->n++] = hd_xstrdup(key);
	for (i = 0; i < hd_catalog_count(s->a->cat); i++) {
		if (strcmp(hd_lesson_id(hd_catalog_get(s->a->cat, i)), row->lesson) != 0)
			continue;
		if (s->a->resume < 0)
			s->a->resume = i; /* rows come newest first */
		s->a->marks[i].answered++;
		if (row->correct == 1)
			s->a->marks[i].right++;
		else if (row->correct == 0)
			s->a->marks[i].wrong++;
		break;
	}
	return 0;
}

void
hd_tui_store_marks(struct hd_tui_app *a)
{
	struct seen s = { a, NULL, 0 };
	struct hd_err e = { 0 };
	int i;

	memset(a->marks, 0, sizeof *a->marks * (size_t)(hd_catalog_count(a->cat) + 1));
	a->resume = -1;
	if (a->store != NULL &&
	    hd_store_progress_each(a->store, a->o->learner, NULL, count_answer, &s, &e) != 0)
		snprintf(a->msg, sizeof a->msg, "progress: %s", e.msg);
	for (i = 0; i < s.n; i++)
		free(s.keys[i]);
	free(s.keys);
}

void
hd_tui_store_open(struct hd_tui_app *a)
{
	struct hd_err e = { 0 };

	a->store = hd_store_open(a->o->db, HD_STORE_RW, &e);
	if (a->store == NULL)
		snprintf(a->msg, sizeof a->msg, "answers are not stored: %s", e.msg);
	/* the roster id goes with the answers, for the class gradebook */
	else if (a->o->learner_id != NULL &&
		 hd_store_learner_set_roster_id(a->store, a->o->learner, a->o->learner_id, &e) != 0)
		snprintf(a->msg, sizeof a->msg, "learner id not stored: %s", e.msg);
	hd_tui_store_marks(a);
}

/* What the learner's stored attempts at the open lesson say about its run. */
struct history {
	const struct hd_lesson *l;
	bool *answered; /* per question of the lesson as it is */
	bool seen;      /* an attempt was stored having seen the run */
};

static int
note_attempt(void *ctx, const struct hd_store_progress *row)
{
	struct history *h = ctx;
	int i;

	if (row->seen == 1)
		h->seen = true;
	for (i = 0; i < hd_lesson_nquestions(h->l); i++)
		if (strcmp(hd_lesson_question(h->l, i)->id, row->question) == 0)
			h->answered[i] = true;
	return 0;
}

/*
 * Had the run answering the open lesson's questions been shown when this
 * answer is given?  Yes once the browser showed a run of the lesson (after
 * the last question, or exploring), and, from the learner's stored attempts,
 * when one was given having seen it or when every question had been answered
 * before (the runs unlock then, so a learner who comes back has seen them).
 */
static bool
run_was_seen(struct hd_tui_app *a)
{
	struct history h = { a->l, NULL, false };
	struct hd_err e = { 0 };
	int i, n = hd_lesson_nquestions(a->l);
	bool all = n > 0;

	if (a->run_seen)
		return true;
	h.answered = hd_xcalloc((size_t)n + 1, sizeof *h.answered);
	if (hd_store_progress_each(a->store, a->o->learner, hd_lesson_id(a->l), note_attempt, &h,
				   &e) != 0)
		all = false; /* the attempt is stored as not seen: the learner's favour */
	for (i = 0; i < n; i++)
		all = all && h.answered[i];
	free(h.answered);
	return h.seen || all;
}

void
hd_tui_store_answer(struct hd_tui_app *a, int confidence)
{
	const struct hd_question *q = hd_tui_flow_cur(a);
	struct hd_store_snapshot *snap;
	struct hd_store_progress p;
	struct hd_err e = { 0 };

	if (a->store == NULL || q == NULL)
		return;
	memset(&p, 0, sizeof p);
	p.learner = a->o->learner;
	p.lesson = hd_lesson_id(a->l);
	p.question = q->id;
	p.answer = a->answer;
	p.correct = a->correct;
	p.confidence = confidence;
	p.seconds = hd_tui_now() - a->t0;
	if (p.seconds < 0)
		p.seconds = 0;
	p.hints = a->hints;
	p.profile = a->prof.name;
	p.seen = run_was_seen(a);
	p.snapshot = snap = hd_store_snapshot_of(a->l);
	if (hd_store_progress_add(a->store, &p, NULL, &e) != 0)
		snprintf(a->msg, sizeof a->msg, "answer not stored: %s", e.msg);
	hd_store_snapshot_free(snap);
	hd_tui_store_marks(a);
}

/* ---- measured runs ------------------------------------------------------- */

struct measured {
	const char *scenario;
	struct hd_store_run_row row;
	int found;
};

static int
newest_measured(void *ctx, const struct hd_store_run_row *row)
{
	struct measured *m = ctx;

	if (strcmp(row->source, "measured") != 0 || strcmp(row->status, "ok") != 0 ||
	    strcmp(row->scenario, m->scenario) != 0)
		return 0;
	m->row = *row;
	m->found = 1;
	return 1; /* rows come newest first */
}

bool
hd_tui_store_measured(struct hd_tui_app *a, struct hd_store_run_row *row)
{
	struct measured m;
	struct hd_store_repeats reps;
	struct hd_err e = { 0 };

	memset(&m, 0, sizeof m);
	m.scenario = hd_lesson_scenario_name(a->l, a->sc);
	if (a->store == NULL) {
		snprintf(a->msg, sizeof a->msg, "no database: no measured runs");
		return false;
	}
	if (hd_store_runs(a->store, hd_lesson_id(a->l), newest_measured, &m, &e) != 0) {
		snprintf(a->msg, sizeof a->msg, "measured runs: %s", e.msg);
		return false;
	}
	if (!m.found || m.row.makespan <= 0) {
		snprintf(a->msg, sizeof a->msg,
			 "no measured runs of %s yet: 'hdsim --real %s' on "
			 "a GPU machine stores them",
			 m.scenario, hd_lesson_id(a->l));
		return false;
	}
	hd_trace_free(a->measured);
	memset(&a->measured_band, 0, sizeof a->measured_band);
	a->measured = hd_store_run_trace(a->store, m.row.id, &e);
	if (a->measured != NULL && hd_store_run_repeats(a->store, m.row.id, &reps, &e) != 0) {
		hd_trace_free(a->measured);
		a->measured = NULL;
	}
	if (a->measured == NULL) {
		snprintf(a->msg, sizeof a->msg, "measured run %lld: %s", (long long)m.row.id,
			 e.msg);
		return false;
	}
	/* the band of its repeats, when it has two or more */
	if (reps.n >= 2)
		hd_band_of(reps.makespan, reps.n, &a->measured_band);
	hd_store_repeats_free(&reps);
	a->measured_sc = a->sc;
	*row = m.row;
	return true;
}
