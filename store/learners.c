/*
 * learners.c - who the learners of a database are to their class: each
 * learner's roster id (a student number or a login they give once, as
 * learner-id in the configuration file), recorded and listed (see store.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "store/store_priv.h"

int
hd_store_roster_id_check(const char *id, struct hd_err *e)
{
	const unsigned char *c;
	size_t n;

	if (id == NULL || id[0] == '\0') {
		hd_err_set(e, HD_EXIT_INPUT, NULL, "a learner id is empty");
		return -1;
	}
	n = strlen(id);
	if (n > HD_STORE_NAME_MAX) {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "the learner id '%.24s...' is %zu bytes long; at most %d are allowed",
			   id, n, HD_STORE_NAME_MAX);
		return -1;
	}
	for (c = (const unsigned char *)id; *c != '\0'; c++)
		if (*c < 0x20 || *c == 0x7f) {
			hd_err_set(e, HD_EXIT_INPUT, NULL,
				   "the learner id has a control character (byte %u at %zu)", *c,
				   (size_t)(c - (const unsigned char *)id));
			return -1;
		}
	if (id[0] == ' ' || id[n - 1] == ' ') {
		hd_err_set(e, HD_EXIT_INPUT, NULL,
			   "the learner id '%s' starts or ends with a space", id);
		return -1;
	}
	return 0;
}

int
hd_store_learner_set_roster_id(struct hd_store *s, const char *name, const char *id,
			       struct hd_err *e)
{
	const char *v[] = { name };
	sqlite3_stmt *st = NULL;
	int64_t learner;

	store_begin(s);
	if (hd_store_learner_check(name, e) != 0 || hd_store_roster_id_check(id, e) != 0 ||
	    store_may_write(s, e) != 0)
		return -1;
	if (store_exec(s, "BEGIN IMMEDIATE", "BEGIN IMMEDIATE", e) != 0)
		return -1;
	if ((learner = store_upsert_id(s, "INSERT OR IGNORE INTO learners (name) VALUES (?)",
				       "SELECT id FROM learners WHERE name = ?", v, 1, 1, e)) < 0)
		goto rollback;
	if (sqlite3_prepare_v2(s->db, "UPDATE learners SET roster_id = ?1 WHERE id = ?2", -1, &st,
			       NULL) != SQLITE_OK) {
		store_fail(s, e, "sqlite3_prepare_v2(UPDATE learners)");
		goto rollback;
	}
	store_bind_text(st, 1, id);
	sqlite3_bind_int64(st, 2, learner);
	if (store_step_done(s, st, "UPDATE learners", e) != 0)
		goto rollback;
	sqlite3_finalize(st);
	st = NULL;
	if (store_exec(s, "COMMIT", "COMMIT", e) != 0)
		goto rollback;
	return 0;
rollback:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int
hd_store_learners_each(struct hd_store *s,
		       int (*fn)(void *ctx, const char *name, const char *roster_id), void *ctx,
		       struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	store_begin(s);
	if (sqlite3_prepare_v2(s->db, "SELECT id, name, roster_id FROM learners ORDER BY name", -1,
			       &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "SELECT FROM learners");
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *id = sqlite3_column_type(st, 2) == SQLITE_NULL ?
		    NULL :
		    (const char *)sqlite3_column_text(st, 2);
		struct hd_err why = { 0 };
		char what[48];

		snprintf(what, sizeof what, "learner %lld", (long long)sqlite3_column_int64(st, 0));
		if (hd_store_learner_check(name, &why) != 0) {
			store_bad_value(s, st, 1, what, "name", "not a learner's name", e);
			goto fail;
		}
		if (sqlite3_column_type(st, 2) != SQLITE_NULL &&
		    (id == NULL || hd_store_roster_id_check(id, &why) != 0)) {
			store_bad_value(s, st, 2, what, "roster_id", "not a learner id", e);
			goto fail;
		}
		if (fn(ctx, name, id) != 0)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_fail(s, e, "SELECT FROM learners");
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}
