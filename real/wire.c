/*
 * wire.c - framed messages, and the IR and traces as bytes (wire.h).
 *
 * Every field is written, in declaration order, as a fixed-width integer;
 * doubles travel as their bit patterns, so a scenario read back is equal to
 * the one sent, bit for bit.  Reads check lengths and enum ranges: a short
 * or garbled message is an error, never a crash.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ir/threads.h"
#include "real/wire.h"

/* Sanity limits on what a message may ask the reader to allocate. */
#define WIRE_MAX_ITEMS (1u << 24)
#define WIRE_MAX_MSG   ((size_t)1 << 31)

int64_t
hd_wire_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- byte buffers ---------------------------------------------------------- */

void
hd_wbuf_bytes(struct hd_wbuf *w, const void *p, size_t n)
{
	w->p = hd_xgrow(w->p, &w->cap, w->len + n + 1, 1);
	if (n > 0)
		memcpy(w->p + w->len, p, n);
	w->len += n;
}

void
hd_wbuf_u32(struct hd_wbuf *w, uint32_t v)
{
	hd_wbuf_bytes(w, &v, sizeof v);
}

void
hd_wbuf_u64(struct hd_wbuf *w, uint64_t v)
{
	hd_wbuf_bytes(w, &v, sizeof v);
}

void
hd_wbuf_str(struct hd_wbuf *w, const char *s)
{
	if (s == NULL) {
		hd_wbuf_u32(w, UINT32_MAX);
		return;
	}
	hd_wbuf_u32(w, (uint32_t)strlen(s));
	hd_wbuf_bytes(w, s, strlen(s));
}

void
hd_wbuf_free(struct hd_wbuf *w)
{
	if (w == NULL)
		return;
	free(w->p);
	w->p = NULL;
	w->len = w->cap = 0;
}

void
hd_rbuf_bytes(struct hd_rbuf *r, void *p, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = 1;
		memset(p, 0, n);
		return;
	}
	memcpy(p, r->p + r->off, n);
	r->off += n;
}

uint32_t
hd_rbuf_u32(struct hd_rbuf *r)
{
	uint32_t v;

	hd_rbuf_bytes(r, &v, sizeof v);
	return v;
}

uint64_t
hd_rbuf_u64(struct hd_rbuf *r)
{
	uint64_t v;

	hd_rbuf_bytes(r, &v, sizeof v);
	return v;
}

char *
hd_rbuf_str(struct hd_rbuf *r)
{
	uint32_t n = hd_rbuf_u32(r);
	char *s;

	if (n == UINT32_MAX || r->bad)
		return NULL;
	if (r->len - r->off < n) {
		r->bad = 1;
		return NULL;
	}
	s = hd_xstrndup((const char *)r->p + r->off, n);
	r->off += n;
	return s;
}

static void
put_f64(struct hd_wbuf *w, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof v);
	hd_wbuf_u64(w, v);
}

static double
get_f64(struct hd_rbuf *r)
{
	uint64_t v = hd_rbuf_u64(r);
	double d;

	memcpy(&d, &v, sizeof d);
	return d;
}

#define PUT_I(w, v) hd_wbuf_u32((w), (uint32_t)(int32_t)(v))
#define GET_I(r)    ((int)(int32_t)hd_rbuf_u32(r))

/* An item count, refusing absurd ones before anything is allocated. */
static int
get_count(struct hd_rbuf *r)
{
	uint32_t n = hd_rbuf_u32(r);

	if (n > WIRE_MAX_ITEMS || (size_t)n > r->len - r->off) {
		r->bad = 1;
		return 0;
	}
	return (int)n;
}

/* ---- the scenario ---------------------------------------------------------- */

static void
put_op(struct hd_wbuf *w, const struct hd_op *op)
{
	PUT_I(w, op->kind);
	PUT_I(w, op->line);
	PUT_I(w, op->col);
	hd_wbuf_str(w, op->label);
	hd_wbuf_str(w, op->text);
	PUT_I(w, op->stream);
	PUT_I(w, op->event);
	PUT_I(w, op->src);
	PUT_I(w, op->dst);
	PUT_I(w, op->peer);
	PUT_I(w, op->peer_rel);
	PUT_I(w, op->root);
	PUT_I(w, op->rank);
	PUT_I(w, op->async);
	PUT_I(w, op->to_device);
	PUT_I(w, op->copy);
	PUT_I(w, op->kernel);
	PUT_I(w, op->coll);
	hd_wbuf_u64(w, op->bytes);
	put_f64(w, op->flops);
	hd_wbuf_u64(w, (uint64_t)op->duration);
	hd_wbuf_u32(w, op->grid);
	hd_wbuf_u64(w, op->count);
	PUT_I(w, op->body_len);
	PUT_I(w, op->queue);
	PUT_I(w, op->worker);
}

static void
get_op(struct hd_rbuf *r, struct hd_op *op)
{
	op->kind = (enum hd_op_kind)GET_I(r);
	op->line = GET_I(r);
	op->col = GET_I(r);
	op->label = hd_rbuf_str(r);
	op->text = hd_rbuf_str(r);
	op->stream = GET_I(r);
	op->event = GET_I(r);
	op->src = GET_I(r);
	op->dst = GET_I(r);
	op->peer = GET_I(r);
	op->peer_rel = GET_I(r) != 0;
	op->root = GET_I(r);
	op->rank = GET_I(r);
	op->async = GET_I(r) != 0;
	op->to_device = GET_I(r) != 0;
	op->copy = (enum hd_copy_kind)GET_I(r);
	op->kernel = (enum hd_kernel_kind)GET_I(r);
	op->coll = (enum hd_coll)GET_I(r);
	op->bytes = hd_rbuf_u64(r);
	op->flops = get_f64(r);
	op->duration = (hd_time)hd_rbuf_u64(r);
	op->grid = hd_rbuf_u32(r);
	op->count = hd_rbuf_u64(r);
	op->body_len = GET_I(r);
	op->queue = GET_I(r);
	op->worker = GET_I(r) != 0;
}

void
hd_wire_put_scenario(struct hd_wbuf *w, const struct hd_scenario *sc)
{
	int i;

	hd_wbuf_str(w, sc->name);
	hd_wbuf_str(w, sc->title);
	PUT_I(w, sc->nranks);
	PUT_I(w, sc->per_thread_default);
	PUT_I(w, sc->nbuffers);
	for (i = 0; i < sc->nbuffers; i++) {
		hd_wbuf_str(w, sc->buffers[i].name);
		PUT_I(w, sc->buffers[i].mem);
		hd_wbuf_u64(w, sc->buffers[i].bytes);
		PUT_I(w, sc->buffers[i].line);
		PUT_I(w, sc->buffers[i].col);
	}
	PUT_I(w, sc->nstreams);
	for (i = 0; i < sc->nstreams; i++) {
		hd_wbuf_str(w, sc->streams[i].name);
		hd_wbuf_u32(w, sc->streams[i].flags);
		PUT_I(w, sc->streams[i].priority);
		PUT_I(w, sc->streams[i].line);
		PUT_I(w, sc->streams[i].col);
	}
	PUT_I(w, sc->nevents);
	for (i = 0; i < sc->nevents; i++) {
		hd_wbuf_str(w, sc->events[i].name);
		PUT_I(w, sc->events[i].timing);
		PUT_I(w, sc->events[i].line);
		PUT_I(w, sc->events[i].col);
	}
	PUT_I(w, sc->nops);
	for (i = 0; i < sc->nops; i++)
		put_op(w, &sc->ops[i]);
	PUT_I(w, sc->nqueues);
	for (i = 0; i < sc->nqueues; i++) {
		hd_wbuf_str(w, sc->queues[i].name);
		hd_wbuf_u32(w, sc->queues[i].depth);
		PUT_I(w, sc->queues[i].line);
		PUT_I(w, sc->queues[i].col);
	}
}

/* Every index an op holds must name something the scenario has. */
static int
op_in_range(const struct hd_scenario *sc, int i)
{
	const struct hd_op *op = &sc->ops[i];

	return (unsigned)op->kind < HD_OP__COUNT && (unsigned)op->copy < HD_COPY__COUNT &&
	    (unsigned)op->kernel < HD_KERNEL__COUNT && (unsigned)op->coll < HD_COLL__COUNT &&
	    op->stream >= HD_NONE && op->stream < sc->nstreams && op->peer >= HD_NONE &&
	    op->peer < sc->nranks && op->root >= HD_NONE && op->root < sc->nranks &&
	    op->event >= HD_NONE && op->event < sc->nevents && op->src >= HD_NONE &&
	    op->src < sc->nbuffers && op->dst >= HD_NONE && op->dst < sc->nbuffers &&
	    op->body_len >= 0 && op->body_len < sc->nops - i &&
	    ((op->kind != HD_OP_PUT && op->kind != HD_OP_GET) ||
	     (op->queue >= 0 && op->queue < sc->nqueues));
}

struct hd_scenario *
hd_wire_get_scenario(struct hd_rbuf *r, struct hd_err *e)
{
	struct hd_scenario *sc = hd_xcalloc(1, sizeof *sc);
	int i;

	sc->name = hd_rbuf_str(r);
	sc->title = hd_rbuf_str(r);
	sc->nranks = GET_I(r);
	sc->per_thread_default = GET_I(r) != 0;
	sc->nbuffers = get_count(r);
	sc->buffers = hd_xcalloc((size_t)sc->nbuffers + 1, sizeof *sc->buffers);
	for (i = 0; i < sc->nbuffers && !r->bad; i++) {
		sc->buffers[i].name = hd_rbuf_str(r);
		sc->buffers[i].mem = (enum hd_mem)GET_I(r);
		sc->buffers[i].bytes = hd_rbuf_u64(r);
		sc->buffers[i].line = GET_I(r);
		sc->buffers[i].col = GET_I(r);
		if ((unsigned)sc->buffers[i].mem >= HD_MEM__COUNT)
			r->bad = 1;
	}
	sc->nstreams = r->bad ? 0 : get_count(r);
	sc->streams = hd_xcalloc((size_t)sc->nstreams + 1, sizeof *sc->streams);
	for (i = 0; i < sc->nstreams && !r->bad; i++) {
		sc->streams[i].name = hd_rbuf_str(r);
		sc->streams[i].flags = hd_rbuf_u32(r);
		sc->streams[i].priority = GET_I(r);
		sc->streams[i].line = GET_I(r);
		sc->streams[i].col = GET_I(r);
	}
	sc->nevents = r->bad ? 0 : get_count(r);
	sc->events = hd_xcalloc((size_t)sc->nevents + 1, sizeof *sc->events);
	for (i = 0; i < sc->nevents && !r->bad; i++) {
		sc->events[i].name = hd_rbuf_str(r);
		sc->events[i].timing = GET_I(r) != 0;
		sc->events[i].line = GET_I(r);
		sc->events[i].col = GET_I(r);
	}
	sc->nops = r->bad ? 0 : get_count(r);
	sc->ops = hd_xcalloc((size_t)sc->nops + 1, sizeof *sc->ops);
	for (i = 0; i < sc->nops && !r->bad; i++)
		get_op(r, &sc->ops[i]);
	sc->nqueues = r->bad ? 0 : get_count(r);
	sc->queues = hd_xcalloc((size_t)sc->nqueues + 1, sizeof *sc->queues);
	for (i = 0; i < sc->nqueues && !r->bad; i++) {
		sc->queues[i].name = hd_rbuf_str(r);
		sc->queues[i].depth = hd_rbuf_u32(r);
		sc->queues[i].line = GET_I(r);
		sc->queues[i].col = GET_I(r);
		if (sc->queues[i].depth < 1 || sc->queues[i].depth > HD_QUEUE_MAX_DEPTH)
			r->bad = 1;
	}
	for (i = 0; i < sc->nops && !r->bad; i++)
		if (!op_in_range(sc, i))
			r->bad = 1;
	if (r->bad || sc->name == NULL || sc->nranks < 1 || sc->nstreams < 1) {
		hd_err_set(e, HD_EXIT_FAIL, "", "a scenario message was cut short or garbled");
		hd_scenario_free(sc);
		return NULL;
	}
	return sc;
}

/* ---- traces ------------------------------------------------------------------ */

void
hd_wire_put_trace(struct hd_wbuf *w, const struct hd_trace *t)
{
	size_t k;
	int i;

	PUT_I(w, t->nlanes);
	for (i = 0; i < t->nlanes; i++) {
		PUT_I(w, t->lanes[i].kind);
		PUT_I(w, t->lanes[i].rank);
		PUT_I(w, t->lanes[i].index);
		hd_wbuf_str(w, t->lanes[i].name);
	}
	PUT_I(w, t->nstrings);
	for (i = 0; i < t->nstrings; i++)
		hd_wbuf_str(w, t->strings[i]);
	hd_wbuf_u64(w, t->nspans);
	for (k = 0; k < t->nspans; k++) {
		const struct hd_span *s = &t->spans[k];

		PUT_I(w, s->lane);
		PUT_I(w, s->op);
		hd_wbuf_u32(w, s->iter);
		PUT_I(w, s->kind);
		PUT_I(w, s->why);
		hd_wbuf_u64(w, (uint64_t)s->start);
		hd_wbuf_u64(w, (uint64_t)s->end);
		hd_wbuf_u64(w, s->bytes);
		PUT_I(w, s->label);
		hd_wbuf_u64(w, (uint64_t)s->spread);
	}
	/* each repeat's makespans, with per-op events and without (0: none) */
	PUT_I(w, t->nreps);
	for (i = 0; i < t->nreps; i++) {
		hd_wbuf_u64(w, (uint64_t)t->reps[i]);
		hd_wbuf_u64(w, t->reps_bare != NULL ? (uint64_t)t->reps_bare[i] : 0);
	}
}

int
hd_wire_get_trace(struct hd_rbuf *r, const struct hd_sink *sink, struct hd_err *e)
{
	int nlanes = get_count(r), nstrings, nreps, i, rc = -1;
	int *lanes = hd_xcalloc((size_t)nlanes + 1, sizeof *lanes), *strings = NULL;
	uint64_t nspans, k;

	for (i = 0; i < nlanes && !r->bad; i++) {
		enum hd_lane_kind kind = (enum hd_lane_kind)GET_I(r);
		int rank = GET_I(r), index = GET_I(r);
		char *name = hd_rbuf_str(r);

		if ((unsigned)kind >= HD_LANE__COUNT || name == NULL)
			r->bad = 1;
		else
			lanes[i] = sink->lane(sink->ctx, kind, rank, index, name);
		free(name);
	}
	nstrings = r->bad ? 0 : get_count(r);
	strings = hd_xcalloc((size_t)nstrings + 1, sizeof *strings);
	for (i = 0; i < nstrings && !r->bad; i++) {
		char *s = hd_rbuf_str(r);

		if (s == NULL)
			r->bad = 1;
		else
			strings[i] = sink->string(sink->ctx, s);
		free(s);
	}
	nspans = r->bad ? 0 : hd_rbuf_u64(r);
	if (nspans > r->len - r->off)
		r->bad = 1;
	for (k = 0; k < nspans && !r->bad; k++) {
		struct hd_span s;

		memset(&s, 0, sizeof s);
		s.lane = GET_I(r);
		s.op = GET_I(r);
		s.iter = hd_rbuf_u32(r);
		s.kind = (enum hd_span_kind)GET_I(r);
		s.why = (enum hd_why)GET_I(r);
		s.start = (hd_time)hd_rbuf_u64(r);
		s.end = (hd_time)hd_rbuf_u64(r);
		s.bytes = hd_rbuf_u64(r);
		s.label = GET_I(r);
		s.spread = (hd_time)hd_rbuf_u64(r);
		if (r->bad || s.lane < 0 || s.lane >= nlanes || s.label < -1 ||
		    s.label >= nstrings || (unsigned)s.kind >= HD_SPAN__COUNT ||
		    (unsigned)s.why >= HD_WHY__COUNT) {
			r->bad = 1;
			break;
		}
		s.lane = lanes[s.lane];
		if (s.label >= 0)
			s.label = strings[s.label];
		sink->span(sink->ctx, &s);
	}
	nreps = r->bad ? 0 : get_count(r);
	if (nreps > HD_TRACE_MAX_REPS)
		r->bad = 1;
	for (i = 0; i < nreps && !r->bad; i++) {
		hd_time ms = (hd_time)hd_rbuf_u64(r), bare = (hd_time)hd_rbuf_u64(r);

		if (r->bad || ms < 0 || bare < 0) {
			r->bad = 1;
			break;
		}
		if (sink->repeat != NULL)
			sink->repeat(sink->ctx, i, ms, bare);
	}
	if (r->bad)
		hd_err_set(e, HD_EXIT_FAIL, "", "a trace message was cut short or garbled");
	else
		rc = 0;
	free(lanes);
	free(strings);
	return rc;
}

/* ---- messages ---------------------------------------------------------------- */

static int
send_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t k = send(fd, c, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == ENOTSOCK)
			k = write(fd, c, n);
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int
hd_msg_send(int fd, uint32_t type, const void *p, size_t n)
{
	uint32_t h[2] = { type, (uint32_t)n };

	if (n >= WIRE_MAX_MSG) {
		errno = EMSGSIZE;
		return -1;
	}
	if (send_all(fd, h, sizeof h) != 0 || send_all(fd, p, n) != 0)
		return -1;
	return 0;
}

static int
recv_all(int fd, void *p, size_t n, int64_t deadline)
{
	char *c = p;

	while (n > 0) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int64_t left = deadline ? deadline - hd_wire_now_ns() : -1;
		ssize_t k;
		int rc;

		if (deadline && left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		rc = poll(&pf, 1, deadline ? (int)(left / 1000000 + 1) : -1);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -1;
		if (rc == 0)
			continue;
		k = read(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == ECONNRESET)
			k = 0;
		if (k == 0) {
			errno = EPIPE;
			return -1;
		}
		if (k < 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int
hd_msg_recv(int fd, uint32_t *type, unsigned char **p, size_t *n, int64_t deadline_ns)
{
	uint32_t h[2];

	*p = NULL;
	*n = 0;
	if (recv_all(fd, h, sizeof h, deadline_ns) != 0)
		return -1;
	*type = h[0];
	if (h[1] == 0)
		return 0;
	*p = hd_xmalloc(h[1]);
	if (recv_all(fd, *p, h[1], deadline_ns) != 0) {
		free(*p);
		*p = NULL;
		return -1;
	}
	*n = h[1];
	return 0;
}
