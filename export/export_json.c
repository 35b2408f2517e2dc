/*
 * export_json.c - the runs, spans, claims and progress tables as one JSON
 * document: {"format":"hdsim-export", ..., "runs":[...], "spans":[...],
 * "claims":[...], "progress":[...]}.  The keys are the CSV columns
 * (export_csv.c), with numbers as numbers and missing values as null.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "base/json.h"
#include "export/export.h"
#include "render/report.h"

#define HD_EXPORT_JSON_VERSION 1

/* ,"k": */
static void
key(struct hd_exw *w, const char *k)
{
	hd_exw_putc(w, ',');
	hd_json_key(&w->b, k);
}

static void
kstr(struct hd_exw *w, const char *k, const char *v)
{
	key(w, k);
	hd_exw_json(w, v);
}

static void
kint(struct hd_exw *w, const char *k, int64_t v)
{
	key(w, k);
	hd_exw_i64(w, v);
}

/* A key whose value is known only when `have`: else null. */
static void
kint_if(struct hd_exw *w, const char *k, int have, int64_t v)
{
	key(w, k);
	if (have)
		hd_exw_i64(w, v);
	else
		hd_exw_puts(w, "null");
}

static void
knum_if(struct hd_exw *w, const char *k, int have, double v)
{
	key(w, k);
	if (have)
		hd_exw_num(w, v);
	else
		hd_exw_puts(w, "null");
}

/* ,"k":[v0,v1,...] of n times, or null for NULL. */
static void
ktimes(struct hd_exw *w, const char *k, const hd_time *v, int n)
{
	int i;

	key(w, k);
	if (v == NULL) {
		hd_exw_puts(w, "null");
		return;
	}
	hd_exw_putc(w, '[');
	for (i = 0; i < n; i++) {
		if (i > 0)
			hd_exw_putc(w, ',');
		hd_exw_i64(w, v[i]);
	}
	hd_exw_putc(w, ']');
}

/* The first key of an object: {"database":...  (no comma before it) */
static void
open_row(struct hd_exw *w, size_t n, const char *db)
{
	hd_exw_puts(w, n > 0 ? ",\n{\"database\":" : "\n{\"database\":");
	hd_exw_json(w, db);
}

void
hd_export_json(const struct hd_export_set *s, struct hd_exw *w)
{
	size_t i, k, n;
	int c;

	hd_exw_printf(w, "{\"format\":\"hdsim-export\",\"format_version\":%d",
		      HD_EXPORT_JSON_VERSION);
	kstr(w, "hdsim_version", PACKAGE_VERSION);
	kstr(w, "note", s->note);
	hd_exw_puts(w, ",\n\"runs\":[");
	for (i = 0; i < s->nruns; i++) {
		const struct hd_export_run *r = &s->runs[i];
		const struct hd_store_run_info *f = &r->info;
		const struct hd_store_machine *m = &f->machine;
		struct hd_band band;
		bool has_band;

		open_row(w, i, r->db);
		kint(w, "run", f->id);
		kstr(w, "lesson", f->lesson);
		kstr(w, "scenario", f->scenario);
		kstr(w, "source", f->source);
		kstr(w, "backend", f->backend);
		kstr(w, "profile", f->profile_name);
		kstr(w, "status", f->status);
		kint(w, "makespan_ps", f->makespan);
		kint(w, "spans", (int64_t)r->trace->nspans);
		kint_if(w, "pair_run", f->pair_run > 0, f->pair_run);
		kstr(w, "params", f->params_json);
		kint(w, "warmup", f->warmup);
		kint(w, "repeats", f->repeats);
		kstr(w, "timer", f->timer);
		kstr(w, "created", f->created);
		kstr(w, "hdsim_version", f->version);
		kstr(w, "note", f->note);
		/* every repeat's makespan, and their band (null when none) */
		ktimes(w, "repeat_makespans_ps", f->reps.makespan, f->reps.n);
		ktimes(w, "repeat_bare_ps", f->reps.bare, f->reps.n);
		has_band = hd_band_of(f->reps.makespan, f->reps.n, &band) == 0;
		kint_if(w, "band_min_ps", has_band, band.min);
		kint_if(w, "band_median_ps", has_band, band.median);
		kint_if(w, "band_max_ps", has_band, band.max);
		kint_if(w, "band_iqr_ps", has_band, band.iqr);
		key(w, "machine");
		if (!f->has_machine)
			hd_exw_puts(w, "null");
		else {
			hd_exw_puts(w, "{\"hostname\":");
			hd_exw_json(w, m->hostname);
			kstr(w, "gpu_name", m->gpu_name);
			kstr(w, "gpu_uuid", m->gpu_uuid);
			kstr(w, "pci_bus_id", m->pci_bus_id);
			kstr(w, "driver", m->driver);
			kstr(w, "cuda_runtime", m->cuda_runtime);
			kstr(w, "nccl", m->nccl);
			kint(w, "gpu_count", m->gpu_count);
			hd_exw_putc(w, '}');
		}
		key(w, "lanes");
		hd_exw_putc(w, '[');
		for (c = 0; c < r->trace->nlanes; c++) {
			const struct hd_lane *ln = &r->trace->lanes[c];

			hd_exw_printf(w, "%s{\"lane\":%d", c > 0 ? "," : "", c);
			kstr(w, "name", ln->name);
			kstr(w, "kind", hd_report_lane_kind(ln->kind));
			kint(w, "rank", ln->rank);
			kint(w, "index", ln->index);
			hd_exw_putc(w, '}');
		}
		hd_exw_puts(w, "]}");
	}
	hd_exw_puts(w, "],\n\"spans\":[");
	for (i = 0, n = 0; i < s->nruns; i++) {
		const struct hd_export_run *r = &s->runs[i];
		const struct hd_trace *t = r->trace;

		for (k = 0; k < t->nspans; k++, n++) {
			const struct hd_span *sp = &t->spans[k];

			open_row(w, n, r->db);
			kint(w, "run", r->info.id);
			kint(w, "seq", (int64_t)k);
			kint(w, "lane", sp->lane);
			kint(w, "op", sp->op);
			kint(w, "iter", sp->iter);
			kstr(w, "kind", hd_span_kind_name(sp->kind));
			kstr(w, "why", sp->why != HD_WHY_NONE ? hd_why_name(sp->why) : NULL);
			kint(w, "start_ps", sp->start);
			kint(w, "end_ps", sp->end);
			kint(w, "bytes", (int64_t)sp->bytes);
			kstr(w, "label",
			     sp->label >= 0 && sp->label < t->nstrings ? t->strings[sp->label] :
									 NULL);
			kint(w, "spread_ps", sp->spread);
			hd_exw_putc(w, '}');
			hd_exw_tick(w);
		}
	}
	hd_exw_puts(w, "],\n\"claims\":[");
	for (i = 0, n = 0; i < s->nruns; i++) {
		const struct hd_export_run *r = &s->runs[i];

		for (c = 0; c < r->info.nclaims; c++, n++) {
			const struct hd_store_claim *cl = &r->info.claims[c];

			open_row(w, n, r->db);
			kint(w, "run", r->info.id);
			kstr(w, "lesson", r->info.lesson);
			kstr(w, "source", r->info.source);
			kint(w, "claim", cl->index);
			kstr(w, "text", cl->text);
			kstr(w, "expr", cl->expr);
			kstr(w, "outcome",
			     cl->outcome > 0      ? "holds" :
				 cl->outcome == 0 ? "fails" :
						    "unchecked");
			knum_if(w, "lhs", cl->outcome >= 0, cl->lhs);
			knum_if(w, "rhs", cl->outcome >= 0, cl->rhs);
			kstr(w, "detail", cl->detail);
			hd_exw_putc(w, '}');
		}
	}
	hd_exw_puts(w, "],\n\"progress\":[");
	for (i = 0; i < s->nanswers; i++) {
		const struct hd_export_answer *a = &s->answers[i];

		open_row(w, i, a->db);
		kint(w, "id", a->id);
		kstr(w, "learner", a->learner);
		kstr(w, "lesson", a->lesson);
		kstr(w, "question", a->question);
		kstr(w, "answer", a->answer);
		key(w, "correct");
		hd_exw_puts(w, a->correct > 0 ? "true" : a->correct == 0 ? "false" : "null");
		kint_if(w, "confidence", a->confidence > 0, a->confidence);
		key(w, "seconds");
		hd_exw_num(w, a->seconds);
		kint(w, "hints", a->hints);
		kstr(w, "profile", a->profile);
		kstr(w, "created", a->created);
		key(w, "seen");
		hd_exw_puts(w, a->seen > 0 ? "true" : a->seen == 0 ? "false" : "null");
		kstr(w, "lesson_version", a->lesson_hash);
		hd_exw_putc(w, '}');
	}
	hd_exw_puts(w, "]}\n");
}
