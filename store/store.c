/*
 * store.c - opening and closing the database of runs (see store.h).
 *
 * What the file system allows is checked before SQLite is asked, so that
 * each case gets its own message; a writer opens the file as it is and sets
 * WAL at its first write; a read-only open changes nothing and leaves no
 * file beside it.  Every exported call starts its time limit (store_begin),
 * which SQLite's progress handler enforces on the connection, and every
 * write starts at store_may_write.  Schema changes and the check of a
 * file's schema are schema.c's; the rows are spans.c's, runs.c's and
 * progress.c's.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/paths.h"
#include "store/store_priv.h"

/* The longest one call may take before its query is interrupted (see
 * hd_store_limit): long enough for a term's database on a slow disk. */
#define STORE_LIMIT_S 60.0

/* The longest text or blob read or written (a profile, facts as JSON). */
#define STORE_VALUE_MAX (64 << 20)

char *
hd_store_default_path(void)
{
	return hd_paths_data("hdsim.db");
}

/* mkdir -p of the folder that will hold path. */
static int
make_parent(const char *path, struct hd_err *e)
{
	char *dir = hd_xstrdup(path), *slash = strrchr(dir, '/');
	struct hd_err why = { 0 };
	int rc = 0;

	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (hd_paths_mkdir_p(dir, 0700, &why) != 0) {
			hd_err_set(e, HD_EXIT_INPUT, path, "cannot create folder %s: %s", why.where,
				   strerror(errno));
			rc = -1;
		}
	}
	free(dir);
	return rc;
}

/*
 * Write-ahead logging (it stays set in the file).  Switching needs the file
 * to itself, and SQLite reports a process opening it at that moment as busy
 * without waiting: try again, for up to the busy timeout.
 */
static int
set_wal(struct hd_store *s, struct hd_err *e)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) == SQLITE_OK)
			return 0;
		if ((sqlite3_errcode(s->db) & 0xff) != SQLITE_BUSY)
			break;
		sqlite3_sleep(10);
	}
	return store_exec(s, "PRAGMA journal_mode = WAL", "PRAGMA journal_mode", e);
}

/*
 * Before a write: WAL, set at a writer's first write and kept in the file.
 * Not at open: a writer that only reads (a listing) leaves the journal mode
 * as it found it, and a reader never sets it.
 */
int
store_to_wal(struct hd_store *s, struct hd_err *e)
{
	if (s->wal)
		return 0;
	if (set_wal(s, e) != 0)
		return -1;
	s->wal = 1;
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SQLite's progress handler: interrupt a query of a call past its limit. */
static int
past_limit(void *ctx)
{
	struct hd_store *s = ctx;

	if (now_s() - s->since > s->limit)
		s->stopped = 1;
	return s->stopped;
}

/* Every exported call that queries starts here: its limit runs from now. */
void
store_begin(struct hd_store *s)
{
	s->since = now_s();
	s->stopped = 0;
}

/* The folder holding path (newly allocated): "." for a bare file name. */
static char *
folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return hd_xstrdup(".");
	return hd_xasprintf("%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* Whether SQLite keeps or left a file beside path: a log (-wal and its
 * index -shm) or a rollback journal. */
static int
has_side_files(const char *path)
{
	static const char *const suffixes[] = { "-wal", "-shm", "-journal" };
	char side[PATH_MAX + 16];
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(suffixes); i++) {
		snprintf(side, sizeof side, "%s%s", path, suffixes[i]);
		if (access(side, F_OK) == 0)
			return 1;
	}
	return 0;
}

/* "file:PATH?immutable=1" with PATH percent-encoded (newly allocated); an
 * absolute path gets an empty authority, so "//x" is not read as a host. */
static char *
immutable_uri(const char *path)
{
	static const char keep[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789-._~/";
	char *uri = hd_xcalloc(strlen(path) * 3 + 32, 1), *o = uri;
	const unsigned char *c;

	o += sprintf(o, "file:%s", path[0] == '/' ? "//" : "");
	for (c = (const unsigned char *)path; *c != '\0'; c++)
		o += strchr(keep, *c) ? sprintf(o, "%c", *c) : sprintf(o, "%%%02X", *c);
	strcpy(o, "?immutable=1");
	return uri;
}

/*
 * What the file system allows, checked before SQLite is asked, so that each
 * case gets its own message naming the path: a folder, a file this user
 * cannot read, a missing file (read-only opens), a read-only file or a
 * folder this user cannot write (writers: SQLite keeps its log beside the
 * database while writing, so the folder must be writable too).
 */
static int
check_access(struct hd_store *s, const char *path, struct hd_err *e)
{
	struct stat st;
	char *dir = folder_of(s->path);
	int rc = -1;

	if (stat(s->path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			hd_err_set(e, HD_EXIT_INPUT, s->path, "is a folder, not a database file");
			goto out;
		}
		if (access(s->path, R_OK) != 0) {
			hd_err_set(e, HD_EXIT_INPUT, s->path, "cannot read the database file: %s",
				   strerror(errno));
			goto out;
		}
		/* The mode bits too: root may write anything, but a file made
		 * read-only on purpose is not ours to change. */
		if (s->mode == HD_STORE_RW &&
		    (access(s->path, W_OK) != 0 || (st.st_mode & 0222) == 0)) {
			hd_err_set(e, HD_EXIT_INPUT, s->path,
				   "the database file is read-only; nothing was stored");
			goto out;
		}
	} else if (s->mode == HD_STORE_RO) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   errno == ENOENT ? "no such database: %s" :
					     "cannot reach the database: %s",
			   strerror(errno));
		goto out;
	} else if (path == NULL && make_parent(s->path, e) != 0) {
		goto out;
	}
	if (s->mode == HD_STORE_RW && access(dir, W_OK | X_OK) != 0) {
		hd_err_set(e, HD_EXIT_INPUT, s->path,
			   "cannot write in the database's folder %s "
			   "(%s), where SQLite keeps its log while writing; nothing was stored",
			   dir, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

/*
 * Open the connection.  A writer opens the file as it is and sets WAL at its
 * first write (to_wal).  A read-only open must change nothing and leave no
 * file behind, and the file may be another user's in a folder this one
 * cannot write.  SQLITE_OPEN_READONLY alone does not do that: on a WAL
 * database it creates the -wal and -shm files (owned by the reader, so that
 * the owner's next write fails with "attempt to write a readonly database")
 * and, unable to checkpoint, leaves them; where the folder cannot be written
 * it cannot open a WAL database at all.  The URI parameter immutable=1 makes
 * SQLite read the file alone, without locks or side files; it is exact when
 * the file holds every commit, which it does when no side file is beside it
 * (the last writer to close folds the log in and removes it).  So:
 * immutable=1 when there is no side file; otherwise a writer is at work, or
 * one stopped before folding its log in, and the log holds commits the file
 * lacks: SQLITE_OPEN_READONLY with the usual locks, using the side files
 * that are there.  (A writer that starts after an immutable open and folds
 * its log in while the read goes on may make that read fail as damaged;
 * reading again reads it whole.)
 */
static int
open_db(struct hd_store *s, struct hd_err *e)
{
	char *uri = NULL;
	int rc;

	if (s->mode == HD_STORE_RW)
		rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
				     NULL);
	else if (has_side_files(s->path))
		rc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL);
	else
		rc = sqlite3_open_v2(uri = immutable_uri(s->path), &s->db,
				     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK) {
		store_fail(s, e, "sqlite3_open_v2");
		return -1;
	}
	sqlite3_busy_timeout(s->db, 10000);
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, STORE_VALUE_MAX);
	sqlite3_progress_handler(s->db, 10000, past_limit, s);
	/* Functions with side effects stay out of the schema's expressions
	 * (SQLite 3.31 on; older ones ignore the pragma). */
	return store_exec(s, "PRAGMA trusted_schema = OFF", "PRAGMA trusted_schema", e);
}

struct hd_store *
hd_store_open(const char *path, enum hd_store_mode mode, struct hd_err *e)
{
	struct hd_store *s = hd_xcalloc(1, sizeof *s);

	s->mode = mode;
	s->limit = STORE_LIMIT_S;
	s->path = path ? hd_xstrdup(path) : hd_store_default_path();
	store_begin(s);
	/* Read the header before writing anything: a foreign file stays as it was. */
	if (check_access(s, path, e) != 0 || open_db(s, e) != 0 || store_migrate(s, e) != 0)
		goto fail;
	if (store_exec(s, "PRAGMA foreign_keys = ON", "PRAGMA foreign_keys", e) != 0)
		goto fail;
	if (mode == HD_STORE_RW &&
	    store_exec(s, "PRAGMA synchronous = NORMAL", "PRAGMA synchronous", e) != 0)
		goto fail;
	return s;
fail:
	hd_store_close(s);
	return NULL;
}

void
hd_store_limit(struct hd_store *s, double seconds)
{
	s->limit = seconds;
}

void
hd_store_close(struct hd_store *s)
{
	if (s == NULL)
		return;
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

const char *
hd_store_path(const struct hd_store *s)
{
	return s->path;
}

int
hd_store_schema_version(struct hd_store *s)
{
	int64_t v = -1;

	store_begin(s);
	if (store_query_int(s, "PRAGMA user_version", &v, NULL) != 0)
		return -1;
	return (int)v;
}

/* Every write starts here: a read-only open writes nothing; a writer's first
 * write sets WAL. */
int
store_may_write(struct hd_store *s, struct hd_err *e)
{
	if (s->mode != HD_STORE_RO)
		return store_to_wal(s, e);
	hd_err_set(e, HD_EXIT_INPUT, s->path, "the database was opened read-only");
	return -1;
}

int
hd_store_check(struct hd_store *s, struct hd_err *e)
{
	sqlite3_stmt *st = NULL;
	const char *ok;
	int rc;

	store_begin(s);
	if (sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "PRAGMA integrity_check");
		return -1;
	}
	rc = sqlite3_step(st);
	ok = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (ok == NULL || strcmp(ok, "ok") != 0) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "integrity check failed: %s",
			   ok ? ok : sqlite3_errmsg(s->db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "PRAGMA foreign_key_check", -1, &st, NULL) != SQLITE_OK) {
		store_fail(s, e, "PRAGMA foreign_key_check");
		return -1;
	}
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW) {
		hd_err_set(e, HD_EXIT_INPUT, s->path, "foreign key check found dangling rows");
		return -1;
	}
	return 0;
}
