/*
 * claims.c - a lesson's claims and estimates evaluated against one run's
 * traces (see claims.h): the timing functions of the lesson language
 * (makespan, blocked, start, end, time, bytes, rate, call) read from the
 * traces, and each claim's verdict with a sentence of its figures.
 *
 * Labels map to op indices through the scenario instantiated with the
 * run's knob values; the evaluator keeps each instantiation, with its
 * labels sorted, for every claim after the first that names it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/claims.h"
#include "lang/lesson_priv.h"

/* One labelled op of a scenario; a scenario's are sorted by label, then op. */
struct label_op {
	const char *label;
	int op;
};

/* A scenario as the claims see it, instantiated on first use. */
struct scen_cache {
	bool tried;
	struct hd_scenario *sc; /* NULL when instantiating failed */
	struct hd_err err;      /* why it failed */
	struct label_op *labels;
	int nlabels;
	int *ops; /* scratch: the ops one label covers */
};

struct hd_claims {
	const struct hd_lesson *l;
	double *blocked; /* per scenario: blocked(), or < 0 until asked */
	const double *knobs;
	double *defaults; /* the knobs' defaults when none were given */
	struct hd_trace *const *traces;
	struct scen_cache *scen;                              /* per scenario */
	int (*pvalue)(void *arg, const char *key, double *v); /* profile(KEY), or NULL */
	void *parg;
};

static int cerr(struct hd_err *e, const char *fmt, ...) HD_PRINTF(2, 3);

static int
cerr(struct hd_err *e, const char *fmt, ...)
{
	va_list ap;
	char msg[700];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hd_err_set(e, HD_EXIT_FAIL, "", "%s", msg);
	return -1;
}

static int
label_op_cmp(const void *pa, const void *pb)
{
	const struct label_op *a = pa, *b = pb;
	int c = strcmp(a->label, b->label);

	if (c != 0)
		return c;
	return a->op < b->op ? -1 : a->op > b->op;
}

/* Scenario j, instantiated with the evaluator's knobs; NULL with e set. */
static struct scen_cache *
scen_get(struct hd_claims *c, int j, struct hd_err *e)
{
	struct scen_cache *s = &c->scen[j];
	int i;

	if (!s->tried) {
		s->tried = true;
		s->sc = hd_lesson_instantiate(c->l, j, c->knobs, &s->err);
		if (s->sc != NULL) {
			s->labels = hd_xcalloc((size_t)s->sc->nops + 1, sizeof *s->labels);
			s->ops = hd_xcalloc((size_t)s->sc->nops + 1, sizeof *s->ops);
			for (i = 0; i < s->sc->nops; i++)
				if (s->sc->ops[i].label != NULL) {
					s->labels[s->nlabels].label = s->sc->ops[i].label;
					s->labels[s->nlabels++].op = i;
				}
			qsort(s->labels, (size_t)s->nlabels, sizeof *s->labels, label_op_cmp);
		}
	}
	if (s->sc == NULL) {
		*e = s->err;
		return NULL;
	}
	return s;
}

/* The ops `label` covers in s, ascending, each once: every op carrying it
 * and, for a loop or rank block, its body.  Returns how many (in s->ops). */
static int
label_ops(struct scen_cache *s, const char *label)
{
	const struct hd_op *ops = s->sc->ops;
	int lo = 0, hi = s->nlabels, n = 0, next = 0, k, j;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(s->labels[mid].label, label) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the labelled ops ascend, so the blocks they open start in order */
	for (k = lo; k < s->nlabels && strcmp(s->labels[k].label, label) == 0; k++) {
		int i = s->labels[k].op,
		    end = i + 1 +
		    (ops[i].kind == HD_OP_REPEAT || ops[i].kind == HD_OP_ON_RANK ||
			     ops[i].kind == HD_OP_WORKERS ?
			 ops[i].body_len :
			 0);

		if (end > s->sc->nops)
			end = s->sc->nops;
		for (j = i > next ? i : next; j < end; j++)
			s->ops[n++] = j;
		if (end > next)
			next = end;
	}
	return n;
}

/* Op `op`'s spans in t: through the trace's index, or all of them. */
static const uint32_t *
op_spans(const struct hd_trace *t, int op, size_t *n)
{
	const uint32_t *ix = hd_trace_op_spans(t, op, n);

	if (ix == NULL)
		*n = t->nspans;
	return ix;
}

/* Summarise the ops: first start, last end, bytes summed. */
static void
sum_op_times(const struct hd_trace *t, const int *ops, int nops, struct hd_op_time *sum)
{
	int j;

	memset(sum, 0, sizeof *sum);
	for (j = 0; j < nops; j++) {
		struct hd_op_time ot = hd_trace_op_time(t, ops[j]);

		if (!ot.found)
			continue;
		if (!sum->found || ot.start < sum->start)
			sum->start = ot.start;
		if (!sum->found || ot.end > sum->end)
			sum->end = ot.end;
		sum->bytes += ot.bytes;
		sum->execs += ot.execs;
		sum->found = 1;
	}
}

/* Host time in the ops' API calls on rank 0, over all executions. */
static int
call_time(const struct hd_trace *t, const int *ops, int nops, double *v)
{
	hd_time sum = 0;
	size_t k, n;
	int j, found = 0;

	for (j = 0; j < nops; j++) {
		const uint32_t *ix = op_spans(t, ops[j], &n);

		for (k = 0; k < n; k++) {
			const struct hd_span *s = &t->spans[ix != NULL ? ix[k] : k];

			if (s->op != ops[j] || s->kind != HD_SPAN_API || s->lane < 0 ||
			    s->lane >= t->nlanes || t->lanes[s->lane].rank != 0 ||
			    t->lanes[s->lane].kind != HD_LANE_API)
				continue;
			sum += s->end - s->start;
			found = 1;
		}
	}
	*v = (double)sum;
	return found;
}

static int
claim_call(void *arg, const struct hd_expr *x, double *v, struct hd_err *e)
{
	struct hd_claims *c = arg;
	const struct hd_trace *t;
	struct scen_cache *sc;
	struct hd_op_time sum;
	int i, nops;

	if (x->scen_idx < 0 || x->scen_idx >= c->l->nscens)
		return cerr(e, "%s(%s) names no scenario", hd_fn_name(x->fn), x->scen);
	t = c->traces != NULL ? c->traces[x->scen_idx] : NULL;
	if (t == NULL)
		return cerr(e, "not checked: scenario %s was not run", x->scen);
	if (x->fn == HD_FN_MAKESPAN) {
		*v = (double)t->makespan;
		return 0;
	}
	if (x->fn == HD_FN_BLOCKED) {
		hd_time why[HD_WHY__COUNT];
		double total = 0;

		if (c->blocked[x->scen_idx] >= 0) {
			*v = c->blocked[x->scen_idx];
			return 0;
		}
		memset(why, 0, sizeof why);
		hd_trace_blocked(t, why);
		for (i = 0; i < HD_WHY__COUNT; i++)
			if (i != HD_WHY_NONE)
				total += (double)why[i];
		*v = c->blocked[x->scen_idx] = total;
		return 0;
	}
	if ((sc = scen_get(c, x->scen_idx, e)) == NULL)
		return -1;
	nops = label_ops(sc, x->label);
	if (x->fn == HD_FN_CALL) {
		if (!call_time(t, sc->ops, nops, v))
			return cerr(e, "not checked: %s.%s has no API calls in the trace", x->scen,
				    x->label);
		return 0;
	}
	sum_op_times(t, sc->ops, nops, &sum);
	if (!sum.found)
		return cerr(e, "not checked: %s.%s has no spans in the trace", x->scen, x->label);
	switch (x->fn) {
	case HD_FN_START:
		*v = (double)sum.start;
		break;
	case HD_FN_END:
		*v = (double)sum.end;
		break;
	case HD_FN_TIME:
		*v = (double)(sum.end - sum.start);
		break;
	case HD_FN_BYTES:
		*v = (double)sum.bytes;
		break;
	case HD_FN_RATE:
		if (sum.end <= sum.start)
			return cerr(e, "rate(%s.%s): the op took no time", x->scen, x->label);
		*v = (double)sum.bytes / (double)(sum.end - sum.start) * 1e12;
		break;
	case HD_FN_MAKESPAN:
	case HD_FN_BLOCKED:
	case HD_FN_CALL:
	case HD_FN__COUNT:
		return cerr(e, "bad function");
	}
	return 0;
}

/* profile(KEY): the run's hardware figure. */
static int
claim_profile(void *arg, const struct hd_expr *x, double *v, struct hd_err *e)
{
	struct hd_claims *c = arg;

	if (c->pvalue == NULL)
		return cerr(e, "not checked: profile(%s) needs the run's hardware profile",
			    x->text);
	if (c->pvalue(c->parg, x->text, v) < 0)
		return cerr(e, "not checked: the profile has no value for %s", x->text);
	return 0;
}

static const char *const rel_str[] = {
	[HD_REL_LT] = "<",  [HD_REL_LE] = "<=", [HD_REL_GT] = ">",
	[HD_REL_GE] = ">=", [HD_REL_EQ] = "==",
};

static const char *
knob_name_cb(void *arg, int i)
{
	const struct hd_lesson *l = arg;

	return l->knobs[i].name;
}

/* "2 * makespan(pinned) = 2 * 5.1 ms = 10.2 ms" */
static void
describe_side(const struct hd_lesson *l, const struct hd_expr *x, double v,
	      const struct hd_eval_env *env, struct hd_buf *b)
{
	char val[64];

	hd_expr_print(x, b, NULL, knob_name_cb, (void *)l);
	hd_buf_puts(b, " = ");
	if (x->kind != HD_EX_CALL && x->kind != HD_EX_NUM && x->kind != HD_EX_PROFILE) {
		hd_expr_print(x, b, env, knob_name_cb, (void *)l);
		hd_buf_puts(b, " = ");
	}
	hd_expr_fmt_value(val, sizeof val, v, x->dim);
	hd_buf_puts(b, val);
}

int
hd_claim_applies(const struct hd_claim *c, const char *profile, char *why, size_t n)
{
	size_t len;
	int i;

	if (c->nprofiles == 0)
		return 1;
	for (i = 0; profile != NULL && i < c->nprofiles; i++)
		if (strcmp(c->profiles[i], profile) == 0)
			return 1;
	len = (size_t)snprintf(why, n, "not checked: it is stated for profile");
	for (i = 0; i < c->nprofiles && len < n; i++)
		len += (size_t)snprintf(why + len, n - len, "%s %s", i == 0 ? "" : ",",
					c->profiles[i]);
	return 0;
}

struct hd_claims *
hd_claims_new(const struct hd_lesson *l, const double *knobs, struct hd_trace *const *traces)
{
	struct hd_claims *c = hd_xcalloc(1, sizeof *c);
	int j;

	c->l = l;
	if (knobs == NULL && l->nknobs > 0) {
		c->defaults = hd_xcalloc((size_t)l->nknobs, sizeof *c->defaults);
		hd_lesson_knob_defaults(l, c->defaults);
		knobs = c->defaults;
	}
	c->knobs = knobs;
	c->traces = traces;
	c->scen = hd_xcalloc((size_t)l->nscens + 1, sizeof *c->scen);
	c->blocked = hd_xcalloc((size_t)l->nscens + 1, sizeof *c->blocked);
	for (j = 0; j < l->nscens; j++)
		c->blocked[j] = -1;
	return c;
}

void
hd_claims_free(struct hd_claims *c)
{
	int j;

	if (c == NULL)
		return;
	for (j = 0; j < c->l->nscens; j++) {
		hd_scenario_free(c->scen[j].sc);
		free(c->scen[j].labels);
		free(c->scen[j].ops);
	}
	free(c->scen);
	free(c->blocked);
	free(c->defaults);
	free(c);
}

/* The environment expressions are evaluated in, over src's text. */
static void
claims_env(struct hd_claims *c, const struct hd_src *src, struct hd_eval_env *env)
{
	memset(env, 0, sizeof *env);
	env->src = src;
	env->knobs = c->knobs;
	env->nranks = 1;
	env->call = claim_call;
	env->arg = c;
	env->profile = claim_profile;
}

void
hd_claims_set_profile(struct hd_claims *c, int (*value)(void *arg, const char *key, double *v),
		      void *arg)
{
	c->pvalue = value;
	c->parg = arg;
}

int
hd_rel_holds(enum hd_rel rel, double a, double b, double within)
{
	switch (rel) {
	case HD_REL_LT:
		return a < b;
	case HD_REL_LE:
		return a <= b;
	case HD_REL_GT:
		return a > b;
	case HD_REL_GE:
		return a >= b;
	case HD_REL_EQ:
		return fabs(a - b) <= (within > 0 ? within : 0) * fabs(b);
	}
	return 0;
}

int
hd_claims_eval(struct hd_claims *c, int i, double *lhs, double *rhs, char *detail, size_t n,
	       struct hd_err *e)
{
	const struct hd_claim_priv *cx;
	struct hd_eval_env env;
	struct hd_buf b;
	double a = 0, z = 0;
	int holds = 0;

	if (detail != NULL && n > 0)
		detail[0] = '\0';
	if (i < 0 || i >= c->l->nclaims)
		return cerr(e, "no claim %d", i);
	cx = &c->l->cx[i];
	claims_env(c, &c->l->src, &env);
	if (hd_expr_eval(cx->lhs, &env, &a, e) < 0 || hd_expr_eval(cx->rhs, &env, &z, e) < 0)
		return -1;
	holds = hd_rel_holds(cx->rel, a, z, cx->within);
	if (lhs != NULL)
		*lhs = a;
	if (rhs != NULL)
		*rhs = z;
	if (detail != NULL && n > 0) {
		hd_buf_init(&b);
		describe_side(c->l, cx->lhs, a, &env, &b);
		hd_buf_printf(&b, " %s ", rel_str[cx->rel]);
		describe_side(c->l, cx->rhs, z, &env, &b);
		if (cx->rel == HD_REL_EQ)
			hd_buf_printf(&b, " within %g%%", cx->within * 100);
		hd_buf_printf(&b, ": %s", holds ? "holds" : "does not hold");
		snprintf(detail, n, "%s", b.s);
		hd_buf_free(&b);
	}
	return holds;
}

int
hd_lesson_claim_eval(const struct hd_lesson *l, int i, const double *knobs,
		     struct hd_trace *const *traces, double *lhs, double *rhs, char *detail,
		     size_t n, struct hd_err *e)
{
	struct hd_claims *c;
	int rc;

	if (detail != NULL && n > 0)
		detail[0] = '\0';
	if (i < 0 || i >= l->nclaims)
		return cerr(e, "no claim %d", i);
	c = hd_claims_new(l, knobs, traces);
	rc = hd_claims_eval(c, i, lhs, rhs, detail, n, e);
	hd_claims_free(c);
	return rc;
}

int
hd_claims_eval_expr(struct hd_claims *c, const char *expr, double *value, struct hd_err *e)
{
	struct hd_src src;
	struct hd_toks toks;
	struct hd_expr_parser ep;
	struct hd_expr *x = NULL;
	struct hd_eval_env env;
	int rc = -1, ncalls = 0;

	hd_src_init(&src, "expression", expr, strlen(expr));
	if (hd_lex(&src, &toks, e) < 0) {
		hd_src_free(&src);
		return -1;
	}
	memset(&ep, 0, sizeof ep);
	ep.src = &src;
	ep.e = e;
	ep.toks = toks.v;
	ep.allow = HD_EXPR_ALLOW_CALLS;
	ep.rank_hint = "cannot be used here";
	ep.find_knob = hd_lesson_knob_lookup;
	ep.arg = (void *)c->l;
	if ((x = hd_expr_parse(&ep, "an expression such as makespan(pinned)")) == NULL)
		goto out;
	if (toks.v[ep.pos].kind != HD_TOK_NL && toks.v[ep.pos].kind != HD_TOK_EOF) {
		char d[96];
		hd_tok_describe(&toks.v[ep.pos], d, sizeof d);
		hd_src_error(&src, e, toks.v[ep.pos].line, toks.v[ep.pos].col,
			     "unexpected %s after the expression", d);
		goto out;
	}
	if (hd_lesson_resolve_expr(c->l, &src, x, &ncalls, e) < 0)
		goto out;
	claims_env(c, &src, &env);
	if (hd_expr_eval(x, &env, value, e) < 0)
		goto out;
	rc = 0;
out:
	hd_expr_free(x);
	hd_toks_free(&toks);
	hd_src_free(&src);
	return rc;
}

int
hd_lesson_eval_expr(const struct hd_lesson *l, const char *expr, const double *knobs,
		    struct hd_trace *const *traces, double *value, struct hd_err *e)
{
	struct hd_claims *c = hd_claims_new(l, knobs, traces);
	int rc = hd_claims_eval_expr(c, expr, value, e);

	hd_claims_free(c);
	return rc;
}
