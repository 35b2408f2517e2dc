/*
 * export_svg.c - print-quality pictures for slides: a timeline per scenario
 * (predicted above measured, one time axis) and a predicted-vs-measured
 * chart per lesson, as SVG with real <text> (selectable, searchable).
 *
 * Colours and legend come from the table of span looks (ir/spanlook.h) the
 * text timeline and the TUI draw from (Nsight's: kernels blue, copies red).
 * A run of a million spans would make a file no viewer opens, so
 * neighbouring spans of one kind on one row that fall within half a pixel of
 * each other are drawn as one bar: the picture is the same at the drawn
 * width, and each bar that stands for one span keeps its tooltip.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "ir/spanlook.h"
#include "render/timeline.h"

#define SVG_W   1200
#define LABEL_W 210 /* lane names on the left */
#define PLOT_X0 (LABEL_W + 10)
#define PLOT_X1 (SVG_W - 20)
#define ROW_H   18
#define BAR_H   12
#define FONT    "DejaVu Sans, Helvetica, Arial, sans-serif"

static void
svg_open(struct hd_exw *w, int width, int height, bool standalone, const char *title)
{
	if (standalone)
		hd_exw_puts(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	hd_exw_printf(w,
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		      "viewBox=\"0 0 %d %d\" font-family=\"%s\" font-size=\"11\">\n",
		      width, height, width, height, FONT);
	hd_exw_puts(w, "<title>");
	hd_exw_xml(w, title);
	hd_exw_puts(w, "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
}

static void
text(struct hd_exw *w, double x, double y, const char *attrs, const char *s)
{
	hd_exw_printf(w, "<text x=\"%.1f\" y=\"%.1f\"%s%s>", x, y, attrs[0] ? " " : "", attrs);
	hd_exw_xml(w, s);
	hd_exw_puts(w, "</text>\n");
}

/* ---- timelines ----------------------------------------------------------- */

static int
run_height(const struct hd_export_run *r)
{
	return r != NULL ? 26 + r->trace->nlanes * ROW_H : 0;
}

static int
timeline_height(const struct hd_export_group *g)
{
	return 52 + run_height(g->pred) + run_height(g->meas) + 40 +
	    (int)((HD_SPAN__COUNT + 3) / 4) * 16 + 10;
}

static double
xof(hd_time t, hd_time span)
{
	return PLOT_X0 + (double)t / (double)span * (PLOT_X1 - PLOT_X0);
}

/* A bar being drawn: spans merged until one does not touch it. */
struct bar {
	double x0, x1;
	const struct hd_spanlook *look; /* its colour: the widest span's */
	int y;
	size_t count;  /* spans it stands for */
	double widest; /* the widest of them, in pixels */
	const struct hd_span *first;
};

static void
bar_flush(struct hd_exw *w, const struct hd_trace *t, struct bar *b)
{
	char dur[32], l1[96], l2[96], tip[256];
	double width = b->x1 - b->x0;

	if (b->count == 0)
		return;
	if (width < 0.6) { /* events and tiny spans stay visible */
		b->x0 -= (0.6 - width) / 2;
		width = 0.6;
	}
	hd_exw_printf(w, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"%s>",
		      b->x0, b->y, width, BAR_H, b->look->svg,
		      width >= 3 ? " stroke=\"#ffffff\" stroke-width=\"0.5\"" : "");
	if (b->count == 1) {
		const struct hd_span *s = b->first;

		hd_timeline_span_labels(t, NULL, s, l1, l2, sizeof l1);
		snprintf(tip, sizeof tip, "%s: %s, op %d, iteration %" PRIu32,
			 l1[0] ? l1 : hd_span_kind_name(s->kind),
			 hd_fmt_time(dur, sizeof dur, s->end - s->start), s->op, s->iter);
		hd_exw_puts(w, "<title>");
		hd_exw_xml(w, tip);
		hd_exw_puts(w, "</title></rect>\n");
		/* a label when it fits (6 px a character at 10 px): the long
		 * form, else the short one */
		if (l1[0] == '\0' || width <= 6.0 * (double)strlen(l1) + 6)
			memcpy(l1, l2, sizeof l1);
		if (l1[0] != '\0' && width > 6.0 * (double)strlen(l1) + 6) {
			hd_exw_printf(w, "<text x=\"%.2f\" y=\"%d\" font-size=\"10\" fill=\"%s\">",
				      b->x0 + 3, b->y + BAR_H - 3, b->look->ink);
			hd_exw_xml(w, l1);
			hd_exw_puts(w, "</text>\n");
		}
	} else {
		hd_exw_printf(w, "<title>%zu spans</title></rect>\n", b->count);
	}
	b->count = 0;
}

/* One run's rows from y on; returns the y below them. */
static int
run_rows(struct hd_exw *w, const struct hd_export_run *r, int y, hd_time span)
{
	const struct hd_trace *t = r->trace;
	int *lorder = hd_timeline_lane_order(t),
	    *row = hd_xcalloc((size_t)t->nlanes + 1, sizeof *row);
	size_t *order = hd_xcalloc(t->nspans + 1, sizeof *order), i;
	struct bar b = { 0 };
	char head[320], mk[32];
	int j, lane = -1, nback = 0;
	bool *back;

	snprintf(head, sizeof head, "%s: run %" PRId64 "%s, %s%s%s, makespan %s",
		 r->info.source ? r->info.source : "?", r->info.id,
		 r->db == NULL ? " (simulated now)" : "", r->info.backend ? r->info.backend : "?",
		 r->info.profile_name ? ", profile " : "",
		 r->info.profile_name ? r->info.profile_name : "",
		 hd_fmt_time(mk, sizeof mk, t->makespan));
	if (r->info.has_machine && r->info.machine.gpu_name != NULL)
		snprintf(head + strlen(head), sizeof head - strlen(head), ", %s",
			 r->info.machine.gpu_name);
	text(w, 10, y + 16, "font-weight=\"bold\" font-size=\"12\"", head);
	y += 26;
	for (j = 0; j < t->nlanes; j++) {
		const struct hd_lane *ln = &t->lanes[lorder[j]];
		char name[64];

		row[lorder[j]] = y + j * ROW_H;
		if (j % 2 == 0)
			hd_exw_printf(w,
				      "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" "
				      "fill=\"#f4f4f4\"/>\n",
				      row[lorder[j]], SVG_W, ROW_H);
		if (ln->rank > 0)
			snprintf(name, sizeof name, "rank %d %s", ln->rank, ln->name);
		else
			snprintf(name, sizeof name, "%s", ln->name);
		text(w, 10, row[lorder[j]] + 13, "", name);
	}
	back = hd_spanlook_back_ops(t, &nback);
	hd_trace_order_by_lane(t, order);
	hd_exw_puts(w, "<g>\n");
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[order[i]];
		const struct hd_spanlook *look = hd_spanlook_of_back(t, back, nback, s);
		bool same = strcmp(look->svg, b.look != NULL ? b.look->svg : "") == 0;
		double x0 = xof(s->start, span), x1 = xof(s->end, span);

		/* merge with the bar being drawn when it touches (within half a
		 * pixel) and one of them is under a pixel wide: of the same
		 * colour, or of another while the bar is under a pixel too (a
		 * mix of kinds shows as the colour of the widest) */
		if (s->lane != lane || x0 > b.x1 + 0.5 ||
		    (same ? b.x1 - b.x0 >= 1.0 && x1 - x0 >= 1.0 :
			    b.x1 - b.x0 >= 1.0 || x1 - x0 >= 1.0)) {
			bar_flush(w, t, &b);
			b.x0 = x0;
			b.x1 = x1;
			b.look = look;
			b.y = row[s->lane] + (ROW_H - BAR_H) / 2;
			b.first = s;
			lane = s->lane;
		} else {
			if (!same && x1 - x0 > b.widest) {
				b.look = look;
				b.widest = x1 - x0;
			}
			if (x1 > b.x1)
				b.x1 = x1;
		}
		if (b.count == 0 || x1 - x0 > b.widest)
			b.widest = x1 - x0;
		b.count++;
		hd_exw_tick(w);
	}
	bar_flush(w, t, &b);
	hd_exw_puts(w, "</g>\n");
	free(order);
	free(lorder);
	free(row);
	free(back);
	return y + t->nlanes * ROW_H;
}

static void
timeline_body(const struct hd_export_group *g, struct hd_exw *w, int height)
{
	const struct hd_export_run *any = hd_export_group_run(g);
	hd_time span = 1, step, tick;
	struct hd_tunit u;
	char title[320], lab[48];
	int y = 52, top, k;

	if (g->pred != NULL && g->pred->trace->makespan > span)
		span = g->pred->trace->makespan;
	if (g->meas != NULL && g->meas->trace->makespan > span)
		span = g->meas->trace->makespan;
	snprintf(title, sizeof title, "%s / %s: %s", any->info.lesson ? any->info.lesson : "?",
		 any->info.scenario ? any->info.scenario : "?",
		 g->pred && g->meas ? "predicted (top) and measured (bottom)" :
		     g->pred        ? "predicted" :
				      "measured");
	text(w, 10, 22, "font-weight=\"bold\" font-size=\"15\"", title);
	text(w, 10, 40, "fill=\"#555555\"",
	     "One time axis for both runs; spans closer than "
	     "half a pixel are drawn as one bar.");
	top = y;
	if (g->pred != NULL)
		y = run_rows(w, g->pred, y, span);
	if (g->meas != NULL)
		y = run_rows(w, g->meas, y, span);
	/* the axis: grid lines across both runs, labels below */
	u = hd_timeline_unit(span);
	step = hd_timeline_tick_step(span, 10);
	hd_exw_printf(w, "<g stroke=\"#bbbbbb\" stroke-width=\"0.5\">\n");
	for (tick = 0; step > 0 && tick <= span; tick += step)
		hd_exw_printf(w, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>\n",
			      xof(tick, span), top, xof(tick, span), y + 4);
	hd_exw_puts(w, "</g>\n");
	hd_exw_printf(w, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n",
		      PLOT_X0, y + 4, PLOT_X1, y + 4);
	for (tick = 0; step > 0 && tick <= span; tick += step) {
		hd_timeline_fmt(lab, sizeof lab, tick, u, tick % u.ps == 0 ? 0 : 3);
		snprintf(lab + strlen(lab), sizeof lab - strlen(lab), " %s", u.name);
		text(w, xof(tick, span), y + 18, "text-anchor=\"middle\"", lab);
	}
	y += 40;
	for (k = 0; k < HD_SPAN__COUNT; k++) {
		const struct hd_spanlook *l = hd_spanlook_get(k, HD_DIR_OUT);
		int lx = 10 + (k % 4) * 290, ly = y + (k / 4) * 16;
		char legend[64];

		snprintf(legend, sizeof legend, "%s%s", l->label,
			 k == HD_SPAN_COPY ? " (lighter: towards the host)" : "");
		hd_exw_printf(w,
			      "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"10\" fill=\"%s\"/>\n",
			      lx, ly, l->svg);
		text(w, lx + 20, ly + 9, "", legend);
	}
	(void)height;
}

void
hd_export_svg_timeline(const struct hd_export_group *g, struct hd_exw *w, bool standalone)
{
	const struct hd_export_run *any = hd_export_group_run(g);
	int h = timeline_height(g);
	char title[256];

	snprintf(title, sizeof title, "hdsim timeline: %s / %s",
		 any->info.lesson ? any->info.lesson : "?",
		 any->info.scenario ? any->info.scenario : "?");
	svg_open(w, SVG_W, h, standalone, title);
	timeline_body(g, w, h);
	hd_exw_puts(w, "</svg>\n");
}

/* ---- charts --------------------------------------------------------------- */

#define CHART_ROW 46

static int
chart_height(size_t n)
{
	return 70 + (int)n * CHART_ROW + 50;
}

void
hd_export_svg_chart(const char *lesson, const struct hd_export_group *g, size_t n, struct hd_exw *w,
		    bool standalone)
{
	hd_time span = 1, step, tick;
	struct hd_tunit u;
	char title[256], lab[64], v[32];
	int h = chart_height(n), y;
	size_t i;

	for (i = 0; i < n; i++) {
		if (g[i].pred != NULL && g[i].pred->trace->makespan > span)
			span = g[i].pred->trace->makespan;
		if (g[i].meas != NULL && g[i].meas->trace->makespan > span)
			span = g[i].meas->trace->makespan;
	}
	snprintf(title, sizeof title, "%s: predicted vs measured makespan", lesson ? lesson : "?");
	svg_open(w, SVG_W, h, standalone, title);
	text(w, 10, 22, "font-weight=\"bold\" font-size=\"15\"", title);
	hd_exw_printf(w, "<rect x=\"%d\" y=\"34\" width=\"14\" height=\"10\" fill=\"#4e79a7\"/>\n",
		      PLOT_X0);
	text(w, PLOT_X0 + 20, 43, "", "predicted (model)");
	hd_exw_printf(w, "<rect x=\"%d\" y=\"34\" width=\"14\" height=\"10\" fill=\"#f28e2b\"/>\n",
		      PLOT_X0 + 180);
	text(w, PLOT_X0 + 200, 43, "", "measured (GPU)");
	y = 60;
	for (i = 0; i < n; i++, y += CHART_ROW) {
		const struct hd_export_run *r = hd_export_group_run(&g[i]);
		const struct hd_export_run *side[2] = { g[i].pred, g[i].meas };
		static const char *const fills[2] = { "#4e79a7", "#f28e2b" };
		int k;

		text(w, 10, y + 18, "", r->info.scenario ? r->info.scenario : "?");
		if (g[i].pred != NULL && g[i].meas != NULL && g[i].meas->trace->makespan > 0) {
			double err = 100.0 *
			    ((double)g[i].pred->trace->makespan -
			     (double)g[i].meas->trace->makespan) /
			    (double)g[i].meas->trace->makespan;

			snprintf(lab, sizeof lab, "error %+.1f %%", err);
			text(w, 10, y + 33, "fill=\"#555555\"", lab);
		}
		for (k = 0; k < 2; k++) {
			double x1;

			if (side[k] == NULL)
				continue;
			x1 = xof(side[k]->trace->makespan, span);
			hd_exw_printf(w,
				      "<rect x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"16\" "
				      "fill=\"%s\"><title>%s</title></rect>\n",
				      PLOT_X0, y + 4 + k * 18, x1 - PLOT_X0, fills[k],
				      k == 0 ? "predicted" : "measured");
			hd_fmt_time(v, sizeof v, side[k]->trace->makespan);
			/* the figure after the bar, or inside its end when no room */
			if (x1 + 70 > SVG_W && x1 - PLOT_X0 > 70)
				text(w, x1 - 4, y + 16 + k * 18,
				     "fill=\"#ffffff\" text-anchor=\"end\"", v);
			else
				text(w, x1 + 4, y + 16 + k * 18, "", v);
		}
	}
	u = hd_timeline_unit(span);
	step = hd_timeline_tick_step(span, 10);
	hd_exw_printf(w, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n",
		      PLOT_X0, y + 4, PLOT_X1, y + 4);
	for (tick = 0; step > 0 && tick <= span; tick += step) {
		hd_timeline_fmt(lab, sizeof lab, tick, u, tick % u.ps == 0 ? 0 : 3);
		snprintf(lab + strlen(lab), sizeof lab - strlen(lab), " %s", u.name);
		hd_exw_printf(w,
			      "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
			      "stroke=\"#333333\"/>\n",
			      xof(tick, span), y + 4, xof(tick, span), y + 8);
		text(w, xof(tick, span), y + 20, "text-anchor=\"middle\"", lab);
	}
	hd_exw_puts(w, "</svg>\n");
}

/* ---- predicted against measured ------------------------------------------------ */

#define SC_W  560
#define SC_H  486
#define SC_X0 90 /* the plot's square */
#define SC_Y0 40
#define SC_SZ 380

/* A makespan's place on the log axis from lo to hi (decades). */
static double
sc_pos(double v, double lo, double hi)
{
	return (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * SC_SZ;
}

/* Whether a group has both sides to plot. */
static bool
sc_point(const struct hd_export_group *g)
{
	return g->pred != NULL && g->meas != NULL && g->pred->trace->makespan > 0 &&
	    g->meas->trace->makespan > 0;
}

size_t
hd_export_svg_scatter(const struct hd_export_group *g, size_t n, struct hd_exw *w, bool standalone)
{
	double lo = 0, hi = 0, d, x, y;
	size_t i, count = 0, bars = 0;
	char lab[160], tip[512], a[32], b[96];

	for (i = 0; i < n; i++) {
		struct hd_band band;
		double p, m;

		if (!sc_point(&g[i]))
			continue;
		p = (double)g[i].pred->trace->makespan;
		m = (double)g[i].meas->trace->makespan;
		if (count++ == 0)
			lo = hi = p;
		lo = fmin(lo, fmin(p, m));
		hi = fmax(hi, fmax(p, m));
		if (hd_export_run_band(g[i].meas, &band) && band.min > 0) {
			lo = fmin(lo, (double)band.min);
			hi = fmax(hi, (double)band.max);
		}
	}
	if (count == 0)
		return 0;
	/* whole decades, at least one, the band's 10 % inside them */
	lo = pow(10, floor(log10(lo / 1.1)));
	hi = pow(10, ceil(log10(hi * 1.1)));
	if (hi <= lo)
		hi = lo * 10;
	svg_open(w, SC_W, SC_H, standalone, "Predicted against measured makespan, log-log");
	hd_exw_printf(w,
		      "<clipPath id=\"hd-scatter-plot\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
		      "height=\"%d\"/></clipPath>\n",
		      SC_X0, SC_Y0, SC_SZ, SC_SZ);
	text(w, 10, 22, "font-weight=\"bold\" font-size=\"15\"",
	     "Predicted against measured makespan");
	/* decades: grid lines and labels on both axes */
	for (d = lo; d <= hi * 1.0001; d *= 10) {
		double at = sc_pos(d, lo, hi);

		hd_fmt_time(lab, sizeof lab, (hd_time)(d + 0.5));
		hd_exw_printf(w,
			      "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			      "stroke=\"#dddddd\"/><line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			      "y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
			      SC_X0 + at, SC_Y0, SC_X0 + at, SC_Y0 + SC_SZ, SC_X0,
			      SC_Y0 + SC_SZ - at, SC_X0 + SC_SZ, SC_Y0 + SC_SZ - at);
		text(w, SC_X0 + at, SC_Y0 + SC_SZ + 16, "text-anchor=\"middle\"", lab);
		text(w, SC_X0 - 6, SC_Y0 + SC_SZ - at + 4, "text-anchor=\"end\"", lab);
	}
	/* the +-10 % band and the line where prediction equals measurement */
	hd_exw_printf(w,
		      "<g clip-path=\"url(#hd-scatter-plot)\"><polygon class=\"band\" "
		      "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"#59a14f\" "
		      "fill-opacity=\"0.18\"><title>within 10 %% of the measurement</title>"
		      "</polygon>\n",
		      (double)SC_X0, SC_Y0 + SC_SZ - sc_pos(lo * 0.9, lo, hi),
		      (double)SC_X0 + SC_SZ, SC_Y0 + SC_SZ - sc_pos(hi * 0.9, lo, hi),
		      (double)SC_X0 + SC_SZ, SC_Y0 + SC_SZ - sc_pos(hi * 1.1, lo, hi),
		      (double)SC_X0, SC_Y0 + SC_SZ - sc_pos(lo * 1.1, lo, hi));
	hd_exw_printf(w,
		      "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#59a14f\" "
		      "stroke-dasharray=\"4 3\"/></g>\n",
		      SC_X0, SC_Y0 + SC_SZ, SC_X0 + SC_SZ, SC_Y0);
	hd_exw_printf(w,
		      "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		      "stroke=\"#333333\"/>\n",
		      SC_X0, SC_Y0, SC_SZ, SC_SZ);
	for (i = 0; i < n; i++) {
		const struct hd_export_run *r;
		struct hd_band band;
		double p, m, err;
		bool in, bar;

		if (!sc_point(&g[i]))
			continue;
		r = hd_export_group_run(&g[i]);
		p = (double)g[i].pred->trace->makespan;
		m = (double)g[i].meas->trace->makespan;
		err = (p - m) / m;
		in = fabs(err) <= 0.1;
		x = SC_X0 + sc_pos(m, lo, hi);
		y = SC_Y0 + SC_SZ - sc_pos(p, lo, hi);
		hd_fmt_time(a, sizeof a, g[i].pred->trace->makespan);
		bar = hd_export_run_band(g[i].meas, &band) && band.min > 0;
		if (bar) {
			/* the repeats' min to max, across at the prediction's height */
			bars++;
			double x0 = SC_X0 + sc_pos((double)band.min, lo, hi),
			       x1 = SC_X0 + sc_pos((double)band.max, lo, hi);

			hd_exw_printf(w,
				      "<path class=\"bar\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f "
				      "%.1fV%.1f\" stroke=\"#222222\" stroke-width=\"1.2\" "
				      "fill=\"none\"/>\n",
				      x0, y, x1, x0, y - 4, y + 4, x1, y - 4, y + 4);
			hd_band_fmt(b, sizeof b, g[i].meas->trace->makespan, &band, HD_BAND_LONG);
		} else
			hd_fmt_time(b, sizeof b, g[i].meas->trace->makespan);
		snprintf(tip, sizeof tip,
			 "%.120s / %.120s: predicted %s, measured %s, error %+.1f %%%s",
			 r->info.lesson ? r->info.lesson : "?",
			 r->info.scenario ? r->info.scenario : "?", a, b, 100 * err,
			 !bar ? "" :
			     hd_band_holds(&band, g[i].pred->trace->makespan) ?
				"; the prediction is inside the band" :
				"; the prediction is outside the band");
		hd_exw_printf(w,
			      "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" "
			      "fill=\"%s\" fill-opacity=\"0.8\" stroke=\"#222222\" "
			      "stroke-width=\"0.6\"><title>",
			      x, y, in ? "#4e79a7" : "#e15759");
		hd_exw_xml(w, tip);
		hd_exw_puts(w, "</title></circle>\n");
	}
	text(w, SC_X0 + SC_SZ / 2.0, SC_Y0 + SC_SZ + 36, "text-anchor=\"middle\"",
	     "measured makespan (GPU)");
	hd_exw_printf(w,
		      "<text x=\"20\" y=\"%d\" text-anchor=\"middle\" "
		      "transform=\"rotate(-90 20 %d)\">predicted makespan (model)</text>\n",
		      SC_Y0 + SC_SZ / 2, SC_Y0 + SC_SZ / 2);
	snprintf(lab, sizeof lab,
		 "%zu scenario%s; the band is \xc2\xb1"
		 "10 %% of the measurement (blue: inside, "
		 "red: outside)",
		 count, count == 1 ? "" : "s");
	if (bars > 0)
		text(w, SC_X0 + SC_SZ / 2.0, SC_Y0 + SC_SZ + 52,
		     "text-anchor=\"middle\" fill=\"#555555\"",
		     "the bar across a point: the measured repeats, min to max");
	text(w, SC_X0, SC_Y0 - 8, "fill=\"#555555\"", lab);
	hd_exw_puts(w, "</svg>\n");
	return count;
}

/* ---- one document ----------------------------------------------------------- */

void
hd_export_svg(const struct hd_export_set *s, struct hd_exw *w)
{
	struct hd_export_group *g, *lg;
	size_t n = hd_export_groups(s, &g), i, j, k;
	int h = 10, y = 0;

	lg = hd_xcalloc(n + 1, sizeof *lg);
	for (i = 0; i < n; i++)
		h += timeline_height(&g[i]) + 10;
	for (i = 0; i < n; i++) {
		const char *les = hd_export_group_run(&g[i])->info.lesson;

		for (j = 0; j < i && strcmp(hd_export_group_run(&g[j])->info.lesson, les) != 0; j++)
			;
		if (j == i) {
			for (j = i, k = 0; j < n; j++)
				k += strcmp(hd_export_group_run(&g[j])->info.lesson, les) == 0;
			h += chart_height(k) + 10;
		}
	}
	svg_open(w, SVG_W, h, true, "hdsim export: timelines and charts");
	if (n == 0)
		text(w, 10, 20, "", "Nothing to draw: no runs were selected.");
	/* each picture is an <svg> of its own, placed below the last */
	for (i = 0; i < n; i++) {
		hd_exw_printf(w, "<svg y=\"%d\" width=\"%d\" height=\"%d\">\n", y, SVG_W,
			      timeline_height(&g[i]));
		timeline_body(&g[i], w, timeline_height(&g[i]));
		hd_exw_puts(w, "</svg>\n");
		y += timeline_height(&g[i]) + 10;
	}
	for (i = 0; i < n; i++) {
		const char *les = hd_export_group_run(&g[i])->info.lesson;

		for (j = 0; j < i && strcmp(hd_export_group_run(&g[j])->info.lesson, les) != 0; j++)
			;
		if (j < i)
			continue;
		for (j = i, k = 0; j < n; j++)
			if (strcmp(hd_export_group_run(&g[j])->info.lesson, les) == 0)
				lg[k++] = g[j];
		hd_exw_printf(w, "<g transform=\"translate(0,%d)\">\n", y);
		hd_export_svg_chart(les, lg, k, w, false);
		hd_exw_puts(w, "</g>\n");
		y += chart_height(k) + 10;
	}
	hd_exw_puts(w, "</svg>\n");
	free(lg);
	free(g);
}
