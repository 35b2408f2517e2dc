/*
 * read.c - the store's checked reads: nothing read back is trusted (see
 * store_priv.h).
 *
 * A database may have been made by someone else, so every value read back
 * is checked before a caller sees it: integers against the range hdsim
 * writes them in (a table of struct store_field per row), texts present
 * where hdsim always writes one.  A value out of place is refused with a
 * message naming the row, the column and the value.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/store_priv.h"

/* Refuse row what (e.g. "run 3, span 7"): its column name holds a value
 * hdsim never writes there. */
int
store_bad_value(struct hd_store *s, sqlite3_stmt *st, int col, const char *what, const char *name,
		const char *want, struct hd_err *e)
{
	const char *v = sqlite3_column_type(st, col) == SQLITE_NULL ?
	    NULL :
	    (const char *)sqlite3_column_text(st, col);

	hd_err_set(e, HD_EXIT_INPUT, s->path,
		   "%s: %s is %s%.40s%s, %s: this is not a "
		   "database hdsim wrote",
		   what, name, v ? "'" : "", v ? v : "NULL", v ? "'" : "", want);
	return -1;
}

/* Read the row's fields into v[field.col]: 0, or -1 with e naming the row,
 * the column and its value when one is NULL, not an integer or out of range. */
int
store_read_fields(struct hd_store *s, sqlite3_stmt *st, const struct store_field *f, size_t n,
		  int64_t *v, const char *what, struct hd_err *e)
{
	char want[96];
	size_t i;

	for (i = 0; i < n; i++) {
		int type = sqlite3_column_type(st, f[i].col);
		const char *text = type == SQLITE_TEXT ?
		    (const char *)sqlite3_column_text(st, f[i].col) :
		    NULL;
		char *end = NULL;
		int64_t x = 0;
		int ok = type == SQLITE_INTEGER;

		if (type == SQLITE_NULL && f[i].null_ok) {
			v[f[i].col] = f[i].null_is;
			continue;
		}
		if (ok) {
			x = sqlite3_column_int64(st, f[i].col);
		} else if (text != NULL) {
			errno = 0;
			x = strtoll(text, &end, 10);
			ok = errno == 0 && end != text && *end == '\0';
		}
		if (!ok || x < f[i].lo || x > f[i].hi) {
			snprintf(want, sizeof want, "not an integer from %lld to %lld",
				 (long long)f[i].lo, (long long)f[i].hi);
			return store_bad_value(s, st, f[i].col, what, f[i].name, want, e);
		}
		v[f[i].col] = x;
	}
	return 0;
}

/* A text column: its text, "" for NULL when null_ok; NULL with e set when
 * it is NULL and must not be. */
const char *
store_read_text(struct hd_store *s, sqlite3_stmt *st, int col, int null_ok, const char *what,
		const char *name, struct hd_err *e)
{
	const char *v = (const char *)sqlite3_column_text(st, col);

	if (v != NULL)
		return v;
	if (null_ok && sqlite3_column_type(st, col) == SQLITE_NULL)
		return "";
	store_bad_value(s, st, col, what, name, "where hdsim always writes a text", e);
	return NULL;
}

/* A text column, copied: "" for NULL where hdsim may write NULL, the
 * column's own NULL kept where the struct says so (keep_null), refused
 * where hdsim always writes a text.  Returns -1 with e set when refused. */
int
store_col_dup(struct hd_store *s, sqlite3_stmt *st, int col, const char *what, const char *name,
	      int keep_null, char **out, struct hd_err *e)
{
	const char *v;

	if (keep_null && sqlite3_column_type(st, col) == SQLITE_NULL) {
		*out = NULL;
		return 0;
	}
	if ((v = store_read_text(s, st, col, 0, what, name, e)) == NULL)
		return -1;
	*out = hd_xstrdup(v);
	return 0;
}
