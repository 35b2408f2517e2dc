/*
 * parse.c - the toolkit of the lesson parser: positions and messages,
 * expecting names, strings, expressions and ends of lines, blocks and their
 * ends, and unknown statements with suggestions.  Shared by the parsers of
 * the lesson's top level (lesson.c) and of scenarios (scen_parse.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/parse.h"

int
hd_parse_error(struct hd_parser *p, const struct hd_tok *t, const char *fmt, ...)
{
	va_list ap;
	char msg[700];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hd_src_error(p->src, p->e, t->line, t->col, "%s", msg);
	return -1;
}

int
hd_parse_error_line(struct hd_parser *p, int line, int col, const char *fmt, ...)
{
	va_list ap;
	char msg[700];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hd_src_error(p->src, p->e, line, col, "%s", msg);
	return -1;
}

/* "'buffer h pinned'": the statement's text up to the current token. */
void
hd_parse_so_far(struct hd_parser *p, char *buf, size_t n)
{
	const struct hd_tok *a = &p->toks.v[p->stmt_start];
	const struct hd_tok *b = p->pos > p->stmt_start ? &p->toks.v[p->pos - 1] : a;
	size_t len = (size_t)(b->p + b->len - a->p);

	if (len > 60)
		len = 60;
	snprintf(buf, n, "'%.*s'", (int)len, a->p);
}

int
hd_parse_eol(struct hd_parser *p)
{
	char d[96], s[80];

	if (at_eol(tok(p))) {
		if (tok(p)->kind == HD_TOK_NL)
			p->pos++;
		return 0;
	}
	hd_tok_describe(tok(p), d, sizeof d);
	hd_parse_so_far(p, s, sizeof s);
	return hd_parse_error(p, tok(p), "unexpected %s after %s: expected the end of the line", d,
			      s);
}

char *
hd_parse_name(struct hd_parser *p, const char *what)
{
	char d[96], s[80];

	if (tok(p)->kind == HD_TOK_NAME)
		return tok_strdup(&p->toks.v[p->pos++]);
	hd_tok_describe(tok(p), d, sizeof d);
	hd_parse_so_far(p, s, sizeof s);
	hd_parse_error(p, tok(p), "expected %s after %s, found %s", what, s, d);
	return NULL;
}

char *
hd_parse_string(struct hd_parser *p, const char *what)
{
	char d[96], s[80];

	if (tok(p)->kind == HD_TOK_STRING)
		return hd_xstrdup(p->toks.v[p->pos++].str);
	hd_tok_describe(tok(p), d, sizeof d);
	hd_parse_so_far(p, s, sizeof s);
	hd_parse_error(p, tok(p), "expected %s in double quotes after %s, found %s", what, s, d);
	return NULL;
}

int
hd_lesson_knob_lookup(void *arg, const char *name, enum hd_dim *dim)
{
	const struct hd_lesson *l = arg;
	int i = hd_lesson_find_knob(l, name);

	if (i >= 0)
		*dim = l->knobs[i].dim;
	return i;
}

const char *
hd_parse_dim_found(enum hd_dim d)
{
	static const char *const w[] = {
		[HD_DIM_NONE] = "a plain number",
		[HD_DIM_BYTES] = "a size",
		[HD_DIM_TIME] = "a time",
		[HD_DIM_RATE] = "a rate",
		[HD_DIM_FLOP] = "an amount of work",
		[HD_DIM_FLOPS] = "a compute rate",
		[HD_DIM_PERCENT] = "a percentage",
	};
	return (unsigned)d < HD_ARRAY_LEN(w) ? w[d] : "a value";
}

/*
 * Parse an expression of dimension `dim` (HD_DIM__ANY: any) in the
 * current scenario's context.
 */
#define HD_PARSE_DIM_ANY ((enum hd_dim) - 1)

struct hd_expr *
hd_parse_expr_ex(struct hd_parser *p, enum hd_dim dim, unsigned allow, const char *what_override)
{
	struct hd_expr_parser ep;
	struct hd_expr *x;
	char what[200], s[80];

	hd_parse_so_far(p, s, sizeof s);
	if (what_override != NULL)
		snprintf(what, sizeof what, "%s", what_override);
	else
		snprintf(what, sizeof what, "%s after %s",
			 dim == HD_PARSE_DIM_ANY ? "a value" : hd_dim_example(dim), s);
	memset(&ep, 0, sizeof ep);
	ep.src = p->src;
	ep.e = p->e;
	ep.toks = p->toks.v;
	ep.pos = p->pos;
	ep.allow = allow;
	if (p->sc != NULL && p->sc->ranks != NULL)
		ep.allow |= HD_EXPR_ALLOW_RANK;
	else if (p->sc != NULL)
		ep.rank_hint = "can only be used in a scenario that declares 'ranks N' first";
	else
		ep.rank_hint = "can only be used inside a scenario with 'ranks N'";
	ep.find_knob = hd_lesson_knob_lookup;
	ep.arg = p->l;
	ep.index_names = p->index_names;
	ep.nindex = p->nindex;
	ep.index_used = &p->index_used;
	if ((x = hd_expr_parse(&ep, what)) == NULL)
		return NULL;
	if (dim != HD_PARSE_DIM_ANY && x->dim != dim &&
	    !(dim == HD_DIM_PERCENT && x->dim == HD_DIM_NONE)) {
		const struct hd_tok *next = &p->toks.v[ep.pos];
		enum hd_dim ud;
		double f;
		char hint[160] = "";

		/* "64 MiB": a unit after a space is a name, not a unit. */
		if (x->kind == HD_EX_NUM && next->kind == HD_TOK_NAME && next->space_before &&
		    hd_unit_lookup(next->p, next->len, &ud, &f) && ud == dim)
			snprintf(hint, sizeof hint,
				 " (write the unit right after the number, "
				 "with no space: '%.*s%.*s')",
				 (int)x->src_len, x->src_p, (int)next->len, next->p);
		hd_src_error(p->src, p->e, p->toks.v[p->pos].line, p->toks.v[p->pos].col,
			     "expected %s, found %s '%.*s'%s", what, hd_parse_dim_found(x->dim),
			     (int)x->src_len, x->src_p, hint);
		hd_expr_free(x);
		return NULL;
	}
	p->pos = ep.pos;
	return x;
}

struct hd_expr *
hd_parse_expr(struct hd_parser *p, enum hd_dim dim)
{
	return hd_parse_expr_ex(p, dim, 0, NULL);
}

struct hd_expr *
hd_parse_cond(struct hd_parser *p, const char *what)
{
	struct hd_expr_parser ep;
	struct hd_expr *x;
	char w[200];

	snprintf(w, sizeof w, "a condition such as 'i %% 10 == 0' after %s", what);
	memset(&ep, 0, sizeof ep);
	ep.src = p->src;
	ep.e = p->e;
	ep.toks = p->toks.v;
	ep.pos = p->pos;
	ep.allow = HD_EXPR_ALLOW_INDEX;
	if (p->sc != NULL && p->sc->ranks != NULL)
		ep.allow |= HD_EXPR_ALLOW_RANK;
	else
		ep.rank_hint = "can only be used in a scenario that declares 'ranks N' first";
	ep.find_knob = hd_lesson_knob_lookup;
	ep.arg = p->l;
	ep.index_names = p->index_names;
	ep.nindex = p->nindex;
	ep.index_used = &p->index_used;
	if ((x = hd_expr_parse_cond(&ep, w)) == NULL)
		return NULL;
	p->pos = ep.pos;
	return x;
}

/* --- blocks ------------------------------------------------------------------ */

int
hd_parse_push_block(struct hd_parser *p, const struct hd_tok *kw, const char *what)
{
	struct hd_parse_block *b;

	if (p->depth >= HD_LESSON_MAX_DEPTH)
		return hd_parse_error(p, kw, "blocks nest more than %d deep", HD_LESSON_MAX_DEPTH);
	b = &p->stack[p->depth++];
	snprintf(b->what, sizeof b->what, "%s", what);
	b->line = kw->line;
	b->col = kw->col;
	return 0;
}

int
hd_parse_never_closed(struct hd_parser *p, const struct hd_tok *found)
{
	const struct hd_parse_block *b = &p->stack[p->depth - 1];
	char d[96];

	if (found->kind == HD_TOK_EOF)
		return hd_parse_error_line(p, b->line, b->col,
					   "'%s' opened here is never closed: "
					   "expected 'end' before the end of the file",
					   b->what);
	hd_tok_describe(found, d, sizeof d);
	return hd_parse_error_line(p, b->line, b->col,
				   "'%s' opened here is never closed: "
				   "found %s at line %d before its 'end'",
				   b->what, d, found->line);
}

/* Is `end` next?  Consumes the line when it is. */
int
hd_parse_take_end(struct hd_parser *p, int *done)
{
	*done = 0;
	if (!is_kw(tok(p), "end"))
		return 0;
	p->stmt_start = p->pos;
	p->pos++;
	if (hd_parse_eol(p) < 0)
		return -1;
	p->depth--;
	*done = 1;
	return 0;
}

/* --- keyword tables and suggestions -------------------------------------------- */

const char *const hd_parse_top_words[] = {
	"lesson", "title", "part",     "order",    "summary", "rule",    "replaces",
	"knob",   "page",  "question", "scenario", "claim",   "require", NULL,
};
const char *const hd_parse_scen_words[] = {
	"buffer",        "stream",    "event",     "default-stream", "ranks",
	"alloc",         "free",      "pin",       "copy",           "kernel",
	"prefetch",      "record",    "wait",      "sync",           "query",
	"host",          "read",      "repeat",    "rank",           "send",
	"recv",          "allreduce", "broadcast", "reduce",         "allgather",
	"reducescatter", "gather",    "alltoall",  "barrier",        "if",
	"else",          "end",       "queue",     "workers",        "thread",
	"put",           "get",       "graph",     "launch",         NULL,
};

int
hd_parse_in_words(const char *const *w, const struct hd_tok *t)
{
	for (; *w != NULL; w++)
		if (is_kw(t, *w))
			return 1;
	return 0;
}

int
hd_parse_unknown(struct hd_parser *p, const char *const *words, const char *where)
{
	const struct hd_tok *t = tok(p);
	char name[80], d[96];
	const char *best = NULL;
	int bestd = 99;
	const char *const *w;

	if (t->kind != HD_TOK_NAME) {
		hd_tok_describe(t, d, sizeof d);
		return hd_parse_error(p, t, "expected a statement %s, found %s", where, d);
	}
	snprintf(name, sizeof name, "%.*s", (int)t->len, t->p);
	for (w = words; *w != NULL; w++) {
		int dist = hd_edit_distance(name, *w);
		if (dist < bestd) {
			bestd = dist;
			best = *w;
		}
	}
	if (best != NULL && bestd <= 2 && bestd < (int)strlen(name))
		return hd_parse_error(p, t, "unknown statement '%s' %s: did you mean '%s'?", name,
				      where, best);
	if (words != hd_parse_scen_words && hd_parse_in_words(hd_parse_scen_words, t))
		return hd_parse_error(p, t,
				      "'%s' is a scenario statement: it belongs inside "
				      "'scenario NAME' ... 'end'",
				      name);
	if (words != hd_parse_top_words && hd_parse_in_words(hd_parse_top_words, t))
		return hd_parse_error(p, t, "'%s' cannot appear %s", name, where);
	return hd_parse_error(p, t, "unknown statement '%s' %s", name, where);
}
