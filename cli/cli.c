/*
 * cli.c - the hdsim command line: the command table, each command's check
 * of its options and arguments, and dispatch with exit statuses.
 *
 * Each command lists the options it accepts and refuses the rest, so a
 * mistyped line fails loudly instead of being half-obeyed.  Exit statuses:
 * 0 success, 1 a run failed or a claim does not hold (or no GPU for --real),
 * 2 bad input (usage, lesson file, profile, knob).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "real/ranks.h"

/* export keeps its own signature: it is called with the parts it uses. */
static int
cmd_export(struct hd_cmd_ctx *x)
{
	return hd_cmd_export(x->o, x->args, x->nargs, x->cat, &x->profile, x->out, x->err);
}

static const struct hd_cmd_entry cmd_table[] = {
	{ "list", "list [DIR|FILE...]",
	  "list the lessons (built-in, $HDSIM_LESSON_PATH, and those named)", hd_cmd_list, 0, 0, -1,
	  true },
	{ "show", "show LESSON [--cuda [--scenario S] [--set K=V]...]",
	  "show a lesson: its pages, questions, knobs, scenarios and claims; "
	  "with --cuda, the CUDA C and PyTorch of each scenario",
	  hd_cmd_show, HD_OPT_CUDA | HD_OPT_SCENARIO | HD_OPT_SET, 1, 1, true },
	{ "run", "run LESSON [--scenario S] [--set K=V]... [--json|--plain]",
	  "run a lesson's scenarios and print their timelines and claims", hd_cmd_run,
	  HD_OPT_SCENARIO | HD_OPT_SET | HD_OPT_JSON | HD_OPT_PLAIN | HD_OPT_REAL, 1, 1, true },
	{ "lint", "lint FILE|DIR...",
	  "check lesson files (or directories of them) without running them", hd_cmd_lint, 0, 1, -1,
	  false },
	{ "profiles", "profiles [NAME|FILE]", "list the hardware profiles, or describe one",
	  hd_cmd_profiles, 0, 0, 1, false },
	{ "bench", "bench [--quick]",
	  "measure the simulator: events per second, memory, lesson run times", hd_cmd_bench,
	  HD_OPT_QUICK, 0, 0, false },
	{ "calibrate", "calibrate [--quick] [--db FILE]",
	  "measure this machine's GPU, write a profile and store it (needs a GPU build)",
	  hd_cmd_calibrate, HD_OPT_REAL | HD_OPT_QUICK | HD_OPT_DB, 0, 0, false },
	{ "doctor", "doctor", "report the GPU, driver, CUDA and NCCL found (needs a GPU build)",
	  hd_cmd_doctor, HD_OPT_REAL, 0, 0, false },
	{ "progress", "progress [LESSON] [--learner NAME] [--reset] [--db FILE]",
	  "show a learner's answers to the lessons' questions, or reset them", hd_cmd_progress,
	  HD_OPT_LEARNER | HD_OPT_RESET | HD_OPT_DB, 0, 1, true },
	{ "export",
	  "export --format csv|json|perfetto|svg|html|md [--run ID | --lesson L | "
	  "--all] [--db FILE]... [-o FILE]\n       hdsim export --class DB... [-o DIR] "
	  "[--grade first|best|last] [--keep-going] [--roster FILE]",
	  "runs, claims, answers as CSV, JSON, Perfetto, SVG, HTML, Markdown; class files",
	  cmd_export,
	  HD_OPT_FORMAT | HD_OPT_OUTPUT | HD_OPT_RUN | HD_OPT_LESSON | HD_OPT_ALL | HD_OPT_CLASS |
	      HD_OPT_TABLE | HD_OPT_DB | HD_OPT_LEARNER | HD_OPT_GRADE | HD_OPT_KEEP_GOING |
	      HD_OPT_ROSTER,
	  0, -1, true },
	{ "help", "help [COMMAND]", "show help for hdsim or for one command", hd_cmd_help, 0, 0, 1,
	  false },
};

/* What runs when no command is named: hdsim alone, and hdsim --real. */
static const struct hd_cmd_entry cmd_none = {
	"hdsim",
	"[--scenario S] [--set k=v]... [--profile P] [--plain [--interactive] [LESSON]] "
	"[--db FILE] [--learner NAME] [--reduced-motion]",
	"on a terminal: the lesson browser (with --plain: the same in plain lines, for "
	"screen readers); otherwise list the lessons and show the first lesson's timeline",
	hd_cmd_default,
	HD_OPT_SCENARIO | HD_OPT_SET | HD_OPT_PLAIN | HD_OPT_INTERACTIVE | HD_OPT_DB |
	    HD_OPT_LEARNER | HD_OPT_REDUCED_MOTION,
	0,
	1,
	true
};
static const struct hd_cmd_entry cmd_real_run = {
	"--real",
	"--real [LESSON...] [--scenario S] [--set k=v]... [--db FILE]",
	"run lessons on this machine's GPU and on the model, store both, compare them",
	hd_cmd_real,
	HD_OPT_SCENARIO | HD_OPT_SET | HD_OPT_REAL | HD_OPT_DB,
	0,
	-1,
	true
};

const struct hd_cmd_entry *
hd_cli_commands(size_t *n)
{
	*n = HD_ARRAY_LEN(cmd_table);
	return cmd_table;
}

const struct hd_cmd_entry *
hd_cli_find_command(const char *name)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(cmd_table); i++)
		if (strcmp(cmd_table[i].name, name) == 0)
			return &cmd_table[i];
	return NULL;
}

/* The options given that c takes, and its number of arguments. */
static int
check_args(struct hd_cmd_ctx *x, const struct hd_cmd_entry *c)
{
	size_t nopts, i;
	const struct hd_cli_opt *opts = hd_cli_opt_table(&nopts);

	for (i = 0; i < nopts; i++) {
		const struct hd_cli_opt *p = &opts[i];
		if (p->bit != 0 && (x->o->given & p->bit) != 0 &&
		    ((c->opts | HD_CMD_OPTS_ALL) & p->bit) == 0) {
			if (c == &cmd_none || c == &cmd_real_run)
				fprintf(x->err,
					"hdsim: option '%s' needs a command here; "
					"see 'hdsim --help'\n",
					p->name);
			else
				fprintf(x->err,
					"hdsim: option '%s' does not apply to '%s'; "
					"see 'hdsim help %s'\n",
					p->name, c->name, c->name);
			return HD_EXIT_INPUT;
		}
	}
	if (x->nargs < c->min_args || (c->max_args >= 0 && x->nargs > c->max_args)) {
		fprintf(x->err, "hdsim: usage: hdsim %s\n", c->usage);
		return HD_EXIT_INPUT;
	}
	if (x->o->json && x->o->plain) {
		fprintf(x->err, "hdsim: --json and --plain do not go together\n");
		return HD_EXIT_INPUT;
	}
	return 0;
}

int
hd_cli_main(int argc, char **argv)
{
	struct hd_cli_opts o;
	struct hd_cmd_ctx x;
	const struct hd_cmd_entry *c = NULL;
	int status;

	/* A rank of `hdsim --real` started by the coordinator (ranks.h). */
	if (argc > 1 && strcmp(argv[1], HD_RANKS_WORKER_ARG) == 0)
		return hd_ranks_worker_main(argc, argv);
	/* Under mpirun, ranks other than 0 serve rank scenarios and end here. */
	if (hd_ranks_mpi_start(&argc, &argv, &status))
		return status;
	memset(&x, 0, sizeof x);
	x.out = stdout;
	x.err = stderr;
	x.o = &o;
	if ((status = hd_cli_parse(argc, argv, &o, stderr)) != 0)
		goto out;
	if (o.nargs > 0)
		c = hd_cli_find_command(o.args[0]);
	if (o.help) {
		if (c != NULL && c->fn != hd_cmd_help)
			hd_cmd_help_print_cmd(stdout, c);
		else
			hd_cmd_help_print(stdout);
		goto out;
	}
	if (o.version) {
		hd_cmd_version_print(stdout);
		goto out;
	}
	/* hdsim --plain LESSON: the plain mode on that lesson */
	if (o.nargs > 0 && c == NULL && !o.real && !(o.plain && o.nargs == 1)) {
		fprintf(stderr, "hdsim: unknown command '%s'; see 'hdsim --help'", o.args[0]);
		if (strchr(o.args[0], '/') != NULL || strstr(o.args[0], ".hds") != NULL ||
		    (o.args[0][0] >= '0' && o.args[0][0] <= '9'))
			fprintf(stderr, " (to run a lesson: hdsim run %s)", o.args[0]);
		fputc('\n', stderr);
		status = HD_EXIT_INPUT;
		goto out;
	}
	x.args = o.nargs > 0 && c != NULL ? o.args + 1 : o.args;
	x.nargs = o.nargs > 0 && c != NULL ? o.nargs - 1 : o.nargs;
	if (c == NULL)
		c = o.real ? &cmd_real_run : &cmd_none;
	if ((status = check_args(&x, c)) != 0)
		goto out;
	if ((status = hd_cmd_ctx_open(&x, c->lessons)) != 0)
		goto out;
	status = c->fn(&x);
out:
	hd_cmd_ctx_close(&x);
	hd_cli_opts_free(&o);
	hd_ranks_mpi_end();
	if (fflush(stdout) != 0 && status == 0)
		status = HD_EXIT_FAIL;
	return status;
}
