/*
 * model_ranks.c - the model between ranks: the path a transfer takes from
 * one GPU to another (NVLink ports, PCIe through the root complex, the
 * network), sends matched with receives in order per pair of ranks, and
 * collectives that start when the last rank arrives and run by sim/coll.c's
 * schedule or formula.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model_priv.h"

/* --- between ranks ----------------------------------------------------------- */

/* The flow-network path of a transfer from rank m to rank peer. */
void
model_peer_path(struct model *m, struct xfer *x, int peer)
{
	struct world *w = m->w;
	struct model *q = &w->rk[peer];
	struct hd_link l = hd_coll_link(m->p, m->rank, peer);
	int na, nb;

	x->cls = l.cls;
	x->lat += l.lat;
	x->cap = l.bw;
	/* a copy engine's peer copy runs at its own rate over NVLink */
	if (x->kind == X_COPY && l.cls == HD_LINK_NVLINK && m->p->nvlink_copy_bw > 0)
		x->cap = m->p->nvlink_copy_bw;
	switch (l.cls) {
	case HD_LINK_NVLINK:
		x->res[0] = m->res_out;
		x->res[1] = q->res_in;
		x->nres = 2;
		break;
	case HD_LINK_PCIE:
		/* through the root complex: up one GPU's link, down the other's */
		x->res[0] = m->res[DIR_D2H][0];
		x->res[1] = q->res[DIR_H2D][0];
		x->nres = 2;
		break;
	case HD_LINK_NET:
	case HD_LINK__COUNT:
		na = hd_coll_node(m->p, m->rank);
		nb = hd_coll_node(m->p, peer);
		if (w->nic_out[na] < 0)
			w->nic_out[na] = hd_flow_resource(w->net, m->p->nic_bw);
		if (w->nic_in[nb] < 0)
			w->nic_in[nb] = hd_flow_resource(w->net, m->p->nic_bw);
		x->res[0] = w->nic_out[na];
		x->res[1] = w->nic_in[nb];
		x->nres = 2;
		break;
	}
}

/* A matched send (on snd) and recv (on rcv): the data moves. */
static void
comm_start(struct model *snd, int sgi, struct model *rcv, int rgi)
{
	struct gop *g = &snd->g[sgi];
	int xi = model_xfer_new(snd, X_COMM, sgi, DIR_P2P, g->bytes, 0, snd->p->coll_base, -1);
	struct xfer *x = &snd->x[xi];

	model_peer_path(snd, x, rcv->rank);
	x->rgop = rgi;
	x->rgen = rcv->g[rgi].gen;
	model_xfer_begin(snd, xi);
}

/* Take from list *head the first gop whose peer is `peer`, or -1. */
static int
unlist(struct model *m, int *head, int peer)
{
	int *pp = head;

	while (*pp >= 0) {
		int gi = *pp;

		if (m->g[gi].peer == peer) {
			*pp = m->g[gi].pnext;
			m->g[gi].pnext = -1;
			return gi;
		}
		pp = &m->g[gi].pnext;
	}
	return -1;
}

static void
enlist(struct model *m, int *head, int gi)
{
	int *pp = head;

	while (*pp >= 0)
		pp = &m->g[*pp].pnext;
	*pp = gi;
	m->g[gi].pnext = -1;
}

/*
 * A send or recv reached the head of its stream: match it with the peer's
 * oldest posted counterpart (NCCL matches them in order per pair of ranks),
 * or post it to wait for one.
 */
void
model_post(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];
	struct model *q = &m->w->rk[g->peer];
	int other;

	if (g->kind == G_SEND) {
		other = unlist(q, &q->recvs, m->rank);
		if (other >= 0)
			comm_start(m, gi, q, other);
		else
			enlist(m, &m->sends, gi);
	} else {
		other = unlist(q, &q->sends, m->rank);
		if (other >= 0)
			comm_start(q, other, m, gi);
		else
			enlist(m, &m->recvs, gi);
	}
}

struct coll_ctx {
	struct world *w;
	const struct coll *c;
};

/* A transfer of a collective's schedule: a span on the sender's link row. */
static void
coll_span(void *ctx, const struct hd_coll_xfer *x)
{
	struct coll_ctx *cc = ctx;
	struct model *m = &cc->w->rk[x->src];
	const struct gop *g = &m->g[cc->c->gop[x->src]];

	model_emit(m, model_link_lane(m, x->cls), g->op, g->iter, HD_SPAN_COMM, HD_WHY_NONE,
		   x->start, x->end, x->bytes, model_work_label(m, g->op));
}

/* Transfers a schedule makes, roughly: beyond a million, no link spans. */
static uint64_t
coll_transfers(enum hd_coll c, uint64_t bytes, int n, const struct hd_profile *p)
{
	uint64_t N = (uint64_t)n, K = p->coll_chunk > 0 ? bytes / p->coll_chunk + 1 : 1,
		 played = hd_coll_played(bytes, n, p);

	/* only the chunks played one by one are drawn: about 2^22 / n at most */
	if (K > played + 1)
		K = played + 1;

	switch (c) {
	case HD_COLL_ALLREDUCE:
		return 2 * N * (N + K);
	case HD_COLL_BROADCAST:
	case HD_COLL_REDUCE:
		return N * K;
	case HD_COLL_GATHER:
		return N;
	case HD_COLL_ALLGATHER:
	case HD_COLL_REDUCESCATTER:
	case HD_COLL_ALLTOALL:
	case HD_COLL__COUNT:
		break;
	}
	return N * N;
}

#define COLL_SPAN_LIMIT 1000000u

static void
coll_fail(struct world *w, struct model *m, const struct coll *c, int opi)
{
	const struct hd_op *a = &w->sc->ops[c->op], *b = &w->sc->ops[opi];
	struct hd_buf t;

	hd_buf_init(&t);
	hd_buf_printf(&t,
		      "collective mismatch: as collective number %llu, rank %d "
		      "calls %s of %llu bytes (root %d, line %d) but rank %d calls %s of "
		      "%llu bytes (root %d, line %d); NCCL would hang or corrupt data: "
		      "every rank must make the same collective calls in the same order",
		      (unsigned long long)c->seq + 1, c->rank0, hd_coll_name(a->coll),
		      (unsigned long long)a->bytes, a->root, a->line, m->rank,
		      hd_coll_name(b->coll), (unsigned long long)b->bytes, b->root, b->line);
	free(w->problem);
	w->problem = hd_xstrdup(t.s);
	hd_buf_free(&t);
}

/* Rank m's collective gop gi starts: when every rank is there, run it. */
void
model_coll_arrive(struct model *m, int gi)
{
	struct world *w = m->w;
	struct gop *g = &m->g[gi];
	const struct hd_op *op = &w->sc->ops[g->op];
	struct coll *c = NULL;
	hd_time now = hd_engine_now(w->eng), *done;
	size_t i;
	int r;

	for (i = 0; i < w->ncolls; i++)
		if (w->colls[i].seq == g->seq) {
			c = &w->colls[i];
			break;
		}
	if (c == NULL) {
		/* keep them ordered by seq */
		w->colls = hd_xgrow(w->colls, &w->collcap, w->ncolls + 1, sizeof *w->colls);
		for (i = w->ncolls; i > 0 && w->colls[i - 1].seq > g->seq; i--)
			w->colls[i] = w->colls[i - 1];
		c = &w->colls[i];
		w->ncolls++;
		memset(c, 0, sizeof *c);
		c->seq = g->seq;
		c->op = g->op;
		c->rank0 = m->rank;
		c->at = hd_xmalloc((size_t)w->n * sizeof *c->at);
		c->gop = hd_xmalloc((size_t)w->n * sizeof *c->gop);
		c->gen = hd_xmalloc((size_t)w->n * sizeof *c->gen);
		for (r = 0; r < w->n; r++)
			c->gop[r] = -1;
	} else {
		const struct hd_op *first = &w->sc->ops[c->op];

		if (first->coll != op->coll || first->bytes != op->bytes ||
		    (first->root != op->root && hd_coll_rooted_ok(first->coll))) {
			coll_fail(w, m, c, g->op);
			return;
		}
	}
	c->at[m->rank] = now;
	c->gop[m->rank] = gi;
	c->gen[m->rank] = g->gen;
	if (++c->arrived < w->n)
		return;

	done = hd_xmalloc((size_t)w->n * sizeof *done);
	if (w->p->coll_model == HD_CMODEL_FORMULA) {
		hd_time last = 0,
			t = hd_coll_formula(op->coll, w->p->coll_algo, op->bytes, w->n, w->p);

		for (r = 0; r < w->n; r++)
			if (c->at[r] > last)
				last = c->at[r];
		for (r = 0; r < w->n; r++)
			done[r] = last + t;
	} else {
		struct coll_ctx cc;

		cc.w = w;
		cc.c = c;
		hd_coll_schedule(
		    op->coll, w->p->coll_algo, op->bytes, op->root, w->n, w->p, c->at, done,
		    coll_transfers(op->coll, op->bytes, w->n, w->p) <= COLL_SPAN_LIMIT ? coll_span :
											 NULL,
		    &cc, NULL);
	}
	for (r = 0; r < w->n; r++)
		model_at(&w->rk[r], done[r] > now ? done[r] : now, EV_COLL, (uint32_t)c->gop[r],
			 c->gen[r]);
	free(done);
	free(c->at);
	free(c->gop);
	free(c->gen);
	i = (size_t)(c - w->colls);
	memmove(&w->colls[i], &w->colls[i + 1], (w->ncolls - i - 1) * sizeof *w->colls);
	w->ncolls--;
}

/* Rank m's part of a collective is over. */
void
model_coll_done(struct model *m, int gi)
{
	struct gop *g = &m->g[gi];

	model_emit(m, model_stream_lane(m, g->stream), g->op, g->iter, HD_SPAN_COMM, HD_WHY_NONE,
		   g->start, hd_engine_now(m->eng), g->bytes, model_work_label(m, g->op));
	model_nccl_sms(m, -1);
	model_gop_complete(m, gi);
}
