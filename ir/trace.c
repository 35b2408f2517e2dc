/*
 * trace.c - lanes, spans and interned labels; sorting, comparing and
 * digesting traces; per-op summaries; the sink that fills a trace.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ir/spanlook.h"
#include "ir/trace.h"

static const struct {
	const char *name;
	const char *text;
} why_table[HD_WHY__COUNT] = {
	[HD_WHY_NONE] = { "none", "not blocked" },
	[HD_WHY_SYNC_COPY] = { "sync-copy", "cudaMemcpy returns only when its copy has finished" },
	[HD_WHY_PAGEABLE] = { "pageable",
			      "pageable (or managed) memory is staged through a pinned buffer by "
			      "the CPU" },
	[HD_WHY_STREAM_SYNC] = { "stream-sync",
				 "cudaStreamSynchronize waits for all work on the stream" },
	[HD_WHY_EVENT_SYNC] = { "event-sync",
				"cudaEventSynchronize waits for the event to be reached" },
	[HD_WHY_DEVICE_SYNC] = { "device-sync",
				 "the whole device is synchronised (explicitly, or by cudaFree)" },
	[HD_WHY_READ] = { "read", "reading device data copies it to the host and waits for it" },
	[HD_WHY_QUEUE_FULL] = { "queue-full", "the stream's launch queue is full" },
	[HD_WHY_PRIOR_WORK] = { "prior-work",
				"the copy first waits for earlier work on its stream" },
	[HD_WHY_COLLECTIVE] = { "collective", "waiting for the other ranks" },
	[HD_WHY_DATA] = { "queue-empty", "get waits for another host thread to put an item" },
	[HD_WHY_ROOM] = { "queue-room", "put waits for another host thread to take an item" },
};

const char *
hd_why_text(enum hd_why w)
{
	if ((unsigned)w >= HD_WHY__COUNT)
		return "?";
	return why_table[w].text;
}

const char *
hd_why_name(enum hd_why w)
{
	if ((unsigned)w >= HD_WHY__COUNT)
		return "?";
	return why_table[w].name;
}

const char *
hd_span_kind_name(enum hd_span_kind k)
{
	if ((unsigned)k >= HD_SPAN__COUNT)
		return "?";
	return hd_spanlook_get(k, HD_DIR_OUT)->name;
}

/* A trace's indexes.  Spans by op: a counting sort of span indexes by op,
 * for ops -1 .. maxop; ops outside that (a trace read from elsewhere may
 * hold any int) are not indexed.  Lanes by key: an open-addressing table
 * of lane + 1. */
struct hd_trace_ix {
	size_t nspans; /* the trace's span count when built; SIZE_MAX: stale */
	int maxop;
	uint32_t *first; /* maxop + 3 entries: op's spans are idx[first[op + 1]
			     * .. first[op + 2]) */
	uint32_t *idx;   /* span indexes by op, each op's in trace order */
	int *lane_slot;  /* lane_cap slots: lane + 1, or 0 for none */
	int lane_cap;    /* a power of two, over twice nlanes; 0 before the first */
	int lanes;       /* lanes in the table */
};

static void
byop_clear(struct hd_trace_ix *b)
{
	if (b == NULL)
		return;
	free(b->first);
	free(b->idx);
	b->first = NULL;
	b->idx = NULL;
	b->nspans = SIZE_MAX;
}

static unsigned
lane_hash(enum hd_lane_kind kind, int rank, int index)
{
	uint32_t h = 2166136261u;

	h = (h ^ (uint32_t)kind) * 16777619u;
	h = (h ^ (uint32_t)rank) * 16777619u;
	h = (h ^ (uint32_t)index) * 16777619u;
	return h ^ (h >> 15);
}

/* The slot of lane (kind, rank, index) in x's table, or the empty slot
 * where it would go. */
static int
lane_slot(const struct hd_trace *t, const struct hd_trace_ix *x, enum hd_lane_kind kind, int rank,
	  int index)
{
	int i = (int)(lane_hash(kind, rank, index) & (unsigned)(x->lane_cap - 1));

	while (x->lane_slot[i] != 0) {
		const struct hd_lane *l = &t->lanes[x->lane_slot[i] - 1];

		if (l->kind == kind && l->rank == rank && l->index == index)
			break;
		i = (i + 1) & (x->lane_cap - 1);
	}
	return i;
}

/* Make x's lane table hold t's lanes with room for one more. */
static void
lanes_fit(const struct hd_trace *t, struct hd_trace_ix *x)
{
	int i, cap;

	if (x->lanes == t->nlanes && 2 * (t->nlanes + 1) <= x->lane_cap)
		return;
	for (cap = 16; cap < 2 * (t->nlanes + 1); cap *= 2)
		;
	free(x->lane_slot);
	x->lane_slot = hd_xcalloc((size_t)cap, sizeof *x->lane_slot);
	x->lane_cap = cap;
	for (i = 0; i < t->nlanes; i++) {
		const struct hd_lane *l = &t->lanes[i];
		int k = lane_slot(t, x, l->kind, l->rank, l->index);

		if (x->lane_slot[k] == 0)
			x->lane_slot[k] = i + 1;
	}
	x->lanes = t->nlanes;
}

/* Ops past this many beyond the span count are not indexed: the table of
 * groups stays within the spans' own size. */
#define BYOP_SLACK (1 << 20)

/* The group of span op o in b: o + 1, or -1 when o is not indexed. */
static long
byop_group(const struct hd_trace_ix *b, int o)
{
	return o < -1 || o > b->maxop ? -1 : (long)o + 1;
}

static void
byop_build(const struct hd_trace *t, struct hd_trace_ix *b)
{
	size_t i, k, ng;
	long g;

	byop_clear(b);
	b->nspans = t->nspans;
	b->maxop = -1;
	if (t->nspans >= UINT32_MAX)
		return; /* no index: hd_trace_op_spans says scan */
	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].op > b->maxop && (size_t)t->spans[i].op <= t->nspans + BYOP_SLACK)
			b->maxop = t->spans[i].op;
	ng = (size_t)b->maxop + 2;
	b->first = hd_xcalloc(ng + 1, sizeof *b->first);
	b->idx = hd_xmalloc((t->nspans + 1) * sizeof *b->idx);
	for (i = 0; i < t->nspans; i++)
		if ((g = byop_group(b, t->spans[i].op)) >= 0)
			b->first[g + 1]++;
	for (k = 1; k <= ng; k++)
		b->first[k] += b->first[k - 1];
	/* place each span at its group's next free entry, then shift back */
	for (i = 0; i < t->nspans; i++)
		if ((g = byop_group(b, t->spans[i].op)) >= 0)
			b->idx[b->first[g]++] = (uint32_t)i;
	for (k = ng; k > 0; k--)
		b->first[k] = b->first[k - 1];
	b->first[0] = 0;
}

const uint32_t *
hd_trace_op_spans(const struct hd_trace *t, int op, size_t *n)
{
	struct hd_trace_ix *b = t->ix;
	long g;

	*n = 0;
	if (b == NULL)
		return NULL;
	if (b->nspans != t->nspans)
		byop_build(t, b);
	if (b->first == NULL || (g = byop_group(b, op)) < 0)
		return NULL;
	*n = b->first[g + 1] - b->first[g];
	return b->idx + b->first[g];
}

struct hd_trace *
hd_trace_new(void)
{
	struct hd_trace *t = hd_xcalloc(1, sizeof *t);

	t->ix = hd_xcalloc(1, sizeof *t->ix);
	t->ix->nspans = SIZE_MAX;
	return t;
}

void
hd_trace_free(struct hd_trace *t)
{
	int i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->strings);
	free(t->lanes);
	free(t->spans);
	free(t->note);
	free(t->reps);
	free(t->reps_bare);
	if (t->ix != NULL) {
		byop_clear(t->ix);
		free(t->ix->lane_slot);
	}
	free(t->ix);
	free(t);
}

int
hd_trace_lane(struct hd_trace *t, enum hd_lane_kind kind, int rank, int index, const char *name)
{
	struct hd_trace_ix *x = t->ix;
	struct hd_lane *l;
	size_t cap;
	int i, k = 0;

	if (x != NULL) {
		lanes_fit(t, x);
		k = lane_slot(t, x, kind, rank, index);
		if (x->lane_slot[k] != 0)
			return x->lane_slot[k] - 1;
	} else {
		for (i = 0; i < t->nlanes; i++) {
			l = &t->lanes[i];
			if (l->kind == kind && l->rank == rank && l->index == index)
				return i;
		}
	}
	cap = (size_t)t->lanes_cap;
	t->lanes = hd_xgrow(t->lanes, &cap, (size_t)t->nlanes + 1, sizeof *t->lanes);
	t->lanes_cap = (int)cap;
	l = &t->lanes[t->nlanes];
	memset(l, 0, sizeof *l);
	l->kind = kind;
	l->rank = rank;
	l->index = index;
	if (name != NULL) {
		strncpy(l->name, name, sizeof l->name - 1);
		l->name[sizeof l->name - 1] = '\0';
	}
	if (x != NULL) {
		x->lane_slot[k] = t->nlanes + 1;
		x->lanes++;
	}
	return t->nlanes++;
}

int
hd_trace_string(struct hd_trace *t, const char *s)
{
	size_t cap;
	int i;

	if (s == NULL)
		s = "";
	for (i = 0; i < t->nstrings; i++)
		if (strcmp(t->strings[i], s) == 0)
			return i;
	cap = (size_t)t->strings_cap;
	t->strings = hd_xgrow(t->strings, &cap, (size_t)t->nstrings + 1, sizeof *t->strings);
	t->strings_cap = (int)cap;
	t->strings[t->nstrings] = hd_xstrdup(s);
	return t->nstrings++;
}

void
hd_trace_add(struct hd_trace *t, const struct hd_span *s)
{
	if (t->nspans == t->spans_cap)
		t->spans = hd_xgrow(t->spans, &t->spans_cap, t->nspans + 1, sizeof *t->spans);
	t->spans[t->nspans++] = *s;
	if (s->end > t->makespan)
		t->makespan = s->end;
}

#define CMP(a, b) \
	do { \
		if ((a) != (b)) \
			return (a) < (b) ? -1 : 1; \
	} while (0)

static int
span_cmp(const void *pa, const void *pb)
{
	const struct hd_span *a = pa, *b = pb;

	CMP(a->start, b->start);
	CMP(a->lane, b->lane);
	CMP(a->op, b->op);
	CMP(a->iter, b->iter);
	CMP(a->end, b->end);
	CMP(a->kind, b->kind);
	CMP(a->why, b->why);
	CMP(a->bytes, b->bytes);
	CMP(a->label, b->label);
	return 0;
}

void
hd_trace_sort(struct hd_trace *t)
{
	if (t->nspans > 1)
		qsort(t->spans, t->nspans, sizeof *t->spans, span_cmp);
	byop_clear(t->ix);
}

struct lane_key {
	int lane;
	hd_time start, end;
	size_t i;
};

static int
lane_key_cmp(const void *pa, const void *pb)
{
	const struct lane_key *a = pa, *b = pb;

	if (a->lane != b->lane)
		return a->lane < b->lane ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->i < b->i ? -1 : 1;
}

void
hd_trace_order_by_lane(const struct hd_trace *t, size_t *order)
{
	struct lane_key *k = hd_xcalloc(t->nspans + 1, sizeof *k);
	size_t i;

	for (i = 0; i < t->nspans; i++) {
		k[i].lane = t->spans[i].lane;
		k[i].start = t->spans[i].start;
		k[i].end = t->spans[i].end;
		k[i].i = i;
	}
	qsort(k, t->nspans, sizeof *k, lane_key_cmp);
	for (i = 0; i < t->nspans; i++)
		order[i] = k[i].i;
	free(k);
}

int
hd_trace_cmp(const struct hd_trace *a, const struct hd_trace *b)
{
	size_t i;
	int j, c;

	CMP(a->nlanes, b->nlanes);
	CMP(a->nspans, b->nspans);
	CMP(a->nstrings, b->nstrings);
	CMP(a->makespan, b->makespan);
	for (j = 0; j < a->nlanes; j++) {
		const struct hd_lane *x = &a->lanes[j], *y = &b->lanes[j];

		CMP(x->kind, y->kind);
		CMP(x->rank, y->rank);
		CMP(x->index, y->index);
		if ((c = strcmp(x->name, y->name)) != 0)
			return c < 0 ? -1 : 1;
	}
	for (i = 0; i < a->nspans; i++)
		if ((c = span_cmp(&a->spans[i], &b->spans[i])) != 0)
			return c;
	for (j = 0; j < a->nstrings; j++)
		if ((c = strcmp(a->strings[j], b->strings[j])) != 0)
			return c < 0 ? -1 : 1;
	return 0;
}

/* FNV-1a over explicit fields (never over struct padding). */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n-- > 0) {
		h ^= *c++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t
fnv_u64(uint64_t h, uint64_t v)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return fnv(h, b, sizeof b);
}

uint64_t
hd_trace_digest(const struct hd_trace *t)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	int j;

	h = fnv_u64(h, (uint64_t)t->nlanes);
	for (j = 0; j < t->nlanes; j++) {
		const struct hd_lane *l = &t->lanes[j];

		h = fnv_u64(h, (uint64_t)l->kind);
		h = fnv_u64(h, (uint64_t)l->rank);
		h = fnv_u64(h, (uint64_t)l->index);
		h = fnv(h, l->name, strlen(l->name) + 1);
	}
	h = fnv_u64(h, (uint64_t)t->nstrings);
	for (j = 0; j < t->nstrings; j++)
		h = fnv(h, t->strings[j], strlen(t->strings[j]) + 1);
	h = fnv_u64(h, (uint64_t)t->nspans);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		h = fnv_u64(h, (uint64_t)s->lane);
		h = fnv_u64(h, (uint64_t)s->op);
		h = fnv_u64(h, (uint64_t)s->iter);
		h = fnv_u64(h, (uint64_t)s->kind);
		h = fnv_u64(h, (uint64_t)s->why);
		h = fnv_u64(h, (uint64_t)s->start);
		h = fnv_u64(h, (uint64_t)s->end);
		h = fnv_u64(h, s->bytes);
		h = fnv_u64(h, (uint64_t)s->label);
	}
	h = fnv_u64(h, (uint64_t)t->makespan);
	return h;
}

static int
lane_is_host_side(const struct hd_trace *t, int lane)
{
	enum hd_lane_kind k;

	if (lane < 0 || lane >= t->nlanes)
		return 1;
	k = t->lanes[lane].kind;
	return k == HD_LANE_HOST || k == HD_LANE_API;
}

static int
lane_rank(const struct hd_trace *t, int lane)
{
	if (lane < 0 || lane >= t->nlanes)
		return -1;
	return t->lanes[lane].rank;
}

static int
u32_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return a < b ? -1 : a > b;
}

struct hd_op_time
hd_trace_op_time(const struct hd_trace *t, int op)
{
	struct hd_op_time r;
	uint32_t *iters = NULL;
	size_t i, k, n = 0, cap = 0, nall = t->nspans;
	const uint32_t *ix = hd_trace_op_spans(t, op, &nall);
	int gpu = 0, use;

	if (ix == NULL)
		nall = t->nspans;

		/* a trace made without hd_trace_new has no index: every span is looked at */
#define SPAN_AT(k) (ix != NULL ? ix[k] : (k))
	memset(&r, 0, sizeof r);
	for (k = 0; k < nall; k++) {
		i = SPAN_AT(k);
		if (t->spans[i].op == op && lane_rank(t, t->spans[i].lane) == 0 &&
		    !lane_is_host_side(t, t->spans[i].lane))
			gpu = 1;
	}
	for (k = 0; k < nall; k++) {
		const struct hd_span *s = &t->spans[SPAN_AT(k)];
		enum hd_lane_kind lk;

		if (s->op != op || lane_rank(t, s->lane) != 0)
			continue;
		lk = t->lanes[s->lane].kind;
		/* host-only ops (host work, syncs, allocations) are timed by
		 * their own spans, not the blocked parts nested in them */
		use = gpu ? !lane_is_host_side(t, s->lane) :
			    s->kind == HD_SPAN_API || s->kind == HD_SPAN_HOST;
		if (!use)
			continue;
		if (!r.found || s->start < r.start)
			r.start = s->start;
		if (!r.found || s->end > r.end)
			r.end = s->end;
		r.found = 1;
		/* a stream span carries each execution's bytes once */
		if (gpu ? lk == HD_LANE_STREAM : s->kind == HD_SPAN_HOST)
			r.bytes += s->bytes;
		iters = hd_xgrow(iters, &cap, n + 1, sizeof *iters);
		iters[n++] = s->iter;
	}
#undef SPAN_AT
	if (n > 0) {
		qsort(iters, n, sizeof *iters, u32_cmp);
		r.execs = 1;
		for (i = 1; i < n; i++)
			if (iters[i] != iters[i - 1])
				r.execs++;
	}
	free(iters);
	return r;
}

void
hd_trace_blocked(const struct hd_trace *t, hd_time out[HD_WHY__COUNT])
{
	size_t i;

	memset(out, 0, sizeof(hd_time) * HD_WHY__COUNT);
	for (i = 0; i < t->nspans; i++) {
		const struct hd_span *s = &t->spans[i];

		if (s->kind != HD_SPAN_BLOCKED || (unsigned)s->why >= HD_WHY__COUNT)
			continue;
		if (lane_rank(t, s->lane) != 0)
			continue;
		/* the main thread's: worker threads' waits are their own */
		if (s->lane >= 0 && s->lane < t->nlanes && t->lanes[s->lane].index != 0 &&
		    t->lanes[s->lane].kind == HD_LANE_HOST)
			continue;
		out[s->why] += s->end - s->start;
	}
}

static int
sink_lane(void *ctx, enum hd_lane_kind kind, int rank, int index, const char *name)
{
	return hd_trace_lane(ctx, kind, rank, index, name);
}

static int
sink_string(void *ctx, const char *s)
{
	return hd_trace_string(ctx, s);
}

static void
sink_span(void *ctx, const struct hd_span *s)
{
	hd_trace_add(ctx, s);
}

static void
sink_makespan(void *ctx, hd_time t)
{
	((struct hd_trace *)ctx)->bare = t;
}

/* Repeat i's makespans: a repeat of several ranks lasts until its latest.
 * The arrays grow to i + 1 exactly: a run has a handful of repeats. */
static void
sink_repeat(void *ctx, int i, hd_time makespan, hd_time bare)
{
	struct hd_trace *t = ctx;
	int k;

	if (i < 0 || i >= HD_TRACE_MAX_REPS)
		return;
	if (i >= t->nreps) {
		t->reps = hd_xrealloc(t->reps, ((size_t)i + 1) * sizeof *t->reps);
		if (t->reps_bare != NULL)
			t->reps_bare = hd_xrealloc(t->reps_bare,
						   ((size_t)i + 1) * sizeof *t->reps_bare);
		for (k = t->nreps; k <= i; k++) {
			t->reps[k] = 0;
			if (t->reps_bare != NULL)
				t->reps_bare[k] = 0;
		}
		t->nreps = i + 1;
	}
	if (bare > 0 && t->reps_bare == NULL)
		t->reps_bare = hd_xcalloc((size_t)t->nreps, sizeof *t->reps_bare);
	if (makespan > t->reps[i])
		t->reps[i] = makespan;
	if (bare > 0 && bare > t->reps_bare[i])
		t->reps_bare[i] = bare;
}

hd_time
hd_trace_makespan(const struct hd_trace *t)
{
	return t->bare > 0 ? t->bare : t->makespan;
}

static void
sink_note(void *ctx, const char *text)
{
	struct hd_trace *t = ctx;

	free(t->note);
	t->note = text != NULL ? hd_xstrdup(text) : NULL;
}

struct hd_sink
hd_trace_sink(struct hd_trace *t)
{
	struct hd_sink s;

	s.ctx = t;
	s.lane = sink_lane;
	s.string = sink_string;
	s.span = sink_span;
	s.note = sink_note;
	s.makespan = sink_makespan;
	s.max_spans = HD_TRACE_MAX_SPANS;
	s.repeat = sink_repeat;
	return s;
}
