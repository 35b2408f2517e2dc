/*
 * wrap.c - text in the browser's render buffer (app_priv.h): lesson pages,
 * questions, hints and explanations.  Lines are drawn as written, spaces
 * and all (the lesson format says page lines are verbatim: aligned lists
 * and code keep their columns); only a line longer than the width wraps,
 * at a space, its continuation indented under the line's own indentation.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "tui/app_priv.h"

/* The columns the first n bytes of s take. */
static int
cols(const char *s, size_t n)
{
	char *c = hd_xstrndup(s, n);
	int w = hd_utf8_width(c);

	free(c);
	return w;
}

/* The bytes of s that fit in w columns (at least one character). */
static size_t
fit_bytes(const char *s, int w)
{
	size_t n = 0, len = strlen(s), k;
	unsigned long cp;

	while (n < len) {
		k = hd_utf8_seq((const unsigned char *)s + n, len - n, &cp);
		k = k ? k : 1;
		if (n > 0 && cols(s, n + k) > w)
			break;
		n += k;
	}
	return n;
}

/*
 * One source line, after `first` (NULL: none), as rows of at most w columns
 * into out, each ended by '\n'.  Returns the rows.
 */
static int
wrap_line(struct hd_buf *out, const char *first, const char *line, int w)
{
	const char *rest = line;
	int lead = (int)strspn(line, " "), pre = first ? hd_utf8_width(first) : 0, ind, rows = 0;
	size_t i, cut;

	ind = pre + lead < w / 2 ? pre + lead : w / 2;
	hd_buf_puts(out, first ? first : "");
	for (;;) {
		int room = w - pre;

		if (cols(rest, strlen(rest)) <= room || room <= 0) {
			hd_buf_printf(out, "%s\n", rest);
			return rows + 1;
		}
		/* the last end of a word that fits, past the indentation */
		cut = 0;
		for (i = 1; rest[i] != '\0'; i++)
			if (rest[i] == ' ' && rest[i - 1] != ' ' && i > strspn(rest, " ")) {
				if (cols(rest, i) > room)
					break;
				cut = i;
			}
		if (cut == 0)
			cut = fit_bytes(rest, room);
		hd_buf_putn(out, rest, cut);
		hd_buf_putc(out, '\n');
		rows++;
		rest += cut;
		rest += strspn(rest, " ");
		if (*rest == '\0')
			return rows;
		hd_buf_printf(out, "%*s", ind, "");
		pre = ind;
	}
}

/* text as rows of w columns into out ('\n' after each); returns the rows. */
static int
wrap_text(struct hd_buf *out, const char *first, const char *text, int w)
{
	char *src = hd_xstrdup(text ? text : ""), *p, *nl;
	int n = 0;

	for (p = src; p != NULL; p = nl) {
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		n += wrap_line(out, p == src ? first : NULL, p, w);
	}
	free(src);
	return n;
}

int
hd_tui_wrap_draw(struct hd_tui_app *a, int x, int y, int w, int ymax, const char *first,
		 const char *text, struct hd_style st)
{
	struct hd_buf b;
	char *p, *nl;

	hd_buf_init(&b);
	wrap_text(&b, first, text, w);
	for (p = b.s; p != NULL && *p != '\0'; p = nl) {
		nl = strchr(p, '\n');
		*nl++ = '\0';
		if (y < ymax)
			hd_screen_puts(a->scr, NULL, x, y++, p, st);
	}
	hd_buf_free(&b);
	return y;
}

int
hd_tui_wrap_lines(const char *text, int w)
{
	struct hd_buf b;
	int n;

	hd_buf_init(&b);
	n = wrap_text(&b, NULL, text, w);
	hd_buf_free(&b);
	return n;
}
