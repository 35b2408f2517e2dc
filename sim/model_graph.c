/*
 * model_graph.c - CUDA graphs in the model.
 *
 * A launch (`launch g on s`) costs the host one call, api.graph_launch, and
 * puts one G_GRAPH gop on its stream, which counts once against the
 * stream's queue.  When that gop reaches the head of its stream it runs the
 * graph's nodes -- the kernels and copies of its body, loops multiplied out,
 * in order -- one after another, each as a gop of its own off the stream:
 * a node starts gpu.graph_node after the one before it ends (the first,
 * gpu.graph_node after the launch latency has passed), then takes SMs or a
 * copy engine like any kernel or copy.  The stream shows the whole graph as
 * one span, from its first node's start to its last node's end; the nodes
 * show on the Compute and copy-engine rows under their own ops.
 */
#include <stdlib.h>
#include <string.h>

#include "ir/graph.h"
#include "sim/model_priv.h"

void
model_graph_init(struct world *w)
{
	const struct hd_scenario *sc = w->sc;
	int i, n = 0;

	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == HD_OP_GRAPH)
			n++;
	w->graphs = hd_xcalloc((size_t)n + 1, sizeof *w->graphs);
	for (i = 0; i < sc->nops; i++) {
		struct model_graph *g;

		if (sc->ops[i].kind != HD_OP_GRAPH)
			continue;
		g = &w->graphs[w->ngraphs++];
		g->op = i;
		g->nodes = hd_graph_nodes(sc, i, &g->n);
	}
}

void
model_graph_free(struct world *w)
{
	int i;

	for (i = 0; i < w->ngraphs; i++)
		free(w->graphs[i].nodes);
	free(w->graphs);
	w->graphs = NULL;
	w->ngraphs = 0;
}

static enum dir
copy_dir(const struct hd_op *op)
{
	return op->copy == HD_COPY_H2D ? DIR_H2D : op->copy == HD_COPY_D2H ? DIR_D2H : DIR_D2D;
}

void
model_graph_lanes(const struct hd_scenario *sc, int g, int managed, int *compute, int *ce,
		  int *pcie)
{
	int i, end = g + 1 + sc->ops[g].body_len;

	for (i = g + 1; i < end && i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];
		enum dir d;

		if (op->kind == HD_OP_KERNEL) {
			*compute = 1;
			if (managed)
				pcie[0] = 1;
		} else if (op->kind == HD_OP_COPY) {
			d = copy_dir(op);
			ce[d] = 1;
			if (d != DIR_D2D)
				pcie[d == DIR_H2D ? 0 : 1] = 1;
		}
	}
}

/* Which of the world's graphs is graph op g (-1: none; the IR was checked). */
static int
graph_index(const struct world *w, int g)
{
	int lo = 0, hi = w->ngraphs;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (w->graphs[mid].op < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->ngraphs && w->graphs[lo].op == g ? lo : -1;
}

void
model_graph_gop(struct model *m, int gi, int g)
{
	struct gop *gg = &m->g[gi];

	gg->graph = graph_index(m->w, g);
	gg->node = 0;
}

/*
 * Schedule node k of graph gop gi as a gop of its own, off the stream: it
 * starts gpu.graph_node after `after` (the previous node's end, or for the
 * first the end of the launch latency).
 */
static void
node_schedule(struct model *m, int gi, hd_time after)
{
	const struct model_graph *mg = &m->w->graphs[m->g[gi].graph];
	int opi = mg->nodes[m->g[gi].node], ci, stream = m->g[gi].stream;
	const struct hd_op *op = &m->sc->ops[opi];
	struct gop *c;

	ci = model_gop_new(m, op->kind == HD_OP_KERNEL ? G_KERNEL : G_COPY, stream, opi,
			   m->execs[opi]++);
	c = &m->g[ci];
	c->parent = gi;
	c->state = GS_LAUNCH;
	c->submit = m->g[gi].submit;
	if (op->kind == HD_OP_KERNEL) {
		model_kernel_place(m, ci);
	} else {
		c->dir = copy_dir(op);
		c->bytes = op->bytes;
	}
	model_at(m, after + m->p->graph_node, EV_NODE, (uint32_t)ci, c->gen);
}

void
model_graph_start(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	hd_time now = hd_engine_now(m->eng), ready = g->submit + m->p->launch_latency;

	g->state = GS_RUNNING;
	g->node = 0;
	if (g->graph < 0 || m->w->graphs[g->graph].n == 0) {
		g->start = now; /* nothing to run (the IR was checked: not reached) */
		model_gop_complete(m, gi);
		return;
	}
	node_schedule(m, gi, ready > now ? ready : now);
}

void
model_graph_node_ready(struct model *m, int ci)
{
	struct gop *c = &m->g[ci];
	hd_time now = hd_engine_now(m->eng);
	int xi;

	if (m->g[c->parent].node == 0)
		m->g[c->parent].start = now; /* the graph's span starts with its first node */
	if (c->kind == G_KERNEL) {
		model_kernel_ready(m, ci);
		return;
	}
	c->state = GS_WAITRES;
	c->start = now;
	xi = model_xfer_new(m, X_COPY, ci, c->dir, c->bytes, 0, m->p->copy_latency,
			    m->ce_of[c->dir]);
	model_engine_queue(m, xi);
}

void
model_graph_node_done(struct model *m, int ci)
{
	struct gop *c = &m->g[ci];
	int gi = c->parent;
	struct gop *g = &m->g[gi];
	hd_time now = hd_engine_now(m->eng);

	/* the node's slot is free: it was never on a stream */
	c->state = GS_FREE;
	c->gen++;
	c->parent = -1;
	c->next_free = m->gfree;
	m->gfree = ci;
	m->inflight--;
	if (++g->node < m->w->graphs[g->graph].n) {
		node_schedule(m, gi, now);
		return;
	}
	model_emit(m, model_stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_KERNEL, HD_WHY_NONE,
		   g->start, now, 0, model_work_label(m, g->op));
	model_gop_complete(m, gi);
}
