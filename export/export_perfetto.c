/*
 * export_perfetto.c - runs as Chrome trace-event JSON that ui.perfetto.dev
 * and chrome://tracing open.
 *
 * The mapping: each run (and each rank of a multi-rank run) is a process,
 * named "lesson / scenario: predicted (run N)", so predicted and measured
 * never share a track; each lane (host, CUDA API, each stream, each copy
 * engine direction, compute, links) is a thread named through "M" metadata
 * events and sorted in the text timeline's order.  Every span is a complete
 * "X" event, ts and dur in microseconds from the run's start with three
 * decimals (nanosecond precision; hdsim keeps picoseconds and rounds every
 * time down, so nesting survives), its category and colour ("cname", a name
 * the trace viewer reserves) from the span's look (ir/spanlook.h).  Slices
 * on one thread must nest: spans of a lane that overlap without nesting
 * (kernels sharing the SMs, transfers sharing a link) go to extra threads of
 * that lane, "Compute (2)" ...  Flow arrows ("s" then "f" bound to the
 * enclosing slice, as Kineto's "ac2g") run from each API call to the first
 * GPU work of the same op and iteration.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "export/export.h"
#include "ir/spanlook.h"
#include "render/report.h"
#include "render/timeline.h"

/* One extra thread of a lane: the ends of the slices open on it. */
struct track {
	hd_time *ends;
	size_t depth, cap;
};

/* ns-floored time, the unit slices are compared in once written */
static hd_time
floor_ns(hd_time ps)
{
	return ps >= 0 ? ps / 1000 * 1000 : -((-ps + 999) / 1000) * 1000;
}

/*
 * Place every span of t on a track of its lane so that slices on a track
 * nest: sub[i] gets span i's track, nsub[lane] the lane's track count.
 */
static void
place(const struct hd_trace *t, const size_t *order, int *sub, int *nsub)
{
	struct track *tr = NULL;
	size_t ntr = 0, i, k;
	int lane = -1;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[order[i]];
		hd_time st = floor_ns(s->start), en = floor_ns(s->end);

		if (en < st) /* a damaged row: drawn as an instant */
			en = st;
		if (s->lane != lane) {
			for (k = 0; k < ntr; k++)
				tr[k].depth = 0;
			lane = s->lane;
		}
		for (k = 0;; k++) {
			if (k == ntr) {
				tr = hd_xrealloc(tr, (ntr + 1) * sizeof *tr);
				memset(&tr[ntr++], 0, sizeof *tr);
			}
			while (tr[k].depth > 0 && tr[k].ends[tr[k].depth - 1] <= st)
				tr[k].depth--;
			if (tr[k].depth == 0 || tr[k].ends[tr[k].depth - 1] >= en)
				break;
		}
		tr[k].ends = hd_xgrow(tr[k].ends, &tr[k].cap, tr[k].depth + 1, sizeof *tr[k].ends);
		tr[k].ends[tr[k].depth++] = en;
		sub[order[i]] = (int)k;
		if ((int)k + 1 > nsub[lane])
			nsub[lane] = (int)k + 1;
	}
	for (k = 0; k < ntr; k++)
		free(tr[k].ends);
	free(tr);
}

/* GPU work a launch may start, best first: streams, copy engines, compute. */
static int
gpu_pref(enum hd_lane_kind k)
{
	switch (k) {
	case HD_LANE_STREAM:
		return 0;
	case HD_LANE_CE_H2D:
	case HD_LANE_CE_D2H:
	case HD_LANE_CE_D2D:
		return 1;
	case HD_LANE_COMPUTE:
		return 2;
	case HD_LANE_HOST:
	case HD_LANE_API:
	case HD_LANE_PCIE_H2D:
	case HD_LANE_PCIE_D2H:
	case HD_LANE_LINK:
	case HD_LANE__COUNT:
		break;
	}
	return -1;
}

struct target {
	int rank, op, pref;
	uint32_t iter;
	hd_time start;
	size_t idx;
};

static int
target_cmp(const void *pa, const void *pb)
{
	const struct target *a = pa, *b = pb;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	if (a->iter != b->iter)
		return a->iter < b->iter ? -1 : 1;
	if (a->pref != b->pref)
		return a->pref < b->pref ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The first target of (rank, op, iter), or NULL. */
static const struct target *
find_target(const struct target *v, size_t n, int rank, int op, uint32_t iter)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct target *m = &v[mid];

		if (m->rank < rank ||
		    (m->rank == rank && (m->op < op || (m->op == op && m->iter < iter))))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && v[lo].rank == rank && v[lo].op == op && v[lo].iter == iter)
		return &v[lo];
	return NULL;
}

/* Numbering shared by all runs of a file, and the events written so far. */
struct pstate {
	int pid, tid;
	int64_t flow;
	size_t events;
};

/* Start an event: a comma before every one but the first. */
static void
ev(struct hd_exw *w, struct pstate *ps)
{
	hd_exw_puts(w, ps->events++ > 0 ? ",\n{" : "\n{");
}

static void
meta(struct hd_exw *w, struct pstate *ps, const char *what, int pid, int tid, const char *key,
     const char *sval, int64_t ival)
{
	ev(w, ps);
	hd_exw_printf(w, "\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"ts\":0,", pid, tid);
	hd_json_kstr(&w->b, "name", what);
	hd_exw_puts(w, ",\"args\":{");
	hd_json_key(&w->b, key);
	if (sval != NULL)
		hd_exw_json(w, sval);
	else
		hd_exw_i64(w, ival);
	hd_exw_puts(w, "}}");
}

/* Everything one run writes. */
static void
run_events(const struct hd_export_run *r, struct hd_exw *w, struct pstate *ps)
{
	const struct hd_trace *t = r->trace;
	size_t n = t->nspans, i, ntg = 0;
	size_t *order = hd_xcalloc(n + 1, sizeof *order);
	int *sub = hd_xcalloc(n + 1, sizeof *sub);
	int *nsub = hd_xcalloc((size_t)t->nlanes + 1, sizeof *nsub);
	int *tid0 = hd_xcalloc((size_t)t->nlanes + 1, sizeof *tid0);
	int *pid_of = hd_xcalloc((size_t)t->nlanes + 1, sizeof *pid_of);
	int *lorder = hd_timeline_lane_order(t);
	int *ranks = hd_xcalloc((size_t)t->nlanes + 1, sizeof *ranks);
	int *rank_pid = hd_xcalloc((size_t)t->nlanes + 1, sizeof *rank_pid);
	struct target *tg = hd_xcalloc(n + 1, sizeof *tg);
	int64_t *flow_out = hd_xcalloc(n + 1, sizeof *flow_out);
	int64_t *flow_in = hd_xcalloc(n + 1, sizeof *flow_in);
	int nranks = 0, k, j, l, nback;
	bool *back = hd_spanlook_back_ops(t, &nback); /* colours: copies by direction */
	char name[320];

	hd_trace_order_by_lane(t, order);
	place(t, order, sub, nsub);

	/* a process per rank, a thread per lane and extra track */
	for (l = 0; l < t->nlanes; l++) {
		for (k = 0; k < nranks && ranks[k] != t->lanes[l].rank; k++)
			;
		if (k == nranks) {
			ranks[nranks] = t->lanes[l].rank;
			rank_pid[nranks++] = ++ps->pid;
		}
	}
	for (k = 0; k < nranks; k++) {
		snprintf(name, sizeof name, "%s / %s: %s (run %" PRId64 "%s)",
			 r->info.lesson ? r->info.lesson : "?",
			 r->info.scenario ? r->info.scenario : "?",
			 r->info.source ? r->info.source : "?", r->info.id,
			 r->db == NULL ? ", simulated now" : "");
		if (nranks > 1)
			snprintf(name + strlen(name), sizeof name - strlen(name), " rank %d",
				 ranks[k]);
		meta(w, ps, "process_name", rank_pid[k], 0, "name", name, 0);
		meta(w, ps, "process_sort_index", rank_pid[k], 0, "sort_index", NULL, rank_pid[k]);
		snprintf(name, sizeof name, "%s%s%s%s", r->info.backend ? r->info.backend : "",
			 r->info.profile_name ? ", profile " : "",
			 r->info.profile_name ? r->info.profile_name : "",
			 r->info.machine.gpu_name ? ", " : "");
		if (r->info.machine.gpu_name != NULL)
			strncat(name, r->info.machine.gpu_name, sizeof name - strlen(name) - 1);
		meta(w, ps, "process_labels", rank_pid[k], 0, "labels", name, 0);
	}
	for (j = 0; j < t->nlanes; j++) {
		const struct hd_lane *ln;
		int s;

		l = lorder[j];
		ln = &t->lanes[l];
		for (k = 0; ranks[k] != ln->rank; k++)
			;
		pid_of[l] = rank_pid[k];
		tid0[l] = ps->tid;
		for (s = 0; s < (nsub[l] > 0 ? nsub[l] : 1); s++) {
			if (s == 0)
				snprintf(name, sizeof name, "%s", ln->name);
			else
				snprintf(name, sizeof name, "%s (%d)", ln->name, s + 1);
			meta(w, ps, "thread_name", pid_of[l], ps->tid, "name", name, 0);
			meta(w, ps, "thread_sort_index", pid_of[l], ps->tid, "sort_index", NULL,
			     j * 16 + s);
			++ps->tid;
		}
	}

	/* flow targets: GPU work by (rank, op, iter), best first */
	for (i = 0; i < n; i++) {
		const struct hd_span *s = &t->spans[i];
		int pref = gpu_pref(t->lanes[s->lane].kind);

		if (pref < 0 || s->op < 0)
			continue;
		tg[ntg].rank = t->lanes[s->lane].rank;
		tg[ntg].op = s->op;
		tg[ntg].iter = s->iter;
		tg[ntg].pref = pref;
		tg[ntg].start = s->start;
		tg[ntg].idx = i;
		ntg++;
	}
	qsort(tg, ntg, sizeof *tg, target_cmp);
	/* each API call that started GPU work: a flow to the first of it */
	for (i = 0; i < n; i++) {
		const struct hd_span *s = &t->spans[i];
		const struct target *to;

		if (s->kind == HD_SPAN_API && s->op >= 0 &&
		    (to = find_target(tg, ntg, t->lanes[s->lane].rank, s->op, s->iter)) != NULL &&
		    flow_in[to->idx] == 0) {
			flow_out[i] = ++ps->flow;
			flow_in[to->idx] = flow_out[i];
		}
	}

	for (i = 0; i < n; i++) {
		const struct hd_span *s = &t->spans[order[i]];
		const char *label = s->label >= 0 && s->label < t->nstrings ? t->strings[s->label] :
									      "";
		int pid = pid_of[s->lane], tid = tid0[s->lane] + sub[order[i]];
		hd_time st = floor_ns(s->start);
		const struct hd_spanlook *look = hd_spanlook_of_back(t, back, nback, s);

		ev(w, ps);
		hd_exw_puts(w, "\"ph\":\"X\",\"pid\":");
		hd_exw_i64(w, pid);
		hd_exw_puts(w, ",\"tid\":");
		hd_exw_i64(w, tid);
		hd_exw_puts(w, ",\"ts\":");
		hd_exw_us(w, st);
		hd_exw_puts(w, ",\"dur\":");
		hd_exw_us(w, floor_ns(s->end) > st ? floor_ns(s->end) - st : 0);
		hd_exw_puts(w, ",\"name\":");
		if (s->kind == HD_SPAN_BLOCKED) {
			snprintf(name, sizeof name, "blocked: %s", hd_why_name(s->why));
			hd_exw_json(w, name);
		} else
			hd_exw_json(w, label[0] != '\0' ? label : hd_span_kind_name(s->kind));
		hd_exw_puts(w, ",\"cat\":\"");
		hd_exw_puts(w, (unsigned)s->kind < HD_SPAN__COUNT ? look->cat : "other");
		hd_exw_puts(w, "\",\"cname\":\"");
		hd_exw_puts(w, look->perfetto);
		hd_exw_puts(w, "\",\"args\":{\"op\":");
		hd_exw_i64(w, s->op);
		hd_exw_puts(w, ",\"iteration\":");
		hd_exw_i64(w, s->iter);
		if (s->bytes > 0) {
			hd_exw_puts(w, ",\"bytes\":");
			hd_exw_i64(w, (int64_t)s->bytes);
		}
		if (s->why != HD_WHY_NONE) {
			hd_exw_puts(w, ",\"why_blocked\":");
			hd_exw_json(w, hd_why_text(s->why));
			hd_exw_puts(w, ",\"why\":");
			hd_exw_json(w, hd_why_name(s->why));
		}
		if (s->spread > 0) {
			hd_exw_puts(w, ",\"spread_ps\":");
			hd_exw_i64(w, s->spread);
		}
		hd_exw_puts(w, ",\"start_ps\":");
		hd_exw_i64(w, s->start);
		hd_exw_puts(w, ",\"end_ps\":");
		hd_exw_i64(w, s->end);
		hd_exw_puts(w, "}}");
		/* the flow leaves an API call after its slice, and arrives at
		 * the GPU work after that slice too: an importer that meets the
		 * two at one timestamp binds each to the slice already open */
		if (flow_out[order[i]] > 0) {
			ev(w, ps);
			hd_exw_printf(w, "\"ph\":\"s\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, tid);
			hd_exw_us(w, st);
			hd_exw_printf(w,
				      ",\"id\":%" PRId64 ",\"cat\":\"ac2g\",\"name\":\"launch\"}",
				      flow_out[order[i]]);
		}
		if (flow_in[order[i]] > 0) {
			ev(w, ps);
			hd_exw_printf(
			    w, "\"ph\":\"f\",\"bp\":\"e\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, tid);
			hd_exw_us(w, st);
			hd_exw_printf(w,
				      ",\"id\":%" PRId64 ",\"cat\":\"ac2g\",\"name\":\"launch\"}",
				      flow_in[order[i]]);
		}
		hd_exw_tick(w);
	}
	free(order);
	free(sub);
	free(nsub);
	free(tid0);
	free(pid_of);
	free(lorder);
	free(ranks);
	free(rank_pid);
	free(tg);
	free(flow_out);
	free(flow_in);
	free(back);
}

void
hd_export_perfetto(const struct hd_export_set *s, struct hd_exw *w)
{
	struct pstate ps = { 0, 1, 0, 0 };
	size_t i;

	hd_exw_puts(w, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"hdsim ");
	hd_exw_puts(w, PACKAGE_VERSION);
	hd_exw_puts(w,
		    "\",\"time\":\"ts and dur are microseconds from the start of each run, "
		    "with nanosecond precision; hdsim keeps picoseconds (see args start_ps, "
		    "end_ps)\"");
	if (s->note != NULL) {
		hd_exw_puts(w, ",\"note\":");
		hd_exw_json(w, s->note);
	}
	hd_exw_puts(w, "},\n\"traceEvents\":[");
	for (i = 0; i < s->nruns; i++)
		run_events(&s->runs[i], w, &ps);
	hd_exw_puts(w, "\n]}\n");
}
