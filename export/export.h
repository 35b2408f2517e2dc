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

#include "base/band.h"
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
	char *lesson_hash; /* the lesson version answered, or NULL */
	int64_t id;
	int correct, confidence, hints;
	int seen; /* the run had been shown: 1, 0, or -1 not recorded */
	double seconds;
};

/*
 * Fill a (zeroed by the caller) with a copy of progress row p read from
 * database db.  With blank, missing learner, lesson, question, answer and
 * created become "" (the class tables compare them); the profile stays NULL.
 */
void hd_export_answer_copy(struct hd_export_answer *a, const char *db,
			   const struct hd_store_progress *p, bool blank);
/* Free a's strings (a itself is the caller's); accepts NULL. */
void hd_export_answer_free(struct hd_export_answer *a);

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
/*
 * The band of a measured run's repeats (as timed with its spans, the
 * makespan the exports show): true with *b filled when the run has two
 * repeats or more stored, false (b zeroed) otherwise.
 */
bool hd_export_run_band(const struct hd_export_run *r, struct hd_band *b);

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
 * both sides (tooltip: lesson, scenario, both times, the error, the
 * measured band and whether the prediction is inside it), a bar across each
 * point from the measured repeats' min to their max (where two or more are
 * stored), the line where they are equal and the band within 10 % of the
 * measurement.  Draws nothing and returns 0 when no group has both; else
 * how many points. */
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

/* Which attempt at a question is graded (`hdsim export --class --grade`). */
enum hd_export_grade {
	HD_EXPORT_GRADE_FIRST, /* the first made before the run was shown (default) */
	HD_EXPORT_GRADE_BEST,  /* a right one if any */
	HD_EXPORT_GRADE_LAST,  /* the newest */
	HD_EXPORT_GRADE__COUNT
};
/* "first", "best", "last" -> *g; -1 with e set (where "--grade") naming them. */
int hd_export_grade_parse(const char *name, enum hd_export_grade *g, struct hd_err *e);
const char *hd_export_grade_name(enum hd_export_grade g);
/* The policy in words, for the files: "the first answer given before the
 * run was shown". */
const char *hd_export_grade_words(enum hd_export_grade g);

/* One learner's attempts at one question, merged over databases. */
struct hd_export_class_row {
	/* The attempt graded under the policy: a copy of c->attempts[first +
	 * graded] whose strings belong to c->attempts. */
	struct hd_export_answer a;
	size_t first; /* its first attempt in c->attempts; the others follow */
	int attempts; /* attempts at this question in all */
	int graded;   /* which of them is graded, 0 = the first */
	int initial;  /* the first made before the run was shown (the one
		       * the "first" policy grades): what the learner thought */
	int points;   /* what the question is worth in the graded attempt's
		       * version of the lesson */
};

/* A learner's grade in a lesson (what the gradebook writes). */
struct hd_export_class_score {
	const char *learner, *lesson;
	const char *hash; /* the lesson version graded, NULL when none was kept */
	int earned;       /* points of the questions graded right */
	int possible;     /* the points of the lesson's questions in that version */
	int answered;     /* questions answered */
	int right;        /* questions graded right */
	int questions;    /* questions in that version (answered when unknown) */
	size_t row;       /* its first row in c->rows */
};

/* A lesson the class answered. */
struct hd_export_class_lesson {
	const char *lesson;
	const struct hd_store_snapshot *snap; /* the version most learners' grades
					       * come from, or NULL when none was kept */
	int possible;                         /* its points possible, the gradebook's */
	int nversions;                        /* distinct versions answered */
};

struct hd_gradebook_join;
struct hd_export_class {
	struct hd_export_class_row *rows; /* sorted: learner, lesson, question */
	size_t nrows, rows_cap;
	/* every attempt: by learner, lesson, question, then oldest first */
	struct hd_export_answer *attempts;
	size_t nattempts, attempts_cap;
	struct hd_store_snapshot **snaps; /* lesson versions, by hash */
	size_t nsnaps, snaps_cap;
	struct hd_export_class_score *scores; /* by learner, then lesson */
	size_t nscores;
	struct hd_export_class_lesson *lessons; /* by id */
	size_t nlessons;
	const char **learners; /* distinct, sorted */
	size_t nlearners;
	enum hd_export_grade grade;
	char **dbs; /* the databases read */
	int ndbs;
	char **notes; /* warnings, untrusted text: databases skipped or named
		       * twice, lessons in several versions, grades without one */
	int nnotes;
	/* gradebook.csv's rows: the roster joined to the learners
	 * (export/gradebook.h), or NULL for a row per learner */
	const struct hd_gradebook_join *join;
};

/* How to read and grade a class. */
struct hd_export_class_opts {
	enum hd_export_grade grade;
	/* A database missing or not hdsim's is noted and skipped, not an
	 * error, as long as one was read. */
	bool keep_going;
	/* Only for answers stored before hdsim kept the lesson with them: their
	 * points come from the installed lesson of that id.  May be NULL. */
	struct hd_catalog *cat;
};

/*
 * Read every database (read-only) and merge their attempts: a learner found
 * in several databases is one learner; a database named twice (the same
 * path, or the same file by device and inode) is read once, with a note.
 * Each question is graded by o->grade from its attempts, and each learner's
 * lesson scored from the lesson version they answered, as stored with the
 * answers (never the lesson file, but for answers older than that).  0, or
 * -1 with e set and nothing kept: a missing, corrupt, foreign or newer
 * database (with keep_going, only when no database could be read: each one
 * skipped is a note).
 */
int hd_export_class_load(struct hd_export_class *c, char *const *dbs, int n,
			 const struct hd_export_class_opts *o, struct hd_err *e);
void hd_export_class_free(struct hd_export_class *c); /* accepts NULL */
/*
 * learner's grade in lesson under the class's policy, or NULL when the
 * learner answered none of it.  The points earned and possible are those of
 * the lesson version the learner's graded attempts answered.
 */
const struct hd_export_class_score *hd_export_class_score(const struct hd_export_class *c,
							  const char *learner, const char *lesson);
/* The lesson's entry, or NULL when nobody answered it. */
const struct hd_export_class_lesson *hd_export_class_lesson(const struct hd_export_class *c,
							    const char *lesson);
/* The stored version with this hash, or NULL. */
const struct hd_store_snapshot *hd_export_class_snapshot(const struct hd_export_class *c,
							 const char *hash);

/* answers.csv: a row per attempt, the graded one marked, the policy named,
 * with an empty comments column. */
void hd_export_class_answers(const struct hd_export_class *c, struct hd_exw *w);
/* gradebook.csv in Canvas's import layout (export/gradebook.c, hdsim(1)):
 * a column per lesson, named with the policy, holding the points earned
 * under it, below a "Points Possible" row of the points of each lesson's
 * version (hd_export_class_lesson); a row per roster row of c->join, or
 * without one a row per learner. */
void hd_export_class_gradebook(const struct hd_export_class *c, struct hd_exw *w);
/* class.html: what the class thinks, question by question, and each
 * learner's lessons. */
void hd_export_class_html(const struct hd_export_class *c, struct hd_exw *w);

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
int hd_export_class_write(const struct hd_export_class *c, const char *dir, FILE *out,
			  struct hd_err *e);

#endif
