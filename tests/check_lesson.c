/*
 * check_lesson.c - the lesson language: parsing, checking, lowering to the
 * IR, claims, error messages, the shipped lessons, and random mutations.
 *
 * Over 1,200 lines as one suite: most of it is lesson text in string
 * literals and the exact error message each must give.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/embedded.h"
#include "base/units.h"
#include "base/util.h"
#include "ir/ir.h"
#include "ir/trace.h"
#include "lang/catalog.h"
#include "lang/claims.h"
#include "lang/lesson.h"
#include "lang/lint.h"
#include "tests/testutil.h"

/* A lesson that uses every statement of the format. */
static const char full_lesson[] =
    "# every statement of the format, once at least\n"
    "hdsim 1\n"
    "lesson full-test\n"
    "title \"Everything at once\"\n"
    "part \"Basics\"\n"
    "order 7.5\n"
    "summary \"one line about it\"\n"
    "rule \"cudaMemcpy from pageable memory is synchronous\" "
    "\"https://docs.nvidia.com/cuda/cuda-runtime-api/api-sync-behavior.html\"\n"
    "\n"
    "knob size 256MiB 4KiB .. 1GiB \"bytes to copy\"\n"
    "knob iters 4 1 .. 100 \"loop count\"\n"
    "knob work 2ms 1us .. 1s \"kernel time\"\n"
    "knob share 50% 0% .. 100% \"a fraction\"\n"
    "\n"
    "page \"Intro\"\n"
    "| First line.\n"
    "|\n"
    "  | Third line, # not a comment.\n"
    "end\n"
    "\n"
    "question q1 choice \"Which is faster?\"\n"
    "  option a \"pinned\"\n"
    "  option b \"pageable\"\n"
    "  answer a\n"
    "  explain \"pinned skips staging\"\n"
    "  hint \"think of DMA\"\n"
    "  hint \"second \\\"hint\\\"\"\n"
    "  scenario pageable\n"
    "end\n"
    "question q2 order \"Order them\"\n"
    "  item x \"copy\"\n"
    "  item y \"kernel\"\n"
    "  item z \"sync\"\n"
    "  answer y z x\n"
    "  explain \"the kernel is short\"\n"
    "end\n"
    "question q3 estimate \"How long does the pinned copy take?\"\n"
    "  answer time(pinned.h2d) unit ms within 25%\n"
    "  explain \"about 10 ms\"\n"
    "end\n"
    "\n"
    "scenario pinned \"Pinned copy\"\n"
    "  buffer h pinned size\n"
    "  buffer d device size\n"
    "  stream s1 nonblocking priority -1\n"
    "  event done notiming\n"
    "  h2d: copy h -> d async on s1\n"
    "  kernel spin work on s1 grid 80\n"
    "  record done on s1\n"
    "  loop: repeat iters\n"
    "    kernel fill d\n"
    "    kernel reduce d\n"
    "    kernel memory d\n"
    "    kernel memory 1GiB\n"
    "    kernel compute 10GFLOP\n"
    "  end\n"
    "  wait done\n"
    "  sync done\n"
    "  sync s1\n"
    "  sync device\n"
    "  query done\n"
    "  host 1ms \"prepare\"\n"
    "  read d 4KiB\n"
    "  copy d -> h size * share\n"
    "end\n"
    "\n"
    "scenario pageable \"Pageable copy\"\n"
    "  default-stream per-thread\n"
    "  buffer h pageable size\n"
    "  buffer d device size\n"
    "  buffer m managed 64MiB\n"
    "  alloc h\n"
    "  pin h\n"
    "  h2d: copy h -> d\n"
    "  prefetch m to device\n"
    "  kernel fill d\n"
    "  free h\n"
    "end\n"
    "\n"
    "scenario ring \"A ring of four\"\n"
    "  ranks 4\n"
    "  buffer d device 1MiB\n"
    "  buffer e device 1MiB\n"
    "  send d to rank + 1\n"
    "  recv e from rank - 1\n"
    "  mirror: send d to nranks - 1 - rank 64KiB\n"
    "  rank 0\n"
    "    copy d -> e@2 async\n"
    "  end\n"
    "  allreduce d\n"
    "  broadcast d root 2\n"
    "  barrier\n"
    "end\n"
    "\n"
    "claim \"pinned is at least 2x faster\" makespan(pageable) >= 2 * makespan(pinned) "
    "on h100-sxm, a100-pcie\n"
    "claim \"copy time\" time(pinned.h2d) == size / 25GB/s within 50%\n"
    "claim \"bytes\" bytes(pinned.h2d) <= size\n"
    "claim \"loop\" time(pinned.loop) > 0s\n";

static struct hd_lesson *
parse_ok(const char *text)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, strlen(text), "t.hds", &e);

	if (l == NULL)
		ck_abort_msg("parse failed: %s: %s\n%s", e.where, e.msg, e.context);
	return l;
}

static struct hd_scenario *
inst_ok(const struct hd_lesson *l, const char *name, const double *knobs)
{
	struct hd_err e = { 0 };
	int i = hd_lesson_find_scenario(l, name);
	struct hd_scenario *sc;

	ck_assert_int_ge(i, 0);
	sc = hd_lesson_instantiate(l, i, knobs, &e);
	if (sc == NULL)
		ck_abort_msg("instantiate %s failed: %s: %s\n%s", name, e.where, e.msg, e.context);
	return sc;
}

START_TEST(full_metadata)
{
	struct hd_lesson *l = parse_ok(full_lesson);
	const struct hd_page *pg;
	const struct hd_question *q;
	const struct hd_knob *k;
	const struct hd_claim *c;

	ck_assert_str_eq(hd_lesson_id(l), "full-test");
	ck_assert_str_eq(hd_lesson_title(l), "Everything at once");
	ck_assert_str_eq(hd_lesson_part(l), "Basics");
	ck_assert(hd_lesson_order(l) == 7.5);
	ck_assert_str_eq(hd_lesson_summary(l), "one line about it");
	ck_assert_str_eq(hd_lesson_rule(l), "cudaMemcpy from pageable memory is synchronous");
	ck_assert_str_eq(hd_lesson_rule_url(l),
			 "https://docs.nvidia.com/cuda/cuda-runtime-api/api-sync-behavior.html");
	ck_assert_str_eq(hd_lesson_path(l), "t.hds");

	ck_assert_int_eq(hd_lesson_npages(l), 1);
	pg = hd_lesson_page(l, 0);
	ck_assert_str_eq(pg->title, "Intro");
	ck_assert_str_eq(pg->text, "First line.\n\nThird line, # not a comment.");
	ck_assert_ptr_null(hd_lesson_page(l, 1));

	ck_assert_int_eq(hd_lesson_nquestions(l), 3);
	q = hd_lesson_question(l, 0);
	ck_assert_str_eq(q->id, "q1");
	ck_assert_int_eq(q->kind, HD_Q_CHOICE);
	ck_assert_str_eq(q->prompt, "Which is faster?");
	ck_assert_int_eq(q->noptions, 2);
	ck_assert_str_eq(q->option_ids[1], "b");
	ck_assert_str_eq(q->options[1], "pageable");
	ck_assert_int_eq(q->answer, 0);
	ck_assert_str_eq(q->explain, "pinned skips staging");
	ck_assert_int_eq(q->nhints, 2);
	ck_assert_str_eq(q->hints[1], "second \"hint\"");
	ck_assert_str_eq(q->scenario, "pageable");
	q = hd_lesson_question(l, 1);
	ck_assert_int_eq(q->kind, HD_Q_ORDER);
	ck_assert_int_eq(q->noptions, 3);
	ck_assert_int_eq(q->order[0], 1);
	ck_assert_int_eq(q->order[1], 2);
	ck_assert_int_eq(q->order[2], 0);
	ck_assert_ptr_null(q->scenario);
	q = hd_lesson_question(l, 2);
	ck_assert_int_eq(q->kind, HD_Q_ESTIMATE);
	ck_assert_str_eq(q->estimate_expr, "time(pinned.h2d)");
	ck_assert_int_eq(q->estimate_dim, HD_DIM_TIME);
	ck_assert(q->tolerance > 0.2499 && q->tolerance < 0.2501);

	ck_assert_int_eq(hd_lesson_nknobs(l), 4);
	k = hd_lesson_knob(l, 0);
	ck_assert_str_eq(k->name, "size");
	ck_assert_int_eq(k->dim, HD_DIM_BYTES);
	ck_assert(k->def == 256.0 * 1024 * 1024 && k->min == 4096);
	ck_assert(k->max == 1024.0 * 1024 * 1024);
	ck_assert_str_eq(k->text, "bytes to copy");
	k = hd_lesson_knob(l, 1);
	ck_assert_int_eq(k->dim, HD_DIM_NONE);
	ck_assert(k->def == 4);
	k = hd_lesson_knob(l, 2);
	ck_assert_int_eq(k->dim, HD_DIM_TIME);
	ck_assert(k->def == 2e9);
	k = hd_lesson_knob(l, 3);
	ck_assert_int_eq(k->dim, HD_DIM_PERCENT);
	ck_assert(k->def == 0.5);
	ck_assert_int_eq(hd_lesson_find_knob(l, "work"), 2);
	ck_assert_int_eq(hd_lesson_find_knob(l, "nope"), -1);

	ck_assert_int_eq(hd_lesson_nclaims(l), 4);
	c = hd_lesson_claim(l, 0);
	ck_assert_str_eq(c->text, "pinned is at least 2x faster");
	ck_assert_str_eq(c->expr, "makespan(pageable) >= 2 * makespan(pinned)");
	ck_assert_int_eq(c->nprofiles, 2);
	ck_assert_str_eq(c->profiles[0], "h100-sxm");
	ck_assert_str_eq(c->profiles[1], "a100-pcie");
	ck_assert_int_eq(hd_lesson_claim(l, 1)->nprofiles, 0);

	ck_assert_int_eq(hd_lesson_nscenarios(l), 3);
	ck_assert_str_eq(hd_lesson_scenario_name(l, 0), "pinned");
	ck_assert_str_eq(hd_lesson_scenario_title(l, 1), "Pageable copy");
	ck_assert_int_eq(hd_lesson_find_scenario(l, "ring"), 2);
	ck_assert_int_eq(hd_lesson_find_scenario(l, "nope"), -1);
	hd_lesson_free(l);
}
END_TEST

#define HDR_GRADE "hdsim 1\nlesson t\ntitle \"T\"\n"

/* What grading reads: points (default 1), misconceptions per option, and
 * the content hash that names this version of the lesson. */
START_TEST(question_points_and_misconceptions)
{
	static const char text[] = HDR_GRADE
	    "question q1 choice \"Which is faster?\"\n"
	    "  points 3\n"
	    "  option a \"pinned\"\n"
	    "  option b \"pageable\"\n"
	    "  misconception \"'Async' never waits for the host\"\n"
	    "  option c \"the same\"\n"
	    "  answer a\n"
	    "end\n"
	    "question q2 order \"Order\"\n"
	    "  item x \"x\"\n"
	    "  item y \"y\"\n"
	    "  answer y x\n"
	    "  points 0\n"
	    "end\n"
	    "question q3 choice \"Plain\"\n"
	    "  option a \"a\"\n"
	    "  option b \"b\"\n"
	    "  answer b\n"
	    "end\n"
	    "scenario a\n  host 1ms\nend\n";
	struct hd_lesson *l = parse_ok(text), *l2;
	const struct hd_question *q = hd_lesson_question(l, 0);
	struct hd_err e = { 0 };
	char *edited;

	ck_assert_int_eq(q->points, 3);
	ck_assert_ptr_nonnull(q->misconceptions);
	ck_assert_ptr_null(q->misconceptions[0]);
	ck_assert_str_eq(q->misconceptions[1], "'Async' never waits for the host");
	ck_assert_ptr_null(q->misconceptions[2]);
	ck_assert_int_eq(hd_lesson_question(l, 1)->points, 0);
	ck_assert_int_eq(hd_lesson_question(l, 2)->points, 1);
	ck_assert_ptr_null(hd_lesson_question(l, 2)->misconceptions);
	ck_assert_int_eq(hd_lesson_points(l), 4);
	/* the hash is the text's: the same text gives the same, one byte more
	 * another */
	ck_assert_int_eq((int)strlen(hd_lesson_hash(l)), 64);
	l2 = hd_lesson_parse(text, strlen(text), "other-path.hds", &e);
	ck_assert_msg(l2 != NULL, "%s", e.msg);
	ck_assert_str_eq(hd_lesson_hash(l2), hd_lesson_hash(l));
	hd_lesson_free(l2);
	edited = hd_xasprintf("%s# edited\n", text);
	l2 = hd_lesson_parse(edited, strlen(edited), "t.hds", &e);
	ck_assert_msg(l2 != NULL, "%s", e.msg);
	ck_assert_str_ne(hd_lesson_hash(l2), hd_lesson_hash(l));
	hd_lesson_free(l2);
	free(edited);
	hd_lesson_free(l);
}
END_TEST

START_TEST(full_ir_defaults)
{
	struct hd_lesson *l = parse_ok(full_lesson);
	struct hd_scenario *sc = inst_ok(l, "pinned", NULL);
	const uint64_t MiB = 1u << 20;
	const struct hd_op *o = sc->ops;

	ck_assert_int_eq(sc->nranks, 1);
	ck_assert(!sc->per_thread_default);
	ck_assert_int_eq(sc->nbuffers, 2);
	ck_assert_str_eq(sc->buffers[0].name, "h");
	ck_assert_int_eq(sc->buffers[0].mem, HD_MEM_PINNED);
	ck_assert_uint_eq(sc->buffers[1].bytes, 256 * MiB);
	ck_assert_int_eq(sc->buffers[1].line, 44);
	ck_assert_int_eq(sc->nstreams, 3);
	ck_assert_str_eq(sc->streams[0].name, "default");
	ck_assert_str_eq(sc->streams[1].name, "per-thread");
	ck_assert_str_eq(sc->streams[2].name, "s1");
	ck_assert_uint_eq(sc->streams[2].flags, HD_STREAM_NONBLOCKING);
	ck_assert_int_eq(sc->streams[2].priority, -1);
	ck_assert_int_eq(sc->nevents, 1);
	ck_assert(!sc->events[0].timing);

	ck_assert_int_eq(sc->nops, 17);
	ck_assert_int_eq(o[0].kind, HD_OP_COPY);
	ck_assert_str_eq(o[0].label, "h2d");
	ck_assert(o[0].async);
	ck_assert_int_eq(o[0].stream, 2);
	ck_assert_int_eq(o[0].copy, HD_COPY_H2D);
	ck_assert_uint_eq(o[0].bytes, 256 * MiB);
	ck_assert_int_eq(o[0].src, 0);
	ck_assert_int_eq(o[0].dst, 1);
	ck_assert_int_eq(o[0].line, 47);
	ck_assert_int_eq(o[0].col, 8);
	ck_assert_str_eq(hd_op_api_name(&o[0]), "cudaMemcpyAsync");
	ck_assert_int_eq(o[1].kind, HD_OP_KERNEL);
	ck_assert_int_eq(o[1].kernel, HD_KERNEL_SPIN);
	ck_assert_int_eq(o[1].duration, 2 * HD_MS);
	ck_assert_uint_eq(o[1].grid, 80);
	ck_assert_int_eq(o[2].kind, HD_OP_RECORD);
	ck_assert_int_eq(o[2].event, 0);
	ck_assert_int_eq(o[2].stream, 2);
	ck_assert_int_eq(o[3].kind, HD_OP_REPEAT);
	ck_assert_uint_eq(o[3].count, 4);
	ck_assert_int_eq(o[3].body_len, 5);
	ck_assert_str_eq(o[3].label, "loop");
	ck_assert_int_eq(o[4].kernel, HD_KERNEL_FILL);
	ck_assert_int_eq(o[4].dst, 1);
	ck_assert_uint_eq(o[4].grid, 0);
	ck_assert_int_eq(o[4].stream, HD_STREAM_LEGACY);
	ck_assert_int_eq(o[5].kernel, HD_KERNEL_REDUCE);
	ck_assert_int_eq(o[5].src, 1);
	ck_assert_int_eq(o[6].kernel, HD_KERNEL_MEMORY);
	ck_assert_int_eq(o[6].src, 1);
	ck_assert_uint_eq(o[6].bytes, 256 * MiB);
	ck_assert_int_eq(o[7].src, HD_NONE);
	ck_assert_uint_eq(o[7].bytes, 1024 * MiB);
	ck_assert_int_eq(o[8].kernel, HD_KERNEL_COMPUTE);
	ck_assert(o[8].flops == 1e10);
	ck_assert_int_eq(o[9].kind, HD_OP_WAIT);
	ck_assert_int_eq(o[9].stream, HD_STREAM_LEGACY);
	ck_assert_int_eq(o[10].kind, HD_OP_EVENT_SYNC);
	ck_assert_int_eq(o[11].kind, HD_OP_STREAM_SYNC);
	ck_assert_int_eq(o[11].stream, 2);
	ck_assert_int_eq(o[12].kind, HD_OP_DEVICE_SYNC);
	ck_assert_int_eq(o[13].kind, HD_OP_EVENT_QUERY);
	ck_assert_int_eq(o[14].kind, HD_OP_HOST);
	ck_assert_int_eq(o[14].duration, HD_MS);
	ck_assert_str_eq(o[14].text, "prepare");
	ck_assert_int_eq(o[15].kind, HD_OP_READ);
	ck_assert_uint_eq(o[15].bytes, 4096);
	ck_assert_int_eq(o[16].kind, HD_OP_COPY);
	ck_assert(!o[16].async);
	ck_assert_int_eq(o[16].copy, HD_COPY_D2H);
	ck_assert_uint_eq(o[16].bytes, 128 * MiB);
	ck_assert_str_eq(hd_op_api_name(&o[16]), "cudaMemcpy");
	/* 11 ops outside the loop, 5 inside it 4 times, plus the loop header. */
	ck_assert_uint_eq(hd_scenario_op_instances(sc, 0), 11 + 1 + 5 * 4);
	hd_scenario_free(sc);

	sc = inst_ok(l, "pageable", NULL);
	ck_assert(sc->per_thread_default);
	ck_assert_int_eq(sc->nops, 6);
	ck_assert_int_eq(sc->ops[0].kind, HD_OP_ALLOC);
	ck_assert_str_eq(hd_op_api_name_sc(sc, &sc->ops[0]), "malloc");
	ck_assert_int_eq(sc->ops[1].kind, HD_OP_PIN);
	ck_assert_int_eq(sc->ops[2].stream, HD_STREAM_PER_THREAD);
	ck_assert_int_eq(sc->ops[2].copy, HD_COPY_H2D);
	ck_assert_int_eq(sc->ops[3].kind, HD_OP_PREFETCH);
	ck_assert(sc->ops[3].to_device);
	ck_assert_uint_eq(sc->ops[3].bytes, 64 * MiB);
	ck_assert_int_eq(sc->ops[4].stream, HD_STREAM_PER_THREAD);
	ck_assert_str_eq(hd_op_api_name_sc(sc, &sc->ops[5]), "free");
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

START_TEST(ring_ir)
{
	struct hd_lesson *l = parse_ok(full_lesson);
	struct hd_scenario *sc = inst_ok(l, "ring", NULL);
	const struct hd_op *o = sc->ops;
	int r, i;

	ck_assert_int_eq(sc->nranks, 4);
	/* send to rank + 1: one op, relative +1 */
	ck_assert_int_eq(o[0].kind, HD_OP_SEND);
	ck_assert(o[0].peer_rel);
	ck_assert_int_eq(o[0].peer, 1);
	ck_assert_int_eq(hd_op_peer(sc, &o[0], 3), 0);
	ck_assert_str_eq(hd_op_api_name(&o[0]), "ncclSend");
	/* recv from rank - 1: relative +3 */
	ck_assert_int_eq(o[1].kind, HD_OP_RECV);
	ck_assert(o[1].peer_rel);
	ck_assert_int_eq(o[1].peer, 3);
	ck_assert_int_eq(o[1].dst, 1);
	ck_assert_int_eq(hd_op_peer(sc, &o[1], 0), 3);
	/* nranks - 1 - rank: one rank block per rank */
	for (r = 0; r < 4; r++) {
		const struct hd_op *h = &o[2 + 2 * r];
		ck_assert_int_eq(h->kind, HD_OP_ON_RANK);
		ck_assert_int_eq(h->rank, r);
		ck_assert_int_eq(h->body_len, 1);
		ck_assert_int_eq(h[1].kind, HD_OP_SEND);
		ck_assert(!h[1].peer_rel);
		ck_assert_int_eq(h[1].peer, 3 - r);
		ck_assert_uint_eq(h[1].bytes, 64 * 1024);
		ck_assert_str_eq(h[1].label, "mirror");
		ck_assert_uint_eq(hd_scenario_op_instances(sc, r),
				  2 + 4 + 1 + 2 + 3 - (r == 0 ? 0 : 1));
	}
	i = 10;
	ck_assert_int_eq(o[i].kind, HD_OP_ON_RANK);
	ck_assert_int_eq(o[i].rank, 0);
	ck_assert_int_eq(o[i + 1].kind, HD_OP_COPY);
	ck_assert_int_eq(o[i + 1].copy, HD_COPY_P2P);
	ck_assert_int_eq(o[i + 1].peer, 2);
	ck_assert_str_eq(hd_op_api_name(&o[i + 1]), "cudaMemcpyPeerAsync");
	ck_assert_int_eq(o[i + 2].kind, HD_OP_COLL);
	ck_assert_int_eq(o[i + 2].coll, HD_COLL_ALLREDUCE);
	ck_assert_uint_eq(o[i + 2].bytes, 1u << 20);
	ck_assert_int_eq(o[i + 2].root, HD_NONE);
	ck_assert_str_eq(hd_op_api_name(&o[i + 2]), "ncclAllReduce");
	ck_assert_int_eq(o[i + 3].coll, HD_COLL_BROADCAST);
	ck_assert_int_eq(o[i + 3].root, 2);
	ck_assert_str_eq(hd_op_api_name(&o[i + 3]), "ncclBroadcast");
	ck_assert_int_eq(o[i + 4].kind, HD_OP_BARRIER);
	ck_assert_int_eq(sc->nops, i + 5);
	hd_scenario_free(sc);
	hd_lesson_free(l);
}
END_TEST

START_TEST(knob_set_values)
{
	struct hd_lesson *l = parse_ok(full_lesson);
	double v[4];
	struct hd_err e = { 0 };
	struct hd_scenario *sc;

	hd_lesson_knob_defaults(l, v);
	ck_assert(v[0] == 256.0 * 1024 * 1024 && v[1] == 4 && v[2] == 2e9 && v[3] == 0.5);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "size=64MiB", &e), 0);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "iters=10", &e), 0);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "work=500us", &e), 0);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "share=25%", &e), 0);
	ck_assert(v[0] == 64.0 * 1024 * 1024 && v[1] == 10 && v[2] == 5e8 && v[3] == 0.25);
	ck_assert_int_eq(e.set, 0);

	sc = inst_ok(l, "pinned", v);
	ck_assert_uint_eq(sc->buffers[0].bytes, 64u << 20);
	ck_assert_uint_eq(sc->ops[0].bytes, 64u << 20);
	ck_assert_int_eq(sc->ops[1].duration, 500 * HD_US);
	ck_assert_uint_eq(sc->ops[3].count, 10);
	ck_assert_uint_eq(sc->ops[16].bytes, 16u << 20);
	ck_assert_uint_eq(hd_scenario_op_instances(sc, 0), 11 + 1 + 5 * 10);
	hd_scenario_free(sc);

	ck_assert_int_eq(hd_lesson_knob_set(l, v, "work=5\xc2\xb5s", &e), 0);
	ck_assert(v[2] == 5e6);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "work=0.5ms", &e), 0);
	ck_assert(v[2] == 5e8);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "size=2GiB", &e), -1);
	ck_assert_str_eq(e.where, "--set");
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	ck_assert_ptr_nonnull(strstr(e.msg, "out of range"));
	ck_assert_ptr_nonnull(strstr(e.msg, "1 GiB"));
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "iters=2.5", &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "whole numbers"));
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "size=2ms", &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "a size"));
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "nope=1", &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "no knob 'nope'"));
	ck_assert_ptr_nonnull(strstr(e.msg, "size, iters, work, share"));
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "size", &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "size=64MBs", &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "unknown unit"));
	/* failures leave the values alone */
	ck_assert(v[0] == 64.0 * 1024 * 1024 && v[1] == 10);
	hd_lesson_free(l);
}
END_TEST

/* A trace with one span per (op, start, end, bytes) on stream lane 0. */
static struct hd_trace *
make_trace(const int *ops, const hd_time *t0, const hd_time *t1, const uint64_t *bytes, int n,
	   hd_time blocked)
{
	struct hd_trace *t = hd_trace_new();
	int lane = hd_trace_lane(t, HD_LANE_STREAM, 0, 0, "Stream 0");
	int api = hd_trace_lane(t, HD_LANE_API, 0, 0, "CUDA API");
	int i;

	for (i = 0; i < n; i++) {
		struct hd_span s;
		memset(&s, 0, sizeof s);
		s.lane = lane;
		s.op = ops[i];
		s.kind = HD_SPAN_COPY;
		s.start = t0[i];
		s.end = t1[i];
		s.bytes = bytes[i];
		hd_trace_add(t, &s);
	}
	if (blocked > 0) {
		struct hd_span s;
		memset(&s, 0, sizeof s);
		s.lane = api;
		s.op = 0;
		s.kind = HD_SPAN_BLOCKED;
		s.why = HD_WHY_SYNC_COPY;
		s.start = 0;
		s.end = blocked;
		hd_trace_add(t, &s);
	}
	return t;
}

START_TEST(trace_op_index)
{
	/* spans of ops 3, 1, 3, -1 and one far past the span count */
	int ops[] = { 3, 1, 3, -1, 1 << 30 };
	hd_time t0[] = { 5, 1, 2, 0, 9 }, t1[] = { 6, 2, 8, 1, 10 };
	uint64_t by[] = { 1, 2, 3, 4, 5 };
	struct hd_trace *t = make_trace(ops, t0, t1, by, 5, 0), *bare;
	const uint32_t *ix;
	size_t n;

	ix = hd_trace_op_spans(t, 3, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(ix[0], 0); /* in trace order */
	ck_assert_uint_eq(ix[1], 2);
	ix = hd_trace_op_spans(t, -1, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(ix[0], 3);
	hd_trace_op_spans(t, 2, &n);
	ck_assert_uint_eq(n, 0);
	/* not indexed: the caller scans, and op_time still finds it */
	ck_assert_ptr_null(hd_trace_op_spans(t, 1 << 30, &n));
	ck_assert_int_eq(hd_trace_op_time(t, 1 << 30).found, 1);
	ck_assert_int_eq(hd_trace_op_time(t, 3).start, 2);
	ck_assert_int_eq(hd_trace_op_time(t, 3).end, 8);
	/* sorting reorders the spans: the index follows */
	hd_trace_sort(t);
	ix = hd_trace_op_spans(t, 1, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(t->spans[ix[0]].op, 1);
	ck_assert_int_eq(t->spans[ix[0]].start, 1);
	/* so does adding one */
	{
		struct hd_span x = t->spans[0];

		x.op = 2;
		hd_trace_add(t, &x);
		hd_trace_op_spans(t, 2, &n);
		ck_assert_uint_eq(n, 1);
	}
	/* lanes found by key however many there are */
	for (int r = 0; r < 3000; r++)
		ck_assert_int_eq(hd_trace_lane(t, HD_LANE_HOST, r, 0, "h"), r + 2);
	ck_assert_int_eq(hd_trace_lane(t, HD_LANE_HOST, 1234, 0, NULL), 1236);
	ck_assert_int_eq(hd_trace_lane(t, HD_LANE_STREAM, 0, 0, NULL), 0);
	ck_assert_int_eq(t->nlanes, 3002);
	/* a trace made without hd_trace_new has no index */
	bare = calloc(1, sizeof *bare);
	*bare = *t;
	bare->ix = NULL;
	ck_assert_ptr_null(hd_trace_op_spans(bare, 3, &n));
	ck_assert_int_eq(hd_trace_op_time(bare, 3).found, 1);
	free(bare);
	hd_trace_free(t);
}
END_TEST

START_TEST(claims_eval)
{
	struct hd_lesson *l = parse_ok(full_lesson);
	const uint64_t size = 256u << 20;
	/* pinned: h2d (op 0) 0..10 ms; loop body ops 4..8 from 12 to 20 ms */
	int pops[] = { 0, 4, 8 };
	hd_time p0[] = { 0, 12 * HD_MS, 15 * HD_MS }, p1[] = { 10 * HD_MS, 14 * HD_MS, 20 * HD_MS };
	uint64_t pb[] = { size, 0, 0 };
	/* pageable: h2d (op 2) 1..45 ms */
	int gops[] = { 2 };
	hd_time g0[] = { HD_MS }, g1[] = { 45 * HD_MS };
	uint64_t gb[] = { size };
	struct hd_trace *tr[3];
	struct hd_err e = { 0 };
	double a, b, v;
	char detail[512];
	int rc;

	tr[0] = make_trace(pops, p0, p1, pb, 3, 0);
	tr[1] = make_trace(gops, g0, g1, gb, 1, 7 * HD_MS);
	tr[2] = NULL;

	rc = hd_lesson_claim_eval(l, 0, NULL, tr, &a, &b, detail, sizeof detail, &e);
	ck_assert_int_eq(rc, 1);
	ck_assert(a == (double)(45 * HD_MS));
	ck_assert(b == 2.0 * (double)(20 * HD_MS));
	ck_assert_int_eq(rc, a >= b);
	ck_assert_ptr_nonnull(strstr(detail, "makespan(pageable) = "));
	ck_assert_ptr_nonnull(strstr(detail, ">= 2 * makespan(pinned) = 2 * "));
	ck_assert_ptr_null(strstr(detail, "does not hold"));
	ck_assert_ptr_nonnull(strstr(detail, ": holds"));

	/* 256 MiB in 10 ms against size / 25GB/s = 10.7 ms, within 50 % */
	rc = hd_lesson_claim_eval(l, 1, NULL, tr, &a, &b, detail, sizeof detail, &e);
	ck_assert_int_eq(rc, 1);
	ck_assert(a == (double)(10 * HD_MS));
	ck_assert(b > 1.0737e10 && b < 1.0738e10);
	ck_assert_ptr_nonnull(strstr(detail, "within 50%"));

	rc = hd_lesson_claim_eval(l, 2, NULL, tr, &a, &b, detail, sizeof detail, &e);
	ck_assert_int_eq(rc, 1);
	ck_assert(a == (double)size && b == (double)size);

	/* a label on a loop covers its body: 12 .. 20 ms */
	rc = hd_lesson_claim_eval(l, 3, NULL, tr, &a, &b, detail, sizeof detail, &e);
	ck_assert_int_eq(rc, 1);
	ck_assert(a == (double)(8 * HD_MS));

	/* with a smaller knob the claim's right side moves */
	{
		double k[4];
		hd_lesson_knob_defaults(l, k);
		ck_assert_int_eq(hd_lesson_knob_set(l, k, "size=4KiB", &e), 0);
		rc = hd_lesson_claim_eval(l, 2, k, tr, &a, &b, detail, sizeof detail, &e);
		ck_assert_int_eq(rc, 0);
		ck_assert_ptr_nonnull(strstr(detail, "does not hold"));
	}

	/* an estimate, and an expression text given at run time */
	ck_assert_int_eq(
	    hd_lesson_eval_expr(l, hd_lesson_question(l, 2)->estimate_expr, NULL, tr, &v, &e), 0);
	ck_assert(v == (double)(10 * HD_MS));
	ck_assert_int_eq(hd_lesson_eval_expr(l, "blocked(pageable) + 1ms", NULL, tr, &v, &e), 0);
	ck_assert(v == (double)(8 * HD_MS));
	ck_assert_int_eq(hd_lesson_eval_expr(l, "rate(pinned.h2d)", NULL, tr, &v, &e), 0);
	ck_assert(v > 26.8e9 && v < 26.9e9);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lesson_eval_expr(l, "makespan(nope)", NULL, tr, &v, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "no scenario named 'nope'"));
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lesson_eval_expr(l, "makespan(ring)", NULL, tr, &v, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "not run"));

	/* an unrun scenario: not checked */
	hd_trace_free(tr[1]);
	tr[1] = NULL;
	memset(&e, 0, sizeof e);
	rc = hd_lesson_claim_eval(l, 0, NULL, tr, &a, &b, detail, sizeof detail, &e);
	ck_assert_int_eq(rc, -1);
	ck_assert(e.set);
	ck_assert_ptr_nonnull(strstr(e.msg, "pageable"));
	hd_trace_free(tr[0]);
	hd_trace_free(make_trace(gops, g0, g1, gb, 0, 0));
	hd_lesson_free(l);
}
END_TEST

START_TEST(claims_evaluator_agrees)
{
	/* one evaluator for every claim says what one call per claim says */
	struct hd_lesson *l = parse_ok(full_lesson);
	int pops[] = { 0, 4, 8 };
	hd_time p0[] = { 0, 12 * HD_MS, 15 * HD_MS }, p1[] = { 10 * HD_MS, 14 * HD_MS, 20 * HD_MS };
	uint64_t pb[] = { 256u << 20, 0, 0 };
	int gops[] = { 2 };
	hd_time g0[] = { HD_MS }, g1[] = { 45 * HD_MS };
	uint64_t gb[] = { 256u << 20 };
	struct hd_trace *tr[3];
	struct hd_claims *ev;
	int i, pass;

	tr[0] = make_trace(pops, p0, p1, pb, 3, 0);
	tr[1] = make_trace(gops, g0, g1, gb, 1, 7 * HD_MS);
	tr[2] = NULL;
	ev = hd_claims_new(l, NULL, tr);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < hd_lesson_nclaims(l); i++) {
			struct hd_err e1 = { 0 }, e2 = { 0 };
			double a1 = 0, b1 = 0, a2 = 0, b2 = 0;
			char d1[512], d2[512];
			int r1 = hd_lesson_claim_eval(l, i, NULL, tr, &a1, &b1, d1, sizeof d1, &e1);
			int r2 = hd_claims_eval(ev, i, &a2, &b2, d2, sizeof d2, &e2);

			ck_assert_int_eq(r1, r2);
			ck_assert(a1 == a2 && b1 == b2);
			ck_assert_str_eq(d1, d2);
			ck_assert_str_eq(e1.msg, e2.msg);
		}
	ck_assert_int_eq(hd_claims_eval(ev, 99, NULL, NULL, NULL, 0, &(struct hd_err){ 0 }), -1);
	hd_claims_free(ev);
	hd_claims_free(NULL);
	hd_trace_free(tr[0]);
	hd_trace_free(tr[1]);
	hd_lesson_free(l);
}
END_TEST

START_TEST(clone_roundtrip)
{
	struct hd_lesson *l = parse_ok(full_lesson);
	int s, i;

	hd_scenario_free(NULL);
	ck_assert_ptr_null(hd_scenario_clone(NULL));
	for (s = 0; s < hd_lesson_nscenarios(l); s++) {
		struct hd_scenario *a = inst_ok(l, hd_lesson_scenario_name(l, s), NULL);
		struct hd_scenario *b = hd_scenario_clone(a);

		ck_assert_ptr_ne(a, b);
		ck_assert_str_eq(a->name, b->name);
		ck_assert_ptr_ne(a->name, b->name);
		ck_assert_str_eq(a->title, b->title);
		ck_assert_int_eq(a->nranks, b->nranks);
		ck_assert_int_eq(a->per_thread_default, b->per_thread_default);
		ck_assert_int_eq(a->nbuffers, b->nbuffers);
		for (i = 0; i < a->nbuffers; i++) {
			ck_assert_str_eq(a->buffers[i].name, b->buffers[i].name);
			ck_assert_ptr_ne(a->buffers[i].name, b->buffers[i].name);
			ck_assert_int_eq(a->buffers[i].mem, b->buffers[i].mem);
			ck_assert_uint_eq(a->buffers[i].bytes, b->buffers[i].bytes);
			ck_assert_int_eq(a->buffers[i].line, b->buffers[i].line);
			ck_assert_int_eq(a->buffers[i].col, b->buffers[i].col);
		}
		ck_assert_int_eq(a->nstreams, b->nstreams);
		for (i = 0; i < a->nstreams; i++) {
			ck_assert_str_eq(a->streams[i].name, b->streams[i].name);
			ck_assert_uint_eq(a->streams[i].flags, b->streams[i].flags);
			ck_assert_int_eq(a->streams[i].priority, b->streams[i].priority);
		}
		ck_assert_int_eq(a->nevents, b->nevents);
		for (i = 0; i < a->nevents; i++) {
			ck_assert_str_eq(a->events[i].name, b->events[i].name);
			ck_assert_int_eq(a->events[i].timing, b->events[i].timing);
		}
		ck_assert_int_eq(a->nops, b->nops);
		for (i = 0; i < a->nops; i++) {
			const struct hd_op *x = &a->ops[i], *y = &b->ops[i];
			ck_assert_int_eq(x->kind, y->kind);
			ck_assert_int_eq(x->line, y->line);
			ck_assert_int_eq(x->col, y->col);
			if (x->label != NULL) {
				ck_assert_str_eq(x->label, y->label);
				ck_assert_ptr_ne(x->label, y->label);
			} else {
				ck_assert_ptr_null(y->label);
			}
			if (x->text != NULL)
				ck_assert_str_eq(x->text, y->text);
			else
				ck_assert_ptr_null(y->text);
			ck_assert_int_eq(x->stream, y->stream);
			ck_assert_int_eq(x->event, y->event);
			ck_assert_int_eq(x->src, y->src);
			ck_assert_int_eq(x->dst, y->dst);
			ck_assert_int_eq(x->peer, y->peer);
			ck_assert_int_eq(x->peer_rel, y->peer_rel);
			ck_assert_int_eq(x->root, y->root);
			ck_assert_int_eq(x->rank, y->rank);
			ck_assert_int_eq(x->async, y->async);
			ck_assert_int_eq(x->to_device, y->to_device);
			ck_assert_int_eq(x->copy, y->copy);
			ck_assert_int_eq(x->kernel, y->kernel);
			ck_assert_int_eq(x->coll, y->coll);
			ck_assert_uint_eq(x->bytes, y->bytes);
			ck_assert(x->flops == y->flops);
			ck_assert_int_eq(x->duration, y->duration);
			ck_assert_uint_eq(x->grid, y->grid);
			ck_assert_uint_eq(x->count, y->count);
			ck_assert_int_eq(x->body_len, y->body_len);
		}
		hd_scenario_free(a);
		hd_scenario_free(b);
	}
	hd_lesson_free(l);
	hd_lesson_free(NULL);
}
END_TEST

START_TEST(ir_names)
{
	struct hd_op op;
	int k;

	for (k = 0; k < HD_OP__COUNT; k++) {
		memset(&op, 0, sizeof op);
		op.kind = (enum hd_op_kind)k;
		ck_assert_ptr_nonnull(hd_op_api_name(&op));
		ck_assert_str_ne(hd_op_kind_name((enum hd_op_kind)k), "?");
	}
	ck_assert_str_eq(hd_op_kind_name(HD_OP__COUNT), "?");
	ck_assert_str_eq(hd_mem_name(HD_MEM_PINNED), "pinned");
	ck_assert_str_eq(hd_kernel_name(HD_KERNEL_REDUCE), "reduce");
	ck_assert_str_eq(hd_coll_name(HD_COLL_REDUCESCATTER), "reducescatter");
	ck_assert_str_eq(hd_copy_kind_name(HD_COPY_D2H), "DtoH");
	ck_assert_int_eq(hd_copy_kind_of(HD_MEM_PAGEABLE, HD_MEM_DEVICE, false), HD_COPY_H2D);
	ck_assert_int_eq(hd_copy_kind_of(HD_MEM_DEVICE, HD_MEM_PINNED, false), HD_COPY_D2H);
	ck_assert_int_eq(hd_copy_kind_of(HD_MEM_DEVICE, HD_MEM_DEVICE, false), HD_COPY_D2D);
	ck_assert_int_eq(hd_copy_kind_of(HD_MEM_PINNED, HD_MEM_PAGEABLE, false), HD_COPY_H2H);
	ck_assert_int_eq(hd_copy_kind_of(HD_MEM_DEVICE, HD_MEM_DEVICE, true), HD_COPY_P2P);
	memset(&op, 0, sizeof op);
	op.kind = HD_OP_EVENT_SYNC;
	ck_assert_str_eq(hd_op_api_name(&op), "cudaEventSynchronize");
	op.kind = HD_OP_STREAM_SYNC;
	ck_assert_str_eq(hd_op_api_name(&op), "cudaStreamSynchronize");
	op.kind = HD_OP_DEVICE_SYNC;
	ck_assert_str_eq(hd_op_api_name(&op), "cudaDeviceSynchronize");
	op.kind = HD_OP_WAIT;
	ck_assert_str_eq(hd_op_api_name(&op), "cudaStreamWaitEvent");
	op.kind = HD_OP_KERNEL;
	ck_assert_str_eq(hd_op_api_name(&op), "cudaLaunchKernel");
	op.kind = HD_OP_PIN;
	ck_assert_str_eq(hd_op_api_name(&op), "cudaHostRegister");
	op.kind = HD_OP_PREFETCH;
	ck_assert_str_eq(hd_op_api_name(&op), "cudaMemPrefetchAsync");
	op.kind = HD_OP_EVENT_QUERY;
	ck_assert_str_eq(hd_op_api_name(&op), "cudaEventQuery");
	op.kind = HD_OP_RECORD;
	ck_assert_str_eq(hd_op_api_name(&op), "cudaEventRecord");
}
END_TEST

/* --- errors ------------------------------------------------------------------------ */

#define HDR "hdsim 1\nlesson t\ntitle \"T\"\n"

struct bad_case {
	const char *text;
	int line, col;
	const char *frag;
};

/* Errors found by parsing. */
static const struct bad_case parse_bad[] = {
	{ HDR "scenario a\n  bufer h pinned 1MiB\nend\n", 5, 3, "did you mean 'buffer'?" },
	{ HDR "scenaro a\nend\n", 4, 1, "did you mean 'scenario'?" },
	{ HDR "scenario a\n  frobnicate\nend\n", 5, 3, "unknown statement 'frobnicate'" },
	{ HDR "scenario a\n  buffer h pinned 64MBs\nend\n", 5, 21, "unknown unit 'MBs'" },
	{ HDR "scenario a\n  buffer h pinned 2ms\nend\n", 5, 19,
	  "expected a size such as 64MiB after 'buffer h pinned', found a time '2ms'" },
	{ HDR "scenario a\n  buffer h pinned 64 MiB\nend\n", 5, 19,
	  "found a plain number '64' (write the unit right after the number, with no space: "
	  "'64MiB')" },
	{ HDR "scenario a\n  buffer h pinned fast\nend\n", 5, 19,
	  "expected a size such as 64MiB after 'buffer h pinned', found 'fast'" },
	{ HDR "scenario a\n  buffer h pinned 1MiB + 2ms\nend\n", 5, 24,
	  "cannot add a size ('1MiB') and a time ('2ms')" },
	{ HDR "scenario a\n  buffer h fast 1MiB\nend\n", 5, 12,
	  "expected the buffer's memory (pageable, pinned, managed or device)" },
	{ HDR "scenario a\n  buffer h pinned 1MiB\n  copy h -> x\nend\n", 6, 13,
	  "no buffer named 'x' in scenario a (buffers: h)" },
	{ HDR "scenario a\n  buffer d device 1MiB\n  kernel fill d on s9\nend\n", 6, 20,
	  "no stream named 's9' in scenario a (streams: default, per-thread)" },
	{ HDR "scenario a\n  record e1\nend\n", 5, 10,
	  "no event named 'e1' in scenario a (events: none declared)" },
	{ HDR "scenario a\n  buffer h pinned 1MiB\n  sync h\nend\n", 6, 8,
	  "'h' is a buffer, but 'sync' needs an event, a stream or 'device'" },
	{ HDR "scenario a\n  stream s\n  buffer d device 1MiB\n  copy s -> d\nend\n", 7, 8,
	  "'s' is a stream, but 'copy' needs a buffer" },
	{ HDR "scenario a\n  buffer d device 1MiB\n  prefetch d to device\nend\n", 6, 12,
	  "buffer d is device memory: 'prefetch' moves managed memory" },
	{ HDR "scenario a\n  buffer h pinned 1MiB\n  read h\nend\n", 6, 8,
	  "a host buffer is already on the host" },
	{ HDR "scenario a\n  buffer h pinned 1MiB\n  pin h\nend\n", 6, 7,
	  "'pin' registers pageable memory" },
	{ HDR "scenario a\n  buffer h pinned 1MiB\n  kernel fill h\nend\n", 6, 15,
	  "kernels read and write device or managed memory" },
	{ HDR "scenario a\n  buffer h pinned 1MiB\n", 4, 1,
	  "'scenario a' opened here is never closed" },
	{ HDR "scenario a\n  repeat 3\n    host 1ms\nend\nclaim \"x\" makespan(a) > 0s\n", 4, 1,
	  "'scenario a' opened here is never closed: found 'claim' at line 8" },
	{ HDR "scenario a\n  repeat 3\n    host 1ms\n", 5, 3,
	  "'repeat 3' opened here is never closed" },
	{ HDR "page \"P\"\n| text\n", 4, 1, "'page' opened here is never closed" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n", 4, 1,
	  "'question q' opened here is never closed" },
	{ HDR "end\n", 4, 1, "'end' without a block to close" },
	{ HDR "scenario a\nend\nend\n", 6, 1, "'end' without a block to close" },
	{ HDR "scenario a\n  buffer h pinned 1MiB\n  stream h\nend\n", 6, 10,
	  "'h' is already declared as a buffer in scenario a (line 5)" },
	{ HDR "scenario a\n  event e\n  event e\nend\n", 6, 9, "already declared as an event" },
	{ HDR "scenario a\n  buffer default pinned 1MiB\nend\n", 5, 10,
	  "'default' is a built-in stream" },
	{ HDR "scenario a\n  stream device\nend\n", 5, 10, "'device' is reserved" },
	{ HDR "scenario a\nend\nscenario a\nend\n", 6, 10, "scenario 'a' is declared twice" },
	{ HDR "knob n 4 1 .. 8 \"x\"\nknob n 4 1 .. 8 \"x\"\nscenario a\nend\n", 5, 6,
	  "knob 'n' is declared twice" },
	{ HDR "scenario a\n  x: host 1ms\n  x: host 2ms\nend\n", 6, 3,
	  "label 'x' is used twice in scenario a" },
	{ HDR "knob size 2GiB 4KiB .. 1GiB \"bytes\"\nscenario a\nend\n", 4, 11,
	  "knob size: the default 2 GiB is outside its range 4 KiB .. 1 GiB" },
	{ HDR "knob size 2MiB 4KiB .. 1s \"bytes\"\nscenario a\nend\n", 4, 11,
	  "all three need the same unit" },
	{ HDR "knob size 2MiB 4KiB 1GiB \"bytes\"\nscenario a\nend\n", 4, 21, "expected '..'" },
	{ HDR "scenario a\nend\nclaim \"x\" 1 < 2\n", 6, 1, "the claim names no scenario" },
	{ HDR "scenario a\nend\nclaim \"x\" makespan(zzz) < 1s\n", 6, 20,
	  "no scenario named 'zzz' (scenarios: a)" },
	{ HDR "scenario a\n  host 1ms\nend\nclaim \"x\" time(a.nope) < 1s\n", 7, 18,
	  "scenario a has no op labelled 'nope' (labels: none" },
	{ HDR "scenario a\nend\nclaim \"x\" makespan(a) < 1MiB\n", 6, 23,
	  "the two sides of the claim do not agree" },
	{ HDR "scenario a\nend\nclaim \"x\" makespan(a) == 1s\n", 6, 23, "'==' needs a tolerance" },
	{ HDR "scenario a\nend\nclaim \"x\" makespan(a) 1s\n", 6, 23, "expected a comparison" },
	{ HDR "scenario a\nend\nclaim \"x\" makespan(a.b) < 1s\n", 6, 21,
	  "makespan() takes a scenario name only" },
	{ HDR "scenario a\n  buffer h pinned makespan(a)\nend\n", 5, 19,
	  "makespan() measures a run" },
	{ "hdsim 1\ntitle \"T\"\nscenario a\nend\n", 1, 1, "no 'lesson ID' line" },
	{ "hdsim 1\nlesson t\nscenario a\nend\n", 1, 1, "no 'title" },
	{ HDR, 1, 1, "the lesson has no scenario" },
	{ "hdsim 2\n", 1, 7, "format version 2 is not supported" },
	{ "lesson t\n", 1, 1, "expected the format line 'hdsim 1' first, found 'lesson'" },
	{ "", 1, 1, "expected the format line 'hdsim 1'" },
	{ "hdsim 1\nlesson t\ntitle \"T\n", 3, 7, "unterminated string" },
	{ "hdsim 1\nlesson t\ntitle \"T\\q\"\n", 3, 9, "unknown escape" },
	{ "hdsim 1\nlesson t\ntitle \"T\xff\"\n", 3, 9, "invalid UTF-8 (byte 0xff)" },
	{ "hdsim 1\nlesson t\ntitle \"\xc3\xa9t\xc3\xa9\" \xc0\x80\n", 3, 13, "invalid UTF-8" },
	{ "hdsim 1\nlesson t\x01\n", 2, 9, "control character 0x01" },
	{ HDR "scenario a\n  send d to 1\nend\n", 5, 3,
	  "'send' needs a scenario with several "
	  "ranks" },
	{ HDR "scenario a\n  buffer d device 1MiB\n  kernel memory 1MiB * rank\nend\n", 6, 24,
	  "'rank' can only be used in a scenario that declares 'ranks N'" },
	{ HDR "scenario a\n  ranks 2\n  buffer d device 1MiB\n  repeat rank + 1\n  end\nend\n", 7,
	  10, "'repeat' must be the same on every rank" },
	{ HDR "scenario a\n  ranks 2\n  buffer d device 1MiB\n  kernel memory 1MiB * rank\nend\n",
	  7, 24, "only a peer (send to, recv from, @) may use 'rank'" },
	{ HDR "scenario a\n  buffer h pinned 1MiB\n  buffer d device 1MiB\n  stream s\n"
	      "  copy h -> d on s\nend\n",
	  8, 3, "cudaMemcpy always uses the default stream" },
	{ HDR "scenario a\n  buffer d device 1MiB\n  kernel fill d grid 2 grid 3\nend\n", 6, 24,
	  "'grid' is given twice" },
	{ HDR "scenario a\n  buffer d device 1MiB\n  kernel fill d async\nend\n", 6, 17,
	  "expected 'on STREAM', 'grid N' or the end of the line" },
	{ HDR "scenario a\n  x: buffer h pinned 1MiB\nend\n", 5, 3,
	  "a label names an operation; 'buffer' is not one" },
	{ HDR "scenario a\n  host (1ms\nend\n", 5, 12, "expected ')' to match the '('" },
	{ HDR "knob t 1ms 1us .. 1s \"x\"\nscenario a\n  host t-a\nend\n", 6, 8,
	  "found 't-a', which is not a knob (to subtract, put spaces around '-')" },
	{ HDR "scenario a\n  host rank-1\nend\n", 5, 8,
	  "'rank' can only be used in a scenario that declares 'ranks N'" },
	{ HDR "scenario a\n| text\nend\n", 5, 1,
	  "expected a statement inside a scenario, found a page line ('|')" },
	{ HDR "| text\n", 4, 1, "a page line ('|') outside a page" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\nend\nscenario "
	      "a\nend\n",
	  4, 1, "question q has no 'answer'" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\n  answer c\nend\n"
	      "scenario a\nend\n",
	  7, 10, "expected the id of an option declared above" },
	{ HDR "question q order \"Q?\"\n  item a \"A\"\n  item b \"B\"\n  answer a a\nend\n"
	      "scenario a\nend\n",
	  7, 12, "item 'a' is listed twice" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\n  answer a\n"
	      "  scenario zz\nend\nscenario a\nend\n",
	  8, 12,
	  "names scenario 'zz', which does not "
	  "exist" },
	{ HDR "question q estimate \"Q?\"\n  answer makespan(a) unit MiB within 10%\nend\n"
	      "scenario a\nend\n",
	  5, 27, "the answer is a time but the unit 'MiB' is a size" },
	{ HDR "question q estimate \"Q?\"\n  answer makespan(a) unit ms within 10\nend\n"
	      "scenario a\nend\n",
	  5, 37, "expected a percentage such as 25%" },
	{ HDR "question q pick \"Q?\"\nend\n", 4, 12, "expected the question's kind" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\n  answer a\n"
	      "scenario a \"A\"\n  host 1ms\nend\n",
	  4, 1, "'question q' opened here is never closed: found 'scenario' at line 8" },
	{ HDR "scenario a\n  host 1ms\nend\ntitle \"again\"\n", 7, 1, "'title' must come before" },
	{ HDR "title \"again\"\n", 4, 1, "'title' is given twice" },
	{ HDR "scenario a\n  buffer h pinned 64MiB extra\nend\n", 5, 25,
	  "unexpected 'extra' after 'buffer h pinned 64MiB': expected the end of the line" },
	/* a quantity the op does not have: the claim and the op are named */
	{ HDR "scenario a\n  k: kernel spin 1ms\nend\nclaim \"fast\" rate(a.k) > 1GB/s\n", 7, 21,
	  "claim \"fast\" asks for the rate of a.k, a kernel, which moves no data" },
	{ HDR "scenario a\n  s: sync device\nend\nclaim \"b\" bytes(a.s) > 1B\n", 7, 19,
	  "asks for the bytes of a.s, a sync device, which moves no data" },
	{ HDR "scenario a\n  r: repeat 2\n    host 1ms\n  end\nend\n"
	      "claim \"b\" 2 * bytes(a.r) > 1B\n",
	  9, 23, "a.r, a repeat block, which moves no data" },
	{ HDR "question q estimate \"How fast?\"\n  answer rate(a.k) unit GB/s within 10%\n"
	      "end\nscenario a\n  k: kernel spin 1ms\nend\n",
	  5, 17, "question q asks for the rate of a.k, a kernel" },
	/* require: a comparison of knobs and a message */
	{ HDR "knob n 4 1 .. 8 \"n\"\nrequire n < 2ms \"m\"\nscenario a\n  host 1ms\nend\n", 5, 11,
	  "the two sides of the requirement do not agree" },
	{ HDR "knob n 4 1 .. 8 \"n\"\nrequire n < 2\nscenario a\n  host 1ms\nend\n", 5, 14,
	  "what the requirement says" },
	{ HDR "require makespan(a) < 2ms \"m\"\nscenario a\n  host 1ms\nend\n", 4, 9, "makespan" },
	{ HDR "knob n 4 1 .. 8 \"n\"\nrequire n % 2ms == 0 \"m\"\nscenario a\n  host 1ms\nend\n", 5,
	  11, "cannot take the remainder of a number ('n') by a time ('2ms')" },
	/* points and misconceptions */
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\n  answer a\n"
	      "  points 2\n  points 3\nend\nscenario a\n  host 1ms\nend\n",
	  9, 3, "'points' is given twice" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\n  answer a\n"
	      "  points 1.5\nend\nscenario a\n  host 1ms\nend\n",
	  8, 10, "expected a whole number of points from 0 to 1000 after 'points', found" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\n  answer a\n"
	      "  points 1001\nend\nscenario a\n  host 1ms\nend\n",
	  8, 10, "from 0 to 1000" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\n  answer a\n"
	      "  points 2ms\nend\nscenario a\n  host 1ms\nend\n",
	  8, 10, "whole number of points" },
	{ HDR "question q choice \"Q?\"\n  misconception \"m\"\n  option a \"A\"\n"
	      "  option b \"B\"\n  answer a\nend\nscenario a\n  host 1ms\nend\n",
	  5, 3, "'misconception' explains the option declared just above it" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\n"
	      "  misconception \"m\"\n  misconception \"n\"\n  answer a\nend\nscenario a\n"
	      "  host 1ms\nend\n",
	  8, 3, "option b already has a misconception" },
	{ HDR "question q order \"Q?\"\n  item a \"A\"\n  misconception \"m\"\n  item b \"B\"\n"
	      "  answer a b\nend\nscenario a\n  host 1ms\nend\n",
	  6, 3, "'misconception' belongs to the options of a choice question" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  misconception \"m\"\n"
	      "  option b \"B\"\n  answer a\nend\nscenario a\n  host 1ms\nend\n",
	  4, 1, "option a is the answer, so it stands for no misconception" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  misconception\n"
	      "  option b \"B\"\n  answer a\nend\nscenario a\n  host 1ms\nend\n",
	  6, 16, "expected what choosing the option suggests the learner thinks in double quotes" },
	{ HDR "question q choice \"Q?\"\n  option a \"A\"\n  option b \"B\"\n  answer a\n"
	      "  pionts 2\nend\nscenario a\n  host 1ms\nend\n",
	  8, 3, "did you mean 'points'" },
	/* replaces names the lesson's own id */
	{ HDR "replaces other\nscenario a\n  host 1ms\nend\n", 1, 1,
	  "'replaces other' names another lesson" },
	{ HDR "scenario a\n  host 2ms / 0\nend\n", 0, 0, NULL }, /* instantiation, below */
};

static void
check_error(const struct hd_err *e, const char *path, int line, int col, const char *frag,
	    const char *text)
{
	char where[128];

	snprintf(where, sizeof where, "%s:%d:%d", path, line, col);
	ck_assert_msg(e->set, "no error for:\n%s", text);
	ck_assert_int_eq(e->status, HD_EXIT_INPUT);
	ck_assert_msg(strcmp(e->where, where) == 0, "where '%s', expected '%s' (msg: %s) for:\n%s",
		      e->where, where, e->msg, text);
	ck_assert_msg(strstr(e->msg, frag) != NULL, "message '%s' lacks '%s'", e->msg, frag);
	ck_assert_msg(strchr(e->context, '^') != NULL || line > 0, "no caret");
}

START_TEST(claims_limit)
{
	struct hd_buf b;
	struct hd_err e = { 0 };
	struct hd_lesson *l;
	int i;

	hd_buf_init(&b);
	hd_buf_puts(&b, HDR "scenario a\n  host 1us\nend\n");
	for (i = 0; i < 100000; i++)
		hd_buf_puts(&b, "claim \"c\" makespan(a) > 0s\n");
	l = hd_lesson_parse(b.s, b.len, "c.hds", &e);
	ck_assert_msg(l != NULL, "%s", e.msg);
	ck_assert_int_eq(hd_lesson_nclaims(l), 100000);
	hd_lesson_free(l);
	hd_buf_puts(&b, "claim \"c\" makespan(a) > 0s\n");
	ck_assert_ptr_null(hd_lesson_parse(b.s, b.len, "c.hds", &e));
	check_error(&e, "c.hds", 100007, 1, "more than 100000 claims; the limit is 100000", b.s);
	hd_buf_free(&b);
}
END_TEST

START_TEST(parse_errors)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(parse_bad); i++) {
		const struct bad_case *c = &parse_bad[i];
		struct hd_err e = { 0 };
		struct hd_lesson *l;

		if (c->frag == NULL)
			continue;
		l = hd_lesson_parse(c->text, strlen(c->text), "bad.hds", &e);
		ck_assert_msg(l == NULL, "case %zu parsed:\n%s", i, c->text);
		check_error(&e, "bad.hds", c->line, c->col, c->frag, c->text);
		/* the caret sits under the column on the quoted line */
		ck_assert_msg(e.context[0] != '\0', "no context for case %zu", i);
		{
			const char *caret = strchr(e.context, '\n');
			ck_assert_ptr_nonnull(caret);
			ck_assert_int_eq((int)strlen(caret + 1), c->col);
			ck_assert_int_eq(caret[c->col], '^');
		}
	}
}
END_TEST

START_TEST(context_caret)
{
	const char *text = HDR "scenario a\n\t buffer h pinned 2ms\nend\n";
	struct hd_err e = { 0 };

	ck_assert_ptr_null(hd_lesson_parse(text, strlen(text), "x.hds", &e));
	ck_assert_str_eq(e.where, "x.hds:5:19");
	/* tabs are kept so the caret lines up in a terminal */
	ck_assert_str_eq(e.context, "\t buffer h pinned 2ms\n\t                 ^");
}
END_TEST

START_TEST(nul_overlong_nesting)
{
	struct hd_err e = { 0 };
	struct hd_buf b;
	char text[64] = HDR "#";
	size_t n = strlen(text);
	int i;

	/* a NUL byte inside a comment */
	text[n] = '\0';
	text[n + 1] = 'x';
	text[n + 2] = '\n';
	ck_assert_ptr_null(hd_lesson_parse(text, n + 3, "n.hds", &e));
	check_error(&e, "n.hds", 4, 2, "NUL byte", text);

	hd_buf_init(&b);
	hd_buf_puts(&b, HDR "# ");
	for (i = 0; i < 5000; i++)
		hd_buf_putc(&b, 'x');
	hd_buf_puts(&b, "\nscenario a\nend\n");
	memset(&e, 0, sizeof e);
	ck_assert_ptr_null(hd_lesson_parse(b.s, b.len, "o.hds", &e));
	check_error(&e, "o.hds", 4, 1, "line is 5002 bytes long; the limit is 4096", b.s);
	hd_buf_free(&b);

	/* 15 loops inside a scenario: 16 blocks, fine; 16 loops: too deep */
	for (int depth = 15; depth <= 16; depth++) {
		struct hd_lesson *l;
		hd_buf_init(&b);
		hd_buf_puts(&b, HDR "scenario a\n");
		for (i = 0; i < depth; i++)
			hd_buf_puts(&b, "repeat 2\n");
		hd_buf_puts(&b, "host 1us\n");
		for (i = 0; i < depth; i++)
			hd_buf_puts(&b, "end\n");
		hd_buf_puts(&b, "end\n");
		memset(&e, 0, sizeof e);
		l = hd_lesson_parse(b.s, b.len, "d.hds", &e);
		if (depth == 15) {
			struct hd_scenario *sc;
			ck_assert_msg(l != NULL, "%s", e.msg);
			sc = inst_ok(l, "a", NULL);
			ck_assert_uint_eq(hd_scenario_op_instances(sc, 0), (1u << 16) - 1);
			hd_scenario_free(sc);
			hd_lesson_free(l);
		} else {
			ck_assert_ptr_null(l);
			check_error(&e, "d.hds", 5 + 15, 1, "blocks nest more than 16 deep", b.s);
		}
		hd_buf_free(&b);
	}

	/* parentheses nested past the expression limit */
	hd_buf_init(&b);
	hd_buf_puts(&b, HDR "scenario a\nhost ");
	for (i = 0; i < 200; i++)
		hd_buf_putc(&b, '(');
	hd_buf_puts(&b, "1ms\nend\n");
	memset(&e, 0, sizeof e);
	ck_assert_ptr_null(hd_lesson_parse(b.s, b.len, "p.hds", &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "nested more than"));
	hd_buf_free(&b);
}
END_TEST

/* Errors found by instantiating with values. */
static const struct bad_case inst_bad[] = {
	{ HDR "scenario a\n  buffer h pinned 512MiB\n  buffer d device 256MiB\n"
	      "  copy h -> d\nend\n",
	  7, 3, "copy of 512 MiB does not fit buffer d (256 MiB)" },
	{ HDR "scenario a\n  buffer h pinned 1MiB\n  buffer d device 1MiB\n"
	      "  copy h -> d 2MiB async\nend\n",
	  7, 3, "copy of 2 MiB does not fit buffer h (1 MiB)" },
	{ HDR "scenario a\n  buffer d device 1MiB\n  read d 4MiB\nend\n", 6, 3,
	  "read of 4 MiB does not fit buffer d (1 MiB)" },
	{ HDR "scenario a\n  repeat 2000000000\n    host 1us\n  end\nend\n", 5, 10,
	  "the repeat count must be from 1 to 1000000000" },
	{ HDR "scenario a\n  repeat 2.5\n    host 1us\n  end\nend\n", 5, 10,
	  "the repeat count must be a whole number" },
	{ HDR "scenario a\n  buffer h pinned 999999999999TiB\nend\n", 5, 19,
	  "is too large: the limit is 2^62 bytes" },
	{ HDR "scenario a\n  buffer h pinned 1MiB - 2MiB\nend\n", 5, 19, "cannot be negative" },
	{ HDR "scenario a\n  buffer h pinned 0B\nend\n", 5, 19, "would be empty" },
	{ HDR "scenario a\n  repeat 100000\n    repeat 10000\n      host 1us\n    end\n  "
	      "end\nend\n",
	  4, 1, "op executions per rank; the limit is 10^8" },
	{ HDR "scenario a\n  host 2ms / 0\nend\n", 5, 12, "division by zero" },
	{ HDR "scenario a\n  ranks 16385\nend\n", 5, 9,
	  "the number of ranks must be from 1 to "
	  "16384" },
	{ HDR "scenario a\n  ranks 2\n  buffer d device 1MiB\n  send d to rank\nend\n", 7, 13,
	  "is rank 0 itself" },
	{ HDR "scenario a\n  ranks 2\n  rank 2\n  end\nend\n", 6, 8,
	  "the rank must be from 0 to "
	  "1" },
	{ HDR "scenario a\n  ranks 2\n  buffer d device 1MiB\n  broadcast d root 5\nend\n", 7, 20,
	  "the root rank must be from 0 to 1" },
	{ HDR "scenario a\n  buffer d device 1MiB\n  kernel fill d grid 0\nend\n", 6, 22,
	  "the grid must be from 1 to" },
	{ HDR "knob n 1 0 .. 4 \"x\"\nscenario a\n  repeat n\n    host 1us\n  end\nend\n", 6, 10,
	  "the repeat count must be from 1" },
};

START_TEST(instantiate_errors)
{
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(inst_bad); i++) {
		const struct bad_case *c = &inst_bad[i];
		struct hd_err e = { 0 };
		struct hd_lesson *l = parse_ok(c->text);
		double k[4];
		struct hd_scenario *sc;

		hd_lesson_knob_defaults(l, k);
		if (hd_lesson_nknobs(l) == 1)
			k[0] = 0; /* a value --set could not give, as a library caller might */
		sc = hd_lesson_instantiate(l, 0, k, &e);
		ck_assert_msg(sc == NULL, "case %zu instantiated:\n%s", i, c->text);
		check_error(&e, "t.hds", c->line, c->col, c->frag, c->text);
		ck_assert_ptr_nonnull(strchr(e.context, '^'));
		hd_lesson_free(l);
	}
}
END_TEST

START_TEST(claim_not_run)
{
	struct hd_lesson *l = parse_ok(full_lesson);
	struct hd_trace *none[3] = { NULL, NULL, NULL };
	struct hd_err e = { 0 };
	double a, b;
	char d[128];
	int i;

	for (i = 0; i < hd_lesson_nclaims(l); i++) {
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(hd_lesson_claim_eval(l, i, NULL, none, &a, &b, d, sizeof d, &e),
				 -1);
		ck_assert(e.set);
		ck_assert_ptr_nonnull(strstr(e.msg, "not"));
	}
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lesson_claim_eval(l, 99, NULL, none, &a, &b, d, sizeof d, &e), -1);
	hd_lesson_free(l);
}
END_TEST

/* --- shipped lessons and mutations ---------------------------------------------- */

static const char *
srcdir(void)
{
	const char *s = getenv("HDSIM_SRCDIR");

	return s != NULL && *s != '\0' ? s : HDSIM_SRCDIR;
}

/* The binary carries each lesson file byte for byte (build-aux/embed.sh
 * escapes the backslashes and quotes a lesson's strings may hold). */
START_TEST(builtins_are_their_files)
{
	char *dir = hd_xasprintf("%s/lessons", srcdir());

	hd_test_embedded_are_files(hd_builtin_lessons, hd_builtin_lessons_count, dir);
	free(dir);
}
END_TEST

/* Texts of the shipped lessons (non-empty *.hds in lessons/), and the inline one. */
struct corpus {
	char *text[64];
	size_t len[64];
	char *name[64];
	int n;
};

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
corpus_load(struct corpus *c, int with_inline)
{
	char path[4096];
	char *names[64];
	int nn = 0, i;
	DIR *d;
	struct dirent *de;

	memset(c, 0, sizeof *c);
	snprintf(path, sizeof path, "%s/lessons", srcdir());
	if ((d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL && nn < 60) {
			size_t n = strlen(de->d_name);
			if (n > 4 && strcmp(de->d_name + n - 4, ".hds") == 0)
				names[nn++] = hd_xstrdup(de->d_name);
		}
		closedir(d);
	}
	qsort(names, (size_t)nn, sizeof *names, name_cmp);
	for (i = 0; i < nn; i++) {
		struct hd_err e = { 0 };
		size_t len;
		char *text;

		snprintf(path, sizeof path, "%s/lessons/%s", srcdir(), names[i]);
		text = hd_read_file(path, &len, &e);
		ck_assert_msg(text != NULL, "%s: %s", path, e.msg);
		if (len == 0) {
			/* a lesson still being written: nothing to check yet */
			fprintf(stderr, "check_lesson: %s is empty, skipped\n", path);
			free(text);
			free(names[i]);
			continue;
		}
		c->text[c->n] = text;
		c->len[c->n] = len;
		c->name[c->n++] = hd_xstrdup(path);
		free(names[i]);
	}
	if (with_inline) {
		c->text[c->n] = hd_xstrdup(full_lesson);
		c->len[c->n] = strlen(full_lesson);
		c->name[c->n++] = hd_xstrdup("<inline>");
	}
}

static void
corpus_free(struct corpus *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		free(c->text[i]);
		free(c->name[i]);
	}
}

START_TEST(shipped_lessons)
{
	struct corpus c;
	int i, s;

	corpus_load(&c, 0);
	for (i = 0; i < c.n; i++) {
		struct hd_err e = { 0 };
		struct hd_lesson *l = hd_lesson_load(c.name[i], &e);

		ck_assert_msg(l != NULL, "%s: %s: %s\n%s", c.name[i], e.where, e.msg, e.context);
		ck_assert_ptr_nonnull(hd_lesson_id(l));
		ck_assert_int_ge(hd_lesson_nscenarios(l), 1);
		for (s = 0; s < hd_lesson_nscenarios(l); s++) {
			struct hd_scenario *sc = hd_lesson_instantiate(l, s, NULL, &e);
			ck_assert_msg(sc != NULL, "%s scenario %s: %s: %s", c.name[i],
				      hd_lesson_scenario_name(l, s), e.where, e.msg);
			ck_assert_int_ge(sc->nops, 1);
			hd_scenario_free(sc);
		}
		hd_lesson_free(l);
	}
	corpus_free(&c);
}
END_TEST

static uint64_t
rng_next(uint64_t *s)
{
	/* xorshift64*: deterministic and good enough to pick mutations */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static const char *const tokens[] = {
	"end",
	"->",
	"999999999999TiB",
	"\"",
	"#",
	"|",
	"repeat 1000000000",
	"rank",
	"ranks 1024",
	"\xff",
	"\xc3",
	"(",
	")",
	"@",
	"..",
	"1e308",
	"-",
	"0",
	"/ 0",
	"scenario",
	"claim \"c\" makespan(a) < 1s",
	":",
	"\t",
	"send d to rank + 1",
	"repeat 99999",
	"copy",
	"buffer z device 1GiB",
	"on",
	"async",
	"knob",
	"\\",
	"makespan(",
	"1e-300s",
	"\xe2\x80\xae",
	"\r",
	"%",
	"if i % 2 == 0",
	"else",
	"as i",
	"&& !(i != 1) ||",
	"profile(api.launch)",
	"feedback \"f\"",
};

/* One random edit of the text in b. */
static void
mutate(struct hd_buf *b, uint64_t *rng)
{
	struct hd_buf out;
	size_t n = b->len, at = n ? rng_next(rng) % n : 0, i;
	unsigned kind = (unsigned)(rng_next(rng) % 9);

	hd_buf_init(&out);
	switch (kind) {
	case 0: { /* delete a line */
		size_t s = at, e = at;
		while (s > 0 && b->s[s - 1] != '\n')
			s--;
		while (e < n && b->s[e] != '\n')
			e++;
		hd_buf_putn(&out, b->s, s);
		if (e < n)
			hd_buf_putn(&out, b->s + e + 1, n - e - 1);
		break;
	}
	case 1: { /* duplicate a line */
		size_t s = at, e = at;
		while (s > 0 && b->s[s - 1] != '\n')
			s--;
		while (e < n && b->s[e] != '\n')
			e++;
		hd_buf_putn(&out, b->s, e);
		hd_buf_putc(&out, '\n');
		hd_buf_putn(&out, b->s + s, n - s);
		break;
	}
	case 2: { /* swap two lines: move the line at `at` to another place */
		size_t s = at, e = at, to = n ? rng_next(rng) % n : 0;
		struct hd_buf line, rest;
		while (s > 0 && b->s[s - 1] != '\n')
			s--;
		while (e < n && b->s[e] != '\n')
			e++;
		hd_buf_init(&line);
		hd_buf_init(&rest);
		hd_buf_putn(&line, b->s + s, e - s);
		hd_buf_putc(&line, '\n');
		hd_buf_putn(&rest, b->s, s);
		if (e < n)
			hd_buf_putn(&rest, b->s + e + 1, n - e - 1);
		if (to > rest.len)
			to = rest.len;
		while (to > 0 && rest.s[to - 1] != '\n')
			to--;
		hd_buf_putn(&out, rest.s, to);
		hd_buf_putn(&out, line.s, line.len);
		hd_buf_putn(&out, rest.s + to, rest.len - to);
		hd_buf_free(&line);
		hd_buf_free(&rest);
		break;
	}
	case 3: /* flip a bit */
		hd_buf_putn(&out, b->s, n);
		if (n)
			out.s[at] ^= (char)(1u << (rng_next(rng) % 8));
		break;
	case 4: /* insert a random byte */
		hd_buf_putn(&out, b->s, at);
		hd_buf_putc(&out, (char)(rng_next(rng) % 256));
		hd_buf_putn(&out, b->s + at, n - at);
		break;
	case 5: /* delete a few bytes */
		i = 1 + rng_next(rng) % 4;
		hd_buf_putn(&out, b->s, at);
		if (at + i < n)
			hd_buf_putn(&out, b->s + at + i, n - at - i);
		break;
	case 6: /* a NUL byte */
		hd_buf_putn(&out, b->s, at);
		hd_buf_putn(&out, "\0", 1);
		hd_buf_putn(&out, b->s + at, n - at);
		break;
	default: { /* insert a token, sometimes on its own line */
		const char *t = tokens[rng_next(rng) % HD_ARRAY_LEN(tokens)];
		int own = kind == 8;
		hd_buf_putn(&out, b->s, at);
		hd_buf_puts(&out, own ? "\n" : " ");
		hd_buf_puts(&out, t);
		hd_buf_puts(&out, own ? "\n" : " ");
		hd_buf_putn(&out, b->s + at, n - at);
		break;
	}
	}
	if (out.s == NULL)
		hd_buf_puts(&out, "");
	hd_buf_free(b);
	*b = out;
}

/* Whatever the text, parsing returns a lesson or a well-formed error. */
static int
exercise(const char *text, size_t len)
{
	struct hd_err e = { 0 };
	struct hd_lesson *l = hd_lesson_parse(text, len, "m.hds", &e);
	struct hd_trace **none;
	int s, i;

	if (l == NULL) {
		ck_assert(e.set);
		ck_assert_int_eq(e.status, HD_EXIT_INPUT);
		ck_assert(e.where[0] != '\0');
		ck_assert(e.msg[0] != '\0');
		return 0;
	}
	none = hd_xcalloc((size_t)hd_lesson_nscenarios(l) + 1, sizeof *none);
	for (s = 0; s < hd_lesson_nscenarios(l); s++) {
		struct hd_scenario *sc;
		memset(&e, 0, sizeof e);
		sc = hd_lesson_instantiate(l, s, NULL, &e);
		if (sc == NULL) {
			ck_assert(e.set && e.status == HD_EXIT_INPUT);
			continue;
		}
		ck_assert_uint_le(hd_scenario_op_instances(sc, 0), 100000000u);
		hd_scenario_free(sc);
	}
	for (i = 0; i < hd_lesson_nclaims(l); i++) {
		double a, b;
		char d[256];
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(hd_lesson_claim_eval(l, i, NULL, none, &a, &b, d, sizeof d, &e),
				 -1);
		memset(&e, 0, sizeof e);
		hd_lesson_claim_eval(l, i, NULL, NULL, &a, &b, d, sizeof d, &e);
	}
	for (i = 0; i < hd_lesson_nquestions(l); i++) {
		const struct hd_question *q = hd_lesson_question(l, i);
		double v;
		if (q->estimate_expr == NULL)
			continue;
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(hd_lesson_eval_expr(l, q->estimate_expr, NULL, none, &v, &e), -1);
	}
	free(none);
	hd_lesson_free(l);
	return 1;
}

START_TEST(mutations)
{
	struct corpus c;
	const char *env = getenv("HDSIM_MUTATIONS");
	long per = env != NULL ? strtol(env, NULL, 10) : 3000;
	int i, parsed = 0, total = 0;

	if (per < 1)
		per = 1;
	corpus_load(&c, 1);
	for (i = 0; i < c.n; i++) {
		uint64_t rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(i + 1) * 0x100000001b3ull;
		long m;

		ck_assert_int_eq(exercise(c.text[i], c.len[i]), 1);
		for (m = 0; m < per; m++) {
			struct hd_buf b;
			int k, edits = 1 + (int)(rng_next(&rng) % 3);

			hd_buf_init(&b);
			hd_buf_putn(&b, c.text[i], c.len[i]);
			for (k = 0; k < edits; k++)
				mutate(&b, &rng);
			parsed += exercise(b.s, b.len);
			total++;
			hd_buf_free(&b);
		}
	}
	fprintf(stderr, "check_lesson: %d mutated lessons, %d still parse\n", total, parsed);
	/* the mutations must reach past the lexer: some still parse */
	ck_assert_int_gt(parsed, total / 50);
	ck_assert_int_lt(parsed, total);
	corpus_free(&c);
}
END_TEST

/* The worked examples of doc/lesson-format.md parse and instantiate. */
START_TEST(doc_examples)
{
	char path[4096];
	struct hd_err e = { 0 };
	size_t len;
	char *doc, *p, *lesson = NULL, *ring = NULL;
	struct hd_buf b;
	struct hd_lesson *l;
	int s;

	snprintf(path, sizeof path, "%s/doc/lesson-format.md", srcdir());
	doc = hd_read_file(path, &len, &e);
	ck_assert_msg(doc != NULL, "%s", e.msg);
	/* fenced blocks: the one with a whole lesson, the one with a ring */
	for (p = strstr(doc, "```\n"); p != NULL;) {
		char *body = p + 4, *end = strstr(body, "```");
		if (end == NULL)
			break;
		*end = '\0';
		if (lesson == NULL && strstr(body, "\nhdsim 1\nlesson ") != NULL)
			lesson = body;
		else if (ring == NULL && strstr(body, "ranks 4") != NULL &&
			 strncmp(body, "scenario", 8) == 0)
			ring = body;
		p = strstr(end + 3, "```\n");
	}
	ck_assert_ptr_nonnull(lesson);
	ck_assert_ptr_nonnull(ring);
	hd_buf_init(&b);
	hd_buf_puts(&b, lesson);
	hd_buf_puts(&b, ring);
	l = parse_ok(b.s);
	ck_assert_int_ge(hd_lesson_nclaims(l), 3);
	for (s = 0; s < hd_lesson_nscenarios(l); s++)
		hd_scenario_free(inst_ok(l, hd_lesson_scenario_name(l, s), NULL));
	ck_assert_int_eq(hd_lesson_find_scenario(l, "ring"), 2);
	hd_lesson_free(l);
	hd_buf_free(&b);
	free(doc);
}
END_TEST

/* A lesson whose knob breaks a scenario away from its default, and one
 * whose `require` rules out what would break it. */
#define EVERY_KNOBS \
	HDR "knob every 10 1 .. 100 \"steps between checkpoints\"\n" \
	    "knob steps 100 10 .. 1000 \"steps\"\n"
#define EVERY_SCEN "scenario a\n  repeat steps / every\n    host 1us\n  end\nend\n"

START_TEST(require_and_corners)
{
	struct hd_lesson *l = parse_ok(EVERY_KNOBS EVERY_SCEN);
	struct hd_err e = { 0 };
	double v[2];

	/* fine at the defaults, broken at every = 9: lint names the value */
	hd_scenario_free(inst_ok(l, "a", NULL));
	ck_assert_int_eq(hd_lint_knobs(l, &e), -1);
	check_error(&e, "t.hds", 7, 10,
		    "knob every = 9 (between its min 1 and max 100): scenario a: "
		    "the repeat count must be a whole number, but 'steps / every' is 11.1111",
		    "every");
	hd_lesson_free(l);

	/* with a require, values it rules out are refused with its message */
	l = parse_ok(EVERY_KNOBS
		     "require steps % every == 0 \"every must divide steps\"\n" EVERY_SCEN);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lint_knobs(l, &e), 0);
	hd_lesson_knob_defaults(l, v);
	ck_assert_int_eq(hd_lesson_knob_check(l, v, &e), 0);
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "every=7", &e), 0); /* in range: accepted */
	ck_assert_int_eq(hd_lesson_knob_check(l, v, &e), -1);
	check_error(&e, "t.hds", 6, 1,
		    "every must divide steps: 'require steps % every == 0' does not hold for "
		    "steps = 100, every = 7",
		    "require");
	memset(&e, 0, sizeof e);
	ck_assert_ptr_null(hd_lesson_instantiate(l, 0, v, &e));
	ck_assert_ptr_nonnull(strstr(e.msg, "every must divide steps"));
	/* the order of the assignments does not matter: only the result is checked */
	ck_assert_int_eq(hd_lesson_knob_set(l, v, "steps=70", &e), 0);
	hd_scenario_free(inst_ok(l, "a", v));
	hd_lesson_free(l);

	/* a require the defaults break: lint and every run refuse the lesson */
	l = parse_ok(HDR "knob every 7 1 .. 100 \"e\"\nrequire 100 % every == 0 \"no\"\n"
			 "scenario a\n  host 1us\nend\n");
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lint_knobs(l, &e), -1);
	check_error(&e, "t.hds", 5, 1, "no: 'require 100 % every == 0' does not hold for every = 7",
		    "require");
	hd_lesson_free(l);

	/* every corner is tried when there are a few knobs: each alone is fine */
	l = parse_ok(
	    HDR "knob a 2 1 .. 4 \"a\"\nknob b 2 1 .. 4 \"b\"\nscenario s\n"
		"  buffer h pinned a * b * 1MiB\n  buffer d device 8MiB\n  copy h -> d\nend\n");
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_lint_knobs(l, &e), -1);
	ck_assert_msg(strstr(e.msg,
			     "knobs a = 4 (its max), b = 4 (its max): scenario s: copy of "
			     "16 MiB does not fit buffer d (8 MiB)") != NULL,
		      "%s", e.msg);
	hd_lesson_free(l);
}
END_TEST

/* Two lessons with one id: refused with both paths unless one says `replaces`. */
START_TEST(catalog_ids)
{
	static const char one[] = HDR "scenario a\n  host 1ms\nend\n";
	static const char two[] = HDR "scenario a\n  host 2ms\nend\n";
	static const char rep[] = HDR "replaces t\nscenario a\n  host 3ms\nend\n";
	struct hd_catalog *c = hd_catalog_new();
	struct hd_err e = { 0 };
	int i;

	ck_assert_int_ge(hd_catalog_add(c, parse_ok(one), "/a/one.hds", &e), 0);
	/* the same text again is the same lesson */
	ck_assert_int_ge(hd_catalog_add(c, parse_ok(one), "/b/one.hds", &e), 0);
	ck_assert_int_eq(hd_catalog_add(c, parse_ok(two), "/c/two.hds", &e), -1);
	ck_assert_int_eq(e.status, HD_EXIT_INPUT);
	ck_assert_str_eq(e.where, "/c/two.hds");
	ck_assert_ptr_nonnull(strstr(e.msg, "lesson id 't' is already the id of /b/one.hds"));
	ck_assert_int_eq(hd_catalog_count(c), 1);
	ck_assert_str_eq(hd_catalog_origin(c, 0), "/b/one.hds");
	ck_assert_ptr_null(hd_catalog_replaced(c, 0));
	i = hd_catalog_add(c, parse_ok(rep), "/d/rep.hds", &e);
	ck_assert_int_eq(i, 0);
	ck_assert_int_eq(hd_catalog_count(c), 1);
	ck_assert_str_eq(hd_catalog_origin(c, 0), "/d/rep.hds");
	ck_assert_str_eq(hd_catalog_replaced(c, 0), "/b/one.hds");
	ck_assert_str_eq(hd_lesson_replaces(hd_catalog_get(c, 0)), "t");
	hd_catalog_free(c);

	/* a built-in lesson's id */
	c = hd_catalog_new();
	hd_catalog_add_builtin(c);
	memset(&e, 0, sizeof e);
	ck_assert_int_eq(hd_catalog_add(c,
					parse_ok("hdsim 1\nlesson two-streams\ntitle \"T\"\n"
						 "scenario a\n  host 1ms\nend\n"),
					"/x/mine.hds", &e),
			 -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "the built-in lesson"));
	ck_assert_ptr_nonnull(strstr(e.msg, "06-two-streams.hds"));
	ck_assert_ptr_nonnull(strstr(e.msg, "replaces two-streams"));
	hd_catalog_free(c);
}
END_TEST

static Suite *
lesson_suite(void)
{
	Suite *s = suite_create("lesson");
	TCase *tc = tcase_create("core");
	TCase *slow = tcase_create("mutations");

	tcase_add_test(tc, builtins_are_their_files);
	tcase_add_test(tc, full_metadata);
	tcase_add_test(tc, question_points_and_misconceptions);
	tcase_add_test(tc, trace_op_index);
	tcase_add_test(tc, claims_limit);
	tcase_add_test(tc, claims_evaluator_agrees);
	tcase_add_test(tc, full_ir_defaults);
	tcase_add_test(tc, ring_ir);
	tcase_add_test(tc, knob_set_values);
	tcase_add_test(tc, claims_eval);
	tcase_add_test(tc, claim_not_run);
	tcase_add_test(tc, clone_roundtrip);
	tcase_add_test(tc, ir_names);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, context_caret);
	tcase_add_test(tc, nul_overlong_nesting);
	tcase_add_test(tc, instantiate_errors);
	tcase_add_test(tc, shipped_lessons);
	tcase_add_test(tc, doc_examples);
	tcase_add_test(tc, require_and_corners);
	tcase_add_test(tc, catalog_ids);
	suite_add_tcase(s, tc);
	tcase_set_timeout(slow, 600);
	tcase_add_test(slow, mutations);
	suite_add_tcase(s, slow);
	return s;
}

int
main(void)
{
	return hd_test_run(lesson_suite());
}
