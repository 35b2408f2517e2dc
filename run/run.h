/*
 * run.h - one run of a lesson: every scenario on one backend, every claim
 * evaluated.  The one pipeline behind `hdsim run`, the lesson browser,
 * export's on-the-spot simulation, bench, and (run/verify.h) `--real`.
 */
#ifndef HD_RUN_H
#define HD_RUN_H

#include <stdbool.h>

#include "base/util.h"
#include "ir/backend.h"
#include "ir/ir.h"
#include "ir/trace.h"
#include "lang/lesson.h"
#include "profile/profile.h"
#include "store/store.h"

struct hd_claim_result {
	int status;       /* 1 holds, 0 does not hold, -1 not checked */
	double lhs, rhs;  /* base units (ps, bytes, bytes/s ...) */
	char detail[512]; /* the figures, or why it was not checked */
};

struct hd_run {
	const struct hd_lesson *lesson; /* borrowed */
	int lesson_number;              /* 1-based place in the catalogue, 0 if none */
	struct hd_profile profile;
	const struct hd_backend_ops *backend;
	double *knobs; /* hd_lesson_nknobs() values, base units */
	int nscen;
	struct hd_scenario **sc;  /* [nscen] */
	struct hd_trace **traces; /* [nscen] */
	int nclaims;
	struct hd_claim_result *claims; /* [nclaims] */
	int claims_failed;              /* how many do not hold */
	int claims_unchecked;           /* how many could not be evaluated (not
					     * counting those stated for other profiles) */
};

/*
 * Run every scenario of lesson `l` on backend `b` with profile `p` after
 * applying the `--set` assignments, then evaluate every claim.  Returns 0, or
 * -1 with e set (status HD_EXIT_INPUT for a bad knob or scenario,
 * HD_EXIT_FAIL when the backend fails).  A claim that does not hold is not
 * an error: it is counted in r->claims_failed, and one that cannot be
 * evaluated in r->claims_unchecked.  hd_run_free releases r.
 */
int hd_run_lesson(struct hd_run *r, const struct hd_lesson *l, int number,
		  const struct hd_profile *p, const struct hd_backend_ops *b, char *const *sets,
		  int nsets, struct hd_err *e);
void hd_run_free(struct hd_run *r);
/* Evaluate a claim-style expression (a question's estimate answer) against
 * r's traces, knob values and profile (for profile(KEY)).  0, or -1 with e
 * set, as hd_lesson_eval_expr. */
int hd_run_eval_expr(const struct hd_run *r, const char *expr, double *value, struct hd_err *e);

/*
 * The pieces of hd_run_lesson, for runs that do more per scenario (run/verify.h
 * measures each one too).  hd_run_begin fills r for lesson l: its knobs (the
 * defaults, then each `--set` assignment) and room for every scenario, none
 * instantiated or run.  0, or -1 with e set (HD_EXIT_INPUT for a bad
 * assignment); hd_run_free releases r either way.
 */
int hd_run_begin(struct hd_run *r, const struct hd_lesson *l, int number,
		 const struct hd_profile *p, const struct hd_backend_ops *b, char *const *sets,
		 int nsets, struct hd_err *e);
/* Instantiate scenario i with r's knobs into r->sc[i]: 0, or -1 with e set. */
int hd_run_instantiate(struct hd_run *r, int i, struct hd_err *e);

/* How the claims came out over one set of traces. */
struct hd_run_tally {
	int holds, fails;
	int unchecked; /* could not be evaluated */
	int elsewhere; /* stated for other profiles, so not evaluated */
};
/*
 * Evaluate every claim of r's lesson with r's knobs over traces[] (one per
 * scenario, NULL for one not run: r->traces, or another set of traces of the
 * same scenarios) as on profile `hw` (claims stated `on` other profiles are
 * not evaluated; NULL: a profile like none).  Returns a fresh array of
 * hd_lesson_nclaims results (free it) and adds them up into *t.
 */
struct hd_claim_result *hd_run_claims(const struct hd_run *r, struct hd_trace *const *traces,
				      const char *hw, struct hd_run_tally *t);

/* Claim results as the store keeps them: a fresh array of hd_lesson_nclaims(l)
 * rows whose strings are borrowed from l and `res` (free the array only). */
struct hd_store_claim *hd_run_store_claims(const struct hd_lesson *l,
					   const struct hd_claim_result *res);

/* r's knob values as a JSON object, {"name": value, ...}, as the store keeps
 * them with each run (a fresh string). */
char *hd_run_params_json(const struct hd_run *r);

/*
 * Bandwidths of collective op `op` as nccl-tests reports them: its time is
 * the mean duration of one execution on a rank (its HD_SPAN_COMM spans on
 * stream lanes), the maximum over ranks; algBw = op bytes / time, busBw =
 * algBw * hd_coll_bus_factor.  Bytes per second.  0, or -1 when op is not a
 * collective or has no such spans in t.
 */
int hd_run_coll_bw(const struct hd_scenario *sc, int op, const struct hd_trace *t, double *alg_bw,
		   double *bus_bw);

#endif
