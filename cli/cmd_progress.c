/*
 * cmd_progress.c - `hdsim progress [LESSON] [--learner NAME] [--reset]`: a
 * learner's answers to the lessons' questions as a table per lesson, or
 * their deletion.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sanitize.h"
#include "cli/cmd.h"
#include "cli/rcfile.h"
#include "lang/lesson.h"
#include "render/timeline.h"
#include "store/store.h"

/* One stored answer, copied out of the store's callback. */
struct answer {
	char *lesson, *question, *answer, *created;
	int correct, confidence, hints;
	double seconds;
};

struct answers {
	struct answer *v;
	size_t n, cap;
};

static int
keep_answer(void *ctx, const struct hd_store_progress *r)
{
	struct answers *a = ctx;
	struct answer *w;

	a->v = hd_xgrow(a->v, &a->cap, a->n + 1, sizeof *a->v);
	w = &a->v[a->n++];
	/* a database may come from anyone: its text reaches the terminal
	 * only through the terminal sanitiser */
	w->lesson = hd_san_term_dup(r->lesson, false);
	w->question = hd_san_term_dup(r->question, false);
	w->answer = hd_san_term_dup(r->answer, false);
	w->created = hd_san_term_dup(r->created ? r->created : "", false);
	w->correct = r->correct;
	w->confidence = r->confidence;
	w->hints = r->hints;
	w->seconds = r->seconds;
	return 0;
}

static void
answers_free(struct answers *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		free(a->v[i].lesson);
		free(a->v[i].question);
		free(a->v[i].answer);
		free(a->v[i].created);
	}
	free(a->v);
}

/* Characters in a UTF-8 string: the columns it takes, wide ones aside. */
static int
text_cols(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Put s in a cell of w columns: cut with "..." when longer, control
 * characters (an answer may hold a newline) shown as spaces. */
static void
put_cell(struct hd_buf *b, const char *s, int w)
{
	int cols = text_cols(s), keep = cols > w ? w - 3 : cols, used = 0;
	const unsigned char *c;

	for (c = (const unsigned char *)s; *c != '\0'; c++) {
		if ((*c & 0xc0) != 0x80 && used++ == keep)
			break;
		hd_buf_putc(b, *c < 0x20 || *c == 0x7f ? ' ' : (char)*c);
	}
	if (cols > w) {
		hd_buf_puts(b, "...");
		cols = w;
	}
	for (; cols < w; cols++)
		hd_buf_putc(b, ' ');
}

static const char *
result_name(int correct)
{
	return correct > 0 ? "right" : correct == 0 ? "wrong" : "-";
}

/* The lesson's feedback on a stored choice answer (`option ID "text"
 * feedback "..."`), or NULL when the lesson is not installed or has none. */
static const char *
answer_feedback(struct hd_catalog *cat, const struct answer *w)
{
	struct hd_err ignored = { 0 };
	const struct hd_lesson *l;
	int i, j;

	if (cat == NULL || (i = hd_catalog_find(cat, w->lesson, &ignored)) < 0)
		return NULL;
	l = hd_catalog_get(cat, i);
	if (strcmp(hd_lesson_id(l), w->lesson) != 0)
		return NULL;
	for (i = 0; i < hd_lesson_nquestions(l); i++) {
		const struct hd_question *q = hd_lesson_question(l, i);

		if (strcmp(q->id, w->question) != 0 || q->kind != HD_Q_CHOICE ||
		    q->option_feedback == NULL)
			continue;
		for (j = 0; j < q->noptions; j++)
			if (strcmp(q->option_ids[j], w->answer) == 0)
				return q->option_feedback[j];
	}
	return NULL;
}

/* One lesson's answers (rows from first on, those of its lesson), then its
 * summary over the latest answer to each question; under an answer, the
 * lesson's feedback on it when it has some. */
static void
put_lesson(struct hd_buf *b, const struct answers *a, size_t first, int width,
	   struct hd_catalog *cat)
{
	const char *lesson = a->v[first].lesson;
	int qw = 8, aw = 6, answered = 0, right = 0, wrong = 0, total = 0;
	size_t i, j;

	for (i = first; i < a->n; i++) {
		if (strcmp(a->v[i].lesson, lesson) != 0)
			continue;
		if (text_cols(a->v[i].question) > qw)
			qw = text_cols(a->v[i].question);
		if (text_cols(a->v[i].answer) > aw)
			aw = text_cols(a->v[i].answer);
	}
	/* 2 + Q + 2 + A + 2 + RESULT 6 + 2 + CONF 4 + 2 + TIME 7 + 2 + HINTS 5
	 * + 2 + WHEN 16 columns, kept under the width: the question is cut to
	 * 20, the answer to what is left (at least 10). */
	if (qw > 20)
		qw = 20;
	if (aw > width - qw - 53)
		aw = width - qw - 53 < 10 ? 10 : width - qw - 53;
	hd_buf_printf(b, "\n%s\n  ", lesson);
	put_cell(b, "QUESTION", qw);
	hd_buf_puts(b, "  ");
	put_cell(b, "ANSWER", aw);
	hd_buf_puts(b, "  RESULT  CONF     TIME  HINTS  WHEN (UTC)\n");
	for (i = first; i < a->n; i++) {
		const struct answer *w = &a->v[i];
		char conf[16] = "-", t[16];
		bool latest = true;

		if (strcmp(w->lesson, lesson) != 0)
			continue;
		if (w->confidence > 0)
			snprintf(conf, sizeof conf, "%d/5", w->confidence);
		if (w->seconds < 60)
			snprintf(t, sizeof t, "%.1f s", w->seconds);
		else if (w->seconds < 3600)
			snprintf(t, sizeof t, "%dm%02ds", (int)(w->seconds / 60),
				 (int)w->seconds % 60);
		else
			snprintf(t, sizeof t, "%.1f h", w->seconds / 3600);
		hd_buf_puts(b, "  ");
		put_cell(b, w->question, qw);
		hd_buf_puts(b, "  ");
		put_cell(b, w->answer, aw);
		hd_buf_printf(b, "  %-6s  %-4s  %7s  %5d  %.10s %.5s\n", result_name(w->correct),
			      conf, t, w->hints, w->created,
			      strlen(w->created) > 11 ? w->created + 11 : "");
		if (answer_feedback(cat, w) != NULL) {
			char *fb = hd_san_term_dup(answer_feedback(cat, w), false);

			hd_timeline_wrap(b, "    on that answer: ", fb, width, 20);
			free(fb);
		}
		/* Rows come newest first: an answer is its question's latest
		 * unless a row before it answered the same question. */
		total++;
		for (j = first; j < i && latest; j++)
			latest = strcmp(a->v[j].lesson, lesson) != 0 ||
			    strcmp(a->v[j].question, w->question) != 0;
		if (!latest)
			continue;
		answered++;
		right += w->correct > 0;
		wrong += w->correct == 0;
	}
	hd_buf_printf(b, "  %d answered: %d right, %d wrong", answered, right, wrong);
	if (answered - right - wrong > 0)
		hd_buf_printf(b, ", %d not graded", answered - right - wrong);
	if (total > answered)
		hd_buf_printf(b, " (the latest answer to each question; %d answers in all)", total);
	hd_buf_putc(b, '\n');
}

/*
 * Open the existing database at path (sb its stat) for a reset (read-write)
 * or a listing.  A listing writes nothing, so it opens read-only, which
 * changes nothing and leaves no file beside the database.  A read-only open
 * refuses what only a writer can do: upgrade an older schema (or set one up
 * in an empty file), recover a log its writer left.  Where this user may
 * write the file, a listing refused so opens it read-write instead, and that
 * open's answer stands; a read-only file is read as it is.  Returns the
 * store, or NULL with e set.
 */
static struct hd_store *
open_db(const char *path, const struct stat *sb, bool reset, struct hd_err *e)
{
	struct hd_store *st;

	if (reset)
		return hd_store_open(path, HD_STORE_RW, e);
	if ((st = hd_store_open(path, HD_STORE_RO, e)) != NULL)
		return st;
	if (access(path, W_OK) != 0 || (sb->st_mode & 0222) == 0)
		return NULL;
	memset(e, 0, sizeof *e);
	return hd_store_open(path, HD_STORE_RW, e);
}

/* The learner's roster id as the database records it (for the class
 * gradebook), found by name. */
struct roster_id {
	const char *who;
	char id[HD_STORE_NAME_MAX + 1];
	bool found;
};

static int
find_roster_id(void *ctx, const char *name, const char *roster_id)
{
	struct roster_id *r = ctx;

	if (strcmp(name, r->who) != 0 || roster_id == NULL)
		return 0;
	snprintf(r->id, sizeof r->id, "%s", roster_id);
	r->found = true;
	return 1;
}

/* One line: the id the class gradebook will match this learner by, or how
 * to give one.  A database too damaged to say is left to the listing. */
static void
put_learner_id(struct hd_buf *b, struct hd_store *st, const char *who)
{
	struct roster_id r = { .who = who };
	struct hd_err ignored = { 0 };

	if (hd_store_learners_each(st, find_roster_id, &r, &ignored) != 0)
		return;
	if (r.found) {
		char *id = hd_san_term_dup(r.id, false);

		hd_buf_printf(b,
			      "Learner id %s: your instructor's gradebook finds you by it "
			      "(learner-id in the configuration file).\n",
			      id);
		free(id);
	} else
		hd_buf_printf(b,
			      "No learner id recorded: the instructor's gradebook finds you by "
			      "name; to be found by your student id, put 'learner-id = ID' in "
			      "~/.config/hdsim/config and open hdsim once.\n");
}

/*
 * hdsim progress [LESSON] [--learner NAME] [--reset]: the learner's answers,
 * newest first, grouped by lesson with a summary each; or delete them.  A
 * database that does not exist yet holds no answers and is not created.
 */
int
hd_cmd_progress(struct hd_cmd_ctx *x)
{
	struct hd_err e = { 0 }, ignored = { 0 };
	struct answers a = { 0 };
	struct hd_store *st = NULL;
	struct hd_buf b;
	struct stat sb;
	const char *who = hd_rcfile_learner(x->o->learner), *lesson = NULL;
	char *path = x->o->db ? hd_xstrdup(x->o->db) : hd_store_default_path();
	int64_t gone = 0;
	int rc = HD_EXIT_OK, i;
	size_t k, j;

	hd_buf_init(&b);
	if (hd_store_learner_check(who, &e) != 0) {
		rc = hd_cmd_fail(x, &e);
		goto out;
	}
	if (x->nargs == 1) {
		/* A lesson of the catalogue by id, number or prefix; any other name
		 * as given, for answers to a lesson no longer installed. */
		lesson = x->args[0];
		if ((i = hd_catalog_find(x->cat, lesson, &ignored)) >= 0)
			lesson = hd_lesson_id(hd_catalog_get(x->cat, i));
	}
	memset(&sb, 0, sizeof sb);
	if (stat(path, &sb) == 0 || errno != ENOENT) {
		if ((st = open_db(path, &sb, x->o->reset, &e)) == NULL ||
		    (x->o->reset ?
			 hd_store_progress_reset(st, who, lesson, &gone, &e) :
			 hd_store_progress_each(st, who, lesson, keep_answer, &a, &e)) != 0) {
			rc = hd_cmd_fail(x, &e);
			goto out;
		}
	}
	if (x->o->reset)
		hd_buf_printf(&b, "%lld answer%s removed for %s (%s%s).\n", (long long)gone,
			      gone == 1 ? "" : "s", who, lesson ? "lesson " : "all lessons",
			      lesson ? lesson : "");
	else if (a.n == 0)
		hd_buf_printf(&b, "No answers recorded for %s%s%s yet (database %s).\n", who,
			      lesson ? " in lesson " : "", lesson ? lesson : "", path);
	else {
		hd_buf_printf(&b, "Answers of %s, newest first (database %s)\n", who, path);
		/* Lessons in the order of their newest answer. */
		for (k = 0; k < a.n; k++) {
			for (j = 0; j < k && strcmp(a.v[j].lesson, a.v[k].lesson) != 0; j++)
				;
			if (j == k)
				put_lesson(&b, &a, k, x->width, x->cat);
		}
	}
	if (st != NULL && !x->o->reset)
		put_learner_id(&b, st, who);
	hd_cmd_put(x, &b);
out:
	answers_free(&a);
	hd_buf_free(&b);
	hd_store_close(st);
	free(path);
	return rc;
}
