/*
 * export.h - `hdsim export`: stored runs, claims and learners' answers as
 * files for instructors: CSV, JSON, Perfetto (Chrome trace-event JSON), SVG
 * timelines and charts, a self-contained HTML report and its Markdown twin;
 * and `hdsim export --class`, which merges learners' databases into a
 * per-question CSV, a gradebook CSV and a class summary page.
 *
 * Loading and writing are separate: an export set is read whole from the
 * databases first (every error a user can cause is found then), and only
 * then written, so a bad input leaves no file behind.  The writers take a
 * set and an hd_exw and never fail except on the file itself.
 */
#ifndef HD_EXPORT_H
#define HD_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "export/export_write.h"
#include "ir/trace.h"
#include "lang/catalog.h"
#include "profile/profile.h"
#include "store/store.h"

enum hd_export_format {
	HD_EXPORT_CSV,
	HD_EXPORT_JSON,
	HD_EXPORT_PERFETTO,
	HD_EXPORT_SVG,
	HD_EXPORT_HTML,
	HD_EXPORT_MD,
	HD_EXPORT__COUNT
};
/* "csv" ... "md" -> *f; -1 with e set naming the formats there are. */
int hd_export_format_parse(const char *name, enum hd_export_format *f, struct hd_err *e);
const char *hd_export_format_name(enum hd_export_format f);

/* The CSV (and JSON) tables. */
enum hd_export_table {
	HD_EXPORT_RUNS,
	HD_EXPORT_SPANS,
	HD_EXPORT_CLAIMS,
	HD_EXPORT_PROGRESS,
	HD_EXPORT_TABLE__COUNT
};
int hd_export_table_parse(const char *name, enum hd_export_table *t, struct hd_err *e);
const char *hd_export_table_name(enum hd_export_table t);

/* One run: what the store says about it, and its trace. */
struct hd_export_run {
	struct hd_store_run_info info;
	char *db; /* the database it came from; NULL: simulated now */
	struct hd_trace *trace;
};

/* One stored answer (strings owned). */
struct hd_export_answer {
	char *db, *learner, *lesson, *question, *answer, *profile, *created;
	int64_t id;
	int correct, confidence, hints;
	double seconds;
};

/*
 * Fill a (zeroed by the caller) with a copy of progress row p read from
 * database db.  With blank, missing learner, lesson, question, answer and
 * created become "" (the class tables compare them); the profile stays NULL.
 */
void hd_export_answer_copy(struct hd_export_answer *a, const char *db,
			   const struct hd_store_progress *p, bool blank);

struct hd_export_set {
	struct hd_export_run *runs;
	size_t nruns, runs_cap;
	struct hd_export_answer *answers;
	size_t nanswers, answers_cap;
	char *note; /* where the runs came from, when not a database */
};

/* What to read from a database. */
struct hd_export_select {
	int64_t run;         /* > 0: this run and its pair */
	const char *lesson;  /* non-NULL: this lesson's runs and answers */
	const char *learner; /* non-NULL: this learner's answers only */
	bool answers;        /* read answers at all (not with run) */
};

void hd_export_set_init(struct hd_export_set *s);
void hd_export_set_free(struct hd_export_set *s); /* accepts NULL */
/*
 * Add what sel picks from the database at path (opened read-only, so a
 * newer or foreign file is refused and never changed).  Returns how many
 * runs were added, or -1 with e set and the set unchanged.
 */
int hd_export_load(struct hd_export_set *s, const char *path, const struct hd_export_select *sel,
		   struct hd_err *e);
/* Add a run made now (ownership of trace and of info's strings passes to
 * the set); db NULL marks it as not stored. */
void hd_export_add_run(struct hd_export_set *s, const char *db, struct hd_store_run_info *info,
		       struct hd_trace *trace);
/*
 * Run lesson l on the simulator with profile p (default knobs) and add its
 * predicted runs and claims, marked as simulated now.  0, or -1 with e set.
 */
int hd_export_simulate(struct hd_export_set *s, const struct hd_lesson *l,
		       const struct hd_profile *p, struct hd_err *e);

/*
 * A predicted run and the measured run paired with it (either may be
 * missing), in the set's order: what SVG timelines, charts and reports show
 * side by side.  hd_export_groups returns how many (array allocated).
 */
struct hd_export_group {
	const struct hd_export_run *pred, *meas;
};
size_t hd_export_groups(const struct hd_export_set *s, struct hd_export_group **out);
/* The group's lesson and scenario (from whichever run it has). */
const struct hd_export_run *hd_export_group_run(const struct hd_export_group *g);

/* ---- writers (one per format family) ------------------------------------ */

void hd_export_csv(const struct hd_export_set *s, enum hd_export_table t, struct hd_exw *w);
void hd_export_json(const struct hd_export_set *s, struct hd_exw *w);
void hd_export_perfetto(const struct hd_export_set *s, struct hd_exw *w);
/* Every scenario's timeline, then each lesson's chart, in one SVG document. */
void hd_export_svg(const struct hd_export_set *s, struct hd_exw *w);
/* One scenario group's timeline as an <svg> element; `standalone` adds the
 * XML declaration and namespace for a file of its own. */
void hd_export_svg_timeline(const struct hd_export_group *g, struct hd_exw *w, bool standalone);
/* A lesson's predicted-vs-measured makespan chart over groups[0..n). */
void hd_export_svg_chart(const char *lesson, const struct hd_export_group *g, size_t n,
			 struct hd_exw *w, bool standalone);
/* Predicted against measured makespan, log-log, one point per group with
 * both sides (tooltip: lesson, scenario, both times, the error), the line
 * where they are equal and the band within 10 % of the measurement.  Draws
 * nothing and returns 0 when no group has both; else how many points. */
size_t hd_export_svg_scatter(const struct hd_export_group *g, size_t n, struct hd_exw *w,
			     bool standalone);
void hd_export_html(const struct hd_export_set *s, struct hd_exw *w);
void hd_export_md(const struct hd_export_set *s, struct hd_exw *w);

/* Write one format of s to w (csv: table t). */
void hd_export_write(const struct hd_export_set *s, enum hd_export_format f, enum hd_export_table t,
		     struct hd_exw *w);

/*
 * Write `fill` output to path.  A regular file (or a new one) is written
 * atomically: into a temporary file in the same folder, renamed over path
 * only when everything was written (through a symbolic link, the file it
 * names is replaced and the link kept).  Anything else — a device such as
 * /dev/null or /dev/stdout's terminal, a FIFO — is written in place, never
 * replaced; a FIFO with no reader and a folder are refused.  path NULL
 * writes to out instead.  0, or -1 with e set and no file left behind.
 */
int hd_export_to_file(const char *path, FILE *out, void (*fill)(void *ctx, struct hd_exw *w),
		      void *ctx, struct hd_err *e);

/* ---- the class ----------------------------------------------------------- */

/* One learner's latest answer to one question, merged over databases. */
struct hd_export_class_row {
	struct hd_export_answer a; /* the newest answer */
	int attempts;              /* answers given to this question in all */
};
struct hd_gradebook_join;
struct hd_export_class {
	struct hd_export_class_row *rows; /* sorted: learner, lesson, question */
	size_t nrows, rows_cap;
	char **dbs;
	int ndbs;
	/* gradebook.csv's rows: the roster joined to the learners
	 * (export/gradebook.h), or NULL for a row per learner */
	const struct hd_gradebook_join *join;
};
/*
 * Read every database (read-only) and merge their answers: per learner,
 * lesson and question the newest answer counts; a learner found in several
 * databases is one learner.  0, or -1 with e set (a missing, corrupt,
 * foreign or newer database) and nothing kept.
 */
int hd_export_class_load(struct hd_export_class *c, char *const *dbs, int n, struct hd_err *e);
void hd_export_class_free(struct hd_export_class *c);
/* answers.csv: a row per learner and question, with an empty comments column. */
void hd_export_class_answers(const struct hd_export_class *c, struct hd_exw *w);
/* gradebook.csv in Canvas's import layout (export/gradebook.c, hdsim(1)): a
 * row per roster row of c->join, or without one a row per learner; cat (may
 * be NULL) gives each lesson's points possible. */
void hd_export_class_gradebook(const struct hd_export_class *c, struct hd_catalog *cat,
			       struct hd_exw *w);
/* The class's learners or lessons, distinct and sorted: how many,
 * and an array of pointers into c's rows (*out, freed by the caller). */
size_t hd_export_class_learners(const struct hd_export_class *c, const char ***out);
size_t hd_export_class_lessons(const struct hd_export_class *c, const char ***out);
/* Points possible of lessons[0 .. n), as the class files count them (an
 * array the caller frees). */
int *hd_export_class_points(const struct hd_export_class *c, struct hd_catalog *cat,
			    const char *const *lessons, size_t n);
/* A learner's score in a lesson: questions right and answered. */
void hd_export_class_score(const struct hd_export_class *c, const char *learner, const char *lesson,
			   int *right, int *answered);
/* class.html: the class summary page. */
void hd_export_class_html(const struct hd_export_class *c, struct hd_catalog *cat,
			  struct hd_exw *w);

/*
 * The `hdsim bench` rows: build a database of 100 runs x 10,000 spans in a
 * temporary folder and export it whole in every format, printing each
 * format's wall time to out.  Returns an exit status.
 */
int hd_export_bench(FILE *out);

/* Is path a folder (or named as one, ending in '/')? */
bool hd_export_is_dir(const char *path);
/* The set in format f (csv: table t) to path, replaced atomically, or to out
 * when path is NULL.  0, or -1 with e set and nothing replaced. */
int hd_export_write_file(const struct hd_export_set *s, enum hd_export_format f,
			 enum hd_export_table t, const char *path, FILE *out, struct hd_err *e);
/* csv (one file per table) or svg (one timeline per scenario, one chart per
 * lesson) into folder dir, made if missing, printing each path to out.  Other
 * formats are refused.  0, or -1 with e set. */
int hd_export_write_dir(const struct hd_export_set *s, enum hd_export_format f, const char *dir,
			FILE *out, struct hd_err *e);
/* answers.csv, gradebook.csv and class.html into folder dir, made if
 * missing, printing each path to out.  0, or -1 with e set. */
int hd_export_class_write(const struct hd_export_class *c, struct hd_catalog *cat, const char *dir,
			  FILE *out, struct hd_err *e);

#endif
