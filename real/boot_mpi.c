/*
 * boot_mpi.c - ranks across nodes: `mpirun -np N hdsim --real LESSON`
 * (builds configured --with-mpi and with NCCL; ranks.h).
 *
 * Every MPI process starts hdsim, but only world rank 0 reads the lessons,
 * measures, prints and stores.  The others wait in hd_ranks_mpi_start for
 * work: for each scenario of several ranks rank 0 broadcasts the serialised
 * IR (wire.h), ranks 0 .. nranks-1 run it (rank_exec.h) on their node's GPU
 * number `local rank`, and rank 0 gathers their traces.  An empty broadcast
 * tells them to finish.  NCCL's unique id and the barriers travel by
 * MPI_Allgather; each rank's spans count from its own start of each repeat,
 * since nodes do not share a clock.  A rank that fails prints its message and
 * calls MPI_Abort, which ends every process; a watchdog thread does the same
 * when a rank makes no progress for HDSIM_RANK_TIMEOUT seconds.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

#include "real/rank_exec.h"
#include "real/ranks.h"

static int world_rank, world_size, local_rank, active;

struct mpi_boot {
	MPI_Comm comm;         /* the scenario's ranks */
	volatile int64_t last; /* CLOCK_MONOTONIC of the last progress */
	volatile int done;
	char phase[128];
	pthread_t dog;
};

static void
mpi_fail(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "hdsim: %s; ending all MPI ranks\n", msg);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, HD_EXIT_FAIL);
}

static void
mpi_phase(void *ctx, const char *what)
{
	struct mpi_boot *mb = ctx;

	snprintf(mb->phase, sizeof mb->phase, "%s", what);
	mb->last = hd_wire_now_ns();
}

static int
mpi_allgather(void *ctx, const void *p, size_t n, struct hd_wbuf *all, int64_t *release_ns,
	      struct hd_err *e)
{
	struct mpi_boot *mb = ctx;
	int size, i, mine = (int)n, *lens, *offs, total = 0;
	unsigned char *buf;

	MPI_Comm_size(mb->comm, &size);
	lens = hd_xcalloc((size_t)size, sizeof *lens);
	offs = hd_xcalloc((size_t)size, sizeof *offs);
	if (MPI_Allgather(&mine, 1, MPI_INT, lens, 1, MPI_INT, mb->comm) != MPI_SUCCESS) {
		free(lens);
		free(offs);
		hd_err_set(e, HD_EXIT_FAIL, "", "MPI_Allgather failed");
		return -1;
	}
	for (i = 0; i < size; i++) {
		offs[i] = total;
		total += lens[i];
	}
	buf = hd_xmalloc((size_t)total + 1);
	if (MPI_Allgatherv(p, mine, MPI_BYTE, buf, lens, offs, MPI_BYTE, mb->comm) != MPI_SUCCESS) {
		free(lens);
		free(offs);
		free(buf);
		hd_err_set(e, HD_EXIT_FAIL, "", "MPI_Allgatherv failed");
		return -1;
	}
	*release_ns = hd_wire_now_ns();
	mb->last = *release_ns;
	for (i = 0; i < size; i++) {
		hd_wbuf_u32(all, (uint32_t)lens[i]);
		hd_wbuf_bytes(all, buf + offs[i], (size_t)lens[i]);
	}
	free(lens);
	free(offs);
	free(buf);
	return 0;
}

static int64_t
timeout_ns(void)
{
	const char *s = getenv("HDSIM_RANK_TIMEOUT");
	double v = s != NULL ? strtod(s, NULL) : 0;

	return (int64_t)((v > 0 ? v : HD_RANKS_TIMEOUT_S) * 1e9);
}

/* The watchdog: no progress for the timeout ends every rank. */
static void *
watchdog(void *arg)
{
	struct mpi_boot *mb = arg;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int64_t tmo = timeout_ns();

	while (!mb->done) {
		if (hd_wire_now_ns() - mb->last > tmo) {
			char msg[256];

			snprintf(msg, sizeof msg, "rank %d made no progress for %.0f s while %s",
				 world_rank, (double)tmo / 1e9, mb->phase);
			mpi_fail(mb, msg);
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Run one scenario as this process's rank; its trace appended to tw. */
static void
run_rank(const unsigned char *p, size_t n, MPI_Comm comm, struct hd_wbuf *tw)
{
	struct hd_rbuf r = { .p = p, .len = n };
	struct hd_run_opts ro;
	struct hd_rank_boot b;
	struct mpi_boot mb;
	struct hd_scenario *sc;
	struct hd_trace *t = hd_trace_new();
	struct hd_err e = { 0 };
	int devices = 1;

	memset(&ro, 0, sizeof ro);
	ro.warmup = (int)hd_rbuf_u32(&r);
	ro.repeats = (int)hd_rbuf_u32(&r);
	if ((sc = hd_wire_get_scenario(&r, &e)) == NULL)
		mpi_fail(NULL, e.msg);
	memset(&mb, 0, sizeof mb);
	mb.comm = comm;
	mb.last = hd_wire_now_ns();
	snprintf(mb.phase, sizeof mb.phase, "starting");
	pthread_create(&mb.dog, NULL, watchdog, &mb);
	cudaGetDeviceCount(&devices);
	memset(&b, 0, sizeof b);
	b.ctx = &mb;
	b.rank = world_rank;
	b.nranks = sc->nranks;
	b.device = devices > 0 ? local_rank % devices : 0;
	b.allgather = mpi_allgather;
	b.phase = mpi_phase;
	b.fail = mpi_fail;
	if (hd_rank_execute(sc, &ro, &b, t, &e) != 0) {
		char *msg = hd_xasprintf("rank %d: %s", world_rank, e.msg);

		mpi_fail(NULL, msg);
		free(msg);
	}
	mb.done = 1;
	pthread_join(mb.dog, NULL);
	hd_wire_put_trace(tw, t);
	hd_trace_free(t);
	hd_scenario_free(sc);
}

/* Broadcast a job (empty: finish), run it on ranks below its rank count and
 * gather their traces at rank 0 (into *all, lengths in lens[]). */
static void
job(unsigned char *p, uint64_t n, int nranks, unsigned char **all, int **lens)
{
	struct hd_wbuf tw = { 0 };
	MPI_Comm comm;
	int mine, size, i, *offs = NULL, total = 0;

	MPI_Comm_split(MPI_COMM_WORLD, world_rank < nranks ? 0 : MPI_UNDEFINED, world_rank, &comm);
	if (comm == MPI_COMM_NULL)
		return;
	run_rank(p, (size_t)n, comm, &tw);
	MPI_Comm_size(comm, &size);
	mine = (int)tw.len;
	if (world_rank == 0) {
		*lens = hd_xcalloc((size_t)size, sizeof **lens);
		offs = hd_xcalloc((size_t)size, sizeof *offs);
	}
	MPI_Gather(&mine, 1, MPI_INT, world_rank == 0 ? *lens : NULL, 1, MPI_INT, 0, comm);
	if (world_rank == 0) {
		for (i = 0; i < size; i++) {
			offs[i] = total;
			total += (*lens)[i];
		}
		*all = hd_xmalloc((size_t)total + 1);
	}
	MPI_Gatherv(tw.p, mine, MPI_BYTE, world_rank == 0 ? *all : NULL,
		    world_rank == 0 ? *lens : NULL, offs, MPI_BYTE, 0, comm);
	free(offs);
	hd_wbuf_free(&tw);
	MPI_Comm_free(&comm);
}

/* Whether mpirun (Open MPI, MPICH, PMIx, Slurm's PMI) started this process. */
static int
under_mpirun(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
					    "MPI_LOCALNRANKS" };
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(vars); i++)
		if (getenv(vars[i]) != NULL)
			return 1;
	return 0;
}

int
hd_ranks_mpi_start(int *argc, char ***argv, int *status)
{
	MPI_Comm node;
	int provided;

	if (!under_mpirun())
		return 0;
	MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &world_size);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &local_rank);
	MPI_Comm_free(&node);
	active = 1;
	if (world_rank == 0)
		return 0;
	hd_rank_catch_term();
	for (;;) {
		uint64_t n = 0;
		unsigned char *p;
		int nranks = 0;

		MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
		if (n == 0)
			break;
		p = hd_xmalloc((size_t)n);
		MPI_Bcast(p, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
		MPI_Bcast(&nranks, 1, MPI_INT, 0, MPI_COMM_WORLD);
		job(p, n, nranks, NULL, NULL);
		free(p);
	}
	MPI_Finalize();
	*status = 0;
	return 1;
}

int
hd_ranks_mpi_size(void)
{
	return active ? world_size : 0;
}

int
hd_ranks_mpi_run(const struct hd_scenario *sc, const struct hd_run_opts *o,
		 const struct hd_sink *sink, struct hd_err *e)
{
	struct hd_wbuf msg = { 0 };
	unsigned char *all = NULL;
	int *lens = NULL, nranks = sc->nranks, r, rc = 0;
	uint64_t n;
	size_t off = 0;

	hd_wbuf_u32(&msg, (uint32_t)(o && o->warmup > 0 ? o->warmup : 1));
	hd_wbuf_u32(&msg, (uint32_t)(o && o->repeats > 0 ? o->repeats : 5));
	hd_wire_put_scenario(&msg, sc);
	n = msg.len;
	MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	MPI_Bcast(msg.p, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
	MPI_Bcast(&nranks, 1, MPI_INT, 0, MPI_COMM_WORLD);
	job(msg.p, n, nranks, &all, &lens);
	for (r = 0; r < nranks && rc == 0; r++) {
		struct hd_rbuf rb = { .p = all + off, .len = (size_t)lens[r] };

		rc = hd_wire_get_trace(&rb, sink, e);
		off += (size_t)lens[r];
	}
	free(all);
	free(lens);
	hd_wbuf_free(&msg);
	return rc;
}

void
hd_ranks_mpi_end(void)
{
	uint64_t n = 0;

	if (!active)
		return;
	if (world_rank == 0)
		MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	active = 0;
}
