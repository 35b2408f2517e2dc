/*
 * fuzz_lesson.c - libFuzzer target for the lesson language: parse any bytes
 * as a lesson file, instantiate (lower to the IR) every scenario with the
 * default knob values, and run the small ones on the model (at most 2000
 * op executions on each of at most 8 ranks) and check every claim on them.
 *
 * A crash, a sanitizer report, a hang (-timeout) or a memory blow-up
 * (-rss_limit_mb) is a bug; a rejected input is not, but a rejection must
 * say what was wrong.  Built and run by tests/fuzz/run.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/util.h"
#include "ir/ir.h"
#include "ir/trace.h"
#include "lang/lesson.h"
#include "profile/profile.h"
#include "sim/model.h"

#define SMALL_EXECS 2000
#define SMALL_RANKS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
run_small(const struct hd_scenario *sc, struct hd_trace **out)
{
	struct hd_err e = { 0 };
	struct hd_trace *t;
	struct hd_sink sink;
	int r;

	if (sc->nranks > SMALL_RANKS)
		return;
	for (r = 0; r < (sc->nranks > 0 ? sc->nranks : 1); r++)
		if (hd_scenario_op_instances(sc, r) > SMALL_EXECS)
			return;
	t = hd_trace_new();
	sink = hd_trace_sink(t);
	if (hd_model_run(sc, hd_profile_builtin(0), &sink, NULL, NULL, &e) != 0) {
		if (!e.set || e.msg[0] == '\0')
			__builtin_trap();
		hd_trace_free(t);
		return;
	}
	*out = t;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l;
	struct hd_trace **traces;
	int i, n;

	l = hd_lesson_parse((const char *)data, size, "fuzz.hds", &e);
	if (l == NULL) {
		/* a rejection must say what and where */
		if (!e.set || e.msg[0] == '\0')
			__builtin_trap();
		return 0;
	}
	n = hd_lesson_nscenarios(l);
	traces = calloc((size_t)n + 1, sizeof *traces);
	for (i = 0; i < n && traces != NULL; i++) {
		struct hd_err ie = { 0 };
		struct hd_scenario *sc = hd_lesson_instantiate(l, i, NULL, &ie);

		if (sc == NULL && (!ie.set || ie.msg[0] == '\0'))
			__builtin_trap();
		if (sc != NULL)
			run_small(sc, &traces[i]);
		hd_scenario_free(sc);
	}
	for (i = 0; i < hd_lesson_nclaims(l) && traces != NULL; i++) {
		struct hd_err ce = { 0 };
		double lhs, rhs;
		char detail[256];

		if (hd_lesson_claim_eval(l, i, NULL, traces, &lhs, &rhs, detail, sizeof detail,
					 &ce) < 0 &&
		    (!ce.set || ce.msg[0] == '\0'))
			__builtin_trap();
	}
	for (i = 0; i < n && traces != NULL; i++)
		hd_trace_free(traces[i]);
	free(traces);
	hd_lesson_free(l);
	return 0;
}
