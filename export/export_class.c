/*
 * export_class.c - `hdsim export --class DB...`: a class's databases (one
 * per learner, or shared) merged into what an instructor grades from.
 *
 *   answers.csv    a row per learner and question: the newest answer, right
 *                  or wrong, confidence, time, hints, how many attempts, and
 *                  an empty comments column for the instructor;
 *   gradebook.csv  Canvas's gradebook import layout, written by
 *                  gradebook.c from the scores computed here;
 *   class.html     the class at a glance: per lesson, per question, per
 *                  learner, and where the class was sure but wrong.
 *
 * Learners are matched by the name they gave (hdsim --learner, or
 * $HDSIM_LEARNER); the same name in two databases is one learner, and the
 * newest answer to a question wins.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/export_page.h"
#include "lang/lesson.h"

#define EOL "\r\n"

struct load_ctx {
	struct hd_export_class *c;
	const char *db;
};

static int
keep(void *ctx, const struct hd_store_progress *p)
{
	struct load_ctx *lc = ctx;
	struct hd_export_class *c = lc->c;
	struct hd_export_answer *a;

	c->rows = hd_xgrow(c->rows, &c->rows_cap, c->nrows + 1, sizeof *c->rows);
	memset(&c->rows[c->nrows], 0, sizeof c->rows[c->nrows]);
	a = &c->rows[c->nrows++].a;
	hd_export_answer_copy(a, lc->db, p, true);
	return 0;
}

static void
row_free(struct hd_export_class_row *r)
{
	free(r->a.db);
	free(r->a.learner);
	free(r->a.lesson);
	free(r->a.question);
	free(r->a.answer);
	free(r->a.profile);
	free(r->a.created);
}

/* By learner, lesson, question, then newest first (time, then later row). */
static int
row_cmp(const void *pa, const void *pb)
{
	const struct hd_export_answer *a = &((const struct hd_export_class_row *)pa)->a;
	const struct hd_export_answer *b = &((const struct hd_export_class_row *)pb)->a;
	int c;

	if ((c = strcmp(a->learner, b->learner)) != 0 || (c = strcmp(a->lesson, b->lesson)) != 0 ||
	    (c = strcmp(a->question, b->question)) != 0)
		return c;
	if ((c = strcmp(a->created, b->created)) != 0)
		return -c;
	if (a->id != b->id)
		return a->id > b->id ? -1 : 1;
	return strcmp(a->db, b->db);
}

static bool
same_key(const struct hd_export_answer *a, const struct hd_export_answer *b)
{
	return strcmp(a->learner, b->learner) == 0 && strcmp(a->lesson, b->lesson) == 0 &&
	    strcmp(a->question, b->question) == 0;
}

int
hd_export_class_load(struct hd_export_class *c, char *const *dbs, int n, struct hd_err *e)
{
	size_t i, u;
	int k;

	memset(c, 0, sizeof *c);
	for (k = 0; k < n; k++) {
		struct load_ctx lc = { c, dbs[k] };
		struct hd_store *st = hd_store_open(dbs[k], HD_STORE_RO, e);

		if (st == NULL || hd_store_progress_each(st, NULL, NULL, keep, &lc, e) != 0) {
			hd_store_close(st);
			hd_export_class_free(c);
			return -1;
		}
		hd_store_close(st);
	}
	c->dbs = hd_xcalloc((size_t)n + 1, sizeof *c->dbs);
	for (k = 0; k < n; k++)
		c->dbs[k] = hd_xstrdup(dbs[k]);
	c->ndbs = n;
	if (c->nrows > 1)
		qsort(c->rows, c->nrows, sizeof *c->rows, row_cmp);
	/* keep the newest of each key; count the attempts */
	for (i = 0, u = 0; i < c->nrows; i++) {
		if (u > 0 && same_key(&c->rows[u - 1].a, &c->rows[i].a)) {
			c->rows[u - 1].attempts++;
			row_free(&c->rows[i]);
			continue;
		}
		c->rows[u] = c->rows[i];
		c->rows[u].attempts = 1;
		u++;
	}
	c->nrows = u;
	return 0;
}

void
hd_export_class_free(struct hd_export_class *c)
{
	size_t i;
	int k;

	if (c == NULL)
		return;
	for (i = 0; i < c->nrows; i++)
		row_free(&c->rows[i]);
	for (k = 0; k < c->ndbs; k++)
		free(c->dbs[k]);
	free(c->rows);
	free(c->dbs);
	memset(c, 0, sizeof *c);
}

static const char *
result(int correct)
{
	return correct > 0 ? "right" : correct == 0 ? "wrong" : "ungraded";
}

void
hd_export_class_answers(const struct hd_export_class *c, struct hd_exw *w)
{
	size_t i;

	hd_exw_puts(w,
		    "learner,lesson,question,answer,result,correct,confidence,seconds,hints,"
		    "attempts,answered_at,database,comments" EOL);
	for (i = 0; i < c->nrows; i++) {
		const struct hd_export_answer *a = &c->rows[i].a;

		hd_exw_csv(w, a->learner);
		hd_exw_putc(w, ',');
		hd_exw_csv(w, a->lesson);
		hd_exw_putc(w, ',');
		hd_exw_csv(w, a->question);
		hd_exw_putc(w, ',');
		hd_exw_csv(w, a->answer);
		hd_exw_printf(w, ",%s,", result(a->correct));
		if (a->correct >= 0)
			hd_exw_i64(w, a->correct);
		hd_exw_putc(w, ',');
		if (a->confidence > 0)
			hd_exw_i64(w, a->confidence);
		hd_exw_putc(w, ',');
		hd_exw_num(w, a->seconds);
		hd_exw_printf(w, ",%d,%d,", a->hints, c->rows[i].attempts);
		hd_exw_csv(w, a->created);
		hd_exw_putc(w, ',');
		hd_exw_csv(w, a->db);
		hd_exw_puts(w, "," EOL);
	}
}

/* ---- summaries ------------------------------------------------------------- */

static int
str_cmp(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* Distinct values of one field, sorted (sorting once, then dropping
 * repeats: n log n however many learners and lessons). */
static size_t
distinct(const struct hd_export_class *c, int field, const char ***out)
{
	const char **v = hd_xcalloc(c->nrows + 1, sizeof *v);
	size_t n = 0, i;

	for (i = 0; i < c->nrows; i++)
		v[i] = field == 0 ? c->rows[i].a.learner : c->rows[i].a.lesson;
	if (c->nrows > 1)
		qsort(v, c->nrows, sizeof *v, str_cmp);
	for (i = 0; i < c->nrows; i++)
		if (n == 0 || strcmp(v[n - 1], v[i]) != 0)
			v[n++] = v[i];
	*out = v;
	return n;
}

/* The index of s in the sorted distinct values v[0 .. n). */
static size_t
find_sorted(const char *const *v, size_t n, const char *s)
{
	const char *const *hit = bsearch(&s, v, n, sizeof *v, str_cmp);

	return hit != NULL ? (size_t)(hit - v) : n;
}

/* Points possible for each lesson: its questions in the catalogue, else the
 * most questions any learner answered in it.  pts[j] for lessons[j]. */
static int *
points_possible(const struct hd_export_class *c, struct hd_catalog *cat, const char *const *lessons,
		size_t nz)
{
	int *pts = hd_xcalloc(nz + 1, sizeof *pts);
	size_t i, j, k;
	int n;

	/* rows are sorted by learner, then lesson: one run per pair */
	for (i = 0; i < c->nrows; i = j) {
		for (j = i, n = 0;
		     j < c->nrows && strcmp(c->rows[j].a.learner, c->rows[i].a.learner) == 0 &&
		     strcmp(c->rows[j].a.lesson, c->rows[i].a.lesson) == 0;
		     j++)
			n++;
		k = find_sorted(lessons, nz, c->rows[i].a.lesson);
		if (k < nz && n > pts[k])
			pts[k] = n;
	}
	for (k = 0; k < nz; k++) {
		struct hd_err ignored = { 0 };
		int idx;

		if (cat != NULL && (idx = hd_catalog_find(cat, lessons[k], &ignored)) >= 0 &&
		    strcmp(hd_lesson_id(hd_catalog_get(cat, idx)), lessons[k]) == 0)
			pts[k] = hd_lesson_nquestions(hd_catalog_get(cat, idx));
	}
	return pts;
}

/* The first row at or after (learner, lesson) in the sorted rows. */
static size_t
rows_lower(const struct hd_export_class *c, const char *learner, const char *lesson)
{
	size_t lo = 0, hi = c->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hd_export_answer *a = &c->rows[mid].a;
		int d = strcmp(a->learner, learner);

		if (d == 0)
			d = strcmp(a->lesson, lesson);
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Right answers and answers of a learner in a lesson: a binary search in
 * the rows, sorted by learner, then lesson. */
static void
score(const struct hd_export_class *c, const char *learner, const char *lesson, int *right,
      int *answered)
{
	size_t i;

	*right = *answered = 0;
	for (i = rows_lower(c, learner, lesson); i < c->nrows; i++) {
		const struct hd_export_answer *a = &c->rows[i].a;

		if (strcmp(a->learner, learner) != 0 || strcmp(a->lesson, lesson) != 0)
			break;
		(*answered)++;
		*right += a->correct > 0;
	}
}

/* ---- what gradebook.c reads (the grading stays here) ---------------------- */

size_t
hd_export_class_learners(const struct hd_export_class *c, const char ***out)
{
	return distinct(c, 0, out);
}

size_t
hd_export_class_lessons(const struct hd_export_class *c, const char ***out)
{
	return distinct(c, 1, out);
}

int *
hd_export_class_points(const struct hd_export_class *c, struct hd_catalog *cat,
		       const char *const *lessons, size_t n)
{
	return points_possible(c, cat, lessons, n);
}

void
hd_export_class_score(const struct hd_export_class *c, const char *learner, const char *lesson,
		      int *right, int *answered)
{
	score(c, learner, lesson, right, answered);
}

static void
td(struct hd_exw *w, const char *s, bool num)
{
	hd_exw_puts(w, num ? "<td class=\"num\">" : "<td>");
	hd_exw_xml(w, s);
	hd_exw_puts(w, "</td>");
}

/* Per-question figures over the class. */
struct qstat {
	const char *lesson, *question;
	size_t first; /* the first row answering it */
	int answered, right, wrong, sure_wrong, conf_n, hints;
	double conf, seconds;
};

/* A row's question, and where the row is. */
struct qkey {
	const char *lesson, *question;
	size_t row;
};

/* By lesson, then question; each question's rows in row order. */
static int
by_question(const void *pa, const void *pb)
{
	const struct qkey *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->lesson, b->lesson)) != 0 || (c = strcmp(a->question, b->question)) != 0)
		return c;
	return a->row < b->row ? -1 : a->row > b->row;
}

static int
by_first_row(const void *pa, const void *pb)
{
	const struct qstat *a = pa, *b = pb;

	return a->first < b->first ? -1 : a->first > b->first;
}

/* The questions in the order the rows first answer them, with their
 * figures: the rows sorted once by question, so n log n. */
static size_t
question_stats(const struct hd_export_class *c, struct qstat **out)
{
	struct qstat *q = hd_xcalloc(c->nrows + 1, sizeof *q);
	struct qkey *ix = hd_xcalloc(c->nrows + 1, sizeof *ix);
	size_t n = 0, i, j;

	for (i = 0; i < c->nrows; i++) {
		ix[i].lesson = c->rows[i].a.lesson;
		ix[i].question = c->rows[i].a.question;
		ix[i].row = i;
	}
	if (c->nrows > 1)
		qsort(ix, c->nrows, sizeof *ix, by_question);
	for (i = 0; i < c->nrows; i++) {
		const struct hd_export_answer *a = &c->rows[ix[i].row].a;

		if (n == 0 || strcmp(q[n - 1].lesson, a->lesson) != 0 ||
		    strcmp(q[n - 1].question, a->question) != 0) {
			q[n].lesson = a->lesson;
			q[n].question = a->question;
			q[n++].first = ix[i].row;
		}
		j = n - 1;
		q[j].answered++;
		q[j].right += a->correct > 0;
		q[j].wrong += a->correct == 0;
		q[j].sure_wrong += a->correct == 0 && a->confidence >= 4;
		if (a->confidence > 0) {
			q[j].conf += a->confidence;
			q[j].conf_n++;
		}
		q[j].seconds += a->seconds;
		q[j].hints += a->hints;
	}
	if (n > 1)
		qsort(q, n, sizeof *q, by_first_row);
	free(ix);
	*out = q;
	return n;
}

/* The summary's look: plain tables, print-friendly, nothing fetched. */
static const char css[] =
    "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:2em;color:#222;"
    "max-width:1100px}\n"
    "table{border-collapse:collapse;margin:0.6em 0 1.2em}\n"
    "th,td{border:1px solid #ccc;padding:3px 7px;text-align:left}\n"
    "th{background:#f0f0f0}td.num{text-align:right}\n"
    "h2{border-bottom:1px solid #ccc;margin-top:1.5em}\n";

void
hd_export_class_html(const struct hd_export_class *c, struct hd_catalog *cat, struct hd_exw *w)
{
	const char **learners, **lessons;
	size_t nl = distinct(c, 0, &learners), nz = distinct(c, 1, &lessons), i, j;
	struct qstat *q;
	size_t nq = question_stats(c, &q);
	int *pts = points_possible(c, cat, lessons, nz);
	char buf[64];
	int k;

	hd_export_page_open(w, "hdsim class summary", css);
	hd_exw_printf(w,
		      "<p>%zu learner%s, %zu lesson%s, %zu answer%s counted (the newest "
		      "answer of each learner to each question) from %d database%s:",
		      nl, nl == 1 ? "" : "s", nz, nz == 1 ? "" : "s", c->nrows,
		      c->nrows == 1 ? "" : "s", c->ndbs, c->ndbs == 1 ? "" : "s");
	for (k = 0; k < c->ndbs; k++) {
		hd_exw_puts(w, k > 0 ? ", " : " ");
		hd_exw_xml(w, c->dbs[k]);
	}
	hd_exw_puts(w,
		    ".</p>\n<h2>Lessons</h2>\n<table>\n<tr><th>lesson</th><th>learners</th>"
		    "<th>points possible</th><th>mean score</th><th>answers right</th></tr>\n");
	for (j = 0; j < nz; j++) {
		int who = 0, right = 0, all = 0;

		for (i = 0; i < nl; i++) {
			int r, a;

			score(c, learners[i], lessons[j], &r, &a);
			who += a > 0;
			right += r;
			all += a;
		}
		hd_exw_puts(w, "<tr>");
		td(w, lessons[j], false);
		snprintf(buf, sizeof buf, "%d", who);
		td(w, buf, true);
		snprintf(buf, sizeof buf, "%d", pts[j]);
		td(w, buf, true);
		snprintf(buf, sizeof buf, "%.2f", who > 0 ? (double)right / who : 0.0);
		td(w, buf, true);
		snprintf(buf, sizeof buf, "%.0f %%", all > 0 ? 100.0 * right / all : 0.0);
		td(w, buf, true);
		hd_exw_puts(w, "</tr>\n");
	}
	hd_exw_puts(w,
		    "</table>\n<h2>Questions</h2>\n<p>\"Sure but wrong\": answered wrong with "
		    "confidence 4 or 5 of 5, where a misconception is likely.</p>\n");
	/* a bar per question: the share answered right */
	hd_exw_printf(w,
		      "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" "
		      "height=\"%zu\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
		      "font-size=\"11\"><title>Share of the class answering each question "
		      "right</title>\n",
		      nq * 20 + 10);
	for (i = 0; i < nq; i++) {
		double share = q[i].answered > 0 ? (double)q[i].right / q[i].answered : 0;

		snprintf(buf, sizeof buf, "%s / %.30s", q[i].lesson, q[i].question);
		hd_exw_printf(w, "<text x=\"5\" y=\"%zu\">", i * 20 + 19);
		hd_exw_xml(w, buf);
		hd_exw_printf(w,
			      "</text><rect x=\"320\" y=\"%zu\" width=\"500\" height=\"14\" "
			      "fill=\"#eeeeee\"/><rect x=\"320\" y=\"%zu\" width=\"%.1f\" "
			      "height=\"14\" fill=\"#59a14f\"/><text x=\"828\" y=\"%zu\">%.0f %%"
			      "</text>\n",
			      i * 20 + 8, i * 20 + 8, 500 * share, i * 20 + 19, 100 * share);
	}
	hd_exw_puts(w,
		    "</svg></figure>\n<table>\n<tr><th>lesson</th><th>question</th>"
		    "<th>answered</th><th>right</th><th>wrong</th><th>sure but wrong</th>"
		    "<th>mean confidence</th><th>mean time</th><th>mean hints</th></tr>\n");
	for (i = 0; i < nq; i++) {
		hd_exw_puts(w, "<tr>");
		td(w, q[i].lesson, false);
		td(w, q[i].question, false);
		snprintf(buf, sizeof buf, "%d", q[i].answered);
		td(w, buf, true);
		snprintf(buf, sizeof buf, "%d", q[i].right);
		td(w, buf, true);
		snprintf(buf, sizeof buf, "%d", q[i].wrong);
		td(w, buf, true);
		snprintf(buf, sizeof buf, "%d", q[i].sure_wrong);
		td(w, buf, true);
		if (q[i].conf_n > 0)
			snprintf(buf, sizeof buf, "%.1f / 5", q[i].conf / q[i].conf_n);
		else
			snprintf(buf, sizeof buf, "-");
		td(w, buf, true);
		snprintf(buf, sizeof buf, "%.1f s", q[i].seconds / q[i].answered);
		td(w, buf, true);
		snprintf(buf, sizeof buf, "%.1f", (double)q[i].hints / q[i].answered);
		td(w, buf, true);
		hd_exw_puts(w, "</tr>\n");
	}
	hd_exw_puts(w, "</table>\n<h2>Learners</h2>\n<table>\n<tr><th>learner</th>");
	for (j = 0; j < nz; j++) {
		hd_exw_puts(w, "<th>");
		hd_exw_xml(w, lessons[j]);
		hd_exw_puts(w, "</th>");
	}
	hd_exw_puts(w, "</tr>\n");
	for (i = 0; i < nl; i++) {
		hd_exw_puts(w, "<tr>");
		td(w, learners[i], false);
		for (j = 0; j < nz; j++) {
			int r, a;

			score(c, learners[i], lessons[j], &r, &a);
			if (a > 0)
				snprintf(buf, sizeof buf, "%d / %d", r, pts[j]);
			else
				snprintf(buf, sizeof buf, "-");
			td(w, buf, true);
		}
		hd_exw_puts(w, "</tr>\n");
	}
	hd_exw_puts(w, "</table>\n");
	hd_export_page_close(w);
	free(pts);
	free(q);
	free(learners);
	free(lessons);
}
