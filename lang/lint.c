/*
 * lint.c - what `hdsim lint` checks beyond parsing: scenarios built at the
 * knob values a learner can reach (lint.h), and claims and estimates that
 * ask an op for a quantity it does not have (the rate of a kernel, the
 * bytes of a sync), which the parser calls through lesson_priv.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/opfacts.h"
#include "lang/lesson_priv.h"
#include "lang/lint.h"

/* --- quantities of ops ----------------------------------------------------------- */

/* Classes of ops whose work on a stream moves bytes (so has a rate). */
static const bool class_moves_bytes[HD_OPC__COUNT] = {
	[HD_OPC_COPY] = true,
	[HD_OPC_P2P] = true,
	[HD_OPC_COLLECTIVE] = true,
};

/* Does statement s (a block: anything in its body) move bytes? */
static bool
stmt_moves_bytes(const struct hd_stmt *s)
{
	const struct hd_op_fact *f = hd_op_fact(s->kind);
	int i;

	if (f == NULL)
		return false;
	if (f->cls == HD_OPC_BLOCK) {
		for (i = 0; i < s->nbody; i++)
			if (stmt_moves_bytes(&s->body[i]))
				return true;
		return false;
	}
	return f->on_stream && class_moves_bytes[f->cls];
}

/* The statement labelled `label` in v[0..n), searching blocks, or NULL. */
static const struct hd_stmt *
find_label(const struct hd_stmt *v, int n, const char *label)
{
	const struct hd_stmt *s;
	int i;

	for (i = 0; i < n; i++) {
		if (v[i].label != NULL && strcmp(v[i].label, label) == 0)
			return &v[i];
		if ((s = find_label(v[i].body, v[i].nbody, label)) != NULL)
			return s;
		if ((s = find_label(v[i].else_body, v[i].nelse, label)) != NULL)
			return s;
	}
	return NULL;
}

int
hd_lint_quantities(const struct hd_lesson *l, const struct hd_src *src, const struct hd_expr *x,
		   const char *what, struct hd_err *e)
{
	const struct hd_stmt *s;
	const struct hd_op_fact *f;
	const char *name;

	if (x == NULL)
		return 0;
	if (x->kind != HD_EX_CALL)
		return hd_lint_quantities(l, src, x->a, what, e) < 0 ||
			hd_lint_quantities(l, src, x->b, what, e) < 0 ?
		    -1 :
		    0;
	if ((x->fn != HD_FN_BYTES && x->fn != HD_FN_RATE) || x->label == NULL || x->scen_idx < 0 ||
	    x->scen_idx >= l->nscens)
		return 0;
	s = find_label(l->scens[x->scen_idx].body, l->scens[x->scen_idx].nbody, x->label);
	if (s == NULL || stmt_moves_bytes(s))
		return 0;
	f = hd_op_fact(s->kind);
	name = f != NULL ? f->name : "op";
	hd_src_error(src, e, x->label_line, x->label_col,
		     "%s asks for the %s of %s.%s, a%s %s%s, which moves no data: only copies, "
		     "prefetches, reads, sends, receives and collectives have bytes and a rate",
		     what, hd_fn_name(x->fn), x->scen, x->label,
		     strchr("aeiou", name[0]) ? "n" : "", name,
		     f != NULL && f->cls == HD_OPC_BLOCK ? " block" : "");
	return -1;
}

/* --- knob values ------------------------------------------------------------------- */

struct trial {
	const struct hd_lesson *l;
	double *v;           /* the values tried */
	int ntries;          /* sets tried so far */
	size_t ops;          /* IR ops built so far, against HD_LINT_MAX_OPS */
	int moved;           /* knobs away from their default in v */
	unsigned char *seen; /* per condition: 1 held, 2 did not, at some values tried */
};

static bool
whole_knob(const struct hd_knob *k)
{
	return k->dim == HD_DIM_BYTES ||
	    (k->dim == HD_DIM_NONE && k->def == floor(k->def) && k->min == floor(k->min) &&
	     k->max == floor(k->max));
}

/* "every = 100 (its max)" for each knob away from its default. */
static void
describe_values(const struct trial *t, struct hd_buf *b)
{
	char v[64], lo[64], hi[64];
	int i;

	hd_buf_puts(b, t->moved > 1 ? "knobs " : "knob ");
	for (i = 0; i < t->l->nknobs; i++) {
		const struct hd_knob *k = hd_lesson_knob(t->l, i);
		if (t->v[i] == k->def)
			continue;
		hd_expr_fmt_value(v, sizeof v, t->v[i], k->dim);
		hd_expr_fmt_value(lo, sizeof lo, k->min, k->dim);
		hd_expr_fmt_value(hi, sizeof hi, k->max, k->dim);
		hd_buf_printf(b, "%s%s = %s", b->len > 6 ? ", " : "", k->name, v);
		if (t->v[i] == k->min)
			hd_buf_puts(b, " (its min)");
		else if (t->v[i] == k->max)
			hd_buf_puts(b, " (its max)");
		else
			hd_buf_printf(b, " (between its min %s and max %s)", lo, hi);
	}
}

/* Build every scenario at t->v: 0, or -1 with e set.  Values a `require`
 * rules out are not tried (0). */
static int
try_values(struct trial *t, struct hd_err *e)
{
	struct hd_err re = { 0 };
	int i;

	if (t->ntries >= HD_LINT_MAX_TRIES || t->ops > HD_LINT_MAX_OPS)
		return 0;
	t->ntries++;
	if (t->moved > 0 && hd_lesson_knob_check(t->l, t->v, &re) < 0)
		return 0;
	for (i = 0; i < hd_lesson_nscenarios(t->l); i++) {
		struct hd_lower_report rep = { t->seen, 0 };
		struct hd_scenario *sc = hd_lesson_lower(t->l, i, t->v, false, &rep, e);
		char msg[sizeof e->msg];
		struct hd_buf b;

		t->ops += (size_t)rep.work;
		if (sc != NULL) {
			hd_scenario_free(sc);
			continue;
		}
		if (t->moved == 0)
			return -1;
		snprintf(msg, sizeof msg, "%s", e->msg);
		hd_buf_init(&b);
		describe_values(t, &b);
		hd_buf_printf(&b, ": scenario %s: %s", hd_lesson_scenario_name(t->l, i), msg);
		snprintf(e->msg, sizeof e->msg, "%.*s", (int)sizeof e->msg - 1, b.s);
		hd_buf_free(&b);
		return -1;
	}
	return 0;
}

/* Try knob k at value v, the others at their defaults. */
static int
try_one(struct trial *t, int k, double v, struct hd_err *e)
{
	const struct hd_knob *kn = hd_lesson_knob(t->l, k);
	int rc;

	if (!(v >= kn->min && v <= kn->max) || v == kn->def)
		return 0;
	t->v[k] = v;
	t->moved = 1;
	rc = try_values(t, e);
	t->v[k] = kn->def;
	t->moved = 0;
	return rc;
}

/* --- conditions -------------------------------------------------------------------- */

/* The `if` with condition id k in v[0..n), searching every branch, or NULL. */
static const struct hd_stmt *
find_cond(const struct hd_stmt *v, int n, int k)
{
	const struct hd_stmt *s;
	int i;

	for (i = 0; i < n; i++) {
		if (v[i].is_if && v[i].cond_id == k)
			return &v[i];
		if ((s = find_cond(v[i].body, v[i].nbody, k)) != NULL ||
		    (s = find_cond(v[i].else_body, v[i].nelse, k)) != NULL)
			return s;
	}
	return NULL;
}

/* Note each condition that held at none of the values tried, or at all of
 * them though it has an `else`. */
static void
warn_conditions(const struct hd_lesson *l, const unsigned char *seen, hd_lint_warn_fn *warn,
		void *arg)
{
	const struct hd_stmt *s = NULL;
	int k, j;

	for (k = 0; k < l->nconds; k++) {
		struct hd_err w = { 0 };

		if (warn == NULL || (seen[k] != 1 && seen[k] != 2))
			continue;
		for (j = 0, s = NULL; j < l->nscens && s == NULL; j++)
			s = find_cond(l->scens[j].body, l->scens[j].nbody, k);
		if (s == NULL || (seen[k] == 1 && s->nelse == 0))
			continue;
		hd_src_error(&l->src, &w, s->line, s->col,
			     seen[k] == 2 ?
				 "the condition '%.*s' never holds where it is reached, at "
				 "any of the knob values lint tried (the defaults, each "
				 "knob's limits and the corners of their ranges): what it "
				 "guards never runs" :
				 "the condition '%.*s' holds wherever it is reached, at "
				 "every knob value lint tried (the defaults, each knob's "
				 "limits and the corners of their ranges): its 'else' never "
				 "runs",
			     (int)s->cond->src_len, s->cond->src_p);
		if (warn != NULL)
			warn(arg, &w);
	}
}

int
hd_lint_knobs(const struct hd_lesson *l, struct hd_err *e)
{
	return hd_lint_knobs_warn(l, NULL, NULL, e);
}

int
hd_lint_knobs_warn(const struct hd_lesson *l, hd_lint_warn_fn *warn, void *arg, struct hd_err *e)
{
	struct trial t = { l, NULL, 0, 0, 0, NULL };
	int n = hd_lesson_nknobs(l), i, j, rc = -1;
	unsigned c;

	t.seen = hd_xcalloc((size_t)l->nconds + 1, 1);
	/* the printers' form too (`show --cuda`): both branches of an `if` on a
	 * loop index, whichever the iterations take */
	for (i = 0; i < hd_lesson_nscenarios(l); i++) {
		struct hd_scenario *sc = hd_lesson_instantiate_written(l, i, NULL, e);

		if (sc == NULL)
			goto out;
		hd_scenario_free(sc);
	}
	t.v = hd_xcalloc((size_t)n + 1, sizeof *t.v);
	hd_lesson_knob_defaults(l, t.v);
	if (try_values(&t, e) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		const struct hd_knob *k = hd_lesson_knob(l, i);
		double d = k->def, probe[6] = { k->min, k->max, d * 2, d / 2, d - 1, d + 1 };
		int np = whole_knob(k) ? 6 : 4;

		if (whole_knob(k))
			probe[3] = floor(probe[3]);
		for (j = 0; j < np; j++)
			if (try_one(&t, i, probe[j], e) < 0)
				goto out;
	}
	/* every corner: knob i at its max when bit i of c is set */
	if (n >= 2 && n <= HD_LINT_CORNER_KNOBS) {
		for (c = 0; c < 1u << n; c++) {
			t.moved = 0;
			for (i = 0; i < n; i++) {
				const struct hd_knob *k = hd_lesson_knob(l, i);
				t.v[i] = c & (1u << i) ? k->max : k->min;
				t.moved += t.v[i] != k->def;
			}
			if (t.moved >= 2 && try_values(&t, e) < 0)
				goto out;
		}
	}
	warn_conditions(l, t.seen, warn, arg);
	rc = 0;
out:
	free(t.v);
	free(t.seen);
	return rc;
}
