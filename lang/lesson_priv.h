/*
 * lesson_priv.h - the parsed form of a lesson, shared by the parser
 * (lesson.c), the lowering to the IR (lower.c), claim evaluation
 * (claims.c), lint's checks (lint.c), the catalogue's identity check
 * (catalog.c) and a question's grading statements (question_grade.c).  Nothing outside lang/ sees these types.
 */
#ifndef HD_LESSON_PRIV_H
#define HD_LESSON_PRIV_H

#include <stdbool.h>

#include "base/sha256.h"
#include "ir/ir.h"
#include "lang/expr.h"
#include "lang/lesson.h"
#include "lang/lex.h"

#define HD_LESSON_MAX_DEPTH     16 /* open blocks, the scenario included */
#define HD_LESSON_MAX_BYTES     (1ull << 62)
#define HD_LESSON_MAX_COUNT     1000000000.0 /* iterations of one loop */
#define HD_LESSON_MAX_INSTANCES 100000000ull /* op executions per rank */
#define HD_LESSON_MAX_RANKS     16384        /* the GPUs of the largest published training runs */
#define HD_LESSON_MAX_OPS       1000000      /* IR ops of one scenario */
/* IR ops built for the loops that read their index (`repeat N as i` with an
 * `if` on i), which are built iteration by iteration, per scenario */
#define HD_LESSON_MAX_UNROLL 10000000ull
/* Names of one kind: buffers, streams and events together, or labels, in a
 * scenario; knobs, scenarios or questions in a lesson.  Names are looked up
 * by scanning, so this keeps a file of a million names from taking hours. */
#define HD_LESSON_MAX_NAMES 1000
/* claims of one lesson: each is evaluated after every run */
#define HD_LESSON_MAX_CLAIMS 100000
/* options of a choice, items of an order: each answered by a letter from a
 * to g, so no option takes a key the browser uses (h, j, k, l, q ...) */
#define HD_LESSON_MAX_OPTIONS 7
/* what one question is worth: `points N` */
#define HD_LESSON_MAX_POINTS 1000
/* nodes one launch of a graph runs, loops multiplied out: the model holds a
 * graph's node list, the real backend captures each node */
#define HD_LESSON_MAX_GRAPH_NODES 100000

/* One statement of a scenario that becomes IR ops. */
struct hd_stmt {
	enum hd_op_kind kind;
	int line, col;
	char *label;
	int stream;          /* stream index, or HD_NONE for the default stream */
	int event, src, dst; /* indices, or HD_NONE */
	bool async, to_device;
	enum hd_kernel_kind kernel;
	enum hd_coll coll;
	struct hd_expr *bytes;    /* explicit SIZE, or NULL for the buffer's size */
	struct hd_expr *flops;    /* compute kernels */
	struct hd_expr *duration; /* spin kernels, host work */
	struct hd_expr *grid;     /* kernels, or NULL */
	struct hd_expr *count;    /* repeat */
	struct hd_expr *peer;     /* send / recv / peer copy */
	struct hd_expr *root;     /* rooted collectives, or NULL */
	struct hd_expr *rank;     /* rank block */
	char *text;               /* host work: what it stands for; `thread NAME`: NAME */
	struct hd_stmt *body;     /* repeat / rank blocks; `if`: the branch when it holds */
	int nbody;
	int queue; /* put / get: queue index, or HD_NONE */
	/* `if COND` ... [`else` ...] `end` (kind HD_OP__COUNT): evaluated when
	 * the scenario is lowered, so only the ops of the branch taken remain */
	bool is_if;
	struct hd_expr *cond;
	struct hd_stmt *else_body;
	int nelse;
	int cond_id; /* `if`: its index among the lesson's conditions (lint) */
	/* `repeat N as NAME`: the loop's index (0 .. N-1), its slot among the
	 * indexed loops around the body, and whether a condition reads it */
	char *index_name;
	int index_slot;
	bool index_used;
	int graph; /* graph: its index in the scenario's graphs; launch: the one it launches */
};

struct hd_decl_buffer {
	char *name;
	enum hd_mem mem;
	struct hd_expr *size;
	int line, col;
};

/* `queue NAME DEPTH` (ir/threads.h) */
struct hd_decl_queue {
	char *name;
	struct hd_expr *depth;
	int line, col;
};

struct hd_decl_graph {
	char *name;
	int line, col;
};

struct hd_scen {
	char *name, *title;
	int line, col;
	struct hd_decl_buffer *bufs;
	int nbufs;
	struct hd_stream *streams; /* [0] default, [1] per-thread, then declared */
	int nstreams;
	struct hd_event *events;
	int nevents;
	struct hd_expr *ranks; /* NULL: one rank */
	bool per_thread;
	bool expect_deadlock; /* `expect deadlock` */
	bool has_default_stream;
	struct hd_stmt *body;
	int nbody;
	char **labels;
	int nlabels;
	struct hd_decl_queue *queues; /* bounded queues between host threads */
	int nqueues;
	struct hd_decl_graph *graphs; /* `graph NAME` blocks, in file order */
	int ngraphs;
};

enum hd_rel {
	HD_REL_LT,
	HD_REL_LE,
	HD_REL_GT,
	HD_REL_GE,
	HD_REL_EQ
};

struct hd_claim_priv {
	struct hd_expr *lhs, *rhs;
	enum hd_rel rel;
	double within; /* fraction; < 0 when absent */
};

/* `require LHS REL RHS "message"`: a constraint on the knob values. */
struct hd_require {
	struct hd_claim_priv cmp; /* the comparison (within unused) */
	char *expr;               /* its source text */
	char *msg;                /* the lesson's words when it does not hold */
	int line, col;
};

struct hd_lesson {
	char *path;
	char *text; /* the source, kept for messages */
	size_t len;
	char hash[HD_SHA256_HEX]; /* SHA-256 of text: this version of the lesson */
	struct hd_src src;

	char *id, *title, *part, *summary, *rule, *rule_url;
	char *replaces; /* `replaces ID`: the id it deliberately takes over, or NULL */
	double order;
	bool has_order;

	struct hd_page *pages;
	int npages;
	struct hd_question *questions;
	struct hd_expr **estimates; /* per question: parsed answer, or NULL */
	int nquestions;
	struct hd_knob *knobs;
	int nknobs;
	struct hd_claim *claims;
	struct hd_claim_priv *cx;
	int nclaims;
	struct hd_scen *scens;
	int nscens;
	struct hd_require *reqs;
	int nreqs;
	int nconds; /* `if` statements, over all scenarios */
};

void hd_stmt_free_list(struct hd_stmt *v, int n);

/* What lowering tells lint besides the scenario. */
struct hd_lower_report {
	unsigned char *seen; /* per condition (l->nconds): 1 held, 2 did not, when evaluated */
	uint64_t work;       /* IR ops built, those built and merged again included */
};
/*
 * Lower scenario idx with knob values `knobs` (NULL: the defaults), as
 * hd_lesson_instantiate (written false) or hd_lesson_instantiate_written
 * (true) do; rep, when not NULL, gets what lint needs (its `seen` array is
 * the caller's, l->nconds long, and is only added to).  NULL with e set.
 */
struct hd_scenario *hd_lesson_lower(const struct hd_lesson *l, int idx, const double *knobs,
				    bool written, struct hd_lower_report *rep, struct hd_err *e);
/* The expression parser's knob lookup (arg is the lesson): index and unit. */
int hd_lesson_knob_lookup(void *arg, const char *name, enum hd_dim *dim);
/* Resolve a timing function's scenario and label: -1 with e set. */
int hd_lesson_resolve_call(const struct hd_lesson *l, const struct hd_src *src, struct hd_expr *x,
			   struct hd_err *e);
/* Walk x and resolve every timing function in it; count them in *ncalls. */
int hd_lesson_resolve_expr(const struct hd_lesson *l, const struct hd_src *src, struct hd_expr *x,
			   int *ncalls, struct hd_err *e);

/* Does every timing function of x ask for a quantity its op has (bytes and
 * rates of ops that move data)?  -1 with e set at the call, naming `what`
 * (the claim or question) and the op; lang/lint.c. */
int hd_lint_quantities(const struct hd_lesson *l, const struct hd_src *src, const struct hd_expr *x,
		       const char *what, struct hd_err *e);
/* A question's grading statements, `points N` and `misconception "..."`
 * (question_grade.c): is kw one of them; parse the one at the cursor (0, or
 * -1 with the parser's error set); check the whole question once read, at
 * its keyword kw; free what they added to q. */
struct hd_parser;
bool hd_question_grade_word(const struct hd_tok *kw);
int hd_question_grade_stmt(struct hd_parser *p, struct hd_question *q);
int hd_question_grade_check(struct hd_parser *p, const struct hd_question *q,
			    const struct hd_tok *kw);
void hd_question_grade_free(struct hd_question *q);
/* Does a < b (rel) hold?  within: fraction for ==, < 0 when absent. */
int hd_rel_holds(enum hd_rel rel, double a, double b, double within);

#endif
