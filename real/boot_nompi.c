/*
 * boot_nompi.c - ranks across nodes in builds without MPI (ranks.h): hdsim
 * never runs under mpirun as one of several MPI ranks, so every rank
 * scenario runs on one node (ranks.c) or not at all (ranks_stub.c).
 */
#include "real/ranks.h"

int
hd_ranks_mpi_start(int *argc, char ***argv, int *status)
{
	(void)argc;
	(void)argv;
	(void)status;
	return 0;
}

int
hd_ranks_mpi_size(void)
{
	return 0;
}

int
hd_ranks_mpi_run(const struct hd_scenario *sc, const struct hd_run_opts *o,
		 const struct hd_sink *sink, struct hd_err *e)
{
	(void)o;
	(void)sink;
	hd_err_set(e, HD_EXIT_FAIL, "",
		   "scenario '%s' needs ranks across nodes, and this build "
		   "has no MPI (install it and run ./configure --with-mpi)",
		   sc->name);
	return -1;
}

void
hd_ranks_mpi_end(void)
{
}
