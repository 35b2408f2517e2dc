/*
 * lex.c - tokenizer for lesson files (doc/lesson-format.md, "Lexical rules").
 *
 * The whole text is tokenized up front: lessons are small, and a flat token
 * array lets the parser look ahead freely.  Everything a byte-level mistake
 * can break is caught here, with the position of the offending byte, so the
 * parser only ever sees well-formed tokens.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "lang/lex.h"

static const char *const punct_str[HD_P__COUNT] = {
	[HD_P_ARROW] = "->", [HD_P_DOTDOT] = "..", [HD_P_LE] = "<=",   [HD_P_GE] = ">=",
	[HD_P_EQ] = "==",    [HD_P_LT] = "<",      [HD_P_GT] = ">",    [HD_P_PLUS] = "+",
	[HD_P_MINUS] = "-",  [HD_P_STAR] = "*",    [HD_P_SLASH] = "/", [HD_P_LPAREN] = "(",
	[HD_P_RPAREN] = ")", [HD_P_COLON] = ":",   [HD_P_COMMA] = ",", [HD_P_DOT] = ".",
	[HD_P_AT] = "@",     [HD_P_PERCENT] = "%", [HD_P_NE] = "!=",   [HD_P_AND] = "&&",
	[HD_P_OR] = "||",    [HD_P_NOT] = "!",
};

/* Two-character punctuation first so that "->" wins over "-". */
static const enum hd_punct punct_order[] = {
	HD_P_ARROW,  HD_P_DOTDOT, HD_P_LE,    HD_P_GE,   HD_P_EQ,    HD_P_LT,
	HD_P_GT,     HD_P_PLUS,   HD_P_MINUS, HD_P_STAR, HD_P_SLASH, HD_P_LPAREN,
	HD_P_RPAREN, HD_P_COLON,  HD_P_COMMA, HD_P_DOT,  HD_P_AT,    HD_P_PERCENT,
	HD_P_NE,     HD_P_AND,    HD_P_OR,    HD_P_NOT,
};

const char *
hd_punct_str(enum hd_punct p)
{
	if ((unsigned)p >= HD_P__COUNT)
		return "?";
	return punct_str[p];
}

void
hd_src_init(struct hd_src *src, const char *path, const char *text, size_t len)
{
	size_t cap = 0, i;

	memset(src, 0, sizeof *src);
	src->path = path;
	src->text = text;
	src->len = len;
	src->line_off = hd_xgrow(NULL, &cap, 1, sizeof *src->line_off);
	src->line_off[src->nlines++] = 0;
	for (i = 0; i < len; i++) {
		if (text[i] != '\n' || i + 1 >= len)
			continue;
		src->line_off = hd_xgrow(src->line_off, &cap, (size_t)src->nlines + 1,
					 sizeof *src->line_off);
		src->line_off[src->nlines++] = i + 1;
	}
}

void
hd_src_free(struct hd_src *src)
{
	if (src == NULL)
		return;
	free(src->line_off);
	src->line_off = NULL;
	src->nlines = 0;
}

/* Length in bytes of a valid UTF-8 sequence at p, or 0 if invalid. */
static size_t
utf8_seq(const unsigned char *p, size_t rem)
{
	unsigned long cp;

	return hd_utf8_seq(p, rem, &cp);
}

void
hd_src_error(const struct hd_src *src, struct hd_err *e, int line, int col, const char *fmt, ...)
{
	va_list ap;
	struct hd_buf ctx;
	const char *s, *end;
	char where[256];
	int c;

	if (e == NULL)
		return;
	snprintf(where, sizeof where, "%s:%d:%d", src->path, line, col);
	hd_err_set(e, HD_EXIT_INPUT, where, "%s", "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);

	e->context[0] = '\0';
	if (line < 1 || line > src->nlines)
		return;
	s = src->text + src->line_off[line - 1];
	end = memchr(s, '\n', (size_t)(src->text + src->len - s));
	if (end == NULL)
		end = src->text + src->len;
	if (end > s && end[-1] == '\r')
		end--;
	if (end - s > 200 && col < 150) {
		end = s + 200;
	}
	hd_buf_init(&ctx);
	/* Show the line with NULs and control bytes made visible. */
	{
		const char *q;
		for (q = s; q < end; q++) {
			unsigned char b = (unsigned char)*q;
			if (b == '\t' || b >= 0x20)
				hd_buf_putc(&ctx, (char)b);
			else
				hd_buf_putc(&ctx, '?');
		}
	}
	hd_buf_putc(&ctx, '\n');
	/* The caret: keep tabs so it lines up, one space per code point. */
	for (c = 1; c < col && s < end; c++) {
		size_t n = utf8_seq((const unsigned char *)s, (size_t)(end - s));
		hd_buf_putc(&ctx, *s == '\t' ? '\t' : ' ');
		s += n ? n : 1;
	}
	for (; c < col && c < 4200; c++)
		hd_buf_putc(&ctx, ' ');
	hd_buf_putc(&ctx, '^');
	snprintf(e->context, sizeof e->context, "%s", ctx.s);
	hd_buf_free(&ctx);
}

void
hd_toks_free(struct hd_toks *toks)
{
	size_t i;

	if (toks == NULL)
		return;
	for (i = 0; i < toks->n; i++)
		free(toks->v[i].str);
	free(toks->v);
	memset(toks, 0, sizeof *toks);
}

void
hd_tok_describe(const struct hd_tok *t, char *buf, size_t n)
{
	switch (t->kind) {
	case HD_TOK_EOF:
		snprintf(buf, n, "the end of the file");
		break;
	case HD_TOK_NL:
		snprintf(buf, n, "the end of the line");
		break;
	case HD_TOK_STRING:
		snprintf(buf, n, "the string \"%.40s\"", t->str);
		break;
	case HD_TOK_TEXT:
		snprintf(buf, n, "a page line ('|')");
		break;
	case HD_TOK_NAME:
	case HD_TOK_NUMBER:
	case HD_TOK_PUNCT:
		snprintf(buf, n, "'%.*s'", (int)(t->len > 60 ? 60 : t->len), t->p);
		break;
	}
}

int
hd_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int row[64], prev, tmp;

	if (la > 60 || lb > 60)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int best = prev + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb] > 99 ? 99 : row[lb];
}

/* Lexer state: position in the text and the current line / column. */
struct lexer {
	const struct hd_src *src;
	struct hd_toks *toks;
	struct hd_err *e;
	const char *p, *end;
	const char *line_start;
	int line;
	int line_has_tokens;
};

static int
col_of(const struct lexer *lx, const char *at)
{
	const char *q = lx->line_start;
	int col = 1;

	while (q < at) {
		size_t n = utf8_seq((const unsigned char *)q, (size_t)(lx->end - q));
		q += n ? n : 1;
		col++;
	}
	return col;
}

static struct hd_tok *
push(struct lexer *lx, enum hd_tok_kind kind, const char *at, size_t len)
{
	struct hd_tok *t;

	lx->toks->v = hd_xgrow(lx->toks->v, &lx->toks->cap, lx->toks->n + 1, sizeof *lx->toks->v);
	t = &lx->toks->v[lx->toks->n++];
	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->line = lx->line;
	t->col = col_of(lx, at);
	t->p = at;
	t->len = len;
	t->space_before = at == lx->line_start || at[-1] == ' ' || at[-1] == '\t';
	if (kind != HD_TOK_NL && kind != HD_TOK_EOF)
		lx->line_has_tokens = 1;
	return t;
}

static int lex_error(struct lexer *lx, const char *at, const char *fmt, ...) HD_PRINTF(3, 4);

static int
lex_error(struct lexer *lx, const char *at, const char *fmt, ...)
{
	va_list ap;
	char msg[700];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hd_src_error(lx->src, lx->e, lx->line, col_of(lx, at), "%s", msg);
	return -1;
}

/* Check one line's bytes before tokenizing it: length, UTF-8, control bytes. */
static int
check_line(struct lexer *lx, const char *eol)
{
	const char *q = lx->line_start;

	if (eol - lx->line_start > HD_LEX_MAX_LINE)
		return lex_error(lx, lx->line_start,
				 "line is %zu bytes long; the limit is %d bytes",
				 (size_t)(eol - lx->line_start), HD_LEX_MAX_LINE);
	while (q < eol) {
		unsigned char b = (unsigned char)*q;
		unsigned long cp;
		size_t n = hd_utf8_seq((const unsigned char *)q, (size_t)(eol - q), &cp);

		if (n == 0)
			return lex_error(lx, q,
					 "invalid UTF-8 (byte 0x%02x): lessons are "
					 "UTF-8 text",
					 b);
		if (b == 0)
			return lex_error(lx, q, "NUL byte in the text: lessons are UTF-8 text");
		if (b < 0x20 && b != '\t' && !(b == '\r' && q + 1 == eol))
			return lex_error(lx, q, "control character 0x%02x in the text", b);
		if (b == 0x7f)
			return lex_error(lx, q, "control character 0x7f in the text");
		if (HD_UTF8_C1(cp))
			return lex_error(lx, q, "control character U+%04lX in the text", cp);
		if (HD_UTF8_BIDI(cp))
			return lex_error(lx, q,
					 "bidirectional control U+%04lX in the text: it "
					 "would show the text in another order than it is written",
					 cp);
		q += n;
	}
	return 0;
}

static int
is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
lex_string(struct lexer *lx, const char *eol)
{
	const char *start = lx->p, *q = lx->p + 1;
	struct hd_buf b;
	struct hd_tok *t;

	hd_buf_init(&b);
	for (;;) {
		if (q >= eol || (*q == '\r' && q + 1 == eol)) {
			hd_buf_free(&b);
			return lex_error(lx, start,
					 "unterminated string: no closing '\"' "
					 "on this line");
		}
		if (*q == '"')
			break;
		if (*q == '\\') {
			char c = q + 1 < eol ? q[1] : '\0';
			if (c == '"' || c == '\\')
				hd_buf_putc(&b, c);
			else if (c == 'n')
				hd_buf_putc(&b, '\n');
			else {
				hd_buf_free(&b);
				return lex_error(lx, q,
						 "unknown escape in a string: "
						 "expected \\\", \\\\ or \\n");
			}
			q += 2;
			continue;
		}
		hd_buf_putc(&b, *q++);
	}
	q++;
	t = push(lx, HD_TOK_STRING, start, (size_t)(q - start));
	t->str = hd_buf_take(&b);
	if (t->str == NULL)
		t->str = hd_xstrdup("");
	hd_buf_free(&b);
	lx->p = q;
	return 0;
}

static int
unit_char(const char *q, const char *eol)
{
	if (q >= eol)
		return 0;
	if (is_alpha((unsigned char)*q) && *q != '_')
		return 1;
	/* U+00B5 MICRO SIGN and U+03BC GREEK SMALL LETTER MU */
	if (q + 1 < eol &&
	    (((unsigned char)q[0] == 0xc2 && (unsigned char)q[1] == 0xb5) ||
	     ((unsigned char)q[0] == 0xce && (unsigned char)q[1] == 0xbc)))
		return 2;
	return 0;
}

static int
lex_number(struct lexer *lx, const char *eol)
{
	const char *start = lx->p, *q = lx->p, *u, *uend;
	char num[80];
	double v, factor;
	enum hd_dim dim;
	struct hd_tok *t;
	int n;

	while (q < eol && is_digit((unsigned char)*q))
		q++;
	if (q + 1 < eol && *q == '.' && is_digit((unsigned char)q[1])) {
		q++;
		while (q < eol && is_digit((unsigned char)*q))
			q++;
	}
	if (q < eol && (*q == 'e' || *q == 'E')) {
		const char *x = q + 1;
		if (x < eol && (*x == '+' || *x == '-'))
			x++;
		if (x < eol && is_digit((unsigned char)*x)) {
			q = x;
			while (q < eol && is_digit((unsigned char)*q))
				q++;
		}
	}
	if ((size_t)(q - start) >= sizeof num)
		return lex_error(lx, start, "number is too long (%zu characters)",
				 (size_t)(q - start));
	memcpy(num, start, (size_t)(q - start));
	num[q - start] = '\0';
	v = strtod(num, NULL);

	/* The unit: letters (and a micro sign), optionally "/" letters; or "%". */
	u = uend = q;
	if (uend < eol && *uend == '%') {
		uend++;
	} else {
		while ((n = unit_char(uend, eol)) > 0)
			uend += n;
		if (uend > u && uend < eol && *uend == '/' && unit_char(uend + 1, eol)) {
			const char *x = uend + 1;
			while ((n = unit_char(x, eol)) > 0)
				x += n;
			if (hd_unit_lookup(u, (size_t)(x - u), &dim, &factor))
				uend = x;
		}
	}
	if (!hd_unit_lookup(u, (size_t)(uend - u), &dim, &factor))
		return lex_error(lx, u,
				 "unknown unit '%.*s' in '%.*s': expected a size "
				 "(B KB MB GB TB KiB MiB GiB TiB), a time (ps ns us ms s), work "
				 "(FLOP ... PFLOP), a rate (GB/s, TFLOP/s ...) or %%",
				 (int)(uend - u), u, (int)(uend - start), start);
	v *= factor;
	if (!(v <= 1e300))
		return lex_error(lx, start, "number '%.*s' is too large", (int)(uend - start),
				 start);
	t = push(lx, HD_TOK_NUMBER, start, (size_t)(uend - start));
	t->num = v;
	t->dim = dim;
	lx->p = uend;
	return 0;
}

static int
lex_line(struct lexer *lx, const char *eol)
{
	const char *q;
	size_t k;

	/* A page line: '|' first on the line, the rest verbatim. */
	for (q = lx->p; q < eol && (*q == ' ' || *q == '\t'); q++)
		;
	if (q < eol && *q == '|') {
		const char *s = q + 1, *e = eol;
		struct hd_tok *t;

		if (s < e && *s == ' ')
			s++;
		if (e > s && e[-1] == '\r')
			e--;
		t = push(lx, HD_TOK_TEXT, q, (size_t)(eol - q));
		t->str = hd_xstrndup(s, (size_t)(e - s));
		lx->p = eol;
		return 0;
	}
	while (lx->p < eol) {
		unsigned char c = (unsigned char)*lx->p;

		if (c == ' ' || c == '\t' || c == '\r') {
			lx->p++;
			continue;
		}
		if (c == '#')
			break;
		if (c == '"') {
			if (lex_string(lx, eol) < 0)
				return -1;
			continue;
		}
		if (is_digit(c) ||
		    (c == '.' && lx->p + 1 < eol && is_digit((unsigned char)lx->p[1]))) {
			if (lex_number(lx, eol) < 0)
				return -1;
			continue;
		}
		if (is_alpha(c)) {
			q = lx->p + 1;
			for (;;) {
				if (q < eol &&
				    (is_alpha((unsigned char)*q) || is_digit((unsigned char)*q)))
					q++;
				else if (q + 1 < eol && *q == '-' && is_alpha((unsigned char)q[1]))
					q++;
				else
					break;
			}
			if (q - lx->p > 64)
				return lex_error(lx, lx->p, "name is longer than 64 characters");
			push(lx, HD_TOK_NAME, lx->p, (size_t)(q - lx->p));
			lx->p = q;
			continue;
		}
		for (k = 0; k < HD_ARRAY_LEN(punct_order); k++) {
			const char *ps = punct_str[punct_order[k]];
			size_t pl = strlen(ps);
			if ((size_t)(eol - lx->p) >= pl && memcmp(lx->p, ps, pl) == 0) {
				struct hd_tok *t = push(lx, HD_TOK_PUNCT, lx->p, pl);
				t->punct = punct_order[k];
				lx->p += pl;
				break;
			}
		}
		if (k < HD_ARRAY_LEN(punct_order))
			continue;
		{
			size_t n = utf8_seq((const unsigned char *)lx->p, (size_t)(eol - lx->p));
			return lex_error(lx, lx->p, "unexpected character '%.*s'", (int)(n ? n : 1),
					 lx->p);
		}
	}
	return 0;
}

int
hd_lex(const struct hd_src *src, struct hd_toks *toks, struct hd_err *e)
{
	struct lexer lx;

	memset(&lx, 0, sizeof lx);
	memset(toks, 0, sizeof *toks);
	lx.src = src;
	lx.toks = toks;
	lx.e = e;
	lx.p = src->text;
	lx.end = src->text + src->len;
	lx.line = 1;
	if (src->len > HD_LEX_MAX_FILE) {
		hd_src_error(src, e, 1, 1, "file is %zu bytes long; the limit is %u bytes",
			     src->len, HD_LEX_MAX_FILE);
		goto fail;
	}
	while (lx.p < lx.end) {
		const char *eol = memchr(lx.p, '\n', (size_t)(lx.end - lx.p));

		if (eol == NULL)
			eol = lx.end;
		lx.line_start = lx.p;
		lx.line_has_tokens = 0;
		if (check_line(&lx, eol) < 0 || lex_line(&lx, eol) < 0)
			goto fail;
		if (lx.line_has_tokens)
			push(&lx, HD_TOK_NL, eol, 0);
		lx.p = eol < lx.end ? eol + 1 : eol;
		if (eol < lx.end)
			lx.line++;
	}
	lx.line_start = lx.p;
	push(&lx, HD_TOK_EOF, lx.p, 0);
	return 0;
fail:
	hd_toks_free(toks);
	return -1;
}
