/*
 * commands.c - the hdsim command line: the command table, dispatch and exit
 * statuses (the options are parsed in options.c).
 *
 * Each command lists the options it accepts and refuses the rest, so a
 * mistyped line fails loudly instead of being half-obeyed.  Exit statuses:
 * 0 success, 1 a run failed or a claim does not hold (or no GPU for --real),
 * 2 bad input (usage, lesson file, profile, knob).
 */
/* autoconf's config.h: as "config.h" it would be cli/config.h */
#include <config.h>

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/app.h"
#include "ir/backend.h"
#include "cli/bench.h"
#include "lang/catalog.h"
#include "cli/cli.h"
#include "cli/config.h"
#include "cli/cmd.h"
#include "real/cudagen.h"
#include "export/export.h"
#include "lang/lesson.h"
#include "profile/profile.h"
#include "profile/profile_write.h"
#include "real/ranks.h"
#include "real/real.h"
#include "real/calibrate/calibrate.h"
#include "render/report.h"
#include "store/store.h"
#include "render/timeline.h"
#include "run/verify.h"
#include "run/backends.h"

/* Options every command takes. */
#define OPTS_ALL (HD_OPT_PROFILE | HD_OPT_NO_COLOR | HD_OPT_WIDTH)

/* ---- the command table --------------------------------------------------- */

struct ctx {
	struct hd_cli_opts *o;
	FILE *out, *err;
	struct hd_catalog *cat;
	struct hd_profile profile;
	const struct hd_backend_ops *backend;
	bool color;
	int width;
	char **args;            /* the command's own arguments */
	int nargs;
};

struct cmd {
	const char *name;
	const char *usage;
	const char *summary;
	int (*fn)(struct ctx *);
	unsigned opts;          /* accepted beyond OPTS_ALL */
	int min_args, max_args; /* -1: any number */
	bool lessons;           /* reads the lesson catalogue */
};

static int cmd_list(struct ctx *);
static int cmd_show(struct ctx *);
static int cmd_run(struct ctx *);
static int cmd_lint(struct ctx *);
static int cmd_profiles(struct ctx *);
static int cmd_bench(struct ctx *);
static int cmd_help(struct ctx *);
static int cmd_calibrate(struct ctx *);
static int cmd_doctor(struct ctx *);
static int cmd_progress(struct ctx *);
static int cmd_export(struct ctx *);

static const struct cmd cmd_table[] = {
	{ "list", "list [DIR|FILE...]",
	  "list the lessons (built-in, $HDSIM_LESSON_PATH, and those named)",
	  cmd_list, 0, 0, -1, true },
	{ "show", "show LESSON [--cuda [--scenario S] [--set K=V]...]",
	  "show a lesson: its pages, questions, knobs, scenarios and claims; "
	  "with --cuda, the CUDA C and PyTorch of each scenario",
	  cmd_show, HD_OPT_CUDA | HD_OPT_SCENARIO | HD_OPT_SET, 1, 1, true },
	{ "run", "run LESSON [--scenario S] [--set K=V]... [--json|--plain]",
	  "run a lesson's scenarios and print their timelines and claims",
	  cmd_run, HD_OPT_SCENARIO | HD_OPT_SET | HD_OPT_JSON | HD_OPT_PLAIN | HD_OPT_REAL,
	  1, 1, true },
	{ "lint", "lint FILE|DIR...",
	  "check lesson files (or directories of them) without running them",
	  cmd_lint, 0, 1, -1, false },
	{ "profiles", "profiles [NAME|FILE]",
	  "list the hardware profiles, or describe one",
	  cmd_profiles, 0, 0, 1, false },
	{ "bench", "bench [--quick]",
	  "measure the simulator: events per second, memory, lesson run times",
	  cmd_bench, HD_OPT_QUICK, 0, 0, false },
	{ "calibrate", "calibrate [--quick] [--db FILE]",
	  "measure this machine's GPU, write a profile and store it (needs a GPU build)",
	  cmd_calibrate, HD_OPT_REAL | HD_OPT_QUICK | HD_OPT_DB, 0, 0, false },
	{ "doctor", "doctor",
	  "report the GPU, driver, CUDA and NCCL found (needs a GPU build)",
	  cmd_doctor, HD_OPT_REAL, 0, 0, false },
	{ "progress", "progress [LESSON] [--learner NAME] [--reset] [--db FILE]",
	  "show a learner's answers to the lessons' questions, or reset them",
	  cmd_progress, HD_OPT_LEARNER | HD_OPT_RESET | HD_OPT_DB, 0, 1, true },
	{ "export", "export --format csv|json|perfetto|svg|html|md [--run ID | --lesson L | "
	  "--all] [--db FILE]... [-o FILE]\n       hdsim export --class DB... [-o DIR]",
	  "runs, claims, answers as CSV, JSON, Perfetto, SVG, HTML, Markdown; class files",
	  cmd_export, HD_OPT_FORMAT | HD_OPT_OUTPUT | HD_OPT_RUN | HD_OPT_LESSON | HD_OPT_ALL |
	  HD_OPT_CLASS | HD_OPT_TABLE | HD_OPT_DB | HD_OPT_LEARNER, 0, -1, true },
	{ "help", "help [COMMAND]",
	  "show help for hdsim or for one command",
	  cmd_help, 0, 0, 1, false },
};

static int cmd_default(struct ctx *);
static int cmd_real(struct ctx *);

/* What runs when no command is named: hdsim alone, and hdsim --real. */
static const struct cmd cmd_none = {
	"hdsim", "[--scenario S] [--set k=v]... [--profile P] [--plain] [--db FILE] "
	"[--learner NAME] [--reduced-motion]",
	"on a terminal: the lesson browser; otherwise list the lessons and show "
	"the first lesson's timeline",
	cmd_default, HD_OPT_SCENARIO | HD_OPT_SET | HD_OPT_PLAIN | HD_OPT_DB | HD_OPT_LEARNER |
	HD_OPT_REDUCED_MOTION, 0, 0, true };
static const struct cmd cmd_real_run = {
	"--real", "--real [LESSON...] [--scenario S] [--set k=v]... [--db FILE]",
	"run lessons on this machine's GPU and on the model, store both, compare them",
	cmd_real, HD_OPT_SCENARIO | HD_OPT_SET | HD_OPT_REAL | HD_OPT_DB,
	0, -1, true };

static const struct cmd *
find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(cmd_table); i++)
		if (strcmp(cmd_table[i].name, name) == 0)
			return &cmd_table[i];
	return NULL;
}

static void
print_help(FILE *f)
{
	size_t nopts, i;
	const struct hd_cli_opt *opts = hd_cli_opt_table(&nopts);

	fprintf(f,
		"usage: hdsim [COMMAND] [ARGS] [OPTIONS]\n"
		"\n"
		"hdsim teaches how a CPU host and NVIDIA GPUs work together: it runs lesson\n"
		"scenarios on a model of host threads, PCIe links, copy engines and streams,\n"
		"and draws what happens.  Without a command it opens the lesson browser on a\n"
		"terminal, or lists the lessons and shows the first lesson's timeline.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < HD_ARRAY_LEN(cmd_table); i++)
		fprintf(f, "  %-10s %s\n", cmd_table[i].name, cmd_table[i].summary);
	fprintf(f, "\nOptions:\n");
	for (i = 0; i < nopts; i++) {
		const struct hd_cli_opt *p = &opts[i];
		char lhs[48];
		char sh[8] = "";
		if (p->short_name != 0)
			snprintf(sh, sizeof sh, "-%c, ", p->short_name);
		snprintf(lhs, sizeof lhs, "%s%s%s%s", sh, p->name,
			 p->arg_name ? " " : "", p->arg_name ? p->arg_name : "");
		fprintf(f, "  %-24s %s\n", lhs, p->help);
	}
	fprintf(f,
		"\n"
		"LESSON is a lesson id (pinned-vs-pageable), a number or unique prefix\n"
		"(1, 01, pinned), or a path to a .hds file.\n"
		"\n"
		"Examples:\n"
		"  hdsim run 1\n"
		"  hdsim run two-streams --set pairs=8 --profile a100-pcie\n"
		"  hdsim run 1 --json > run.json\n"
		"\n"
		"Exit status: 0 ok; 1 a run failed or a claim does not hold; 2 bad input.\n"
		"See hdsim(1) for more.\n");
}

static void
print_cmd_help(FILE *f, const struct cmd *c)
{
	size_t nopts, i;
	const struct hd_cli_opt *opts = hd_cli_opt_table(&nopts);

	fprintf(f, "usage: hdsim %s\n\n%s.\n", c->usage, c->summary);
	fprintf(f, "\nOptions:\n");
	for (i = 0; i < nopts; i++) {
		const struct hd_cli_opt *p = &opts[i];
		char lhs[48];
		if (p->bit == 0 || ((c->opts | OPTS_ALL) & p->bit) == 0)
			continue;
		snprintf(lhs, sizeof lhs, "%s%s%s", p->name, p->arg_name ? " " : "",
			 p->arg_name ? p->arg_name : "");
		fprintf(f, "  %-24s %s\n", lhs, p->help);
	}
}

static void
put_out(struct ctx *x, struct hd_buf *b)
{
	if (b->len > 0)
		fwrite(b->s, 1, b->len, x->out);
	fflush(x->out);
}

static int
report_err(struct ctx *x, const struct hd_err *e)
{
	hd_err_print(e, x->err);
	return e->status != 0 ? e->status : HD_EXIT_FAIL;
}

static void
print_catalog_errors(struct ctx *x)
{
	int i;

	for (i = 0; i < hd_catalog_nerrors(x->cat); i++) {
		fprintf(x->err, "hdsim: warning: a lesson was skipped:\n");
		hd_err_print(hd_catalog_error(x->cat, i), x->err);
	}
}

/* ---- list / show --------------------------------------------------------- */

static void
list_lessons(struct ctx *x, struct hd_buf *b)
{
	int i, n = hd_catalog_count(x->cat), idw = 6;
	const char *part = NULL;

	for (i = 0; i < n; i++) {
		int l = (int)strlen(hd_lesson_id(hd_catalog_get(x->cat, i)));
		if (l > idw)
			idw = l;
	}
	hd_buf_printf(b, "Lessons (%d)\n", n);
	for (i = 0; i < n; i++) {
		const struct hd_lesson *l = hd_catalog_get(x->cat, i);
		const char *p = hd_lesson_part(l), *sum = hd_lesson_summary(l);
		const char *orig = hd_catalog_origin(x->cat, i);

		if (p != NULL && p[0] != '\0' && (part == NULL || strcmp(part, p) != 0)) {
			hd_buf_printf(b, "\n%s\n", p);
			part = p;
		} else if (i == 0)
			hd_buf_putc(b, '\n');
		{
			const char *title = hd_lesson_title(l);
			int room = x->width - 8 - idw;
			if (room < 10)
				room = 10;
			if ((int)strlen(title) > room)
				hd_buf_printf(b, "  %2d  %-*s  %.*s...", i + 1, idw,
					      hd_lesson_id(l), room - 3, title);
			else
				hd_buf_printf(b, "  %2d  %-*s  %s", i + 1, idw,
					      hd_lesson_id(l), title);
		}
		if (orig != NULL && strcmp(orig, "built-in") != 0)
			hd_buf_printf(b, "  (%s)", orig);
		hd_buf_putc(b, '\n');
		if (sum != NULL && sum[0] != '\0') {
			char *pad = hd_xasprintf("%*s", 8 + idw, "");
			hd_timeline_wrap(b, pad, sum, x->width, 8 + idw);
			free(pad);
		}
	}
}

static int
cmd_list(struct ctx *x)
{
	struct hd_buf b;
	int i, status = 0;

	for (i = 0; i < x->nargs; i++) {
		struct hd_err e = { 0 };
		if (hd_catalog_add_path(x->cat, x->args[i], &e) < 0)
			status = report_err(x, &e);
	}
	hd_buf_init(&b);
	list_lessons(x, &b);
	hd_buf_putc(&b, '\n');
	hd_timeline_wrap(&b, "", "Run one with 'hdsim run NUMBER' or 'hdsim run ID'; "
			 "'hdsim show ID' shows its text.", x->width, 0);
	put_out(x, &b);
	hd_buf_free(&b);
	return status;
}

/* 4e10 -> "40 GFLOP" */
static void
fmt_flop(char *buf, size_t n, double v)
{
	static const char *const pre[] = { "", "K", "M", "G", "T", "P" };
	size_t i = 0;

	while (i + 1 < HD_ARRAY_LEN(pre) && v >= 1000) {
		v /= 1000;
		i++;
	}
	snprintf(buf, n, "%.4g %sFLOP", v, pre[i]);
}

static void
fmt_knob(char *buf, size_t n, enum hd_dim d, double v)
{
	switch (d) {
	case HD_DIM_BYTES:
		hd_fmt_bytes(buf, n, (uint64_t)v);
		break;
	case HD_DIM_TIME:
		hd_fmt_time(buf, n, (hd_time)v);
		break;
	case HD_DIM_RATE:
		hd_fmt_rate(buf, n, v);
		break;
	case HD_DIM_FLOP:
		fmt_flop(buf, n, v);
		break;
	case HD_DIM_FLOPS:
		hd_fmt_flops(buf, n, v);
		break;
	case HD_DIM_PERCENT:
		snprintf(buf, n, "%g%%", v * 100);
		break;
	default:
		snprintf(buf, n, "%g", v);
		break;
	}
}

/* The ops of a scenario, one per line, loop bodies indented. */
static void
show_ops(struct hd_buf *b, const struct hd_scenario *sc)
{
	int stack[32], depth = 0, i;
	char by[32];

	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		while (depth > 0 && stack[depth - 1] <= 0)
			depth--;
		hd_buf_printf(b, "      line %-4d %*s", op->line, depth * 2, "");
		if (op->kind == HD_OP_REPEAT)
			hd_buf_printf(b, "repeat %llu times:", (unsigned long long)op->count);
		else if (op->kind == HD_OP_ON_RANK)
			hd_buf_printf(b, "on rank %d:", op->rank);
		else {
			hd_buf_puts(b, hd_op_api_name_sc(sc, op));
			if (op->label != NULL)
				hd_buf_printf(b, "  '%s'", op->label);
			if (op->bytes > 0)
				hd_buf_printf(b, "  %s", hd_fmt_bytes(by, sizeof by, op->bytes));
			if (op->kind == HD_OP_COPY)
				hd_buf_printf(b, " %s", hd_copy_kind_name(op->copy));
			if (op->kind == HD_OP_KERNEL)
				hd_buf_printf(b, "  %s kernel", hd_kernel_name(op->kernel));
			if (op->kind == HD_OP_KERNEL && op->flops > 0) {
				fmt_flop(by, sizeof by, op->flops);
				hd_buf_printf(b, "  %s", by);
			}
			if ((op->kind == HD_OP_KERNEL || op->kind == HD_OP_HOST) &&
			    op->duration > 0)
				hd_buf_printf(b, "  %s", hd_fmt_time(by, sizeof by, op->duration));
			if (op->stream >= 0 && op->stream < sc->nstreams &&
			    (op->kind == HD_OP_KERNEL || op->kind == HD_OP_RECORD ||
			     op->kind == HD_OP_WAIT || op->kind == HD_OP_STREAM_SYNC ||
			     op->kind == HD_OP_PREFETCH ||
			     (op->kind == HD_OP_COPY && op->async)))
				hd_buf_printf(b, "  on %s", sc->streams[op->stream].name);
		}
		hd_buf_putc(b, '\n');
		if (depth > 0)
			stack[depth - 1]--;
		if ((op->kind == HD_OP_REPEAT || op->kind == HD_OP_ON_RANK) &&
		    op->body_len > 0 && depth < (int)HD_ARRAY_LEN(stack))
			stack[depth++] = op->body_len;
	}
}

/* show --cuda: each scenario as the CUDA C the real backend runs, then as PyTorch. */
static int
show_cuda(struct ctx *x, const struct hd_lesson *l)
{
	struct hd_err e = { 0 };
	struct hd_buf b;
	double *knobs = hd_xcalloc((size_t)hd_lesson_nknobs(l) + 1, sizeof *knobs);
	int i, shown = 0, status = 0;

	hd_lesson_knob_defaults(l, knobs);
	for (i = 0; i < x->o->nsets; i++)
		if (hd_lesson_knob_set(l, knobs, x->o->sets[i], &e) != 0)
			goto fail;
	hd_buf_init(&b);
	for (i = 0; i < hd_lesson_nscenarios(l); i++) {
		struct hd_scenario *sc;

		if (x->o->scenario != NULL &&
		    strcmp(x->o->scenario, hd_lesson_scenario_name(l, i)) != 0)
			continue;
		if ((sc = hd_lesson_instantiate(l, i, knobs, &e)) == NULL) {
			hd_buf_free(&b);
			goto fail;
		}
		hd_buf_printf(&b, "%s==== %s: %s ====\n\n---- CUDA C ----\n", shown ? "\n" : "",
			      sc->name, sc->title ? sc->title : "");
		hd_cudagen_c(sc, &b);
		hd_buf_puts(&b, "\n---- PyTorch ----\n");
		hd_cudagen_torch(sc, &b);
		hd_scenario_free(sc);
		shown++;
	}
	if (shown == 0) {
		hd_buf_free(&b);
		hd_err_set(&e, HD_EXIT_INPUT, "--scenario", "lesson '%s' has no scenario '%s'",
			   hd_lesson_id(l), x->o->scenario);
		goto fail;
	}
	put_out(x, &b);
	hd_buf_free(&b);
	free(knobs);
	return status;
fail:
	free(knobs);
	return report_err(x, &e);
}

static int
cmd_show(struct ctx *x)
{
	struct hd_err e = { 0 };
	struct hd_buf b;
	const struct hd_lesson *l;
	double *knobs;
	char v[32], lo[32], hi[32];
	int idx, i, j;

	if ((idx = hd_catalog_find(x->cat, x->args[0], &e)) < 0)
		return report_err(x, &e);
	l = hd_catalog_get(x->cat, idx);
	if (x->o->cuda)
		return show_cuda(x, l);
	if (x->o->nsets > 0 || x->o->scenario != NULL) {
		hd_err_set(&e, HD_EXIT_INPUT, x->o->nsets > 0 ? "--set" : "--scenario",
			   "show takes --set and --scenario only with --cuda");
		return report_err(x, &e);
	}
	hd_buf_init(&b);
	hd_buf_printf(&b, "Lesson %d  %s", idx + 1, hd_lesson_title(l));
	if ((int)(strlen(hd_lesson_title(l)) + strlen(hd_lesson_id(l)) + 14) <= x->width)
		hd_buf_printf(&b, "  [%s]", hd_lesson_id(l));
	else
		hd_buf_printf(&b, "\nId        %s", hd_lesson_id(l));
	hd_buf_putc(&b, '\n');
	if (hd_lesson_part(l) != NULL && hd_lesson_part(l)[0] != '\0')
		hd_buf_printf(&b, "Part      %s\n", hd_lesson_part(l));
	hd_buf_printf(&b, "Source    %s\n", hd_catalog_origin(x->cat, idx) != NULL &&
		      strcmp(hd_catalog_origin(x->cat, idx), "built-in") == 0 ?
		      hd_lesson_path(l) : hd_catalog_origin(x->cat, idx));
	if (hd_lesson_summary(l) != NULL && hd_lesson_summary(l)[0] != '\0')
		hd_timeline_wrap(&b, "Summary   ", hd_lesson_summary(l), x->width, 10);
	if (hd_lesson_rule(l) != NULL && hd_lesson_rule(l)[0] != '\0') {
		hd_timeline_wrap(&b, "Rule      ", hd_lesson_rule(l), x->width, 10);
		if (hd_lesson_rule_url(l) != NULL && hd_lesson_rule_url(l)[0] != '\0')
			hd_buf_printf(&b, "          %s\n", hd_lesson_rule_url(l));
	}
	for (i = 0; i < hd_lesson_npages(l); i++) {
		const struct hd_page *p = hd_lesson_page(l, i);
		const char *s = p->text;
		hd_buf_printf(&b, "\n== %s ==\n", p->title);
		while (s != NULL && *s != '\0') {
			const char *nl = strchr(s, '\n');
			size_t n = nl != NULL ? (size_t)(nl - s) : strlen(s);
			hd_buf_puts(&b, "  ");
			hd_buf_putn(&b, s, n);
			hd_buf_putc(&b, '\n');
			s = nl != NULL ? nl + 1 : NULL;
		}
	}
	if (hd_lesson_nquestions(l) > 0)
		hd_buf_puts(&b, "\nQuestions (predict before you run it):\n");
	for (i = 0; i < hd_lesson_nquestions(l); i++) {
		const struct hd_question *q = hd_lesson_question(l, i);
		char first[16];
		snprintf(first, sizeof first, "  %d. ", i + 1);
		hd_timeline_wrap(&b, first, q->prompt, x->width, 5);
		for (j = 0; j < q->noptions; j++) {
			snprintf(first, sizeof first, "     %c) ", 'a' + (j % 26));
			hd_timeline_wrap(&b, first, q->options[j], x->width, 8);
		}
	}
	if (hd_lesson_nknobs(l) > 0)
		hd_buf_puts(&b, "\nKnobs (change with --set NAME=VALUE):\n");
	for (i = 0; i < hd_lesson_nknobs(l); i++) {
		const struct hd_knob *k = hd_lesson_knob(l, i);
		fmt_knob(v, sizeof v, k->dim, k->def);
		fmt_knob(lo, sizeof lo, k->dim, k->min);
		fmt_knob(hi, sizeof hi, k->dim, k->max);
		{
			char first[128];
			snprintf(first, sizeof first, "  %-12s %10s  (%s .. %s)  ", k->name, v,
				 lo, hi);
			hd_timeline_wrap(&b, first, k->text != NULL ? k->text : "", x->width, 6);
		}
	}
	knobs = hd_xcalloc((size_t)hd_lesson_nknobs(l) + 1, sizeof *knobs);
	hd_lesson_knob_defaults(l, knobs);
	hd_buf_puts(&b, "\nScenarios:\n");
	for (i = 0; i < hd_lesson_nscenarios(l); i++) {
		struct hd_err se = { 0 };
		struct hd_scenario *sc = hd_lesson_instantiate(l, i, knobs, &se);
		hd_buf_printf(&b, "  %s: %s\n", hd_lesson_scenario_name(l, i),
			      hd_lesson_scenario_title(l, i));
		if (sc != NULL)
			show_ops(&b, sc);
		else
			hd_buf_printf(&b, "      (cannot be built with the default knobs: %s)\n",
				      se.msg);
		hd_scenario_free(sc);
	}
	free(knobs);
	if (hd_lesson_nclaims(l) > 0)
		hd_buf_puts(&b, "\nClaims (checked by 'hdsim run'):\n");
	for (i = 0; i < hd_lesson_nclaims(l); i++) {
		const struct hd_claim *c = hd_lesson_claim(l, i);
		hd_timeline_wrap(&b, "  - ", c->text, x->width, 4);
		hd_timeline_wrap(&b, "      ", c->expr, x->width, 8);
	}
	hd_buf_printf(&b, "\nRun it: hdsim run %s\n", hd_lesson_id(l));
	put_out(x, &b);
	hd_buf_free(&b);
	return 0;
}

/* ---- run ----------------------------------------------------------------- */

static int
run_one(struct ctx *x, int idx)
{
	const struct hd_lesson *l = hd_catalog_get(x->cat, idx);
	struct hd_run r;
	struct hd_err e = { 0 };
	struct hd_buf b;
	struct hd_tl_opts to;
	int only = -1, i, status;

	if (x->o->scenario != NULL) {
		only = hd_lesson_find_scenario(l, x->o->scenario);
		if (only < 0) {
			char names[256];
			size_t n = 0;
			names[0] = '\0';
			for (i = 0; i < hd_lesson_nscenarios(l) && n < sizeof names; i++)
				n += (size_t)snprintf(names + n, sizeof names - n, "%s%s",
						      i ? ", " : "",
						      hd_lesson_scenario_name(l, i));
			hd_err_set(&e, HD_EXIT_INPUT, "--scenario", "lesson '%s' has no "
				   "scenario '%s'; it has: %s", hd_lesson_id(l),
				   x->o->scenario, names);
			return report_err(x, &e);
		}
	}
	if (hd_run_lesson(&r, l, idx + 1, &x->profile, x->backend, x->o->sets,
			  x->o->nsets, &e) != 0) {
		hd_run_free(&r);
		return report_err(x, &e);
	}
	hd_buf_init(&b);
	if (x->o->json)
		hd_report_json(&b, &r, only);
	else if (x->o->plain)
		hd_report_plain(&b, &r, only);
	else {
		to.width = x->width;
		to.color = x->color;
		for (i = 0; i < r.nscen; i++) {
			struct hd_tl_info info = {
				.lesson_id = hd_lesson_id(l),
				.lesson_title = hd_lesson_title(l),
				.lesson_number = idx + 1,
				.scenario_name = hd_lesson_scenario_name(l, i),
				.scenario_title = hd_lesson_scenario_title(l, i),
				.profile_name = r.profile.name,
				.backend = x->backend->name,
				.sc = r.sc[i],
			};
			if (only >= 0 && i != only)
				continue;
			if (b.len > 0)
				hd_buf_puts(&b, "\n\n");
			hd_timeline_render(&b, r.traces[i], &info, &to);
		}
		hd_report_claims(&b, &r, x->color, x->width);
	}
	put_out(x, &b);
	hd_buf_free(&b);
	status = r.claims_failed > 0 || r.claims_unchecked > 0 ? HD_EXIT_FAIL : HD_EXIT_OK;
	hd_run_free(&r);
	return status;
}

static int
cmd_run(struct ctx *x)
{
	struct hd_err e = { 0 };
	int idx;

	if ((idx = hd_catalog_find(x->cat, x->args[0], &e)) < 0)
		return report_err(x, &e);
	return run_one(x, idx);
}

static volatile sig_atomic_t real_stop;

static void
on_sigint(int sig)
{
	(void)sig;
	real_stop = 1;
}

/*
 * hdsim --real [LESSON...]: predict and measure every scenario that fits
 * this machine, store both, compare them and check the claims on the GPU.
 */
/*
 * The host CPU's own figures (API call costs, the memcpy rates of pageable
 * staging, pinning, the driver's handling of managed-memory faults) move
 * between processes on one machine by as much as the prediction target
 * (bench/results/2026-11-22-gpu.md: +-8 to 14 % between four processes on one
 * H100 host; bench/results/2026-11-22-h100-host/), so `--real` measures them
 * again here, a few seconds, and predicts with them and the calibrated GPU
 * figures.  The
 * stored profile of each predicted run has the figures used.
 */
static void
refresh_host_figures(struct ctx *x, struct hd_profile *p, char *why, size_t n)
{
	struct hd_calibrate_opts co;
	struct hd_profile q = *p;
	struct hd_buf log;
	struct hd_err e = { 0 };
	char a[32], b[32], c[32], d[32], f[32], g[32], u[32], v[32];
	size_t len;

	memset(&co, 0, sizeof co);
	co.quick = 1;
	co.host_only = 1;
	co.stop = &real_stop;
	hd_buf_init(&log);
	fprintf(x->err, "hdsim: measuring this process's host figures (pageable copies, "
		"pinning, API costs, managed-memory faults)...\n");
	if (hd_real_calibrate(&co, &q, &log, &e) != 0) {
		fprintf(x->err, "hdsim: host figures not measured again (%s): the calibrated "
			"ones are used\n", e.msg);
		hd_buf_free(&log);
		return;
	}
	hd_buf_free(&log);
	fprintf(x->err, "hdsim: host memcpy HtoD %s (calibrated %s), DtoH %s (%s), pinning "
		"%s (%s)\n", hd_fmt_rate(a, sizeof a, q.host_memcpy_h2d_bw),
		hd_fmt_rate(b, sizeof b, p->host_memcpy_h2d_bw),
		hd_fmt_rate(c, sizeof c, q.host_memcpy_d2h_bw),
		hd_fmt_rate(d, sizeof d, p->host_memcpy_d2h_bw),
		hd_fmt_rate(f, sizeof f, q.pin_bw), hd_fmt_rate(g, sizeof g, p->pin_bw));
	fprintf(x->err, "hdsim: managed-memory faults %s per page (calibrated %s), at %s (%s)\n",
		hd_fmt_time(u, sizeof u, q.um_fault), hd_fmt_time(v, sizeof v, p->um_fault),
		hd_fmt_rate(a, sizeof a, q.um_fault_bw), hd_fmt_rate(b, sizeof b, p->um_fault_bw));
	snprintf(q.name, sizeof q.name, "%s", p->name);
	snprintf(q.origin, sizeof q.origin, "%s", p->origin);
	*p = q;
	len = strlen(why);
	snprintf(why + len, n > len ? n - len : 0, "; host figures measured again in this "
		 "process");
}

static int
cmd_real(struct ctx *x)
{
	struct hd_verify_opts vo;
	struct hd_verify_result res;
	struct hd_store_machine m;
	struct hd_profile pick;
	struct hd_err e = { 0 };
	struct hd_buf b;
	struct sigaction sa, old_int, old_term;
	const struct hd_lesson **ls;
	char why[512];
	int i, n = x->nargs > 0 ? x->nargs : hd_catalog_count(x->cat), idx = 0, rc;

	ls = hd_xcalloc((size_t)n + 1, sizeof *ls);
	for (i = 0; i < n; i++) {
		if (x->nargs > 0 && (idx = hd_catalog_find(x->cat, x->args[i], &e)) < 0) {
			free(ls);
			return report_err(x, &e);
		}
		ls[i] = hd_catalog_get(x->cat, x->nargs > 0 ? idx : i);
	}
	memset(&m, 0, sizeof m);
	if (hd_real_machine(0, &m, &e) != 0) {
		free(ls);
		return report_err(x, &e);
	}
	memset(&vo, 0, sizeof vo);
	if (x->o->profile != NULL) {
		vo.profile = &x->profile;
		snprintf(why, sizeof why, "--profile %s", x->o->profile);
	} else {
		if (hd_verify_pick_profile(m.gpu_name, &pick, why, sizeof why) == 1 &&
		    getenv("HDSIM_KEEP_HOST_FIGURES") == NULL)
			refresh_host_figures(x, &pick, why, sizeof why);
		vo.profile = &pick;
	}
	vo.measured = x->backend;
	vo.db_path = x->o->db;
	vo.machine = &m;
	vo.sets = x->o->sets;
	vo.nsets = x->o->nsets;
	vo.scenario = x->o->scenario;
	vo.warmup = 1;
	vo.repeats = 5;
	vo.stop = &real_stop;
	vo.progress = x->err;
	vo.progress_tty = isatty(fileno(x->err));
	vo.width = x->width;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	hd_buf_init(&b);
	hd_buf_printf(&b, "GPU:         %s (%s), driver %s, CUDA runtime %s\n",
		      m.gpu_name ? m.gpu_name : "?", m.pci_bus_id ? m.pci_bus_id : "?",
		      m.driver ? m.driver : "?", m.cuda_runtime ? m.cuda_runtime : "?");
	hd_buf_printf(&b, "Profile:     %s\n", why);
	rc = hd_verify_lessons(ls, n, &vo, &b, &res, &e);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc == 0)
		hd_buf_printf(&b, "\n%d scenario%s measured, %d skipped; claims: %d verified, "
			      "%d refuted, %d not checked; %d runs stored\n", res.scenarios_run,
			      res.scenarios_run == 1 ? "" : "s", res.scenarios_skipped,
			      res.claims_verified, res.claims_refuted, res.claims_unchecked,
			      res.runs_stored);
	put_out(x, &b);
	hd_buf_free(&b);
	hd_verify_result_free(&res);
	free(ls);
	if (rc != 0)
		return report_err(x, &e);
	/* Skips alone do not fail a run; a run that measured nothing does. */
	if (res.scenarios_run == 0 && res.scenarios_skipped > 0) {
		fprintf(x->err, "hdsim: nothing was measured: every scenario asked for was "
			"skipped on this machine\n");
		return HD_EXIT_FAIL;
	}
	return res.claims_refuted > 0 ? HD_EXIT_FAIL : HD_EXIT_OK;
}

/* Whether `hdsim` alone opens the lesson browser: both ends a terminal that
 * curses can drive, no --plain, and no --scenario or --set (which ask for
 * one run's text output). */
static bool
use_tui(const struct ctx *x)
{
	const char *term = getenv("TERM");

	return !x->o->plain && x->o->scenario == NULL && x->o->nsets == 0 &&
	       x->out == stdout && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
	       term != NULL && term[0] != '\0' && strcmp(term, "dumb") != 0;
}

/* hdsim alone: the lesson browser on a terminal, else the lesson list and
 * the first lesson's timeline. */
static int
cmd_default(struct ctx *x)
{
	struct hd_buf b;
	int status;

	if (use_tui(x) && hd_catalog_count(x->cat) > 0) {
		struct hd_tui_opts to = { x->o->db, hd_config_learner(x->o->learner),
					  x->o->no_color, x->o->reduced_motion };
		struct hd_err e = { 0 };
		if (hd_store_learner_check(to.learner, &e) != 0)
			return report_err(x, &e);
		fflush(stdout);
		if ((status = hd_tui_main(x->cat, &x->profile, &to)) >= 0)
			return status;
		/* curses cannot drive this terminal: the text output below */
	}
	hd_buf_init(&b);
	list_lessons(x, &b);
	hd_buf_puts(&b, "\n");
	put_out(x, &b);
	hd_buf_free(&b);
	if (hd_catalog_count(x->cat) == 0) {
		fprintf(x->err, "hdsim: no lessons were found\n");
		return HD_EXIT_FAIL;
	}
	status = run_one(x, 0);
	hd_buf_init(&b);
	hd_buf_putc(&b, '\n');
	hd_timeline_wrap(&b, "", "Next: 'hdsim show 1' for the lesson's text, 'hdsim run 2' "
			 "for the next lesson, 'hdsim help' for everything else.", x->width, 0);
	put_out(x, &b);
	hd_buf_free(&b);
	return status;
}

/* ---- lint ---------------------------------------------------------------- */

static int
lint_file(struct ctx *x, const char *path)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_load(path, &e);
	double *knobs;
	int i, status = 0;

	if (l == NULL)
		return report_err(x, &e);
	knobs = hd_xcalloc((size_t)hd_lesson_nknobs(l) + 1, sizeof *knobs);
	hd_lesson_knob_defaults(l, knobs);
	for (i = 0; i < hd_lesson_nscenarios(l); i++) {
		struct hd_scenario *sc = hd_lesson_instantiate(l, i, knobs, &e);
		if (sc == NULL) {
			status = report_err(x, &e);
			memset(&e, 0, sizeof e);
		}
		hd_scenario_free(sc);
	}
	if (status == 0)
		fprintf(x->out, "%s: ok: lesson %s, %d scenario%s, %d claim%s\n", path,
			hd_lesson_id(l), hd_lesson_nscenarios(l),
			hd_lesson_nscenarios(l) == 1 ? "" : "s", hd_lesson_nclaims(l),
			hd_lesson_nclaims(l) == 1 ? "" : "s");
	free(knobs);
	hd_lesson_free(l);
	return status;
}

/* A directory: every *.hds file in it, in name order. */
static int
lint_dir(struct ctx *x, const char *path)
{
	struct hd_err e = { 0 };
	char **names = NULL;
	int n, i, status = 0, s;

	if ((n = hd_catalog_list_dir(path, &names, &e)) < 0)
		return report_err(x, &e);
	for (i = 0; i < n; i++) {
		s = lint_file(x, names[i]);
		if (s > status)
			status = s;
		free(names[i]);
	}
	free(names);
	if (n == 0)
		fprintf(x->err, "%s: warning: no .hds files here\n", path);
	return status;
}

static int
cmd_lint(struct ctx *x)
{
	struct stat st;
	int i, status = 0, s;

	for (i = 0; i < x->nargs; i++) {
		if (stat(x->args[i], &st) == 0 && S_ISDIR(st.st_mode))
			s = lint_dir(x, x->args[i]);
		else
			s = lint_file(x, x->args[i]);
		if (s > status)
			status = s;
	}
	return status;
}

/* ---- profiles, bench ----------------------------------------------------- */

static int
cmd_profiles(struct ctx *x)
{
	struct hd_buf b;
	struct hd_err e = { 0 };
	struct hd_profile p;
	char *s;

	hd_buf_init(&b);
	if (x->nargs == 0) {
		hd_profile_list(&b, x->width);
		hd_buf_putc(&b, '\n');
		hd_timeline_wrap(&b, "", "Use one with --profile NAME; 'hdsim profiles NAME' "
				 "shows every figure; doc/profile-format.md describes profile "
				 "files.", x->width, 0);
		put_out(x, &b);
		hd_buf_free(&b);
		return 0;
	}
	if (hd_profile_resolve(x->args[0], &p, &e) != 0)
		return report_err(x, &e);
	s = hd_profile_describe(&p);
	fputs(s, x->out);
	free(s);
	return 0;
}

static int
cmd_bench(struct ctx *x)
{
	return hd_bench_main(x->out, &x->profile, x->o->quick);
}

/* ---- the GPU ------------------------------------------------------------- */

static int
gpu_unavailable(struct ctx *x)
{
	struct hd_err e = { 0 };

	if (hd_real_backend.available(&e) == 0)
		return 0;
	if (e.status == 0)
		e.status = HD_EXIT_FAIL;
	return report_err(x, &e);
}

struct calib_progress {
	FILE *f;
	int tty;
	char last[128];         /* the stage last reported, without its size */
};

/* Progress of a calibration: a redrawn bar on a terminal, else a line per stage. */
static void
calib_progress(void *ctx, double frac, const char *what)
{
	struct calib_progress *cp = ctx;
	char stage[128];
	size_t i;
	int k, fill;

	if (cp->tty) {
		fill = (int)(frac * 30 + 0.5);
		fputs("\r[", cp->f);
		for (k = 0; k < 30; k++)
			fputc(k < fill ? '#' : '-', cp->f);
		fprintf(cp->f, "] %3d%% %.60s\033[K", (int)(frac * 100 + 0.5), what);
		if (frac >= 1)
			fputc('\n', cp->f);
		fflush(cp->f);
		return;
	}
	/* "pinned H2D 64 MiB" is stage "pinned H2D": cut before the size */
	snprintf(stage, sizeof stage, "%s", what);
	for (i = 1; stage[i] != '\0'; i++)
		if (stage[i - 1] == ' ' && stage[i] >= '0' && stage[i] <= '9') {
			stage[i - 1] = '\0';
			break;
		}
	if (strcmp(stage, cp->last) == 0)
		return;
	snprintf(cp->last, sizeof cp->last, "%s", stage);
	fprintf(cp->f, "hdsim: calibrate: %3d%% %s\n", (int)(frac * 100 + 0.5), stage);
	fflush(cp->f);
}

/* The profile file, written where 'hdsim --real' looks for it. */
static char *
calib_write(const struct hd_profile *p, struct hd_err *e)
{
	char *dir = hd_verify_profile_dir(), *path;

	path = hd_profile_write_calibrated(p, dir, p->gpu_name, e);
	free(dir);
	return path;
}

/*
 * hdsim calibrate [--quick]: measure GPU 0 starting from the closest
 * built-in (or --profile), print the log, write the profile file.
 */
static int
cmd_calibrate(struct ctx *x)
{
	struct hd_calibrate_opts co;
	struct hd_store_machine m;
	struct hd_profile p;
	struct hd_err e = { 0 };
	struct hd_buf log;
	struct sigaction sa, old_int, old_term;
	struct calib_progress cp;
	struct hd_store *st;
	int64_t pid = 0;
	char *text;
	const char *base;
	char *path;
	int s = gpu_unavailable(x), rc;

	if (s != 0)
		return s;
	memset(&m, 0, sizeof m);
	if (hd_real_machine(0, &m, &e) != 0)
		return report_err(x, &e);
	if (x->o->profile != NULL)
		p = x->profile;
	else {
		/* The base supplies what a calibration cannot measure. */
		base = hd_verify_builtin_for_gpu(m.gpu_name);
		if (hd_profile_resolve(base, &p, &e) != 0)
			return report_err(x, &e);
	}
	/* Open the database first: a bad --db fails before the GPU is measured. */
	if ((st = hd_store_open(x->o->db, HD_STORE_RW, &e)) == NULL)
		return report_err(x, &e);
	memset(&cp, 0, sizeof cp);
	cp.f = x->err;
	cp.tty = isatty(fileno(x->err));
	memset(&co, 0, sizeof co);
	co.device = 0;
	co.quick = x->o->quick;
	co.stop = &real_stop;
	co.progress = calib_progress;
	co.ctx = &cp;
	real_stop = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	hd_buf_init(&log);
	rc = hd_real_calibrate(&co, &p, &log, &e);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (cp.tty && rc != 0)
		fputc('\n', x->err);
	put_out(x, &log);
	hd_buf_free(&log);
	if (rc != 0 || (path = calib_write(&p, &e)) == NULL) {
		hd_store_close(st);
		return report_err(x, &e);
	}
	text = hd_profile_format(&p);
	rc = hd_store_profile_insert(st, p.name, text, &pid, &e);
	free(text);
	if (rc != 0) {
		free(path);
		hd_store_close(st);
		return report_err(x, &e);
	}
	fprintf(x->out, "\nWrote %s\nStored it in %s as profile %lld.\nUse it with --profile "
		"%s; 'hdsim --real' picks it for this GPU.\n", path, hd_store_path(st),
		(long long)pid, path);
	free(path);
	hd_store_close(st);
	return HD_EXIT_OK;
}

static int
cmd_doctor(struct ctx *x)
{
	struct hd_err e = { 0 };
	struct hd_buf b;
	int rc;

	hd_buf_init(&b);
	rc = hd_real_doctor(&b, &e);
	put_out(x, &b);
	hd_buf_free(&b);
	if (rc == 0)
		return 0;
	if (e.status == 0)
		e.status = HD_EXIT_FAIL;
	return report_err(x, &e);
}

/* ---- progress ------------------------------------------------------------ */

/* One stored answer, copied out of the store's callback. */
struct answer {
	char *lesson, *question, *answer, *created;
	int correct, confidence, hints;
	double seconds;
};

struct answers {
	struct answer *v;
	size_t n, cap;
};

static int
keep_answer(void *ctx, const struct hd_store_progress *r)
{
	struct answers *a = ctx;
	struct answer *w;

	a->v = hd_xgrow(a->v, &a->cap, a->n + 1, sizeof *a->v);
	w = &a->v[a->n++];
	w->lesson = hd_xstrdup(r->lesson);
	w->question = hd_xstrdup(r->question);
	w->answer = hd_xstrdup(r->answer);
	w->created = hd_xstrdup(r->created ? r->created : "");
	w->correct = r->correct;
	w->confidence = r->confidence;
	w->hints = r->hints;
	w->seconds = r->seconds;
	return 0;
}

static void
answers_free(struct answers *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		free(a->v[i].lesson);
		free(a->v[i].question);
		free(a->v[i].answer);
		free(a->v[i].created);
	}
	free(a->v);
}

/* Characters in a UTF-8 string: the columns it takes, wide ones aside. */
static int
text_cols(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Put s in a cell of w columns: cut with "..." when longer, control
 * characters (an answer may hold a newline) shown as spaces. */
static void
put_cell(struct hd_buf *b, const char *s, int w)
{
	int cols = text_cols(s), keep = cols > w ? w - 3 : cols, used = 0;
	const unsigned char *c;

	for (c = (const unsigned char *)s; *c != '\0'; c++) {
		if ((*c & 0xc0) != 0x80 && used++ == keep)
			break;
		hd_buf_putc(b, *c < 0x20 || *c == 0x7f ? ' ' : (char)*c);
	}
	if (cols > w) {
		hd_buf_puts(b, "...");
		cols = w;
	}
	for (; cols < w; cols++)
		hd_buf_putc(b, ' ');
}

static const char *
result_name(int correct)
{
	return correct > 0 ? "right" : correct == 0 ? "wrong" : "-";
}

/* One lesson's answers (rows from first on, those of its lesson), then its
 * summary over the latest answer to each question. */
static void
put_lesson(struct hd_buf *b, const struct answers *a, size_t first, int width)
{
	const char *lesson = a->v[first].lesson;
	int qw = 8, aw = 6, answered = 0, right = 0, wrong = 0, total = 0;
	size_t i, j;

	for (i = first; i < a->n; i++) {
		if (strcmp(a->v[i].lesson, lesson) != 0)
			continue;
		if (text_cols(a->v[i].question) > qw)
			qw = text_cols(a->v[i].question);
		if (text_cols(a->v[i].answer) > aw)
			aw = text_cols(a->v[i].answer);
	}
	/* 2 + Q + 2 + A + 2 + RESULT 6 + 2 + CONF 4 + 2 + TIME 7 + 2 + HINTS 5
	 * + 2 + WHEN 16 columns, kept under the width: the question is cut to
	 * 20, the answer to what is left (at least 10). */
	if (qw > 20)
		qw = 20;
	if (aw > width - qw - 53)
		aw = width - qw - 53 < 10 ? 10 : width - qw - 53;
	hd_buf_printf(b, "\n%s\n  ", lesson);
	put_cell(b, "QUESTION", qw);
	hd_buf_puts(b, "  ");
	put_cell(b, "ANSWER", aw);
	hd_buf_puts(b, "  RESULT  CONF     TIME  HINTS  WHEN (UTC)\n");
	for (i = first; i < a->n; i++) {
		const struct answer *w = &a->v[i];
		char conf[16] = "-", t[16];
		bool latest = true;

		if (strcmp(w->lesson, lesson) != 0)
			continue;
		if (w->confidence > 0)
			snprintf(conf, sizeof conf, "%d/5", w->confidence);
		if (w->seconds < 60)
			snprintf(t, sizeof t, "%.1f s", w->seconds);
		else if (w->seconds < 3600)
			snprintf(t, sizeof t, "%dm%02ds", (int)(w->seconds / 60),
				 (int)w->seconds % 60);
		else
			snprintf(t, sizeof t, "%.1f h", w->seconds / 3600);
		hd_buf_puts(b, "  ");
		put_cell(b, w->question, qw);
		hd_buf_puts(b, "  ");
		put_cell(b, w->answer, aw);
		hd_buf_printf(b, "  %-6s  %-4s  %7s  %5d  %.10s %.5s\n", result_name(w->correct),
			      conf, t, w->hints, w->created,
			      strlen(w->created) > 11 ? w->created + 11 : "");
		/* Rows come newest first: an answer is its question's latest
		 * unless a row before it answered the same question. */
		total++;
		for (j = first; j < i && latest; j++)
			latest = strcmp(a->v[j].lesson, lesson) != 0 ||
				 strcmp(a->v[j].question, w->question) != 0;
		if (!latest)
			continue;
		answered++;
		right += w->correct > 0;
		wrong += w->correct == 0;
	}
	hd_buf_printf(b, "  %d answered: %d right, %d wrong", answered, right, wrong);
	if (answered - right - wrong > 0)
		hd_buf_printf(b, ", %d not graded", answered - right - wrong);
	if (total > answered)
		hd_buf_printf(b, " (the latest answer to each question; %d answers in all)",
			      total);
	hd_buf_putc(b, '\n');
}

/*
 * hdsim progress [LESSON] [--learner NAME] [--reset]: the learner's answers,
 * newest first, grouped by lesson with a summary each; or delete them.  A
 * database that does not exist yet holds no answers and is not created.
 */
static int
cmd_progress(struct ctx *x)
{
	struct hd_err e = { 0 }, ignored = { 0 };
	struct answers a = { 0 };
	struct hd_store *st = NULL;
	struct hd_buf b;
	struct stat sb;
	const char *who = hd_config_learner(x->o->learner), *lesson = NULL;
	char *path = x->o->db ? hd_xstrdup(x->o->db) : hd_store_default_path();
	enum hd_store_mode mode;
	int64_t gone = 0;
	int rc = HD_EXIT_OK, i;
	size_t k, j;

	hd_buf_init(&b);
	if (hd_store_learner_check(who, &e) != 0) {
		rc = report_err(x, &e);
		goto out;
	}
	if (x->nargs == 1) {
		/* A lesson of the catalogue by id, number or prefix; any other name
		 * as given, for answers to a lesson no longer installed. */
		lesson = x->args[0];
		if ((i = hd_catalog_find(x->cat, lesson, &ignored)) >= 0)
			lesson = hd_lesson_id(hd_catalog_get(x->cat, i));
	}
	memset(&sb, 0, sizeof sb);
	if (stat(path, &sb) == 0 || errno != ENOENT) {
		/* Listing writes nothing, but an older schema is upgraded when the
		 * file may be written; a read-only one is read as it is. */
		mode = x->o->reset || (access(path, W_OK) == 0 && (sb.st_mode & 0222) != 0) ?
		       HD_STORE_RW : HD_STORE_RO;
		if ((st = hd_store_open(path, mode, &e)) == NULL ||
		    (x->o->reset ? hd_store_progress_reset(st, who, lesson, &gone, &e) :
		     hd_store_progress_each(st, who, lesson, keep_answer, &a, &e)) != 0) {
			rc = report_err(x, &e);
			goto out;
		}
	}
	if (x->o->reset)
		hd_buf_printf(&b, "%lld answer%s removed for %s (%s%s).\n", (long long)gone,
			      gone == 1 ? "" : "s", who, lesson ? "lesson " : "all lessons",
			      lesson ? lesson : "");
	else if (a.n == 0)
		hd_buf_printf(&b, "No answers recorded for %s%s%s yet (database %s).\n", who,
			      lesson ? " in lesson " : "", lesson ? lesson : "", path);
	else {
		hd_buf_printf(&b, "Answers of %s, newest first (database %s)\n", who, path);
		/* Lessons in the order of their newest answer. */
		for (k = 0; k < a.n; k++) {
			for (j = 0; j < k && strcmp(a.v[j].lesson, a.v[k].lesson) != 0; j++)
				;
			if (j == k)
				put_lesson(&b, &a, k, x->width);
		}
	}
	put_out(x, &b);
out:
	answers_free(&a);
	hd_buf_free(&b);
	hd_store_close(st);
	free(path);
	return rc;
}

/* ---- export -------------------------------------------------------------- */

static int
cmd_export(struct ctx *x)
{
	return hd_cmd_export(x->o, x->args, x->nargs, x->cat, &x->profile, x->out, x->err);
}

static int
cmd_help(struct ctx *x)
{
	const struct cmd *c;

	if (x->nargs == 0) {
		print_help(x->out);
		return 0;
	}
	if ((c = find_cmd(x->args[0])) == NULL) {
		fprintf(x->err, "hdsim: no command '%s'; see 'hdsim --help'\n", x->args[0]);
		return HD_EXIT_INPUT;
	}
	print_cmd_help(x->out, c);
	return 0;
}

/* ---- main ---------------------------------------------------------------- */

static int
check_args(struct ctx *x, const struct cmd *c)
{
	size_t nopts, i;
	const struct hd_cli_opt *opts = hd_cli_opt_table(&nopts);

	for (i = 0; i < nopts; i++) {
		const struct hd_cli_opt *p = &opts[i];
		if (p->bit != 0 && (x->o->given & p->bit) != 0 &&
		    ((c->opts | OPTS_ALL) & p->bit) == 0) {
			if (c->fn == cmd_default || c->fn == cmd_real)
				fprintf(x->err, "hdsim: option '%s' needs a command here; "
					"see 'hdsim --help'\n", p->name);
			else
				fprintf(x->err, "hdsim: option '%s' does not apply to '%s'; "
					"see 'hdsim help %s'\n", p->name, c->name, c->name);
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
	struct ctx x;
	struct hd_err e = { 0 };
	const struct cmd *c = NULL;
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
		c = find_cmd(o.args[0]);
	if (o.help) {
		if (c != NULL && c->fn != cmd_help)
			print_cmd_help(stdout, c);
		else
			print_help(stdout);
		goto out;
	}
	if (o.version) {
		printf("hdsim %s\n%s\n", PACKAGE_VERSION, hd_real_build_info());
		goto out;
	}
	if (o.nargs > 0 && c == NULL && !o.real) {
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
	if (hd_profile_resolve(o.profile, &x.profile, &e) != 0) {
		status = report_err(&x, &e);
		goto out;
	}
	x.backend = &hd_sim_backend;
	if (o.real) {
		if ((status = gpu_unavailable(&x)) != 0)
			goto out;
		x.backend = &hd_real_backend;
	}
	x.color = hd_cli_color(&o);
	x.width = hd_timeline_width(o.width);
	x.cat = hd_catalog_new();
	if (c->lessons) {
		hd_catalog_add_builtin(x.cat);
		hd_catalog_add_dirs(x.cat, getenv("HDSIM_LESSON_PATH"));
		print_catalog_errors(&x);
	}
	status = c->fn(&x);
out:
	hd_catalog_free(x.cat);
	hd_cli_opts_free(&o);
	hd_ranks_mpi_end();
	if (fflush(stdout) != 0 && status == 0)
		status = HD_EXIT_FAIL;
	return status;
}
