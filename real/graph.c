/*
 * graph.c - CUDA graphs for the real backend (graph.h).
 *
 * Capture runs on a non-blocking stream created for it, in global capture
 * mode: the mode that refuses, during the capture, the synchronising and
 * allocating calls the lesson language keeps out of graphs.  Each graph is
 * captured once and instantiated once; the run then only launches it.
 */
#include <stdlib.h>
#include <string.h>

#include "ir/graph.h"
#include "real/cudaerr.h"
#include "real/fault.h"
#include "real/graph.h"

struct rt_graph {
	int op; /* its HD_OP_GRAPH op */
	cudaGraph_t graph;
	cudaGraphExec_t exec;
};

struct hd_rt_graphs {
	struct rt_graph *v;
	int n;
	cudaStream_t capture;
};

/* Did a CUDA call succeed?  When not, fill e with the call and the driver's words. */
static int
call_ok(struct hd_err *e, cudaError_t rc, const char *call)
{
	if (rc == cudaSuccess)
		return 1;
	hd_cuda_fail(e, "", call, 0, rc);
	cudaGetLastError(); /* clear a sticky error so teardown can run */
	return 0;
}
#define CK(e, call) call_ok((e), HD_FAULT_CALL(#call, (call), cudaErrorUnknown), #call)

/* Capture graph op g's nodes on gs->capture into *out, then instantiate it. */
static int
capture(struct hd_rt_graphs *gs, const struct hd_scenario *sc, int g, hd_rt_node_fn node, void *ctx,
	struct rt_graph *out, struct hd_err *e)
{
	struct hd_err ignore = { 0 };
	cudaGraph_t graph = NULL;
	size_t n = 0, k;
	int *nodes = hd_graph_nodes(sc, g, &n), good = 1;

	out->op = g;
	if (nodes == NULL) {
		hd_err_set(e, HD_EXIT_INPUT, "", "graph %s (line %d) has no node to capture",
			   sc->ops[g].text != NULL ? sc->ops[g].text : "?", sc->ops[g].line);
		return -1;
	}
	if (!CK(e, cudaStreamBeginCapture(gs->capture, cudaStreamCaptureModeGlobal))) {
		free(nodes);
		return -1;
	}
	for (k = 0; k < n && good; k++)
		good = node(ctx, nodes[k], gs->capture, e) == 0;
	free(nodes);
	/* the capture is ended even after a failed node, so the stream is usable */
	if (!CK(good ? e : &ignore, cudaStreamEndCapture(gs->capture, &graph)) || !good) {
		if (graph != NULL)
			cudaGraphDestroy(graph);
		return -1;
	}
	/* the instantiated graph stands alone: the captured one goes at once */
	out->graph = graph;
	if (!CK(e, cudaGraphInstantiate(&out->exec, graph, 0)))
		return -1;
	out->graph = NULL;
	return CK(e, cudaGraphDestroy(graph)) ? 0 : -1;
}

struct hd_rt_graphs *
hd_rt_graphs_new(const struct hd_scenario *sc, hd_rt_node_fn node, void *ctx, struct hd_err *e)
{
	struct hd_rt_graphs *gs = hd_xcalloc(1, sizeof *gs);
	int i, n = 0;

	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == HD_OP_GRAPH)
			n++;
	if (n == 0)
		return gs;
	gs->v = hd_xcalloc((size_t)n, sizeof *gs->v);
	if (!CK(e, cudaStreamCreateWithFlags(&gs->capture, cudaStreamNonBlocking)))
		goto fail;
	for (i = 0; i < sc->nops; i++) {
		if (sc->ops[i].kind != HD_OP_GRAPH)
			continue;
		/* counted first, so a failed capture's graph is destroyed too */
		if (capture(gs, sc, i, node, ctx, &gs->v[gs->n++], e) != 0)
			goto fail;
	}
	return gs;
fail:
	hd_rt_graphs_free(gs);
	return NULL;
}

int
hd_rt_graph_launch(struct hd_rt_graphs *gs, int g, cudaStream_t s, struct hd_err *e)
{
	int i;

	for (i = 0; gs != NULL && i < gs->n; i++)
		if (gs->v[i].op == g && gs->v[i].exec != NULL)
			return CK(e, cudaGraphLaunch(gs->v[i].exec, s)) ? 0 : -1;
	hd_err_set(e, HD_EXIT_FAIL, "", "op %d is not a captured graph", g);
	return -1;
}

void
hd_rt_graphs_free(struct hd_rt_graphs *gs)
{
	int i;

	if (gs == NULL)
		return;
	for (i = 0; i < gs->n; i++) {
		if (gs->v[i].exec != NULL)
			cudaGraphExecDestroy(gs->v[i].exec);
		if (gs->v[i].graph != NULL)
			cudaGraphDestroy(gs->v[i].graph);
	}
	if (gs->capture != NULL)
		cudaStreamDestroy(gs->capture);
	free(gs->v);
	free(gs);
}
