/*
 * seed_measured.c - a test program that stores a "measured" run without a
 * GPU, so the lesson browser's `m` (measured beside predicted) can be
 * tested: it simulates a lesson's scenario on another profile and stores
 * that trace as a measured run of a made-up machine, with five repeats
 * about its makespan (0.97 to 1.05 of it).  With a fifth argument it first
 * stores the scenario's prediction on that profile and pairs the two, as
 * 'hdsim --real' does (what the report's summary plots).
 *
 *   seed_measured DB LESSON_FILE SCENARIO PROFILE [PREDICTED_PROFILE]
 */
#include <stdio.h>
#include <string.h>

#include "ir/backend.h"
#include "lang/lesson.h"
#include "run/backends.h"
#include "store/store.h"

/* Store scenario sc of l predicted on profile name: its run id in *id. */
static int
predict(struct hd_store *s, const struct hd_lesson *l, const struct hd_scenario *sc,
	const char *scenario, const char *name, int64_t *id, struct hd_err *e)
{
	struct hd_store_run r = { .backend = "sim",
				  .source = "predicted",
				  .status = "ok",
				  .repeats = 1,
				  .timer = "model" };
	struct hd_profile p;
	struct hd_run_opts o;
	struct hd_trace *t;
	int rc;

	if (hd_profile_resolve(name, &p, e) < 0)
		return -1;
	memset(&o, 0, sizeof o);
	o.profile = &p;
	if ((t = hd_backend_trace(&hd_sim_backend, sc, &o, e)) == NULL)
		return -1;
	r.lesson = hd_lesson_id(l);
	r.scenario = scenario;
	r.profile_name = p.name;
	r.profile_text = "hdsim-profile 1\n";
	rc = hd_store_run_insert(s, &r, t, NULL, 0, id, e);
	hd_trace_free(t);
	return rc;
}

int
main(int argc, char **argv)
{
	struct hd_err e = { 0 };
	struct hd_store_machine mach = { .hostname = "test-host",
					 .gpu_name = "Test GPU",
					 .gpu_uuid = "GPU-test",
					 .pci_bus_id = "0000:00:00.0",
					 .driver = "0",
					 .cuda_runtime = "0",
					 .nccl = "",
					 .gpu_count = 1,
					 .facts_json = "{}" };
	struct hd_store_run r = { .backend = "cuda",
				  .source = "measured",
				  .status = "ok",
				  .warmup = 1,
				  .repeats = 5,
				  .timer = "cuda-events",
				  .machine = &mach };
	struct hd_lesson *l = NULL;
	struct hd_scenario *sc = NULL;
	struct hd_trace *t = NULL;
	struct hd_store *s = NULL;
	struct hd_profile p;
	struct hd_run_opts o;
	static const double spread[5] = { 0.97, 1.02, 1.0, 1.05, 0.99 };
	hd_time reps[5], bare[5];
	int64_t id;
	int i, rc = 1;

	if (argc != 5 && argc != 6) {
		fprintf(
		    stderr,
		    "usage: seed_measured DB LESSON_FILE SCENARIO PROFILE [PREDICTED_PROFILE]\n");
		return 2;
	}
	if ((l = hd_lesson_load(argv[2], &e)) == NULL)
		goto out;
	if ((i = hd_lesson_find_scenario(l, argv[3])) < 0) {
		hd_err_set(&e, 2, argv[3], "no such scenario");
		goto out;
	}
	if (hd_profile_resolve(argv[4], &p, &e) < 0 ||
	    (sc = hd_lesson_instantiate(l, i, NULL, &e)) == NULL)
		goto out;
	memset(&o, 0, sizeof o);
	o.profile = &p;
	if ((t = hd_backend_trace(&hd_sim_backend, sc, &o, &e)) == NULL)
		goto out;
	if ((s = hd_store_open(argv[1], HD_STORE_RW, &e)) == NULL)
		goto out;
	if (argc == 6 && predict(s, l, sc, argv[3], argv[5], &r.pair_run, &e) != 0)
		goto out;
	r.lesson = hd_lesson_id(l);
	r.scenario = argv[3];
	r.profile_name = p.name;
	r.profile_text = "hdsim-profile 1\n";
	/* five repeats about the makespan (their median), and the repeats
	 * without per-op events 5 % below them, as the GPU's backend keeps */
	for (i = 0; i < 5; i++) {
		reps[i] = (hd_time)((double)t->makespan * spread[i]);
		bare[i] = (hd_time)((double)reps[i] * 0.95);
	}
	r.rep_makespan = reps;
	r.rep_bare = bare;
	r.nrep = 5;
	if (hd_store_run_insert(s, &r, t, NULL, 0, &id, &e) != 0)
		goto out;
	printf("%lld\n", (long long)id);
	rc = 0;
out:
	if (rc != 0)
		hd_err_print(&e, stderr);
	hd_store_close(s);
	hd_trace_free(t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
	return rc;
}
