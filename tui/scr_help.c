/*
 * scr_help.c - the help overlay (app_priv.h): the keys of the screen under
 * it, from the same tables that dispatch them (the screen's own, then
 * those of every screen); any key closes it.
 */
#include "config.h"

#include "tui/app_priv.h"

static void
draw(struct hd_tui_app *a, int w, int h)
{
	const struct hd_tui_keys tables[] = { hd_tui_screen(a)->keys, hd_tui_keys_all };
	int n = 0, y, top;
	size_t t, i;
	struct hd_rect box;

	for (t = 0; t < HD_ARRAY_LEN(tables); t++)
		for (i = 0; i < tables[t].n; i++)
			n += tables[t].k[i].help != NULL;
	/* a blank row under the title where every key still fits */
	top = n + 4 <= h ? 2 : 1;
	box.w = w < 64 ? w : 64;
	box.h = n + 2 + top < h ? n + 2 + top : h;
	box.x = (w - box.w) / 2;
	box.y = (h - box.h) / 2;
	hd_screen_fill(a->scr, box, " ", hd_tui_style(HD_ROLE_TEXT, 0));
	hd_screen_box(a->scr, box, " Keys (any key closes) ",
		      hd_tui_style(HD_ROLE_BORDER, HD_ATTR_BOLD));
	y = box.y + top;
	for (t = 0; t < HD_ARRAY_LEN(tables); t++)
		for (i = 0; i < tables[t].n && y < box.y + box.h - 1; i++) {
			const struct hd_tui_key *k = &tables[t].k[i];
			if (k->help == NULL)
				continue;
			hd_screen_puts(a->scr, &box, box.x + 2, y, k->name,
				       hd_tui_style(HD_ROLE_LANE, HD_ATTR_BOLD));
			hd_screen_puts(a->scr, &box, box.x + 22, y++, k->help,
				       hd_tui_style(HD_ROLE_TEXT, 0));
		}
}

static bool
close_key(struct hd_tui_app *a, int k)
{
	(void)k;
	a->help = false;
	return true;
}

const struct hd_tui_scr_ops hd_tui_scr_help = {
	.draw = draw,
	.text = close_key,
};
