/*
 * scr_question.c - the prediction and the confidence after it
 * (app_priv.h): the question, its options, the scenario whose run answers
 * it (locked until it is answered), the typed answer and the hints taken;
 * flow.c grades it.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/app_priv.h"

/* The title, the prompt and the options; returns the row after them. */
static int
draw_prompt(struct hd_tui_app *a, const struct hd_question *q, int w, int h)
{
	int y, i;

	hd_screen_printf(a->scr, NULL, 1, 0, hd_tui_style(HD_ROLE_TITLE, HD_ATTR_BOLD),
			 "%d  %s: predict before you run (question %d of %d)", a->li + 1,
			 hd_lesson_title(a->l), a->q + 1, hd_lesson_nquestions(a->l));
	y = hd_tui_wrap_draw(a, 2, 2, w - 4, h - 2, "", q->prompt,
			     hd_tui_style(HD_ROLE_TEXT, HD_ATTR_BOLD));
	y++;
	for (i = 0; i < q->noptions && y < h - 4; i++) {
		char first[8];
		snprintf(first, sizeof first, "%c) ", 'a' + i);
		y = hd_tui_wrap_draw(a, 4, y, w - 6, h - 4, first, q->options[i],
				     hd_tui_style(HD_ROLE_TEXT, 0));
	}
	return y + 1;
}

/* The hints taken so far, from row y. */
static void
draw_hints(struct hd_tui_app *a, const struct hd_question *q, int w, int h, int y)
{
	int i;

	for (i = 0; i < a->hints && i < q->nhints && y < h - 2; i++) {
		char first[24];
		snprintf(first, sizeof first, "Hint %d: ", i + 1);
		y = hd_tui_wrap_draw(a, 2, y, w - 4, h - 2, first, q->hints[i],
				     hd_tui_style(HD_ROLE_NOTE, 0));
	}
}

/* Which scenario's run answers q, locked until it is answered; the row after. */
static int
draw_scenario(struct hd_tui_app *a, const struct hd_question *q, int w, int h, int y)
{
	int sc = q->scenario != NULL ? hd_lesson_find_scenario(a->l, q->scenario) : 0;
	char line[512];

	if (sc < 0)
		sc = 0;
	snprintf(line, sizeof line, "The run of scenario '%s' (%s) answers it.",
		 hd_lesson_scenario_name(a->l, sc),
		 hd_lesson_scenario_title(a->l, sc) ? hd_lesson_scenario_title(a->l, sc) : "");
	y = hd_tui_wrap_draw(a, 2, y, w - 4, h - 2, "", line, hd_tui_style(HD_ROLE_AXIS, 0));
	hd_screen_puts(a->scr, NULL, 2, y, "The run stays locked until you answer.",
		       hd_tui_style(HD_ROLE_AXIS, 0));
	return y + 1;
}

static void
draw_question(struct hd_tui_app *a, int w, int h)
{
	static const char *const ask[] = {
		[HD_Q_CHOICE] = "Press the letter of your answer.",
		[HD_Q_ORDER] = "Type the letters in the right order, then Enter: ",
		[HD_Q_ESTIMATE] = "Type your estimate with its unit (a bare number means ms "
				  "for times, MiB for sizes), then Enter: ",
	};
	const struct hd_question *q = hd_tui_flow_cur(a);
	int y = draw_prompt(a, q, w, h);
	int x = hd_screen_puts(a->scr, NULL, 2, y, ask[q->kind], hd_tui_style(HD_ROLE_TITLE, 0));

	if (q->kind != HD_Q_CHOICE) {
		if (x > w - 20) {
			y++;
			x = 4;
		}
		hd_screen_printf(a->scr, NULL, x, y, hd_tui_style(HD_ROLE_TEXT, HD_ATTR_BOLD),
				 "%s_", a->input);
	}
	y += 2;
	y = draw_scenario(a, q, w, h, y);
	draw_hints(a, q, w, h, y);
}

static void
draw_confidence(struct hd_tui_app *a, int w, int h)
{
	const struct hd_question *q = hd_tui_flow_cur(a);
	int y = draw_prompt(a, q, w, h);

	y = hd_tui_wrap_draw(a, 2, y, w - 4, h - 3, "Your answer: ", a->shown,
			     hd_tui_style(HD_ROLE_TEXT, HD_ATTR_BOLD));
	if (hd_tui_flow_feedback(a) != NULL)
		y = hd_tui_wrap_draw(a, 2, y, w - 4, h - 3,
				     "On that answer: ", hd_tui_flow_feedback(a),
				     hd_tui_style(HD_ROLE_NOTE, 0));
	hd_screen_puts(a->scr, NULL, 2, y++,
		       "How sure are you? 1 (a guess) .. 5 (sure), "
		       "or Enter to skip.",
		       hd_tui_style(HD_ROLE_TITLE, 0));
	draw_hints(a, q, w, h, y);
}

/* Option letters, and typed answers with Backspace, before the key table. */
static bool
answer_key(struct hd_tui_app *a, int k)
{
	const struct hd_question *q = hd_tui_flow_cur(a);
	size_t n = strlen(a->input);

	if (q->kind == HD_Q_CHOICE) {
		if (k < 'a' || k >= 'a' + q->noptions)
			return false;
		hd_tui_flow_choose(a, k - 'a');
		return true;
	}
	if (k == KEY_BACKSPACE || k == 127 || k == 8) {
		if (n > 0)
			a->input[n - 1] = '\0';
		return true;
	}
	if (k == 'h' || k == 'q' || k == '?' || k > 126 || k < 32 || n + 1 >= sizeof a->input)
		return false;
	if (q->kind == HD_Q_ORDER && (k < 'a' || k >= 'a' + q->noptions))
		return false;
	a->input[n] = (char)k;
	a->input[n + 1] = '\0';
	return true;
}

/* The confidence digits 1 (a guess) .. 5 (sure). */
static bool
confidence_key(struct hd_tui_app *a, int k)
{
	if (k < '1' || k > '5')
		return false;
	hd_tui_flow_answered(a, k - '0');
	return true;
}

static void
k_hint(struct hd_tui_app *a)
{
	const struct hd_question *q = hd_tui_flow_cur(a);

	if (a->hints < q->nhints)
		a->hints++;
	else
		snprintf(a->msg, sizeof a->msg, "no more hints");
}

static void
k_submit(struct hd_tui_app *a)
{
	const struct hd_question *q = hd_tui_flow_cur(a);

	if (q->kind == HD_Q_CHOICE)
		snprintf(a->msg, sizeof a->msg, "press a letter from a to %c",
			 'a' + q->noptions - 1);
	else
		hd_tui_flow_grade(a);
}

static void
k_skip_confidence(struct hd_tui_app *a)
{
	hd_tui_flow_answered(a, 0);
}

static const struct hd_tui_key question_keys[] = {
	{ 'h', k_hint, "h", "show a hint (counted)" },
	{ 'p', hd_tui_flow_pages, "p", "back to the lesson's pages" },
	{ '\r', k_submit, "Enter", "submit a typed answer" },
	{ '\n', k_submit, NULL, NULL },
	{ KEY_ENTER, k_submit, NULL, NULL },
};

static const struct hd_tui_key confidence_keys[] = {
	{ '\r', k_skip_confidence, "Enter", "skip the confidence" },
	{ '\n', k_skip_confidence, NULL, NULL },
	{ KEY_ENTER, k_skip_confidence, NULL, NULL },
};

const struct hd_tui_scr_ops hd_tui_scr_question = {
	.draw = draw_question,
	.text = answer_key,
	.keys = HD_TUI_KEYS(question_keys),
	.footer = "answer to unlock the run  h hint  q back  ? help",
};

const struct hd_tui_scr_ops hd_tui_scr_confidence = {
	.draw = draw_confidence,
	.text = confidence_key,
	.keys = HD_TUI_KEYS(confidence_keys),
	.footer = "1-5 confidence  Enter skip",
};
