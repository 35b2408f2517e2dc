/*
 * check_fault.c - the real backend when CUDA calls fail: every checked call
 * of a run, made to fail in turn (real/fault.h) against the fake GPU of
 * tests/fake_cuda.c, through the whole `hdsim --real` pipeline into a
 * database.  Each failure must name the call that failed, the run must stop
 * with an error, and the database must hold nothing of the lesson: no half
 * run, no measured run without its prediction, integrity intact.
 *
 * Under the sanitizer build LeakSanitizer also checks that each error path
 * frees what the run had allocated (the fake GPU's memory is malloc'd).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/backend.h"
#include "lang/lesson.h"
#include "real/fault.h"
#include "run/backends.h"
#include "run/verify.h"
#include "tests/testdb.h"
#include "tests/testutil.h"

/* One scenario with every kind of call the backend makes on one GPU, and a
 * host thread that waits for room in a queue while the main thread runs
 * them (a failure must stop it too). */
static const char lesson_text[] = "hdsim 1\n"
				  "lesson faults\n"
				  "title \"Every kind of CUDA call\"\n"
				  "scenario all\n"
				  "  buffer h pinned 64KiB\n"
				  "  buffer p pageable 64KiB\n"
				  "  buffer m managed 64KiB\n"
				  "  buffer d device 64KiB\n"
				  "  buffer d2 device 64KiB\n"
				  "  stream s\n"
				  "  stream q nonblocking priority -1\n"
				  "  event e\n"
				  "  event n notiming\n"
				  "  queue ready 1\n"
				  "  thread t\n"
				  "    host 1us\n"
				  "    put ready\n"
				  "    put ready\n"
				  "  end\n"
				  "  pin p\n"
				  "  get ready\n"
				  "  copy h -> d async on s\n"
				  "  copy p -> d2\n"
				  "  kernel spin 1us on s\n"
				  "  kernel compute 1MFLOP on q\n"
				  "  kernel memory d on s\n"
				  "  kernel fill d2 on q\n"
				  "  kernel reduce d on s\n"
				  "  prefetch m to device on q\n"
				  "  record e on s\n"
				  "  wait e on q\n"
				  "  record n on q\n"
				  "  query e\n"
				  "  sync e\n"
				  "  copy d -> d2 async on q\n"
				  "  graph g\n"
				  "    kernel spin 1us\n"
				  "    copy h -> d async\n"
				  "  end\n"
				  "  launch g on s\n"
				  "  sync q\n"
				  "  read d 4KiB\n"
				  "  free d2\n"
				  "  get ready\n"
				  "  sync device\n"
				  "end\n";

static char dir[64];
static struct hd_lesson *lesson;
static struct hd_profile h100;

static void
setup(void)
{
	struct hd_err e = { 0 };

	lesson = hd_lesson_parse(lesson_text, sizeof lesson_text - 1, "faults.hds", &e);
	ck_assert_msg(lesson != NULL, "%s: %s", e.where, e.msg);
	ck_assert_int_eq(hd_profile_resolve("h100-sxm", &h100, &e), 0);
	hd_test_mkdtemp(dir, sizeof dir, "fault");
	hd_fault_set("");
}

static void
teardown(void)
{
	hd_lesson_free(lesson);
	lesson = NULL;
	hd_fault_set("");
	hd_test_rmtree(dir);
}

/* Verify the lesson into db with the real backend (on the fake GPU). */
static int
verify(const char *db, struct hd_err *e)
{
	const struct hd_lesson *ls[1] = { lesson };
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_buf out;
	int rc;

	memset(&o, 0, sizeof o);
	o.measured = &hd_real_backend;
	o.profile = &h100;
	o.db_path = db;
	o.warmup = 1;
	o.repeats = 1;
	o.width = 100;
	hd_buf_init(&out);
	rc = hd_verify_lessons(ls, 1, &o, &out, &res, e);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	return rc;
}

/* What a database must hold: n whole pairs, nothing else, intact. */
static void
holds_pairs(const char *db, int n)
{
	struct hd_err e = { 0 };
	struct hd_store *s = hd_store_open(db, HD_STORE_RO, &e);

	ck_assert_msg(s != NULL, "%s", e.msg);
	ck_assert_msg(hd_store_check(s, &e) == 0, "%s", e.msg);
	hd_store_close(s);
	ck_assert_int_eq(hd_test_count(db, "SELECT count(*) FROM runs"), 2 * n);
	ck_assert_int_eq(
	    hd_test_count(db,
			  "SELECT count(*) FROM runs WHERE source = 'measured' AND"
			  " pair_run IN (SELECT id FROM runs WHERE source = 'predicted')"),
	    n);
	ck_assert_int_eq(hd_test_count(db,
				       "SELECT count(*) FROM runs r WHERE NOT EXISTS"
				       " (SELECT 1 FROM spans WHERE run_id = r.id)"),
			 0);
}

START_TEST(a_clean_run_makes_every_kind_of_call)
{
	static const char *const kinds[] = {
		"cudaGetDeviceCount",
		"cudaSetDevice",
		"cudaMalloc",
		"cudaMallocHost",
		"cudaMallocManaged",
		"cudaMemset",
		"cudaHostRegister",
		"cudaHostUnregister",
		"cudaStreamCreateWithPriority",
		"cudaEventCreate",
		"cudaEventCreateWithFlags",
		"cudaMemcpyAsync",
		"cudaMemcpy",
		"kernel launch",
		"cudaMemPrefetchAsync",
		"cudaEventRecord",
		"cudaStreamWaitEvent",
		"cudaEventQuery",
		"cudaEventSynchronize",
		"cudaStreamSynchronize",
		"cudaDeviceSynchronize",
		"cudaEventElapsedTime",
		"cudaFree",
		"cudaFreeHost",
		"cudaStreamCreateWithFlags",
		"cudaStreamBeginCapture",
		"cudaStreamEndCapture",
		"cudaGraphInstantiate",
		"cudaGraphDestroy",
		"cudaGraphLaunch",
	};
	struct hd_err e = { 0 };
	char *db = hd_xasprintf("%s/clean.db", dir);
	size_t k;
	int i, n;

	ck_assert_msg(verify(db, &e) == 0, "%s", e.msg);
	n = hd_fault_calls();
	ck_assert_int_gt(n, 40);
	ck_assert_ptr_null(hd_fault_injected());
	for (k = 0; k < HD_ARRAY_LEN(kinds); k++) {
		for (i = 1; i <= n; i++)
			if (strcmp(hd_fault_call_name(i), kinds[k]) == 0)
				break;
		ck_assert_msg(i <= n, "a clean run makes no %s call", kinds[k]);
	}
	holds_pairs(db, 1);
	free(db);
}
END_TEST

/*
 * Every checked call of a run, failed in turn.  Up to the last timing read
 * (cudaEventElapsedTime) a failure stops the run with an error naming the
 * call, and nothing of the lesson is stored.  After it only clean-up is left
 * (frees, unregistering), whose failures cannot spoil what was measured: the
 * run is stored whole.  Either way the database holds whole pairs only.
 */
START_TEST(each_call_failing_stores_nothing)
{
	struct hd_err e = { 0 };
	char *db = hd_xasprintf("%s/faults.db", dir), spec[16];
	int i, n, last_timing = 0, failed = 0, pairs = 1;

	ck_assert_msg(verify(db, &e) == 0, "%s", e.msg);
	n = hd_fault_calls();
	for (i = 1; i <= n; i++)
		if (strcmp(hd_fault_call_name(i), "cudaEventElapsedTime") == 0)
			last_timing = i;
	ck_assert_int_gt(last_timing, n / 2);
	for (i = 1; i <= n; i++) {
		char name[64];
		int rc;

		snprintf(spec, sizeof spec, "%d", i);
		ck_assert_int_eq(hd_fault_set(spec), 0);
		memset(&e, 0, sizeof e);
		rc = verify(db, &e);
		ck_assert_ptr_nonnull(hd_fault_injected());
		snprintf(name, sizeof name, "%s", hd_fault_call_name(i));
		if (rc == 0) {
			ck_assert_msg(i > last_timing, "call %d (%s) failed and the run went on", i,
				      name);
			pairs++;
		} else {
			ck_assert_msg(strstr(e.msg, name) != NULL,
				      "call %d (%s) failed, but the message does not name it: %s",
				      i, name, e.msg);
			ck_assert_msg(strstr(e.msg, "failed") != NULL, "call %d: %s", i, e.msg);
			ck_assert_int_ne(e.status, 0);
			failed++;
		}
		holds_pairs(db, pairs);
	}
	ck_assert_int_ge(failed, last_timing);
	free(db);
}
END_TEST

/* By name, as HDSIM_FAULT=NAME:N gives it: the second cudaMalloc. */
START_TEST(fault_by_name_and_from_the_environment)
{
	struct hd_err e = { 0 };
	char *db = hd_xasprintf("%s/env.db", dir);

	ck_assert_int_eq(hd_fault_set("cudaMalloc:"), -1);
	ck_assert_int_eq(hd_fault_set("0"), -1);
	ck_assert_int_eq(hd_fault_set("cudaMalloc:2"), 0);
	ck_assert_int_ne(verify(db, &e), 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "cudaMalloc("));
	ck_assert_ptr_nonnull(strstr(hd_fault_injected(), "cudaMalloc("));
	ck_assert_int_eq(hd_test_count(db, "SELECT count(*) FROM runs"), 0);

	/* NULL: $HDSIM_FAULT, as a fresh process reads it */
	ck_assert_int_eq(setenv("HDSIM_FAULT", "cudaStreamSynchronize", 1), 0);
	hd_fault_set(NULL);
	memset(&e, 0, sizeof e);
	ck_assert_int_ne(verify(db, &e), 0);
	ck_assert_ptr_nonnull(strstr(e.msg, "cudaStreamSynchronize("));
	ck_assert_int_eq(hd_test_count(db, "SELECT count(*) FROM runs"), 0);
	unsetenv("HDSIM_FAULT");
	free(db);
}
END_TEST

/*
 * The real executor runs a loop with a condition on its index as the ops it
 * was lowered to: `if i % 5 == 0: loss.item()` over 20 steps makes, in each
 * pass over the scenario (the warm-up, the timed run, the bare one), 20
 * kernel launches and a cudaMemcpy right after the 1st, 6th, 11th and 16th;
 * the measured trace holds those four reads, iterations 0 to 3 of the read.
 */
START_TEST(conditioned_loop)
{
	static const char text[] = "hdsim 1\nlesson cond\ntitle \"A conditioned loop\"\n"
				   "scenario a\n  buffer loss device 4B\n  repeat 20 as i\n"
				   "    k: kernel spin 1us\n    if i % 5 == 0\n"
				   "      r: read loss 4B\n    end\n  end\nend\n";
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, sizeof text - 1, "cond.hds", &e);
	struct hd_scenario *sc;
	struct hd_run_opts o;
	struct hd_trace *t;
	int i, n, launches = 0, reads = 0, read_op = -1;
	size_t k;
	bool iter_seen[4] = { false };

	ck_assert_msg(l != NULL, "%s", e.msg);
	sc = hd_lesson_instantiate(l, 0, NULL, &e);
	ck_assert_msg(sc != NULL, "%s", e.msg);
	for (i = 0; i < sc->nops; i++)
		if (sc->ops[i].kind == HD_OP_READ)
			read_op = i;
	ck_assert_int_ge(read_op, 0);
	memset(&o, 0, sizeof o);
	o.profile = &h100;
	o.repeats = 1;
	ck_assert_int_eq(hd_fault_set(""), 0);
	t = hd_backend_trace(&hd_real_backend, sc, &o, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	n = hd_fault_calls();
	for (i = 1; i <= n; i++) {
		const char *name = hd_fault_call_name(i);

		if (strcmp(name, "kernel launch") == 0)
			launches++;
		if (strcmp(name, "cudaMemcpy") == 0 && launches > 0) {
			/* after the launch of step 0, 5, 10 or 15 of a pass, before the next */
			ck_assert_msg((launches - 1) % 20 % 5 == 0, "a read after launch %d",
				      launches);
			reads++;
		}
	}
	ck_assert_int_ge(launches, 20);
	ck_assert_int_eq(launches % 20, 0);
	ck_assert_int_eq(reads, 4 * (launches / 20));
	for (k = 0; k < t->nspans; k++)
		if (t->spans[k].op == read_op && t->spans[k].kind == HD_SPAN_API) {
			ck_assert_uint_lt(t->spans[k].iter, 4);
			iter_seen[t->spans[k].iter] = true;
		}
	for (i = 0; i < 4; i++)
		ck_assert_msg(iter_seen[i], "no measured read of iteration %d", i);
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

static Suite *
fault_suite(void)
{
	Suite *s = suite_create("fault");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, a_clean_run_makes_every_kind_of_call);
	tcase_add_test(tc, each_call_failing_stores_nothing);
	tcase_add_test(tc, fault_by_name_and_from_the_environment);
	tcase_add_test(tc, conditioned_loop);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(fault_suite());
}
