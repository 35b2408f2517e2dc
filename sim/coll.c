/*
 * coll.c - links between GPUs, and NCCL's collectives as schedules.
 *
 * The algorithms follow NCCL's: a ring in rank order for all-reduce
 * (reduce-scatter then all-gather, 2(n-1) steps of bytes/n), all-gather and
 * reduce-scatter (n-1 steps); a pipelined chain from the root for broadcast
 * and towards it for reduce; a tree for all-reduce, a chain inside each node
 * under a binary tree of nodes, reducing each chunk up and broadcasting it
 * down; gather as every rank sending its share to the root; all-to-all as
 * n-1 steps of pairwise exchange.  See coll.h for the link rules.
 */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "sim/coll.h"

static const char *const link_names[HD_LINK__COUNT] = {
	[HD_LINK_NVLINK] = "NVLink",
	[HD_LINK_PCIE] = "PCIe",
	[HD_LINK_NET] = "network",
};

const char *
hd_link_class_name(enum hd_link_class c)
{
	return (unsigned)c < HD_LINK__COUNT ? link_names[c] : "?";
}

static int
gpn(const struct hd_profile *p)
{
	return p->gpus_per_node > 0 ? p->gpus_per_node : 1;
}

int
hd_coll_node(const struct hd_profile *p, int r)
{
	return r / gpn(p);
}

struct hd_link
hd_coll_link(const struct hd_profile *p, int a, int b)
{
	struct hd_link l;
	int g = gpn(p), nvlink = 0;

	if (a / g != b / g) {
		l.cls = HD_LINK_NET;
		l.lat = p->net_latency;
		l.bw = p->nic_bw;
		return l;
	}
	if (p->nvlinks > 0 && p->nvlink_bw > 0) {
		if (p->topo == HD_TOPO_NVSWITCH)
			nvlink = 1;
		else if (p->topo == HD_TOPO_NVLINK_PAIRS)
			nvlink = (a % g) / 2 == (b % g) / 2;
	}
	if (nvlink) {
		l.cls = HD_LINK_NVLINK;
		l.lat = p->nvlink_latency;
		l.bw = (double)p->nvlinks * p->nvlink_bw;
	} else {
		l.cls = HD_LINK_PCIE;
		l.lat = p->copy_latency;
		l.bw = p->p2p_pcie_bw;
	}
	return l;
}

/* --- the schedule ------------------------------------------------------------ */

struct sched {
	const struct hd_profile *p;
	int n, nodes;
	int fold;          /* ranks stand for fold times as many (see ring_period) */
	hd_time *a;        /* arrival + base: the rank's kernel is running */
	hd_time *out, *in; /* when each rank's link out / in is free */
	hd_time *nic_out, *nic_in;
	hd_time *sent_end; /* end of the last transfer each rank sent */
	uint64_t *sent, *recv;
	hd_coll_xfer_fn fn;
	void *ctx;
	uint64_t transfers;
};

static hd_time
tmax(hd_time x, hd_time y)
{
	return x > y ? x : y;
}

/* Move `bytes` from a to b once the data is there at `ready`. */
static hd_time
xfer(struct sched *s, int a, int b, hd_time ready, uint64_t bytes, uint32_t step)
{
	/* folded, the ring's last rank sends to the first of the next period */
	int lb = s->fold > 1 && b < a ? b + s->n : b;
	struct hd_link l = hd_coll_link(s->p, a, lb);
	struct hd_coll_xfer x;
	hd_time t, occ;
	int na = 0, nb = 0;

	t = tmax(tmax(ready, s->a[b]), tmax(s->out[a], s->in[b]));
	if (l.cls == HD_LINK_NET) {
		na = hd_coll_node(s->p, a) % s->nodes;
		nb = hd_coll_node(s->p, lb) % s->nodes;
		t = tmax(t, tmax(s->nic_out[na], s->nic_in[nb]));
	}
	occ = hd_time_for_bytes((double)bytes, l.bw);
	s->out[a] = s->in[b] = t + occ;
	if (l.cls == HD_LINK_NET)
		s->nic_out[na] = s->nic_in[nb] = t + occ;
	x.src = a;
	x.dst = b;
	x.step = step;
	x.start = t;
	x.end = t + l.lat + occ;
	x.bytes = bytes;
	x.cls = l.cls;
	s->sent[a] += bytes;
	s->recv[b] += bytes;
	s->sent_end[a] = tmax(s->sent_end[a], x.end);
	s->transfers += (uint64_t)s->fold;
	if (s->fn != NULL)
		s->fn(s->ctx, &x);
	return x.end;
}

/* Share i of `bytes` cut into n nearly equal parts. */
static uint64_t
share(uint64_t bytes, int n, int i)
{
	uint64_t q = bytes / (uint64_t)n, rem = bytes % (uint64_t)n;

	return q + ((uint64_t)i < rem ? 1 : 0);
}

static uint64_t
nchunks(uint64_t bytes, uint64_t chunk)
{
	if (chunk == 0 || bytes == 0)
		return 1;
	return (bytes + chunk - 1) / chunk;
}

static uint64_t
chunk_bytes(uint64_t bytes, uint64_t chunk, uint64_t k, uint64_t K)
{
	if (chunk == 0 || K == 1)
		return bytes;
	return k + 1 < K ? chunk : bytes - chunk * (K - 1);
}

uint64_t
hd_coll_played(uint64_t bytes, int n, const struct hd_profile *p)
{
	uint64_t k = nchunks(bytes, p->coll_chunk), most;

	most = HD_COLL_MAX_TRANSFERS / (uint64_t)(n > 1 ? n : 1);
	if (most < HD_COLL_MIN_CHUNKS)
		most = HD_COLL_MIN_CHUNKS;
	return k < most ? k : most;
}

/* The bulk model: the chunks after the played ones go as the last one did,
 * each `per` after the one before, so every link is free, and every rank
 * has sent, `dt` later than after the played chunks. */
static void
bulk_shift(struct sched *s, hd_time dt)
{
	int r;

	for (r = 0; r < s->n; r++) {
		s->out[r] = s->out[r] > 0 ? hd_time_add(s->out[r], dt) : 0;
		s->in[r] = s->in[r] > 0 ? hd_time_add(s->in[r], dt) : 0;
		s->sent_end[r] = s->sent_end[r] > 0 ? hd_time_add(s->sent_end[r], dt) : 0;
	}
	for (r = 0; r < s->nodes; r++) {
		s->nic_out[r] = s->nic_out[r] > 0 ? hd_time_add(s->nic_out[r], dt) : 0;
		s->nic_in[r] = s->nic_in[r] > 0 ? hd_time_add(s->nic_in[r], dt) : 0;
	}
}

/* Bytes and transfers of all K chunks from those of the `played` first. */
static void
bulk_count(struct sched *s, uint64_t K, uint64_t played)
{
	uint64_t more;
	int r;

	if (played >= K)
		return;
	for (r = 0; r < s->n; r++) {
		s->sent[r] += s->sent[r] / played * (K - played);
		s->recv[r] += s->recv[r] / played * (K - played);
	}
	/* (n - 1) x 2^62 transfers would not fit: the count saturates */
	if (__builtin_mul_overflow(s->transfers / played, K - played, &more) ||
	    __builtin_add_overflow(s->transfers, more, &s->transfers))
		s->transfers = UINT64_MAX;
}

/* The bulk model times the chunks after the played ones at the pace of the
 * last pace_window(P) played: half of them, in whole windows of the flow
 * control (a pipeline that moves in bursts of a window is timed over whole
 * bursts, and a longer pattern, such as a tree's, averages out). */
#define COLL_SLOTS 8
static uint64_t
pace_window(uint64_t played)
{
	return played / 2 / COLL_SLOTS * COLL_SLOTS;
}

/* How much later the `rest` chunks after the played ones end, when the
 * last `window` played took last - earlier. */
static hd_time
bulk_dt(hd_time last, hd_time earlier, uint64_t window, uint64_t rest)
{
	if (last <= earlier)
		return 0;
	return hd_time_from_ps((double)(last - earlier) * (double)rest / (double)window);
}

/* Ring: `nsteps` steps; at step s rank r sends share (r - s) mod n to r + 1
 * once it has received the previous step's share from r - 1.  Folded (see
 * ring_period), the shares are all equal and n is the period. */
static uint32_t
ring(struct sched *s, uint64_t bytes, int nsteps, hd_time *ready)
{
	int n = s->n, r, st, all = s->n * s->fold;
	hd_time *end = hd_xmalloc((size_t)n * sizeof *end);

	for (st = 0; st < nsteps; st++) {
		for (r = 0; r < n; r++)
			end[r] = xfer(s, r, (r + 1) % n, ready[r],
				      share(bytes, all, ((r - st) % n + n) % n), (uint32_t)st);
		for (r = 0; r < n; r++)
			ready[(r + 1) % n] = tmax(ready[(r + 1) % n], end[r]);
	}
	free(end);
	return (uint32_t)nsteps;
}

/*
 * Chain order[0] -> order[1] -> ... pipelined in chunks.  A rank holds at
 * most COLL_SLOTS chunks it has not passed on (NCCL's NCCL_STEPS buffer
 * slots per connection), so a sender runs no faster than the slowest hop
 * after it, as NCCL's flow control makes it.
 */
static uint32_t
chain(struct sched *s, const int *order, uint64_t bytes, uint64_t chunk, hd_time *ready)
{
	uint64_t K = nchunks(bytes, chunk), P = hd_coll_played(bytes, s->n, s->p), k;
	int h, n = s->n;
	hd_time *have = hd_xmalloc((size_t)n * sizeof *have);
	hd_time *fwd = hd_xcalloc((size_t)n * COLL_SLOTS, sizeof *fwd), earlier = 0, dt;

	for (k = 0; k < P; k++) {
		uint64_t cb = chunk_bytes(bytes, chunk, k, K);

		if (k + pace_window(P) == P)
			earlier = have[n - 1];
		have[0] = s->a[order[0]];
		for (h = 0; h + 1 < n; h++) {
			hd_time t = have[h];

			/* the next rank's slot of chunk k - COLL_SLOTS is free once
			 * it has passed that chunk on */
			if (h + 2 < n && k >= COLL_SLOTS)
				t = tmax(t,
					 fwd[(size_t)(h + 1) * COLL_SLOTS +
					     (k - COLL_SLOTS) % COLL_SLOTS]);
			have[h + 1] = xfer(s, order[h], order[h + 1], t, cb, (uint32_t)k);
			fwd[(size_t)h * COLL_SLOTS + k % COLL_SLOTS] = have[h + 1];
		}
	}
	if (P < K) {
		dt = bulk_dt(have[n - 1], earlier, pace_window(P), K - P);
		bulk_shift(s, dt);
		bulk_count(s, K, P);
		for (h = 1; h < n; h++)
			have[h] = hd_time_add(have[h], dt);
	}
	for (h = 1; h < n; h++)
		ready[order[h]] = tmax(ready[order[h]], have[h]);
	free(have);
	free(fwd);
	return (uint32_t)(K + (uint64_t)n - 2);
}

/* The tree's parent of rank r: a chain inside each node, the first rank of
 * every node under a binary tree of nodes.  -1 for the root (rank 0). */
static int
tree_parent(int r, int g)
{
	int node = r / g;

	if (r % g != 0)
		return r - 1;
	if (node == 0)
		return -1;
	return ((node - 1) / 2) * g;
}

/*
 * Parents have lower ranks than their children, so descending rank order
 * reduces up and ascending order broadcasts down.  Every chunk climbs to
 * the root, then every chunk comes down: a link's FIFO carries the climbing
 * chunks before the descending ones, which in the bandwidth-bound regime
 * moves the same bytes over the same links as NCCL's interleaving does.
 */
static uint32_t
tree(struct sched *s, uint64_t bytes, uint64_t chunk, hd_time *ready)
{
	uint64_t K = nchunks(bytes, chunk), P = hd_coll_played(bytes, s->n, s->p), k;
	int n = s->n, g = gpn(s->p), v, depth = 0, *d;
	hd_time *t = hd_xmalloc((size_t)n * sizeof *t);
	hd_time *top = hd_xmalloc((size_t)P * sizeof *top), earlier = 0, dt;

	d = hd_xcalloc((size_t)n, sizeof *d);
	for (v = 1; v < n; v++) {
		d[v] = d[tree_parent(v, g)] + 1;
		if (d[v] > depth)
			depth = d[v];
	}
	for (k = 0; k < P; k++) {
		uint64_t cb = chunk_bytes(bytes, chunk, k, K);

		for (v = 0; v < n; v++)
			t[v] = s->a[v];
		for (v = n - 1; v > 0; v--) {
			int par = tree_parent(v, g);
			hd_time e = xfer(s, v, par, t[v], cb, (uint32_t)k);

			t[par] = tmax(t[par], e);
		}
		top[k] = t[0];
	}
	/* in bulk, the links carry the rest of the climb before any descent */
	if (P < K)
		bulk_shift(s,
			   bulk_dt(top[P - 1], top[P - 1 - pace_window(P)], pace_window(P), K - P));
	for (k = 0; k < P; k++) {
		uint64_t cb = chunk_bytes(bytes, chunk, k, K);

		if (k + pace_window(P) == P)
			earlier = t[n - 1];
		t[0] = top[k];
		for (v = 1; v < n; v++)
			t[v] = xfer(s, tree_parent(v, g), v, t[tree_parent(v, g)], cb, (uint32_t)k);
		for (v = 0; v < n; v++)
			ready[v] = tmax(ready[v], t[v]);
	}
	if (P < K) {
		dt = bulk_dt(t[n - 1], earlier, pace_window(P), K - P);
		bulk_shift(s, dt);
		bulk_count(s, K, P);
		for (v = 0; v < n; v++)
			ready[v] = hd_time_add(ready[v], dt);
	}
	free(t);
	free(top);
	free(d);
	return (uint32_t)(K + 2 * (uint64_t)depth - 1);
}

/*
 * The ranks a ring can be folded to: every rank does what the rank one
 * node before it does, shifted, when the ring's links repeat node by node
 * (n a multiple of the node size), the ranks of every node arrive as those
 * of the first, and every share is the same size.  Then the first node's
 * ranks alone, the last of them sending to the first as to the next node,
 * give every rank's times: O(gpus per node x steps), not O(n x steps).
 * Nothing is folded while transfers are drawn (fn), so the picture keeps
 * every transfer.
 */
static int
ring_period(int n, const struct hd_profile *p, uint64_t bytes, const hd_time *arrive,
	    hd_coll_xfer_fn fn)
{
	int g = gpn(p), r;

	if (fn != NULL || n <= g || n % g != 0 || bytes % (uint64_t)n != 0)
		return n;
	for (r = g; r < n; r++)
		if (arrive[r] != arrive[r % g])
			return n;
	return g;
}

enum hd_coll_algo
hd_coll_pick(enum hd_coll c, enum hd_coll_algo algo, uint64_t bytes, int n,
	     const struct hd_profile *p)
{
	if (c != HD_COLL_ALLREDUCE || n < 3)
		return HD_ALGO_RING; /* two ranks: the tree is a chain */
	if (algo != HD_ALGO_AUTO)
		return algo;
	return hd_coll_formula(c, HD_ALGO_TREE, bytes, n, p) <
		hd_coll_formula(c, HD_ALGO_RING, bytes, n, p) ?
	    HD_ALGO_TREE :
	    HD_ALGO_RING;
}

void
hd_coll_schedule(enum hd_coll c, enum hd_coll_algo algo, uint64_t bytes, int root, int n,
		 const struct hd_profile *p, const hd_time *arrive, hd_time *done,
		 hd_coll_xfer_fn fn, void *ctx, struct hd_coll_stats *st)
{
	struct sched s;
	hd_time *ready;
	int *order = NULL, r, k, nodes = (n + gpn(p) - 1) / gpn(p);
	uint32_t steps = 0;
	enum hd_coll_algo used = hd_coll_pick(c, algo, bytes, n, p);

	memset(&s, 0, sizeof s);
	s.p = p;
	s.n = n;
	s.nodes = nodes;
	s.fold = 1;
	s.fn = fn;
	s.ctx = ctx;
	s.a = hd_xmalloc((size_t)n * sizeof *s.a);
	s.out = hd_xcalloc((size_t)n, sizeof *s.out);
	s.in = hd_xcalloc((size_t)n, sizeof *s.in);
	s.sent_end = hd_xcalloc((size_t)n, sizeof *s.sent_end);
	s.sent = hd_xcalloc((size_t)n, sizeof *s.sent);
	s.recv = hd_xcalloc((size_t)n, sizeof *s.recv);
	s.nic_out = hd_xcalloc((size_t)nodes, sizeof *s.nic_out);
	s.nic_in = hd_xcalloc((size_t)nodes, sizeof *s.nic_in);
	ready = hd_xmalloc((size_t)n * sizeof *ready);
	for (r = 0; r < n; r++)
		ready[r] = s.a[r] = arrive[r] + p->coll_base;
	if (root < 0 || root >= n)
		root = 0;

	if (n > 1 &&
	    (c == HD_COLL_ALLGATHER || c == HD_COLL_REDUCESCATTER ||
	     (c == HD_COLL_ALLREDUCE && used == HD_ALGO_RING))) {
		s.n = ring_period(n, p, bytes, arrive, fn);
		s.fold = n / s.n;
		s.nodes = (s.n + gpn(p) - 1) / gpn(p);
	}
	if (n > 1) {
		switch (c) {
		case HD_COLL_ALLREDUCE:
			if (used == HD_ALGO_TREE)
				steps = tree(&s, bytes, p->coll_chunk, ready);
			else
				steps = ring(&s, bytes, 2 * (n - 1), ready);
			break;
		case HD_COLL_ALLGATHER:
		case HD_COLL_REDUCESCATTER:
			steps = ring(&s, bytes, n - 1, ready);
			break;
		case HD_COLL_BROADCAST:
		case HD_COLL_REDUCE:
			order = hd_xmalloc((size_t)n * sizeof *order);
			for (k = 0; k < n; k++)
				order[k] = c == HD_COLL_BROADCAST ? (root + k) % n :
								    (root + 1 + k) % n;
			steps = chain(&s, order, bytes, p->coll_chunk, ready);
			break;
		case HD_COLL_GATHER:
			for (k = 1; k < n; k++) {
				r = (root + k) % n;
				ready[root] = tmax(ready[root],
						   xfer(&s, r, root, s.a[r], share(bytes, n, r),
							(uint32_t)(k - 1)));
			}
			steps = (uint32_t)(n - 1);
			break;
		case HD_COLL_ALLTOALL:
		case HD_COLL__COUNT:
			for (k = 1; k < n; k++)
				for (r = 0; r < n; r++) {
					int dst = (r + k) % n;

					ready[dst] = tmax(ready[dst],
							  xfer(&s, r, dst, s.a[r],
							       share(bytes, n, r),
							       (uint32_t)(k - 1)));
				}
			steps = (uint32_t)(n - 1);
			break;
		}
	}
	/* folded, rank r does what rank r mod s.n does */
	for (r = 0; r < n; r++)
		done[r] = tmax(ready[r % s.n], s.sent_end[r % s.n]);
	if (st != NULL) {
		memset(st, 0, sizeof *st);
		st->algo = used;
		st->steps = steps;
		st->transfers = s.transfers;
		for (r = 0; r < s.n; r++) {
			if (s.sent[r] > st->max_sent)
				st->max_sent = s.sent[r];
			if (s.recv[r] > st->max_recv)
				st->max_recv = s.recv[r];
		}
	}
	free(order);
	free(ready);
	free(s.a);
	free(s.out);
	free(s.in);
	free(s.sent_end);
	free(s.sent);
	free(s.recv);
	free(s.nic_out);
	free(s.nic_in);
}

/* --- the closed form ------------------------------------------------------- */

/*
 * A ring of `nsteps` steps of `bytes` on the links r -> r + 1: the chain of
 * dependent transfers goes round the ring, so it costs the links' average
 * hop; no link can carry its nsteps transfers faster than back to back.
 */
static hd_time
ring_time(const struct hd_profile *p, int n, int nsteps, uint64_t bytes)
{
	hd_time sum = 0, occ = 0, o, chain;
	int r;

	for (r = 0; r < n; r++) {
		struct hd_link l = hd_coll_link(p, r, (r + 1) % n);

		o = hd_time_for_bytes((double)bytes, l.bw);
		sum = hd_time_add(sum, hd_time_add(l.lat, o));
		if (o > occ)
			occ = o;
	}
	chain = hd_time_from_ps((double)sum * nsteps / n);
	occ = hd_time_mul(occ, (uint64_t)nsteps);
	return chain > occ ? chain : occ;
}

hd_time
hd_coll_formula(enum hd_coll c, enum hd_coll_algo algo, uint64_t bytes, int n,
		const struct hd_profile *p)
{
	uint64_t seg, K, cb;
	hd_time base = p->coll_base, hop, occ = 0, lat = 0, o;
	int g = gpn(p), v, r;

	if (n <= 1)
		return base;
	seg = bytes / (uint64_t)n;
	K = nchunks(bytes, p->coll_chunk);
	cb = K > 1 ? p->coll_chunk : bytes;
	switch (c) {
	case HD_COLL_ALLREDUCE:
		if (hd_coll_pick(c, algo, bytes, n, p) == HD_ALGO_TREE) {
			/* each chunk climbs `depth` hops and comes down again; the
			 * busiest rank's link carries `cyc` chunks per chunk */
			int *kids = hd_xcalloc((size_t)n, sizeof *kids), depth = 0, cyc = 1;

			for (v = 1; v < n; v++) {
				struct hd_link l = hd_coll_link(p, v, tree_parent(v, g));

				kids[tree_parent(v, g)]++;
				o = hd_time_for_bytes((double)cb, l.bw);
				if (o > occ)
					occ = o;
				if (l.lat > lat)
					lat = l.lat;
			}
			for (v = 0; v < n; v++) {
				int dv = 0, u = v;

				if (kids[v] + (v > 0) > cyc)
					cyc = kids[v] + (v > 0);
				if (kids[v] != 0)
					continue;
				while (u > 0) {
					u = tree_parent(u, g);
					dv++;
				}
				if (dv > depth)
					depth = dv;
			}
			free(kids);
			return hd_time_add(
			    hd_time_add(base,
					hd_time_mul(hd_time_add(lat, occ), 2 * (uint64_t)depth)),
			    hd_time_mul(occ, (K - 1) * (uint64_t)cyc));
		}
		return hd_time_add(base, ring_time(p, n, 2 * (n - 1), seg));
	case HD_COLL_ALLGATHER:
	case HD_COLL_REDUCESCATTER:
		return hd_time_add(base, ring_time(p, n, n - 1, seg));
	case HD_COLL_BROADCAST:
	case HD_COLL_REDUCE:
		/* the first chunk crosses n-1 hops; the others follow one
		 * occupancy of the slowest link apart */
		for (r = 0; r + 1 < n; r++) {
			struct hd_link l = hd_coll_link(p, r, r + 1);

			o = hd_time_for_bytes((double)cb, l.bw);
			lat = hd_time_add(lat, hd_time_add(l.lat, o));
			if (o > occ)
				occ = o;
		}
		return hd_time_add(hd_time_add(base, lat), hd_time_mul(occ, K - 1));
	case HD_COLL_GATHER: {
		struct hd_link l = hd_coll_link(p, 1, 0);

		for (r = 2; r < n; r++) {
			struct hd_link m = hd_coll_link(p, r, 0);

			if (m.bw < l.bw)
				l = m;
		}
		return hd_time_add(
		    hd_time_add(base, l.lat),
		    hd_time_mul(hd_time_for_bytes((double)seg, l.bw), (uint64_t)(n - 1)));
	}
	case HD_COLL_ALLTOALL:
	case HD_COLL__COUNT:
		break;
	}
	for (r = 1; r < n; r++) {
		struct hd_link l = hd_coll_link(p, 0, r);

		hop = l.lat + hd_time_for_bytes((double)seg, l.bw);
		if (hop > occ)
			occ = hop;
	}
	return hd_time_add(base, hd_time_mul(occ, (uint64_t)(n - 1)));
}
