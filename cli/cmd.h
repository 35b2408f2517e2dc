/*
 * cmd.h - the commands, one file each (cli/cmd_*.c), the command table that
 * names them (cli.c), and what they share (common.c).
 *
 * The table calls each command with the context hd_cli_main made for it;
 * each returns the exit status, its output written to x->out and its
 * messages to x->err.
 */
#ifndef HD_CMD_H
#define HD_CMD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/util.h"
#include "cli/cli.h"
#include "ir/backend.h"
#include "lang/catalog.h"
#include "profile/profile.h"

/* What a command runs with. */
struct hd_cmd_ctx {
	struct hd_cli_opts *o;
	FILE *out, *err;
	struct hd_catalog *cat;               /* the lessons, if the command reads them */
	struct hd_profile profile;            /* --profile, or the default */
	const struct hd_backend_ops *backend; /* the model, or the GPU with --real */
	bool color;
	int width;
	char **args; /* the command's own arguments */
	int nargs;
};

/* One row of the command table. */
struct hd_cmd_entry {
	const char *name;
	const char *usage;
	const char *summary;
	int (*fn)(struct hd_cmd_ctx *);
	unsigned opts;          /* HD_OPT_* accepted beyond HD_CMD_OPTS_ALL */
	int min_args, max_args; /* -1: any number */
	bool lessons;           /* reads the lesson catalogue */
};

/* Options every command takes. */
#define HD_CMD_OPTS_ALL (HD_OPT_PROFILE | HD_OPT_NO_COLOR | HD_OPT_WIDTH)

/* ---- the command table (cli.c) ---------------------------------------------- */

/* The named commands in the order help lists them; *n gets how many. */
const struct hd_cmd_entry *hd_cli_commands(size_t *n);

/* The named command called name, or NULL. */
const struct hd_cmd_entry *hd_cli_find_command(const char *name);

/* ---- the commands (cli/cmd_NAME.c) ------------------------------------------ */

/* `hdsim` alone: the lesson browser on a terminal, else the lesson list and
 * the first lesson's timeline. */
int hd_cmd_default(struct hd_cmd_ctx *x);
/* `hdsim --real [LESSON...]`: measure lessons on the GPU, store, compare. */
int hd_cmd_real(struct hd_cmd_ctx *x);
/* `hdsim list [DIR|FILE...]`: the lessons. */
int hd_cmd_list(struct hd_cmd_ctx *x);
/* `hdsim show LESSON [--cuda]`: a lesson's text, or its CUDA C and PyTorch. */
int hd_cmd_show(struct hd_cmd_ctx *x);
/* `hdsim run LESSON`: run a lesson's scenarios, print timelines and claims. */
int hd_cmd_run(struct hd_cmd_ctx *x);
/* `hdsim lint FILE|DIR...`: check lesson files without running them. */
int hd_cmd_lint(struct hd_cmd_ctx *x);
/* `hdsim profiles [NAME|FILE]`: list the profiles, or describe one. */
int hd_cmd_profiles(struct hd_cmd_ctx *x);
/* `hdsim bench [--quick]`: measure the simulator (cli/bench.c). */
int hd_cmd_bench(struct hd_cmd_ctx *x);
/* `hdsim calibrate [--quick]`: measure the GPU, write and store a profile. */
int hd_cmd_calibrate(struct hd_cmd_ctx *x);
/* `hdsim doctor`: the GPU, driver, CUDA and NCCL found. */
int hd_cmd_doctor(struct hd_cmd_ctx *x);
/* `hdsim progress [LESSON]`: a learner's answers, or --reset them. */
int hd_cmd_progress(struct hd_cmd_ctx *x);
/* `hdsim help [COMMAND]`: help for hdsim or one command. */
int hd_cmd_help(struct hd_cmd_ctx *x);

/* `hdsim export ...`: everything the command does. */
int hd_cmd_export(const struct hd_cli_opts *o, char **args, int nargs, struct hd_catalog *cat,
		  const struct hd_profile *p, FILE *out, FILE *err);

/* The whole help (--help, `hdsim help`): commands, options, examples. */
void hd_cmd_help_print(FILE *f);
/* One command's usage, summary and the options it takes. */
void hd_cmd_help_print_cmd(FILE *f, const struct hd_cmd_entry *c);
/* --version: the version and what this build can run on. */
void hd_cmd_version_print(FILE *f);

/* ---- what the commands share (common.c) ------------------------------------- */

/*
 * Make x ready for a command: the profile resolved (--profile or the
 * default), the backend picked (the GPU with --real, refused when there is
 * none), colour and width decided, and the catalogue made, holding the
 * built-in lessons and those of $HDSIM_LESSON_PATH when `lessons` (skipped
 * lessons reported as warnings).  Returns 0, or the exit status after
 * printing why.  x->o, out and err are set by the caller; hd_cmd_ctx_close
 * frees what this made, also after a failure.
 */
int hd_cmd_ctx_open(struct hd_cmd_ctx *x, bool lessons);
void hd_cmd_ctx_close(struct hd_cmd_ctx *x);

/* Write b to x->out and flush it. */
void hd_cmd_put(struct hd_cmd_ctx *x, const struct hd_buf *b);

/* Print e to x->err; returns its exit status (HD_EXIT_FAIL when it has none). */
int hd_cmd_fail(struct hd_cmd_ctx *x, const struct hd_err *e);

/* 0 when the GPU backend can run here, else the exit status after saying why. */
int hd_cmd_gpu_check(struct hd_cmd_ctx *x);

/*
 * Set by SIGINT and SIGTERM between hd_cmd_stop_catch (which clears it) and
 * hd_cmd_stop_release (which puts the old handlers back), so a long
 * measurement stops at its next step.
 */
extern volatile sig_atomic_t hd_cmd_stop;
struct hd_cmd_stop_saved {
	struct sigaction sigint, sigterm;
};
void hd_cmd_stop_catch(struct hd_cmd_stop_saved *saved);
void hd_cmd_stop_release(const struct hd_cmd_stop_saved *saved);

/* The lesson list of x->cat, grouped by part, into b (list and hdsim alone). */
void hd_cmd_list_lessons(struct hd_cmd_ctx *x, struct hd_buf *b);

/*
 * Run lesson idx of x->cat on x->backend with --scenario and --set, and
 * print it: JSON, plain, or timelines and claims.  Returns 0, or
 * HD_EXIT_FAIL when a claim fails or was not checked, or the status of an
 * error.
 */
int hd_cmd_run_print(struct hd_cmd_ctx *x, int idx);

#endif
