/*
 * report.c - a lesson's run (run/run.h) written for machines (--json), for
 * screen readers (--plain), and its claims as text.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/units.h"
#include "lang/opname.h"
#include "render/report.h"
#include "render/timeline.h"

static const char *const lane_kinds[HD_LANE__COUNT] = {
	[HD_LANE_HOST] = "host",
	[HD_LANE_API] = "api",
	[HD_LANE_STREAM] = "stream",
	[HD_LANE_CE_H2D] = "copy-engine-htod",
	[HD_LANE_CE_D2H] = "copy-engine-dtoh",
	[HD_LANE_CE_D2D] = "copy-engine-dtod",
	[HD_LANE_COMPUTE] = "compute",
	[HD_LANE_PCIE_H2D] = "pcie-htod",
	[HD_LANE_PCIE_D2H] = "pcie-dtoh",
	[HD_LANE_LINK] = "link",
};

const char *
hd_report_lane_kind(enum hd_lane_kind k)
{
	if ((unsigned)k >= HD_LANE__COUNT || lane_kinds[k] == NULL)
		return "unknown";
	return lane_kinds[k];
}

/* ---- claims as text ------------------------------------------------------ */

void
hd_report_claims(struct hd_buf *out, const struct hd_run *r, bool color, int width)
{
	int i;

	if (r->nclaims == 0)
		return;
	hd_buf_puts(out, "\n");
	if (color)
		hd_buf_puts(out, "\033[1m");
	hd_buf_printf(out, "Claims (%d)", r->nclaims);
	if (color)
		hd_buf_puts(out, "\033[0m");
	hd_buf_putc(out, '\n');
	for (i = 0; i < r->nclaims; i++) {
		const struct hd_claim *c = hd_lesson_claim(r->lesson, i);
		const struct hd_claim_result *cr = &r->claims[i];
		const char *verdict, *code;

		verdict = cr->status == 1 ? "holds" :
		    cr->status == 0       ? "does not hold" :
					    "not checked";
		code = cr->status == 1 ? "32" : cr->status == 0 ? "1;31" : "33";
		hd_buf_puts(out, "  [");
		if (color)
			hd_buf_printf(out, "\033[%sm", code);
		hd_buf_puts(out, verdict);
		if (color)
			hd_buf_puts(out, "\033[0m");
		hd_buf_puts(out, "] ");
		hd_timeline_wrap(out, "", c->text, width - (int)strlen(verdict) - 5, 6);
		if (cr->detail[0] != '\0')
			hd_timeline_wrap(out, "      ", cr->detail, width, 6);
	}
}

/* ---- JSON ---------------------------------------------------------------- */

static const char *
dim_unit(enum hd_dim d)
{
	static const char *const u[] = {
		[HD_DIM_NONE] = "count",       [HD_DIM_BYTES] = "bytes",
		[HD_DIM_TIME] = "ps",          [HD_DIM_RATE] = "bytes_per_s",
		[HD_DIM_FLOP] = "flop",        [HD_DIM_FLOPS] = "flop_per_s",
		[HD_DIM_PERCENT] = "fraction",
	};
	if ((unsigned)d >= HD_ARRAY_LEN(u) || u[d] == NULL)
		return "count";
	return u[d];
}

static void
json_scenario(struct hd_buf *b, const struct hd_run *r, int si)
{
	const struct hd_trace *t = r->traces[si];
	const struct hd_scenario *sc = r->sc[si];
	hd_time blk[HD_WHY__COUNT], total = 0;
	size_t i;
	int k, n;

	hd_buf_puts(b, "{");
	hd_json_kstr(b, "scenario", hd_lesson_scenario_name(r->lesson, si));
	hd_buf_putc(b, ',');
	hd_json_kstr(b, "title", hd_lesson_scenario_title(r->lesson, si));
	hd_buf_printf(b, ",\"makespan_ps\":%" PRId64 ",\"engine_events\":%" PRIu64, t->makespan,
		      t->events);
	hd_buf_putc(b, ',');
	hd_json_kstr(b, "note", t->note);

	hd_buf_puts(b, ",\"lanes\":[");
	for (k = 0; k < t->nlanes; k++) {
		const struct hd_lane *ln = &t->lanes[k];
		hd_buf_printf(b, "%s{\"lane\":%d,", k ? "," : "", k);
		hd_json_kstr(b, "name", ln->name);
		hd_buf_putc(b, ',');
		hd_json_kstr(b, "kind", hd_report_lane_kind(ln->kind));
		hd_buf_printf(b, ",\"rank\":%d,\"index\":%d}", ln->rank, ln->index);
	}
	hd_buf_puts(b, "]");

	hd_buf_puts(b, ",\"spans\":[");
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];
		hd_buf_printf(b, "%s\n{\"lane\":%d,\"op\":%d,\"iter\":%" PRIu32 ",", i ? "," : "",
			      s->lane, s->op, s->iter);
		hd_json_kstr(b, "kind", hd_span_kind_name(s->kind));
		hd_buf_putc(b, ',');
		hd_json_kstr(b, "why", s->why == HD_WHY_NONE ? NULL : hd_why_name(s->why));
		hd_buf_printf(
		    b, ",\"start_ps\":%" PRId64 ",\"end_ps\":%" PRId64 ",\"bytes\":%" PRIu64 ",",
		    s->start, s->end, s->bytes);
		hd_json_kstr(b, "label",
			     s->label >= 0 && s->label < t->nstrings ? t->strings[s->label] : NULL);
		hd_buf_putc(b, '}');
	}
	hd_buf_puts(b, "]");

	hd_buf_puts(b, ",\"ops\":[");
	for (k = 0, n = 0; k < sc->nops; k++) {
		const struct hd_op *op = &sc->ops[k];
		struct hd_op_time ot;
		hd_time dur, busy;

		if (op->kind == HD_OP_REPEAT || op->kind == HD_OP_ON_RANK)
			continue;
		ot = hd_trace_op_time(t, k);
		if (!ot.found)
			continue;
		dur = ot.end - ot.start;
		hd_buf_printf(b, "%s\n{\"op\":%d,", n++ ? "," : "", k);
		hd_json_kstr(b, "label", op->label);
		hd_buf_putc(b, ',');
		hd_json_kstr(b, "kind", hd_op_kind_name(op->kind));
		hd_buf_putc(b, ',');
		hd_json_kstr(b, "call", hd_op_api_name_sc(sc, op));
		busy = hd_timeline_op_busy(t, k);
		hd_buf_printf(b,
			      ",\"line\":%d,\"execs\":%" PRIu32 ",\"start_ps\":%" PRId64
			      ",\"end_ps\":%" PRId64 ",\"time_ps\":%" PRId64 ",\"busy_ps\":%" PRId64
			      ",\"bytes\":%" PRIu64 ",\"rate_bytes_per_s\":",
			      op->line, ot.execs, ot.start, ot.end, dur, busy, ot.bytes);
		if (ot.bytes > 0 && busy > 0)
			hd_json_num(b, (double)ot.bytes / hd_time_to_s(busy));
		else
			hd_buf_puts(b, "null");
		hd_buf_putc(b, '}');
	}
	hd_buf_puts(b, "]");

	hd_trace_blocked(t, blk);
	hd_buf_puts(b, ",\"blocked_ps\":{");
	for (k = 0, n = 0; k < HD_WHY__COUNT; k++) {
		if (k == HD_WHY_NONE)
			continue;
		total += blk[k];
		if (blk[k] == 0)
			continue;
		hd_buf_printf(b, "%s", n++ ? "," : "");
		hd_json_key(b, hd_why_name((enum hd_why)k));
		hd_buf_printf(b, "%" PRId64, blk[k]);
	}
	hd_buf_printf(b, "},\"blocked_total_ps\":%" PRId64 "}", total);
}

void
hd_report_json(struct hd_buf *b, const struct hd_run *r, int only)
{
	int i, n;

	hd_buf_printf(b, "{\"format\":\"hdsim-run\",\"format_version\":%d,",
		      HD_REPORT_FORMAT_VERSION);
	hd_json_kstr(b, "hdsim_version", PACKAGE_VERSION);
	hd_buf_putc(b, ',');
	hd_json_kstr(b, "backend", r->backend != NULL ? r->backend->name : NULL);
	hd_buf_puts(b, ",\"lesson\":{");
	hd_json_kstr(b, "id", hd_lesson_id(r->lesson));
	hd_buf_putc(b, ',');
	hd_json_kstr(b, "title", hd_lesson_title(r->lesson));
	hd_buf_printf(b, ",\"number\":%d,", r->lesson_number);
	hd_json_kstr(b, "path", hd_lesson_path(r->lesson));
	hd_buf_puts(b, "},");
	hd_json_kstr(b, "profile", r->profile.name);

	hd_buf_puts(b, ",\"knobs\":[");
	for (i = 0; i < hd_lesson_nknobs(r->lesson); i++) {
		const struct hd_knob *k = hd_lesson_knob(r->lesson, i);
		hd_buf_printf(b, "%s{", i ? "," : "");
		hd_json_kstr(b, "name", k->name);
		hd_buf_puts(b, ",\"value\":");
		hd_json_num(b, r->knobs[i]);
		hd_buf_puts(b, ",\"default\":");
		hd_json_num(b, k->def);
		hd_buf_puts(b, ",\"min\":");
		hd_json_num(b, k->min);
		hd_buf_puts(b, ",\"max\":");
		hd_json_num(b, k->max);
		hd_buf_putc(b, ',');
		hd_json_kstr(b, "unit", dim_unit(k->dim));
		hd_buf_putc(b, '}');
	}
	hd_buf_puts(b, "],\n\"scenarios\":[");
	for (i = 0, n = 0; i < r->nscen; i++) {
		if (only >= 0 && i != only)
			continue;
		if (n++)
			hd_buf_puts(b, ",\n");
		json_scenario(b, r, i);
	}
	hd_buf_puts(b, "],\n\"claims\":[");
	for (i = 0; i < r->nclaims; i++) {
		const struct hd_claim *c = hd_lesson_claim(r->lesson, i);
		const struct hd_claim_result *cr = &r->claims[i];
		hd_buf_printf(b, "%s\n{", i ? "," : "");
		hd_json_kstr(b, "text", c->text);
		hd_buf_putc(b, ',');
		hd_json_kstr(b, "expr", c->expr);
		hd_buf_printf(
		    b, ",\"checked\":%s,\"holds\":%s,\"lhs\":", cr->status >= 0 ? "true" : "false",
		    cr->status == 1     ? "true" :
			cr->status == 0 ? "false" :
					  "null");
		if (cr->status >= 0)
			hd_json_num(b, cr->lhs);
		else
			hd_buf_puts(b, "null");
		hd_buf_puts(b, ",\"rhs\":");
		if (cr->status >= 0)
			hd_json_num(b, cr->rhs);
		else
			hd_buf_puts(b, "null");
		hd_buf_putc(b, ',');
		hd_json_kstr(b, "detail", cr->detail);
		hd_buf_putc(b, '}');
	}
	hd_buf_printf(b, "],\n\"claims_failed\":%d,\"claims_unchecked\":%d}\n", r->claims_failed,
		      r->claims_unchecked);
}

/* ---- plain narration ----------------------------------------------------- */

/* Who does something on a lane, as the subject of a sentence. */
static void
subject(char *buf, size_t n, const struct hd_lane *ln)
{
	const char *who = "";
	char tmp[64];

	switch (ln->kind) {
	case HD_LANE_HOST:
	case HD_LANE_API:
		who = "the host";
		/* a host thread beside the main one goes by its row's name */
		if (ln->kind == HD_LANE_HOST && ln->index != 0) {
			snprintf(tmp, sizeof tmp, "%s", ln->name);
			who = tmp;
		}
		break;
	case HD_LANE_CE_H2D:
		who = "copy engine HtoD";
		break;
	case HD_LANE_CE_D2H:
		who = "copy engine DtoH";
		break;
	case HD_LANE_CE_D2D:
		who = "copy engine DtoD";
		break;
	case HD_LANE_COMPUTE:
		who = "the GPU";
		break;
	case HD_LANE_PCIE_H2D:
		who = "the PCIe link towards the GPU";
		break;
	case HD_LANE_PCIE_D2H:
		who = "the PCIe link towards the host";
		break;
	case HD_LANE_STREAM:
	case HD_LANE_LINK:
	case HD_LANE__COUNT:
		snprintf(tmp, sizeof tmp, "%s", ln->name);
		if (ln->kind == HD_LANE_STREAM && strncmp(tmp, "Stream", 6) == 0)
			tmp[0] = 's';
		who = tmp;
		break;
	}
	if (ln->rank > 0)
		snprintf(buf, n, "on rank %d, %s", ln->rank, who);
	else
		snprintf(buf, n, "%s", who);
}

static void
op_ref(char *buf, size_t n, const struct hd_scenario *sc, const struct hd_span *s)
{
	const struct hd_op *op;

	buf[0] = '\0';
	if (sc == NULL || s->op < 0 || s->op >= sc->nops)
		return;
	op = &sc->ops[s->op];
	if (op->label != NULL) {
		snprintf(buf, n, " for op '%s'", op->label);
	} else if (n > 8) {
		/* " for 'STATEMENT'", the statement cut to leave room for the quote */
		strcpy(buf, " for '");
		hd_opname_statement(buf + 6, n - 7, sc, s->op);
		strcat(buf, "'");
	}
}

struct order {
	hd_time start;
	size_t idx;
};

static int
order_cmp(const void *pa, const void *pb)
{
	const struct order *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

void
hd_report_plain_trace(struct hd_buf *out, const struct hd_trace *t, const struct hd_scenario *sc)
{
	struct hd_tunit u = hd_timeline_unit(t->makespan > 0 ? t->makespan : 1);
	hd_time blk[HD_WHY__COUNT], total = 0;
	char at[32], end[32], dur[32], by[32], who[96], ref[96], why[48];
	const char *lab, *kref;
	struct order *ord = hd_xcalloc(t->nspans + 1, sizeof *ord);
	size_t i;
	int w, n;

	/* Time order, whatever order the backend left the spans in. */
	for (i = 0; i < t->nspans; i++) {
		ord[i].start = t->spans[i].start;
		ord[i].idx = i;
	}
	qsort(ord, t->nspans, sizeof *ord, order_cmp);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[ord[i].idx];
		const struct hd_lane *ln = &t->lanes[s->lane];

		/* The compute and PCIe rows repeat what the streams and copy
		 * engines say; a listener hears each event once. */
		if (ln->kind == HD_LANE_COMPUTE || ln->kind == HD_LANE_PCIE_H2D ||
		    ln->kind == HD_LANE_PCIE_D2H)
			continue;
		hd_timeline_fmt(at, sizeof at, s->start, u, 3);
		hd_timeline_fmt(end, sizeof end, s->end, u, 3);
		hd_fmt_time(dur, sizeof dur, s->end - s->start);
		hd_fmt_bytes(by, sizeof by, s->bytes);
		subject(who, sizeof who, ln);
		op_ref(ref, sizeof ref, sc, s);
		lab = s->label >= 0 && s->label < t->nstrings ? t->strings[s->label] : "";
		/* "runs k1", not "runs k1 for op 'k1'" */
		kref = sc != NULL && s->op >= 0 && s->op < sc->nops &&
			sc->ops[s->op].label != NULL && strcmp(sc->ops[s->op].label, lab) == 0 ?
		    "" :
		    ref;
		hd_buf_printf(out, "At %s %s ", at, u.name);
		switch (s->kind) {
		case HD_SPAN_API:
			hd_buf_printf(out, "%s calls %s%s (%s).\n", who, lab, ref, dur);
			break;
		case HD_SPAN_BLOCKED:
			snprintf(why, sizeof why, "%s", hd_why_name(s->why));
			for (n = 0; why[n] != '\0'; n++)
				if (why[n] == '-')
					why[n] = ' ';
			hd_buf_printf(out, "%s waits (%s) until %s %s.\n", who, why, end, u.name);
			break;
		case HD_SPAN_HOST:
			hd_buf_printf(out, "%s works for %s%s%s.\n", who, dur,
				      lab[0] != '\0' ? ": " : "", lab);
			break;
		case HD_SPAN_STAGING:
			hd_buf_printf(out,
				      "%s copies %s through a pinned staging buffer%s"
				      " until %s %s.\n",
				      who, by, ref, end, u.name);
			break;
		case HD_SPAN_COPY:
			if (s->bytes > 0)
				hd_buf_printf(out, "%s starts copying %s%s, done at %s %s.\n", who,
					      by, ref, end, u.name);
			else
				hd_buf_printf(out, "%s starts a copy%s, done at %s %s.\n", who, ref,
					      end, u.name);
			break;
		case HD_SPAN_KERNEL:
			hd_buf_printf(out, "%s runs %s%s until %s %s.\n", who,
				      lab[0] != '\0' ? lab : "a kernel", kref, end, u.name);
			break;
		case HD_SPAN_EVENT:
			hd_buf_printf(out, "%s reaches %s%s.\n", who,
				      lab[0] != '\0' ? lab : "an event", kref);
			break;
		case HD_SPAN_WAIT:
			if (lab[0] != '\0')
				hd_buf_printf(out, "%s waits for %s until %s %s.\n", who, lab, end,
					      u.name);
			else
				hd_buf_printf(out, "%s waits until %s %s.\n", who, end, u.name);
			break;
		case HD_SPAN_FAULT:
			/* the host's faults bring pages over (a copy reading them
			 * leaves them on the GPU); the GPU's migrate them */
			hd_buf_printf(out,
				      ln->kind == HD_LANE_HOST ?
					  "%s faults on managed memory and brings %s to the host%s"
					  " until %s %s.\n" :
					  "%s faults on managed memory and migrates %s%s"
					  " until %s %s.\n",
				      who, by, ref, end, u.name);
			break;
		case HD_SPAN_PREFETCH:
			hd_buf_printf(out, "%s prefetches %s%s until %s %s.\n", who, by, ref, end,
				      u.name);
			break;
		case HD_SPAN_COMM:
		case HD_SPAN__COUNT:
			hd_buf_printf(out, "%s %s%s until %s %s.\n", who,
				      lab[0] != '\0' ? lab : hd_span_kind_name(s->kind), kref, end,
				      u.name);
			break;
		}
	}
	free(ord);
	hd_timeline_fmt(end, sizeof end, t->makespan, u, 3);
	hd_buf_printf(out, "At %s %s the run ends. The makespan is %s.\n", end, u.name,
		      hd_fmt_time(dur, sizeof dur, t->makespan));
	if (t->note != NULL)
		hd_buf_printf(out, "The run ends in a %s", t->note);
	hd_trace_blocked(t, blk);
	for (w = 0; w < HD_WHY__COUNT; w++)
		if (w != HD_WHY_NONE)
			total += blk[w];
	if (total == 0) {
		hd_buf_puts(out, "The host was never blocked.\n");
		return;
	}
	hd_buf_printf(out, "The host was blocked for %s in all.\n",
		      hd_fmt_time(dur, sizeof dur, total));
	for (w = 0; w < HD_WHY__COUNT; w++)
		if (w != HD_WHY_NONE && blk[w] > 0)
			hd_buf_printf(out, "Blocked for %s: %s (%s).\n",
				      hd_fmt_time(dur, sizeof dur, blk[w]),
				      hd_why_text((enum hd_why)w), hd_why_name((enum hd_why)w));
}

void
hd_report_plain(struct hd_buf *out, const struct hd_run *r, int only)
{
	int i;

	if (r->lesson_number > 0)
		hd_buf_printf(out, "Lesson %d: %s.\n", r->lesson_number,
			      hd_lesson_title(r->lesson));
	else
		hd_buf_printf(out, "Lesson: %s.\n", hd_lesson_title(r->lesson));
	hd_buf_printf(out, "Profile %s, %s.\n", r->profile.name,
		      r->backend != NULL && strcmp(r->backend->name, "sim") != 0 ?
			  "measured on this machine" :
			  "simulated");
	hd_buf_puts(out,
		    "One line per event, in time order. The compute and PCIe rows are "
		    "left out: they repeat what the streams and copy engines do.\n");
	for (i = 0; i < r->nscen; i++) {
		const char *title = hd_lesson_scenario_title(r->lesson, i);
		if (only >= 0 && i != only)
			continue;
		hd_buf_printf(out, "\nScenario %s", hd_lesson_scenario_name(r->lesson, i));
		if (title != NULL && title[0] != '\0')
			hd_buf_printf(out, ": %s", title);
		hd_buf_puts(out, ".\n");
		hd_report_plain_trace(out, r->traces[i], r->sc[i]);
	}
	if (r->nclaims > 0)
		hd_buf_putc(out, '\n');
	for (i = 0; i < r->nclaims; i++) {
		const struct hd_claim_result *cr = &r->claims[i];
		hd_buf_printf(out, "Claim: %s. It %s.", hd_lesson_claim(r->lesson, i)->text,
			      cr->status == 1     ? "holds" :
				  cr->status == 0 ? "does not hold" :
						    "was not checked");
		if (cr->detail[0] != '\0')
			hd_buf_printf(out, " %s.", cr->detail);
		hd_buf_putc(out, '\n');
	}
}
