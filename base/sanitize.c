/*
 * sanitize.c - untrusted text made safe for each sink (sanitize.h).
 *
 * One decoder walks the text as UTF-8 and classifies each code point; each
 * sink says what it does with each class.
 */
#include <string.h>

#include "base/sanitize.h"
#include "base/utf8.h"

/* What a code point (or a stray byte) is, as far as a sink cares. */
enum cls {
	C_TEXT,    /* printable: passes everywhere */
	C_NL,      /* '\n' */
	C_TAB,     /* '\t' */
	C_CR,      /* '\r' */
	C_CTRL,    /* the other C0 controls and DEL */
	C_C1,      /* U+0080 - U+009F */
	C_BIDI,    /* directional marks, embeddings, overrides, isolates */
	C_LINESEP, /* U+2028, U+2029 */
	C_BAD,     /* a byte that is not part of valid UTF-8 */
};

/* The code point at s (NUL-terminated): its length in bytes, its value in
 * *cp, its class in *c; a byte that starts no valid sequence is one byte of
 * C_BAD. */
static size_t
next(const unsigned char *s, unsigned long *cp, enum cls *c)
{
	size_t n = hd_utf8_seq(s, strnlen((const char *)s, 4), cp);

	if (n == 0) {
		*cp = s[0];
		*c = C_BAD;
		return 1;
	}
	if (n == 1)
		*c = s[0] == '\n'               ? C_NL :
		    s[0] == '\t'                ? C_TAB :
		    s[0] == '\r'                ? C_CR :
		    s[0] < 0x20 || s[0] == 0x7f ? C_CTRL :
						  C_TEXT;
	else if (HD_UTF8_C1(*cp))
		*c = C_C1;
	else if (HD_UTF8_BIDI(*cp))
		*c = C_BIDI;
	else if (*cp == 0x2028 || *cp == 0x2029)
		*c = C_LINESEP;
	else
		*c = C_TEXT;
	return n;
}

/* Would the terminal sink escape a code point of class c? */
static bool
term_escapes(enum cls c, bool multiline)
{
	switch (c) {
	case C_TEXT:
	case C_TAB:
		return false;
	case C_NL:
		return !multiline;
	case C_CR:
	case C_CTRL:
	case C_C1:
	case C_BIDI:
	case C_LINESEP:
	case C_BAD:
		return true;
	}
	return true;
}

void
hd_san_term(struct hd_buf *out, const char *s, bool multiline)
{
	const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");

	while (*p != '\0') {
		unsigned long cp;
		enum cls c;
		size_t n = next(p, &cp, &c);

		if (!term_escapes(c, multiline))
			hd_buf_putn(out, (const char *)p, n);
		else if (cp < 0x100 && (c == C_BAD || cp < 0x80))
			hd_buf_printf(out, "\\x%02lx", cp);
		else
			hd_buf_printf(out, "\\u%04lx", cp);
		p += n;
	}
}

char *
hd_san_term_dup(const char *s, bool multiline)
{
	struct hd_buf b;

	hd_buf_init(&b);
	hd_san_term(&b, s, multiline);
	return hd_buf_take(&b);
}

bool
hd_san_term_ok(const char *s, bool multiline)
{
	const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");

	while (*p != '\0') {
		unsigned long cp;
		enum cls c;

		p += next(p, &cp, &c);
		if (term_escapes(c, multiline))
			return false;
	}
	return true;
}

bool
hd_san_csv_needs_quote(const char *s)
{
	return s != NULL && s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
}

void
hd_san_csv_lead(struct hd_buf *out, const char *s)
{
	if (hd_san_csv_needs_quote(s))
		hd_buf_putc(out, '\'');
	hd_buf_puts(out, s != NULL ? s : "");
}

/* One line of comment text: every class but text becomes a space; `star`
 * breaks "*" + "/" (C) as it is written. */
static void
one_line(struct hd_buf *out, const char *s, bool star)
{
	const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");

	while (*p != '\0') {
		unsigned long cp;
		enum cls c;
		size_t n = next(p, &cp, &c);

		if (c != C_TEXT && c != C_BIDI)
			hd_buf_putc(out, ' ');
		else if (c == C_BIDI)
			hd_buf_printf(out, "\\u%04lx", cp);
		else {
			hd_buf_putn(out, (const char *)p, n);
			if (star && p[0] == '*' && p[1] == '/')
				hd_buf_putc(out, ' ');
		}
		p += n;
	}
}

void
hd_san_c_comment(struct hd_buf *out, const char *s)
{
	one_line(out, s, true);
}

void
hd_san_py_comment(struct hd_buf *out, const char *s)
{
	one_line(out, s, false);
}
