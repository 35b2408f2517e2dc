/*
 * cmd_lint.c - `hdsim lint FILE|DIR...`: load lesson files (every *.hds of a
 * directory) and build their scenarios, without running them: at the default
 * knobs, then at the values a learner can reach (lang/lint.h).  Each file's
 * id must be free among the built-in lessons, those of $HDSIM_LESSON_PATH and
 * the files linted before it, unless the file says `replaces ID`.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sanitize.h"
#include "cli/cmd.h"
#include "lang/lesson.h"
#include "lang/lint.h"

/* A lint warning, as an error prints but for its word: the where, the
 * message and the quoted line are the lesson's text, so never raw. */
static void
print_warning(void *arg, const struct hd_err *w)
{
	struct hd_cmd_ctx *x = arg;
	char *where = hd_san_term_dup(w->where, false), *msg = hd_san_term_dup(w->msg, false);
	char *ctx = hd_san_term_dup(w->context, true);
	size_t n = strlen(ctx);

	fprintf(x->err, "%s: warning: %s\n", where, msg);
	if (n > 0)
		fprintf(x->err, "%s%s", ctx, ctx[n - 1] == '\n' ? "" : "\n");
	free(where);
	free(msg);
	free(ctx);
}

static int
lint_file(struct hd_cmd_ctx *x, struct hd_catalog *cat, const char *path)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_load(path, &e);
	double *knobs;
	int i, status = 0;

	if (l == NULL)
		return hd_cmd_fail(x, &e);
	knobs = hd_xcalloc((size_t)hd_lesson_nknobs(l) + 1, sizeof *knobs);
	hd_lesson_knob_defaults(l, knobs);
	for (i = 0; i < hd_lesson_nscenarios(l); i++) {
		struct hd_scenario *sc = hd_lesson_instantiate(l, i, knobs, &e);
		if (sc == NULL) {
			status = hd_cmd_fail(x, &e);
			memset(&e, 0, sizeof e);
		}
		hd_scenario_free(sc);
	}
	if (status == 0 && hd_lint_knobs_warn(l, print_warning, x, &e) < 0)
		status = hd_cmd_fail(x, &e);
	if (hd_catalog_check_id(cat, l, path, &e) < 0)
		status = hd_cmd_fail(x, &e);
	if (status == 0)
		fprintf(x->out, "%s: ok: lesson %s, %d scenario%s, %d claim%s\n", path,
			hd_lesson_id(l), hd_lesson_nscenarios(l),
			hd_lesson_nscenarios(l) == 1 ? "" : "s", hd_lesson_nclaims(l),
			hd_lesson_nclaims(l) == 1 ? "" : "s");
	free(knobs);
	if (status == 0)
		hd_catalog_add(cat, l, path, &e); /* later files clash with it */
	else
		hd_lesson_free(l);
	return status;
}

/* A directory: every *.hds file in it, in name order. */
static int
lint_dir(struct hd_cmd_ctx *x, struct hd_catalog *cat, const char *path)
{
	struct hd_err e = { 0 };
	char **names = NULL;
	int n, i, status = 0, s;

	if ((n = hd_catalog_list_dir(path, &names, &e)) < 0)
		return hd_cmd_fail(x, &e);
	for (i = 0; i < n; i++) {
		s = lint_file(x, cat, names[i]);
		if (s > status)
			status = s;
		free(names[i]);
	}
	free(names);
	if (n == 0)
		fprintf(x->err, "%s: warning: no .hds files here\n", path);
	return status;
}

int
hd_cmd_lint(struct hd_cmd_ctx *x)
{
	struct hd_catalog *cat = hd_catalog_new();
	struct stat st;
	int i, status = 0, s;

	/* the ids files are checked against; their own errors are others' */
	hd_catalog_add_builtin(cat);
	hd_catalog_add_dirs(cat, getenv("HDSIM_LESSON_PATH"));
	for (i = 0; i < x->nargs; i++) {
		if (stat(x->args[i], &st) == 0 && S_ISDIR(st.st_mode))
			s = lint_dir(x, cat, x->args[i]);
		else
			s = lint_file(x, cat, x->args[i]);
		if (s > status)
			status = s;
	}
	hd_catalog_free(cat);
	return status;
}
