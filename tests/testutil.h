/*
 * testutil.h - what every Check suite shares: the source directory, a
 * main() that runs one suite and returns the failure count as the status,
 * a scratch directory made and removed per test, and the check that the
 * binary's built-in texts are their files.
 */
#ifndef HD_TESTUTIL_H
#define HD_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/embedded.h"
#include "base/util.h"

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

/* Each of the n texts of table t (build-aux/embed.sh) is its file in
 * directory dir, byte for byte. */
static inline void
hd_test_embedded_are_files(const struct hd_embedded *t, int n, const char *dir)
{
	int i;

	ck_assert_int_gt(n, 0);
	for (i = 0; i < n; i++) {
		struct hd_err e = { 0 };
		char *path = hd_xasprintf("%s/%s", dir, t[i].name);
		char *text = hd_read_file(path, NULL, &e);

		ck_assert_msg(text != NULL, "%s: %s", path, e.msg);
		ck_assert_msg(strcmp(text, t[i].text) == 0, "%s differs from the built-in", path);
		free(text);
		free(path);
	}
}

#endif
