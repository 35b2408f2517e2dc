/*
 * wrap.c - text wrapped to a width in the browser's render buffer
 * (app_priv.h): lesson pages, questions, hints and explanations.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "render/timeline.h"
#include "tui/app_priv.h"

int
hd_tui_wrap_draw(struct hd_tui_app *a, int x, int y, int w, int ymax, const char *first,
		 const char *text, struct hd_style st)
{
	struct hd_buf b;
	char *line, *save = NULL, *src = hd_xstrdup(text ? text : ""), *p, *nl;
	int indent = hd_utf8_width(first);

	/* Each source line is wrapped on its own; blank lines stay. */
	for (p = src; p != NULL; p = nl) {
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		hd_buf_init(&b);
		hd_timeline_wrap(&b, p == src ? first : "", p, w, p == src ? indent : 0);
		for (line = strtok_r(b.s, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save))
			if (y < ymax)
				hd_screen_puts(a->scr, NULL, x, y++, line, st);
		if (b.s == NULL || b.s[0] == '\n' || b.s[0] == '\0')
			y++;
		hd_buf_free(&b);
	}
	free(src);
	return y;
}

int
hd_tui_wrap_lines(const char *text, int w)
{
	struct hd_buf b;
	char *src = hd_xstrdup(text ? text : ""), *p, *nl;
	int n = 0;
	size_t i;

	for (p = src; p != NULL; p = nl) {
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		hd_buf_init(&b);
		hd_timeline_wrap(&b, "", p, w, 0);
		for (i = 0; i < b.len; i++)
			n += b.s[i] == '\n';
		hd_buf_free(&b);
	}
	free(src);
	return n;
}
