/*
 * export_html.c - the report for a class or a learner: one self-contained
 * HTML page (inline CSS and SVG, no script, nothing fetched) and a Markdown
 * file with the same content.
 *
 * Both walk one report model built here: a summary first (how many
 * scenarios, every measured one against its prediction on a log-log
 * scatter with the 10 % band and the repeats' min-max as a bar across each
 * point, the error distribution, how many predictions fall inside the
 * measured band, the claims verified and refuted), then per lesson its
 * chart, its scenarios (makespan, the measured band, and a table per op:
 * predicted, measured, error) and its claims, the learners' answers, the
 * machines measured on, and every run with its band.  A writer (struct
 * sink) turns the model's headings, paragraphs and tables into HTML or
 * Markdown, so the two cannot drift apart; only the pictures differ: inline
 * SVG in HTML; in Markdown, bars of text for the charts and the text
 * timeline (timeline.c) of each run.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/export_page.h"
#include "render/timeline.h"

/* ---- the model: per-op times of a group ----------------------------------- */

struct op_row {
	int op;
	const char *call, *name;
	struct hd_op_time p, m;
};

static const char *
span_label(const struct hd_trace *t, const struct hd_span *s)
{
	return s->label >= 0 && s->label < t->nstrings && t->strings[s->label][0] != '\0' ?
	    t->strings[s->label] :
	    NULL;
}

/* Name and call of op `op` from whichever trace has them. */
static void
op_names(const struct hd_trace *t, int op, struct op_row *row)
{
	size_t i;

	for (i = 0; t != NULL && i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		const char *l;

		if (s->op != op || (l = span_label(t, s)) == NULL)
			continue;
		if (s->kind == HD_SPAN_API && row->call == NULL)
			row->call = l;
		else if (s->kind != HD_SPAN_API && s->kind != HD_SPAN_BLOCKED && row->name == NULL)
			row->name = l;
	}
}

static int
int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* The ops of a group, in op order, with their times on both sides. */
static size_t
group_ops(const struct hd_export_group *g, struct op_row **out)
{
	const struct hd_trace *tr[2] = { g->pred ? g->pred->trace : NULL,
					 g->meas ? g->meas->trace : NULL };
	int *ops = NULL;
	size_t n = 0, cap = 0, i, k, u = 0;
	struct op_row *rows;

	for (k = 0; k < 2; k++)
		for (i = 0; tr[k] != NULL && i < tr[k]->nspans; i++) {
			int op = tr[k]->spans[i].op;

			if (op < 0 || (n > 0 && ops[n - 1] == op))
				continue;
			ops = hd_xgrow(ops, &cap, n + 1, sizeof *ops);
			ops[n++] = op;
		}
	if (n > 0)
		qsort(ops, n, sizeof *ops, int_cmp);
	rows = hd_xcalloc(n + 1, sizeof *rows);
	for (i = 0; i < n; i++) {
		if (u > 0 && rows[u - 1].op == ops[i])
			continue;
		rows[u].op = ops[i];
		op_names(tr[0], ops[i], &rows[u]);
		op_names(tr[1], ops[i], &rows[u]);
		if (tr[0] != NULL)
			rows[u].p = hd_trace_op_time(tr[0], ops[i]);
		if (tr[1] != NULL)
			rows[u].m = hd_trace_op_time(tr[1], ops[i]);
		u++;
	}
	free(ops);
	*out = rows;
	return u;
}

/* ---- sinks: HTML and Markdown ------------------------------------------------ */

struct sink {
	struct hd_exw *w;
	bool html;
};

static void
esc(struct sink *k, const char *s)
{
	if (k->html)
		hd_exw_xml(k->w, s);
	else
		hd_exw_md(k->w, s);
}

static void
heading(struct sink *k, int level, const char *s)
{
	if (k->html) {
		hd_exw_printf(k->w, "<h%d>", level);
		esc(k, s);
		hd_exw_printf(k->w, "</h%d>\n", level);
	} else {
		hd_exw_printf(k->w, "\n%.*s ", level, "######");
		esc(k, s);
		hd_exw_puts(k->w, "\n\n");
	}
}

static void
para(struct sink *k, const char *s)
{
	hd_exw_puts(k->w, k->html ? "<p>" : "");
	esc(k, s);
	hd_exw_puts(k->w, k->html ? "</p>\n" : "\n\n");
}

static void
table_head(struct sink *k, const char *const *cols, int n)
{
	int i;

	hd_exw_puts(k->w, k->html ? "<table>\n<tr>" : "|");
	for (i = 0; i < n; i++) {
		hd_exw_puts(k->w, k->html ? "<th>" : " ");
		esc(k, cols[i]);
		hd_exw_puts(k->w, k->html ? "</th>" : " |");
	}
	hd_exw_puts(k->w, k->html ? "</tr>\n" : "\n|");
	for (i = 0; !k->html && i < n; i++)
		hd_exw_puts(k->w, "---|");
	if (!k->html)
		hd_exw_puts(k->w, "\n");
}

static void
row_start(struct sink *k)
{
	hd_exw_puts(k->w, k->html ? "<tr>" : "|");
}

/* A cell; cls is an HTML class ("num", "ok", "bad") or NULL. */
static void
cell(struct sink *k, const char *s, const char *cls)
{
	if (k->html) {
		if (cls != NULL)
			hd_exw_printf(k->w, "<td class=\"%s\">", cls);
		else
			hd_exw_puts(k->w, "<td>");
		esc(k, s != NULL ? s : "");
		hd_exw_puts(k->w, "</td>");
	} else {
		hd_exw_puts(k->w, " ");
		esc(k, s != NULL && s[0] != '\0' ? s : "-");
		hd_exw_puts(k->w, " |");
	}
}

static void
row_end(struct sink *k)
{
	hd_exw_puts(k->w, k->html ? "</tr>\n" : "\n");
}

static void
table_end(struct sink *k)
{
	hd_exw_puts(k->w, k->html ? "</table>\n" : "\n");
}

/* ---- sections -------------------------------------------------------------- */

static const char *
src(const struct hd_export_run *r)
{
	return r->info.source != NULL ? r->info.source : "?";
}

static void
machines(struct sink *k, const struct hd_export_set *s)
{
	static const char *const cols[] = { "GPU",          "host", "PCI bus", "driver",
					    "CUDA runtime", "NCCL", "GPUs" };
	size_t i, j, n = 0;

	heading(k, 2, "Machine");
	for (i = 0; i < s->nruns; i++) {
		const struct hd_store_machine *m = &s->runs[i].info.machine;
		char count[16];

		if (!s->runs[i].info.has_machine)
			continue;
		for (j = 0; j < i; j++) {
			const struct hd_store_machine *o = &s->runs[j].info.machine;

			if (s->runs[j].info.has_machine &&
			    strcmp(o->gpu_name ? o->gpu_name : "",
				   m->gpu_name ? m->gpu_name : "") == 0 &&
			    strcmp(o->hostname ? o->hostname : "",
				   m->hostname ? m->hostname : "") == 0 &&
			    strcmp(o->driver ? o->driver : "", m->driver ? m->driver : "") == 0)
				break;
		}
		if (j < i)
			continue;
		if (n++ == 0)
			table_head(k, cols, (int)HD_ARRAY_LEN(cols));
		snprintf(count, sizeof count, "%d", m->gpu_count);
		row_start(k);
		cell(k, m->gpu_name, NULL);
		cell(k, m->hostname, NULL);
		cell(k, m->pci_bus_id, NULL);
		cell(k, m->driver, NULL);
		cell(k, m->cuda_runtime, NULL);
		cell(k, m->nccl, NULL);
		cell(k, count, "num");
		row_end(k);
	}
	if (n > 0)
		table_end(k);
	else
		para(k,
		     "No measured runs here: everything below is the model's prediction "
		     "(measure with 'hdsim --real' on a machine with a GPU).");
}

static void
runs_table(struct sink *k, const struct hd_export_set *s)
{
	static const char *const cols[] = { "run",     "lesson",  "scenario", "source",
					    "backend", "profile", "status",   "makespan",
					    "band",    "spans",   "created",  "database" };
	size_t i;

	heading(k, 2, "Runs");
	if (s->nruns == 0) {
		para(k, "No runs were selected.");
		return;
	}
	table_head(k, cols, (int)HD_ARRAY_LEN(cols));
	for (i = 0; i < s->nruns; i++) {
		const struct hd_export_run *r = &s->runs[i];
		char id[32], mk[32], ns[32], range[64], band[96] = "";
		struct hd_band b;

		if (hd_export_run_band(r, &b))
			snprintf(band, sizeof band, "%s (%d repeats)",
				 hd_band_range(range, sizeof range, &b, true), b.n);
		snprintf(id, sizeof id, "%" PRId64, r->info.id);
		snprintf(ns, sizeof ns, "%zu", r->trace->nspans);
		row_start(k);
		cell(k, id, "num");
		cell(k, r->info.lesson, NULL);
		cell(k, r->info.scenario, NULL);
		cell(k, src(r), NULL);
		cell(k, r->info.backend, NULL);
		cell(k, r->info.profile_name, NULL);
		cell(k, r->info.status, NULL);
		cell(k, hd_fmt_time(mk, sizeof mk, r->trace->makespan), "num");
		cell(k, band, "num");
		cell(k, ns, "num");
		cell(k, r->info.created != NULL ? r->info.created : "now", NULL);
		cell(k, r->db != NULL ? r->db : "(simulated now)", NULL);
		row_end(k);
	}
	table_end(k);
}

/* "+12.3 %" or "" when there is nothing to compare. */
static void
err_text(char *buf, size_t n, bool both, hd_time p, hd_time m)
{
	if (both && m > 0)
		snprintf(buf, n, "%+.1f %%", 100.0 * ((double)p - (double)m) / (double)m);
	else
		buf[0] = '\0';
}

static void
time_text(char *buf, size_t n, const struct hd_op_time *t)
{
	if (t->found)
		hd_fmt_time(buf, n, t->end - t->start);
	else
		buf[0] = '\0';
}

/* Markdown's timelines: the text timeline of each run, in a code block, its
 * partly busy cells in eighth blocks (a Markdown file is UTF-8). */
static void
md_timelines(struct sink *k, const struct hd_export_group *g)
{
	const struct hd_export_run *side[2] = { g->pred, g->meas };
	struct hd_tl_opts o = { .width = HD_TL_DEFAULT_WIDTH, .utf8 = true };
	int i;

	for (i = 0; i < 2; i++) {
		struct hd_buf b;

		if (side[i] == NULL)
			continue;
		hd_buf_init(&b);
		hd_timeline_rows(&b, side[i]->trace, NULL, &o);
		hd_exw_printf(k->w, "Timeline, %s (run %" PRId64 "):\n\n~~~~\n", src(side[i]),
			      side[i]->info.id);
		if (b.s != NULL)
			hd_exw_puts(k->w, b.s);
		hd_exw_puts(k->w, "~~~~\n\n");
		hd_buf_free(&b);
	}
}

/* The measured run's band, under its makespan: "Measured over 5 repeats:
 * 12.31 ms (band 12.10-12.58 ms, 5 repeats), median 12.31 ms, IQR 200 us;
 * the prediction is outside the band." */
static void
band_line(struct sink *k, const struct hd_export_group *g)
{
	struct hd_band b;
	char text[128], med[32], iqr[32], line[400];

	if (!hd_export_run_band(g->meas, &b))
		return;
	hd_band_fmt(text, sizeof text, g->meas->trace->makespan, &b, HD_BAND_LONG);
	snprintf(line, sizeof line, "Measured over %d repeats: %s, median %s, IQR %s%s", b.n, text,
		 hd_fmt_time(med, sizeof med, b.median), hd_fmt_time(iqr, sizeof iqr, b.iqr),
		 g->pred == NULL ? "." :
		     hd_band_holds(&b, g->pred->trace->makespan) ?
				   "; the prediction is inside the band." :
				   "; the prediction is outside the band.");
	para(k, line);
}

static void
scenario(struct sink *k, const struct hd_export_group *g)
{
	static const char *const cols[] = { "op",    "name",      "call",     "executions",
					    "bytes", "predicted", "measured", "error" };
	const struct hd_export_run *r = hd_export_group_run(g);
	struct op_row *ops;
	size_t n = group_ops(g, &ops), i;
	char line[512], a[32], b[32], e[32];

	snprintf(line, sizeof line, "Scenario %s", r->info.scenario ? r->info.scenario : "?");
	heading(k, 3, line);
	hd_fmt_time(a, sizeof a, g->pred ? g->pred->trace->makespan : 0);
	hd_fmt_time(b, sizeof b, g->meas ? g->meas->trace->makespan : 0);
	err_text(e, sizeof e, g->pred && g->meas, g->pred ? g->pred->trace->makespan : 0,
		 g->meas ? g->meas->trace->makespan : 0);
	if (g->pred && g->meas)
		snprintf(line, sizeof line,
			 "Makespan: predicted %s (run %" PRId64 "), measured "
			 "%s (run %" PRId64 "); the prediction is off by %s.",
			 a, g->pred->info.id, b, g->meas->info.id, e);
	else if (g->pred)
		snprintf(line, sizeof line,
			 "Makespan: predicted %s (run %" PRId64 "); no "
			 "measured run is paired with it.",
			 a, g->pred->info.id);
	else
		snprintf(line, sizeof line,
			 "Makespan: measured %s (run %" PRId64 "); no "
			 "prediction is paired with it.",
			 b, g->meas->info.id);
	para(k, line);
	band_line(k, g);
	if (n > 0) {
		table_head(k, cols, (int)HD_ARRAY_LEN(cols));
		for (i = 0; i < n; i++) {
			const struct op_row *o = &ops[i];
			char op[16], ex[16], by[32];
			const struct hd_op_time *t = o->p.found ? &o->p : &o->m;

			snprintf(op, sizeof op, "%d", o->op);
			snprintf(ex, sizeof ex, "%" PRIu32, t->execs);
			if (t->bytes > 0)
				hd_fmt_bytes(by, sizeof by, t->bytes);
			else
				by[0] = '\0';
			time_text(a, sizeof a, &o->p);
			time_text(b, sizeof b, &o->m);
			err_text(e, sizeof e, o->p.found && o->m.found, o->p.end - o->p.start,
				 o->m.end - o->m.start);
			row_start(k);
			cell(k, op, "num");
			cell(k, o->name, NULL);
			cell(k, o->call, NULL);
			cell(k, ex, "num");
			cell(k, by, "num");
			cell(k, a, "num");
			cell(k, b, "num");
			cell(k, e, "num");
			row_end(k);
		}
		table_end(k);
	}
	free(ops);
	if (k->html) {
		hd_exw_puts(k->w, "<figure>");
		hd_export_svg_timeline(g, k->w, false);
		hd_exw_puts(k->w, "</figure>\n");
	} else
		md_timelines(k, g);
}

static const char *
verdict(int outcome, bool measured)
{
	if (outcome > 0)
		return measured ? "verified" : "holds";
	if (outcome == 0)
		return measured ? "refuted" : "does not hold";
	return "not checked";
}

/* The runs holding a lesson's newest claims on each side (the store keeps
 * them with a lesson's last run); NULL where a side has none. */
static void
claim_runs(const struct hd_export_set *s, const char *lesson, const struct hd_export_run **pred,
	   const struct hd_export_run **meas)
{
	size_t i;

	*pred = *meas = NULL;
	for (i = 0; i < s->nruns; i++) {
		const struct hd_export_run *r = &s->runs[i];

		if (r->info.nclaims == 0 || strcmp(r->info.lesson, lesson) != 0)
			continue;
		if (strcmp(src(r), "measured") == 0)
			*meas = r;
		else
			*pred = r;
	}
}

static void
claims(struct sink *k, const struct hd_export_set *s, const char *lesson)
{
	static const char *const cols[] = { "claim", "predicted", "measured", "measured detail",
					    "predicted detail" };
	const struct hd_export_run *pred, *meas;
	int c, n;

	claim_runs(s, lesson, &pred, &meas);
	if (pred == NULL && meas == NULL)
		return;
	heading(k, 3, "Claims");
	table_head(k, cols, (int)HD_ARRAY_LEN(cols));
	n = pred != NULL ? pred->info.nclaims : 0;
	if (meas != NULL && meas->info.nclaims > n)
		n = meas->info.nclaims;
	for (c = 0; c < n; c++) {
		const struct hd_store_claim *pc = pred && c < pred->info.nclaims ?
		    &pred->info.claims[c] :
		    NULL;
		const struct hd_store_claim *mc = meas && c < meas->info.nclaims ?
		    &meas->info.claims[c] :
		    NULL;
		const struct hd_store_claim *any = pc ? pc : mc;

		row_start(k);
		cell(k, any->text, NULL);
		cell(k, pc ? verdict(pc->outcome, false) : "",
		     pc && pc->outcome > 0      ? "ok" :
			 pc && pc->outcome == 0 ? "bad" :
						  NULL);
		cell(k, mc ? verdict(mc->outcome, true) : "not measured",
		     mc && mc->outcome > 0      ? "ok" :
			 mc && mc->outcome == 0 ? "bad" :
						  NULL);
		cell(k, mc ? mc->detail : "", NULL);
		cell(k, pc ? pc->detail : "", NULL);
		row_end(k);
	}
	table_end(k);
}

/* Markdown's picture of a lesson: a bar of text per run. */
static void
md_chart(struct sink *k, const struct hd_export_group *g, size_t n)
{
	static const char *const cols[] = { "scenario", "source", "makespan", "" };
	hd_time span = 1;
	size_t i;
	int side;

	for (i = 0; i < n; i++) {
		if (g[i].pred && g[i].pred->trace->makespan > span)
			span = g[i].pred->trace->makespan;
		if (g[i].meas && g[i].meas->trace->makespan > span)
			span = g[i].meas->trace->makespan;
	}
	table_head(k, cols, (int)HD_ARRAY_LEN(cols));
	for (i = 0; i < n; i++)
		for (side = 0; side < 2; side++) {
			const struct hd_export_run *r = side == 0 ? g[i].pred : g[i].meas;
			char mk[32];
			int bars, b;

			if (r == NULL)
				continue;
			bars = (int)((double)r->trace->makespan / (double)span * 40 + 0.5);
			row_start(k);
			cell(k, r->info.scenario, NULL);
			cell(k, src(r), NULL);
			cell(k, hd_fmt_time(mk, sizeof mk, r->trace->makespan), NULL);
			hd_exw_puts(k->w, " ");
			for (b = 0; b < bars; b++)
				hd_exw_puts(k->w, "\xe2\x96\x88");
			hd_exw_puts(k->w, bars == 0 ? "- |" : " |");
			row_end(k);
		}
	table_end(k);
}

static void
lessons(struct sink *k, const struct hd_export_set *s)
{
	struct hd_export_group *g, *lg;
	size_t n = hd_export_groups(s, &g), i, j, m;

	lg = hd_xcalloc(n + 1, sizeof *lg);
	for (i = 0; i < n; i++) {
		const char *les = hd_export_group_run(&g[i])->info.lesson;
		char title[160];

		for (j = 0; j < i && strcmp(hd_export_group_run(&g[j])->info.lesson, les) != 0; j++)
			;
		if (j < i)
			continue;
		for (j = i, m = 0; j < n; j++)
			if (strcmp(hd_export_group_run(&g[j])->info.lesson, les) == 0)
				lg[m++] = g[j];
		snprintf(title, sizeof title, "Lesson %s", les);
		heading(k, 2, title);
		para(k, "Predicted and measured makespan of each scenario:");
		if (k->html) {
			hd_exw_puts(k->w, "<figure>");
			hd_export_svg_chart(les, lg, m, k->w, false);
			hd_exw_puts(k->w, "</figure>\n");
		} else
			md_chart(k, lg, m);
		for (j = 0; j < m; j++)
			scenario(k, &lg[j]);
		claims(k, s, les);
	}
	free(lg);
	free(g);
}

static void
answers(struct sink *k, const struct hd_export_set *s)
{
	static const char *const cols[] = { "learner",    "lesson", "question", "answer", "result",
					    "confidence", "time",   "hints",    "when" };
	size_t i;

	if (s->nanswers == 0)
		return;
	heading(k, 2, "Learners' answers");
	table_head(k, cols, (int)HD_ARRAY_LEN(cols));
	for (i = 0; i < s->nanswers; i++) {
		const struct hd_export_answer *a = &s->answers[i];
		char conf[16] = "", t[32], h[16];

		if (a->confidence > 0)
			snprintf(conf, sizeof conf, "%d/5", a->confidence);
		snprintf(t, sizeof t, "%.1f s", a->seconds);
		snprintf(h, sizeof h, "%d", a->hints);
		row_start(k);
		cell(k, a->learner, NULL);
		cell(k, a->lesson, NULL);
		cell(k, a->question, NULL);
		cell(k, a->answer, NULL);
		cell(k,
		     a->correct > 0      ? "right" :
			 a->correct == 0 ? "wrong" :
					   "not graded",
		     a->correct > 0      ? "ok" :
			 a->correct == 0 ? "bad" :
					   NULL);
		cell(k, conf, "num");
		cell(k, t, "num");
		cell(k, h, "num");
		cell(k, a->created, NULL);
		row_end(k);
	}
	table_end(k);
}

/* ---- the summary ------------------------------------------------------------ */

static void
list_item(struct sink *k, const char *text)
{
	hd_exw_puts(k->w, k->html ? "<li>" : "- ");
	esc(k, text);
	hd_exw_puts(k->w, k->html ? "</li>\n" : "\n");
}

static int
dbl_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* The error of a group with both sides, (predicted - measured) / measured;
 * false when it has not both. */
static bool
group_err(const struct hd_export_group *g, double *err)
{
	if (g->pred == NULL || g->meas == NULL || g->pred->trace->makespan <= 0 ||
	    g->meas->trace->makespan <= 0)
		return false;
	*err = ((double)g->pred->trace->makespan - (double)g->meas->trace->makespan) /
	    (double)g->meas->trace->makespan;
	return true;
}

/* The error distribution: median, 90th percentile (nearest rank) and worst
 * of |error|, and how many are within 10 %. */
static void
error_lines(struct sink *k, const struct hd_export_group *g, size_t n, size_t npts)
{
	double *a = hd_xcalloc(npts + 1, sizeof *a), med, p90, worst = -1, err = 0;
	const struct hd_export_group *wg = NULL;
	size_t i, m = 0, within = 0, banded = 0, in_band = 0;
	char line[512];

	for (i = 0; i < n; i++) {
		if (!group_err(&g[i], &err))
			continue;
		a[m++] = fabs(err);
		within += fabs(err) <= 0.1;
		if (fabs(err) > worst) {
			worst = fabs(err);
			wg = &g[i];
		}
	}
	qsort(a, m, sizeof *a, dbl_cmp);
	med = m % 2 == 1 ? a[m / 2] : (a[m / 2 - 1] + a[m / 2]) / 2;
	p90 = a[(size_t)ceil(0.9 * (double)m) - 1];
	group_err(wg, &err);
	hd_exw_puts(k->w, k->html ? "<ul>\n" : "");
	snprintf(line, sizeof line,
		 "Error of the predicted makespan, (predicted - measured) / measured, over the %zu "
		 "measured scenario%s: median |error| %.1f %%, 90th percentile %.1f %%, worst "
		 "%+.1f %% (%.80s / %.80s).",
		 m, m == 1 ? "" : "s", 100 * med, 100 * p90, 100 * err,
		 hd_export_group_run(wg)->info.lesson, hd_export_group_run(wg)->info.scenario);
	list_item(k, line);
	snprintf(line, sizeof line, "%zu of %zu within 10 %% of the measurement.", within, m);
	list_item(k, line);
	for (i = 0; i < n; i++) {
		struct hd_band b;

		if (!group_err(&g[i], &err) || !hd_export_run_band(g[i].meas, &b))
			continue;
		banded++;
		in_band += hd_band_holds(&b, g[i].pred->trace->makespan);
	}
	if (banded > 0) {
		snprintf(line, sizeof line,
			 "%zu of %zu inside the measured band (the repeats' min to max%s).",
			 in_band, banded, k->html ? ", drawn as a bar across each point" : "");
		list_item(k, line);
	}
	hd_exw_puts(k->w, k->html ? "</ul>\n" : "\n");
	free(a);
}

/* Markdown's scatter: the points as a table. */
static void
md_points(struct sink *k, const struct hd_export_group *g, size_t n)
{
	static const char *const cols[] = { "lesson",    "scenario", "measured", "band",
					    "predicted", "error",    "in band" };
	char a[32], b[32], e[32], range[64], band[96];
	struct hd_band bd;
	double err;
	size_t i;

	para(k, "Predicted against measured makespan, scenario by scenario:");
	table_head(k, cols, (int)HD_ARRAY_LEN(cols));
	for (i = 0; i < n; i++) {
		const struct hd_export_run *r = hd_export_group_run(&g[i]);

		if (!group_err(&g[i], &err))
			continue;
		hd_fmt_time(a, sizeof a, g[i].meas->trace->makespan);
		hd_fmt_time(b, sizeof b, g[i].pred->trace->makespan);
		snprintf(e, sizeof e, "%+.1f %%", 100 * err);
		band[0] = '\0';
		if (hd_export_run_band(g[i].meas, &bd))
			snprintf(band, sizeof band, "%s (%d repeats)",
				 hd_band_range(range, sizeof range, &bd, true), bd.n);
		row_start(k);
		cell(k, r->info.lesson, NULL);
		cell(k, r->info.scenario, NULL);
		cell(k, a, "num");
		cell(k, band, "num");
		cell(k, b, "num");
		cell(k, e, "num");
		cell(k,
		     bd.n == 0                                          ? "" :
			 hd_band_holds(&bd, g[i].pred->trace->makespan) ? "inside" :
									  "outside",
		     NULL);
		row_end(k);
	}
	table_end(k);
}

/* Claims over the lessons: measured verdicts and the model's. */
static void
claim_line(struct sink *k, const struct hd_export_set *s, const struct hd_export_group *g, size_t n)
{
	int verified = 0, refuted = 0, unchecked = 0, holds = 0, fails = 0, c;
	char line[512];
	size_t i, j;

	for (i = 0; i < n; i++) {
		const char *les = hd_export_group_run(&g[i])->info.lesson;
		const struct hd_export_run *pred, *meas;

		for (j = 0; j < i && strcmp(hd_export_group_run(&g[j])->info.lesson, les) != 0; j++)
			;
		if (j < i)
			continue;
		claim_runs(s, les, &pred, &meas);
		for (c = 0; meas != NULL && c < meas->info.nclaims; c++) {
			verified += meas->info.claims[c].outcome > 0;
			refuted += meas->info.claims[c].outcome == 0;
			unchecked += meas->info.claims[c].outcome < 0;
		}
		for (c = 0; pred != NULL && c < pred->info.nclaims; c++) {
			holds += pred->info.claims[c].outcome > 0;
			fails += pred->info.claims[c].outcome == 0;
		}
	}
	if (verified + refuted + unchecked + holds + fails == 0) {
		snprintf(line, sizeof line, "Claims: none stored with these runs.");
	} else {
		char gpu[96];

		if (verified + refuted + unchecked == 0)
			snprintf(gpu, sizeof gpu, "none checked on a GPU");
		else if (unchecked == 0)
			snprintf(gpu, sizeof gpu, "%d verified and %d refuted on the GPU", verified,
				 refuted);
		else
			snprintf(gpu, sizeof gpu,
				 "%d verified and %d refuted on the GPU, %d not checked there",
				 verified, refuted, unchecked);
		snprintf(line, sizeof line, "Claims: %s; on the model %d %s and %d %s not.", gpu,
			 holds, holds == 1 ? "holds" : "hold", fails, fails == 1 ? "does" : "do");
	}
	para(k, line);
}

/*
 * The report's opening: how many scenarios and how many measured, the
 * scatter of every measured scenario against its prediction with the 10 %
 * band, the error distribution, the claims; before any table.
 */
static void
summary(struct sink *k, const struct hd_export_set *s)
{
	struct hd_export_group *g;
	size_t n = hd_export_groups(s, &g), i, j, both = 0, pred_only = 0, meas_only = 0,
	       lessons = 0;
	char line[512];
	double err;

	for (i = 0; i < n; i++) {
		const char *les = hd_export_group_run(&g[i])->info.lesson;

		both += group_err(&g[i], &err);
		pred_only += g[i].meas == NULL;
		meas_only += g[i].pred == NULL;
		for (j = 0; j < i && strcmp(hd_export_group_run(&g[j])->info.lesson, les) != 0; j++)
			;
		lessons += j == i;
	}
	if (k->html)
		hd_exw_puts(k->w, "<section id=\"summary\">\n");
	heading(k, 2, "Summary");
	snprintf(line, sizeof line,
		 "%zu scenario%s in %zu lesson%s: %zu measured on a GPU beside the model's "
		 "prediction, %zu predicted only, %zu measured without a prediction.",
		 n, n == 1 ? "" : "s", lessons, lessons == 1 ? "" : "s", both, pred_only,
		 meas_only);
	para(k, line);
	if (both > 0) {
		if (k->html) {
			hd_exw_puts(k->w, "<figure>");
			hd_export_svg_scatter(g, n, k->w, false);
			hd_exw_puts(k->w, "</figure>\n");
		}
		error_lines(k, g, n, both);
	} else
		para(k,
		     "No scenario here was measured on a GPU, so no prediction is set against a "
		     "measurement: 'hdsim --real' on a machine with an NVIDIA GPU runs the lessons "
		     "there and stores each measured run beside its prediction.");
	claim_line(k, s, g, n);
	if (both > 0 && !k->html)
		md_points(k, g, n);
	if (k->html)
		hd_exw_puts(k->w, "</section>\n");
	free(g);
}

static void
report(struct sink *k, const struct hd_export_set *s)
{
	char line[256];

	snprintf(line, sizeof line,
		 "Made by hdsim %s from %zu run%s and %zu answer%s. "
		 "Times are per op over all its executions; error is (predicted - measured) "
		 "/ measured.",
		 PACKAGE_VERSION, s->nruns, s->nruns == 1 ? "" : "s", s->nanswers,
		 s->nanswers == 1 ? "" : "s");
	para(k, line);
	if (s->note != NULL)
		para(k, s->note);
	summary(k, s);
	lessons(k, s);
	answers(k, s);
	machines(k, s);
	runs_table(k, s);
}

/* The page's look: print-friendly, no web fonts, nothing fetched. */
static const char css[] =
    "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:2em;color:#222;"
    "max-width:1250px}\n"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}\n"
    "table{border-collapse:collapse;margin:0.6em 0 1.2em}\n"
    "th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}\n"
    "th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "td.ok{color:#176c2e;font-weight:bold}td.bad{color:#b00020;font-weight:bold}\n"
    "figure{margin:0.5em 0;overflow-x:auto}svg{max-width:100%;height:auto}\n"
    "@media print{figure{page-break-inside:avoid}}\n";

void
hd_export_html(const struct hd_export_set *s, struct hd_exw *w)
{
	struct sink k = { w, true };

	hd_export_page_open(w, "hdsim report", css);
	report(&k, s);
	hd_export_page_close(w);
}

void
hd_export_md(const struct hd_export_set *s, struct hd_exw *w)
{
	struct sink k = { w, false };

	hd_exw_puts(w, "# hdsim report\n\n");
	report(&k, s);
}
