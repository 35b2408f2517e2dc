/*
 * rank_exec.c - one rank: NCCL set-up, the ops only ranks have, and the
 * watcher that turns a hung or failed communicator into an ending (rank_exec.h).
 *
 * Sizes follow nccl-tests (ir.h): an op's `bytes` is the buffer each rank
 * passes; all-gather's is the whole gathered buffer and reduce-scatter's the
 * whole input, each rank owning bytes / nranks of it, done in place.  NCCL
 * has no gather or all-to-all: they are grouped sends and receives, as
 * nccl-tests does them; all-to-all receives into a scratch buffer of the
 * same size.  Peer copies write into the other rank's buffer through CUDA
 * IPC handles exchanged once, before the first repeat.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "real/cudaerr.h"
#include "real/fault.h"
#include "real/rank_exec.h"
#include "real/rt.h"

struct rank {
	const struct hd_rank_boot *b;
	const struct hd_scenario *sc;
	ncclComm_t comm;
	void **peer;   /* [nranks * nbuffers] other ranks' buffers, mapped */
	void *scratch; /* all-to-all's receive buffer */
	pthread_t watcher;
	volatile int stop_watch;
	int watching;
};

static volatile sig_atomic_t term_seen, comm_live;

static void
on_term(int sig)
{
	(void)sig;
	term_seen = 1;
	if (!comm_live) /* nothing to abort yet: go now */
		_exit(143);
}

void
hd_rank_catch_term(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
}

static int
nccl_ok(ncclComm_t comm, ncclResult_t rc, const char *call, struct hd_err *e)
{
	const char *last;

	if (rc == ncclSuccess)
		return 0;
	last = ncclGetLastError(comm);
	hd_err_set(e, HD_EXIT_FAIL, "", "%s failed: %s%s%s", call, ncclGetErrorString(rc),
		   last && *last ? ": " : "", last ? last : "");
	return -1;
}

/* Check an NCCL call; tests can make it fail through fault.h's hook. */
#define NCK(comm, call, name, e) \
	nccl_ok((comm), HD_FAULT_CALL(#call, (call), ncclSystemError), (name), (e))

static int
cuda_ok(cudaError_t rc, const char *call, struct hd_err *e)
{
	if (rc == cudaSuccess)
		return 0;
	return hd_cuda_fail(e, "", call, 0, rc);
}

/* Poll the communicator; end the process on an asynchronous error or SIGTERM. */
static void *
watch(void *arg)
{
	struct rank *rk = arg;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	while (!rk->stop_watch) {
		ncclResult_t st = ncclSuccess;

		if (term_seen) {
			ncclCommAbort(rk->comm);
			_exit(143);
		}
		if (ncclCommGetAsyncError(rk->comm, &st) == ncclSuccess && st != ncclSuccess &&
		    st != ncclInProgress) {
			char *msg = hd_xasprintf("rank %d: NCCL reported an asynchronous error "
						 "(ncclCommGetAsyncError): %s",
						 rk->b->rank, ncclGetErrorString(st));

			rk->b->fail(rk->b->ctx, msg);
			free(msg);
			ncclCommAbort(rk->comm);
			_exit(1);
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* ---- the rank's side of hd_rt_comm ------------------------------------------- */

static int
issue(void *ctx, const struct hd_op *op, int peer, void *src, void *dst, cudaStream_t s,
      struct hd_err *e)
{
	struct rank *rk = ctx;
	int n = rk->b->nranks, me = rk->b->rank, p;
	char *buf = src != NULL ? src : dst;
	ncclDataType_t dt = op->bytes % 4 == 0 ? ncclFloat : ncclInt8;
	size_t es = dt == ncclFloat ? 4 : 1, count = op->bytes / es, chunk = count / (size_t)n;
	size_t cb = chunk * es;
	ncclComm_t c = rk->comm;

	switch (op->kind) {
	case HD_OP_SEND:
		return NCK(c, ncclSend(src, count, dt, peer, c, s), "ncclSend", e);
	case HD_OP_RECV:
		return NCK(c, ncclRecv(dst, count, dt, peer, c, s), "ncclRecv", e);
	case HD_OP_COLL:
		break;
	case HD_OP_ALLOC:
	case HD_OP_FREE:
	case HD_OP_PIN:
	case HD_OP_COPY:
	case HD_OP_KERNEL:
	case HD_OP_PREFETCH:
	case HD_OP_RECORD:
	case HD_OP_WAIT:
	case HD_OP_EVENT_SYNC:
	case HD_OP_EVENT_QUERY:
	case HD_OP_STREAM_SYNC:
	case HD_OP_DEVICE_SYNC:
	case HD_OP_HOST:
	case HD_OP_READ:
	case HD_OP_REPEAT:
	case HD_OP_ON_RANK:
	case HD_OP_BARRIER:
	case HD_OP_WORKERS:
	case HD_OP_PUT:
	case HD_OP_GET:
	case HD_OP_GRAPH:
	case HD_OP_LAUNCH:
	case HD_OP__COUNT:
		hd_err_set(e, HD_EXIT_FAIL, "", "op at line %d (%s) is not an NCCL call", op->line,
			   hd_op_kind_name(op->kind));
		return -1;
	}
	switch (op->coll) {
	case HD_COLL_ALLREDUCE:
		return NCK(c, ncclAllReduce(buf, buf, count, dt, ncclSum, c, s), "ncclAllReduce",
			   e);
	case HD_COLL_BROADCAST:
		return NCK(c, ncclBroadcast(buf, buf, count, dt, op->root, c, s), "ncclBroadcast",
			   e);
	case HD_COLL_REDUCE:
		return NCK(c, ncclReduce(buf, buf, count, dt, ncclSum, op->root, c, s),
			   "ncclReduce", e);
	case HD_COLL_ALLGATHER:
		return NCK(c, ncclAllGather(buf + (size_t)me * cb, buf, chunk, dt, c, s),
			   "ncclAllGather", e);
	case HD_COLL_REDUCESCATTER:
		return NCK(c,
			   ncclReduceScatter(buf, buf + (size_t)me * cb, chunk, dt, ncclSum, c, s),
			   "ncclReduceScatter", e);
	case HD_COLL_GATHER:
		if (NCK(c, ncclGroupStart(), "ncclGroupStart", e) != 0)
			return -1;
		for (p = 0; p < n; p++) {
			if (me == op->root && p != me &&
			    NCK(c, ncclRecv(buf + (size_t)p * cb, chunk, dt, p, c, s),
				"ncclRecv (gather)", e) != 0)
				break;
			if (me != op->root && p == op->root &&
			    NCK(c, ncclSend(buf + (size_t)me * cb, chunk, dt, p, c, s),
				"ncclSend (gather)", e) != 0)
				break;
		}
		if (p < n) {
			ncclGroupEnd();
			return -1;
		}
		return NCK(c, ncclGroupEnd(), "ncclGroupEnd (gather)", e);
	case HD_COLL_ALLTOALL:
		if (NCK(c, ncclGroupStart(), "ncclGroupStart", e) != 0)
			return -1;
		for (p = 0; p < n; p++)
			if (NCK(c, ncclSend(buf + (size_t)p * cb, chunk, dt, p, c, s),
				"ncclSend (all-to-all)", e) != 0 ||
			    NCK(c,
				ncclRecv((char *)rk->scratch + (size_t)p * cb, chunk, dt, p, c, s),
				"ncclRecv (all-to-all)", e) != 0)
				break;
		if (p < n) {
			ncclGroupEnd();
			return -1;
		}
		return NCK(c, ncclGroupEnd(), "ncclGroupEnd (all-to-all)", e);
	case HD_COLL__COUNT:
		break;
	}
	hd_err_set(e, HD_EXIT_FAIL, "", "op at line %d: unknown collective", op->line);
	return -1;
}

static int
barrier(void *ctx, int64_t *release_ns, struct hd_err *e)
{
	struct rank *rk = ctx;
	struct hd_wbuf all = { 0 };
	int64_t ignore;
	int rc;

	/* ranks that spin on shared memory leave it within a microsecond or
	 * two of each other; a round trip through sockets wakes them tens of
	 * microseconds apart, which a short scenario would measure */
	if (rk->b->host_barrier != NULL)
		return rk->b->host_barrier(rk->b->ctx, release_ns, e);
	rc = rk->b->allgather(rk->b->ctx, NULL, 0, &all, release_ns ? release_ns : &ignore, e);

	hd_wbuf_free(&all);
	return rc;
}

static int
origin(void *ctx, int64_t t0, int64_t *out, struct hd_err *e)
{
	struct rank *rk = ctx;
	struct hd_wbuf all = { 0 };
	struct hd_rbuf r;
	int64_t ignore;
	int p;

	*out = t0;
	if (rk->b->allgather(rk->b->ctx, &t0, sizeof t0, &all, &ignore, e) != 0)
		return -1;
	r = (struct hd_rbuf){ .p = all.p, .len = all.len };
	for (p = 0; p < rk->b->nranks && rk->b->shared_clock; p++) {
		int64_t t;

		if (hd_rbuf_u32(&r) != sizeof t)
			break;
		hd_rbuf_bytes(&r, &t, sizeof t);
		if (!r.bad && t < *out)
			*out = t;
	}
	hd_wbuf_free(&all);
	return 0;
}

static void *
peer_ptr(void *ctx, int peer, int buf)
{
	struct rank *rk = ctx;

	return rk->peer[(size_t)peer * (size_t)rk->sc->nbuffers + (size_t)buf];
}

/* Exchange IPC handles of every peer-copy destination; size the scratch. */
static int
share(void *ctx, const struct hd_scenario *sc, void *const *ptrs, struct hd_err *e)
{
	struct rank *rk = ctx;
	struct hd_wbuf mine = { 0 }, all = { 0 };
	struct hd_rbuf r;
	uint64_t a2a = 0;
	int i, p, ncopies = 0, rc = -1;
	int64_t ignore;

	rk->peer = hd_xcalloc((size_t)rk->b->nranks * (size_t)sc->nbuffers + 1, sizeof *rk->peer);
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		if (op->kind == HD_OP_COLL && op->coll == HD_COLL_ALLTOALL && op->bytes > a2a)
			a2a = op->bytes;
		if (op->kind == HD_OP_COPY && op->copy == HD_COPY_P2P)
			ncopies++;
	}
	if (a2a > 0 && cuda_ok(cudaMalloc(&rk->scratch, a2a), "cudaMalloc (all-to-all)", e) != 0)
		return -1;
	if (ncopies == 0) /* the same on every rank: the IR is */
		return 0;
	for (i = 0; i < sc->nbuffers; i++) {
		cudaIpcMemHandle_t h;

		if (ptrs[i] == NULL)
			continue;
		if (cuda_ok(cudaIpcGetMemHandle(&h, ptrs[i]), "cudaIpcGetMemHandle", e) != 0)
			goto out;
		hd_wbuf_u32(&mine, (uint32_t)i);
		hd_wbuf_bytes(&mine, &h, sizeof h);
	}
	if (rk->b->allgather(rk->b->ctx, mine.p, mine.len, &all, &ignore, e) != 0)
		goto out;
	r = (struct hd_rbuf){ .p = all.p, .len = all.len };
	for (p = 0; p < rk->b->nranks; p++) {
		size_t end = hd_rbuf_u32(&r);

		end += r.off;
		while (!r.bad && r.off < end) {
			uint32_t b = hd_rbuf_u32(&r);
			cudaIpcMemHandle_t h;
			void *q = NULL;

			hd_rbuf_bytes(&r, &h, sizeof h);
			if (r.bad || b >= (uint32_t)sc->nbuffers)
				break;
			if (p != rk->b->rank &&
			    cuda_ok(cudaIpcOpenMemHandle(&q, h, cudaIpcMemLazyEnablePeerAccess),
				    "cudaIpcOpenMemHandle", e) != 0)
				goto out;
			rk->peer[(size_t)p * (size_t)sc->nbuffers + b] = q;
		}
	}
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		if (op->kind == HD_OP_COPY && op->copy == HD_COPY_P2P &&
		    peer_ptr(rk, hd_op_peer(sc, op, rk->b->rank), op->dst) == NULL &&
		    hd_op_peer(sc, op, rk->b->rank) != rk->b->rank) {
			hd_err_set(e, HD_EXIT_FAIL, "",
				   "line %d: the peer copy's destination '%s' "
				   "must be a declared device buffer (not one the scenario "
				   "allocates itself)",
				   op->line, sc->buffers[op->dst].name);
			goto out;
		}
	}
	rc = 0;
out:
	hd_wbuf_free(&mine);
	hd_wbuf_free(&all);
	return rc;
}

static void
drop_peers(struct rank *rk)
{
	size_t i, n = (size_t)rk->b->nranks * (size_t)rk->sc->nbuffers;

	for (i = 0; rk->peer != NULL && i < n; i++)
		if (rk->peer[i] != NULL)
			cudaIpcCloseMemHandle(rk->peer[i]);
	free(rk->peer);
	cudaFree(rk->scratch);
}

/* ---- the rank ------------------------------------------------------------------ */

int
hd_rank_execute(const struct hd_scenario *sc, const struct hd_run_opts *o,
		const struct hd_rank_boot *b, struct hd_trace *out, struct hd_err *e)
{
	struct rank rk;
	struct hd_rt_comm comm;
	struct hd_wbuf all = { 0 };
	struct hd_sink sink = hd_trace_sink(out);
	ncclUniqueId id;
	struct hd_rbuf r;
	int64_t ignore;
	int rc = -1;

	memset(&rk, 0, sizeof rk);
	memset(&id, 0, sizeof id);
	rk.b = b;
	rk.sc = sc;
	b->phase(b->ctx, "setting up (cudaSetDevice, ncclGetUniqueId)");
	if (cuda_ok(cudaSetDevice(b->device), "cudaSetDevice", e) != 0)
		return -1;
	if (b->rank == 0 && NCK(NULL, ncclGetUniqueId(&id), "ncclGetUniqueId", e) != 0)
		return -1;
	if (b->allgather(b->ctx, &id, b->rank == 0 ? sizeof id : 0, &all, &ignore, e) != 0)
		return -1;
	r = (struct hd_rbuf){ .p = all.p, .len = all.len };
	if (hd_rbuf_u32(&r) != sizeof id) {
		hd_wbuf_free(&all);
		hd_err_set(e, HD_EXIT_FAIL, "", "rank 0 sent no NCCL unique id");
		return -1;
	}
	hd_rbuf_bytes(&r, &id, sizeof id);
	hd_wbuf_free(&all);
	b->phase(b->ctx, "joining the communicator (ncclCommInitRank)");
	comm_live = 1;
	if (NCK(NULL, ncclCommInitRank(&rk.comm, b->nranks, id, b->rank), "ncclCommInitRank", e) !=
	    0) {
		comm_live = 0;
		return -1;
	}
	rk.watching = pthread_create(&rk.watcher, NULL, watch, &rk) == 0;
	b->phase(b->ctx, "measuring");
	memset(&comm, 0, sizeof comm);
	comm.ctx = &rk;
	comm.rank = b->rank;
	comm.nranks = b->nranks;
	comm.device = b->device;
	comm.issue = issue;
	comm.barrier = barrier;
	comm.origin = origin;
	comm.share = share;
	comm.peer_ptr = peer_ptr;
	rc = hd_rt_run(sc, o, &comm, &sink, e);
	rk.stop_watch = 1;
	if (rk.watching)
		pthread_join(rk.watcher, NULL);
	drop_peers(&rk);
	if (rc != 0) {
		ncclCommAbort(rk.comm);
	} else if (NCK(rk.comm, ncclCommFinalize(rk.comm), "ncclCommFinalize", e) != 0) {
		ncclCommAbort(rk.comm);
		rc = -1;
	} else {
		ncclCommDestroy(rk.comm);
	}
	comm_live = 0;
	return rc;
}
