/*
 * cmd.h - the commands that live in files of their own (cli/cmd_*.c), each
 * called by the command table with the parsed command line.  Each returns
 * the exit status, its messages written to err.
 */
#ifndef HD_CMD_H
#define HD_CMD_H

#include <stdio.h>

#include "cli/cli.h"
#include "lang/catalog.h"
#include "profile/profile.h"

/* `hdsim export ...`: everything the command does. */
int hd_cmd_export(const struct hd_cli_opts *o, char **args, int nargs,
		  struct hd_catalog *cat, const struct hd_profile *p, FILE *out, FILE *err);

#endif
