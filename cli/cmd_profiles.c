/*
 * cmd_profiles.c - `hdsim profiles [NAME|FILE]`: the hardware profiles, or
 * every figure of one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "render/timeline.h"

int
hd_cmd_profiles(struct hd_cmd_ctx *x)
{
	struct hd_buf b;
	struct hd_err e = { 0 };
	struct hd_profile p;
	char *s;

	hd_buf_init(&b);
	if (x->nargs == 0) {
		hd_profile_list(&b, x->width);
		hd_buf_putc(&b, '\n');
		hd_timeline_wrap(&b, "",
				 "Use one with --profile NAME; 'hdsim profiles NAME' "
				 "shows every figure; doc/profile-format.md describes profile "
				 "files.",
				 x->width, 0);
		hd_cmd_put(x, &b);
		hd_buf_free(&b);
		return 0;
	}
	if (hd_profile_resolve(x->args[0], &p, &e) != 0)
		return hd_cmd_fail(x, &e);
	s = hd_profile_describe(&p);
	fputs(s, x->out);
	free(s);
	return 0;
}
