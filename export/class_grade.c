/*
 * class_grade.c - `hdsim export --class`: a class's databases read and
 * graded (export.h).  Every attempt of every learner is kept; each question
 * is graded by one of the policies (by default the first answer given before
 * the run answering it was shown, so that watching the run and answering
 * again does not change a grade), and each learner's lesson is scored from
 * the lesson as that learner answered it, stored with the answers: the
 * points of its questions, never the lesson file's (but for answers stored
 * before hdsim kept the lesson, which fall back on the installed lesson).
 * The writers of the class files are export_class.c's.
 *
 * Costs: each database is read once; everything after is sorting and
 * binary searches, n log n in the attempts.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "lang/lesson.h"

/* ---- policies ------------------------------------------------------------------ */

static const struct {
	const char *name, *words;
} grades[HD_EXPORT_GRADE__COUNT] = {
	[HD_EXPORT_GRADE_FIRST] = { "first", "the first answer given before the run was shown" },
	[HD_EXPORT_GRADE_BEST] = { "best",
				   "a right answer if any was given, before or after the "
				   "run was shown" },
	[HD_EXPORT_GRADE_LAST] = { "last", "the last answer given" },
};

int
hd_export_grade_parse(const char *name, enum hd_export_grade *g, struct hd_err *e)
{
	int i;

	for (i = 0; i < HD_EXPORT_GRADE__COUNT; i++)
		if (name != NULL && strcmp(name, grades[i].name) == 0) {
			*g = (enum hd_export_grade)i;
			return 0;
		}
	hd_err_set(e, HD_EXIT_INPUT, "--grade",
		   "unknown grading '%s': first (the first answer before the run was "
		   "shown, the default), best or last",
		   name ? name : "");
	return -1;
}

const char *
hd_export_grade_name(enum hd_export_grade g)
{
	return (unsigned)g < HD_EXPORT_GRADE__COUNT ? grades[g].name : "?";
}

const char *
hd_export_grade_words(enum hd_export_grade g)
{
	return (unsigned)g < HD_EXPORT_GRADE__COUNT ? grades[g].words : "?";
}

/* ---- notes ---------------------------------------------------------------------- */

static void note(struct hd_export_class *c, const char *fmt, ...) HD_PRINTF(2, 3);

static void
note(struct hd_export_class *c, const char *fmt, ...)
{
	struct hd_buf b;
	va_list ap;

	hd_buf_init(&b);
	va_start(ap, fmt);
	hd_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	c->notes = hd_xrealloc(c->notes, sizeof *c->notes * (size_t)(c->nnotes + 1));
	c->notes[c->nnotes++] = hd_buf_take(&b);
}

/* ---- reading one database ------------------------------------------------------- */

struct snaps {
	struct hd_store_snapshot **v;
	size_t n, cap;
};

/* A copy of snap (the store's lives only through the call). */
static struct hd_store_snapshot *
snap_dup(const struct hd_store_snapshot *snap)
{
	struct hd_store_snapshot *c = hd_xcalloc(1, sizeof *c);
	int i, k;

	c->hash = hd_xstrdup(snap->hash);
	c->lesson = hd_xstrdup(snap->lesson);
	c->title = hd_xstrdup(snap->title);
	c->questions = hd_xcalloc((size_t)snap->nquestions + 1, sizeof *c->questions);
	c->nquestions = snap->nquestions;
	for (i = 0; i < snap->nquestions; i++) {
		const struct hd_store_snap_question *q = &snap->questions[i];
		struct hd_store_snap_question *d = &c->questions[i];

		d->id = hd_xstrdup(q->id);
		d->kind = hd_xstrdup(q->kind);
		d->prompt = hd_xstrdup(q->prompt);
		d->answer = hd_xstrdup(q->answer);
		d->points = q->points;
		d->options = hd_xcalloc((size_t)q->noptions + 1, sizeof *d->options);
		d->noptions = q->noptions;
		for (k = 0; k < q->noptions; k++) {
			d->options[k].id = hd_xstrdup(q->options[k].id);
			d->options[k].text = hd_xstrdup(q->options[k].text);
			if (q->options[k].misconception != NULL)
				d->options[k].misconception = hd_xstrdup(
				    q->options[k].misconception);
		}
	}
	return c;
}

static int
keep_snap(void *ctx, const struct hd_store_snapshot *snap)
{
	struct snaps *s = ctx;

	s->v = hd_xgrow(s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = snap_dup(snap);
	return 0;
}

struct load_ctx {
	struct hd_export_class *c;
	const char *db;
};

static int
keep_attempt(void *ctx, const struct hd_store_progress *p)
{
	struct load_ctx *lc = ctx;
	struct hd_export_class *c = lc->c;
	struct hd_export_answer *a;

	c->attempts = hd_xgrow(c->attempts, &c->attempts_cap, c->nattempts + 1,
			       sizeof *c->attempts);
	a = &c->attempts[c->nattempts++];
	memset(a, 0, sizeof *a);
	hd_export_answer_copy(a, lc->db, p, true);
	return 0;
}

/* Add the attempts and lesson versions of database db: 0, or -1 with e set
 * and nothing of it kept. */
static int
read_db(struct hd_export_class *c, const char *db, struct hd_err *e)
{
	struct hd_store *st = hd_store_open(db, HD_STORE_RO, e);
	struct load_ctx lc = { c, db };
	struct snaps got = { NULL, 0, 0 };
	size_t before = c->nattempts, i;
	int rc = -1;

	if (st == NULL)
		return -1;
	if (hd_store_snapshots_each(st, keep_snap, &got, e) != 0 ||
	    hd_store_progress_each(st, NULL, NULL, keep_attempt, &lc, e) != 0) {
		while (c->nattempts > before)
			hd_export_answer_free(&c->attempts[--c->nattempts]);
		for (i = 0; i < got.n; i++)
			hd_store_snapshot_free(got.v[i]);
		goto out;
	}
	for (i = 0; i < got.n; i++) {
		c->snaps = hd_xgrow(c->snaps, &c->snaps_cap, c->nsnaps + 1, sizeof *c->snaps);
		c->snaps[c->nsnaps++] = got.v[i];
	}
	rc = 0;
out:
	free(got.v);
	hd_store_close(st);
	return rc;
}

/* ---- sorting and looking up ------------------------------------------------------- */

static int
snap_cmp(const void *pa, const void *pb)
{
	return strcmp((*(struct hd_store_snapshot *const *)pa)->hash,
		      (*(struct hd_store_snapshot *const *)pb)->hash);
}

/* By learner, lesson, question, then oldest first (time, then earlier row). */
static int
attempt_cmp(const void *pa, const void *pb)
{
	const struct hd_export_answer *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->learner, b->learner)) != 0 || (c = strcmp(a->lesson, b->lesson)) != 0 ||
	    (c = strcmp(a->question, b->question)) != 0 ||
	    (c = strcmp(a->created, b->created)) != 0)
		return c;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return strcmp(a->db, b->db);
}

static bool
same_question(const struct hd_export_answer *a, const struct hd_export_answer *b)
{
	return strcmp(a->learner, b->learner) == 0 && strcmp(a->lesson, b->lesson) == 0 &&
	    strcmp(a->question, b->question) == 0;
}

const struct hd_store_snapshot *
hd_export_class_snapshot(const struct hd_export_class *c, const char *hash)
{
	struct hd_store_snapshot key = { 0 }, *pk = &key, **hit;

	if (hash == NULL || c->nsnaps == 0)
		return NULL;
	key.hash = (char *)hash;
	hit = bsearch(&pk, c->snaps, c->nsnaps, sizeof *c->snaps, snap_cmp);
	return hit != NULL ? *hit : NULL;
}

/* The version an attempt answered, when stored and of the attempt's lesson. */
static const struct hd_store_snapshot *
version_of(const struct hd_export_class *c, const struct hd_export_answer *a)
{
	const struct hd_store_snapshot *s = hd_export_class_snapshot(c, a->lesson_hash);

	return s != NULL && strcmp(s->lesson, a->lesson) == 0 ? s : NULL;
}

/* The installed lesson with exactly this id, or NULL. */
static const struct hd_lesson *
installed(struct hd_catalog *cat, const char *id)
{
	struct hd_err ignored = { 0 };
	int i;

	if (cat == NULL || (i = hd_catalog_find(cat, id, &ignored)) < 0)
		return NULL;
	return strcmp(hd_lesson_id(hd_catalog_get(cat, i)), id) == 0 ? hd_catalog_get(cat, i) :
								       NULL;
}

/* ---- grading ------------------------------------------------------------------------ */

/* Which of a question's attempts v[0 .. n) (oldest first) the policy grades;
 * *initial gets the first made before the run was shown (the first of all
 * when every one came after it). */
static int
pick(enum hd_export_grade g, const struct hd_export_answer *v, int n, int *initial)
{
	int i;

	*initial = 0;
	for (i = 0; i < n; i++)
		if (v[i].seen != 1) {
			*initial = i;
			break;
		}
	switch (g) {
	case HD_EXPORT_GRADE_FIRST:
		return *initial;
	case HD_EXPORT_GRADE_BEST:
		for (i = 0; i < n; i++)
			if (v[i].correct > 0)
				return i;
		return *initial;
	case HD_EXPORT_GRADE_LAST:
		return n - 1;
	case HD_EXPORT_GRADE__COUNT:
		break;
	}
	return *initial;
}

/* What question q of lesson is worth in version s, else in the installed
 * lesson, else 1. */
static int
worth(const struct hd_store_snapshot *s, const struct hd_lesson *l, const char *q)
{
	int i;

	if (s != NULL)
		return (i = hd_store_snapshot_find(s, q)) >= 0 ? s->questions[i].points : 1;
	for (i = 0; l != NULL && i < hd_lesson_nquestions(l); i++)
		if (strcmp(hd_lesson_question(l, i)->id, q) == 0)
			return hd_lesson_question(l, i)->points;
	return 1;
}

/* The version a row's graded attempt answered; for one stored before hdsim
 * kept it, the newest version another of its attempts answered. */
static const struct hd_store_snapshot *
row_version(const struct hd_export_class *c, const struct hd_export_class_row *r)
{
	const struct hd_store_snapshot *v = version_of(c, &r->a), *vk;
	size_t k;

	if (v != NULL)
		return v;
	for (k = r->first; k < r->first + (size_t)r->attempts; k++)
		if ((vk = version_of(c, &c->attempts[k])) != NULL)
			v = vk; /* oldest first: the last found is the newest */
	return v;
}

/* One row per learner and question, graded. */
static void
make_rows(struct hd_export_class *c, struct hd_catalog *cat)
{
	size_t i, j;

	for (i = 0; i < c->nattempts; i = j) {
		const struct hd_store_snapshot *v;
		struct hd_export_class_row *r;

		for (j = i + 1; j < c->nattempts && same_question(&c->attempts[i], &c->attempts[j]);
		     j++)
			;
		c->rows = hd_xgrow(c->rows, &c->rows_cap, c->nrows + 1, sizeof *c->rows);
		r = &c->rows[c->nrows++];
		memset(r, 0, sizeof *r);
		r->first = i;
		r->attempts = (int)(j - i);
		r->graded = pick(c->grade, &c->attempts[i], r->attempts, &r->initial);
		r->a = c->attempts[i + (size_t)r->graded];
		v = row_version(c, r);
		/* the installed lesson only for answers older than versions */
		r->points = worth(v, v == NULL ? installed(cat, r->a.lesson) : NULL, r->a.question);
	}
}

static int
str_cmp(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* The distinct learners (field 0) or lessons (1) of the rows, sorted. */
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

static int
score_cmp(const void *pa, const void *pb)
{
	const struct hd_export_class_score *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->learner, b->learner)) != 0)
		return c;
	return strcmp(a->lesson, b->lesson);
}

const struct hd_export_class_score *
hd_export_class_score(const struct hd_export_class *c, const char *learner, const char *lesson)
{
	struct hd_export_class_score key;

	if (c->nscores == 0)
		return NULL;
	memset(&key, 0, sizeof key);
	key.learner = learner;
	key.lesson = lesson;
	return bsearch(&key, c->scores, c->nscores, sizeof *c->scores, score_cmp);
}

static int
lesson_cmp(const void *pa, const void *pb)
{
	return strcmp(((const struct hd_export_class_lesson *)pa)->lesson,
		      ((const struct hd_export_class_lesson *)pb)->lesson);
}

static struct hd_export_class_lesson *
lesson_at(const struct hd_export_class *c, const char *lesson)
{
	struct hd_export_class_lesson key = { lesson, NULL, 0, 0 };

	if (c->nlessons == 0)
		return NULL;
	return bsearch(&key, c->lessons, c->nlessons, sizeof *c->lessons, lesson_cmp);
}

const struct hd_export_class_lesson *
hd_export_class_lesson(const struct hd_export_class *c, const char *lesson)
{
	return lesson_at(c, lesson);
}

/* Each learner's lessons scored: rows are sorted by learner, then lesson.
 * A lesson not kept with the answers gets possible -1, filled in later.
 * Returns, per score, when its version was answered (to free). */
static const char **
make_scores(struct hd_export_class *c, struct hd_catalog *cat)
{
	const char **graded_at = hd_xcalloc(c->nrows + 1, sizeof *graded_at);
	size_t i, j, k;

	c->scores = hd_xcalloc(c->nrows + 1, sizeof *c->scores);
	for (i = 0; i < c->nrows; i = j) {
		struct hd_export_class_score *s = &c->scores[c->nscores++];
		const struct hd_store_snapshot *v = NULL, *vk;
		const char *when = "";
		const struct hd_lesson *l;

		s->learner = c->rows[i].a.learner;
		s->lesson = c->rows[i].a.lesson;
		s->row = i;
		for (j = i; j < c->nrows && strcmp(c->rows[j].a.learner, s->learner) == 0 &&
		     strcmp(c->rows[j].a.lesson, s->lesson) == 0;
		     j++)
			;
		/* the version graded: the newest a graded attempt answered (for
		 * attempts older than versions, another attempt's: row_version) */
		for (k = i; k < j; k++) {
			const struct hd_export_class_row *r = &c->rows[k];

			s->answered++;
			if (r->a.correct > 0) {
				s->right++;
				s->earned += r->points;
			}
			if ((vk = row_version(c, r)) != NULL && strcmp(r->a.created, when) >= 0) {
				v = vk;
				when = r->a.created;
			}
		}
		graded_at[c->nscores - 1] = when;
		if (v != NULL) {
			s->hash = v->hash;
			s->possible = hd_store_snapshot_points(v);
			s->questions = v->nquestions;
		} else if ((l = installed(cat, s->lesson)) != NULL) {
			s->possible = hd_lesson_points(l);
			s->questions = hd_lesson_nquestions(l);
		} else {
			s->possible = -1;
			s->questions = s->answered;
		}
	}
	return graded_at;
}

/* (lesson, version, learner) of an attempt, to count versions. */
struct vkey {
	const char *lesson, *hash, *learner;
};

static int
vkey_cmp(const void *pa, const void *pb)
{
	const struct vkey *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->lesson, b->lesson)) != 0 || (c = strcmp(a->hash, b->hash)) != 0)
		return c;
	return strcmp(a->learner, b->learner);
}

/* Count the versions each lesson was answered in, and note a lesson
 * answered in more than one: each version, its points and (up to a few of)
 * its learners. */
static void
note_versions(struct hd_export_class *c)
{
	struct vkey *v = hd_xcalloc(c->nattempts + 1, sizeof *v);
	struct hd_export_class_lesson *le;
	size_t n = 0, i, j, k, l;

	for (i = 0; i < c->nattempts; i++)
		if (c->attempts[i].lesson_hash != NULL) {
			v[n].lesson = c->attempts[i].lesson;
			v[n].hash = c->attempts[i].lesson_hash;
			v[n++].learner = c->attempts[i].learner;
		}
	if (n > 1)
		qsort(v, n, sizeof *v, vkey_cmp);
	for (i = 0; i < n; i = j) {
		struct hd_buf b;
		int nv = 0;

		for (j = i; j < n && strcmp(v[j].lesson, v[i].lesson) == 0; j++)
			nv += j == i || strcmp(v[j].hash, v[j - 1].hash) != 0;
		if ((le = lesson_at(c, v[i].lesson)) != NULL)
			le->nversions = nv;
		if (nv < 2)
			continue;
		hd_buf_init(&b);
		for (k = i; k < j; k = l) {
			const struct hd_store_snapshot *s = hd_export_class_snapshot(c, v[k].hash);
			int shown = 0, more = 0;

			hd_buf_printf(&b, "%s%.12s", k > i ? "; " : "", v[k].hash);
			if (s != NULL)
				hd_buf_printf(&b, " (%d points)", hd_store_snapshot_points(s));
			hd_buf_puts(&b, " by");
			for (l = k; l < j && strcmp(v[l].hash, v[k].hash) == 0; l++) {
				if (l > k && strcmp(v[l].learner, v[l - 1].learner) == 0)
					continue;
				if (shown < 5)
					hd_buf_printf(&b, "%s %s", shown > 0 ? "," : "",
						      v[l].learner);
				else
					more++;
				shown++;
			}
			if (more > 0)
				hd_buf_printf(&b, " and %d more", more);
		}
		note(c,
		     "lesson %s was answered in %d versions: %s; each learner is graded on the "
		     "version they answered, and the gradebook's points possible are those of "
		     "%.12s (%d points), the version most learners' grades come from",
		     v[i].lesson, nv, b.s, le != NULL && le->snap != NULL ? le->snap->hash : "?",
		     le != NULL ? le->possible : 0);
		hd_buf_free(&b);
	}
	free(v);
}

/* A learner's score in a lesson, to count the versions graded. */
struct lkey {
	const char *lesson, *hash, *when;
	int answered;
};

static int
lkey_cmp(const void *pa, const void *pb)
{
	const struct lkey *a = pa, *b = pb;
	int c;

	if ((c = strcmp(a->lesson, b->lesson)) != 0 || (c = strcmp(a->hash, b->hash)) != 0)
		return c;
	return strcmp(a->when, b->when);
}

/* The points possible of a lesson without a stored version, and why. */
static void
note_legacy(struct hd_export_class *c, const struct hd_export_class_lesson *le, int n,
	    const struct hd_lesson *l)
{
	note(c,
	     "lesson %s: the answers of %d learner%s were stored before hdsim kept the "
	     "lesson with them; their points possible are %s (%d)",
	     le->lesson, n, n == 1 ? "" : "s",
	     l != NULL ? "the installed lesson's" : "the most questions a learner answered",
	     l != NULL ? hd_lesson_points(l) : le->possible);
}

/*
 * Each lesson's version and points possible: the version most learners'
 * grades come from (of two as common, the one answered last).  A lesson
 * whose answers predate its versions takes the installed lesson's points,
 * else the most questions a learner answered; scores without a version of
 * their own take those.  The scores sorted by lesson and version once.
 */
static void
make_lessons(struct hd_export_class *c, struct hd_catalog *cat, const char **graded_at)
{
	struct lkey *v = hd_xcalloc(c->nscores + 1, sizeof *v);
	const char **ids;
	size_t n = distinct(c, 1, &ids), i, j, k, z;

	c->lessons = hd_xcalloc(n + 1, sizeof *c->lessons);
	c->nlessons = n;
	for (i = 0; i < n; i++)
		c->lessons[i].lesson = ids[i];
	free(ids);
	for (i = 0; i < c->nscores; i++) {
		v[i].lesson = c->scores[i].lesson;
		v[i].hash = c->scores[i].hash != NULL ? c->scores[i].hash : "";
		v[i].when = graded_at[i];
		v[i].answered = c->scores[i].answered;
	}
	if (c->nscores > 1)
		qsort(v, c->nscores, sizeof *v, lkey_cmp);
	for (i = 0, z = 0; i < c->nscores; i = j, z++) {
		struct hd_export_class_lesson *le = &c->lessons[z];
		const struct hd_lesson *l = NULL;
		size_t best = 0;
		const char *best_when = "";
		int most = 0, legacy = 0;

		for (j = i; j < c->nscores && strcmp(v[j].lesson, v[i].lesson) == 0; j = k) {
			for (k = j; k < c->nscores && strcmp(v[k].lesson, v[j].lesson) == 0 &&
			     strcmp(v[k].hash, v[j].hash) == 0;
			     k++)
				if (v[k].answered > most)
					most = v[k].answered;
			if (v[j].hash[0] == '\0') {
				legacy = (int)(k - j);
				continue;
			}
			/* k - 1 is this version's newest */
			if (k - j > best ||
			    (k - j == best && strcmp(v[k - 1].when, best_when) > 0)) {
				best = k - j;
				best_when = v[k - 1].when;
				le->snap = hd_export_class_snapshot(c, v[j].hash);
			}
		}
		if (le->snap == NULL || legacy > 0)
			l = installed(cat, le->lesson);
		le->possible = le->snap != NULL ? hd_store_snapshot_points(le->snap) :
		    l != NULL                   ? hd_lesson_points(l) :
						  most;
		if (legacy > 0)
			note_legacy(c, le, legacy, l);
	}
	for (i = 0; i < c->nscores; i++)
		if (c->scores[i].possible < 0)
			c->scores[i].possible = lesson_at(c, c->scores[i].lesson)->possible;
	free(v);
}

/* ---- loading --------------------------------------------------------------------- */

/* Where a database is: the file (device and inode) when it exists. */
struct db_id {
	bool exists;
	dev_t dev;
	ino_t ino;
};

static int
twin_of(char *const *dbs, const struct db_id *ids, int k)
{
	int j;

	for (j = 0; j < k; j++)
		if ((ids[k].exists && ids[j].exists && ids[j].dev == ids[k].dev &&
		     ids[j].ino == ids[k].ino) ||
		    strcmp(dbs[j], dbs[k]) == 0)
			return j;
	return -1;
}

int
hd_export_class_load(struct hd_export_class *c, char *const *dbs, int n,
		     const struct hd_export_class_opts *o, struct hd_err *e)
{
	struct db_id *ids = hd_xcalloc((size_t)n + 1, sizeof *ids);
	const char **graded_at;
	size_t i;
	int k, twin, nread = 0, skipped = 0;

	memset(c, 0, sizeof *c);
	c->grade = o->grade;
	c->dbs = hd_xcalloc((size_t)n + 1, sizeof *c->dbs);
	for (k = 0; k < n; k++) {
		struct stat st;
		struct hd_err why = { 0 };

		if (stat(dbs[k], &st) == 0) {
			ids[k].exists = true;
			ids[k].dev = st.st_dev;
			ids[k].ino = st.st_ino;
		}
		if ((twin = twin_of(dbs, ids, k)) >= 0) {
			note(c, "%s is the database %s names%s: it was read once", dbs[k],
			     dbs[twin], strcmp(dbs[k], dbs[twin]) == 0 ? " too" : " as well");
			continue;
		}
		if (read_db(c, dbs[k], &why) != 0) {
			if (!o->keep_going) {
				*e = why;
				goto fail;
			}
			note(c, "skipped %s: %s", why.where[0] ? why.where : dbs[k], why.msg);
			skipped++;
			continue;
		}
		c->dbs[c->ndbs++] = hd_xstrdup(dbs[k]);
		nread++;
	}
	if (nread == 0 && skipped > 0) {
		hd_err_set(e, HD_EXIT_INPUT, "--class",
			   "none of the %d database%s named could be read", skipped,
			   skipped == 1 ? "" : "s");
		goto fail;
	}
	free(ids);
	if (c->nsnaps > 1)
		qsort(c->snaps, c->nsnaps, sizeof *c->snaps, snap_cmp);
	/* one copy of each version (the same lesson in several databases) */
	for (i = 0, k = 0; i < c->nsnaps; i++) {
		if (k > 0 && strcmp(c->snaps[k - 1]->hash, c->snaps[i]->hash) == 0)
			hd_store_snapshot_free(c->snaps[i]);
		else
			c->snaps[k++] = c->snaps[i];
	}
	c->nsnaps = (size_t)k;
	if (c->nattempts > 1)
		qsort(c->attempts, c->nattempts, sizeof *c->attempts, attempt_cmp);
	make_rows(c, o->cat);
	c->nlearners = distinct(c, 0, &c->learners);
	graded_at = make_scores(c, o->cat);
	make_lessons(c, o->cat, graded_at);
	free(graded_at);
	note_versions(c);
	return 0;
fail:
	free(ids);
	{
		/* the notes say which databases were skipped: kept for the caller */
		char **notes = c->notes;
		int nnotes = c->nnotes;

		c->notes = NULL;
		c->nnotes = 0;
		hd_export_class_free(c);
		c->notes = notes;
		c->nnotes = nnotes;
	}
	return -1;
}

void
hd_export_class_free(struct hd_export_class *c)
{
	size_t i;
	int k;

	if (c == NULL)
		return;
	for (i = 0; i < c->nattempts; i++)
		hd_export_answer_free(&c->attempts[i]);
	for (i = 0; i < c->nsnaps; i++)
		hd_store_snapshot_free(c->snaps[i]);
	for (k = 0; k < c->ndbs; k++)
		free(c->dbs[k]);
	for (k = 0; k < c->nnotes; k++)
		free(c->notes[k]);
	free(c->attempts);
	free(c->rows);
	free(c->snaps);
	free(c->scores);
	free(c->lessons);
	free(c->learners);
	free(c->dbs);
	free(c->notes);
	memset(c, 0, sizeof *c);
}
