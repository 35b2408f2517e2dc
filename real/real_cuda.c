/*
 * real_cuda.c - the real backend: runs a scenario's IR on the GPU with the
 * CUDA runtime and writes a measured trace of the same shape as the model's.
 *
 * Timing: every API call is bracketed by CLOCK_MONOTONIC on the host; every
 * op that goes on a stream is bracketed by two CUDA events recorded on that
 * stream.  Both are put on one time base: after a device sync the host reads
 * its clock, records a base event on the legacy stream and waits for it, and
 * the base event's time is taken as the midpoint of that short wait (its
 * error is half the wait, a few microseconds, reported as spread); time 0 is
 * when the wait returns and the scenario's first op can start.  Warm-up
 * runs come first; each timed repeat gives one trace, and the result is the
 * per-span median of start and end over the repeats, with the interquartile
 * range of each span's duration as its spread; every repeat's makespan goes
 * to the sink as well (with and without per-op events), so the spread of the
 * whole run is kept beside its median.
 *
 * Scenarios with several ranks go to the rank runner (ranks.h), which starts
 * one process per rank; each of those runs this same executor through
 * hd_rt_run with a struct hd_rt_comm for NCCL, the barrier and peer buffers
 * (rt.h).  Every CUDA call is checked and a failure names the call and the
 * driver's message.  A scenario's host threads and queues run beside the
 * walk as pthreads (workers.h), joined before each repeat ends.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "ir/backend.h"
#include "ir/graph.h"
#include "ir/opfacts.h"
#include "ir/threads.h"
#include "kernels/kernels.h"
#include "real/cudaerr.h"
#include "real/fault.h"
#include "real/graph.h"
#include "real/ranks.h"
#include "real/real.h"
#include "real/rt.h"
#include "real/workers.h"

/* cudaMemcpy as a program built with nvcc --default-stream per-thread calls
 * it: cuda_runtime_api.h maps cudaMemcpy to this name when the program
 * defines CUDA_API_PER_THREAD_DEFAULT_STREAM (the copy waits for and runs
 * on the calling thread's per-thread stream, not the legacy one). */
extern cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count,
				   enum cudaMemcpyKind kind);

/* More op executions than this per repeat are refused: two events each. */
#define RT_MAX_EXECS 200000

struct rt_buf {
	void *p;
	enum hd_mem mem; /* as declared; PIN turns pageable into registered */
	uint64_t bytes;
	int live;       /* allocated now */
	int registered; /* cudaHostRegister'ed */
	int captured;   /* a graph's node uses it: its address must stay */
	int renew;      /* reset_state freed it to allocate it again */
};

/* A stream op bracketed by two events; resolved into spans after the run. */
struct rt_timed {
	int op;
	uint32_t iter;
	int stream;
	cudaEvent_t a, b;
};

/* A host-side span measured with the host clock. */
struct rt_host {
	int op;
	uint32_t iter;
	enum hd_span_kind kind;
	enum hd_why why;
	int64_t t0, t1; /* ns, CLOCK_MONOTONIC */
	int api;        /* on the API lane (else the host lane) */
};

struct rt {
	const struct hd_scenario *sc;
	struct hd_err *e;
	volatile int *stop;
	struct rt_buf *bufs;
	cudaStream_t *streams;
	cudaEvent_t *events;
	uint32_t *iters;   /* executions so far of each op, this repeat */
	cudaEvent_t *pool; /* timing events, reused across repeats */
	size_t npool, pool_used;
	struct rt_timed *timed;
	size_t ntimed, timed_cap;
	struct rt_host *host;
	size_t nhost, host_cap;
	float *scratch; /* compute kernels' output, reduce's sum */
	void *read_buf; /* pageable landing buffer for READ */
	uint64_t read_bytes;
	int64_t t0;     /* host ns of the base event */
	int bare;       /* a repeat without per-op events: the makespan only */
	int64_t origin; /* host ns that span times count from */
	cudaEvent_t base;
	const struct hd_rt_comm *comm; /* NULL on one GPU */
	int rank, dev;
	struct hd_rt_threads *thr;   /* host threads and queues (workers.h), or NULL */
	struct hd_rt_graphs *graphs; /* the scenario's graphs, captured at set-up */
};

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Did a CUDA call succeed?  When not, fill e with the call and the driver's words. */
static int
call_ok(struct rt *rt, cudaError_t rc, const char *call)
{
	if (rc == cudaSuccess)
		return 1;
	hd_cuda_fail(rt->e, "", call, 0, rc);
	cudaGetLastError(); /* clear a sticky launch error so teardown can run */
	return 0;
}
/* Test builds may make a chosen call fail without making it (fault.h). */
#define CK(rt, call) call_ok((rt), HD_FAULT_CALL(#call, (call), cudaErrorUnknown), #call)

static int
cuda_available(struct hd_err *e)
{
	cudaError_t rc;
	int n = 0;

	rc = HD_FAULT("cudaGetDeviceCount(&n)") ? cudaErrorUnknown : cudaGetDeviceCount(&n);
	if (rc != cudaSuccess)
		return hd_cuda_fail(e, "no CUDA-capable GPU was found: ", "cudaGetDeviceCount", 1,
				    rc);
	if (n == 0) {
		hd_err_set(e, HD_EXIT_FAIL, "",
			   "no CUDA-capable GPU was found: cudaGetDeviceCount reports 0 devices");
		return -1;
	}
	return 0;
}

static cudaStream_t
stream_of(struct rt *rt, int i)
{
	return rt->streams[i];
}

static cudaEvent_t
pool_event(struct rt *rt)
{
	if (rt->pool_used == rt->npool) {
		size_t cap = rt->npool;

		rt->pool = hd_xgrow(rt->pool, &cap, rt->npool + 1, sizeof *rt->pool);
		for (; rt->npool < cap; rt->npool++)
			if (!CK(rt, cudaEventCreate(&rt->pool[rt->npool])))
				return NULL;
	}
	return rt->pool[rt->pool_used++];
}

static void
add_host(struct rt *rt, int op, enum hd_span_kind kind, enum hd_why why, int64_t t0, int64_t t1,
	 int api)
{
	struct rt_host *h;

	rt->host = hd_xgrow(rt->host, &rt->host_cap, rt->nhost + 1, sizeof *rt->host);
	h = &rt->host[rt->nhost++];
	h->op = op;
	h->iter = rt->iters[op];
	h->kind = kind;
	h->why = why;
	h->t0 = t0;
	h->t1 = t1;
	h->api = api;
}

/* Record the opening event of a timed stream op; returns its slot or -1. */
static long
timed_begin(struct rt *rt, int op, int stream)
{
	struct rt_timed *t;
	cudaEvent_t a = pool_event(rt), b = a ? pool_event(rt) : NULL;

	if (b == NULL)
		return -1;
	if (!CK(rt, cudaEventRecord(a, stream_of(rt, stream))))
		return -1;
	rt->timed = hd_xgrow(rt->timed, &rt->timed_cap, rt->ntimed + 1, sizeof *rt->timed);
	t = &rt->timed[rt->ntimed];
	t->op = op;
	t->iter = rt->iters[op];
	t->stream = stream;
	t->a = a;
	t->b = b;
	return (long)rt->ntimed++;
}

static int
timed_end(struct rt *rt, long slot)
{
	struct rt_timed *t = &rt->timed[slot];

	return CK(rt, cudaEventRecord(t->b, stream_of(rt, t->stream))) ? 0 : -1;
}

static void
busy_wait_until(int64_t t)
{
	while (now_ns() < t)
		;
}

/* Buffer b (-1: none) is a host side the driver stages a copy through:
 * pageable and not registered, or managed. */
static int
staged_side(const struct rt *rt, int b)
{
	return b >= 0 &&
	    ((rt->bufs[b].mem == HD_MEM_PAGEABLE && !rt->bufs[b].registered) ||
	     rt->bufs[b].mem == HD_MEM_MANAGED);
}

static enum cudaMemcpyKind
copy_kind(enum hd_copy_kind k)
{
	static const enum cudaMemcpyKind kinds[HD_COPY__COUNT] = {
		[HD_COPY_H2D] = cudaMemcpyHostToDevice,   [HD_COPY_D2H] = cudaMemcpyDeviceToHost,
		[HD_COPY_D2D] = cudaMemcpyDeviceToDevice, [HD_COPY_H2H] = cudaMemcpyHostToHost,
		[HD_COPY_P2P] = cudaMemcpyDefault,
	};

	return kinds[k];
}

/*
 * Allocate buffer i.  `touch` fills it as well, so that first-touch faults
 * stay out of the copies; an `alloc` op of the scenario passes 0 and is timed
 * as the API call alone, as the model has it (managed memory is touched
 * either way: the model starts it resident on the host).
 */
static int
alloc_buf(struct rt *rt, int i, int touch)
{
	struct rt_buf *b = &rt->bufs[i];
	size_t n = b->bytes ? b->bytes : 1;

	switch (b->mem) {
	case HD_MEM_PAGEABLE:
		/* plain malloc, as a program's buffer; calibrate.c measures the
		 * host's pageable rates on malloc'd memory too */
		b->p = malloc(n);
		if (b->p == NULL) {
			hd_err_set(rt->e, HD_EXIT_FAIL, "",
				   "malloc of %zu bytes for buffer '%s' failed", n,
				   rt->sc->buffers[i].name);
			return -1;
		}
		if (touch)
			memset(b->p, 1, n);
		break;
	case HD_MEM_PINNED:
		if (!CK(rt, cudaMallocHost(&b->p, n)))
			return -1;
		if (touch)
			memset(b->p, 1, n);
		break;
	case HD_MEM_MANAGED:
		if (!CK(rt, cudaMallocManaged(&b->p, n, cudaMemAttachGlobal)))
			return -1;
		memset(b->p, 1, n); /* resident on the host, as the model starts */
		break;
	case HD_MEM_DEVICE:
		if (!CK(rt, cudaMalloc(&b->p, n)))
			return -1;
		if (touch && !CK(rt, cudaMemset(b->p, 0, n))) {
			cudaFree(b->p); /* not live yet: teardown would not free it */
			b->p = NULL;
			return -1;
		}
		break;
	case HD_MEM__COUNT:
		return -1;
	}
	b->live = 1;
	return 0;
}

static int
free_buf(struct rt *rt, int i)
{
	struct rt_buf *b = &rt->bufs[i];
	int good = 1;

	if (!b->live)
		return 0;
	if (b->registered)
		good = CK(rt, cudaHostUnregister(b->p)) && good;
	switch (b->mem) {
	case HD_MEM_PAGEABLE:
		free(b->p);
		break;
	case HD_MEM_PINNED:
		good = CK(rt, cudaFreeHost(b->p)) && good;
		break;
	case HD_MEM_MANAGED:
	case HD_MEM_DEVICE:
	case HD_MEM__COUNT:
		good = CK(rt, cudaFree(b->p)) && good;
		break;
	}
	b->p = NULL;
	b->live = 0;
	b->registered = 0;
	return good ? 0 : -1;
}

static void *
buf_ptr(struct rt *rt, int i)
{
	return i >= 0 ? rt->bufs[i].p : NULL;
}

static int
launch_kernel(struct rt *rt, const struct hd_op *op, cudaStream_t s)
{
	double done = 0;
	int rc = (int)cudaErrorInvalidValue;

	if (HD_FAULT("kernel launch"))
		return call_ok(rt, cudaErrorUnknown, "kernel launch") ? 0 : -1;
	switch (op->kernel) {
	case HD_KERNEL_SPIN:
		rc = hd_kernel_spin((hd_cuda_stream)s, (uint64_t)(op->duration / HD_NS), op->grid);
		break;
	case HD_KERNEL_COMPUTE:
		rc = hd_kernel_compute((hd_cuda_stream)s, rt->scratch, op->flops, op->grid, &done);
		break;
	case HD_KERNEL_MEMORY:
		rc = hd_kernel_memory((hd_cuda_stream)s, buf_ptr(rt, op->src), op->bytes, op->grid);
		break;
	case HD_KERNEL_FILL:
		rc = hd_kernel_fill((hd_cuda_stream)s, buf_ptr(rt, op->dst),
				    rt->bufs[op->dst].bytes, 0x3f800000u, op->grid);
		break;
	case HD_KERNEL_REDUCE:
		rc = hd_kernel_reduce((hd_cuda_stream)s, buf_ptr(rt, op->src),
				      rt->bufs[op->src].bytes, rt->scratch, op->grid);
		break;
	case HD_KERNEL__COUNT:
		break;
	}
	return call_ok(rt, (cudaError_t)rc, "kernel launch") ? 0 : -1;
}

/* A graph's node, as stream capture records it (graph.h): the same kernel or
 * async copy the op stands for outside a graph. */
static int
graph_node(void *ctx, int i, cudaStream_t s, struct hd_err *e)
{
	struct rt *rt = ctx;
	const struct hd_op *op = &rt->sc->ops[i];

	(void)e; /* rt->e, the same */
	if (op->kind == HD_OP_KERNEL)
		return launch_kernel(rt, op, s);
	return CK(rt,
		  cudaMemcpyAsync(buf_ptr(rt, op->dst), buf_ptr(rt, op->src), op->bytes,
				  copy_kind(op->copy), s)) ?
	    0 :
	    -1;
}

/* A copy with cudaMemcpy, checked, which goes to the scenario's default
 * stream: the legacy one, or the per-thread one after `default-stream
 * per-thread`, as in a program built with nvcc --default-stream per-thread
 * (the call keeps its name for messages and fault injection). */
#define SYNC_MEMCPY(rt, dst, src, n, kind) \
	((rt)->sc->per_thread_default ? CK(rt, cudaMemcpy_ptds(dst, src, n, kind)) : \
					CK(rt, cudaMemcpy(dst, src, n, kind)))

/* Execute one op (not REPEAT / ON_RANK) on the host thread. */
static int
exec_op(struct rt *rt, int i)
{
	const struct hd_op *op = &rt->sc->ops[i];
	cudaStream_t s = op->stream >= 0 ? stream_of(rt, op->stream) : NULL;
	enum hd_why why = HD_WHY_NONE;
	long slot = -1;
	int64_t t0, t1;
	int good = 1;

	if (rt->comm == NULL &&
	    (hd_op_facts[op->kind].ranks || (op->kind == HD_OP_COPY && op->copy == HD_COPY_P2P))) {
		hd_err_set(rt->e, HD_EXIT_FAIL, "", "op %d (%s) needs several ranks", i,
			   hd_op_api_name(op));
		return -1;
	}
	/* work on a stream is bracketed by two events there; a wait on an event
	 * does no work of its own */
	if (hd_op_facts[op->kind].on_stream && op->kind != HD_OP_WAIT && !rt->bare) {
		slot = timed_begin(rt, i, op->stream);
		if (slot < 0)
			return -1;
	}
	t0 = now_ns();
	switch (op->kind) {
	case HD_OP_ALLOC:
		good = alloc_buf(rt, op->dst, 0) == 0;
		break;
	case HD_OP_FREE:
		good = free_buf(rt, op->dst) == 0;
		why = rt->bufs[op->dst].mem == HD_MEM_PAGEABLE ? HD_WHY_NONE : HD_WHY_DEVICE_SYNC;
		break;
	case HD_OP_PIN:
		good = CK(rt,
			  cudaHostRegister(rt->bufs[op->dst].p, rt->bufs[op->dst].bytes,
					   cudaHostRegisterDefault));
		rt->bufs[op->dst].registered = good;
		break;
	case HD_OP_COPY: {
		void *dst = buf_ptr(rt, op->dst);

		if (op->copy == HD_COPY_P2P)
			dst = rt->comm->peer_ptr(rt->comm->ctx, hd_op_peer(rt->sc, op, rt->rank),
						 op->dst);
		if (op->async)
			good = CK(rt,
				  cudaMemcpyAsync(dst, buf_ptr(rt, op->src), op->bytes,
						  copy_kind(op->copy), s));
		else
			good = SYNC_MEMCPY(rt, dst, buf_ptr(rt, op->src), op->bytes,
					   copy_kind(op->copy));
		if (!op->async)
			why = HD_WHY_SYNC_COPY;
		else if (staged_side(rt, op->src) || staged_side(rt, op->dst))
			why = HD_WHY_PAGEABLE;
		break;
	}
	case HD_OP_SEND:
	case HD_OP_RECV:
	case HD_OP_COLL:
		good = rt->comm->issue(rt->comm->ctx, op,
				       op->kind == HD_OP_COLL ? HD_NONE :
								hd_op_peer(rt->sc, op, rt->rank),
				       buf_ptr(rt, op->src), buf_ptr(rt, op->dst), s, rt->e) == 0;
		break;
	case HD_OP_BARRIER:
		good = rt->comm->barrier(rt->comm->ctx, NULL, rt->e) == 0;
		why = HD_WHY_COLLECTIVE;
		break;
	case HD_OP_KERNEL:
		good = launch_kernel(rt, op, s) == 0;
		break;
	case HD_OP_PREFETCH: {
		struct cudaMemLocation loc;

		memset(&loc, 0, sizeof loc);
		loc.type = op->to_device ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
		loc.id = 0;
		good = CK(
		    rt,
		    cudaMemPrefetchAsync(buf_ptr(rt, op->dst), rt->bufs[op->dst].bytes, loc, 0, s));
		break;
	}
	case HD_OP_RECORD:
		good = CK(rt, cudaEventRecord(rt->events[op->event], s));
		break;
	case HD_OP_WAIT:
		good = CK(rt, cudaStreamWaitEvent(s, rt->events[op->event], 0));
		break;
	case HD_OP_EVENT_SYNC:
		good = CK(rt, cudaEventSynchronize(rt->events[op->event]));
		why = HD_WHY_EVENT_SYNC;
		break;
	case HD_OP_EVENT_QUERY: {
		cudaError_t rc = HD_FAULT("cudaEventQuery") ? cudaErrorUnknown :
							      cudaEventQuery(rt->events[op->event]);

		good = rc == cudaSuccess || rc == cudaErrorNotReady ||
		    call_ok(rt, rc, "cudaEventQuery");
		break;
	}
	case HD_OP_STREAM_SYNC:
		good = CK(rt, cudaStreamSynchronize(s));
		why = HD_WHY_STREAM_SYNC;
		break;
	case HD_OP_DEVICE_SYNC:
		good = CK(rt, cudaDeviceSynchronize());
		why = HD_WHY_DEVICE_SYNC;
		break;
	case HD_OP_HOST:
		/* beside host threads, work is CPU time: threads share the cores */
		if (rt->thr != NULL)
			hd_rt_cpu_work(op->duration / HD_NS);
		else
			busy_wait_until(t0 + op->duration / HD_NS);
		break;
	case HD_OP_PUT:
	case HD_OP_GET: {
		int waited;

		good = hd_rt_threads_queue(rt->thr, op, &waited, rt->e) == 0;
		why = op->kind == HD_OP_GET ? HD_WHY_DATA : HD_WHY_ROOM;
		break;
	}
	case HD_OP_READ:
		good = SYNC_MEMCPY(rt, rt->read_buf, buf_ptr(rt, op->src), op->bytes,
				   cudaMemcpyDeviceToHost);
		why = HD_WHY_READ;
		break;
	case HD_OP_LAUNCH:
		good = hd_rt_graph_launch(rt->graphs, op->graph, s, rt->e) == 0;
		break;
	case HD_OP_REPEAT: /* walk() opens blocks itself, and steps over graphs */
	case HD_OP_ON_RANK:
	case HD_OP_WORKERS:
	case HD_OP_GRAPH:
	case HD_OP__COUNT:
		hd_err_set(rt->e, HD_EXIT_FAIL, "", "op %d (%s) cannot run on one GPU", i,
			   hd_op_kind_name(op->kind));
		return -1;
	}
	t1 = now_ns();
	if (!good)
		return -1;
	if (slot >= 0 && timed_end(rt, slot) != 0)
		return -1;
	if (rt->bare) {
		rt->iters[i]++;
		return 0;
	}
	if (op->kind == HD_OP_HOST) {
		add_host(rt, i, HD_SPAN_HOST, HD_WHY_NONE, t0, t1, 0);
	} else {
		add_host(rt, i, HD_SPAN_API, HD_WHY_NONE, t0, t1, 1);
		if (why != HD_WHY_NONE)
			add_host(rt, i, HD_SPAN_BLOCKED, why, t0, t1, 1);
	}
	rt->iters[i]++;
	return 0;
}

/* Walk the op list once, loops included, as the host thread. */
static int
walk(struct rt *rt)
{
	struct frame {
		int start, end;
		uint64_t left;
	} stack[64];
	int depth = 0, i = 0, n = rt->sc->nops;

	while (i < n || depth > 0) {
		const struct hd_op *op;

		if (depth > 0 && i == stack[depth - 1].end) {
			if (--stack[depth - 1].left > 0) {
				i = stack[depth - 1].start;
				continue;
			}
			depth--;
			continue;
		}
		if (rt->stop != NULL && *rt->stop) {
			hd_err_set(rt->e, HD_EXIT_FAIL, "", "interrupted before op %d", i);
			return -1;
		}
		op = &rt->sc->ops[i];
		if (op->kind == HD_OP_WORKERS) {
			/* its threads run the body (workers.c); the main thread goes on */
			if (hd_rt_threads_start(rt->thr, i, rt->e) != 0)
				return -1;
			i += 1 + op->body_len;
			continue;
		}
		if (op->kind == HD_OP_GRAPH) { /* captured at set-up: its launches run it */
			i += 1 + op->body_len;
			continue;
		}
		if (op->kind == HD_OP_REPEAT || op->kind == HD_OP_ON_RANK) {
			int skip = op->kind == HD_OP_REPEAT ? op->count == 0 : op->rank != rt->rank;

			if (skip || op->body_len == 0) {
				i += 1 + op->body_len;
				continue;
			}
			if (depth == (int)HD_ARRAY_LEN(stack)) {
				hd_err_set(rt->e, HD_EXIT_INPUT, "", "loops nested too deeply");
				return -1;
			}
			stack[depth].start = i + 1;
			stack[depth].end = i + 1 + op->body_len;
			stack[depth].left = op->kind == HD_OP_REPEAT ? op->count : 1;
			depth++;
			i++;
			continue;
		}
		if (exec_op(rt, i) != 0)
			return -1;
		i++;
	}
	return 0;
}

/* Walk the op list with the scenario's host threads, if any: they are all
 * joined before it returns, stopped early when the walk failed. */
static int
walk_threads(struct rt *rt)
{
	int rc = walk(rt);

	if (rt->thr == NULL)
		return rc;
	if (hd_rt_threads_join(rt->thr, rc != 0, rt->e) != 0)
		rc = -1;
	return rc;
}

/* Where buffer i's memory is now, for the host threads. */
static void *
thread_buf(void *ctx, int i)
{
	return buf_ptr(ctx, i);
}

/* Allocate what the scenario declares, except buffers it ALLOCs itself. */
static int
setup(struct rt *rt)
{
	const struct hd_scenario *sc = rt->sc;
	int i, j, explicit;
	uint64_t read_bytes = 4;

	rt->bufs = hd_xcalloc((size_t)sc->nbuffers, sizeof *rt->bufs);
	rt->streams = hd_xcalloc((size_t)sc->nstreams, sizeof *rt->streams);
	rt->events = hd_xcalloc((size_t)(sc->nevents ? sc->nevents : 1), sizeof *rt->events);
	rt->iters = hd_xcalloc((size_t)sc->nops, sizeof *rt->iters);
	if (!CK(rt, cudaSetDevice(rt->dev)) || !CK(rt, cudaFree(NULL))) /* the context now */
		return -1;
	/* Host-side copies from one CPU near the GPU, as calibration measured them.
	 * Not for ranks: ranks sharing a NUMA node would share that one CPU, and
	 * NCCL's threads with them; the ranks run unpinned, as nccl-tests does
	 * (each rank on a CPU of its own, pinned after NCCL's set-up, measured
	 * no better on 8 x H200: bench/results/2026-11-22-ranks/README.md). */
	if (rt->comm == NULL)
		hd_real_pin_host_thread(rt->dev);
	for (i = 0; i < sc->nbuffers; i++) {
		rt->bufs[i].mem = sc->buffers[i].mem;
		rt->bufs[i].bytes = sc->buffers[i].bytes;
		explicit = 0;
		for (j = 0; j < sc->nops; j++)
			if (sc->ops[j].kind == HD_OP_ALLOC && sc->ops[j].dst == i)
				explicit = 1;
		if (!explicit && alloc_buf(rt, i, 1) != 0)
			return -1;
	}
	for (j = 0; j < sc->nops; j++)
		if (sc->ops[j].kind == HD_OP_READ && sc->ops[j].bytes > read_bytes)
			read_bytes = sc->ops[j].bytes;
	rt->read_buf = malloc(read_bytes);
	if (rt->read_buf == NULL) {
		hd_err_set(rt->e, HD_EXIT_FAIL, "", "malloc of %llu bytes for reads failed",
			   (unsigned long long)read_bytes);
		return -1;
	}
	memset(rt->read_buf, 0, read_bytes);
	rt->streams[HD_STREAM_LEGACY] = cudaStreamLegacy;
	if (sc->nstreams > HD_STREAM_PER_THREAD)
		rt->streams[HD_STREAM_PER_THREAD] = cudaStreamPerThread;
	for (i = 2; i < sc->nstreams; i++) {
		unsigned flags = sc->streams[i].flags & HD_STREAM_NONBLOCKING ?
		    cudaStreamNonBlocking :
		    cudaStreamDefault;

		if (!CK(rt,
			cudaStreamCreateWithPriority(&rt->streams[i], flags,
						     sc->streams[i].priority)))
			return -1;
	}
	for (i = 0; i < sc->nevents; i++)
		if (!CK(rt,
			cudaEventCreateWithFlags(&rt->events[i],
						 sc->events[i].timing ? cudaEventDefault :
									cudaEventDisableTiming)))
			return -1;
	if (!CK(rt, cudaMalloc((void **)&rt->scratch, 4096)) || !CK(rt, cudaEventCreate(&rt->base)))
		return -1;
	if (hd_threads_any(sc) || sc->nqueues > 0)
		rt->thr = hd_rt_threads_new(sc, thread_buf, rt, rt->stop);
	if ((rt->graphs = hd_rt_graphs_new(sc, graph_node, rt, rt->e)) == NULL)
		return -1;
	for (j = 0; j < sc->nops; j++) {
		size_t n = 0, k;
		int *nodes = sc->ops[j].kind == HD_OP_GRAPH ? hd_graph_nodes(sc, j, &n) : NULL;

		for (k = 0; k < n; k++) {
			const struct hd_op *op = &sc->ops[nodes[k]];

			if (op->src >= 0)
				rt->bufs[op->src].captured = 1;
			if (op->dst >= 0)
				rt->bufs[op->dst].captured = 1;
		}
		free(nodes);
	}
	if (rt->comm != NULL) {
		void **ptrs = hd_xcalloc((size_t)sc->nbuffers + 1, sizeof *ptrs);
		int rc;

		for (i = 0; i < sc->nbuffers; i++)
			ptrs[i] = rt->bufs[i].mem == HD_MEM_DEVICE ? rt->bufs[i].p : NULL;
		rc = rt->comm->share(rt->comm->ctx, sc, ptrs, rt->e);
		free(ptrs);
		if (rc != 0)
			return -1;
	}
	return 0;
}

static void
teardown(struct rt *rt)
{
	const struct hd_scenario *sc = rt->sc;
	struct hd_err ignore = { 0 };
	struct hd_err *keep = rt->e;
	size_t k;
	int i;

	/* Errors during clean-up must not replace the one being reported. */
	rt->e = &ignore;
	hd_rt_threads_free(rt->thr);
	rt->thr = NULL;
	cudaDeviceSynchronize();
	hd_rt_graphs_free(rt->graphs);
	for (i = 0; rt->bufs && i < sc->nbuffers; i++)
		free_buf(rt, i);
	for (i = 2; rt->streams && i < sc->nstreams; i++)
		if (rt->streams[i])
			cudaStreamDestroy(rt->streams[i]);
	for (i = 0; rt->events && i < sc->nevents; i++)
		if (rt->events[i])
			cudaEventDestroy(rt->events[i]);
	for (k = 0; k < rt->npool; k++)
		cudaEventDestroy(rt->pool[k]);
	if (rt->base)
		cudaEventDestroy(rt->base);
	cudaFree(rt->scratch);
	free(rt->read_buf);
	free(rt->bufs);
	free(rt->streams);
	free(rt->events);
	free(rt->iters);
	free(rt->pool);
	free(rt->timed);
	free(rt->host);
	rt->e = keep;
}

/* One repeat's spans, times in ps from the base event. */
struct rt_span {
	struct hd_span s;
	enum hd_lane_kind lane_kind;
	int lane_index;
};

/* Does op's work show on an engine's lane as well as its stream's?  Which, in *k. */
static int
engine_lane_ok(const struct hd_op *op, enum hd_lane_kind *k)
{
	switch (op->kind) {
	case HD_OP_KERNEL:
		*k = HD_LANE_COMPUTE;
		return 1;
	case HD_OP_READ:
		*k = HD_LANE_CE_D2H;
		return 1;
	case HD_OP_PREFETCH:
		*k = op->to_device ? HD_LANE_CE_H2D : HD_LANE_CE_D2H;
		return 1;
	case HD_OP_COPY:
		*k = op->copy == HD_COPY_H2D ? HD_LANE_CE_H2D :
		    op->copy == HD_COPY_D2H  ? HD_LANE_CE_D2H :
					       HD_LANE_CE_D2D;
		return 1;
	case HD_OP_ALLOC:
	case HD_OP_FREE:
	case HD_OP_PIN:
	case HD_OP_RECORD:
	case HD_OP_WAIT:
	case HD_OP_EVENT_SYNC:
	case HD_OP_EVENT_QUERY:
	case HD_OP_STREAM_SYNC:
	case HD_OP_DEVICE_SYNC:
	case HD_OP_HOST:
	case HD_OP_REPEAT:
	case HD_OP_ON_RANK:
	case HD_OP_SEND:
	case HD_OP_RECV:
	case HD_OP_COLL:
	case HD_OP_BARRIER:
	case HD_OP_WORKERS:
	case HD_OP_PUT:
	case HD_OP_GET:
	case HD_OP_GRAPH:
	case HD_OP_LAUNCH: /* its nodes run inside the graph, untimed one by one */
	case HD_OP__COUNT:
		break;
	}
	return 0;
}

/*
 * Put every buffer back in the state the scenario declares, so each repeat
 * measures the same thing: registered pages unregistered, buffers the run
 * allocates itself freed, managed memory resident on the host again.
 */
static int
reset_state(struct rt *rt)
{
	const struct hd_scenario *sc = rt->sc;
	int i, j;

	if (!CK(rt, cudaDeviceSynchronize()))
		return -1;
	for (i = 0; i < sc->nbuffers; i++) {
		struct rt_buf *b = &rt->bufs[i];

		if (b->registered) {
			if (!CK(rt, cudaHostUnregister(b->p)))
				return -1;
			b->registered = 0;
		}
		for (j = 0; j < sc->nops; j++)
			if (sc->ops[j].kind == HD_OP_ALLOC && sc->ops[j].dst == i && b->live &&
			    free_buf(rt, i) != 0)
				return -1;
		if (b->live && b->mem == HD_MEM_MANAGED && !b->captured) {
			/* New allocations, all of them freed before any is made
			 * again: pages moved there and back by the repeats before
			 * leave the driver's thrashing heuristics (naps, then the
			 * pages pinned) in a state the next repeat would inherit
			 * (a loop of kernels on 169 KB after a prefetch: 11, 7,
			 * 11, 7 ms repeat by repeat; with a second managed buffer
			 * alive beside it, kept the whole time).  A fresh buffer
			 * starts as the scenario declares, every time. */
			if (free_buf(rt, i) != 0)
				return -1;
			b->renew = 1;
		} else if (b->live && b->mem == HD_MEM_MANAGED) {
			/* a graph holds its address: moved back instead */
			struct cudaMemLocation host;

			memset(&host, 0, sizeof host);
			host.type = cudaMemLocationTypeHost;
			if (!CK(rt,
				cudaMemPrefetchAsync(b->p, b->bytes, host, 0, cudaStreamLegacy)) ||
			    !CK(rt, cudaDeviceSynchronize()))
				return -1;
			memset(b->p, 1, b->bytes); /* touched by the host, as declared */
		}
	}
	for (i = 0; i < sc->nbuffers; i++) {
		struct rt_buf *b = &rt->bufs[i];

		if (b->renew && alloc_buf(rt, i, 1) != 0)
			return -1;
		b->renew = 0;
	}
	return 0;
}

/* Run the op list once and turn its events and host times into spans. */
static int
one_repeat(struct rt *rt, struct rt_span **out, size_t *nout)
{
	const struct hd_scenario *sc = rt->sc;
	struct rt_span *v = NULL;
	size_t n = 0, cap = 0, k, nts;
	int64_t before, after, start;
	float ms;

	rt->ntimed = rt->nhost = rt->pool_used = 0;
	memset(rt->iters, 0, (size_t)sc->nops * sizeof *rt->iters);
	if (reset_state(rt) != 0)
		return -1;
	if (rt->thr != NULL)
		hd_rt_threads_reset(rt->thr, 1);
	/* The GPU's time base, before the ranks meet: recording and waiting
	 * for it takes each rank a different few microseconds, which after the
	 * barrier would stagger their starts. */
	before = now_ns();
	if (!CK(rt, cudaEventRecord(rt->base, cudaStreamLegacy)) ||
	    !CK(rt, cudaEventSynchronize(rt->base)))
		return -1;
	after = now_ns();
	rt->t0 = before + (after - before) / 2;
	/* The scenario starts when its first op can: after the wait for the
	 * base event (counting from the event itself added half that wait,
	 * 2-4 us, to every makespan; bench/probe/apicost.hds `empty`). */
	start = after;
	/* Ranks start each repeat together: from when this one leaves. */
	if (rt->comm != NULL) {
		if (rt->comm->barrier(rt->comm->ctx, NULL, rt->e) != 0)
			return -1;
		start = now_ns();
	}
	if (walk_threads(rt) != 0 || !CK(rt, cudaDeviceSynchronize()))
		return -1;
	/* One time base for all ranks (the first to leave the barrier),
	 * agreed after the walk so as not to delay its start. */
	rt->origin = start;
	if (rt->comm != NULL && rt->comm->origin(rt->comm->ctx, start, &rt->origin, rt->e) != 0)
		return -1;
	for (k = 0; k < rt->nhost; k++) {
		struct rt_host *h = &rt->host[k];
		struct rt_span *r;

		v = hd_xgrow(v, &cap, n + 1, sizeof *v);
		r = &v[n++];
		memset(r, 0, sizeof *r);
		r->s.op = h->op;
		r->s.iter = h->iter;
		r->s.kind = h->kind;
		r->s.why = h->why;
		r->s.start = (h->t0 - rt->origin) * HD_NS;
		r->s.end = (h->t1 - rt->origin) * HD_NS;
		r->s.label = -1;
		r->lane_kind = h->api ? HD_LANE_API : HD_LANE_HOST;
	}
	if (rt->thr != NULL) {
		const struct hd_rt_tspan *ts = hd_rt_threads_spans(rt->thr, &nts);

		/* each host thread's, on its own host lane */
		for (k = 0; k < nts; k++) {
			struct rt_span *r;

			v = hd_xgrow(v, &cap, n + 1, sizeof *v);
			r = &v[n++];
			memset(r, 0, sizeof *r);
			r->s.op = ts[k].op;
			r->s.iter = ts[k].iter;
			r->s.kind = ts[k].kind;
			r->s.why = ts[k].why;
			r->s.start = (ts[k].t0 - rt->origin) * HD_NS;
			r->s.end = (ts[k].t1 - rt->origin) * HD_NS;
			r->s.bytes = ts[k].bytes;
			r->s.label = -1;
			r->lane_kind = HD_LANE_HOST;
			r->lane_index = ts[k].thread;
		}
	}
	for (k = 0; k < rt->ntimed; k++) {
		struct rt_timed *t = &rt->timed[k];
		const struct hd_op *op = &sc->ops[t->op];
		enum hd_lane_kind engine = HD_LANE_COMPUTE;
		hd_time a, b;
		int lanes, l;

		if (!CK(rt, cudaEventElapsedTime(&ms, rt->base, t->a)))
			goto fail;
		a = (hd_time)llround((double)ms * 1e9);
		if (!CK(rt, cudaEventElapsedTime(&ms, rt->base, t->b)))
			goto fail;
		b = (hd_time)llround((double)ms * 1e9);
		a += (rt->t0 - rt->origin) * HD_NS;
		b += (rt->t0 - rt->origin) * HD_NS;
		if (b < a)
			b = a;
		lanes = engine_lane_ok(op, &engine) ? 2 : 1;
		for (l = 0; l < lanes; l++) {
			struct rt_span *r;

			v = hd_xgrow(v, &cap, n + 1, sizeof *v);
			r = &v[n++];
			memset(r, 0, sizeof *r);
			r->s.op = t->op;
			r->s.iter = t->iter;
			r->s.kind = hd_op_facts[op->kind].span;
			r->s.start = a;
			r->s.end = b;
			r->s.bytes = op->kind == HD_OP_KERNEL || op->kind == HD_OP_RECORD ? 0 :
			    op->kind == HD_OP_PREFETCH ? sc->buffers[op->dst].bytes :
							 op->bytes;
			r->s.label = -1;
			r->lane_kind = l == 0 ? HD_LANE_STREAM : engine;
			r->lane_index = l == 0 ? t->stream : 0;
		}
	}
	*out = v;
	*nout = n;
	return 0;
fail:
	free(v);
	return -1;
}

static int
cmp_time(const void *a, const void *b)
{
	hd_time x = *(const hd_time *)a, y = *(const hd_time *)b;

	return x < y ? -1 : x > y;
}

/* The stream lane's Nsight-style name. */
static void
stream_lane_name(const struct hd_scenario *sc, int i, char *buf, size_t n)
{
	if (i == HD_STREAM_LEGACY)
		snprintf(buf, n, "Stream 0 (default)");
	else if (i == HD_STREAM_PER_THREAD)
		snprintf(buf, n, "Stream 1 (per-thread)");
	else
		snprintf(buf, n, "Stream %d (%s)", i, sc->streams[i].name);
}

static const char *const engine_lane_names[HD_LANE__COUNT] = {
	[HD_LANE_HOST] = "Host thread",   [HD_LANE_API] = "CUDA API",
	[HD_LANE_CE_H2D] = "Memcpy HtoD", [HD_LANE_CE_D2H] = "Memcpy DtoH",
	[HD_LANE_CE_D2D] = "Memcpy DtoD", [HD_LANE_COMPUTE] = "Compute",
};

/*
 * One repeat with no CUDA event around each op: two cudaEventRecord calls
 * per op cost the host a few microseconds, which a scenario of thousands of
 * small ops would show as its own time.  Returns the makespan in ps: from
 * the base event to the later of the walk's return and the last work on any
 * stream, or -1 on failure.
 */
static hd_time
bare_repeat(struct rt *rt)
{
	const struct hd_scenario *sc = rt->sc;
	int64_t before, after, host_end;
	hd_time end, gpu_end;
	float ms;
	int i;

	rt->ntimed = rt->nhost = rt->pool_used = 0;
	memset(rt->iters, 0, (size_t)sc->nops * sizeof *rt->iters);
	if (reset_state(rt) != 0)
		return -1;
	if (rt->thr != NULL)
		hd_rt_threads_reset(rt->thr, 0);
	rt->bare = 1;
	before = now_ns();
	if (!CK(rt, cudaEventRecord(rt->base, cudaStreamLegacy)) ||
	    !CK(rt, cudaEventSynchronize(rt->base)))
		goto fail;
	after = now_ns();
	rt->t0 = before + (after - before) / 2;
	if (walk_threads(rt) != 0)
		goto fail;
	host_end = now_ns();
	/* from the walk's start, as one_repeat counts */
	end = (host_end - after) * HD_NS;
	/* work still on a stream after the host is done: its last event (an idle
	 * stream's event would only mark when it was recorded) */
	for (i = 0; i < sc->nstreams; i++) {
		cudaEvent_t ev;

		if (cudaStreamQuery(stream_of(rt, i)) == cudaSuccess)
			continue;
		(void)cudaGetLastError(); /* "not ready" is an answer, not an error */
		ev = pool_event(rt);
		if (ev == NULL || !CK(rt, cudaEventRecord(ev, stream_of(rt, i))) ||
		    !CK(rt, cudaEventSynchronize(ev)) ||
		    !CK(rt, cudaEventElapsedTime(&ms, rt->base, ev)))
			goto fail;
		gpu_end = (hd_time)llround((double)ms * 1e9) + (rt->t0 - after) * HD_NS;
		if (gpu_end > end)
			end = gpu_end;
	}
	rt->bare = 0;
	return CK(rt, cudaDeviceSynchronize()) ? end : -1;
fail:
	rt->bare = 0;
	return -1;
}

int
hd_rt_run(const struct hd_scenario *sc, const struct hd_run_opts *o, const struct hd_rt_comm *comm,
	  const struct hd_sink *sink, struct hd_err *e)
{
	struct rt rt;
	struct rt_span **reps = NULL;
	size_t *nreps = NULL, k;
	int warmup = o && o->warmup > 0 ? o->warmup : 1;
	int repeats = o && o->repeats > 0 ? o->repeats : 5;
	int r, good = 0;
	uint64_t execs;
	hd_time *starts = NULL, *ends = NULL, *bare = NULL;
	char(*tnames)[48] = NULL; /* host thread k's row name */
	int nthreads = 0;
	int64_t last;

	if (sc->nranks > 1 && comm == NULL) {
		hd_err_set(e, HD_EXIT_FAIL, "",
			   "scenario '%s' has %d ranks: it needs one process per GPU", sc->name,
			   sc->nranks);
		return -1;
	}
	execs = hd_scenario_op_instances(sc, comm ? comm->rank : 0);
	if (execs > RT_MAX_EXECS) {
		hd_err_set(e, HD_EXIT_INPUT, "",
			   "scenario '%s' executes %llu ops; timing each on the GPU is limited "
			   "to %d per run",
			   sc->name, (unsigned long long)execs, RT_MAX_EXECS);
		return -1;
	}
	if (cuda_available(e) != 0)
		return -1;
	memset(&rt, 0, sizeof rt);
	rt.sc = sc;
	rt.e = e;
	rt.stop = o ? o->stop : NULL;
	rt.comm = comm;
	rt.rank = comm ? comm->rank : 0;
	rt.dev = comm ? comm->device : 0;
	if (setup(&rt) != 0)
		goto out;
	reps = hd_xcalloc((size_t)repeats, sizeof *reps);
	nreps = hd_xcalloc((size_t)repeats, sizeof *nreps);
	for (r = 0; r < warmup + repeats; r++) {
		struct rt_span *v = NULL;
		size_t n = 0;

		if (one_repeat(&rt, &v, &n) != 0)
			goto out;
		if (r < warmup) {
			free(v);
			continue;
		}
		reps[r - warmup] = v;
		nreps[r - warmup] = n;
		if (n != nreps[0]) {
			hd_err_set(e, HD_EXIT_FAIL, "",
				   "scenario '%s' gave %zu spans in one repeat and %zu in another",
				   sc->name, nreps[0], n);
			goto out;
		}
	}
	/* One rank alone: the makespan again without per-op events, the median
	 * of as many repeats, for the sink's note of it. */
	bare = hd_xcalloc((size_t)repeats, sizeof *bare);
	if (comm == NULL && sink->makespan != NULL) {
		hd_time *sorted = hd_xcalloc((size_t)repeats, sizeof *sorted);

		for (r = 0; r < repeats; r++)
			if ((bare[r] = bare_repeat(&rt)) < 0) {
				free(sorted);
				goto out;
			}
		memcpy(sorted, bare, (size_t)repeats * sizeof *sorted);
		qsort(sorted, (size_t)repeats, sizeof *sorted, cmp_time);
		sink->makespan(sink->ctx, sorted[repeats / 2]);
		free(sorted);
	}
	/* Every repeat's makespan, as measured: timed as the spans are (the
	 * latest end of its spans, on their time base), and without per-op
	 * events where that was run (0 otherwise). */
	for (r = 0; sink->repeat != NULL && r < repeats; r++) {
		hd_time end = 0;

		for (k = 0; k < nreps[r]; k++)
			if (reps[r][k].s.end > end)
				end = reps[r][k].s.end;
		sink->repeat(sink->ctx, r, end, bare[r]);
	}
	/* No rank frees its buffers while another's peer copy may still write
	 * into them: each repeat ends synchronised, so one barrier suffices. */
	if (comm != NULL && comm->barrier(comm->ctx, &last, e) != 0)
		goto out;
	/* Median start and end of each span over the repeats. */
	/* the host threads' row names, once each */
	nthreads = hd_threads_count(sc);
	tnames = hd_xcalloc((size_t)nthreads + 1, sizeof *tnames);
	hd_threads_table(sc, NULL, tnames, nthreads + 1);
	starts = hd_xcalloc((size_t)repeats, sizeof *starts);
	ends = hd_xcalloc((size_t)repeats, sizeof *ends);
	for (k = 0; k < nreps[0]; k++) {
		struct rt_span *s0 = &reps[0][k];
		struct hd_span out = s0->s;
		char name[48];
		const char *lname = engine_lane_names[s0->lane_kind];
		const struct hd_op *op = &sc->ops[s0->s.op];

		for (r = 0; r < repeats; r++) {
			starts[r] = reps[r][k].s.start;
			ends[r] = reps[r][k].s.end;
		}
		qsort(starts, (size_t)repeats, sizeof *starts, cmp_time);
		qsort(ends, (size_t)repeats, sizeof *ends, cmp_time);
		out.start = starts[repeats / 2];
		out.end = ends[repeats / 2];
		if (out.end < out.start)
			out.end = out.start;
		/* Spread: the interquartile range of this span's duration. */
		for (r = 0; r < repeats; r++)
			starts[r] = reps[r][k].s.end - reps[r][k].s.start;
		qsort(starts, (size_t)repeats, sizeof *starts, cmp_time);
		out.spread = starts[(3 * (repeats - 1)) / 4] - starts[(repeats - 1) / 4];
		if (s0->lane_kind == HD_LANE_STREAM) {
			stream_lane_name(sc, s0->lane_index, name, sizeof name);
			lname = name;
		} else if (s0->lane_kind == HD_LANE_HOST && s0->lane_index > 0 &&
			   s0->lane_index <= nthreads) {
			lname = tnames[s0->lane_index];
		}
		out.lane = sink->lane(sink->ctx, s0->lane_kind, rt.rank, s0->lane_index, lname);
		out.label = sink->string(sink->ctx, op->label ? op->label : hd_op_api_name(op));
		sink->span(sink->ctx, &out);
	}
	good = 1;
out:
	for (r = 0; reps && r < repeats; r++)
		free(reps[r]);
	free(reps);
	free(nreps);
	free(starts);
	free(ends);
	free(bare);
	free(tnames);
	teardown(&rt);
	return good ? 0 : -1;
}

int
hd_rt_device_count(struct hd_err *e)
{
	int n = 0;

	if (cuda_available(e) != 0)
		return -1;
	cudaGetDeviceCount(&n);
	return n;
}

/* One GPU here; several ranks go to one process per rank (ranks.h). */
static int
cuda_run(const struct hd_scenario *sc, const struct hd_run_opts *o, const struct hd_sink *sink,
	 struct hd_err *e)
{
	if (sc->nranks > 1)
		return hd_ranks_run(sc, o, sink, e);
	return hd_rt_run(sc, o, NULL, sink, e);
}

const struct hd_backend_ops hd_real_backend = {
	.name = "cuda",
	.available = cuda_available,
	.run = cuda_run,
	.fits = hd_ranks_fits,
};

#define HD_STR2(x) #x
#define HD_STR(x)  HD_STR2(x)

const char *
hd_real_build_info(void)
{
	/* CUDART_VERSION is 1000 * major + 10 * minor. */
	return "GPU support: CUDA (built against CUDA runtime API " HD_STR(CUDART_VERSION) ")";
}
