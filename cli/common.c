/*
 * common.c - what the commands share: the context hd_cli_main makes for a
 * command (the profile resolved, the backend picked, the catalogue loaded),
 * writing out and failing, stopping a measurement on a signal, and the two
 * pieces of output more than one command prints: the lesson list and a
 * lesson's run.
 */
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "lang/lesson.h"
#include "real/real.h"
#include "render/report.h"
#include "render/timeline.h"
#include "run/backends.h"
#include "run/run.h"

volatile sig_atomic_t hd_cmd_stop;

static void
print_catalog_errors(struct hd_cmd_ctx *x)
{
	int i;

	for (i = 0; i < hd_catalog_nerrors(x->cat); i++) {
		fprintf(x->err, "hdsim: warning: a lesson was skipped:\n");
		hd_err_print(hd_catalog_error(x->cat, i), x->err);
	}
}

int
hd_cmd_ctx_open(struct hd_cmd_ctx *x, bool lessons)
{
	struct hd_err e = { 0 };
	int status;

	if (hd_profile_resolve(x->o->profile, &x->profile, &e) != 0)
		return hd_cmd_fail(x, &e);
	x->backend = &hd_sim_backend;
	if (x->o->real) {
		if ((status = hd_cmd_gpu_check(x)) != 0)
			return status;
		x->backend = &hd_real_backend;
	}
	x->color = hd_cli_color(x->o);
	x->width = hd_timeline_width(x->o->width);
	x->cat = hd_catalog_new();
	if (lessons) {
		hd_catalog_add_builtin(x->cat);
		hd_catalog_add_dirs(x->cat, getenv("HDSIM_LESSON_PATH"));
		print_catalog_errors(x);
	}
	return 0;
}

void
hd_cmd_ctx_close(struct hd_cmd_ctx *x)
{
	if (x == NULL)
		return;
	hd_catalog_free(x->cat);
	x->cat = NULL;
}

void
hd_cmd_put(struct hd_cmd_ctx *x, const struct hd_buf *b)
{
	if (b->len > 0)
		fwrite(b->s, 1, b->len, x->out);
	fflush(x->out);
}

int
hd_cmd_fail(struct hd_cmd_ctx *x, const struct hd_err *e)
{
	hd_err_print(e, x->err);
	return e->status != 0 ? e->status : HD_EXIT_FAIL;
}

int
hd_cmd_gpu_check(struct hd_cmd_ctx *x)
{
	struct hd_err e = { 0 };

	if (hd_real_backend.available(&e) == 0)
		return 0;
	if (e.status == 0)
		e.status = HD_EXIT_FAIL;
	return hd_cmd_fail(x, &e);
}

static void
on_stop(int sig)
{
	(void)sig;
	hd_cmd_stop = 1;
}

void
hd_cmd_stop_catch(struct hd_cmd_stop_saved *saved)
{
	struct sigaction sa;

	hd_cmd_stop = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &saved->sigint);
	sigaction(SIGTERM, &sa, &saved->sigterm);
}

void
hd_cmd_stop_release(const struct hd_cmd_stop_saved *saved)
{
	sigaction(SIGINT, &saved->sigint, NULL);
	sigaction(SIGTERM, &saved->sigterm, NULL);
}

void
hd_cmd_list_lessons(struct hd_cmd_ctx *x, struct hd_buf *b)
{
	int i, n = hd_catalog_count(x->cat), idw = 6;
	const char *part = NULL;

	for (i = 0; i < n; i++) {
		int l = (int)strlen(hd_lesson_id(hd_catalog_get(x->cat, i)));
		if (l > idw)
			idw = l;
	}
	hd_buf_printf(b, "Lessons (%d)\n", n);
	for (i = 0; i < n; i++) {
		const struct hd_lesson *l = hd_catalog_get(x->cat, i);
		const char *p = hd_lesson_part(l), *sum = hd_lesson_summary(l);
		const char *orig = hd_catalog_origin(x->cat, i);

		if (p != NULL && p[0] != '\0' && (part == NULL || strcmp(part, p) != 0)) {
			hd_buf_printf(b, "\n%s\n", p);
			part = p;
		} else if (i == 0)
			hd_buf_putc(b, '\n');
		{
			const char *title = hd_lesson_title(l);
			int room = x->width - 8 - idw;
			if (room < 10)
				room = 10;
			if ((int)strlen(title) > room)
				hd_buf_printf(b, "  %2d  %-*s  %.*s...", i + 1, idw,
					      hd_lesson_id(l), room - 3, title);
			else
				hd_buf_printf(b, "  %2d  %-*s  %s", i + 1, idw, hd_lesson_id(l),
					      title);
		}
		if (orig != NULL && strcmp(orig, "built-in") != 0) {
			const char *rep = hd_catalog_replaced(x->cat, i);
			if (rep == NULL)
				hd_buf_printf(b, "  (%s)", orig);
			else
				hd_buf_printf(b, "  (%s, replacing %s)", orig,
					      strcmp(rep, "built-in") == 0 ? "the built-in lesson" :
									     rep);
		}
		hd_buf_putc(b, '\n');
		if (sum != NULL && sum[0] != '\0') {
			char *pad = hd_xasprintf("%*s", 8 + idw, "");
			hd_timeline_wrap(b, pad, sum, x->width, 8 + idw);
			free(pad);
		}
	}
}

/* Eighth blocks only into a terminal whose locale is UTF-8: pipes and files
 * get the ASCII ramp, a byte per column. */
static bool
out_utf8(FILE *f)
{
	const char *cs;

	if (!isatty(fileno(f)) || setlocale(LC_CTYPE, "") == NULL)
		return false;
	cs = nl_langinfo(CODESET);
	return cs != NULL && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

/* Every scenario of r on one time axis, when there are several to compare. */
static void
run_compare(struct hd_buf *b, const struct hd_run *r, const struct hd_tl_opts *to)
{
	const char **names;
	int i;

	if (r->nscen < 2)
		return;
	names = hd_xcalloc((size_t)r->nscen, sizeof *names);
	for (i = 0; i < r->nscen; i++)
		names[i] = hd_lesson_scenario_name(r->lesson, i);
	hd_buf_puts(b, "\n");
	hd_timeline_compare(b, (const struct hd_trace *const *)r->traces,
			    (const struct hd_scenario *const *)r->sc, names, r->nscen, to);
	free(names);
}

int
hd_cmd_run_print(struct hd_cmd_ctx *x, int idx)
{
	const struct hd_lesson *l = hd_catalog_get(x->cat, idx);
	struct hd_run r;
	struct hd_err e = { 0 };
	struct hd_buf b;
	struct hd_tl_opts to;
	int only = -1, i, status;

	if (x->o->scenario != NULL) {
		only = hd_lesson_find_scenario(l, x->o->scenario);
		if (only < 0) {
			char names[256];
			size_t n = 0;
			names[0] = '\0';
			for (i = 0; i < hd_lesson_nscenarios(l) && n < sizeof names; i++)
				n += (size_t)snprintf(names + n, sizeof names - n, "%s%s",
						      i ? ", " : "", hd_lesson_scenario_name(l, i));
			hd_err_set(&e, HD_EXIT_INPUT, "--scenario",
				   "lesson '%s' has no "
				   "scenario '%s'; it has: %s",
				   hd_lesson_id(l), x->o->scenario, names);
			return hd_cmd_fail(x, &e);
		}
	}
	if (hd_run_lesson(&r, l, idx + 1, &x->profile, x->backend, x->o->sets, x->o->nsets, &e) !=
	    0) {
		hd_run_free(&r);
		return hd_cmd_fail(x, &e);
	}
	hd_buf_init(&b);
	if (x->o->json)
		hd_report_json(&b, &r, only);
	else if (x->o->plain)
		hd_report_plain(&b, &r, only);
	else {
		to.width = x->width;
		to.color = x->color;
		to.utf8 = out_utf8(x->out);
		for (i = 0; i < r.nscen; i++) {
			struct hd_tl_info info = {
				.lesson_id = hd_lesson_id(l),
				.lesson_title = hd_lesson_title(l),
				.lesson_number = idx + 1,
				.scenario_name = hd_lesson_scenario_name(l, i),
				.scenario_title = hd_lesson_scenario_title(l, i),
				.profile_name = r.profile.name,
				.backend = x->backend->name,
				.sc = r.sc[i],
			};
			if (only >= 0 && i != only)
				continue;
			if (b.len > 0)
				hd_buf_puts(&b, "\n\n");
			hd_timeline_render(&b, r.traces[i], &info, &to);
		}
		if (only < 0)
			run_compare(&b, &r, &to);
		hd_report_claims(&b, &r, x->color, x->width);
	}
	hd_cmd_put(x, &b);
	hd_buf_free(&b);
	status = r.claims_failed > 0 || r.claims_unchecked > 0 ? HD_EXIT_FAIL : HD_EXIT_OK;
	hd_run_free(&r);
	return status;
}
