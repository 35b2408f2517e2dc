/*
 * roster.h - the class roster as Canvas exports it (Grades, Export: the
 * gradebook CSV), read for `hdsim export --class --roster FILE`: who is
 * enrolled, with the ids a Canvas import matches rows by, and finding a
 * learner in it by learner id or by name.
 *
 * The layout is Canvas's own (lib/gradebook_exporter.rb in
 * https://github.com/instructure/canvas-lms; described for instructors in
 * https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/
 * calculating-final-grades/import-csv-file-carmen-grades and in nemogb's
 * https://nemogb-dev.github.io/nemogb-r/articles/detailed-canvas-export-info.html):
 * a header "Student, ID, [SIS User ID,] SIS Login ID, [Integration ID,
 * Root Account,] Section, <custom columns>, <assignments>, <totals>" (or
 * "LastName, FirstName, ..." where names are split), an optional row marking hidden assignments ("Manual Posting"), a
 * "    Points Possible" row, then a row per student whose Student cell is the
 * sortable name "Last, First"; CSV as RFC 4180 quotes it, UTF-8 with or
 * without a byte-order mark, commas or (in some locales) semicolons, CRLF
 * line ends.  Columns are found by their header, in any order; others are
 * skipped.
 *
 * The file is untrusted: quotes, line breaks inside quoted fields, any size.
 * Reading is linear in its length; every limit below is enforced with a
 * message naming the file, the line and the limit, and a cell hdsim keeps
 * (a name, an id, a section) must be one line of printable UTF-8.
 */
#ifndef HD_ROSTER_H
#define HD_ROSTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

#define HD_ROSTER_ROWS_MAX  20000       /* students */
#define HD_ROSTER_COLS_MAX  5000        /* fields in a row */
#define HD_ROSTER_FIELD_MAX 65536       /* bytes in any field */
#define HD_ROSTER_CELL_MAX  256         /* bytes in a kept cell: name, id, section */
#define HD_ROSTER_BYTES_MAX HD_READ_MAX /* the file (16 MiB) */

/* The columns kept, in the gradebook's order. */
enum hd_roster_col {
	HD_ROSTER_STUDENT,   /* "Student": "Last, First" */
	HD_ROSTER_ID,        /* "ID": Canvas's user id, digits */
	HD_ROSTER_SIS_USER,  /* "SIS User ID" */
	HD_ROSTER_SIS_LOGIN, /* "SIS Login ID" */
	HD_ROSTER_SECTION,   /* "Section" */
	HD_ROSTER__COUNT
};
/* The column's header as Canvas writes it. */
const char *hd_roster_col_name(enum hd_roster_col c);

struct hd_roster_row {
	char *cell[HD_ROSTER__COUNT]; /* trimmed; "" where empty or not in the file */
	int line;                     /* the line the row starts on */
};

struct hd_roster_key; /* the lookup tables (roster.c) */

struct hd_roster {
	char *path;
	struct hd_roster_row *rows; /* the students, in the file's order */
	size_t nrows, rows_cap;
	bool has[HD_ROSTER__COUNT]; /* the columns the file has */
	struct hd_roster_key *ids, *names;
	size_t nids, nnames;
};

/*
 * Read the roster at path into r (zeroed first).  0, or -1 with e set
 * (HD_EXIT_INPUT, where = "path:line") and r empty: a file that cannot be
 * read or is over HD_ROSTER_BYTES_MAX, not UTF-8, a NUL byte, a quote out
 * of place or never closed, a header without Student (or LastName and
 * FirstName) or without any of ID, SIS User ID and SIS Login ID, a column
 * named twice, a row with more fields than the header, a field or a kept
 * cell over its limit, a kept cell with a line break or another control
 * character, an ID that is not a number, one id on two rows, no student, or
 * more than HD_ROSTER_ROWS_MAX.  Rows that are not students are skipped:
 * "Points Possible", the hidden-assignments row, rows with no name and no
 * id.
 */
int hd_roster_load(struct hd_roster *r, const char *path, struct hd_err *e);
/* The same from text[0 .. len), named name in messages. */
int hd_roster_parse(struct hd_roster *r, const char *name, const char *text, size_t len,
		    struct hd_err *e);
void hd_roster_free(struct hd_roster *r); /* accepts NULL */

/*
 * The rows whose ID, SIS User ID or SIS Login ID is id, letter case aside:
 * returns how many distinct rows, counting no further than max + 1 (so
 * "more than max"), with their indexes in rows[0 .. min(count, max)).
 */
size_t hd_roster_find_id(const struct hd_roster *r, const char *id, size_t *rows, size_t max);
/*
 * The rows whose Student is name, with ASCII letter case, runs of spaces
 * and the order "Last, First" / "First Last" aside ("Lovelace, Ada" is
 * "ada  LOVELACE"): as hd_roster_find_id.
 */
size_t hd_roster_find_name(const struct hd_roster *r, const char *name, size_t *rows, size_t max);

/* Is row Canvas's test student ("Student, Test", no SIS ids), whom the
 * course's "Student View" adds to every gradebook? */
bool hd_roster_test_student(const struct hd_roster_row *row);

#endif
