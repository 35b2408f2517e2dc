/*
 * bench.c - `hdsim bench`: engine events per second and memory on synthetic
 * scenarios of growing size, and the wall time of `run` for each built-in
 * lesson.
 *
 * The lesson rows draw what `hdsim run` prints (timelines, the compare
 * block, claims).  The synthetic runs write to a counting sink that keeps no spans, so the
 * memory figures show the work in flight (the engine's peak queue, the
 * process's peak RSS) and not the length of the history.  bench/README.md
 * explains the rows and how results are recorded.
 */
#include <sys/resource.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/embedded.h"
#include "base/units.h"
#include "cli/bench.h"
#include "export/export.h"
#include "ir/backend.h"
#include "ir/trace.h"
#include "lang/lesson.h"
#include "render/report.h"
#include "render/timeline.h"
#include "run/backends.h"
#include "sim/engine.h"
#include "sim/model.h"
#include "tui/screen.h"
#include "tui/view.h"

/* Ops in the synthetic scenarios (four per loop iteration). */
static const uint64_t sizes[] = { 1000, 10000, 100000, 1000000, 4000000 };
#define QUICK_SIZES    3
#define DEFAULT_SIZES  5
#define OPS_TARGET     1000000 /* the row the "under 1 s" target is read from */
#define LESSON_REPEATS 5
#define SYNTH_REPEATS  3
#define TUI_FRAMES     31
#define ROW_FMT        "%-16s %11s %10s %17s %12s %9s\n"

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long
max_rss_kib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ru.ru_maxrss; /* KiB on Linux */
}

static void
init_op(struct hd_op *op, enum hd_op_kind kind)
{
	memset(op, 0, sizeof *op);
	op->kind = kind;
	op->stream = HD_STREAM_LEGACY;
	op->event = op->src = op->dst = op->peer = op->root = HD_NONE;
}

struct hd_scenario *
hd_bench_scenario(uint64_t iterations)
{
	struct hd_scenario *sc = hd_xcalloc(1, sizeof *sc);
	static const char *const snames[] = { "default", "per-thread", "s1", "s2" };
	struct hd_op *op;
	int i;

	sc->name = hd_xstrdup("bench");
	sc->title = hd_xstrdup("copy on s1, kernel on s2 after an event, in a loop");
	sc->nranks = 1;
	sc->nbuffers = 2;
	sc->buffers = hd_xcalloc(2, sizeof *sc->buffers);
	sc->buffers[0].name = hd_xstrdup("h");
	sc->buffers[0].mem = HD_MEM_PINNED;
	sc->buffers[0].bytes = 1 << 20;
	sc->buffers[1].name = hd_xstrdup("d");
	sc->buffers[1].mem = HD_MEM_DEVICE;
	sc->buffers[1].bytes = 1 << 20;
	sc->nstreams = 4;
	sc->streams = hd_xcalloc(4, sizeof *sc->streams);
	for (i = 0; i < 4; i++) {
		sc->streams[i].name = hd_xstrdup(snames[i]);
		sc->streams[i].flags = i >= 2 ? HD_STREAM_NONBLOCKING : 0;
	}
	sc->nevents = 1;
	sc->events = hd_xcalloc(1, sizeof *sc->events);
	sc->events[0].name = hd_xstrdup("e");
	sc->nops = 6;
	sc->ops = hd_xcalloc(6, sizeof *sc->ops);
	op = sc->ops;
	init_op(&op[0], HD_OP_REPEAT);
	op[0].count = iterations;
	op[0].body_len = 4;
	init_op(&op[1], HD_OP_COPY);
	op[1].src = 0;
	op[1].dst = 1;
	op[1].bytes = 1 << 20;
	op[1].async = true;
	op[1].stream = 2;
	op[1].copy = HD_COPY_H2D;
	init_op(&op[2], HD_OP_RECORD);
	op[2].event = 0;
	op[2].stream = 2;
	init_op(&op[3], HD_OP_WAIT);
	op[3].event = 0;
	op[3].stream = 3;
	init_op(&op[4], HD_OP_KERNEL);
	op[4].kernel = HD_KERNEL_SPIN;
	op[4].duration = 20 * HD_US;
	op[4].stream = 3;
	init_op(&op[5], HD_OP_DEVICE_SYNC);
	for (i = 0; i < sc->nops; i++)
		sc->ops[i].line = i + 1;
	return sc;
}

/* A sink that counts spans and keeps only the lane table. */
struct counter {
	struct {
		int kind, rank, index;
	} lanes[64];
	int nlanes;
	uint64_t spans;
	int strings;
};

static int
count_lane(void *ctx, enum hd_lane_kind kind, int rank, int index, const char *name)
{
	struct counter *c = ctx;
	int i;

	(void)name;
	for (i = 0; i < c->nlanes; i++)
		if (c->lanes[i].kind == (int)kind && c->lanes[i].rank == rank &&
		    c->lanes[i].index == index)
			return i;
	if (c->nlanes < (int)HD_ARRAY_LEN(c->lanes)) {
		c->lanes[c->nlanes].kind = (int)kind;
		c->lanes[c->nlanes].rank = rank;
		c->lanes[c->nlanes].index = index;
		return c->nlanes++;
	}
	return c->nlanes - 1;
}

static int
count_string(void *ctx, const char *s)
{
	struct counter *c = ctx;

	(void)s;
	return c->strings++ & 0xffff;
}

static void
count_span(void *ctx, const struct hd_span *s)
{
	struct counter *c = ctx;

	(void)s;
	c->spans++;
}

/* 1234567 -> "1,234,567" */
static char *
commas(char *buf, size_t n, uint64_t v)
{
	char tmp[32];
	int len, i, j = 0;

	len = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
	for (i = 0; i < len && (size_t)j + 2 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = tmp[i];
	}
	buf[j] = '\0';
	return buf;
}

static int dbl_cmp(const void *a, const void *b);

static int
bench_size(FILE *out, const struct hd_profile *p, uint64_t ops, double *wall_out)
{
	struct hd_scenario *sc = hd_bench_scenario(ops / 4);
	struct counter cnt;
	struct hd_sink sink = { &cnt, count_lane, count_string, count_span, NULL, NULL, 0, NULL };
	struct hd_model_stats st;
	struct hd_err e = { 0 };
	char o[32], ev[32], mem[32], rss[32], lab[48], ws[32], rs[32], pk[48];
	double t0, wall, rate;
	int rc;

	double walls[SYNTH_REPEATS];
	int r;

	/* The median of a few runs: one run on a shared machine can be off by half. */
	for (r = 0; r < SYNTH_REPEATS; r++) {
		memset(&cnt, 0, sizeof cnt);
		memset(&st, 0, sizeof st);
		t0 = now_s();
		rc = hd_model_run(sc, p, &sink, NULL, &st, &e);
		walls[r] = now_s() - t0;
		if (rc != 0) {
			hd_scenario_free(sc);
			hd_err_print(&e, stderr);
			return HD_EXIT_FAIL;
		}
	}
	hd_scenario_free(sc);
	qsort(walls, SYNTH_REPEATS, sizeof walls[0], dbl_cmp);
	wall = walls[SYNTH_REPEATS / 2];
	*wall_out = wall;
	rate = wall > 0 ? (double)st.events / wall : 0;
	hd_fmt_bytes(mem, sizeof mem, (uint64_t)st.peak_pending * sizeof(struct hd_event_rec));
	hd_fmt_bytes(rss, sizeof rss, (uint64_t)max_rss_kib() * 1024);
	snprintf(lab, sizeof lab, "%s ops", commas(o, sizeof o, st.op_execs ? st.op_execs : ops));
	snprintf(ws, sizeof ws, "%.1f ms", wall * 1e3);
	snprintf(rs, sizeof rs, "%.1f M events/s", rate / 1e6);
	snprintf(pk, sizeof pk, "%zu (%s)", st.peak_pending, mem);
	fprintf(out, ROW_FMT, lab, commas(ev, sizeof ev, st.events), ws, rs, pk, rss);
	fflush(out);
	return 0;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* parse + instantiate + simulate every scenario + claims + text timeline. */
static int
bench_lesson(FILE *out, const struct hd_profile *p, const struct hd_embedded *em,
	     double *median_out)
{
	double t[LESSON_REPEATS];
	int r, nscen = 0;

	for (r = 0; r < LESSON_REPEATS; r++) {
		struct hd_err e = { 0 };
		struct hd_lesson *l;
		struct hd_run run;
		struct hd_buf b;
		struct hd_tl_opts to = { .width = HD_TL_DEFAULT_WIDTH };
		const char **names;
		double t0 = now_s();
		int i;

		l = hd_lesson_parse(em->text, strlen(em->text), em->name, &e);
		if (l == NULL || hd_run_lesson(&run, l, 1, p, &hd_sim_backend, NULL, 0, &e) != 0) {
			if (l != NULL)
				hd_run_free(&run);
			hd_lesson_free(l);
			hd_err_print(&e, stderr);
			return HD_EXIT_FAIL;
		}
		hd_buf_init(&b);
		names = hd_xcalloc((size_t)run.nscen + 1, sizeof *names);
		for (i = 0; i < run.nscen; i++) {
			struct hd_tl_info info = { .lesson_id = hd_lesson_id(l),
						   .lesson_title = hd_lesson_title(l),
						   .sc = run.sc[i],
						   .profile_name = p->name,
						   .backend = "sim" };
			hd_timeline_render(&b, run.traces[i], &info, &to);
			names[i] = hd_lesson_scenario_name(l, i);
		}
		if (run.nscen > 1) /* the compare block, as `run` prints it */
			hd_timeline_compare(&b, (const struct hd_trace *const *)run.traces,
					    (const struct hd_scenario *const *)run.sc, names,
					    run.nscen, &to);
		free(names);
		hd_report_claims(&b, &run, false, HD_TL_DEFAULT_WIDTH);
		t[r] = now_s() - t0;
		nscen = run.nscen;
		hd_buf_free(&b);
		hd_run_free(&run);
		hd_lesson_free(l);
	}
	qsort(t, LESSON_REPEATS, sizeof t[0], dbl_cmp);
	*median_out = t[LESSON_REPEATS / 2];
	fprintf(out, "  %-30s %2d scenario%s %8.2f ms  (best %.2f ms)\n", em->name, nscen,
		nscen == 1 ? " " : "s", t[LESSON_REPEATS / 2] * 1e3, t[0] * 1e3);
	fflush(out);
	return 0;
}

/*
 * The scale row: a 1 GiB ring all-reduce over 4096 ranks, 512 nodes of 8
 * H100 on NVSwitch joined by the network, simulated step by step (8190 ring
 * steps, 33.5 million link transfers), into a counting sink.
 */
#define RANKS_BENCH 4096
static int
bench_ranks(FILE *out)
{
	static const char text[] =
	    "hdsim 1\nlesson bench-ranks\ntitle \"scale\"\n"
	    "scenario ring\n  ranks 4096\n  buffer d device 1GiB\n  stream s\n"
	    "  allreduce d on s\n  sync s\nend\n";
	const struct hd_profile *base = hd_profile_builtin_find("h100-sxm");
	struct hd_profile p;
	struct counter cnt;
	struct hd_sink sink = { &cnt, count_lane, count_string, count_span, NULL, NULL, 0, NULL };
	struct hd_model_stats st;
	struct hd_err e = { 0 };
	struct hd_lesson *l;
	struct hd_scenario *sc = NULL;
	double t0, wall;
	char ms[32], rss[32];
	int rc = HD_EXIT_FAIL;

	if (base == NULL)
		return HD_EXIT_FAIL;
	p = *base;
	p.coll_algo = HD_ALGO_RING;
	p.coll_model = HD_CMODEL_CHUNKS;
	l = hd_lesson_parse(text, strlen(text), "bench-ranks", &e);
	if (l != NULL)
		sc = hd_lesson_instantiate(l, 0, NULL, &e);
	if (sc == NULL)
		goto out;
	memset(&cnt, 0, sizeof cnt);
	t0 = now_s();
	if (hd_model_run(sc, &p, &sink, NULL, &st, &e) != 0)
		goto out;
	wall = now_s() - t0;
	hd_fmt_bytes(rss, sizeof rss, (uint64_t)max_rss_kib() * 1024);
	fprintf(out,
		"\nranks: 1 GiB ring all-reduce, %d ranks (%d nodes x %d %s), "
		"chunk by chunk\n  simulated %s in %.2f s wall, max RSS %s "
		"(target: under 2 s and 1 GiB: %s)\n",
		RANKS_BENCH, RANKS_BENCH / p.gpus_per_node, p.gpus_per_node, p.name,
		hd_fmt_time(ms, sizeof ms, st.makespan), wall, rss,
		wall < 2.0 && max_rss_kib() < 1024 * 1024 ? "met" : "missed");
	fflush(out);
	rc = 0;
out:
	if (rc != 0)
		hd_err_print(&e, stderr);
	hd_scenario_free(sc);
	hd_lesson_free(l);
	return rc;
}

/* A knob value as --set text in base units ("size=1048576B"). */
static void
knob_assignment(char *buf, size_t n, const struct hd_knob *k, double v)
{
	static const char *const suffix[] = {
		[HD_DIM_NONE] = "",    [HD_DIM_BYTES] = "B",   [HD_DIM_TIME] = "ps",
		[HD_DIM_RATE] = "B/s", [HD_DIM_FLOP] = "FLOP", [HD_DIM_FLOPS] = "FLOP/s",
		[HD_DIM_PERCENT] = "",
	};

	snprintf(buf, n, "%s=%.17g%s", k->name, v,
		 (unsigned)k->dim < HD_ARRAY_LEN(suffix) ? suffix[k->dim] : "");
}

/*
 * The TUI's two costs that a learner feels, for every built-in lesson: one
 * frame of the run screen at 200x60 (diagram, timeline with a ghost,
 * status; the worst scenario, median of TUI_FRAMES), and a knob change:
 * every scenario re-simulated with the knob at its minimum and the frame
 * redrawn (median of LESSON_REPEATS).  Painting to the terminal is left out:
 * curses sends only the cells that changed.
 */
static int
bench_tui(FILE *out, const struct hd_profile *p)
{
	struct hd_screen *scr = hd_screen_new(200, 60);
	struct hd_rect all = { 0, 0, 200, 60 };
	double worst_frame = 0, worst_knob = 0;
	int i, status = 0;

	fprintf(out, "\nTUI run screen at 200x60, playhead mid-run, previous run as ghost\n");
	for (i = 0; i < hd_builtin_lessons_count; i++) {
		const struct hd_embedded *em = &hd_builtin_lessons[i];
		struct hd_err e = { 0 };
		struct hd_lesson *l = hd_lesson_parse(em->text, strlen(em->text), em->name, &e);
		struct hd_run run;
		double frame = 0, t[LESSON_REPEATS], f[TUI_FRAMES];
		char set[160];
		char *sets[1] = { set };
		int sc, r;

		if (l == NULL ||
		    hd_run_lesson(&run, l, i + 1, p, &hd_sim_backend, NULL, 0, &e) != 0) {
			hd_err_print(&e, stderr);
			hd_lesson_free(l);
			status = HD_EXIT_FAIL;
			break;
		}
		for (sc = 0; sc < run.nscen; sc++) {
			struct hd_view_opts o;

			hd_view_opts_init(&o);
			o.t = run.traces[sc]->makespan / 2;
			o.ghost = run.traces[sc];
			for (r = 0; r < TUI_FRAMES; r++) {
				double t0 = now_s();

				hd_screen_clear(scr);
				hd_view_run(scr, all, run.traces[sc], run.sc[sc], &o);
				f[r] = now_s() - t0;
			}
			qsort(f, TUI_FRAMES, sizeof f[0], dbl_cmp);
			if (f[TUI_FRAMES / 2] > frame)
				frame = f[TUI_FRAMES / 2];
		}
		for (r = 0; r < LESSON_REPEATS; r++) {
			struct hd_run next;
			struct hd_view_opts o;
			double t0 = now_s();

			if (hd_lesson_nknobs(l) > 0)
				knob_assignment(set, sizeof set, hd_lesson_knob(l, 0),
						hd_lesson_knob(l, 0)->min);
			if (hd_run_lesson(&next, l, i + 1, p, &hd_sim_backend, sets,
					  hd_lesson_nknobs(l) > 0 ? 1 : 0, &e) != 0) {
				hd_err_print(&e, stderr);
				hd_run_free(&next);
				status = HD_EXIT_FAIL;
				break;
			}
			hd_view_opts_init(&o);
			o.t = next.traces[0]->makespan;
			o.ghost = run.traces[0];
			hd_screen_clear(scr);
			hd_view_run(scr, all, next.traces[0], next.sc[0], &o);
			t[r] = now_s() - t0;
			hd_run_free(&next);
		}
		if (status != 0) {
			hd_run_free(&run);
			hd_lesson_free(l);
			break;
		}
		qsort(t, LESSON_REPEATS, sizeof t[0], dbl_cmp);
		fprintf(out, "  %-30s frame %7.3f ms   knob change %7.3f ms\n", em->name,
			frame * 1e3, t[LESSON_REPEATS / 2] * 1e3);
		if (frame > worst_frame)
			worst_frame = frame;
		if (t[LESSON_REPEATS / 2] > worst_knob)
			worst_knob = t[LESSON_REPEATS / 2];
		hd_run_free(&run);
		hd_lesson_free(l);
	}
	if (status == 0)
		fprintf(out,
			"  %-30s frame %7.3f ms   knob change %7.3f ms  (under 2 ms: %s; "
			"under 16 ms: %s)\n",
			"slowest", worst_frame * 1e3, worst_knob * 1e3,
			worst_frame < 0.002 ? "met" : "missed",
			worst_knob < 0.016 ? "met" : "missed");
	hd_screen_free(scr);
	return status;
}

int
hd_bench_main(FILE *out, const struct hd_profile *p, bool quick)
{
	size_t i, n = quick ? QUICK_SIZES : DEFAULT_SIZES;
	double wall, target_wall = -1, worst = 0, med;
	int status = 0;

	fprintf(out,
		"hdsim bench: the simulator on profile %s, one thread, wall clock%s\n"
		"(each synthetic row: the median of %d runs)\n\n",
		p->name, quick ? " (--quick)" : "", SYNTH_REPEATS);
	fprintf(out, ROW_FMT, "synthetic loop", "events", "wall", "rate", "peak queue", "max RSS");
	for (i = 0; i < n; i++) {
		if (bench_size(out, p, sizes[i], &wall) != 0)
			return HD_EXIT_FAIL;
		if (sizes[i] == OPS_TARGET)
			target_wall = wall;
	}
	if (target_wall >= 0) {
		char ws[32];
		snprintf(ws, sizeof ws, "%.1f ms", target_wall * 1e3);
		fprintf(out, "%-16s %11s %10s   (target: under 1 s: %s)\n", "1,000,000 ops", "", ws,
			target_wall < 1.0 ? "met" : "missed");
	}
	fprintf(out,
		"\n'hdsim run' of each built-in lesson: parse, simulate every "
		"scenario,\ncheck the claims, draw the timelines and the compare block (median of "
		"%d runs)\n",
		LESSON_REPEATS);
	for (i = 0; i < (size_t)hd_builtin_lessons_count; i++) {
		if (bench_lesson(out, p, &hd_builtin_lessons[i], &med) != 0)
			status = HD_EXIT_FAIL;
		else if (med > worst)
			worst = med;
	}
	fprintf(out, "  %-30s %12s %8.2f ms  (under 50 ms: %s)\n", "slowest", "", worst * 1e3,
		worst < 0.050 ? "met" : "missed");
	if (status == 0)
		status = bench_tui(out, p);
	if (status == 0 && !quick)
		status = bench_ranks(out);
	if (status == 0)
		status = hd_export_bench(out);
	fprintf(out,
		"\nTargets: at least 20 M events/s on one core; 1,000,000 ops under "
		"1 s;\n'hdsim run' of each lesson under 50 ms; a TUI frame under 2 ms at "
		"200x60;\na knob change re-simulated and redrawn under 16 ms; an export of 100 "
		"runs x 10,000 spans\nunder 2 s in each format.\n");
	return status;
}
