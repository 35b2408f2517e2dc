/*
 * json.c - the one JSON writer (json.h): escaping and number formatting.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/utf8.h"

int
hd_json_utf8_len(const unsigned char *s)
{
	unsigned long cp;

	/* a NUL-terminated string: at most its rest can be read */
	return (int)hd_utf8_seq(s, strnlen((const char *)s, 4), &cp);
}

/* The short escapes; other control characters are written as \u00XX. */
static const char *const short_escapes[0x80] = {
	['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
};

void
hd_json_str(struct hd_buf *b, const char *s)
{
	const unsigned char *p, *run;
	int n;

	if (s == NULL) {
		hd_buf_puts(b, "null");
		return;
	}
	hd_buf_putc(b, '"');
	for (p = run = (const unsigned char *)s; *p != '\0';) {
		if (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') {
			p++;
			continue;
		}
		/* copy the plain run before p, then p's character its own way */
		hd_buf_putn(b, (const char *)run, (size_t)(p - run));
		if (*p < 0x80) {
			if (short_escapes[*p] != NULL)
				hd_buf_puts(b, short_escapes[*p]);
			else
				hd_buf_printf(b, "\\u%04x", *p);
			p++;
		} else if ((n = hd_json_utf8_len(p)) > 0) {
			hd_buf_putn(b, (const char *)p, (size_t)n);
			p += n;
		} else {
			hd_buf_puts(b, HD_JSON_REPLACEMENT);
			p++;
		}
		run = p;
	}
	hd_buf_putn(b, (const char *)run, (size_t)(p - run));
	hd_buf_putc(b, '"');
}

void
hd_json_i64(struct hd_buf *b, int64_t v)
{
	char buf[24], *p = buf + sizeof buf;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		*--p = '-';
	hd_buf_putn(b, p, (size_t)(buf + sizeof buf - p));
}

void
hd_json_num(struct hd_buf *b, double v)
{
	char tmp[40];
	int prec;

	if (!isfinite(v)) {
		hd_buf_puts(b, "null");
		return;
	}
	if (v == floor(v) && fabs(v) < 9e15) {
		hd_json_i64(b, (int64_t)v);
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	snprintf(tmp, sizeof tmp, "%.*g", prec, v);
	hd_buf_puts(b, tmp);
}

void
hd_json_key(struct hd_buf *b, const char *k)
{
	hd_json_str(b, k);
	hd_buf_putc(b, ':');
}

void
hd_json_kstr(struct hd_buf *b, const char *k, const char *v)
{
	hd_json_key(b, k);
	hd_json_str(b, v);
}
