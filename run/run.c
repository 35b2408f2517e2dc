/*
 * run.c - run a lesson: every scenario on one backend, then every claim.
 *
 * A lesson runs all its scenarios even when only one is shown, because its
 * claims compare scenarios with each other.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "lang/claims.h"
#include "run/backends.h"
#include "run/run.h"
#include "sim/coll.h"

/* A claim that could not be evaluated says why, in at most this much of its
 * detail: "not checked: " and the error's message, cut to fit. */
#define NOT_CHECKED_MSG 480

/* profile(KEY) in claims: the run's profile. */
static int
profile_value(void *arg, const char *key, double *v)
{
	enum hd_dim dim;

	return hd_profile_value(arg, key, v, &dim);
}

struct hd_claim_result *
hd_run_claims(const struct hd_run *r, struct hd_trace *const *traces, const char *hw,
	      struct hd_run_tally *t)
{
	int i, n = hd_lesson_nclaims(r->lesson);
	struct hd_claim_result *out = hd_xcalloc((size_t)n + 1, sizeof *out);
	/* one evaluator for all the claims: each scenario instantiated once */
	struct hd_claims *ev = hd_claims_new(r->lesson, r->knobs, traces);

	hd_claims_set_profile(ev, profile_value, (void *)&r->profile);

	for (i = 0; i < n; i++) {
		const struct hd_claim *c = hd_lesson_claim(r->lesson, i);
		struct hd_claim_result *cr = &out[i];
		struct hd_err e = { 0 };

		cr->status = -1;
		/* a claim stated for other hardware says nothing about this one */
		if (!hd_claim_applies(c, hw, cr->detail, sizeof cr->detail)) {
			t->elsewhere++;
			continue;
		}
		cr->status = hd_claims_eval(ev, i, &cr->lhs, &cr->rhs, cr->detail,
					    sizeof cr->detail, &e);
		if (cr->status < 0) {
			cr->status = -1;
			snprintf(cr->detail, sizeof cr->detail, "not checked: %.*s",
				 NOT_CHECKED_MSG, e.msg);
			t->unchecked++;
		} else if (cr->status == 0)
			t->fails++;
		else
			t->holds++;
	}
	hd_claims_free(ev);
	return out;
}

int
hd_run_eval_expr(const struct hd_run *r, const char *expr, double *value, struct hd_err *e)
{
	struct hd_claims *ev = hd_claims_new(r->lesson, r->knobs, r->traces);
	int rc;

	hd_claims_set_profile(ev, profile_value, (void *)&r->profile);
	rc = hd_claims_eval_expr(ev, expr, value, e);
	hd_claims_free(ev);
	return rc;
}

int
hd_run_begin(struct hd_run *r, const struct hd_lesson *l, int number, const struct hd_profile *p,
	     const struct hd_backend_ops *b, char *const *sets, int nsets, struct hd_err *e)
{
	int i;

	memset(r, 0, sizeof *r);
	r->lesson = l;
	r->lesson_number = number;
	r->profile = *p;
	r->backend = b;
	r->knobs = hd_xcalloc((size_t)hd_lesson_nknobs(l) + 1, sizeof *r->knobs);
	hd_lesson_knob_defaults(l, r->knobs);
	for (i = 0; i < nsets; i++)
		if (hd_lesson_knob_set(l, r->knobs, sets[i], e) != 0)
			return -1;
	r->nscen = hd_lesson_nscenarios(l);
	r->sc = hd_xcalloc((size_t)r->nscen + 1, sizeof *r->sc);
	r->traces = hd_xcalloc((size_t)r->nscen + 1, sizeof *r->traces);
	return 0;
}

int
hd_run_instantiate(struct hd_run *r, int i, struct hd_err *e)
{
	r->sc[i] = hd_lesson_instantiate(r->lesson, i, r->knobs, e);
	return r->sc[i] != NULL ? 0 : -1;
}

int
hd_run_lesson(struct hd_run *r, const struct hd_lesson *l, int number, const struct hd_profile *p,
	      const struct hd_backend_ops *b, char *const *sets, int nsets, struct hd_err *e)
{
	struct hd_run_opts o;
	struct hd_run_tally t = { 0 };
	int i;

	if (hd_run_begin(r, l, number, p, b, sets, nsets, e) != 0)
		return -1;
	memset(&o, 0, sizeof o);
	o.profile = &r->profile;
	o.warmup = 1;
	o.repeats = 5;
	for (i = 0; i < r->nscen; i++) {
		if (hd_run_instantiate(r, i, e) != 0)
			return -1;
		r->traces[i] = hd_backend_trace(b, r->sc[i], &o, e);
		if (r->traces[i] == NULL)
			return -1;
	}
	r->nclaims = hd_lesson_nclaims(l);
	r->claims = hd_run_claims(r, r->traces, r->profile.name, &t);
	r->claims_failed = t.fails;
	r->claims_unchecked = t.unchecked;
	return 0;
}

struct hd_store_claim *
hd_run_store_claims(const struct hd_lesson *l, const struct hd_claim_result *res)
{
	int i, n = hd_lesson_nclaims(l);
	struct hd_store_claim *out = hd_xcalloc((size_t)n + 1, sizeof *out);

	for (i = 0; i < n; i++) {
		const struct hd_claim *c = hd_lesson_claim(l, i);

		out[i].index = i;
		out[i].text = c->text;
		out[i].expr = c->expr;
		out[i].outcome = res[i].status;
		out[i].lhs = res[i].lhs;
		out[i].rhs = res[i].rhs;
		out[i].detail = res[i].detail;
	}
	return out;
}

char *
hd_run_params_json(const struct hd_run *r)
{
	struct hd_buf b;
	int i;

	hd_buf_init(&b);
	hd_buf_putc(&b, '{');
	for (i = 0; i < hd_lesson_nknobs(r->lesson); i++) {
		if (i > 0)
			hd_buf_puts(&b, ", ");
		hd_json_str(&b, hd_lesson_knob(r->lesson, i)->name);
		hd_buf_printf(&b, ": %.17g", r->knobs[i]);
	}
	hd_buf_putc(&b, '}');
	return hd_buf_take(&b);
}

void
hd_run_free(struct hd_run *r)
{
	int i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nscen; i++) {
		if (r->sc != NULL)
			hd_scenario_free(r->sc[i]);
		if (r->traces != NULL)
			hd_trace_free(r->traces[i]);
	}
	free(r->sc);
	free(r->traces);
	free(r->knobs);
	free(r->claims);
	memset(r, 0, sizeof *r);
}

int
hd_run_coll_bw(const struct hd_scenario *sc, int op, const struct hd_trace *t, double *alg_bw,
	       double *bus_bw)
{
	double *sum = hd_xcalloc((size_t)sc->nranks + 1, sizeof *sum), worst = 0;
	uint32_t *n = hd_xcalloc((size_t)sc->nranks + 1, sizeof *n);
	size_t i;
	int r;

	if (op < 0 || op >= sc->nops || sc->ops[op].kind != HD_OP_COLL)
		goto none;
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		const struct hd_lane *ln = &t->lanes[s->lane];

		if (s->op != op || s->kind != HD_SPAN_COMM || ln->kind != HD_LANE_STREAM ||
		    ln->rank < 0 || ln->rank >= sc->nranks)
			continue;
		sum[ln->rank] += (double)(s->end - s->start);
		n[ln->rank]++;
	}
	for (r = 0; r < sc->nranks; r++)
		if (n[r] > 0 && sum[r] / n[r] > worst)
			worst = sum[r] / n[r];
	if (worst <= 0)
		goto none;
	*alg_bw = (double)sc->ops[op].bytes / (worst / (double)HD_S);
	*bus_bw = *alg_bw * hd_coll_bus_factor(sc->ops[op].coll, sc->nranks);
	free(sum);
	free(n);
	return 0;
none:
	free(sum);
	free(n);
	return -1;
}
