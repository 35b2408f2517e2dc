/*
 * testdb.h - what the suites that look into an hdsim database share.
 */
#ifndef HD_TESTDB_H
#define HD_TESTDB_H

#include <check.h>
#include <sqlite3.h>
#include <stdint.h>

/* The first column of the first row of sql on database db, read-only; -1 when
 * there is no row. */
static inline int64_t
hd_test_count(const char *db, const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	int64_t n = -1;

	ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

#endif
