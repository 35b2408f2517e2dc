/*
 * testutil.h - what every Check suite shares: the source directory, and a
 * main() that runs one suite and returns the failure count as the status.
 */
#ifndef HD_TESTUTIL_H
#define HD_TESTUTIL_H

#include <check.h>
#include <stdlib.h>

#ifndef HDSIM_SRCDIR
#define HDSIM_SRCDIR "."
#endif

/* Run suite s and return an exit status for automake's test driver. */
static inline int hd_test_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
