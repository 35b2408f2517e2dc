/*
 * claims.h - a lesson's claims and estimates evaluated against one run's
 * traces.
 *
 * An evaluator instantiates each scenario a claim names once, sorts each
 * scenario's labels once, and reads each trace through its index of spans
 * by op (ir/trace.h), so a claim costs what its own ops' spans cost: a
 * lesson of many claims over a long trace is linear, not claims x spans.
 * hd_lesson_claim_eval and hd_lesson_eval_expr (lang/lesson.h) are the
 * one-claim forms of the same.
 */
#ifndef HD_CLAIMS_H
#define HD_CLAIMS_H

#include <stddef.h>

#include "ir/trace.h"
#include "lang/lesson.h"

struct hd_claims;

/* An evaluator for lesson l with these knob values (NULL: the defaults) over
 * traces[j], the trace of scenario j (NULL if not run).  l, knobs and
 * traces must outlive it.  Never NULL. */
struct hd_claims *hd_claims_new(const struct hd_lesson *l, const double *knobs,
				struct hd_trace *const *traces);
/* Where profile(KEY) reads its values: value(arg, key, &v) gives 0 and the
 * value of the run's profile in base units, or -1.  Without it profile()
 * cannot be evaluated ("not checked"). */
void hd_claims_set_profile(struct hd_claims *c, int (*value)(void *arg, const char *key, double *v),
			   void *arg);
/* Evaluate claim i, as hd_lesson_claim_eval does: 1 holds, 0 does not,
 * -1 could not be evaluated (e says why). */
int hd_claims_eval(struct hd_claims *c, int i, double *lhs, double *rhs, char *detail, size_t n,
		   struct hd_err *e);
/* Evaluate an expression's text, as hd_lesson_eval_expr does: 0, or -1
 * with e set. */
int hd_claims_eval_expr(struct hd_claims *c, const char *expr, double *value, struct hd_err *e);
void hd_claims_free(struct hd_claims *c); /* accepts NULL */

#endif
