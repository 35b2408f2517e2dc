/*
 * parse.h - the lesson parser's state and toolkit, private to the lesson
 * module (lesson.c for the top level, scen_parse.c for scenarios).
 *
 * The parser walks the token array of lex.c one line (statement) at a
 * time.  Every helper that fails fills the error (position, message with
 * what was found and what was expected, caret context) and returns -1 or
 * NULL, so callers only propagate.
 */
#ifndef HD_PARSE_H
#define HD_PARSE_H

#include <string.h>

#include "lang/lesson_priv.h"

/* An open block, for "opened here is never closed". */
struct hd_parse_block {
	char what[96]; /* "scenario pinned", "repeat 10" */
	int line, col;
};

struct hd_parser {
	struct hd_lesson *l;
	const struct hd_src *src;
	struct hd_toks toks;
	size_t pos;
	struct hd_err *e;
	struct hd_parse_block stack[HD_LESSON_MAX_DEPTH + 1];
	int depth;
	int seen_block;     /* a page, question or scenario was seen */
	struct hd_scen *sc; /* the scenario being parsed */
	size_t stmt_start;  /* first token of the current statement */
	int in_thread;      /* parsing the body of a `workers` or `thread` block */
	/* The indices of the loops around the statement (`repeat N as i`), by
	 * slot, outermost first; bit k of index_used: slot k's index was read. */
	const char *index_names[HD_LESSON_MAX_DEPTH];
	int nindex;
	unsigned index_used;
	int in_graph; /* inside `graph NAME`: 1 + the graph's index, else 0 */
};

/* Looking at tokens: small enough to inline in both parsers. */
static inline const struct hd_tok *
tok(struct hd_parser *p)
{
	return &p->toks.v[p->pos];
}

static inline const struct hd_tok *
peek(struct hd_parser *p, size_t k)
{
	size_t i = p->pos + k;

	return &p->toks.v[i < p->toks.n ? i : p->toks.n - 1];
}

static inline int
is_kw(const struct hd_tok *t, const char *kw)
{
	return t->kind == HD_TOK_NAME && strlen(kw) == t->len && memcmp(t->p, kw, t->len) == 0;
}

static inline int
is_punct(const struct hd_tok *t, enum hd_punct pu)
{
	return t->kind == HD_TOK_PUNCT && t->punct == pu;
}

static inline int
at_eol(const struct hd_tok *t)
{
	return t->kind == HD_TOK_NL || t->kind == HD_TOK_EOF;
}

static inline char *
tok_strdup(const struct hd_tok *t)
{
	return hd_xstrndup(t->p, t->len);
}

/* Report at token t / at line:col.  Both return -1. */
int hd_parse_error(struct hd_parser *p, const struct hd_tok *t, const char *fmt, ...)
    HD_PRINTF(3, 4);
int hd_parse_error_line(struct hd_parser *p, int line, int col, const char *fmt, ...)
    HD_PRINTF(4, 5);
/* "'buffer h pinned'": the current statement's text up to the cursor. */
void hd_parse_so_far(struct hd_parser *p, char *buf, size_t n);
/* "a size", "a time" ... for "found ..." in messages. */
const char *hd_parse_dim_found(enum hd_dim d);

/* Expect the end of the line and step over it.  -1 on error. */
int hd_parse_eol(struct hd_parser *p);
/* Expect a name / a string (what: for the message); a new string or NULL. */
char *hd_parse_name(struct hd_parser *p, const char *what);
char *hd_parse_string(struct hd_parser *p, const char *what);

#define HD_PARSE_DIM_ANY ((enum hd_dim) - 1)
/*
 * Parse an expression of dimension dim (HD_PARSE_DIM_ANY: any) with the
 * HD_EXPR_ALLOW_* flags in `allow`; `rank` is allowed by itself inside a
 * scenario that declared `ranks`.  what_override replaces the default
 * "a size such as 64MiB after 'buffer h pinned'" in messages.  NULL on error.
 */
struct hd_expr *hd_parse_expr_ex(struct hd_parser *p, enum hd_dim dim, unsigned allow,
				 const char *what_override);
struct hd_expr *hd_parse_expr(struct hd_parser *p, enum hd_dim dim);
/* Parse a condition (hd_expr_parse_cond) after `what` ("'if'"): knobs,
 * nranks and the loop indices in scope may be read.  NULL on error. */
struct hd_expr *hd_parse_cond(struct hd_parser *p, const char *what);

/* Open a block at keyword kw (what: "scenario a"); -1 past the depth limit. */
int hd_parse_push_block(struct hd_parser *p, const struct hd_tok *kw, const char *what);
/* Report the innermost open block as never closed (found: what came instead). */
int hd_parse_never_closed(struct hd_parser *p, const struct hd_tok *found);
/* If the line is `end`, consume it, close the block and set *done. */
int hd_parse_take_end(struct hd_parser *p, int *done);

/* Statement words of the top level and of scenarios (NULL-terminated). */
extern const char *const hd_parse_top_words[];
extern const char *const hd_parse_scen_words[];
int hd_parse_in_words(const char *const *w, const struct hd_tok *t);
/* Report an unknown statement among `words`, suggesting the nearest. */
int hd_parse_unknown(struct hd_parser *p, const char *const *words, const char *where);

/* Scenarios (scen_parse.c). */
int hd_parse_scenario(struct hd_parser *p);
void hd_scen_free(struct hd_scen *sc);

#endif
