/*
 * plain.h - the lesson browser in plain text, for screen readers: the same
 * lessons, pages, questions, runs and stored progress as the browser
 * (app.h), one line at a time on a stream, commands typed as lines.  No
 * escape sequences, no cursor movement, no curses.
 */
#ifndef HD_PLAIN_H
#define HD_PLAIN_H

#include <stdio.h>

#include "lang/catalog.h"
#include "profile/profile.h"
#include "tui/app.h"

/*
 * Run the plain lesson browser: read commands from `in` line by line and
 * write what they do to `out` until `quit` or the end of `in`.  `lesson`
 * is the catalogue index of the lesson to open first, or -1 for the lesson
 * list.  Answers go to the database as the browser stores them (without
 * one it says so and stores nothing).  Lesson text reaches `out` through
 * the terminal's sanitiser.  Returns HD_EXIT_OK.
 */
int hd_tui_plain_main(struct hd_catalog *cat, const struct hd_profile *p,
		      const struct hd_tui_opts *o, int lesson, FILE *in, FILE *out);

#endif
