/*
 * model_check.c - what the model refuses before it runs (a scenario whose
 * ops refer to what does not exist, a profile with a rate that is not
 * positive), and the words of a deadlock: what each stuck rank waits for.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opfacts.h"
#include "sim/model_priv.h"

/* --- checks --------------------------------------------------------------------- */

int
hd_model_check(const struct hd_scenario *sc, struct hd_err *e)
{
	int i;

	if (sc->nranks < 1 || sc->nranks > HD_MODEL_MAX_RANKS) {
		hd_err_set(e, HD_EXIT_INPUT, sc->name != NULL ? sc->name : "",
			   "scenario '%s' has %d ranks; the simulator runs 1 to %d", sc->name,
			   sc->nranks, HD_MODEL_MAX_RANKS);
		return -1;
	}
	if (sc->nstreams < 2) {
		hd_err_set(e, HD_EXIT_INPUT, sc->name != NULL ? sc->name : "",
			   "scenario '%s' lacks the two built-in streams", sc->name);
		return -1;
	}
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];
		const struct hd_op_fact *f = hd_op_fact(op->kind);
		char where[64];
		int multi, bad;

		snprintf(where, sizeof where, "line %d", op->line);
		/* what the kind must have; then the other side, and every enum */
		bad = f == NULL || !hd_op_operands_ok(sc, op);
		multi = f != NULL &&
		    ((f->operands & HD_OPND_PEER) ||
		     (op->kind == HD_OP_COPY && op->copy == HD_COPY_P2P));
		if (multi &&
		    (op->peer < 0 || op->peer >= sc->nranks || (!op->peer_rel && sc->nranks < 2) ||
		     (op->peer_rel && op->peer == 0)))
			bad = 1;
		if (op->kind == HD_OP_COLL && (unsigned)op->coll >= HD_COLL__COUNT)
			bad = 1;
		if (op->src >= sc->nbuffers || op->dst >= sc->nbuffers || op->src < HD_NONE ||
		    op->dst < HD_NONE)
			bad = 1;
		if (op->kind == HD_OP_COPY && (unsigned)op->copy >= HD_COPY__COUNT)
			bad = 1;
		if (op->kind == HD_OP_KERNEL && (unsigned)op->kernel >= HD_KERNEL__COUNT)
			bad = 1;
		if (bad) {
			hd_err_set(e, HD_EXIT_INPUT, where,
				   "scenario '%s': op %d "
				   "(%s) refers to something that does not exist",
				   sc->name, i,
				   (unsigned)op->kind < HD_OP__COUNT ? hd_op_kind_name(op->kind) :
								       "?");
			return -1;
		}
	}
	return 0;
}

int
model_check_profile(const struct hd_profile *p, struct hd_err *e)
{
	static const struct {
		const char *key;
		size_t off;
	} rates[] = {
		{ "h2d_bw", offsetof(struct hd_profile, h2d_bw) },
		{ "d2h_bw", offsetof(struct hd_profile, d2h_bw) },
		{ "host_memcpy_h2d_bw", offsetof(struct hd_profile, host_memcpy_h2d_bw) },
		{ "host_memcpy_d2h_bw", offsetof(struct hd_profile, host_memcpy_d2h_bw) },
		{ "pin_bw", offsetof(struct hd_profile, pin_bw) },
		{ "mallochost_bw", offsetof(struct hd_profile, mallochost_bw) },
		{ "hbm_bw", offsetof(struct hd_profile, hbm_bw) },
		{ "flops", offsetof(struct hd_profile, flops) },
		{ "d2d_bw", offsetof(struct hd_profile, d2d_bw) },
		{ "um_fault_bw", offsetof(struct hd_profile, um_fault_bw) },
		{ "um_prefetch_bw", offsetof(struct hd_profile, um_prefetch_bw) },
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(rates); i++) {
		double v = *(const double *)(const void *)((const char *)p + rates[i].off);

		if (!(v > 0)) {
			hd_err_set(e, HD_EXIT_INPUT, "--profile",
				   "profile '%s': %s "
				   "must be a positive rate",
				   p->name, rates[i].key);
			return -1;
		}
	}
	if (p->sms < 1) {
		hd_err_set(e, HD_EXIT_INPUT, "--profile", "profile '%s': sms must be at least 1",
			   p->name);
		return -1;
	}
	return 0;
}
/* --- deadlocks ------------------------------------------------------------- */

/* What the gop at the head of a stream waits for, in words. */
static void
describe_gop(struct world *w, struct model *m, int gi, struct hd_buf *b)
{
	const struct gop *g = &m->g[gi];
	const struct hd_op *op = &w->sc->ops[g->op];
	size_t i;
	int r, k = 0;

	if ((g->kind == G_SEND || g->kind == G_RECV || g->kind == G_COLL) &&
	    g->state == GS_QUEUED && g->ndeps > 0) {
		hd_buf_printf(b,
			      "%s (line %d), queued behind this rank's earlier NCCL "
			      "call: one communicator runs one call at a time",
			      hd_op_api_name(op), op->line);
		return;
	}
	switch (g->kind) {
	case G_SEND:
		hd_buf_printf(b,
			      "ncclSend to rank %d (line %d), which waits for rank "
			      "%d to post the matching ncclRecv from rank %d",
			      g->peer, op->line, g->peer, m->rank);
		return;
	case G_RECV:
		hd_buf_printf(b,
			      "ncclRecv from rank %d (line %d), which waits for "
			      "rank %d to post the matching ncclSend to rank %d",
			      g->peer, op->line, g->peer, m->rank);
		return;
	case G_COLL:
		hd_buf_printf(b, "%s (line %d), which waits for", hd_op_api_name(op), op->line);
		for (i = 0; i < w->ncolls; i++) {
			if (w->colls[i].seq != g->seq)
				continue;
			for (r = 0; r < w->n; r++) {
				if (w->colls[i].gop[r] >= 0)
					continue;
				if (k < 6)
					hd_buf_printf(b, "%s rank %d", k > 0 ? "," : "", r);
				k++;
			}
		}
		if (k > 6)
			hd_buf_printf(b, " and %d more ranks", k - 6);
		hd_buf_printf(b, " to call it");
		return;
	case G_KERNEL:
	case G_COPY:
	case G_GRAPH:
	case G_PREFETCH:
	case G_RECORD:
	case G_WAIT:
	case G_STAGED:
	case G_MARK:
		if (g->state == GS_QUEUED && g->ndeps > 0)
			hd_buf_printf(b,
				      "%s (line %d), which waits for work on another "
				      "stream",
				      hd_op_kind_name(op->kind), op->line);
		else
			hd_buf_printf(b, "%s (line %d)", hd_op_kind_name(op->kind), op->line);
		return;
	}
}

/* Why rank m's host thread cannot go on, in words. */
static void
describe_rank(struct world *w, struct model *m, struct hd_buf *b)
{
	const struct host *h = &m->h;
	const struct hd_op *op = h->op >= 0 ? &w->sc->ops[h->op] : NULL;
	int s, said = 0;

	hd_buf_printf(b, "  rank %d: ", m->rank);
	if (model_threads_main_text(w, m, b))
		return; /* a put or get, or only its other threads wait */
	if (op == NULL) {
		hd_buf_printf(b, "waits\n");
		return;
	}
	hd_buf_printf(b, "%s (line %d) ", hd_op_api_name_sc(w->sc, op), op->line);
	if (h->w.kind == W_BARRIER) {
		hd_buf_printf(b, "waits for every rank to reach the barrier\n");
		return;
	}
	hd_buf_printf(b, "waits for ");
	for (s = 0; s < w->sc->nstreams; s++) {
		int gi = m->st[s].head;

		if (gi < 0)
			continue;
		if (h->w.kind == W_TICKET && s != h->w.stream)
			continue;
		if (m->g[gi].kind != G_SEND && m->g[gi].kind != G_RECV && m->g[gi].kind != G_COLL &&
		    said)
			continue;
		hd_buf_printf(b, "%s", said ? "; and " : "");
		describe_gop(w, m, gi, b);
		said = 1;
	}
	if (!said)
		hd_buf_printf(b, "work that cannot start");
	hd_buf_printf(b, "\n");
}

char *
model_deadlock_text(struct world *w)
{
	struct hd_buf b;
	char when[32];
	int r, shown = 0, stuck = 0;

	hd_buf_init(&b);
	for (r = 0; r < w->n; r++)
		if (!w->rk[r].h.done || !model_threads_done(&w->rk[r]))
			stuck++;
	hd_buf_printf(&b,
		      "deadlock at %s: %d of %d ranks wait and nothing left "
		      "can wake them\n",
		      hd_fmt_time(when, sizeof when, hd_engine_now(w->eng)), stuck, w->n);
	for (r = 0; r < w->n; r++) {
		if (w->rk[r].h.done && model_threads_done(&w->rk[r]))
			continue;
		if (shown++ == 8) {
			hd_buf_printf(&b, "  ... and %d more ranks\n", stuck - 8);
			break;
		}
		describe_rank(w, &w->rk[r], &b);
		model_threads_text(w, &w->rk[r], &b);
	}
	return b.s;
}
