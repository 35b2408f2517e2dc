/*
 * term.h - the curses adapter: the one module that talks to the terminal.
 *
 * It opens curses, picks a colour tier (256, 16 or none), maps the render
 * buffer's semantic roles to colours through one table, copies a
 * struct hd_screen out (only the cells that changed since the last paint),
 * reads keys, and puts the terminal back as it found it: on close, at exit,
 * and after SIGINT / SIGTERM (the handler only sets a flag; the caller's
 * loop sees it through hd_term_getkey and closes).
 */
#ifndef HD_TERM_H
#define HD_TERM_H

#include <stdbool.h>

#include "base/util.h"
#include "tui/screen.h"

/* hd_term_getkey's answers besides curses key codes. */
#define HD_TERM_TIMEOUT (-1) /* no key within the timeout */
#define HD_TERM_SIGNAL  (-2) /* SIGINT or SIGTERM arrived: close and leave */

enum hd_term_colors {
	HD_TERM_MONO,
	HD_TERM_16,
	HD_TERM_256,
};

struct hd_term;

/*
 * Open the terminal on stdin / stdout.  no_color (or NO_COLOR set and
 * non-empty) gives monochrome: roles become bold, reverse and dim.  Returns
 * NULL with e set when curses cannot start (no terminal, unknown TERM).
 * Only one terminal is open at a time.
 */
struct hd_term *hd_term_open(bool no_color, struct hd_err *e);
/* Restore the terminal and free t; accepts NULL, safe to call twice via atexit. */
void hd_term_close(struct hd_term *t);

/* The terminal's size in cells (updated after KEY_RESIZE). */
void hd_term_size(const struct hd_term *t, int *w, int *h);
/* Whether the locale is UTF-8: if not, draw with the ASCII glyphs. */
bool hd_term_utf8(const struct hd_term *t);
enum hd_term_colors hd_term_colors(const struct hd_term *t);
/* The colour of role r (as foreground or background) on a terminal of that tier: a curses
 * colour number (COLOR_RED ... on 16 colours, 0..255 on 256), or -1 for the
 * terminal's default (always in monochrome).  Needs no open terminal. */
short hd_term_role_color(enum hd_role r, enum hd_term_colors tier);

/* Copy s to the terminal: only cells that differ from the last paint. */
void hd_term_paint(struct hd_term *t, const struct hd_screen *s);
/* Forget what is on the terminal so the next paint redraws every cell
 * (Ctrl-L, after a resize). */
void hd_term_invalidate(struct hd_term *t);

/*
 * Wait for a key: timeout_ms < 0 blocks until one comes (no CPU use while
 * idle), otherwise waits at most that long.  Returns a curses key code
 * (KEY_RESIZE included), HD_TERM_TIMEOUT, or HD_TERM_SIGNAL.
 */
int hd_term_getkey(struct hd_term *t, int timeout_ms);
/* The signal that made hd_term_getkey answer HD_TERM_SIGNAL, else 0. */
int hd_term_signal(void);

#endif
