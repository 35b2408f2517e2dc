/*
 * term.c - the curses adapter (term.h): colour tiers, painting the render
 * buffer, keys, and restoring the terminal.
 */
#include "config.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/term.h"

/*
 * Each role's colour on 256- and 16-colour terminals (-1: the terminal's
 * default) and its attributes in monochrome, where colour cannot tell a
 * kernel from a copy.  Span roles take the colours every other view gives
 * their looks (ir/spanlook.h; the text timeline's ANSI colours, the SVG's):
 * kernels blue, copies red (lighter towards the host), host work green, API
 * calls cyan, blocked host time grey.
 */
static const struct role_look {
	short c256, c16;
	int mono;
} role_looks[HD_ROLE__COUNT] = {
	[HD_ROLE_DEFAULT] = { -1, -1, 0 },
	[HD_ROLE_TEXT] = { -1, -1, 0 },
	[HD_ROLE_TITLE] = { 220, COLOR_YELLOW, A_BOLD },
	[HD_ROLE_BORDER] = { 244, COLOR_WHITE, 0 },
	[HD_ROLE_AXIS] = { 246, COLOR_WHITE, A_DIM },
	[HD_ROLE_LANE] = { 117, COLOR_CYAN, A_BOLD },
	[HD_ROLE_STATUS] = { 252, COLOR_WHITE, A_REVERSE },
	[HD_ROLE_HOST] = { 71, COLOR_GREEN, 0 },
	[HD_ROLE_API] = { 73, COLOR_CYAN, 0 },
	[HD_ROLE_BLOCKED] = { 245, COLOR_WHITE, A_BOLD },
	[HD_ROLE_STAGING] = { 215, COLOR_YELLOW, A_UNDERLINE },
	[HD_ROLE_COPY_H2D] = { 167, COLOR_RED, 0 },
	[HD_ROLE_COPY_D2H] = { 217, COLOR_RED, 0 },
	[HD_ROLE_COPY_D2D] = { 167, COLOR_RED, 0 },
	[HD_ROLE_KERNEL] = { 67, COLOR_BLUE, A_BOLD },
	[HD_ROLE_EVENT] = { 139, COLOR_MAGENTA, 0 },
	[HD_ROLE_WAIT] = { 240, COLOR_WHITE, A_DIM },
	[HD_ROLE_FAULT] = { 196, COLOR_RED, A_UNDERLINE },
	[HD_ROLE_PREFETCH] = { 176, COLOR_MAGENTA, A_UNDERLINE },
	[HD_ROLE_COMM] = { 114, COLOR_GREEN, A_BOLD },
	[HD_ROLE_PLAYHEAD] = { 226, COLOR_YELLOW, A_BOLD },
	[HD_ROLE_GHOST] = { 238, COLOR_BLACK, A_DIM },
	[HD_ROLE_HIGHLIGHT] = { 226, COLOR_YELLOW, A_REVERSE | A_BOLD },
	[HD_ROLE_BAR] = { 238, COLOR_BLACK, A_DIM },
	[HD_ROLE_GOOD] = { 114, COLOR_GREEN, A_BOLD },
	[HD_ROLE_BAD] = { 203, COLOR_RED, A_BOLD },
	[HD_ROLE_NOTE] = { 229, COLOR_YELLOW, 0 },
};

/* Screen attribute bits to curses attributes. */
static const struct {
	unsigned char bit;
	int attr;
} attr_map[] = {
	{ HD_ATTR_BOLD, A_BOLD },
	{ HD_ATTR_REVERSE, A_REVERSE },
	{ HD_ATTR_DIM, A_DIM },
	{ HD_ATTR_UNDERLINE, A_UNDERLINE },
};

struct hd_term {
	SCREEN *scr;
	enum hd_term_colors colors;
	bool utf8;
	int w, h;
	struct hd_cell *shadow; /* what the terminal shows, w * h */
	int shadow_w, shadow_h;
	short pair[HD_ROLE__COUNT][HD_ROLE__COUNT]; /* 0: not allocated yet */
	int next_pair;
	struct sigaction old_int, old_term;
};

static volatile sig_atomic_t got_signal;
static struct hd_term *open_term; /* for the atexit restore */

static void
on_signal(int sig)
{
	got_signal = sig;
}

static void
restore_at_exit(void)
{
	if (open_term != NULL && !isendwin())
		endwin();
}

struct hd_term *
hd_term_open(bool no_color, struct hd_err *e)
{
	static bool atexit_done;
	struct hd_term *t;
	struct sigaction sa;
	const char *nc = getenv("NO_COLOR"), *cs;

	if (open_term != NULL) {
		hd_err_set(e, HD_EXIT_FAIL, "terminal", "the terminal is already open");
		return NULL;
	}
	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	t = hd_xcalloc(1, sizeof *t);
	t->utf8 = cs != NULL && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
	/* Our handlers first: curses leaves handlers it finds installed alone. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &t->old_int);
	sigaction(SIGTERM, &sa, &t->old_term);
	got_signal = 0;
	t->scr = newterm(NULL, stdout, stdin);
	if (t->scr == NULL) {
		sigaction(SIGINT, &t->old_int, NULL);
		sigaction(SIGTERM, &t->old_term, NULL);
		hd_err_set(e, HD_EXIT_FAIL, "terminal",
			   "cannot start curses on this terminal "
			   "(TERM=%s); try 'hdsim --plain'",
			   getenv("TERM") ? getenv("TERM") : "");
		free(t);
		return NULL;
	}
	set_term(t->scr);
	open_term = t;
	hd_fatal_hook(restore_at_exit);
	if (!atexit_done) {
		atexit(restore_at_exit);
		atexit_done = true;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	if (no_color || (nc != NULL && nc[0] != '\0') || !has_colors())
		t->colors = HD_TERM_MONO;
	else {
		start_color();
		use_default_colors();
		t->colors = COLORS >= 256 ? HD_TERM_256 : COLORS >= 8 ? HD_TERM_16 : HD_TERM_MONO;
	}
	t->next_pair = 1;
	getmaxyx(stdscr, t->h, t->w);
	return t;
}

void
hd_term_close(struct hd_term *t)
{
	if (t == NULL)
		return;
	if (!isendwin()) {
		curs_set(1);
		endwin();
	}
	delscreen(t->scr);
	sigaction(SIGINT, &t->old_int, NULL);
	sigaction(SIGTERM, &t->old_term, NULL);
	if (open_term == t) {
		open_term = NULL;
		hd_fatal_hook(NULL);
	}
	free(t->shadow);
	free(t);
}

void
hd_term_size(const struct hd_term *t, int *w, int *h)
{
	*w = t->w;
	*h = t->h;
}

bool
hd_term_utf8(const struct hd_term *t)
{
	return t->utf8;
}

enum hd_term_colors
hd_term_colors(const struct hd_term *t)
{
	return t->colors;
}

short
hd_term_role_color(enum hd_role r, enum hd_term_colors tier)
{
	if ((unsigned)r >= HD_ROLE__COUNT)
		r = HD_ROLE_DEFAULT;
	switch (tier) {
	case HD_TERM_MONO:
		return -1;
	case HD_TERM_16:
		return role_looks[r].c16;
	case HD_TERM_256:
		return role_looks[r].c256;
	}
	return -1;
}

void
hd_term_invalidate(struct hd_term *t)
{
	free(t->shadow);
	t->shadow = NULL;
	t->shadow_w = t->shadow_h = 0;
	clearok(curscr, TRUE);
}

/* The colour pair of fg on bg, allocated on first use; 0 when the terminal
 * has run out of pairs (then the default colours). */
static short
pair_of(struct hd_term *t, int fg, int bg)
{
	short cf = hd_term_role_color(fg, t->colors), cb = hd_term_role_color(bg, t->colors);

	if (t->pair[fg][bg] != 0)
		return t->pair[fg][bg];
	if (t->next_pair >= COLOR_PAIRS || t->next_pair > 32767)
		return 0;
	if (init_pair((short)t->next_pair, cf, cb) == ERR)
		return 0;
	t->pair[fg][bg] = (short)t->next_pair++;
	return t->pair[fg][bg];
}

static attr_t
attr_of(struct hd_term *t, struct hd_style st, short *pair)
{
	attr_t a = 0;
	size_t i;
	int fg = st.fg < HD_ROLE__COUNT ? st.fg : HD_ROLE_DEFAULT;
	int bg = st.bg < HD_ROLE__COUNT ? st.bg : HD_ROLE_DEFAULT;

	for (i = 0; i < HD_ARRAY_LEN(attr_map); i++)
		if (st.attr & attr_map[i].bit)
			a |= (attr_t)attr_map[i].attr;
	*pair = 0;
	if (t->colors == HD_TERM_MONO) {
		/* A coloured background becomes reverse video; the role's own
		 * attributes tell the rest apart. */
		a |= (attr_t)role_looks[fg].mono;
		if (bg != HD_ROLE_DEFAULT)
			a |= A_REVERSE;
	} else
		*pair = pair_of(t, fg, bg);
	return a;
}

static bool
same_cell(const struct hd_cell *a, const struct hd_cell *b)
{
	return a->width == b->width && strcmp(a->g, b->g) == 0 && a->st.fg == b->st.fg &&
	    a->st.bg == b->st.bg && a->st.attr == b->st.attr;
}

void
hd_term_paint(struct hd_term *t, const struct hd_screen *s)
{
	int w = hd_screen_width(s), h = hd_screen_height(s), x, y;

	if (t->shadow == NULL || t->shadow_w != w || t->shadow_h != h) {
		free(t->shadow);
		t->shadow = hd_xcalloc((size_t)w * (size_t)h + 1, sizeof *t->shadow);
		t->shadow_w = w;
		t->shadow_h = h;
		/* width 255 never occurs: every cell differs from the shadow */
		for (x = 0; x < w * h; x++)
			t->shadow[x].width = 255;
		erase();
	}
	for (y = 0; y < h && y < t->h; y++) {
		for (x = 0; x < w && x < t->w; x++) {
			const struct hd_cell *c = hd_screen_cell(s, x, y);
			struct hd_cell *sh = &t->shadow[y * w + x];
			const char *g;
			short pair;
			attr_t a;

			if (c == NULL || same_cell(c, sh))
				continue;
			*sh = *c;
			if (c->width == 0)
				continue; /* the second half of a wide glyph */
			a = attr_of(t, c->st, &pair);
			attr_set(a, pair, NULL);
			g = c->g[0] == '\0' ? " " : c->g;
			if (!t->utf8 && (unsigned char)g[0] >= 0x80)
				g = "?";
			/* The bottom-right cell would scroll some terminals: skip it. */
			if (y == t->h - 1 && x == t->w - 1)
				continue;
			mvaddstr(y, x, g);
		}
	}
	attr_set(A_NORMAL, 0, NULL);
	refresh();
}

int
hd_term_signal(void)
{
	return got_signal;
}

int
hd_term_getkey(struct hd_term *t, int timeout_ms)
{
	int k;

	if (got_signal)
		return HD_TERM_SIGNAL;
	timeout(timeout_ms < 0 ? -1 : timeout_ms);
	k = getch();
	if (got_signal)
		return HD_TERM_SIGNAL;
	if (k == KEY_RESIZE) {
		getmaxyx(stdscr, t->h, t->w);
		hd_term_invalidate(t);
	}
	return k == ERR ? HD_TERM_TIMEOUT : k;
}
