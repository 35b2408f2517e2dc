/*
 * jsoncheck.h - a JSON syntax checker shared by the test suites.
 */
#ifndef HD_JSONCHECK_H
#define HD_JSONCHECK_H

/* 1 when s is one JSON value and nothing else but white space, else 0. */
int hd_test_json_valid(const char *s);

#endif
