/*
 * check_realstream.c - which stream the real backend's synchronous copies
 * and reads use, against the fake GPU of tests/fake_cuda.c: cudaMemcpy on
 * the legacy default stream, or after `default-stream per-thread` the
 * per-thread one, as a program built with nvcc --default-stream per-thread
 * calls it (cudaMemcpy_ptds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/backend.h"
#include "ir/trace.h"
#include "lang/lesson.h"
#include "real/real.h"
#include "run/backends.h"
#include "tests/fake_cuda.h"
#include "tests/testutil.h"

/* A sync copy and a read, with the default stream `def`, run on the fake
 * GPU (one warm-up, two repeats): the trace. */
static struct hd_trace *
measure(const char *def)
{
	char text[512];
	struct hd_err e = { 0 };
	struct hd_lesson *l;
	struct hd_run_opts o;
	struct hd_scenario *sc;
	struct hd_trace *t;

	snprintf(text, sizeof text,
		 "hdsim 1\nlesson c\ntitle \"T\"\n"
		 "scenario c\n"
		 "  default-stream %s\n"
		 "  buffer h pinned 4KiB\n"
		 "  buffer d device 4KiB\n"
		 "  copy d -> h\n"
		 "  read d\n"
		 "end\n",
		 def);
	l = hd_lesson_parse(text, strlen(text), "c.hds", &e);
	ck_assert_msg(l != NULL, "%s", e.msg);
	sc = hd_lesson_instantiate(l, 0, NULL, &e);
	ck_assert_msg(sc != NULL, "%s", e.msg);
	hd_lesson_free(l);
	memset(&o, 0, sizeof o);
	o.warmup = 1;
	o.repeats = 2;
	t = hd_backend_trace(&hd_real_backend, sc, &o, &e);
	ck_assert_msg(t != NULL, "%s", e.msg);
	hd_scenario_free(sc);
	return t;
}

START_TEST(legacy_copies_use_cudamemcpy)
{
	fake_cuda_ptds = 0;
	hd_trace_free(measure("legacy"));
	ck_assert_int_eq(fake_cuda_ptds, 0);
}
END_TEST

START_TEST(per_thread_copies_use_the_per_thread_stream)
{
	int runs;

	fake_cuda_ptds = 0;
	hd_trace_free(measure("per-thread"));
	/* the copy and the read in every run of the op list: the warm-up, the
	 * timed repeats and the bare ones, whatever their number */
	runs = fake_cuda_ptds / 2;
	ck_assert_msg(runs >= 3 && fake_cuda_ptds == 2 * runs, "%d cudaMemcpy_ptds calls",
		      fake_cuda_ptds);
}
END_TEST

static Suite *
realstream_suite(void)
{
	Suite *s = suite_create("realstream");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, legacy_copies_use_cudamemcpy);
	tcase_add_test(tc, per_thread_copies_use_the_per_thread_stream);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(realstream_suite());
}
