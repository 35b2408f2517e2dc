/*
 * cmd_help.c - `hdsim help [COMMAND]` and --help: the commands and options
 * from their tables, or one command's usage and the options it takes.
 */
#include <stdio.h>

#include "cli/cmd.h"

/* One option's help line; the short spelling too when `short_too`. */
static void
put_opt(FILE *f, const struct hd_cli_opt *p, bool short_too)
{
	char lhs[48];
	char sh[8] = "";

	if (short_too && p->short_name != 0)
		snprintf(sh, sizeof sh, "-%c, ", p->short_name);
	snprintf(lhs, sizeof lhs, "%s%s%s%s", sh, p->name, p->arg_name ? " " : "",
		 p->arg_name ? p->arg_name : "");
	fprintf(f, "  %-24s %s\n", lhs, p->help);
}

void
hd_cmd_help_print(FILE *f)
{
	size_t ncmds, nopts, i;
	const struct hd_cmd_entry *cmds = hd_cli_commands(&ncmds);
	const struct hd_cli_opt *opts = hd_cli_opt_table(&nopts);

	fprintf(f,
		"usage: hdsim [COMMAND] [ARGS] [OPTIONS]\n"
		"\n"
		"hdsim teaches how a CPU host and NVIDIA GPUs work together: it runs lesson\n"
		"scenarios on a model of host threads, PCIe links, copy engines and streams,\n"
		"and draws what happens.  Without a command it opens the lesson browser on a\n"
		"terminal, or lists the lessons and shows the first lesson's timeline.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < ncmds; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nOptions:\n");
	for (i = 0; i < nopts; i++)
		put_opt(f, &opts[i], true);
	fprintf(f,
		"\n"
		"LESSON is a lesson id (pinned-vs-pageable), a number or unique prefix\n"
		"(1, 01, pinned), or a path to a .hds file.\n"
		"\n"
		"Examples:\n"
		"  hdsim run 1\n"
		"  hdsim run two-streams --set pairs=8 --profile a100-pcie\n"
		"  hdsim run 1 --json > run.json\n"
		"\n"
		"Exit status: 0 ok; 1 a run failed or a claim does not hold; 2 bad input.\n"
		"See hdsim(1) for more.\n");
}

void
hd_cmd_help_print_cmd(FILE *f, const struct hd_cmd_entry *c)
{
	size_t nopts, i;
	const struct hd_cli_opt *opts = hd_cli_opt_table(&nopts);

	fprintf(f, "usage: hdsim %s\n\n%s.\n", c->usage, c->summary);
	fprintf(f, "\nOptions:\n");
	for (i = 0; i < nopts; i++)
		if (opts[i].bit != 0 && ((c->opts | HD_CMD_OPTS_ALL) & opts[i].bit) != 0)
			put_opt(f, &opts[i], false);
}

int
hd_cmd_help(struct hd_cmd_ctx *x)
{
	const struct hd_cmd_entry *c;

	if (x->nargs == 0) {
		hd_cmd_help_print(x->out);
		return 0;
	}
	if ((c = hd_cli_find_command(x->args[0])) == NULL) {
		fprintf(x->err, "hdsim: no command '%s'; see 'hdsim --help'\n", x->args[0]);
		return HD_EXIT_INPUT;
	}
	hd_cmd_help_print_cmd(x->out, c);
	return 0;
}
