/*
 * check_coll.c - several ranks: collective schedules, send/recv, peer
 * copies, barriers, deadlocks and mismatches, on the simulator.
 *
 * Collective figures are checked against the algorithms' own arithmetic
 * (ring all-reduce: 2(n-1) steps moving 2(n-1)/n of the buffer per rank)
 * and against the closed form; rank scenarios come from lesson text so the
 * language, the lowering and the model are exercised together.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lesson.h"
#include "sim/coll.h"
#include "sim/model.h"
#include "tests/testutil.h"

#define MiB (1024ull * 1024ull)

static struct hd_profile
prof(const char *name)
{
	struct hd_profile p;
	struct hd_err e;

	memset(&e, 0, sizeof e);
	if (hd_profile_resolve(name, &p, &e) < 0)
		ck_abort_msg("profile %s: %s", name, e.msg);
	return p;
}

/* --- schedules ----------------------------------------------------------------- */

struct tally {
	uint64_t n;
	uint64_t bytes;
	int bad_order; /* a transfer ending before it starts */
	int self;      /* a transfer from a rank to itself */
};

static void
count(void *ctx, const struct hd_coll_xfer *x)
{
	struct tally *t = ctx;

	t->n++;
	t->bytes += x->bytes;
	if (x->end < x->start)
		t->bad_order = 1;
	if (x->src == x->dst)
		t->self = 1;
}

static hd_time
run_coll(enum hd_coll c, enum hd_coll_algo a, uint64_t bytes, int n, const struct hd_profile *p,
	 struct hd_coll_stats *st, struct tally *t)
{
	hd_time *arrive = calloc((size_t)n, sizeof *arrive);
	hd_time *done = calloc((size_t)n, sizeof *done), end = 0;
	int r;

	hd_coll_schedule(c, a, bytes, 0, n, p, arrive, done, count, t, st);
	for (r = 0; r < n; r++)
		if (done[r] > end)
			end = done[r];
	free(arrive);
	free(done);
	return end;
}

START_TEST(ring_allreduce_steps_and_bytes)
{
	static const int ns[] = { 2, 3, 4, 8 };
	struct hd_profile p = prof("h100-sxm");
	uint64_t S = 96 * MiB; /* divisible by 2, 3, 4 and 8 */
	size_t i;

	for (i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		int n = ns[i];
		struct hd_coll_stats st;
		struct tally t = { 0 };
		struct hd_link l = hd_coll_link(&p, 0, 1);
		hd_time end, want;

		end = run_coll(HD_COLL_ALLREDUCE, HD_ALGO_RING, S, n, &p, &st, &t);
		ck_assert_int_eq(st.algo, HD_ALGO_RING);
		ck_assert_uint_eq(st.steps, 2 * (n - 1));
		ck_assert_uint_eq(st.max_sent, 2 * (uint64_t)(n - 1) * S / (uint64_t)n);
		ck_assert_uint_eq(st.max_recv, 2 * (uint64_t)(n - 1) * S / (uint64_t)n);
		ck_assert_uint_eq(t.n, (uint64_t)n * 2 * (uint64_t)(n - 1));
		ck_assert(!t.bad_order && !t.self);
		/* one node of NVSwitch: every step is one hop of S/n */
		want = p.coll_base +
		    2 * (hd_time)(n - 1) *
			(l.lat + hd_time_for_bytes((double)(S / (uint64_t)n), l.bw));
		ck_assert_msg(llabs(end - want) <= 2 * (n - 1), "n=%d: %lld ps, want %lld", n,
			      (long long)end, (long long)want);
		ck_assert_int_eq(hd_coll_formula(HD_COLL_ALLREDUCE, HD_ALGO_RING, S, n, &p) / 1000,
				 want / 1000);
	}
}
END_TEST

START_TEST(ring_gather_family)
{
	struct hd_profile p = prof("h100-sxm");
	uint64_t S = 64 * MiB;
	int n = 4;
	struct hd_coll_stats st;
	struct tally t = { 0 };

	run_coll(HD_COLL_ALLGATHER, HD_ALGO_AUTO, S, n, &p, &st, &t);
	ck_assert_uint_eq(st.steps, n - 1);
	ck_assert_uint_eq(st.max_sent, (uint64_t)(n - 1) * S / (uint64_t)n);
	memset(&t, 0, sizeof t);
	run_coll(HD_COLL_REDUCESCATTER, HD_ALGO_AUTO, S, n, &p, &st, &t);
	ck_assert_uint_eq(st.steps, n - 1);
	ck_assert_uint_eq(st.max_recv, (uint64_t)(n - 1) * S / (uint64_t)n);
	/* gather: the root receives everyone's share, sends nothing */
	memset(&t, 0, sizeof t);
	run_coll(HD_COLL_GATHER, HD_ALGO_AUTO, S, n, &p, &st, &t);
	ck_assert_uint_eq(t.n, (uint64_t)n - 1);
	ck_assert_uint_eq(st.max_recv, (uint64_t)(n - 1) * S / (uint64_t)n);
	ck_assert_uint_eq(st.max_sent, S / (uint64_t)n);
	/* all-to-all: every rank sends a share to every other */
	memset(&t, 0, sizeof t);
	run_coll(HD_COLL_ALLTOALL, HD_ALGO_AUTO, S, n, &p, &st, &t);
	ck_assert_uint_eq(t.n, (uint64_t)n * (uint64_t)(n - 1));
	ck_assert_uint_eq(st.max_sent, (uint64_t)(n - 1) * S / (uint64_t)n);
}
END_TEST

START_TEST(broadcast_chain)
{
	struct hd_profile p = prof("h100-sxm");
	uint64_t S = 8 * MiB, K = S / p.coll_chunk;
	int n = 4;
	struct hd_coll_stats st;
	struct tally t = { 0 };
	hd_time end, f;

	end = run_coll(HD_COLL_BROADCAST, HD_ALGO_AUTO, S, n, &p, &st, &t);
	/* every chunk crosses n-1 hops; each non-root rank receives it all */
	ck_assert_uint_eq(t.n, K * (uint64_t)(n - 1));
	ck_assert_uint_eq(st.max_recv, S);
	ck_assert_uint_eq(st.max_sent, S);
	ck_assert_uint_eq(st.steps, K + (uint64_t)n - 2);
	f = hd_coll_formula(HD_COLL_BROADCAST, HD_ALGO_AUTO, S, n, &p);
	ck_assert_msg(llabs(end - f) * 100 <= f, "schedule %lld, formula %lld", (long long)end,
		      (long long)f);
	/* pipelining: much less than sending the whole buffer n-1 times */
	ck_assert(end < (hd_time)(n - 1) * hd_time_for_bytes((double)S, hd_coll_link(&p, 0, 1).bw));
}
END_TEST

/* The same schedule without the transfer callback: folded where it may be. */
static hd_time
run_coll_quiet(enum hd_coll c, enum hd_coll_algo a, uint64_t bytes, int n,
	       const struct hd_profile *p, struct hd_coll_stats *st, hd_time *done)
{
	hd_time *arrive = calloc((size_t)n, sizeof *arrive), end = 0;
	int r;

	hd_coll_schedule(c, a, bytes, 0, n, p, arrive, done, NULL, NULL, st);
	for (r = 0; r < n; r++)
		if (done[r] > end)
			end = done[r];
	free(arrive);
	return end;
}

START_TEST(ring_folded_matches_every_rank)
{
	/* 8 nodes of 8: folded to the first node's ranks when nothing is drawn,
	 * every rank's end and the figures must be those of the full ring */
	struct hd_profile p = prof("h100-sxm");
	static const enum hd_coll colls[] = { HD_COLL_ALLREDUCE, HD_COLL_ALLGATHER,
					      HD_COLL_REDUCESCATTER };
	int n = 64, r;
	size_t i;

	for (i = 0; i < sizeof colls / sizeof colls[0]; i++) {
		hd_time *arrive = calloc((size_t)n, sizeof *arrive);
		hd_time *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
		struct hd_coll_stats sa, sb;
		struct tally t = { 0 };

		hd_coll_schedule(colls[i], HD_ALGO_RING, 64 * MiB, 0, n, &p, arrive, a, count, &t,
				 &sa);
		run_coll_quiet(colls[i], HD_ALGO_RING, 64 * MiB, n, &p, &sb, b);
		for (r = 0; r < n; r++)
			ck_assert_int_eq(a[r], b[r]);
		ck_assert_uint_eq(sa.transfers, sb.transfers);
		ck_assert_uint_eq(sa.transfers, t.n);
		ck_assert_uint_eq(sa.steps, sb.steps);
		ck_assert_uint_eq(sa.max_sent, sb.max_sent);
		ck_assert_uint_eq(sa.max_recv, sb.max_recv);
		free(arrive);
		free(a);
		free(b);
	}
}
END_TEST

START_TEST(ring_16384_ranks)
{
	/* the largest published training runs: 2 x 16383 steps on 16384 ranks
	 * would be half a billion transfers; folded, 8 ranks play them */
	struct hd_profile p = prof("h100-sxm");
	int n = 16384;
	hd_time *done = calloc((size_t)n, sizeof *done), end;
	struct hd_coll_stats st;

	end = run_coll_quiet(HD_COLL_ALLREDUCE, HD_ALGO_RING, 1024 * MiB, n, &p, &st, done);
	ck_assert_uint_eq(st.transfers, (uint64_t)n * 2 * (uint64_t)(n - 1));
	ck_assert_uint_eq(st.max_sent, 2 * (uint64_t)(n - 1) * (1024 * MiB / (uint64_t)n));
	ck_assert_int_eq(done[0], done[n - 1]);
	ck_assert_int_eq(done[3], done[8 * 1000 + 3]);
	/* the ring's closed form over the same links, within 2 % */
	ck_assert_msg(
	    llabs(end - hd_coll_formula(HD_COLL_ALLREDUCE, HD_ALGO_RING, 1024 * MiB, n, &p)) * 50 <=
		end,
	    "schedule %lld", (long long)end);
	free(done);
}
END_TEST

START_TEST(broadcast_in_bulk)
{
	/* coll.chunk = 1 B: a billion chunks of 1 GiB; only the first are
	 * played one by one, the rest at their pace, and the figures count
	 * them all */
	struct hd_profile p = prof("h100-sxm");
	uint64_t S = 1024 * MiB, played;
	int n = 8;
	struct hd_coll_stats st;
	struct tally t = { 0 };
	hd_time end, f;

	p.coll_chunk = 1;
	played = hd_coll_played(S, n, &p);
	ck_assert_uint_eq(played, HD_COLL_MAX_TRANSFERS / (uint64_t)n);
	end = run_coll(HD_COLL_BROADCAST, HD_ALGO_AUTO, S, n, &p, &st, &t);
	ck_assert_uint_eq(t.n, played * (uint64_t)(n - 1));
	ck_assert_uint_eq(st.transfers, S * (uint64_t)(n - 1));
	ck_assert_uint_eq(st.max_recv, S);
	ck_assert_uint_eq(st.steps, S + (uint64_t)n - 2);
	/* latency-bound as the chunks are: far slower than the bytes' time */
	f = hd_time_for_bytes((double)S, hd_coll_link(&p, 0, 1).bw);
	ck_assert(end > 100 * f);
	/* below the cap nothing changes: every chunk is played */
	p.coll_chunk = 512 * 1024;
	ck_assert_uint_eq(hd_coll_played(S, n, &p), S / p.coll_chunk);
}
END_TEST

START_TEST(tree_beats_ring_when_latency_dominates)
{
	struct hd_profile p = prof("h100-sxm");
	int n = 256; /* 32 nodes */
	struct hd_coll_stats st;
	struct tally t = { 0 };
	hd_time ring, tree;

	ring = run_coll(HD_COLL_ALLREDUCE, HD_ALGO_RING, 64 * 1024, n, &p, &st, &t);
	tree = run_coll(HD_COLL_ALLREDUCE, HD_ALGO_TREE, 64 * 1024, n, &p, &st, &t);
	ck_assert_int_eq(st.algo, HD_ALGO_TREE);
	ck_assert_msg(tree * 2 < ring, "tree %lld ring %lld", (long long)tree, (long long)ring);
	ck_assert_int_eq(hd_coll_pick(HD_COLL_ALLREDUCE, HD_ALGO_AUTO, 64 * 1024, n, &p),
			 HD_ALGO_TREE);
	/* a big buffer on one node: the ring's bandwidth wins */
	ck_assert_int_eq(hd_coll_pick(HD_COLL_ALLREDUCE, HD_ALGO_AUTO, 1024 * MiB, 8, &p),
			 HD_ALGO_RING);
}
END_TEST

START_TEST(late_rank_holds_everyone)
{
	struct hd_profile p = prof("h100-sxm");
	hd_time arrive[4] = { 0, 0, 5 * HD_MS, 0 }, done[4], alone[4];
	hd_time zero[4] = { 0, 0, 0, 0 };
	int r;

	hd_coll_schedule(HD_COLL_ALLREDUCE, HD_ALGO_RING, 64 * MiB, 0, 4, &p, arrive, done, NULL,
			 NULL, NULL);
	hd_coll_schedule(HD_COLL_ALLREDUCE, HD_ALGO_RING, 64 * MiB, 0, 4, &p, zero, alone, NULL,
			 NULL, NULL);
	for (r = 0; r < 4; r++) {
		ck_assert(done[r] > 5 * HD_MS);
		ck_assert(done[r] >= alone[r]);
	}
}
END_TEST

START_TEST(links_by_topology)
{
	struct hd_profile h = prof("h100-sxm"), a = prof("a100-pcie"), v = prof("gen3-v100");

	ck_assert_int_eq(hd_coll_link(&h, 0, 7).cls, HD_LINK_NVLINK);
	ck_assert_int_eq(hd_coll_link(&h, 7, 8).cls, HD_LINK_NET);
	ck_assert_int_eq(hd_coll_link(&a, 0, 1).cls, HD_LINK_NVLINK); /* a pair */
	ck_assert_int_eq(hd_coll_link(&a, 1, 2).cls, HD_LINK_PCIE);   /* pairs apart */
	ck_assert_int_eq(hd_coll_link(&v, 0, 1).cls, HD_LINK_PCIE);
	ck_assert(hd_coll_link(&h, 0, 1).bw > hd_coll_link(&v, 0, 1).bw);
	ck_assert_int_eq(hd_coll_node(&h, 15), 1);
}
END_TEST

START_TEST(bus_factors)
{
	ck_assert(hd_coll_bus_factor(HD_COLL_ALLREDUCE, 8) == 2.0 * 7 / 8);
	ck_assert(hd_coll_bus_factor(HD_COLL_ALLGATHER, 8) == 7.0 / 8);
	ck_assert(hd_coll_bus_factor(HD_COLL_REDUCESCATTER, 4) == 3.0 / 4);
	ck_assert(hd_coll_bus_factor(HD_COLL_BROADCAST, 8) == 1.0);
	ck_assert(hd_coll_bus_factor(HD_COLL_REDUCE, 8) == 1.0);
	ck_assert(hd_coll_bus_factor(HD_COLL_ALLREDUCE, 1) == 0.0);
}
END_TEST

/* --- scenarios ------------------------------------------------------------------- */

struct run {
	struct hd_trace *t;
	struct hd_model_stats st;
	int rc;
	struct hd_err e;
};

static struct run
run_with(const char *body, struct hd_profile p)
{
	static char text[8192];
	struct hd_lesson *l;
	struct hd_scenario *sc;
	struct hd_sink sink;
	struct run r;

	memset(&r, 0, sizeof r);
	snprintf(text, sizeof text,
		 "hdsim 1\nlesson t\ntitle \"t\"\n"
		 "scenario s\n%send\n",
		 body);
	l = hd_lesson_parse(text, strlen(text), "t.hds", &r.e);
	ck_assert_msg(l != NULL, "%s", r.e.msg);
	sc = hd_lesson_instantiate(l, 0, NULL, &r.e);
	ck_assert_msg(sc != NULL, "%s", r.e.msg);
	r.t = hd_trace_new();
	sink = hd_trace_sink(r.t);
	r.rc = hd_model_run(sc, &p, &sink, NULL, &r.st, &r.e);
	hd_trace_sort(r.t);
	hd_scenario_free(sc);
	hd_lesson_free(l);
	return r;
}

static struct run
run_text(const char *body, const char *profile)
{
	return run_with(body, prof(profile));
}

/* End of the last span on rank `rank` with this label. */
static hd_time
label_end(const struct hd_trace *t, int rank, const char *label)
{
	hd_time end = -1;
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (t->lanes[s->lane].rank == rank && strcmp(t->strings[s->label], label) == 0 &&
		    s->end > end)
			end = s->end;
	}
	return end;
}

START_TEST(send_recv_in_order)
{
	struct run r = run_text("  ranks 2\n  buffer a device 64MiB\n  buffer b device 64MiB\n"
				"  rank 0\n    x: send a to 1\n    y: recv b from 1\n  end\n"
				"  rank 1\n    y1: recv b from 0\n    x1: send a to 0\n  end\n"
				"  sync device\n",
				"h100-sxm");
	struct hd_profile p = prof("h100-sxm");
	struct hd_link l = hd_coll_link(&p, 0, 1);
	hd_time one = p.coll_base + l.lat + hd_time_for_bytes(64.0 * MiB, l.bw);

	ck_assert_msg(r.rc == 0, "%s", r.e.msg);
	ck_assert(!r.st.deadlocked);
	ck_assert(r.t->note == NULL);
	/* the second exchange follows the first: two transfers back to back */
	ck_assert(label_end(r.t, 0, "x") >= one);
	ck_assert(label_end(r.t, 1, "x1") >= 2 * one);
	ck_assert(r.st.makespan < 2 * one + 100 * HD_US);
	hd_trace_free(r.t);
}
END_TEST

START_TEST(send_send_deadlocks)
{
	const char *body = "  ranks 2\n  buffer a device 64MiB\n  buffer b device 64MiB\n"
			   "  send a to rank + 1\n  recv b from rank - 1\n  sync device\n";
	struct run r = run_text(body, "h100-sxm");
	char with[512];

	ck_assert_int_eq(r.rc, -1);
	ck_assert_int_eq(r.e.status, HD_EXIT_FAIL);
	ck_assert(r.st.deadlocked);
	ck_assert_ptr_nonnull(strstr(r.e.msg, "deadlock"));
	ck_assert_ptr_nonnull(
	    strstr(r.e.msg,
		   "rank 0: cudaDeviceSynchronize (line 10) "
		   "waits for ncclSend to rank 1 (line 8), which waits for rank 1 to post "
		   "the matching ncclRecv from rank 0"));
	ck_assert_ptr_nonnull(strstr(r.e.msg, "rank 1: "));
	hd_trace_free(r.t);

	/* the same, marked as the lesson's point: a result, not an error */
	snprintf(with, sizeof with, "  expect deadlock\n%s", body);
	r = run_text(with, "h100-sxm");
	ck_assert_msg(r.rc == 0, "%s", r.e.msg);
	ck_assert(r.st.deadlocked);
	ck_assert_ptr_nonnull(r.t->note);
	ck_assert_ptr_nonnull(strstr(r.t->note, "2 of 2 ranks wait"));
	hd_trace_free(r.t);

	/* separate streams do not help: one communicator runs one call at a time */
	r = run_text("  ranks 2\n  buffer a device 64MiB\n  buffer b device 64MiB\n"
		     "  stream s1\n  stream s2\n  send a to rank + 1 on s1\n"
		     "  recv b from rank - 1 on s2\n  sync device\n",
		     "h100-sxm");
	ck_assert_int_eq(r.rc, -1);
	ck_assert(r.st.deadlocked);
	ck_assert_ptr_nonnull(strstr(r.e.msg,
				     "ncclRecv (line 11), queued behind this "
				     "rank's earlier NCCL call"));
	hd_trace_free(r.t);

	/* expecting a deadlock that does not come is an error */
	r = run_text("  expect deadlock\n  ranks 2\n  buffer a device 1MiB\n"
		     "  allreduce a\n",
		     "h100-sxm");
	ck_assert_int_eq(r.rc, -1);
	ck_assert_ptr_nonnull(strstr(r.e.msg, "every rank finished"));
	hd_trace_free(r.t);
}
END_TEST

START_TEST(collective_waits_for_missing_rank)
{
	struct run r = run_text("  ranks 4\n  buffer d device 16MiB\n"
				"  rank 0\n    allreduce d\n  end\n  sync device\n",
				"h100-sxm");

	ck_assert_int_eq(r.rc, -1);
	ck_assert_ptr_nonnull(strstr(r.e.msg, "1 of 4 ranks wait"));
	ck_assert_ptr_nonnull(strstr(r.e.msg,
				     "ncclAllReduce (line 8), which waits "
				     "for rank 1, rank 2, rank 3 to call it"));
	hd_trace_free(r.t);
}
END_TEST

START_TEST(collective_mismatch)
{
	struct run r = run_text("  ranks 2\n  buffer d device 16MiB\n"
				"  rank 0\n    allreduce d\n  end\n"
				"  rank 1\n    broadcast d\n  end\n  sync device\n",
				"h100-sxm");

	ck_assert_int_eq(r.rc, -1);
	ck_assert_ptr_nonnull(strstr(r.e.msg, "collective mismatch"));
	ck_assert_ptr_nonnull(strstr(r.e.msg, "allreduce"));
	ck_assert_ptr_nonnull(strstr(r.e.msg, "broadcast"));
	hd_trace_free(r.t);
}
END_TEST

START_TEST(allreduce_in_scenario_matches_schedule)
{
	struct run r = run_text("  ranks 4\n  buffer d device 256MiB\n  stream s\n"
				"  ar: allreduce d on s\n  sync s\n",
				"h100-sxm");
	struct hd_profile p = prof("h100-sxm");
	hd_time f = hd_coll_formula(HD_COLL_ALLREDUCE, HD_ALGO_RING, 256 * MiB, 4, &p);
	size_t i;
	int link_spans = 0, ranks_seen = 0;

	ck_assert_msg(r.rc == 0, "%s", r.e.msg);
	/* the stream span of `ar` lasts the collective (it starts after the launch) */
	for (i = 0; i < r.t->nspans; i++) {
		const struct hd_span *s = &r.t->spans[i];
		const struct hd_lane *ln = &r.t->lanes[s->lane];

		if (ln->kind == HD_LANE_LINK)
			link_spans++;
		if (ln->kind == HD_LANE_STREAM && s->kind == HD_SPAN_COMM) {
			ranks_seen |= 1 << ln->rank;
			ck_assert(llabs((s->end - s->start) - f) <= 10);
			ck_assert_uint_eq(s->bytes, 256 * MiB);
		}
	}
	ck_assert_int_eq(ranks_seen, 0xf);
	ck_assert_int_eq(link_spans, 4 * 2 * 3); /* n ranks x 2(n-1) steps */
	hd_trace_free(r.t);
}
END_TEST

START_TEST(peer_copy_nvlink_vs_pcie)
{
	const char *body = "  ranks 2\n  buffer a device 256MiB\n  buffer b device 256MiB\n"
			   "  rank 0\n    c: copy a -> b@1\n  end\n";
	struct run nv = run_text(body, "h100-sxm"), pc = run_text(body, "gen3-v100");
	struct hd_profile p = prof("h100-sxm");
	struct hd_link l = hd_coll_link(&p, 0, 1);
	hd_time t = label_end(nv.t, 0, "c");

	ck_assert_msg(nv.rc == 0 && pc.rc == 0, "%s %s", nv.e.msg, pc.e.msg);
	/* the copy engine's own rate over NVLink, not the NCCL links' rate */
	ck_assert(p.nvlink_copy_bw > l.bw);
	ck_assert(t >= hd_time_for_bytes(256.0 * MiB, p.nvlink_copy_bw));
	ck_assert(t < hd_time_for_bytes(256.0 * MiB, l.bw));
	ck_assert(label_end(pc.t, 0, "c") > 5 * t);
	hd_trace_free(nv.t);
	hd_trace_free(pc.t);
}
END_TEST

/* t is what moving `bytes` at `rate` takes, give or take the copies' fixed
 * costs (within 5 %). */
static void
ck_paced(hd_time t, double bytes, double rate)
{
	ck_assert_msg(t >= hd_time_for_bytes(bytes, rate) &&
			  t < hd_time_for_bytes(bytes, rate) * 1.05,
		      "%g s for %g B at %g B/s", hd_time_to_s(t), bytes, rate);
}

/*
 * Every GPU of a node copying host memory at once shares the node's host:
 * eight ranks get host.dma_h2d / 8 each where that is less than a link,
 * two ranks under the cap keep their own links' rate, and without a cap
 * each rank has its link to itself.  D2H has its own cap, and the both-ways
 * cap holds the total when the directions overlap.
 */
START_TEST(node_host_dma_is_shared)
{
	const char *eight = "  ranks 8\n  buffer h pinned 64MiB\n  buffer d device 64MiB\n"
			    "  c: copy h -> d\n";
	const char *two = "  ranks 2\n  buffer h pinned 64MiB\n  buffer d device 64MiB\n"
			  "  c: copy h -> d\n";
	const char *back = "  ranks 4\n  buffer h pinned 64MiB\n  buffer d device 64MiB\n"
			   "  c: copy d -> h\n";
	const char *both =
	    "  ranks 4\n  buffer h pinned 64MiB\n  buffer g pinned 64MiB\n"
	    "  buffer d device 64MiB\n  buffer e device 64MiB\n  stream s\n  stream t\n"
	    "  a: copy h -> d async on s\n  b: copy e -> g async on t\n  sync s\n  sync t\n";
	struct hd_profile p = prof("h200-sxm"), none;
	const double bytes = 64.0 * MiB;
	struct run r;
	hd_time t;
	int k;

	ck_assert(p.node_h2d_bw > 0 && p.node_h2d_bw < 8 * p.h2d_bw &&
		  p.node_h2d_bw > 2 * p.h2d_bw);
	r = run_with(eight, p);
	ck_assert_msg(r.rc == 0, "%s", r.e.msg);
	for (k = 0; k < 8; k++) {
		t = label_end(r.t, k, "c");
		ck_paced(t, 8 * bytes, p.node_h2d_bw);
	}
	hd_trace_free(r.t);
	r = run_with(two, p);
	ck_assert(r.rc == 0);
	ck_paced(label_end(r.t, 1, "c"), bytes, p.h2d_bw);
	hd_trace_free(r.t);
	none = p;
	none.node_h2d_bw = none.node_d2h_bw = none.node_bidir_bw = 0;
	r = run_with(eight, none);
	ck_assert(r.rc == 0);
	ck_paced(label_end(r.t, 7, "c"), bytes, p.h2d_bw);
	hd_trace_free(r.t);

	/* device to host: its own cap, not the host-to-device one */
	p.node_h2d_bw = 0;
	p.node_d2h_bw = 2 * p.d2h_bw;
	r = run_with(back, p);
	ck_assert(r.rc == 0);
	t = label_end(r.t, 3, "c");
	ck_paced(t, 4 * bytes, p.node_d2h_bw);
	hd_trace_free(r.t);

	/* both ways at once: four ranks x two directions share the bidir cap */
	p.node_d2h_bw = 0;
	p.node_bidir_bw = 2 * p.h2d_bw;
	r = run_with(both, p);
	ck_assert_msg(r.rc == 0, "%s", r.e.msg);
	t = label_end(r.t, 0, "a") > label_end(r.t, 0, "b") ? label_end(r.t, 0, "a") :
							      label_end(r.t, 0, "b");
	ck_paced(t, 8 * bytes, p.node_bidir_bw);
	hd_trace_free(r.t);

	/* a both-ways cap below one direction's does not hold that direction alone */
	p.node_h2d_bw = 4 * p.h2d_bw;
	p.node_bidir_bw = p.h2d_bw;
	r = run_with(eight, p);
	ck_assert(r.rc == 0);
	t = label_end(r.t, 0, "c");
	ck_paced(t, 8 * bytes, p.node_h2d_bw);
	hd_trace_free(r.t);
}
END_TEST

START_TEST(barrier_waits_for_slowest)
{
	struct run r = run_text("  ranks 3\n  rank 2\n    host 2ms\n  end\n  b: barrier\n",
				"h100-sxm");
	size_t i;

	ck_assert_msg(r.rc == 0, "%s", r.e.msg);
	for (i = 0; i < r.t->nspans; i++) {
		const struct hd_span *s = &r.t->spans[i];

		if (s->kind == HD_SPAN_API && strcmp(r.t->strings[s->label], "MPI_Barrier") == 0)
			ck_assert(s->end >= 2 * HD_MS);
	}
	hd_trace_free(r.t);
}
END_TEST

START_TEST(ranks_deterministic_and_formula_model)
{
	const char *body =
	    "  ranks 16\n  buffer d device 64MiB\n  stream s\n"
	    "  repeat 3\n    kernel compute 1GFLOP on s\n    allreduce d on s\n  end\n"
	    "  sync s\n";
	struct run a = run_text(body, "h100-sxm"), b = run_text(body, "h100-sxm");

	ck_assert_msg(a.rc == 0, "%s", a.e.msg);
	ck_assert_int_eq(hd_trace_cmp(a.t, b.t), 0);
	ck_assert_uint_eq(hd_trace_digest(a.t), hd_trace_digest(b.t));
	hd_trace_free(a.t);
	hd_trace_free(b.t);
}
END_TEST

START_TEST(nccl_takes_sms_from_kernels)
{
	/* a compute kernel beside a running all-reduce gets sms - coll.sms SMs */
	const char *body = "  ranks 2\n  buffer d device 1GiB\n  stream c\n  stream n\n"
			   "  event e\n  record e on c\n  wait e on n\n  ar: allreduce d on n\n"
			   "  k: kernel compute 20GFLOP on c\n  sync device\n";
	struct run r = run_text(body, "h100-sxm");
	struct hd_profile p = prof("h100-sxm");
	hd_time alone = p.kernel_overhead + hd_time_for_bytes(20e9, p.flops), got;
	size_t i;

	ck_assert_msg(r.rc == 0, "%s", r.e.msg);
	got = 0;
	for (i = 0; i < r.t->nspans; i++) {
		const struct hd_span *s = &r.t->spans[i];

		if (r.t->lanes[s->lane].kind == HD_LANE_COMPUTE && r.t->lanes[s->lane].rank == 0)
			got = s->end - s->start;
	}
	ck_assert_msg(llabs(got - (hd_time)((double)alone * p.sms / (p.sms - p.coll_sms))) < HD_US,
		      "kernel %lld ps, alone %lld ps", (long long)got, (long long)alone);
	hd_trace_free(r.t);
}
END_TEST

START_TEST(nccl_slows_a_running_kernel)
{
	/* the kernel runs alone for a while, then the all-reduce starts beside it */
	const char *body = "  ranks 2\n  buffer d device 4GiB\n  stream c\n  stream n\n"
			   "  k: kernel compute 200GFLOP on c\n  host 1ms\n  ar: allreduce d on n\n"
			   "  sync device\n";
	struct run r = run_text(body, "h100-sxm");
	struct hd_profile p = prof("h100-sxm");
	hd_time alone = p.kernel_overhead + hd_time_for_bytes(200e9, p.flops);
	hd_time k0 = -1, k1 = -1, a0 = -1, want;
	double f = (double)p.sms / (p.sms - p.coll_sms);
	size_t i;

	ck_assert_msg(r.rc == 0, "%s", r.e.msg);
	for (i = 0; i < r.t->nspans; i++) {
		const struct hd_span *s = &r.t->spans[i];
		const struct hd_lane *ln = &r.t->lanes[s->lane];

		if (ln->rank != 0)
			continue;
		if (ln->kind == HD_LANE_COMPUTE) {
			k0 = s->start;
			k1 = s->end;
		}
		if (ln->kind == HD_LANE_STREAM && s->kind == HD_SPAN_COMM)
			a0 = s->start;
	}
	ck_assert(k0 >= 0 && a0 > k0 && a0 < k0 + alone);
	want = a0 + (hd_time)((double)(alone - (a0 - k0)) * f + 0.5);
	ck_assert_msg(llabs(k1 - want) <= 2, "kernel ends %lld, want %lld", (long long)k1,
		      (long long)want);
	hd_trace_free(r.t);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("ranks");
	TCase *c = tcase_create("core");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, ring_allreduce_steps_and_bytes);
	tcase_add_test(c, ring_gather_family);
	tcase_add_test(c, broadcast_chain);
	tcase_add_test(c, ring_folded_matches_every_rank);
	tcase_add_test(c, ring_16384_ranks);
	tcase_add_test(c, broadcast_in_bulk);
	tcase_add_test(c, tree_beats_ring_when_latency_dominates);
	tcase_add_test(c, late_rank_holds_everyone);
	tcase_add_test(c, links_by_topology);
	tcase_add_test(c, bus_factors);
	tcase_add_test(c, send_recv_in_order);
	tcase_add_test(c, send_send_deadlocks);
	tcase_add_test(c, collective_waits_for_missing_rank);
	tcase_add_test(c, collective_mismatch);
	tcase_add_test(c, allreduce_in_scenario_matches_schedule);
	tcase_add_test(c, peer_copy_nvlink_vs_pcie);
	tcase_add_test(c, nccl_takes_sms_from_kernels);
	tcase_add_test(c, nccl_slows_a_running_kernel);
	tcase_add_test(c, barrier_waits_for_slowest);
	tcase_add_test(c, node_host_dma_is_shared);
	tcase_add_test(c, ranks_deterministic_and_formula_model);
	suite_add_tcase(s, c);
	return s;
}

int
main(void)
{
	return hd_test_run(suite());
}
