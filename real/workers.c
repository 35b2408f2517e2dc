/*
 * workers.c - host threads and bounded queues on the real machine
 * (workers.h): one pthread per worker, one mutex over every queue of the
 * run, two condition variables per queue, and a deadlock check made under
 * that mutex whenever a thread is about to wait or ends.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ir/threads.h"
#include "real/real.h"
#include "real/workers.h"

struct wqueue {
	uint32_t depth, items;
	pthread_cond_t data, room; /* an item came / room was made */
};

struct wthread {
	struct hd_rt_threads *th;
	int k; /* 1 .. T */
	struct hd_thread_info ti;
	pthread_t tid;
	int started;
	uint64_t *exec; /* executions of each body op */
	struct hd_rt_tspan *spans;
	size_t nspans, cap;
};

/* What a thread waits for: queue `q`'s data (get) or room (put); q < 0: nothing. */
struct wwait {
	int q, get;
	int line;
};

struct hd_rt_threads {
	const struct hd_scenario *sc;
	hd_rt_buf_fn buf;
	void *ctx;
	volatile int *stop;
	pthread_mutex_t mu;
	struct wqueue *q;
	int n;
	struct wthread *t;  /* [1 .. n] */
	struct wwait *wait; /* [0 .. n]: what each thread waits for now */
	int live;           /* threads that may still put or get (the main one included) */
	int dead;           /* a deadlock or a stop: every wait ends in an error */
	int cancel;
	int record;
	char err[600]; /* the first error */
	struct hd_rt_tspan *all;
	size_t nall, allcap;
};

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
hd_rt_cpu_work(int64_t ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((int64_t)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec) < ns);
}

struct hd_rt_threads *
hd_rt_threads_new(const struct hd_scenario *sc, hd_rt_buf_fn buf, void *ctx, volatile int *stop)
{
	struct hd_rt_threads *th = hd_xcalloc(1, sizeof *th);
	int i, k;

	th->sc = sc;
	th->buf = buf;
	th->ctx = ctx;
	th->stop = stop;
	pthread_mutex_init(&th->mu, NULL);
	th->q = hd_xcalloc((size_t)sc->nqueues + 1, sizeof *th->q);
	for (i = 0; i < sc->nqueues; i++) {
		th->q[i].depth = sc->queues[i].depth > 0 ? sc->queues[i].depth : 1;
		pthread_cond_init(&th->q[i].data, NULL);
		pthread_cond_init(&th->q[i].room, NULL);
	}
	th->n = hd_threads_count(sc);
	th->t = hd_xcalloc((size_t)th->n + 1, sizeof *th->t);
	th->wait = hd_xcalloc((size_t)th->n + 1, sizeof *th->wait);
	for (k = 1; k <= th->n; k++) {
		th->t[k].th = th;
		th->t[k].k = k;
		if (hd_thread_info(sc, k, &th->t[k].ti) == 0)
			th->t[k].exec = hd_xcalloc((size_t)sc->ops[th->t[k].ti.op].body_len + 1,
						   sizeof(uint64_t));
	}
	hd_rt_threads_reset(th, 0);
	return th;
}

void
hd_rt_threads_free(struct hd_rt_threads *th)
{
	int i, k;

	if (th == NULL)
		return;
	hd_rt_threads_join(th, 1, NULL);
	for (i = 0; i < th->sc->nqueues; i++) {
		pthread_cond_destroy(&th->q[i].data);
		pthread_cond_destroy(&th->q[i].room);
	}
	for (k = 1; k <= th->n; k++) {
		free(th->t[k].exec);
		free(th->t[k].spans);
	}
	pthread_mutex_destroy(&th->mu);
	free(th->q);
	free(th->t);
	free(th->wait);
	free(th->all);
	free(th);
}

void
hd_rt_threads_reset(struct hd_rt_threads *th, int record)
{
	int i, k;

	for (i = 0; i < th->sc->nqueues; i++)
		th->q[i].items = 0;
	for (k = 0; k <= th->n; k++)
		th->wait[k].q = -1;
	for (k = 1; k <= th->n; k++) {
		th->t[k].nspans = 0;
		if (th->t[k].exec != NULL)
			memset(th->t[k].exec, 0,
			       ((size_t)th->sc->ops[th->t[k].ti.op].body_len + 1) *
				   sizeof(uint64_t));
	}
	th->live = 1; /* the main thread */
	th->dead = th->cancel = 0;
	th->err[0] = '\0';
	th->record = record;
	th->nall = 0;
}

/* --- waiting and the deadlock check (th->mu held) --------------------------------------- */

static int
can_go(const struct hd_rt_threads *th, const struct wwait *w)
{
	const struct wqueue *q = &th->q[w->q];

	return w->get ? q->items > 0 : q->items < q->depth;
}

static void
wake_all(struct hd_rt_threads *th)
{
	int i;

	for (i = 0; i < th->sc->nqueues; i++) {
		pthread_cond_broadcast(&th->q[i].data);
		pthread_cond_broadcast(&th->q[i].room);
	}
}

/* Is every live thread waiting on a queue that cannot serve it?  Then it is
 * a deadlock: say who waits for what, and wake them all to give up. */
static int
check_deadlock(struct hd_rt_threads *th)
{
	size_t len;
	int k, waiting = 0;

	if (th->dead)
		return 1;
	for (k = 0; k <= th->n; k++) {
		if (th->wait[k].q < 0)
			continue;
		if (can_go(th, &th->wait[k]))
			return 0;
		waiting++;
	}
	if (waiting == 0 || waiting < th->live)
		return 0;
	th->dead = 1;
	snprintf(th->err, sizeof th->err, "deadlock: every host thread waits on a queue:");
	for (k = 0; k <= th->n; k++) {
		char name[48];

		if (th->wait[k].q < 0)
			continue;
		if (k == 0)
			snprintf(name, sizeof name, "the main thread");
		else
			hd_thread_lane_name(th->sc, k, name, sizeof name);
		len = strlen(th->err);
		snprintf(th->err + len, sizeof th->err - len, " %s in %s (line %d) on queue %s;",
			 name, th->wait[k].get ? "get" : "put", th->wait[k].line,
			 th->sc->queues[th->wait[k].q].name);
	}
	wake_all(th);
	return 1;
}

/* Thread k's put or get; 0, or -1 when it can never be done. */
static int
queue_op(struct hd_rt_threads *th, int k, const struct hd_op *op, int *waited)
{
	struct wqueue *q = &th->q[op->queue];
	int get = op->kind == HD_OP_GET, rc = 0;

	*waited = 0;
	pthread_mutex_lock(&th->mu);
	th->wait[k].q = op->queue;
	th->wait[k].get = get;
	th->wait[k].line = op->line;
	while (!can_go(th, &th->wait[k])) {
		*waited = 1;
		if (th->cancel || (th->stop != NULL && *th->stop)) {
			if (th->err[0] == '\0')
				snprintf(th->err, sizeof th->err, "stopped");
			th->dead = 1;
			wake_all(th);
		}
		if (th->dead || check_deadlock(th)) {
			rc = -1;
			break;
		}
		pthread_cond_wait(get ? &q->data : &q->room, &th->mu);
	}
	th->wait[k].q = -1;
	if (rc == 0) {
		if (get) {
			q->items--;
			pthread_cond_signal(&q->room);
		} else {
			q->items++;
			pthread_cond_signal(&q->data);
		}
	}
	pthread_mutex_unlock(&th->mu);
	return rc;
}

int
hd_rt_threads_queue(struct hd_rt_threads *th, const struct hd_op *op, int *waited, struct hd_err *e)
{
	if (queue_op(th, 0, op, waited) == 0)
		return 0;
	hd_err_set(e, HD_EXIT_FAIL, "", "scenario '%s': %s", th->sc->name, th->err);
	return -1;
}

/* --- a worker -------------------------------------------------------------------------- */

static void
add_span(struct wthread *t, int op, uint32_t iter, enum hd_span_kind kind, enum hd_why why,
	 int64_t t0, int64_t t1, uint64_t bytes)
{
	struct hd_rt_tspan *s;

	if (!t->th->record)
		return;
	t->spans = hd_xgrow(t->spans, &t->cap, t->nspans + 1, sizeof *t->spans);
	s = &t->spans[t->nspans++];
	s->thread = t->k;
	s->op = op;
	s->iter = iter;
	s->kind = kind;
	s->why = why;
	s->t0 = t0;
	s->t1 = t1;
	s->bytes = bytes;
}

/* Run op i of thread t's body; 0, or -1 to stop. */
static int
run_op(struct wthread *t, int i)
{
	struct hd_rt_threads *th = t->th;
	const struct hd_op *op = &th->sc->ops[i];
	uint32_t iter = hd_thread_iter(t->exec[i - t->ti.op - 1]++, t->ti.index, t->ti.n);
	int64_t t0 = now_ns(), t1;
	int waited;

	switch (op->kind) {
	case HD_OP_HOST:
		hd_rt_cpu_work(op->duration / HD_NS);
		add_span(t, i, iter, HD_SPAN_HOST, HD_WHY_NONE, t0, now_ns(), 0);
		return 0;
	case HD_OP_COPY: {
		void *dst = th->buf(th->ctx, op->dst), *src = th->buf(th->ctx, op->src);

		if (dst == NULL || src == NULL) {
			pthread_mutex_lock(&th->mu);
			if (th->err[0] == '\0')
				snprintf(th->err, sizeof th->err,
					 "the copy on line %d uses a buffer that is not allocated "
					 "then",
					 op->line);
			pthread_mutex_unlock(&th->mu);
			return -1;
		}
		memmove(dst, src, op->bytes); /* a lesson may copy a buffer onto itself */
		add_span(t, i, iter, HD_SPAN_HOST, HD_WHY_NONE, t0, now_ns(), op->bytes);
		return 0;
	}
	case HD_OP_PUT:
	case HD_OP_GET:
		if (queue_op(th, t->k, op, &waited) != 0)
			return -1;
		t1 = now_ns();
		add_span(t, i, iter, HD_SPAN_API, HD_WHY_NONE, t0, t1, 0);
		add_span(t, i, iter, HD_SPAN_BLOCKED,
			 op->kind == HD_OP_GET ? HD_WHY_DATA : HD_WHY_ROOM, t0, t1, 0);
		return 0;
	case HD_OP_ALLOC:
	case HD_OP_FREE:
	case HD_OP_PIN:
	case HD_OP_KERNEL:
	case HD_OP_PREFETCH:
	case HD_OP_RECORD:
	case HD_OP_WAIT:
	case HD_OP_EVENT_SYNC:
	case HD_OP_EVENT_QUERY:
	case HD_OP_STREAM_SYNC:
	case HD_OP_DEVICE_SYNC:
	case HD_OP_READ:
	case HD_OP_REPEAT:
	case HD_OP_ON_RANK:
	case HD_OP_SEND:
	case HD_OP_RECV:
	case HD_OP_COLL:
	case HD_OP_BARRIER:
	case HD_OP_WORKERS:
	case HD_OP_GRAPH:
	case HD_OP_LAUNCH:
	case HD_OP__COUNT:
		break;
	}
	pthread_mutex_lock(&th->mu);
	if (th->err[0] == '\0')
		snprintf(th->err, sizeof th->err, "op %d (%s) cannot run in a host thread", i,
			 hd_op_kind_name(op->kind));
	pthread_mutex_unlock(&th->mu);
	return -1;
}

static void *
thread_main(void *arg)
{
	struct wthread *t = arg;
	struct hd_rt_threads *th = t->th;
	struct {
		int start, end;
		uint64_t left;
	} stack[64];
	int depth = 0, i = t->ti.op + 1, end = i + th->sc->ops[t->ti.op].body_len;

	hd_real_unpin_thread();
	while (i < end || depth > 0) {
		const struct hd_op *op;

		if (depth > 0 && i == stack[depth - 1].end) {
			if (--stack[depth - 1].left > 0)
				i = stack[depth - 1].start;
			else
				depth--;
			continue;
		}
		if (th->cancel || (th->stop != NULL && *th->stop))
			break;
		op = &th->sc->ops[i];
		if (op->kind == HD_OP_REPEAT) {
			if (op->count == 0 || op->body_len == 0 ||
			    depth == (int)HD_ARRAY_LEN(stack)) {
				i += 1 + op->body_len;
				continue;
			}
			stack[depth].start = i + 1;
			stack[depth].end = i + 1 + op->body_len;
			stack[depth].left = op->count;
			depth++;
			i++;
			continue;
		}
		if (run_op(t, i) != 0)
			break;
		i++;
	}
	/* one fewer thread that can serve the others: they may be stuck now */
	pthread_mutex_lock(&th->mu);
	th->live--;
	check_deadlock(th);
	pthread_mutex_unlock(&th->mu);
	return NULL;
}

int
hd_rt_threads_start(struct hd_rt_threads *th, int op, struct hd_err *e)
{
	int k, rc;

	for (k = 1; k <= th->n; k++) {
		struct wthread *t = &th->t[k];

		if (t->ti.op != op || t->started)
			continue;
		pthread_mutex_lock(&th->mu);
		th->live++;
		pthread_mutex_unlock(&th->mu);
		if ((rc = pthread_create(&t->tid, NULL, thread_main, t)) != 0) {
			pthread_mutex_lock(&th->mu);
			th->live--;
			pthread_mutex_unlock(&th->mu);
			hd_err_set(e, HD_EXIT_FAIL, "",
				   "pthread_create for host thread %d failed: %s", k, strerror(rc));
			return -1;
		}
		t->started = 1;
	}
	return 0;
}

int
hd_rt_threads_join(struct hd_rt_threads *th, int cancel, struct hd_err *e)
{
	int k, rc = 0;

	pthread_mutex_lock(&th->mu);
	if (cancel) {
		th->cancel = 1;
		wake_all(th);
	}
	th->live--; /* the main thread puts and gets no more */
	check_deadlock(th);
	pthread_mutex_unlock(&th->mu);
	for (k = 1; k <= th->n; k++) {
		if (!th->t[k].started)
			continue;
		pthread_join(th->t[k].tid, NULL);
		th->t[k].started = 0;
	}
	if (!cancel && th->err[0] != '\0') {
		hd_err_set(e, HD_EXIT_FAIL, "", "scenario '%s': %s", th->sc->name, th->err);
		rc = -1;
	}
	th->nall = 0;
	for (k = 1; k <= th->n; k++) {
		th->all = hd_xgrow(th->all, &th->allcap, th->nall + th->t[k].nspans + 1,
				   sizeof *th->all);
		if (th->t[k].nspans > 0)
			memcpy(th->all + th->nall, th->t[k].spans,
			       th->t[k].nspans * sizeof *th->all);
		th->nall += th->t[k].nspans;
	}
	th->live = 1;
	return rc;
}

const struct hd_rt_tspan *
hd_rt_threads_spans(const struct hd_rt_threads *th, size_t *n)
{
	*n = th->nall;
	return th->all;
}
