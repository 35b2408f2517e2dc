/*
 * catalog.c - the lesson catalogue: built-in lessons, lesson directories and
 * files, kept in display order, and lookup by id, number, prefix or path.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/embedded.h"
#include "lang/catalog.h"
#include "lang/lesson_priv.h"

struct entry {
	struct hd_lesson *lesson;
	char *origin;   /* "built-in" or a file path */
	char *replaced; /* the origin of the lesson it replaced (`replaces`), or NULL */
};

struct hd_catalog {
	struct entry *v;
	size_t n, cap;
	struct hd_err *errs;
	size_t nerrs, errs_cap;
};

struct hd_catalog *
hd_catalog_new(void)
{
	return hd_xcalloc(1, sizeof(struct hd_catalog));
}

void
hd_catalog_free(struct hd_catalog *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++) {
		hd_lesson_free(c->v[i].lesson);
		free(c->v[i].origin);
		free(c->v[i].replaced);
	}
	free(c->v);
	free(c->errs);
	free(c);
}

static int
entry_cmp(const struct entry *a, const struct entry *b)
{
	double oa = hd_lesson_order(a->lesson), ob = hd_lesson_order(b->lesson);

	if (oa != ob)
		return oa < ob ? -1 : 1;
	return strcmp(hd_lesson_id(a->lesson), hd_lesson_id(b->lesson));
}

/* The entry holding id, or -1. */
static int
find_id(const struct hd_catalog *c, const char *id)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(hd_lesson_id(c->v[i].lesson), id) == 0)
			return (int)i;
	return -1;
}

/* Two lessons from the same text are one lesson, read twice. */
static bool
same_lesson(const struct hd_lesson *a, const struct hd_lesson *b)
{
	return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

int
hd_catalog_check_id(const struct hd_catalog *c, const struct hd_lesson *l, const char *origin,
		    struct hd_err *e)
{
	int i = find_id(c, hd_lesson_id(l));
	const struct entry *o;

	if (i < 0 || hd_lesson_replaces(l) != NULL || same_lesson(c->v[i].lesson, l))
		return 0;
	o = &c->v[i];
	if (strcmp(o->origin, "built-in") == 0)
		hd_err_set(e, HD_EXIT_INPUT, origin,
			   "lesson id '%s' is already the id of the built-in lesson %s: give this "
			   "lesson another id, or add 'replaces %s' to replace that one",
			   hd_lesson_id(l), hd_lesson_path(o->lesson), hd_lesson_id(l));
	else
		hd_err_set(e, HD_EXIT_INPUT, origin,
			   "lesson id '%s' is already the id of %s: give one of them another id, "
			   "or add 'replaces %s' to the one that should replace the other",
			   hd_lesson_id(l), o->origin, hd_lesson_id(l));
	return -1;
}

/*
 * Insert l in order; a lesson with the same id is replaced (the caller has
 * checked that it may be: hd_catalog_check_id, or a path named by the user).
 * Returns its index.
 */
static int
add(struct hd_catalog *c, struct hd_lesson *l, const char *origin)
{
	struct entry e = { l, hd_xstrdup(origin), NULL };
	size_t j;
	int i = find_id(c, hd_lesson_id(l));

	if (i >= 0) {
		if (hd_lesson_replaces(l) != NULL && !same_lesson(c->v[i].lesson, l))
			e.replaced = hd_xstrdup(c->v[i].origin);
		hd_lesson_free(c->v[i].lesson);
		free(c->v[i].origin);
		free(c->v[i].replaced);
		memmove(&c->v[i], &c->v[i + 1], (c->n - (size_t)i - 1) * sizeof *c->v);
		c->n--;
	}
	c->v = hd_xgrow(c->v, &c->cap, c->n + 1, sizeof *c->v);
	for (j = c->n; j > 0 && entry_cmp(&e, &c->v[j - 1]) < 0; j--)
		c->v[j] = c->v[j - 1];
	c->v[j] = e;
	c->n++;
	return (int)j;
}

int
hd_catalog_add(struct hd_catalog *c, struct hd_lesson *l, const char *origin, struct hd_err *e)
{
	if (hd_catalog_check_id(c, l, origin, e) < 0) {
		hd_lesson_free(l);
		return -1;
	}
	return add(c, l, origin);
}

static void
keep_error(struct hd_catalog *c, const struct hd_err *e)
{
	c->errs = hd_xgrow(c->errs, &c->errs_cap, c->nerrs + 1, sizeof *c->errs);
	c->errs[c->nerrs++] = *e;
}

int
hd_catalog_add_builtin(struct hd_catalog *c)
{
	int i, bad = 0;

	for (i = 0; i < hd_builtin_lessons_count; i++) {
		const struct hd_embedded *em = &hd_builtin_lessons[i];
		struct hd_err e = { 0 };
		struct hd_lesson *l = hd_lesson_parse(em->text, strlen(em->text), em->name, &e);
		if (l == NULL) {
			keep_error(c, &e);
			bad++;
			continue;
		}
		add(c, l, "built-in");
	}
	return bad;
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
add_file(struct hd_catalog *c, const char *path, struct hd_err *e)
{
	struct hd_lesson *l = hd_lesson_load(path, e);

	if (l == NULL)
		return -1;
	return hd_catalog_add(c, l, path, e);
}

int
hd_catalog_list_dir(const char *path, char ***out, struct hd_err *e)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if ((d = opendir(path)) == NULL) {
		hd_err_set(e, HD_EXIT_INPUT, path, "cannot read this lesson directory: %s",
			   strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".hds"))
			continue;
		names = hd_xgrow(names, &cap, n + 1, sizeof *names);
		names[n++] = hd_xasprintf("%s/%s", path, de->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof *names, name_cmp);
	*out = names;
	return (int)n;
}

int
hd_catalog_add_path(struct hd_catalog *c, const char *path, struct hd_err *e)
{
	char **names = NULL;
	int n, i, added = 0, failed = 0;

	if (!is_dir(path))
		return add_file(c, path, e) < 0 ? -1 : 1;
	if ((n = hd_catalog_list_dir(path, &names, e)) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		struct hd_err fe = { 0 };
		if (add_file(c, names[i], &fe) < 0) {
			keep_error(c, &fe);
			if (failed++ == 0)
				*e = fe;
		} else
			added++;
		free(names[i]);
	}
	free(names);
	return failed ? -1 : added;
}

void
hd_catalog_add_dirs(struct hd_catalog *c, const char *list)
{
	char *copy, *p, *dir;

	if (list == NULL || *list == '\0')
		return;
	copy = hd_xstrdup(list);
	for (p = copy; (dir = strsep(&p, ":")) != NULL;) {
		struct hd_err e = { 0 };
		if (*dir == '\0' || !is_dir(dir))
			continue;
		/* Per-file errors are kept by add_path itself. */
		hd_catalog_add_path(c, dir, &e);
	}
	free(copy);
}

int
hd_catalog_nerrors(const struct hd_catalog *c)
{
	return (int)c->nerrs;
}

const struct hd_err *
hd_catalog_error(const struct hd_catalog *c, int i)
{
	return i >= 0 && (size_t)i < c->nerrs ? &c->errs[i] : NULL;
}

int
hd_catalog_count(const struct hd_catalog *c)
{
	return (int)c->n;
}

const struct hd_lesson *
hd_catalog_get(const struct hd_catalog *c, int i)
{
	return i >= 0 && (size_t)i < c->n ? c->v[i].lesson : NULL;
}

const char *
hd_catalog_origin(const struct hd_catalog *c, int i)
{
	return i >= 0 && (size_t)i < c->n ? c->v[i].origin : NULL;
}

const char *
hd_catalog_replaced(const struct hd_catalog *c, int i)
{
	return i >= 0 && (size_t)i < c->n ? c->v[i].replaced : NULL;
}

/* Levenshtein distance, capped: enough to suggest near misses. */
static int
distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b), i, j;
	int *row, d;

	if (n > 64 || m > 64)
		return 99;
	row = hd_xcalloc(m + 1, sizeof *row);
	for (j = 0; j <= m; j++)
		row[j] = (int)j;
	for (i = 1; i <= n; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (j = 1; j <= m; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	d = row[m];
	free(row);
	return d;
}

static int
all_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int
find_loaded(const struct hd_catalog *c, const struct hd_lesson *l)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].lesson == l)
			return (int)i;
	return -1;
}

int
hd_catalog_find(struct hd_catalog *c, const char *arg, struct hd_err *e)
{
	size_t i, len = strlen(arg);
	int hit = -1, nhits = 0;
	char list[512];
	size_t ll = 0;

	/* A path: a file that exists, or anything that looks like one. */
	if (strchr(arg, '/') != NULL || has_suffix(arg, ".hds")) {
		struct hd_lesson *l;
		for (i = 0; i < c->n; i++)
			if (strcmp(c->v[i].origin, arg) == 0)
				return (int)i;
		if ((l = hd_lesson_load(arg, e)) == NULL)
			return -1;
		add(c, l, arg);
		return find_loaded(c, l);
	}
	for (i = 0; i < c->n; i++)
		if (strcmp(hd_lesson_id(c->v[i].lesson), arg) == 0)
			return (int)i;
	if (all_digits(arg)) {
		long n = len > 6 ? 0 : strtol(arg, NULL, 10);
		if (n >= 1 && (size_t)n <= c->n)
			return (int)n - 1;
		hd_err_set(e, HD_EXIT_INPUT, "",
			   "there is no lesson number %s: "
			   "lessons are numbered 1 to %zu ('hdsim list' shows them)",
			   arg, c->n);
		return -1;
	}
	list[0] = '\0';
	for (i = 0; i < c->n; i++) {
		const char *id = hd_lesson_id(c->v[i].lesson);
		if (strncmp(id, arg, len) == 0) {
			hit = (int)i;
			nhits++;
			if (ll < sizeof list)
				ll += (size_t)snprintf(list + ll, sizeof list - ll, "%s'%s'",
						       nhits > 1 ? ", " : "", id);
		}
	}
	if (nhits == 1)
		return hit;
	if (nhits > 1) {
		hd_err_set(e, HD_EXIT_INPUT, "",
			   "'%s' could be any of %s; "
			   "give more of the name",
			   arg, list);
		return -1;
	}
	/* Not found: name the close ones. */
	for (i = 0; i < c->n; i++) {
		const char *id = hd_lesson_id(c->v[i].lesson);
		int d = distance(arg, id);
		if (d <= 3 || (len >= 3 && strstr(id, arg) != NULL)) {
			if (ll < sizeof list)
				ll += (size_t)snprintf(list + ll, sizeof list - ll, "%s'%s'",
						       ll ? ", " : "", id);
		}
	}
	if (ll > 0)
		hd_err_set(e, HD_EXIT_INPUT, "", "no lesson '%s'; did you mean %s?", arg, list);
	else
		hd_err_set(e, HD_EXIT_INPUT, "",
			   "no lesson '%s' ('hdsim list' shows "
			   "the lessons; a path to a .hds file works too)",
			   arg);
	return -1;
}
