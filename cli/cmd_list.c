/*
 * cmd_list.c - `hdsim list [DIR|FILE...]`: the lessons of the catalogue,
 * with those in the directories and files named added.
 */
#include "cli/cmd.h"
#include "render/timeline.h"

int
hd_cmd_list(struct hd_cmd_ctx *x)
{
	struct hd_buf b;
	int i, status = 0;

	for (i = 0; i < x->nargs; i++) {
		struct hd_err e = { 0 };
		if (hd_catalog_add_path(x->cat, x->args[i], &e) < 0)
			status = hd_cmd_fail(x, &e);
	}
	hd_buf_init(&b);
	hd_cmd_list_lessons(x, &b);
	hd_buf_putc(&b, '\n');
	hd_timeline_wrap(&b, "",
			 "Run one with 'hdsim run NUMBER' or 'hdsim run ID'; "
			 "'hdsim show ID' shows its text.",
			 x->width, 0);
	hd_cmd_put(x, &b);
	hd_buf_free(&b);
	return status;
}
