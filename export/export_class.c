/*
 * export_class.c - the class files `hdsim export --class DB...` writes from
 * a class read and graded by class_grade.c (export.h):
 *
 *   answers.csv    a row per attempt: the answer, right or wrong, confidence,
 *                  time, hints, whether the run had been shown, which attempt
 *                  is graded and by which policy, the question's points and
 *                  the lesson version, and an empty comments column;
 *   gradebook.csv  Canvas's gradebook import layout, written by
 *                  gradebook.c (joined to Canvas's roster with --roster)
 *                  from the scores class_grade.c computes;
 *   class.html     what the class thinks: per lesson and question, the
 *                  question's text, how many chose each option and the
 *                  misconception it stands for, confidence against
 *                  correctness, hints, first against later attempts; per
 *                  learner the lessons done.
 *
 * All text from the databases is untrusted: CSV cells show control
 * characters as escapes and go through the CSV writer (which makes formulas
 * inert), HTML through the escaper.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/export_page.h"

#define EOL "\r\n"

/* The most distinct answers of an order or estimate question listed. */
#define CLASS_ANSWERS_SHOWN 7

static const char *
result(int correct)
{
	return correct > 0 ? "right" : correct == 0 ? "wrong" : "ungraded";
}

static const char *
seen_word(int seen)
{
	return seen > 0 ? "yes" : seen == 0 ? "no" : "";
}

/* What question q is worth in attempt a's version, else what its row says. */
static int
attempt_points(const struct hd_export_class *c, const struct hd_export_class_row *r,
	       const struct hd_export_answer *a)
{
	const struct hd_store_snapshot *s = hd_export_class_snapshot(c, a->lesson_hash);
	int i;

	if (s != NULL && strcmp(s->lesson, a->lesson) == 0 &&
	    (i = hd_store_snapshot_find(s, a->question)) >= 0)
		return s->questions[i].points;
	return r->points;
}

void
hd_export_class_answers(const struct hd_export_class *c, struct hd_exw *w)
{
	size_t i;
	int t;

	hd_exw_puts(w,
		    "learner,lesson,question,attempt,attempts,answer,result,correct,confidence,"
		    "seconds,hints,seen,graded,grade_policy,points,lesson_version,answered_at,"
		    "database,comments" EOL);
	for (i = 0; i < c->nrows; i++) {
		const struct hd_export_class_row *r = &c->rows[i];

		for (t = 0; t < r->attempts; t++) {
			const struct hd_export_answer *a = &c->attempts[r->first + (size_t)t];

			hd_exw_csv_text(w, a->learner);
			hd_exw_putc(w, ',');
			hd_exw_csv_text(w, a->lesson);
			hd_exw_putc(w, ',');
			hd_exw_csv_text(w, a->question);
			hd_exw_printf(w, ",%d,%d,", t + 1, r->attempts);
			hd_exw_csv_text(w, a->answer);
			hd_exw_printf(w, ",%s,", result(a->correct));
			if (a->correct >= 0)
				hd_exw_i64(w, a->correct);
			hd_exw_putc(w, ',');
			if (a->confidence > 0)
				hd_exw_i64(w, a->confidence);
			hd_exw_putc(w, ',');
			hd_exw_num(w, a->seconds);
			hd_exw_printf(w, ",%d,%s,%s,%s,%d,", a->hints, seen_word(a->seen),
				      t == r->graded ? "yes" : "", hd_export_grade_name(c->grade),
				      attempt_points(c, r, a));
			hd_exw_csv_text(w, a->lesson_hash);
			hd_exw_putc(w, ',');
			hd_exw_csv_text(w, a->created);
			hd_exw_putc(w, ',');
			hd_exw_csv_text(w, a->db);
			hd_exw_puts(w, "," EOL);
		}
	}
}

/* ---- class.html: helpers ------------------------------------------------------- */

static void
td(struct hd_exw *w, const char *s, bool num)
{
	hd_exw_puts(w, num ? "<td class=\"num\">" : "<td>");
	hd_exw_xml(w, s);
	hd_exw_puts(w, "</td>");
}

static void
td_int(struct hd_exw *w, int64_t v)
{
	hd_exw_printf(w, "<td class=\"num\">%" PRId64 "</td>", v);
}

/* A question of a lesson: the rows answering it (indices into c->rows). */
struct qgroup {
	const char *lesson, *question;
	const size_t *rows;
	size_t n;
	int order; /* its place in the lesson's version, or a large number */
};

/* A row's question, and where the row is. */
struct qkey {
	const char *lesson, *question;
	size_t row;
};

/* By lesson, question, then the rows' own order (by learner). */
static int
by_question(const void *pa, const void *pb)
{
	const struct qkey *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->lesson, b->lesson)) != 0 || (c = strcmp(a->question, b->question)) != 0)
		return c;
	return a->row < b->row ? -1 : 1;
}

static int
by_order(const void *pa, const void *pb)
{
	const struct qgroup *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->lesson, b->lesson)) != 0)
		return c;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return strcmp(a->question, b->question);
}

/* The questions, each lesson's in the order of its version (questions it
 * lacks after, by id); *ix holds the row indices they point into.  A sort
 * by question, then one by lesson and place: n log n. */
static size_t
question_groups(const struct hd_export_class *c, struct qgroup **out, size_t **ix)
{
	struct qgroup *g = hd_xcalloc(c->nrows + 1, sizeof *g);
	struct qkey *k = hd_xcalloc(c->nrows + 1, sizeof *k);
	size_t *v = hd_xcalloc(c->nrows + 1, sizeof *v), n = 0, i, j;

	for (i = 0; i < c->nrows; i++) {
		k[i].lesson = c->rows[i].a.lesson;
		k[i].question = c->rows[i].a.question;
		k[i].row = i;
	}
	if (c->nrows > 1)
		qsort(k, c->nrows, sizeof *k, by_question);
	for (i = 0; i < c->nrows; i++)
		v[i] = k[i].row;
	free(k);
	for (i = 0; i < c->nrows; i = j) {
		const struct hd_export_answer *a = &c->rows[v[i]].a;
		const struct hd_export_class_lesson *le = hd_export_class_lesson(c, a->lesson);
		int at = le != NULL && le->snap != NULL ?
		    hd_store_snapshot_find(le->snap, a->question) :
		    -1;

		for (j = i + 1; j < c->nrows && strcmp(c->rows[v[j]].a.lesson, a->lesson) == 0 &&
		     strcmp(c->rows[v[j]].a.question, a->question) == 0;
		     j++)
			;
		g[n].lesson = a->lesson;
		g[n].question = a->question;
		g[n].rows = &v[i];
		g[n].n = j - i;
		g[n++].order = at >= 0 ? at : HD_STORE_SNAP_QUESTIONS + 1;
	}
	if (n > 1)
		qsort(g, n, sizeof *g, by_order);
	*out = g;
	*ix = v;
	return n;
}

/* A distinct answer and how many gave it. */
struct given {
	const char *answer;
	int n;
};

static int
given_by_text(const void *pa, const void *pb)
{
	return strcmp(((const struct given *)pa)->answer, ((const struct given *)pb)->answer);
}

static int
given_by_count(const void *pa, const void *pb)
{
	const struct given *a = pa, *b = pb;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->answer, b->answer);
}

/* The graded answers to question g, distinct, most given first. */
static size_t
answers_given(const struct hd_export_class *c, const struct qgroup *g, struct given **out)
{
	struct given *v = hd_xcalloc(g->n + 1, sizeof *v);
	size_t i, n = 0;

	for (i = 0; i < g->n; i++)
		v[i].answer = c->rows[g->rows[i]].a.answer;
	if (g->n > 1)
		qsort(v, g->n, sizeof *v, given_by_text);
	for (i = 0; i < g->n; i++) {
		if (n > 0 && strcmp(v[n - 1].answer, v[i].answer) == 0) {
			v[n - 1].n++;
			continue;
		}
		v[n].answer = v[i].answer;
		v[n++].n = 1;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, given_by_count);
	*out = v;
	return n;
}

/* The choice's options with how many chose each (graded attempts), the
 * misconception each stands for; answers naming no option of this version
 * counted apart. */
static void
options_table(const struct hd_export_class *c, const struct qgroup *g,
	      const struct hd_store_snap_question *q, struct hd_exw *w)
{
	struct given *v;
	size_t n = answers_given(c, g, &v), i;
	int k, other = 0;

	hd_exw_puts(w,
		    "<table class=\"options\">\n<tr><th></th><th>option</th><th>chose it</th>"
		    "<th>the misconception it stands for</th></tr>\n");
	for (k = 0; k < q->noptions; k++) {
		const struct hd_store_snap_option *o = &q->options[k];
		bool right = strcmp(o->id, q->answer) == 0;
		int chose = 0;

		for (i = 0; i < n; i++)
			if (strcmp(v[i].answer, o->id) == 0)
				chose = v[i].n;
		hd_exw_printf(w, "<tr class=\"%s\"><td>%c)</td>", right ? "answer" : "wrong",
			      'a' + k);
		hd_exw_puts(w, "<td>");
		hd_exw_xml(w, o->text);
		if (right)
			hd_exw_puts(w, " <strong>(the answer)</strong>");
		hd_exw_puts(w, "</td>");
		td_int(w, chose);
		td(w, o->misconception != NULL ? o->misconception : "", false);
		hd_exw_puts(w, "</tr>\n");
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < q->noptions; k++)
			if (strcmp(v[i].answer, q->options[k].id) == 0)
				break;
		if (k == q->noptions)
			other += v[i].n;
	}
	if (other > 0) {
		hd_exw_puts(w,
			    "<tr class=\"other\"><td></td><td>an option of another version of "
			    "the lesson</td>");
		td_int(w, other);
		hd_exw_puts(w, "<td></td></tr>\n");
	}
	hd_exw_puts(w, "</table>\n");
	free(v);
}

/* An order's or estimate's answers: the most given, with their counts. */
static void
answers_table(const struct hd_export_class *c, const struct qgroup *g,
	      const struct hd_store_snap_question *q, struct hd_exw *w)
{
	struct given *v;
	size_t n = answers_given(c, g, &v), i;
	int rest = 0;

	if (q != NULL) {
		hd_exw_puts(w, "<p>The answer: ");
		hd_exw_xml(w, q->answer);
		hd_exw_puts(w, "</p>\n");
	}
	hd_exw_puts(w,
		    "<table class=\"answers\">\n<tr><th>answer given</th><th>gave it</th></tr>\n");
	for (i = 0; i < n; i++) {
		if (i >= CLASS_ANSWERS_SHOWN) {
			rest += v[i].n;
			continue;
		}
		hd_exw_puts(w, "<tr>");
		td(w, v[i].answer, false);
		td_int(w, v[i].n);
		hd_exw_puts(w, "</tr>\n");
	}
	if (rest > 0)
		hd_exw_printf(w, "<tr><td>%zu other answers</td><td class=\"num\">%d</td></tr>\n",
			      n - CLASS_ANSWERS_SHOWN, rest);
	hd_exw_puts(w, "</table>\n");
	free(v);
}

/* What the first answers say: confidence against correctness, hints; and
 * how answering again changed them. */
static void
question_figures(const struct hd_export_class *c, const struct qgroup *g, struct hd_exw *w)
{
	int conf[6][2] = { { 0 } }; /* [confidence 0 (none) .. 5][wrong, right] */
	int graded_right = 0, graded = 0, sure_wrong = 0, hinted = 0, hinted_right = 0;
	int plain = 0, plain_right = 0, again = 0, to_right = 0, to_wrong = 0, hints = 0, k;
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct hd_export_class_row *r = &c->rows[g->rows[i]];
		const struct hd_export_answer *f = &c->attempts[r->first + (size_t)r->initial];
		const struct hd_export_answer *l = &c->attempts[r->first + (size_t)r->attempts - 1];

		graded += r->a.correct >= 0;
		graded_right += r->a.correct > 0;
		if (f->correct >= 0 && f->confidence >= 0 && f->confidence <= 5)
			conf[f->confidence][f->correct > 0]++;
		sure_wrong += f->correct == 0 && f->confidence >= 4;
		hints += f->hints;
		if (f->hints > 0) {
			hinted++;
			hinted_right += f->correct > 0;
		} else {
			plain++;
			plain_right += f->correct > 0;
		}
		if (r->attempts > 1) {
			again++;
			to_right += f->correct == 0 && l->correct > 0;
			to_wrong += f->correct > 0 && l->correct == 0;
		}
	}
	hd_exw_printf(w,
		      "<p class=\"graded\">Graded (%s): <strong>%d of %d right</strong>.</p>\n"
		      "<table class=\"confidence\">\n<tr><th>first answer: confidence</th>"
		      "<th>right</th><th>wrong</th></tr>\n",
		      hd_export_grade_name(c->grade), graded_right, graded);
	for (k = 5; k >= 0; k--) {
		if (conf[k][0] + conf[k][1] == 0)
			continue;
		if (k > 0)
			hd_exw_printf(w, "<tr><td>%d of 5%s</td>", k,
				      k == 5     ? " (sure)" :
					  k == 1 ? " (a guess)" :
						   "");
		else
			hd_exw_puts(w, "<tr><td>not given</td>");
		td_int(w, conf[k][1]);
		td_int(w, conf[k][0]);
		hd_exw_puts(w, "</tr>\n");
	}
	hd_exw_printf(w,
		      "</table>\n<p class=\"sure-wrong\">Sure but wrong: <strong>%d</strong> "
		      "(a first answer, wrong, at confidence 4 or 5).</p>\n",
		      sure_wrong);
	hd_exw_printf(w,
		      "<p class=\"hints\">Hints before the first answer: %d of %zu learners "
		      "took any (%d in all); right with hints %d of %d, without %d of %d.</p>\n",
		      hinted, g->n, hints, hinted_right, hinted, plain_right, plain);
	hd_exw_printf(w,
		      "<p class=\"again\">Answered again: %d learner%s; wrong first, right "
		      "later: %d; right first, wrong later: %d.</p>\n",
		      again, again == 1 ? "" : "s", to_right, to_wrong);
}

/* One question: its text from the lesson version, then the figures. */
static void
question_section(const struct hd_export_class *c, const struct qgroup *g,
		 const struct hd_export_class_lesson *le, struct hd_exw *w)
{
	const struct hd_store_snap_question *q = NULL;
	int at;

	if (le != NULL && le->snap != NULL &&
	    (at = hd_store_snapshot_find(le->snap, g->question)) >= 0)
		q = &le->snap->questions[at];
	hd_exw_puts(w, "<section class=\"question\">\n<h3>");
	hd_exw_xml(w, g->question);
	if (q != NULL) {
		hd_exw_printf(w, " (%d point%s): ", q->points, q->points == 1 ? "" : "s");
		hd_exw_puts(w, "<span class=\"prompt\">");
		hd_exw_xml(w, q->prompt);
		hd_exw_puts(w, "</span>");
	}
	hd_exw_puts(w, "</h3>\n");
	if (q == NULL)
		hd_exw_puts(w,
			    "<p>The question's text was not stored with these answers (they "
			    "predate it, or the question is not in the lesson's main "
			    "version).</p>\n");
	if (q != NULL && strcmp(q->kind, "choice") == 0)
		options_table(c, g, q, w);
	else
		answers_table(c, g, q, w);
	question_figures(c, g, w);
	hd_exw_puts(w, "</section>\n");
}

/* The summary's look: plain tables, print-friendly, nothing fetched. */
static const char css[] =
    "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:2em;color:#222;"
    "max-width:1100px}\n"
    "table{border-collapse:collapse;margin:0.6em 0 1.2em}\n"
    "th,td{border:1px solid #ccc;padding:3px 7px;text-align:left}\n"
    "th{background:#f0f0f0}td.num{text-align:right}\n"
    "tr.answer td{background:#eef7ea}\n"
    "h2{border-bottom:1px solid #ccc;margin-top:1.5em}\n"
    "section.question{margin-left:1em}\n"
    "ul.notes li{color:#8a4b00}\n";

/* The bar chart: per question, the share graded right. */
static void
share_chart(const struct hd_export_class *c, const struct qgroup *g, size_t nq, struct hd_exw *w)
{
	char buf[160];
	size_t i, k;

	hd_exw_printf(w,
		      "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" "
		      "height=\"%zu\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
		      "font-size=\"11\"><title>Share of the class graded right on each "
		      "question</title>\n",
		      nq * 20 + 10);
	for (i = 0; i < nq; i++) {
		int right = 0;
		double share;

		for (k = 0; k < g[i].n; k++)
			right += c->rows[g[i].rows[k]].a.correct > 0;
		share = g[i].n > 0 ? (double)right / (double)g[i].n : 0;
		snprintf(buf, sizeof buf, "%.60s / %.30s", g[i].lesson, g[i].question);
		hd_exw_printf(w, "<text x=\"5\" y=\"%zu\">", i * 20 + 19);
		hd_exw_xml(w, buf);
		hd_exw_printf(w,
			      "</text><rect x=\"320\" y=\"%zu\" width=\"500\" height=\"14\" "
			      "fill=\"#eeeeee\"/><rect x=\"320\" y=\"%zu\" width=\"%.1f\" "
			      "height=\"14\" fill=\"#59a14f\"/><text x=\"828\" y=\"%zu\">%.0f %%"
			      "</text>\n",
			      i * 20 + 8, i * 20 + 8, 500 * share, i * 20 + 19, 100 * share);
	}
	hd_exw_puts(w, "</svg></figure>\n");
}

/* The lessons at a glance. */
static void
lessons_table(const struct hd_export_class *c, struct hd_exw *w)
{
	size_t i, j;
	char buf[64];

	hd_exw_puts(w,
		    "<h2>Lessons</h2>\n<table class=\"lessons\">\n<tr><th>lesson</th>"
		    "<th>title</th><th>learners</th><th>points possible</th>"
		    "<th>mean points</th><th>versions answered</th></tr>\n");
	for (j = 0; j < c->nlessons; j++) {
		const struct hd_export_class_lesson *le = &c->lessons[j];
		int who = 0, earned = 0;

		for (i = 0; i < c->nlearners; i++) {
			const struct hd_export_class_score *s = hd_export_class_score(
			    c, c->learners[i], le->lesson);

			if (s != NULL) {
				who++;
				earned += s->earned;
			}
		}
		hd_exw_puts(w, "<tr>");
		hd_exw_puts(w, "<td><a href=\"#lesson-");
		hd_exw_xml(w, le->lesson);
		hd_exw_puts(w, "\">");
		hd_exw_xml(w, le->lesson);
		hd_exw_puts(w, "</a></td>");
		td(w, le->snap != NULL ? le->snap->title : "", false);
		td_int(w, who);
		td_int(w, le->possible);
		snprintf(buf, sizeof buf, "%.2f", who > 0 ? (double)earned / who : 0.0);
		td(w, buf, true);
		td_int(w, le->nversions);
		hd_exw_puts(w, "</tr>\n");
	}
	hd_exw_puts(w, "</table>\n");
}

/* Each learner's lessons: the points, done or how far. */
static void
learners_table(const struct hd_export_class *c, struct hd_exw *w)
{
	size_t i, j;
	char buf[96];

	hd_exw_puts(w,
		    "<h2>Learners</h2>\n<table class=\"learners\">\n<tr><th>learner</th>"
		    "<th>lessons done</th>");
	for (j = 0; j < c->nlessons; j++) {
		hd_exw_puts(w, "<th>");
		hd_exw_xml(w, c->lessons[j].lesson);
		hd_exw_puts(w, "</th>");
	}
	hd_exw_puts(w, "</tr>\n");
	for (i = 0; i < c->nlearners; i++) {
		int done = 0;

		for (j = 0; j < c->nlessons; j++) {
			const struct hd_export_class_score *s = hd_export_class_score(
			    c, c->learners[i], c->lessons[j].lesson);

			done += s != NULL && s->answered >= s->questions;
		}
		hd_exw_puts(w, "<tr>");
		td(w, c->learners[i], false);
		snprintf(buf, sizeof buf, "%d of %zu", done, c->nlessons);
		td(w, buf, true);
		for (j = 0; j < c->nlessons; j++) {
			const struct hd_export_class_score *s = hd_export_class_score(
			    c, c->learners[i], c->lessons[j].lesson);

			if (s == NULL)
				snprintf(buf, sizeof buf, "-");
			else if (s->answered >= s->questions)
				snprintf(buf, sizeof buf, "%d / %d, done", s->earned, s->possible);
			else
				snprintf(buf, sizeof buf, "%d / %d, %d of %d answered", s->earned,
					 s->possible, s->answered, s->questions);
			td(w, buf, true);
		}
		hd_exw_puts(w, "</tr>\n");
	}
	hd_exw_puts(w, "</table>\n");
}

void
hd_export_class_html(const struct hd_export_class *c, struct hd_exw *w)
{
	struct qgroup *g;
	size_t *ix, nq = question_groups(c, &g, &ix), i, j;
	int k;

	hd_export_page_open(w, "hdsim class summary", css);
	hd_exw_printf(w,
		      "<p>%zu learner%s, %zu lesson%s, %zu attempt%s at %zu question%s from %d "
		      "database%s:",
		      c->nlearners, c->nlearners == 1 ? "" : "s", c->nlessons,
		      c->nlessons == 1 ? "" : "s", c->nattempts, c->nattempts == 1 ? "" : "s",
		      c->nrows, c->nrows == 1 ? "" : "s", c->ndbs, c->ndbs == 1 ? "" : "s");
	for (k = 0; k < c->ndbs; k++) {
		hd_exw_puts(w, k > 0 ? ", " : " ");
		hd_exw_xml(w, c->dbs[k]);
	}
	hd_exw_printf(w,
		      ".</p>\n<p class=\"policy\">Grades count <strong>%s</strong> "
		      "(<code>--grade %s</code>); the points are those of the lesson as each "
		      "learner answered it.  Counts of who chose what are of the graded answers; "
		      "confidence and hints are of the first answers, given before the run "
		      "was shown.</p>\n",
		      hd_export_grade_words(c->grade), hd_export_grade_name(c->grade));
	if (c->nnotes > 0) {
		hd_exw_puts(w, "<h2>Notes</h2>\n<ul class=\"notes\">\n");
		for (k = 0; k < c->nnotes; k++) {
			hd_exw_puts(w, "<li>");
			hd_exw_xml(w, c->notes[k]);
			hd_exw_puts(w, "</li>\n");
		}
		hd_exw_puts(w, "</ul>\n");
	}
	lessons_table(c, w);
	share_chart(c, g, nq, w);
	for (i = 0, j = 0; j < c->nlessons; j++) {
		const struct hd_export_class_lesson *le = &c->lessons[j];

		hd_exw_puts(w, "<h2 id=\"lesson-");
		hd_exw_xml(w, le->lesson);
		hd_exw_puts(w, "\">Lesson ");
		hd_exw_xml(w, le->lesson);
		if (le->snap != NULL) {
			hd_exw_puts(w, ": ");
			hd_exw_xml(w, le->snap->title);
		}
		hd_exw_puts(w, "</h2>\n");
		if (le->nversions > 1)
			hd_exw_printf(w,
				      "<p class=\"versions\">Answered in %d versions of the "
				      "lesson (see the notes above); the questions shown are of "
				      "the version most learners' grades come from.</p>\n",
				      le->nversions);
		for (; i < nq && strcmp(g[i].lesson, le->lesson) == 0; i++)
			question_section(c, &g[i], le, w);
	}
	learners_table(c, w);
	hd_export_page_close(w);
	free(g);
	free(ix);
}
