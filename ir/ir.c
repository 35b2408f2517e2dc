/*
 * ir.c - names, derived facts and memory management for the scenario IR.
 *
 * Names live in const tables indexed by the enums; an op kind's names are
 * its row of the op facts (opfacts.c).
 */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ir/ir.h"
#include "ir/opfacts.h"

static const char *const mem_names[HD_MEM__COUNT] = {
	[HD_MEM_PAGEABLE] = "pageable",
	[HD_MEM_PINNED] = "pinned",
	[HD_MEM_MANAGED] = "managed",
	[HD_MEM_DEVICE] = "device",
};

static const char *const kernel_names[HD_KERNEL__COUNT] = {
	[HD_KERNEL_SPIN] = "spin", [HD_KERNEL_COMPUTE] = "compute", [HD_KERNEL_MEMORY] = "memory",
	[HD_KERNEL_FILL] = "fill", [HD_KERNEL_REDUCE] = "reduce",
};

static const struct {
	const char *name;
	const char *api;
	bool rooted; /* takes a root rank */
} coll_names[HD_COLL__COUNT] = {
	[HD_COLL_ALLREDUCE] = { "allreduce", "ncclAllReduce", false },
	[HD_COLL_BROADCAST] = { "broadcast", "ncclBroadcast", true },
	[HD_COLL_REDUCE] = { "reduce", "ncclReduce", true },
	[HD_COLL_ALLGATHER] = { "allgather", "ncclAllGather", false },
	[HD_COLL_REDUCESCATTER] = { "reducescatter", "ncclReduceScatter", false },
	/* NCCL has no gather or all-to-all call: they are grouped sends and receives. */
	[HD_COLL_GATHER] = { "gather", "ncclSend/ncclRecv", true },
	[HD_COLL_ALLTOALL] = { "alltoall", "ncclSend/ncclRecv", false },
};

static const char *const copy_kind_names[HD_COPY__COUNT] = {
	[HD_COPY_H2D] = "HtoD", [HD_COPY_D2H] = "DtoH", [HD_COPY_D2D] = "DtoD",
	[HD_COPY_H2H] = "HtoH", [HD_COPY_P2P] = "PtoP",
};

/* Allocation and release calls by memory kind. */
static const struct {
	const char *alloc, *free;
} mem_api[HD_MEM__COUNT] = {
	[HD_MEM_PAGEABLE] = { "malloc", "free" },
	[HD_MEM_PINNED] = { "cudaMallocHost", "cudaFreeHost" },
	[HD_MEM_MANAGED] = { "cudaMallocManaged", "cudaFree" },
	[HD_MEM_DEVICE] = { "cudaMalloc", "cudaFree" },
};

const char *
hd_mem_name(enum hd_mem m)
{
	return (unsigned)m < HD_MEM__COUNT ? mem_names[m] : "?";
}

const char *
hd_op_kind_name(enum hd_op_kind k)
{
	return (unsigned)k < HD_OP__COUNT ? hd_op_facts[k].name : "?";
}

const char *
hd_kernel_name(enum hd_kernel_kind k)
{
	return (unsigned)k < HD_KERNEL__COUNT ? kernel_names[k] : "?";
}

const char *
hd_coll_name(enum hd_coll c)
{
	return (unsigned)c < HD_COLL__COUNT ? coll_names[c].name : "?";
}

bool
hd_coll_rooted_ok(enum hd_coll c)
{
	return (unsigned)c < HD_COLL__COUNT && coll_names[c].rooted;
}

/*
 * nccl-tests' bus bandwidth factors (doc/PERFORMANCE.md there): busBw =
 * algBw * factor, so that busBw compares with the hardware's link rate
 * whatever the collective and the rank count.  Gather and all-to-all have
 * the (n-1)/n of the all-gather: each rank's share crosses one link once.
 */
double
hd_coll_bus_factor(enum hd_coll c, int nranks)
{
	double n = nranks > 0 ? (double)nranks : 1.0;

	switch (c) {
	case HD_COLL_ALLREDUCE:
		return 2.0 * (n - 1.0) / n;
	case HD_COLL_BROADCAST:
	case HD_COLL_REDUCE:
		return 1.0;
	case HD_COLL_ALLGATHER:
	case HD_COLL_REDUCESCATTER:
	case HD_COLL_GATHER:
	case HD_COLL_ALLTOALL:
		return (n - 1.0) / n;
	case HD_COLL__COUNT:
		break;
	}
	return 1.0;
}

const char *
hd_copy_kind_name(enum hd_copy_kind c)
{
	return (unsigned)c < HD_COPY__COUNT ? copy_kind_names[c] : "?";
}

const char *
hd_op_api_name(const struct hd_op *op)
{
	if ((unsigned)op->kind >= HD_OP__COUNT)
		return "?";
	if (op->in_graph && op->kind == HD_OP_KERNEL)
		return "kernel node"; /* cudaGraphNodeTypeKernel, run by cudaGraphLaunch */
	if (op->in_graph && op->kind == HD_OP_COPY)
		return "memcpy node"; /* cudaGraphNodeTypeMemcpy */
	if (op->kind == HD_OP_COPY) {
		if (op->worker) /* a host thread's copy between host buffers */
			return "memcpy";
		if (op->copy == HD_COPY_P2P)
			return op->async ? "cudaMemcpyPeerAsync" : "cudaMemcpyPeer";
		return op->async ? "cudaMemcpyAsync" : "cudaMemcpy";
	}
	if (op->kind == HD_OP_COLL && (unsigned)op->coll < HD_COLL__COUNT)
		return coll_names[op->coll].api;
	return hd_op_facts[op->kind].api;
}

const char *
hd_op_api_name_sc(const struct hd_scenario *sc, const struct hd_op *op)
{
	if ((op->kind == HD_OP_ALLOC || op->kind == HD_OP_FREE) && sc != NULL && op->dst >= 0 &&
	    op->dst < sc->nbuffers) {
		enum hd_mem m = sc->buffers[op->dst].mem;
		if ((unsigned)m < HD_MEM__COUNT)
			return op->kind == HD_OP_ALLOC ? mem_api[m].alloc : mem_api[m].free;
	}
	return hd_op_api_name(op);
}

int
hd_op_peer(const struct hd_scenario *sc, const struct hd_op *op, int rank)
{
	if (op->peer == HD_NONE || !op->peer_rel || sc->nranks <= 0)
		return op->peer;
	return (rank + op->peer) % sc->nranks;
}

enum hd_copy_kind
hd_copy_kind_of(enum hd_mem src, enum hd_mem dst, bool peer)
{
	/* Managed memory starts resident on the host, so it counts as host. */
	bool sdev = src == HD_MEM_DEVICE, ddev = dst == HD_MEM_DEVICE;

	if (peer)
		return HD_COPY_P2P;
	if (sdev && ddev)
		return HD_COPY_D2D;
	if (sdev)
		return HD_COPY_D2H;
	if (ddev)
		return HD_COPY_H2D;
	return HD_COPY_H2H;
}

/* Executions of ops [from, to) on `rank`, loops multiplied out, saturating. */
static uint64_t
count_range(const struct hd_op *ops, int from, int to, int rank)
{
	uint64_t n = 0, k;
	int i;

	for (i = from; i < to; i++) {
		const struct hd_op *op = &ops[i];
		int end = i + 1 + (op->body_len > 0 ? op->body_len : 0);

		if (end > to)
			end = to;
		n = n == UINT64_MAX ? n : n + 1;
		if (op->kind == HD_OP_REPEAT || op->kind == HD_OP_WORKERS) {
			/* a loop runs its body `count` times; workers, one each */
			k = count_range(ops, i + 1, end, rank);
			if (op->count != 0 && k > UINT64_MAX / op->count)
				k = UINT64_MAX;
			else
				k *= op->count;
			n = n + k < n ? UINT64_MAX : n + k;
			i = end - 1;
		} else if (op->kind == HD_OP_ON_RANK) {
			if (op->rank == rank) {
				k = count_range(ops, i + 1, end, rank);
				n = n + k < n ? UINT64_MAX : n + k;
			}
			i = end - 1;
		} else if (op->kind == HD_OP_GRAPH) {
			i = end - 1; /* its body runs at its launches */
		} else if (op->kind == HD_OP_LAUNCH && op->graph >= 0) {
			k = ops[op->graph].count;
			n = n + k < n ? UINT64_MAX : n + k;
		}
	}
	return n;
}

uint64_t
hd_scenario_op_instances(const struct hd_scenario *sc, int rank)
{
	if (sc == NULL)
		return 0;
	return count_range(sc->ops, 0, sc->nops, rank);
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? hd_xstrdup(s) : NULL;
}

struct hd_scenario *
hd_scenario_clone(const struct hd_scenario *sc)
{
	struct hd_scenario *c;
	int i;

	if (sc == NULL)
		return NULL;
	c = hd_xmalloc(sizeof *c);
	*c = *sc;
	c->name = dup_or_null(sc->name);
	c->title = dup_or_null(sc->title);
	c->buffers = hd_xcalloc((size_t)sc->nbuffers + 1, sizeof *c->buffers);
	for (i = 0; i < sc->nbuffers; i++) {
		c->buffers[i] = sc->buffers[i];
		c->buffers[i].name = dup_or_null(sc->buffers[i].name);
	}
	c->streams = hd_xcalloc((size_t)sc->nstreams + 1, sizeof *c->streams);
	for (i = 0; i < sc->nstreams; i++) {
		c->streams[i] = sc->streams[i];
		c->streams[i].name = dup_or_null(sc->streams[i].name);
	}
	c->events = hd_xcalloc((size_t)sc->nevents + 1, sizeof *c->events);
	for (i = 0; i < sc->nevents; i++) {
		c->events[i] = sc->events[i];
		c->events[i].name = dup_or_null(sc->events[i].name);
	}
	c->queues = hd_xcalloc((size_t)sc->nqueues + 1, sizeof *c->queues);
	for (i = 0; i < sc->nqueues; i++) {
		c->queues[i] = sc->queues[i];
		c->queues[i].name = dup_or_null(sc->queues[i].name);
	}
	c->ops = hd_xcalloc((size_t)sc->nops + 1, sizeof *c->ops);
	for (i = 0; i < sc->nops; i++) {
		c->ops[i] = sc->ops[i];
		c->ops[i].label = dup_or_null(sc->ops[i].label);
		c->ops[i].text = dup_or_null(sc->ops[i].text);
		c->ops[i].index_name = dup_or_null(sc->ops[i].index_name);
	}
	c->cblocks = hd_xcalloc((size_t)sc->ncblocks + 1, sizeof *c->cblocks);
	for (i = 0; i < sc->ncblocks; i++) {
		c->cblocks[i] = sc->cblocks[i];
		c->cblocks[i].text = dup_or_null(sc->cblocks[i].text);
		c->cblocks[i].cx = hd_xcalloc((size_t)sc->cblocks[i].ncx + 1, sizeof(struct hd_cx));
		if (sc->cblocks[i].ncx > 0)
			memcpy(c->cblocks[i].cx, sc->cblocks[i].cx,
			       (size_t)sc->cblocks[i].ncx * sizeof(struct hd_cx));
	}
	return c;
}

void
hd_scenario_free(struct hd_scenario *sc)
{
	int i;

	if (sc == NULL)
		return;
	for (i = 0; i < sc->nbuffers; i++)
		free(sc->buffers[i].name);
	for (i = 0; i < sc->nstreams; i++)
		free(sc->streams[i].name);
	for (i = 0; i < sc->nevents; i++)
		free(sc->events[i].name);
	for (i = 0; i < sc->nops; i++) {
		free(sc->ops[i].label);
		free(sc->ops[i].text);
		free(sc->ops[i].index_name);
	}
	for (i = 0; i < sc->ncblocks; i++) {
		free(sc->cblocks[i].text);
		free(sc->cblocks[i].cx);
	}
	free(sc->cblocks);
	for (i = 0; i < sc->nqueues; i++)
		free(sc->queues[i].name);
	free(sc->queues);
	free(sc->buffers);
	free(sc->streams);
	free(sc->events);
	free(sc->ops);
	free(sc->name);
	free(sc->title);
	free(sc);
}
