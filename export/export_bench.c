/*
 * export_bench.c - the `hdsim bench` rows of `hdsim export`: a database of
 * 100 runs of 10,000 spans each (50 predicted and measured pairs over ten
 * lessons), built with the store in a temporary folder, then exported whole
 * (read from the database and written to a file) in every format.  The
 * target: each format under 2 s.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export/export.h"

#define BENCH_RUNS     100
#define BENCH_SPANS    10000
#define BENCH_TARGET_S 2.0

static double
clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double
now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* CPU time of this process: what the wall time would be on an idle machine,
 * less the waits for the disk. */
static double
cpu_s(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

/*
 * A run's trace of exactly `n` spans, shaped like a lesson's: each step an
 * API call launching a copy or a kernel onto a stream (mirrored on its copy
 * engine or on compute), every fourth a synchronize with its blocked part.
 * `stretch` (per mille) makes a measured run differ from its prediction.
 */
static struct hd_trace *
bench_trace(size_t n, int stretch)
{
	struct hd_trace *t = hd_trace_new();
	int api = hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	int host = hd_trace_lane(t, HD_LANE_HOST, 0, 0, "Host thread");
	int st = hd_trace_lane(t, HD_LANE_STREAM, 0, 1, "Stream 13 (s1)");
	int ce = hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "Memcpy HtoD");
	int sm = hd_trace_lane(t, HD_LANE_COMPUTE, 0, 0, "Compute");
	int lab[5];
	hd_time now = 0;
	size_t k = 0, step;

	lab[0] = hd_trace_string(t, "cudaMemcpyAsync");
	lab[1] = hd_trace_string(t, "cudaLaunchKernel");
	lab[2] = hd_trace_string(t, "cudaStreamSynchronize");
	lab[3] = hd_trace_string(t, "h2d");
	lab[4] = hd_trace_string(t, "kernel spin");
	for (step = 0; k < n; step++) {
		hd_time d = (hd_time)20000000 * (1000 + stretch) / 1000;
		int copy = step % 2 == 0, op = (int)(step % 8);
		uint32_t iter = (uint32_t)(step / 8);
		struct hd_span s = { .lane = api,
				     .op = op,
				     .iter = iter,
				     .kind = HD_SPAN_API,
				     .start = now,
				     .end = now + 2000000,
				     .label = lab[copy ? 0 : 1] };

		hd_trace_add(t, &s);
		if (++k == n)
			break;
		s = (struct hd_span){ .lane = st,
				      .op = op,
				      .iter = iter,
				      .kind = copy ? HD_SPAN_COPY : HD_SPAN_KERNEL,
				      .start = now + 3000000,
				      .end = now + 3000000 + d,
				      .bytes = copy ? 1u << 20 : 0,
				      .label = lab[copy ? 3 : 4] };
		hd_trace_add(t, &s);
		if (++k == n)
			break;
		s.lane = copy ? ce : sm;
		hd_trace_add(t, &s);
		if (++k == n)
			break;
		if (step % 4 == 3) {
			hd_time end = now + 3000000 + d;

			s = (struct hd_span){ .lane = api,
					      .op = 8,
					      .iter = iter,
					      .kind = HD_SPAN_API,
					      .start = now + 2500000,
					      .end = end + 1000000,
					      .label = lab[2] };
			hd_trace_add(t, &s);
			if (++k == n)
				break;
			s.kind = HD_SPAN_BLOCKED;
			s.why = HD_WHY_STREAM_SYNC;
			s.start += 500000;
			s.end -= 500000;
			hd_trace_add(t, &s);
			if (++k == n)
				break;
			now = end + 1500000;
		} else {
			s = (struct hd_span){ .lane = host,
					      .op = -1,
					      .kind = HD_SPAN_HOST,
					      .start = now + 2000000,
					      .end = now + 2800000 };
			hd_trace_add(t, &s);
			if (++k == n)
				break;
			now += 3000000 + d;
		}
	}
	return t;
}

/* The bench database: BENCH_RUNS runs, predicted and measured in pairs. */
static int
bench_db(const char *path, struct hd_err *e)
{
	struct hd_store *s = hd_store_open(path, HD_STORE_RW, e);
	struct hd_store_machine m = { .hostname = "bench",
				      .gpu_name = "bench GPU",
				      .driver = "0",
				      .cuda_runtime = "0",
				      .gpu_count = 1 };
	struct hd_store_claim c = {
		0, "copies overlap kernels", "time(h2d) < makespan", 1, 1, 2, "holds"
	};
	struct hd_trace *p = bench_trace(BENCH_SPANS, 0), *q = bench_trace(BENCH_SPANS, 80);
	char lesson[32], scen[32];
	int i, rc = 0;

	if (s == NULL)
		rc = -1;
	for (i = 0; rc == 0 && i < BENCH_RUNS / 2; i++) {
		struct hd_store_run r = { .lesson = lesson,
					  .scenario = scen,
					  .backend = "sim",
					  .source = "predicted",
					  .profile_name = "bench",
					  .profile_text = "bench\n",
					  .status = "ok",
					  .repeats = 1 };
		int64_t pid;

		snprintf(lesson, sizeof lesson, "bench-lesson-%d", i / 5);
		snprintf(scen, sizeof scen, "scenario-%d", i % 5);
		if (hd_store_run_insert(s, &r, p, &c, 1, &pid, e) != 0) {
			rc = -1;
			break;
		}
		r.backend = "cuda";
		r.source = "measured";
		r.machine = &m;
		r.pair_run = pid;
		r.repeats = 5;
		if (hd_store_run_insert(s, &r, q, &c, 1, NULL, e) != 0)
			rc = -1;
	}
	hd_trace_free(p);
	hd_trace_free(q);
	hd_store_close(s);
	return rc;
}

static off_t
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : 0;
}

struct fill {
	const struct hd_export_set *s;
	enum hd_export_format f;
	enum hd_export_table t;
};

static void
fill(void *ctx, struct hd_exw *w)
{
	struct fill *fl = ctx;

	hd_export_write(fl->s, fl->f, fl->t, w);
}

/* Read the whole database and write format f (csv: all four tables). */
static int
export_once(const char *db, const char *dir, enum hd_export_format f, off_t *bytes,
	    struct hd_err *e)
{
	struct hd_export_select sel = { .answers = true };
	struct hd_export_set set;
	int t, nt = f == HD_EXPORT_CSV ? HD_EXPORT_TABLE__COUNT : 1, rc = 0;

	*bytes = 0;
	hd_export_set_init(&set);
	if (hd_export_load(&set, db, &sel, e) < 0) {
		hd_export_set_free(&set);
		return -1;
	}
	for (t = 0; t < nt && rc == 0; t++) {
		struct fill fl = { &set, f, (enum hd_export_table)t };
		char *path = hd_xasprintf("%s/out-%s-%d", dir, hd_export_format_name(f), t);

		rc = hd_export_to_file(path, NULL, fill, &fl, e);
		*bytes += file_size(path);
		unlink(path);
		free(path);
	}
	hd_export_set_free(&set);
	return rc;
}

int
hd_export_bench(FILE *out)
{
	char tmpl[] = "/tmp/hdsim-bench-export-XXXXXX", *db = NULL, size[32];
	struct hd_err e = { 0 };
	double t0, worst = 0;
	off_t bytes;
	int f, status = 0;

	if (mkdtemp(tmpl) == NULL) {
		fprintf(out, "export: cannot make a temporary folder: %s\n", strerror(errno));
		return HD_EXIT_FAIL;
	}
	db = hd_xasprintf("%s/bench.db", tmpl);
	fprintf(out,
		"\n'hdsim export --all' of %d runs x %s spans (%d predicted and measured "
		"pairs):\nread from the database and written to a file, one run each; wall "
		"time, then CPU time\n",
		BENCH_RUNS, "10,000", BENCH_RUNS / 2);
	t0 = now_s();
	if (bench_db(db, &e) != 0) {
		hd_err_print(&e, stderr);
		status = HD_EXIT_FAIL;
		goto out;
	}
	fprintf(out, "  %-30s %8.2f s  (%s)\n", "building the database", now_s() - t0,
		hd_fmt_bytes(size, sizeof size, (uint64_t)file_size(db)));
	for (f = 0; f < HD_EXPORT__COUNT; f++) {
		double wall, cpu, c0 = cpu_s();

		t0 = now_s();
		if (export_once(db, tmpl, (enum hd_export_format)f, &bytes, &e) != 0) {
			hd_err_print(&e, stderr);
			status = HD_EXIT_FAIL;
			break;
		}
		wall = now_s() - t0;
		cpu = cpu_s() - c0;
		if (wall > worst)
			worst = wall;
		fprintf(out, "  %-30s %8.2f s  (CPU %.2f s; %s%s)\n", hd_export_format_name(f),
			wall, cpu, hd_fmt_bytes(size, sizeof size, (uint64_t)bytes),
			f == HD_EXPORT_CSV ? ", four tables" : "");
		fflush(out);
	}
	if (status == 0)
		fprintf(out, "  %-30s %8.2f s  (under %.0f s: %s)\n", "slowest format", worst,
			BENCH_TARGET_S, worst < BENCH_TARGET_S ? "met" : "missed");
out:
	unlink(db);
	{
		char *wal = hd_xasprintf("%s-wal", db), *shm = hd_xasprintf("%s-shm", db);

		unlink(wal);
		unlink(shm);
		free(wal);
		free(shm);
	}
	rmdir(tmpl);
	free(db);
	return status;
}
