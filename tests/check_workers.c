/*
 * check_workers.c - the real executor's host threads and queues
 * (real/workers.c) against the fake GPU of tests/fake_cuda.c: a producer
 * and the main thread through a bounded queue, four workers copying into a
 * pinned buffer, and deadlocks that end the run with their words instead
 * of hanging it.  What is asserted is the shape of the measured trace and
 * the order the queue imposes, never how long anything took, but for one
 * kernel of 20 ms against the summary's FP32 line, a fifth apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/backend.h"
#include "ir/threads.h"
#include "lang/lesson.h"
#include "real/real.h"
#include "run/backends.h"
#include "run/verify.h"
#include "tests/fake_cuda.h"
#include "tests/testdb.h"
#include "tests/testutil.h"

static struct hd_scenario *
build(const char *body, struct hd_lesson **lp)
{
	struct hd_err e = { 0 };
	char *text = hd_xasprintf("hdsim 1\nlesson w\ntitle \"workers\"\n%s", body);
	struct hd_lesson *l = hd_lesson_parse(text, strlen(text), "w.hds", &e);
	struct hd_scenario *sc;

	ck_assert_msg(l != NULL, "%s: %s", e.where, e.msg);
	sc = hd_lesson_instantiate(l, 0, NULL, &e);
	ck_assert_msg(sc != NULL, "%s", e.msg);
	free(text);
	*lp = l;
	return sc;
}

static struct hd_trace *
measure(const struct hd_scenario *sc, struct hd_err *e)
{
	struct hd_run_opts ro = { .warmup = 1, .repeats = 3 };

	return hd_backend_trace(&hd_real_backend, sc, &ro, e);
}

/* The span of (op, iter, kind) on rank 0's host lane `index`, or NULL. */
static const struct hd_span *
find(const struct hd_trace *t, int op, uint32_t iter, enum hd_span_kind kind, enum hd_lane_kind lk,
     int index)
{
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		const struct hd_lane *ln = &t->lanes[s->lane];

		if (s->op == op && s->iter == iter && s->kind == kind && ln->kind == lk &&
		    ln->index == index && ln->rank == 0)
			return s;
	}
	return NULL;
}

static const struct hd_span *
need(const struct hd_trace *t, int op, uint32_t iter, enum hd_span_kind kind, enum hd_lane_kind lk,
     int index)
{
	const struct hd_span *s = find(t, op, iter, kind, lk, index);

	ck_assert_msg(s != NULL, "no span of op %d iter %u kind %d on lane %d.%d", op, iter, kind,
		      lk, index);
	return s;
}

/*
 * One producer, the main thread consuming through a queue of depth 1: the
 * main thread's k-th get ends after the producer's k-th put began, and the
 * producer's k-th put ends after the main thread's (k-1)-th get began (no
 * room before).
 */
START_TEST(producer_and_consumer)
{
	struct hd_lesson *l;
	struct hd_scenario *sc = build("scenario pc\n"
				       "  buffer h pinned 1MiB\n"
				       "  buffer d device 1MiB\n"
				       "  stream s\n"
				       "  queue q 1\n"
				       "  thread prod\n"    /* op 0 */
				       "    repeat 4\n"     /* op 1 */
				       "      host 300us\n" /* op 2 */
				       "      put q\n"      /* op 3 */
				       "    end\n"
				       "  end\n"
				       "  repeat 4\n"                 /* op 4 */
				       "    get q\n"                  /* op 5 */
				       "    copy h -> d async on s\n" /* op 6 */
				       "    host 100us\n"             /* op 7 */
				       "  end\n"
				       "  sync s\n" /* op 8 */
				       "end\n",
				       &l);
	struct hd_err e = { 0 };
	struct hd_trace *t = measure(sc, &e);
	uint32_t k;
	int lane;

	ck_assert_msg(t != NULL, "%s", e.msg);
	lane = hd_trace_lane(t, HD_LANE_HOST, 0, 1, NULL);
	ck_assert_str_eq(t->lanes[lane].name, "Thread prod");
	for (k = 0; k < 4; k++) {
		const struct hd_span *put = need(t, 3, k, HD_SPAN_API, HD_LANE_HOST, 1);
		const struct hd_span *get = need(t, 5, k, HD_SPAN_API, HD_LANE_API, 0);

		need(t, 2, k, HD_SPAN_HOST, HD_LANE_HOST, 1);
		need(t, 3, k, HD_SPAN_BLOCKED, HD_LANE_HOST, 1);
		need(t, 5, k, HD_SPAN_BLOCKED, HD_LANE_API, 0);
		need(t, 7, k, HD_SPAN_HOST, HD_LANE_HOST, 0);
		need(t, 6, k, HD_SPAN_COPY, HD_LANE_STREAM, 2);
		ck_assert_msg(get->end >= put->start, "get %u ended before put %u began", k, k);
		if (k > 0) {
			const struct hd_span *prev = need(t, 5, k - 1, HD_SPAN_API, HD_LANE_API, 0);

			ck_assert_msg(put->end >= prev->start,
				      "put %u ended before get %u made room", k, k - 1);
		}
	}
	ck_assert(find(t, 2, 4, HD_SPAN_HOST, HD_LANE_HOST, 1) == NULL);
	ck_assert(t->bare > 0); /* the repeats without per-op events ran the threads too */
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* Four workers memcpy into a pinned buffer and put; each on its own lane,
 * its executions numbered j * 4 + i, its copies carrying their bytes. */
START_TEST(four_workers)
{
	struct hd_lesson *l;
	struct hd_scenario *sc = build("scenario w\n"
				       "  buffer raw pageable 256KiB\n"
				       "  buffer pin pinned 256KiB\n"
				       "  queue q 2\n"
				       "  workers 4\n"           /* op 0 */
				       "    repeat 2\n"          /* op 1 */
				       "      host 50us\n"       /* op 2 */
				       "      copy raw -> pin\n" /* op 3 */
				       "      put q\n"           /* op 4 */
				       "    end\n"
				       "  end\n"
				       "  repeat 8\n" /* op 5 */
				       "    get q\n"  /* op 6 */
				       "  end\n"
				       "end\n",
				       &l);
	struct hd_err e = { 0 };
	struct hd_trace *t = measure(sc, &e);
	int w, j;

	ck_assert_msg(t != NULL, "%s", e.msg);
	for (w = 0; w < 4; w++) {
		char name[16];

		snprintf(name, sizeof name, "Worker %d", w);
		ck_assert_str_eq(t->lanes[hd_trace_lane(t, HD_LANE_HOST, 0, w + 1, NULL)].name,
				 name);
		for (j = 0; j < 2; j++) {
			uint32_t it = hd_thread_iter((uint64_t)j, w, 4);
			const struct hd_span *c = need(t, 3, it, HD_SPAN_HOST, HD_LANE_HOST, w + 1);

			need(t, 2, it, HD_SPAN_HOST, HD_LANE_HOST, w + 1);
			need(t, 4, it, HD_SPAN_API, HD_LANE_HOST, w + 1);
			ck_assert_uint_eq(c->bytes, 256 * 1024);
		}
	}
	for (j = 0; j < 8; j++)
		need(t, 6, (uint32_t)j, HD_SPAN_API, HD_LANE_API, 0);
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/*
 * An `if` on a loop index in a thread's body is decided when the scenario
 * is built: the executor's thread runs iterations 0 and 2 as host work and
 * a put, 1 and 3 as host work twice, and the main thread gets both puts.
 */
START_TEST(condition_in_a_thread)
{
	struct hd_lesson *l;
	struct hd_scenario *sc = build("scenario c\n"
				       "  queue q 4\n"
				       "  thread t\n" /* op 0 */
				       "    repeat 4 as i\n"
				       "      host 100us\n"
				       "      if i % 2 == 0\n"
				       "        put q\n"
				       "      else\n"
				       "        host 50us\n"
				       "      end\n"
				       "    end\n"
				       "  end\n"
				       "  repeat 2\n"
				       "    get q\n"
				       "  end\n"
				       "end\n",
				       &l);
	struct hd_err e = { 0 };
	struct hd_trace *t;
	uint32_t k;

	/* 0 thread, 1 repeat 2, 2 repeat 1, 3 host, 4 put, 5 repeat 1, 6 host,
	 * 7 host, 8 repeat 2, 9 get */
	ck_assert_int_eq(sc->nops, 10);
	ck_assert_int_eq(sc->ops[4].kind, HD_OP_PUT);
	ck_assert_int_eq(sc->ops[7].kind, HD_OP_HOST);
	t = measure(sc, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	for (k = 0; k < 2; k++) {
		const struct hd_span *put = need(t, 4, k, HD_SPAN_API, HD_LANE_HOST, 1);
		const struct hd_span *get = need(t, 9, k, HD_SPAN_API, HD_LANE_API, 0);

		need(t, 3, k, HD_SPAN_HOST, HD_LANE_HOST, 1);
		need(t, 6, k, HD_SPAN_HOST, HD_LANE_HOST, 1);
		need(t, 7, k, HD_SPAN_HOST, HD_LANE_HOST, 1);
		ck_assert_msg(get->end >= put->start, "get %u ended before put %u began", k, k);
	}
	ck_assert(find(t, 4, 2, HD_SPAN_API, HD_LANE_HOST, 1) == NULL);
	ck_assert(find(t, 7, 2, HD_SPAN_HOST, HD_LANE_HOST, 1) == NULL);
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* A get nobody puts for, with the producer done: the run ends with the
 * deadlock's words, not a hang. */
START_TEST(get_without_producer_ends_the_run)
{
	struct hd_lesson *l;
	struct hd_scenario *sc = build("scenario d\n"
				       "  queue q 2\n"
				       "  thread t\n"
				       "    put q\n"
				       "  end\n"
				       "  get q\n"
				       "  get q\n"
				       "end\n",
				       &l);
	struct hd_err e = { 0 };
	struct hd_trace *t = measure(sc, &e);

	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(e.msg,
			     "deadlock: every host thread waits on a queue: the main "
			     "thread in get (line 10) on queue q") != NULL,
		      "%s", e.msg);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* A thread left waiting for room once the main thread is done. */
START_TEST(put_without_consumer_ends_the_run)
{
	struct hd_lesson *l;
	struct hd_scenario *sc = build("scenario d\n"
				       "  queue q 1\n"
				       "  thread t\n"
				       "    repeat 3\n"
				       "      put q\n"
				       "    end\n"
				       "  end\n"
				       "  get q\n"
				       "end\n",
				       &l);
	struct hd_err e = { 0 };
	struct hd_trace *t = measure(sc, &e);

	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(e.msg, "Thread t in put (line 8) on queue q") != NULL, "%s", e.msg);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

/* Options for hdsim --real on the fake GPU: one warm-up and three repeats
 * into database db, predicted with profile p. */
static void
real_opts(struct hd_verify_opts *o, const struct hd_profile *p, const char *db)
{
	memset(o, 0, sizeof *o);
	o->measured = &hd_real_backend;
	o->profile = p;
	o->db_path = db;
	o->warmup = 1;
	o->repeats = 3;
	o->width = 100;
}

/* Lesson 22 through --real's pipeline (small knobs): predicted and measured
 * stored as pairs, the threads' rows and their queue waits in both. */
START_TEST(lesson_22_verified_and_stored)
{
	char *path = hd_xasprintf("%s/lessons/22-dataloader-workers.hds", HDSIM_SRCDIR), dir[64];
	char *const sets[] = { "batches=4", "workers=2", "prep=1ms", "step=1ms", "batch=1MiB" };
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_load(path, &e);
	const struct hd_lesson *ls[1];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_profile p;
	struct hd_buf out;
	char *db;

	ck_assert_msg(l != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_profile_resolve("h100-sxm", &p, &e), 0);
	hd_test_mkdtemp(dir, sizeof dir, "workers");
	db = hd_xasprintf("%s/v.db", dir);
	ls[0] = l;
	real_opts(&o, &p, db);
	o.sets = sets;
	o.nsets = 5;
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(ls, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(res.scenarios_run, 4);
	ck_assert_int_eq(res.runs_stored, 8);
	/* the pin-memory thread's row in the predicted and the measured run */
	ck_assert_int_eq(hd_test_count(db,
				       "SELECT count(DISTINCT run_id) FROM lanes WHERE "
				       "stream = 3 AND name = 'Thread pin-memory'"),
			 2);
	ck_assert_int_ge(hd_test_count(db, "SELECT count(*) FROM spans WHERE why = 'queue-empty'"),
			 2);
	/* each measured run with its three repeats, timed and without per-op
	 * events, and the band printed beside each measured makespan */
	ck_assert_int_eq(hd_test_count(db,
				       "SELECT count(*) FROM run_repeats x JOIN runs r ON"
				       " r.id = x.run_id WHERE r.source = 'measured' AND"
				       " x.makespan_ps > 0 AND x.bare_ps > 0 AND r.repeats = 3"),
			 12);
	ck_assert_int_eq(hd_test_count(db, "SELECT count(*) FROM run_repeats"), 12);
	ck_assert_int_eq(res.with_band, 4);
	ck_assert_msg(strstr(out.s, ", 3 repeats), IQR ") != NULL, "%s", out.s);
	ck_assert_msg(strstr(out.s,
			     "Predicted inside the measured band (min to max of the "
			     "repeats): ") != NULL,
		      "%s", out.s);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	hd_test_rmtree(dir);
	free(db);
	free(path);
	hd_lesson_free(l);
}
END_TEST

/* The summary's FP32 line from the real backend's own per-op timing, not
 * the model standing in: a 1.2 TFLOP kernel on the fake GPU (60 TFLOP/s)
 * predicted with a profile a quarter faster warns that the GPU ran it
 * slower; predicted at the fake's rate it does not. */
START_TEST(long_kernel_rate_from_the_real_backend)
{
	static const char text[] = "hdsim 1\nlesson long\ntitle \"Long\"\n"
				   "scenario one \"one GPU\"\n  kernel compute 1200GFLOP\n"
				   "  sync device\nend\n";
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, sizeof text - 1, "long.hds", &e);
	const struct hd_lesson *ls[1];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_profile p;
	struct hd_buf out;
	char dir[64], *db;
	int pass;

	ck_assert_msg(l != NULL, "%s: %s", e.where, e.msg);
	hd_test_mkdtemp(dir, sizeof dir, "workers");
	db = hd_xasprintf("%s/v.db", dir);
	ls[0] = l;
	for (pass = 0; pass < 2; pass++) {
		ck_assert_int_eq(hd_profile_resolve("h100-sxm", &p, &e), 0);
		p.flops = pass == 0 ? 1.25 * FAKE_FLOPS : FAKE_FLOPS;
		real_opts(&o, &p, db);
		hd_buf_init(&out);
		ck_assert_msg(hd_verify_lessons(ls, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
		ck_assert_int_eq(res.long_kernels, 1);
		ck_assert_msg(
		    strstr(out.s, "\nCompute kernels predicted at 5.00 ms or more: 1, at ") != NULL,
		    "%s", out.s);
		if (pass == 0) {
			ck_assert_msg(strstr(out.s, "at 80 % of the profile's FP32 rate") != NULL,
				      "%s", out.s);
			ck_assert_ptr_nonnull(strstr(out.s, "slower than the profile's gpu.fp32"));
		} else
			ck_assert_msg(strstr(out.s, "slower than the profile's gpu.fp32") == NULL,
				      "%s", out.s);
		hd_buf_free(&out);
		hd_verify_result_free(&res);
	}
	hd_test_rmtree(dir);
	free(db);
	hd_lesson_free(l);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("workers");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, producer_and_consumer);
	tcase_add_test(tc, long_kernel_rate_from_the_real_backend);
	tcase_add_test(tc, four_workers);
	tcase_add_test(tc, condition_in_a_thread);
	tcase_add_test(tc, get_without_producer_ends_the_run);
	tcase_add_test(tc, put_without_consumer_ends_the_run);
	tcase_add_test(tc, lesson_22_verified_and_stored);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(suite());
}
