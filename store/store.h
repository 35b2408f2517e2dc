/*
 * store.h - the SQLite database of runs: predicted and measured, side by side.
 *
 * One file per user by default ($XDG_DATA_HOME/hdsim/hdsim.db, with
 * ~/.local/share when XDG_DATA_HOME is unset), another with --db.  The schema
 * is versioned with PRAGMA user_version and migrated forward on open; the
 * file is marked as hdsim's with PRAGMA application_id, so a foreign SQLite
 * file or a non-database is refused and left untouched.  WAL mode (set by a
 * writer's first write), foreign keys on, and one transaction per run: a run
 * killed halfway leaves no rows.
 *
 * A database may come from someone else: a read-only open changes nothing
 * and leaves no file beside it; a schema other than hdsim's (a view or a
 * trigger where hdsim has none, a table defined otherwise) is refused on
 * open; each call's queries run under a time limit; and every value read
 * back is checked (NULLs, names, times and sizes in range) or the read is
 * refused with a message naming the run and row.
 *
 * It also keeps learners' progress: each answer to a lesson's question, with
 * whether it was right, the confidence the learner gave, the time taken,
 * the hints shown and whether the run answering it had been seen.  Every
 * answer (attempt) is kept; the view progress_latest holds the newest per
 * learner, lesson and question.  With the answers it keeps the lesson as
 * it was answered: each version (by the SHA-256 of its text) once, with its
 * id, title and questions, so that grading needs no lesson file.
 */
#ifndef HD_STORE_H
#define HD_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"
#include "ir/trace.h"
#include "lang/lesson.h"

#define HD_STORE_SCHEMA 5
#define HD_STORE_APP_ID 0x68647369 /* "hdsi" */

/* Every time, spread and size read back (spans, makespans) is within
 * (-HD_STORE_TIME_LIMIT, HD_STORE_TIME_LIMIT), a span's start <= its end:
 * two such values subtract, and scale by a few, without overflow. */
#define HD_STORE_TIME_LIMIT ((int64_t)1 << 62)

struct hd_store; /* opaque */

enum hd_store_mode {
	HD_STORE_RW, /* create if missing, migrate */
	HD_STORE_RO, /* must exist; never written */
};

/* The default database path (newly allocated). */
char *hd_store_default_path(void);

/*
 * Open (and for RW, create and migrate) the database at path; NULL means the
 * default path, whose folder is created if needed.  A read-only open writes
 * nothing and leaves no -wal, -shm or journal file behind, also in a folder
 * it cannot write.  Returns NULL with e set (status HD_EXIT_INPUT, where =
 * the path) for: a file this user cannot read, not a database, another
 * program's database, a schema newer than this hdsim, a schema that is not
 * the one hdsim made (a view or a trigger of its own, a table defined
 * otherwise: "spans is a view, not a table: this is not a database hdsim
 * wrote"), a read-only file or a folder this user cannot write opened RW, or
 * any SQLite failure (its message and the failing call included).
 */
struct hd_store *hd_store_open(const char *path, enum hd_store_mode mode, struct hd_err *e);
void hd_store_close(struct hd_store *s); /* accepts NULL */
/*
 * Bound each later call's queries: one still running seconds after its call
 * began is interrupted and the call fails (HD_EXIT_INPUT, saying so).  The
 * default is 60 s, so that no database can stall its reader.
 */
void hd_store_limit(struct hd_store *s, double seconds);
const char *hd_store_path(const struct hd_store *s);
int hd_store_schema_version(struct hd_store *s);

/* The machine a measured run ran on (all strings may be NULL). */
struct hd_store_machine {
	const char *hostname, *gpu_name, *gpu_uuid, *pci_bus_id;
	const char *driver, *cuda_runtime, *nccl;
	int gpu_count;
	const char *facts_json; /* link matrix, NUMA, clocks ... as JSON */
};

/* One claim's outcome on a run. */
struct hd_store_claim {
	int index;
	const char *text, *expr;
	int outcome; /* 1 holds, 0 does not, -1 not checked */
	double lhs, rhs;
	const char *detail;
};

/* What describes a run; the trace holds its spans. */
struct hd_store_run {
	const char *lesson, *scenario;
	const char *params_json;  /* knob values, e.g. {"size": 268435456} */
	const char *backend;      /* "sim" or "cuda" */
	const char *source;       /* "predicted" or "measured" */
	const char *profile_name; /* may be NULL */
	const char *profile_text; /* profile file text, stored once per distinct text */
	const struct hd_store_machine *machine; /* NULL for simulated runs */
	int64_t pair_run;                       /* the run this one is compared with, or 0 */
	const char *status;                     /* "ok", "failed", "interrupted" */
	int warmup, repeats;
	const char *timer; /* "model", "cuda-events", "host-clock" ... */
	const char *note;
	/* Per-span spread (e.g. IQR over repeats) in ps, parallel to the trace's
	 * spans; NULL when there is none. */
	const hd_time *spread;
	/* Measured runs: each repeat's makespan in ps, in repeat order, nrep of
	 * them (0, or as many as repeats): rep_makespan as the spans were timed
	 * (with per-op events), rep_bare without per-op events (NULL where those
	 * were not run); NULL and 0 for simulated runs.  Every value 0 ..
	 * HD_STORE_TIME_LIMIT - 1. */
	const hd_time *rep_makespan, *rep_bare;
	int nrep;
};

/* The most repeats a run stores (and a read accepts). */
#define HD_STORE_REPEATS_MAX HD_TRACE_MAX_REPS

/*
 * Store a run, its lanes and spans, its repeats and its claim results in one
 * transaction.  Returns 0 and the new run id, or -1 with e set and nothing
 * stored (also for repeats hdsim would refuse to read back: more than
 * HD_STORE_REPEATS_MAX, a count other than r->repeats, a time out of range).
 */
int hd_store_run_insert(struct hd_store *s, const struct hd_store_run *r, const struct hd_trace *t,
			const struct hd_store_claim *claims, int nclaims, int64_t *run_id,
			struct hd_err *e);

/*
 * Store a profile (a calibrated one, say) by name and text; the same text is
 * stored once.  Returns 0 and its id, or -1 with e set.
 */
int hd_store_profile_insert(struct hd_store *s, const char *name, const char *text, int64_t *id,
			    struct hd_err *e);

/* Read a run's trace back (lanes, spans, labels) into a new trace; NULL with
 * e set (HD_EXIT_INPUT, naming the run and row) for a value out of range. */
struct hd_trace *hd_store_run_trace(struct hd_store *s, int64_t run_id, struct hd_err *e);

/* A run's repeats read back: each one's makespan in ps, by repeat. */
struct hd_store_repeats {
	hd_time *makespan; /* [n]: timed as the run's spans (per-op events) */
	hd_time *bare;     /* [n]: without per-op events, or NULL when not run */
	int n;             /* 0 (a simulated run, one stored before schema 5),
			    * or the run's repeats */
};
/*
 * Read run run_id's repeats into *out (zeroed first; free it with
 * hd_store_repeats_free).  Every row is checked: repeats numbered 0, 1, 2
 * ... each once, none or as many as the run's repeats (at most
 * HD_STORE_REPEATS_MAX), times 0 .. HD_STORE_TIME_LIMIT - 1, bare_ps on
 * every row or on none.  Returns 0, or -1 with e set (no such run:
 * HD_EXIT_INPUT naming the id; a row hdsim never writes: HD_EXIT_INPUT
 * naming the run and the repeat; SQLite failures) and *out holding nothing.
 */
int hd_store_run_repeats(struct hd_store *s, int64_t run_id, struct hd_store_repeats *out,
			 struct hd_err *e);
void hd_store_repeats_free(struct hd_store_repeats *r); /* accepts NULL */

/* Summary row of a run, for listings. */
struct hd_store_run_row {
	int64_t id;
	char lesson[64], scenario[64], backend[8], source[12], status[16];
	char profile[64], created[32];
	hd_time makespan;
	int64_t nspans;
};
/* Call fn for each run, newest first, optionally only those of one lesson. */
int hd_store_runs(struct hd_store *s, const char *lesson,
		  int (*fn)(void *ctx, const struct hd_store_run_row *row), void *ctx,
		  struct hd_err *e);

/*
 * Everything stored about one run except its spans, read back.  Every string
 * is owned by the struct and released by hd_store_run_info_free; only those
 * hdsim may leave out are NULL (profile_name, timer, note, the machine's, a
 * claim's detail); the claims are the run's claim_results, by index, and
 * reps its repeats.
 */
struct hd_store_run_info {
	int64_t id, pair_run; /* pair_run: 0 when the run has no pair */
	char *lesson, *scenario, *params_json, *backend, *source, *profile_name;
	char *status, *version, *timer, *note, *created;
	int warmup, repeats;
	hd_time makespan;
	int has_machine; /* machine is filled (measured runs) */
	struct hd_store_machine machine;
	struct hd_store_claim *claims;
	int nclaims;
	struct hd_store_repeats reps; /* each repeat's makespan (hd_store_run_repeats) */
};
/*
 * Read run run_id's description, machine, claims and repeats into *out
 * (zeroed first).  Returns 0, or -1 with e set (no such run: HD_EXIT_INPUT
 * naming the id; a value hdsim never writes; SQLite failures) and *out
 * holding nothing to free.
 */
int hd_store_run_info(struct hd_store *s, int64_t run_id, struct hd_store_run_info *out,
		      struct hd_err *e);
void hd_store_run_info_free(struct hd_store_run_info *ri); /* accepts NULL */

/*
 * Find the learner called name, creating them if new.  A name is 1 to
 * HD_STORE_NAME_MAX bytes without control characters.  Returns 0 and the
 * learner's id, or -1 with e set (a bad name, a read-only store, SQLite).
 */
#define HD_STORE_NAME_MAX 64
int hd_store_learner(struct hd_store *s, const char *name, int64_t *id, struct hd_err *e);
/* Whether name is a valid learner name: 0, or -1 with e set saying why. */
int hd_store_learner_check(const char *name, struct hd_err *e);

/*
 * A learner's roster id: the id they give once (learner-id in the
 * configuration file), a student number or a login, so that an instructor's
 * gradebook export finds their row in the class roster.  It is 1 to
 * HD_STORE_NAME_MAX bytes without control characters and without a space at
 * either end: 0, or -1 with e set saying why.
 */
int hd_store_roster_id_check(const char *id, struct hd_err *e);
/*
 * Record id as the roster id of the learner called name, creating the
 * learner if new; the last one recorded stands.  0, or -1 with e set (a bad
 * name or id, a read-only store, SQLite) and nothing changed.
 */
int hd_store_learner_set_roster_id(struct hd_store *s, const char *name, const char *id,
				   struct hd_err *e);
/*
 * Call fn for each learner, by name, with their roster id (NULL when they
 * gave none); the strings live until fn returns, and fn returns non-zero to
 * stop.  A name or an id hdsim would not have stored is refused, naming the
 * learner row.  0, or -1 with e set.
 */
int hd_store_learners_each(struct hd_store *s,
			   int (*fn)(void *ctx, const char *name, const char *roster_id), void *ctx,
			   struct hd_err *e);

/* ---- the lesson as it was answered ---------------------------------------- */

/* Limits of a stored lesson version, as the lesson format has them; a
 * version read back past them is refused. */
#define HD_STORE_SNAP_QUESTIONS 1000
#define HD_STORE_SNAP_OPTIONS   7
#define HD_STORE_SNAP_POINTS    1000

/* An option of a choice, or an item of an order. */
struct hd_store_snap_option {
	char *id, *text;
	char *misconception; /* may be NULL */
};
/* A question as the lesson had it. */
struct hd_store_snap_question {
	char *id;
	char *kind;   /* "choice", "order" or "estimate" */
	char *prompt; /* the question's text */
	char *answer; /* choice: the option's id; order: the ids in order, by
		       * spaces; estimate: the expression and tolerance */
	int points;   /* 0 .. HD_STORE_SNAP_POINTS */
	struct hd_store_snap_option *options;
	int noptions;
};
/* A version of a lesson: its content hash, id, title and questions. */
struct hd_store_snapshot {
	char *hash; /* 64 lower-case hex digits (hd_lesson_hash) */
	char *lesson, *title;
	struct hd_store_snap_question *questions;
	int nquestions;
};

/* The snapshot of lesson l, newly allocated (free with
 * hd_store_snapshot_free). */
struct hd_store_snapshot *hd_store_snapshot_of(const struct hd_lesson *l);
void hd_store_snapshot_free(struct hd_store_snapshot *snap); /* accepts NULL */
/* Its points possible: the questions' points together. */
int hd_store_snapshot_points(const struct hd_store_snapshot *snap);
/* The index of question id in snap, or -1. */
int hd_store_snapshot_find(const struct hd_store_snapshot *snap, const char *id);
/* Is s 64 lower-case hex digits, as a version's hash is? */
bool hd_store_hash_ok(const char *s);

/*
 * Call fn for each lesson version stored, by hash.  The snapshot lives until
 * fn returns; fn returns non-zero to stop early.  Returns 0, or -1 with e set
 * (SQLite; a version with a value hdsim never writes: a bad hash, a question
 * or option missing or past the limits above, points out of range; naming
 * it).
 */
int hd_store_snapshots_each(struct hd_store *s,
			    int (*fn)(void *ctx, const struct hd_store_snapshot *snap), void *ctx,
			    struct hd_err *e);

/* ---- answers ---------------------------------------------------------------- */

/* One answer to one of a lesson's questions. */
struct hd_store_progress {
	const char *learner;  /* the learner's name (created if new) */
	const char *lesson;   /* lesson id */
	const char *question; /* question id within the lesson */
	const char *answer;   /* what the learner answered, as text */
	int correct;          /* 1 right, 0 wrong, -1 not gradable */
	int confidence;       /* 1 (guess) .. 5 (sure), 0 when not given */
	double seconds;       /* time taken to answer, >= 0 */
	int hints;            /* hints shown before answering, >= 0 */
	const char *profile;  /* hardware profile of the run, may be NULL */
	/* Whether the run answering the question had been shown to the
	 * learner when the answer was given: 1 yes, 0 no, -1 not recorded
	 * (answers stored before hdsim kept it). */
	int seen;
	/* The lesson as answered, stored once per version with the answer (its
	 * lesson must be this answer's, and hold its question); NULL stores
	 * none.  Ignored on rows read back. */
	const struct hd_store_snapshot *snapshot;
	/* Set on rows read back, ignored by hd_store_progress_add: */
	int64_t id;
	const char *created;     /* UTC, "2026-11-22T05:50:01Z" */
	const char *lesson_hash; /* the version answered, or NULL when none was kept */
};

/*
 * Store one answer, creating its learner if new, and the lesson version it
 * answers when not stored yet, in one transaction.  The lesson, question and
 * answer must be non-empty, correct -1..1, confidence 0..5, seconds finite
 * and >= 0, hints >= 0, seen -1..1, and the snapshot (when given) within the
 * limits above, of this lesson and holding this question.  Returns 0 and the
 * new row's id (id may be NULL), or -1 with e set and nothing stored (no new
 * learner or version either).
 */
int hd_store_progress_add(struct hd_store *s, const struct hd_store_progress *p, int64_t *id,
			  struct hd_err *e);

/*
 * Call fn for each stored answer, newest first, optionally only those of one
 * learner (by name) and of one lesson; NULL means all.  The row's strings live
 * until fn returns; all are non-NULL but profile.  fn returns non-zero to stop
 * early.  Returns 0, or -1 with e set (also for a row with a value hdsim never
 * writes, naming it).
 */
int hd_store_progress_each(struct hd_store *s, const char *learner, const char *lesson,
			   int (*fn)(void *ctx, const struct hd_store_progress *row), void *ctx,
			   struct hd_err *e);

/*
 * Delete a learner's answers, all of them or those of one lesson (lesson
 * NULL means all), in one transaction; the learner stays.  An unknown learner
 * has nothing to delete.  Returns 0 and the number of answers removed
 * (deleted may be NULL), or -1 with e set and nothing removed.
 */
int hd_store_progress_reset(struct hd_store *s, const char *learner, const char *lesson,
			    int64_t *deleted, struct hd_err *e);

/* PRAGMA integrity_check and foreign_key_check: 0 if both are clean. */
int hd_store_check(struct hd_store *s, struct hd_err *e);

#endif
