/*
 * fake_cuda.c - a stand-in CUDA runtime and kernel library (fake_cuda.h).
 *
 * Only what calibrate.c calls.  Each stream has a clock: an operation starts
 * when the stream is free or now, whichever is later, and lasts what the
 * figures in fake_cuda.h say; an event records its stream's clock; a sync
 * waits for it in real time.  Host-side calls (pinning, allocation, copies
 * from pageable memory) spin for their cost.  The latch kernel returns at
 * once, so gated intervals hold exactly the queued work.
 *
 * Graphs: work queued on a capturing stream becomes the graph's nodes (their
 * durations) instead of running; cudaGraphLaunch costs the host
 * FAKE_GRAPH_LAUNCH and queues each node with FAKE_GRAPH_NODE before it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "kernels/kernels.h"
#include "tests/fake_cuda.h"

int fake_cuda_calls, fake_cuda_fail_at, fake_cuda_latch_times_out, fake_cuda_captures,
    fake_cuda_ptds;
int fake_cuda_no_faults;
int fake_cuda_slow_pageable;
int fake_cuda_managed_allocs;
char fake_cuda_managed_log[FAKE_MANAGED_LOG];
int fake_cuda_dma_pageable;

struct CUstream_st {
	double busy;            /* when the last queued operation ends */
	struct CUgraph_st *cap; /* capturing into this graph, or NULL */
};
struct CUgraph_st {
	double *node; /* each node's duration, s */
	int n, cap;
};
struct CUgraphExec_st {
	double *node;
	int n;
};
struct CUevent_st {
	double t;
	int notiming; /* made with cudaEventDisableTiming */
};

/* Host memory the fake knows: pinned, registered or managed. */
static struct {
	char *p;
	size_t n;
	int managed, resident;
} known[64];
static int nknown;
static struct CUstream_st legacy;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
spin(double s)
{
	double end = now() + s;

	while (now() < end)
		;
}

static int
find(const void *p)
{
	int i;

	for (i = 0; i < nknown; i++)
		if ((const char *)p >= known[i].p && (const char *)p < known[i].p + known[i].n)
			return i;
	return -1;
}

/* One more letter in fake_cuda_managed_log, while there is room. */
static void
managed_log(char c)
{
	size_t n = strlen(fake_cuda_managed_log);

	if (n + 1 < sizeof fake_cuda_managed_log)
		fake_cuda_managed_log[n] = c;
}

static void
remember(void *p, size_t n, int managed)
{
	if (nknown == (int)(sizeof known / sizeof known[0]))
		abort();
	known[nknown].p = p;
	known[nknown].n = n;
	known[nknown].managed = managed;
	known[nknown].resident = 0;
	nknown++;
}

static void
forget(const void *p)
{
	int i = find(p);

	if (i >= 0)
		known[i] = known[--nknown];
}

static struct CUstream_st *
st(cudaStream_t s)
{
	/* the legacy and per-thread handles are one stream here */
	return s != NULL && s != cudaStreamLegacy && s != cudaStreamPerThread ?
	    (struct CUstream_st *)s :
	    &legacy;
}

/* Stream s is capturing: d becomes a node of its graph. */
static int
captured(cudaStream_t s, double d)
{
	struct CUgraph_st *g = st(s)->cap;

	if (g == NULL)
		return 0;
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->node = realloc(g->node, (size_t)g->cap * sizeof *g->node);
		if (g->node == NULL)
			abort();
	}
	g->node[g->n++] = d;
	return 1;
}

static void
queue(cudaStream_t s, double d)
{
	struct CUstream_st *x = st(s);
	double t = now();

	if (captured(s, d))
		return;
	x->busy = (x->busy > t ? x->busy : t) + d;
}

/*
 * A pinned copy over the host link.  With FAKE_CUDA_NODE_DMA (bytes/s) the
 * host serves every GPU's copies, both ways, at that total: each copy also
 * takes its bytes' share of one node-wide clock and ends when both its link
 * and the host have moved it.
 */
static void
queue_host_dma(cudaStream_t s, size_t n, double rate)
{
	static double node_busy;
	struct CUstream_st *x = st(s);
	const char *v = getenv("FAKE_CUDA_NODE_DMA");
	double node = v != NULL ? atof(v) : 0, t = now(), start, end;

	if (captured(s, 1.8e-6 + (double)n / rate))
		return;
	start = x->busy > t ? x->busy : t;
	end = start + 1.8e-6 + (double)n / rate;
	if (node > 0) {
		/* from when it is queued: the host's share does not wait for the link */
		double ns = node_busy > t ? node_busy : t;

		node_busy = ns + (double)n / node;
		if (node_busy > end)
			end = node_busy;
	}
	x->busy = end;
}

void
fake_cuda_queue(cudaStream_t s, double seconds)
{
	queue(s, seconds);
}

static cudaError_t
checked(void)
{
	return ++fake_cuda_calls == fake_cuda_fail_at ? cudaErrorMemoryAllocation : cudaSuccess;
}

const char *
cudaGetErrorString(cudaError_t e)
{
	return e != cudaSuccess ? "fake failure" : "no error";
}

const char *
cudaGetErrorName(cudaError_t e)
{
	return e != cudaSuccess ? "cudaErrorFake" : "cudaSuccess";
}

cudaError_t
cudaGetLastError(void)
{
	return cudaSuccess;
}

cudaError_t
cudaGetDeviceCount(int *n)
{
	const char *v = getenv("FAKE_CUDA_DEVICES"); /* seen by rank workers too */

	*n = v != NULL && *v ? atoi(v) : 1;
	return cudaSuccess;
}

cudaError_t
cudaSetDevice(int d)
{
	(void)d;
	return checked();
}

cudaError_t
cudaDeviceSynchronize(void)
{
	return checked();
}

cudaError_t
cudaGetDeviceProperties(struct cudaDeviceProp *p, int d)
{
	(void)d;
	memset(p, 0, sizeof *p);
	strcpy(p->name, "NVIDIA H100 80GB HBM3 (fake)");
	p->multiProcessorCount = 132;
	p->asyncEngineCount = 3;
	return checked();
}

cudaError_t
cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d)
{
	(void)d;
	/* No such PCI device in sysfs: the link stays unread.  The PCI address is
	 * optional to the caller, so it never fails: every counted call is one
	 * whose failure must stop a calibration. */
	if (a == cudaDevAttrPciBusId || a == cudaDevAttrPciDomainId ||
	    a == cudaDevAttrPciDeviceId) {
		*v = a == cudaDevAttrPciBusId ? 0xfe : a == cudaDevAttrPciDomainId ? 0xfffe : 0x1f;
		return cudaSuccess;
	}
	*v = 1;
	return checked();
}

cudaError_t
cudaGetDeviceFlags(unsigned *f)
{
	*f = 0;
	return checked();
}

/* 1 GiB free: calibrate's largest buffer is a quarter of it, 256 MiB, the
 * size its host-only pass touches; with 2 GiB check_calibrate took 3.4
 * minutes on a 2-core machine, with 1 GiB 2.1 */
cudaError_t
cudaMemGetInfo(size_t *freeb, size_t *total)
{
	*freeb = (size_t)1 << 30;
	*total = (size_t)80 << 30;
	return checked();
}

cudaError_t
cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f)
{
	(void)f;
	*s = (cudaStream_t)calloc(1, sizeof(struct CUstream_st));
	return checked();
}

cudaError_t
cudaStreamCreateWithPriority(cudaStream_t *s, unsigned f, int prio)
{
	(void)prio;
	return cudaStreamCreateWithFlags(s, f);
}

cudaError_t
cudaStreamDestroy(cudaStream_t s)
{
	if (s != NULL && s != cudaStreamLegacy && s != cudaStreamPerThread && st(s)->cap != NULL) {
		free(st(s)->cap->node); /* a capture never ended */
		free(st(s)->cap);
	}
	free(s);
	return cudaSuccess;
}

cudaError_t
cudaEventCreate(cudaEvent_t *e)
{
	*e = (cudaEvent_t)calloc(1, sizeof(struct CUevent_st));
	return checked();
}

cudaError_t
cudaEventCreateWithFlags(cudaEvent_t *e, unsigned f)
{
	cudaError_t rc = cudaEventCreate(e);

	if (rc == cudaSuccess && *e != NULL)
		((struct CUevent_st *)*e)->notiming = (f & cudaEventDisableTiming) != 0;
	return rc;
}

cudaError_t
cudaEventSynchronize(cudaEvent_t e)
{
	double t = ((struct CUevent_st *)e)->t;

	while (now() < t)
		;
	return checked();
}

cudaError_t
cudaEventQuery(cudaEvent_t e)
{
	return now() < ((struct CUevent_st *)e)->t ? cudaErrorNotReady : cudaSuccess;
}

/* IPC: a handle carries the pointer; the ranks' fake buffers are never touched. */
cudaError_t
cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p)
{
	memset(h, 0, sizeof *h);
	memcpy(h->reserved, &p, sizeof p);
	return checked();
}

cudaError_t
cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned f)
{
	(void)f;
	memcpy(p, h.reserved, sizeof *p);
	return *p != NULL ? checked() : cudaErrorInvalidValue;
}

cudaError_t
cudaIpcCloseMemHandle(void *p)
{
	(void)p;
	return cudaSuccess;
}

cudaError_t
cudaEventDestroy(cudaEvent_t e)
{
	free(e);
	return cudaSuccess;
}

cudaError_t
cudaHostAlloc(void **p, size_t n, unsigned f)
{
	(void)f;
	*p = calloc(1, n);
	remember(*p, n, 0);
	return checked();
}

cudaError_t
cudaHostGetDevicePointer(void **d, void *h, unsigned f)
{
	(void)f;
	*d = h;
	return checked();
}

/* Device buffers from FAKE_MAP_MIN up: address space reserved with mmap
 * (never touched, and as quick under a sanitizer's allocator as without), so
 * that their mapping cost is the fake's alone. */
static struct {
	void *p;
	size_t n;
} mapped[64];
static int nmapped;

cudaError_t
cudaMalloc(void **p, size_t n)
{
	double t0 = now();

	if (n >= FAKE_MAP_MIN && nmapped < (int)(sizeof mapped / sizeof mapped[0])) {
		*p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (*p == MAP_FAILED)
			abort();
		mapped[nmapped].p = *p;
		mapped[nmapped++].n = n;
		spin(20e-6 + (double)n / FAKE_MALLOC - (now() - t0));
		return checked();
	}
	spin(20e-6);
	*p = malloc(n); /* never touched: costs no memory */
	return checked();
}

cudaError_t
cudaFree(void *p)
{
	double t0 = now();
	int i;

	if (p == NULL)
		return checked();
	for (i = 0; i < nmapped; i++)
		if (mapped[i].p == p) {
			size_t n = mapped[i].n;

			munmap(p, n);
			mapped[i] = mapped[--nmapped];
			spin(10e-6 + (double)n / FAKE_FREE - (now() - t0));
			return checked();
		}
	i = find(p);
	if (i >= 0 && known[i].managed)
		managed_log('F');
	spin(i >= 0 && known[i].managed ? FAKE_FREE_MANAGED : 10e-6);
	forget(p);
	free(p);
	return checked();
}

cudaError_t
cudaMemset(void *p, int v, size_t n)
{
	(void)p;
	(void)v;
	(void)n;
	return checked();
}

cudaError_t
cudaMallocHost(void **p, size_t n)
{
	*p = malloc(n);
	spin(15e-6 + (double)n / 5e9);
	remember(*p, n, 0);
	return checked();
}

cudaError_t
cudaFreeHost(void *p)
{
	int i = find(p);

	if (i >= 0)
		spin((double)known[i].n / 40e9);
	forget(p);
	free(p);
	return checked();
}

cudaError_t
cudaHostRegister(void *p, size_t n, unsigned f)
{
	(void)f;
	spin(10e-6 + (double)n / FAKE_PIN);
	remember(p, n, 0);
	return checked();
}

cudaError_t
cudaHostUnregister(void *p)
{
	int i = find(p);

	spin(5e-6 + (i >= 0 ? (double)known[i].n : 0) / 50e9);
	forget(p);
	return checked();
}

cudaError_t
cudaMallocManaged(void **p, size_t n, unsigned f)
{
	(void)f;
	spin(FAKE_MALLOC_MANAGED);
	fake_cuda_managed_allocs++;
	managed_log('A');
	*p = malloc(n);
	remember(*p, n, 1);
	return checked();
}

cudaError_t
cudaStreamSynchronize(cudaStream_t s)
{
	double t = st(s)->busy;

	while (now() < t)
		;
	spin(3e-6);
	return checked();
}

cudaError_t
cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
	struct CUevent_st *ev = (struct CUevent_st *)e;
	double t = now();

	spin(ev->notiming ? FAKE_RECORD_NT : FAKE_RECORD);
	ev->t = st(s)->busy > t ? st(s)->busy : t;
	st(s)->busy = ev->t + (ev->notiming ? 0 : FAKE_EVENT_STAMP);
	return checked();
}

cudaError_t
cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned f)
{
	struct CUevent_st *ev = (struct CUevent_st *)e;

	(void)f;
	spin(1e-6);
	if (ev->t > st(s)->busy)
		st(s)->busy = ev->t;
	return checked();
}

cudaError_t
cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
	*ms = (float)((((struct CUevent_st *)b)->t - ((struct CUevent_st *)a)->t) * 1e3);
	return checked();
}

cudaError_t
cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t stream)
{
	const void *h = k == cudaMemcpyHostToDevice ? s : d;
	int i = find(h);

	spin(2e-6);
	if (k == cudaMemcpyDeviceToDevice || k == cudaMemcpyDefault) /* default: peer */
		queue(stream, 1.5e-6 + (double)n / FAKE_D2D);
	else if (i < 0 && st(stream)->cap != NULL)
		return cudaErrorStreamCaptureUnsupported; /* pageable: not while capturing */
	else if (i < 0 || known[i].managed) {
		/* managed pages on the GPU: the CPU faults them back first */
		if (i >= 0 && known[i].resident) {
			cudaStreamSynchronize(stream);
			spin(FAKE_HOST_FAULT +
			     (double)n /
				 (k == cudaMemcpyHostToDevice ? FAKE_HOST_FAULT_READ :
								FAKE_HOST_FAULT_WRITE));
			known[i].resident = 0;
		}
		if (i >= 0) /* the driver's extra work for managed memory */
			spin(FAKE_MEMCPY_MANAGED);
		/* pageable: the host stages every byte before returning */
		cudaStreamSynchronize(stream);
		if (i < 0 && n >= 4096 && fake_cuda_slow_pageable > 0) {
			fake_cuda_slow_pageable--;
			spin(3 * (5e-6 + (double)n / 12e9));
		} else if (i < 0 && fake_cuda_dma_pageable)
			spin(5e-6 +
			     (double)n / (k == cudaMemcpyHostToDevice ? FAKE_H2D : FAKE_D2H));
		else
			spin(5e-6 + (double)n / 12e9);
		queue(stream, 4e-5);
	} else
		queue_host_dma(stream, n, k == cudaMemcpyHostToDevice ? FAKE_H2D : FAKE_D2H);
	return checked();
}

cudaError_t
cudaDeviceGetPCIBusId(char *id, int len, int dev)
{
	(void)dev;
	snprintf(id, (size_t)len, "0000:99:00.0"); /* no such sysfs device */
	return cudaSuccess;                        /* not counted: hdsim goes on without it */
}

cudaError_t
cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k)
{
	cudaError_t rc = cudaMemcpyAsync(d, s, n, k, NULL); /* the legacy stream */

	if (rc != cudaSuccess)
		return rc;
	return cudaStreamSynchronize(NULL);
}

/* cudaMemcpy in a program built for the per-thread default stream */
cudaError_t cudaMemcpy_ptds(void *d, const void *s, size_t n, enum cudaMemcpyKind k);

cudaError_t
cudaMemcpy_ptds(void *d, const void *s, size_t n, enum cudaMemcpyKind k)
{
	cudaError_t rc;

	fake_cuda_ptds++;
	rc = cudaMemcpyAsync(d, s, n, k, cudaStreamPerThread);

	if (rc != cudaSuccess)
		return rc;
	return cudaStreamSynchronize(cudaStreamPerThread);
}

/*
 * Pages a prefetch brings to the host cost the CPU's first write more than
 * the next (a lent H100: bench/probe/pftouch.hds): the whole pages of
 * [p, p + n) are handed back to the kernel, whose zero pages the next
 * write faults in.
 */
static void
land(char *p, size_t n)
{
	uintptr_t pg = 4096, a = ((uintptr_t)p + pg - 1) / pg * pg,
		  b = ((uintptr_t)p + n) / pg * pg;

	if (b > a)
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
}

cudaError_t
cudaMemPrefetchAsync(const void *p, size_t n, struct cudaMemLocation l, unsigned f, cudaStream_t s)
{
	int i = find(p);

	int to_dev = l.type == cudaMemLocationTypeDevice;
	double rate = to_dev ? FAKE_PREFETCH : FAKE_PREFETCH_D2H;

	(void)f;
	if (i >= 0 && known[i].managed && known[i].resident == to_dev)
		rate = FAKE_WALK; /* already there: the driver walks the pages */
	else if (i >= 0 && known[i].managed && !to_dev)
		land(known[i].p, known[i].n);
	if (i >= 0)
		known[i].resident = to_dev;
	queue(s, 5e-6 + (double)n / rate);
	return checked();
}

/* Several GPUs (FAKE_CUDA_DEVICES): every pair has peer access with native
 * atomics, and a peer copy takes FAKE_PEER_LAT + n / FAKE_PEER on the stream. */
cudaError_t
cudaGetDevice(int *d)
{
	*d = 0;
	return checked();
}

cudaError_t
cudaDeviceCanAccessPeer(int *can, int d, int peer)
{
	*can = d != peer;
	return checked();
}

cudaError_t
cudaDeviceGetP2PAttribute(int *v, enum cudaDeviceP2PAttr a, int src, int dst)
{
	(void)src;
	(void)dst;
	*v = a == cudaDevP2PAttrPerformanceRank ? 0 : 1;
	return checked();
}

cudaError_t
cudaDeviceEnablePeerAccess(int peer, unsigned f)
{
	(void)peer;
	(void)f;
	return checked();
}

cudaError_t
cudaDeviceDisablePeerAccess(int peer)
{
	(void)peer;
	return checked();
}

cudaError_t
cudaMemcpyPeerAsync(void *d, int dd, const void *s, int sd, size_t n, cudaStream_t stream)
{
	(void)d;
	(void)dd;
	(void)s;
	(void)sd;
	spin(0.5e-6);
	queue(stream, FAKE_PEER_LAT + (double)n / FAKE_PEER);
	return checked();
}

cudaError_t
cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
	(void)mode;
	/* the legacy stream cannot capture; a stream captures one graph at a time */
	if (st(s) == &legacy || st(s)->cap != NULL)
		return cudaErrorStreamCaptureUnsupported;
	st(s)->cap = calloc(1, sizeof(struct CUgraph_st));
	fake_cuda_captures++;
	return checked();
}

cudaError_t
cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g)
{
	if (st(s)->cap == NULL)
		return cudaErrorIllegalState;
	*g = st(s)->cap;
	st(s)->cap = NULL;
	return checked();
}

cudaError_t
cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags)
{
	struct CUgraphExec_st *e = calloc(1, sizeof *e);

	(void)flags;
	e->n = g->n;
	e->node = calloc((size_t)g->n + 1, sizeof *e->node);
	memcpy(e->node, g->node, (size_t)g->n * sizeof *e->node);
	*x = e;
	spin(20e-6);
	return checked();
}

cudaError_t
cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s)
{
	int i;

	spin(FAKE_GRAPH_LAUNCH);
	for (i = 0; i < x->n; i++)
		queue(s, FAKE_GRAPH_NODE + x->node[i]);
	return checked();
}

cudaError_t
cudaGraphExecDestroy(cudaGraphExec_t x)
{
	if (x != NULL)
		free(x->node);
	free(x);
	return cudaSuccess;
}

cudaError_t
cudaGraphDestroy(cudaGraph_t g)
{
	if (g != NULL)
		free(g->node);
	free(g);
	return cudaSuccess;
}

/* Not counted: how often a caller polls depends on timing. */
cudaError_t
cudaStreamQuery(cudaStream_t s)
{
	return now() < st(s)->busy ? cudaErrorNotReady : cudaSuccess;
}

int
hd_kernel_spin(hd_cuda_stream s, uint64_t ns, unsigned grid)
{
	(void)grid;
	spin(2e-6);
	queue((cudaStream_t)s, (double)ns * 1e-9 + 1e-6);
	return (int)checked();
}

int
hd_kernel_latch(hd_cuda_stream s, volatile int *flag, uint64_t timeout_ns, int *timed_out)
{
	(void)s;
	(void)flag;
	(void)timeout_ns;
	spin(2e-6);
	if (fake_cuda_latch_times_out)
		*timed_out = 1;
	return (int)checked();
}

int
hd_kernel_compute(hd_cuda_stream s, float *scratch, double flops, unsigned grid, double *done)
{
	const double round = 2.0 * 8 * 528 * 256;
	double d = (double)(uint64_t)(flops / round + 0.5);

	(void)scratch;
	(void)grid;
	if (d < 1)
		d = 1;
	d *= round;
	if (done != NULL)
		*done = d;
	spin(2e-6);
	queue((cudaStream_t)s, 2.5e-6 + d / FAKE_FLOPS);
	return (int)checked();
}

/* A small grid runs at its blocks' rate, a full one at FAKE_HBM. */
static double
grid_bw(unsigned grid, double block)
{
	return grid == 0 || grid * block > FAKE_HBM ? FAKE_HBM : grid * block;
}

int
hd_kernel_memory(hd_cuda_stream s, void *buf, uint64_t bytes, unsigned grid)
{
	int i = find(buf);
	double d = 2.5e-6 + (double)bytes / grid_bw(grid, FAKE_BLOCK_MEM);

	if (i >= 0 && known[i].managed && !known[i].resident) {
		if (!fake_cuda_no_faults)
			d += 30e-6 + (double)bytes / 9e9; /* demand faults, as a reduce's */
		known[i].resident = 1;
	}
	spin(2e-6);
	queue((cudaStream_t)s, d);
	return (int)checked();
}

int
hd_kernel_fill(hd_cuda_stream s, void *buf, uint64_t bytes, uint32_t pattern, unsigned grid)
{
	spin(2e-6);
	if (bytes == 4 && find(buf) >= 0)
		memcpy(buf, &pattern, 4); /* a mapped host word: seen at once */
	/* on the default grid, as before the grid mattered: a flat 2 us */
	queue((cudaStream_t)s,
	      grid == 0 ? 2e-6 : 2.5e-6 + (double)bytes / grid_bw(grid, FAKE_BLOCK_FILL));
	return (int)checked();
}

int
hd_kernel_reduce(hd_cuda_stream s, const void *buf, uint64_t bytes, float *out, unsigned grid)
{
	int i = find(buf);
	double d = 2.5e-6 + (double)bytes / (grid == 0 ? 3e12 : grid_bw(grid, FAKE_BLOCK_REDUCE));

	(void)out;
	if (i >= 0 && known[i].managed && !known[i].resident) {
		if (!fake_cuda_no_faults)
			d += 30e-6 + (double)bytes / 9e9; /* demand faults */
		known[i].resident = 1;
	}
	spin(2e-6);
	queue((cudaStream_t)s, d);
	return (int)checked();
}

unsigned
hd_kernel_full_grid(void)
{
	return 528;
}
