/*
 * lex.h - the lesson language's tokenizer, and source positions for messages.
 *
 * The lesson format is line based, so the token stream carries an explicit
 * end-of-line token.  Every token knows its line and column (1-based; the
 * column counts UTF-8 code points, so a caret lines up under the character
 * in a terminal).  The lexer checks what is wrong below the grammar: invalid
 * UTF-8, NUL and control bytes, overlong lines, unterminated strings, bad
 * escapes, malformed numbers and unknown unit suffixes.
 */
#ifndef HD_LEX_H
#define HD_LEX_H

#include <stddef.h>

#include "base/units.h"
#include "base/util.h"

#define HD_LEX_MAX_LINE 4096        /* bytes per line, newline excluded */
#define HD_LEX_MAX_FILE (16u << 20) /* bytes per file */

/* A text with a name, split into lines, that messages can point into. */
struct hd_src {
	const char *path; /* names the text in messages ("lessons/01.hds", "--set") */
	const char *text; /* not owned */
	size_t len;
	size_t *line_off; /* start offset of each line */
	int nlines;
};

enum hd_tok_kind {
	HD_TOK_EOF,
	HD_TOK_NL,     /* end of a line that held tokens */
	HD_TOK_NAME,   /* identifier or keyword */
	HD_TOK_NUMBER, /* number with optional unit: num, dim */
	HD_TOK_STRING, /* "..." decoded into str */
	HD_TOK_TEXT,   /* a page line "| text": text in str */
	HD_TOK_PUNCT,  /* punct */
};

enum hd_punct {
	HD_P_ARROW,  /* -> */
	HD_P_DOTDOT, /* .. */
	HD_P_LE,
	HD_P_GE,
	HD_P_EQ,
	HD_P_LT,
	HD_P_GT,
	HD_P_PLUS,
	HD_P_MINUS,
	HD_P_STAR,
	HD_P_SLASH,
	HD_P_LPAREN,
	HD_P_RPAREN,
	HD_P_COLON,
	HD_P_COMMA,
	HD_P_DOT,
	HD_P_AT,
	HD_P_PERCENT, /* % apart from a number: the remainder */
	HD_P_NE,      /* != */
	HD_P_AND,     /* && */
	HD_P_OR,      /* || */
	HD_P_NOT,     /* ! */
	HD_P__COUNT
};

struct hd_tok {
	enum hd_tok_kind kind;
	int line, col;
	const char *p; /* the token's source text (not NUL-terminated) */
	size_t len;
	char *str;           /* STRING / TEXT: decoded, owned by the token list */
	double num;          /* NUMBER: value in base units */
	enum hd_dim dim;     /* NUMBER: its dimension */
	enum hd_punct punct; /* PUNCT */
	int space_before;    /* whitespace (or line start) precedes the token */
};

struct hd_toks {
	struct hd_tok *v;
	size_t n, cap;
};

/* Index the lines of src->text (sets line_off, nlines). */
void hd_src_init(struct hd_src *src, const char *path, const char *text, size_t len);
void hd_src_free(struct hd_src *src);
/*
 * Fill e for a problem at line:col of src: status HD_EXIT_INPUT, where =
 * "path:line:col", msg from fmt, context = the source line and a caret.
 */
void hd_src_error(const struct hd_src *src, struct hd_err *e, int line, int col, const char *fmt,
		  ...) HD_PRINTF(5, 6);

/* Tokenize the whole of src into toks (ends with HD_TOK_EOF).  -1 with e set. */
int hd_lex(const struct hd_src *src, struct hd_toks *toks, struct hd_err *e);
void hd_toks_free(struct hd_toks *toks);

/* The spelling of a punctuation token: "->", "<=" ... */
const char *hd_punct_str(enum hd_punct p);
/* Describe a token for "found ..." in messages: "'fast'", "the end of the line". */
void hd_tok_describe(const struct hd_tok *t, char *buf, size_t n);

/* Levenshtein distance of two short strings (capped at 99), for suggestions. */
int hd_edit_distance(const char *a, const char *b);

#endif
