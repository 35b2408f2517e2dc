/*
 * app.c - the terminal lesson browser (app.h): screens, keys, playback.
 *
 * One loop: draw the current screen into the render buffer, paint it, wait
 * for a key (blocking while nothing moves, with a frame timeout while a run
 * plays), dispatch the key through the key table.  The flow of a lesson is
 * pages -> prediction (the run stays locked until it is answered) ->
 * confidence -> the run -> the explanation, once per question.
 */
#include "config.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "tui/app.h"
#include "ir/backend.h"
#include "render/report.h"
#include "tui/screen.h"
#include "store/store.h"
#include "tui/term.h"
#include "render/timeline.h"
#include "run/verify.h"
#include "tui/view.h"
#include "run/backends.h"

#define MIN_W 80
#define MIN_H 24
#define PLAY_SECONDS 6.0        /* a whole run at 1x */
#define STEP_SECONDS 0.6        /* reduced motion: one event per step at 1x */
#define FRAME_MS 33
#define SPEED_MIN 0.25
#define SPEED_MAX 8.0

enum screen_id {
	S_BROWSER,
	S_PAGE,
	S_QUESTION,
	S_CONFIDENCE,
	S_RUN,
	S_KNOBS,        /* the run with the knob panel over it */
};
#define M_BROWSER (1u << S_BROWSER)
#define M_PAGE (1u << S_PAGE)
#define M_QUESTION (1u << S_QUESTION)
#define M_CONF (1u << S_CONFIDENCE)
#define M_RUN (1u << S_RUN)
#define M_KNOBS (1u << S_KNOBS)
#define M_ALL (M_BROWSER | M_PAGE | M_QUESTION | M_CONF | M_RUN | M_KNOBS)

/* What the store says about one lesson. */
struct mark {
	int answered, right, wrong;
};

struct app {
	struct hd_catalog *cat;
	struct hd_profile prof;         /* the profile runs use (P switches it) */
	const struct hd_tui_opts *o;
	struct hd_term *term;
	struct hd_screen *scr;
	struct hd_store *store;
	bool quit, help, reduced;
	enum screen_id screen;
	char msg[1024];                 /* one line for the footer */

	/* browser */
	int *rows;                      /* lessons shown (catalogue indices) */
	int nrows, sel;
	char search[64];
	bool searching;
	struct mark *marks;             /* per catalogue lesson */
	int resume;                     /* lesson answered last, or -1 */

	/* the open lesson */
	int li;
	const struct hd_lesson *l;
	struct hd_run run;
	bool have_run;
	struct hd_run prev;             /* the run before the last knob change */
	bool have_prev;
	struct hd_trace *measured;      /* `m`: the measured run shown beneath, or NULL */
	int measured_sc;                /* the scenario it belongs to */
	int knob;                       /* knob selected in the panel */
	int page, q;

	/* the prediction */
	char input[64];
	int hints;
	double t0;
	char answer[128];
	int correct;
	char verdict[256];

	/* the run */
	int sc, qsc;                    /* scenario shown; the question's (-1: none) */
	struct hd_events *ev;
	hd_time t;
	bool playing, explained;
	double speed, last;
	int highlight;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct hd_style
sty(enum hd_role fg, unsigned char attr)
{
	struct hd_style s = { (unsigned char)fg, HD_ROLE_DEFAULT, attr };
	return s;
}

static const struct hd_question *
cur_question(const struct app *a)
{
	if (a->l == NULL || a->q < 0 || a->q >= hd_lesson_nquestions(a->l))
		return NULL;
	return hd_lesson_question(a->l, a->q);
}

/* ---- progress ------------------------------------------------------------ */

struct seen {
	struct app *a;
	char **keys;                    /* "lesson\tquestion" already counted */
	int n;
};

static int
count_answer(void *ctx, const struct hd_store_progress *row)
{
	struct seen *s = ctx;
	char key[512];
	int i;

	snprintf(key, sizeof key, "%s\t%s", row->lesson, row->question);
	for (i = 0; i < s->n; i++)
		if (strcmp(s->keys[i], key) == 0)
			return 0;               /* an older answer: the newest counts */
	s->keys = hd_xrealloc(s->keys, sizeof *s->keys * (size_t)(s->n + 1));
	s->keys[s->n++] = hd_xstrdup(key);
	for (i = 0; i < hd_catalog_count(s->a->cat); i++) {
		if (strcmp(hd_lesson_id(hd_catalog_get(s->a->cat, i)), row->lesson) != 0)
			continue;
		if (s->a->resume < 0)
			s->a->resume = i;       /* rows come newest first */
		s->a->marks[i].answered++;
		if (row->correct == 1)
			s->a->marks[i].right++;
		else if (row->correct == 0)
			s->a->marks[i].wrong++;
		break;
	}
	return 0;
}

static void
load_marks(struct app *a)
{
	struct seen s = { a, NULL, 0 };
	struct hd_err e = { 0 };
	int i;

	memset(a->marks, 0, sizeof *a->marks * (size_t)(hd_catalog_count(a->cat) + 1));
	a->resume = -1;
	if (a->store != NULL &&
	    hd_store_progress_each(a->store, a->o->learner, NULL, count_answer, &s, &e) != 0)
		snprintf(a->msg, sizeof a->msg, "progress: %s", e.msg);
	for (i = 0; i < s.n; i++)
		free(s.keys[i]);
	free(s.keys);
}

static void
record_answer(struct app *a, int confidence)
{
	const struct hd_question *q = cur_question(a);
	struct hd_store_progress p;
	struct hd_err e = { 0 };

	if (a->store == NULL || q == NULL)
		return;
	memset(&p, 0, sizeof p);
	p.learner = a->o->learner;
	p.lesson = hd_lesson_id(a->l);
	p.question = q->id;
	p.answer = a->answer;
	p.correct = a->correct;
	p.confidence = confidence;
	p.seconds = now_s() - a->t0;
	if (p.seconds < 0)
		p.seconds = 0;
	p.hints = a->hints;
	p.profile = a->prof.name;
	if (hd_store_progress_add(a->store, &p, NULL, &e) != 0)
		snprintf(a->msg, sizeof a->msg, "answer not stored: %s", e.msg);
	load_marks(a);
}

/* ---- browser ------------------------------------------------------------- */

static bool
matches(const struct hd_lesson *l, const char *q)
{
	size_t n = strlen(q);
	const char *fields[2];
	size_t f;

	if (n == 0)
		return true;
	fields[0] = hd_lesson_title(l);
	fields[1] = hd_lesson_id(l);
	for (f = 0; f < 2; f++) {
		const char *s;
		for (s = fields[f]; s != NULL && *s != '\0'; s++)
			if (strncasecmp(s, q, n) == 0)
				return true;
	}
	return false;
}

static void
filter_rows(struct app *a)
{
	int i, keep = a->nrows > 0 && a->sel < a->nrows ? a->rows[a->sel] : -1;

	a->nrows = 0;
	a->sel = 0;
	for (i = 0; i < hd_catalog_count(a->cat); i++)
		if (matches(hd_catalog_get(a->cat, i), a->search)) {
			if (i == keep)
				a->sel = a->nrows;
			a->rows[a->nrows++] = i;
		}
}

static void
mark_text(const struct app *a, int li, char *buf, size_t n, const char **glyph)
{
	const struct mark *m = &a->marks[li];
	int nq = hd_lesson_nquestions(hd_catalog_get(a->cat, li));
	bool ascii = hd_screen_ascii(a->scr);

	*glyph = " ";
	buf[0] = '\0';
	if (m->answered == 0)
		return;
	if (m->wrong > 0)
		*glyph = ascii ? "x" : "\u2717";
	else if (m->answered >= nq)
		*glyph = ascii ? "+" : "\u2713";
	else
		*glyph = ascii ? "." : "\u2022";
	snprintf(buf, n, "%s%d/%d answered, %d right, %d wrong",
		 m->answered >= nq ? "done: " : "", m->answered, nq, m->right, m->wrong);
}

static void
draw_browser(struct app *a, int w, int h)
{
	const char *part = NULL;
	int i, y, line, sel_line = 0, top, list_h = h - 4;
	struct {
		int li;         /* -1: a part heading */
		const char *part;
	} *items = hd_xcalloc((size_t)a->nrows * 2 + 1, sizeof *items);
	int nitems = 0;

	hd_screen_printf(a->scr, NULL, 1, 0, sty(HD_ROLE_TITLE, HD_ATTR_BOLD),
			 "hdsim lessons (%d)  learner: %s  profile: %s",
			 hd_catalog_count(a->cat), a->o->learner, a->prof.name);
	for (i = 0; i < a->nrows; i++) {
		const struct hd_lesson *l = hd_catalog_get(a->cat, a->rows[i]);
		const char *p = hd_lesson_part(l) ? hd_lesson_part(l) : "Lessons";
		if (part == NULL || strcmp(part, p) != 0) {
			items[nitems].li = -1;
			items[nitems++].part = p;
			part = p;
		}
		if (i == a->sel)
			sel_line = nitems;
		items[nitems++].li = i;
	}
	top = sel_line >= list_h ? sel_line - list_h + 1 : 0;
	for (line = top, y = 2; line < nitems && y < 2 + list_h; line++, y++) {
		char mt[96];
		const char *g;
		int r;
		const struct hd_lesson *l;

		if (items[line].li < 0) {
			hd_screen_puts(a->scr, NULL, 1, y, items[line].part,
				       sty(HD_ROLE_LANE, HD_ATTR_BOLD));
			continue;
		}
		r = a->rows[items[line].li];
		l = hd_catalog_get(a->cat, r);
		mark_text(a, r, mt, sizeof mt, &g);
		hd_screen_puts(a->scr, NULL, 3, y, g, sty(HD_ROLE_KERNEL, HD_ATTR_BOLD));
		hd_screen_printf(a->scr, NULL, 5, y, sty(HD_ROLE_TEXT, 0), "%2d  %s", r + 1,
				 hd_lesson_title(l));
		hd_screen_puts(a->scr, NULL, w - 2 - hd_utf8_width(mt) > 50 ?
			       w - 2 - hd_utf8_width(mt) : 50, y, mt, sty(HD_ROLE_AXIS, 0));
		if (items[line].li == a->sel) {
			struct hd_rect rr = { 1, y, w - 2, 1 };
			hd_screen_style(a->scr, rr, sty(HD_ROLE_TEXT, HD_ATTR_REVERSE));
		}
	}
	if (a->nrows == 0)
		hd_screen_puts(a->scr, NULL, 3, 2, "no lesson matches the search",
			       sty(HD_ROLE_TEXT, 0));
	if (a->searching || a->search[0] != '\0')
		hd_screen_printf(a->scr, NULL, 1, h - 2, sty(HD_ROLE_TEXT, HD_ATTR_BOLD),
				 "/%s%s", a->search, a->searching ? "_" : "");
	free(items);
}

static void open_lesson(struct app *a, int li);

static void
k_up(struct app *a)
{
	if (a->sel > 0)
		a->sel--;
}

static void
k_down(struct app *a)
{
	if (a->sel + 1 < a->nrows)
		a->sel++;
}

static void
k_open(struct app *a)
{
	if (a->nrows > 0)
		open_lesson(a, a->rows[a->sel]);
}

static void
k_search(struct app *a)
{
	a->searching = true;
}

/* ---- lesson pages -------------------------------------------------------- */

/* Draw text wrapped to w columns from row y; returns the row after it. */
static int
draw_wrapped(struct app *a, int x, int y, int w, int ymax, const char *first,
	     const char *text, struct hd_style st)
{
	struct hd_buf b;
	char *line, *save = NULL, *src = hd_xstrdup(text ? text : ""), *p, *nl;
	int indent = hd_utf8_width(first);

	/* Each source line is wrapped on its own; blank lines stay. */
	for (p = src; p != NULL; p = nl) {
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		hd_buf_init(&b);
		hd_timeline_wrap(&b, p == src ? first : "", p, w,
				 p == src ? indent : 0);
		for (line = strtok_r(b.s, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save))
			if (y < ymax)
				hd_screen_puts(a->scr, NULL, x, y++, line, st);
		if (b.s == NULL || b.s[0] == '\n' || b.s[0] == '\0')
			y++;
		hd_buf_free(&b);
	}
	free(src);
	return y;
}

/* How many rows draw_wrapped takes for text in w columns. */
static int
wrapped_lines(const char *text, int w)
{
	struct hd_buf b;
	char *src = hd_xstrdup(text ? text : ""), *p, *nl;
	int n = 0;
	size_t i;

	for (p = src; p != NULL; p = nl) {
		nl = strchr(p, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		hd_buf_init(&b);
		hd_timeline_wrap(&b, "", p, w, 0);
		for (i = 0; i < b.len; i++)
			n += b.s[i] == '\n';
		hd_buf_free(&b);
	}
	free(src);
	return n;
}

static void
draw_page(struct app *a, int w, int h)
{
	const struct hd_page *pg = hd_lesson_page(a->l, a->page);
	struct hd_rect box = { 0, 1, w, h - 2 };
	char title[256];

	hd_screen_printf(a->scr, NULL, 1, 0, sty(HD_ROLE_TITLE, HD_ATTR_BOLD), "%d  %s",
			 a->li + 1, hd_lesson_title(a->l));
	snprintf(title, sizeof title, " %s (page %d of %d) ", pg->title ? pg->title : "",
		 a->page + 1, hd_lesson_npages(a->l));
	hd_screen_box(a->scr, box, title, sty(HD_ROLE_BORDER, 0));
	draw_wrapped(a, 2, 3, w - 4, h - 2, "", pg->text, sty(HD_ROLE_TEXT, 0));
}

static void start_question(struct app *a, int q);

static void
k_page_next(struct app *a)
{
	if (a->page + 1 < hd_lesson_npages(a->l))
		a->page++;
	else
		start_question(a, 0);
}

static void
k_page_prev(struct app *a)
{
	if (a->page > 0)
		a->page--;
}

/* ---- the prediction ------------------------------------------------------ */

static void
draw_question(struct app *a, int w, int h)
{
	const struct hd_question *q = cur_question(a);
	int y, i;
	static const char *const ask[] = {
		[HD_Q_CHOICE] = "Press the letter of your answer.",
		[HD_Q_ORDER] = "Type the letters in the right order, then Enter: ",
		[HD_Q_ESTIMATE] = "Type your estimate with its unit (a bare number means ms "
				  "for times, MiB for sizes), then Enter: ",
	};

	hd_screen_printf(a->scr, NULL, 1, 0, sty(HD_ROLE_TITLE, HD_ATTR_BOLD),
			 "%d  %s: predict before you run (question %d of %d)", a->li + 1,
			 hd_lesson_title(a->l), a->q + 1, hd_lesson_nquestions(a->l));
	y = draw_wrapped(a, 2, 2, w - 4, h - 2, "", q->prompt, sty(HD_ROLE_TEXT, HD_ATTR_BOLD));
	y++;
	for (i = 0; i < q->noptions && y < h - 4; i++) {
		char first[8];
		snprintf(first, sizeof first, "%c) ", 'a' + i);
		y = draw_wrapped(a, 4, y, w - 6, h - 4, first, q->options[i],
				 sty(HD_ROLE_TEXT, 0));
	}
	y++;
	if (a->screen == S_CONFIDENCE) {
		hd_screen_printf(a->scr, NULL, 2, y++, sty(HD_ROLE_TEXT, HD_ATTR_BOLD),
				 "Your answer: %s", a->answer);
		hd_screen_puts(a->scr, NULL, 2, y++, "How sure are you? 1 (a guess) .. 5 (sure), "
			       "or Enter to skip.", sty(HD_ROLE_TITLE, 0));
	} else {
		int x = hd_screen_puts(a->scr, NULL, 2, y, ask[q->kind],
				       sty(HD_ROLE_TITLE, 0));
		if (q->kind != HD_Q_CHOICE) {
			if (x > w - 20) {
				y++;
				x = 4;
			}
			hd_screen_printf(a->scr, NULL, x, y, sty(HD_ROLE_TEXT, HD_ATTR_BOLD),
					 "%s_", a->input);
		}
		y += 2;
		hd_screen_puts(a->scr, NULL, 2, y++, "The run stays locked until you answer.",
			       sty(HD_ROLE_AXIS, 0));
	}
	for (i = 0; i < a->hints && i < q->nhints && y < h - 2; i++) {
		char first[24];
		snprintf(first, sizeof first, "Hint %d: ", i + 1);
		y = draw_wrapped(a, 2, y, w - 4, h - 2, first, q->hints[i],
				 sty(HD_ROLE_EVENT, 0));
	}
}

/* The time of a bare number in an estimate: ms, MiB or the base unit. */
static double
bare_unit(enum hd_dim d)
{
	static const struct {
		enum hd_dim dim;
		double factor;
	} units[] = {
		{ HD_DIM_TIME, 1e9 },               /* ms in ps */
		{ HD_DIM_BYTES, 1048576.0 },        /* MiB */
		{ HD_DIM_RATE, 1e9 },               /* GB/s */
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(units); i++)
		if (units[i].dim == d)
			return units[i].factor;
	return 1;
}

/* Grade the typed answer; false (with a message) when it is not complete. */
static bool
grade(struct app *a)
{
	const struct hd_question *q = cur_question(a);
	struct hd_err e = { 0 };
	enum hd_dim dim;
	double v, truth;
	char got[64], want[64];
	int i, n = (int)strlen(a->input);

	if (q->kind == HD_Q_ORDER) {
		bool used[26] = { false };
		if (n != q->noptions) {
			snprintf(a->msg, sizeof a->msg, "type each of the %d letters once",
				 q->noptions);
			return false;
		}
		a->answer[0] = '\0';
		a->correct = 1;
		for (i = 0; i < n; i++) {
			int k = a->input[i] - 'a';
			if (k < 0 || k >= q->noptions || used[k]) {
				snprintf(a->msg, sizeof a->msg,
					 "type each of the %d letters once", q->noptions);
				return false;
			}
			used[k] = true;
			if (q->order == NULL || q->order[i] != k)
				a->correct = 0;
			snprintf(a->answer + strlen(a->answer), sizeof a->answer - strlen(a->answer),
				 "%s%s", i ? " " : "", q->option_ids[k]);
		}
		if (a->correct)
			snprintf(a->verdict, sizeof a->verdict, "Right: %s.", a->answer);
		else {
			char ot[128] = "";
			for (i = 0; q->order != NULL && i < q->noptions; i++)
				snprintf(ot + strlen(ot), sizeof ot - strlen(ot), "%s%s",
					 i ? " " : "", q->option_ids[q->order[i]]);
			snprintf(a->verdict, sizeof a->verdict, "Not quite: you said %s; the "
				 "lesson's order is %s.", a->answer, ot);
		}
		return true;
	}
	/* ESTIMATE */
	if (!hd_quantity_parse(a->input, &dim, &v)) {
		snprintf(a->msg, sizeof a->msg, "'%s' is not a number with a known unit", a->input);
		return false;
	}
	if (dim == HD_DIM_NONE && q->estimate_dim != HD_DIM_NONE) {
		v *= bare_unit(q->estimate_dim);
		dim = q->estimate_dim;
	}
	if (dim != q->estimate_dim) {
		snprintf(a->msg, sizeof a->msg, "the answer is %s", hd_dim_name(q->estimate_dim));
		return false;
	}
	if (!a->have_run || hd_lesson_eval_expr(a->l, q->estimate_expr, a->run.knobs,
						a->run.traces, &truth, &e) != 0) {
		snprintf(a->msg, sizeof a->msg, "cannot grade: %s", e.msg);
		a->correct = -1;
		snprintf(a->answer, sizeof a->answer, "%s", a->input);
		snprintf(a->verdict, sizeof a->verdict, "Not graded.");
		return true;
	}
	a->correct = fabs(v - truth) <= q->tolerance * fabs(truth);
	snprintf(a->answer, sizeof a->answer, "%s", a->input);
	if (dim == HD_DIM_TIME) {
		hd_fmt_time(got, sizeof got, (hd_time)v);
		hd_fmt_time(want, sizeof want, (hd_time)truth);
	} else {
		snprintf(got, sizeof got, "%g", v);
		snprintf(want, sizeof want, "%g", truth);
	}
	snprintf(a->verdict, sizeof a->verdict, "%s You said %s; the model gives %s (within "
		 "%g %% counts).", a->correct ? "Right." : "Off.", got, want, q->tolerance * 100);
	return true;
}

static void
to_confidence(struct app *a)
{
	a->msg[0] = '\0';
	a->screen = S_CONFIDENCE;
}

static void
k_hint(struct app *a)
{
	const struct hd_question *q = cur_question(a);

	if (a->hints < q->nhints)
		a->hints++;
	else
		snprintf(a->msg, sizeof a->msg, "no more hints");
}

static void
k_submit(struct app *a)
{
	const struct hd_question *q = cur_question(a);

	if (q->kind == HD_Q_CHOICE)
		snprintf(a->msg, sizeof a->msg, "press a letter from a to %c",
			 'a' + q->noptions - 1);
	else if (grade(a))
		to_confidence(a);
}

static void start_run(struct app *a);

static void
k_skip_confidence(struct app *a)
{
	record_answer(a, 0);
	start_run(a);
}

/*
 * Keys the prediction screens read as text before the key table: option
 * letters, typed answers, confidence digits.  Returns true when taken.
 */
static bool
answer_key(struct app *a, int k)
{
	const struct hd_question *q = cur_question(a);
	size_t n = strlen(a->input);

	if (a->screen == S_CONFIDENCE) {
		if (k < '1' || k > '5')
			return false;
		record_answer(a, k - '0');
		start_run(a);
		return true;
	}
	if (a->screen != S_QUESTION)
		return false;
	if (q->kind == HD_Q_CHOICE) {
		if (k < 'a' || k >= 'a' + q->noptions)
			return false;
		a->correct = k - 'a' == q->answer;
		snprintf(a->answer, sizeof a->answer, "%s", q->option_ids[k - 'a']);
		snprintf(a->verdict, sizeof a->verdict, "%s You chose %c) %s", a->correct ?
			 "Right." : "Not quite.", k, q->options[k - 'a']);
		to_confidence(a);
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

/* ---- the run ------------------------------------------------------------- */

/*
 * The decisive event of an explanation, by a simple rule: the longest
 * stretch of blocked host time in the question's scenario (what most
 * lessons are about); failing that, the longest span whose label the
 * explanation names; failing that, the longest span of all.
 */
static int
decisive_span(const struct hd_trace *t, const char *explain)
{
	int best[3] = { -1, -1, -1 };
	hd_time len[3] = { -1, -1, -1 };
	size_t i;
	int r;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		hd_time d = s->end - s->start;
		const char *lab = s->label >= 0 && s->label < t->nstrings ?
				  t->strings[s->label] : NULL;
		bool named = lab != NULL && lab[0] != '\0' && explain != NULL &&
			     strstr(explain, lab) != NULL;
		bool cand[3] = { s->kind == HD_SPAN_BLOCKED, named, true };
		for (r = 0; r < 3; r++)
			if (cand[r] && d > len[r]) {
				len[r] = d;
				best[r] = (int)i;
			}
	}
	for (r = 0; r < 3; r++)
		if (best[r] >= 0)
			return best[r];
	return -1;
}

static void
show_scenario(struct app *a, int sc)
{
	const struct hd_question *q = cur_question(a);

	a->sc = sc;
	hd_events_free(a->ev);
	a->ev = hd_events_new(a->run.traces[sc]);
	a->t = 0;
	a->playing = true;
	a->last = now_s();
	a->highlight = sc == a->qsc ? decisive_span(a->run.traces[sc], q ? q->explain : NULL)
				    : -1;
	/* a run that ends in a deadlock says so from the start: the first line */
	if (a->run.traces[sc]->note != NULL) {
		const char *nl = strchr(a->run.traces[sc]->note, '\n');
		int len = nl != NULL ? (int)(nl - a->run.traces[sc]->note) :
		    (int)strlen(a->run.traces[sc]->note);

		snprintf(a->msg, sizeof a->msg, "this run ends in a %.*s", len,
			 a->run.traces[sc]->note);
	}
}

static void
start_run(struct app *a)
{
	const struct hd_question *q = cur_question(a);
	int sc = 0;

	if (!a->have_run || a->run.nscen == 0) {
		a->screen = S_BROWSER;
		snprintf(a->msg, sizeof a->msg, "this lesson has nothing to run");
		return;
	}
	if (q != NULL && q->scenario != NULL &&
	    (sc = hd_lesson_find_scenario(a->l, q->scenario)) < 0)
		sc = 0;
	a->qsc = q != NULL ? sc : -1;
	a->explained = false;
	a->screen = S_RUN;
	show_scenario(a, sc);
}

/* Move the playhead on by the time since the last frame. */
static void
advance(struct app *a)
{
	const struct hd_trace *t;
	double n = now_s(), dt = n - a->last;

	if (a->screen != S_RUN || !a->playing)
		return;
	t = a->run.traces[a->sc];
	if (a->reduced) {
		if (dt < STEP_SECONDS / a->speed)
			return;
		a->t = hd_events_next(a->ev, a->t);
		a->last = n;
	} else {
		a->t += (hd_time)((double)t->makespan * dt * a->speed / PLAY_SECONDS);
		a->last = n;
	}
	if (a->t >= t->makespan) {
		a->t = t->makespan;
		a->playing = false;
	}
}

static void
draw_run(struct app *a, int w, int h)
{
	const struct hd_question *q = cur_question(a);
	const struct hd_trace *t = a->run.traces[a->sc];
	struct hd_view_opts vo;
	struct hd_rect r;
	int expl_h = 0;

	if (a->sc == a->qsc && a->t >= t->makespan)
		a->explained = true;
	hd_screen_printf(a->scr, NULL, 1, 0, sty(HD_ROLE_TITLE, HD_ATTR_BOLD),
			 "%d  %s  scenario %d of %d: %s  [%s]%s", a->li + 1,
			 hd_lesson_title(a->l), a->sc + 1, a->run.nscen,
			 hd_lesson_scenario_name(a->l, a->sc), a->prof.name,
			 a->reduced ? "  (reduced motion)" : "");
	if (a->explained && q != NULL) {
		/* As tall as the text needs, leaving the run at least 14 rows. */
		expl_h = wrapped_lines(a->verdict, w - 4) + wrapped_lines(q->explain, w - 4) + 2;
		if (expl_h > h - 2 - 14)
			expl_h = h - 2 - 14;
		if (expl_h < 3)
			expl_h = 3;
	}
	hd_view_opts_init(&vo);
	vo.t = a->t;
	vo.speed = a->speed;
	vo.playing = a->playing;
	vo.highlight = a->explained && a->sc == a->qsc ? a->highlight : -1;
	vo.ghost = a->have_prev && a->sc < a->prev.nscen ? a->prev.traces[a->sc] : NULL;
	if (a->measured != NULL && a->measured_sc == a->sc) {
		vo.ghost = a->measured;
		vo.ghost_name = "measured";
	}
	r.x = 0;
	r.y = 1;
	r.w = w;
	r.h = h - 2 - expl_h;
	hd_view_run(a->scr, r, t, a->run.sc[a->sc], &vo);
	if (expl_h > 0) {
		struct hd_rect box = { 0, h - 1 - expl_h, w, expl_h };
		int y;
		hd_screen_box(a->scr, box, " Explanation ", sty(HD_ROLE_BORDER, 0));
		y = draw_wrapped(a, 2, box.y + 1, w - 4, box.y + box.h - 1, "", a->verdict,
				 sty(a->correct == 1 ? HD_ROLE_KERNEL : HD_ROLE_BLOCKED,
				     HD_ATTR_BOLD));
		draw_wrapped(a, 2, y, w - 4, box.y + box.h - 1, "", q->explain,
			     sty(HD_ROLE_TEXT, 0));
	}
}

static void
k_play(struct app *a)
{
	if (!a->playing && a->t >= a->run.traces[a->sc]->makespan)
		a->t = 0;
	a->playing = !a->playing;
	a->last = now_s();
}

static void
k_step_next(struct app *a)
{
	a->playing = false;
	a->t = hd_events_next(a->ev, a->t);
}

static void
k_step_prev(struct app *a)
{
	a->playing = false;
	a->t = hd_events_prev(a->ev, a->t);
}

static void
k_faster(struct app *a)
{
	if (a->speed < SPEED_MAX)
		a->speed *= 2;
}

static void
k_slower(struct app *a)
{
	if (a->speed > SPEED_MIN)
		a->speed /= 2;
}

static void
k_home(struct app *a)
{
	a->playing = false;
	a->t = 0;
}

static void
k_end(struct app *a)
{
	a->playing = false;
	a->t = a->run.traces[a->sc]->makespan;
}

static void
k_replay(struct app *a)
{
	a->t = 0;
	a->playing = true;
	a->last = now_s();
}

static void
k_next_scenario(struct app *a)
{
	show_scenario(a, (a->sc + 1) % a->run.nscen);
}

static void
k_reduced(struct app *a)
{
	a->reduced = !a->reduced;
	snprintf(a->msg, sizeof a->msg, "reduced motion %s", a->reduced ? "on" : "off");
}

static void
k_continue(struct app *a)
{
	if (a->qsc >= 0 && !a->explained) {
		snprintf(a->msg, sizeof a->msg, "play the run to its end (End) for the explanation");
		return;
	}
	if (a->q + 1 < hd_lesson_nquestions(a->l))
		start_question(a, a->q + 1);
	else {
		a->screen = S_BROWSER;
		snprintf(a->msg, sizeof a->msg, "lesson %d done", a->li + 1);
	}
}

/* ---- knobs --------------------------------------------------------------- */

/* The unit a knob value is written in for hd_lesson_knob_set: base units. */
static const char *
base_suffix(enum hd_dim d)
{
	static const struct {
		enum hd_dim dim;
		const char *suffix;
	} suffixes[] = {
		{ HD_DIM_BYTES, "B" },
		{ HD_DIM_TIME, "ps" },
		{ HD_DIM_FLOP, "FLOP" },
		{ HD_DIM_RATE, "B/s" },
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(suffixes); i++)
		if (suffixes[i].dim == d)
			return suffixes[i].suffix;
	return "";
}

static void
knob_value_text(const struct hd_knob *k, double v, char *buf, size_t n)
{
	if (k->dim == HD_DIM_BYTES)
		hd_fmt_bytes(buf, n, (uint64_t)v);
	else if (k->dim == HD_DIM_TIME)
		hd_fmt_time(buf, n, (hd_time)v);
	else
		snprintf(buf, n, "%g", v);
}

/*
 * Re-simulate the open lesson with the current profile and knob `ki` set to
 * v (kn -1: the knobs as they are); the run before stays as the ghost.
 */
static void
rerun(struct app *a, int kn, double v)
{
	int nk = hd_lesson_nknobs(a->l), i;
	char **sets = hd_xcalloc((size_t)nk + 1, sizeof *sets);
	struct hd_run next;
	struct hd_err e = { 0 };

	for (i = 0; i < nk; i++) {
		const struct hd_knob *ki = hd_lesson_knob(a->l, i);
		double vi = i == kn ? v : a->run.knobs[i];
		if (ki->dim == HD_DIM_BYTES || ki->dim == HD_DIM_NONE)
			vi = floor(vi);
		sets[i] = hd_xmalloc(160);
		snprintf(sets[i], 160, "%s=%.17g%s", ki->name, vi, base_suffix(ki->dim));
	}
	memset(&next, 0, sizeof next);
	if (hd_run_lesson(&next, a->l, a->li + 1, &a->prof, &hd_sim_backend, sets, nk, &e) != 0)
		snprintf(a->msg, sizeof a->msg, "cannot re-run: %s", e.msg);
	else {
		if (a->have_prev)
			hd_run_free(&a->prev);
		a->prev = a->run;
		a->have_prev = true;
		a->run = next;
		hd_trace_free(a->measured);     /* the knob change shows as the ghost */
		a->measured = NULL;
		show_scenario(a, a->sc < a->run.nscen ? a->sc : 0);
		a->playing = false;
		a->t = a->run.traces[a->sc]->makespan;
	}
	for (i = 0; i < nk; i++)
		free(sets[i]);
	free(sets);
}

/* The selected knob times `factor`, clamped to its range, then re-run. */
static void
change_knob(struct app *a, double factor)
{
	const struct hd_knob *k = hd_lesson_knob(a->l, a->knob);
	double v = a->run.knobs[a->knob] * factor;

	if (v < k->min)
		v = k->min;
	if (v > k->max)
		v = k->max;
	if (v == a->run.knobs[a->knob])
		snprintf(a->msg, sizeof a->msg, "%s is at its %s", k->name,
			 factor > 1 ? "maximum" : "minimum");
	else
		rerun(a, a->knob, v);
}

/* ---- measured runs ------------------------------------------------------ */

struct measured {
	const char *scenario;
	struct hd_store_run_row row;
	int found;
};

static int
newest_measured(void *ctx, const struct hd_store_run_row *row)
{
	struct measured *m = ctx;

	if (strcmp(row->source, "measured") != 0 || strcmp(row->status, "ok") != 0 ||
	    strcmp(row->scenario, m->scenario) != 0)
		return 0;
	m->row = *row;
	m->found = 1;
	return 1;               /* rows come newest first */
}

/*
 * Measured beside predicted: the newest measured run of this scenario in
 * the database (from `hdsim --real`), its makespan against the model's and
 * the model's error.  The measured run has the knob values it was run with.
 */
static void
k_measured(struct app *a)
{
	struct measured m;
	struct hd_err e = { 0 };
	char meas[32], pred[32];
	hd_time p = a->run.traces[a->sc]->makespan;

	if (a->measured != NULL && a->measured_sc == a->sc) {
		hd_trace_free(a->measured);
		a->measured = NULL;
		snprintf(a->msg, sizeof a->msg, "measured run hidden");
		return;
	}

	memset(&m, 0, sizeof m);
	m.scenario = hd_lesson_scenario_name(a->l, a->sc);
	if (a->store == NULL) {
		snprintf(a->msg, sizeof a->msg, "no database: no measured runs");
		return;
	}
	if (hd_store_runs(a->store, hd_lesson_id(a->l), newest_measured, &m, &e) != 0) {
		snprintf(a->msg, sizeof a->msg, "measured runs: %s", e.msg);
		return;
	}
	if (!m.found || m.row.makespan <= 0) {
		snprintf(a->msg, sizeof a->msg, "no measured runs of %s yet: 'hdsim --real %s' on "
			 "a GPU machine stores them", m.scenario, hd_lesson_id(a->l));
		return;
	}
	/* the measured run beneath the predicted one, as ghost bars; m again hides it */
	hd_trace_free(a->measured);
	a->measured = hd_store_run_trace(a->store, m.row.id, &e);
	a->measured_sc = a->sc;
	hd_fmt_time(meas, sizeof meas, m.row.makespan);
	hd_fmt_time(pred, sizeof pred, p);
	snprintf(a->msg, sizeof a->msg, "measured %s (%s, %s) vs predicted %s: error %+.1f %%",
		 meas, m.row.profile[0] ? m.row.profile : "?", m.row.created, pred,
		 100.0 * ((double)p - (double)m.row.makespan) / (double)m.row.makespan);
}

/* The next profile: the built-ins, then the user's calibrated ones; the open
 * run is re-run on it. */
static void
k_profile(struct app *a)
{
	struct hd_verify_calibrated *cal = NULL;
	int nb = hd_profile_builtin_count(), nc = hd_verify_calibrated_profiles(&cal);
	int n = nb + nc, i, cur = -1;

	if (n == 0)
		return;
	for (i = 0; i < n; i++)
		if (strcmp(i < nb ? hd_profile_builtin(i)->name : cal[i - nb].profile.name,
			   a->prof.name) == 0)
			cur = i;
	i = (cur + 1) % n;
	a->prof = i < nb ? *hd_profile_builtin(i) : cal[i - nb].profile;
	free(cal);
	snprintf(a->msg, sizeof a->msg, "profile %s: %s", a->prof.name, a->prof.description);
	if (a->screen == S_RUN || a->screen == S_KNOBS)
		rerun(a, -1, 0);
}

static void
draw_knobs(struct app *a, int w, int h)
{
	int nk = hd_lesson_nknobs(a->l), i, y;
	struct hd_rect box;

	box.w = w < 70 ? w : 70;
	box.h = nk + 5 < h ? nk + 5 : h;
	box.x = w - box.w;
	box.y = 1;
	hd_screen_fill(a->scr, box, " ", sty(HD_ROLE_TEXT, 0));
	hd_screen_box(a->scr, box, " Knobs (Left/Right halve/double, k close) ",
		      sty(HD_ROLE_BORDER, HD_ATTR_BOLD));
	if (nk == 0)
		hd_screen_puts(a->scr, &box, box.x + 2, box.y + 2, "this lesson has no knobs",
			       sty(HD_ROLE_TEXT, 0));
	for (i = 0, y = box.y + 2; i < nk && y < box.y + box.h - 1; i++, y++) {
		const struct hd_knob *k = hd_lesson_knob(a->l, i);
		char v[64];
		knob_value_text(k, a->run.knobs[i], v, sizeof v);
		hd_screen_printf(a->scr, &box, box.x + 2, y, sty(HD_ROLE_TEXT, 0),
				 "%-10s %-12s %s", k->name, v, k->text ? k->text : "");
		if (i == a->knob) {
			struct hd_rect r = { box.x + 1, y, box.w - 2, 1 };
			hd_screen_style(a->scr, r, sty(HD_ROLE_TEXT, HD_ATTR_REVERSE));
		}
	}
}

static void
k_knobs(struct app *a)
{
	a->screen = a->screen == S_KNOBS ? S_RUN : S_KNOBS;
	a->playing = false;
}

static void
k_knob_up(struct app *a)
{
	if (a->knob > 0)
		a->knob--;
}

static void
k_knob_down(struct app *a)
{
	if (a->knob + 1 < hd_lesson_nknobs(a->l))
		a->knob++;
}

static void
k_knob_more(struct app *a)
{
	if (hd_lesson_nknobs(a->l) > 0)
		change_knob(a, 2);
}

static void
k_knob_less(struct app *a)
{
	if (hd_lesson_nknobs(a->l) > 0)
		change_knob(a, 0.5);
}

/* ---- moving between screens ---------------------------------------------- */

static void
close_lesson(struct app *a)
{
	if (a->have_run)
		hd_run_free(&a->run);
	if (a->have_prev)
		hd_run_free(&a->prev);
	a->have_run = a->have_prev = false;
	hd_trace_free(a->measured);
	a->measured = NULL;
	a->knob = 0;
	hd_events_free(a->ev);
	a->ev = NULL;
	a->l = NULL;
}

static void
open_lesson(struct app *a, int li)
{
	struct hd_err e = { 0 };

	close_lesson(a);
	a->li = li;
	a->l = hd_catalog_get(a->cat, li);
	memset(&a->run, 0, sizeof a->run);
	if (hd_run_lesson(&a->run, a->l, li + 1, &a->prof, &hd_sim_backend, NULL, 0, &e) != 0) {
		snprintf(a->msg, sizeof a->msg, "cannot run lesson %s: %s", hd_lesson_id(a->l),
			 e.msg);
		a->l = NULL;
		return;
	}
	a->have_run = true;
	a->page = 0;
	a->q = -1;
	a->msg[0] = '\0';
	if (hd_lesson_npages(a->l) > 0)
		a->screen = S_PAGE;
	else
		start_question(a, 0);
}

static void
start_question(struct app *a, int q)
{
	a->q = q;
	a->input[0] = '\0';
	a->hints = 0;
	a->correct = -1;
	a->verdict[0] = '\0';
	a->t0 = now_s();
	if (q < hd_lesson_nquestions(a->l))
		a->screen = S_QUESTION;
	else {
		a->q = -1;          /* no questions: straight to the run */
		start_run(a);
	}
}

static void
k_back(struct app *a)
{
	if (a->screen == S_BROWSER) {
		if (a->search[0] != '\0') {
			a->search[0] = '\0';
			filter_rows(a);
		} else
			a->quit = true;
		return;
	}
	a->screen = a->screen == S_KNOBS ? S_RUN : S_BROWSER;
	a->msg[0] = '\0';
}

static void
k_quit(struct app *a)
{
	if (a->screen == S_BROWSER)
		a->quit = true;
	else
		k_back(a);
}

static void
k_help(struct app *a)
{
	a->help = true;
}

static void
k_redraw(struct app *a)
{
	hd_term_invalidate(a->term);
}

/* ---- the key table ------------------------------------------------------- */

#define CTRL(c) ((c) & 0x1f)
#define ESC 27

/*
 * Every key: where it works, what it does, and its line in the help overlay
 * (NULL for a second key of an action already listed).
 */
static const struct key {
	int key;
	unsigned screens;
	void (*fn)(struct app *);
	const char *name, *help;
} keys[] = {
	{ KEY_UP, M_BROWSER, k_up, "Up k", "previous lesson" },
	{ 'k', M_BROWSER, k_up, NULL, NULL },
	{ KEY_DOWN, M_BROWSER, k_down, "Down j", "next lesson" },
	{ 'j', M_BROWSER, k_down, NULL, NULL },
	{ '\r', M_BROWSER, k_open, "Enter", "open the lesson" },
	{ '\n', M_BROWSER, k_open, NULL, NULL },
	{ KEY_ENTER, M_BROWSER, k_open, NULL, NULL },
	{ '/', M_BROWSER, k_search, "/", "search titles and ids" },
	{ KEY_RIGHT, M_PAGE, k_page_next, "Right PgDn Space", "next page" },
	{ KEY_NPAGE, M_PAGE, k_page_next, NULL, NULL },
	{ ' ', M_PAGE, k_page_next, NULL, NULL },
	{ '\r', M_PAGE, k_page_next, NULL, NULL },
	{ '\n', M_PAGE, k_page_next, NULL, NULL },
	{ KEY_LEFT, M_PAGE, k_page_prev, "Left PgUp", "previous page" },
	{ KEY_PPAGE, M_PAGE, k_page_prev, NULL, NULL },
	{ 'h', M_QUESTION, k_hint, "h", "show a hint (counted)" },
	{ '\r', M_QUESTION, k_submit, "Enter", "submit a typed answer" },
	{ '\n', M_QUESTION, k_submit, NULL, NULL },
	{ KEY_ENTER, M_QUESTION, k_submit, NULL, NULL },
	{ '\r', M_CONF, k_skip_confidence, "Enter", "skip the confidence" },
	{ '\n', M_CONF, k_skip_confidence, NULL, NULL },
	{ KEY_ENTER, M_CONF, k_skip_confidence, NULL, NULL },
	{ ' ', M_RUN, k_play, "Space", "play / pause" },
	{ KEY_RIGHT, M_RUN, k_step_next, "Right l", "step to the next event" },
	{ 'l', M_RUN, k_step_next, NULL, NULL },
	{ KEY_LEFT, M_RUN, k_step_prev, "Left", "step to the previous event" },
	{ '+', M_RUN, k_faster, "+ -", "faster / slower (0.25x .. 8x)" },
	{ '=', M_RUN, k_faster, NULL, NULL },
	{ '-', M_RUN, k_slower, NULL, NULL },
	{ KEY_HOME, M_RUN, k_home, "Home End", "start / end of the run" },
	{ 'g', M_RUN, k_home, NULL, NULL },
	{ KEY_END, M_RUN, k_end, NULL, NULL },
	{ 'G', M_RUN, k_end, NULL, NULL },
	{ 'r', M_RUN, k_replay, "r", "replay" },
	{ '\t', M_RUN, k_next_scenario, "Tab", "next scenario" },
	{ 'R', M_RUN, k_reduced, "R", "reduced motion: jump between events" },
	{ '\r', M_RUN, k_continue, "Enter n", "next question after the explanation" },
	{ '\n', M_RUN, k_continue, NULL, NULL },
	{ KEY_ENTER, M_RUN, k_continue, NULL, NULL },
	{ 'n', M_RUN, k_continue, NULL, NULL },
	{ 'k', M_RUN | M_KNOBS, k_knobs, "k", "knobs: change one, re-run, compare" },
	{ KEY_UP, M_KNOBS, k_knob_up, "Up Down", "choose a knob" },
	{ KEY_DOWN, M_KNOBS, k_knob_down, NULL, NULL },
	{ KEY_RIGHT, M_KNOBS, k_knob_more, "Right Left", "double / halve it (re-runs at once)" },
	{ '+', M_KNOBS, k_knob_more, NULL, NULL },
	{ KEY_LEFT, M_KNOBS, k_knob_less, NULL, NULL },
	{ '-', M_KNOBS, k_knob_less, NULL, NULL },
	{ 'm', M_RUN | M_KNOBS, k_measured, "m", "measured beside predicted" },
	{ 'P', M_BROWSER | M_RUN | M_KNOBS, k_profile, "P", "next hardware profile (re-runs)" },
	{ '?', M_ALL, k_help, "?", "this help" },
	{ CTRL('L'), M_ALL, k_redraw, "Ctrl-L", "redraw the screen" },
	{ 'q', M_ALL, k_quit, "q Esc", "back; quit from the lesson list" },
	{ ESC, M_ALL, k_back, NULL, NULL },
};

static void
dispatch(struct app *a, int k)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(keys); i++)
		if (keys[i].key == k && (keys[i].screens & (1u << a->screen))) {
			keys[i].fn(a);
			return;
		}
}

/* Keys typed into the search line. */
static bool
search_key(struct app *a, int k)
{
	size_t n = strlen(a->search);

	if (!a->searching)
		return false;
	if (k == ESC) {
		a->search[0] = '\0';
		a->searching = false;
	} else if (k == '\r' || k == '\n' || k == KEY_ENTER)
		a->searching = false;
	else if (k == KEY_BACKSPACE || k == 127 || k == 8) {
		if (n > 0)
			a->search[n - 1] = '\0';
	} else if (k >= 32 && k < 127 && n + 1 < sizeof a->search) {
		a->search[n] = (char)k;
		a->search[n + 1] = '\0';
	} else
		return false;
	filter_rows(a);
	return true;
}

static void
draw_help(struct app *a, int w, int h)
{
	int n = 0, y;
	size_t i;
	struct hd_rect box;

	for (i = 0; i < HD_ARRAY_LEN(keys); i++)
		if (keys[i].help != NULL && (keys[i].screens & (1u << a->screen)))
			n++;
	box.w = w < 64 ? w : 64;
	box.h = n + 4 < h ? n + 4 : h;
	box.x = (w - box.w) / 2;
	box.y = (h - box.h) / 2;
	hd_screen_fill(a->scr, box, " ", sty(HD_ROLE_TEXT, 0));
	hd_screen_box(a->scr, box, " Keys (any key closes) ", sty(HD_ROLE_BORDER, HD_ATTR_BOLD));
	y = box.y + 2;
	for (i = 0; i < HD_ARRAY_LEN(keys) && y < box.y + box.h - 1; i++) {
		if (keys[i].help == NULL || !(keys[i].screens & (1u << a->screen)))
			continue;
		hd_screen_puts(a->scr, &box, box.x + 2, y, keys[i].name,
			       sty(HD_ROLE_LANE, HD_ATTR_BOLD));
		hd_screen_puts(a->scr, &box, box.x + 22, y++, keys[i].help, sty(HD_ROLE_TEXT, 0));
	}
}

/* The footer: a message when there is one, else the main keys. */
static void
draw_footer(struct app *a, int w, int h)
{
	static const char *const hints[] = {
		[S_BROWSER] = "Up/Down move  Enter open  / search  ? help  q quit",
		[S_PAGE] = "Left/Right page  q back  ? help",
		[S_QUESTION] = "answer to unlock the run  h hint  q back  ? help",
		[S_CONFIDENCE] = "1-5 confidence  Enter skip",
		[S_RUN] = "Space play  Left/Right step  +/- speed  End  Tab scenario  k knobs  "
			  "? help",
		[S_KNOBS] = "Up/Down knob  Left/Right halve/double  k close  ? help",
	};
	struct hd_rect r = { 0, h - 1, w, 1 };

	if (a->msg[0] != '\0')
		hd_screen_puts(a->scr, &r, 1, h - 1, a->msg, sty(HD_ROLE_TITLE, HD_ATTR_BOLD));
	else
		hd_screen_puts(a->scr, &r, 1, h - 1, hints[a->screen], sty(HD_ROLE_AXIS, 0));
}

static void
draw(struct app *a)
{
	int w, h, y;

	hd_term_size(a->term, &w, &h);
	if (hd_screen_width(a->scr) != w || hd_screen_height(a->scr) != h)
		hd_screen_resize(a->scr, w, h);
	hd_screen_clear(a->scr);
	if (w < MIN_W || h < MIN_H) {
		char m[96];
		snprintf(m, sizeof m, "terminal too small:%cneed %dx%d, have %dx%d",
			 w >= 42 ? ' ' : '\n', MIN_W, MIN_H, w, h);
		y = draw_wrapped(a, 0, h / 2 - 1, w, h, "", m, sty(HD_ROLE_BLOCKED, HD_ATTR_BOLD));
		hd_screen_puts(a->scr, NULL, 0, y, "q quits", sty(HD_ROLE_TEXT, 0));
		hd_term_paint(a->term, a->scr);
		return;
	}
	switch (a->screen) {
	case S_BROWSER:
		draw_browser(a, w, h);
		break;
	case S_PAGE:
		draw_page(a, w, h);
		break;
	case S_QUESTION:
	case S_CONFIDENCE:
		draw_question(a, w, h);
		break;
	case S_RUN:
		draw_run(a, w, h);
		break;
	case S_KNOBS:
		draw_run(a, w, h);
		draw_knobs(a, w, h);
		break;
	}
	draw_footer(a, w, h);
	if (a->help)
		draw_help(a, w, h);
	hd_term_paint(a->term, a->scr);
}

/* How long to wait for a key: forever unless a run is moving. */
static int
key_timeout(const struct app *a)
{
	if (a->screen != S_RUN || !a->playing)
		return -1;
	if (a->reduced)
		return (int)(STEP_SECONDS / a->speed * 1000);
	return FRAME_MS;
}

int
hd_tui_main(struct hd_catalog *cat, const struct hd_profile *p, const struct hd_tui_opts *o)
{
	struct app a;
	struct hd_err e = { 0 };
	int k, n = hd_catalog_count(cat), i, status = HD_EXIT_OK;

	memset(&a, 0, sizeof a);
	a.cat = cat;
	a.prof = *p;
	a.o = o;
	a.reduced = o->reduced_motion;
	a.speed = 1;
	a.qsc = -1;
	a.rows = hd_xcalloc((size_t)n + 1, sizeof *a.rows);
	a.marks = hd_xcalloc((size_t)n + 1, sizeof *a.marks);
	a.store = hd_store_open(o->db, HD_STORE_RW, &e);
	if (a.store == NULL)
		snprintf(a.msg, sizeof a.msg, "answers are not stored: %s", e.msg);
	load_marks(&a);
	filter_rows(&a);
	for (i = 0; i < a.nrows; i++)
		if (a.rows[i] == a.resume)
			a.sel = i;
	memset(&e, 0, sizeof e);
	if ((a.term = hd_term_open(o->no_color, &e)) == NULL) {
		hd_store_close(a.store);
		free(a.rows);
		free(a.marks);
		return -1;
	}
	a.scr = hd_screen_new(0, 0);
	hd_screen_set_ascii(a.scr, !hd_term_utf8(a.term));
	while (!a.quit) {
		draw(&a);
		k = hd_term_getkey(a.term, key_timeout(&a));
		if (k == HD_TERM_SIGNAL) {
			/* The shell's convention for a program ended by a signal. */
			status = 128 + hd_term_signal();
			break;
		}
		advance(&a);
		if (k == HD_TERM_TIMEOUT || k == KEY_RESIZE)
			continue;
		if (a.help) {
			a.help = false;
			continue;
		}
		a.msg[0] = '\0';
		if (search_key(&a, k) || answer_key(&a, k))
			continue;
		dispatch(&a, k);
	}
	hd_term_close(a.term);
	hd_screen_free(a.scr);
	close_lesson(&a);
	hd_store_close(a.store);
	free(a.rows);
	free(a.marks);
	return status;
}
