/*
 * app.h - the terminal lesson browser: browse lessons, read a lesson's
 * pages, predict, watch the run, read the explanation.
 *
 * The state and the main loop live in app.c, the lesson flow and grading
 * in flow.c, the database I/O in app_store.c, and each screen in its
 * scr_*.c with its key table (one table per screen drives both dispatch
 * and the help overlay), all sharing app_priv.h; drawing goes through the
 * render buffer and the views (screen.h, view.h), the terminal through
 * term.h.
 */
#ifndef HD_APP_H
#define HD_APP_H

#include <stdbool.h>

#include "lang/catalog.h"
#include "profile/profile.h"

struct hd_tui_opts {
	const char *db;         /* database path, NULL: the default */
	const char *learner;    /* whose progress */
	bool no_color;          /* monochrome (NO_COLOR is honoured as well) */
	bool reduced_motion;    /* no animation: playback jumps between events */
	const char *learner_id; /* the learner's roster id, recorded on open; NULL: none */
};

/*
 * Run the lesson browser on the terminal until the learner quits.  Answers
 * are stored in the database (the browser works without one when it cannot
 * be opened, and says so).  Returns an exit status: HD_EXIT_OK, or 128 +
 * the signal after SIGINT / SIGTERM; the terminal is restored before it
 * returns.  Returns -1, having written nothing, when curses cannot drive
 * this terminal (an unknown TERM): the caller falls back to text output.
 */
int hd_tui_main(struct hd_catalog *cat, const struct hd_profile *p, const struct hd_tui_opts *o);

#endif
