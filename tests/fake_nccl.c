/*
 * fake_nccl.c - a stand-in NCCL for testing the rank runner without GPUs.
 *
 * Communication takes time on the stream (fake_cuda_queue) and moves no
 * data.  The unique id is tied to the coordinator, so a rank that was not
 * given rank 0's id fails ncclCommInitRank.  The rank workers are separate
 * processes, so the knobs are environment variables, read by every rank:
 *   FAKE_NCCL_DIE=R         rank R kills itself (SIGKILL) in its first call
 *   FAKE_NCCL_HANG=R        rank R's first call never returns
 *   FAKE_NCCL_ASYNC=R       rank R's first call never returns, and
 *                           ncclCommGetAsyncError reports ncclRemoteError
 *   FAKE_NCCL_FAIL=R:CALL   every CALL (e.g. ncclAllReduce) on rank R fails
 *   FAKE_NCCL_EXPECT_NVLS=V ncclCommInitRank fails unless NCCL_NVLS_ENABLE=V
 *   FAKE_NCCL_EXPECT_FREE=1 ncclCommInitRank fails if the rank may run on one
 *                           CPU only while the machine has more
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "tests/fake_cuda.h"

#define FAKE_LINK 100e9 /* bytes per second on every link */

struct ncclComm {
	int rank, nranks;
	volatile int async; /* an asynchronous error is pending */
};

static int
knob_rank(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v ? atoi(v) : -1;
}

static int first_done;

/* What every communication call does first: the knobs, then queue time. */
static ncclResult_t
call(ncclComm_t c, const char *name, size_t bytes, double factor, cudaStream_t s)
{
	const char *fail = getenv("FAKE_NCCL_FAIL");
	struct timespec ts = { 0, 1000 * 1000 };
	char want[64];

	if (c == NULL)
		return ncclInvalidArgument;
	snprintf(want, sizeof want, "%d:%s", c->rank, name);
	if (fail != NULL && strcmp(fail, want) == 0)
		return ncclUnhandledCudaError;
	if (!first_done) {
		first_done = 1;
		if (knob_rank("FAKE_NCCL_DIE") == c->rank)
			raise(SIGKILL);
		if (knob_rank("FAKE_NCCL_ASYNC") == c->rank)
			c->async = 1;
		if (knob_rank("FAKE_NCCL_HANG") == c->rank || c->async)
			for (;;)
				nanosleep(&ts, NULL);
	}
	fake_cuda_queue(s, 5e-6 + factor * (double)bytes / FAKE_LINK);
	return ncclSuccess;
}

static size_t
type_size(ncclDataType_t t)
{
	return t == ncclFloat || t == ncclInt32 || t == ncclUint32 ? 4 :
	    t == ncclDouble || t == ncclInt64 || t == ncclUint64   ? 8 :
	    t == ncclHalf || t == ncclBfloat16                     ? 2 :
								     1;
}

static void
expected_id(ncclUniqueId *id)
{
	memset(id, 0, sizeof *id);
	snprintf(id->internal, sizeof id->internal, "fake-nccl-id coordinator=%ld",
		 (long)getppid());
}

ncclResult_t
ncclGetUniqueId(ncclUniqueId *id)
{
	expected_id(id);
	return ncclSuccess;
}

ncclResult_t
ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
	const char *nvls = getenv("FAKE_NCCL_EXPECT_NVLS"), *have = getenv("NCCL_NVLS_ENABLE");
	ncclUniqueId want;

	expected_id(&want);
	if (memcmp(&want, &id, sizeof id) != 0 || rank < 0 || rank >= nranks)
		return ncclInvalidArgument;
	if (nvls != NULL && (have == NULL || strcmp(nvls, have) != 0))
		return ncclInvalidUsage;
	if (getenv("FAKE_NCCL_EXPECT_FREE") != NULL) {
		cpu_set_t cpus;

		if (sched_getaffinity(0, sizeof cpus, &cpus) != 0 ||
		    (CPU_COUNT(&cpus) == 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1))
			return ncclInvalidUsage;
	}
	*comm = calloc(1, sizeof **comm);
	(*comm)->rank = rank;
	(*comm)->nranks = nranks;
	return ncclSuccess;
}

ncclResult_t
ncclCommFinalize(ncclComm_t comm)
{
	return comm != NULL ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t
ncclCommDestroy(ncclComm_t comm)
{
	free(comm);
	return ncclSuccess;
}

ncclResult_t
ncclCommAbort(ncclComm_t comm)
{
	free(comm);
	return ncclSuccess;
}

ncclResult_t
ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *st)
{
	*st = comm != NULL && comm->async ? ncclRemoteError : ncclSuccess;
	return ncclSuccess;
}

const char *
ncclGetErrorString(ncclResult_t rc)
{
	return rc == ncclSuccess  ? "no error" :
	    rc == ncclRemoteError ? "remote process exited "
				    "or there was a network error" :
				    "fake failure";
}

const char *
ncclGetLastError(ncclComm_t comm)
{
	(void)comm;
	return "";
}

/* nccl.h declares these without a prototype */
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

ncclResult_t
ncclGroupStart(void)
{
	return ncclSuccess;
}

ncclResult_t
ncclGroupEnd(void)
{
	return ncclSuccess;
}

ncclResult_t
ncclSend(const void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t s)
{
	(void)buf;
	if (c != NULL && (peer < 0 || peer >= c->nranks))
		return ncclInvalidArgument;
	return call(c, "ncclSend", count * type_size(t), 1, s);
}

ncclResult_t
ncclRecv(void *buf, size_t count, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t s)
{
	(void)buf;
	if (c != NULL && (peer < 0 || peer >= c->nranks))
		return ncclInvalidArgument;
	return call(c, "ncclRecv", count * type_size(t), 1, s);
}

ncclResult_t
ncclAllReduce(const void *a, void *b, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
	      cudaStream_t s)
{
	(void)a;
	(void)b;
	(void)op;
	return call(c, "ncclAllReduce", count * type_size(t),
		    c ? 2.0 * (c->nranks - 1) / c->nranks : 1, s);
}

ncclResult_t
ncclBroadcast(const void *a, void *b, size_t count, ncclDataType_t t, int root, ncclComm_t c,
	      cudaStream_t s)
{
	(void)a;
	(void)b;
	if (c != NULL && (root < 0 || root >= c->nranks))
		return ncclInvalidArgument;
	return call(c, "ncclBroadcast", count * type_size(t), 1, s);
}

ncclResult_t
ncclReduce(const void *a, void *b, size_t count, ncclDataType_t t, ncclRedOp_t op, int root,
	   ncclComm_t c, cudaStream_t s)
{
	(void)a;
	(void)b;
	(void)op;
	if (c != NULL && (root < 0 || root >= c->nranks))
		return ncclInvalidArgument;
	return call(c, "ncclReduce", count * type_size(t), 1, s);
}

ncclResult_t
ncclAllGather(const void *a, void *b, size_t count, ncclDataType_t t, ncclComm_t c, cudaStream_t s)
{
	(void)a;
	(void)b;
	return call(c, "ncclAllGather", count * type_size(t) * (c ? (size_t)c->nranks : 1),
		    c ? (double)(c->nranks - 1) / c->nranks : 1, s);
}

ncclResult_t
ncclReduceScatter(const void *a, void *b, size_t count, ncclDataType_t t, ncclRedOp_t op,
		  ncclComm_t c, cudaStream_t s)
{
	(void)a;
	(void)b;
	(void)op;
	return call(c, "ncclReduceScatter", count * type_size(t) * (c ? (size_t)c->nranks : 1),
		    c ? (double)(c->nranks - 1) / c->nranks : 1, s);
}
