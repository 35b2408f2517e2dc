/*
 * check_export.c - `hdsim export`: the tables read back through an RFC 4180
 * reader (names with commas, quotes and line breaks), the JSON documents
 * parse, the Perfetto trace keeps overlapping spans on threads of their own
 * and links launches to GPU work, SVG escapes names, bad databases and
 * options are refused with nothing written, and learners' databases merge
 * into the class files row by row: attempts kept, graded by policy, scored
 * from the lesson as answered, databases skipped or named twice, versions
 * noted, hostile stored text made harmless in every file.
 *
 * `check_export --make-db FILE` writes the fixture database and exits; the
 * shell test tests/export.sh exports it with the hdsim binary and checks the
 * files with Python's parsers, a trace-event checker and Chromium.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "export/export.h"
#include "ir/spanlook.h"
#include "lang/catalog.h"
#include "lang/lesson.h"
#include "profile/profile.h"
#include "store/store.h"
#include "tests/jsoncheck.h"
#include "tests/testutil.h"

/* Names that break naive CSV, JSON, XML and Markdown writers. */
#define NASTY_LESSON "comma, \"quoted\"\nand <b>&amp;"
#define NASTY_LABEL  "k,1 \"x\"\r\nend|<"
#define NASTY_ANSWER "yes, \"really\"\nsure"

static char dir[64];
static int in_suite = 1; /* 0 for --make-db: no Check macros there */

/* Stop with a message when a fixture step fails, in or out of a suite. */
static void
need(int ok, const char *what, const struct hd_err *e)
{
	if (ok)
		return;
	if (in_suite)
		ck_abort_msg("%s: %s", what, e ? e->msg : "failed");
	fprintf(stderr, "check_export: %s: %s\n", what, e ? e->msg : "failed");
	exit(1);
}

static void
setup(void)
{
	hd_test_mkdtemp(dir, sizeof dir, "export");
}

static void
teardown(void)
{
	hd_test_rmtree(dir);
}

static char *
path_in(const char *name)
{
	return hd_xasprintf("%s/%s", dir, name);
}

static void
span(struct hd_trace *t, int lane, int op, int iter, enum hd_span_kind k, hd_time s, hd_time e,
     const char *label)
{
	struct hd_span sp = { .lane = lane,
			      .op = op,
			      .iter = (uint32_t)iter,
			      .kind = k,
			      .start = s,
			      .end = e,
			      .label = hd_trace_string(t, label) };

	if (k == HD_SPAN_BLOCKED)
		sp.why = HD_WHY_STREAM_SYNC;
	if (k == HD_SPAN_COPY)
		sp.bytes = 1u << 20;
	hd_trace_add(t, &sp);
}

/*
 * A run's trace: an API call with its blocked part nested, the copy and
 * kernel it launched, and two kernels overlapping on the compute lane
 * (they cannot nest on one thread).  scale stretches the times.
 */
static struct hd_trace *
fixture_trace(hd_time scale)
{
	struct hd_trace *t = hd_trace_new();
	int api = hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	int st = hd_trace_lane(t, HD_LANE_STREAM, 0, 1, "Stream 13 (s1)");
	int ce = hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "Memcpy HtoD");
	int sm = hd_trace_lane(t, HD_LANE_COMPUTE, 0, 0, "Compute, \"SMs\"");

	span(t, api, 0, 0, HD_SPAN_API, 0, 5000 * scale, "cudaMemcpyAsync");
	span(t, ce, 0, 0, HD_SPAN_COPY, 1000 * scale, 40000 * scale, "up");
	span(t, st, 0, 0, HD_SPAN_COPY, 1000 * scale, 40000 * scale, "up");
	span(t, api, 1, 0, HD_SPAN_API, 6000 * scale, 9000 * scale, "cudaLaunchKernel");
	span(t, st, 1, 0, HD_SPAN_KERNEL, 40000 * scale, 70000 * scale, NASTY_LABEL);
	span(t, sm, 1, 0, HD_SPAN_KERNEL, 40000 * scale, 70000 * scale, NASTY_LABEL);
	span(t, sm, 2, 0, HD_SPAN_KERNEL, 50000 * scale, 90000 * scale, "other");
	span(t, api, 3, 0, HD_SPAN_API, 10000 * scale, 95000 * scale, "cudaStreamSynchronize");
	span(t, api, 3, 0, HD_SPAN_BLOCKED, 10500 * scale, 94000 * scale, "cudaStreamSynchronize");
	return t;
}

static void
add_answer(struct hd_store *s, const char *learner, const char *lesson, const char *q,
	   const char *answer, int correct, int confidence, double seconds, int hints)
{
	struct hd_err e = { 0 };
	struct hd_store_progress p = { .learner = learner,
				       .lesson = lesson,
				       .question = q,
				       .answer = answer,
				       .correct = correct,
				       .confidence = confidence,
				       .seconds = seconds,
				       .hints = hints };

	need(hd_store_progress_add(s, &p, NULL, &e) == 0, "progress_add", &e);
}

/* One attempt, with the lesson as answered (snap may be NULL) and whether
 * the run had been shown. */
static void
add_attempt(struct hd_store *s, const char *learner, const struct hd_store_snapshot *snap,
	    const char *lesson, const char *q, const char *answer, int correct, int confidence,
	    int hints, int seen)
{
	struct hd_err e = { 0 };
	struct hd_store_progress p = { .learner = learner,
				       .lesson = lesson,
				       .question = q,
				       .answer = answer,
				       .correct = correct,
				       .confidence = confidence,
				       .seconds = 0,
				       .hints = hints,
				       .seen = seen,
				       .snapshot = snap };

	need(hd_store_progress_add(s, &p, NULL, &e) == 0, "progress_add", &e);
}

/* Lines of text holding word. */
static int
count_lines(const char *text, const char *word)
{
	const char *line = text;
	int n = 0;

	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
		char *copy = hd_xstrndup(line, len);

		n += strstr(copy, word) != NULL;
		free(copy);
		line = end != NULL ? end + 1 : NULL;
	}
	return n;
}

/* The fixture database: a predicted and a measured run paired, with claims
 * (the measured one with its five repeats), a second lesson with a
 * prediction only, and answers. */
static void
make_db(const char *path)
{
	struct hd_err e = { 0 };
	struct hd_store *s = hd_store_open(path, HD_STORE_RW, &e);
	struct hd_trace *p = fixture_trace(1000), *m = fixture_trace(1100);
	struct hd_store_machine mach = { .hostname = "node, 1",
					 .gpu_name = "NVIDIA H100 80GB HBM3",
					 .driver = "550.54",
					 .cuda_runtime = "12.4",
					 .gpu_count = 1 };
	struct hd_store_claim claims[2] = {
		{ 0, "copies, \"pinned\", are faster", "time(up) < 1s", 1, 1e-3, 1.0, "holds" },
		{ 1, "the sync blocks", "blocked(api) > 1s", 0, 1e-4, 1.0, "fails: a, b" },
	};
	struct hd_store_run r = { .lesson = NASTY_LESSON,
				  .scenario = "pinned",
				  .backend = "sim",
				  .source = "predicted",
				  .profile_name = "h100-sxm",
				  .profile_text = "hdsim-profile 1\n",
				  .status = "ok",
				  .params_json = "{\"size\": 1048576}",
				  .timer = "model",
				  .repeats = 1 };
	/* the measured run's five repeats, its makespan (104.5 us) the median */
	static const hd_time reps[] = { 106 * HD_US, 101 * HD_US, 104500 * HD_NS, 111 * HD_US,
					102 * HD_US };
	int64_t pid;

	need(s != NULL, "open", &e);
	need(hd_store_run_insert(s, &r, p, claims, 2, &pid, &e) == 0, "insert", &e);
	r.backend = "cuda";
	r.source = "measured";
	r.machine = &mach;
	r.pair_run = pid;
	r.timer = "cuda-events";
	r.repeats = 5;
	r.rep_makespan = reps;
	r.nrep = 5;
	claims[1].outcome = 1;
	need(hd_store_run_insert(s, &r, m, claims, 2, NULL, &e) == 0, "insert", &e);
	r.rep_makespan = NULL;
	r.nrep = 0;
	r.lesson = "two-streams";
	r.scenario = "overlap";
	r.backend = "sim";
	r.source = "predicted";
	r.machine = NULL;
	r.pair_run = 0;
	need(hd_store_run_insert(s, &r, p, NULL, 0, NULL, &e) == 0, "insert", &e);
	add_answer(s, "ada", "pinned-vs-pageable", "q1", NASTY_ANSWER, 1, 4, 12.5, 0);
	add_answer(s, "ada", "pinned-vs-pageable", "q2", "b", 0, 5, 3, 1);
	hd_trace_free(p);
	hd_trace_free(m);
	hd_store_close(s);
}

/* ---- an RFC 4180 reader ---------------------------------------------------- */

struct csv {
	char ***rows; /* rows[i][j], NULL-terminated per row */
	int *ncols;
	int nrows;
};

/* Parse text; -1 on a malformed quote. */
static int
csv_parse(const char *s, struct csv *c)
{
	struct hd_buf f;
	char **row = NULL;
	int n = 0;

	memset(c, 0, sizeof *c);
	hd_buf_init(&f);
	while (*s != '\0') {
		hd_buf_init(&f);
		hd_buf_putn(&f, "", 0);
		if (*s == '"') {
			for (s++;; s++) {
				if (*s == '\0')
					return -1;
				if (*s == '"' && s[1] == '"')
					hd_buf_putc(&f, *s++);
				else if (*s == '"')
					break;
				else
					hd_buf_putc(&f, *s);
			}
			s++;
			if (*s != ',' && *s != '\r' && *s != '\n' && *s != '\0')
				return -1;
		} else {
			for (; *s != ',' && *s != '\r' && *s != '\n' && *s != '\0'; s++) {
				if (*s == '"')
					return -1; /* a quote in an unquoted field */
				hd_buf_putc(&f, *s);
			}
		}
		row = hd_xrealloc(row, sizeof *row * (size_t)(n + 2));
		row[n++] = f.s ? f.s : hd_xstrdup("");
		row[n] = NULL;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\r')
			s++;
		if (*s == '\n')
			s++;
		c->rows = hd_xrealloc(c->rows, sizeof *c->rows * (size_t)(c->nrows + 1));
		c->ncols = hd_xrealloc(c->ncols, sizeof *c->ncols * (size_t)(c->nrows + 1));
		c->rows[c->nrows] = row;
		c->ncols[c->nrows++] = n;
		row = NULL;
		n = 0;
	}
	return 0;
}

static void
csv_free(struct csv *c)
{
	int i, j;

	for (i = 0; i < c->nrows; i++) {
		for (j = 0; j < c->ncols[i]; j++)
			free(c->rows[i][j]);
		free(c->rows[i]);
	}
	free(c->rows);
	free(c->ncols);
}

/* Column index of name in the header row, or -1. */
static int
col(const struct csv *c, const char *name)
{
	int j;

	for (j = 0; j < c->ncols[0]; j++)
		if (strcmp(c->rows[0][j], name) == 0)
			return j;
	return -1;
}

/* ---- a JSON validator (recursive descent) ----------------------------------- */

/* ---- helpers ---------------------------------------------------------------- */

static void
load(struct hd_export_set *set, const char *db)
{
	struct hd_export_select sel = { .answers = true };
	struct hd_err e = { 0 };

	hd_export_set_init(set);
	if (hd_export_load(set, db, &sel, &e) < 0)
		ck_abort_msg("load: %s", e.msg);
}

static char *
write_mem(const struct hd_export_set *set, enum hd_export_format f, enum hd_export_table t)
{
	struct hd_exw w;

	hd_exw_init(&w, NULL);
	hd_export_write(set, f, t, &w);
	return hd_buf_take(&w.b);
}

static char *
write_table(const struct hd_export_set *set, enum hd_export_table t)
{
	return write_mem(set, HD_EXPORT_CSV, t);
}

/* ---- tests ---------------------------------------------------------------- */

START_TEST(csv_reads_back)
{
	char *db = path_in("a.db"), *text;
	struct hd_export_set set;
	struct csv c;
	int i, lesson, label, answer, n = 0;

	make_db(db);
	load(&set, db);
	ck_assert_uint_eq(set.nruns, 3);
	ck_assert_uint_eq(set.nanswers, 2);

	text = write_table(&set, HD_EXPORT_RUNS);
	ck_assert_int_eq(csv_parse(text, &c), 0);
	ck_assert_int_eq(c.nrows, 4);
	ck_assert_int_ge(lesson = col(&c, "lesson"), 0);
	for (i = 1; i < c.nrows; i++)
		ck_assert_int_eq(c.ncols[i], c.ncols[0]);
	ck_assert_str_eq(c.rows[1][lesson], NASTY_LESSON);
	ck_assert_str_eq(c.rows[2][col(&c, "hostname")], "node, 1");
	ck_assert_str_eq(c.rows[2][col(&c, "pair_run")], "1");
	ck_assert_str_eq(c.rows[2][col(&c, "source")], "measured");
	ck_assert_str_eq(c.rows[1][col(&c, "params")], "{\"size\": 1048576}");
	csv_free(&c);
	free(text);

	text = write_table(&set, HD_EXPORT_SPANS);
	ck_assert_int_eq(csv_parse(text, &c), 0);
	ck_assert_int_eq(c.nrows, 1 + 3 * 9);
	label = col(&c, "label");
	for (i = 1; i < c.nrows; i++) {
		ck_assert_int_eq(c.ncols[i], c.ncols[0]);
		n += strcmp(c.rows[i][label], NASTY_LABEL) == 0;
	}
	ck_assert_int_eq(n, 3 * 2);
	ck_assert_str_eq(c.rows[1][col(&c, "lane_name")], "CUDA API");
	ck_assert_str_eq(c.rows[1][col(&c, "end_ps")], "5000000");
	csv_free(&c);
	free(text);

	text = write_table(&set, HD_EXPORT_CLAIMS);
	ck_assert_int_eq(csv_parse(text, &c), 0);
	ck_assert_int_eq(c.nrows, 5);
	ck_assert_str_eq(c.rows[1][col(&c, "text")], "copies, \"pinned\", are faster");
	ck_assert_str_eq(c.rows[2][col(&c, "outcome")], "fails");
	ck_assert_str_eq(c.rows[4][col(&c, "outcome")], "holds");
	ck_assert_str_eq(c.rows[2][col(&c, "detail")], "fails: a, b");
	csv_free(&c);
	free(text);

	text = write_table(&set, HD_EXPORT_PROGRESS);
	ck_assert_int_eq(csv_parse(text, &c), 0);
	ck_assert_int_eq(c.nrows, 3);
	answer = col(&c, "answer");
	ck_assert_str_eq(c.rows[1][answer], NASTY_ANSWER);
	ck_assert_str_eq(c.rows[1][col(&c, "result")], "right");
	ck_assert_str_eq(c.rows[2][col(&c, "confidence")], "5");
	csv_free(&c);
	free(text);
	hd_export_set_free(&set);
	free(db);
}
END_TEST

START_TEST(csv_field_quoting)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain" },
		{ "", "" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "cr\r", "\"cr\r\"" },
		{ " lead", "\" lead\"" },
		{ "bad\xff", "bad\xef\xbf\xbd" },
		/* formulas a spreadsheet would run are made text */
		{ "=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\"" },
		{ "+1", "'+1" },
		{ "-2", "'-2" },
		{ "@SUM(A1)", "'@SUM(A1)" },
		{ "\tx", "'\tx" },
		{ "a=b", "a=b" },
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(cases); i++) {
		struct hd_exw w;

		hd_exw_init(&w, NULL);
		hd_exw_csv(&w, cases[i].in);
		hd_exw_putc(&w, '\0');
		ck_assert_str_eq(w.b.s, cases[i].out);
		hd_exw_free(&w);
	}
}
END_TEST

START_TEST(times_in_microseconds)
{
	static const struct {
		hd_time ps;
		const char *us;
	} cases[] = {
		{ 0, "0.000" },       { 999, "0.000" },
		{ 1000, "0.001" },    { 1234567891, "1234.567" },
		{ 5000000, "5.000" }, { -1, "-0.001" },
	};
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(cases); i++) {
		struct hd_exw w;

		hd_exw_init(&w, NULL);
		hd_exw_us(&w, cases[i].ps);
		hd_exw_putc(&w, '\0');
		ck_assert_str_eq(w.b.s, cases[i].us);
		hd_exw_free(&w);
	}
}
END_TEST

START_TEST(json_documents_parse)
{
	char *db = path_in("a.db"), *text;
	struct hd_export_set set;

	make_db(db);
	load(&set, db);
	text = write_mem(&set, HD_EXPORT_JSON, 0);
	ck_assert_msg(hd_test_json_valid(text), "the JSON export does not parse");
	ck_assert_ptr_nonnull(strstr(text, "\"lesson\":\"comma, \\\"quoted\\\"\\nand <b>&amp;\""));
	ck_assert_ptr_nonnull(strstr(text, "\"answer\":\"yes, \\\"really\\\"\\nsure\""));
	free(text);
	/* the validator itself refuses what it must */
	ck_assert(!hd_test_json_valid("{\"a\":1,}"));
	ck_assert(!hd_test_json_valid("[\"raw\ncontrol\"]"));
	ck_assert(!hd_test_json_valid("{\"a\" 1}"));
	ck_assert(!hd_test_json_valid("[01]"));
	ck_assert(hd_test_json_valid("{\"a\":[1,-2.5e3,true,null,\"\\u00e9\"]}"));

	text = write_mem(&set, HD_EXPORT_PERFETTO, 0);
	ck_assert_msg(hd_test_json_valid(text), "the Perfetto export does not parse");
	free(text);
	hd_export_set_free(&set);
	free(db);
}
END_TEST

START_TEST(perfetto_threads_and_flows)
{
	char *db = path_in("a.db"), *text, *p;
	struct hd_export_set set;
	int s = 0, f = 0;

	make_db(db);
	load(&set, db);
	text = write_mem(&set, HD_EXPORT_PERFETTO, 0);
	/* predicted and measured are processes of their own */
	ck_assert_ptr_nonnull(strstr(text, ": predicted (run 1)"));
	ck_assert_ptr_nonnull(strstr(text, ": measured (run 2)"));
	/* the overlapping kernel gets a second compute thread */
	ck_assert_ptr_nonnull(strstr(text, "\"name\":\"Compute, \\\"SMs\\\" (2)\""));
	ck_assert_ptr_nonnull(strstr(text, "\"name\":\"thread_sort_index\""));
	/* the blocked part carries why */
	ck_assert_ptr_nonnull(strstr(text, "\"why\":\"stream-sync\""));
	ck_assert_ptr_nonnull(strstr(text, "\"name\":\"blocked: stream-sync\""));
	/* microseconds: the predicted sync call ends at 95 us */
	ck_assert_ptr_nonnull(strstr(text, "\"ts\":10.000,\"dur\":85.000"));
	/* one flow start and one finish per launch: the memcpy's and the
	 * kernel launch's (the sync of op 3 starts no GPU work), in 3 runs */
	for (p = text; (p = strstr(p, "\"ph\":\"s\"")) != NULL; p++)
		s++;
	for (p = text; (p = strstr(p, "\"ph\":\"f\",\"bp\":\"e\"")) != NULL; p++)
		f++;
	ck_assert_int_eq(s, 3 * 2);
	ck_assert_int_eq(f, s);
	free(text);
	hd_export_set_free(&set);
	free(db);
}
END_TEST

static int
count(const char *text, const char *what)
{
	int n = 0;

	for (; (text = strstr(text, what)) != NULL; text++)
		n++;
	return n;
}

START_TEST(perfetto_ranks_are_processes)
{
	struct hd_export_set set;
	struct hd_store_run_info info;
	struct hd_trace *t = hd_trace_new();
	int a0 = hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	int a1 = hd_trace_lane(t, HD_LANE_API, 1, 0, "CUDA API");
	int l1 = hd_trace_lane(t, HD_LANE_LINK, 1, 0, "NVLink 0");
	char *text;

	span(t, a0, 0, 0, HD_SPAN_API, 0, 1000, "ncclAllReduce");
	span(t, a1, 0, 0, HD_SPAN_API, 0, 1000, "ncclAllReduce");
	span(t, l1, 0, 0, HD_SPAN_COMM, 100, 900, "allreduce");
	memset(&info, 0, sizeof info);
	info.id = 7;
	info.lesson = hd_xstrdup("collectives");
	info.scenario = hd_xstrdup("ring");
	info.source = hd_xstrdup("predicted");
	hd_export_set_init(&set);
	hd_export_add_run(&set, NULL, &info, t);
	text = write_mem(&set, HD_EXPORT_PERFETTO, 0);
	ck_assert(hd_test_json_valid(text));
	ck_assert_ptr_nonnull(strstr(text,
				     "\"collectives / ring: predicted (run 7, simulated now) "
				     "rank 0\""));
	ck_assert_ptr_nonnull(strstr(text,
				     "\"collectives / ring: predicted (run 7, simulated now) "
				     "rank 1\""));
	/* rank 1's API call is a slice of process 2 */
	ck_assert_ptr_nonnull(strstr(text, "{\"ph\":\"X\",\"pid\":2,"));
	free(text);
	hd_export_set_free(&set);
}
END_TEST

START_TEST(svg_and_reports_escape_names)
{
	char *db = path_in("a.db"), *text;
	struct hd_export_set set;

	make_db(db);
	load(&set, db);
	text = write_mem(&set, HD_EXPORT_SVG, 0);
	ck_assert_ptr_nonnull(strstr(text, "<?xml"));
	ck_assert_ptr_null(strstr(text, "<b>"));
	ck_assert_ptr_nonnull(strstr(text, "&lt;b&gt;&amp;amp;"));
	ck_assert_ptr_nonnull(strstr(text, "predicted (top) and measured (bottom)"));
	ck_assert_ptr_nonnull(strstr(text, "predicted vs measured makespan"));
	free(text);

	text = write_mem(&set, HD_EXPORT_HTML, 0);
	ck_assert_ptr_nonnull(strstr(text, "<!DOCTYPE html>"));
	ck_assert_ptr_null(strstr(text, "<b>"));
	ck_assert_ptr_null(strstr(text, "<script"));
	ck_assert_int_eq(count(text, "http"), count(text, "http://www.w3.org/2000/svg"));
	ck_assert_ptr_nonnull(strstr(text, "NVIDIA H100 80GB HBM3"));
	ck_assert_ptr_nonnull(strstr(text, "<td class=\"ok\">verified</td>"));
	ck_assert_ptr_nonnull(strstr(text, "<td class=\"bad\">does not hold</td>"));
	/* the per-op table: the copy took 39 us predicted, 42.9 us measured */
	ck_assert_ptr_nonnull(strstr(text, "39.0 us"));
	ck_assert_ptr_nonnull(strstr(text, "42.9 us"));
	ck_assert_ptr_nonnull(strstr(text, "-9.1 %"));
	free(text);

	text = write_mem(&set, HD_EXPORT_MD, 0);
	ck_assert_ptr_nonnull(strstr(text, "# hdsim report"));
	ck_assert_ptr_nonnull(strstr(text, "| verified |"));
	ck_assert_ptr_nonnull(strstr(text, "-9.1 %"));
	ck_assert_ptr_nonnull(strstr(text, "\\<b>"));
	ck_assert_ptr_nonnull(strstr(text, "Timeline, measured (run 2):\n\n~~~~\nCUDA API"));
	ck_assert_ptr_null(strstr(text, "k,1 \"x\"\r\n"));
	free(text);
	hd_export_set_free(&set);
	free(db);
}
END_TEST

/* A measured run's repeats in every export: the band under its makespan in
 * the report, a bar across its point on the scatter, whether the prediction
 * falls inside; every repeat in the CSV and JSON tables. */
START_TEST(reports_show_the_band)
{
	char *db = path_in("a.db"), *text;
	struct hd_export_set set;
	struct csv c;

	make_db(db);
	load(&set, db);
	ck_assert_int_eq(set.runs[1].info.reps.n, 5);

	text = write_mem(&set, HD_EXPORT_HTML, 0);
	ck_assert_msg(strstr(text,
			     "<p>Measured over 5 repeats: 104 us (band 101-111 us, 5 "
			     "repeats), median 104 us, IQR 4.00 us; the prediction is "
			     "outside the band.</p>") != NULL,
		      "%s", text);
	ck_assert_int_eq(count(text, "<path class=\"bar\""), 1);
	ck_assert_ptr_nonnull(strstr(text, "the bar across a point: the measured repeats"));
	ck_assert_ptr_nonnull(strstr(text,
				     "measured 104 us (band 101-111 us, 5 repeats), error "
				     "-9.1 %; the prediction is outside the band</title>"));
	ck_assert_ptr_nonnull(strstr(text, "<li>0 of 1 inside the measured band"));
	ck_assert_ptr_nonnull(strstr(text, "<td class=\"num\">101-111 us (5 repeats)</td>"));
	/* hostile names still escaped beside the band */
	ck_assert_ptr_null(strstr(text, "<b>"));
	free(text);

	text = write_mem(&set, HD_EXPORT_MD, 0);
	ck_assert_ptr_nonnull(strstr(text,
				     "Measured over 5 repeats: 104 us (band 101-111 us, 5 "
				     "repeats), median 104 us, IQR 4.00 us; the prediction "
				     "is outside the band."));
	ck_assert_ptr_nonnull(
	    strstr(text, "| 101-111 us (5 repeats) | 95.0 us | -9.1 % | outside |"));
	ck_assert_ptr_nonnull(strstr(text, "- 0 of 1 inside the measured band"));
	free(text);

	text = write_table(&set, HD_EXPORT_RUNS);
	ck_assert_int_eq(csv_parse(text, &c), 0);
	ck_assert_str_eq(c.rows[2][col(&c, "repeat_makespans_ps")],
			 "106000000 101000000 104500000 111000000 102000000");
	ck_assert_str_eq(c.rows[2][col(&c, "repeat_bare_ps")], "");
	ck_assert_str_eq(c.rows[2][col(&c, "band_min_ps")], "101000000");
	ck_assert_str_eq(c.rows[2][col(&c, "band_median_ps")], "104500000");
	ck_assert_str_eq(c.rows[2][col(&c, "band_max_ps")], "111000000");
	ck_assert_str_eq(c.rows[2][col(&c, "band_iqr_ps")], "4000000");
	/* the model's runs have none */
	ck_assert_str_eq(c.rows[1][col(&c, "repeat_makespans_ps")], "");
	ck_assert_str_eq(c.rows[1][col(&c, "band_min_ps")], "");
	ck_assert_int_eq(c.ncols[1], c.ncols[0]);
	ck_assert_int_eq(c.ncols[2], c.ncols[0]);
	csv_free(&c);
	free(text);

	text = write_mem(&set, HD_EXPORT_JSON, 0);
	ck_assert(hd_test_json_valid(text));
	ck_assert_ptr_nonnull(strstr(text,
				     "\"repeat_makespans_ps\":[106000000,101000000,104500000,"
				     "111000000,102000000],\"repeat_bare_ps\":null,"
				     "\"band_min_ps\":101000000,\"band_median_ps\":104500000,"
				     "\"band_max_ps\":111000000,\"band_iqr_ps\":4000000"));
	ck_assert_ptr_nonnull(strstr(text,
				     "\"repeat_makespans_ps\":null,\"repeat_bare_ps\":null,"
				     "\"band_min_ps\":null"));
	free(text);
	hd_export_set_free(&set);
	free(db);
}
END_TEST

/* Run `hdsim ARGS` through the command with captured output; returns the
 * status. */
static int
run_cli(const char *const *args, int n, char **err_text)
{
	char *argv[32];
	struct hd_cli_opts o;
	struct hd_catalog *cat = hd_catalog_new();
	struct hd_profile prof;
	struct hd_err e = { 0 };
	FILE *out = tmpfile(), *err = tmpfile();
	long len;
	int i, rc;

	argv[0] = (char *)"hdsim";
	for (i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	ck_assert_int_eq(hd_cli_parse(n + 1, argv, &o, stderr), 0);
	ck_assert_int_eq(hd_profile_resolve(NULL, &prof, &e), 0);
	hd_catalog_add_builtin(cat);
	rc = hd_cmd_export(&o, o.args + 1, o.nargs - 1, cat, &prof, out, err);
	len = ftell(err);
	rewind(err);
	*err_text = hd_xcalloc((size_t)len + 1, 1);
	ck_assert_int_eq(fread(*err_text, 1, (size_t)len, err), (size_t)len);
	fclose(out);
	fclose(err);
	hd_cli_opts_free(&o);
	hd_catalog_free(cat);
	return rc;
}

static bool
exists(const char *p)
{
	return access(p, F_OK) == 0;
}

static void
write_bytes(const char *path, const char *bytes, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

START_TEST(bad_input_writes_nothing)
{
	char *db = path_in("a.db"), *out = path_in("out.json"), *missing = path_in("none.db");
	char *foreign = path_in("foreign.db"), *newer = path_in("newer.db");
	char *junk = path_in("junk.db"), *crafted = path_in("crafted.db"), *msg;
	sqlite3 *q;
	char buf[4096];
	const struct {
		const char *args[12]; /* up to the first NULL */
		const char *says;
	} cases[] = {
		{ { "export", "--format", "pdf", "--db", db, "-o", out },
		  "unknown export format 'pdf'" },
		{ { "export", "--format", "json", "--db", db, "--run", "99", "-o", out },
		  "no run 99" },
		{ { "export", "--format", "json", "--db", db, "--run", "x1", "-o", out },
		  "a run id is a whole number" },
		{ { "export", "--format", "json", "--db", missing, "-o", out },
		  "no such database" },
		{ { "export", "--format", "json", "--db", foreign, "-o", out },
		  "not an hdsim database" },
		{ { "export", "--format", "json", "--db", newer, "-o", out },
		  "newer than this hdsim" },
		{ { "export", "--format", "json", "--db", junk, "-o", out }, "failed" },
		{ { "export", "--format", "json", "--db", db, "--db", junk, "-o", out }, "failed" },
		{ { "export", "--format", "json", "--lesson", "no-such-lesson", "--db", db, "-o",
		    out },
		  "no lesson 'no-such-lesson'" },
		{ { "export", "--format", "json", "--all", "--run", "1", "--db", db },
		  "give one of them" },
		{ { "export", "--format", "html", "--table", "runs", "--db", db },
		  "--table goes with --format csv" },
		{ { "export", "--class", "-o", out }, "name the learners' databases" },
		/* a measured run's repeat out of range, in a crafted file */
		{ { "export", "--format", "html", "--db", crafted, "-o", out },
		  "run 2, repeat 3: makespan_ps is '-5', not an integer from 0 to" },
	};
	size_t i;

	make_db(db);
	/* another program's SQLite file, one from a newer hdsim, and junk */
	ck_assert_int_eq(sqlite3_open(foreign, &q), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(q, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(q);
	ck_assert_int_eq(sqlite3_open(newer, &q), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(q,
				      "CREATE TABLE t(x); PRAGMA application_id = 1751413609;"
				      " PRAGMA user_version = 99",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(q);
	memset(buf, 0x5a, sizeof buf);
	memcpy(buf, "SQLite format 3", 16);
	write_bytes(junk, buf, sizeof buf);
	make_db(crafted);
	ck_assert_int_eq(sqlite3_open(crafted, &q), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(q,
				      "PRAGMA ignore_check_constraints = 1;"
				      " UPDATE run_repeats SET makespan_ps = -5 WHERE repeat = 3",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(q);

	for (i = 0; i < HD_ARRAY_LEN(cases); i++) {
		int n = 0, rc;

		while (n < 12 && cases[i].args[n] != NULL)
			n++;
		rc = run_cli(cases[i].args, n, &msg);

		ck_assert_msg(rc == HD_EXIT_INPUT, "case %zu: status %d, message %s", i, rc, msg);
		ck_assert_msg(strstr(msg, cases[i].says) != NULL, "case %zu says: %s", i, msg);
		ck_assert_msg(!exists(out), "case %zu left %s", i, out);
		free(msg);
	}
	/* and nothing else was left in the folder: no temporary files */
	{
		char cmd[256];

		snprintf(cmd, sizeof cmd, "test $(ls '%s' | grep -c tmp) -eq 0", dir);
		ck_assert_int_eq(system(cmd), 0);
	}
	/* the good line writes the file */
	{
		const char *args[] = { "export", "--format", "json", "--db", db, "-o", out };

		ck_assert_int_eq(run_cli(args, 7, &msg), 0);
		free(msg);
		ck_assert(exists(out));
	}
	free(db);
	free(out);
	free(missing);
	free(foreign);
	free(newer);
	free(junk);
	free(crafted);
}
END_TEST

START_TEST(run_selects_its_pair)
{
	char *db = path_in("a.db");
	struct hd_export_set set;
	struct hd_export_select sel = { .run = 2 };
	struct hd_export_group *g;
	struct hd_err e = { 0 };

	make_db(db);
	hd_export_set_init(&set);
	ck_assert_int_eq(hd_export_load(&set, db, &sel, &e), 2);
	ck_assert_uint_eq(set.nruns, 2);
	ck_assert_int_eq(set.runs[0].info.id, 1);
	ck_assert_int_eq(set.runs[1].info.id, 2);
	ck_assert_uint_eq(hd_export_groups(&set, &g), 1);
	ck_assert_ptr_eq(g[0].pred, &set.runs[0]);
	ck_assert_ptr_eq(g[0].meas, &set.runs[1]);
	free(g);
	hd_export_set_free(&set);
	/* the store's reader: machine, pair and claims back; no run 999 */
	{
		struct hd_store *st = hd_store_open(db, HD_STORE_RO, &e);
		struct hd_store_run_info ri;

		ck_assert_ptr_nonnull(st);
		ck_assert_int_eq(hd_store_run_info(st, 2, &ri, &e), 0);
		ck_assert_int_eq(ri.pair_run, 1);
		ck_assert(ri.has_machine);
		ck_assert_str_eq(ri.machine.gpu_name, "NVIDIA H100 80GB HBM3");
		ck_assert_int_eq(ri.nclaims, 2);
		ck_assert_int_eq(ri.claims[1].outcome, 1);
		ck_assert_str_eq(ri.claims[1].detail, "fails: a, b");
		ck_assert_int_eq(ri.repeats, 5);
		ck_assert_str_eq(ri.timer, "cuda-events");
		hd_store_run_info_free(&ri);
		ck_assert_int_eq(hd_store_run_info(st, 999, &ri, &e), -1);
		ck_assert_ptr_nonnull(strstr(e.msg, "no run 999"));
		hd_store_run_info_free(NULL);
		hd_store_close(st);
	}
	free(db);
}
END_TEST

START_TEST(lesson_without_runs_is_simulated)
{
	struct hd_catalog *cat = hd_catalog_new();
	struct hd_export_set set;
	struct hd_profile prof;
	struct hd_err e = { 0 };
	char *text;
	size_t i;
	int claims = 0;

	hd_catalog_add_builtin(cat);
	ck_assert_int_eq(hd_profile_resolve(NULL, &prof, &e), 0);
	hd_export_set_init(&set);
	ck_assert_int_eq(hd_export_simulate(&set, hd_catalog_get(cat, 0), &prof, &e), 0);
	ck_assert_uint_ge(set.nruns, 1);
	for (i = 0; i < set.nruns; i++) {
		ck_assert_ptr_null(set.runs[i].db);
		ck_assert_str_eq(set.runs[i].info.source, "predicted");
		ck_assert_uint_gt(set.runs[i].trace->nspans, 0);
		claims += set.runs[i].info.nclaims;
	}
	ck_assert_int_eq(claims, hd_lesson_nclaims(hd_catalog_get(cat, 0)));
	text = write_mem(&set, HD_EXPORT_PERFETTO, 0);
	ck_assert(hd_test_json_valid(text));
	ck_assert_ptr_nonnull(strstr(text, "simulated now"));
	free(text);
	hd_export_set_free(&set);
	hd_catalog_free(cat);
}
END_TEST

/* Set every answer's time in a database (the store stamps "now"). */
static void
stamp(const char *db, const char *when)
{
	sqlite3 *q;
	char sql[128];

	snprintf(sql, sizeof sql, "UPDATE progress SET created = '%s'", when);
	ck_assert_int_eq(sqlite3_open(db, &q), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(q, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(q);
}

START_TEST(class_merges_two_databases)
{
	char *d1 = path_in("alice.db"), *d2 = path_in("bob.db"), *out = path_in("class");
	char *p, *msg, *text;
	struct hd_err e = { 0 };
	struct hd_store *s;
	struct csv c;
	size_t len;
	int i;

	s = hd_store_open(d1, HD_STORE_RW, &e);
	add_answer(s, "alice", "pinned-vs-pageable", "q1", "a", 0, 5, 10, 0);
	add_answer(s, "alice", "pinned-vs-pageable", "q2", "faster, \"much\"", 1, 3, 20.5, 2);
	hd_store_close(s);
	stamp(d1, "2026-11-20T10:00:00Z");
	s = hd_store_open(d2, HD_STORE_RW, &e);
	add_answer(s, "bob", "pinned-vs-pageable", "q1", "b", 1, 0, 7.25, 1);
	add_answer(s, "bob", "two-streams", "q1", "c", 0, 2, 30, 0);
	/* alice again, later, on bob's machine, having seen the run: kept, but
	 * her first answer is the grade */
	add_attempt(s, "alice", NULL, "pinned-vs-pageable", "q1", "b", 1, 4, 0, 1);
	hd_store_close(s);
	stamp(d2, "2026-11-21T09:00:00Z");
	{
		const char *args[] = { "export", "--class", d1, d2, "-o", out };

		ck_assert_int_eq(run_cli(args, 6, &msg), 0);
		/* answers older than the lesson kept with them: said so */
		ck_assert_ptr_nonnull(strstr(msg, "stored before hdsim kept the lesson"));
		free(msg);
	}

	p = hd_xasprintf("%s/answers.csv", out);
	text = hd_read_file(p, &len, &e);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(csv_parse(text, &c), 0);
	ck_assert_int_eq(c.nrows, 6);
	{
		const char *want[6][19] = {
			{ "learner", "lesson", "question", "attempt", "attempts", "answer",
			  "result", "correct", "confidence", "seconds", "hints", "seen", "graded",
			  "grade_policy", "points", "lesson_version", "answered_at", "database",
			  "comments" },
			{ "alice", "pinned-vs-pageable", "q1", "1", "2", "a", "wrong", "0", "5",
			  "10", "0", "no", "yes", "first", "1", "", "2026-11-20T10:00:00Z", d1,
			  "" },
			{ "alice", "pinned-vs-pageable", "q1", "2", "2", "b", "right", "1", "4",
			  "0", "0", "yes", "", "first", "1", "", "2026-11-21T09:00:00Z", d2, "" },
			{ "alice", "pinned-vs-pageable", "q2", "1", "1", "faster, \"much\"",
			  "right", "1", "3", "20.5", "2", "no", "yes", "first", "1", "",
			  "2026-11-20T10:00:00Z", d1, "" },
			{ "bob", "pinned-vs-pageable", "q1", "1", "1", "b", "right", "1", "",
			  "7.25", "1", "no", "yes", "first", "1", "", "2026-11-21T09:00:00Z", d2,
			  "" },
			{ "bob", "two-streams", "q1", "1", "1", "c", "wrong", "0", "2", "30", "0",
			  "no", "yes", "first", "1", "", "2026-11-21T09:00:00Z", d2, "" },
		};
		int j;

		for (i = 0; i < 6; i++) {
			ck_assert_int_eq(c.ncols[i], 19);
			for (j = 0; j < 19; j++)
				ck_assert_msg(strcmp(c.rows[i][j], want[i][j]) == 0,
					      "answers.csv row %d column %d: '%s', not '%s'", i, j,
					      c.rows[i][j], want[i][j]);
		}
	}
	csv_free(&c);
	free(text);
	free(p);

	p = hd_xasprintf("%s/gradebook.csv", out);
	text = hd_read_file(p, &len, &e);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(csv_parse(text, &c), 0);
	ck_assert_int_eq(c.nrows, 4);
	{
		const char *want[4][7] = {
			{ "Student", "ID", "SIS User ID", "SIS Login ID", "Section",
			  "hdsim pinned-vs-pageable (grade: first)",
			  "hdsim two-streams (grade: first)" },
			{ "Points Possible", "", "", "", "", "", "" },
			{ "alice", "", "", "alice", "", "1", "" },
			{ "bob", "", "", "bob", "", "1", "0" },
		};
		int j;
		struct hd_catalog *cat = hd_catalog_new();
		int idx;
		char pts[2][16];

		/* points possible of answers stored without their lesson: the
		 * installed lesson's (else the most questions a learner answered) */
		hd_catalog_add_builtin(cat);
		idx = hd_catalog_find(cat, "pinned-vs-pageable", &e);
		snprintf(pts[0], sizeof pts[0], "%d",
			 idx >= 0 ? hd_lesson_points(hd_catalog_get(cat, idx)) : 2);
		idx = hd_catalog_find(cat, "two-streams", &e);
		snprintf(pts[1], sizeof pts[1], "%d",
			 idx >= 0 ? hd_lesson_points(hd_catalog_get(cat, idx)) : 1);
		want[1][5] = pts[0];
		want[1][6] = pts[1];
		for (i = 0; i < 4; i++) {
			ck_assert_int_eq(c.ncols[i], 7);
			for (j = 0; j < 7; j++)
				ck_assert_msg(strcmp(c.rows[i][j], want[i][j]) == 0,
					      "gradebook.csv row %d column %d: '%s', not '%s'", i,
					      j, c.rows[i][j], want[i][j]);
		}
		hd_catalog_free(cat);
	}
	csv_free(&c);
	free(text);
	free(p);

	p = hd_xasprintf("%s/class.html", out);
	text = hd_read_file(p, &len, &e);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "2 learners, 2 lessons, 5 attempts at 4 questions"));
	ck_assert_ptr_nonnull(strstr(text, "<td>alice</td>"));
	/* alice answered again after the run, wrong first and right later */
	ck_assert_ptr_nonnull(
	    strstr(text, "Answered again: 1 learner; wrong first, right later: 1"));
	free(text);
	free(p);
	free(d1);
	free(d2);
	free(out);
}
END_TEST

/* A lesson of two questions worth 3 and 2 points, with a misconception. */
#define GRADED_LESSON \
	"hdsim 1\nlesson graded\ntitle \"Graded copies\"\n" \
	"question q1 choice \"Which copy finishes first?\"\n" \
	"  option a \"The pinned one\"\n  option b \"The pageable one\"\n" \
	"  misconception \"'Async' never waits for the host\"\n" \
	"  option c \"Both at once\"\n  answer a\n  points 3\nend\n" \
	"question q2 choice \"Does the host wait?\"\n" \
	"  option x \"Yes\"\n  option y \"No\"\n  answer x\n  points 2\nend\n" \
	"scenario s\n  host 1ms\nend\n"

static struct hd_store_snapshot *
snapshot_of_text(const char *text)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, strlen(text), "graded.hds", &e);
	struct hd_store_snapshot *snap;

	need(l != NULL, "parse", &e);
	snap = hd_store_snapshot_of(l);
	hd_lesson_free(l);
	return snap;
}

/* wes: q1 wrong (sure, after a hint), q2 right; then, having seen the run,
 * q1 right and q2 wrong.  ann: q1 right, q2 never answered. */
static void
graded_class(const char *db, const struct hd_store_snapshot *snap)
{
	struct hd_err e = { 0 };
	struct hd_store *s = hd_store_open(db, HD_STORE_RW, &e);

	need(s != NULL, "open", &e);
	add_attempt(s, "wes", snap, "graded", "q1", "b", 0, 5, 1, 0);
	add_attempt(s, "wes", snap, "graded", "q2", "x", 1, 3, 0, 0);
	add_attempt(s, "wes", snap, "graded", "q1", "a", 1, 5, 0, 1);
	add_attempt(s, "wes", snap, "graded", "q2", "y", 0, 2, 0, 1);
	add_attempt(s, "ann", snap, "graded", "q1", "a", 1, 4, 0, 0);
	hd_store_close(s);
}

/* Wrong, then right after the run: graded wrong by default; best and last
 * grade otherwise; the points possible are the stored lesson's, though the
 * lesson is installed nowhere and ann answered one question of two. */
START_TEST(class_grades_by_policy)
{
	char *db = path_in("graded.db"), *out = path_in("graded"), *p, *text, *msg;
	struct hd_store_snapshot *snap = snapshot_of_text(GRADED_LESSON);
	char *const dbs[] = { db };
	static const struct {
		enum hd_export_grade g;
		int wes, graded_q1, graded_q2;
	} policies[] = {
		{ HD_EXPORT_GRADE_FIRST, 2, 0, 0 },
		{ HD_EXPORT_GRADE_BEST, 5, 1, 0 },
		{ HD_EXPORT_GRADE_LAST, 3, 1, 1 },
	};
	struct hd_err e = { 0 };
	size_t i, len;

	graded_class(db, snap);
	for (i = 0; i < HD_ARRAY_LEN(policies); i++) {
		struct hd_export_class_opts o = { policies[i].g, false, NULL };
		struct hd_export_class c;
		const struct hd_export_class_score *s;

		ck_assert_msg(hd_export_class_load(&c, dbs, 1, &o, &e) == 0, "%s", e.msg);
		ck_assert_int_eq(c.nattempts, 5);
		ck_assert_int_eq(c.nrows, 3); /* ann q1, wes q1, wes q2 */
		ck_assert_str_eq(c.rows[1].a.learner, "wes");
		ck_assert_int_eq(c.rows[1].attempts, 2);
		ck_assert_int_eq(c.rows[1].graded, policies[i].graded_q1);
		ck_assert_int_eq(c.rows[1].initial, 0);
		ck_assert_int_eq(c.rows[2].graded, policies[i].graded_q2);
		s = hd_export_class_score(&c, "wes", "graded");
		ck_assert_ptr_nonnull(s);
		ck_assert_int_eq(s->earned, policies[i].wes);
		ck_assert_int_eq(s->possible, 5);
		ck_assert_int_eq(s->answered, 2);
		ck_assert_str_eq(s->hash, snap->hash);
		s = hd_export_class_score(&c, "ann", "graded");
		ck_assert_int_eq(s->earned, 3);
		ck_assert_int_eq(s->possible, 5);
		ck_assert_int_eq(s->answered, 1);
		ck_assert_int_eq(s->questions, 2);
		ck_assert_ptr_null(hd_export_class_score(&c, "ann", "other"));
		ck_assert_int_eq(hd_export_class_lesson(&c, "graded")->possible, 5);
		ck_assert_int_eq(c.nnotes, 0);
		hd_export_class_free(&c);
	}

	/* the files name the policy */
	{
		const char *args[] = { "export", "--class", db, "-o", out, "--grade", "best" };
		struct csv c;

		ck_assert_int_eq(run_cli(args, 7, &msg), 0);
		free(msg);
		p = hd_xasprintf("%s/gradebook.csv", out);
		text = hd_read_file(p, &len, &e);
		ck_assert_int_eq(csv_parse(text, &c), 0);
		ck_assert_str_eq(c.rows[0][5], "hdsim graded (grade: best)");
		ck_assert_str_eq(c.rows[1][5], "5");
		ck_assert_str_eq(c.rows[2][0], "ann");
		ck_assert_str_eq(c.rows[2][5], "3");
		ck_assert_str_eq(c.rows[3][0], "wes");
		ck_assert_str_eq(c.rows[3][5], "5");
		csv_free(&c);
		free(text);
		free(p);
		p = hd_xasprintf("%s/answers.csv", out);
		text = hd_read_file(p, &len, &e);
		ck_assert_int_eq(csv_parse(text, &c), 0);
		ck_assert_int_eq(c.nrows, 6);
		ck_assert_str_eq(c.rows[0][col(&c, "grade_policy")], "grade_policy");
		ck_assert_str_eq(c.rows[2][col(&c, "grade_policy")], "best");
		/* wes's q1: the second attempt is the one graded */
		ck_assert_str_eq(c.rows[2][col(&c, "answer")], "b");
		ck_assert_str_eq(c.rows[2][col(&c, "graded")], "");
		ck_assert_str_eq(c.rows[3][col(&c, "graded")], "yes");
		ck_assert_str_eq(c.rows[3][col(&c, "seen")], "yes");
		ck_assert_str_eq(c.rows[3][col(&c, "points")], "3");
		ck_assert_str_eq(c.rows[3][col(&c, "lesson_version")], snap->hash);
		csv_free(&c);
		free(text);
		free(p);
		p = hd_xasprintf("%s/class.html", out);
		text = hd_read_file(p, &len, &e);
		ck_assert_ptr_nonnull(strstr(text, "<code>--grade best</code>"));
		free(text);
		free(p);
	}
	/* by default: the first answers, and what they say */
	{
		const char *args[] = { "export", "--class", db, "-o", out };
		const char *q1;

		ck_assert_int_eq(run_cli(args, 5, &msg), 0);
		free(msg);
		p = hd_xasprintf("%s/class.html", out);
		text = hd_read_file(p, &len, &e);
		ck_assert_ptr_nonnull(strstr(text, "<code>--grade first</code>"));
		ck_assert_ptr_nonnull(strstr(text, "<td>Graded copies</td>"));
		q1 = strstr(text,
			    "q1 (3 points): <span class=\"prompt\">Which copy finishes "
			    "first?</span>");
		ck_assert_ptr_nonnull(q1);
		/* a) chosen once (ann), b) once (wes, first) with its misconception */
		ck_assert_ptr_nonnull(strstr(q1,
					     "<td>The pinned one <strong>(the answer)</strong>"
					     "</td><td class=\"num\">1</td><td></td>"));
		ck_assert_ptr_nonnull(strstr(q1,
					     "<td>The pageable one</td><td class=\"num\">1</td>"
					     "<td>&#39;Async&#39; never waits for the host</td>"));
		ck_assert_ptr_nonnull(
		    strstr(q1, "<td>Both at once</td><td class=\"num\">0</td><td></td>"));
		ck_assert_ptr_nonnull(strstr(q1, "Graded (first): <strong>1 of 2 right</strong>"));
		ck_assert_ptr_nonnull(strstr(q1, "Sure but wrong: <strong>1</strong>"));
		ck_assert_ptr_nonnull(strstr(q1, "right with hints 0 of 1, without 1 of 1"));
		ck_assert_ptr_nonnull(strstr(text,
					     "<td>ann</td><td class=\"num\">0 of 1</td>"
					     "<td class=\"num\">3 / 5, 1 of 2 answered</td>"));
		ck_assert_ptr_nonnull(strstr(text,
					     "<td>wes</td><td class=\"num\">1 of 1</td>"
					     "<td class=\"num\">2 / 5, done</td>"));
		free(text);
		free(p);
	}
	{
		const char *args[] = { "export", "--class", db, "-o", out, "--grade", "worst" };

		ck_assert_int_eq(run_cli(args, 7, &msg), HD_EXIT_INPUT);
		ck_assert_ptr_nonnull(strstr(msg, "unknown grading 'worst'"));
		free(msg);
	}
	{
		const char *args[] = { "export", "--format", "csv", "--db", db, "--grade", "best" };

		ck_assert_int_eq(run_cli(args, 7, &msg), HD_EXIT_INPUT);
		ck_assert_ptr_nonnull(strstr(msg, "goes with --class"));
		free(msg);
	}
	hd_store_snapshot_free(snap);
	free(db);
	free(out);
}
END_TEST

/* --keep-going: a missing, a foreign and a junk database are named and
 * skipped; a database named twice (by path, or as the same file) is read
 * once.  Without it, or with nothing readable, exit 2 and no files. */
START_TEST(class_keep_going_and_twice)
{
	char *db = path_in("good.db"), *again = NULL, *missing = path_in("none.db");
	char *foreign = path_in("foreign.db"), *junk = path_in("junk.db"), *out = path_in("kg");
	char *p, *text, *msg;
	struct hd_store_snapshot *snap = snapshot_of_text(GRADED_LESSON);
	struct hd_err e = { 0 };
	struct csv c;
	sqlite3 *q;
	size_t len;

	again = hd_xasprintf("%s/./good.db", dir);
	graded_class(db, snap);
	ck_assert_int_eq(sqlite3_open(foreign, &q), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(q, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(q);
	write_bytes(junk, "not a database, just some text", 30);
	{
		const char *args[] = { "export", "--class", db, missing, "-o", out };

		ck_assert_int_eq(run_cli(args, 6, &msg), HD_EXIT_INPUT);
		ck_assert_ptr_nonnull(strstr(msg, "no such database"));
		ck_assert(!exists(out));
		free(msg);
	}
	{
		const char *args[] = { "export",       "--class", db,   missing,
				       foreign,        again,     junk, db,
				       "--keep-going", "-o",      out };

		ck_assert_int_eq(run_cli(args, 11, &msg), 0);
		ck_assert_msg(strstr(msg, missing) && strstr(msg, foreign) && strstr(msg, junk),
			      "%s", msg);
		ck_assert_int_eq(count_lines(msg, "skipped"), 3);
		ck_assert_int_eq(count_lines(msg, "it was read once"), 2);
		free(msg);
		p = hd_xasprintf("%s/answers.csv", out);
		text = hd_read_file(p, &len, &e);
		ck_assert_int_eq(csv_parse(text, &c), 0);
		ck_assert_int_eq(c.nrows, 6); /* wes's four attempts and ann's, once */
		csv_free(&c);
		free(text);
		free(p);
		p = hd_xasprintf("%s/class.html", out);
		text = hd_read_file(p, &len, &e);
		ck_assert_ptr_nonnull(strstr(text, "from 1 database:"));
		ck_assert_ptr_nonnull(strstr(text, "it was read once"));
		free(text);
		free(p);
	}
	{
		const char *args[] = { "export", "--class",      missing, foreign,
				       junk,     "--keep-going", "-o",    path_in("none") };

		ck_assert_int_eq(run_cli(args, 8, &msg), HD_EXIT_INPUT);
		ck_assert_int_eq(count_lines(msg, "skipped"), 3);
		ck_assert_ptr_nonnull(strstr(msg, "none of the 3 databases named could be read"));
		free(msg);
		free((char *)args[7]);
	}
	hd_store_snapshot_free(snap);
	free(db);
	free(again);
	free(missing);
	free(foreign);
	free(junk);
	free(out);
}
END_TEST

/* Learners who answered two versions of a lesson: said on standard error
 * and in class.html; each is graded on their own version. */
START_TEST(class_versions_noted)
{
	char *d1 = path_in("v1.db"), *d2 = path_in("v2.db"), *out = path_in("vv");
	struct hd_store_snapshot *v1 = snapshot_of_text(GRADED_LESSON);
	struct hd_store_snapshot *v2 = snapshot_of_text(GRADED_LESSON "# edited\n");
	struct hd_err e = { 0 };
	struct hd_store *s;
	char *msg, *p, *text;
	size_t len;

	ck_assert_str_ne(v1->hash, v2->hash);
	v2->questions[1].points = 4; /* the edit made q2 worth more */
	s = hd_store_open(d1, HD_STORE_RW, &e);
	add_attempt(s, "ann", v1, "graded", "q2", "x", 1, 0, 0, 0);
	hd_store_close(s);
	s = hd_store_open(d2, HD_STORE_RW, &e);
	add_attempt(s, "bo", v2, "graded", "q2", "x", 1, 0, 0, 0);
	add_attempt(s, "cy", v2, "graded", "q2", "y", 0, 0, 0, 0);
	hd_store_close(s);
	{
		const char *args[] = { "export", "--class", d1, d2, "-o", out };
		char want[160];
		struct hd_export_class c;
		char *const dbs[] = { d1, d2 };
		struct hd_export_class_opts o = { HD_EXPORT_GRADE_FIRST, false, NULL };

		ck_assert_int_eq(run_cli(args, 6, &msg), 0);
		ck_assert_ptr_nonnull(
		    strstr(msg, "warning: lesson graded was answered in 2 versions"));
		snprintf(want, sizeof want, "%.12s (7 points) by bo, cy", v2->hash);
		ck_assert_msg(strstr(msg, want) != NULL, "%s", msg);
		snprintf(want, sizeof want, "%.12s (5 points) by ann", v1->hash);
		ck_assert_msg(strstr(msg, want) != NULL, "%s", msg);
		free(msg);
		ck_assert_int_eq(hd_export_class_load(&c, dbs, 2, &o, &e), 0);
		ck_assert_int_eq(hd_export_class_score(&c, "ann", "graded")->earned, 2);
		ck_assert_int_eq(hd_export_class_score(&c, "ann", "graded")->possible, 5);
		ck_assert_int_eq(hd_export_class_score(&c, "bo", "graded")->earned, 4);
		ck_assert_int_eq(hd_export_class_score(&c, "bo", "graded")->possible, 7);
		/* the gradebook's: the version most learners answered */
		ck_assert_int_eq(hd_export_class_lesson(&c, "graded")->possible, 7);
		ck_assert_int_eq(hd_export_class_lesson(&c, "graded")->nversions, 2);
		hd_export_class_free(&c);
	}
	p = hd_xasprintf("%s/class.html", out);
	text = hd_read_file(p, &len, &e);
	ck_assert_ptr_nonnull(strstr(text, "Answered in 2 versions of the lesson"));
	ck_assert_ptr_nonnull(strstr(text, "was answered in 2 versions"));
	free(text);
	free(p);
	hd_store_snapshot_free(v1);
	hd_store_snapshot_free(v2);
	free(d1);
	free(d2);
	free(out);
}
END_TEST

/* Text stored in a lesson version is untrusted: controls, markup and
 * spreadsheet formulas reach no sink as they are. */
START_TEST(class_hostile_snapshot_text)
{
	char *db = path_in("hostile.db"), *out = path_in("hh"), *msg, *p, *text;
	static const char *const lesson = "=HYPERLINK(\"http://x\")\x1b[31m<script>";
	struct hd_store_snap_option opts[2] = {
		{ (char *)"a", (char *)"+cmd|' /C calc'!A0 <b>bold</b>\x07", NULL },
		{ (char *)"b\x1b[2J", (char *)"-2+3",
		  (char *)"</td><script>alert(1)</script>\x1b]0;x\x07" },
	};
	struct hd_store_snap_question q = { (char *)"@q\x1b[1m",
					    (char *)"choice",
					    (char *)"\x1b]0;pwn\x07<img src=x onerror=alert(1)>",
					    (char *)"a",
					    1,
					    opts,
					    2 };
	struct hd_store_snapshot v1 = {
		(char *)"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		(char *)lesson, (char *)"<title>\x1b[5m=1+1", &q, 1
	};
	struct hd_store_snapshot v2 = v1;
	struct hd_err e = { 0 };
	struct hd_store *s = hd_store_open(db, HD_STORE_RW, &e);
	static const char *const files[] = { "answers.csv", "gradebook.csv", "class.html" };
	size_t i, len;

	v2.hash = (char *)"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
	need(s != NULL, "open", &e);
	add_attempt(s, "ann", &v1, lesson, q.id, "b\x1b[2J", 0, 5, 0, 0);
	add_attempt(s, "bo", &v2, lesson, q.id, "=cmd|' /C calc'!A0", 0, 5, 0, 0);
	hd_store_close(s);
	{
		const char *args[] = { "export", "--class", db, "-o", out };

		ck_assert_int_eq(run_cli(args, 5, &msg), 0);
		/* the versions' note on standard error names the lesson, escaped */
		ck_assert_ptr_nonnull(strstr(msg, "answered in 2 versions"));
		ck_assert_ptr_null(strchr(msg, '\x1b'));
		ck_assert_ptr_nonnull(strstr(msg, "\\x1b[31m<script>"));
		free(msg);
	}
	for (i = 0; i < HD_ARRAY_LEN(files); i++) {
		p = hd_xasprintf("%s/%s", out, files[i]);
		text = hd_read_file(p, &len, &e);
		ck_assert_ptr_nonnull(text);
		ck_assert_msg(strchr(text, '\x1b') == NULL && strchr(text, '\x07') == NULL,
			      "%s holds a control character", files[i]);
		if (i < 2) {
			struct csv c;
			int r, k;

			/* no cell a spreadsheet would run as a formula */
			ck_assert_int_eq(csv_parse(text, &c), 0);
			for (r = 0; r < c.nrows; r++)
				for (k = 0; k < c.ncols[r]; k++)
					ck_assert_msg(strchr("=+-@", c.rows[r][k][0]) == NULL ||
							  c.rows[r][k][0] == '\0',
						      "%s row %d column %d: %s", files[i], r, k,
						      c.rows[r][k]);
			csv_free(&c);
		} else {
			ck_assert_ptr_null(strstr(text, "<script"));
			ck_assert_ptr_null(strstr(text, "<img"));
			ck_assert_ptr_null(strstr(text, "<b>bold"));
			ck_assert_ptr_nonnull(
			    strstr(text, "&lt;script&gt;alert(1)&lt;/script&gt;"));
			ck_assert_ptr_nonnull(strstr(text, "&lt;img src=x onerror=alert(1)&gt;"));
		}
		free(text);
		free(p);
	}
	free(db);
	free(out);
}
END_TEST

/* The fill of the SVG bar whose tooltip starts with `tip` ("" if none). */
static const char *
bar_fill(const char *svg, const char *tip, char out[8])
{
	char *key = hd_xasprintf("<title>%s", tip);
	const char *at = strstr(svg, key), *f = NULL, *p;

	free(key);
	out[0] = '\0';
	for (p = svg; at != NULL && (p = strstr(p, "fill=\"")) != NULL && p < at; p++)
		f = p;
	if (f != NULL)
		snprintf(out, 8, "%s", f + 6);
	return out;
}

/* The cname of the Perfetto slice named `name` ("" if none). */
static const char *
slice_cname(const char *json, const char *name, char out[64])
{
	char *key = hd_xasprintf("\"name\":\"%s\"", name);
	const char *at = strstr(json, key), *c = at ? strstr(at, "\"cname\":\"") : NULL;

	free(key);
	out[0] = '\0';
	if (c != NULL)
		snprintf(out, 64, "%.*s", (int)strcspn(c + 9, "\""), c + 9);
	return out;
}

/*
 * The SVG and the Perfetto trace colour spans from the table of looks: a
 * kernel, a copy towards the device, and a copy towards the host on its
 * copy engine and on its stream (which has no direction of its own).
 */
START_TEST(svg_and_perfetto_colours_from_looks)
{
	struct hd_export_set set;
	struct hd_store_run_info info;
	struct hd_trace *t = hd_trace_new();
	int st = hd_trace_lane(t, HD_LANE_STREAM, 0, 1, "Stream 13");
	int up = hd_trace_lane(t, HD_LANE_CE_H2D, 0, 0, "Memcpy HtoD");
	int down = hd_trace_lane(t, HD_LANE_CE_D2H, 0, 0, "Memcpy DtoH");
	const struct hd_spanlook *kern = hd_spanlook_get(HD_SPAN_KERNEL, HD_DIR_OUT);
	const struct hd_spanlook *h2d = hd_spanlook_get(HD_SPAN_COPY, HD_DIR_OUT);
	const struct hd_spanlook *d2h = hd_spanlook_get(HD_SPAN_COPY, HD_DIR_BACK);
	char *svg, *json, c[64];

	span(t, up, 0, 0, HD_SPAN_COPY, 0, 10000, "in");
	span(t, st, 1, 0, HD_SPAN_KERNEL, 10000, 40000, "kern");
	span(t, down, 2, 0, HD_SPAN_COPY, 40000, 60000, "out");
	span(t, st, 2, 0, HD_SPAN_COPY, 40000, 60000, "outs");
	memset(&info, 0, sizeof info);
	info.id = 3;
	info.lesson = hd_xstrdup("looks");
	info.scenario = hd_xstrdup("three");
	info.source = hd_xstrdup("predicted");
	hd_export_set_init(&set);
	hd_export_add_run(&set, NULL, &info, t);
	svg = write_mem(&set, HD_EXPORT_SVG, 0);
	ck_assert_str_eq(bar_fill(svg, "kern", c), kern->svg);
	ck_assert_str_eq(bar_fill(svg, "in 1 MiB", c), h2d->svg);
	ck_assert_str_eq(bar_fill(svg, "out 1 MiB", c), d2h->svg);
	ck_assert_str_eq(bar_fill(svg, "outs 1 MiB", c), d2h->svg);
	ck_assert_str_ne(h2d->svg, d2h->svg);
	/* the legend names each kind in its colour */
	{
		char *entry = hd_xasprintf("fill=\"%s\"/>\n<text x=\"%d.0\" y=", kern->svg,
					   10 + 20 + (HD_SPAN_KERNEL % 4) * 290);
		ck_assert_ptr_nonnull(strstr(svg, entry));
		free(entry);
	}
	json = write_mem(&set, HD_EXPORT_PERFETTO, 0);
	ck_assert(hd_test_json_valid(json));
	ck_assert_str_eq(slice_cname(json, "kern", c), kern->perfetto);
	ck_assert_str_eq(slice_cname(json, "in", c), h2d->perfetto);
	ck_assert_str_eq(slice_cname(json, "out", c), d2h->perfetto);
	ck_assert_str_eq(slice_cname(json, "outs", c), d2h->perfetto);
	ck_assert_ptr_nonnull(strstr(json, "\"cat\":\"kernel\",\"cname\":"));
	free(svg);
	free(json);
	hd_export_set_free(&set);
}
END_TEST

static Suite *
export_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("export");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, csv_reads_back);
	tcase_add_test(tc, csv_field_quoting);
	tcase_add_test(tc, times_in_microseconds);
	tcase_add_test(tc, json_documents_parse);
	tcase_add_test(tc, perfetto_threads_and_flows);
	tcase_add_test(tc, perfetto_ranks_are_processes);
	tcase_add_test(tc, svg_and_reports_escape_names);
	tcase_add_test(tc, reports_show_the_band);
	tcase_add_test(tc, bad_input_writes_nothing);
	tcase_add_test(tc, run_selects_its_pair);
	tcase_add_test(tc, lesson_without_runs_is_simulated);
	tcase_add_test(tc, class_merges_two_databases);
	tcase_add_test(tc, class_grades_by_policy);
	tcase_add_test(tc, class_keep_going_and_twice);
	tcase_add_test(tc, class_versions_noted);
	tcase_add_test(tc, class_hostile_snapshot_text);
	tcase_add_test(tc, svg_and_perfetto_colours_from_looks);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--make-db") == 0) {
		in_suite = 0;
		make_db(argv[2]);
		return 0;
	}
	return hd_test_run(export_suite());
}
