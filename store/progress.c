/*
 * progress.c - learners and their answers to the lessons' questions in the
 * store: added (with the lesson version answered, snapshot.c), listed (read
 * back checked, read.c) and reset (see store.h).
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store/store_priv.h"

/* A learner's name: 1 to HD_STORE_NAME_MAX bytes, no control characters. */
static int
check_learner_name(const char *name, struct hd_err *e)
{
	const unsigned char *c;

	if (name == NULL || name[0] == '\0') {
		hd_err_set(e, HD_EXIT_INPUT, NULL, "a learner needs a name (it is empty)");
		return -1;
	}
	if (strlen(name) > HD_STORE_NAME_MAX) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "the learner name '%.24s...' is %zu bytes long; at most %d are allowed",
			   name, strlen(name), HD_STORE_NAME_MAX);
		return -1;
	}
	for (c = (const unsigned char *)name; *c != '\0'; c++) {
		if (*c < 0x20 || *c == 0x7f) {
			hd_err_set(e, HD_EXIT_INPUT, NULL,
				   "the learner name has a control character (byte %u at %zu)", *c,
				   (size_t)(c - (const unsigned char *)name));
			return -1;
		}
	}
	return 0;
}

int
hd_store_learner_check(const char *name, struct hd_err *e)
{
	return check_learner_name(name, e);
}

static int64_t
learner_id(struct hd_store *s, const char *name, struct hd_err *e)
{
	const char *v[] = { name };

	return store_upsert_id(s, "INSERT OR IGNORE INTO learners (name) VALUES (?)",
			       "SELECT id FROM learners WHERE name = ?", v, 1, 1, e);
}

int
hd_store_learner(struct hd_store *s, const char *name, int64_t *id, struct hd_err *e)
{
	int64_t got;

	store_begin(s);
	if (check_learner_name(name, e) != 0 || store_may_write(s, e) != 0)
		return -1;
	if ((got = learner_id(s, name, e)) < 0)
		return -1;
	if (id != NULL)
		*id = got;
	return 0;
}

/* Everything hd_store_progress_add promises to refuse, before any write. */
static int
check_progress(const struct hd_store_progress *p, struct hd_err *e)
{
	const struct {
		const char *v, *what;
	} texts[] = {
		{ p->lesson, "lesson" },
		{ p->question, "question" },
		{ p->answer, "answer" },
	};
	size_t i;

	if (check_learner_name(p->learner, e) != 0)
		return -1;
	for (i = 0; i < HD_ARRAY_LEN(texts); i++) {
		if (texts[i].v == NULL || texts[i].v[0] == '\0') {
			hd_err_set(e, HD_EXIT_INPUT, NULL,
				   "an answer to store needs its %s "
				   "(it is empty)",
				   texts[i].what);
			return -1;
		}
	}
	if (p->correct < -1 || p->correct > 1) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "correct is %d; it must be 1 (right), "
			   "0 (wrong) or -1 (not gradable)",
			   p->correct);
		return -1;
	}
	if (p->confidence < 0 || p->confidence > 5) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "confidence is %d; it must be 1 to 5, "
			   "or 0 when the learner gave none",
			   p->confidence);
		return -1;
	}
	if (!isfinite(p->seconds) || p->seconds < 0) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "the time taken to answer is %g s; "
			   "it must be a number of seconds >= 0",
			   p->seconds);
		return -1;
	}
	if (p->hints < 0) {
		hd_err_set(e, HD_EXIT_INPUT, NULL, "hints shown is %d; it must be >= 0", p->hints);
		return -1;
	}
	if (p->seen < -1 || p->seen > 1) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "seen is %d; it must be 1 (the run had been shown), 0 (not) "
			   "or -1 (not known)",
			   p->seen);
		return -1;
	}
	if (p->snapshot != NULL &&
	    store_snapshot_check(p->snapshot, p->lesson, p->question, e) != 0)
		return -1;
	return 0;
}

int
hd_store_progress_add(struct hd_store *s, const struct hd_store_progress *p, int64_t *id,
		      struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t learner;

	store_begin(s);
	if (check_progress(p, e) != 0 || store_may_write(s, e) != 0)
		return -1;
	if (store_exec(s, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", e) != 0)
		return -1;
	if ((learner = learner_id(s, p->learner, e)) < 0)
		goto rollback;
	if (p->snapshot != NULL && store_snapshot_insert(s, p->snapshot, e) != 0)
		goto rollback;
	if (sqlite3_prepare_v2(
		s->db,
		"INSERT INTO progress (learner_id, lesson, question, answer, correct, confidence,"
		" seconds, hints, profile, version, seen, lesson_hash)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
		-1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "sqlite3_prepare_v2(INSERT INTO progress)");
		goto rollback;
	}
	sqlite3_bind_int64(st, 1, learner);
	store_bind_text(st, 2, p->lesson);
	store_bind_text(st, 3, p->question);
	store_bind_text(st, 4, p->answer);
	if (p->correct >= 0)
		sqlite3_bind_int(st, 5, p->correct);
	if (p->confidence > 0)
		sqlite3_bind_int(st, 6, p->confidence);
	sqlite3_bind_double(st, 7, p->seconds);
	sqlite3_bind_int(st, 8, p->hints);
	store_bind_text(st, 9, p->profile);
	store_bind_text(st, 10, PACKAGE_VERSION);
	if (p->seen >= 0)
		sqlite3_bind_int(st, 11, p->seen);
	store_bind_text(st, 12, p->snapshot != NULL ? p->snapshot->hash : NULL);
	if (sqlite3_step(st) != SQLITE_DONE) {
		store_fail(s, e, "INSERT INTO progress");
		goto rollback;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(s->db);
	if (store_exec(s, "COMMIT", "COMMIT", e) != 0)
		goto rollback;
	return 0;
rollback:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* One answer's row into row (its strings live as long as the statement's
 * row): every text hdsim writes there present, numbers in their ranges. */
static int
read_answer(struct hd_store *s, sqlite3_stmt *st, struct hd_store_progress *row, struct hd_err *e)
{
	static const struct store_field fields[] = {
		{ 5, "correct", 0, 1, 1, -1 },
		{ 6, "confidence", 1, 5, 1, 0 },
		{ 8, "hints", 0, INT_MAX, 0, 0 },
		{ 11, "seen", 0, 1, 1, -1 },
	};
	static const struct {
		int col, null_ok;
		const char *name;
		size_t off;
	} texts[] = {
		{ 1, 0, "learner", offsetof(struct hd_store_progress, learner) },
		{ 2, 0, "lesson", offsetof(struct hd_store_progress, lesson) },
		{ 3, 0, "question", offsetof(struct hd_store_progress, question) },
		{ 4, 0, "answer", offsetof(struct hd_store_progress, answer) },
		{ 9, 1, "profile", offsetof(struct hd_store_progress, profile) },
		{ 10, 0, "created", offsetof(struct hd_store_progress, created) },
		{ 12, 1, "lesson_hash", offsetof(struct hd_store_progress, lesson_hash) },
	};
	int64_t v[12];
	char what[48];
	size_t i;

	memset(row, 0, sizeof *row);
	row->id = sqlite3_column_int64(st, 0);
	snprintf(what, sizeof what, "answer %lld", (long long)row->id);
	if (store_read_fields(s, st, fields, HD_ARRAY_LEN(fields), v, what, e) != 0)
		return -1;
	for (i = 0; i < HD_ARRAY_LEN(texts); i++) {
		const char **to = (const char **)((char *)row + texts[i].off);

		if ((*to = store_read_text(s, st, texts[i].col, texts[i].null_ok, what,
					   texts[i].name, e)) == NULL)
			return -1;
	}
	if (sqlite3_column_type(st, 9) == SQLITE_NULL)
		row->profile = NULL;
	if (sqlite3_column_type(st, 12) == SQLITE_NULL)
		row->lesson_hash = NULL;
	else if (!hd_store_hash_ok(row->lesson_hash))
		return store_bad_value(s, st, 12, what, "lesson_hash", "not 64 hex digits", e);
	row->seconds = sqlite3_column_double(st, 7);
	if (sqlite3_column_type(st, 7) == SQLITE_NULL || !isfinite(row->seconds) ||
	    row->seconds < 0)
		return store_bad_value(s, st, 7, what, "seconds", "not a number of seconds >= 0",
				       e);
	row->correct = (int)v[5];
	row->confidence = (int)v[6];
	row->hints = (int)v[8];
	row->seen = (int)v[11];
	return 0;
}

int
hd_store_progress_each(struct hd_store *s, const char *learner, const char *lesson,
		       int (*fn)(void *ctx, const struct hd_store_progress *row), void *ctx,
		       struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	store_begin(s);
	if (sqlite3_prepare_v2(
		s->db,
		"SELECT p.id, l.name, p.lesson, p.question, p.answer, p.correct, p.confidence,"
		" p.seconds, p.hints, p.profile, p.created, p.seen, p.lesson_hash"
		" FROM progress p JOIN learners l ON l.id = p.learner_id"
		" WHERE (?1 IS NULL OR l.name = ?1) AND (?2 IS NULL OR p.lesson = ?2)"
		" ORDER BY p.id DESC",
		-1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "SELECT FROM progress");
		return -1;
	}
	store_bind_text(st, 1, learner);
	store_bind_text(st, 2, lesson);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct hd_store_progress row;

		if (read_answer(s, st, &row, e) != 0)
			goto fail;
		if (fn(ctx, &row) != 0)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM progress");
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

int
hd_store_progress_reset(struct hd_store *s, const char *learner, const char *lesson,
			int64_t *deleted, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t n;

	store_begin(s);
	if (check_learner_name(learner, e) != 0 || store_may_write(s, e) != 0)
		return -1;
	if (store_exec(s, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", e) != 0)
		return -1;
	if (sqlite3_prepare_v2(
		s->db,
		"DELETE FROM progress WHERE learner_id = (SELECT id FROM learners WHERE name = ?1)"
		" AND (?2 IS NULL OR lesson = ?2)",
		-1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "sqlite3_prepare_v2(DELETE FROM progress)");
		goto rollback;
	}
	store_bind_text(st, 1, learner);
	store_bind_text(st, 2, lesson);
	if (sqlite3_step(st) != SQLITE_DONE) {
		store_fail(s, e, "DELETE FROM progress");
		goto rollback;
	}
	sqlite3_finalize(st);
	st = NULL;
	n = sqlite3_changes(s->db);
	if (store_exec(s, "COMMIT", "COMMIT", e) != 0)
		goto rollback;
	if (deleted != NULL)
		*deleted = n;
	return 0;
rollback:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}
