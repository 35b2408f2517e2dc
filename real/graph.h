/*
 * graph.h - CUDA graphs in the real backend: each graph of a scenario is
 * captured once, before the run, on a stream of its own (stream capture,
 * then cudaGraphInstantiate), and each `launch` is one cudaGraphLaunch.
 * The executor (real_cuda.c) enqueues the nodes, so they are the same
 * kernels and copies it runs outside graphs.  Builds with CUDA only.
 */
#ifndef HD_REAL_GRAPH_H
#define HD_REAL_GRAPH_H

#include <cuda_runtime_api.h>

#include "base/util.h"
#include "ir/ir.h"

/* The instantiated graphs of one scenario (opaque). */
struct hd_rt_graphs;

/* Enqueue node `op` of sc (a kernel or an async copy) on stream s: 0, or -1
 * with e naming the call that failed. */
typedef int (*hd_rt_node_fn)(void *ctx, int op, cudaStream_t s, struct hd_err *e);

/*
 * Capture every graph of sc, its nodes in order (loops multiplied out)
 * enqueued by node(ctx, op, capture stream, e), and instantiate it.  A
 * scenario without graphs gives an empty set.  NULL with e naming the
 * call that failed; nothing is left allocated then.
 */
struct hd_rt_graphs *hd_rt_graphs_new(const struct hd_scenario *sc, hd_rt_node_fn node, void *ctx,
				      struct hd_err *e);

/* cudaGraphLaunch of graph op g (an HD_OP_GRAPH of the scenario) on s: 0,
 * or -1 with e set. */
int hd_rt_graph_launch(struct hd_rt_graphs *gs, int g, cudaStream_t s, struct hd_err *e);

/* Destroy the graphs and their capture stream; accepts NULL. */
void hd_rt_graphs_free(struct hd_rt_graphs *gs);

#endif
