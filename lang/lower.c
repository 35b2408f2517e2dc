/*
 * lower.c - from a parsed lesson to the IR: knob values and
 * hd_lesson_instantiate (claims are evaluated in lang/claims.c).
 *
 * Instantiation evaluates every expression with concrete knob values and
 * checks what only values can show (a copy larger than its buffer, a count
 * that is not whole, a size past 2^62 bytes, more than 10^8 op executions),
 * reporting each at its statement.  Op indices are a pure function of the
 * lesson and the knob values, so claim evaluation instantiates each
 * scenario again (once per run) to map labels to op indices.
 *
 * Conditions (`if`) are decided here, with the knobs and the loop indices
 * (ir.h, "Conditions"): a loop whose body reads its index is built one
 * iteration at a time, equal iterations in a row merged into one REPEAT and
 * a repeating pattern of those folded into a REPEAT around it.  The
 * printers' form keeps such an `if` as written instead.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/threads.h"
#include "lang/lesson_priv.h"

struct lower {
	const struct hd_lesson *l;
	const struct hd_scen *sc;
	struct hd_scenario *out;
	size_t cap;
	const double *knobs;
	int nranks;
	int only_rank; /* inside `rank N`: N, else -1 */
	struct hd_err *e;
	int threads;                     /* host threads started so far (workers blocks) */
	bool written;                    /* the printers' form (hd_lesson_instantiate_written) */
	struct hd_lower_report *rep;     /* lint's, or NULL */
	double idx[HD_LESSON_MAX_DEPTH]; /* the loop indices being unrolled, by slot */
	int idx_op[HD_LESSON_MAX_DEPTH]; /* printers' form: each index's loop header */
	int cblock;                      /* printers' form: the condition block + 1, or 0 */
	bool cblock_else;                /* ... and its branch */
	uint64_t unrolled;               /* ops built for loops that read their index */
	uint64_t built;                  /* ops built in all */
	int *graph_op; /* per graph of the scenario: its HD_OP_GRAPH op, once lowered */
};

static int lerr(struct lower *lw, int line, int col, const char *fmt, ...) HD_PRINTF(4, 5);

static int
lerr(struct lower *lw, int line, int col, const char *fmt, ...)
{
	va_list ap;
	char msg[700];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hd_src_error(&lw->l->src, lw->e, line, col, "%s", msg);
	return -1;
}

static int
eval(struct lower *lw, const struct hd_expr *x, int rank, double *v)
{
	struct hd_eval_env env;

	memset(&env, 0, sizeof env);
	env.src = &lw->l->src;
	env.knobs = lw->knobs;
	env.rank = rank;
	env.nranks = lw->nranks;
	env.index = lw->idx;
	return hd_expr_eval(x, &env, v, lw->e);
}

/* A whole number in [lo, hi]; `what` names it in messages. */
static int
eval_int(struct lower *lw, const struct hd_expr *x, int rank, double lo, double hi,
	 const char *what, double *out)
{
	double v;

	if (eval(lw, x, rank, &v) < 0)
		return -1;
	if (v != floor(v))
		return lerr(lw, x->sline, x->scol, "%s must be a whole number, but '%.*s' is %g",
			    what, (int)x->src_len, x->src_p, v);
	if (v < lo || v > hi)
		return lerr(lw, x->sline, x->scol,
			    "%s must be from %.0f to %.0f, but '%.*s' is "
			    "%.15g",
			    what, lo, hi, (int)x->src_len, x->src_p, v);
	*out = v;
	return 0;
}

static int
eval_bytes(struct lower *lw, const struct hd_expr *x, uint64_t *out)
{
	double v;

	if (eval(lw, x, 0, &v) < 0)
		return -1;
	if (v < 0)
		return lerr(lw, x->sline, x->scol, "a size cannot be negative: '%.*s' is %.15g B",
			    (int)x->src_len, x->src_p, v);
	if (v > (double)HD_LESSON_MAX_BYTES)
		return lerr(lw, x->sline, x->scol,
			    "size '%.*s' is too large: the limit is 2^62 "
			    "bytes (4 EiB)",
			    (int)x->src_len, x->src_p);
	*out = (uint64_t)floor(v);
	return 0;
}

static int
eval_time(struct lower *lw, const struct hd_expr *x, hd_time *out)
{
	double v;

	if (eval(lw, x, 0, &v) < 0)
		return -1;
	if (v < 0)
		return lerr(lw, x->sline, x->scol, "a time cannot be negative: '%.*s'",
			    (int)x->src_len, x->src_p);
	if (v > 1e18)
		return lerr(lw, x->sline, x->scol,
			    "time '%.*s' is too long: the limit is "
			    "10^6 s",
			    (int)x->src_len, x->src_p);
	*out = (hd_time)llround(v);
	return 0;
}

static struct hd_op *
emit(struct lower *lw, const struct hd_stmt *s, enum hd_op_kind kind)
{
	struct hd_scenario *sc = lw->out;
	struct hd_op *op;

	if ((size_t)sc->nops >= HD_LESSON_MAX_OPS) {
		lerr(lw, s->line, s->col, "scenario %s lowers to more than %d ops", sc->name,
		     HD_LESSON_MAX_OPS);
		return NULL;
	}
	sc->ops = hd_xgrow(sc->ops, &lw->cap, (size_t)sc->nops + 1, sizeof *sc->ops);
	op = &sc->ops[sc->nops++];
	memset(op, 0, sizeof *op);
	op->kind = kind;
	op->line = s->line;
	op->col = s->col;
	op->label = s->label ? hd_xstrdup(s->label) : NULL;
	op->stream = s->stream != HD_NONE ? s->stream :
	    lw->sc->per_thread            ? HD_STREAM_PER_THREAD :
					    HD_STREAM_LEGACY;
	op->event = s->event;
	op->src = s->src;
	op->dst = s->dst;
	op->peer = HD_NONE;
	op->root = HD_NONE;
	op->rank = HD_NONE;
	op->async = s->async;
	op->to_device = s->to_device;
	op->kernel = s->kernel;
	op->coll = s->coll;
	op->queue = s->queue;
	op->cblock = lw->cblock;
	op->cblock_else = lw->cblock_else;
	lw->built++;
	op->graph = HD_NONE;
	return op;
}

/* SIZE, defaulting to the buffer's size, and fitting every buffer named. */
static int
op_bytes(struct lower *lw, const struct hd_stmt *s, struct hd_op *op, int b1, int b2,
	 const char *verb)
{
	const struct hd_scenario *sc = lw->out;
	int bs[2] = { b1, b2 }, i;

	if (s->bytes != NULL) {
		if (eval_bytes(lw, s->bytes, &op->bytes) < 0)
			return -1;
	} else {
		op->bytes = b1 != HD_NONE ? sc->buffers[b1].bytes : 0;
	}
	for (i = 0; i < 2; i++) {
		char a[32], b[32];
		if (bs[i] == HD_NONE || op->bytes <= sc->buffers[bs[i]].bytes)
			continue;
		hd_fmt_bytes(a, sizeof a, op->bytes);
		hd_fmt_bytes(b, sizeof b, sc->buffers[bs[i]].bytes);
		return lerr(lw, s->line, s->col, "%s of %s does not fit buffer %s (%s)", verb, a,
			    sc->buffers[bs[i]].name, b);
	}
	return 0;
}

static long
floor_mod(long a, long n)
{
	long m = a % n;

	return m < 0 ? m + n : m;
}

/*
 * Lower a statement with a peer: literal, rank-relative, or one block per
 * rank (see ir.h).  `fill` completes the op once its peer is known.
 */
static int lower_op(struct lower *lw, const struct hd_stmt *s, int peer, bool rel);

static int
lower_peer(struct lower *lw, const struct hd_stmt *s)
{
	int n = lw->nranks, r, same = 1, rel = 1;
	long *pr = hd_xcalloc((size_t)n, sizeof *pr);
	int rc = -1;

	for (r = 0; r < n; r++) {
		double v;
		if (lw->only_rank >= 0 && r != lw->only_rank) {
			pr[r] = -1;
			continue;
		}
		if (eval(lw, s->peer, r, &v) < 0)
			goto out;
		if (v != floor(v) || fabs(v) > 1e9) {
			lerr(lw, s->peer->sline, s->peer->scol,
			     "a rank must be a whole number, "
			     "but '%.*s' is %g on rank %d",
			     (int)s->peer->src_len, s->peer->src_p, v, r);
			goto out;
		}
		pr[r] = floor_mod((long)v, n);
		if (pr[r] == r) {
			lerr(lw, s->peer->sline, s->peer->scol,
			     "on rank %d, '%.*s' is rank %d "
			     "itself: the other side must be another rank",
			     r, (int)s->peer->src_len, s->peer->src_p, r);
			goto out;
		}
		if (r > 0 && pr[r] != pr[0])
			same = 0;
		if (floor_mod(pr[r] - r, n) != pr[0])
			rel = 0;
	}
	if (lw->only_rank >= 0) {
		/* Inside a rank block only that rank runs the op: a literal peer. */
		rc = lower_op(lw, s, (int)pr[lw->only_rank], false);
		goto out;
	}
	if (same || rel) {
		rc = lower_op(lw, s, (int)pr[0], !same);
		goto out;
	}
	for (r = 0; r < n; r++) {
		struct hd_op *h = emit(lw, s, HD_OP_ON_RANK);
		int at;
		if (h == NULL)
			goto out;
		free(h->label);
		h->label = NULL;
		h->rank = r;
		at = lw->out->nops;
		if (lower_op(lw, s, (int)pr[r], false) < 0)
			goto out;
		lw->out->ops[at - 1].body_len = lw->out->nops - at;
	}
	rc = 0;
out:
	free(pr);
	return rc;
}

static int lower_list(struct lower *lw, const struct hd_stmt *v, int n);

static int
lower_op(struct lower *lw, const struct hd_stmt *s, int peer, bool rel)
{
	const struct hd_scenario *sc = lw->out;
	struct hd_op *op = emit(lw, s, s->kind);
	int i = sc->nops - 1;
	double v;

	if (op == NULL)
		return -1;
	op->peer = peer;
	op->peer_rel = rel;
	switch (s->kind) {
	case HD_OP_ALLOC:
	case HD_OP_FREE:
	case HD_OP_PIN:
	case HD_OP_PREFETCH:
		op->bytes = sc->buffers[s->dst].bytes;
		break;
	case HD_OP_COPY:
		op->copy = hd_copy_kind_of(sc->buffers[s->src].mem, sc->buffers[s->dst].mem,
					   s->peer != NULL);
		if (op_bytes(lw, s, op, s->src, s->dst, "copy") < 0)
			return -1;
		break;
	case HD_OP_READ:
		if (op_bytes(lw, s, op, s->src, HD_NONE, "read") < 0)
			return -1;
		break;
	case HD_OP_SEND:
		if (op_bytes(lw, s, op, s->src, HD_NONE, "send") < 0)
			return -1;
		break;
	case HD_OP_RECV:
		if (op_bytes(lw, s, op, s->dst, HD_NONE, "recv") < 0)
			return -1;
		break;
	case HD_OP_COLL:
		if (op_bytes(lw, s, op, s->src, HD_NONE, hd_coll_name(s->coll)) < 0)
			return -1;
		if (s->root != NULL) {
			if (eval_int(lw, s->root, 0, 0, lw->nranks - 1, "the root rank", &v) < 0)
				return -1;
			lw->out->ops[i].root = (int)v;
		} else if (s->coll == HD_COLL_BROADCAST || s->coll == HD_COLL_REDUCE ||
			   s->coll == HD_COLL_GATHER) {
			lw->out->ops[i].root = 0;
		}
		break;
	case HD_OP_KERNEL:
		switch (s->kernel) {
		case HD_KERNEL_SPIN:
			if (eval_time(lw, s->duration, &op->duration) < 0)
				return -1;
			break;
		case HD_KERNEL_COMPUTE:
			if (eval(lw, s->flops, 0, &v) < 0)
				return -1;
			if (v < 0 || v > 1e24)
				return lerr(lw, s->flops->sline, s->flops->scol,
					    "work must be "
					    "from 0 to 10^24 FLOP");
			lw->out->ops[i].flops = v;
			break;
		case HD_KERNEL_MEMORY:
			if (s->src != HD_NONE)
				op->bytes = sc->buffers[s->src].bytes;
			else if (eval_bytes(lw, s->bytes, &op->bytes) < 0)
				return -1;
			break;
		case HD_KERNEL_FILL:
			op->bytes = sc->buffers[s->dst].bytes;
			break;
		case HD_KERNEL_REDUCE:
			op->bytes = sc->buffers[s->src].bytes;
			break;
		case HD_KERNEL__COUNT:
			break;
		}
		if (s->grid != NULL) {
			if (eval_int(lw, s->grid, 0, 1, 2147483647.0, "the grid", &v) < 0)
				return -1;
			lw->out->ops[i].grid = (uint32_t)v;
		}
		break;
	case HD_OP_HOST:
		if (eval_time(lw, s->duration, &op->duration) < 0)
			return -1;
		op->text = s->text ? hd_xstrdup(s->text) : NULL;
		break;
	case HD_OP_LAUNCH:
		op->graph = lw->graph_op[s->graph];
		break;
	case HD_OP_RECORD:
	case HD_OP_WAIT:
	case HD_OP_EVENT_SYNC:
	case HD_OP_EVENT_QUERY:
	case HD_OP_STREAM_SYNC:
	case HD_OP_DEVICE_SYNC:
	case HD_OP_REPEAT:
	case HD_OP_ON_RANK:
	case HD_OP_BARRIER:
	case HD_OP_WORKERS: /* lower_workers */
	case HD_OP_PUT:
	case HD_OP_GET:
	case HD_OP_GRAPH:
	case HD_OP__COUNT:
		break;
	}
	return 0;
}

/* --- conditions -------------------------------------------------------------------- */

static bool
str_same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/*
 * Are ops a and b the same op (a loop header's count aside when
 * ignore_count)?  Every field but the strings compares byte for byte: emit()
 * zeroes an op before filling it, and ops only move whole, so padding is
 * zero in both; a field added to struct hd_op is compared with no change
 * here (a pointer one by address, so such ops never merge: safe, only less
 * compact).
 */
static bool
op_same(const struct hd_op *a, const struct hd_op *b, bool ignore_count)
{
	struct hd_op x, y;

	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	x.label = y.label = x.text = y.text = x.index_name = y.index_name = NULL;
	if (ignore_count)
		x.count = y.count = 0;
	return memcmp(&x, &y, sizeof x) == 0 && str_same(a->label, b->label) &&
	    str_same(a->text, b->text) && str_same(a->index_name, b->index_name);
}

/* Do the blocks headed by ops a and b hold the same ops? */
static bool
block_same(const struct hd_scenario *sc, int a, int b, bool ignore_count)
{
	int j;

	if (!op_same(&sc->ops[a], &sc->ops[b], ignore_count))
		return false;
	for (j = 1; j <= sc->ops[a].body_len; j++)
		if (!op_same(&sc->ops[a + j], &sc->ops[b + j], false))
			return false;
	return true;
}

/* Free ops [from, from + n) and close the gap. */
static void
drop_ops(struct hd_scenario *sc, int from, int n)
{
	int i;

	for (i = from; i < from + n; i++) {
		free(sc->ops[i].label);
		free(sc->ops[i].text);
		free(sc->ops[i].index_name);
	}
	memmove(sc->ops + from, sc->ops + from + n,
		(size_t)(sc->nops - from - n) * sizeof *sc->ops);
	sc->nops -= n;
}

/*
 * The loop's iteration groups from op `first` on (each a REPEAT header and
 * its body, none equal to the next): if they repeat a pattern of p groups
 * at least twice, keep one copy of the pattern under a REPEAT header of its
 * own, the groups after the last whole copy following it.  The smallest
 * period is found by the prefix function (Knuth-Morris-Pratt) over the
 * groups, so this is linear in the ops.
 */
static int
fold_pattern(struct lower *lw, const struct hd_stmt *s, int first)
{
	struct hd_scenario *sc = lw->out;
	int m = 0, i, j, p, reps, *g, *fail, rc = 0;
	struct hd_op *h, head;

	for (i = first; i < sc->nops; i += 1 + sc->ops[i].body_len)
		m++;
	if (m < 4)
		return 0;
	g = hd_xcalloc((size_t)m + 1, sizeof *g);
	fail = hd_xcalloc((size_t)m, sizeof *fail);
	for (i = first, j = 0; i < sc->nops; i += 1 + sc->ops[i].body_len)
		g[j++] = i;
	g[m] = sc->nops;
	for (i = 1; i < m; i++) {
		j = fail[i - 1];
		while (j > 0 && !block_same(sc, g[i], g[j], false))
			j = fail[j - 1];
		if (block_same(sc, g[i], g[j], false))
			j++;
		fail[i] = j;
	}
	p = m - fail[m - 1];
	reps = m / p;
	if (reps >= 2) {
		/* keep groups [0, p) and [reps * p, m); the copies between go */
		drop_ops(sc, g[p], g[reps * p] - g[p]);
		if ((h = emit(lw, s, HD_OP_REPEAT)) == NULL) {
			rc = -1;
		} else {
			head = *h;
			head.count = (uint64_t)reps;
			head.body_len = g[p] - first;
			memmove(sc->ops + first + 1, sc->ops + first,
				(size_t)(sc->nops - 1 - first) * sizeof *sc->ops);
			sc->ops[first] = head;
		}
	}
	free(g);
	free(fail);
	return rc;
}

static int lower_stmt(struct lower *lw, const struct hd_stmt *s);

/* `repeat N as i` whose body reads i: built iteration by iteration. */
static int
lower_unrolled(struct lower *lw, const struct hd_stmt *s)
{
	struct hd_scenario *sc = lw->out;
	double v;
	uint64_t k, n;
	int first = sc->nops, prev = -1, at;

	if (eval_int(lw, s->count, 0, 1, HD_LESSON_MAX_COUNT, "the repeat count", &v) < 0)
		return -1;
	n = (uint64_t)v;
	for (k = 0; k < n; k++) {
		struct hd_op *h;

		at = sc->nops;
		lw->idx[s->index_slot] = (double)k;
		if ((h = emit(lw, s, HD_OP_REPEAT)) == NULL)
			return -1;
		h->count = 1;
		if (lower_list(lw, s->body, s->nbody) < 0)
			return -1;
		sc->ops[at].body_len = sc->nops - at - 1;
		lw->unrolled += (uint64_t)(sc->nops - at);
		if (lw->unrolled > HD_LESSON_MAX_UNROLL)
			return lerr(lw, s->line, s->col,
				    "this loop reads its index '%s', so scenario %s builds it "
				    "iteration by iteration, and the loops built so come to more "
				    "than %llu ops (iterations times the ops of each); the limit "
				    "is %llu",
				    s->index_name, sc->name, HD_LESSON_MAX_UNROLL,
				    HD_LESSON_MAX_UNROLL);
		if (prev >= 0 && block_same(sc, prev, at, true)) {
			sc->ops[prev].count++;
			drop_ops(sc, at, sc->nops - at);
		} else {
			prev = at;
		}
	}
	return fold_pattern(lw, s, first);
}

/* A node for condition x of block b in the printers' form: its index. */
static int
cx_node(struct lower *lw, struct hd_cblock *b, const struct hd_expr *x)
{
	static const struct {
		enum hd_expr_kind ex;
		enum hd_cx_kind cx;
	} kinds[] = {
		{ HD_EX_NEG, HD_CX_NEG }, { HD_EX_ADD, HD_CX_ADD }, { HD_EX_SUB, HD_CX_SUB },
		{ HD_EX_MUL, HD_CX_MUL }, { HD_EX_DIV, HD_CX_DIV }, { HD_EX_MOD, HD_CX_MOD },
		{ HD_EX_LT, HD_CX_LT },   { HD_EX_LE, HD_CX_LE },   { HD_EX_GT, HD_CX_GT },
		{ HD_EX_GE, HD_CX_GE },   { HD_EX_EQ, HD_CX_EQ },   { HD_EX_NE, HD_CX_NE },
		{ HD_EX_NOT, HD_CX_NOT }, { HD_EX_AND, HD_CX_AND }, { HD_EX_OR, HD_CX_OR },
	};
	struct hd_cx n;
	double f;
	size_t k;

	memset(&n, 0, sizeof n);
	n.a = n.b = n.loop = HD_NONE;
	if (x->index_mask == 0) {
		n.kind = HD_CX_NUM;
		if (eval(lw, x, 0, &n.num) < 0)
			return -1;
	} else if (x->kind == HD_EX_INDEX) {
		n.kind = HD_CX_INDEX;
		n.loop = lw->idx_op[x->slot];
	} else {
		for (k = 0; k < HD_ARRAY_LEN(kinds) && kinds[k].ex != x->kind; k++)
			;
		if (k == HD_ARRAY_LEN(kinds))
			return lerr(lw, x->line, x->col, "this cannot be part of a condition");
		n.kind = kinds[k].cx;
		if ((n.a = cx_node(lw, b, x->a)) < 0 ||
		    (x->b != NULL && (n.b = cx_node(lw, b, x->b)) < 0))
			return -1;
		if ((n.kind == HD_CX_DIV || n.kind == HD_CX_MOD) && b->cx[n.b].kind == HD_CX_NUM &&
		    b->cx[n.b].num == 0)
			return lerr(lw, x->line, x->col, "division by zero");
		/* a product of units carries its factor: (rate * time) * 1e-12 */
		if ((f = hd_expr_factor(x)) != 1) {
			b->cx = hd_xrealloc(b->cx, (size_t)(b->ncx + 2) * sizeof *b->cx);
			b->cx[b->ncx++] = n;
			memset(&n, 0, sizeof n);
			n.kind = HD_CX_NUM;
			n.num = f;
			n.a = n.b = n.loop = HD_NONE;
			b->cx[b->ncx++] = n;
			n.kind = HD_CX_MUL;
			n.a = b->ncx - 2;
			n.b = b->ncx - 1;
		}
	}
	b->cx = hd_xrealloc(b->cx, (size_t)(b->ncx + 1) * sizeof *b->cx);
	b->cx[b->ncx++] = n;
	return b->ncx - 1;
}

/* `if COND`: the branch it takes, or, in the printers' form, a condition on a
 * loop index kept as a block around both branches. */
static int
lower_if(struct lower *lw, const struct hd_stmt *s)
{
	struct hd_scenario *sc = lw->out;
	struct hd_cblock b;
	int saved = lw->cblock, rc;
	bool saved_else = lw->cblock_else;
	double v;

	if (!lw->written || s->cond->index_mask == 0) {
		if (eval(lw, s->cond, 0, &v) < 0)
			return -1;
		if (lw->rep != NULL && lw->rep->seen != NULL)
			lw->rep->seen[s->cond_id] |= v != 0 ? 1 : 2;
		return v != 0 ? lower_list(lw, s->body, s->nbody) :
				lower_list(lw, s->else_body, s->nelse);
	}
	memset(&b, 0, sizeof b);
	b.parent = lw->cblock;
	b.parent_else = lw->cblock_else;
	b.text = hd_xstrndup(s->cond->src_p, s->cond->src_len);
	if (cx_node(lw, &b, s->cond) < 0) {
		free(b.text);
		free(b.cx);
		return -1;
	}
	sc->cblocks = hd_xrealloc(sc->cblocks, (size_t)(sc->ncblocks + 1) * sizeof *sc->cblocks);
	sc->cblocks[sc->ncblocks++] = b;
	lw->cblock = sc->ncblocks;
	lw->cblock_else = false;
	rc = lower_list(lw, s->body, s->nbody);
	lw->cblock_else = true;
	if (rc == 0)
		rc = lower_list(lw, s->else_body, s->nelse);
	lw->cblock = saved;
	lw->cblock_else = saved_else;
	return rc;
}

/* workers COUNT / thread NAME: a header with the count, then the body. */
static int
lower_workers(struct lower *lw, const struct hd_stmt *s)
{
	struct hd_op *h;
	double v = 1;
	int at;

	if (s->count != NULL &&
	    eval_int(lw, s->count, 0, 1, HD_THREADS_MAX, "the number of threads", &v) < 0)
		return -1;
	if (lw->threads + (int)v > HD_THREADS_MAX)
		return lerr(lw, s->line, s->col,
			    "scenario %s starts more than %d host threads beside the main one "
			    "(%d before this block, %d in it); the limit is %d",
			    lw->sc->name, HD_THREADS_MAX, lw->threads, (int)v, HD_THREADS_MAX);
	lw->threads += (int)v;
	if ((h = emit(lw, s, HD_OP_WORKERS)) == NULL)
		return -1;
	h->count = (uint64_t)v;
	h->text = s->text != NULL ? hd_xstrdup(s->text) : NULL;
	at = lw->out->nops;
	if (lower_list(lw, s->body, s->nbody) < 0)
		return -1;
	lw->out->ops[at - 1].body_len = lw->out->nops - at;
	for (; at < lw->out->nops; at++)
		lw->out->ops[at].worker = true;
	return 0;
}

/* Nodes of ops [from, to) of a graph's body: its kernels and copies, loops
 * multiplied out (saturating). */
static uint64_t
graph_nodes(const struct hd_op *ops, int from, int to)
{
	uint64_t n = 0, k;
	int i;

	for (i = from; i < to; i++) {
		if (ops[i].kind != HD_OP_REPEAT) {
			n = n + 1 < n ? UINT64_MAX : n + 1;
			continue;
		}
		k = graph_nodes(ops, i + 1, i + 1 + ops[i].body_len);
		k = ops[i].count != 0 && k > UINT64_MAX / ops[i].count ? UINT64_MAX :
									 k * ops[i].count;
		n = n + k < n ? UINT64_MAX : n + k;
		i += ops[i].body_len;
	}
	return n;
}

/* `graph NAME`: its header, then its body, once; the nodes a launch runs. */
static int
lower_graph(struct lower *lw, const struct hd_stmt *s)
{
	struct hd_op *h = emit(lw, s, HD_OP_GRAPH);
	int at, i;
	uint64_t nodes;

	if (h == NULL)
		return -1;
	h->text = hd_xstrdup(s->text);
	at = lw->out->nops;
	lw->graph_op[s->graph] = at - 1;
	if (lower_list(lw, s->body, s->nbody) < 0)
		return -1;
	nodes = graph_nodes(lw->out->ops, at, lw->out->nops);
	if (nodes == 0 || nodes > HD_LESSON_MAX_GRAPH_NODES)
		return lerr(lw, s->line, s->col,
			    "graph %s runs %llu nodes at each launch (loops multiplied out); "
			    "a graph holds 1 to %d",
			    s->text, (unsigned long long)nodes, HD_LESSON_MAX_GRAPH_NODES);
	h = &lw->out->ops[at - 1];
	h->body_len = lw->out->nops - at;
	h->count = nodes;
	for (i = at; i < lw->out->nops; i++)
		lw->out->ops[i].in_graph = true;
	return 0;
}

static int
lower_stmt(struct lower *lw, const struct hd_stmt *s)
{
	struct hd_op *h;
	double v;
	int at, saved, rc;

	if (s->is_if)
		return lower_if(lw, s);
	if (s->kind == HD_OP_REPEAT && s->index_used && !lw->written)
		return lower_unrolled(lw, s);
	if (s->kind == HD_OP_REPEAT || s->kind == HD_OP_ON_RANK) {
		if (s->kind == HD_OP_REPEAT) {
			if (eval_int(lw, s->count, 0, 1, HD_LESSON_MAX_COUNT, "the repeat count",
				     &v) < 0)
				return -1;
		} else if (eval_int(lw, s->rank, 0, 0, lw->nranks - 1, "the rank", &v) < 0) {
			return -1;
		}
		if ((h = emit(lw, s, s->kind)) == NULL)
			return -1;
		if (s->kind == HD_OP_REPEAT)
			h->count = (uint64_t)v;
		else
			h->rank = (int)v;
		if (s->index_name != NULL && lw->written) {
			h->index_name = hd_xstrdup(s->index_name);
			lw->idx_op[s->index_slot] = lw->out->nops - 1;
		}
		at = lw->out->nops;
		saved = lw->only_rank;
		if (s->kind == HD_OP_ON_RANK)
			lw->only_rank = (int)v;
		rc = lower_list(lw, s->body, s->nbody);
		lw->only_rank = saved;
		if (rc < 0)
			return -1;
		lw->out->ops[at - 1].body_len = lw->out->nops - at;
		return 0;
	}
	if (s->kind == HD_OP_WORKERS)
		return lower_workers(lw, s);
	if (s->kind == HD_OP_GRAPH)
		return lower_graph(lw, s);
	if (s->peer != NULL)
		return lower_peer(lw, s);
	return lower_op(lw, s, HD_NONE, false);
}

static int
lower_list(struct lower *lw, const struct hd_stmt *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (lower_stmt(lw, &v[i]) < 0)
			return -1;
	return 0;
}

/* Executions per rank, counting every rank block (an upper bound). */
static uint64_t
instances(const struct hd_op *ops, int from, int to)
{
	uint64_t n = 0, k;
	int i;

	for (i = from; i < to; i++) {
		const struct hd_op *op = &ops[i];
		n++;
		/* a graph's body runs at its launches: each launch runs its nodes */
		if (op->kind == HD_OP_GRAPH) {
			i += op->body_len;
			continue;
		}
		if (op->kind == HD_OP_LAUNCH) {
			k = ops[op->graph].count;
			n = n + k < n ? UINT64_MAX : n + k;
			continue;
		}
		if (op->kind != HD_OP_REPEAT && op->kind != HD_OP_ON_RANK &&
		    op->kind != HD_OP_WORKERS)
			continue;
		k = instances(ops, i + 1, i + 1 + op->body_len);
		if (op->kind == HD_OP_REPEAT || op->kind == HD_OP_WORKERS) {
			if (op->count != 0 && k > UINT64_MAX / op->count)
				k = UINT64_MAX;
			else
				k *= op->count;
		}
		n = n + k < n ? UINT64_MAX : n + k;
		i += op->body_len;
	}
	return n;
}

struct hd_scenario *
hd_lesson_lower(const struct hd_lesson *l, int idx, const double *knobs, bool written,
		struct hd_lower_report *rep, struct hd_err *e)
{
	struct lower lw;
	const struct hd_scen *sc;
	struct hd_scenario *out;
	double *defaults = NULL;
	uint64_t n;
	int i;

	if (idx < 0 || idx >= l->nscens) {
		hd_err_set(e, HD_EXIT_INPUT, l->path, "no scenario %d", idx);
		return NULL;
	}
	sc = &l->scens[idx];
	if (knobs == NULL && l->nknobs > 0) {
		defaults = hd_xcalloc((size_t)l->nknobs, sizeof *defaults);
		hd_lesson_knob_defaults(l, defaults);
		knobs = defaults;
	}
	if (hd_lesson_knob_check(l, knobs, e) < 0) {
		free(defaults);
		return NULL;
	}
	memset(&lw, 0, sizeof lw);
	lw.l = l;
	lw.sc = sc;
	lw.knobs = knobs;
	lw.e = e;
	lw.nranks = 1;
	lw.only_rank = -1;
	lw.written = written;
	lw.rep = rep;
	lw.graph_op = hd_xcalloc((size_t)sc->ngraphs + 1, sizeof *lw.graph_op);
	out = lw.out = hd_xcalloc(1, sizeof *out);
	out->name = hd_xstrdup(sc->name);
	out->title = hd_xstrdup(sc->title);
	out->per_thread_default = sc->per_thread;
	out->expect_deadlock = sc->expect_deadlock;
	out->nranks = 1;
	if (sc->ranks != NULL) {
		double v;
		if (eval_int(&lw, sc->ranks, 0, 1, HD_LESSON_MAX_RANKS, "the number of ranks", &v) <
		    0)
			goto fail;
		out->nranks = lw.nranks = (int)v;
	}
	out->buffers = hd_xcalloc((size_t)sc->nbufs + 1, sizeof *out->buffers);
	for (i = 0; i < sc->nbufs; i++) {
		struct hd_buffer *b = &out->buffers[i];
		b->name = hd_xstrdup(sc->bufs[i].name);
		b->mem = sc->bufs[i].mem;
		b->line = sc->bufs[i].line;
		b->col = sc->bufs[i].col;
		out->nbuffers++;
		if (eval_bytes(&lw, sc->bufs[i].size, &b->bytes) < 0)
			goto fail;
		if (b->bytes == 0) {
			lerr(&lw, sc->bufs[i].size->sline, sc->bufs[i].size->scol,
			     "buffer %s "
			     "would be empty: a buffer holds at least 1 byte",
			     b->name);
			goto fail;
		}
	}
	out->streams = hd_xcalloc((size_t)sc->nstreams, sizeof *out->streams);
	for (i = 0; i < sc->nstreams; i++) {
		out->streams[i] = sc->streams[i];
		out->streams[i].name = hd_xstrdup(sc->streams[i].name);
	}
	out->nstreams = sc->nstreams;
	out->events = hd_xcalloc((size_t)sc->nevents + 1, sizeof *out->events);
	for (i = 0; i < sc->nevents; i++) {
		out->events[i] = sc->events[i];
		out->events[i].name = hd_xstrdup(sc->events[i].name);
	}
	out->nevents = sc->nevents;
	out->queues = hd_xcalloc((size_t)sc->nqueues + 1, sizeof *out->queues);
	for (i = 0; i < sc->nqueues; i++) {
		struct hd_queue *q = &out->queues[i];
		double v;

		q->name = hd_xstrdup(sc->queues[i].name);
		q->line = sc->queues[i].line;
		q->col = sc->queues[i].col;
		out->nqueues++;
		if (eval_int(&lw, sc->queues[i].depth, 0, 1, HD_QUEUE_MAX_DEPTH, "a queue's depth",
			     &v) < 0)
			goto fail;
		q->depth = (uint32_t)v;
	}
	if (lower_list(&lw, sc->body, sc->nbody) < 0)
		goto fail;
	n = instances(out->ops, 0, out->nops);
	if (n > HD_LESSON_MAX_INSTANCES) {
		lerr(&lw, sc->line, sc->col,
		     "scenario %s runs %llu op executions per rank; "
		     "the limit is 10^8",
		     sc->name, (unsigned long long)n);
		goto fail;
	}
	if (rep != NULL)
		rep->work += lw.built;
	free(defaults);
	free(lw.graph_op);
	return out;
fail:
	if (rep != NULL)
		rep->work += lw.built;
	free(defaults);
	free(lw.graph_op);
	hd_scenario_free(out);
	return NULL;
}

struct hd_scenario *
hd_lesson_instantiate(const struct hd_lesson *l, int idx, const double *knobs, struct hd_err *e)
{
	return hd_lesson_lower(l, idx, knobs, false, NULL, e);
}

struct hd_scenario *
hd_lesson_instantiate_written(const struct hd_lesson *l, int idx, const double *knobs,
			      struct hd_err *e)
{
	return hd_lesson_lower(l, idx, knobs, true, NULL, e);
}

/* --- knob values ------------------------------------------------------------------ */

/* "steps = 100, every = 7": the knobs x refers to, each once, with values. */
static void
knobs_used(const struct hd_lesson *l, const struct hd_expr *x, const double *v, bool *seen,
	   struct hd_buf *b)
{
	char val[64];

	if (x == NULL)
		return;
	if (x->kind == HD_EX_KNOB && x->knob >= 0 && x->knob < l->nknobs && !seen[x->knob]) {
		seen[x->knob] = true;
		hd_expr_fmt_value(val, sizeof val, v[x->knob], l->knobs[x->knob].dim);
		hd_buf_printf(b, "%s%s = %s", b->len > 0 ? ", " : "", l->knobs[x->knob].name, val);
	}
	knobs_used(l, x->a, v, seen, b);
	knobs_used(l, x->b, v, seen, b);
}

int
hd_lesson_knob_check(const struct hd_lesson *l, const double *values, struct hd_err *e)
{
	struct hd_eval_env env;
	int i;

	memset(&env, 0, sizeof env);
	env.src = &l->src;
	env.knobs = values;
	env.nranks = 1;
	for (i = 0; i < l->nreqs; i++) {
		const struct hd_require *r = &l->reqs[i];
		double a = 0, z = 0;
		bool *seen;
		struct hd_buf b;

		if (hd_expr_eval(r->cmp.lhs, &env, &a, e) == 0 &&
		    hd_expr_eval(r->cmp.rhs, &env, &z, e) == 0 && hd_rel_holds(r->cmp.rel, a, z, 0))
			continue;
		seen = hd_xcalloc((size_t)l->nknobs + 1, sizeof *seen);
		hd_buf_init(&b);
		knobs_used(l, r->cmp.lhs, values, seen, &b);
		knobs_used(l, r->cmp.rhs, values, seen, &b);
		if (e != NULL)
			memset(e, 0, sizeof *e);
		hd_src_error(&l->src, e, r->line, r->col, "%s: 'require %s' does not hold for %s",
			     r->msg, r->expr, b.s != NULL ? b.s : "these knob values");
		hd_buf_free(&b);
		free(seen);
		return -1;
	}
	return 0;
}

static int
knob_is_count(const struct hd_knob *k)
{
	return k->dim == HD_DIM_NONE && k->def == floor(k->def) && k->min == floor(k->min) &&
	    k->max == floor(k->max);
}

int
hd_lesson_knob_set(const struct hd_lesson *l, double *values, const char *assignment,
		   struct hd_err *e)
{
	const char *eq = strchr(assignment, '=');
	const struct hd_knob *k;
	struct hd_src src;
	struct hd_toks toks;
	struct hd_err le = { 0 };
	char name[80], b[64], c[64];
	const struct hd_tok *t;
	double sign = 1, v;
	enum hd_dim d, kd;
	int i, rc = -1;

	if (eq == NULL || eq == assignment) {
		hd_err_set(e, HD_EXIT_INPUT, "--set",
			   "expected NAME=VALUE such as "
			   "size=64MiB, found '%s'",
			   assignment);
		return -1;
	}
	snprintf(name, sizeof name, "%.*s", (int)(eq - assignment), assignment);
	if ((i = hd_lesson_find_knob(l, name)) < 0) {
		struct hd_buf kb;
		hd_buf_init(&kb);
		for (i = 0; i < l->nknobs; i++)
			hd_buf_printf(&kb, "%s%s", i ? ", " : "", l->knobs[i].name);
		hd_err_set(e, HD_EXIT_INPUT, "--set", "lesson %s has no knob '%s' (knobs: %s)",
			   l->id, name, kb.s ? kb.s : "none");
		hd_buf_free(&kb);
		return -1;
	}
	k = &l->knobs[i];
	hd_src_init(&src, "--set", eq + 1, strlen(eq + 1));
	if (hd_lex(&src, &toks, &le) < 0) {
		hd_err_set(e, HD_EXIT_INPUT, "--set", "%s: %s", name, le.msg);
		hd_src_free(&src);
		return -1;
	}
	t = toks.v;
	if (t->kind == HD_TOK_PUNCT && t->punct == HD_P_MINUS) {
		sign = -1;
		t++;
	}
	kd = k->dim == HD_DIM_PERCENT ? HD_DIM_NONE : k->dim;
	if (t->kind != HD_TOK_NUMBER || (t[1].kind != HD_TOK_NL && t[1].kind != HD_TOK_EOF)) {
		hd_err_set(e, HD_EXIT_INPUT, "--set", "%s=%s: expected %s", name, eq + 1,
			   hd_dim_example(k->dim));
		goto out;
	}
	d = t->dim == HD_DIM_PERCENT ? HD_DIM_NONE : t->dim;
	v = sign * t->num;
	if (d != kd) {
		hd_err_set(e, HD_EXIT_INPUT, "--set", "%s=%s: knob %s takes %s", name, eq + 1, name,
			   hd_dim_example(k->dim));
		goto out;
	}
	if (knob_is_count(k) && v != floor(v)) {
		hd_err_set(e, HD_EXIT_INPUT, "--set",
			   "%s=%s: knob %s is a count and takes "
			   "whole numbers only",
			   name, eq + 1, name);
		goto out;
	}
	if (v < k->min || v > k->max) {
		hd_expr_fmt_value(b, sizeof b, k->min, k->dim);
		hd_expr_fmt_value(c, sizeof c, k->max, k->dim);
		hd_err_set(e, HD_EXIT_INPUT, "--set",
			   "%s=%s is out of range: knob %s goes "
			   "from %s to %s",
			   name, eq + 1, name, b, c);
		goto out;
	}
	values[i] = v;
	rc = 0;
out:
	hd_toks_free(&toks);
	hd_src_free(&src);
	return rc;
}
