/*
 * cmd_version.c - --version: hdsim's version and what this build can run
 * on (CUDA, NCCL, MPI, or the model alone).
 */
#include "config.h"

#include <stdio.h>

#include "cli/cmd.h"
#include "real/real.h"

void
hd_cmd_version_print(FILE *f)
{
	fprintf(f, "hdsim %s\n%s\n", PACKAGE_VERSION, hd_real_build_info());
}
