/*
 * ranks.h - scenarios of several ranks on real GPUs: one process per rank.
 *
 * On one node the coordinator (the `hdsim --real` process) starts one worker
 * per rank by fork and exec of its own binary with the hidden first argument
 * HD_RANKS_WORKER_ARG; each worker takes GPU `rank`, joins one NCCL
 * communicator and runs the scenario's IR with the CUDA executor (rt.h).  A
 * watchdog ends every rank when one dies, reports an error or stops making
 * progress.  Builds without NCCL link ranks_stub.c, which says rank
 * scenarios need NCCL.
 */
#ifndef HD_RANKS_H
#define HD_RANKS_H

#include "ir/backend.h"

#define HD_RANKS_WORKER_ARG "__rank-worker"

/* The seconds without progress after which a rank run is ended, unless
 * HDSIM_RANK_TIMEOUT says otherwise. */
#define HD_RANKS_TIMEOUT_S 60

/* hd_backend_ops.fits for the real backend: 1 for one rank; for several, 1
 * when this build has NCCL and the machine has a GPU per rank, else 0 with
 * `why` saying which. */
int hd_ranks_fits(const struct hd_scenario *sc, char *why, size_t n);

/*
 * Run a scenario of several ranks: start the workers, pass them the
 * scenario and the NCCL unique id, serve their barriers, collect every
 * rank's spans into sink (lanes carry their rank).  A rank that dies, fails
 * a CUDA or NCCL call, or makes no progress for the timeout ends all ranks;
 * then -1 with e naming the rank and the call, and nothing is written to
 * sink.  Sets NCCL_NVLS_ENABLE=0 for the workers unless it is set.
 */
int hd_ranks_run(const struct hd_scenario *sc, const struct hd_run_opts *o,
		 const struct hd_sink *sink, struct hd_err *e);

/* The worker's main(): `hdsim __rank-worker RANK NRANKS FD`.  Returns the
 * process's exit status. */
int hd_ranks_worker_main(int argc, char **argv);

/*
 * Across nodes (boot_mpi.c, builds configured --with-mpi and with NCCL;
 * boot_nompi.c otherwise).  Under mpirun, hd_ranks_mpi_start calls MPI_Init:
 * world rank 0 returns 0 and goes on as hdsim; every other rank serves rank
 * scenarios sent by rank 0 until hd_ranks_mpi_end, then returns 1 with
 * *status to exit with.  Outside mpirun, or without MPI, it returns 0 and
 * does nothing.  hd_ranks_mpi_size is the world size under mpirun, else 0;
 * hd_ranks_run uses hd_ranks_mpi_run then.  hd_ranks_mpi_end is called once,
 * as hdsim exits.
 */
int hd_ranks_mpi_start(int *argc, char ***argv, int *status);
int hd_ranks_mpi_size(void);
int hd_ranks_mpi_run(const struct hd_scenario *sc, const struct hd_run_opts *o,
		     const struct hd_sink *sink, struct hd_err *e);
void hd_ranks_mpi_end(void);

#endif
