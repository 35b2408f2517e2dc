/*
 * model_host.c - the host threads of a rank beside its main thread, the
 * bounded queues between them and the CPU cores they share (ir/threads.h).
 *
 * A worker thread walks its block's body as the main thread walks the op
 * list (loops through a small stack), one op at a time: host work and
 * memcpy run on the CPU, `put` and `get` on a queue.  Thread 0 is the main
 * thread (model_ops.c); it uses the queues and the CPU through the same
 * functions.
 *
 * Queues hand over at once, first come first served: a `get` on an empty
 * queue waits in line until a `put` hands its item straight to the first
 * getter; a `put` on a full queue waits in line until a `get` takes an item
 * and lets the first putter's item in.  A woken thread runs again at once.
 *
 * The CPU is processor sharing: while b threads do host work on a rank with
 * c cores (host.cores; 0: a core per thread), each progresses at min(1, c/b)
 * of a core.  Work is kept in picoseconds of one core as a double and only
 * the earliest end is an event (EV_CPU, with a generation so that a stale
 * one is ignored).  One thread alone, or fewer than c, run at exactly one
 * core: their ends are the integer sums the model without threads gives.
 * API calls and the staging of pageable copies are not counted against the
 * cores.  Nothing depends on anything but the scenario and the profile:
 * same input, same trace.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/threads.h"
#include "sim/model_priv.h"

enum tstate {
	T_IDLE, /* not started: the main thread has not reached its block */
	T_RUN,  /* running, or an EV_HOST is due */
	T_BUSY, /* its host work is on the CPU */
	T_WAIT, /* in a queue's line */
	T_DONE
};

struct tloop {
	int start, end;
	uint64_t left;
	uint64_t mark;
};

struct mthread {
	enum tstate state;
	int op0;        /* its block's HD_OP_WORKERS op; the body follows it */
	int end;        /* one past the body */
	int index, n;   /* within its block */
	int lane;       /* the main thread: -1 (its own lanes) */
	int pc;         /* next op of the body */
	uint64_t *exec; /* executions so far of each body op, by op - op0 - 1 */
	struct tloop *stack;
	size_t sp, stack_cap;
	uint64_t returned; /* ops handed out, for loops that ran nothing */
	int op;            /* op being run, or -1 */
	uint32_t iter;
	int phase;
	hd_time t0;    /* when the op began */
	hd_time since; /* T_WAIT: since when */
	int queue;     /* T_WAIT: in which queue's line */
	int qnext;     /* next thread in that line, or -1 */
};

struct mqueue {
	uint32_t depth, items;
	int get_head, get_tail; /* threads waiting to get, first first (-1: none) */
	int put_head, put_tail; /* threads waiting to put */
	uint64_t puts, gets;    /* done so far, for the deadlock's words */
};

struct cpujob {
	int k; /* thread */
	int lane, op, label;
	uint32_t iter;
	uint64_t bytes;
	hd_time start;
	double left; /* picoseconds of one core still to do */
};

struct mthreads {
	int n;             /* threads beside the main one */
	struct mthread *t; /* [0] the main thread (queue links only), [1 .. n] */
	struct mqueue *q;
	int nq;
	struct cpujob *jobs;
	size_t njobs, jobcap;
	hd_time cpu_last; /* when the jobs' `left` was brought up to date */
	uint32_t cpu_gen; /* of the live EV_CPU */
	bool *put_ops;    /* per queue: some `put` op names it */
};

enum {
	T_YIELD,
	T_DONE_OP
};

/* --- set-up ----------------------------------------------------------------------- */

void
model_threads_init(struct model *m)
{
	const struct hd_scenario *sc = m->sc;
	struct mthreads *th;
	struct hd_thread_info *ti;
	char(*name)[48];
	int n = hd_threads_count(sc), k, i;

	if (n <= 0 && sc->nqueues == 0)
		return;
	th = hd_xcalloc(1, sizeof *th);
	th->n = n;
	th->t = hd_xcalloc((size_t)n + 1, sizeof *th->t);
	th->t[0].state = T_RUN;
	th->t[0].lane = -1;
	th->t[0].qnext = -1;
	ti = hd_xcalloc((size_t)n + 1, sizeof *ti);
	name = hd_xcalloc((size_t)n + 1, sizeof *name);
	hd_threads_table(sc, ti, name, n + 1);
	for (k = 1; k <= n; k++) {
		struct mthread *t = &th->t[k];

		t->op0 = ti[k].op;
		t->end = ti[k].op + 1 + sc->ops[ti[k].op].body_len;
		t->index = ti[k].index;
		t->n = ti[k].n;
		t->op = -1;
		t->qnext = -1;
		t->exec = hd_xcalloc((size_t)sc->ops[ti[k].op].body_len + 1, sizeof *t->exec);
		t->lane = m->sink->lane(m->sink->ctx, HD_LANE_HOST, m->rank, k, name[k]);
	}
	free(ti);
	free(name);
	th->nq = sc->nqueues;
	th->q = hd_xcalloc((size_t)sc->nqueues + 1, sizeof *th->q);
	th->put_ops = hd_xcalloc((size_t)sc->nqueues + 1, sizeof *th->put_ops);
	for (i = 0; i < sc->nqueues; i++) {
		th->q[i].depth = sc->queues[i].depth > 0 ? sc->queues[i].depth : 1;
		th->q[i].get_head = th->q[i].get_tail = -1;
		th->q[i].put_head = th->q[i].put_tail = -1;
	}
	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == HD_OP_PUT && sc->ops[i].queue >= 0 &&
		    sc->ops[i].queue < sc->nqueues)
			th->put_ops[sc->ops[i].queue] = true;
	m->thr = th;
}

void
model_threads_free(struct model *m)
{
	struct mthreads *th = m->thr;
	int k;

	if (th == NULL)
		return;
	for (k = 0; k <= th->n; k++) {
		free(th->t[k].exec);
		free(th->t[k].stack);
	}
	free(th->t);
	free(th->q);
	free(th->put_ops);
	free(th->jobs);
	free(th);
	m->thr = NULL;
}

void
model_threads_start(struct model *m, int opi)
{
	struct mthreads *th = m->thr;
	hd_time now = hd_engine_now(m->eng);
	int k;

	for (k = 1; th != NULL && k <= th->n; k++) {
		struct mthread *t = &th->t[k];

		if (t->op0 != opi || t->state != T_IDLE)
			continue;
		t->state = T_RUN;
		t->pc = opi + 1;
		model_at(m, now, EV_HOST, (uint32_t)k, 0);
	}
}

bool
model_threads_done(const struct model *m)
{
	int k;

	if (m->thr == NULL)
		return true;
	for (k = 1; k <= m->thr->n; k++)
		if (m->thr->t[k].state != T_DONE && m->thr->t[k].state != T_IDLE)
			return false;
	return true;
}

/* --- the CPU -------------------------------------------------------------------------- */

/* The share of a core each of `busy` threads gets. */
static double
cpu_rate(const struct model *m, size_t busy)
{
	int c = m->p->host_cores;

	return c <= 0 || busy <= (size_t)c ? 1.0 : (double)c / (double)busy;
}

/* Bring every job's remaining work up to now. */
static void
cpu_advance(struct model *m)
{
	struct mthreads *th = m->thr;
	hd_time now = hd_engine_now(m->eng);
	double done;
	size_t i;

	if (now > th->cpu_last && th->njobs > 0) {
		done = (double)(now - th->cpu_last) * cpu_rate(m, th->njobs);
		for (i = 0; i < th->njobs; i++)
			th->jobs[i].left -= done;
	}
	th->cpu_last = now;
}

/* Schedule the end of the job with the least work left. */
static void
cpu_schedule(struct model *m)
{
	struct mthreads *th = m->thr;
	double rate = cpu_rate(m, th->njobs), least;
	hd_time now = hd_engine_now(m->eng), dt;
	size_t i;

	th->cpu_gen++;
	if (th->njobs == 0)
		return;
	least = th->jobs[0].left;
	for (i = 1; i < th->njobs; i++)
		if (th->jobs[i].left < least)
			least = th->jobs[i].left;
	if (least < 0)
		least = 0;
	/* shared: the first whole picosecond by which it is done (a thousandth
	 * of one is rounding, not work) */
	dt = rate == 1.0 ? (hd_time)llround(least) : (hd_time)ceil(least / rate - 1e-3);
	model_at(m, now + dt, EV_CPU, th->cpu_gen, 0);
}

void
model_cpu_start(struct model *m, int k, int lane, int op, uint32_t iter, hd_time work,
		uint64_t bytes, int label)
{
	struct mthreads *th = m->thr;
	struct cpujob *j;

	cpu_advance(m);
	th->jobs = hd_xgrow(th->jobs, &th->jobcap, th->njobs + 1, sizeof *th->jobs);
	j = &th->jobs[th->njobs++];
	j->k = k;
	j->lane = lane;
	j->op = op;
	j->label = label;
	j->iter = iter;
	j->bytes = bytes;
	j->start = hd_engine_now(m->eng);
	j->left = (double)(work > 0 ? work : 0);
	if (k > 0)
		th->t[k].state = T_BUSY;
	cpu_schedule(m);
}

void
model_on_cpu(struct model *m, uint32_t gen)
{
	struct mthreads *th = m->thr;
	hd_time now = hd_engine_now(m->eng);
	size_t i, kept = 0;

	if (th == NULL || gen != th->cpu_gen)
		return;
	cpu_advance(m);
	/* every job with less than a picosecond left ends now, in the order
	 * they began; the others keep their order */
	for (i = 0; i < th->njobs; i++) {
		struct cpujob j = th->jobs[i];

		if (j.left >= 1.0) {
			th->jobs[kept++] = j;
			continue;
		}
		model_emit(m, j.lane, j.op, j.iter, HD_SPAN_HOST, HD_WHY_NONE, j.start, now,
			   j.bytes, j.label);
		if (j.k > 0)
			th->t[j.k].state = T_RUN;
		model_at(m, now, EV_HOST, (uint32_t)j.k, 0);
	}
	th->njobs = kept;
	cpu_schedule(m);
}

/* --- queues ------------------------------------------------------------------------- */

static void
line_push(struct mthreads *th, int *head, int *tail, int k)
{
	th->t[k].qnext = -1;
	if (*tail >= 0)
		th->t[*tail].qnext = k;
	else
		*head = k;
	*tail = k;
}

static int
line_pop(struct mthreads *th, int *head, int *tail)
{
	int k = *head;

	if (k < 0)
		return -1;
	*head = th->t[k].qnext;
	if (*head < 0)
		*tail = -1;
	th->t[k].qnext = -1;
	return k;
}

/* Thread k's wait in a queue's line is over: it runs again now. */
static void
wake(struct model *m, int k)
{
	if (k == 0) {
		m->h.w.ticket = 1; /* W_HANDOFF holds: model_host_poll wakes it */
		model_touch(m);
		return;
	}
	m->thr->t[k].state = T_RUN;
	model_at(m, hd_engine_now(m->eng), EV_HOST, (uint32_t)k, 0);
}

int
model_queue_op(struct model *m, int k, const struct hd_op *op)
{
	struct mthreads *th = m->thr;
	struct mqueue *q = &th->q[op->queue];
	int other;

	if (op->kind == HD_OP_GET) {
		if (q->items == 0) {
			line_push(th, &q->get_head, &q->get_tail, k);
			th->t[k].queue = op->queue;
			return 1;
		}
		q->items--;
		q->gets++;
		/* room now: the first waiting putter's item goes in */
		if ((other = line_pop(th, &q->put_head, &q->put_tail)) >= 0) {
			q->items++;
			q->puts++;
			wake(m, other);
		}
		return 0;
	}
	if ((other = line_pop(th, &q->get_head, &q->get_tail)) >= 0) {
		/* an empty queue with a getter waiting: the item goes to it */
		q->puts++;
		q->gets++;
		wake(m, other);
		return 0;
	}
	if (q->items >= q->depth) {
		line_push(th, &q->put_head, &q->put_tail, k);
		th->t[k].queue = op->queue;
		return 1;
	}
	q->items++;
	q->puts++;
	return 0;
}

/* --- a worker thread ------------------------------------------------------------------ */

/* The next op thread t runs, or -1 at the end of its body. */
static int
thread_next(struct model *m, struct mthread *t)
{
	const struct hd_op *op;
	struct tloop *l;

	for (;;) {
		while (t->sp > 0 && t->pc == t->stack[t->sp - 1].end) {
			l = &t->stack[t->sp - 1];
			if (--l->left > 0 && t->returned != l->mark) {
				t->pc = l->start;
				l->mark = t->returned;
			} else
				t->sp--;
		}
		if (t->pc >= t->end)
			return -1;
		op = &m->sc->ops[t->pc];
		if (op->kind == HD_OP_REPEAT) {
			if (op->count == 0 || op->body_len <= 0) {
				t->pc += 1 + (op->body_len > 0 ? op->body_len : 0);
				continue;
			}
			t->stack = hd_xgrow(t->stack, &t->stack_cap, t->sp + 1, sizeof *t->stack);
			l = &t->stack[t->sp++];
			l->start = t->pc + 1;
			l->end = t->pc + 1 + op->body_len;
			l->left = op->count;
			l->mark = t->returned;
			t->pc++;
			continue;
		}
		t->returned++;
		return t->pc++;
	}
}

/* One step of thread k's op: T_DONE_OP when it is over. */
static int
thread_op(struct model *m, int k, struct mthread *t)
{
	const struct hd_op *op = &m->sc->ops[t->op];
	hd_time now = hd_engine_now(m->eng);

	switch (op->kind) {
	case HD_OP_HOST:
		if (t->phase++ == 0) {
			model_cpu_start(m, k, t->lane, t->op, t->iter, op->duration, 0,
					model_work_label(m, t->op));
			return T_YIELD;
		}
		return T_DONE_OP;
	case HD_OP_COPY: /* between host buffers: a memcpy on the CPU */
		if (t->phase++ == 0) {
			model_cpu_start(m, k, t->lane, t->op, t->iter, model_h2h_time(m, op),
					op->bytes, model_work_label(m, t->op));
			return T_YIELD;
		}
		return T_DONE_OP;
	case HD_OP_PUT:
	case HD_OP_GET:
		if (t->phase == 0 && model_queue_op(m, k, op) != 0) {
			t->phase = 1;
			t->state = T_WAIT;
			t->since = now;
			return T_YIELD;
		}
		if (t->phase == 1 && now > t->since)
			model_emit(m, t->lane, t->op, t->iter, HD_SPAN_BLOCKED,
				   op->kind == HD_OP_GET ? HD_WHY_DATA : HD_WHY_ROOM, t->since, now,
				   0, model_api_label(m, t->op));
		model_emit(m, t->lane, t->op, t->iter, HD_SPAN_API, HD_WHY_NONE, t->t0, now, 0,
			   model_api_label(m, t->op));
		return T_DONE_OP;
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
		break; /* model_check_threads refused them */
	}
	return T_DONE_OP;
}

void
model_thread_step(struct model *m, int k, volatile int *stop)
{
	struct mthread *t;

	if (m->thr == NULL || k < 1 || k > m->thr->n)
		return;
	t = &m->thr->t[k];
	if (t->state != T_RUN)
		return;
	for (;;) {
		if (t->op < 0) {
			if (stop != NULL && *stop)
				return;
			t->op = thread_next(m, t);
			if (t->op < 0) {
				t->state = T_DONE;
				return;
			}
			t->iter = hd_thread_iter(t->exec[t->op - t->op0 - 1]++, t->index, t->n);
			t->phase = 0;
			t->t0 = hd_engine_now(m->eng);
			m->op_execs++;
		}
		if (thread_op(m, k, t) != T_DONE_OP)
			return;
		t->op = -1;
	}
}

/* --- deadlocks ------------------------------------------------------------------------ */

void
model_threads_stuck(struct model *m, hd_time now)
{
	const struct hd_op *op;
	int k;

	for (k = 1; m->thr != NULL && k <= m->thr->n; k++) {
		struct mthread *t = &m->thr->t[k];

		if (t->state != T_WAIT || t->op < 0)
			continue;
		op = &m->sc->ops[t->op];
		if (now > t->since)
			model_emit(m, t->lane, t->op, t->iter, HD_SPAN_BLOCKED,
				   op->kind == HD_OP_GET ? HD_WHY_DATA : HD_WHY_ROOM, t->since, now,
				   0, model_api_label(m, t->op));
		model_emit(m, t->lane, t->op, t->iter, HD_SPAN_API, HD_WHY_NONE, t->t0, now, 0,
			   model_api_label(m, t->op));
	}
}

/* What a put or get of queue qi waits for, in words. */
static void
wait_text(struct model *m, const struct hd_op *op, struct hd_buf *b)
{
	const struct mqueue *q = &m->thr->q[op->queue];
	const char *name = m->sc->queues[op->queue].name;

	if (op->kind == HD_OP_PUT) {
		hd_buf_printf(b,
			      "waits for room in queue %s (%u of %u items), and no thread "
			      "will get from it",
			      name, q->items, q->depth);
		return;
	}
	if (!m->thr->put_ops[op->queue])
		hd_buf_printf(b, "waits for an item of queue %s, and no statement puts into it",
			      name);
	else
		hd_buf_printf(b,
			      "waits for an item of queue %s, empty after %llu puts, and no "
			      "thread will put into it",
			      name, (unsigned long long)q->puts);
}

bool
model_threads_main_text(struct world *w, struct model *m, struct hd_buf *b)
{
	const struct hd_op *op;

	if (m->thr == NULL)
		return false;
	if (m->h.done) {
		hd_buf_printf(b, "the main thread has ended; its host threads wait\n");
		return true;
	}
	if (m->h.op < 0 || m->h.w.kind != W_HANDOFF)
		return false;
	op = &w->sc->ops[m->h.op];
	hd_buf_printf(b, "%s (line %d) ", op->kind == HD_OP_GET ? "get" : "put", op->line);
	wait_text(m, op, b);
	hd_buf_printf(b, "\n");
	return true;
}

void
model_threads_text(struct world *w, struct model *m, struct hd_buf *b)
{
	char name[48];
	int k, shown = 0, waiting = 0;

	for (k = 1; m->thr != NULL && k <= m->thr->n; k++)
		waiting += m->thr->t[k].state == T_WAIT;
	for (k = 1; m->thr != NULL && k <= m->thr->n; k++) {
		const struct mthread *t = &m->thr->t[k];
		const struct hd_op *op;

		if (t->state != T_WAIT || t->op < 0)
			continue;
		if (shown++ == 8) {
			hd_buf_printf(b, "    ... and %d more threads\n", waiting - 8);
			break;
		}
		op = &w->sc->ops[t->op];
		hd_thread_lane_name(w->sc, k, name, sizeof name);
		hd_buf_printf(b, "    %s: %s (line %d) ", name,
			      op->kind == HD_OP_GET ? "get" : "put", op->line);
		wait_text(m, op, b);
		hd_buf_printf(b, "\n");
	}
}

/* --- checks ---------------------------------------------------------------------------- */

int
model_check_threads(const struct hd_scenario *sc, struct hd_err *e)
{
	int i, j, end, depth_end = 0;
	int64_t threads = 0;
	char where[64];

	for (i = 0; i < sc->nqueues; i++)
		if (sc->queues[i].depth < 1 || sc->queues[i].depth > HD_QUEUE_MAX_DEPTH) {
			hd_err_set(e, HD_EXIT_INPUT, sc->name != NULL ? sc->name : "",
				   "scenario '%s': queue %d holds %u items; a queue holds 1 to %d",
				   sc->name, i, sc->queues[i].depth, HD_QUEUE_MAX_DEPTH);
			return -1;
		}
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];

		snprintf(where, sizeof where, "line %d", op->line);
		/* a block's end: workers must stand outside every other block */
		if (op->kind != HD_OP_WORKERS) {
			if ((op->kind == HD_OP_REPEAT || op->kind == HD_OP_ON_RANK) &&
			    i + 1 + op->body_len > depth_end)
				depth_end = i + 1 + op->body_len;
			continue;
		}
		threads += (int64_t)op->count;
		if (i < depth_end || op->count < 1 || threads > HD_THREADS_MAX) {
			hd_err_set(e, HD_EXIT_INPUT, where,
				   "scenario '%s': op %d starts threads inside another block, or "
				   "more than %d in all",
				   sc->name, i, HD_THREADS_MAX);
			return -1;
		}
		end = i + 1 + op->body_len;
		for (j = i + 1; j < end && j < sc->nops; j++) {
			const struct hd_op *b = &sc->ops[j];

			if (!hd_thread_op_ok(b->kind) ||
			    (b->kind == HD_OP_COPY && b->copy != HD_COPY_H2H)) {
				snprintf(where, sizeof where, "line %d", b->line);
				hd_err_set(e, HD_EXIT_INPUT, where,
					   "scenario '%s': op %d (%s) cannot run in a host thread",
					   sc->name, j, hd_op_kind_name(b->kind));
				return -1;
			}
		}
		i = end - 1;
	}
	return 0;
}
