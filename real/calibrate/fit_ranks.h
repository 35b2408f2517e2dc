/*
 * fit_ranks.h - the arithmetic of the multi-GPU part of `hdsim calibrate`:
 * the node's topology from what its GPUs report and how fast their peer
 * copies run, and the rank model's figures (link rate, per-hop latency,
 * fixed cost of a collective) fitted to measured peer copies and NCCL
 * all-reduce times.
 *
 * Pure C with no CUDA or NCCL, so every figure the calibration derives is
 * tested without a GPU.  Times are seconds, sizes bytes, rates bytes/s.
 *
 * The rank model these figures feed (doc/profile-format.md):
 *   peer copy of S bytes       alpha + S / beta
 *   ring all-reduce, n ranks   base + 2(n-1) (alpha + (S/n) / beta)
 *   all-gather, reduce-scatter base + (n-1) (alpha + (S/n) / beta)
 *   broadcast, reduce          base + (k + n - 2) (alpha + c / beta): a chain of
 *                              n-1 hops pipelined in k chunks of c = min(chunk, S)
 * with beta = nvlink.links x nvlink.rate over NVLink, else topo.p2p_pcie, and
 * alpha = nvlink.latency over NVLink, else pcie.latency.
 */
#ifndef HD_FIT_RANKS_H
#define HD_FIT_RANKS_H

#include <stddef.h>

#include "base/util.h"
#include "ir/ir.h"
#include "profile/profile.h"
#include "real/calibrate/fit.h"

#define HD_FIT_MAX_GPUS 16

/* What was found out about the GPUs of one node; row i is the source, column j
 * the destination (the diagonal is unused). */
struct hd_fit_node {
	int n;                                         /* GPUs, 1 .. HD_FIT_MAX_GPUS */
	int p2p[HD_FIT_MAX_GPUS][HD_FIT_MAX_GPUS];     /* peer access could be enabled */
	int atomics[HD_FIT_MAX_GPUS][HD_FIT_MAX_GPUS]; /* native atomics (an NVLink hint) */
	double bw[HD_FIT_MAX_GPUS][HD_FIT_MAX_GPUS];   /* peer copy rate, 0: not measured */
	double lat[HD_FIT_MAX_GPUS][HD_FIT_MAX_GPUS];  /* peer copy intercept, < 0: none */
	int links;      /* active NVLinks per GPU as reported; 0: not reported,
				 * -1: the machine reports none */
	double pcie_bw; /* the host link's measured rate (the faster direction) */
};

/* The node's topology as the model's four kinds know it. */
struct hd_fit_topo {
	enum hd_topo kind;
	int gpus_per_node;
	int nvlink[HD_FIT_MAX_GPUS][HD_FIT_MAX_GPUS]; /* the pair is taken as NVLink */
	int nvlink_pairs, pcie_pairs, host_pairs;     /* unordered pairs by path */
	int by_rate; /* NVLink was decided by measured rates, not hints */
	int exact;   /* 0: the links match no kind exactly; kind is the closest */
};

/*
 * Classify the node.  A pair is NVLink when its measured peer rate (either
 * direction) is more than 1.5 times the host link's, else not; when no rate
 * was measured (or the host link's is unknown), when peer access works with
 * native atomics on a GPU that reports NVLinks (links not -1).
 * Every pair NVLink: nvswitch (two GPUs joined by NVLink included); exactly
 * the pairs 2k, 2k+1: nvlink-pairs; none: pcie; one GPU: single.  Other
 * patterns take the closest kind with exact 0.  -1 with e set when n is out
 * of range.
 */
int hd_fit_topo(const struct hd_fit_node *nd, struct hd_fit_topo *t, struct hd_err *e);

/* Does the model send a peer copy from i to j over NVLink with kind t? */
int hd_fit_topo_link(enum hd_topo kind, int i, int j);

/* The figures of the rank model's closed forms. */
struct hd_coll_fig {
	int n;        /* ranks */
	double alpha; /* per hop, s */
	double beta;  /* per link direction, B/s */
	double base;  /* per collective, s */
	double chunk; /* pipelining unit, B */
};

/* Time of collective c of `bytes` (nccl-tests' size) under the forms above;
 * gather and all-to-all take the all-gather form. */
double hd_fit_coll_time(enum hd_coll c, const struct hd_coll_fig *f, double bytes);

/* All-reduce times fitted to the ring formula. */
struct hd_fit_ring {
	double beta;      /* link rate the ring formula needs: busBw at large sizes */
	double intercept; /* all-reduce time at size 0 */
	double base;      /* intercept - 2(n-1) alpha, clamped at 0 */
	int base_clamped;
	struct hd_fit line;      /* the t = a + S / b fit underneath */
	double max_rel, rms_rel; /* the formula with these figures against every size */
};

/*
 * Fit ring all-reduce times t[i] of bytes[i] over n >= 2 ranks: the slope
 * over sizes >= large_min gives beta (so 2(n-1)/n S / beta is the large-size
 * time), the mean of t - that over sizes <= small_max the intercept, and
 * base = intercept - 2(n-1) alpha with the per-hop alpha the model will use.
 * -1 with e set on fewer than two sizes, n < 2, or times that do not grow.
 */
int hd_fit_ring(int n, const double *bytes, const double *t, size_t count, double small_max,
		double large_min, double alpha, struct hd_fit_ring *r, struct hd_err *e);

/* The profile figures a node calibration sets. */
struct hd_fit_ranks {
	struct hd_fit_topo topo;
	int links;             /* nvlink.links written (0 on a node without NVLink) */
	int links_reported;    /* links came from the machine, not the base profile */
	double nvlink_rate;    /* per link; 0: not set */
	double nvlink_latency; /* < 0: not set */
	double p2p_pcie;       /* 0: not set */
	double coll_base;      /* < 0: not set */
	int ring_over_nvlink;  /* every hop of the ring is NVLink */
	double alpha;          /* the per-hop latency the ring fit used */
	int rate_from_ring;    /* the ring's link rate came from all-reduce, not copies */
	double copy_nvlink_bw; /* median peer copy rate over NVLink pairs (0: none) */
	double copy_other_bw;  /* median over the other pairs (0: none) */
	int have_ring;
	struct hd_fit_ring ring;
};

/*
 * From a node's measurements (nd) and, when ar_count >= 2, its all-reduce
 * sweep over all n GPUs, the profile figures:
 * - topology by hd_fit_topo; links: nd->links, else base_links, else 1;
 * - nvlink.latency: the median peer copy intercept over NVLink pairs;
 * - the ring's link rate from the all-reduce fit (else the median peer copy
 *   rate): nvlink.rate = rate / links when every ring hop is NVLink, else
 *   topo.p2p_pcie = rate; NVLink pairs off the ring get their rate from
 *   copies; pairs without NVLink from copies when there is no sweep;
 * - coll.base from the ring fit, with alpha = nvlink.latency over NVLink,
 *   else copy_latency (pcie.latency).
 * -1 with e set when the topology or the ring fit fails.
 */
int hd_fit_ranks(const struct hd_fit_node *nd, int base_links, double copy_latency,
		 const double *ar_bytes, const double *ar_t, size_t ar_count, double small_max,
		 double large_min, struct hd_fit_ranks *out, struct hd_err *e);

#endif
