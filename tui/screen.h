/*
 * screen.h - the render buffer: a grid of cells the views draw into.
 *
 * Views never talk to the terminal.  They write glyphs with a semantic role
 * (what the cell shows: a kernel, a copy towards the host, the playhead)
 * into a struct hd_screen; one module later maps roles to colours for the
 * terminal at hand (256, 16, monochrome) and copies the grid out.  Tests
 * read the grid back as plain text lines, so the layout is testable without
 * curses or a terminal.
 *
 * A cell holds one UTF-8 character of width 1 or the first half of a wide
 * one (CJK, emoji); the cell after a wide character is its continuation and
 * holds no glyph.  Every write is clipped to the screen and to the clip
 * rectangle it is given: nothing is ever written outside them.
 */
#ifndef HD_SCREEN_H
#define HD_SCREEN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "ir/spanlook.h"

/* What a cell shows; the terminal module gives each role its colours. */
enum hd_role {
	HD_ROLE_DEFAULT, /* terminal default colours */
	HD_ROLE_TEXT,    /* body text */
	HD_ROLE_TITLE,   /* pane and box titles */
	HD_ROLE_BORDER,  /* box lines */
	HD_ROLE_AXIS,    /* time axis, ticks and their labels */
	HD_ROLE_LANE,    /* lane names */
	HD_ROLE_STATUS,  /* the status line */
	/* spans: one role per colour role of ir/spanlook.h (hd_role_of_hue) */
	HD_ROLE_HOST,     /* host compute */
	HD_ROLE_API,      /* API calls */
	HD_ROLE_BLOCKED,  /* the host blocked inside an API call */
	HD_ROLE_STAGING,  /* pageable staging memcpy */
	HD_ROLE_COPY_H2D, /* copies towards the device */
	HD_ROLE_COPY_D2H, /* copies towards the host */
	HD_ROLE_COPY_D2D, /* device-local and peer copies */
	HD_ROLE_KERNEL,
	HD_ROLE_EVENT,
	HD_ROLE_WAIT,  /* a stream waiting */
	HD_ROLE_FAULT, /* managed memory faults */
	HD_ROLE_PREFETCH,
	HD_ROLE_COMM, /* NCCL and other communication */
	HD_ROLE_PLAYHEAD,
	HD_ROLE_GHOST,     /* the previous run, beneath the current one */
	HD_ROLE_HIGHLIGHT, /* the decisive event of an explanation */
	HD_ROLE_BAR,       /* the empty part of a meter */
	HD_ROLE_GOOD,      /* a right answer, a passed lesson */
	HD_ROLE_BAD,       /* a wrong answer, an error */
	HD_ROLE_NOTE,      /* hints and asides */
	HD_ROLE__COUNT
};
/* "copy-h2d", "kernel" ...: for dumps, themes and messages. */
const char *hd_role_name(enum hd_role r);
/* The role that draws spans of colour role h (ir/spanlook.h): HD_ROLE_HOST
 * ... HD_ROLE_COMM; HD_ROLE_TEXT out of range. */
enum hd_role hd_role_of_hue(enum hd_span_hue h);

enum {
	HD_ATTR_BOLD = 1,
	HD_ATTR_REVERSE = 2,
	HD_ATTR_DIM = 4,
	HD_ATTR_UNDERLINE = 8,
};

struct hd_style {
	unsigned char fg;   /* enum hd_role */
	unsigned char bg;   /* enum hd_role; HD_ROLE_DEFAULT: the terminal's */
	unsigned char attr; /* HD_ATTR_* */
};

struct hd_cell {
	char g[5];           /* UTF-8 glyph, NUL-terminated; "" on a wide glyph's second cell */
	unsigned char width; /* 1, 2 on a wide glyph's first cell, 0 on its second */
	struct hd_style st;
};

/* A rectangle in screen cells; x, y its top-left corner. */
struct hd_rect {
	int x, y, w, h;
};

struct hd_screen; /* opaque */

/* A w x h screen of blank cells (either may be 0).  Never NULL. */
struct hd_screen *hd_screen_new(int w, int h);
void hd_screen_free(struct hd_screen *s); /* accepts NULL */
/* Resize and clear. */
void hd_screen_resize(struct hd_screen *s, int w, int h);
int hd_screen_width(const struct hd_screen *s);
int hd_screen_height(const struct hd_screen *s);
/* The whole screen as a rectangle. */
struct hd_rect hd_screen_rect(const struct hd_screen *s);
/* Draw boxes with ASCII (+-|) instead of line-drawing characters, and have
 * hd_screen_glyph pick the ASCII forms. */
void hd_screen_set_ascii(struct hd_screen *s, bool ascii);
bool hd_screen_ascii(const struct hd_screen *s);
/* Every cell blank, default style. */
void hd_screen_clear(struct hd_screen *s);

/* The cell at x, y, or NULL outside the screen.  Valid until the next resize. */
const struct hd_cell *hd_screen_cell(const struct hd_screen *s, int x, int y);

/* The intersection of two rectangles (w or h 0 when they do not meet). */
struct hd_rect hd_rect_clip(struct hd_rect a, struct hd_rect b);

/*
 * Columns the UTF-8 text takes: 2 for wide characters, 0 for combining
 * marks, 1 otherwise; an invalid byte counts as one column (drawn '?').
 */
int hd_utf8_width(const char *s);
/* Decode one character at s: its length in bytes (>= 1 unless *s is NUL),
 * the code point in *cp (0xfffd for an invalid byte). */
int hd_utf8_decode(const char *s, unsigned *cp);
/* The column width of one code point (0, 1 or 2). */
int hd_cp_width(unsigned cp);

/*
 * Write UTF-8 text at x, y, clipped to `clip` (NULL: the whole screen).
 * Cells left of the clip are skipped but still advance the column; a wide
 * character that would straddle the clip edge is drawn as a space.  Control
 * characters are drawn as '?', combining marks are dropped.  Returns the
 * column after the text (as if nothing had been clipped).
 */
int hd_screen_puts(struct hd_screen *s, const struct hd_rect *clip, int x, int y, const char *text,
		   struct hd_style st);
/* printf-style hd_screen_puts. */
int hd_screen_printf(struct hd_screen *s, const struct hd_rect *clip, int x, int y,
		     struct hd_style st, const char *fmt, ...) HD_PRINTF(6, 7);
/* Fill a rectangle (clipped to the screen) with one glyph of width 1. */
void hd_screen_fill(struct hd_screen *s, struct hd_rect r, const char *glyph, struct hd_style st);
/* Change the style of the cells of a rectangle, keeping their glyphs. */
void hd_screen_style(struct hd_screen *s, struct hd_rect r, struct hd_style st);
/*
 * A box on the border of r (at least 2 x 2) with an optional title in the
 * top edge; line-drawing characters, or + - | in ASCII mode.  The inside is
 * left alone.
 */
void hd_screen_box(struct hd_screen *s, struct hd_rect r, const char *title, struct hd_style st);

/* The glyphs that have an ASCII fallback. */
enum hd_glyph {
	HD_G_HLINE,
	HD_G_VLINE,
	HD_G_TL,
	HD_G_TR,
	HD_G_BL,
	HD_G_BR,
	HD_G_PLAYHEAD,      /* a vertical line across the lanes */
	HD_G_PLAYHEAD_AXIS, /* the playhead's mark on the axis */
	HD_G_FULL,          /* a filled meter cell */
	HD_G_EMPTY,         /* an empty meter cell */
	HD_G_ARROW_R,
	HD_G_ARROW_L,
	HD_G_PLAY,
	HD_G_PAUSE,
	HD_G__COUNT
};
/* The glyph's UTF-8 form, or its ASCII form in ASCII mode. */
const char *hd_screen_glyph(const struct hd_screen *s, enum hd_glyph g);

/*
 * Append the grid as text: one line per row ending in '\n', trailing blanks
 * cut, wide characters once.  Styles are not written.
 */
void hd_screen_dump(const struct hd_screen *s, struct hd_buf *out);
/* Row y alone as text (no newline, trailing blanks cut) into out. */
void hd_screen_dump_row(const struct hd_screen *s, int y, struct hd_buf *out);

#endif
