/*
 * ranks_stub.c - rank scenarios in builds without NCCL (ranks.h).
 *
 * Scenarios of one rank fit; every scenario of several ranks is skipped by
 * `hdsim --real` with this reason, and running one says the same.
 */
#include <stdio.h>

#include "real/ranks.h"

static const char no_nccl[] = "this build has no NCCL (install it and run ./configure --with-nccl)";

int
hd_ranks_fits(const struct hd_scenario *sc, char *why, size_t n)
{
	if (sc->nranks <= 1)
		return 1;
	snprintf(why, n, "needs NCCL for its %d ranks; %s", sc->nranks, no_nccl);
	return 0;
}

int
hd_ranks_run(const struct hd_scenario *sc, const struct hd_run_opts *o, const struct hd_sink *sink,
	     struct hd_err *e)
{
	(void)o;
	(void)sink;
	hd_err_set(e, HD_EXIT_FAIL, "", "scenario '%s' needs NCCL for its %d ranks; %s", sc->name,
		   sc->nranks, no_nccl);
	return -1;
}

int
hd_ranks_worker_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "hdsim: rank workers need NCCL; %s\n", no_nccl);
	return HD_EXIT_FAIL;
}
