/*
 * expr.c - lesson expressions: a small precedence-climbing parser with
 * dimension checking, an evaluator and a printer for claim reports.
 *
 * Dimensions follow the physics a learner expects: only like quantities add;
 * anything may be scaled by a plain number; a size over a time is a rate, a
 * size over a rate a time, and the same for FLOP.  Values are kept in base
 * units, so the mixed rules carry the picosecond factor (rates are per
 * second, times are in picoseconds).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/expr.h"
#include "lang/profkeys.h"

static const char *const fn_names[HD_FN__COUNT] = {
	[HD_FN_MAKESPAN] = "makespan", [HD_FN_START] = "start", [HD_FN_END] = "end",
	[HD_FN_TIME] = "time",         [HD_FN_BYTES] = "bytes", [HD_FN_BLOCKED] = "blocked",
	[HD_FN_RATE] = "rate",         [HD_FN_CALL] = "call",
};

/* What each timing function takes and gives. */
static const struct {
	int takes_label;
	enum hd_dim dim;
} fn_info[HD_FN__COUNT] = {
	[HD_FN_MAKESPAN] = { 0, HD_DIM_TIME }, [HD_FN_START] = { 1, HD_DIM_TIME },
	[HD_FN_END] = { 1, HD_DIM_TIME },      [HD_FN_TIME] = { 1, HD_DIM_TIME },
	[HD_FN_BYTES] = { 1, HD_DIM_BYTES },   [HD_FN_BLOCKED] = { 0, HD_DIM_TIME },
	[HD_FN_RATE] = { 1, HD_DIM_RATE },     [HD_FN_CALL] = { 1, HD_DIM_TIME },
};

/* Products and quotients of unlike dimensions, with the base-unit factor. */
static const struct dim_rule {
	enum hd_expr_kind op;
	enum hd_dim a, b, out;
	double factor;
} dim_rules[] = {
	{ HD_EX_MUL, HD_DIM_RATE, HD_DIM_TIME, HD_DIM_BYTES, 1e-12 },
	{ HD_EX_MUL, HD_DIM_TIME, HD_DIM_RATE, HD_DIM_BYTES, 1e-12 },
	{ HD_EX_MUL, HD_DIM_FLOPS, HD_DIM_TIME, HD_DIM_FLOP, 1e-12 },
	{ HD_EX_MUL, HD_DIM_TIME, HD_DIM_FLOPS, HD_DIM_FLOP, 1e-12 },
	{ HD_EX_DIV, HD_DIM_BYTES, HD_DIM_TIME, HD_DIM_RATE, 1e12 },
	{ HD_EX_DIV, HD_DIM_BYTES, HD_DIM_RATE, HD_DIM_TIME, 1e12 },
	{ HD_EX_DIV, HD_DIM_FLOP, HD_DIM_TIME, HD_DIM_FLOPS, 1e12 },
	{ HD_EX_DIV, HD_DIM_FLOP, HD_DIM_FLOPS, HD_DIM_TIME, 1e12 },
};

static const char *const dim_examples[] = {
	[HD_DIM_NONE] = "a number such as 4",
	[HD_DIM_BYTES] = "a size such as 64MiB",
	[HD_DIM_TIME] = "a time such as 2ms",
	[HD_DIM_RATE] = "a rate such as 25GB/s",
	[HD_DIM_FLOP] = "work such as 10GFLOP",
	[HD_DIM_FLOPS] = "a compute rate such as 60TFLOP/s",
	[HD_DIM_PERCENT] = "a percentage such as 20%",
};

const char *
hd_fn_name(enum hd_fn f)
{
	return (unsigned)f < HD_FN__COUNT ? fn_names[f] : "?";
}

const char *
hd_dim_example(enum hd_dim d)
{
	return (unsigned)d < HD_ARRAY_LEN(dim_examples) ? dim_examples[d] : "a value";
}

void
hd_expr_free(struct hd_expr *x)
{
	if (x == NULL)
		return;
	hd_expr_free(x->a);
	hd_expr_free(x->b);
	free(x->text);
	free(x->scen);
	free(x->label);
	free(x);
}

int
hd_expr_starts(const struct hd_tok *t)
{
	if (t->kind == HD_TOK_NUMBER || t->kind == HD_TOK_NAME)
		return 1;
	return t->kind == HD_TOK_PUNCT && (t->punct == HD_P_LPAREN || t->punct == HD_P_MINUS);
}

static struct hd_expr *
new_expr(enum hd_expr_kind kind, const struct hd_tok *t)
{
	struct hd_expr *x = hd_xcalloc(1, sizeof *x);

	x->kind = kind;
	x->line = x->sline = t->line;
	x->col = x->scol = t->col;
	x->knob = -1;
	x->scen_idx = -1;
	x->slot = -1;
	x->pkey = -1;
	x->src_p = t->p;
	x->src_len = t->len;
	return x;
}

static const struct hd_tok *
cur(struct hd_expr_parser *p)
{
	return &p->toks[p->pos];
}

static int
is_punct(const struct hd_tok *t, enum hd_punct pu)
{
	return t->kind == HD_TOK_PUNCT && t->punct == pu;
}

static int
tok_is(const struct hd_tok *t, const char *name)
{
	return t->kind == HD_TOK_NAME && strlen(name) == t->len && memcmp(t->p, name, t->len) == 0;
}

static void *perr(struct hd_expr_parser *p, const struct hd_tok *t, const char *fmt, ...)
    HD_PRINTF(3, 4);

static void *
perr(struct hd_expr_parser *p, const struct hd_tok *t, const char *fmt, ...)
{
	va_list ap;
	char msg[700];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hd_src_error(p->src, p->e, t->line, t->col, "%s", msg);
	return NULL;
}

/* Extend x's source span to the end of token t (same line). */
static void
span_to(struct hd_expr *x, const struct hd_tok *t)
{
	if (t->p >= x->src_p)
		x->src_len = (size_t)(t->p + t->len - x->src_p);
}

static struct hd_expr *parse_sum(struct hd_expr_parser *p, const char *what);

static struct hd_expr *
parse_call(struct hd_expr_parser *p, enum hd_fn fn)
{
	const struct hd_tok *name = cur(p), *t;
	struct hd_expr *x;

	p->pos += 2; /* name ( */
	t = cur(p);
	if (t->kind != HD_TOK_NAME) {
		char d[96];
		hd_tok_describe(t, d, sizeof d);
		return perr(p, t, "expected a scenario name in %s(...), found %s", fn_names[fn], d);
	}
	x = new_expr(HD_EX_CALL, name);
	x->fn = fn;
	x->dim = fn_info[fn].dim;
	x->scen = hd_xstrndup(t->p, t->len);
	x->scen_line = t->line;
	x->scen_col = t->col;
	p->pos++;
	if (fn_info[fn].takes_label) {
		t = cur(p);
		if (!is_punct(t, HD_P_DOT) || p->toks[p->pos + 1].kind != HD_TOK_NAME) {
			hd_expr_free(x);
			return perr(p, t, "%s() takes SCENARIO.LABEL, e.g. %s(pinned.h2d)",
				    fn_names[fn], fn_names[fn]);
		}
		t = &p->toks[p->pos + 1];
		x->label = hd_xstrndup(t->p, t->len);
		x->label_line = t->line;
		x->label_col = t->col;
		p->pos += 2;
	}
	t = cur(p);
	if (!is_punct(t, HD_P_RPAREN)) {
		char d[96];
		hd_tok_describe(t, d, sizeof d);
		hd_expr_free(x);
		if (!fn_info[fn].takes_label && is_punct(t, HD_P_DOT))
			return perr(p, t, "%s() takes a scenario name only, e.g. %s(pinned)",
				    fn_names[fn], fn_names[fn]);
		return perr(p, t, "expected ')' to close %s(, found %s", fn_names[fn], d);
	}
	span_to(x, t);
	p->pos++;
	return x;
}

static struct hd_expr *parse_or(struct hd_expr_parser *p, const char *what);

/* profile(KEY): KEY is GROUP.NAME, one of lang/profkeys.h. */
static struct hd_expr *
parse_profile(struct hd_expr_parser *p)
{
	const struct hd_tok *name = cur(p), *a, *dot, *b, *close;
	struct hd_expr *x;
	struct hd_buf list;
	int k;

	p->pos += 2; /* profile ( */
	a = cur(p);
	dot = &p->toks[p->pos + (a->kind == HD_TOK_NAME)];
	b = is_punct(dot, HD_P_DOT) ? &p->toks[p->pos + 2] : dot;
	if (a->kind != HD_TOK_NAME || !is_punct(dot, HD_P_DOT) || b->kind != HD_TOK_NAME) {
		char d[96];
		hd_tok_describe(a, d, sizeof d);
		return perr(p, a, "profile() takes a profile key such as api.launch, found %s", d);
	}
	k = hd_profkey_find(a->p, (size_t)(b->p + b->len - a->p));
	if (k < 0 || dot->space_before || b->space_before) {
		hd_buf_init(&list);
		hd_profkey_explain(a->p, (size_t)(b->p + b->len - a->p), &list);
		perr(p, a, "no profile key '%.*s' that a lesson can read%s",
		     (int)(b->p + b->len - a->p), a->p, list.s);
		hd_buf_free(&list);
		return NULL;
	}
	close = &p->toks[p->pos + 3];
	if (!is_punct(close, HD_P_RPAREN)) {
		char d[96];
		hd_tok_describe(close, d, sizeof d);
		return perr(p, close, "expected ')' to close profile(, found %s", d);
	}
	x = new_expr(HD_EX_PROFILE, name);
	x->pkey = k;
	x->dim = hd_profkey(k)->dim;
	x->text = hd_xstrdup(hd_profkey(k)->key);
	span_to(x, close);
	p->pos += 4;
	return x;
}

/* A loop index named by t: its slot (innermost first), or -1. */
static int
index_slot(const struct hd_expr_parser *p, const struct hd_tok *t)
{
	int k;

	for (k = p->nindex - 1; k >= 0; k--)
		if (p->index_names != NULL && p->index_names[k] != NULL &&
		    tok_is(t, p->index_names[k]))
			return k;
	return -1;
}

static struct hd_expr *
parse_atom(struct hd_expr_parser *p, const char *what)
{
	const struct hd_tok *t = cur(p);
	struct hd_expr *x;
	char d[96];
	size_t f;

	/* depth counts the atoms around this one and itself: a '(' or '-' at
	 * depth d opens nesting level d, and up to HD_EXPR_MAX_DEPTH are allowed */
	++p->depth;
	if ((is_punct(t, HD_P_MINUS) || is_punct(t, HD_P_LPAREN)) && p->depth > HD_EXPR_MAX_DEPTH)
		return perr(p, t, "expression is nested more than %d deep", HD_EXPR_MAX_DEPTH);
	if (t->kind == HD_TOK_NUMBER) {
		x = new_expr(HD_EX_NUM, t);
		x->num = t->num;
		x->dim = t->dim == HD_DIM_PERCENT ? HD_DIM_NONE : t->dim;
		x->text = hd_xstrndup(t->p, t->len);
		p->pos++;
		return x;
	}
	if (is_punct(t, HD_P_MINUS)) {
		struct hd_expr *a;
		p->pos++;
		if ((a = parse_atom(p, what)) == NULL)
			return NULL;
		p->depth--;
		if (a->is_bool) {
			perr(p, t, "cannot negate a condition with '-': write '!' for 'not'");
			hd_expr_free(a);
			return NULL;
		}
		x = new_expr(HD_EX_NEG, t);
		x->index_mask = a->index_mask;
		x->a = a;
		x->dim = a->dim;
		x->depends_on_rank = a->depends_on_rank;
		x->src_len = (size_t)(a->src_p + a->src_len - x->src_p);
		return x;
	}
	if (is_punct(t, HD_P_LPAREN)) {
		const struct hd_tok *close;
		p->pos++;
		if ((x = (p->allow & HD_EXPR_ALLOW_BOOL) ? parse_or(p, what) :
							   parse_sum(p, what)) == NULL)
			return NULL;
		close = cur(p);
		if (!is_punct(close, HD_P_RPAREN)) {
			hd_tok_describe(close, d, sizeof d);
			hd_expr_free(x);
			return perr(p, close,
				    "expected ')' to match the '(' at column %d, "
				    "found %s",
				    t->col, d);
		}
		p->pos++;
		x->src_p = t->p;
		x->src_len = (size_t)(close->p + 1 - t->p);
		x->sline = t->line;
		x->scol = t->col;
		return x;
	}
	if (t->kind == HD_TOK_NAME) {
		char name[80];
		enum hd_dim dim;
		int k;

		snprintf(name, sizeof name, "%.*s", (int)t->len, t->p);
		if (tok_is(t, "profile") && is_punct(&p->toks[p->pos + 1], HD_P_LPAREN)) {
			if (p->allow & HD_EXPR_ALLOW_CALLS)
				return parse_profile(p);
			return perr(p, t,
				    "profile() reads the hardware profile of a run: it can only "
				    "be used in claims and estimate answers");
		}
		if ((k = index_slot(p, t)) >= 0) {
			if (!(p->allow & HD_EXPR_ALLOW_INDEX))
				return perr(p, t,
					    "the loop index '%s' can only be read in an 'if' "
					    "condition: sizes, times and counts are the same in "
					    "every iteration",
					    name);
			x = new_expr(HD_EX_INDEX, t);
			x->slot = k;
			x->index_mask = 1u << k;
			x->dim = HD_DIM_NONE;
			x->text = hd_xstrdup(name);
			if (p->index_used != NULL)
				*p->index_used |= 1u << k;
			p->pos++;
			return x;
		}
		if (is_punct(&p->toks[p->pos + 1], HD_P_LPAREN)) {
			for (f = 0; f < HD_FN__COUNT; f++)
				if (strcmp(name, fn_names[f]) == 0)
					break;
			if (f < HD_FN__COUNT && (p->allow & HD_EXPR_ALLOW_CALLS))
				return parse_call(p, (enum hd_fn)f);
			if (f < HD_FN__COUNT)
				return perr(p, t,
					    "%s() measures a run: it can only be used in "
					    "claims and estimate answers",
					    name);
			return perr(p, t,
				    "unknown function '%s': expected makespan, start, "
				    "end, time, bytes, rate, call, blocked or profile",
				    name);
		}
		if (tok_is(t, "rank") || tok_is(t, "nranks")) {
			if (!(p->allow & HD_EXPR_ALLOW_RANK))
				return perr(
				    p, t, "'%s' %s", name,
				    p->rank_hint ?
					p->rank_hint :
					"can only be used in a scenario that declares 'ranks N'");
			x = new_expr(tok_is(t, "rank") ? HD_EX_RANK : HD_EX_NRANKS, t);
			x->dim = HD_DIM_NONE;
			x->depends_on_rank = x->kind == HD_EX_RANK;
			p->pos++;
			return x;
		}
		k = (p->allow & HD_EXPR_NO_KNOBS) || p->find_knob == NULL ?
		    -1 :
		    p->find_knob(p->arg, name, &dim);
		if (k >= 0) {
			x = new_expr(HD_EX_KNOB, t);
			x->knob = k;
			x->dim = dim == HD_DIM_PERCENT ? HD_DIM_NONE : dim;
			x->text = hd_xstrdup(name);
			p->pos++;
			return x;
		}
		if (p->allow & HD_EXPR_NO_KNOBS)
			return perr(p, t,
				    "expected %s, found '%s' (only constants are "
				    "allowed here)",
				    what, name);
		if (strchr(name, '-') != NULL)
			return perr(p, t,
				    "expected %s, found '%s', which is not a knob "
				    "(to subtract, put spaces around '-')",
				    what, name);
		return perr(p, t, "expected %s, found '%s', which is not a knob", what, name);
	}
	hd_tok_describe(t, d, sizeof d);
	return perr(p, t, "expected %s, found %s", what, d);
}

static const char *
dim_word(enum hd_dim d)
{
	static const char *const w[] = {
		[HD_DIM_NONE] = "a number",
		[HD_DIM_BYTES] = "a size",
		[HD_DIM_TIME] = "a time",
		[HD_DIM_RATE] = "a rate",
		[HD_DIM_FLOP] = "an amount of work (FLOP)",
		[HD_DIM_FLOPS] = "a compute rate",
		[HD_DIM_PERCENT] = "a percentage",
	};
	return (unsigned)d < HD_ARRAY_LEN(w) ? w[d] : "a value";
}

/* The dimension of a binary operation, or -1 if the units do not agree. */
static int
binop_dim(enum hd_expr_kind op, enum hd_dim a, enum hd_dim b, double *factor)
{
	size_t i;

	*factor = 1;
	if (op == HD_EX_ADD || op == HD_EX_SUB || op == HD_EX_MOD)
		return a == b ? (int)a : -1;
	if (op == HD_EX_MUL) {
		if (a == HD_DIM_NONE)
			return (int)b;
		if (b == HD_DIM_NONE)
			return (int)a;
	}
	if (op == HD_EX_DIV) {
		if (b == HD_DIM_NONE)
			return (int)a;
		if (a == b)
			return HD_DIM_NONE;
	}
	for (i = 0; i < HD_ARRAY_LEN(dim_rules); i++) {
		if (dim_rules[i].op == op && dim_rules[i].a == a && dim_rules[i].b == b) {
			*factor = dim_rules[i].factor;
			return (int)dim_rules[i].out;
		}
	}
	return -1;
}

static struct hd_expr *
make_binop(struct hd_expr_parser *p, const struct hd_tok *op, enum hd_expr_kind kind,
	   struct hd_expr *a, struct hd_expr *b)
{
	static const char *const verb[] = {
		[HD_EX_ADD] = "add",
		[HD_EX_SUB] = "subtract",
		[HD_EX_MUL] = "multiply",
		[HD_EX_DIV] = "divide",
		[HD_EX_MOD] = "take the remainder of",
	};
	static const char *const join[] = {
		[HD_EX_ADD] = "and", [HD_EX_SUB] = "from", [HD_EX_MUL] = "by",
		[HD_EX_DIV] = "by",  [HD_EX_MOD] = "by",
	};
	struct hd_expr *x;
	double f;
	int d = binop_dim(kind, a->dim, b->dim, &f);

	if (a->is_bool || b->is_bool) {
		const struct hd_expr *c = a->is_bool ? a : b;
		perr(p, op,
		     "'%.*s' is a condition, not a number: it cannot be an operand of '%.*s' "
		     "(put conditions together with && and ||)",
		     (int)c->src_len, c->src_p, (int)op->len, op->p);
		hd_expr_free(a);
		hd_expr_free(b);
		return NULL;
	}
	if (d < 0) {
		if (kind == HD_EX_SUB)
			perr(p, op,
			     "units do not agree: cannot subtract %s ('%.*s') from "
			     "%s ('%.*s')",
			     dim_word(b->dim), (int)b->src_len, b->src_p, dim_word(a->dim),
			     (int)a->src_len, a->src_p);
		else
			perr(p, op, "units do not agree: cannot %s %s ('%.*s') %s %s ('%.*s')",
			     verb[kind], dim_word(a->dim), (int)a->src_len, a->src_p, join[kind],
			     dim_word(b->dim), (int)b->src_len, b->src_p);
		hd_expr_free(a);
		hd_expr_free(b);
		return NULL;
	}
	x = new_expr(kind, op);
	x->a = a;
	x->b = b;
	x->dim = (enum hd_dim)d;
	x->depends_on_rank = a->depends_on_rank || b->depends_on_rank;
	x->index_mask = a->index_mask | b->index_mask;
	x->src_p = a->src_p;
	x->src_len = (size_t)(b->src_p + b->src_len - a->src_p);
	x->sline = a->sline;
	x->scol = a->scol;
	return x;
}

static struct hd_expr *
parse_product(struct hd_expr_parser *p, const char *what)
{
	struct hd_expr *x, *y;
	int depth = p->depth;

	if ((x = parse_atom(p, what)) == NULL)
		return NULL;
	p->depth = depth;
	for (;;) {
		const struct hd_tok *op = cur(p);
		enum hd_expr_kind k;

		if (is_punct(op, HD_P_STAR))
			k = HD_EX_MUL;
		else if (is_punct(op, HD_P_SLASH))
			k = HD_EX_DIV;
		else if (is_punct(op, HD_P_PERCENT))
			k = HD_EX_MOD;
		else
			return x;
		p->pos++;
		if ((y = parse_atom(p, "a number or a name after the operator")) == NULL) {
			hd_expr_free(x);
			return NULL;
		}
		p->depth = depth;
		if ((x = make_binop(p, op, k, x, y)) == NULL)
			return NULL;
	}
}

static struct hd_expr *
parse_sum(struct hd_expr_parser *p, const char *what)
{
	struct hd_expr *x, *y;
	int depth = p->depth;

	if ((x = parse_product(p, what)) == NULL)
		return NULL;
	for (;;) {
		const struct hd_tok *op = cur(p);
		enum hd_expr_kind k;

		if (is_punct(op, HD_P_PLUS))
			k = HD_EX_ADD;
		else if (is_punct(op, HD_P_MINUS))
			k = HD_EX_SUB;
		else
			return x;
		p->pos++;
		p->depth = depth;
		if ((y = parse_product(p, "a number or a name after the operator")) == NULL) {
			hd_expr_free(x);
			return NULL;
		}
		if ((x = make_binop(p, op, k, x, y)) == NULL)
			return NULL;
	}
}

struct hd_expr *
hd_expr_parse(struct hd_expr_parser *p, const char *what)
{
	int depth = p->depth;
	struct hd_expr *x = parse_sum(p, what);

	p->depth = depth;
	return x;
}

/* --- conditions ------------------------------------------------------------------ */

/* The comparisons and logic of conditions, by token. */
static const struct {
	enum hd_punct punct;
	enum hd_expr_kind kind;
} cond_ops[] = {
	{ HD_P_LT, HD_EX_LT },   { HD_P_LE, HD_EX_LE }, { HD_P_GT, HD_EX_GT },
	{ HD_P_GE, HD_EX_GE },   { HD_P_EQ, HD_EX_EQ }, { HD_P_NE, HD_EX_NE },
	{ HD_P_AND, HD_EX_AND }, { HD_P_OR, HD_EX_OR },
};

static int
cond_op(const struct hd_tok *t, enum hd_expr_kind *k)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(cond_ops); i++)
		if (is_punct(t, cond_ops[i].punct)) {
			*k = cond_ops[i].kind;
			return 1;
		}
	return 0;
}

/* A condition node over a and b (NOT: a only); both are checked first. */
static struct hd_expr *
make_cond(const struct hd_tok *op, enum hd_expr_kind kind, struct hd_expr *a, struct hd_expr *b)
{
	struct hd_expr *x = new_expr(kind, op);
	const struct hd_expr *last = b != NULL ? b : a;

	x->a = a;
	x->b = b;
	x->is_bool = true;
	x->dim = HD_DIM_NONE;
	x->depends_on_rank = a->depends_on_rank || (b != NULL && b->depends_on_rank);
	x->index_mask = a->index_mask | (b != NULL ? b->index_mask : 0);
	if (kind != HD_EX_NOT) {
		x->src_p = a->src_p;
		x->sline = a->sline;
		x->scol = a->scol;
	}
	x->src_len = (size_t)(last->src_p + last->src_len - x->src_p);
	return x;
}

/* A side of && or ||, or the operand of !, must be a condition. */
static struct hd_expr *
need_cond(struct hd_expr_parser *p, struct hd_expr *x, const struct hd_tok *op)
{
	if (x == NULL || x->is_bool)
		return x;
	perr(p, op,
	     "'%.*s' is a number, not a condition: '%.*s' joins conditions such as "
	     "'i %% 10 == 0'",
	     (int)x->src_len, x->src_p, (int)op->len, op->p);
	hd_expr_free(x);
	return NULL;
}

/* SUM [REL SUM] */
static struct hd_expr *
parse_cmp(struct hd_expr_parser *p, const char *what)
{
	const struct hd_tok *op;
	struct hd_expr *a, *b;
	enum hd_expr_kind k;

	if ((a = parse_sum(p, what)) == NULL)
		return NULL;
	op = cur(p);
	if (!cond_op(op, &k) || k == HD_EX_AND || k == HD_EX_OR)
		return a;
	if (a->is_bool) {
		perr(p, op,
		     "'%.*s' is a condition: compare numbers, and join conditions with && "
		     "and ||",
		     (int)a->src_len, a->src_p);
		hd_expr_free(a);
		return NULL;
	}
	p->pos++;
	if ((b = parse_sum(p, "a number or a name after the comparison")) == NULL) {
		hd_expr_free(a);
		return NULL;
	}
	if (b->is_bool || a->dim != b->dim) {
		if (b->is_bool)
			perr(p, op, "'%.*s' is a condition: compare numbers", (int)b->src_len,
			     b->src_p);
		else
			perr(p, op,
			     "units do not agree: cannot compare %s ('%.*s') with %s ('%.*s')",
			     dim_word(a->dim), (int)a->src_len, a->src_p, dim_word(b->dim),
			     (int)b->src_len, b->src_p);
		hd_expr_free(a);
		hd_expr_free(b);
		return NULL;
	}
	return make_cond(op, k, a, b);
}

/* ! NOT | CMP */
static struct hd_expr *
parse_not(struct hd_expr_parser *p, const char *what)
{
	const struct hd_tok *t = cur(p);
	struct hd_expr *a;

	if (!is_punct(t, HD_P_NOT))
		return parse_cmp(p, what);
	if (++p->depth > HD_EXPR_MAX_DEPTH)
		return perr(p, t, "expression is nested more than %d deep", HD_EXPR_MAX_DEPTH);
	p->pos++;
	a = need_cond(p, parse_not(p, "a condition after '!'"), t);
	p->depth--;
	return a != NULL ? make_cond(t, HD_EX_NOT, a, NULL) : NULL;
}

/* NOT (&& NOT)* at level HD_EX_AND, or AND (|| AND)* at level HD_EX_OR */
static struct hd_expr *
parse_logic(struct hd_expr_parser *p, const char *what, enum hd_expr_kind level)
{
	struct hd_expr *x, *y;
	enum hd_expr_kind k;

	x = level == HD_EX_AND ? parse_not(p, what) : parse_logic(p, what, HD_EX_AND);
	while (x != NULL && cond_op(cur(p), &k) && k == level) {
		const struct hd_tok *op = cur(p);

		if ((x = need_cond(p, x, op)) == NULL)
			return NULL;
		p->pos++;
		y = level == HD_EX_AND ? parse_not(p, "a condition after '&&'") :
					 parse_logic(p, "a condition after '||'", HD_EX_AND);
		if ((y = need_cond(p, y, op)) == NULL) {
			hd_expr_free(x);
			return NULL;
		}
		x = make_cond(op, k, x, y);
	}
	return x;
}

static struct hd_expr *
parse_or(struct hd_expr_parser *p, const char *what)
{
	return parse_logic(p, what, HD_EX_OR);
}

struct hd_expr *
hd_expr_parse_cond(struct hd_expr_parser *p, const char *what)
{
	int depth = p->depth;
	unsigned allow = p->allow;
	struct hd_expr *x;

	p->allow |= HD_EXPR_ALLOW_BOOL;
	x = parse_or(p, what);
	p->allow = allow;
	p->depth = depth;
	if (x != NULL && !x->is_bool) {
		hd_src_error(p->src, p->e, x->sline, x->scol,
			     "expected %s, found %s '%.*s': compare it, as in '%.*s == 0'", what,
			     dim_word(x->dim), (int)x->src_len, x->src_p, (int)x->src_len,
			     x->src_p);
		hd_expr_free(x);
		return NULL;
	}
	return x;
}

double
hd_expr_factor(const struct hd_expr *x)
{
	double f = 1;

	if ((x->kind == HD_EX_MUL || x->kind == HD_EX_DIV) && x->a != NULL && x->b != NULL)
		binop_dim(x->kind, x->a->dim, x->b->dim, &f);
	return f;
}

static int
eval_error(const struct hd_eval_env *env, const struct hd_expr *x, struct hd_err *e,
	   const char *msg)
{
	if (env->src != NULL)
		hd_src_error(env->src, e, x->line, x->col, "%s", msg);
	else
		hd_err_set(e, HD_EXIT_INPUT, "", "%s", msg);
	return -1;
}

int
hd_expr_eval(const struct hd_expr *x, const struct hd_eval_env *env, double *v, struct hd_err *e)
{
	double a = 0, b = 0, f;

	switch (x->kind) {
	case HD_EX_NUM:
		*v = x->num;
		return 0;
	case HD_EX_KNOB:
		if (env->knobs == NULL)
			return eval_error(env, x, e, "knob values are missing");
		*v = env->knobs[x->knob];
		return 0;
	case HD_EX_RANK:
		*v = env->rank;
		return 0;
	case HD_EX_NRANKS:
		*v = env->nranks;
		return 0;
	case HD_EX_CALL:
		if (env->call == NULL)
			return eval_error(env, x, e, "timing functions need a run");
		return env->call(env->arg, x, v, e);
	case HD_EX_INDEX:
		if (env->index == NULL || x->slot < 0)
			return eval_error(env, x, e, "the loop index has no value here");
		*v = env->index[x->slot];
		return 0;
	case HD_EX_PROFILE:
		if (env->profile == NULL)
			return eval_error(env, x, e,
					  "profile() needs a hardware profile: it is read when "
					  "a run's claims are checked");
		return env->profile(env->arg, x, v, e);
	case HD_EX_AND:
	case HD_EX_OR:
		/* short-circuit: `every > 0 && i % every == 0` */
		if (hd_expr_eval(x->a, env, &a, e) < 0)
			return -1;
		if ((a != 0) == (x->kind == HD_EX_OR)) {
			*v = a != 0;
			return 0;
		}
		if (hd_expr_eval(x->b, env, &b, e) < 0)
			return -1;
		*v = b != 0;
		return 0;
	case HD_EX_NEG:
	case HD_EX_ADD:
	case HD_EX_SUB:
	case HD_EX_MUL:
	case HD_EX_DIV:
	case HD_EX_MOD:
	case HD_EX_LT:
	case HD_EX_LE:
	case HD_EX_GT:
	case HD_EX_GE:
	case HD_EX_EQ:
	case HD_EX_NE:
	case HD_EX_NOT:
		break;
	}
	if (hd_expr_eval(x->a, env, &a, e) < 0)
		return -1;
	if (x->b != NULL && hd_expr_eval(x->b, env, &b, e) < 0)
		return -1;
	switch (x->kind) {
	case HD_EX_NEG:
		*v = -a;
		break;
	case HD_EX_ADD:
		*v = a + b;
		break;
	case HD_EX_SUB:
		*v = a - b;
		break;
	case HD_EX_MUL:
		binop_dim(x->kind, x->a->dim, x->b->dim, &f);
		*v = a * b * f;
		break;
	case HD_EX_DIV:
		if (b == 0)
			return eval_error(env, x, e, "division by zero");
		binop_dim(x->kind, x->a->dim, x->b->dim, &f);
		*v = a / b * f;
		break;
	case HD_EX_MOD:
		if (b == 0)
			return eval_error(env, x, e, "division by zero");
		*v = fmod(a, b);
		break;
	case HD_EX_LT:
		*v = a < b;
		break;
	case HD_EX_LE:
		*v = a <= b;
		break;
	case HD_EX_GT:
		*v = a > b;
		break;
	case HD_EX_GE:
		*v = a >= b;
		break;
	case HD_EX_EQ:
		*v = a == b;
		break;
	case HD_EX_NE:
		*v = a != b;
		break;
	case HD_EX_NOT:
		*v = a == 0;
		break;
	case HD_EX_NUM:
	case HD_EX_KNOB:
	case HD_EX_RANK:
	case HD_EX_NRANKS:
	case HD_EX_CALL:
	case HD_EX_INDEX:
	case HD_EX_PROFILE:
	case HD_EX_AND:
	case HD_EX_OR:
		return eval_error(env, x, e, "bad expression");
	}
	if (!isfinite(*v))
		return eval_error(env, x, e, "the value is too large");
	return 0;
}

void
hd_expr_fmt_value(char *buf, size_t n, double v, enum hd_dim d)
{
	switch (d) {
	case HD_DIM_BYTES:
		if (v >= 0 && v < 1.8e19)
			hd_fmt_bytes(buf, n, (uint64_t)v);
		else
			snprintf(buf, n, "%g B", v);
		break;
	case HD_DIM_TIME:
		if (fabs(v) < 9.2e18)
			hd_fmt_time(buf, n, (hd_time)llround(v));
		else
			snprintf(buf, n, "%g ps", v);
		break;
	case HD_DIM_RATE:
		hd_fmt_rate(buf, n, v);
		break;
	case HD_DIM_FLOPS:
		hd_fmt_flops(buf, n, v);
		break;
	case HD_DIM_FLOP:
		snprintf(buf, n, "%.4g FLOP", v);
		break;
	case HD_DIM_PERCENT:
		snprintf(buf, n, "%.4g%%", v * 100);
		break;
	case HD_DIM_NONE:
		snprintf(buf, n, "%.4g", v);
		break;
	}
}

static int
prec(const struct hd_expr *x)
{
	switch (x->kind) {
	case HD_EX_OR:
		return -2;
	case HD_EX_AND:
		return -1;
	case HD_EX_NOT:
		return 3;
	case HD_EX_LT:
	case HD_EX_LE:
	case HD_EX_GT:
	case HD_EX_GE:
	case HD_EX_EQ:
	case HD_EX_NE:
		return 0;
	case HD_EX_ADD:
	case HD_EX_SUB:
		return 1;
	case HD_EX_MUL:
	case HD_EX_DIV:
	case HD_EX_MOD:
		return 2;
	case HD_EX_NEG:
		return 3;
	case HD_EX_NUM:
	case HD_EX_KNOB:
	case HD_EX_RANK:
	case HD_EX_NRANKS:
	case HD_EX_CALL:
	case HD_EX_INDEX:
	case HD_EX_PROFILE:
		break;
	}
	return 4;
}

static void
print_child(const struct hd_expr *c, int parent_prec, int right, struct hd_buf *b,
	    const struct hd_eval_env *env, const char *(*knob_name)(void *, int), void *arg)
{
	int paren = prec(c) < parent_prec || (right && prec(c) == parent_prec);

	if (paren)
		hd_buf_putc(b, '(');
	hd_expr_print(c, b, env, knob_name, arg);
	if (paren)
		hd_buf_putc(b, ')');
}

void
hd_expr_print(const struct hd_expr *x, struct hd_buf *b, const struct hd_eval_env *env,
	      const char *(*knob_name)(void *arg, int i), void *arg)
{
	static const char *const ops[] = {
		[HD_EX_ADD] = " + ", [HD_EX_SUB] = " - ", [HD_EX_MUL] = " * ", [HD_EX_DIV] = " / ",
		[HD_EX_MOD] = " % ", [HD_EX_LT] = " < ",  [HD_EX_LE] = " <= ", [HD_EX_GT] = " > ",
		[HD_EX_GE] = " >= ", [HD_EX_EQ] = " == ", [HD_EX_NE] = " != ", [HD_EX_AND] = " && ",
		[HD_EX_OR] = " || ",
	};
	char v[64];
	double val;
	struct hd_err e = { 0 };

	switch (x->kind) {
	case HD_EX_NUM:
		hd_buf_puts(b, x->text);
		return;
	case HD_EX_KNOB:
		if (env != NULL && env->knobs != NULL) {
			hd_expr_fmt_value(v, sizeof v, env->knobs[x->knob], x->dim);
			hd_buf_puts(b, v);
		} else {
			hd_buf_puts(b, knob_name != NULL ? knob_name(arg, x->knob) : x->text);
		}
		return;
	case HD_EX_RANK:
		hd_buf_puts(b, "rank");
		return;
	case HD_EX_NRANKS:
		hd_buf_puts(b, "nranks");
		return;
	case HD_EX_CALL:
		if (env != NULL && hd_expr_eval(x, env, &val, &e) == 0) {
			hd_expr_fmt_value(v, sizeof v, val, x->dim);
			hd_buf_puts(b, v);
			return;
		}
		hd_buf_printf(b, "%s(%s%s%s)", fn_names[x->fn], x->scen, x->label ? "." : "",
			      x->label ? x->label : "");
		return;
	case HD_EX_INDEX:
		hd_buf_puts(b, x->text);
		return;
	case HD_EX_PROFILE:
		if (env != NULL && env->profile != NULL &&
		    env->profile(env->arg, x, &val, &e) == 0) {
			hd_expr_fmt_value(v, sizeof v, val, x->dim);
			hd_buf_puts(b, v);
			return;
		}
		hd_buf_printf(b, "profile(%s)", x->text);
		return;
	case HD_EX_NEG:
		hd_buf_putc(b, '-');
		print_child(x->a, 3, 0, b, env, knob_name, arg);
		return;
	case HD_EX_NOT:
		hd_buf_putc(b, '!');
		print_child(x->a, 4, 0, b, env, knob_name, arg);
		return;
	case HD_EX_ADD:
	case HD_EX_SUB:
	case HD_EX_MUL:
	case HD_EX_DIV:
	case HD_EX_MOD:
	case HD_EX_LT:
	case HD_EX_LE:
	case HD_EX_GT:
	case HD_EX_GE:
	case HD_EX_EQ:
	case HD_EX_NE:
	case HD_EX_AND:
	case HD_EX_OR:
		print_child(x->a, prec(x), 0, b, env, knob_name, arg);
		hd_buf_puts(b, ops[x->kind]);
		print_child(x->b, prec(x), 1, b, env, knob_name, arg);
		return;
	}
}
