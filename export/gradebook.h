/*
 * gradebook.h - gradebook.csv of `hdsim export --class`: the class's scores
 * in Canvas's gradebook import layout, and the join of the class's learners
 * to Canvas's roster (export/roster.h) that lets Canvas import it with no
 * edits.
 *
 * Canvas's importer (app/models/gradebook_importer.rb in
 * instructure/canvas-lms) finds a row's student by the ID column (Canvas's
 * user id), then SIS User ID, then SIS Login ID, then the name; it reads
 * the row whose first cell holds "Points Possible" as the assignments'
 * points; an assignment column titled "Name (123)" updates assignment 123,
 * another title updates the assignment of that exact title or creates one;
 * an empty cell changes no grade.  So with a roster every row carries the
 * ids Canvas exported, and each lesson is the column "hdsim LESSON-ID",
 * one assignment whatever its number in the list.
 *
 * A learner is found in the roster by the learner id they gave
 * (learner-id in their configuration file, matched against ID, SIS User ID
 * and SIS Login ID), else by name (letter case, spaces and "Last, First"
 * aside).  What does not match is reported, never guessed.
 */
#ifndef HD_GRADEBOOK_H
#define HD_GRADEBOOK_H

#include <stdbool.h>
#include <stdio.h>

#include "export/export.h"
#include "export/roster.h"

/* How a roster row found its learner. */
enum hd_gradebook_how {
	HD_GRADEBOOK_NONE,
	HD_GRADEBOOK_BY_ID,   /* the learner id they gave */
	HD_GRADEBOOK_BY_NAME, /* their name */
};

struct hd_gradebook_join {
	const struct hd_roster *roster;
	const char **learner;           /* per roster row: whose scores fill it, or NULL */
	enum hd_gradebook_how *how;     /* per roster row */
	size_t by_id, by_name, orphans; /* rows matched each way; learners in no row */
};

/*
 * Join the learners of class c to roster r: read each learner's id from
 * c's databases (read-only), match, and write to report (standard error)
 * one line per roster row with no learner (Canvas's test student aside),
 * per learner with no row, per id or name that fits two rows or two
 * learners (such a row stays empty; such a learner is left out), per id
 * cell the CSV formula guard changes, and a summary.  Text from the roster
 * and the databases is written through the terminal sanitiser.  j points
 * into c and r, which must outlive it.  0, or -1 with e set (a database
 * that cannot be read) and j empty.
 */
int hd_gradebook_join(struct hd_gradebook_join *j, const struct hd_export_class *c,
		      const struct hd_roster *r, FILE *report, struct hd_err *e);
void hd_gradebook_join_free(struct hd_gradebook_join *j); /* accepts NULL */

/* Can this stored lesson id title a gradebook column: a lesson id as the
 * lesson format spells one (so no "(123)" that Canvas would read as
 * another assignment's id)? */
bool hd_gradebook_lesson_ok(const char *id);

/*
 * What an instructor should know before importing gradebook.csv, to report:
 * lessons whose stored id cannot be a column (left out), and, without a
 * roster (c->join NULL), that its rows carry no Canvas ids, so Canvas
 * matches them by name at best, and how to give the roster.
 */
void hd_gradebook_report(const struct hd_export_class *c, FILE *report);

#endif
