/*
 * snapshot.c - the lesson as it was answered (see store.h): each version of
 * a lesson, by the SHA-256 of its text, stored once with its id, title and
 * questions (text, options, answer, points, misconceptions) when an answer
 * to it is stored, and read back checked, so that grading and the class
 * report never need the lesson file.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_priv.h"

/* ---- a lesson's snapshot ------------------------------------------------------ */

static const char *const kind_names[] = {
	[HD_Q_CHOICE] = "choice",
	[HD_Q_ORDER] = "order",
	[HD_Q_ESTIMATE] = "estimate",
};

/* The answer as text: an option's id, the ids in order, or the estimate. */
static char *
answer_text(const struct hd_question *q)
{
	struct hd_buf b;
	int i;

	hd_buf_init(&b);
	switch (q->kind) {
	case HD_Q_CHOICE:
		hd_buf_puts(&b, q->option_ids[q->answer]);
		break;
	case HD_Q_ORDER:
		for (i = 0; i < q->noptions && q->order != NULL; i++)
			hd_buf_printf(&b, "%s%s", i > 0 ? " " : "", q->option_ids[q->order[i]]);
		break;
	case HD_Q_ESTIMATE:
		hd_buf_printf(&b, "%s (%s) within %g %%", q->estimate_expr,
			      hd_dim_name(q->estimate_dim), q->tolerance * 100);
		break;
	}
	if (b.s == NULL)
		hd_buf_puts(&b, "");
	return hd_buf_take(&b);
}

struct hd_store_snapshot *
hd_store_snapshot_of(const struct hd_lesson *l)
{
	struct hd_store_snapshot *snap = hd_xcalloc(1, sizeof *snap);
	int i, k, n = hd_lesson_nquestions(l);

	snap->hash = hd_xstrdup(hd_lesson_hash(l));
	snap->lesson = hd_xstrdup(hd_lesson_id(l));
	snap->title = hd_xstrdup(hd_lesson_title(l) ? hd_lesson_title(l) : "");
	snap->questions = hd_xcalloc((size_t)n + 1, sizeof *snap->questions);
	snap->nquestions = n;
	for (i = 0; i < n; i++) {
		const struct hd_question *q = hd_lesson_question(l, i);
		struct hd_store_snap_question *sq = &snap->questions[i];

		sq->id = hd_xstrdup(q->id);
		sq->kind = hd_xstrdup(kind_names[q->kind]);
		sq->prompt = hd_xstrdup(q->prompt ? q->prompt : "");
		sq->answer = answer_text(q);
		sq->points = q->points;
		sq->options = hd_xcalloc((size_t)q->noptions + 1, sizeof *sq->options);
		sq->noptions = q->noptions;
		for (k = 0; k < q->noptions; k++) {
			sq->options[k].id = hd_xstrdup(q->option_ids[k]);
			sq->options[k].text = hd_xstrdup(q->options[k]);
			if (q->misconceptions != NULL && q->misconceptions[k] != NULL)
				sq->options[k].misconception = hd_xstrdup(q->misconceptions[k]);
		}
	}
	return snap;
}

static void
question_free(struct hd_store_snap_question *q)
{
	int k;

	free(q->id);
	free(q->kind);
	free(q->prompt);
	free(q->answer);
	for (k = 0; k < q->noptions; k++) {
		free(q->options[k].id);
		free(q->options[k].text);
		free(q->options[k].misconception);
	}
	free(q->options);
}

void
hd_store_snapshot_free(struct hd_store_snapshot *snap)
{
	int i;

	if (snap == NULL)
		return;
	for (i = 0; i < snap->nquestions; i++)
		question_free(&snap->questions[i]);
	free(snap->questions);
	free(snap->hash);
	free(snap->lesson);
	free(snap->title);
	free(snap);
}

int
hd_store_snapshot_points(const struct hd_store_snapshot *snap)
{
	int i, n = 0;

	for (i = 0; i < snap->nquestions; i++)
		n += snap->questions[i].points;
	return n;
}

int
hd_store_snapshot_find(const struct hd_store_snapshot *snap, const char *id)
{
	int i;

	for (i = 0; i < snap->nquestions; i++)
		if (strcmp(snap->questions[i].id, id) == 0)
			return i;
	return -1;
}

bool
hd_store_hash_ok(const char *s)
{
	size_t i;

	if (s == NULL)
		return false;
	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[64] == '\0';
}

/* ---- writing ------------------------------------------------------------------ */

static bool
kind_ok(const char *k)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(kind_names); i++)
		if (k != NULL && strcmp(k, kind_names[i]) == 0)
			return true;
	return false;
}

static bool
text_ok(const char *s)
{
	return s != NULL && s[0] != '\0';
}

int
store_snapshot_check(const struct hd_store_snapshot *snap, const char *lesson, const char *question,
		     struct hd_err *e)
{
	int i, k;

	if (!hd_store_hash_ok(snap->hash) || !text_ok(snap->lesson) || snap->title == NULL) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "the lesson to store with the answer needs a hash of 64 "
			   "hex digits, an id and a title");
		return -1;
	}
	if (strcmp(snap->lesson, lesson) != 0) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "the lesson stored with the answer is '%s', but the "
			   "answer is to lesson '%s'",
			   snap->lesson, lesson);
		return -1;
	}
	if (snap->nquestions < 0 || snap->nquestions > HD_STORE_SNAP_QUESTIONS) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "the lesson has %d questions; at most %d are "
			   "stored",
			   snap->nquestions, HD_STORE_SNAP_QUESTIONS);
		return -1;
	}
	for (i = 0; i < snap->nquestions; i++) {
		const struct hd_store_snap_question *q = &snap->questions[i];

		if (!text_ok(q->id) || !kind_ok(q->kind) || q->prompt == NULL ||
		    q->answer == NULL || q->points < 0 || q->points > HD_STORE_SNAP_POINTS ||
		    q->noptions < 0 || q->noptions > HD_STORE_SNAP_OPTIONS) {
			hd_err_set(e, HD_EXIT_INPUT, NULL,
				   "question %d of the lesson to store is incomplete "
				   "or past a limit",
				   i + 1);
			return -1;
		}
		for (k = 0; k < q->noptions; k++)
			if (!text_ok(q->options[k].id) || q->options[k].text == NULL) {
				hd_err_set(e, HD_EXIT_INPUT, NULL,
					   "option %d of question %s of the lesson to "
					   "store has no id or text",
					   k + 1, q->id);
				return -1;
			}
	}
	if (hd_store_snapshot_find(snap, question) < 0) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "the lesson stored with the answer has no question "
			   "'%s'",
			   question);
		return -1;
	}
	return 0;
}

/* Prepare sql into *st: 0, or -1 with e set. */
static int
prepare(struct hd_store *s, const char *sql, sqlite3_stmt **st, struct hd_err *e)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	store_fail(s, e, sql);
	return -1;
}

int
store_snapshot_insert(struct hd_store *s, const struct hd_store_snapshot *snap, struct hd_err *e)
{
	sqlite3_stmt *ins = NULL, *q = NULL, *o = NULL;
	int rc = -1, i, k;

	if (prepare(s,
		    "INSERT OR IGNORE INTO lesson_snapshots (hash, lesson, title)"
		    " VALUES (?,?,?)",
		    &ins, e) != 0)
		goto out;
	store_bind_text(ins, 1, snap->hash);
	store_bind_text(ins, 2, snap->lesson);
	store_bind_text(ins, 3, snap->title);
	if (store_step_done(s, ins, "INSERT INTO lesson_snapshots", e) != 0)
		goto out;
	if (sqlite3_changes(s->db) == 0) {
		rc = 0; /* this version is stored already */
		goto out;
	}
	if (prepare(s,
		    "INSERT INTO snapshot_questions (hash, idx, question, kind, prompt, answer,"
		    " points) VALUES (?,?,?,?,?,?,?)",
		    &q, e) != 0 ||
	    prepare(s,
		    "INSERT INTO snapshot_options (hash, question_idx, idx, option, text,"
		    " misconception) VALUES (?,?,?,?,?,?)",
		    &o, e) != 0)
		goto out;
	for (i = 0; i < snap->nquestions; i++) {
		const struct hd_store_snap_question *sq = &snap->questions[i];

		store_bind_text(q, 1, snap->hash);
		sqlite3_bind_int(q, 2, i);
		store_bind_text(q, 3, sq->id);
		store_bind_text(q, 4, sq->kind);
		store_bind_text(q, 5, sq->prompt);
		store_bind_text(q, 6, sq->answer);
		sqlite3_bind_int(q, 7, sq->points);
		if (store_step_done(s, q, "INSERT INTO snapshot_questions", e) != 0)
			goto out;
		for (k = 0; k < sq->noptions; k++) {
			store_bind_text(o, 1, snap->hash);
			sqlite3_bind_int(o, 2, i);
			sqlite3_bind_int(o, 3, k);
			store_bind_text(o, 4, sq->options[k].id);
			store_bind_text(o, 5, sq->options[k].text);
			store_bind_text(o, 6, sq->options[k].misconception);
			if (store_step_done(s, o, "INSERT INTO snapshot_options", e) != 0)
				goto out;
		}
	}
	rc = 0;
out:
	sqlite3_finalize(ins);
	sqlite3_finalize(q);
	sqlite3_finalize(o);
	return rc;
}

/* ---- reading back ------------------------------------------------------------ */

/* The questions of version snap->hash, then their options, into snap: each
 * present once, in order, within the limits.  0, or -1 with e set. */
static int
read_questions(struct hd_store *s, sqlite3_stmt *qs, sqlite3_stmt *os,
	       struct hd_store_snapshot *snap, struct hd_err *e)
{
	static const struct store_field qf[] = {
		{ 0, "idx", 0, HD_STORE_SNAP_QUESTIONS - 1, 0, 0 },
		{ 5, "points", 0, HD_STORE_SNAP_POINTS, 0, 0 },
	};
	static const struct store_field of[] = {
		{ 0, "question_idx", 0, HD_STORE_SNAP_QUESTIONS - 1, 0, 0 },
		{ 1, "idx", 0, HD_STORE_SNAP_OPTIONS - 1, 0, 0 },
	};
	char what[160];
	int64_t v[6];
	int rc;

	snprintf(what, sizeof what, "lesson version %.16s", snap->hash);
	store_bind_text(qs, 1, snap->hash);
	while ((rc = sqlite3_step(qs)) == SQLITE_ROW) {
		struct hd_store_snap_question *q;

		if (store_read_fields(s, qs, qf, HD_ARRAY_LEN(qf), v, what, e) != 0)
			return -1;
		if (v[0] != snap->nquestions)
			return store_bad_value(s, qs, 0, what, "question idx",
					       "not the next question's index", e);
		snap->questions = hd_xrealloc(
		    snap->questions, (size_t)(snap->nquestions + 1) * sizeof *snap->questions);
		q = &snap->questions[snap->nquestions++];
		memset(q, 0, sizeof *q);
		q->points = (int)v[5];
		if (store_col_dup(s, qs, 1, what, "question", 0, &q->id, e) != 0 ||
		    store_col_dup(s, qs, 2, what, "kind", 0, &q->kind, e) != 0 ||
		    store_col_dup(s, qs, 3, what, "prompt", 0, &q->prompt, e) != 0 ||
		    store_col_dup(s, qs, 4, what, "answer", 0, &q->answer, e) != 0)
			return -1;
		if (q->id[0] == '\0' || !kind_ok(q->kind))
			return store_bad_value(s, qs, q->id[0] == '\0' ? 1 : 2, what,
					       q->id[0] == '\0' ? "question" : "kind",
					       "not a question hdsim writes", e);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM snapshot_questions");
		return -1;
	}
	store_bind_text(os, 1, snap->hash);
	while ((rc = sqlite3_step(os)) == SQLITE_ROW) {
		struct hd_store_snap_question *q;
		struct hd_store_snap_option *o;

		if (store_read_fields(s, os, of, HD_ARRAY_LEN(of), v, what, e) != 0)
			return -1;
		if (v[0] >= snap->nquestions)
			return store_bad_value(s, os, 0, what, "option's question",
					       "not a question of the version", e);
		q = &snap->questions[v[0]];
		if (v[1] != q->noptions)
			return store_bad_value(s, os, 1, what, "option idx",
					       "not the next option's index", e);
		q->options = hd_xrealloc(q->options,
					 (size_t)(q->noptions + 1) * sizeof *q->options);
		o = &q->options[q->noptions++];
		memset(o, 0, sizeof *o);
		if (store_col_dup(s, os, 2, what, "option", 0, &o->id, e) != 0 ||
		    store_col_dup(s, os, 3, what, "option text", 0, &o->text, e) != 0 ||
		    store_col_dup(s, os, 4, what, "misconception", 1, &o->misconception, e) != 0)
			return -1;
		if (o->id[0] == '\0')
			return store_bad_value(s, os, 2, what, "option", "an empty id", e);
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM snapshot_options");
		return -1;
	}
	return 0;
}

int
hd_store_snapshots_each(struct hd_store *s,
			int (*fn)(void *ctx, const struct hd_store_snapshot *snap), void *ctx,
			struct hd_err *e)
{
	sqlite3_stmt *ls = NULL, *qs = NULL, *os = NULL;
	struct hd_store_snapshot *snap = NULL;
	int rc = -1, step;

	store_begin(s);
	if (prepare(s, "SELECT hash, lesson, title FROM lesson_snapshots ORDER BY hash", &ls, e) !=
		0 ||
	    prepare(s,
		    "SELECT idx, question, kind, prompt, answer, points FROM snapshot_questions"
		    " WHERE hash = ?1 ORDER BY idx",
		    &qs, e) != 0 ||
	    prepare(s,
		    "SELECT question_idx, idx, option, text, misconception FROM snapshot_options"
		    " WHERE hash = ?1 ORDER BY question_idx, idx",
		    &os, e) != 0)
		goto out;
	while ((step = sqlite3_step(ls)) == SQLITE_ROW) {
		snap = hd_xcalloc(1, sizeof *snap);
		if (store_col_dup(s, ls, 0, "a lesson version", "hash", 0, &snap->hash, e) != 0)
			goto out;
		if (!hd_store_hash_ok(snap->hash)) {
			store_bad_value(s, ls, 0, "a lesson version", "hash", "not 64 hex digits",
					e);
			goto out;
		}
		if (store_col_dup(s, ls, 1, "a lesson version", "lesson", 0, &snap->lesson, e) !=
			0 ||
		    store_col_dup(s, ls, 2, "a lesson version", "title", 0, &snap->title, e) != 0)
			goto out;
		if (snap->lesson[0] == '\0') {
			store_bad_value(s, ls, 1, "a lesson version", "lesson", "an empty id", e);
			goto out;
		}
		if (read_questions(s, qs, os, snap, e) != 0)
			goto out;
		sqlite3_reset(qs);
		sqlite3_reset(os);
		if (fn(ctx, snap) != 0) {
			rc = 0;
			goto out;
		}
		hd_store_snapshot_free(snap);
		snap = NULL;
	}
	if (step != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM lesson_snapshots");
		goto out;
	}
	rc = 0;
out:
	hd_store_snapshot_free(snap);
	sqlite3_finalize(ls);
	sqlite3_finalize(qs);
	sqlite3_finalize(os);
	return rc;
}
