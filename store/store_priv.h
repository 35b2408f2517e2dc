/*
 * store_priv.h - what the store's files share and nothing else sees: the
 * connection behind struct hd_store, the SQLite wrappers that turn a failure
 * into an hd_err (sql.c), the start of each call and of each write
 * (store.c), the schema's migrations and check (schema.c), and the checked
 * reads of values from a database that may be someone else's (read.c), and
 * the lesson versions stored with answers (snapshot.c).
 *
 * store.c opens and closes; sql.c wraps SQLite's calls; schema.c migrates and
 * checks the schema; read.c checks what is read back; spans.c, repeats.c,
 * runs.c and progress.c read and write the rows of their tables.
 */
#ifndef HD_STORE_PRIV_H
#define HD_STORE_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store/store.h"

struct hd_store {
	sqlite3 *db;
	char *path;
	enum hd_store_mode mode;
	int wal;             /* journal_mode = WAL is set (writers only) */
	double since, limit; /* when the current call began; its limit in s */
	int stopped;         /* the current call ran past its limit */
};

/* ---- the connection (store.c) ------------------------------------------- */

/* Every exported call that queries starts here: its limit runs from now. */
void store_begin(struct hd_store *s);
/* Before a write: WAL, set at a writer's first write and kept in the file.
 * 0, or -1 with e set. */
int store_to_wal(struct hd_store *s, struct hd_err *e);
/* Every write starts here: a read-only open writes nothing (-1, e saying
 * so); a writer's first write sets WAL.  0, or -1 with e set. */
int store_may_write(struct hd_store *s, struct hd_err *e);

/* ---- SQLite's calls (sql.c) ------------------------------------------------ */

/* Turn the last SQLite failure into e, naming the call (and why, where a
 * hint is known, or that the call ran past its limit). */
void store_fail(struct hd_store *s, struct hd_err *e, const char *call);
/* Prepare sql, a SELECT FROM runs ... WHERE id = ?, bind run_id and step to
 * that run's row: 0 with *st on the row (the caller finalizes it), or -1
 * with e set ("no run N in this database" when there is none) and *st
 * NULL. */
int store_run_row(struct hd_store *s, const char *sql, int64_t run_id, sqlite3_stmt **st,
		  struct hd_err *e);
/* Run sql (what names it in a failure): 0, or -1 with e set. */
int store_exec(struct hd_store *s, const char *sql, const char *what, struct hd_err *e);
/* Run a one-row, one-integer query into *out: 0, or -1 with e set. */
int store_query_int(struct hd_store *s, const char *sql, int64_t *out, struct hd_err *e);
/* Bind text, or NULL for v NULL: SQLite's result code. */
int store_bind_text(sqlite3_stmt *st, int i, const char *v);
/* Run a prepared statement to completion (no rows expected), then reset it
 * and clear its bindings: 0, or -1 with e set naming what. */
int store_step_done(struct hd_store *s, sqlite3_stmt *st, const char *what, struct hd_err *e);
/*
 * Insert-or-find a row keyed by its UNIQUE columns; returns its id, or -1
 * with e set.  The insert binds vals[0..nins), the select vals[0..nsel).
 */
int64_t store_upsert_id(struct hd_store *s, const char *insert, const char *select,
			const char *const *vals, int nins, int nsel, struct hd_err *e);

/* ---- the schema (schema.c) ----------------------------------------------- */

/*
 * On open, before anything is written: refuse a file that is not hdsim's
 * (another application_id, a damaged file, a schema newer than this hdsim or
 * not the one its migrations make), then bring an older schema to
 * HD_STORE_SCHEMA (writers only; a read-only open of one is refused).
 * 0, or -1 with e set and the file left as it was.
 */
int store_migrate(struct hd_store *s, struct hd_err *e);

/* ---- reading back: nothing read is trusted (read.c) ------------------------ */

/* One integer column of a row and the range hdsim writes it in.  A NULL
 * reads as null_is when null_ok, and is refused otherwise. */
struct store_field {
	int col;
	const char *name;
	int64_t lo, hi;
	int null_ok;
	int64_t null_is;
};

/* Refuse row what (e.g. "run 3, span 7"): its column name holds a value
 * hdsim never writes there (want says what it should be).  Returns -1. */
int store_bad_value(struct hd_store *s, sqlite3_stmt *st, int col, const char *what,
		    const char *name, const char *want, struct hd_err *e);
/* Read the row's fields into v[field.col]: 0, or -1 with e naming the row,
 * the column and its value when one is NULL, not an integer or out of range. */
int store_read_fields(struct hd_store *s, sqlite3_stmt *st, const struct store_field *f, size_t n,
		      int64_t *v, const char *what, struct hd_err *e);
/* A text column: its text, "" for NULL when null_ok; NULL with e set when
 * it is NULL and must not be. */
const char *store_read_text(struct hd_store *s, sqlite3_stmt *st, int col, int null_ok,
			    const char *what, const char *name, struct hd_err *e);
/* A text column, copied into *out (newly allocated): NULL kept as NULL when
 * keep_null, refused otherwise.  0, or -1 with e set when refused. */
int store_col_dup(struct hd_store *s, sqlite3_stmt *st, int col, const char *what, const char *name,
		  int keep_null, char **out, struct hd_err *e);

/* ---- lesson versions (snapshot.c) --------------------------------------------- */

/* Is snap a version hdsim may store with an answer to question of lesson
 * (within the limits, of that lesson, holding that question)?  0, or -1
 * with e set. */
int store_snapshot_check(const struct hd_store_snapshot *snap, const char *lesson,
			 const char *question, struct hd_err *e);
/* Store snap unless its version is there already, inside the caller's
 * transaction: 0, or -1 with e set. */
int store_snapshot_insert(struct hd_store *s, const struct hd_store_snapshot *snap,
			  struct hd_err *e);

/* ---- spans (spans.c) -------------------------------------------------------- */

/* Store trace t's lanes and spans as run's (spread from r, when given),
 * inside the caller's transaction: 0, or -1 with e set. */
int store_insert_spans(struct hd_store *s, int64_t run, const struct hd_store_run *r,
		       const struct hd_trace *t, struct hd_err *e);

/* ---- repeats (repeats.c) ---------------------------------------------------- */

/* Store r's repeats as run's, inside the caller's transaction, after
 * checking them as a read would (store.h): 0, or -1 with e set. */
int store_insert_repeats(struct hd_store *s, int64_t run, const struct hd_store_run *r,
			 struct hd_err *e);

#endif
