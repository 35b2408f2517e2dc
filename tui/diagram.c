/*
 * diagram.c - the run screen's moving diagrams (diagram.h): stream queues
 * and the ring of a collective, each read from the trace at the playhead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opfacts.h"
#include "render/timeline.h"
#include "run/run.h"
#include "tui/diagram.h"

static struct hd_style
style(enum hd_role fg, unsigned attr)
{
	struct hd_style st = { (unsigned char)fg, HD_ROLE_DEFAULT, (unsigned char)attr };

	return st;
}

/* ---- stream queues ------------------------------------------------------- */

/* An execution of an op: (op, iter). */
struct exec {
	int op;
	uint32_t iter;
	const struct hd_span *s;
};

static int
exec_cmp(const void *a, const void *b)
{
	const struct exec *x = a, *y = b;

	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->iter != y->iter)
		return x->iter < y->iter ? -1 : 1;
	if (x->s != NULL && y->s != NULL && x->s->start != y->s->start)
		return x->s->start < y->s->start ? -1 : 1;
	return 0;
}

static int
start_cmp(const void *a, const void *b)
{
	const struct exec *x = a, *y = b;

	if (x->s->start != y->s->start)
		return x->s->start < y->s->start ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

/* Does op go on a stream (always, without a scenario)? */
static bool
stream_op(const struct hd_scenario *sc, int op)
{
	const struct hd_op_fact *f;

	if (sc == NULL || op < 0)
		return sc == NULL;
	if (op >= sc->nops || (f = hd_op_fact(sc->ops[op].kind)) == NULL)
		return false;
	return f->on_stream;
}

int
hd_diagram_queue(const struct hd_trace *t, const struct hd_scenario *sc, int lane, hd_time at,
		 const struct hd_span **out, int max)
{
	struct exec *pend = NULL, *e;
	bool *launched;
	size_t i, np = 0, cap = 0, k;
	int rank, n = 0;

	if (lane < 0 || lane >= t->nlanes)
		return 0;
	rank = t->lanes[lane].rank;
	/* the lane's work not finished, one span per execution (the first) */
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->lane != lane || s->end <= at || !stream_op(sc, s->op))
			continue;
		if (np == cap) {
			cap = cap ? 2 * cap : 16;
			pend = hd_xrealloc(pend, cap * sizeof *pend);
		}
		pend[np++] = (struct exec){ s->op, s->iter, s };
	}
	if (np == 0)
		return 0;
	qsort(pend, np, sizeof *pend, exec_cmp);
	for (i = 0, k = 0; i < np; i++)
		if (k == 0 || pend[k - 1].op != pend[i].op || pend[k - 1].iter != pend[i].iter)
			pend[k++] = pend[i];
	np = k;
	/* launched: the execution's API call has returned */
	launched = hd_xcalloc(np, sizeof *launched);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		struct exec key = { s->op, s->iter, NULL };

		if (s->kind != HD_SPAN_API || s->end > at || t->lanes[s->lane].rank != rank)
			continue;
		e = bsearch(&key, pend, np, sizeof *pend, exec_cmp);
		if (e != NULL)
			launched[e - pend] = true;
	}
	for (i = 0, k = 0; i < np; i++)
		if (launched[i])
			pend[k++] = pend[i];
	free(launched);
	qsort(pend, k, sizeof *pend, start_cmp);
	for (i = 0; i < k; i++, n++)
		if (n < max)
			out[n] = pend[i].s;
	free(pend);
	return n;
}

/* ---- collectives on the ring --------------------------------------------- */

/* The steps of a ring algorithm: phases of n - 1 steps each; 0 when none. */
static int
ring_phases(enum hd_coll c)
{
	switch (c) {
	case HD_COLL_ALLREDUCE:
		return 2;
	case HD_COLL_REDUCESCATTER:
	case HD_COLL_ALLGATHER:
		return 1;
	case HD_COLL_BROADCAST:
	case HD_COLL_REDUCE:
	case HD_COLL_GATHER:
	case HD_COLL_ALLTOALL:
	case HD_COLL__COUNT:
		return 0;
	}
	return 0;
}

/* The op of collective span s, or NULL. */
static const struct hd_op *
coll_op(const struct hd_scenario *sc, const struct hd_span *s)
{
	if (sc == NULL || s->op < 0 || s->op >= sc->nops || sc->ops[s->op].kind != HD_OP_COLL)
		return NULL;
	return &sc->ops[s->op];
}

bool
hd_diagram_coll_at(const struct hd_trace *t, const struct hd_scenario *sc, hd_time at,
		   struct hd_diagram_coll *out)
{
	const struct hd_span *best = NULL, *next = NULL;
	const struct hd_op *op;
	size_t i, n0;
	int ph, gone;

	memset(out, 0, sizeof *out);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->kind != HD_SPAN_COMM || t->lanes[s->lane].kind != HD_LANE_STREAM ||
		    t->lanes[s->lane].rank != 0 || coll_op(sc, s) == NULL)
			continue;
		if (s->start > at) {
			if (next == NULL || s->start < next->start)
				next = s;
			continue;
		}
		/* the one running wins; else the latest to end */
		if (best == NULL || (s->end > at && best->end <= at) ||
		    ((s->end > at) == (best->end > at) && s->start > best->start))
			best = s;
	}
	if (best == NULL && next == NULL)
		return false;
	if (best == NULL) /* before the first: it, at step 0 */
		at = (best = next)->start - 1;
	op = coll_op(sc, best);
	out->op = best->op;
	out->iter = best->iter;
	out->coll = op->coll;
	out->nranks = sc->nranks;
	out->start = best->start;
	out->end = best->end;
	ph = ring_phases(op->coll);
	if (ph == 0 || sc->nranks < 2)
		return true;
	/* a ring moves one transfer a step on each link out: else a tree */
	for (i = 0, n0 = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->op == best->op && s->iter == best->iter && s->kind == HD_SPAN_COMM &&
		    t->lanes[s->lane].kind == HD_LANE_LINK && t->lanes[s->lane].rank == 0)
			n0++;
	}
	if (n0 > 0 && n0 != (size_t)ph * (size_t)(sc->nranks - 1))
		return true;
	out->nsteps = ph * (sc->nranks - 1);
	out->phase_steps = sc->nranks - 1;
	if (at < best->start)
		return true;
	gone = best->end > best->start && at < best->end ?
	    (int)((double)(at - best->start) * out->nsteps / (double)(best->end - best->start)) :
	    out->nsteps - 1;
	out->step = gone + 1;
	out->phase_step = (out->step - 1) % out->phase_steps + 1;
	out->phase = op->coll == HD_COLL_ALLGATHER || out->step > out->phase_steps ?
	    "all-gather" :
	    "reduce-scatter";
	return true;
}

int
hd_diagram_ring_chunk(const struct hd_diagram_coll *c, int rank)
{
	int n = c->nranks > 0 ? c->nranks : 1, k = c->phase_step;
	int off = c->coll == HD_COLL_ALLREDUCE && c->phase != NULL &&
		strcmp(c->phase, "all-gather") == 0 ?
	    2 :
	    1;

	return ((rank - k + off) % n + n) % n;
}

int
hd_diagram_ring_got(const struct hd_trace *t, const struct hd_diagram_coll *c, hd_time at, int *got)
{
	int n = c->nranks, r, rc = 0;
	int *all, *ended;
	size_t i;
	bool any = false;

	if (c->nsteps <= 0 || n < 2)
		return -1;
	all = hd_xcalloc((size_t)n, sizeof *all);
	ended = hd_xcalloc((size_t)n, sizeof *ended);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		const struct hd_lane *ln = &t->lanes[s->lane];

		if (s->op != c->op || s->iter != c->iter || s->kind != HD_SPAN_COMM ||
		    ln->kind != HD_LANE_LINK || ln->rank < 0 || ln->rank >= n)
			continue;
		any = true;
		all[ln->rank]++;
		if (s->end <= at)
			ended[ln->rank]++;
	}
	for (r = 0; r < n; r++) {
		int from = (r + n - 1) % n;

		if (!any)
			got[r] = at >= c->end ? c->nsteps : c->step > 0 ? c->step - 1 : 0;
		else if (all[from] != c->nsteps)
			rc = -1;
		else
			got[r] = ended[from];
	}
	free(all);
	free(ended);
	return rc;
}

int
hd_diagram_ring_piece(const struct hd_diagram_coll *c, int got, int rank, int piece)
{
	int n = c->nranks, last = n - 1, j, rs, ag;

	if (n < 2 || c->nsteps <= 0)
		return 0;
	j = ((rank - piece) % n + n) % n; /* how far back round the ring */
	switch (c->coll) {
	case HD_COLL_ALLREDUCE:
	case HD_COLL_REDUCESCATTER:
		rs = got < last ? got : last;
		ag = c->coll == HD_COLL_ALLREDUCE ? got - last : 0;
		/* all-gather step i brings rank r piece (r + 1 - i): j = i - 1,
		 * the piece it completed itself j = n - 1 */
		if (ag > 0 && (j == last || j < ag))
			return n;
		return j <= rs ? j + 1 : 1;
	case HD_COLL_ALLGATHER:
		return j <= got ? n : 0;
	case HD_COLL_BROADCAST:
	case HD_COLL_REDUCE:
	case HD_COLL_GATHER:
	case HD_COLL_ALLTOALL:
	case HD_COLL__COUNT:
		break;
	}
	return 0;
}

/* The counter and the bandwidths in row y. */
static void
draw_counter(struct hd_screen *scr, const struct hd_rect *r, int y, const struct hd_trace *t,
	     const struct hd_scenario *sc, const struct hd_view_opts *o,
	     const struct hd_diagram_coll *c)
{
	const struct hd_op *op = &sc->ops[c->op];
	double alg, bus, malg, mbus;
	char a[32], b[32], ma[32], mb[32];
	int x;

	x = hd_screen_printf(scr, r, r->x, y, style(HD_ROLE_TITLE, HD_ATTR_BOLD), "%s %s",
			     op->label != NULL ? op->label : hd_coll_name(c->coll),
			     hd_coll_name(c->coll));
	if (c->nsteps > 0 && c->step == 0)
		x = hd_screen_printf(scr, r, x + 1, y, style(HD_ROLE_TEXT, 0),
				     "to come: %d ring steps", c->nsteps);
	else if (c->nsteps > 0)
		x = hd_screen_printf(scr, r, x + 1, y, style(HD_ROLE_TEXT, 0),
				     "%s step %d of %d (ring step %d of %d)", c->phase,
				     c->phase_step, c->phase_steps, c->step, c->nsteps);
	if (hd_run_coll_bw(sc, c->op, t, &alg, &bus) != 0)
		return;
	x = hd_screen_printf(scr, r, x + 2, y, style(HD_ROLE_TEXT, 0), "algBw %s busBw %s",
			     hd_fmt_rate(a, sizeof a, alg), hd_fmt_rate(b, sizeof b, bus));
	if (o->ghost != NULL && o->ghost_name != NULL && strcmp(o->ghost_name, "measured") == 0 &&
	    hd_run_coll_bw(sc, c->op, o->ghost, &malg, &mbus) == 0)
		hd_screen_printf(scr, r, x + 2, y, style(HD_ROLE_NOTE, 0),
				 "measured algBw %s busBw %s", hd_fmt_rate(ma, sizeof ma, malg),
				 hd_fmt_rate(mb, sizeof mb, mbus));
}

/* One rank and its link out at x: "R2 -[c5]-> " (chunk 5 on it), "R2 -[==]-> "
 * (chunk -2: busy, no ring step to name its chunk) or "R2 ------> " (-1: idle). */
static int
draw_hop(struct hd_screen *scr, const struct hd_rect *r, int x, int y, int rank, int chunk)
{
	struct hd_style comm = style(hd_role_of_hue(hd_spanlook_get(HD_SPAN_COMM, HD_DIR_OUT)->hue),
				     HD_ATTR_BOLD);

	x = hd_screen_printf(scr, r, x, y, style(HD_ROLE_LANE, 0), "R%d ", rank);
	if (chunk == -1)
		return hd_screen_puts(scr, r, x, y, "------> ", style(HD_ROLE_BAR, HD_ATTR_DIM));
	if (chunk < 0)
		return hd_screen_puts(scr, r, x, y, "-[==]-> ", comm);
	return hd_screen_printf(scr, r, x, y, comm, "-[c%d]-> ", chunk);
}

/*
 * Rank `rank`'s buffer at x: its n pieces in at most `w` cells, each a digit
 * of the ranks summed into it (n <= 9), else a shade of the cell's share of
 * them (several pieces a cell where n > w); complete pieces a full block in
 * the links' colour, pieces not come a dot.  Returns the column after.
 */
static int
draw_pieces(struct hd_screen *scr, const struct hd_rect *r, int x, int y,
	    const struct hd_diagram_coll *c, int got, int rank, int w)
{
	struct hd_style comm = style(hd_role_of_hue(hd_spanlook_get(HD_SPAN_COMM, HD_DIR_OUT)->hue),
				     HD_ATTR_BOLD);
	const struct hd_spanlook *look = hd_spanlook_get(HD_SPAN_COMM, HD_DIR_OUT);
	int n = c->nranks, per = (n + w - 1) / w, p0, p, sum, cnt;
	char d[2] = { 0, 0 };

	for (p0 = 0; p0 < n; p0 += per) {
		for (p = p0, sum = 0, cnt = 0; p < n && p < p0 + per; p++, cnt++)
			sum += hd_diagram_ring_piece(c, got, rank, p);
		if (sum == 0)
			x = hd_screen_puts(scr, r, x, y, hd_screen_glyph(scr, HD_G_EMPTY),
					   style(HD_ROLE_TEXT, HD_ATTR_DIM));
		else if (sum == n * cnt && n > 9)
			x = hd_screen_puts(scr, r, x, y, hd_screen_glyph(scr, HD_G_FULL), comm);
		else if (n <= 9) {
			d[0] = (char)('0' + sum);
			x = hd_screen_puts(scr, r, x, y, d,
					   sum == n ? comm : style(HD_ROLE_TEXT, 0));
		} else {
			/* the share in eighths, 1 .. 7, as the timeline's partly busy cells */
			struct hd_tl_cell cell = { look, 0, 0, 0, false };
			int e = (int)((double)sum * 8 / ((double)n * cnt) + 0.5);

			cell.fill = (unsigned char)(e < 1 ? 1 : e > 7 ? 7 : e);
			x = hd_screen_puts(scr, r, x, y,
					   hd_timeline_cell_glyph(&cell, !hd_screen_ascii(scr)),
					   style(HD_ROLE_TEXT, 0));
		}
	}
	return x;
}

int
hd_diagram_ring(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
		const struct hd_scenario *sc, const struct hd_view_opts *o, int nranks)
{
	struct hd_diagram_coll c;
	bool *busy;
	size_t i;
	int rank, x, fit, hop, y = r.y, shown = 0, rows = 2, k, *got, *xs, *rs;

	r = hd_rect_clip(r, hd_screen_rect(scr));
	if (sc == NULL || r.h < 2 || r.w < 20 || !hd_diagram_coll_at(t, sc, o->t, &c))
		return 0;
	draw_counter(scr, &r, y++, t, sc, o, &c);
	busy = hd_xcalloc((size_t)nranks + 1, sizeof *busy);
	xs = hd_xcalloc((size_t)nranks + 1, sizeof *xs); /* where each rank shown is */
	rs = hd_xcalloc((size_t)nranks + 1, sizeof *rs);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		const struct hd_lane *ln = &t->lanes[s->lane];

		if (ln->kind == HD_LANE_LINK && s->kind == HD_SPAN_COMM && ln->rank < nranks &&
		    s->op == c.op && s->start <= o->t && o->t < s->end)
			busy[ln->rank] = true;
	}
	/* as many hops (11 columns, more past R9 or c9) as fit, then "... " and
	 * the last rank, back to R0 */
	hop = nranks > 10 ? 14 : 11;
	fit = (r.w - 10) / hop;
	x = r.x;
	for (rank = 0; rank < nranks; rank++) {
		if (nranks > fit && rank == fit - 1) {
			x = hd_screen_puts(scr, &r, x, y, "... ", style(HD_ROLE_TEXT, HD_ATTR_DIM));
			rank = nranks - 1;
		}
		xs[shown] = x;
		rs[shown++] = rank;
		x = draw_hop(scr, &r, x, y, rank,
			     busy[rank] ? (c.nsteps > 0 ? hd_diagram_ring_chunk(&c, rank) : -2) :
					  -1);
	}
	hd_screen_puts(scr, &r, x, y, "R0", style(HD_ROLE_LANE, 0));
	free(busy);
	/* each rank's buffer beneath it, as the trace has it at the playhead */
	got = hd_xcalloc((size_t)nranks + 1, sizeof *got);
	if (r.h >= 3 && c.nranks == nranks && hd_diagram_ring_got(t, &c, o->t, got) == 0) {
		static const char *const note[2][2] = {
			{ "pieces: ranks summed in each", "ranks summed" },
			{ "pieces: a dot until it comes", "pieces come" },
		};
		const char *const *nt = note[c.coll == HD_COLL_ALLGATHER];
		int w = nranks < hop - 2 ? nranks : hop - 2;

		y++;
		for (k = 0; k < shown; k++)
			x = draw_pieces(scr, &r, xs[k], y, &c, got[rs[k]], rs[k], w);
		for (k = 0; k < 2; k++)
			if (x + 1 + hd_utf8_width(nt[k]) <= r.x + r.w) {
				hd_screen_puts(scr, &r, x + 1, y, nt[k],
					       style(HD_ROLE_TEXT, HD_ATTR_DIM));
				break;
			}
		rows = 3;
	}
	free(got);
	free(xs);
	free(rs);
	return rows;
}

/* ---- the host's path to the link ----------------------------------------- */

static bool
pcie_lane(const struct hd_trace *t, int lane)
{
	const struct hd_lane *ln = &t->lanes[lane];

	return ln->rank == 0 && (ln->kind == HD_LANE_PCIE_H2D || ln->kind == HD_LANE_PCIE_D2H);
}

/* The 1-based place among rank 0's spans of (op, iter) on lanes `on` of
 * the one under `at` (0: none), and how many there are into *n. */
static int
chunk_at(const struct hd_trace *t, int op, uint32_t iter, hd_time at,
	 bool (*on)(const struct hd_trace *, const struct hd_span *), int *n)
{
	const struct hd_span *cur = NULL;
	size_t i;
	int before = 0;

	*n = 0;
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->op != op || s->iter != iter || !on(t, s))
			continue;
		++*n;
		if (s->start <= at && at < s->end && cur == NULL)
			cur = s;
	}
	if (cur == NULL)
		return 0;
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->op == op && s->iter == iter && on(t, s) && s->start < cur->start)
			before++;
	}
	return before + 1;
}

static bool
is_staging(const struct hd_trace *t, const struct hd_span *s)
{
	return s->kind == HD_SPAN_STAGING && t->lanes[s->lane].rank == 0;
}

static bool
is_chunk(const struct hd_trace *t, const struct hd_span *s)
{
	return s->kind == HD_SPAN_COPY && pcie_lane(t, s->lane);
}

bool
hd_diagram_staged_at(const struct hd_trace *t, hd_time at, struct hd_diagram_staged *out)
{
	const struct hd_span *hit = NULL;
	size_t i, k;
	int nl;

	memset(out, 0, sizeof *out);
	for (i = 0; i < t->nspans && hit == NULL; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->start > at || at >= s->end || s->op < 0 ||
		    !(is_staging(t, s) || is_chunk(t, s)))
			continue;
		/* a chunk on the link counts when its copy is staged */
		for (k = 0; k < t->nspans; k++)
			if (is_staging(t, &t->spans[k]) && t->spans[k].op == s->op &&
			    t->spans[k].iter == s->iter)
				break;
		if (k < t->nspans)
			hit = &t->spans[k];
	}
	if (hit == NULL)
		return false;
	out->op = hit->op;
	out->iter = hit->iter;
	out->chunk = hit->bytes;
	out->host = chunk_at(t, hit->op, hit->iter, at, is_staging, &out->nchunks);
	out->link = chunk_at(t, hit->op, hit->iter, at, is_chunk, &nl);
	return true;
}

bool
hd_diagram_faults_at(const struct hd_trace *t, hd_time at, uint64_t group, uint64_t *bytes,
		     uint64_t *groups)
{
	bool any = false;
	double b = 0;
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->kind != HD_SPAN_FAULT || !pcie_lane(t, s->lane))
			continue;
		any = true;
		if (at >= s->end || s->end <= s->start)
			b += (double)s->bytes;
		else if (at > s->start)
			b += (double)s->bytes * (double)(at - s->start) /
			    (double)(s->end - s->start);
	}
	*bytes = (uint64_t)b;
	*groups = group > 0 ? (*bytes + group - 1) / group : 0;
	return any;
}

int
hd_diagram_path(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t, hd_time at,
		uint64_t group)
{
	struct hd_style staging = style(
	    hd_role_of_hue(hd_spanlook_get(HD_SPAN_STAGING, HD_DIR_OUT)->hue), 0);
	struct hd_diagram_staged sg;
	uint64_t fb, fg;
	char a[32];
	int x, y = r.y;

	r = hd_rect_clip(r, hd_screen_rect(scr));
	if (r.w <= 0 || r.h <= 0)
		return 0;
	if (r.h >= 2 && hd_diagram_staged_at(t, at, &sg)) {
		/* "chunk 3 of 8: host memcpy; chunk 2 of 8: on PCIe" under the
		 * buffer's title where it fits, else one part a row */
		bool both = sg.host > 0 && sg.link > 0;
		bool one_row = !both ||
		    r.w >= 49 + 2 * (sg.nchunks >= 10) + 2 * (sg.nchunks >= 100);

		if (one_row)
			hd_screen_printf(scr, &r, r.x, y++, style(HD_ROLE_TITLE, HD_ATTR_BOLD),
					 "staging buffer: %d chunks of %s", sg.nchunks,
					 hd_fmt_bytes(a, sizeof a, sg.chunk));
		x = r.x;
		if (sg.host > 0)
			x = hd_screen_printf(scr, &r, x, y, staging,
					     "chunk %d of %d: host memcpy%s", sg.host, sg.nchunks,
					     both && one_row ? "; " : "");
		if (both && !one_row)
			x = r.x, y++;
		if (sg.link > 0)
			x = hd_screen_printf(scr, &r, x, y, style(HD_ROLE_TEXT, HD_ATTR_BOLD),
					     "chunk %d of %d: on PCIe", sg.link, sg.nchunks);
		if (sg.host == 0 && sg.link == 0)
			hd_screen_puts(scr, &r, x, y, "between chunks",
				       style(HD_ROLE_TEXT, HD_ATTR_DIM));
		y++;
	}
	if (y < r.y + r.h && hd_diagram_faults_at(t, at, group, &fb, &fg))
		hd_screen_printf(scr, &r, r.x, y++, style(HD_ROLE_TEXT, 0),
				 "faults: %llu groups, %s migrated", (unsigned long long)fg,
				 hd_fmt_bytes(a, sizeof a, fb));
	return y - r.y;
}

/* ---- send / recv between ranks ------------------------------------------- */

int
hd_diagram_sends(const struct hd_trace *t, const struct hd_scenario *sc, hd_time at,
		 struct hd_diagram_send *out, int max)
{
	struct hd_diagram_send d;
	size_t i;
	int n = 0, k;

	if (sc == NULL)
		return 0;
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		const struct hd_lane *ln = &t->lanes[s->lane];

		if (s->kind != HD_SPAN_COMM || ln->kind != HD_LANE_LINK || s->op < 0 ||
		    s->op >= sc->nops || sc->ops[s->op].kind != HD_OP_SEND || at < s->start ||
		    at >= s->end)
			continue;
		d = (struct hd_diagram_send){ ln->rank, hd_op_peer(sc, &sc->ops[s->op], ln->rank),
					      s->op };
		/* in order of the sending rank */
		for (k = n < max ? n : max; k > 0 && out[k - 1].from > d.from; k--)
			if (k < max)
				out[k] = out[k - 1];
		if (k < max)
			out[k] = d;
		n++;
	}
	return n;
}

int
hd_diagram_deadlock_cycle(const struct hd_trace *t, int nranks, int *out, int max)
{
	static const char by[] = "which waits for rank ";
	const char *line, *p;
	int *waits, *seen, r, w, start, n = 0;

	if (t->note == NULL || nranks < 1 || max < 1)
		return 0;
	waits = hd_xcalloc((size_t)nranks, sizeof *waits);
	seen = hd_xcalloc((size_t)nranks, sizeof *seen);
	for (r = 0; r < nranks; r++)
		waits[r] = -1;
	for (line = t->note; line != NULL && *line != '\0';
	     line = (p = strchr(line, '\n')) != NULL ? p + 1 : NULL) {
		if (sscanf(line, "  rank %d:", &r) != 1 || r < 0 || r >= nranks)
			continue;
		p = strstr(line, by);
		if (p != NULL && (strchr(line, '\n') == NULL || p < strchr(line, '\n')) &&
		    sscanf(p + sizeof by - 1, "%d", &w) == 1 && w >= 0 && w < nranks)
			waits[r] = w;
	}
	/* from each rank in turn, follow its waits; a rank met twice on one walk
	 * closes the cycle (seen: the walk's number, 1-based) */
	for (start = 0; start < nranks && n == 0; start++) {
		for (r = start; r >= 0 && seen[r] == 0; r = waits[r])
			seen[r] = start + 1;
		if (r < 0 || seen[r] != start + 1)
			continue;
		for (w = r; n < max; w = waits[w]) {
			out[n++] = w;
			if (n > 1 && w == r)
				break;
		}
	}
	free(waits);
	free(seen);
	return n;
}

int
hd_diagram_p2p(struct hd_screen *scr, struct hd_rect r, const struct hd_trace *t,
	       const struct hd_scenario *sc, hd_time at, int nranks)
{
	enum {
		SHOWN = 16
	};
	struct hd_style comm = style(hd_role_of_hue(hd_spanlook_get(HD_SPAN_COMM, HD_DIR_OUT)->hue),
				     HD_ATTR_BOLD);
	struct hd_diagram_send d[SHOWN];
	int cyc[SHOWN + 1], n, i, x, y = r.y;

	r = hd_rect_clip(r, hd_screen_rect(scr));
	if (r.w <= 0 || r.h <= 0)
		return 0;
	n = hd_diagram_sends(t, sc, at, d, SHOWN);
	for (i = 0, x = r.x; i < n && i < SHOWN; i++) {
		const struct hd_op *op = &sc->ops[d[i].op];
		const char *buf = op->src >= 0 && op->src < sc->nbuffers ?
		    sc->buffers[op->src].name :
		    "";

		x = hd_screen_printf(scr, &r, x, y, style(HD_ROLE_LANE, 0), "R%d ", d[i].from);
		x = hd_screen_printf(scr, &r, x, y, comm, "--%s-->", buf);
		x = hd_screen_printf(scr, &r, x, y, style(HD_ROLE_LANE, 0), " R%d   ", d[i].to);
	}
	if (n > 0)
		y++;
	n = y < r.y + r.h ? hd_diagram_deadlock_cycle(t, nranks, cyc, SHOWN + 1) : 0;
	if (n > 1) {
		x = hd_screen_puts(
		    scr, &r, r.x, y, "deadlock:",
		    style(hd_role_of_hue(hd_spanlook_get(HD_SPAN_BLOCKED, HD_DIR_OUT)->hue),
			  HD_ATTR_BOLD));
		for (i = 0; i < n; i++)
			x = hd_screen_printf(scr, &r, x, y, style(HD_ROLE_TEXT, 0), "%s R%d",
					     i > 0 ? " waits for" : "", cyc[i]);
		y++;
	}
	return y - r.y;
}
