/*
 * testutil.h - what every Check suite shares: the source directory, a
 * main() that runs one suite and returns the failure count as the status,
 * and a scratch directory made and removed per test.
 */
#ifndef HD_TESTUTIL_H
#define HD_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef HDSIM_SRCDIR
#define HDSIM_SRCDIR "."
#endif

/* Run suite s and return an exit status for automake's test driver. */
static inline int
hd_test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Make a fresh directory "/tmp/hdsim-NAME-XXXXXX" into dir (n bytes). */
static inline void
hd_test_mkdtemp(char *dir, size_t n, const char *name)
{
	snprintf(dir, n, "/tmp/hdsim-%s-XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Remove a directory made by hd_test_mkdtemp, with all it holds. */
static inline void
hd_test_rmtree(const char *dir)
{
	char cmd[160];

	ck_assert_int_lt(snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir), (int)sizeof cmd);
	ck_assert_int_eq(system(cmd), 0);
}

#endif
