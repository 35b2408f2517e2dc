/*
 * options.c - the option table and the parser of the whole command line.
 *
 * Options may appear anywhere on the line (before or after the command), as
 * in git and cargo; the command table (cli.c) says which options each
 * command accepts, and help lists them from the table here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cli.h"
#include "render/timeline.h"

static const struct hd_cli_opt opt_table[] = {
	{ "--help", 'h', 0, 0, NULL, "show help (for a command: hdsim help CMD)" },
	{ "--version", 0, 0, 0, NULL, "print the version and what this build can run on" },
	{ "--profile", 0, 1, HD_OPT_PROFILE, "NAME|FILE",
	  "hardware profile: a built-in name or a profile file" },
	{ "--scenario", 0, 1, HD_OPT_SCENARIO, "S",
	  "show only scenario S (all run, for the claims)" },
	{ "--set", 0, 1, HD_OPT_SET, "KNOB=VALUE",
	  "change a knob, e.g. --set size=64MiB (repeatable)" },
	{ "--json", 0, 0, HD_OPT_JSON, NULL, "write the run as one JSON object" },
	{ "--plain", 0, 0, HD_OPT_PLAIN, NULL, "narrate the run line by line, for screen readers" },
	{ "--interactive", 0, 0, HD_OPT_INTERACTIVE, NULL,
	  "hdsim --plain: the interactive plain mode even when standard input is no terminal" },
	{ "--no-color", 0, 0, HD_OPT_NO_COLOR, NULL,
	  "no colour (nor with NO_COLOR, TERM=dumb, or a pipe)" },
	{ "--width", 0, 1, HD_OPT_WIDTH, "N", "draw timelines N columns wide (at least 60)" },
	{ "--real", 0, 0, HD_OPT_REAL, NULL, "run on this machine's GPU instead of the model" },
	{ "--quick", 0, 0, HD_OPT_QUICK, NULL, "bench, calibrate: fewer sizes (a quick run)" },
	{ "--db", 0, 1, HD_OPT_DB, "FILE",
	  "the database to store runs in (default $XDG_DATA_HOME/hdsim/hdsim.db)" },
	{ "--cuda", 0, 0, HD_OPT_CUDA, NULL,
	  "show: the CUDA C the real backend runs, and the PyTorch equivalent" },
	{ "--learner", 0, 1, HD_OPT_LEARNER, "NAME",
	  "progress: whose answers (default $HDSIM_LEARNER, the config file's, $USER); "
	  "export: only theirs" },
	{ "--reset", 0, 0, HD_OPT_RESET, NULL,
	  "progress: delete the learner's answers (of LESSON only, if named)" },
	{ "--reduced-motion", 0, 0, HD_OPT_REDUCED_MOTION, NULL,
	  "the lesson browser: no animation, playback jumps from event to event" },
	{ "--format", 0, 1, HD_OPT_FORMAT, "F", "export: csv, json, perfetto, svg, html or md" },
	{ "--output", 'o', 1, HD_OPT_OUTPUT, "FILE",
	  "export: write to FILE (csv, svg: or a folder) instead of standard output" },
	{ "--run", 0, 1, HD_OPT_RUN, "ID", "export: this stored run (and its pair)" },
	{ "--lesson", 0, 1, HD_OPT_LESSON, "L", "export: this lesson's runs and answers" },
	{ "--all", 0, 0, HD_OPT_ALL, NULL, "export: every run and answer (the default)" },
	{ "--class", 0, 0, HD_OPT_CLASS, NULL,
	  "export: merge learners' databases into class files" },
	{ "--table", 0, 1, HD_OPT_TABLE, "T",
	  "export --format csv: runs, spans, claims or progress" },
	{ "--grade", 0, 1, HD_OPT_GRADE, "first|best|last",
	  "export --class: grade the first answer before the run was shown (the default), "
	  "the best, or the last" },
	{ "--keep-going", 0, 0, HD_OPT_KEEP_GOING, NULL,
	  "export --class: skip a missing or foreign database, saying so" },
	{ "--roster", 0, 1, HD_OPT_ROSTER, "FILE",
	  "export --class: the roster exported from Canvas, for gradebook.csv" },
};

const struct hd_cli_opt *
hd_cli_opt_table(size_t *n)
{
	*n = HD_ARRAY_LEN(opt_table);
	return opt_table;
}

static const struct hd_cli_opt *
find_opt(const char *name, size_t len, char short_name)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(opt_table); i++) {
		const struct hd_cli_opt *p = &opt_table[i];
		if (short_name != 0 ? p->short_name == short_name :
				      strlen(p->name) == len && strncmp(p->name, name, len) == 0)
			return p;
	}
	return NULL;
}

void
hd_cli_opts_free(struct hd_cli_opts *o)
{
	if (o == NULL)
		return;
	free(o->sets);
	free(o->args);
	free(o->dbs);
	o->sets = o->args = o->dbs = NULL;
	o->nsets = o->nargs = o->ndbs = 0;
}

static int
set_opt(struct hd_cli_opts *o, const struct hd_cli_opt *p, const char *val, FILE *err)
{
	char *end;
	long w;

	o->given |= p->bit;
	if (strcmp(p->name, "--help") == 0)
		o->help = true;
	else if (strcmp(p->name, "--version") == 0)
		o->version = true;
	else if (p->bit == HD_OPT_PROFILE)
		o->profile = val;
	else if (p->bit == HD_OPT_SCENARIO)
		o->scenario = val;
	else if (p->bit == HD_OPT_SET) {
		o->sets = hd_xrealloc(o->sets, sizeof *o->sets * (size_t)(o->nsets + 1));
		o->sets[o->nsets++] = (char *)val;
	} else if (p->bit == HD_OPT_JSON)
		o->json = true;
	else if (p->bit == HD_OPT_PLAIN)
		o->plain = true;
	else if (p->bit == HD_OPT_INTERACTIVE)
		o->plain = o->interactive = true;
	else if (p->bit == HD_OPT_NO_COLOR)
		o->no_color = true;
	else if (p->bit == HD_OPT_REAL)
		o->real = true;
	else if (p->bit == HD_OPT_QUICK)
		o->quick = true;
	else if (p->bit == HD_OPT_CUDA)
		o->cuda = true;
	else if (p->bit == HD_OPT_DB) {
		o->db = val;
		o->dbs = hd_xrealloc(o->dbs, sizeof *o->dbs * (size_t)(o->ndbs + 1));
		o->dbs[o->ndbs++] = (char *)val;
	} else if (p->bit == HD_OPT_FORMAT)
		o->format = val;
	else if (p->bit == HD_OPT_OUTPUT)
		o->output = val;
	else if (p->bit == HD_OPT_RUN)
		o->run = val;
	else if (p->bit == HD_OPT_LESSON)
		o->lesson = val;
	else if (p->bit == HD_OPT_ALL)
		o->all = true;
	else if (p->bit == HD_OPT_CLASS)
		o->class_export = true;
	else if (p->bit == HD_OPT_TABLE)
		o->table = val;
	else if (p->bit == HD_OPT_GRADE)
		o->grade = val;
	else if (p->bit == HD_OPT_KEEP_GOING)
		o->keep_going = true;
	else if (p->bit == HD_OPT_ROSTER)
		o->roster = val;
	else if (p->bit == HD_OPT_LEARNER)
		o->learner = val;
	else if (p->bit == HD_OPT_RESET)
		o->reset = true;
	else if (p->bit == HD_OPT_REDUCED_MOTION)
		o->reduced_motion = true;
	else if (p->bit == HD_OPT_WIDTH) {
		errno = 0;
		w = strtol(val, &end, 10);
		if (errno != 0 || end == val || *end != '\0' || w < 1 || w > 1000) {
			fprintf(err,
				"hdsim: --width wants a number of columns from %d to 1000, "
				"not '%s'\n",
				HD_TL_MIN_WIDTH, val);
			return HD_EXIT_INPUT;
		}
		o->width = (int)w;
	}
	return 0;
}

int
hd_cli_parse(int argc, char **argv, struct hd_cli_opts *o, FILE *err)
{
	int i, rest = 0;

	memset(o, 0, sizeof *o);
	o->args = hd_xcalloc((size_t)argc + 1, sizeof *o->args);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		const struct hd_cli_opt *p;
		size_t len;

		if (rest || a[0] != '-' || a[1] == '\0') {
			o->args[o->nargs++] = argv[i];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			rest = 1;
			continue;
		}
		if (a[1] != '-') {
			p = a[2] == '\0' ? find_opt(NULL, 0, a[1]) : NULL;
			len = strlen(a);
		} else {
			eq = strchr(a, '=');
			len = eq != NULL ? (size_t)(eq - a) : strlen(a);
			p = find_opt(a, len, 0);
			if (eq != NULL)
				val = eq + 1;
		}
		if (p == NULL) {
			fprintf(err, "hdsim: unknown option '%.*s'; see 'hdsim --help'\n", (int)len,
				a);
			return HD_EXIT_INPUT;
		}
		if (p->takes_arg && val == NULL) {
			if (i + 1 >= argc) {
				fprintf(err,
					"hdsim: option '%s' needs a value (%s); "
					"see 'hdsim --help'\n",
					p->name, p->arg_name);
				return HD_EXIT_INPUT;
			}
			val = argv[++i];
		} else if (!p->takes_arg && val != NULL) {
			fprintf(err, "hdsim: option '%s' takes no value; see 'hdsim --help'\n",
				p->name);
			return HD_EXIT_INPUT;
		}
		if (set_opt(o, p, val, err) != 0)
			return HD_EXIT_INPUT;
	}
	return 0;
}

bool
hd_cli_color(const struct hd_cli_opts *o)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (o->no_color || o->json || o->plain)
		return false;
	if (nc != NULL && nc[0] != '\0')
		return false;
	if (term == NULL || strcmp(term, "dumb") == 0)
		return false;
	return isatty(STDOUT_FILENO) != 0;
}
