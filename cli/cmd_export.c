/*
 * cmd_export.c - `hdsim export`: pick what to export from the command line,
 * load it from the databases (or simulate a lesson now), write it through
 * export/; `--class` merges learners' databases into class files.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sanitize.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "export/export.h"
#include "export/gradebook.h"
#include "export/roster.h"
#include "lang/catalog.h"
#include "store/store.h"

static int
fail_with(FILE *err, const struct hd_err *e)
{
	hd_err_print(e, err);
	return e->status != 0 ? e->status : HD_EXIT_FAIL;
}

/* --run ID: a whole positive number. */
static int
parse_run_id(const char *s, int64_t *id, struct hd_err *e)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v <= 0) {
		hd_err_set(e, HD_EXIT_INPUT, "--run",
			   "a run id is a whole number above 0 "
			   "(as 'hdsim --real' prints it), not '%s'",
			   s);
		return -1;
	}
	*id = v;
	return 0;
}

static int class_command(const struct hd_cli_opts *o, char **args, int nargs,
			 struct hd_catalog *cat, FILE *out, FILE *err);

/*
 * No run is stored where the export looked (where names it): simulate each
 * installed lesson the answers are to, in the order first answered, and say
 * so.  With no answer either (of learner, when not NULL), empty tables are
 * written, but a report or a picture of nothing is not: -1 with e saying
 * what would fill it.
 */
static int
simulate_answered(struct hd_export_set *set, struct hd_catalog *cat, const struct hd_profile *p,
		  enum hd_export_format f, const char *learner, const char *where, FILE *err,
		  struct hd_err *e)
{
	/* CSV and JSON tables can be empty; a report or a picture of nothing
	 * cannot help */
	bool tables = f == HD_EXPORT_CSV || f == HD_EXPORT_JSON;
	struct hd_buf ids;
	size_t i, j, n = 0;
	int idx;

	if (set->nanswers == 0 && !tables && learner != NULL) {
		hd_err_set(e, HD_EXIT_INPUT, where,
			   "nothing to export: no run, and no answer of learner '%.64s', is stored "
			   "here ('hdsim export --format csv --table progress' lists the answers "
			   "and their learners)",
			   learner);
		return -1;
	}
	if (set->nanswers == 0 && !tables) {
		hd_err_set(
		    e, HD_EXIT_INPUT, where,
		    "nothing to export: no run and no answer is stored here yet; answer a "
		    "lesson's questions ('hdsim', or 'hdsim --plain' on a terminal), measure "
		    "on a GPU with 'hdsim --real', or export a lesson simulated now: hdsim "
		    "export --format %s --lesson 4",
		    hd_export_format_name(f));
		return -1;
	}
	if (set->nanswers == 0) {
		fprintf(err,
			"hdsim: export: no run and no answer is stored here yet: the tables "
			"are empty\n");
		return 0;
	}
	hd_buf_init(&ids);
	for (i = 0; i < set->nanswers; i++) {
		const char *id = set->answers[i].lesson;
		struct hd_err ignored = { 0 };

		for (j = 0; j < i && strcmp(set->answers[j].lesson, id) != 0; j++)
			;
		if (j < i || (idx = hd_catalog_find(cat, id, &ignored)) < 0 ||
		    strcmp(hd_lesson_id(hd_catalog_get(cat, idx)), id) != 0)
			continue;
		if (hd_export_simulate(set, hd_catalog_get(cat, idx), p, e) != 0) {
			hd_buf_free(&ids);
			return -1;
		}
		hd_buf_printf(&ids, "%s%s", n++ > 0 ? ", " : "", id);
	}
	if (n > 0) {
		set->note = hd_xasprintf("No run is stored, so the lesson%s answered here (%s) %s "
					 "simulated now on profile %s; measured runs come from "
					 "'hdsim --real'.",
					 n == 1 ? "" : "s", ids.s, n == 1 ? "was" : "were",
					 p->name);
		fprintf(err, "hdsim: export: %s\n", set->note);
	} else
		fprintf(err,
			"hdsim: export: no run is stored, and no lesson answered here is installed "
			"to simulate: the export holds the answers only\n");
	hd_buf_free(&ids);
	return 0;
}

int
hd_cmd_export(const struct hd_cli_opts *o, char **args, int nargs, struct hd_catalog *cat,
	      const struct hd_profile *p, FILE *out, FILE *err)
{
	struct hd_export_set set;
	struct hd_export_select sel;
	struct hd_err e = { 0 };
	enum hd_export_format f = HD_EXPORT_CSV;
	enum hd_export_table t = HD_EXPORT_RUNS;
	const struct hd_lesson *lesson = NULL;
	char *def = NULL;
	int i, n, status = HD_EXIT_OK, found = 0, picks;

	if (o->class_export)
		return class_command(o, args, nargs, cat, out, err);
	if (o->roster != NULL || o->grade != NULL || o->keep_going) {
		const char *opt = o->roster != NULL ? "--roster" :
		    o->grade != NULL                ? "--grade" :
						      "--keep-going";

		hd_err_set(&e, HD_EXIT_INPUT, opt,
			   "%s goes with --class: hdsim export --class DB... [-o DIR] "
			   "[--grade first|best|last] [--keep-going] [--roster FILE]",
			   opt);
		return fail_with(err, &e);
	}
	hd_export_set_init(&set);
	memset(&sel, 0, sizeof sel);
	picks = (o->run != NULL) + (o->lesson != NULL) + o->all;
	if (nargs > 0)
		hd_err_set(&e, HD_EXIT_INPUT, args[0],
			   "export takes no arguments here (the "
			   "databases come with --db; lessons with --lesson)");
	else if (o->format == NULL)
		hd_err_set(&e, HD_EXIT_INPUT, "--format",
			   "export needs --format: csv, json, "
			   "perfetto, svg, html or md");
	else if (picks > 1)
		hd_err_set(&e, HD_EXIT_INPUT, "export",
			   "--run, --lesson and --all pick what to "
			   "export: give one of them");
	else if (o->table != NULL && strcmp(o->format, "csv") != 0)
		hd_err_set(&e, HD_EXIT_INPUT, "--table", "--table goes with --format csv");
	if (e.set || hd_export_format_parse(o->format, &f, &e) != 0 ||
	    (o->table != NULL && hd_export_table_parse(o->table, &t, &e) != 0) ||
	    (o->run != NULL && parse_run_id(o->run, &sel.run, &e) != 0))
		return fail_with(err, &e);
	sel.learner = o->learner;
	sel.answers = true;
	if (o->lesson != NULL) {
		struct hd_err ignored = { 0 };

		sel.lesson = o->lesson;
		if ((i = hd_catalog_find(cat, o->lesson, &ignored)) >= 0) {
			lesson = hd_catalog_get(cat, i);
			sel.lesson = hd_lesson_id(lesson);
		}
	}
	/* Read everything first: a bad database fails before any file is made. */
	if (o->ndbs == 0) {
		struct stat st;

		def = hd_store_default_path();
		/* No default database yet: a lesson can still be simulated. */
		if (def == NULL && lesson == NULL) {
			hd_err_set(&e, HD_EXIT_INPUT, "export",
				   "no home folder to find the "
				   "database in: name one with --db, or set HOME");
			status = fail_with(err, &e);
			goto out;
		} else if (def == NULL) {
			/* nothing stored: the lesson is simulated */
		} else if (stat(def, &st) != 0 && errno == ENOENT && lesson != NULL) {
			free(def);
			def = NULL;
		} else if (stat(def, &st) != 0 && errno == ENOENT) {
			hd_err_set(&e, HD_EXIT_INPUT, def,
				   "no database here yet: a learner's answers are stored here "
				   "once they answer a lesson ('hdsim'), measured runs by 'hdsim "
				   "--real'; name another with --db, or export a lesson simulated "
				   "now with --lesson L");
			status = fail_with(err, &e);
			goto out;
		} else if ((n = hd_export_load(&set, def, &sel, &e)) < 0) {
			status = fail_with(err, &e);
			goto out;
		} else
			found += n;
	}
	for (i = 0; i < o->ndbs; i++) {
		if ((n = hd_export_load(&set, o->dbs[i], &sel, &e)) < 0) {
			status = fail_with(err, &e);
			goto out;
		}
		found += n;
	}
	if (sel.run > 0 && found == 0) {
		hd_err_set(&e, HD_EXIT_INPUT, "--run", "no run %" PRId64 " in %s%s", sel.run,
			   o->ndbs > 1      ? "any of the databases given" :
			       o->ndbs == 1 ? o->dbs[0] :
					      def,
			   o->ndbs > 1 ?
			       "" :
			       " (runs are stored by 'hdsim --real', which prints "
			       "their ids; 'hdsim export --format csv --table runs' lists "
			       "those it holds; --lesson L exports a lesson simulated now)");
		status = fail_with(err, &e);
		goto out;
	}
	if (o->lesson != NULL && found == 0) {
		if (lesson == NULL) {
			hd_err_set(&e, HD_EXIT_INPUT, "--lesson",
				   "no lesson '%s': no stored run "
				   "has it and no installed lesson is called that (see "
				   "'hdsim list')",
				   o->lesson);
			status = fail_with(err, &e);
			goto out;
		}
		if (hd_export_simulate(&set, lesson, p, &e) != 0) {
			status = fail_with(err, &e);
			goto out;
		}
		set.note = hd_xasprintf("No run of lesson %s is stored, so these runs were "
					"simulated now on profile %s; measured runs come from "
					"'hdsim --real'.",
					hd_lesson_id(lesson), p->name);
		fprintf(err, "hdsim: export: %s\n", set.note);
	}
	if (set.nruns == 0 && o->run == NULL && o->lesson == NULL) {
		/* A learner's database holds answers and no runs: the lessons
		 * answered, simulated now, make the report worth reading. */
		const char *where = o->ndbs == 1 ? o->dbs[0] : o->ndbs > 1 ? "the databases" : def;

		if (simulate_answered(&set, cat, p, f, o->learner, where, err, &e) != 0) {
			status = fail_with(err, &e);
			goto out;
		}
	}
	if (o->output != NULL && hd_export_is_dir(o->output)) {
		if (o->table != NULL)
			hd_err_set(&e, HD_EXIT_INPUT, o->output,
				   "is a folder; --format %s "
				   "writes one file (only csv without --table, and svg, write "
				   "into a folder)",
				   hd_export_format_name(f));
		if (e.set || hd_export_write_dir(&set, f, o->output, out, &e) != 0)
			status = fail_with(err, &e);
	} else if (hd_export_write_file(&set, f, t, o->output, out, &e) != 0)
		status = fail_with(err, &e);
out:
	free(def);
	hd_export_set_free(&set);
	return status;
}

/* The class's notes on standard error, each through the terminal's
 * sanitiser (they quote paths and lesson ids from the databases). */
static void
print_notes(const struct hd_export_class *c, FILE *err)
{
	int k;

	for (k = 0; k < c->nnotes; k++) {
		char *clean = hd_san_term_dup(c->notes[k], false);

		fprintf(err, "hdsim: export: warning: %s\n", clean);
		free(clean);
	}
}

static int
class_command(const struct hd_cli_opts *o, char **args, int nargs, struct hd_catalog *cat,
	      FILE *out, FILE *err)
{
	struct hd_export_class c;
	struct hd_export_class_opts co = { HD_EXPORT_GRADE_FIRST, o->keep_going, cat };
	struct hd_roster roster;
	struct hd_gradebook_join join;
	struct hd_err e = { 0 };
	const char *dir = o->output != NULL ? o->output : ".";
	char **dbs = hd_xcalloc((size_t)(nargs + o->ndbs) + 1, sizeof *dbs);
	int n = 0, i, status = HD_EXIT_OK;

	for (i = 0; i < nargs; i++)
		dbs[n++] = args[i];
	for (i = 0; i < o->ndbs; i++)
		dbs[n++] = o->dbs[i];
	memset(&c, 0, sizeof c);
	memset(&roster, 0, sizeof roster);
	memset(&join, 0, sizeof join);
	if (o->format != NULL || o->run != NULL || o->lesson != NULL || o->all || o->table != NULL)
		hd_err_set(&e, HD_EXIT_INPUT, "--class",
			   "--class writes its own files; it "
			   "takes databases, -o DIR, --grade, --keep-going and --roster FILE only");
	else if (n == 0)
		hd_err_set(&e, HD_EXIT_INPUT, "--class",
			   "name the learners' databases: "
			   "hdsim export --class DB... [-o DIR]");
	else if (o->output != NULL && !hd_export_is_dir(o->output) && access(o->output, F_OK) == 0)
		hd_err_set(&e, HD_EXIT_INPUT, o->output,
			   "is a file; --class writes three files "
			   "into a folder");
	else if (o->grade != NULL)
		hd_export_grade_parse(o->grade, &co.grade, &e);
	if (e.set) {
		status = fail_with(err, &e);
		goto out;
	}
	/* Everything is read, and the roster joined, before any file is made. */
	if (hd_export_class_load(&c, dbs, n, &co, &e) != 0) {
		print_notes(&c, err);
		status = fail_with(err, &e);
		goto out;
	}
	print_notes(&c, err);
	if (o->roster != NULL) {
		if (hd_roster_load(&roster, o->roster, &e) != 0 ||
		    hd_gradebook_join(&join, &c, &roster, err, &e) != 0) {
			status = fail_with(err, &e);
			goto out;
		}
		c.join = &join;
	}
	hd_gradebook_report(&c, err);
	if (hd_export_class_write(&c, dir, out, &e) != 0)
		status = fail_with(err, &e);
out:
	hd_gradebook_join_free(&join);
	hd_roster_free(&roster);
	hd_export_class_free(&c);
	free(dbs);
	return status;
}
