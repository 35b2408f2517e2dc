/*
 * verify.c - `hdsim --real`: predicted and measured, side by side (verify.h).
 *
 * A lesson is verified whole: its scenarios are predicted and measured, its
 * claims checked on both, and only then stored, one transaction per run, the
 * claims with the lesson's last run, each measured run with every repeat's
 * makespan; the printout shows the measured makespan with its band (min to
 * max over the repeats) and whether the prediction falls inside it.  An
 * interruption therefore leaves the database with whole lessons only; a
 * lesson cut short is not stored.
 */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/band.h"
#include "base/paths.h"
#include "lang/opname.h"
#include "run/backends.h"
#include "run/run.h"
#include "run/verify.h"

/* ---- which profile predicts ------------------------------------------------ */

char *
hd_verify_profile_dir(void)
{
	return hd_paths_data("profiles");
}

/* Built-ins by a distinctive part of the GPU's marketing name. */
static const struct {
	const char *token;
	const char *profile;
} gpu_tokens[] = {
	{ "H200", "h200-sxm" }, { "H100", "h100-sxm" },  { "A100", "a100-pcie" },
	{ "4090", "rtx4090" },  { "V100", "gen3-v100" },
};

/* The built-in profile whose GPU gpu_name names, or NULL. */
static const char *
gpu_builtin(const char *gpu_name)
{
	size_t i;

	for (i = 0; gpu_name != NULL && i < HD_ARRAY_LEN(gpu_tokens); i++)
		if (strstr(gpu_name, gpu_tokens[i].token) != NULL)
			return gpu_tokens[i].profile;
	return NULL;
}

const char *
hd_verify_builtin_for_gpu(const char *gpu_name)
{
	const char *p = gpu_builtin(gpu_name);

	return p != NULL ? p : hd_profile_builtin(0)->name;
}

/* The built-in profile of the measured GPU's kind, for claims stated `on`
 * profiles; NULL when it is like none of them. */
static const char *
machine_builtin(const struct hd_verify_opts *o)
{
	return gpu_builtin(o->machine != NULL ? o->machine->gpu_name : NULL);
}

static int
calibrated_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hd_verify_calibrated *)a)->profile.name,
		      ((const struct hd_verify_calibrated *)b)->profile.name);
}

int
hd_verify_calibrated_profiles(struct hd_verify_calibrated **out)
{
	char *dir = hd_verify_profile_dir();
	DIR *d = dir != NULL ? opendir(dir) : NULL;
	struct hd_verify_calibrated *v = NULL;
	struct dirent *de;
	size_t n = 0, cap = 0;

	while (d != NULL && (de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		struct hd_err e = { 0 };
		struct stat st;
		char *path;

		if (len < 5 || strcmp(de->d_name + len - 4, ".hdp") != 0)
			continue;
		path = hd_xasprintf("%s/%s", dir, de->d_name);
		v = hd_xgrow(v, &cap, n + 1, sizeof *v);
		if (stat(path, &st) == 0 && hd_profile_resolve(path, &v[n].profile, &e) == 0) {
			v[n].mtime = st.st_mtime;
			n++;
		}
		free(path);
	}
	if (d != NULL)
		closedir(d);
	free(dir);
	if (n > 1)
		qsort(v, n, sizeof *v, calibrated_cmp);
	if (n == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	return (int)n;
}

int
hd_verify_pick_profile(const char *gpu_name, struct hd_profile *out, char *why, size_t n)
{
	struct hd_verify_calibrated *cal = NULL;
	int ncal = gpu_name ? hd_verify_calibrated_profiles(&cal) : 0, i, best = -1;

	for (i = 0; i < ncal; i++)
		if (strcasecmp(cal[i].profile.gpu_name, gpu_name) == 0 &&
		    (best < 0 || cal[i].mtime > cal[best].mtime))
			best = i;
	if (best >= 0) {
		char *dir = hd_verify_profile_dir();

		*out = cal[best].profile;
		snprintf(why, n, "calibrated on this GPU (%s in %s)", out->name,
			 dir != NULL ? dir : "the data folder");
		free(dir);
		free(cal);
		return 1;
	}
	free(cal);
	{
		const char *name = hd_verify_builtin_for_gpu(gpu_name);
		struct hd_err e = { 0 };

		hd_profile_resolve(name, out, &e);
		if (gpu_builtin(gpu_name) != NULL) {
			snprintf(why, n,
				 "built-in profile closest to %s (no calibrated "
				 "profile; run 'hdsim calibrate')",
				 gpu_name);
			return 0;
		}
	}
	snprintf(why, n,
		 "the default built-in profile (no profile matches %s; run "
		 "'hdsim calibrate')",
		 gpu_name ? gpu_name : "this GPU");
	return 0;
}

/* ---- one lesson ----------------------------------------------------------------- */

/* A lesson verified: the prediction is a run of it on the simulator (its
 * knobs, scenarios, predicted traces), measured traces beside it. */
struct lesson_run {
	struct hd_run pred;
	struct hd_trace **meas; /* [pred.nscen] */
	int *skipped;           /* [pred.nscen] */
};

static void
lesson_run_free(struct lesson_run *lr)
{
	int i;

	for (i = 0; lr->meas != NULL && i < lr->pred.nscen; i++)
		hd_trace_free(lr->meas[i]);
	free(lr->meas);
	free(lr->skipped);
	hd_run_free(&lr->pred);
}

static void
progress(const struct hd_verify_opts *o, int done, int total, const char *lesson, const char *scen,
	 const char *what)
{
	int width = 30, fill = total > 0 ? done * width / total : width, i;

	if (o->progress == NULL)
		return;
	if (o->progress_tty) {
		fputs("\r\033[K[", o->progress);
		for (i = 0; i < width; i++)
			fputc(i < fill ? '#' : '.', o->progress);
		fprintf(o->progress, "] %d/%d %s/%s: %s", done, total, lesson, scen, what);
	} else {
		fprintf(o->progress, "hdsim: [%d/%d] %s/%s: %s\n", done, total, lesson, scen, what);
	}
	fflush(o->progress);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
rel_err(double pred, double meas)
{
	return meas != 0 ? (pred - meas) / meas : 0;
}

/* A collective's algBw and busBw, predicted and measured, under its row. */
static void
put_coll_bw(struct hd_buf *b, const struct hd_scenario *sc, int op, const struct hd_trace *p,
	    const struct hd_trace *m)
{
	double pa, pb, ma, mb;

	if (hd_run_coll_bw(sc, op, p, &pa, &pb) != 0 || hd_run_coll_bw(sc, op, m, &ma, &mb) != 0)
		return;
	hd_buf_printf(b, "      %-16s %-24s %10.1f %10.1f %+7.1f%%\n", "", "algBw (GB/s)", pa / 1e9,
		      ma / 1e9, 100 * rel_err(pa, ma));
	hd_buf_printf(b, "      %-16s %-24s %10.1f %10.1f %+7.1f%%\n", "", "busBw (GB/s)", pb / 1e9,
		      mb / 1e9, 100 * rel_err(pb, mb));
}

/* Is sc's predicted length set by spin kernels (at least half of it on the
 * compute lane)?  A spin kernel runs for exactly its time, so such a
 * scenario is right by construction and its error is kept apart. */
static bool
spin_bound(const struct hd_scenario *sc, const struct hd_trace *p)
{
	hd_time spin = 0;
	size_t i;

	for (i = 0; i < p->nspans; i++) {
		const struct hd_span *s = &p->spans[i];

		if (s->kind == HD_SPAN_KERNEL && s->op >= 0 && s->op < sc->nops &&
		    sc->ops[s->op].kind == HD_OP_KERNEL &&
		    sc->ops[s->op].kernel == HD_KERNEL_SPIN && s->lane >= 0 &&
		    s->lane < p->nlanes && p->lanes[s->lane].kind == HD_LANE_COMPUTE)
			spin = hd_time_add(spin, s->end - s->start);
	}
	return p->makespan > 0 && spin * 2 >= p->makespan;
}

/* Record one scenario's errors for the summary's split. */
static void
record_split(struct hd_verify_result *res, const double err[HD_VPRED__COUNT], bool spin)
{
	size_t cap = (size_t)res->errs_cap, c2 = cap;
	int k;

	res->errs = hd_xgrow(res->errs, &cap, (size_t)res->nerrs + 1, sizeof *res->errs);
	for (k = 0; k < HD_VPRED__COUNT; k++) {
		c2 = (size_t)res->errs_cap;
		res->split[k] = hd_xgrow(res->split[k], &c2, (size_t)res->nerrs + 1,
					 sizeof *res->split[k]);
		res->split[k][res->nerrs] = err[k];
	}
	c2 = (size_t)res->errs_cap;
	res->spin_bound = hd_xgrow(res->spin_bound, &c2, (size_t)res->nerrs + 1,
				   sizeof *res->spin_bound);
	res->spin_bound[res->nerrs] = spin;
	res->errs_cap = (int)cap;
	res->errs[res->nerrs++] = err[HD_VPRED_USED];
}

/*
 * The band of the measured repeats under the measured makespan: "measured
 * 12.31 ms (band 12.10-12.58 ms, 5 repeats), IQR 200 us: the prediction is
 * outside the band", of the repeats without per-op events where the
 * makespan is theirs; nothing when the backend gave no repeats.
 */
static void
put_band(struct hd_buf *b, const struct hd_trace *p, const struct hd_trace *m,
	 struct hd_verify_result *res)
{
	const hd_time *v = m->bare > 0 && m->reps_bare != NULL ? m->reps_bare : m->reps;
	struct hd_band band;
	char text[128], iqr[32];

	if (hd_band_of(v, m->nreps, &band) != 0)
		return;
	hd_band_fmt(text, sizeof text, hd_trace_makespan(m), &band, HD_BAND_LONG);
	if (band.n < 2) {
		hd_buf_printf(b, "      measured %s\n", text);
		return;
	}
	res->with_band++;
	res->in_band += hd_band_holds(&band, p->makespan);
	hd_buf_printf(b, "      measured %s, IQR %s: the prediction is %s the band\n", text,
		      hd_fmt_time(iqr, sizeof iqr, band.iqr),
		      hd_band_holds(&band, p->makespan) ? "inside" : "outside");
}

static void
compare_scenario(struct hd_buf *b, const struct hd_verify_opts *o, const struct hd_scenario *sc,
		 const struct hd_trace *p, const struct hd_trace *m, struct hd_verify_result *res)
{
	char tp[32], tm[32], ti[128], name[64], call[48];
	hd_time meas = hd_trace_makespan(m);
	double err = rel_err((double)p->makespan, (double)meas), split[HD_VPRED__COUNT];
	struct hd_band timed;
	int i, k, looped = 0;

	/* the measured makespan is that of repeats without per-op events, when
	 * there are some: the events around every op cost the host time */
	hd_buf_printf(b, "  %-24s predicted %10s   measured %10s   error %+6.1f %%\n", sc->name,
		      hd_fmt_time(tp, sizeof tp, p->makespan), hd_fmt_time(tm, sizeof tm, meas),
		      100 * err);
	put_band(b, p, m, res);
	if (m->bare > 0 && m->reps_bare != NULL && hd_band_of(m->reps, m->nreps, &timed) == 0)
		hd_buf_printf(b,
			      "      (timed with an event around every op, as in the table "
			      "below: %s)\n",
			      hd_band_fmt(ti, sizeof ti, m->makespan, &timed, HD_BAND_LONG));
	else if (m->bare > 0)
		hd_buf_printf(b,
			      "      (timed with an event around every op, as in the table "
			      "below: %s)\n",
			      hd_fmt_time(ti, sizeof ti, m->makespan));
	if (fabs(err) > res->worst_makespan_err)
		res->worst_makespan_err = fabs(err);
	split[HD_VPRED_USED] = err;
	for (k = 0; k < 2; k++) {
		const struct hd_profile *alone = o->alone[k];
		struct hd_run_opts ro = { .profile = alone };
		struct hd_err ae = { 0 };
		struct hd_trace *t;

		split[1 + k] = NAN;
		if (alone == NULL || (t = hd_backend_trace(&hd_sim_backend, sc, &ro, &ae)) == NULL)
			continue;
		split[1 + k] = rel_err((double)t->makespan, (double)meas);
		hd_buf_printf(b, "      %-24s predicted %10s   (%s alone)   error %+6.1f %%\n",
			      k == 0 ? "built-in profile" : "calibrated, no refit",
			      hd_fmt_time(tp, sizeof tp, t->makespan), alone->name,
			      100 * split[1 + k]);
		hd_trace_free(t);
	}
	record_split(res, split, spin_bound(sc, p));
	hd_buf_printf(b, "      %-16s %-24s %10s %10s %8s\n", "op", "call", "predicted", "measured",
		      "error");
	for (i = 0; i < sc->nops; i++) {
		const struct hd_op *op = &sc->ops[i];
		struct hd_op_time a, c;

		if (op->kind == HD_OP_REPEAT || op->kind == HD_OP_ON_RANK)
			continue;
		a = hd_trace_op_time(p, i);
		c = hd_trace_op_time(m, i);
		if (!a.found || !c.found)
			continue;
		if (op->kind == HD_OP_KERNEL && op->kernel == HD_KERNEL_COMPUTE && a.execs <= 1 &&
		    c.execs <= 1 && a.end - a.start >= HD_VERIFY_LONG_KERNEL) {
			res->long_kernels++;
			res->long_pred_s += hd_time_to_s(a.end - a.start);
			res->long_meas_s += hd_time_to_s(c.end - c.start);
		}
		hd_opname(name, sizeof name, sc, i); /* its label, else its statement */
		if (a.execs > 1) {                   /* a loop's op: first start to last end */
			char n[16];
			int keep = 24 - snprintf(n, sizeof n, " x%u", a.execs);

			/* the count whole, the call's name cut to fit the column */
			snprintf(call, sizeof call, "%.*s%s", keep > 0 ? keep : 0,
				 hd_op_api_name_sc(sc, op), n);
			looped = 1;
		} else
			snprintf(call, sizeof call, "%s", hd_op_api_name_sc(sc, op));
		hd_buf_printf(b, "      %-16.16s %-24.24s %10s %10s %+7.1f%%\n", name, call,
			      hd_fmt_time(tp, sizeof tp, a.end - a.start),
			      hd_fmt_time(tm, sizeof tm, c.end - c.start),
			      100 * rel_err((double)(a.end - a.start), (double)(c.end - c.start)));
		put_coll_bw(b, sc, i, p, m);
	}
	if (looped)
		hd_buf_puts(b,
			    "      (xN: the op ran N times; its times run from its first start to "
			    "its last end)\n");
}

static int
store_lesson(struct hd_store *st, const struct lesson_run *lr, const struct hd_verify_opts *o,
	     const struct hd_claim_result *pres, const struct hd_claim_result *mres,
	     struct hd_verify_result *res, struct hd_err *e)
{
	const struct hd_lesson *l = lr->pred.lesson;
	char *params = hd_run_params_json(&lr->pred);
	char *ptext = hd_profile_format(o->profile);
	struct hd_store_claim *pclaims = hd_run_store_claims(l, pres);
	struct hd_store_claim *mclaims = hd_run_store_claims(l, mres);
	char note[96];
	int i, last = -1, rc = -1, nclaims = hd_lesson_nclaims(l);

	for (i = 0; i < lr->pred.nscen; i++)
		if (!lr->skipped[i])
			last = i;
	for (i = 0; i < lr->pred.nscen; i++) {
		struct hd_store_run r = {
			.lesson = hd_lesson_id(l),
			.params_json = params,
			.profile_name = o->profile->name,
			.profile_text = ptext,
			.status = "ok",
		};
		int64_t pid = 0;

		if (lr->skipped[i])
			continue;
		r.scenario = lr->pred.sc[i]->name;
		r.backend = "sim";
		r.source = "predicted";
		r.timer = "model";
		r.repeats = 1;
		if (hd_store_run_insert(st, &r, lr->pred.traces[i], i == last ? pclaims : NULL,
					i == last ? nclaims : 0, &pid, e) != 0)
			goto out;
		r.backend = o->measured->name;
		r.source = "measured";
		r.timer = "cuda-events+host-clock";
		r.machine = o->machine;
		r.pair_run = pid;
		r.warmup = o->warmup;
		/* as many as the backend ran, each one's makespan kept */
		r.repeats = lr->meas[i]->nreps > 0 ? lr->meas[i]->nreps : o->repeats;
		r.rep_makespan = lr->meas[i]->reps;
		r.rep_bare = lr->meas[i]->reps_bare;
		r.nrep = lr->meas[i]->nreps;
		note[0] = '\0';
		if (lr->meas[i]->bare > 0)
			snprintf(note, sizeof note,
				 "makespan without per-op events: %" PRId64 " ps",
				 lr->meas[i]->bare);
		r.note = note[0] ? note : NULL;
		if (hd_store_run_insert(st, &r, lr->meas[i], i == last ? mclaims : NULL,
					i == last ? nclaims : 0, NULL, e) != 0)
			goto out;
		res->runs_stored += 2;
	}
	rc = 0;
out:
	free(params);
	free(ptext);
	free(pclaims);
	free(mclaims);
	return rc;
}

/* Whether the measuring backend can run sc here; `why` says what it needs. */
static int
scenario_fits(const struct hd_backend_ops *b, const struct hd_scenario *sc, char *why, size_t n)
{
	if (sc->expect_deadlock) {
		/* on GPUs it would hang until the watchdog ends every rank */
		snprintf(why, n,
			 "deadlocks on purpose (the simulator shows where); not "
			 "run on GPUs");
		return 0;
	}
	if (b->fits != NULL)
		return b->fits(sc, why, n);
	if (sc->nranks <= 1)
		return 1;
	snprintf(why, n,
		 "needs %d GPUs, one process per rank, which the %s backend does not "
		 "start",
		 sc->nranks, b->name);
	return 0;
}

static int
verify_lesson(const struct hd_lesson *l, const struct hd_verify_opts *o, struct hd_store *st,
	      int *done, int total, struct hd_buf *b, struct hd_verify_result *res,
	      struct hd_err *e)
{
	static const char *const verdict[] = { "not checked", "refuted", "verified" };
	struct lesson_run lr = { .meas = NULL };
	struct hd_run_opts ro = { .profile = o->profile,
				  .warmup = o->warmup,
				  .repeats = o->repeats,
				  .stop = (volatile int *)o->stop };
	struct hd_claim_result *pres = NULL, *mres = NULL;
	struct hd_run_tally pt = { 0 }, mt = { 0 };
	const char *hw = machine_builtin(o);
	char why[512];
	int i, rc = -1;

	if (hd_run_begin(&lr.pred, l, 0, o->profile, &hd_sim_backend, o->sets, o->nsets, e) != 0)
		goto out;
	lr.meas = hd_xcalloc((size_t)lr.pred.nscen + 1, sizeof *lr.meas);
	lr.skipped = hd_xcalloc((size_t)lr.pred.nscen + 1, sizeof *lr.skipped);
	hd_buf_printf(b, "Lesson %s: %s\n", hd_lesson_id(l), hd_lesson_title(l));
	for (i = 0; i < lr.pred.nscen; i++) {
		const char *name = hd_lesson_scenario_name(l, i);
		struct hd_scenario *sc;

		if (o->scenario != NULL && strcmp(o->scenario, name) != 0) {
			lr.skipped[i] = 1;
			continue;
		}
		if (hd_run_instantiate(&lr.pred, i, e) != 0)
			goto out;
		sc = lr.pred.sc[i];
		if (!scenario_fits(o->measured, sc, why, sizeof why)) {
			hd_buf_printf(b, "  scenario %s %s: skipped\n", name, why);
			hd_buf_printf(&res->skipped, "  %s/%s: %s\n", hd_lesson_id(l), name, why);
			lr.skipped[i] = 1;
			res->scenarios_skipped++;
			(*done)++;
			continue;
		}
		progress(o, *done, total, hd_lesson_id(l), name, "predicting");
		if ((lr.pred.traces[i] = hd_backend_trace(&hd_sim_backend, sc, &ro, e)) == NULL)
			goto out;
		progress(o, *done, total, hd_lesson_id(l), name, "measuring");
		if ((lr.meas[i] = hd_backend_trace(o->measured, sc, &ro, e)) == NULL) {
			if (o->stop != NULL && *o->stop)
				hd_err_set(e, HD_EXIT_INTERRUPT, "",
					   "interrupted during "
					   "%s/%s; the lesson was not stored",
					   hd_lesson_id(l), name);
			goto out;
		}
		(*done)++;
		res->scenarios_run++;
		compare_scenario(b, o, sc, lr.pred.traces[i], lr.meas[i], res);
	}
	/* claims stated `on` profiles are checked as on the measured GPU's kind */
	pres = hd_run_claims(&lr.pred, lr.pred.traces, hw, &pt);
	mres = hd_run_claims(&lr.pred, lr.meas, hw, &mt);
	res->claims_verified += mt.holds;
	res->claims_refuted += mt.fails;
	res->claims_unchecked += mt.unchecked + mt.elsewhere;
	if (hd_lesson_nclaims(l) > 0)
		hd_buf_printf(b, "  Claims, checked on the measurement:\n");
	for (i = 0; i < hd_lesson_nclaims(l); i++) {
		hd_buf_printf(b, "    [%s] %s\n", verdict[mres[i].status + 1],
			      hd_lesson_claim(l, i)->text);
		hd_buf_printf(b, "        measured:  %s\n", mres[i].detail);
		hd_buf_printf(b, "        predicted: %s\n", pres[i].detail);
	}
	if (o->stop != NULL && *o->stop) {
		hd_err_set(e, HD_EXIT_INTERRUPT, "", "interrupted; lesson %s was not stored",
			   hd_lesson_id(l));
		goto out;
	}
	if (st != NULL && store_lesson(st, &lr, o, pres, mres, res, e) != 0)
		goto out;
	rc = 0;
out:
	free(pres);
	free(mres);
	lesson_run_free(&lr);
	return rc;
}

/* One line of the split: n, median, 90th percentile, worst, within 10 %. */
static void
split_line(struct hd_buf *out, const char *what, const struct hd_verify_result *res, int k,
	   bool spin)
{
	double *a = hd_xmalloc(((size_t)res->nerrs + 1) * sizeof *a);
	int i, n = 0, within = 0;

	for (i = 0; i < res->nerrs; i++)
		if (res->spin_bound[i] == spin && !isnan(res->split[k][i]))
			a[n++] = fabs(res->split[k][i]);
	if (n > 0) {
		qsort(a, (size_t)n, sizeof *a, cmp_double);
		for (i = 0; i < n; i++)
			within += a[i] <= 0.1;
		hd_buf_printf(out,
			      "  %-44s n %3d  median %6.1f %%  p90 %6.1f %%  worst %7.1f %%  "
			      "within 10 %%: %d\n",
			      what, n, 100 * (n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2),
			      100 * a[(9 * n + 9) / 10 - 1], 100 * a[n - 1], within);
	}
	free(a);
}

/* The summary split by prediction, spin-bound scenarios apart. */
static void
put_split(struct hd_buf *out, const struct hd_verify_opts *o, const struct hd_verify_result *res)
{
	char what[3][96];
	int s, k;

	snprintf(what[0], sizeof what[0], "as predicted above (%.24s)", o->profile->name);
	snprintf(what[1], sizeof what[1], "built-in %.24s alone",
		 o->alone[0] != NULL ? o->alone[0]->name : "");
	snprintf(what[2], sizeof what[2], "stored calibrated profile alone, no refit");
	for (s = 0; s < 2; s++) {
		int i, n = 0;

		for (i = 0; i < res->nerrs; i++)
			n += res->spin_bound[i] == (s == 1);
		if (n == 0)
			continue;
		hd_buf_printf(out, "%s\n",
			      s == 0 ?
				  "  Makespan error by prediction (scenarios a spin kernel does "
				  "not set):" :
				  "  Scenarios a spin kernel sets (right by construction):");
		for (k = 0; k < HD_VPRED__COUNT; k++)
			split_line(out, what[k], res, k, s == 1);
	}
}

/*
 * The share of the profile's FP32 rate the long compute kernels reached,
 * their predicted time over their measured time, and below
 * HD_VERIFY_SLOW_SHARE what that means: the GPU slowed under sustained load
 * (bench/results/2026-11-27-fidelity-h100: one H100 ran its long kernels at
 * 84 % in its second pass, another at 100 %).
 */
static void
put_long_kernels(struct hd_buf *out, const struct hd_verify_result *res)
{
	char tl[32], tp[32], tm[32];
	double share;

	if (res->long_kernels == 0 || res->long_meas_s <= 0)
		return;
	share = res->long_pred_s / res->long_meas_s;
	hd_buf_printf(out,
		      "\nCompute kernels predicted at %s or more: %d, at %.0f %% of the profile's "
		      "FP32 rate\n  (%s predicted, %s measured)\n",
		      hd_fmt_time(tl, sizeof tl, HD_VERIFY_LONG_KERNEL), res->long_kernels,
		      100 * share, hd_fmt_time(tp, sizeof tp, hd_time_from_s(res->long_pred_s)),
		      hd_fmt_time(tm, sizeof tm, hd_time_from_s(res->long_meas_s)));
	if (share < HD_VERIFY_SLOW_SHARE)
		hd_buf_puts(
		    out,
		    "  The GPU ran its long kernels slower than the profile's gpu.fp32,\n"
		    "  which calibrate times with short kernels.  Clocks lowered under\n"
		    "  sustained load (a power or temperature limit) do this, and then the\n"
		    "  scenarios those kernels set miss by the machine's state, not the\n"
		    "  model's; `nvidia-smi -q -d PERFORMANCE` during a run names the reason.\n"
		    "  A profile made for another GPU does it too.\n");
}

int
hd_verify_lessons(const struct hd_lesson *const *lessons, int n, const struct hd_verify_opts *o,
		  struct hd_buf *out, struct hd_verify_result *res, struct hd_err *e)
{
	struct hd_store *st;
	int i, total = 0, done = 0, rc = 0;

	memset(res, 0, sizeof *res);
	hd_buf_init(&res->skipped);
	if (o->measured->available(e) != 0)
		return -1;
	/* Open the database first: a bad --db fails before any GPU time is spent. */
	st = hd_store_open(o->db_path, HD_STORE_RW, e);
	if (st == NULL)
		return -1;
	for (i = 0; i < n; i++)
		total += hd_lesson_nscenarios(lessons[i]);
	hd_buf_printf(out, "Predictions: %s\n", o->profile->name);
	hd_buf_printf(out, "Database:    %s\n\n", hd_store_path(st));
	for (i = 0; i < n && rc == 0; i++) {
		if (i > 0)
			hd_buf_putc(out, '\n');
		rc = verify_lesson(lessons[i], o, st, &done, total, out, res, e);
	}
	if (o->progress != NULL && o->progress_tty)
		fputs("\r\033[K", o->progress);
	hd_store_close(st);
	if (rc == 0 && res->scenarios_skipped > 0)
		hd_buf_printf(out, "\nSkipped on this machine (%d):\n%s", res->scenarios_skipped,
			      res->skipped.s);
	if (res->nerrs > 0) {
		double *a = hd_xmalloc((size_t)res->nerrs * sizeof *a);

		for (i = 0; i < res->nerrs; i++)
			a[i] = fabs(res->errs[i]);
		qsort(a, (size_t)res->nerrs, sizeof *a, cmp_double);
		res->median_makespan_err = res->nerrs % 2 ?
		    a[res->nerrs / 2] :
		    (a[res->nerrs / 2 - 1] + a[res->nerrs / 2]) / 2;
		free(a);
		if (rc == 0)
			hd_buf_printf(out,
				      "\nMakespan error over %d scenario%s: median %.1f %%, "
				      "worst %.1f %%\n",
				      res->nerrs, res->nerrs == 1 ? "" : "s",
				      100 * res->median_makespan_err,
				      100 * res->worst_makespan_err);
		if (rc == 0 && res->with_band > 0)
			hd_buf_printf(out,
				      "Predicted inside the measured band (min to max of the "
				      "repeats): %d of %d scenario%s\n",
				      res->in_band, res->with_band, res->with_band == 1 ? "" : "s");
		if (rc == 0)
			put_split(out, o, res);
	}
	if (rc == 0)
		put_long_kernels(out, res);
	return rc;
}

void
hd_verify_result_free(struct hd_verify_result *res)
{
	int k;

	if (res == NULL)
		return;
	for (k = 0; k < HD_VPRED__COUNT; k++) {
		free(res->split[k]);
		res->split[k] = NULL;
	}
	free(res->spin_bound);
	res->spin_bound = NULL;
	free(res->errs);
	hd_buf_free(&res->skipped);
	res->errs = NULL;
	res->nerrs = res->errs_cap = 0;
}
