/*
 * catalog.h - the lessons hdsim knows: the built-in ones, those in the
 * directories of $HDSIM_LESSON_PATH, and files or directories named on the
 * command line.
 *
 * Lessons are kept sorted by their `order`, then id.  Ids are unique: a
 * lesson file whose id is already taken (by a built-in lesson or another
 * file) is refused with both paths named, unless it says `replaces ID`,
 * its own id: then it takes the other's place, so an instructor's edited
 * copy wins, and hd_catalog_replaced says what it replaced.  The same text
 * read twice (a built-in lesson's own file) is one lesson, not a clash.
 *
 * A LESSON argument is an id, a unique id prefix, a number (its place in
 * the sorted list, "1" or "01"), or a path to a .hds file; a path named
 * so is the lesson wanted, and replaces one of its id without asking.
 */
#ifndef HD_CATALOG_H
#define HD_CATALOG_H

#include "base/util.h"
#include "lang/lesson.h"

struct hd_catalog;

struct hd_catalog *hd_catalog_new(void);
void hd_catalog_free(struct hd_catalog *c); /* accepts NULL */

/* Add the lessons compiled into the binary.  Returns how many failed to parse. */
int hd_catalog_add_builtin(struct hd_catalog *c);
/*
 * Add a lesson file, or every *.hds file in a directory (not recursive).
 * Returns the number of lessons added, or -1 with e set when the path cannot
 * be read, a file does not parse or its id is taken (hd_catalog_check_id);
 * the other files of a directory are still added, and the errors kept (see
 * hd_catalog_error).
 */
int hd_catalog_add_path(struct hd_catalog *c, const char *path, struct hd_err *e);
/*
 * May l (read from `origin`) join the catalogue?  0 when its id is free, the
 * lesson holding it has the same text, or l says `replaces` it; else -1
 * with e set (status HD_EXIT_INPUT, where = origin) naming both paths.
 */
int hd_catalog_check_id(const struct hd_catalog *c, const struct hd_lesson *l, const char *origin,
			struct hd_err *e);
/* Add l, which the catalogue takes (and frees on failure): its index, or -1
 * with e set when its id clashes (hd_catalog_check_id). */
int hd_catalog_add(struct hd_catalog *c, struct hd_lesson *l, const char *origin, struct hd_err *e);
/* Add each directory of a colon-separated list ($HDSIM_LESSON_PATH); missing
 * directories are skipped silently, bad files are kept as errors. */
void hd_catalog_add_dirs(struct hd_catalog *c, const char *list);

/*
 * The *.hds files of directory `path` (not recursive), as "path/name", in
 * name order.  Returns how many (the array in *names, freed by the caller
 * with each string), or -1 with e set when the directory cannot be read.
 */
int hd_catalog_list_dir(const char *path, char ***names, struct hd_err *e);

/* Lessons that failed to load while building the catalogue. */
int hd_catalog_nerrors(const struct hd_catalog *c);
const struct hd_err *hd_catalog_error(const struct hd_catalog *c, int i);

int hd_catalog_count(const struct hd_catalog *c);
/* The i-th lesson in display order (0-based); its number is i + 1. */
const struct hd_lesson *hd_catalog_get(const struct hd_catalog *c, int i);
/* "built-in" or the file the lesson was read from. */
const char *hd_catalog_origin(const struct hd_catalog *c, int i);
/* The origin of the lesson the i-th replaced (it says `replaces ID`), or NULL. */
const char *hd_catalog_replaced(const struct hd_catalog *c, int i);

/*
 * Find a lesson by id, number, unique id prefix, or path (a path is loaded
 * and added when it is not in the catalogue yet).  Returns its index, or -1
 * with e set (status HD_EXIT_INPUT): not found, with close matches named, or
 * ambiguous, with the candidates named.
 */
int hd_catalog_find(struct hd_catalog *c, const char *arg, struct hd_err *e);

#endif
