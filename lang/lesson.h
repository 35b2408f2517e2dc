/*
 * lesson.h - lesson files (format version 1): parse, check, instantiate.
 *
 * A lesson holds metadata, short text pages, questions, knobs, scenarios and
 * claims (doc/lesson-format.md).  Parsing checks everything that can be
 * checked without knob values (names, kinds, units, structure); instantiating
 * a scenario evaluates its expressions for given knob values and lowers it to
 * the IR (ir.h), checking what depends on the values (sizes that fit their
 * buffers, counts that are whole and positive).  Claims are evaluated against
 * traces, predicted or measured alike.
 *
 * The lesson's internals (expression trees, statements) stay private to
 * lesson.c; callers see the read-only views below.
 */
#ifndef HD_LESSON_H
#define HD_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "base/units.h"
#include "base/util.h"
#include "ir/ir.h"
#include "ir/trace.h"

struct hd_lesson; /* opaque */

struct hd_page {
	char *title;
	char *text; /* the page's lines joined with '\n' */
};

enum hd_question_kind {
	HD_Q_CHOICE,   /* pick one option */
	HD_Q_ORDER,    /* put items in order */
	HD_Q_ESTIMATE, /* a number within a tolerance */
};

struct hd_question {
	char *id;
	enum hd_question_kind kind;
	char *prompt;
	char **options; /* CHOICE: option texts; ORDER: items in display order */
	char **option_ids;
	int noptions;
	int answer; /* CHOICE: index of the right option */
	int *order; /* ORDER: right order as indices into options */
	char
	    *estimate_expr; /* ESTIMATE: the claim-style expression text, e.g. "makespan(pinned)" */
	enum hd_dim estimate_dim; /* ESTIMATE: unit the learner answers in */
	double tolerance;         /* ESTIMATE: fraction, 0.2 = +-20 % */
	char *explain;            /* shown after the run; names the decisive event */
	char **hints;
	int nhints;
	char *scenario; /* the scenario whose run answers it, or NULL for the first */
	int points;     /* what it is worth in a grade (`points N`, default 1) */
	bool has_points;
	/* CHOICE: per option, the misconception choosing it stands for
	 * (`misconception "..."`), or NULL; the array itself is NULL when the
	 * question names none. */
	char **misconceptions;
	char **option_feedback; /* CHOICE: per option, what to say when it is chosen
				 * (`option ID "text" feedback "..."`), or NULL;
				 * the array is NULL when no option has any */
};

struct hd_knob {
	char *name;
	enum hd_dim dim;      /* bytes, time, count (NONE), flop */
	double def, min, max; /* base units */
	char *text;           /* what it changes, for people */
	int line, col;
};

struct hd_claim {
	char *text;      /* the claim in words */
	char *expr;      /* its source text, e.g. "makespan(pageable) >= 2 * makespan(pinned)" */
	char **profiles; /* profiles it is checked on; NULL/0 = all */
	int nprofiles;
	int line, col;
};

/* Parse a lesson file's text.  `path` names it in messages.  NULL with e set
 * (status HD_EXIT_INPUT, where = "path:line:col", context = line + caret). */
struct hd_lesson *hd_lesson_parse(const char *text, size_t len, const char *path, struct hd_err *e);
/* Read and parse a file. */
struct hd_lesson *hd_lesson_load(const char *path, struct hd_err *e);
void hd_lesson_free(struct hd_lesson *l); /* accepts NULL */

/* Metadata. */
const char *hd_lesson_path(const struct hd_lesson *l);
const char *hd_lesson_id(const struct hd_lesson *l); /* "pinned-vs-pageable" */
/* The SHA-256 of the lesson's text, 64 hex digits: this version of it. */
const char *hd_lesson_hash(const struct hd_lesson *l);
/* What the lesson's questions are worth together (their `points`). */
int hd_lesson_points(const struct hd_lesson *l);
/* The id named by `replaces ID` (the lesson's own: it deliberately takes
 * the place of another lesson with that id), or NULL. */
const char *hd_lesson_replaces(const struct hd_lesson *l);
const char *hd_lesson_title(const struct hd_lesson *l);
const char *hd_lesson_part(const struct hd_lesson *l); /* grouping in the browser */
double hd_lesson_order(const struct hd_lesson *l);     /* sort key within all lessons */
const char *hd_lesson_summary(const struct hd_lesson *l);
const char *hd_lesson_rule(const struct hd_lesson *l); /* the documentation rule it rests on */
const char *hd_lesson_rule_url(const struct hd_lesson *l);

int hd_lesson_npages(const struct hd_lesson *l);
const struct hd_page *hd_lesson_page(const struct hd_lesson *l, int i);
int hd_lesson_nquestions(const struct hd_lesson *l);
const struct hd_question *hd_lesson_question(const struct hd_lesson *l, int i);
int hd_lesson_nknobs(const struct hd_lesson *l);
const struct hd_knob *hd_lesson_knob(const struct hd_lesson *l, int i);
int hd_lesson_find_knob(const struct hd_lesson *l, const char *name); /* -1 if none */
int hd_lesson_nclaims(const struct hd_lesson *l);
const struct hd_claim *hd_lesson_claim(const struct hd_lesson *l, int i);

int hd_lesson_nscenarios(const struct hd_lesson *l);
const char *hd_lesson_scenario_name(const struct hd_lesson *l, int i);
const char *hd_lesson_scenario_title(const struct hd_lesson *l, int i);
int hd_lesson_find_scenario(const struct hd_lesson *l, const char *name); /* -1 if none */

/*
 * Knob values: an array of hd_lesson_nknobs() doubles in base units.
 * hd_lesson_knob_defaults fills it with the defaults.  hd_lesson_knob_set
 * applies "name=value" text as `--set` gives it ("size=64MiB"): unknown
 * knob, wrong unit or out of range -> -1 with e set (where = "--set").
 */
void hd_lesson_knob_defaults(const struct hd_lesson *l, double *values);
int hd_lesson_knob_set(const struct hd_lesson *l, double *values, const char *assignment,
		       struct hd_err *e);

/*
 * Do the knob values satisfy the lesson's `require` statements?  0, or -1
 * with e set (status HD_EXIT_INPUT, where and context at the first one
 * that fails, the lesson's message and the values in the message).
 * hd_lesson_instantiate checks this first, so `--set` and the browser's
 * knob panel refuse what the lesson rules out.
 */
int hd_lesson_knob_check(const struct hd_lesson *l, const double *values, struct hd_err *e);

/* Lower scenario i with these knob values (NULL: the defaults) to the IR.
 * NULL with e set (status HD_EXIT_INPUT, where and context at the statement). */
struct hd_scenario *hd_lesson_instantiate(const struct hd_lesson *l, int i, const double *knobs,
					  struct hd_err *e);
/*
 * Scenario i as the lesson wrote it, for printing (`show --cuda`): as
 * hd_lesson_instantiate, except that a loop keeps its index's name
 * (op->index_name) and an `if` on a loop index keeps both branches, each op
 * marked with the condition block it sits in (ir.h, "Conditions").  Never
 * run it: a backend takes hd_lesson_instantiate's scenario, where every
 * condition has been decided.  NULL with e set.
 */
struct hd_scenario *hd_lesson_instantiate_written(const struct hd_lesson *l, int i,
						  const double *knobs, struct hd_err *e);

/*
 * Is claim c stated for the hardware of profile `profile` (a built-in
 * name; NULL when the hardware matches none)?  1 when it is (a claim with no
 * `on` list is stated for all), else 0 and `why` (size n) gets
 * "not checked: it is stated for profile a, b".
 */
int hd_claim_applies(const struct hd_claim *c, const char *profile, char *why, size_t n);

/*
 * Evaluate claim i.  `traces[j]` is the trace of scenario j (NULL if not
 * run: a claim naming it is then "not checked").  Returns 1 (holds), 0 (does
 * not hold), or -1 (could not be evaluated: e says why).  *lhs and *rhs get
 * the two sides' values in base units and `detail` (size n) a sentence with
 * the figures, e.g. "makespan(pageable) = 10.2 ms >= 2 x 4.9 ms: holds".
 * knobs NULL means the defaults.  A claim that cannot be checked (scenario
 * not run, label without spans) gives -1 with e->status HD_EXIT_FAIL.
 */
int hd_lesson_claim_eval(const struct hd_lesson *l, int i, const double *knobs,
			 struct hd_trace *const *traces, double *lhs, double *rhs, char *detail,
			 size_t n, struct hd_err *e);
/* Evaluate a question's estimate expression (or any claim-style expression
 * text) against the traces; knobs NULL means the defaults.  0, or -1 with e
 * set (where = "expression:1:COL" for a bad expression). */
int hd_lesson_eval_expr(const struct hd_lesson *l, const char *expr, const double *knobs,
			struct hd_trace *const *traces, double *value, struct hd_err *e);

#endif
