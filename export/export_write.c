/*
 * export_write.c - buffered output and escaping for the export formats
 * (export_write.h).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sanitize.h"
#include "export/export_write.h"

#define EXW_CHUNK (1u << 20)

void
hd_exw_init(struct hd_exw *w, FILE *f)
{
	memset(w, 0, sizeof *w);
	hd_buf_init(&w->b);
	w->f = f;
	w->term = f != NULL && isatty(fileno(f));
}

int
hd_exw_flush(struct hd_exw *w)
{
	if (w->f == NULL)
		return w->failed ? -1 : 0;
	if (w->term && w->b.len > 0) {
		char *safe = hd_san_term_dup(w->b.s, true);

		if (fputs(safe, w->f) == EOF)
			w->failed = 1;
		free(safe);
	} else if (w->b.len > 0 && fwrite(w->b.s, 1, w->b.len, w->f) != w->b.len)
		w->failed = 1;
	w->b.len = 0;
	if (w->b.s != NULL)
		w->b.s[0] = '\0';
	return w->failed ? -1 : 0;
}

void
hd_exw_tick(struct hd_exw *w)
{
	/* to a terminal, kept whole: a chunk must not split a character */
	if (w->f != NULL && !w->term && w->b.len >= EXW_CHUNK)
		hd_exw_flush(w);
}

void
hd_exw_free(struct hd_exw *w)
{
	hd_buf_free(&w->b);
}

void
hd_exw_puts(struct hd_exw *w, const char *s)
{
	hd_buf_putn(&w->b, s, strlen(s));
}

void
hd_exw_putc(struct hd_exw *w, char c)
{
	hd_buf_putn(&w->b, &c, 1);
}

void
hd_exw_printf(struct hd_exw *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hd_buf_vprintf(&w->b, fmt, ap);
	va_end(ap);
}

/* Digits of v into the end of buf; returns where they start. */
static char *
u64_digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return end;
}

void
hd_exw_i64(struct hd_exw *w, int64_t v)
{
	char buf[24], *p = buf + sizeof buf;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	p = u64_digits(p, u);
	if (v < 0)
		*--p = '-';
	hd_buf_putn(&w->b, p, (size_t)(buf + sizeof buf - p));
}

void
hd_exw_us(struct hd_exw *w, hd_time ps)
{
	char buf[32], *end = buf + sizeof buf, *p;
	int64_t ns = ps >= 0 ? ps / 1000 : -((-ps + 999) / 1000);
	uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(u % 1000);

	p = end;
	*--p = (char)('0' + frac % 10);
	*--p = (char)('0' + frac / 10 % 10);
	*--p = (char)('0' + frac / 100);
	*--p = '.';
	p = u64_digits(p, u / 1000);
	if (ns < 0)
		*--p = '-';
	hd_buf_putn(&w->b, p, (size_t)(end - p));
}

void
hd_exw_num(struct hd_exw *w, double v)
{
	char tmp[40];
	int prec;

	if (!isfinite(v)) {
		hd_exw_puts(w, "null");
		return;
	}
	if (v == floor(v) && fabs(v) < 9e15) {
		hd_exw_i64(w, (int64_t)v);
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	snprintf(tmp, sizeof tmp, "%.*g", prec, v);
	hd_exw_puts(w, tmp);
}

int
hd_exw_utf8_len(const unsigned char *s)
{
	int n, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		c = s[0] & 0x07;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and values past U+10FFFF are not UTF-8 */
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

#define REPLACEMENT "\xef\xbf\xbd"

void
hd_exw_json(struct hd_exw *w, const char *s)
{
	const unsigned char *p, *run;
	int n;

	if (s == NULL) {
		hd_exw_puts(w, "null");
		return;
	}
	hd_exw_putc(w, '"');
	for (p = run = (const unsigned char *)s; *p != '\0';) {
		if (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') {
			p++;
			continue;
		}
		hd_buf_putn(&w->b, (const char *)run, (size_t)(p - run));
		if (*p == '"' || *p == '\\') {
			hd_exw_putc(w, '\\');
			hd_exw_putc(w, (char)*p++);
		} else if (*p == '\n') {
			hd_exw_puts(w, "\\n");
			p++;
		} else if (*p == '\r') {
			hd_exw_puts(w, "\\r");
			p++;
		} else if (*p == '\t') {
			hd_exw_puts(w, "\\t");
			p++;
		} else if (*p < 0x20) {
			hd_exw_printf(w, "\\u%04x", *p++);
		} else if ((n = hd_exw_utf8_len(p)) > 0) {
			hd_buf_putn(&w->b, (const char *)p, (size_t)n);
			p += n;
		} else {
			hd_exw_puts(w, REPLACEMENT);
			p++;
		}
		run = p;
	}
	hd_buf_putn(&w->b, (const char *)run, (size_t)(p - run));
	hd_exw_putc(w, '"');
}

/* Copy s, each invalid UTF-8 byte as U+FFFD; `esc` may write a byte its own
 * way (returns 1) or leave it (returns 0).  Printable ASCII outside `special`
 * is copied in runs, without asking esc. */
static void
put_utf8(struct hd_exw *w, const char *s, const char *special,
	 int (*esc)(struct hd_exw *, unsigned char))
{
	const unsigned char *p = (const unsigned char *)s, *run;
	int n;

	while (*p != '\0') {
		for (run = p; *p >= 0x20 && *p < 0x7f && strchr(special, *p) == NULL; p++)
			;
		if (p > run)
			hd_buf_putn(&w->b, (const char *)run, (size_t)(p - run));
		if (*p == '\0')
			break;
		if (*p < 0x80) {
			if (esc == NULL || !esc(w, *p))
				hd_exw_putc(w, (char)*p);
			p++;
		} else if ((n = hd_exw_utf8_len(p)) > 0) {
			hd_buf_putn(&w->b, (const char *)p, (size_t)n);
			p += n;
		} else {
			hd_exw_puts(w, REPLACEMENT);
			p++;
		}
	}
}

static int
csv_esc(struct hd_exw *w, unsigned char c)
{
	if (c != '"')
		return 0;
	hd_exw_puts(w, "\"\"");
	return 1;
}

void
hd_exw_csv(struct hd_exw *w, const char *s)
{
	struct hd_buf cell;
	size_t len;

	if (s == NULL || s[0] == '\0')
		return;
	/* untrusted text: no leading = + - @ for a spreadsheet to run */
	hd_buf_init(&cell);
	hd_san_csv_lead(&cell, s);
	s = cell.s;
	len = strlen(s);
	if (strpbrk(s, ",\"\r\n") == NULL && s[0] != ' ' && s[len - 1] != ' ') {
		put_utf8(w, s, "", NULL);
	} else {
		hd_exw_putc(w, '"');
		put_utf8(w, s, "\"", csv_esc);
		hd_exw_putc(w, '"');
	}
	hd_buf_free(&cell);
}

static int
xml_esc(struct hd_exw *w, unsigned char c)
{
	switch (c) {
	case '&':
		hd_exw_puts(w, "&amp;");
		return 1;
	case '<':
		hd_exw_puts(w, "&lt;");
		return 1;
	case '>':
		hd_exw_puts(w, "&gt;");
		return 1;
	case '"':
		hd_exw_puts(w, "&quot;");
		return 1;
	case '\'':
		hd_exw_puts(w, "&#39;");
		return 1;
	default:
		/* XML 1.0 allows no control characters but tab, LF and CR */
		return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
	}
}

void
hd_exw_xml(struct hd_exw *w, const char *s)
{
	if (s != NULL)
		put_utf8(w, s, "&<>\"'", xml_esc);
}

static int
md_esc(struct hd_exw *w, unsigned char c)
{
	switch (c) {
	case '|':
	case '\\':
	case '*':
	case '_':
	case '`':
	case '<':
	case '[':
		hd_exw_putc(w, '\\');
		hd_exw_putc(w, (char)c);
		return 1;
	case '\n':
	case '\r':
	case '\t':
		hd_exw_putc(w, ' ');
		return 1;
	default:
		return c < 0x20;
	}
}

void
hd_exw_md(struct hd_exw *w, const char *s)
{
	if (s != NULL)
		put_utf8(w, s, "|\\*_`<[", md_esc);
}
