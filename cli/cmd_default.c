/*
 * cmd_default.c - `hdsim` with no command: the lesson browser on a
 * terminal (with --plain, the plain one, tui/plain.h), else the lesson list
 * and the first lesson's timeline; `hdsim --plain LESSON` opens that lesson.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/rcfile.h"
#include "render/timeline.h"
#include "store/store.h"
#include "tui/app.h"
#include "tui/plain.h"

/* Whether `hdsim` alone opens the lesson browser: both ends a terminal that
 * curses can drive, no --plain, and no --scenario or --set (which ask for
 * one run's text output). */
static bool
use_tui(const struct hd_cmd_ctx *x)
{
	const char *term = getenv("TERM");

	return !x->o->plain && x->o->scenario == NULL && x->o->nsets == 0 && x->out == stdout &&
	    isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) && term != NULL && term[0] != '\0' &&
	    strcmp(term, "dumb") != 0;
}

/* Whether --plain reads commands: from a terminal, or from anything with
 * --interactive; --scenario and --set ask for one run's narration. */
static bool
use_plain_mode(const struct hd_cmd_ctx *x)
{
	return x->o->plain && x->o->scenario == NULL && x->o->nsets == 0 &&
	    (x->o->interactive || isatty(STDIN_FILENO));
}

int
hd_cmd_default(struct hd_cmd_ctx *x)
{
	struct hd_tui_opts to = { .db = x->o->db,
				  .learner = hd_rcfile_learner(x->o->learner),
				  .no_color = x->o->no_color,
				  .reduced_motion = x->o->reduced_motion };
	struct hd_err e = { 0 };
	struct hd_buf b;
	int status, idx = -1;

	if (x->nargs == 1 && (idx = hd_catalog_find(x->cat, x->args[0], &e)) < 0)
		return hd_cmd_fail(x, &e);
	if ((use_tui(x) || use_plain_mode(x)) && hd_catalog_count(x->cat) > 0) {
		struct hd_err why = { 0 };
		const char *from = NULL;

		if (hd_store_learner_check(to.learner, &e) != 0)
			return hd_cmd_fail(x, &e);
		to.learner_id = hd_rcfile_learner_id(&from);
		if (to.learner_id != NULL && hd_store_roster_id_check(to.learner_id, &why) != 0) {
			hd_err_set(&e, HD_EXIT_INPUT, from, "learner-id: %s", why.msg);
			return hd_cmd_fail(x, &e);
		}
		fflush(stdout);
		if (use_plain_mode(x))
			return hd_tui_plain_main(x->cat, &x->profile, &to, idx, stdin, x->out);
		if ((status = hd_tui_main(x->cat, &x->profile, &to)) >= 0)
			return status;
		/* curses cannot drive this terminal: the text output below */
	}
	if (idx >= 0)
		return hd_cmd_run_print(x, idx);
	hd_buf_init(&b);
	hd_cmd_list_lessons(x, &b);
	hd_buf_puts(&b, "\n");
	hd_cmd_put(x, &b);
	hd_buf_free(&b);
	if (hd_catalog_count(x->cat) == 0) {
		fprintf(x->err, "hdsim: no lessons were found\n");
		return HD_EXIT_FAIL;
	}
	status = hd_cmd_run_print(x, 0);
	hd_buf_init(&b);
	hd_buf_putc(&b, '\n');
	hd_timeline_wrap(&b, "",
			 "Next: 'hdsim show 1' for the lesson's text, 'hdsim run 2' "
			 "for the next lesson, 'hdsim help' for everything else.",
			 x->width, 0);
	hd_cmd_put(x, &b);
	hd_buf_free(&b);
	return status;
}
