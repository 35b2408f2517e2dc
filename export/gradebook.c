/*
 * gradebook.c - gradebook.csv in Canvas's import layout, and the join of a
 * class's learners to Canvas's roster (gradebook.h).  The scores are
 * class_grade.c's, under the class's grading policy (hd_export_class_score;
 * points possible of the stored lesson version, hd_export_class_lesson):
 * this file decides only which row and column they go in.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/sanitize.h"
#include "export/gradebook.h"
#include "store/store.h"

#define EOL "\r\n"

/* ---- reporting ---------------------------------------------------------------- */

static void say(FILE *f, const char *fmt, ...) HD_PRINTF(2, 3);

/* One line to the report, all of it through the terminal sanitiser: names
 * and ids come from the roster and from learners' databases. */
static void
say(FILE *f, const char *fmt, ...)
{
	struct hd_buf b;
	va_list ap;
	char *s;

	if (f == NULL)
		return;
	hd_buf_init(&b);
	va_start(ap, fmt);
	hd_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	s = hd_san_term_dup(b.s != NULL ? b.s : "", false);
	fprintf(f, "hdsim: export: %s\n", s);
	free(s);
	hd_buf_free(&b);
}

/* ---- lesson columns ---------------------------------------------------------- */

static bool
id_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool
hd_gradebook_lesson_ok(const char *id)
{
	size_t i, n = strlen(id);

	if (n == 0 || n > 64 || !id_alpha(id[0]))
		return false;
	for (i = 1; i < n; i++) {
		if (id_alpha(id[i]) || (id[i] >= '0' && id[i] <= '9'))
			continue;
		if (id[i] == '-' && i + 1 < n && id_alpha(id[i + 1]))
			continue;
		return false;
	}
	return true;
}

void
hd_gradebook_report(const struct hd_export_class *c, FILE *report)
{
	size_t j;

	for (j = 0; j < c->nlessons; j++)
		if (!hd_gradebook_lesson_ok(c->lessons[j].lesson))
			say(report,
			    "lesson '%.80s' is not a lesson id (letters, digits, '-' and '_'): "
			    "its answers are left out of gradebook.csv",
			    c->lessons[j].lesson);
	if (c->join == NULL)
		say(report,
		    "gradebook.csv has a row per learner by the name they chose, with no "
		    "Canvas ids (ID, SIS User ID): Canvas matches imported rows by those ids, "
		    "by name only where it is spelled as Canvas spells it, and asks you to match "
		    "the rest by hand; export the roster from Canvas (Grades, Export, Export "
		    "Entire Gradebook) and give it with --roster FILE");
}

/* ---- the join ---------------------------------------------------------------- */

/* Each learner of the class: name, the id they gave, the first database
 * they are in. */
struct learner {
	const char *name, *db;
	char *id, *id_db;
	char *other_id, *other_db; /* a second, different id: a name two people share */
};

struct ids_ctx {
	struct learner *v;
	size_t n;
	const char *db;
};

static int
learner_cmp(const void *key, const void *pl)
{
	return strcmp(key, ((const struct learner *)pl)->name);
}

static int
keep_id(void *ctx, const char *name, const char *roster_id)
{
	struct ids_ctx *x = ctx;
	struct learner *l = bsearch(name, x->v, x->n, sizeof *x->v, learner_cmp);

	if (l == NULL || roster_id == NULL)
		return 0;
	if (l->id == NULL) {
		l->id = hd_xstrdup(roster_id);
		l->id_db = hd_xstrdup(x->db);
	} else if (strcmp(l->id, roster_id) != 0 && l->other_id == NULL) {
		l->other_id = hd_xstrdup(roster_id);
		l->other_db = hd_xstrdup(x->db);
	}
	return 0;
}

/* A learner's claim on a roster row. */
struct claim {
	size_t row, learner;
	enum hd_gradebook_how how;
};

static int
claim_cmp(const void *pa, const void *pb)
{
	const struct claim *a = pa, *b = pb;

	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	if (a->how != b->how)
		return a->how < b->how ? -1 : 1;
	return a->learner < b->learner ? -1 : a->learner > b->learner;
}

static const char *
how_text(enum hd_gradebook_how how)
{
	switch (how) {
	case HD_GRADEBOOK_BY_ID:
		return "by learner id";
	case HD_GRADEBOOK_BY_NAME:
		return "by name";
	case HD_GRADEBOOK_NONE:
		return "not";
	}
	return "not";
}

/* The row a learner claims (HD_GRADEBOOK_NONE: none), saying why not. */
static enum hd_gradebook_how
find_row(const struct hd_roster *r, const struct learner *l, size_t *row, FILE *report)
{
	size_t hit[2], n;

	if (l->other_id != NULL) {
		say(report,
		    "learner '%s' gives two learner ids, '%s' (%s) and '%s' (%s): two people "
		    "may share that name, so neither is in gradebook.csv (ask one to choose "
		    "another name: 'learner = ...' in ~/.config/hdsim/config)",
		    l->name, l->id, l->id_db, l->other_id, l->other_db);
		return HD_GRADEBOOK_NONE;
	}
	if (l->id != NULL) {
		n = hd_roster_find_id(r, l->id, hit, 2);
		if (n == 1) {
			*row = hit[0];
			return HD_GRADEBOOK_BY_ID;
		}
		if (n == 0)
			say(report,
			    "learner '%s' (%s) gives learner id '%s', which no roster row has "
			    "as its ID, SIS User ID or SIS Login ID; trying the name",
			    l->name, l->db, l->id);
		else
			say(report,
			    "learner '%s' (%s) gives learner id '%s', which %s:%d and %s:%d "
			    "both have; trying the name",
			    l->name, l->db, l->id, r->path, r->rows[hit[0]].line, r->path,
			    r->rows[hit[1]].line);
	}
	n = hd_roster_find_name(r, l->name, hit, 2);
	if (n == 1) {
		*row = hit[0];
		return HD_GRADEBOOK_BY_NAME;
	}
	if (n == 0)
		say(report,
		    "learner '%s' (%s) matches no roster row by name%s: left out of "
		    "gradebook.csv (the learner puts 'learner-id = ID' in "
		    "~/.config/hdsim/config and opens hdsim once, or answers under the name "
		    "the roster has)",
		    l->name, l->db, l->id != NULL ? "" : " and gives no learner id");
	else
		say(report,
		    "learner '%s' (%s) has the name of %s:%d and of %s:%d: left out of "
		    "gradebook.csv (a learner id tells them apart: 'learner-id = ID' in "
		    "~/.config/hdsim/config)",
		    l->name, l->db, r->path, r->rows[hit[0]].line, r->path, r->rows[hit[1]].line);
	return HD_GRADEBOOK_NONE;
}

/* Give each row at most one learner: one claim stands; of several, the
 * only one by learner id stands; otherwise the row stays empty. */
static void
settle(struct hd_gradebook_join *j, const struct learner *ls, struct claim *cl, size_t n,
       size_t *placed, FILE *report)
{
	const struct hd_roster *r = j->roster;
	size_t i, k, m;

	if (n > 1)
		qsort(cl, n, sizeof *cl, claim_cmp);
	for (i = 0; i < n; i = k) {
		const struct hd_roster_row *row = &r->rows[cl[i].row];
		size_t ids = 0;

		for (k = i; k < n && cl[k].row == cl[i].row; k++)
			ids += cl[k].how == HD_GRADEBOOK_BY_ID;
		if (k - i == 1 || ids == 1) {
			/* claims sort by learner id first */
			j->learner[cl[i].row] = ls[cl[i].learner].name;
			j->how[cl[i].row] = cl[i].how;
			placed[cl[i].learner] = 1;
			for (m = i + 1; m < k; m++)
				say(report,
				    "learner '%s' (%s) has the name of %s:%d ('%s'), whose row "
				    "learner '%s' has by learner id: left out of gradebook.csv",
				    ls[cl[m].learner].name, ls[cl[m].learner].db, r->path,
				    row->line, row->cell[HD_ROSTER_STUDENT],
				    ls[cl[i].learner].name);
			continue;
		}
		for (m = i; m < k; m++)
			say(report,
			    "%s:%d ('%s') is matched %s by learner '%s' (%s) and by %zu other "
			    "learner%s: the row stays empty and the learner is left out of "
			    "gradebook.csv (each learner gives their own learner id)",
			    r->path, row->line, row->cell[HD_ROSTER_STUDENT], how_text(cl[m].how),
			    ls[cl[m].learner].name, ls[cl[m].learner].db, k - i - 1,
			    k - i - 1 == 1 ? "" : "s");
	}
}

/* The rows with no learner, and id cells the formula guard changes. */
static void
report_rows(const struct hd_gradebook_join *j, FILE *report)
{
	static const enum hd_roster_col ids[] = { HD_ROSTER_SIS_USER, HD_ROSTER_SIS_LOGIN };
	const struct hd_roster *r = j->roster;
	size_t i, k;

	for (i = 0; i < r->nrows; i++) {
		const struct hd_roster_row *row = &r->rows[i];

		for (k = 0; k < HD_ARRAY_LEN(ids); k++)
			if (hd_san_csv_needs_quote(row->cell[ids[k]]))
				say(report,
				    "%s:%d: the %s '%s' starts like a spreadsheet formula, so "
				    "gradebook.csv writes it after an apostrophe; Canvas %s",
				    r->path, row->line, hd_roster_col_name(ids[k]),
				    row->cell[ids[k]],
				    row->cell[HD_ROSTER_ID][0] != '\0' ?
					"still finds the row by its ID" :
					"will not find the row by it");
		if (j->learner[i] != NULL || hd_roster_test_student(row))
			continue;
		say(report,
		    "%s:%d: no learner for '%s'%s%s%s: the row's cells are left empty, so Canvas "
		    "keeps that student's grades",
		    r->path, row->line, row->cell[HD_ROSTER_STUDENT],
		    row->cell[HD_ROSTER_SIS_LOGIN][0] != '\0' ? " (SIS Login ID " : "",
		    row->cell[HD_ROSTER_SIS_LOGIN],
		    row->cell[HD_ROSTER_SIS_LOGIN][0] != '\0' ? ")" : "");
	}
}

/* Read the learners' ids from c's databases into ls[0 .. n). */
static int
read_ids(const struct hd_export_class *c, struct learner *ls, size_t n, struct hd_err *e)
{
	int k;

	for (k = 0; k < c->ndbs; k++) {
		struct ids_ctx x = { ls, n, c->dbs[k] };
		struct hd_store *st = hd_store_open(c->dbs[k], HD_STORE_RO, e);

		if (st == NULL || hd_store_learners_each(st, keep_id, &x, e) != 0) {
			hd_store_close(st);
			return -1;
		}
		hd_store_close(st);
	}
	return 0;
}

int
hd_gradebook_join(struct hd_gradebook_join *j, const struct hd_export_class *c,
		  const struct hd_roster *r, FILE *report, struct hd_err *e)
{
	const char *const *names = c->learners;
	size_t n = c->nlearners, i, k, nclaims = 0, *placed;
	struct learner *ls = hd_xcalloc(n + 1, sizeof *ls);
	struct claim *cl = hd_xcalloc(n + 1, sizeof *cl);
	int rc = -1;

	memset(j, 0, sizeof *j);
	j->roster = r;
	j->learner = hd_xcalloc(r->nrows + 1, sizeof *j->learner);
	j->how = hd_xcalloc(r->nrows + 1, sizeof *j->how);
	placed = hd_xcalloc(n + 1, sizeof *placed);
	/* the first database of each learner: the rows sort by learner */
	for (i = 0, k = 0; i < n; i++) {
		ls[i].name = names[i];
		while (k < c->nrows && strcmp(c->rows[k].a.learner, names[i]) < 0)
			k++;
		ls[i].db = k < c->nrows ? c->rows[k].a.db : "?";
	}
	if (read_ids(c, ls, n, e) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		size_t row = 0;
		enum hd_gradebook_how how = find_row(r, &ls[i], &row, report);

		if (how != HD_GRADEBOOK_NONE)
			cl[nclaims++] = (struct claim){ row, i, how };
	}
	settle(j, ls, cl, nclaims, placed, report);
	report_rows(j, report);
	for (i = 0; i < r->nrows; i++) {
		j->by_id += j->how[i] == HD_GRADEBOOK_BY_ID;
		j->by_name += j->how[i] == HD_GRADEBOOK_BY_NAME;
	}
	for (i = 0; i < n; i++)
		j->orphans += !placed[i];
	for (i = 0, k = 0; i < r->nrows; i++)
		k += hd_roster_test_student(&r->rows[i]);
	say(report,
	    "roster %s: %zu student%s%s, %zu with a learner (%zu by learner id, %zu by name); "
	    "%zu learner%s of %zu left out of gradebook.csv",
	    r->path, r->nrows - k, r->nrows - k == 1 ? "" : "s",
	    k > 0 ? " and Canvas's test student" : "", j->by_id + j->by_name, j->by_id, j->by_name,
	    j->orphans, j->orphans == 1 ? "" : "s", n);
	rc = 0;
out:
	for (i = 0; i < n; i++) {
		free(ls[i].id);
		free(ls[i].id_db);
		free(ls[i].other_id);
		free(ls[i].other_db);
	}
	free(ls);
	free(cl);
	free(placed);
	if (rc != 0)
		hd_gradebook_join_free(j);
	return rc;
}

void
hd_gradebook_join_free(struct hd_gradebook_join *j)
{
	if (j == NULL)
		return;
	free(j->learner);
	free(j->how);
	memset(j, 0, sizeof *j);
}

/* ---- the file ---------------------------------------------------------------- */

/* A learner's points earned, one cell per lesson column (empty where they
 * answered nothing: Canvas then keeps the grade it has). */
static void
scores(struct hd_exw *w, const struct hd_export_class *c, const char *learner)
{
	size_t j;

	for (j = 0; j < c->nlessons; j++) {
		const struct hd_export_class_score *s = NULL;

		if (!hd_gradebook_lesson_ok(c->lessons[j].lesson))
			continue;
		if (learner != NULL)
			s = hd_export_class_score(c, learner, c->lessons[j].lesson);
		hd_exw_putc(w, ',');
		if (s != NULL)
			hd_exw_i64(w, s->earned);
	}
}

void
hd_export_class_gradebook(const struct hd_export_class *c, struct hd_exw *w)
{
	size_t i, j;
	int k;

	hd_exw_puts(w, "Student,ID,SIS User ID,SIS Login ID,Section");
	for (j = 0; j < c->nlessons; j++) {
		char col[120];

		if (!hd_gradebook_lesson_ok(c->lessons[j].lesson))
			continue;
		/* the policy in the column's name: another policy is another
		 * assignment to Canvas, never one silently regraded */
		snprintf(col, sizeof col, "hdsim %s (grade: %s)", c->lessons[j].lesson,
			 hd_export_grade_name(c->grade));
		hd_exw_putc(w, ',');
		hd_exw_csv(w, col);
	}
	/* Canvas reads the row whose first cell holds "Points Possible": the
	 * points of each lesson's stored version */
	hd_exw_puts(w, EOL "Points Possible,,,,");
	for (j = 0; j < c->nlessons; j++)
		if (hd_gradebook_lesson_ok(c->lessons[j].lesson))
			hd_exw_printf(w, ",%d", c->lessons[j].possible);
	hd_exw_puts(w, EOL);
	if (c->join != NULL) {
		const struct hd_roster *r = c->join->roster;

		for (i = 0; i < r->nrows; i++) {
			for (k = 0; k < HD_ROSTER__COUNT; k++) {
				if (k > 0)
					hd_exw_putc(w, ',');
				hd_exw_csv(w, r->rows[i].cell[k]);
			}
			scores(w, c, c->join->learner[i]);
			hd_exw_puts(w, EOL);
		}
	} else {
		for (i = 0; i < c->nlearners; i++) {
			hd_exw_csv_text(w, c->learners[i]);
			hd_exw_puts(w, ",,,");
			hd_exw_csv_text(w, c->learners[i]);
			hd_exw_putc(w, ',');
			scores(w, c, c->learners[i]);
			hd_exw_puts(w, EOL);
		}
	}
}
