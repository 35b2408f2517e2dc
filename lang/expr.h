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

#include <stdbool.h>
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
	HD_EX_INDEX, /* a loop's index (`repeat N as i`): slot */
	HD_EX_LT,    /* comparisons and logic: conditions (`if`), 1 or 0 */
	HD_EX_LE,
	HD_EX_GT,
	HD_EX_GE,
	HD_EX_EQ,
	HD_EX_NE,
	HD_EX_AND,
	HD_EX_OR,
	HD_EX_NOT,     /* a only */
	HD_EX_PROFILE, /* profile(KEY): a value of the run's hardware profile */
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
	bool is_bool;        /* a condition (comparison or logic), not a quantity */
	int slot;            /* INDEX: which enclosing indexed loop, 0 the outermost */
	unsigned index_mask; /* bit k: the value depends on the index of slot k */
	int pkey;            /* PROFILE: index in lang/profkeys.h (text: the key) */
};

/* Where an expression may appear: what it may refer to. */
enum {
	HD_EXPR_ALLOW_RANK = 1,  /* `rank` and `nranks` */
	HD_EXPR_ALLOW_CALLS = 2, /* timing functions: claims and estimates */
	HD_EXPR_NO_KNOBS = 4,    /* constants only (knob declarations) */
	HD_EXPR_ALLOW_INDEX = 8, /* loop indices: conditions */
	HD_EXPR_ALLOW_BOOL = 16, /* comparisons and logic inside parentheses */
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
	/* The indices of the loops around the expression, by slot (outermost
	 * first); reading slot k sets bit k of *index_used (may be NULL). */
	const char *const *index_names;
	int nindex;
	unsigned *index_used;
};

/*
 * Parse one expression at p->pos.  `what` describes what was expected, for
 * the message when no expression starts there ("a size such as 64MiB after
 * 'buffer h pinned'").  NULL with p->e set on error.
 */
struct hd_expr *hd_expr_parse(struct hd_expr_parser *p, const char *what);
void hd_expr_free(struct hd_expr *x);

/*
 * Parse a condition at p->pos: comparisons (< <= > >= == !=) of
 * expressions of one dimension, joined by && and ||, negated by !, in
 * parentheses at will (doc/lesson-format.md, "Conditions").  HD_EXPR_ALLOW_BOOL
 * is implied.  The result has is_bool set; NULL with p->e set on error, also
 * when what is there is a quantity, not a condition.
 */
struct hd_expr *hd_expr_parse_cond(struct hd_expr_parser *p, const char *what);

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
	const double *index; /* the loop indices' values, by slot, or NULL */
	/* Value of profile(KEY) (x->text) in base units; -1 with e set if it
	 * cannot be had.  NULL: no profile here. */
	int (*profile)(void *arg, const struct hd_expr *x, double *v, struct hd_err *e);
};

/* The base-unit factor a product or quotient carries (1e-12 for a rate
 * times a time in picoseconds ...); 1 for anything else. */
double hd_expr_factor(const struct hd_expr *x);

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
