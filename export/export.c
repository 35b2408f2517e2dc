/*
 * export.c - `hdsim export`: choosing what to export, reading it from the
 * databases, and writing it out atomically (export.h).  The formats live in
 * export_csv.c, export_json.c, export_perfetto.c, export_svg.c,
 * export_html.c (HTML and Markdown), export_class.c and class_grade.c (the
 * class files, and reading and grading a class).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/paths.h"
#include "export/export.h"
#include "ir/backend.h"
#include "lang/lesson.h"
#include "render/report.h"
#include "run/backends.h"

static const char *const format_names[HD_EXPORT__COUNT] = {
	[HD_EXPORT_CSV] = "csv", [HD_EXPORT_JSON] = "json", [HD_EXPORT_PERFETTO] = "perfetto",
	[HD_EXPORT_SVG] = "svg", [HD_EXPORT_HTML] = "html", [HD_EXPORT_MD] = "md",
};

static const char *const table_names[HD_EXPORT_TABLE__COUNT] = {
	[HD_EXPORT_RUNS] = "runs",
	[HD_EXPORT_SPANS] = "spans",
	[HD_EXPORT_CLAIMS] = "claims",
	[HD_EXPORT_PROGRESS] = "progress",
};

int
hd_export_format_parse(const char *name, enum hd_export_format *f, struct hd_err *e)
{
	int i;

	for (i = 0; i < HD_EXPORT__COUNT; i++)
		if (name != NULL && strcmp(name, format_names[i]) == 0) {
			*f = (enum hd_export_format)i;
			return 0;
		}
	hd_err_set(e, HD_EXIT_INPUT, "--format",
		   "unknown export format '%s'; the formats "
		   "are csv, json, perfetto, svg, html and md",
		   name ? name : "");
	return -1;
}

const char *
hd_export_format_name(enum hd_export_format f)
{
	return (unsigned)f < HD_EXPORT__COUNT ? format_names[f] : "?";
}

int
hd_export_table_parse(const char *name, enum hd_export_table *t, struct hd_err *e)
{
	int i;

	for (i = 0; i < HD_EXPORT_TABLE__COUNT; i++)
		if (name != NULL && strcmp(name, table_names[i]) == 0) {
			*t = (enum hd_export_table)i;
			return 0;
		}
	hd_err_set(e, HD_EXIT_INPUT, "--table",
		   "unknown table '%s'; the tables are runs, "
		   "spans, claims and progress",
		   name ? name : "");
	return -1;
}

const char *
hd_export_table_name(enum hd_export_table t)
{
	return (unsigned)t < HD_EXPORT_TABLE__COUNT ? table_names[t] : "?";
}

/* ---- the set ------------------------------------------------------------- */

void
hd_export_set_init(struct hd_export_set *s)
{
	memset(s, 0, sizeof *s);
}

void
hd_export_answer_free(struct hd_export_answer *a)
{
	if (a == NULL)
		return;
	free(a->db);
	free(a->learner);
	free(a->lesson);
	free(a->question);
	free(a->answer);
	free(a->profile);
	free(a->created);
	free(a->lesson_hash);
}

void
hd_export_set_free(struct hd_export_set *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nruns; i++) {
		hd_store_run_info_free(&s->runs[i].info);
		hd_trace_free(s->runs[i].trace);
		free(s->runs[i].db);
	}
	for (i = 0; i < s->nanswers; i++)
		hd_export_answer_free(&s->answers[i]);
	free(s->runs);
	free(s->answers);
	free(s->note);
	memset(s, 0, sizeof *s);
}

void
hd_export_add_run(struct hd_export_set *s, const char *db, struct hd_store_run_info *info,
		  struct hd_trace *trace)
{
	struct hd_export_run *r;

	s->runs = hd_xgrow(s->runs, &s->runs_cap, s->nruns + 1, sizeof *s->runs);
	r = &s->runs[s->nruns++];
	r->info = *info;
	memset(info, 0, sizeof *info);
	r->db = db != NULL ? hd_xstrdup(db) : NULL;
	r->trace = trace;
}

/* Run ids of a database, collected from hd_store_runs (newest first). */
struct ids {
	int64_t *v;
	size_t n, cap;
};

static int
keep_id(void *ctx, const struct hd_store_run_row *row)
{
	struct ids *ids = ctx;

	ids->v = hd_xgrow(ids->v, &ids->cap, ids->n + 1, sizeof *ids->v);
	ids->v[ids->n++] = row->id;
	return 0;
}

static char *
dup_or(const char *s, const char *none)
{
	return s != NULL ? hd_xstrdup(s) : none != NULL ? hd_xstrdup(none) : NULL;
}

void
hd_export_answer_copy(struct hd_export_answer *a, const char *db, const struct hd_store_progress *p,
		      bool blank)
{
	const char *none = blank ? "" : NULL;

	a->db = hd_xstrdup(db);
	a->learner = dup_or(p->learner, none);
	a->lesson = dup_or(p->lesson, none);
	a->question = dup_or(p->question, none);
	a->answer = dup_or(p->answer, none);
	a->profile = dup_or(p->profile, NULL);
	a->created = dup_or(p->created, none);
	a->lesson_hash = dup_or(p->lesson_hash, NULL);
	a->seen = p->seen;
	a->id = p->id;
	a->correct = p->correct;
	a->confidence = p->confidence;
	a->hints = p->hints;
	a->seconds = p->seconds;
}

struct answer_ctx {
	struct hd_export_set *s;
	const char *db;
};

static int
keep_answer(void *ctx, const struct hd_store_progress *p)
{
	struct answer_ctx *ac = ctx;
	struct hd_export_set *s = ac->s;
	struct hd_export_answer *a;

	s->answers = hd_xgrow(s->answers, &s->answers_cap, s->nanswers + 1, sizeof *s->answers);
	a = &s->answers[s->nanswers++];
	memset(a, 0, sizeof *a);
	hd_export_answer_copy(a, ac->db, p, false);
	return 0;
}

/* Whether id is among ids[0..n). */
static bool
has_id(const int64_t *v, size_t n, int64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

/* Add run `id` of st (its info and its trace); -1 with e set. */
static int
load_run(struct hd_export_set *s, struct hd_store *st, const char *path, int64_t id,
	 struct hd_err *e)
{
	struct hd_store_run_info info;
	struct hd_trace *t;

	if (hd_store_run_info(st, id, &info, e) != 0)
		return -1;
	if ((t = hd_store_run_trace(st, id, e)) == NULL) {
		hd_store_run_info_free(&info);
		return -1;
	}
	hd_export_add_run(s, path, &info, t);
	return 0;
}

/* Drop what was added after the set had nruns runs and nanswers answers. */
static void
truncate_set(struct hd_export_set *s, size_t nruns, size_t nanswers)
{
	while (s->nruns > nruns) {
		struct hd_export_run *r = &s->runs[--s->nruns];

		hd_store_run_info_free(&r->info);
		hd_trace_free(r->trace);
		free(r->db);
	}
	while (s->nanswers > nanswers)
		hd_export_answer_free(&s->answers[--s->nanswers]);
}

int
hd_export_load(struct hd_export_set *s, const char *path, const struct hd_export_select *sel,
	       struct hd_err *e)
{
	struct hd_store *st;
	struct ids ids = { 0 }, pick = { 0 };
	size_t nruns = s->nruns, nanswers = s->nanswers, i;
	int rc = -1;

	if ((st = hd_store_open(path, HD_STORE_RO, e)) == NULL)
		return -1;
	/* Damage past the header shows as a failed read below ("database disk
	 * image is malformed"); a full integrity check would cost more than the
	 * export itself. */
	if (hd_store_runs(st, sel->run > 0 ? NULL : sel->lesson, keep_id, &ids, e) != 0)
		goto out;
	if (sel->run > 0) {
		struct hd_store_run_info info;

		if (!has_id(ids.v, ids.n, sel->run)) {
			rc = 0; /* not here; the caller decides whether anywhere */
			goto out;
		}
		if (hd_store_run_info(st, sel->run, &info, e) != 0)
			goto out;
		/* The pair: the predicted run a measured one points at, or the
		 * measured runs that point at a predicted one. */
		if (info.pair_run > 0 && has_id(ids.v, ids.n, info.pair_run))
			keep_id(&pick, &(struct hd_store_run_row){ .id = info.pair_run });
		keep_id(&pick, &(struct hd_store_run_row){ .id = sel->run });
		hd_store_run_info_free(&info);
		for (i = ids.n; i-- > 0;) {
			struct hd_store_run_info other;
			struct hd_err ignored = { 0 };

			if (ids.v[i] == sel->run ||
			    hd_store_run_info(st, ids.v[i], &other, &ignored) != 0)
				continue;
			if (other.pair_run == sel->run)
				keep_id(&pick, &(struct hd_store_run_row){ .id = ids.v[i] });
			hd_store_run_info_free(&other);
		}
	} else {
		/* oldest first: the order they were made in */
		for (i = ids.n; i-- > 0;)
			keep_id(&pick, &(struct hd_store_run_row){ .id = ids.v[i] });
	}
	for (i = 0; i < pick.n; i++)
		if (load_run(s, st, path, pick.v[i], e) != 0)
			goto out;
	if (sel->answers && sel->run <= 0) {
		struct answer_ctx ac = { s, path };
		size_t first = s->nanswers, j;

		if (hd_store_progress_each(st, sel->learner, sel->lesson, keep_answer, &ac, e) != 0)
			goto out;
		/* oldest first, like the runs */
		for (i = first, j = s->nanswers; j > i + 1; i++, j--) {
			struct hd_export_answer tmp = s->answers[i];

			s->answers[i] = s->answers[j - 1];
			s->answers[j - 1] = tmp;
		}
	}
	rc = (int)(s->nruns - nruns);
out:
	if (rc < 0)
		truncate_set(s, nruns, nanswers);
	free(ids.v);
	free(pick.v);
	hd_store_close(st);
	return rc;
}

int
hd_export_simulate(struct hd_export_set *s, const struct hd_lesson *l, const struct hd_profile *p,
		   struct hd_err *e)
{
	struct hd_run r;
	char *params;
	int i, k;

	if (hd_run_lesson(&r, l, 0, p, &hd_sim_backend, NULL, 0, e) != 0) {
		hd_run_free(&r);
		return -1;
	}
	params = hd_run_params_json(&r);
	for (i = 0; i < r.nscen; i++) {
		struct hd_store_run_info info;

		memset(&info, 0, sizeof info);
		info.id = i + 1;
		info.lesson = hd_xstrdup(hd_lesson_id(l));
		info.scenario = hd_xstrdup(hd_lesson_scenario_name(l, i));
		info.params_json = hd_xstrdup(params);
		info.backend = hd_xstrdup("sim");
		info.source = hd_xstrdup("predicted");
		info.profile_name = hd_xstrdup(p->name);
		info.status = hd_xstrdup("ok");
		info.version = hd_xstrdup(PACKAGE_VERSION);
		info.timer = hd_xstrdup("model");
		info.note = hd_xstrdup("simulated by hdsim export: no run of this lesson "
				       "was stored");
		info.repeats = 1;
		info.makespan = r.traces[i]->makespan;
		/* the claims go with the lesson's last run, as the store keeps them */
		if (i == r.nscen - 1 && r.nclaims > 0) {
			info.claims = hd_run_store_claims(l, r.claims);
			info.nclaims = r.nclaims;
			/* the set owns its strings */
			for (k = 0; k < r.nclaims; k++) {
				struct hd_store_claim *c = &info.claims[k];

				c->text = hd_xstrdup(c->text);
				c->expr = hd_xstrdup(c->expr);
				c->detail = hd_xstrdup(c->detail);
			}
		}
		hd_export_add_run(s, NULL, &info, r.traces[i]);
		r.traces[i] = NULL;
	}
	free(params);
	hd_run_free(&r);
	return 0;
}

/* ---- groups ---------------------------------------------------------------- */

static bool
same_db(const struct hd_export_run *a, const struct hd_export_run *b)
{
	if (a->db == NULL || b->db == NULL)
		return a->db == b->db;
	return strcmp(a->db, b->db) == 0;
}

size_t
hd_export_groups(const struct hd_export_set *s, struct hd_export_group **out)
{
	struct hd_export_group *g = hd_xcalloc(s->nruns + 1, sizeof *g);
	bool *used = hd_xcalloc(s->nruns + 1, sizeof *used);
	size_t n = 0, i, j;

	for (i = 0; i < s->nruns; i++) {
		const struct hd_export_run *r = &s->runs[i];

		if (used[i])
			continue;
		used[i] = true;
		if (r->info.source != NULL && strcmp(r->info.source, "measured") == 0) {
			g[n].meas = r;
			/* a measured run seen before its prediction: find it */
			for (j = i + 1; j < s->nruns; j++)
				if (!used[j] && same_db(r, &s->runs[j]) &&
				    s->runs[j].info.id == r->info.pair_run) {
					g[n].pred = &s->runs[j];
					used[j] = true;
					break;
				}
		} else {
			g[n].pred = r;
			for (j = i + 1; j < s->nruns; j++)
				if (!used[j] && same_db(r, &s->runs[j]) &&
				    s->runs[j].info.pair_run == r->info.id &&
				    s->runs[j].info.source != NULL &&
				    strcmp(s->runs[j].info.source, "measured") == 0) {
					g[n].meas = &s->runs[j];
					used[j] = true;
					break;
				}
		}
		n++;
	}
	free(used);
	*out = g;
	return n;
}

const struct hd_export_run *
hd_export_group_run(const struct hd_export_group *g)
{
	return g->pred != NULL ? g->pred : g->meas;
}

bool
hd_export_run_band(const struct hd_export_run *r, struct hd_band *b)
{
	memset(b, 0, sizeof *b);
	if (r == NULL || r->info.reps.n < 2 ||
	    hd_band_of(r->info.reps.makespan, r->info.reps.n, b) != 0) {
		memset(b, 0, sizeof *b);
		return false;
	}
	return true;
}

/* ---- writing ---------------------------------------------------------------- */

/* The writers of the formats that are one document (csv is one per table). */
static void (*const writers[HD_EXPORT__COUNT])(const struct hd_export_set *, struct hd_exw *) = {
	[HD_EXPORT_JSON] = hd_export_json, [HD_EXPORT_PERFETTO] = hd_export_perfetto,
	[HD_EXPORT_SVG] = hd_export_svg,   [HD_EXPORT_HTML] = hd_export_html,
	[HD_EXPORT_MD] = hd_export_md,
};

void
hd_export_write(const struct hd_export_set *s, enum hd_export_format f, enum hd_export_table t,
		struct hd_exw *w)
{
	if ((unsigned)f >= HD_EXPORT__COUNT || writers[f] == NULL)
		hd_export_csv(s, t, w);
	else
		writers[f](s, w);
}

/* fill into an open stream; `name` says which in a message. */
static int
write_stream(FILE *f, const char *name, void (*fill)(void *ctx, struct hd_exw *w), void *ctx,
	     struct hd_err *e)
{
	struct hd_exw w;
	int rc;

	hd_exw_init(&w, f);
	fill(ctx, &w);
	rc = hd_exw_flush(&w);
	hd_exw_free(&w);
	if (rc != 0 || fflush(f) != 0) {
		hd_err_set(e, HD_EXIT_FAIL, name, "write failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A path that is not a regular file (a device, a FIFO, a terminal) is
 * written as it is, never replaced: -o /dev/null stays the null device and
 * a FIFO's reader gets the export.  A FIFO nobody reads is refused rather
 * than waited on. */
static int
write_in_place(const char *path, void (*fill)(void *ctx, struct hd_exw *w), void *ctx,
	       struct hd_err *e)
{
	FILE *f;
	int fd, rc;

	if ((fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		hd_err_set(e, HD_EXIT_FAIL, path,
			   errno == ENXIO ? "nothing is reading from it "
					    "(a FIFO or socket): %s" :
					    "cannot write: %s",
			   strerror(errno));
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
	    (f = fdopen(fd, "w")) == NULL) {
		hd_err_set(e, HD_EXIT_FAIL, path, "cannot write: %s", strerror(errno));
		close(fd);
		return -1;
	}
	rc = write_stream(f, path, fill, ctx, e);
	if (fclose(f) != 0 && rc == 0) {
		hd_err_set(e, HD_EXIT_FAIL, path, "write failed: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}

/* A regular file (or none yet) is replaced atomically: written to a
 * temporary file beside it, renamed over it only when all was written. */
static int
write_atomic(const char *path, void (*fill)(void *ctx, struct hd_exw *w), void *ctx,
	     struct hd_err *e)
{
	char *tmp = hd_xasprintf("%s.tmp-XXXXXX", path);
	FILE *f;
	int fd, rc = -1;

	if ((fd = mkstemp(tmp)) < 0) {
		hd_err_set(e, HD_EXIT_FAIL, path, "cannot write here: %s", strerror(errno));
		free(tmp);
		return -1;
	}
	/* mkstemp makes 0600; an export is an ordinary file */
	fchmod(fd, 0644 & ~umask(umask(0)));
	if ((f = fdopen(fd, "w")) == NULL) {
		hd_err_set(e, HD_EXIT_FAIL, path, "cannot write: %s", strerror(errno));
		close(fd);
		goto out;
	}
	rc = write_stream(f, path, fill, ctx, e);
	if (fclose(f) != 0 && rc == 0) {
		hd_err_set(e, HD_EXIT_FAIL, path, "write failed: %s", strerror(errno));
		rc = -1;
	}
	if (rc == 0 && rename(tmp, path) != 0) {
		hd_err_set(e, HD_EXIT_FAIL, path, "cannot replace the file: %s", strerror(errno));
		rc = -1;
	}
out:
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

int
hd_export_to_file(const char *path, FILE *out, void (*fill)(void *ctx, struct hd_exw *w), void *ctx,
		  struct hd_err *e)
{
	struct stat st;
	char *target = NULL;
	int rc;

	if (path == NULL)
		return write_stream(out, "standard output", fill, ctx, e);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		hd_err_set(e, HD_EXIT_INPUT, path, "is a folder, not a file");
		return -1;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return write_in_place(path, fill, ctx, e);
	/* a link to a regular file: the file it names is replaced, the link kept */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		target = realpath(path, NULL);
	rc = write_atomic(target != NULL ? target : path, fill, ctx, e);
	free(target);
	return rc;
}

/* ---- files and folders ----------------------------------------------------------- */

struct fill_set {
	const struct hd_export_set *s;
	enum hd_export_format f;
	enum hd_export_table t;
};

static void
fill_set(void *ctx, struct hd_exw *w)
{
	struct fill_set *fs = ctx;

	hd_export_write(fs->s, fs->f, fs->t, w);
}

/* dir/name, without doubling a slash dir ends with. */
static char *
join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return hd_xasprintf("%.*s/%s", (int)n, dir, name);
}

static bool
is_dir(const char *path)
{
	struct stat st;
	size_t n = strlen(path);

	return (n > 0 && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* A file name from a lesson or scenario name: letters, digits, - _ . only. */
static void
file_part(char *out, size_t n, const char *s)
{
	size_t j = 0;

	for (; s != NULL && *s != '\0' && j + 1 < n; s++) {
		unsigned char c = (unsigned char)*s;

		out[j++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || c == '-' || c == '_' ?
		    (char)c :
		    '_';
	}
	out[j] = '\0';
}

struct fill_svg {
	const struct hd_export_group *g;
	size_t n;
	const char *lesson;
};

static void
fill_timeline(void *ctx, struct hd_exw *w)
{
	hd_export_svg_timeline(((struct fill_svg *)ctx)->g, w, true);
}

static void
fill_chart(void *ctx, struct hd_exw *w)
{
	struct fill_svg *fs = ctx;

	hd_export_svg_chart(fs->lesson, fs->g, fs->n, w, true);
}

/* svg into a folder: one timeline per scenario, one chart per lesson. */
static int
write_svg_dir(const struct hd_export_set *s, const char *dir, FILE *out, struct hd_err *e)
{
	struct hd_export_group *g;
	size_t n = hd_export_groups(s, &g), i, j, k;
	int rc = 0;

	if (hd_paths_mkdir(dir, 0755, e) != 0) {
		free(g);
		return -1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		const struct hd_export_run *r = hd_export_group_run(&g[i]);
		struct fill_svg fs = { &g[i], 1, NULL };
		char les[64], sc[64], name[160], *path;

		file_part(les, sizeof les, r->info.lesson);
		file_part(sc, sizeof sc, r->info.scenario);
		snprintf(name, sizeof name, "%s-%s-run%" PRId64 ".svg", les, sc, r->info.id);
		path = join(dir, name);
		rc = hd_export_to_file(path, NULL, fill_timeline, &fs, e);
		if (rc == 0)
			fprintf(out, "%s\n", path);
		free(path);
	}
	/* one chart per lesson, over its groups (consecutive or not) */
	for (i = 0; i < n && rc == 0; i++) {
		const char *les = hd_export_group_run(&g[i])->info.lesson;
		struct hd_export_group *lg;
		struct fill_svg fs;
		char name[64], file[80], *path;

		for (j = 0; j < i; j++)
			if (strcmp(hd_export_group_run(&g[j])->info.lesson, les) == 0)
				break;
		if (j < i)
			continue;
		lg = hd_xcalloc(n, sizeof *lg);
		for (j = i, k = 0; j < n; j++)
			if (strcmp(hd_export_group_run(&g[j])->info.lesson, les) == 0)
				lg[k++] = g[j];
		fs.g = lg;
		fs.n = k;
		fs.lesson = les;
		file_part(name, sizeof name, les);
		snprintf(file, sizeof file, "%s-chart.svg", name);
		path = join(dir, file);
		rc = hd_export_to_file(path, NULL, fill_chart, &fs, e);
		if (rc == 0)
			fprintf(out, "%s\n", path);
		free(path);
		free(lg);
	}
	free(g);
	return rc;
}

/* csv into a folder: runs.csv, spans.csv, claims.csv, progress.csv. */
static int
write_csv_dir(const struct hd_export_set *s, const char *dir, FILE *out, struct hd_err *e)
{
	int t;

	if (hd_paths_mkdir(dir, 0755, e) != 0)
		return -1;
	for (t = 0; t < HD_EXPORT_TABLE__COUNT; t++) {
		struct fill_set fs = { s, HD_EXPORT_CSV, (enum hd_export_table)t };
		char file[32], *path;
		int rc;

		snprintf(file, sizeof file, "%s.csv", table_names[t]);
		path = join(dir, file);
		rc = hd_export_to_file(path, NULL, fill_set, &fs, e);
		if (rc == 0)
			fprintf(out, "%s\n", path);
		free(path);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* svg or csv into a folder; every other format is one file. */
int
hd_export_write_dir(const struct hd_export_set *s, enum hd_export_format f, const char *dir,
		    FILE *out, struct hd_err *e)
{
	if (f == HD_EXPORT_CSV)
		return write_csv_dir(s, dir, out, e);
	if (f == HD_EXPORT_SVG)
		return write_svg_dir(s, dir, out, e);
	hd_err_set(e, HD_EXIT_INPUT, dir,
		   "is a folder; --format %s writes one file (only "
		   "csv without --table, and svg, write into a folder)",
		   format_names[f]);
	return -1;
}

int
hd_export_write_file(const struct hd_export_set *s, enum hd_export_format f, enum hd_export_table t,
		     const char *path, FILE *out, struct hd_err *e)
{
	struct fill_set fs = { s, f, t };

	return hd_export_to_file(path, out, fill_set, &fs, e);
}

bool
hd_export_is_dir(const char *path)
{
	return is_dir(path);
}

/* ---- the class files --------------------------------------------------------- */

struct fill_class {
	const struct hd_export_class *c;
	int which;
};

static void
fill_class(void *ctx, struct hd_exw *w)
{
	struct fill_class *fc = ctx;

	if (fc->which == 0)
		hd_export_class_answers(fc->c, w);
	else if (fc->which == 1)
		hd_export_class_gradebook(fc->c, w);
	else
		hd_export_class_html(fc->c, w);
}

int
hd_export_class_write(const struct hd_export_class *c, const char *dir, FILE *out, struct hd_err *e)
{
	static const char *const names[] = { "answers.csv", "gradebook.csv", "class.html" };
	int i;

	if (hd_paths_mkdir(dir, 0755, e) != 0)
		return -1;
	for (i = 0; i < (int)HD_ARRAY_LEN(names); i++) {
		struct fill_class fc = { c, i };
		char *path = join(dir, names[i]);

		if (hd_export_to_file(path, NULL, fill_class, &fc, e) != 0) {
			free(path);
			return -1;
		}
		fprintf(out, "%s\n", path);
		free(path);
	}
	return 0;
}
