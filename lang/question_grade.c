/*
 * question_grade.c - the statements of a question that grading reads:
 * `points N`, what the question is worth, and `misconception "..."`, the
 * wrong idea the option declared just above it stands for (the class
 * report shows it beside how many chose that option).  Kept apart from
 * lesson.c's question parser, which calls in through lesson_priv.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lesson_priv.h"
#include "lang/parse.h"

bool
hd_question_grade_word(const struct hd_tok *kw)
{
	return is_kw(kw, "points") || is_kw(kw, "misconception");
}

/* `points N`: a whole number from 0 to HD_LESSON_MAX_POINTS, once. */
static int
parse_points(struct hd_parser *p, struct hd_question *q, const struct hd_tok *kw)
{
	const struct hd_tok *t;

	if (q->has_points)
		return hd_parse_error(p, kw, "'points' is given twice");
	p->pos++;
	t = tok(p);
	if (t->kind != HD_TOK_NUMBER || t->dim != HD_DIM_NONE || t->num != floor(t->num) ||
	    t->num < 0 || t->num > HD_LESSON_MAX_POINTS) {
		char d[96];

		hd_tok_describe(t, d, sizeof d);
		return hd_parse_error(p, t,
				      "expected a whole number of points from 0 to %d after "
				      "'points', found %s",
				      HD_LESSON_MAX_POINTS, d);
	}
	q->points = (int)t->num;
	q->has_points = true;
	p->pos++;
	return hd_parse_eol(p);
}

/* `misconception "..."`: for the option declared last, in a choice. */
static int
parse_misconception(struct hd_parser *p, struct hd_question *q, const struct hd_tok *kw)
{
	int k = q->noptions - 1;
	char *v;

	if (q->kind != HD_Q_CHOICE)
		return hd_parse_error(p, kw,
				      "'misconception' belongs to the options of a choice "
				      "question");
	if (k < 0)
		return hd_parse_error(p, kw,
				      "'misconception' explains the option declared just above "
				      "it: write it after 'option ID \"text\"'");
	if (q->misconceptions != NULL && q->misconceptions[k] != NULL)
		return hd_parse_error(p, kw, "option %s already has a misconception",
				      q->option_ids[k]);
	p->pos++;
	if ((v = hd_parse_string(p, "what choosing the option suggests the learner thinks")) ==
	    NULL)
		return -1;
	if (q->misconceptions == NULL)
		q->misconceptions = hd_xcalloc(HD_LESSON_MAX_OPTIONS, sizeof *q->misconceptions);
	q->misconceptions[k] = v;
	return hd_parse_eol(p);
}

int
hd_question_grade_stmt(struct hd_parser *p, struct hd_question *q)
{
	const struct hd_tok *kw = tok(p);

	if (is_kw(kw, "points"))
		return parse_points(p, q, kw);
	return parse_misconception(p, q, kw);
}

int
hd_question_grade_check(struct hd_parser *p, const struct hd_question *q, const struct hd_tok *kw)
{
	if (q->kind == HD_Q_CHOICE && q->misconceptions != NULL && q->answer >= 0 &&
	    q->answer < q->noptions && q->misconceptions[q->answer] != NULL)
		return hd_parse_error(p, kw,
				      "question %s: option %s is the answer, so it stands for "
				      "no misconception; give the misconception to a wrong option",
				      q->id, q->option_ids[q->answer]);
	return 0;
}

void
hd_question_grade_free(struct hd_question *q)
{
	int i;

	if (q->misconceptions != NULL)
		for (i = 0; i < HD_LESSON_MAX_OPTIONS; i++)
			free(q->misconceptions[i]);
	free(q->misconceptions);
}
