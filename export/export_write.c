/*
 * export_write.c - buffered output and escaping for the export formats
 * (export_write.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
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

void
hd_exw_i64(struct hd_exw *w, int64_t v)
{
	hd_json_i64(&w->b, v);
}

void
hd_exw_us(struct hd_exw *w, hd_time ps)
{
	int64_t ns = ps >= 0 ? ps / 1000 : -((-ps + 999) / 1000);
	uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(u % 1000);
	char tail[4] = { '.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10),
			 (char)('0' + frac % 10) };

	if (ns < 0)
		hd_exw_putc(w, '-');
	hd_json_i64(&w->b, (int64_t)(u / 1000));
	hd_buf_putn(&w->b, tail, sizeof tail);
}

void
hd_exw_num(struct hd_exw *w, double v)
{
	hd_json_num(&w->b, v);
}

void
hd_exw_json(struct hd_exw *w, const char *s)
{
	hd_json_str(&w->b, s);
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
		} else if ((n = hd_json_utf8_len(p)) > 0) {
			hd_buf_putn(&w->b, (const char *)p, (size_t)n);
			p += n;
		} else {
			hd_exw_puts(w, HD_JSON_REPLACEMENT);
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

void
hd_exw_csv_text(struct hd_exw *w, const char *s)
{
	char *clean;

	if (s == NULL || hd_san_term_ok(s, true)) {
		hd_exw_csv(w, s);
		return;
	}
	clean = hd_san_term_dup(s, true);
	hd_exw_csv(w, clean);
	free(clean);
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
