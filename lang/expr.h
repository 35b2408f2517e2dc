/*
 * expr.h - expressions of the lesson language: parse, check units, evaluate,
 * print.  Private to the lesson module (lesson.c, lower.c).
 *
 * An expression is typed by its dimension when it is parsed (knobs have
 * fixed dimensions), so unit mistakes are reported before anything runs;
 * it is evaluated later, once knob values, the rank and, for claims, the
 * traces are known.  Values are doubles in base units (bytes, picoseconds,
 * bytes/s, FLOP, FLOP/s); a percentage is a plain fraction.
 */
#ifndef HD_EXPR_H
#define HD_EXPR_H

#include <stddef.h>

#include "base/units.h"
#include "base/util.h"
#include "lang/lex.h"

#define HD_EXPR_MAX_DEPTH 32 /* nested parentheses and operators */

enum hd_expr_kind {
	HD_EX_NUM,
	HD_EX_KNOB,
	HD_EX_RANK,
	HD_EX_NRANKS,
	HD_EX_NEG,
	HD_EX_ADD,
	HD_EX_SUB,
	HD_EX_MUL,
	HD_EX_DIV,
	HD_EX_MOD, /* remainder: a % b, both of one unit */
	HD_EX_CALL,
};

/* Timing functions of claims (doc/lesson-format.md, "Claims"). */
enum hd_fn {
	HD_FN_MAKESPAN,
	HD_FN_START,
	HD_FN_END,
	HD_FN_TIME,
	HD_FN_BYTES,
	HD_FN_BLOCKED,
	HD_FN_RATE,
	HD_FN_CALL,
	HD_FN__COUNT
};

struct hd_expr {
	enum hd_expr_kind kind;
	enum hd_dim dim;       /* never HD_DIM_PERCENT: percentages are fractions */
	int line, col;         /* the operator, or the operand's first token */
	int sline, scol;       /* the expression's first token */
	char *text;            /* NUM: source spelling; KNOB: name */
	double num;            /* NUM: value in base units */
	int knob;              /* KNOB: index */
	struct hd_expr *a, *b; /* operands (NEG: a only) */
	enum hd_fn fn;         /* CALL */
	char *scen, *label;    /* CALL: arguments (label NULL when it takes none) */
	int scen_line, scen_col, label_line, label_col;
	int scen_idx;        /* CALL: resolved scenario index, -1 before */
	int depends_on_rank; /* the value differs between ranks */
	const char *src_p;   /* source span of the whole expression */
	size_t src_len;
};

/* Where an expression may appear: what it may refer to. */
enum {
	HD_EXPR_ALLOW_RANK = 1,  /* `rank` and `nranks` */
	HD_EXPR_ALLOW_CALLS = 2, /* timing functions: claims and estimates */
	HD_EXPR_NO_KNOBS = 4,    /* constants only (knob declarations) */
};

struct hd_expr_parser {
	const struct hd_src *src;
	struct hd_err *e;
	const struct hd_tok *toks;
	size_t pos; /* in/out: cursor into toks */
	unsigned allow;
	/* Knob lookup: index or -1; *dim gets its dimension. */
	int (*find_knob)(void *arg, const char *name, enum hd_dim *dim);
	void *arg;
	const char *rank_hint; /* why `rank` is not allowed here, or NULL */
	int depth;
};

/*
 * Parse one expression at p->pos.  `what` describes what was expected, for
 * the message when no expression starts there ("a size such as 64MiB after
 * 'buffer h pinned'").  NULL with p->e set on error.
 */
struct hd_expr *hd_expr_parse(struct hd_expr_parser *p, const char *what);
void hd_expr_free(struct hd_expr *x);

/* Can the token start an expression? */
int hd_expr_starts(const struct hd_tok *t);

/* "a size such as 64MiB" ... for messages. */
const char *hd_dim_example(enum hd_dim d);

struct hd_eval_env {
	const struct hd_src *src; /* for messages */
	const double *knobs;
	int rank, nranks;
	/* Value of a timing function; -1 with e set if it cannot be had. */
	int (*call)(void *arg, const struct hd_expr *x, double *v, struct hd_err *e);
	void *arg;
};

/* Evaluate x.  -1 with e set (division by zero, non-finite result). */
int hd_expr_eval(const struct hd_expr *x, const struct hd_eval_env *env, double *v,
		 struct hd_err *e);

/* Format a value of dimension d for people: "5.1 ms", "256 MiB", "3". */
void hd_expr_fmt_value(char *buf, size_t n, double v, enum hd_dim d);

/*
 * Print x in source form to b, or, with env, with every timing function and
 * knob replaced by its formatted value ("2 * 5.1 ms").  Names of knobs come
 * from knob_name(arg, i).
 */
void hd_expr_print(const struct hd_expr *x, struct hd_buf *b, const struct hd_eval_env *env,
		   const char *(*knob_name)(void *arg, int i), void *arg);

const char *hd_fn_name(enum hd_fn f);

#endif
