/*
 * profkeys.h - the hardware profile values a lesson may read: `profile(KEY)`
 * in claims and estimate answers (doc/lesson-format.md, "Claims").
 *
 * The lesson language sits below the profile layer, so it keeps its own
 * list of the numeric keys of the profile format, each with the dimension
 * of its value; tests/check_profile.c holds the list to profile.c's table
 * (the same keys, the same dimensions), so a new numeric profile key must be
 * added here too.  The values come at run time from whoever runs the claims
 * (run/run.c, through hd_claims_set_profile).
 */
#ifndef HD_PROFKEYS_H
#define HD_PROFKEYS_H

#include <stddef.h>

#include "base/units.h"
#include "base/util.h"

struct hd_profkey {
	const char *key; /* "api.launch", as in a profile file */
	enum hd_dim dim; /* its value's dimension; counts are HD_DIM_NONE */
};

/* How many keys; key i (NULL when out of range). */
int hd_profkey_count(void);
const struct hd_profkey *hd_profkey(int i);
/* The index of `key` (len bytes), or -1. */
int hd_profkey_find(const char *key, size_t len);
/* For a message about an unknown key (len bytes): ": did you mean 'X'?"
 * when one is near, then the keys of its group, or the groups, into b. */
void hd_profkey_explain(const char *key, size_t len, struct hd_buf *b);

#endif
