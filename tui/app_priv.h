/*
 * app_priv.h - the lesson browser's shared state and its screen interface,
 * seen only by the files of the browser: app.c (state, main loop,
 * dispatch), flow.c (the lesson flow and grading), app_store.c (progress
 * and measured runs in the database), wrap.c (wrapped text) and one
 * scr_*.c per screen.  Nothing outside tui/ includes it.
 *
 * Each screen is a `const struct hd_tui_scr_ops`: how it draws, the keys
 * it reads as text before its key table, its key table (one entry per key,
 * driving both dispatch and the help overlay) and its footer hint.
 */
#ifndef HD_APP_PRIV_H
#define HD_APP_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/band.h"
#include "lang/catalog.h"
#include "lang/lesson.h"
#include "profile/profile.h"
#include "run/run.h"
#include "store/store.h"
#include "tui/app.h"
#include "tui/screen.h"
#include "tui/term.h"
#include "tui/view.h"

/* The screens; the help overlay is drawn over any of them (app->help). */
enum hd_tui_scr_id {
	HD_TUI_LIST,       /* the lesson list */
	HD_TUI_PAGE,       /* a lesson's pages */
	HD_TUI_QUESTION,   /* the prediction */
	HD_TUI_CONFIDENCE, /* how sure, after the prediction */
	HD_TUI_RUN,        /* the run */
	HD_TUI_KNOBS,      /* the run with the knob panel over it */
	HD_TUI_SUMMARY,    /* the end of a lesson: predictions against runs */
};

/* What the learner said to one question of the open lesson, and how it went. */
struct hd_tui_said {
	bool done;          /* answered since the lesson was opened */
	int correct;        /* 1, 0, -1 not graded */
	char shown[512];    /* the answer in the options' words */
	char verdict[1024]; /* against the model's answer */
};

/* What the store says about one lesson. */
struct hd_tui_mark {
	int answered, right, wrong;
};

struct hd_tui_app {
	struct hd_catalog *cat;
	struct hd_profile prof; /* the profile runs use (P switches it) */
	const struct hd_tui_opts *o;
	struct hd_term *term;
	struct hd_screen *scr;
	struct hd_store *store;
	bool quit, help, reduced;
	enum hd_tui_scr_id screen;
	char msg[1024]; /* one line for the footer */

	/* the lesson list */
	int *rows; /* lessons shown (catalogue indices) */
	int nrows, sel;
	char search[64];
	bool searching;
	struct hd_tui_mark *marks; /* per catalogue lesson */
	int resume;                /* lesson answered last, or -1 */

	/* the open lesson */
	int li;
	const struct hd_lesson *l;
	struct hd_run run;
	bool have_run;
	struct hd_run prev; /* the run before the last knob change */
	bool have_prev;
	struct hd_trace *measured;    /* `m`: the measured run shown beneath, or NULL */
	int measured_sc;              /* the scenario it belongs to */
	struct hd_band measured_band; /* its repeats' band; n 0 when under two stored */
	int knob;                     /* knob selected in the panel */
	struct hd_tui_said *said;     /* [questions]: the answers given */
	bool explore;                 /* no question pending: runs and knobs unlocked */
	bool run_seen;                /* a run of the open lesson has been shown */
	char kinput[80];              /* a knob value being typed */
	bool kinput_on;               /* typing one: keys go to kinput */
	int page, q;

	/* the prediction */
	char input[64];
	int hints;
	double t0;
	char answer[128]; /* as stored: option ids */
	char shown[512];  /* as the learner reads it: the options' text */
	int correct;
	char verdict[1024];

	/* the run */
	int sc, qsc; /* scenario shown; the question's (-1: none) */
	struct hd_events *ev;
	hd_time t;
	bool playing, explained;
	double speed, last;
	int highlight;
	hd_time z0, z1;           /* the timeline's zoom window (z1 <= z0: all) */
	bool legend, compare;     /* L: the legend shown; c: the scenarios compared */
	int rank_from;            /* ranks folded: the first scrolled to (0: unscrolled) */
	struct hd_view_fold fold; /* what the last frame folded (view.h) */
};

/* One key of a screen: what it does, and its line in the help overlay (name
 * and help NULL for a second key of an action already listed). */
struct hd_tui_key {
	int key;
	void (*fn)(struct hd_tui_app *a);
	const char *name, *help;
};

struct hd_tui_keys {
	const struct hd_tui_key *k;
	size_t n;
};
#define HD_TUI_KEYS(table) \
	{ \
		(table), sizeof(table) / sizeof(table)[0] \
	}

struct hd_tui_scr_ops {
	/* Draw the screen into a->scr, w x h (at least the minimum size). */
	void (*draw)(struct hd_tui_app *a, int w, int h);
	/* Keys read as text before the key table; true when taken.  NULL: none. */
	bool (*text)(struct hd_tui_app *a, int k);
	struct hd_tui_keys keys; /* the screen's own keys */
	const char *footer;      /* the main keys, when the footer has no message */
	/* While something moves: move it on by the time since the last frame,
	 * and how long to wait for a key (-1: until one comes).  NULL: nothing. */
	void (*tick)(struct hd_tui_app *a);
	int (*key_wait)(const struct hd_tui_app *a);
};

#define HD_TUI_CTRL(c) ((c)&0x1f)
#define HD_TUI_ESC     27

/* The screens (scr_*.c); hd_tui_scr_help is the overlay: any key closes it. */
extern const struct hd_tui_scr_ops hd_tui_scr_list, hd_tui_scr_page, hd_tui_scr_question,
    hd_tui_scr_confidence, hd_tui_scr_run, hd_tui_scr_knobs, hd_tui_scr_summary, hd_tui_scr_help;

/* ---- app.c --------------------------------------------------------------- */

/* Set *a up for catalogue cat on profile p, on the lesson list with the
 * lesson answered last selected, the database opened (without a terminal:
 * a->term and a->scr are the caller's).  hd_tui_app_free releases it. */
void hd_tui_app_init(struct hd_tui_app *a, struct hd_catalog *cat, const struct hd_profile *p,
		     const struct hd_tui_opts *o);
void hd_tui_app_free(struct hd_tui_app *a);

/* The keys that work on every screen, after the screen's own. */
extern const struct hd_tui_keys hd_tui_keys_all;
/* Hand key k to the help overlay when it is open (it closes; the footer's
 * message stays), else, clearing the message, to the screen a is on: its
 * text keys, its key table, then the keys of every screen. */
void hd_tui_key(struct hd_tui_app *a, int k);
/* The screen a is on. */
const struct hd_tui_scr_ops *hd_tui_screen(const struct hd_tui_app *a);
/* A style of role fg on the default background. */
struct hd_style hd_tui_style(enum hd_role fg, unsigned char attr);
/* Seconds on the monotonic clock. */
double hd_tui_now(void);
/* Back one screen: list -> quit (clearing a search first), knobs -> run,
 * any other -> the list. */
void hd_tui_back(struct hd_tui_app *a);

/* ---- wrap.c -------------------------------------------------------------- */

/* Draw text wrapped to w columns at (x, y), its first line after `first`,
 * stopping at row ymax; returns the row after it. */
int hd_tui_wrap_draw(struct hd_tui_app *a, int x, int y, int w, int ymax, const char *first,
		     const char *text, struct hd_style st);
/* How many rows hd_tui_wrap_draw takes for text in w columns. */
int hd_tui_wrap_lines(const char *text, int w);

/* ---- flow.c -------------------------------------------------------------- */

/* The open lesson's current question, or NULL. */
const struct hd_question *hd_tui_flow_cur(const struct hd_tui_app *a);
/* Run catalogue lesson li and show its first page (or its first question
 * when it has no pages); a lesson whose every question is answered in the
 * database opens in explore mode on its run instead.  On failure the
 * footer says why. */
void hd_tui_flow_open(struct hd_tui_app *a, int li);
/* Release the open lesson's runs; accepts no open lesson. */
void hd_tui_flow_close(struct hd_tui_app *a);
/* Ask question q of the open lesson; past the last one, straight to the run. */
void hd_tui_flow_question(struct hd_tui_app *a, int q);
/* Answer the current choice question with option i (0-based), then ask how sure. */
void hd_tui_flow_choose(struct hd_tui_app *a, int i);
/* The lesson's feedback on the option just chosen in the current choice
 * question (`option ID "text" feedback "..."`), or NULL. */
const char *hd_tui_flow_feedback(const struct hd_tui_app *a);
/* Grade the typed answer, then ask how sure; when the answer is not
 * complete the footer says why and the question stays. */
void hd_tui_flow_grade(struct hd_tui_app *a);
/* Store the answer with its confidence (0: skipped); then the next question
 * not yet answered, and when every one is, the run of the first question's
 * scenario, which unlocks each scenario as its question was answered. */
void hd_tui_flow_answered(struct hd_tui_app *a, int confidence);
/* After an explanation: the next question's run and explanation, or the
 * lesson's summary after the last; refused (with a message) before the
 * explanation.  In explore mode it says what can be done. */
void hd_tui_flow_continue(struct hd_tui_app *a);
/* Past the last page: back to the run when exploring or every question is
 * answered, else the first question not answered. */
void hd_tui_flow_pages_done(struct hd_tui_app *a);
/* Back to the open lesson's pages (p, from any screen of the lesson). */
void hd_tui_flow_pages(struct hd_tui_app *a);
/* Explore the open lesson: its runs and knobs, every scenario unlocked. */
void hd_tui_flow_explore(struct hd_tui_app *a);
/* Try the open lesson's questions again, from the first (A). */
void hd_tui_flow_retry(struct hd_tui_app *a);
/* Open the lesson after the open one; after the last, the list. */
void hd_tui_flow_next_lesson(struct hd_tui_app *a);
/* The next step for the footer, with its key ("End: play the run to its
 * end for the explanation"). */
const char *hd_tui_flow_next_step(const struct hd_tui_app *a);
/* Re-run the open lesson on the current profile with knob kn set to v (kn
 * -1: the knobs as they are); the run before stays as the ghost. */
void hd_tui_flow_rerun(struct hd_tui_app *a, int kn, double v);
/* The next profile: the built-ins, then the learner's calibrated ones; an
 * open run is re-run on it. */
void hd_tui_flow_profile(struct hd_tui_app *a);

/* ---- app_store.c --------------------------------------------------------- */

/* Open the database and read the progress marks; without it the footer
 * says answers are not stored. */
void hd_tui_store_open(struct hd_tui_app *a);
/* Re-read the progress marks and the lesson to resume from the database. */
void hd_tui_store_marks(struct hd_tui_app *a);
/* Store the current question's answer with its confidence, then re-read
 * the marks; a failure is said in the footer. */
void hd_tui_store_answer(struct hd_tui_app *a, int confidence);
/* Replace a->measured by the newest measured run of the shown scenario (and
 * a->measured_band by its repeats' band) and put its row in *row; false
 * (the footer says why) when there is none or it cannot be read. */
bool hd_tui_store_measured(struct hd_tui_app *a, struct hd_store_run_row *row);

/* ---- screens' shared actions --------------------------------------------- */

/* scr_list.c: list the lessons the search matches, keeping the selected one. */
void hd_tui_list_filter(struct hd_tui_app *a);
/* scr_run.c: show scenario sc of the run from its start, playing. */
void hd_tui_run_show(struct hd_tui_app *a, int sc);
/* scr_run.c: the measured run beside the predicted one (m toggles it). */
void hd_tui_run_measured(struct hd_tui_app *a);
/* scr_knobs.c: open or close the knob panel over the run. */
void hd_tui_knobs_toggle(struct hd_tui_app *a);

#endif
