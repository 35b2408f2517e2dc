/*
 * sql.c - the store's calls into SQLite (see store_priv.h).
 *
 * Every SQLite call goes through a few wrappers that turn a failure into an
 * hd_err naming the call and carrying SQLite's own message, with a hint for
 * a user where SQLite's terse one needs it, or that the call ran past its
 * limit.  Also the small pieces every write uses: binding a text or NULL,
 * stepping a statement to its end, inserting-or-finding a keyed row.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "store/store_priv.h"

/* What SQLite's terse message means for a user, by its extended code. */
static const struct {
	int code;
	const char *hint;
} hints[] = {
	{ SQLITE_READONLY,
	  "this user cannot write the database, its folder or a file beside "
	  "it (the -wal and -shm logs may belong to another user)" },
	{ SQLITE_READONLY_CANTINIT,
	  "its -shm file belongs to another user: read it again once "
	  "the writer has finished" },
	{ SQLITE_READONLY_RECOVERY,
	  "its log needs recovering, which only a writer can do: read "
	  "it again once its owner has opened it" },
	{ SQLITE_READONLY_CANTLOCK, "its -shm file cannot be locked by this user" },
	{ SQLITE_READONLY_ROLLBACK,
	  "it holds a transaction cut short, which only a writer can "
	  "roll back: read it again once its owner has opened it" },
	{ SQLITE_READONLY_DIRECTORY, "its folder cannot be written by this user" },
	{ SQLITE_CANTOPEN,
	  "the file, its folder or a file beside it (-wal, -shm) cannot be "
	  "opened by this user" },
	{ SQLITE_TOOBIG, "it holds a value larger than hdsim ever stores" },
};

/* A hint for the last failure, or "" (the interrupt of a call past its limit
 * says so). */
static const char *
hint(struct hd_store *s, char *buf, size_t n)
{
	int code = s && s->db ? sqlite3_extended_errcode(s->db) : SQLITE_NOMEM;
	size_t i;

	buf[0] = '\0';
	if (s && s->stopped) {
		snprintf(buf, n,
			 " (the call ran past its limit of %g s and was stopped: the "
			 "database may be built to stall its readers)",
			 s->limit);
		return buf;
	}
	for (i = 0; i < HD_ARRAY_LEN(hints); i++)
		if (hints[i].code == code || hints[i].code == (code & 0xff)) {
			snprintf(buf, n, " (%s)", hints[i].hint);
			if (hints[i].code == code)
				break;
		}
	return buf;
}

/* Turn the last SQLite failure into e, naming the call. */
void
store_fail(struct hd_store *s, struct hd_err *e, const char *call)
{
	const char *where = s && s->path ? s->path : "database";
	char h[200];

	hd_err_set(e, HD_EXIT_INPUT, where, "%s failed: %s%s", call,
		   s && s->db ? sqlite3_errmsg(s->db) : "out of memory", hint(s, h, sizeof h));
}

int
store_run_row(struct hd_store *s, const char *sql, int64_t run_id, sqlite3_stmt **st,
	      struct hd_err *e)
{
	int rc;

	*st = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		store_fail(s, e, "SELECT FROM runs");
		return -1;
	}
	sqlite3_bind_int64(*st, 1, run_id);
	if ((rc = sqlite3_step(*st)) == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		hd_err_set(e, HD_EXIT_INPUT, s->path, "no run %lld in this database",
			   (long long)run_id);
	else
		store_fail(s, e, "SELECT FROM runs");
	sqlite3_finalize(*st);
	*st = NULL;
	return -1;
}

int
store_exec(struct hd_store *s, const char *sql, const char *what, struct hd_err *e)
{
	char *msg = NULL, h[200];

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "sqlite3_exec(%s) failed: %s%s", what,
			   msg ? msg : sqlite3_errmsg(s->db), hint(s, h, sizeof h));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Run a one-row, one-integer query. */
int
store_query_int(struct hd_store *s, const char *sql, int64_t *out, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, sql);
		return -1;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		store_fail(s, e, sql);
		sqlite3_finalize(st);
		return -1;
	}
	*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* Bind text or NULL. */
int
store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Run a prepared statement to completion (no rows expected). */
int
store_step_done(struct hd_store *s, sqlite3_stmt *st, const char *what, struct hd_err *e)
{
	if (sqlite3_step(st) != SQLITE_DONE) {
		store_fail(s, e, what);
		return -1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return 0;
}

/*
 * Insert-or-find a row keyed by its UNIQUE columns; returns its id or -1.
 * The insert binds vals[0..nins), the select vals[0..nsel).
 */
int64_t
store_upsert_id(struct hd_store *s, const char *insert, const char *select, const char *const *vals,
		int nins, int nsel, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t id = -1;
	int i, rc;

	if (sqlite3_prepare_v2(s->db, insert, -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, insert);
		return -1;
	}
	for (i = 0; i < nins; i++)
		store_bind_text(st, i + 1, vals[i]);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_fail(s, e, insert);
		return -1;
	}
	if (sqlite3_prepare_v2(s->db, select, -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, select);
		return -1;
	}
	for (i = 0; i < nsel; i++)
		store_bind_text(st, i + 1, vals[i]);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else
		store_fail(s, e, select);
	sqlite3_finalize(st);
	return id;
}
