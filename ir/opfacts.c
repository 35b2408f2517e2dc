/*
 * opfacts.c - the op facts table (see opfacts.h): one row per kind of op,
 * read by the parser, the model, the real backend and the printers.
 */
#include <stddef.h>

#include "ir/opfacts.h"

#define SRC    HD_OPND_SRC
#define DST    HD_OPND_DST
#define EVENT  HD_OPND_EVENT
#define STREAM HD_OPND_STREAM
#define PEER   HD_OPND_PEER
#define BODY   HD_OPND_BODY
#define QUEUE  HD_OPND_QUEUE
#define GRAPH  HD_OPND_GRAPH

/* word, name, api, class, operands, on a stream, needs ranks, what the stream shows */
const struct hd_op_fact hd_op_facts[HD_OP__COUNT] = {
	[HD_OP_ALLOC] = { "alloc", "alloc", "cudaMalloc", HD_OPC_MEMORY, DST, false, false,
			  HD_SPAN_API },
	[HD_OP_FREE] = { "free", "free", "cudaFree", HD_OPC_MEMORY, DST, false, false,
			 HD_SPAN_API },
	[HD_OP_PIN] = { "pin", "pin", "cudaHostRegister", HD_OPC_MEMORY, DST, false, false,
			HD_SPAN_API },
	[HD_OP_COPY] = { "copy", "copy", "cudaMemcpy", HD_OPC_COPY, SRC | DST | STREAM, true, false,
			 HD_SPAN_COPY },
	[HD_OP_KERNEL] = { "kernel", "kernel", "cudaLaunchKernel", HD_OPC_KERNEL, STREAM, true,
			   false, HD_SPAN_KERNEL },
	[HD_OP_PREFETCH] = { "prefetch", "prefetch", "cudaMemPrefetchAsync", HD_OPC_COPY,
			     DST | STREAM, true, false, HD_SPAN_PREFETCH },
	[HD_OP_RECORD] = { "record", "record", "cudaEventRecord", HD_OPC_EVENT, EVENT | STREAM,
			   true, false, HD_SPAN_EVENT },
	[HD_OP_WAIT] = { "wait", "wait", "cudaStreamWaitEvent", HD_OPC_EVENT, EVENT | STREAM, true,
			 false, HD_SPAN_WAIT },
	[HD_OP_EVENT_SYNC] = { "sync", "sync event", "cudaEventSynchronize", HD_OPC_SYNC, EVENT,
			       false, false, HD_SPAN_API },
	[HD_OP_EVENT_QUERY] = { "query", "query", "cudaEventQuery", HD_OPC_EVENT, EVENT, false,
				false, HD_SPAN_API },
	[HD_OP_STREAM_SYNC] = { "sync", "sync stream", "cudaStreamSynchronize", HD_OPC_SYNC, STREAM,
				false, false, HD_SPAN_API },
	[HD_OP_DEVICE_SYNC] = { "sync", "sync device", "cudaDeviceSynchronize", HD_OPC_SYNC, 0,
				false, false, HD_SPAN_API },
	[HD_OP_HOST] = { "host", "host", "host work", HD_OPC_HOST, 0, false, false, HD_SPAN_HOST },
	/* the host reads through the default stream (print(t), .item()) */
	[HD_OP_READ] = { "read", "read", "cudaMemcpy", HD_OPC_COPY, SRC | STREAM, true, false,
			 HD_SPAN_COPY },
	[HD_OP_REPEAT] = { "repeat", "repeat", "loop", HD_OPC_BLOCK, BODY, false, false,
			   HD_SPAN_API },
	[HD_OP_ON_RANK] = { "rank", "rank", "if (rank == N)", HD_OPC_BLOCK, BODY, false, true,
			    HD_SPAN_API },
	[HD_OP_SEND] = { "send", "send", "ncclSend", HD_OPC_P2P, SRC | PEER | STREAM, true, true,
			 HD_SPAN_COMM },
	[HD_OP_RECV] = { "recv", "recv", "ncclRecv", HD_OPC_P2P, DST | PEER | STREAM, true, true,
			 HD_SPAN_COMM },
	/* the collective's buffer is both src and dst (in place) */
	[HD_OP_COLL] = { NULL, "collective", "ncclAllReduce", HD_OPC_COLLECTIVE, SRC | DST | STREAM,
			 true, true, HD_SPAN_COMM },
	[HD_OP_BARRIER] = { "barrier", "barrier", "MPI_Barrier", HD_OPC_COLLECTIVE, 0, false, true,
			    HD_SPAN_API },
	/* host threads and the queues between them (ir/threads.h) */
	[HD_OP_WORKERS] = { "workers", "workers", "pthread_create", HD_OPC_BLOCK, BODY, false,
			    false, HD_SPAN_API },
	[HD_OP_PUT] = { "put", "put", "queue put", HD_OPC_QUEUE, QUEUE, false, false, HD_SPAN_API },
	[HD_OP_GET] = { "get", "get", "queue get", HD_OPC_QUEUE, QUEUE, false, false, HD_SPAN_API },
	/* captured before the run: the header never runs where it stands */
	[HD_OP_GRAPH] = { "graph", "graph", "cudaStreamBeginCapture", HD_OPC_BLOCK, BODY, false,
			  false, HD_SPAN_API },
	/* the stream shows the whole graph as one span, its nodes run on the SMs */
	[HD_OP_LAUNCH] = { "launch", "graph launch", "cudaGraphLaunch", HD_OPC_KERNEL,
			   STREAM | GRAPH, true, false, HD_SPAN_KERNEL },
};

const struct hd_op_fact *
hd_op_fact(enum hd_op_kind k)
{
	return (unsigned)k < HD_OP__COUNT ? &hd_op_facts[k] : NULL;
}

bool
hd_op_fact_ok(enum hd_op_kind k)
{
	const struct hd_op_fact *f = hd_op_fact(k);

	if (f == NULL || f->name == NULL || f->api == NULL || (unsigned)f->cls >= HD_OPC__COUNT)
		return false;
	if ((f->word == NULL) != (k == HD_OP_COLL))
		return false;
	if ((unsigned)f->span >= HD_SPAN__COUNT)
		return false;
	/* work on a stream needs the stream, and draws more than an API call */
	if (f->on_stream && (!(f->operands & STREAM) || f->span == HD_SPAN_API))
		return false;
	return (f->cls == HD_OPC_BLOCK) == !!(f->operands & BODY);
}

static bool
in_range(int i, int n)
{
	return i >= 0 && i < n;
}

bool
hd_op_operands_ok(const struct hd_scenario *sc, const struct hd_op *op)
{
	const struct hd_op_fact *f = hd_op_fact(op->kind);
	unsigned o;
	int i = (int)(op - sc->ops);

	if (f == NULL)
		return false;
	o = f->operands;
	if (((o & SRC) && !in_range(op->src, sc->nbuffers)) ||
	    ((o & DST) && !in_range(op->dst, sc->nbuffers)) ||
	    ((o & EVENT) && !in_range(op->event, sc->nevents)) ||
	    ((o & STREAM) && !in_range(op->stream, sc->nstreams)) ||
	    ((o & QUEUE) && !in_range(op->queue, sc->nqueues)))
		return false;
	if ((o & GRAPH) &&
	    (!in_range(op->graph, sc->nops) || sc->ops[op->graph].kind != HD_OP_GRAPH))
		return false;
	return !(o & BODY) || (op->body_len >= 0 && op->body_len <= sc->nops - i - 1);
}
