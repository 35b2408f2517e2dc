/*
 * scen_parse.c - the scenario statements of the lesson language: buffers,
 * streams, events, operations, loops and rank blocks, with names resolved
 * as they are met (declare before use) and every kind checked, so a mistake
 * is reported at its own line and column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opfacts.h"
#include "ir/threads.h"
#include "lang/parse.h"

/* --- scenarios ---------------------------------------------------------------- */

enum obj_kind {
	OBJ_NONE,
	OBJ_BUFFER,
	OBJ_STREAM,
	OBJ_EVENT,
	OBJ_QUEUE,
	OBJ_GRAPH
};

static const char *const obj_word[] = {
	/* clang-format off */
	[OBJ_NONE] = "nothing",
	[OBJ_BUFFER] = "a buffer",
	[OBJ_STREAM] = "a stream",
	[OBJ_EVENT] = "an event",
	[OBJ_QUEUE] = "a queue",
	[OBJ_GRAPH] = "a graph",
	/* clang-format on */
};

static enum obj_kind
find_obj(const struct hd_scen *sc, const struct hd_tok *t, int *idx)
{
	int i;

	for (i = 0; i < sc->nbufs; i++)
		if (strlen(sc->bufs[i].name) == t->len &&
		    memcmp(sc->bufs[i].name, t->p, t->len) == 0)
			return *idx = i, OBJ_BUFFER;
	for (i = 0; i < sc->nstreams; i++)
		if (strlen(sc->streams[i].name) == t->len &&
		    memcmp(sc->streams[i].name, t->p, t->len) == 0)
			return *idx = i, OBJ_STREAM;
	for (i = 0; i < sc->nevents; i++)
		if (strlen(sc->events[i].name) == t->len &&
		    memcmp(sc->events[i].name, t->p, t->len) == 0)
			return *idx = i, OBJ_EVENT;
	for (i = 0; i < sc->nqueues; i++)
		if (strlen(sc->queues[i].name) == t->len &&
		    memcmp(sc->queues[i].name, t->p, t->len) == 0)
			return *idx = i, OBJ_QUEUE;
	for (i = 0; i < sc->ngraphs; i++)
		if (strlen(sc->graphs[i].name) == t->len &&
		    memcmp(sc->graphs[i].name, t->p, t->len) == 0)
			return *idx = i, OBJ_GRAPH;
	return OBJ_NONE;
}

/* "h, d" or "none declared" for the objects of one kind. */
static void
list_objs(const struct hd_scen *sc, enum obj_kind k, char *buf, size_t n)
{
	struct hd_buf b;
	int i, cnt = k == OBJ_BUFFER ? sc->nbufs : k == OBJ_STREAM ? sc->nstreams : sc->nevents;

	if (k == OBJ_QUEUE)
		cnt = sc->nqueues;
	hd_buf_init(&b);
	for (i = 0; i < cnt; i++) {
		const char *nm = k == OBJ_BUFFER ? sc->bufs[i].name :
		    k == OBJ_STREAM              ? sc->streams[i].name :
		    k == OBJ_QUEUE               ? sc->queues[i].name :
						   sc->events[i].name;
		hd_buf_printf(&b, "%s%s", i ? ", " : "", nm);
	}
	snprintf(buf, n, "%s", cnt ? b.s : "none declared");
	hd_buf_free(&b);
}

/* Resolve a name that must be of kind `want` (or also `alt`).  -1 on error. */
static int
expect_obj(struct hd_parser *p, enum obj_kind want, enum obj_kind alt, const char *role, int *idx,
	   enum obj_kind *got)
{
	const struct hd_tok *t = tok(p);
	static const char *const plural[] = {
		/* clang-format off */
		[OBJ_NONE] = "",
		[OBJ_BUFFER] = "buffers",
		[OBJ_STREAM] = "streams",
		[OBJ_EVENT] = "events",
		[OBJ_QUEUE] = "queues",
		/* clang-format on */
	};
	enum obj_kind k;
	char list[400], s[80];

	hd_parse_so_far(p, s, sizeof s);
	if (t->kind != HD_TOK_NAME) {
		char d[96];
		hd_tok_describe(t, d, sizeof d);
		if (alt != OBJ_NONE)
			return hd_parse_error(p, t, "expected %s or %s name after %s, found %s",
					      obj_word[want],
					      obj_word[alt] + (alt == OBJ_EVENT ? 3 : 2), s, d);
		return hd_parse_error(p, t, "expected %s name (%s) after %s, found %s",
				      obj_word[want], role, s, d);
	}
	k = find_obj(p->sc, t, idx);
	if (k == OBJ_NONE) {
		list_objs(p->sc, want, list, sizeof list);
		if (alt != OBJ_NONE) {
			char l2[400];
			list_objs(p->sc, alt, l2, sizeof l2);
			return hd_parse_error(p, t,
					      "no %s or %s named '%.*s' in scenario %s "
					      "(%s: %s; %s: %s)",
					      obj_word[want] + 2 + (want == OBJ_EVENT),
					      obj_word[alt] + 2 + (alt == OBJ_EVENT), (int)t->len,
					      t->p, p->sc->name, plural[want], list, plural[alt],
					      l2);
		}
		return hd_parse_error(p, t, "no %s named '%.*s' in scenario %s (%s: %s)",
				      obj_word[want] + 2 + (want == OBJ_EVENT), (int)t->len, t->p,
				      p->sc->name, plural[want], list);
	}
	if (k != want && k != alt)
		return hd_parse_error(p, t, "'%.*s' is %s, but %s needs %s%s%s here", (int)t->len,
				      t->p, obj_word[k], s, obj_word[want],
				      alt != OBJ_NONE ? " or " : "",
				      alt != OBJ_NONE ? obj_word[alt] : "");
	if (got != NULL)
		*got = k;
	p->pos++;
	return 0;
}

static int
check_new_name(struct hd_parser *p, const struct hd_tok *t)
{
	int idx;
	enum obj_kind k;

	if (t->kind != HD_TOK_NAME)
		return 0; /* hd_parse_name reports it */
	if (p->sc->nbufs + p->sc->nstreams + p->sc->nevents + p->sc->nqueues >=
	    HD_LESSON_MAX_NAMES + 2)
		return hd_parse_error(p, t,
				      "scenario %s declares more than %d buffers, streams, "
				      "events and queues; the limit is %d",
				      p->sc->name, HD_LESSON_MAX_NAMES, HD_LESSON_MAX_NAMES);
	if (is_kw(t, "device") || is_kw(t, "rank") || is_kw(t, "nranks"))
		return hd_parse_error(p, t, "'%.*s' is reserved: choose another name", (int)t->len,
				      t->p);
	for (idx = 0; idx < p->nindex; idx++)
		if (is_kw(t, p->index_names[idx]))
			return hd_parse_error(p, t,
					      "'%.*s' is the index of a loop around this line: "
					      "choose another name",
					      (int)t->len, t->p);
	k = find_obj(p->sc, t, &idx);
	if (k == OBJ_STREAM && idx < 2)
		return hd_parse_error(p, t, "'%.*s' is a built-in stream: choose another name",
				      (int)t->len, t->p);
	if (k != OBJ_NONE)
		return hd_parse_error(p, t,
				      "'%.*s' is already declared as %s in scenario %s "
				      "(line %d)",
				      (int)t->len, t->p, obj_word[k], p->sc->name,
				      k == OBJ_BUFFER     ? p->sc->bufs[idx].line :
					  k == OBJ_STREAM ? p->sc->streams[idx].line :
					  k == OBJ_QUEUE  ? p->sc->queues[idx].line :
					  k == OBJ_GRAPH  ? p->sc->graphs[idx].line :
							    p->sc->events[idx].line);
	return 0;
}

static const char *const mem_words[HD_MEM__COUNT] = {
	[HD_MEM_PAGEABLE] = "pageable",
	[HD_MEM_PINNED] = "pinned",
	[HD_MEM_MANAGED] = "managed",
	[HD_MEM_DEVICE] = "device",
};

static int
parse_buffer(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p), *t;
	struct hd_scen *sc = p->sc;
	struct hd_decl_buffer b;
	int m;

	memset(&b, 0, sizeof b);
	p->pos++;
	if (check_new_name(p, tok(p)) < 0)
		return -1;
	if ((b.name = hd_parse_name(p, "the buffer's name")) == NULL)
		return -1;
	t = tok(p);
	for (m = 0; m < HD_MEM__COUNT; m++)
		if (is_kw(t, mem_words[m]))
			break;
	if (m == HD_MEM__COUNT) {
		char d[96];
		hd_tok_describe(t, d, sizeof d);
		hd_parse_error(p, t,
			       "expected the buffer's memory (pageable, pinned, managed "
			       "or device) after 'buffer %s', found %s",
			       b.name, d);
		free(b.name);
		return -1;
	}
	b.mem = (enum hd_mem)m;
	p->pos++;
	if ((b.size = hd_parse_expr(p, HD_DIM_BYTES)) == NULL || hd_parse_eol(p) < 0) {
		hd_expr_free(b.size);
		free(b.name);
		return -1;
	}
	b.line = kw->line;
	b.col = kw->col;
	sc->bufs = hd_xrealloc(sc->bufs, (size_t)(sc->nbufs + 1) * sizeof *sc->bufs);
	sc->bufs[sc->nbufs++] = b;
	return 0;
}

static int
parse_stream(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p), *t;
	struct hd_scen *sc = p->sc;
	struct hd_stream s;

	memset(&s, 0, sizeof s);
	p->pos++;
	if (check_new_name(p, tok(p)) < 0)
		return -1;
	if ((s.name = hd_parse_name(p, "the stream's name")) == NULL)
		return -1;
	s.line = kw->line;
	s.col = kw->col;
	for (;;) {
		t = tok(p);
		if (is_kw(t, "nonblocking") && !(s.flags & HD_STREAM_NONBLOCKING)) {
			s.flags |= HD_STREAM_NONBLOCKING;
			p->pos++;
		} else if (is_kw(t, "priority")) {
			const struct hd_tok *n = peek(p, 1);
			double sign = 1;
			if (is_punct(n, HD_P_MINUS)) {
				sign = -1;
				n = peek(p, 2);
			}
			if (n->kind != HD_TOK_NUMBER || n->dim != HD_DIM_NONE ||
			    n->num != (double)(int)n->num || n->num > 100) {
				char d[96];
				hd_tok_describe(n, d, sizeof d);
				free(s.name);
				return hd_parse_error(p, n,
						      "expected a whole number from -100 to "
						      "100 "
						      "after 'priority', found %s",
						      d);
			}
			s.priority = (int)(sign * n->num);
			p->pos = (size_t)(n - p->toks.v) + 1;
		} else {
			break;
		}
	}
	if (!at_eol(tok(p))) {
		char d[96];
		hd_tok_describe(tok(p), d, sizeof d);
		hd_parse_error(p, tok(p),
			       "unexpected %s after 'stream %s': expected "
			       "'nonblocking', 'priority N' or the end of the line",
			       d, s.name);
		free(s.name);
		return -1;
	}
	hd_parse_eol(p);
	sc->streams = hd_xrealloc(sc->streams, (size_t)(sc->nstreams + 1) * sizeof *sc->streams);
	sc->streams[sc->nstreams++] = s;
	return 0;
}

static int
parse_event(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p);
	struct hd_scen *sc = p->sc;
	struct hd_event ev;

	memset(&ev, 0, sizeof ev);
	p->pos++;
	if (check_new_name(p, tok(p)) < 0)
		return -1;
	if ((ev.name = hd_parse_name(p, "the event's name")) == NULL)
		return -1;
	ev.timing = true;
	ev.line = kw->line;
	ev.col = kw->col;
	if (is_kw(tok(p), "notiming")) {
		ev.timing = false;
		p->pos++;
	}
	if (hd_parse_eol(p) < 0) {
		free(ev.name);
		return -1;
	}
	sc->events = hd_xrealloc(sc->events, (size_t)(sc->nevents + 1) * sizeof *sc->events);
	sc->events[sc->nevents++] = ev;
	return 0;
}

/* queue NAME DEPTH: a bounded queue between host threads (ir/threads.h) */
static int
parse_queue(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p);
	struct hd_scen *sc = p->sc;
	struct hd_decl_queue q;

	memset(&q, 0, sizeof q);
	p->pos++;
	if (check_new_name(p, tok(p)) < 0)
		return -1;
	if ((q.name = hd_parse_name(p, "the queue's name")) == NULL)
		return -1;
	q.depth = hd_parse_expr_ex(p, HD_DIM_NONE, 0,
				   "the queue's depth, the items it holds, such as 2");
	if (q.depth == NULL || hd_parse_eol(p) < 0) {
		hd_expr_free(q.depth);
		free(q.name);
		return -1;
	}
	if (q.depth->depends_on_rank) {
		hd_parse_error_line(p, q.depth->sline, q.depth->scol,
				    "a queue's depth must be the same on every rank: it cannot "
				    "use 'rank'");
		hd_expr_free(q.depth);
		free(q.name);
		return -1;
	}
	q.line = kw->line;
	q.col = kw->col;
	sc->queues = hd_xrealloc(sc->queues, (size_t)(sc->nqueues + 1) * sizeof *sc->queues);
	sc->queues[sc->nqueues++] = q;
	return 0;
}

/* Free what a statement owns, not the statement itself. */
static void
stmt_clear(struct hd_stmt *s)
{
	free(s->label);
	hd_expr_free(s->bytes);
	hd_expr_free(s->flops);
	hd_expr_free(s->duration);
	hd_expr_free(s->grid);
	hd_expr_free(s->count);
	hd_expr_free(s->peer);
	hd_expr_free(s->root);
	hd_expr_free(s->rank);
	free(s->text);
	hd_stmt_free_list(s->body, s->nbody);
	hd_expr_free(s->cond);
	hd_stmt_free_list(s->else_body, s->nelse);
	free(s->index_name);
}

void
hd_stmt_free_list(struct hd_stmt *v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		stmt_clear(&v[i]);
	free(v);
}

/* Optional trailing clauses: SIZE, async, on STREAM, grid N, root EXPR. */
enum {
	CL_SIZE = 1,
	CL_ASYNC = 2,
	CL_ON = 4,
	CL_GRID = 8,
	CL_ROOT = 16,
};

static int
parse_clauses(struct hd_parser *p, struct hd_stmt *s, unsigned allowed)
{
	unsigned seen = 0;

	for (;;) {
		const struct hd_tok *t = tok(p);
		unsigned c;
		char d[96], sf[80];

		if (at_eol(t))
			return 0;
		c = is_kw(t, "async") ? CL_ASYNC :
		    is_kw(t, "on")    ? CL_ON :
		    is_kw(t, "grid")  ? CL_GRID :
		    is_kw(t, "root")  ? CL_ROOT :
		    hd_expr_starts(t) ? CL_SIZE :
					0;
		if (c == 0 || !(allowed & c)) {
			struct hd_buf opts;
			hd_tok_describe(t, d, sizeof d);
			hd_parse_so_far(p, sf, sizeof sf);
			hd_buf_init(&opts);
			if (allowed & CL_SIZE)
				hd_buf_puts(&opts, ", a size");
			if (allowed & CL_ASYNC)
				hd_buf_puts(&opts, ", 'async'");
			if (allowed & CL_ON)
				hd_buf_puts(&opts, ", 'on STREAM'");
			if (allowed & CL_GRID)
				hd_buf_puts(&opts, ", 'grid N'");
			if (allowed & CL_ROOT)
				hd_buf_puts(&opts, ", 'root RANK'");
			hd_parse_error(p, t,
				       "unexpected %s after %s: expected %s%sthe end of the "
				       "line",
				       d, sf, opts.s ? opts.s + 2 : "", opts.s ? " or " : "");
			hd_buf_free(&opts);
			return -1;
		}
		if (seen & c)
			return hd_parse_error(p, t, "'%.*s' is given twice", (int)t->len, t->p);
		seen |= c;
		switch (c) {
		case CL_ASYNC:
			s->async = true;
			p->pos++;
			break;
		case CL_ON:
			p->pos++;
			if (expect_obj(p, OBJ_STREAM, OBJ_NONE, "the stream", &s->stream, NULL) < 0)
				return -1;
			break;
		case CL_GRID:
			p->pos++;
			if ((s->grid = hd_parse_expr(p, HD_DIM_NONE)) == NULL)
				return -1;
			break;
		case CL_ROOT:
			p->pos++;
			if ((s->root = hd_parse_expr(p, HD_DIM_NONE)) == NULL)
				return -1;
			break;
		default:
			if ((s->bytes = hd_parse_expr(p, HD_DIM_BYTES)) == NULL)
				return -1;
			break;
		}
	}
}

static int parse_body(struct hd_parser *p, struct hd_stmt **body, int *nbody);

/* Buffer b must be one of the memory kinds in `mask`. */
static int
check_mem(struct hd_parser *p, const struct hd_tok *t, int b, unsigned mask, const char *why)
{
	enum hd_mem m = p->sc->bufs[b].mem;

	if (mask & (1u << m))
		return 0;
	return hd_parse_error(p, t, "buffer %s is %s memory: %s", p->sc->bufs[b].name, mem_words[m],
			      why);
}

#define MEM_BIT(m) (1u << (m))
#define MEM_GPU    (MEM_BIT(HD_MEM_DEVICE) | MEM_BIT(HD_MEM_MANAGED))

static int
need_ranks(struct hd_parser *p, const struct hd_tok *kw)
{
	if (p->sc->ranks != NULL)
		return 0;
	return hd_parse_error(p, kw,
			      "'%.*s' needs a scenario with several ranks: declare "
			      "'ranks N' before it",
			      (int)kw->len, kw->p);
}

/* The first use of `rank` in x (x depends on the rank). */
static const struct hd_expr *
rank_use(const struct hd_expr *x)
{
	if (x->kind == HD_EX_RANK)
		return x;
	if (x->a != NULL && x->a->depends_on_rank)
		return rank_use(x->a);
	if (x->b != NULL && x->b->depends_on_rank)
		return rank_use(x->b);
	return x;
}

/* --- operations: one parser per form, one table of forms -------------------------- */

struct op_parse;

/*
 * How a kind of op is written after its keyword (the keyword is the op's
 * fact, ir/opfacts.h): the parser of its operands, the memory its buffer
 * may be (0: any) and why, the optional clauses that may follow, and a
 * check once they are read (or NULL).
 */
struct op_form {
	int (*parse)(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o);
	unsigned mem;
	const char *mem_why;
	unsigned clauses;
	int (*check)(struct hd_parser *p, const struct hd_stmt *s);
};

/* One op being read. */
struct op_parse {
	const struct hd_tok *kw;    /* its keyword */
	const struct op_form *form; /* how its kind is written */
	unsigned clauses;           /* clauses allowed (a parser may narrow them) */
};

/* The op's buffer (role: for messages) into *idx, in memory its form allows. */
static int
expect_buf(struct hd_parser *p, const struct op_parse *o, const char *role, int *idx)
{
	const struct hd_tok *t = tok(p);

	if (expect_obj(p, OBJ_BUFFER, OBJ_NONE, role, idx, NULL) < 0)
		return -1;
	if (o->form->mem != 0)
		return check_mem(p, t, *idx, o->form->mem, o->form->mem_why);
	return 0;
}

/* alloc, free, pin: BUFFER */
static int
parse_buf_op(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	return expect_buf(p, o, "the buffer", &s->dst);
}

/* copy SRC -> DST [@ PEER] */
static int
parse_copy(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	const struct hd_tok *st = tok(p), *dt;

	(void)o;
	if (expect_obj(p, OBJ_BUFFER, OBJ_NONE, "the source", &s->src, NULL) < 0)
		return -1;
	if (!is_punct(tok(p), HD_P_ARROW)) {
		char d[96];
		hd_tok_describe(tok(p), d, sizeof d);
		return hd_parse_error(p, tok(p), "expected '->' after 'copy %.*s', found %s",
				      (int)st->len, st->p, d);
	}
	p->pos++;
	dt = tok(p);
	if (expect_obj(p, OBJ_BUFFER, OBJ_NONE, "the destination", &s->dst, NULL) < 0)
		return -1;
	if (!is_punct(tok(p), HD_P_AT))
		return 0;
	if (need_ranks(p, tok(p)) < 0)
		return -1;
	p->pos++;
	if ((s->peer = hd_parse_expr(p, HD_DIM_NONE)) == NULL)
		return -1;
	if (check_mem(p, st, s->src, MEM_BIT(HD_MEM_DEVICE),
		      "a peer copy goes between device buffers") < 0 ||
	    check_mem(p, dt, s->dst, MEM_BIT(HD_MEM_DEVICE),
		      "a peer copy goes between device buffers") < 0)
		return -1;
	return 0;
}

/* cudaMemcpy has no stream argument: 'on' needs 'async'. */
static int
check_copy(struct hd_parser *p, const struct hd_stmt *s)
{
	if (s->stream == HD_NONE || s->async)
		return 0;
	return hd_parse_error_line(
	    p, s->line, s->col,
	    "'copy ... on %s' without 'async': "
	    "cudaMemcpy always uses the default stream; add 'async' to copy on stream %s",
	    p->sc->streams[s->stream].name, p->sc->streams[s->stream].name);
}

/* kernel spin TIME | compute FLOP | memory SIZE-OR-BUFFER | fill BUFFER | reduce BUFFER */
static int
parse_kernel(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	const struct hd_tok *t = tok(p);
	int k, idx, *buf;

	(void)o;
	for (k = 0; k < HD_KERNEL__COUNT; k++)
		if (is_kw(t, hd_kernel_name((enum hd_kernel_kind)k)))
			break;
	if (k == HD_KERNEL__COUNT) {
		char d[96];
		hd_tok_describe(t, d, sizeof d);
		return hd_parse_error(p, t,
				      "expected a kernel kind (spin, compute, memory, fill "
				      "or reduce) after 'kernel', found %s",
				      d);
	}
	s->kernel = (enum hd_kernel_kind)k;
	p->pos++;
	t = tok(p);
	switch (s->kernel) {
	case HD_KERNEL_SPIN:
		return (s->duration = hd_parse_expr(p, HD_DIM_TIME)) == NULL ? -1 : 0;
	case HD_KERNEL_COMPUTE:
		return (s->flops = hd_parse_expr(p, HD_DIM_FLOP)) == NULL ? -1 : 0;
	case HD_KERNEL_MEMORY:
		if (t->kind == HD_TOK_NAME && !is_punct(peek(p, 1), HD_P_LPAREN) &&
		    find_obj(p->sc, t, &idx) != OBJ_NONE) {
			if (expect_obj(p, OBJ_BUFFER, OBJ_NONE, "the buffer", &s->src, NULL) < 0 ||
			    check_mem(p, t, s->src, MEM_GPU,
				      "kernels read device or managed "
				      "memory") < 0)
				return -1;
			return 0;
		}
		s->bytes = hd_parse_expr_ex(
		    p, HD_DIM_BYTES, 0, "a size such as 1GiB or a buffer after 'kernel memory'");
		return s->bytes == NULL ? -1 : 0;
	case HD_KERNEL_FILL:
	case HD_KERNEL_REDUCE:
		buf = s->kernel == HD_KERNEL_FILL ? &s->dst : &s->src;
		if (expect_obj(p, OBJ_BUFFER, OBJ_NONE, "the buffer", buf, NULL) < 0)
			return -1;
		return check_mem(p, t, *buf, MEM_GPU,
				 "kernels read and write device or managed "
				 "memory");
	case HD_KERNEL__COUNT:
		break;
	}
	return -1;
}

/* prefetch BUFFER to device|host */
static int
parse_prefetch(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	if (expect_buf(p, o, "the buffer", &s->dst) < 0)
		return -1;
	if (!is_kw(tok(p), "to") || !(is_kw(peek(p, 1), "device") || is_kw(peek(p, 1), "host"))) {
		const struct hd_tok *bad = is_kw(tok(p), "to") ? peek(p, 1) : tok(p);
		char d[96];
		hd_tok_describe(bad, d, sizeof d);
		return hd_parse_error(p, bad,
				      "expected 'to device' or 'to host' after "
				      "'prefetch %s', found %s",
				      p->sc->bufs[s->dst].name, d);
	}
	s->to_device = is_kw(peek(p, 1), "device");
	p->pos += 2;
	return 0;
}

/* record, wait, query: EVENT */
static int
parse_event_op(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	(void)o;
	return expect_obj(p, OBJ_EVENT, OBJ_NONE, "the event", &s->event, NULL);
}

/* sync device | EVENT | STREAM: the operand decides the kind */
static int
parse_sync(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	enum obj_kind k;
	int idx;

	(void)o;
	if (is_kw(tok(p), "device")) {
		s->kind = HD_OP_DEVICE_SYNC;
		p->pos++;
		return 0;
	}
	if (tok(p)->kind == HD_TOK_NAME && find_obj(p->sc, tok(p), &idx) == OBJ_BUFFER)
		return hd_parse_error(p, tok(p),
				      "'%.*s' is a buffer, but 'sync' needs an "
				      "event, a stream or 'device'",
				      (int)tok(p)->len, tok(p)->p);
	if (expect_obj(p, OBJ_EVENT, OBJ_STREAM, "", &idx, &k) < 0)
		return -1;
	if (k == OBJ_EVENT) {
		s->kind = HD_OP_EVENT_SYNC;
		s->event = idx;
	} else {
		s->kind = HD_OP_STREAM_SYNC;
		s->stream = idx;
	}
	return 0;
}

/* host TIME ["what it stands for"] */
static int
parse_host(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	(void)o;
	if ((s->duration = hd_parse_expr(p, HD_DIM_TIME)) == NULL)
		return -1;
	if (tok(p)->kind == HD_TOK_STRING)
		s->text = hd_xstrdup(p->toks.v[p->pos++].str);
	return 0;
}

/* read BUFFER */
static int
parse_read(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	return expect_buf(p, o, "the buffer", &s->src);
}

/* send BUFFER to RANK, recv BUFFER from RANK */
static int
parse_p2p(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	int send = s->kind == HD_OP_SEND;
	const char *word = hd_op_facts[s->kind].word;
	const struct hd_tok *t = tok(p);

	if (expect_buf(p, o, "the buffer", send ? &s->src : &s->dst) < 0)
		return -1;
	if (!is_kw(tok(p), send ? "to" : "from")) {
		char d[96];
		hd_tok_describe(tok(p), d, sizeof d);
		return hd_parse_error(p, tok(p), "expected '%s RANK' after '%s %.*s', found %s",
				      send ? "to" : "from", word, (int)t->len, t->p, d);
	}
	p->pos++;
	return (s->peer = hd_parse_expr(p, HD_DIM_NONE)) == NULL ? -1 : 0;
}

/* COLLECTIVE BUFFER: in place; only rooted collectives take 'root' */
static int
parse_coll(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	int c;

	/* op_kind_of found it among them */
	for (c = 0; c < HD_COLL__COUNT - 1; c++)
		if (is_kw(o->kw, hd_coll_name((enum hd_coll)c)))
			break;
	s->coll = (enum hd_coll)c;
	if (expect_buf(p, o, "the buffer", &s->src) < 0)
		return -1;
	s->dst = s->src;
	if (!hd_coll_rooted_ok(s->coll))
		o->clauses &= ~(unsigned)CL_ROOT;
	return 0;
}

/* barrier: nothing more */
static int
parse_bare(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	(void)p;
	(void)s;
	(void)o;
	return 0;
}

/* `as NAME` after `repeat COUNT`: the loop's index, in scope for its body. */
static int
parse_index(struct hd_parser *p, struct hd_stmt *s)
{
	const struct hd_tok *t = peek(p, 1);
	int k;

	p->pos++;
	if (t->kind != HD_TOK_NAME) {
		char d[96];
		hd_tok_describe(t, d, sizeof d);
		return hd_parse_error(p, t,
				      "expected a name for the loop's index after 'as' (as in "
				      "'repeat steps as i'), found %s",
				      d);
	}
	if (is_kw(t, "rank") || is_kw(t, "nranks") || is_kw(t, "profile"))
		return hd_parse_error(p, t, "'%.*s' is reserved: choose another name for the index",
				      (int)t->len, t->p);
	if (hd_lesson_find_knob(p->l, (s->index_name = tok_strdup(t))) >= 0)
		return hd_parse_error(p, t,
				      "'%s' is a knob: choose another name for the loop's index",
				      s->index_name);
	for (k = 0; k < p->nindex; k++)
		if (strcmp(p->index_names[k], s->index_name) == 0)
			return hd_parse_error(p, t,
					      "'%s' is already the index of a loop around this "
					      "one: choose another name",
					      s->index_name);
	if (find_obj(p->sc, t, &k) != OBJ_NONE)
		return hd_parse_error(p, t,
				      "'%s' is already declared as %s in scenario %s: choose "
				      "another name for the loop's index",
				      s->index_name, obj_word[find_obj(p->sc, t, &k)], p->sc->name);
	p->pos++;
	s->index_slot = p->nindex;
	return 0;
}

/* repeat COUNT / rank N, then the block's lines up to its `end` */
static int
parse_block(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	const char *word = hd_op_facts[s->kind].word;
	struct hd_expr **x = s->kind == HD_OP_REPEAT ? &s->count : &s->rank;
	char what[96];
	unsigned bit;
	int rc;

	if ((*x = hd_parse_expr(p, HD_DIM_NONE)) == NULL)
		return -1;
	if ((*x)->depends_on_rank) {
		const struct hd_expr *r = rank_use(*x);
		return hd_parse_error_line(p, r->line, r->col,
					   "'%s' must be the same on every "
					   "rank: it cannot use 'rank'",
					   word);
	}
	snprintf(what, sizeof what, "%s %.*s", word, (int)((*x)->src_len > 40 ? 40 : (*x)->src_len),
		 (*x)->src_p);
	if (s->kind == HD_OP_REPEAT && is_kw(tok(p), "as") && parse_index(p, s) < 0)
		return -1;
	if (hd_parse_eol(p) < 0 || hd_parse_push_block(p, o->kw, what) < 0)
		return -1;
	if (s->index_name == NULL)
		return parse_body(p, &s->body, &s->nbody);
	/* the index is in scope for the body; record whether a condition reads it */
	bit = 1u << s->index_slot;
	p->index_names[p->nindex++] = s->index_name;
	p->index_used &= ~bit;
	rc = parse_body(p, &s->body, &s->nbody);
	p->nindex--;
	s->index_used = (p->index_used & bit) != 0;
	p->index_used &= ~bit;
	return rc;
}

/* put QUEUE, get QUEUE */
static int
parse_queue_op(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	(void)o;
	return expect_obj(p, OBJ_QUEUE, OBJ_NONE, "the queue", &s->queue, NULL);
}

/*
 * workers COUNT / thread NAME, then the lines its threads run up to its
 * `end`: host work only (ir/threads.h), at the top of the scenario.
 */
static int
parse_workers(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	const struct hd_tok *t = tok(p);
	char what[96];
	int i, rc;

	if (p->depth > 1)
		return hd_parse_error(p, o->kw,
				      "'%.*s' belongs at the top of the scenario, not inside a "
				      "block: its threads start when the main thread reaches it",
				      (int)o->kw->len, o->kw->p);
	if (is_kw(o->kw, "thread")) {
		if (t->kind == HD_TOK_NAME)
			for (i = 0; i < p->sc->nbody; i++)
				if (p->sc->body[i].kind == HD_OP_WORKERS &&
				    p->sc->body[i].text != NULL && is_kw(t, p->sc->body[i].text))
					return hd_parse_error(p, t,
							      "thread '%s' is declared twice in "
							      "scenario %s (line %d)",
							      p->sc->body[i].text, p->sc->name,
							      p->sc->body[i].line);
		if ((s->text = hd_parse_name(p, "the thread's name")) == NULL)
			return -1;
		snprintf(what, sizeof what, "thread %s", s->text);
	} else {
		s->count = hd_parse_expr_ex(p, HD_DIM_NONE, 0,
					    "the number of threads after 'workers', such as 4");
		if (s->count == NULL)
			return -1;
		if (s->count->depends_on_rank) {
			const struct hd_expr *r = rank_use(s->count);
			return hd_parse_error_line(p, r->line, r->col,
						   "'workers' must be the same on every rank: it "
						   "cannot use 'rank'");
		}
		snprintf(what, sizeof what, "workers %.*s",
			 (int)(s->count->src_len > 40 ? 40 : s->count->src_len), s->count->src_p);
	}
	if (hd_parse_eol(p) < 0 || hd_parse_push_block(p, o->kw, what) < 0)
		return -1;
	p->in_thread = 1;
	rc = parse_body(p, &s->body, &s->nbody);
	p->in_thread = 0;
	return rc;
}

/* In a worker, a copy is a memcpy between host buffers. */
static int
check_thread_copy(struct hd_parser *p, const struct hd_stmt *s)
{
	static const unsigned host = MEM_BIT(HD_MEM_PAGEABLE) | MEM_BIT(HD_MEM_PINNED);
	int b = host & MEM_BIT(p->sc->bufs[s->src].mem) ? s->dst : s->src;

	if (s->peer == NULL && (host & MEM_BIT(p->sc->bufs[s->src].mem)) &&
	    (host & MEM_BIT(p->sc->bufs[s->dst].mem)))
		return 0;
	return hd_parse_error_line(p, s->line, s->col,
				   "buffer %s is %s memory: a host thread's 'copy' is a memcpy "
				   "between host buffers (pageable or pinned); the main thread "
				   "copies to and from the GPU",
				   p->sc->bufs[b].name, mem_words[p->sc->bufs[b].mem]);
}
static int parse_graph(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o);
static int parse_launch(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o);
static int graph_kind_ok(struct hd_parser *p, const struct hd_tok *kw, enum hd_op_kind k);
static int graph_stmt_ok(struct hd_parser *p, const struct hd_stmt *s, const struct hd_tok *kw);
static int graph_decl_ok(struct hd_parser *p, const struct hd_tok *t);
static int graph_buffers_ok(struct hd_parser *p, const struct hd_scen *sc);
static const char *graph_now(const struct hd_parser *p);

#define NCCL_MEM MEM_BIT(HD_MEM_DEVICE)

static const struct op_form op_forms[HD_OP__COUNT] = {
	[HD_OP_ALLOC] = { parse_buf_op, 0, NULL, 0, NULL },
	[HD_OP_FREE] = { parse_buf_op, 0, NULL, 0, NULL },
	[HD_OP_PIN] = { parse_buf_op, MEM_BIT(HD_MEM_PAGEABLE),
			"'pin' registers pageable memory (cudaHostRegister)", 0, NULL },
	[HD_OP_COPY] = { parse_copy, 0, NULL, CL_SIZE | CL_ASYNC | CL_ON, check_copy },
	[HD_OP_KERNEL] = { parse_kernel, 0, NULL, CL_ON | CL_GRID, NULL },
	[HD_OP_PREFETCH] = { parse_prefetch, MEM_BIT(HD_MEM_MANAGED),
			     "'prefetch' moves managed memory (cudaMemPrefetchAsync)", CL_ON,
			     NULL },
	[HD_OP_RECORD] = { parse_event_op, 0, NULL, CL_ON, NULL },
	[HD_OP_WAIT] = { parse_event_op, 0, NULL, CL_ON, NULL },
	[HD_OP_EVENT_SYNC] = { parse_sync, 0, NULL, 0, NULL },
	[HD_OP_EVENT_QUERY] = { parse_event_op, 0, NULL, 0, NULL },
	[HD_OP_STREAM_SYNC] = { parse_sync, 0, NULL, 0, NULL },
	[HD_OP_DEVICE_SYNC] = { parse_sync, 0, NULL, 0, NULL },
	[HD_OP_HOST] = { parse_host, 0, NULL, 0, NULL },
	[HD_OP_READ] = { parse_read, MEM_GPU,
			 "'read' is the host reading device data "
			 "(print(t), t.item()); a host buffer is already on the host",
			 CL_SIZE, NULL },
	[HD_OP_REPEAT] = { parse_block, 0, NULL, 0, NULL },
	[HD_OP_ON_RANK] = { parse_block, 0, NULL, 0, NULL },
	[HD_OP_SEND] = { parse_p2p, NCCL_MEM, "NCCL sends and receives device buffers",
			 CL_SIZE | CL_ON, NULL },
	[HD_OP_RECV] = { parse_p2p, NCCL_MEM, "NCCL sends and receives device buffers",
			 CL_SIZE | CL_ON, NULL },
	[HD_OP_COLL] = { parse_coll, NCCL_MEM, "NCCL collectives work on device buffers",
			 CL_SIZE | CL_ON | CL_ROOT, NULL },
	[HD_OP_BARRIER] = { parse_bare, 0, NULL, 0, NULL },
	[HD_OP_WORKERS] = { parse_workers, 0, NULL, 0, NULL },
	[HD_OP_PUT] = { parse_queue_op, 0, NULL, 0, NULL },
	[HD_OP_GET] = { parse_queue_op, 0, NULL, 0, NULL },
	[HD_OP_GRAPH] = { parse_graph, 0, NULL, 0, NULL },
	[HD_OP_LAUNCH] = { parse_launch, 0, NULL, CL_ON, NULL },
};

/* The kind an op's keyword stands for: an op fact's word or a collective's name. */
static int
op_kind_of(const struct hd_tok *t, enum hd_op_kind *kind)
{
	int k;

	for (k = 0; k < HD_OP__COUNT; k++)
		if (hd_op_facts[k].word != NULL && is_kw(t, hd_op_facts[k].word)) {
			*kind = (enum hd_op_kind)k;
			return 0;
		}
	for (k = 0; k < HD_COLL__COUNT; k++)
		if (is_kw(t, hd_coll_name((enum hd_coll)k))) {
			*kind = HD_OP_COLL;
			return 0;
		}
	if (is_kw(t, "thread")) { /* one named worker */
		*kind = HD_OP_WORKERS;
		return 0;
	}
	return -1;
}

/* One operation or block: its keyword, its form's operands and clauses. */
static int
parse_op(struct hd_parser *p, struct hd_stmt *s)
{
	struct op_parse o;
	enum hd_op_kind k;

	o.kw = tok(p);
	if (op_kind_of(o.kw, &k) < 0)
		return hd_parse_unknown(p, hd_parse_scen_words, "inside a scenario");
	o.form = &op_forms[k];
	o.clauses = o.form->clauses;
	s->kind = k;
	s->line = o.kw->line;
	s->col = o.kw->col;
	if (p->in_graph && graph_kind_ok(p, o.kw, k) < 0)
		return -1;
	if (hd_op_facts[k].ranks && need_ranks(p, o.kw) < 0)
		return -1;
	if (p->in_thread && !hd_thread_op_ok(k))
		return hd_parse_error(p, o.kw,
				      "'%.*s' cannot run in a host thread: a worker's body holds "
				      "host work ('host', 'copy' between host buffers, 'put', "
				      "'get', 'repeat', 'if'); the main thread talks to the GPU",
				      (int)o.kw->len, o.kw->p);
	if (p->in_thread)
		o.clauses &= CL_SIZE; /* a memcpy: no stream, nothing async */
	p->pos++;
	if (o.form->parse(p, s, &o) < 0)
		return -1;
	if (hd_op_facts[k].operands & HD_OPND_BODY)
		return 0; /* its lines and their `end` are read */
	if (o.clauses != 0 && parse_clauses(p, s, o.clauses) < 0)
		return -1;
	if (o.form->check != NULL && o.form->check(p, s) < 0)
		return -1;
	if (p->in_thread && k == HD_OP_COPY && check_thread_copy(p, s) < 0)
		return -1;
	if (p->in_graph && graph_stmt_ok(p, s, o.kw) < 0)
		return -1;
	return hd_parse_eol(p);
}

static int
add_label(struct hd_parser *p, const struct hd_tok *t)
{
	struct hd_scen *sc = p->sc;
	int i;

	if (sc->nlabels >= HD_LESSON_MAX_NAMES)
		return hd_parse_error(p, t, "scenario %s has more than %d labels; the limit is %d",
				      sc->name, HD_LESSON_MAX_NAMES, HD_LESSON_MAX_NAMES);
	for (i = 0; i < sc->nlabels; i++)
		if (strlen(sc->labels[i]) == t->len && memcmp(sc->labels[i], t->p, t->len) == 0)
			return hd_parse_error(p, t, "label '%.*s' is used twice in scenario %s",
					      (int)t->len, t->p, sc->name);
	sc->labels = hd_xrealloc(sc->labels, (size_t)(sc->nlabels + 1) * sizeof *sc->labels);
	sc->labels[sc->nlabels++] = tok_strdup(t);
	return 0;
}

static int parse_scen_stmt(struct hd_parser *p, struct hd_stmt **body, int *nbody, int *done);

/* Append s to a body that grows by doubling, as parse_scen_stmt does. */
static void
append_stmt(struct hd_stmt **body, int *nbody, const struct hd_stmt *s)
{
	if ((*nbody & (*nbody - 1)) == 0)
		*body = hd_xrealloc(*body, (size_t)(*nbody > 0 ? 2 * *nbody : 1) * sizeof **body);
	(*body)[(*nbody)++] = *s;
}

/* A branch of an `if`: lines up to its `end` (consumed) or an `else` (not). */
static int
parse_branch(struct hd_parser *p, struct hd_stmt **body, int *nbody, int *at_else)
{
	int done = 0;

	*at_else = 0;
	while (!done) {
		if (is_kw(tok(p), "else")) {
			*at_else = 1;
			return 0;
		}
		if (parse_scen_stmt(p, body, nbody, &done) < 0)
			return -1;
	}
	return 0;
}

/*
 * if COND / lines / [else / lines | else if COND ...] / end.  An `else if`
 * opens a block of its own that the one `end` closes with the rest.
 */
static int
parse_if(struct hd_parser *p, struct hd_stmt *s)
{
	const struct hd_tok *kw = tok(p), *t;
	char what[96];
	int at_else;

	memset(s, 0, sizeof *s);
	s->kind = HD_OP__COUNT;
	s->is_if = true;
	s->stream = s->event = s->src = s->dst = HD_NONE;
	s->queue = HD_NONE;
	s->line = kw->line;
	s->col = kw->col;
	s->cond_id = p->l->nconds++;
	p->pos++;
	if ((s->cond = hd_parse_cond(p, "'if'")) == NULL)
		return -1;
	if (s->cond->depends_on_rank) {
		const struct hd_expr *r = rank_use(s->cond);
		return hd_parse_error_line(
		    p, r->line, r->col,
		    "a condition must be the same on every rank: it cannot "
		    "use 'rank' (write a 'rank N' block for one rank's work)");
	}
	snprintf(what, sizeof what, "if %.*s", (int)(s->cond->src_len > 40 ? 40 : s->cond->src_len),
		 s->cond->src_p);
	if (hd_parse_eol(p) < 0 || hd_parse_push_block(p, kw, what) < 0)
		return -1;
	if (parse_branch(p, &s->body, &s->nbody, &at_else) < 0)
		return -1;
	if (!at_else)
		return 0;
	p->stmt_start = p->pos;
	t = tok(p);
	p->pos++;
	if (is_kw(tok(p), "if")) {
		struct hd_stmt n;
		int rc = parse_if(p, &n);

		append_stmt(&s->else_body, &s->nelse, &n);
		if (rc < 0)
			return -1;
		p->depth--; /* this `if`'s block: the same `end` closed it */
		return 0;
	}
	if (hd_parse_eol(p) < 0 || parse_branch(p, &s->else_body, &s->nelse, &at_else) < 0)
		return -1;
	if (at_else)
		return hd_parse_error(p, tok(p),
				      "a second 'else' for the 'if' at line %d (its first is at "
				      "line %d): close the 'if' with 'end' first",
				      s->line, t->line);
	return 0;
}

/* One line of a scenario body; *done when it was the closing `end`. */
static int
parse_scen_stmt(struct hd_parser *p, struct hd_stmt **body, int *nbody, int *done)
{
	const struct hd_tok *t = tok(p), *label = NULL;
	struct hd_scen *sc = p->sc;
	struct hd_stmt s;

	p->stmt_start = p->pos;
	if (hd_parse_take_end(p, done) < 0 || *done)
		return *done ? 0 : -1;
	if (t->kind == HD_TOK_EOF || hd_parse_in_words(hd_parse_top_words, t))
		return hd_parse_never_closed(p, t);
	if (t->kind == HD_TOK_NAME && is_punct(peek(p, 1), HD_P_COLON)) {
		label = t;
		p->pos += 2;
		t = tok(p);
		p->stmt_start = p->pos;
		if (is_kw(t, "buffer") || is_kw(t, "stream") || is_kw(t, "event") ||
		    is_kw(t, "queue") || is_kw(t, "ranks") || is_kw(t, "default-stream") ||
		    is_kw(t, "end") || is_kw(t, "expect") || is_kw(t, "if") || is_kw(t, "else") ||
		    at_eol(t))
			return hd_parse_error(p, label,
					      "a label names an operation; '%.*s' is "
					      "not one",
					      (int)(at_eol(t) ? 0 : t->len), t->p);
		if (add_label(p, label) < 0)
			return -1;
	}
	if (p->in_graph && graph_decl_ok(p, t) < 0)
		return -1;
	if (is_kw(t, "buffer"))
		return parse_buffer(p);
	if (is_kw(t, "stream"))
		return parse_stream(p);
	if (is_kw(t, "event"))
		return parse_event(p);
	if (is_kw(t, "queue"))
		return parse_queue(p);
	if (is_kw(t, "default-stream")) {
		const struct hd_tok *v = peek(p, 1);
		if (sc->has_default_stream)
			return hd_parse_error(p, t, "'default-stream' is given twice");
		if (!is_kw(v, "legacy") && !is_kw(v, "per-thread")) {
			char d[96];
			hd_tok_describe(v, d, sizeof d);
			return hd_parse_error(p, v,
					      "expected 'legacy' or 'per-thread' after "
					      "'default-stream', found %s",
					      d);
		}
		sc->has_default_stream = true;
		sc->per_thread = is_kw(v, "per-thread");
		p->pos += 2;
		return hd_parse_eol(p);
	}
	if (is_kw(t, "expect")) {
		const struct hd_tok *v = peek(p, 1);

		if (!is_kw(v, "deadlock")) {
			char d[96];
			hd_tok_describe(v, d, sizeof d);
			return hd_parse_error(p, v,
					      "expected 'deadlock' after 'expect', "
					      "found %s",
					      d);
		}
		if (sc->expect_deadlock)
			return hd_parse_error(p, t, "'expect deadlock' is given twice");
		if (p->depth > 1)
			return hd_parse_error(p, t,
					      "'expect deadlock' belongs at the top "
					      "of the scenario, not inside a block");
		sc->expect_deadlock = true;
		p->pos += 2;
		return hd_parse_eol(p);
	}
	if (is_kw(t, "ranks")) {
		if (sc->ranks != NULL)
			return hd_parse_error(p, t, "'ranks' is given twice");
		if (p->depth > 1)
			return hd_parse_error(p, t,
					      "'ranks' belongs at the top of the scenario, "
					      "not "
					      "inside a block");
		p->pos++;
		if ((sc->ranks = hd_parse_expr(p, HD_DIM_NONE)) == NULL)
			return -1;
		return hd_parse_eol(p);
	}
	if (is_kw(t, "if")) {
		/* the nodes a graph replays are fixed when it is captured */
		if (p->in_graph)
			return hd_parse_error(
			    p, t,
			    "'if' cannot be used in graph %s: a graph replays the "
			    "same nodes at every launch; put the 'if' around the "
			    "'launch', or declare a graph for each branch",
			    graph_now(p));
		if (parse_if(p, &s) < 0)
			goto fail;
		append_stmt(body, nbody, &s);
		return 0;
	}
	if (is_kw(t, "else"))
		return hd_parse_error(p, t,
				      "'else' without an 'if': it belongs between 'if COND' and "
				      "its 'end'");
	memset(&s, 0, sizeof s);
	s.stream = s.event = s.src = s.dst = HD_NONE;
	s.queue = HD_NONE;
	s.graph = HD_NONE;
	s.label = label ? tok_strdup(label) : NULL;
	if (parse_op(p, &s) < 0)
		goto fail;
	/* Only peers may differ between ranks. */
	{
		struct hd_expr *const xs[] = { s.bytes, s.flops, s.duration, s.grid, s.root };
		size_t i;
		for (i = 0; i < HD_ARRAY_LEN(xs); i++)
			if (xs[i] != NULL && xs[i]->depends_on_rank) {
				const struct hd_expr *r = rank_use(xs[i]);
				hd_parse_error_line(
				    p, r->line, r->col,
				    "sizes, times and counts "
				    "must be the same on every rank; only a peer (send to, recv "
				    "from, @) may use 'rank' (use a 'rank N' block for "
				    "rank-specific "
				    "work)");
				goto fail;
			}
	}
	/* grow by doubling (a body may hold 10^6 statements): the capacity is
	 * nbody rounded up to a power of two */
	if ((*nbody & (*nbody - 1)) == 0)
		*body = hd_xrealloc(*body, (size_t)(*nbody > 0 ? 2 * *nbody : 1) * sizeof **body);
	(*body)[(*nbody)++] = s;
	return 0;
fail:
	stmt_clear(&s);
	return -1;
}

static int
parse_body(struct hd_parser *p, struct hd_stmt **body, int *nbody)
{
	int done = 0;

	while (!done)
		if (parse_scen_stmt(p, body, nbody, &done) < 0)
			return -1;
	return 0;
}

void
hd_scen_free(struct hd_scen *sc)
{
	int i;

	free(sc->name);
	free(sc->title);
	for (i = 0; i < sc->nbufs; i++) {
		free(sc->bufs[i].name);
		hd_expr_free(sc->bufs[i].size);
	}
	free(sc->bufs);
	for (i = 0; i < sc->nstreams; i++)
		free(sc->streams[i].name);
	free(sc->streams);
	for (i = 0; i < sc->nevents; i++)
		free(sc->events[i].name);
	free(sc->events);
	for (i = 0; i < sc->nqueues; i++) {
		free(sc->queues[i].name);
		hd_expr_free(sc->queues[i].depth);
	}
	free(sc->queues);
	hd_expr_free(sc->ranks);
	hd_stmt_free_list(sc->body, sc->nbody);
	for (i = 0; i < sc->nlabels; i++)
		free(sc->labels[i]);
	free(sc->labels);
	for (i = 0; i < sc->ngraphs; i++)
		free(sc->graphs[i].name);
	free(sc->graphs);
}

int
hd_parse_scenario(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p), *t;
	struct hd_lesson *l = p->l;
	struct hd_scen *sc;
	char what[96];
	int i;

	p->pos++;
	t = tok(p);
	if (l->nscens >= HD_LESSON_MAX_NAMES)
		return hd_parse_error(p, kw, "more than %d scenarios; the limit is %d",
				      HD_LESSON_MAX_NAMES, HD_LESSON_MAX_NAMES);
	if (t->kind == HD_TOK_NAME)
		for (i = 0; i < l->nscens; i++)
			if (is_kw(t, l->scens[i].name))
				return hd_parse_error(p, t,
						      "scenario '%s' is declared twice "
						      "(first at "
						      "line %d)",
						      l->scens[i].name, l->scens[i].line);
	l->scens = hd_xrealloc(l->scens, (size_t)(l->nscens + 1) * sizeof *l->scens);
	sc = &l->scens[l->nscens++];
	memset(sc, 0, sizeof *sc);
	sc->line = kw->line;
	sc->col = kw->col;
	if ((sc->name = hd_parse_name(p, "the scenario's name")) == NULL)
		return -1;
	if (tok(p)->kind == HD_TOK_STRING)
		sc->title = hd_xstrdup(p->toks.v[p->pos++].str);
	else
		sc->title = hd_xstrdup(sc->name);
	if (hd_parse_eol(p) < 0)
		return -1;
	sc->streams = hd_xcalloc(2, sizeof *sc->streams);
	sc->streams[0].name = hd_xstrdup("default");
	sc->streams[1].name = hd_xstrdup("per-thread");
	sc->nstreams = 2;
	snprintf(what, sizeof what, "scenario %s", sc->name);
	if (hd_parse_push_block(p, kw, what) < 0)
		return -1;
	p->sc = sc;
	if (parse_body(p, &sc->body, &sc->nbody) < 0)
		return -1;
	if (graph_buffers_ok(p, sc) < 0)
		return -1;
	p->sc = NULL;
	return 0;
}

/* --- graphs ------------------------------------------------------------------ */

/*
 * What a graph may not hold, by kind, and why (NULL: a kernel, a copy or a
 * loop of them, which stream capture records as nodes).  A graph is
 * captured once, before the run, on a stream of its own; CUDA refuses calls
 * that synchronise or allocate while a stream captures (global capture
 * mode), and CPU work would run at the capture, not at each launch.
 */
static const char *const graph_refusal[HD_OP__COUNT] = {
	[HD_OP_ALLOC] = "cudaMalloc and cudaMallocHost are not allowed while a stream is "
			"capturing; allocate outside the graph",
	[HD_OP_FREE] = "cudaFree waits for the device, which stream capture forbids; free "
		       "after the launches",
	[HD_OP_PIN] = "cudaHostRegister is not allowed while a stream is capturing; pin "
		      "before the graph",
	[HD_OP_PREFETCH] = "hdsim's graphs hold kernels and copies; prefetch before the "
			   "'launch'",
	[HD_OP_RECORD] = "hdsim's graphs hold kernels and copies on one stream; record and "
			 "wait on events around the 'launch'",
	[HD_OP_WAIT] = "hdsim's graphs hold kernels and copies on one stream; record and "
		       "wait on events around the 'launch'",
	[HD_OP_EVENT_SYNC] = "a synchronize while a stream is capturing is an error "
			     "(cudaErrorStreamCaptureUnsupported); sync after the 'launch'",
	[HD_OP_EVENT_QUERY] = "cudaEventQuery is not allowed while a stream is capturing; "
			      "query after the 'launch'",
	[HD_OP_STREAM_SYNC] = "a synchronize while a stream is capturing is an error "
			      "(cudaErrorStreamCaptureUnsupported); sync after the 'launch'",
	[HD_OP_DEVICE_SYNC] = "a synchronize while a stream is capturing is an error "
			      "(cudaErrorStreamCaptureUnsupported); sync after the 'launch'",
	[HD_OP_HOST] = "a graph replays GPU work only: CPU work would run once, at the "
		       "capture, not at each launch; put it beside the 'launch'",
	[HD_OP_READ] = "it is a synchronous cudaMemcpy to the host, which stream capture "
		       "forbids; read after the 'launch'",
	[HD_OP_ON_RANK] = "every rank captures the same graph; put the 'launch' in a 'rank N' "
			  "block instead",
	[HD_OP_SEND] = "hdsim does not capture NCCL calls in graphs; call them beside the "
		       "'launch'",
	[HD_OP_RECV] = "hdsim does not capture NCCL calls in graphs; call them beside the "
		       "'launch'",
	[HD_OP_COLL] = "hdsim does not capture NCCL calls in graphs; call them beside the "
		       "'launch'",
	[HD_OP_BARRIER] = "a barrier is the host waiting for other ranks; put it beside the "
			  "'launch'",
	[HD_OP_WORKERS] = "host threads start beside the main one, which launches the graph; "
			  "declare them at the top of the scenario",
	[HD_OP_PUT] = "a queue is between host threads, and a graph replays GPU work only; put "
		      "beside the 'launch'",
	[HD_OP_GET] = "a queue is between host threads, and a graph replays GPU work only; get "
		      "beside the 'launch'",
	[HD_OP_GRAPH] = "graphs do not nest: declare each graph at the top of the scenario",
	[HD_OP_LAUNCH] = "hdsim's graphs do not launch other graphs; launch them one after "
			 "the other",
};

/* The graph being read (the parser is inside its body). */
static const char *
graph_now(const struct hd_parser *p)
{
	return p->sc->graphs[p->in_graph - 1].name;
}

static int
graph_kind_ok(struct hd_parser *p, const struct hd_tok *kw, enum hd_op_kind k)
{
	if (graph_refusal[k] == NULL)
		return 0;
	return hd_parse_error(p, kw, "'%.*s' cannot be captured in graph %s: %s", (int)kw->len,
			      kw->p, graph_now(p), graph_refusal[k]);
}

/* Declarations belong outside graphs. */
static int
graph_decl_ok(struct hd_parser *p, const struct hd_tok *t)
{
	static const char *const decls[] = { "buffer",         "stream", "event",
					     "default-stream", "ranks",  "expect" };
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(decls); i++)
		if (is_kw(t, decls[i]))
			return hd_parse_error(p, t,
					      "'%s' inside graph %s: declare buffers, streams "
					      "and events at the top of the scenario, before "
					      "the graph",
					      decls[i], graph_now(p));
	return 0;
}

/* The token `word` in the current statement (for a clause's position). */
static const struct hd_tok *
stmt_word(struct hd_parser *p, const char *word, const struct hd_tok *fallback)
{
	size_t i;

	for (i = p->stmt_start; i < p->pos && i < p->toks.n; i++)
		if (is_kw(&p->toks.v[i], word))
			return &p->toks.v[i];
	return fallback;
}

/* A kernel or copy read inside a graph: what stream capture can record. */
static int
graph_stmt_ok(struct hd_parser *p, const struct hd_stmt *s, const struct hd_tok *kw)
{
	const struct hd_scen *sc = p->sc;
	const int bufs[2] = { s->src, s->dst };
	int i;

	if (s->stream != HD_NONE)
		return hd_parse_error(p, stmt_word(p, "on", kw),
				      "'on %s' inside graph %s: a graph's work runs on the "
				      "stream it is launched on ('launch %s on %s')",
				      sc->streams[s->stream].name, graph_now(p), graph_now(p),
				      sc->streams[s->stream].name);
	if (s->kind != HD_OP_COPY)
		return 0;
	if (s->peer != NULL)
		return hd_parse_error(p, kw,
				      "a peer copy cannot be captured in graph %s: hdsim's "
				      "graphs hold the work of one GPU",
				      graph_now(p));
	if (!s->async)
		return hd_parse_error(p, kw,
				      "'copy' without 'async' cannot be captured in graph %s: "
				      "cudaMemcpy is synchronous, which stream capture forbids; "
				      "write 'copy ... async'",
				      graph_now(p));
	for (i = 0; i < 2; i++)
		if (sc->bufs[bufs[i]].mem == HD_MEM_PAGEABLE)
			return hd_parse_error(p, kw,
					      "buffer %s is pageable memory: a copy through "
					      "pageable memory cannot be captured in graph %s "
					      "(the host stages it); declare the buffer pinned",
					      sc->bufs[bufs[i]].name, graph_now(p));
	if (sc->bufs[s->src].mem != HD_MEM_DEVICE && sc->bufs[s->dst].mem != HD_MEM_DEVICE)
		return hd_parse_error(p, kw,
				      "a copy between two host buffers is CPU work: it "
				      "cannot be captured in graph %s",
				      graph_now(p));
	return 0;
}

/* graph NAME, then its kernels and copies up to its `end` */
static int
parse_graph(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	struct hd_scen *sc = p->sc;
	struct hd_decl_graph g;
	char what[96];
	int rc;

	if (s->label != NULL)
		return hd_parse_error(p, o->kw,
				      "a label names an operation; 'graph' declares one: "
				      "label its 'launch', or the work inside it");
	if (p->depth > 1)
		return hd_parse_error(p, o->kw,
				      "'graph' belongs at the top of the scenario, not inside "
				      "a block");
	if (check_new_name(p, tok(p)) < 0)
		return -1;
	memset(&g, 0, sizeof g);
	g.line = o->kw->line;
	g.col = o->kw->col;
	if ((g.name = hd_parse_name(p, "the graph's name")) == NULL)
		return -1;
	if (hd_parse_eol(p) < 0) {
		free(g.name);
		return -1;
	}
	snprintf(what, sizeof what, "graph %s", g.name);
	s->text = hd_xstrdup(g.name);
	s->graph = sc->ngraphs;
	sc->graphs = hd_xrealloc(sc->graphs, (size_t)(sc->ngraphs + 1) * sizeof *sc->graphs);
	sc->graphs[sc->ngraphs++] = g;
	if (hd_parse_push_block(p, o->kw, what) < 0)
		return -1;
	p->in_graph = s->graph + 1;
	rc = parse_body(p, &s->body, &s->nbody);
	p->in_graph = 0;
	if (rc < 0)
		return -1;
	if (s->nbody == 0)
		return hd_parse_error(p, o->kw,
				      "graph %s captures no work: put kernels or async copies "
				      "between 'graph %s' and its 'end'",
				      g.name, g.name);
	return 0;
}

/* launch GRAPH */
static int
parse_launch(struct hd_parser *p, struct hd_stmt *s, struct op_parse *o)
{
	const struct hd_scen *sc = p->sc;
	const struct hd_tok *t = tok(p);
	enum obj_kind k;
	struct hd_buf b;
	char d[96];
	int idx, i;

	(void)o;
	if (t->kind != HD_TOK_NAME) {
		hd_tok_describe(t, d, sizeof d);
		return hd_parse_error(p, t, "expected a graph's name after 'launch', found %s", d);
	}
	k = find_obj(sc, t, &idx);
	if (k == OBJ_GRAPH) {
		s->graph = idx;
		p->pos++;
		return 0;
	}
	if (k != OBJ_NONE)
		return hd_parse_error(p, t, "'%.*s' is %s, but 'launch' needs a graph", (int)t->len,
				      t->p, obj_word[k]);
	hd_buf_init(&b);
	for (i = 0; i < sc->ngraphs; i++)
		hd_buf_printf(&b, "%s%s", i ? ", " : "", sc->graphs[i].name);
	hd_parse_error(p, t, "no graph named '%.*s' in scenario %s (graphs: %s)", (int)t->len, t->p,
		       sc->name,
		       b.s != NULL ? b.s : "none declared; declare one with 'graph NAME'");
	hd_buf_free(&b);
	return -1;
}

/* Mark in used[] the buffers the statements v[0..n) name. */
static void
graph_mark_buffers(const struct hd_stmt *v, int n, char *used)
{
	int i;

	for (i = 0; i < n; i++) {
		if (v[i].src != HD_NONE)
			used[v[i].src] = 1;
		if (v[i].dst != HD_NONE)
			used[v[i].dst] = 1;
		graph_mark_buffers(v[i].body, v[i].nbody, used);
	}
}

/* The first alloc or free of a buffer in used[], outside graphs, or NULL. */
static const struct hd_stmt *
graph_realloc(const struct hd_stmt *v, int n, const char *used)
{
	const struct hd_stmt *r;
	int i;

	for (i = 0; i < n; i++) {
		if ((v[i].kind == HD_OP_ALLOC || v[i].kind == HD_OP_FREE) && used[v[i].dst])
			return &v[i];
		if (v[i].kind != HD_OP_GRAPH && (r = graph_realloc(v[i].body, v[i].nbody, used)))
			return r;
	}
	return NULL;
}

/*
 * A graph keeps the addresses it was captured with, before the run: a buffer
 * one uses cannot be allocated or freed while the scenario runs.
 */
static int
graph_buffers_ok(struct hd_parser *p, const struct hd_scen *sc)
{
	char *used;
	const struct hd_stmt *bad;
	int i, b, rc = 0;

	if (sc->ngraphs == 0)
		return 0;
	used = hd_xcalloc((size_t)sc->nbufs + 1, 1);
	for (i = 0; i < sc->nbody; i++)
		if (sc->body[i].kind == HD_OP_GRAPH)
			graph_mark_buffers(sc->body[i].body, sc->body[i].nbody, used);
	if ((bad = graph_realloc(sc->body, sc->nbody, used)) != NULL) {
		b = bad->dst;
		for (i = 0; i < sc->nbody; i++) {
			const struct hd_stmt *g = &sc->body[i];

			if (g->kind != HD_OP_GRAPH)
				continue;
			memset(used, 0, (size_t)sc->nbufs + 1);
			graph_mark_buffers(g->body, g->nbody, used);
			if (!used[b])
				continue;
			rc = hd_parse_error_line(
			    p, bad->line, bad->col,
			    "buffer %s is used by graph %s (line %d): a graph keeps the "
			    "addresses it was captured with, before the run, so %s cannot be "
			    "%s while the scenario runs",
			    sc->bufs[b].name, g->text, g->line, sc->bufs[b].name,
			    bad->kind == HD_OP_ALLOC ? "allocated" : "freed");
			break;
		}
	}
	free(used);
	return rc;
}
