/*
 * sanitize.h - one rule for untrusted text, one function per sink.
 *
 * Text that came from a file or a database (a lesson's title or page, a
 * learner's name, a stored run's label) is untrusted: it may hold terminal
 * escapes, C1 controls, bidirectional overrides, line breaks where one line
 * was meant, or a leading '=' that a spreadsheet runs as a formula.  Before
 * such text reaches a sink it goes through that sink's function here:
 *
 *   terminal        hd_san_term       controls, C1, bidi overrides, invalid
 *                                     UTF-8 shown escaped ("\x1b", "\u202e")
 *   CSV cell        hd_san_csv_lead   a cell starting with = + - @ TAB CR is
 *                                     made inert with a leading apostrophe
 *   C comment       hd_san_c_comment  one line; "*" "/" cannot close it
 *   Python comment  hd_san_py_comment one line
 *   HTML / XML      export/export_write.h's escaper (unchanged)
 *   JSON            base/json.h's string writer
 *
 * Every function appends to an hd_buf and never fails; valid UTF-8 text
 * without controls passes unchanged through all of them.
 */
#ifndef HD_SANITIZE_H
#define HD_SANITIZE_H

#include <stdbool.h>

#include "base/util.h"

/* For the terminal: printable UTF-8 passes; C0 controls (but '\n' when
 * `multiline`, and '\t'), DEL, C1 controls (U+0080-U+009F), the
 * bidirectional controls (U+061C, U+200E-U+200F, U+202A-U+202E,
 * U+2066-U+2069) and each byte of invalid UTF-8 are written as visible
 * escapes: "\x1b", "\u202e". */
void hd_san_term(struct hd_buf *out, const char *s, bool multiline);

/* The same, into a fresh string the caller frees. */
char *hd_san_term_dup(const char *s, bool multiline);

/* Is s free of anything hd_san_term would escape (multiline as given)? */
bool hd_san_term_ok(const char *s, bool multiline);

/* For a CSV cell, before the CSV quoting: a cell whose first character is
 * '=', '+', '-', '@', TAB or CR gets a leading apostrophe, so that a
 * spreadsheet shows it as text instead of running it as a formula.  The
 * rest of the cell is left as it is (the CSV writer quotes it). */
void hd_san_csv_lead(struct hd_buf *out, const char *s);

/* Does s need hd_san_csv_lead's apostrophe? */
bool hd_san_csv_needs_quote(const char *s);

/* For the inside of a C block comment on one line: line breaks and other
 * controls become spaces, and "*" followed by "/" becomes "* /", so the text
 * can neither end the comment nor start a line of code. */
void hd_san_c_comment(struct hd_buf *out, const char *s);

/* For a Python '#' comment on one line: line breaks (\n, \r, and the
 * Unicode line and paragraph separators) and other controls become spaces. */
void hd_san_py_comment(struct hd_buf *out, const char *s);

#endif
