/*
 * export_csv.c - the runs, spans, claims and progress tables as RFC 4180
 * CSV: a header row, CRLF line ends, fields quoted when they hold a comma, a
 * quote or a line break.  Columns carry their units in their names, as the
 * JSON keys do; export_json.c writes the same tables.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "export/export.h"
#include "render/report.h"

#define EOL "\r\n"

/* The database column: its path, or "(simulated)" for runs made now. */
static const char *
db_name(const char *db)
{
	return db != NULL ? db : "(simulated)";
}

static void
sep(struct hd_exw *w)
{
	hd_exw_putc(w, ',');
}

static void
csv_int(struct hd_exw *w, int64_t v)
{
	sep(w);
	hd_exw_i64(w, v);
}

static void
csv_str(struct hd_exw *w, const char *s)
{
	sep(w);
	hd_exw_csv(w, s);
}

static void
csv_num(struct hd_exw *w, double v)
{
	sep(w);
	hd_exw_num(w, v);
}

/* A cell of n times separated by spaces ("12100000000 12310000000"), as
 * every cell is written (sanitised and quoted); empty for NULL. */
static void
csv_times(struct hd_exw *w, const hd_time *v, int n)
{
	struct hd_buf b;
	int i;

	sep(w);
	if (v == NULL)
		return;
	hd_buf_init(&b);
	for (i = 0; i < n; i++)
		hd_buf_printf(&b, "%s%" PRId64, i > 0 ? " " : "", v[i]);
	hd_exw_csv(w, b.s != NULL ? b.s : "");
	hd_buf_free(&b);
}

static void
runs(const struct hd_export_set *s, struct hd_exw *w)
{
	size_t i;

	hd_exw_puts(w,
		    "database,run,lesson,scenario,source,backend,profile,status,makespan_ps,"
		    "spans,pair_run,params,warmup,repeats,timer,created,hdsim_version,note,"
		    "hostname,gpu_name,gpu_uuid,pci_bus_id,driver,cuda_runtime,"
		    "repeat_makespans_ps,repeat_bare_ps,band_min_ps,band_median_ps,band_max_ps,"
		    "band_iqr_ps" EOL);
	for (i = 0; i < s->nruns; i++) {
		const struct hd_export_run *r = &s->runs[i];
		const struct hd_store_run_info *f = &r->info;
		const struct hd_store_machine *m = &f->machine;
		struct hd_band band;

		hd_exw_csv(w, db_name(r->db));
		csv_int(w, f->id);
		csv_str(w, f->lesson);
		csv_str(w, f->scenario);
		csv_str(w, f->source);
		csv_str(w, f->backend);
		csv_str(w, f->profile_name);
		csv_str(w, f->status);
		csv_int(w, f->makespan);
		csv_int(w, (int64_t)r->trace->nspans);
		sep(w);
		if (f->pair_run > 0)
			hd_exw_i64(w, f->pair_run);
		csv_str(w, f->params_json);
		csv_int(w, f->warmup);
		csv_int(w, f->repeats);
		csv_str(w, f->timer);
		csv_str(w, f->created);
		csv_str(w, f->version);
		csv_str(w, f->note);
		csv_str(w, m->hostname);
		csv_str(w, m->gpu_name);
		csv_str(w, m->gpu_uuid);
		csv_str(w, m->pci_bus_id);
		csv_str(w, m->driver);
		csv_str(w, m->cuda_runtime);
		csv_times(w, f->reps.makespan, f->reps.n);
		csv_times(w, f->reps.bare, f->reps.n);
		if (hd_band_of(f->reps.makespan, f->reps.n, &band) == 0) {
			csv_int(w, band.min);
			csv_int(w, band.median);
			csv_int(w, band.max);
			csv_int(w, band.iqr);
		} else
			hd_exw_puts(w, ",,,,");
		hd_exw_puts(w, EOL);
	}
}

static void
spans(const struct hd_export_set *s, struct hd_exw *w)
{
	size_t i, k;

	hd_exw_puts(w,
		    "database,run,seq,lane,lane_name,lane_kind,rank,lane_index,op,iter,kind,"
		    "why,start_ps,end_ps,duration_ps,bytes,label,spread_ps" EOL);
	for (i = 0; i < s->nruns; i++) {
		const struct hd_export_run *r = &s->runs[i];
		const struct hd_trace *t = r->trace;

		for (k = 0; k < t->nspans; k++) {
			const struct hd_span *sp = &t->spans[k];
			const struct hd_lane *ln = &t->lanes[sp->lane];

			hd_exw_csv(w, db_name(r->db));
			csv_int(w, r->info.id);
			csv_int(w, (int64_t)k);
			csv_int(w, sp->lane);
			csv_str(w, ln->name);
			csv_str(w, hd_report_lane_kind(ln->kind));
			csv_int(w, ln->rank);
			csv_int(w, ln->index);
			csv_int(w, sp->op);
			csv_int(w, sp->iter);
			csv_str(w, hd_span_kind_name(sp->kind));
			csv_str(w, sp->why != HD_WHY_NONE ? hd_why_name(sp->why) : NULL);
			csv_int(w, sp->start);
			csv_int(w, sp->end);
			csv_int(w, sp->end - sp->start);
			csv_int(w, (int64_t)sp->bytes);
			csv_str(w,
				sp->label >= 0 && sp->label < t->nstrings ? t->strings[sp->label] :
									    NULL);
			csv_int(w, sp->spread);
			hd_exw_puts(w, EOL);
			hd_exw_tick(w);
		}
	}
}

static const char *
outcome(int o)
{
	return o > 0 ? "holds" : o == 0 ? "fails" : "unchecked";
}

static void
claims(const struct hd_export_set *s, struct hd_exw *w)
{
	size_t i;
	int k;

	hd_exw_puts(w,
		    "database,run,lesson,scenario,source,claim,text,expr,outcome,lhs,rhs,"
		    "detail" EOL);
	for (i = 0; i < s->nruns; i++) {
		const struct hd_export_run *r = &s->runs[i];

		for (k = 0; k < r->info.nclaims; k++) {
			const struct hd_store_claim *c = &r->info.claims[k];

			hd_exw_csv(w, db_name(r->db));
			csv_int(w, r->info.id);
			csv_str(w, r->info.lesson);
			csv_str(w, r->info.scenario);
			csv_str(w, r->info.source);
			csv_int(w, c->index);
			csv_str(w, c->text);
			csv_str(w, c->expr);
			csv_str(w, outcome(c->outcome));
			sep(w);
			if (c->outcome >= 0)
				hd_exw_num(w, c->lhs);
			sep(w);
			if (c->outcome >= 0)
				hd_exw_num(w, c->rhs);
			csv_str(w, c->detail);
			hd_exw_puts(w, EOL);
		}
	}
}

static void
progress(const struct hd_export_set *s, struct hd_exw *w)
{
	size_t i;

	hd_exw_puts(w,
		    "database,id,learner,lesson,question,answer,result,confidence,seconds,"
		    "hints,profile,created,seen,lesson_version" EOL);
	for (i = 0; i < s->nanswers; i++) {
		const struct hd_export_answer *a = &s->answers[i];

		hd_exw_csv(w, db_name(a->db));
		csv_int(w, a->id);
		csv_str(w, a->learner);
		csv_str(w, a->lesson);
		csv_str(w, a->question);
		csv_str(w, a->answer);
		csv_str(w, a->correct > 0 ? "right" : a->correct == 0 ? "wrong" : "ungraded");
		sep(w);
		if (a->confidence > 0)
			hd_exw_i64(w, a->confidence);
		csv_num(w, a->seconds);
		csv_int(w, a->hints);
		csv_str(w, a->profile);
		csv_str(w, a->created);
		/* whether the run had been shown: empty when not recorded */
		csv_str(w, a->seen > 0 ? "yes" : a->seen == 0 ? "no" : "");
		csv_str(w, a->lesson_hash);
		hd_exw_puts(w, EOL);
	}
}

void
hd_export_csv(const struct hd_export_set *s, enum hd_export_table t, struct hd_exw *w)
{
	static void (*const table[HD_EXPORT_TABLE__COUNT])(const struct hd_export_set *,
							   struct hd_exw *) = {
		[HD_EXPORT_RUNS] = runs,
		[HD_EXPORT_SPANS] = spans,
		[HD_EXPORT_CLAIMS] = claims,
		[HD_EXPORT_PROGRESS] = progress,
	};

	table[(unsigned)t < HD_EXPORT_TABLE__COUNT ? t : HD_EXPORT_RUNS](s, w);
}
