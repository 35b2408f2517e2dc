/*
 * lesson.c - lesson files, format version 1: the top level of the parser
 * (header, metadata, knobs, pages, questions, claims), the checks that need
 * the whole file, and the read-only views of lesson.h.  Lowering to the IR
 * lives in lower.c, claim evaluation in claims.c, lint's knob values in lint.c.
 *
 * Over 1,200 lines: the statement tables of every context and their
 * handlers share the parser state and the checks that need the whole file;
 * the scenario bodies, expressions and lowering are already files of their own.
 *
 * The parser works line by line over the token array from lex.c, with the
 * toolkit of parse.c; scenario bodies are parsed in scen_parse.c.  Each
 * context (the top level, a page, a question, a scenario body) has a table
 * of statements; an unknown word is reported with the closest statement of
 * that context when one is near, or with the context it belongs in.  Timing
 * functions in claims and estimates may name scenarios declared later, so
 * they are resolved when the whole file has been read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lesson_priv.h"
#include "lang/parse.h"

/* --- knob ranges -------------------------------------------------------------- */

/* A constant that must not refer to knobs or ranks (knob declarations). */
static int
parse_const(struct hd_parser *p, enum hd_dim *dim, double *v, const char *what)
{
	struct hd_expr_parser ep;
	struct hd_eval_env env;
	struct hd_expr *x;
	int rc;

	memset(&ep, 0, sizeof ep);
	ep.src = p->src;
	ep.e = p->e;
	ep.toks = p->toks.v;
	ep.pos = p->pos;
	ep.allow = HD_EXPR_NO_KNOBS;
	ep.rank_hint = "cannot be used in a knob's range";
	if ((x = hd_expr_parse(&ep, what)) == NULL)
		return -1;
	memset(&env, 0, sizeof env);
	env.src = p->src;
	rc = hd_expr_eval(x, &env, v, p->e);
	/* Percent and plain numbers share HD_DIM_NONE in expressions; keep
	 * the percent for display when the literal said so. */
	*dim = x->dim;
	if (x->kind == HD_EX_NUM && p->toks.v[p->pos].dim == HD_DIM_PERCENT)
		*dim = HD_DIM_PERCENT;
	p->pos = ep.pos;
	hd_expr_free(x);
	return rc;
}

static const char *const question_words[] = {
	"option",   "item", "answer", "explain",       "hint",
	"scenario", "end",  "points", "misconception", NULL,
};

/* --- metadata and knobs ------------------------------------------------------- */

static int
set_once(struct hd_parser *p, const struct hd_tok *kw, char **slot, char *v)
{
	if (*slot != NULL) {
		free(v);
		return hd_parse_error(p, kw, "'%.*s' is given twice", (int)kw->len, kw->p);
	}
	*slot = v;
	return 0;
}

static int
parse_metadata(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p);
	struct hd_lesson *l = p->l;
	char *v;

	if (p->seen_block)
		return hd_parse_error(p, kw,
				      "'%.*s' must come before the first page, question or "
				      "scenario",
				      (int)kw->len, kw->p);
	p->pos++;
	if (is_kw(kw, "lesson")) {
		if ((v = hd_parse_name(p,
				       "the lesson's identifier such as "
				       "pinned-vs-pageable")) == NULL)
			return -1;
		if (set_once(p, kw, &l->id, v) < 0)
			return -1;
	} else if (is_kw(kw, "replaces")) {
		if ((v = hd_parse_name(p, "the id of the lesson it replaces")) == NULL)
			return -1;
		if (set_once(p, kw, &l->replaces, v) < 0)
			return -1;
	} else if (is_kw(kw, "order")) {
		const struct hd_tok *t = tok(p);
		double sign = 1;
		if (is_punct(t, HD_P_MINUS)) {
			sign = -1;
			t = peek(p, 1);
		}
		if (t->kind != HD_TOK_NUMBER || t->dim != HD_DIM_NONE) {
			char d[96];
			hd_tok_describe(t, d, sizeof d);
			return hd_parse_error(p, t, "expected a number after 'order', found %s", d);
		}
		if (l->has_order)
			return hd_parse_error(p, kw, "'order' is given twice");
		l->has_order = true;
		l->order = sign * t->num;
		p->pos = (size_t)(t - p->toks.v) + 1;
	} else {
		char **slot = is_kw(kw, "title") ? &l->title :
		    is_kw(kw, "part")            ? &l->part :
		    is_kw(kw, "summary")         ? &l->summary :
						   &l->rule;
		if ((v = hd_parse_string(p, "text")) == NULL)
			return -1;
		if (set_once(p, kw, slot, v) < 0)
			return -1;
		if (is_kw(kw, "rule") && tok(p)->kind == HD_TOK_STRING)
			l->rule_url = hd_xstrdup(p->toks.v[p->pos++].str);
	}
	return hd_parse_eol(p);
}

static int
parse_knob(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p), *t;
	struct hd_lesson *l = p->l;
	struct hd_knob k;
	enum hd_dim dmin, dmax;
	char *name;
	char what[160];

	memset(&k, 0, sizeof k);
	p->pos++;
	t = tok(p);
	if ((name = hd_parse_name(p, "the knob's name")) == NULL)
		return -1;
	if (strcmp(name, "rank") == 0 || strcmp(name, "nranks") == 0) {
		free(name);
		return hd_parse_error(p, t, "'%.*s' is reserved: choose another knob name",
				      (int)t->len, t->p);
	}
	if (hd_lesson_find_knob(l, name) >= 0) {
		free(name);
		return hd_parse_error(p, t, "knob '%.*s' is declared twice", (int)t->len, t->p);
	}
	if (l->nknobs >= HD_LESSON_MAX_NAMES) {
		free(name);
		return hd_parse_error(p, kw, "more than %d knobs; the limit is %d",
				      HD_LESSON_MAX_NAMES, HD_LESSON_MAX_NAMES);
	}
	k.name = name;
	k.line = kw->line;
	k.col = kw->col;
	snprintf(what, sizeof what, "the default value of knob %s (such as 64MiB)", name);
	t = tok(p);
	if (parse_const(p, &k.dim, &k.def, what) < 0)
		goto fail;
	snprintf(what, sizeof what, "the smallest value of knob %s, as in '%s MIN .. MAX'", name,
		 name);
	if (parse_const(p, &dmin, &k.min, what) < 0)
		goto fail;
	if (!is_punct(tok(p), HD_P_DOTDOT)) {
		char d[96];
		hd_tok_describe(tok(p), d, sizeof d);
		hd_parse_error(p, tok(p),
			       "expected '..' between the knob's smallest and largest "
			       "value, found %s",
			       d);
		goto fail;
	}
	p->pos++;
	snprintf(what, sizeof what, "the largest value of knob %s", name);
	if (parse_const(p, &dmax, &k.max, what) < 0)
		goto fail;
	if ((dmin == HD_DIM_PERCENT ? HD_DIM_NONE : dmin) !=
		(k.dim == HD_DIM_PERCENT ? HD_DIM_NONE : k.dim) ||
	    (dmax == HD_DIM_PERCENT ? HD_DIM_NONE : dmax) !=
		(k.dim == HD_DIM_PERCENT ? HD_DIM_NONE : k.dim)) {
		hd_parse_error(p, t,
			       "knob %s: the default is %s but the range is %s .. %s; "
			       "all three need the same "
			       "unit",
			       name, hd_parse_dim_found(k.dim), hd_parse_dim_found(dmin),
			       hd_parse_dim_found(dmax));
		goto fail;
	}
	if (k.min > k.max) {
		hd_parse_error(p, t, "knob %s: the range is empty (smallest above largest)", name);
		goto fail;
	}
	if (k.def < k.min || k.def > k.max) {
		char a[64], b[64], c[64];
		hd_expr_fmt_value(a, sizeof a, k.def, k.dim);
		hd_expr_fmt_value(b, sizeof b, k.min, k.dim);
		hd_expr_fmt_value(c, sizeof c, k.max, k.dim);
		hd_parse_error(p, t, "knob %s: the default %s is outside its range %s .. %s", name,
			       a, b, c);
		goto fail;
	}
	if ((k.text = hd_parse_string(p, "what the knob changes")) == NULL)
		goto fail;
	if (hd_parse_eol(p) < 0) {
		free(k.text);
		goto fail;
	}
	l->knobs = hd_xrealloc(l->knobs, (size_t)(l->nknobs + 1) * sizeof *l->knobs);
	l->knobs[l->nknobs++] = k;
	return 0;
fail:
	free(name);
	return -1;
}

/* --- pages and questions ---------------------------------------------------- */

static int
parse_page(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p);
	struct hd_lesson *l = p->l;
	struct hd_page pg;
	struct hd_buf text;
	int done = 0, nlines = 0;

	p->pos++;
	memset(&pg, 0, sizeof pg);
	if ((pg.title = hd_parse_string(p, "the page's title")) == NULL)
		return -1;
	if (hd_parse_eol(p) < 0 || hd_parse_push_block(p, kw, "page") < 0) {
		free(pg.title);
		return -1;
	}
	hd_buf_init(&text);
	while (!done) {
		const struct hd_tok *t = tok(p);

		if (t->kind == HD_TOK_TEXT) {
			if (nlines++ > 0)
				hd_buf_putc(&text, '\n');
			hd_buf_puts(&text, t->str);
			p->pos += 2; /* TEXT NL */
			continue;
		}
		if (hd_parse_take_end(p, &done) < 0)
			goto fail;
		if (done)
			break;
		if (t->kind == HD_TOK_EOF || hd_parse_in_words(hd_parse_top_words, t)) {
			hd_parse_never_closed(p, t);
			goto fail;
		}
		{
			char d[96];
			hd_tok_describe(t, d, sizeof d);
			hd_parse_error(p, t,
				       "expected a page line starting with '|' or 'end', "
				       "found %s",
				       d);
			goto fail;
		}
	}
	pg.text = hd_buf_take(&text);
	if (pg.text == NULL)
		pg.text = hd_xstrdup("");
	hd_buf_free(&text);
	l->pages = hd_xrealloc(l->pages, (size_t)(l->npages + 1) * sizeof *l->pages);
	l->pages[l->npages++] = pg;
	return 0;
fail:
	hd_buf_free(&text);
	free(pg.title);
	return -1;
}

static void
question_free(struct hd_question *q)
{
	int i;

	free(q->id);
	free(q->prompt);
	for (i = 0; i < q->noptions; i++) {
		free(q->options[i]);
		free(q->option_ids[i]);
		if (q->option_feedback != NULL)
			free(q->option_feedback[i]);
	}
	free(q->option_feedback);
	free(q->options);
	free(q->option_ids);
	free(q->order);
	free(q->estimate_expr);
	free(q->explain);
	for (i = 0; i < q->nhints; i++)
		free(q->hints[i]);
	free(q->hints);
	free(q->scenario);
	hd_question_grade_free(q);
}

static int
find_option(const struct hd_question *q, const struct hd_tok *t)
{
	int i;

	for (i = 0; i < q->noptions; i++)
		if (strlen(q->option_ids[i]) == t->len &&
		    memcmp(q->option_ids[i], t->p, t->len) == 0)
			return i;
	return -1;
}

/*
 * What may follow an option's text on its line, for option i (just read):
 * `feedback "..."`, shown when the learner chooses it.  Attributes of
 * options each have their own clause here.
 */
static int
parse_option_attrs(struct hd_parser *p, struct hd_question *q, int i)
{
	while (!at_eol(tok(p))) {
		const struct hd_tok *t = tok(p);
		char d[96], sf[80];

		if (is_kw(t, "feedback") && q->kind == HD_Q_CHOICE) {
			if (q->option_feedback != NULL && q->option_feedback[i] != NULL)
				return hd_parse_error(p, t, "'feedback' is given twice");
			p->pos++;
			if (q->option_feedback == NULL)
				q->option_feedback = hd_xcalloc(HD_LESSON_MAX_OPTIONS,
								sizeof *q->option_feedback);
			if ((q->option_feedback[i] = hd_parse_string(
				 p, "what to tell a learner who chooses it")) == NULL)
				return -1;
			continue;
		}
		hd_tok_describe(t, d, sizeof d);
		hd_parse_so_far(p, sf, sizeof sf);
		if (is_kw(t, "feedback"))
			return hd_parse_error(p, t,
					      "'feedback' belongs to the options of a choice "
					      "question, not to the items of an order question");
		return hd_parse_error(p, t,
				      "unexpected %s after %s: expected 'feedback \"...\"' or "
				      "the end of the line",
				      d, sf);
	}
	return hd_parse_eol(p);
}

static int
parse_question_stmt(struct hd_parser *p, struct hd_question *q, struct hd_expr **est,
		    int *has_answer, const struct hd_tok **scen_tok)
{
	const struct hd_tok *kw = tok(p), *t;
	char *v;

	p->stmt_start = p->pos;
	if (is_kw(kw, "option") || is_kw(kw, "item")) {
		const char *want = q->kind == HD_Q_CHOICE ? "option" : "item";
		char *id;
		if (q->kind == HD_Q_ESTIMATE || !is_kw(kw, want))
			return hd_parse_error(p, kw, "'%.*s' does not belong in a%s question",
					      (int)kw->len, kw->p,
					      q->kind == HD_Q_ESTIMATE   ? "n estimate" :
						  q->kind == HD_Q_CHOICE ? " choice" :
									   "n order");
		p->pos++;
		t = tok(p);
		if ((id = hd_parse_name(p, "an identifier")) == NULL)
			return -1;
		if (q->noptions >= HD_LESSON_MAX_OPTIONS) {
			hd_parse_error(p, kw,
				       "a question has at most %d %ss (answered with the "
				       "letters a to %c)",
				       HD_LESSON_MAX_OPTIONS, want,
				       'a' + HD_LESSON_MAX_OPTIONS - 1);
			free(id);
			return -1;
		}
		if (find_option(q, t) >= 0) {
			hd_parse_error(p, t, "%s '%s' is given twice", want, id);
			free(id);
			return -1;
		}
		if ((v = hd_parse_string(p, "its text")) == NULL) {
			free(id);
			return -1;
		}
		q->options = hd_xrealloc(q->options,
					 (size_t)(q->noptions + 1) * sizeof *q->options);
		q->option_ids = hd_xrealloc(q->option_ids,
					    (size_t)(q->noptions + 1) * sizeof *q->option_ids);
		q->options[q->noptions] = v;
		q->option_ids[q->noptions++] = id;
		return parse_option_attrs(p, q, q->noptions - 1);
	}
	if (is_kw(kw, "answer")) {
		if (*has_answer)
			return hd_parse_error(p, kw, "'answer' is given twice");
		*has_answer = 1;
		p->pos++;
		if (q->kind == HD_Q_CHOICE) {
			t = tok(p);
			if (t->kind != HD_TOK_NAME || (q->answer = find_option(q, t)) < 0) {
				char d[96];
				hd_tok_describe(t, d, sizeof d);
				return hd_parse_error(p, t,
						      "expected the id of an option "
						      "declared above "
						      "after 'answer', found %s",
						      d);
			}
			p->pos++;
			return hd_parse_eol(p);
		}
		if (q->kind == HD_Q_ORDER) {
			int n = 0, k;
			q->order = hd_xcalloc((size_t)q->noptions + 1, sizeof *q->order);
			while (!at_eol(tok(p))) {
				t = tok(p);
				if (t->kind != HD_TOK_NAME || (k = find_option(q, t)) < 0) {
					char d[96];
					hd_tok_describe(t, d, sizeof d);
					return hd_parse_error(p, t,
							      "expected the id of an item "
							      "declared "
							      "above, found %s",
							      d);
				}
				if (n >= q->noptions)
					return hd_parse_error(p, t,
							      "the answer lists more ids "
							      "than "
							      "there are items");
				for (int j = 0; j < n; j++)
					if (q->order[j] == k)
						return hd_parse_error(p, t,
								      "item '%.*s' is "
								      "listed twice",
								      (int)t->len, t->p);
				q->order[n++] = k;
				p->pos++;
			}
			if (n != q->noptions || n == 0)
				return hd_parse_error(p, tok(p),
						      "the answer must list all %d "
						      "items "
						      "once each; it lists %d",
						      q->noptions, n);
			return hd_parse_eol(p);
		}
		/* estimate: EXPR unit UNIT within PERCENT */
		{
			const struct hd_tok *ut;
			enum hd_dim udim;
			double f, w;
			size_t ulen;

			if ((*est = hd_parse_expr_ex(
				 p, HD_PARSE_DIM_ANY, HD_EXPR_ALLOW_CALLS,
				 "an expression such as makespan(pinned) after 'answer'")) == NULL)
				return -1;
			q->estimate_expr = hd_xstrndup((*est)->src_p, (*est)->src_len);
			if (!is_kw(tok(p), "unit")) {
				char d[96];
				hd_tok_describe(tok(p), d, sizeof d);
				return hd_parse_error(p, tok(p),
						      "expected 'unit UNIT' after the "
						      "answer "
						      "expression (e.g. 'unit ms'), found %s",
						      d);
			}
			p->pos++;
			ut = tok(p);
			/* The unit is the adjacent tokens, as in "GB/s". */
			ulen = 0;
			while (!at_eol(peek(p, 0)) && (ulen == 0 || !tok(p)->space_before) &&
			       !is_kw(tok(p), "within")) {
				ulen = (size_t)(tok(p)->p + tok(p)->len - ut->p);
				p->pos++;
			}
			if (ulen == 0 || !hd_unit_lookup(ut->p, ulen, &udim, &f) ||
			    udim == HD_DIM_NONE) {
				char d[96];
				hd_tok_describe(ut, d, sizeof d);
				return hd_parse_error(p, ut,
						      "expected a unit such as ms, MiB or "
						      "GB/s "
						      "after 'unit', found %s",
						      d);
			}
			if (udim != (*est)->dim)
				return hd_parse_error(p, ut,
						      "the answer is %s but the unit "
						      "'%.*s' is "
						      "%s",
						      hd_parse_dim_found((*est)->dim), (int)ulen,
						      ut->p, hd_parse_dim_found(udim));
			q->estimate_dim = udim;
			if (!is_kw(tok(p), "within")) {
				char d[96];
				hd_tok_describe(tok(p), d, sizeof d);
				return hd_parse_error(p, tok(p),
						      "expected 'within PERCENT' after "
						      "the "
						      "unit (e.g. 'within 25%%'), found %s",
						      d);
			}
			p->pos++;
			t = tok(p);
			if (t->kind != HD_TOK_NUMBER || t->dim != HD_DIM_PERCENT) {
				char d[96];
				hd_tok_describe(t, d, sizeof d);
				return hd_parse_error(p, t,
						      "expected a percentage such as 25%% "
						      "after "
						      "'within', found %s",
						      d);
			}
			w = t->num;
			if (!(w > 0 && w <= 10))
				return hd_parse_error(p, t,
						      "the tolerance must be above 0%% and "
						      "at "
						      "most 1000%%");
			q->tolerance = w;
			p->pos++;
			return hd_parse_eol(p);
		}
	}
	if (is_kw(kw, "explain") || is_kw(kw, "hint")) {
		p->pos++;
		if ((v = hd_parse_string(p, "text")) == NULL)
			return -1;
		if (is_kw(kw, "explain")) {
			if (q->explain != NULL) {
				free(v);
				return hd_parse_error(p, kw, "'explain' is given twice");
			}
			q->explain = v;
		} else {
			q->hints = hd_xrealloc(q->hints,
					       (size_t)(q->nhints + 1) * sizeof *q->hints);
			q->hints[q->nhints++] = v;
		}
		return hd_parse_eol(p);
	}
	if (is_kw(kw, "scenario")) {
		if (q->scenario != NULL)
			return hd_parse_error(p, kw, "'scenario' is given twice");
		p->pos++;
		*scen_tok = tok(p);
		if ((q->scenario = hd_parse_name(p,
						 "the name of the scenario that answers "
						 "the question")) == NULL)
			return -1;
		return hd_parse_eol(p);
	}
	if (hd_question_grade_word(kw))
		return hd_question_grade_stmt(p, q);
	return hd_parse_unknown(p, question_words, "inside a question");
}

static const struct {
	const char *word;
	enum hd_question_kind kind;
} question_kinds[] = {
	{ "choice", HD_Q_CHOICE },
	{ "order", HD_Q_ORDER },
	{ "estimate", HD_Q_ESTIMATE },
};

/* Deferred checks: scenario names in questions, claims resolved at the end. */
struct pending_scen {
	int question;
	int line, col;
};

static int
parse_question(struct hd_parser *p, struct pending_scen **pend, int *npend)
{
	const struct hd_tok *kw = tok(p), *t, *scen_tok = NULL;
	struct hd_lesson *l = p->l;
	struct hd_question q;
	struct hd_expr *est = NULL;
	int has_answer = 0, done = 0, i;
	size_t k;
	char what[96];

	memset(&q, 0, sizeof q);
	q.points = 1;
	p->pos++;
	t = tok(p);
	if ((q.id = hd_parse_name(p, "the question's identifier")) == NULL)
		return -1;
	if (l->nquestions >= HD_LESSON_MAX_NAMES) {
		hd_parse_error(p, kw, "more than %d questions; the limit is %d",
			       HD_LESSON_MAX_NAMES, HD_LESSON_MAX_NAMES);
		goto fail;
	}
	for (i = 0; i < l->nquestions; i++)
		if (strcmp(l->questions[i].id, q.id) == 0) {
			hd_parse_error(p, t, "question '%s' is declared twice", q.id);
			goto fail;
		}
	t = tok(p);
	for (k = 0; k < HD_ARRAY_LEN(question_kinds); k++)
		if (is_kw(t, question_kinds[k].word))
			break;
	if (k == HD_ARRAY_LEN(question_kinds)) {
		char d[96];
		hd_tok_describe(t, d, sizeof d);
		hd_parse_error(p, t,
			       "expected the question's kind (choice, order or estimate) "
			       "after 'question %s', found %s",
			       q.id, d);
		goto fail;
	}
	q.kind = question_kinds[k].kind;
	p->pos++;
	if ((q.prompt = hd_parse_string(p, "the question")) == NULL || hd_parse_eol(p) < 0)
		goto fail;
	snprintf(what, sizeof what, "question %s", q.id);
	if (hd_parse_push_block(p, kw, what) < 0)
		goto fail;
	for (;;) {
		t = tok(p);
		if (hd_parse_take_end(p, &done) < 0)
			goto fail;
		if (done)
			break;
		/* `scenario NAME "title"` or a second `scenario` starts a scenario:
		 * the question's `end` is missing. */
		if (t->kind == HD_TOK_EOF ||
		    (hd_parse_in_words(hd_parse_top_words, t) && !is_kw(t, "scenario")) ||
		    (is_kw(t, "scenario") &&
		     (q.scenario != NULL || peek(p, 2)->kind == HD_TOK_STRING))) {
			hd_parse_never_closed(p, t);
			goto fail;
		}
		if (parse_question_stmt(p, &q, &est, &has_answer, &scen_tok) < 0)
			goto fail;
	}
	if (q.kind != HD_Q_ESTIMATE && q.noptions < 2) {
		hd_parse_error(p, kw, "question %s needs at least two %s", q.id,
			       q.kind == HD_Q_CHOICE ? "options" : "items");
		goto fail;
	}
	if (!has_answer) {
		hd_parse_error(p, kw, "question %s has no 'answer'", q.id);
		goto fail;
	}
	if (hd_question_grade_check(p, &q, kw) < 0)
		goto fail;
	if (scen_tok != NULL) {
		*pend = hd_xrealloc(*pend, (size_t)(*npend + 1) * sizeof **pend);
		(*pend)[*npend].question = l->nquestions;
		(*pend)[*npend].line = scen_tok->line;
		(*pend)[*npend].col = scen_tok->col;
		(*npend)++;
	}
	l->questions = hd_xrealloc(l->questions,
				   (size_t)(l->nquestions + 1) * sizeof *l->questions);
	l->estimates = hd_xrealloc(l->estimates,
				   (size_t)(l->nquestions + 1) * sizeof *l->estimates);
	l->questions[l->nquestions] = q;
	l->estimates[l->nquestions++] = est;
	return 0;
fail:
	hd_expr_free(est);
	question_free(&q);
	return -1;
}

/* --- claims ------------------------------------------------------------------- */

static const struct {
	enum hd_punct punct;
	enum hd_rel rel;
} rel_words[] = {
	{ HD_P_LT, HD_REL_LT }, { HD_P_LE, HD_REL_LE }, { HD_P_GT, HD_REL_GT },
	{ HD_P_GE, HD_REL_GE }, { HD_P_EQ, HD_REL_EQ },
};

/*
 * Parse "LHS REL RHS" into cx (expressions with the HD_EXPR_ALLOW_* flags in
 * `allow`), and set *expr to its source text.  `what` names the statement in
 * messages ("claim"); *relt gets the comparison's token.  -1 with the
 * parser's error set; cx's trees are the caller's to free either way.
 */
static int
parse_comparison(struct hd_parser *p, unsigned allow, const char *what, const char *lhs_what,
		 struct hd_claim_priv *cx, char **expr, const struct hd_tok **relt)
{
	const struct hd_tok *t;
	size_t i;

	if ((cx->lhs = hd_parse_expr_ex(p, HD_PARSE_DIM_ANY, allow, lhs_what)) == NULL)
		return -1;
	t = tok(p);
	for (i = 0; i < HD_ARRAY_LEN(rel_words); i++)
		if (is_punct(t, rel_words[i].punct))
			break;
	if (i == HD_ARRAY_LEN(rel_words)) {
		char d[96];
		hd_tok_describe(t, d, sizeof d);
		return hd_parse_error(p, t,
				      "expected a comparison (<, <=, >, >= or ==) after '%.*s', "
				      "found %s",
				      (int)cx->lhs->src_len, cx->lhs->src_p, d);
	}
	cx->rel = rel_words[i].rel;
	*relt = t;
	p->pos++;
	if ((cx->rhs = hd_parse_expr_ex(p, HD_PARSE_DIM_ANY, allow,
					"an expression after the comparison")) == NULL)
		return -1;
	if (cx->lhs->dim != cx->rhs->dim)
		return hd_parse_error(p, t,
				      "the two sides of the %s do not agree: %s on the left, "
				      "%s on the right",
				      what, hd_parse_dim_found(cx->lhs->dim),
				      hd_parse_dim_found(cx->rhs->dim));
	*expr = hd_xstrndup(cx->lhs->src_p,
			    (size_t)(cx->rhs->src_p + cx->rhs->src_len - cx->lhs->src_p));
	return 0;
}

static int
parse_claim(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p), *t;
	struct hd_lesson *l = p->l;
	struct hd_claim c;
	struct hd_claim_priv cx;
	size_t i;

	memset(&c, 0, sizeof c);
	memset(&cx, 0, sizeof cx);
	cx.within = -1;
	c.line = kw->line;
	c.col = kw->col;
	p->pos++;
	if ((c.text = hd_parse_string(p, "the claim in words")) == NULL)
		return -1;
	if (parse_comparison(p, HD_EXPR_ALLOW_CALLS, "claim",
			     "an expression such as makespan(pageable) after the claim's words",
			     &cx, &c.expr, &t) < 0)
		goto fail;
	if (is_kw(tok(p), "within")) {
		t = peek(p, 1);
		if (t->kind != HD_TOK_NUMBER || t->dim != HD_DIM_PERCENT || !(t->num > 0)) {
			char d[96];
			hd_tok_describe(t, d, sizeof d);
			hd_parse_error(p, t,
				       "expected a percentage such as 10%% after 'within', "
				       "found %s",
				       d);
			goto fail;
		}
		if (cx.rel != HD_REL_EQ) {
			hd_parse_error(p, tok(p), "'within' goes with '==' only");
			goto fail;
		}
		cx.within = t->num;
		p->pos += 2;
	} else if (cx.rel == HD_REL_EQ) {
		hd_parse_error(p, t,
			       "'==' needs a tolerance: add 'within PERCENT', e.g. within "
			       "10%%");
		goto fail;
	}
	if (is_kw(tok(p), "on")) {
		p->pos++;
		for (;;) {
			char *prof = hd_parse_name(p, "a profile name");
			if (prof == NULL)
				goto fail;
			c.profiles = hd_xrealloc(c.profiles,
						 (size_t)(c.nprofiles + 1) * sizeof *c.profiles);
			c.profiles[c.nprofiles++] = prof;
			if (!is_punct(tok(p), HD_P_COMMA))
				break;
			p->pos++;
		}
	}
	if (hd_parse_eol(p) < 0)
		goto fail;
	if (l->nclaims >= HD_LESSON_MAX_CLAIMS) {
		hd_parse_error(p, kw, "more than %d claims; the limit is %d", HD_LESSON_MAX_CLAIMS,
			       HD_LESSON_MAX_CLAIMS);
		goto fail;
	}
	/* room for a power of two of claims: growing one at a time is quadratic */
	if ((l->nclaims & (l->nclaims - 1)) == 0) {
		size_t cap = l->nclaims > 0 ? 2 * (size_t)l->nclaims : 1;

		l->claims = hd_xrealloc(l->claims, cap * sizeof *l->claims);
		l->cx = hd_xrealloc(l->cx, cap * sizeof *l->cx);
	}
	l->claims[l->nclaims] = c;
	l->cx[l->nclaims++] = cx;
	return 0;
fail:
	free(c.text);
	free(c.expr);
	for (i = 0; i < (size_t)c.nprofiles; i++)
		free(c.profiles[i]);
	free(c.profiles);
	hd_expr_free(cx.lhs);
	hd_expr_free(cx.rhs);
	return -1;
}

/* `require LHS REL RHS "message"`: checked whenever the knobs take values. */
static int
parse_require(struct hd_parser *p)
{
	const struct hd_tok *kw = tok(p), *t;
	struct hd_lesson *l = p->l;
	struct hd_require r;

	memset(&r, 0, sizeof r);
	r.cmp.within = 0;
	r.line = kw->line;
	r.col = kw->col;
	p->pos++;
	if (parse_comparison(p, 0, "requirement",
			     "an expression of knobs such as 'steps' after 'require'", &r.cmp,
			     &r.expr, &t) < 0)
		goto fail;
	if ((r.msg = hd_parse_string(p, "what the requirement says, for people")) == NULL ||
	    hd_parse_eol(p) < 0)
		goto fail;
	if (l->nreqs >= HD_LESSON_MAX_NAMES) {
		hd_parse_error(p, kw, "more than %d requirements; the limit is %d",
			       HD_LESSON_MAX_NAMES, HD_LESSON_MAX_NAMES);
		goto fail;
	}
	l->reqs = hd_xrealloc(l->reqs, (size_t)(l->nreqs + 1) * sizeof *l->reqs);
	l->reqs[l->nreqs++] = r;
	return 0;
fail:
	free(r.expr);
	free(r.msg);
	hd_expr_free(r.cmp.lhs);
	hd_expr_free(r.cmp.rhs);
	return -1;
}

/* --- resolution of timing functions ------------------------------------------ */

int
hd_lesson_resolve_call(const struct hd_lesson *l, const struct hd_src *src, struct hd_expr *x,
		       struct hd_err *e)
{
	const struct hd_scen *sc;
	int i;

	x->scen_idx = hd_lesson_find_scenario(l, x->scen);
	if (x->scen_idx < 0) {
		struct hd_buf b;
		hd_buf_init(&b);
		for (i = 0; i < l->nscens; i++)
			hd_buf_printf(&b, "%s%s", i ? ", " : "", l->scens[i].name);
		hd_src_error(src, e, x->scen_line, x->scen_col,
			     "no scenario named '%s' "
			     "(scenarios: %s)",
			     x->scen, b.s ? b.s : "none");
		hd_buf_free(&b);
		return -1;
	}
	if (x->label == NULL)
		return 0;
	sc = &l->scens[x->scen_idx];
	for (i = 0; i < sc->nlabels; i++)
		if (strcmp(sc->labels[i], x->label) == 0)
			return 0;
	{
		struct hd_buf b;
		hd_buf_init(&b);
		for (i = 0; i < sc->nlabels; i++)
			hd_buf_printf(&b, "%s%s", i ? ", " : "", sc->labels[i]);
		hd_src_error(src, e, x->label_line, x->label_col,
			     "scenario %s has no op "
			     "labelled '%s' (labels: %s)",
			     sc->name, x->label, b.s ? b.s : "none; write 'LABEL: statement'");
		hd_buf_free(&b);
	}
	return -1;
}

int
hd_lesson_resolve_expr(const struct hd_lesson *l, const struct hd_src *src, struct hd_expr *x,
		       int *ncalls, struct hd_err *e)
{
	if (x == NULL)
		return 0;
	if (x->kind == HD_EX_CALL) {
		(*ncalls)++;
		return hd_lesson_resolve_call(l, src, x, e);
	}
	if (hd_lesson_resolve_expr(l, src, x->a, ncalls, e) < 0)
		return -1;
	return hd_lesson_resolve_expr(l, src, x->b, ncalls, e);
}

/* Claim i's timing functions in x ask only for what their ops have. */
static int
claim_quantities(struct hd_parser *p, int i, const struct hd_expr *x)
{
	char what[160];

	snprintf(what, sizeof what, "claim \"%.100s\"", p->l->claims[i].text);
	return hd_lint_quantities(p->l, p->src, x, what, p->e);
}

static int
finish(struct hd_parser *p, const struct pending_scen *pend, int npend)
{
	struct hd_lesson *l = p->l;
	int i, n;

	if (l->id == NULL)
		return hd_parse_error_line(p, 1, 1, "the lesson has no 'lesson ID' line");
	if (l->title == NULL)
		return hd_parse_error_line(p, 1, 1, "the lesson has no 'title \"...\"' line");
	if (l->replaces != NULL && strcmp(l->replaces, l->id) != 0)
		return hd_parse_error_line(p, 1, 1,
					   "'replaces %s' names another lesson: a lesson "
					   "replaces the one with its own id, '%s'",
					   l->replaces, l->id);
	if (l->nscens == 0)
		return hd_parse_error_line(p, 1, 1,
					   "the lesson has no scenario: add 'scenario "
					   "NAME' "
					   "... 'end'");
	for (i = 0; i < npend; i++) {
		struct hd_question *q = &l->questions[pend[i].question];
		if (hd_lesson_find_scenario(l, q->scenario) < 0)
			return hd_parse_error_line(p, pend[i].line, pend[i].col,
						   "question %s "
						   "names "
						   "scenario '%s', which does not exist",
						   q->id, q->scenario);
	}
	for (i = 0; i < l->nquestions; i++) {
		char what[128];
		n = 0;
		snprintf(what, sizeof what, "question %s", l->questions[i].id);
		if (hd_lesson_resolve_expr(l, p->src, l->estimates[i], &n, p->e) < 0 ||
		    hd_lint_quantities(l, p->src, l->estimates[i], what, p->e) < 0)
			return -1;
	}
	for (i = 0; i < l->nclaims; i++) {
		n = 0;
		if (hd_lesson_resolve_expr(l, p->src, l->cx[i].lhs, &n, p->e) < 0 ||
		    hd_lesson_resolve_expr(l, p->src, l->cx[i].rhs, &n, p->e) < 0)
			return -1;
		if (n > 0 &&
		    (claim_quantities(p, i, l->cx[i].lhs) < 0 ||
		     claim_quantities(p, i, l->cx[i].rhs) < 0))
			return -1;
		if (n == 0)
			return hd_parse_error_line(
			    p, l->claims[i].line, l->claims[i].col,
			    "the "
			    "claim "
			    "names no scenario: compare timings such as makespan(S), "
			    "time(S.LABEL) or bytes(S.LABEL)");
	}
	return 0;
}

/* --- the top level --------------------------------------------------------------- */

static int
parse_header(struct hd_parser *p)
{
	const struct hd_tok *t = tok(p), *v = peek(p, 1);

	if (!is_kw(t, "hdsim")) {
		char d[96];
		hd_tok_describe(t, d, sizeof d);
		return hd_parse_error(p, t,
				      "expected the format line 'hdsim 1' first, found "
				      "%s",
				      d);
	}
	if (v->kind != HD_TOK_NUMBER || v->dim != HD_DIM_NONE) {
		char d[96];
		hd_tok_describe(v, d, sizeof d);
		return hd_parse_error(p, v,
				      "expected the format version after 'hdsim', found "
				      "%s",
				      d);
	}
	if (v->num != 1)
		return hd_parse_error(p, v,
				      "format version %.*s is not supported: this hdsim "
				      "reads version 1",
				      (int)v->len, v->p);
	p->stmt_start = p->pos;
	p->pos += 2;
	return hd_parse_eol(p);
}

static int
parse_top(struct hd_parser *p)
{
	struct pending_scen *pend = NULL;
	int npend = 0, rc = -1;

	if (parse_header(p) < 0)
		goto out;
	while (tok(p)->kind != HD_TOK_EOF) {
		const struct hd_tok *t = tok(p);

		p->stmt_start = p->pos;
		p->depth = 0;
		if (is_kw(t, "lesson") || is_kw(t, "title") || is_kw(t, "part") ||
		    is_kw(t, "order") || is_kw(t, "summary") || is_kw(t, "rule") ||
		    is_kw(t, "replaces")) {
			if (parse_metadata(p) < 0)
				goto out;
		} else if (is_kw(t, "knob")) {
			if (parse_knob(p) < 0)
				goto out;
		} else if (is_kw(t, "page")) {
			p->seen_block = 1;
			if (parse_page(p) < 0)
				goto out;
		} else if (is_kw(t, "question")) {
			p->seen_block = 1;
			if (parse_question(p, &pend, &npend) < 0)
				goto out;
		} else if (is_kw(t, "scenario")) {
			p->seen_block = 1;
			if (hd_parse_scenario(p) < 0)
				goto out;
		} else if (is_kw(t, "claim")) {
			if (parse_claim(p) < 0)
				goto out;
		} else if (is_kw(t, "require")) {
			if (parse_require(p) < 0)
				goto out;
		} else if (is_kw(t, "end")) {
			hd_parse_error(p, t, "'end' without a block to close");
			goto out;
		} else if (t->kind == HD_TOK_TEXT) {
			hd_parse_error(p, t, "a page line ('|') outside a page");
			goto out;
		} else {
			hd_parse_unknown(p, hd_parse_top_words, "at the top level");
			goto out;
		}
	}
	rc = finish(p, pend, npend);
out:
	free(pend);
	return rc;
}

struct hd_lesson *
hd_lesson_parse(const char *text, size_t len, const char *path, struct hd_err *e)
{
	struct hd_lesson *l = hd_xcalloc(1, sizeof *l);
	struct hd_parser p;

	l->path = hd_xstrdup(path != NULL ? path : "<lesson>");
	l->text = hd_xmalloc(len + 1);
	memcpy(l->text, text, len);
	l->text[len] = '\0';
	l->len = len;
	hd_sha256_hex(l->text, l->len, l->hash);
	hd_src_init(&l->src, l->path, l->text, l->len);

	memset(&p, 0, sizeof p);
	p.l = l;
	p.src = &l->src;
	p.e = e;
	if (hd_lex(&l->src, &p.toks, e) < 0)
		goto fail;
	if (parse_top(&p) < 0)
		goto fail;
	hd_toks_free(&p.toks);
	return l;
fail:
	hd_toks_free(&p.toks);
	hd_lesson_free(l);
	return NULL;
}

struct hd_lesson *
hd_lesson_load(const char *path, struct hd_err *e)
{
	struct hd_lesson *l;
	size_t len;
	char *text = hd_read_file(path, &len, e);

	if (text == NULL)
		return NULL;
	l = hd_lesson_parse(text, len, path, e);
	free(text);
	return l;
}

void
hd_lesson_free(struct hd_lesson *l)
{
	int i, j;

	if (l == NULL)
		return;
	for (i = 0; i < l->npages; i++) {
		free(l->pages[i].title);
		free(l->pages[i].text);
	}
	free(l->pages);
	for (i = 0; i < l->nquestions; i++) {
		question_free(&l->questions[i]);
		hd_expr_free(l->estimates[i]);
	}
	free(l->questions);
	free(l->estimates);
	for (i = 0; i < l->nknobs; i++) {
		free(l->knobs[i].name);
		free(l->knobs[i].text);
	}
	free(l->knobs);
	for (i = 0; i < l->nclaims; i++) {
		free(l->claims[i].text);
		free(l->claims[i].expr);
		for (j = 0; j < l->claims[i].nprofiles; j++)
			free(l->claims[i].profiles[j]);
		free(l->claims[i].profiles);
		hd_expr_free(l->cx[i].lhs);
		hd_expr_free(l->cx[i].rhs);
	}
	free(l->claims);
	free(l->cx);
	for (i = 0; i < l->nscens; i++)
		hd_scen_free(&l->scens[i]);
	free(l->scens);
	for (i = 0; i < l->nreqs; i++) {
		free(l->reqs[i].expr);
		free(l->reqs[i].msg);
		hd_expr_free(l->reqs[i].cmp.lhs);
		hd_expr_free(l->reqs[i].cmp.rhs);
	}
	free(l->reqs);
	free(l->id);
	free(l->replaces);
	free(l->title);
	free(l->part);
	free(l->summary);
	free(l->rule);
	free(l->rule_url);
	hd_src_free(&l->src);
	free(l->text);
	free(l->path);
	free(l);
}

/* --- read-only views ------------------------------------------------------------ */

const char *
hd_lesson_path(const struct hd_lesson *l)
{
	return l->path;
}
const char *
hd_lesson_id(const struct hd_lesson *l)
{
	return l->id;
}
const char *
hd_lesson_hash(const struct hd_lesson *l)
{
	return l->hash;
}
int
hd_lesson_points(const struct hd_lesson *l)
{
	int i, n = 0;

	for (i = 0; i < l->nquestions; i++)
		n += l->questions[i].points;
	return n;
}
const char *
hd_lesson_replaces(const struct hd_lesson *l)
{
	return l->replaces;
}
const char *
hd_lesson_title(const struct hd_lesson *l)
{
	return l->title;
}
const char *
hd_lesson_part(const struct hd_lesson *l)
{
	return l->part;
}
double
hd_lesson_order(const struct hd_lesson *l)
{
	return l->order;
}
const char *
hd_lesson_summary(const struct hd_lesson *l)
{
	return l->summary;
}
const char *
hd_lesson_rule(const struct hd_lesson *l)
{
	return l->rule;
}
const char *
hd_lesson_rule_url(const struct hd_lesson *l)
{
	return l->rule_url;
}
int
hd_lesson_npages(const struct hd_lesson *l)
{
	return l->npages;
}
int
hd_lesson_nquestions(const struct hd_lesson *l)
{
	return l->nquestions;
}
int
hd_lesson_nknobs(const struct hd_lesson *l)
{
	return l->nknobs;
}
int
hd_lesson_nclaims(const struct hd_lesson *l)
{
	return l->nclaims;
}
int
hd_lesson_nscenarios(const struct hd_lesson *l)
{
	return l->nscens;
}

const struct hd_page *
hd_lesson_page(const struct hd_lesson *l, int i)
{
	return i >= 0 && i < l->npages ? &l->pages[i] : NULL;
}

const struct hd_question *
hd_lesson_question(const struct hd_lesson *l, int i)
{
	return i >= 0 && i < l->nquestions ? &l->questions[i] : NULL;
}

const struct hd_knob *
hd_lesson_knob(const struct hd_lesson *l, int i)
{
	return i >= 0 && i < l->nknobs ? &l->knobs[i] : NULL;
}

int
hd_lesson_find_knob(const struct hd_lesson *l, const char *name)
{
	int i;

	for (i = 0; i < l->nknobs; i++)
		if (strcmp(l->knobs[i].name, name) == 0)
			return i;
	return -1;
}

const struct hd_claim *
hd_lesson_claim(const struct hd_lesson *l, int i)
{
	return i >= 0 && i < l->nclaims ? &l->claims[i] : NULL;
}

const char *
hd_lesson_scenario_name(const struct hd_lesson *l, int i)
{
	return i >= 0 && i < l->nscens ? l->scens[i].name : NULL;
}

const char *
hd_lesson_scenario_title(const struct hd_lesson *l, int i)
{
	return i >= 0 && i < l->nscens ? l->scens[i].title : NULL;
}

int
hd_lesson_find_scenario(const struct hd_lesson *l, const char *name)
{
	int i;

	if (name == NULL)
		return -1;
	for (i = 0; i < l->nscens; i++)
		if (strcmp(l->scens[i].name, name) == 0)
			return i;
	return -1;
}

void
hd_lesson_knob_defaults(const struct hd_lesson *l, double *values)
{
	int i;

	for (i = 0; i < l->nknobs; i++)
		values[i] = l->knobs[i].def;
}
