/*
 * json.h - the one JSON writer: string literals, keys and numbers appended
 * to a struct hd_buf, for `hdsim run --json` (render/report.c) and every
 * JSON export (export/).
 *
 * Strings: " and \ are escaped with a backslash; LF, CR and tab as \n, \r,
 * \t; the other control characters (below U+0020) as \u00XX; valid UTF-8 is
 * copied as it is, and each byte that does not start a valid UTF-8 sequence
 * (text from a database or a lesson file is not trusted) is written as
 * U+FFFD, so every reader accepts the output.
 *
 * Numbers: integral values of magnitude below 9e15 as integers (no "-0"),
 * others in the shortest of 15..17 significant digits that reads back to the
 * same double, NaN and infinities as null (JSON has no such numbers).
 */
#ifndef HD_JSON_H
#define HD_JSON_H

#include <stdint.h>

#include "base/util.h"

/* Append s as a JSON string literal, quotes included; NULL appends null. */
void hd_json_str(struct hd_buf *b, const char *s);
/* Append v as a JSON integer. */
void hd_json_i64(struct hd_buf *b, int64_t v);
/* Append v as a JSON number by the rule above (null when not finite). */
void hd_json_num(struct hd_buf *b, double v);
/* Append an object key and its colon: "k": */
void hd_json_key(struct hd_buf *b, const char *k);
/* Append "k": and v as a string literal (null when v is NULL). */
void hd_json_kstr(struct hd_buf *b, const char *k, const char *v);

/* What an invalid byte becomes: U+FFFD, the replacement character, in UTF-8. */
#define HD_JSON_REPLACEMENT "\xef\xbf\xbd"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one:
 * a stray continuation byte, a truncated sequence, an overlong form, a
 * surrogate or a value past U+10FFFF. */
int hd_json_utf8_len(const unsigned char *s);

#endif
