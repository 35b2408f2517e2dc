/*
 * check_verify.c - the `hdsim --real` pipeline with a stand-in for the GPU:
 * the model under another profile "measures".  Predicted and measured runs
 * are stored in pairs, claims are checked on the measurement, scenarios that
 * need several ranks are skipped, an interruption stores nothing of its
 * lesson, and a bad database fails before anything is measured.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang/catalog.h"
#include "render/report.h"
#include "run/backends.h"
#include "run/run.h"
#include "run/verify.h"
#include "tests/testdb.h"
#include "tests/testutil.h"

static char dir[64];
static struct hd_profile stand_in; /* what the stand-in "measures" with */
static int stand_in_runs;
static volatile sig_atomic_t stop_flag;
static int interrupt_at = -1; /* interrupt the n-th measured run */
/* The stand-in's repeats: none when 0, else makespan x (1 + spread x (i -
 * 1)) for repeat i, and (with rep_bare) 0.9 of each without per-op events,
 * their median as the bare makespan, as the GPU's backend gives them. */
static double rep_spread;
static bool rep_bare;

static int
stand_in_available(struct hd_err *e)
{
	(void)e;
	return 0;
}

static int
stand_in_run(const struct hd_scenario *sc, const struct hd_run_opts *o, const struct hd_sink *sink,
	     struct hd_err *e)
{
	struct hd_run_opts mine = *o;

	if (stand_in_runs++ == interrupt_at) {
		stop_flag = 1;
		hd_err_set(e, HD_EXIT_FAIL, "", "interrupted before op 0");
		return -1;
	}
	mine.profile = &stand_in;
	if (hd_sim_backend.run(sc, &mine, sink, e) != 0)
		return -1;
	if (rep_spread > 0) {
		struct hd_trace *t = hd_backend_trace(&hd_sim_backend, sc, &mine, e);
		int i;

		if (t == NULL)
			return -1;
		for (i = 0; i < o->repeats; i++) {
			hd_time ms = (hd_time)((double)t->makespan * (1 + rep_spread * (i - 1)));

			sink->repeat(sink->ctx, i, ms, rep_bare ? ms * 9 / 10 : 0);
		}
		if (rep_bare)
			sink->makespan(sink->ctx, t->makespan * 9 / 10);
		hd_trace_free(t);
	}
	return 0;
}

static const struct hd_backend_ops stand_in_backend = {
	.name = "cuda",
	.available = stand_in_available,
	.run = stand_in_run,
};

static const struct hd_store_machine machine = {
	.hostname = "testhost",
	.gpu_name = "NVIDIA A100-PCIE-40GB",
	.gpu_uuid = "GPU-1234",
	.pci_bus_id = "0000:01:00.0",
	.driver = "580.00",
	.cuda_runtime = "13.0",
	.gpu_count = 1,
	.facts_json = "{}",
};

static struct hd_catalog *cat; /* the built-in lessons */
static struct hd_profile h100; /* what predictions use */

static void
setup(void)
{
	struct hd_err e = { 0 };

	cat = hd_catalog_new();
	ck_assert_int_eq(hd_catalog_add_builtin(cat), 0);
	ck_assert_int_eq(hd_profile_resolve("h100-sxm", &h100, &e), 0);

	hd_test_mkdtemp(dir, sizeof dir, "verify");
	ck_assert_int_eq(hd_profile_resolve("a100-pcie", &stand_in, &e), 0);
	stand_in_runs = 0;
	stop_flag = 0;
	interrupt_at = -1;
	rep_spread = 0;
	rep_bare = false;
}

static void
teardown(void)
{
	hd_catalog_free(cat);
	cat = NULL;
	hd_test_rmtree(dir);
}

static void
opts(struct hd_verify_opts *o, const struct hd_profile *p, const char *db)
{
	memset(o, 0, sizeof *o);
	o->measured = &stand_in_backend;
	o->profile = p;
	o->db_path = db;
	o->machine = &machine;
	o->warmup = 1;
	o->repeats = 3;
	o->stop = &stop_flag;
	o->width = 100;
}

/* A built-in lesson by its id: the tests name lessons, not places in the list. */
static const struct hd_lesson *
lesson(const char *id)
{
	struct hd_err e = { 0 };
	int i = hd_catalog_find(cat, id, &e);

	ck_assert_msg(i >= 0, "%s", e.msg);
	return hd_catalog_get(cat, i);
}

/* A lesson from its text, parsed or the test fails with where and why. */
static struct hd_lesson *
parsed(const char *text, size_t n, const char *name)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, n, name, &e);

	ck_assert_msg(l != NULL, "%s: %s", e.where, e.msg);
	return l;
}

/* The summary splits the prediction used from the profiles alone, and
 * keeps spin-bound scenarios apart: with the measuring profile itself as
 * one of them, that one's errors are zero. */
START_TEST(summary_split_by_prediction)
{
	const struct hd_lesson *ls[2];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_err e = { 0 };
	struct hd_buf out;
	char *db = hd_xasprintf("%s/split.db", dir);
	int i, spin = 0;

	ls[0] = lesson("pinned-vs-pageable");
	ls[1] = lesson("events"); /* times spin kernels with events */
	opts(&o, &h100, db);
	o.alone[0] = &stand_in; /* what the stand-in measures with */
	o.alone[1] = &h100;
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(ls, 2, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_int_gt(res.nerrs, 0);
	for (i = 0; i < res.nerrs; i++) {
		ck_assert(fabs(res.split[HD_VPRED_BUILTIN][i]) < 1e-9);
		ck_assert(res.split[HD_VPRED_CALIBRATED][i] == res.split[HD_VPRED_USED][i]);
		ck_assert(res.split[HD_VPRED_USED][i] == res.errs[i]);
		spin += res.spin_bound[i];
	}
	ck_assert_int_gt(spin, 0);
	ck_assert_int_lt(spin, res.nerrs);
	ck_assert_ptr_nonnull(strstr(out.s, "Makespan error by prediction"));
	ck_assert_ptr_nonnull(strstr(out.s, "built-in a100-pcie alone"));
	ck_assert_ptr_nonnull(strstr(out.s, "stored calibrated profile alone, no refit"));
	ck_assert_ptr_nonnull(strstr(out.s, "Scenarios a spin kernel sets"));
	ck_assert_ptr_nonnull(strstr(out.s, "(a100-pcie alone)   error   +0.0 %"));
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	free(db);
}
END_TEST

START_TEST(pairs_stored_and_claims_checked)
{
	const struct hd_lesson *ls[3];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_err e = { 0 };
	struct hd_buf out;
	char *db = hd_xasprintf("%s/runs.db", dir);

	ls[0] = lesson("pinned-vs-pageable");
	ls[1] = lesson("two-streams");
	ls[2] = lesson("legacy-default-stream");
	opts(&o, &h100, db);
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(ls, 3, &o, &out, &res, &e) == 0, "%s", e.msg);
	/* Every scenario of the three lessons fits one GPU. */
	ck_assert_int_eq(res.scenarios_run, 9);
	ck_assert_int_eq(res.scenarios_skipped, 0);
	ck_assert_int_eq(stand_in_runs, 9);
	ck_assert_int_eq(res.runs_stored, 18);
	/* A100 measurements against H100 predictions: not the same figures. */
	ck_assert(res.worst_makespan_err > 0.05);
	ck_assert_int_eq(res.nerrs, 9);
	ck_assert(res.median_makespan_err > 0 && res.median_makespan_err <= res.worst_makespan_err);
	ck_assert_ptr_nonnull(strstr(out.s, "Makespan error over 9 scenarios: median"));
	ck_assert_int_eq(hd_test_count(db,
				       "SELECT count(*) FROM runs WHERE source = 'measured'"
				       " AND pair_run IS NOT NULL AND machine_id IS NOT NULL"),
			 9);
	ck_assert_int_eq(
	    hd_test_count(db,
			  "SELECT count(*) FROM runs r JOIN runs p ON r.pair_run = p.id"
			  " WHERE r.scenario = p.scenario AND p.source = 'predicted'"),
	    9);
	ck_assert_int_eq(
	    hd_test_count(db, "SELECT count(*) FROM claim_results"),
	    2 * (hd_lesson_nclaims(ls[0]) + hd_lesson_nclaims(ls[1]) + hd_lesson_nclaims(ls[2])));
	ck_assert_int_eq(hd_test_count(db,
				       "SELECT count(DISTINCT outcome) FROM claim_results"
				       " WHERE outcome NOT IN ('holds', 'fails', 'unchecked')"),
			 0);
	ck_assert_int_eq(res.claims_verified + res.claims_refuted + res.claims_unchecked,
			 hd_lesson_nclaims(ls[0]) + hd_lesson_nclaims(ls[1]) +
			     hd_lesson_nclaims(ls[2]));
	ck_assert_ptr_nonnull(strstr(out.s, "Claims, checked on the measurement"));
	ck_assert_ptr_nonnull(strstr(out.s, "predicted"));
	ck_assert_ptr_nonnull(strstr(out.s, "error"));
	/* Stored measured spans read back as the trace that was measured. */
	ck_assert_int_gt(hd_test_count(db,
				       "SELECT count(*) FROM spans s JOIN runs r ON s.run_id = r.id"
				       " WHERE r.source = 'measured'"),
			 9);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	free(db);
}
END_TEST

/* Every repeat of a measured run is stored, and the printout shows the
 * band (min to max of the repeats) beside the measured makespan, saying
 * whether the prediction falls inside it; the line the fidelity scripts
 * read stays as it was. */
START_TEST(repeats_stored_and_band_shown)
{
	const struct hd_lesson *ls[1];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_err e = { 0 };
	struct hd_buf out;
	char *db = hd_xasprintf("%s/band.db", dir), want[160];
	int n;

	/* measured on the predicting profile itself, 2 % apart: inside */
	ls[0] = lesson("pinned-vs-pageable");
	n = hd_lesson_nscenarios(ls[0]);
	stand_in = h100;
	rep_spread = 0.02;
	opts(&o, &h100, db);
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(ls, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(res.scenarios_run, n);
	ck_assert_int_eq(res.with_band, n);
	ck_assert_int_eq(res.in_band, n);
	ck_assert_msg(strstr(out.s, ", 3 repeats), IQR ") != NULL, "%s", out.s);
	ck_assert_msg(strstr(out.s, "the prediction is inside the band\n") != NULL, "%s", out.s);
	ck_assert_ptr_null(strstr(out.s, "outside the band"));
	snprintf(want, sizeof want,
		 "\nPredicted inside the measured band (min to max of the repeats): %d of %d "
		 "scenarios\n",
		 n, n);
	ck_assert_msg(strstr(out.s, want) != NULL, "%s", out.s);
	/* the scenario line first, as bench/gen/fidelity.py reads it, the band
	 * on the line after */
	{
		const char *l = strstr(out.s, "\n  pinned ");

		ck_assert_ptr_nonnull(l);
		l = strchr(l + 1, '\n');
		ck_assert_msg(strncmp(l, "\n      measured ", 16) == 0, "%s", l);
	}
	/* each measured run stored with its three repeats, in repeat order */
	ck_assert_int_eq(hd_test_count(db, "SELECT count(*) FROM run_repeats"), 3 * n);
	ck_assert_int_eq(hd_test_count(db,
				       "SELECT count(*) FROM run_repeats x JOIN runs r ON"
				       " r.id = x.run_id WHERE r.source = 'measured' AND"
				       " x.repeat = 1 AND x.makespan_ps = r.makespan_ps"
				       " AND x.bare_ps IS NULL"),
			 n);
	ck_assert_int_eq(hd_test_count(db,
				       "SELECT count(*) FROM run_repeats x JOIN runs r ON"
				       " r.id = x.run_id WHERE r.source = 'predicted'"),
			 0);
	hd_buf_free(&out);
	hd_verify_result_free(&res);

	/* an A100 measuring, and repeats without per-op events: the band is of
	 * those, the timed one on the line after; H100 predictions fall out */
	ck_assert_int_eq(hd_profile_resolve("a100-pcie", &stand_in, &e), 0);
	rep_bare = true;
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(ls, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(res.with_band, n);
	ck_assert_int_lt(res.in_band, n);
	ck_assert_msg(strstr(out.s, "the prediction is outside the band\n") != NULL, "%s", out.s);
	ck_assert_msg(
	    strstr(out.s, "(timed with an event around every op, as in the table below: ") != NULL,
	    "%s", out.s);
	ck_assert_msg(strstr(out.s, ", 3 repeats))\n") != NULL, "%s", out.s);
	ck_assert_int_eq(hd_test_count(db,
				       "SELECT count(*) FROM run_repeats WHERE bare_ps IS NOT"
				       " NULL AND bare_ps = makespan_ps * 9 / 10"),
			 3 * n);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	free(db);
}
END_TEST

START_TEST(interruption_stores_nothing_of_the_lesson)
{
	const struct hd_lesson *ls[2];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_err e = { 0 };
	struct hd_buf out;
	char *db = hd_xasprintf("%s/int.db", dir);

	ls[0] = lesson("pinned-vs-pageable"); /* 3 scenarios */
	ls[1] = lesson("two-streams");
	opts(&o, &h100, db);
	interrupt_at = 4; /* the second lesson's second scenario */
	hd_buf_init(&out);
	ck_assert_int_eq(hd_verify_lessons(ls, 2, &o, &out, &res, &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_INTERRUPT);
	ck_assert_ptr_nonnull(strstr(e.msg, "interrupted"));
	ck_assert_ptr_nonnull(strstr(e.msg, "not stored"));
	/* The first lesson is stored whole, the second not at all. */
	ck_assert_int_eq(hd_test_count(db, "SELECT count(*) FROM runs"), 6);
	ck_assert_int_eq(hd_test_count(db, "SELECT count(DISTINCT lesson) FROM runs"), 1);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	free(db);
}
END_TEST

/*
 * The prediction side of a verification is the lesson run of `hdsim run`: with
 * the same knobs and the same hardware, its claims come out the same, with
 * the same figures, and the knobs are stored as the run writes them.  On a
 * GPU of another kind, a claim stated `on` profiles is not checked.
 */
START_TEST(predictions_are_the_lesson_run)
{
	static const char *const verdict[] = { "unchecked", "fails", "holds" };
	const struct hd_lesson *l = lesson("pinned-vs-pageable");
	struct hd_store_machine h100_machine = machine;
	char *sets[] = { "size=64MiB" };
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_err e = { 0 };
	struct hd_buf out;
	struct hd_run r;
	char *db = hd_xasprintf("%s/same.db", dir), *params, *sql, *line;
	int i;

	h100_machine.gpu_name = "NVIDIA H100 80GB HBM3";
	opts(&o, &h100, db);
	o.machine = &h100_machine;
	o.sets = sets;
	o.nsets = 1;
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(&l, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_msg(hd_run_lesson(&r, l, 4, &h100, &hd_sim_backend, sets, 1, &e) == 0, "%s",
		      e.msg);
	ck_assert_int_gt(r.nclaims, 1);
	for (i = 0; i < r.nclaims; i++) {
		ck_assert_int_ge(r.claims[i].status, 0);
		line = hd_xasprintf("        predicted: %s\n", r.claims[i].detail);
		ck_assert_msg(strstr(out.s, line) != NULL, "no '%s' in\n%s", line, out.s);
		free(line);
		sql = hd_xasprintf("SELECT count(*) FROM claim_results c JOIN runs p ON "
				   "c.run_id = p.id WHERE p.source = 'predicted' AND c.idx = %d "
				   "AND c.outcome = '%s' AND c.lhs = %.17g AND c.rhs = %.17g",
				   i, verdict[r.claims[i].status + 1], r.claims[i].lhs,
				   r.claims[i].rhs);
		ck_assert_int_eq(hd_test_count(db, sql), 1);
		free(sql);
	}
	params = hd_run_params_json(&r);
	ck_assert_ptr_nonnull(strstr(params, "\"size\": 67108864"));
	sql = hd_xasprintf("SELECT count(*) FROM runs WHERE params = '%s'", params);
	ck_assert_int_eq(hd_test_count(db, sql), 2 * r.nscen);
	free(sql);
	free(params);
	hd_run_free(&r);
	hd_verify_result_free(&res);
	hd_buf_free(&out);

	/* an A100 is not what the second claim speaks of */
	ck_assert_ptr_nonnull(strstr(hd_lesson_claim(l, 1)->text, "PCIe Gen5"));
	free(db);
	db = hd_xasprintf("%s/a100.db", dir);
	opts(&o, &h100, db);
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(&l, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_ptr_nonnull(strstr(out.s, "    [not checked] On a PCIe Gen5 machine"));
	ck_assert_ptr_nonnull(strstr(out.s,
				     "measured:  not checked: it is stated for profile "
				     "h100-sxm, h200-sxm\n"));
	ck_assert_int_ge(res.claims_unchecked, 1);
	hd_verify_result_free(&res);
	hd_buf_free(&out);
	free(db);
}
END_TEST

START_TEST(bad_database_fails_before_measuring)
{
	const struct hd_lesson *ls[1];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_err e = { 0 };
	struct hd_buf out;

	ls[0] = lesson("pinned-vs-pageable");
	opts(&o, &h100, dir); /* a folder, not a database */
	hd_buf_init(&out);
	ck_assert_int_eq(hd_verify_lessons(ls, 1, &o, &out, &res, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "folder"));
	ck_assert_int_eq(stand_in_runs, 0);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
}
END_TEST

START_TEST(rank_scenarios_are_skipped)
{
	static const char text[] =
	    "hdsim 1\nlesson mixed\ntitle \"Mixed\"\n"
	    "scenario one \"one GPU\"\n  buffer d device 1MiB\n  kernel fill d\n  sync device\nend\n"
	    "scenario two \"two ranks\"\n  ranks 2\n  buffer d device 1MiB\n"
	    "  allreduce d\n  sync device\nend\n";
	struct hd_lesson *l;
	const struct hd_lesson *ls[1];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_err e = { 0 };
	struct hd_buf out;
	char *db = hd_xasprintf("%s/r.db", dir);

	l = parsed(text, sizeof text - 1, "mixed.hds");
	ls[0] = l;
	opts(&o, &h100, db);
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(ls, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(res.scenarios_run, 1);
	ck_assert_int_eq(res.scenarios_skipped, 1);
	ck_assert_ptr_nonnull(strstr(out.s, "scenario two needs 2 GPUs, one process per rank"));
	ck_assert_ptr_nonnull(strstr(out.s, "Skipped on this machine (1):\n  mixed/two: needs 2"));
	ck_assert_int_eq(hd_test_count(db, "SELECT count(*) FROM runs"), 2);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	hd_lesson_free(l);
	free(db);
}
END_TEST

/* The summary says what share of the profile's FP32 rate the long compute
 * kernels reached, and warns when the GPU ran them slower: measured here
 * with the predicting profile at 80 % of its rate, then at its rate. */
START_TEST(long_kernels_rate)
{
	static const char text[] =
	    "hdsim 1\nlesson long\ntitle \"Long\"\n"
	    "scenario one \"one GPU\"\n  buffer d device 1MiB\n"
	    "  kernel compute 500GFLOP\n  kernel compute 1GFLOP\n  sync device\nend\n";
	static const char loop[] = "hdsim 1\nlesson loop\ntitle \"Loop\"\n"
				   "scenario one \"one GPU\"\n  buffer d device 1MiB\n"
				   "  buffer h pageable 1MiB\n  buffer m managed 4KiB\n  repeat 8\n"
				   "    kernel compute 40GFLOP\n    copy d -> h\n  end\n"
				   "  repeat 1000\n    prefetch m to device\n  end\nend\n";
	struct hd_lesson *l;
	const struct hd_lesson *ls[1];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_err e = { 0 };
	struct hd_buf out;
	char *db = hd_xasprintf("%s/long.db", dir);
	const char *line;
	int pass;

	/* h100-sxm at a rate of its own, so that the times below stay put when
	 * the built-in figure moves */
	struct hd_profile fixed = h100;

	fixed.flops = 52.17e12;
	l = parsed(text, sizeof text - 1, "long.hds");
	ls[0] = l;
	for (pass = 0; pass < 2; pass++) {
		stand_in = fixed;
		if (pass == 0)
			stand_in.flops *= 0.8;
		opts(&o, &fixed, db);
		hd_buf_init(&out);
		ck_assert_msg(hd_verify_lessons(ls, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
		/* the 500 GFLOP kernel alone: the 1 GFLOP one is short */
		ck_assert_int_eq(res.long_kernels, 1);
		line = strstr(out.s,
			      pass == 0 ?
				  "\nCompute kernels predicted at 5.00 ms or more: 1, at 80 % of "
				  "the profile's FP32 rate\n  (9.59 ms predicted, 12.0 ms "
				  "measured)\n" :
				  "\nCompute kernels predicted at 5.00 ms or more: 1, at 100 % of "
				  "the profile's FP32 rate\n  (9.59 ms predicted, 9.59 ms "
				  "measured)\n");
		ck_assert_msg(line != NULL, "%s", out.s);
		if (pass == 0)
			ck_assert_ptr_nonnull(strstr(line, "slower than the profile's gpu.fp32"));
		else
			ck_assert_ptr_null(strstr(out.s, "slower than the profile's gpu.fp32"));
		hd_buf_free(&out);
		hd_verify_result_free(&res);
	}
	/* no long kernel, no line */
	opts(&o, &h100, db);
	hd_buf_init(&out);
	ck_assert_msg(
	    hd_verify_lessons((const struct hd_lesson *const[]){ lesson("pinned-vs-pageable") }, 1,
			      &o, &out, &res, &e) == 0,
	    "%s", e.msg);
	ck_assert_int_eq(res.long_kernels, 0);
	ck_assert_ptr_null(strstr(out.s, "Compute kernels predicted at"));
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	hd_lesson_free(l);
	/* a kernel in a loop: its times run from its first start to its last
	 * end, across the host's work between, so they say nothing of its rate:
	 * the table marks it, the summary leaves it out */
	l = parsed(loop, sizeof loop - 1, "loop.hds");
	ls[0] = l;
	stand_in = fixed;
	opts(&o, &fixed, db);
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(ls, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(res.long_kernels, 0);
	ck_assert_ptr_null(strstr(out.s, "Compute kernels predicted at"));
	ck_assert_msg(strstr(out.s, " cudaLaunchKernel x8 ") != NULL, "%s", out.s);
	ck_assert_msg(strstr(out.s, " cudaMemcpy x8 ") != NULL, "%s", out.s);
	/* a long call's name gives way to the count */
	ck_assert_msg(strstr(out.s, " cudaMemPrefetchAsy x1000 ") != NULL, "%s", out.s);
	ck_assert_msg(strstr(out.s,
			     "(xN: the op ran N times; its times run from its first start "
			     "to its last end)\n") != NULL,
		      "%s", out.s);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	hd_lesson_free(l);
	free(db);
}
END_TEST

START_TEST(one_scenario_only)
{
	const struct hd_lesson *ls[1];
	struct hd_verify_opts o;
	struct hd_verify_result res;
	struct hd_err e = { 0 };
	struct hd_buf out;
	char *db = hd_xasprintf("%s/one.db", dir);

	ls[0] = lesson("pinned-vs-pageable");
	opts(&o, &h100, db);
	o.scenario = "pin-first";
	hd_buf_init(&out);
	ck_assert_msg(hd_verify_lessons(ls, 1, &o, &out, &res, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(res.scenarios_run, 1);
	ck_assert_int_eq(stand_in_runs, 1);
	ck_assert_ptr_nonnull(strstr(out.s, "pin-first"));
	/* Claims naming scenarios that did not run are not checked, not refuted. */
	ck_assert_int_eq(res.claims_refuted, 0);
	ck_assert_int_gt(res.claims_unchecked, 0);
	ck_assert_int_eq(hd_test_count(db, "SELECT count(*) FROM runs"), 2);
	hd_buf_free(&out);
	hd_verify_result_free(&res);
	free(db);
}
END_TEST

START_TEST(profile_choice)
{
	struct hd_profile p, mine;
	struct hd_err e = { 0 };
	char why[512], *path, *text;
	FILE *f;

	setenv("XDG_DATA_HOME", dir, 1);
	hd_verify_pick_profile("NVIDIA H200", &p, why, sizeof why);
	ck_assert_str_eq(p.name, "h200-sxm");
	ck_assert_ptr_nonnull(strstr(why, "built-in"));
	hd_verify_pick_profile("Tesla K80", &p, why, sizeof why);
	ck_assert_str_eq(p.name, "h100-sxm");
	ck_assert_ptr_nonnull(strstr(why, "default"));

	/* A calibrated profile for this GPU wins over the built-in. */
	path = hd_xasprintf("%s/hdsim", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	free(path);
	path = hd_xasprintf("%s/hdsim/profiles", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	free(path);
	ck_assert_int_eq(hd_profile_resolve("h100-sxm", &mine, &e), 0);
	snprintf(mine.name, sizeof mine.name, "calibrated-test");
	snprintf(mine.gpu_name, sizeof mine.gpu_name, "NVIDIA H100 80GB HBM3");
	mine.h2d_bw = 51.5e9;
	text = hd_profile_format(&mine);
	path = hd_xasprintf("%s/hdsim/profiles/calibrated-test.hdp", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	hd_verify_pick_profile("NVIDIA H100 80GB HBM3", &p, why, sizeof why);
	ck_assert_str_eq(p.name, "calibrated-test");
	ck_assert(p.h2d_bw == 51.5e9);
	ck_assert_ptr_nonnull(strstr(why, "calibrated"));
	unsetenv("XDG_DATA_HOME");
	free(text);
	free(path);
}
END_TEST

/* algBw and busBw as nccl-tests: the slowest rank's mean time per execution. */
START_TEST(collective_bandwidths)
{
	static const char text[] =
	    "hdsim 1\nlesson bw\ntitle \"Bw\"\n"
	    "scenario four \"four ranks\"\n  ranks 4\n  buffer d device 1MB\n"
	    "  sum: allreduce d\n  gat: allgather d\n  sync device\nend\n";
	struct hd_err e = { 0 };
	struct hd_lesson *l = parsed(text, sizeof text - 1, "bw.hds");
	struct hd_scenario *sc;
	struct hd_trace *t = hd_trace_new();
	double alg = 0, bus = 0;
	int r, k, sum = -1, gat = -1;

	sc = hd_lesson_instantiate(l, 0, NULL, &e);
	ck_assert_msg(sc != NULL, "%s", e.msg);
	for (k = 0; k < sc->nops; k++) {
		if (sc->ops[k].label && strcmp(sc->ops[k].label, "sum") == 0)
			sum = k;
		if (sc->ops[k].label && strcmp(sc->ops[k].label, "gat") == 0)
			gat = k;
	}
	ck_assert_int_ge(sum, 0);
	ck_assert_int_ge(gat, 0);
	/* Rank r's all-reduce takes (r + 1) * 10 us, twice; rank 3's are the slowest. */
	for (r = 0; r < 4; r++) {
		int lane = hd_trace_lane(t, HD_LANE_STREAM, r, 0, "Stream 0 (default)");

		for (k = 0; k < 2; k++) {
			struct hd_span s = { .lane = lane,
					     .op = sum,
					     .iter = (uint32_t)k,
					     .kind = HD_SPAN_COMM,
					     .label = -1 };

			s.start = k * 100 * HD_US;
			s.end = s.start + (r + 1) * 10 * HD_US;
			hd_trace_add(t, &s);
		}
	}
	ck_assert_int_eq(hd_run_coll_bw(sc, sum, t, &alg, &bus), 0);
	ck_assert_double_eq_tol(alg, 1e6 / 40e-6, 1); /* 25 GB/s */
	ck_assert_double_eq_tol(bus, 2.0 * 3 / 4 * 1e6 / 40e-6, 1);
	ck_assert_int_eq(hd_run_coll_bw(sc, gat, t, &alg, &bus), -1); /* no spans */
	ck_assert_int_eq(hd_run_coll_bw(sc, 99, t, &alg, &bus), -1);
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

static Suite *
verify_suite(void)
{
	Suite *s = suite_create("verify");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, pairs_stored_and_claims_checked);
	tcase_add_test(tc, repeats_stored_and_band_shown);
	tcase_add_test(tc, summary_split_by_prediction);
	tcase_add_test(tc, interruption_stores_nothing_of_the_lesson);
	tcase_add_test(tc, predictions_are_the_lesson_run);
	tcase_add_test(tc, bad_database_fails_before_measuring);
	tcase_add_test(tc, rank_scenarios_are_skipped);
	tcase_add_test(tc, one_scenario_only);
	tcase_add_test(tc, long_kernels_rate);
	tcase_add_test(tc, profile_choice);
	tcase_add_test(tc, collective_bandwidths);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return hd_test_run(verify_suite());
}
