/*
 * coll.h - links between GPUs, and NCCL's collectives as schedules.
 *
 * hd_coll_link says how two ranks' GPUs reach each other on a profile: over
 * NVLink (through NVSwitch, or a direct pair), through the PCIe root
 * complex, or over the network between nodes, with that path's latency and
 * rate.  Ranks fill nodes in order: ranks 0 .. gpus_per_node-1 are node 0.
 *
 * hd_coll_schedule plays one collective step by step, chunk by chunk, the
 * way NCCL's ring, chain and tree algorithms move data: every transfer goes
 * from one rank to another over hd_coll_link's path, starts when its data
 * is there, the receiving rank has reached the collective, and the sender's
 * link out and the receiver's link in (and, across nodes, the two nodes'
 * NICs) are free; latency does not occupy a link.  The caller gets every
 * transfer through a callback (for spans) and each rank's finishing time.
 * Links used by a collective are not shared with other traffic of the run:
 * the schedule is computed when the last rank arrives.
 *
 * hd_coll_formula is the closed form of the same algorithms on uniform
 * links (NCCL's own cost model): base + steps * latency + bytes / rate.
 */
#ifndef HD_COLL_H
#define HD_COLL_H

#include <stdint.h>

#include "base/units.h"
#include "ir/ir.h"
#include "profile/profile.h"

enum hd_link_class {
	HD_LINK_NVLINK,
	HD_LINK_PCIE, /* peer traffic through the PCIe root complex */
	HD_LINK_NET,  /* between nodes */
	HD_LINK__COUNT
};
const char *hd_link_class_name(enum hd_link_class c); /* "NVLink" "PCIe" "network" */

struct hd_link {
	enum hd_link_class cls;
	hd_time lat;
	double bw; /* bytes/s, one direction */
};

/* The path from rank a's GPU to rank b's (a != b) on profile p. */
struct hd_link hd_coll_link(const struct hd_profile *p, int a, int b);
/* The node rank r is on. */
int hd_coll_node(const struct hd_profile *p, int r);

/* One transfer of a schedule, for spans and tests. */
struct hd_coll_xfer {
	int src, dst;
	uint32_t step; /* ring step, or chunk number of pipelined algorithms */
	hd_time start; /* first byte leaves */
	hd_time end;   /* last byte arrives (latency included) */
	uint64_t bytes;
	enum hd_link_class cls;
};

struct hd_coll_stats {
	enum hd_coll_algo algo; /* the algorithm that ran (auto resolved) */
	uint32_t steps;         /* steps of the longest chain of dependent transfers */
	uint64_t transfers;
	uint64_t max_sent; /* most bytes any one rank sent */
	uint64_t max_recv; /* most bytes any one rank received */
};

typedef void (*hd_coll_xfer_fn)(void *ctx, const struct hd_coll_xfer *x);

/*
 * Pipelined schedules (trees, broadcast, reduce) move chunks of the
 * profile's coll.chunk, n - 1 or more transfers per chunk.  Where that
 * would make more than HD_COLL_MAX_TRANSFERS transfers, the schedule is
 * played in bulk: the first chunks one by one (at least HD_COLL_MIN_CHUNKS,
 * and HD_COLL_MAX_TRANSFERS / n), then the rest as the last of those went,
 * each one period later, so a 4096 TiB broadcast or coll.chunk = 1 B costs
 * what a drawable one does.  Below the cap nothing changes; above it the
 * steady state of the pipeline is assumed from the last chunks played on
 * (the last chunk's smaller size is not), and only the played chunks are
 * drawn.
 */
#define HD_COLL_MAX_TRANSFERS (1u << 22)
#define HD_COLL_MIN_CHUNKS    64u
/* The chunks a pipelined schedule of `bytes` over n ranks on profile p
 * plays one by one: all of them, or the bulk model's first ones. */
uint64_t hd_coll_played(uint64_t bytes, int n, const struct hd_profile *p);

/*
 * Run collective c of `bytes` (nccl-tests' size: each rank's buffer; see
 * hd_coll_bus_factor) over n ranks with root `root` (rooted collectives),
 * on profile p with algorithm `algo` (HD_ALGO_AUTO picks by
 * hd_coll_pick).  arrive[r] is when rank r reached the collective; done[r]
 * receives when rank r's part ends (coll_base included).  fn (may be NULL)
 * sees every transfer in a deterministic order.  Memory: O(n + chunks);
 * time: O(n * steps) for rings, where a ring that repeats node by node runs
 * only its first node's ranks when fn is NULL (O(gpus per node * steps)),
 * and O(n * chunks) for pipelined algorithms, chunks as hd_coll_played.
 */
void hd_coll_schedule(enum hd_coll c, enum hd_coll_algo algo, uint64_t bytes, int root, int n,
		      const struct hd_profile *p, const hd_time *arrive, hd_time *done,
		      hd_coll_xfer_fn fn, void *ctx, struct hd_coll_stats *st);

/* Closed-form time of the same collective when every rank arrives at once. */
hd_time hd_coll_formula(enum hd_coll c, enum hd_coll_algo algo, uint64_t bytes, int n,
			const struct hd_profile *p);

/* The algorithm `auto` resolves to: tree for an all-reduce when its closed
 * form is faster, else ring (NCCL's tuner makes the same comparison). */
enum hd_coll_algo hd_coll_pick(enum hd_coll c, enum hd_coll_algo algo, uint64_t bytes, int n,
			       const struct hd_profile *p);

#endif
