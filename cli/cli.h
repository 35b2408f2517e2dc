/*
 * cli.h - the command line: options, the command table and dispatch.
 *
 * hdsim.c calls hd_cli_main and nothing else; everything here lives in
 * libhdcli.a so the tests link the same code the binary runs.
 */
#ifndef HD_CLI_H
#define HD_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Options as parsed from the whole command line (they may appear anywhere). */
struct hd_cli_opts {
	const char *profile;  /* --profile NAME|FILE, or NULL for the default */
	const char *scenario; /* --scenario S */
	char **sets;          /* --set k=v, in order */
	int nsets;
	bool help, version;
	bool json, plain;
	bool interactive; /* --interactive: the plain mode reads commands from a pipe too */
	bool no_color;
	bool real;           /* --real: run on the GPU instead of the model */
	bool quick;          /* bench --quick */
	bool cuda;           /* show --cuda: the CUDA C and PyTorch of each scenario */
	const char *db;      /* --db FILE: the database instead of the default */
	const char *learner; /* --learner NAME: whose progress */
	bool reset;          /* progress --reset: delete it */
	bool reduced_motion; /* the lesson browser: no animation */
	int width;           /* --width N; 0 = from the terminal */
	const char *format;  /* export --format F */
	const char *output;  /* export -o FILE|DIR */
	const char *run;     /* export --run ID, as given */
	const char *lesson;  /* export --lesson L */
	bool all;            /* export --all */
	bool class_export;   /* export --class */
	const char *table;   /* export --table T (one CSV table) */
	const char *grade;   /* export --class --grade first|best|last */
	bool keep_going;     /* export --class --keep-going: skip unreadable databases */
	const char *roster;  /* export --class --roster FILE (Canvas's roster) */
	char **dbs;          /* every --db in order (db is the last one) */
	int ndbs;
	unsigned given; /* HD_OPT_* bits of the options that were given */
	char **args;    /* positional arguments, the command first */
	int nargs;
};

/* Bits of hd_cli_opts.given; a command's table entry lists those it accepts. */
enum {
	HD_OPT_PROFILE = 1 << 0,
	HD_OPT_SCENARIO = 1 << 1,
	HD_OPT_SET = 1 << 2,
	HD_OPT_JSON = 1 << 3,
	HD_OPT_PLAIN = 1 << 4,
	HD_OPT_NO_COLOR = 1 << 5,
	HD_OPT_WIDTH = 1 << 6,
	HD_OPT_REAL = 1 << 7,
	HD_OPT_QUICK = 1 << 8,
	HD_OPT_CUDA = 1 << 9,
	HD_OPT_DB = 1 << 10,
	HD_OPT_LEARNER = 1 << 11,
	HD_OPT_RESET = 1 << 12,
	HD_OPT_REDUCED_MOTION = 1 << 13,
	HD_OPT_FORMAT = 1 << 14,
	HD_OPT_OUTPUT = 1 << 15,
	HD_OPT_RUN = 1 << 16,
	HD_OPT_LESSON = 1 << 17,
	HD_OPT_ALL = 1 << 18,
	HD_OPT_CLASS = 1 << 19,
	HD_OPT_TABLE = 1 << 20,
	HD_OPT_INTERACTIVE = 1 << 21,
	HD_OPT_GRADE = 1 << 22,
	HD_OPT_KEEP_GOING = 1 << 23,
	HD_OPT_ROSTER = 1 << 24,
};

/* One row of the option table: its spellings, its bit and its help line. */
struct hd_cli_opt {
	const char *name; /* "--profile" */
	char short_name;  /* 'o' for -o, else 0 */
	int takes_arg;
	unsigned bit;         /* HD_OPT_*; 0 for --help and --version */
	const char *arg_name; /* "NAME|FILE", or NULL when it takes none */
	const char *help;
};

/* The option table in the order help lists it; *n gets its length. */
const struct hd_cli_opt *hd_cli_opt_table(size_t *n);

/*
 * Parse argv into *o (arrays freed by hd_cli_opts_free).  Returns 0, or
 * HD_EXIT_INPUT after printing "hdsim: unknown option ..." to err.
 */
int hd_cli_parse(int argc, char **argv, struct hd_cli_opts *o, FILE *err);
void hd_cli_opts_free(struct hd_cli_opts *o);

/* Should output to standard output be coloured?  (tty, NO_COLOR, TERM=dumb) */
bool hd_cli_color(const struct hd_cli_opts *o);

/* The whole program: parse, dispatch, print; returns the exit status. */
int hd_cli_main(int argc, char **argv);

#endif
