/*
 * calib_graph.c - CUDA graphs, for `hdsim calibrate` (calib_priv.h): the
 * host's time inside one cudaGraphLaunch (api.graph_launch) and the GPU's
 * time per node (gpu.graph_node), from graphs of empty spin kernels
 * captured at several sizes.
 *
 * The GPU's time per launch is taken behind the spin-kernel gate, so the
 * host's calls are not in it; the fit of that time against the node count
 * gives the per-node figure as its slope.  An empty spin kernel is timed by
 * the global timer, as the model times `kernel spin` nodes with no
 * overhead of their own, so the slope is the whole GPU cost of a node.
 * The host's call is timed alone on an idle stream; the model charges one
 * figure per launch, the intercept of its fit, and the log says how much
 * the call grows with the graph.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "real/calibrate/calib_priv.h"

#define GRAPH_SIZES 4

struct graph_op {
	cudaGraphExec_t exec;
};

static int
enq_graph(struct cal *c, cudaStream_t s, const void *arg)
{
	const struct graph_op *g = arg;

	return CK(c, cudaGraphLaunch(g->exec, s));
}

/* The host's cudaGraphLaunch call on an idle stream. */
static int
sample_call(struct cal *c, const void *arg, double *sec)
{
	const struct graph_op *g = arg;
	double t1, t2;

	if (CK(c, cudaStreamSynchronize(c->s)))
		return -1;
	t1 = calp_now();
	if (CK(c, cudaGraphLaunch(g->exec, c->s)))
		return -1;
	t2 = calp_now();
	*sec = t2 - t1;
	return CK(c, cudaStreamSynchronize(c->s));
}

/* A graph of n empty spin kernels, captured on c->s2 and instantiated. */
static int
make_graph(struct cal *c, int n, cudaGraph_t *graph, cudaGraphExec_t *exec)
{
	int i, failed;

	*graph = NULL;
	*exec = NULL;
	if (CK(c, cudaStreamBeginCapture(c->s2, cudaStreamCaptureModeGlobal)))
		return -1;
	failed = 0;
	for (i = 0; i < n && !failed; i++)
		failed = KCK(c, hd_kernel_spin((hd_cuda_stream)c->s2, 0, 1)) != 0;
	/* the capture ends even after a failed launch, so the stream stays usable */
	if (CK(c, cudaStreamEndCapture(c->s2, graph)) || failed)
		return -1;
	return CK(c, cudaGraphInstantiate(exec, *graph, 0));
}

int
calp_stage_graphs(struct cal *c)
{
	static const int full[GRAPH_SIZES] = { 8, 32, 128, 512 };
	static const int quick[GRAPH_SIZES] = { 8, 64, 256, 0 };
	const int *sizes = c->quick ? quick : full;
	double nodes[GRAPH_SIZES], host[GRAPH_SIZES], gpu[GRAPH_SIZES];
	struct hd_fit_graph f;
	struct hd_err fe = { 0 };
	char sz[32], a[32], b[32], x[32];
	int i, k = 0, rc = -1, samples = c->quick ? 5 : 15;

	calp_log_head(c, "CUDA graphs (graphs of empty spin kernels, captured and instantiated)",
		      "GPU: CUDA events around 4 launches queued behind the spin-kernel gate, "
		      "time per launch; host: the cudaGraphLaunch call alone on an idle stream");
	for (i = 0; i < GRAPH_SIZES && sizes[i] > 0; i++) {
		cudaGraph_t graph;
		struct graph_op g;
		struct calp_gate gate;
		struct hd_stats sg, sh;
		int failed;

		calp_progress(c, i, GRAPH_SIZES, "graph of %d kernels", sizes[i]);
		failed = make_graph(c, sizes[i], &graph, &g.exec) != 0;
		gate.f = enq_graph;
		gate.arg = &g;
		gate.warm = 1;
		gate.reps = 4;
		failed = failed || calp_sample_stats(c, calp_gated, &gate, 3, &sg) != 0 ||
		    sample_call(c, &g, &nodes[0]) != 0 || /* warm-up */
		    calp_sample_stats(c, sample_call, &g, samples, &sh) != 0;
		if (g.exec != NULL)
			cudaGraphExecDestroy(g.exec);
		if (graph != NULL)
			cudaGraphDestroy(graph);
		if (failed)
			goto out;
		snprintf(sz, sizeof sz, "%d nodes", sizes[i]);
		calp_log_row(c, sz, 3, gate.reps, &sg, "GPU per launch");
		calp_log_row(c, sz, samples, 1, &sh, "host call");
		nodes[k] = sizes[i];
		gpu[k] = sg.median;
		host[k++] = sh.median;
	}
	if (hd_fit_graph(nodes, host, gpu, (size_t)k, &f, &fe) != 0) {
		hd_buf_printf(c->log, "  no fit (%s): the graph figures are kept\n", fe.msg);
		hd_buf_printf(&c->sum, "  %-20s kept (%s)\n", "gpu.graph_node", fe.msg);
		rc = 0;
		goto out;
	}
	hd_buf_printf(c->log,
		      "  fit GPU time = fixed + nodes x node: node = %s, fixed = %s (residual "
		      "max %.1f %%)\n"
		      "  fit host call = launch + nodes x per-node: launch = %s%s, per node = %s "
		      "(a graph of 1000 nodes: %s; the model charges the launch figure alone)\n",
		      hd_cal_ftime(a, sizeof a, f.node), hd_cal_ftime(b, sizeof b, f.fixed),
		      100 * f.max_rel, hd_cal_ftime(x, sizeof x, f.launch),
		      f.launch_clamped ? " (clamped at 0)" : "",
		      hd_cal_ftime(sz, sizeof sz, f.launch_node),
		      hd_cal_ftime(a, sizeof a, f.launch + 1000 * f.launch_node));
	hd_cal_set_time(&c->sum, "api.graph_launch", &c->p->api_graph_launch, f.launch,
			"intercept of the cudaGraphLaunch call's time against the node count");
	hd_cal_set_time(&c->sum, "gpu.graph_node", &c->p->graph_node, f.node,
			"slope of a launched graph's GPU time against its node count");
	rc = 0;
out:
	return rc;
}
