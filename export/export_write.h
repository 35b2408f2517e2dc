/*
 * export_write.h - the output side of `hdsim export`: a buffer that drains
 * to a file as it fills, and the escaping each format needs (JSON strings,
 * RFC 4180 CSV fields, XML text and attributes), with fast number writing.
 *
 * Exports can hold a million spans, so writers append to one buffer that is
 * written out every megabyte instead of building the whole file in memory;
 * a writer without a file keeps everything (what the tests read).  Text
 * from a database is not trusted to be UTF-8: bytes that are not valid
 * UTF-8 are written as U+FFFD, so JSON and XML readers accept the output.
 * JSON is written by base/json.h, the writer `hdsim run --json` uses too.
 */
#ifndef HD_EXPORT_WRITE_H
#define HD_EXPORT_WRITE_H

#include <stdint.h>
#include <stdio.h>

#include "base/units.h"
#include "base/util.h"

struct hd_exw {
	struct hd_buf b;
	FILE *f;    /* NULL: keep everything in b */
	int failed; /* a write to f failed */
	int term;   /* f is a terminal: written through hd_san_term */
};

/* Start a writer draining to f (NULL: into memory only).  When f is a
 * terminal, what is written reaches it through base/sanitize.h's terminal
 * rule (controls shown escaped), kept whole until the last flush. */
void hd_exw_init(struct hd_exw *w, FILE *f);
/* Write out what is buffered once it passes a megabyte (no-op in memory). */
void hd_exw_tick(struct hd_exw *w);
/* Write out everything; 0, or -1 when a write failed.  The buffer stays
 * allocated until hd_exw_free. */
int hd_exw_flush(struct hd_exw *w);
void hd_exw_free(struct hd_exw *w);

void hd_exw_puts(struct hd_exw *w, const char *s);
void hd_exw_putc(struct hd_exw *w, char c);
void hd_exw_printf(struct hd_exw *w, const char *fmt, ...) HD_PRINTF(2, 3);
void hd_exw_i64(struct hd_exw *w, int64_t v);
/* ps as microseconds with three decimals (nanosecond precision), rounded
 * down, so ordering and nesting of intervals survive the conversion. */
void hd_exw_us(struct hd_exw *w, hd_time ps);
/* A JSON number (hd_json_num: integers exactly, others in the shortest form
 * that reads back, non-finite values as null). */
void hd_exw_num(struct hd_exw *w, double v);

/* A JSON string literal, quotes included; NULL writes null (hd_json_str). */
void hd_exw_json(struct hd_exw *w, const char *s);
/* An RFC 4180 field: quoted (quotes doubled) when it holds a comma, a quote,
 * CR or LF, or starts or ends with a space; NULL writes an empty field.  The
 * text is untrusted: a cell starting with = + - @, TAB or CR gets a leading
 * apostrophe, so a spreadsheet shows it instead of running it. */
void hd_exw_csv(struct hd_exw *w, const char *s);
/* A CSV cell of untrusted text from a database: as hd_exw_csv, with a
 * control character shown as an escape ("\x1b"; line breaks stay), so that
 * no file hdsim writes carries one to a terminal or a spreadsheet. */
void hd_exw_csv_text(struct hd_exw *w, const char *s);
/* XML/HTML text or attribute value: & < > " ' escaped, control characters
 * XML forbids dropped. */
void hd_exw_xml(struct hd_exw *w, const char *s);
/* Markdown table cell: | and \ escaped, newlines as spaces. */
void hd_exw_md(struct hd_exw *w, const char *s);

#endif
