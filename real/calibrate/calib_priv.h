/*
 * calib_priv.h - what the files of `hdsim calibrate` share, and nothing
 * outside real/calibrate/ includes.
 *
 * One GPU (struct cal): calibrate.c sets up and runs the stages in order
 * and assembles the profile; calib_gate.c holds what every stage uses (the
 * checked calls, the spin-kernel gate, samples and the log's tables);
 * calib_copy.c the pinned and both-ways copies, calib_host.c the host's own
 * costs (API calls, pageable copies, pinning, managed memory), calib_kernel.c
 * the latencies, device-local copies and kernels.
 *
 * Several GPUs (struct rk): calib_ranks.c sets up, finds the links and
 * writes their keys; calib_peer.c the peer copies, calib_hostdma.c every GPU
 * copying host memory at once, and calib_nccl.c what needs NCCL (the
 * collectives sweep, the host-memory copies as ranks run them), or
 * calib_nccl_stub.c in builds without it.
 *
 * Names shared between these files start with calp_; a check returns 0 or
 * -1 with the error set.  Builds with CUDA only.
 */
#ifndef HD_CALIB_PRIV_H
#define HD_CALIB_PRIV_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "base/util.h"
#include "profile/profile.h"
#include "real/calibrate/calfmt.h"
#include "real/calibrate/calib_ranks.h"
#include "real/calibrate/calibrate.h"
#include "real/calibrate/fit.h"
#include "real/calibrate/fit_ranks.h"

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define GiB ((uint64_t)1 << 30)

#define LATCH_TIMEOUT_NS 5000000000ull /* the gate lets go by itself after 5 s */

/* Offsets (in ints) of the flags in the mapped pinned page: one GPU uses all
 * of them, the rank part the first two. */
enum {
	FLAG_LATCH = 0,
	FLAG_TIMED_OUT = 32,
	FLAG_STARTED = 64,
	FLAG_WORDS = 96,
	RK_FLAG_WORDS = 64
};

/* ---- checks and clocks, both parts ------------------------------------------------ */

/* CLOCK_MONOTONIC in seconds. */
double calp_now(void);

/* Check a CUDA call's result: 0, or -1 with e naming the call and the runtime's
 * words (a sticky error is cleared so clean-up can run). */
int calp_cuda(struct hd_err *e, cudaError_t rc, const char *call);
/* x is a struct cal or struct rk; the kernel launchers return a cudaError_t as int */
#define CK(x, call)  calp_cuda((x)->e, (call), #call)
#define KCK(x, call) calp_cuda((x)->e, (cudaError_t)(call), #call)

/* Seconds between two recorded events: 0, or -1 with e set. */
int calp_elapsed(struct hd_err *e, cudaEvent_t a, cudaEvent_t b, double *sec);

/* Operations per gated sample and warm-ups before the start event, by size. */
void calp_gate_counts(uint64_t n, int *warm, int *reps);

/* The largest power of two not above v (0 for 0). */
uint64_t calp_pow2_floor(uint64_t v);

/* ---- one GPU ------------------------------------------------------------------------ */

#define MAX_SAMPLES 64
#define MAX_SIZES   40

struct cal {
	const struct hd_calibrate_opts *o;
	struct hd_profile *p;   /* being filled */
	struct hd_profile base; /* as the caller gave it */
	struct hd_buf *log;
	struct hd_buf sum; /* the figures set, for the end of the log */
	struct hd_err *e;
	int dev, quick;
	double lo, hi; /* progress range of the current stage */

	cudaStream_t s, s2;
	cudaEvent_t ev[4];
	cudaEvent_t ev_nt;         /* made with cudaEventDisableTiming */
	volatile int *flags;       /* mapped pinned: latch, timed_out, started */
	int *dflags;               /* the same, as the device sees it */
	void *hpin, *hpage, *dbuf; /* copy buffers of max_copy bytes */
	float *scratch;            /* kernels' output */
	uint64_t max_copy, host_cap, dev_cap;

	/* measured, used by later stages (seconds, bytes/s) */
	double api_memcpy, api_sync, wake, launch_latency, copy_latency;
	double memcpy_sync_call; /* a 4 B cudaMemcpy to pinned memory, whole */
	double h2d, d2h, bidir, flops;
	int have_launch_latency;
	int ranks; /* the multi-GPU part set figures */
};

/* t less n bytes at rate (0: no per-byte cost), never below 0. */
double calp_less_bytes(double t, uint64_t n, double rate);

/* Has the user asked to stop?  -1 with e saying so, else 0. */
int calp_stopped(struct cal *c);
/* The progress range of the current stage, as fractions of the whole run. */
void calp_range(struct cal *c, double lo, double hi);
/* Progress: step k of n within the current range, and what is measured. */
void calp_progress(struct cal *c, int k, int n, const char *fmt, ...) HD_PRINTF(4, 5);

/* A table of the log: its title and method, then rows of one size each. */
void calp_log_head(struct cal *c, const char *title, const char *method);
void calp_log_row(struct cal *c, const char *size, int samples, int ops, const struct hd_stats *st,
		  const char *rate);

/* One sample of a measurement: seconds (per op) into *sec; 0 or -1. */
typedef int (*calp_sample_fn)(struct cal *c, const void *arg, double *sec);
/* `samples` runs of f into *st: 0, or -1 (also when stopped). */
int calp_sample_stats(struct cal *c, calp_sample_fn f, const void *arg, int samples,
		      struct hd_stats *st);

/* Queue one operation on stream s: 0 or -1. */
typedef int (*calp_enq_fn)(struct cal *c, cudaStream_t s, const void *arg);

/* What the spin-kernel gate times: `reps` operations after `warm` of them. */
struct calp_gate {
	calp_enq_fn f;
	const void *arg;
	int warm, reps;
};

/* A calp_sample_fn over a struct calp_gate: c->s held by the latch kernel
 * while the operations queue, then released; seconds per operation. */
int calp_gated(struct cal *c, const void *gate, double *sec);
/* Let the latch kernel go (always safe). */
void calp_release(struct cal *c);

/* A copy for calp_enq_copy. */
struct calp_copy_op {
	void *dst;
	const void *src;
	size_t n;
	enum cudaMemcpyKind kind;
};
int calp_enq_copy(struct cal *c, cudaStream_t s, const void *arg);

/* Times against sizes, for a fit. */
struct calp_sweep {
	double n[MAX_SIZES], t[MAX_SIZES];
	int count;
};

/*
 * Fit t = alpha + n / beta over a sweep (alpha from sizes up to `small`,
 * beta from sizes from `large`; 0 and 0: one least-squares fit over all),
 * and log it.  Sets *fitted; a sweep that cannot be fitted is logged, not
 * an error.  Returns 0.
 */
int calp_sweep_fit(struct cal *c, const struct calp_sweep *sw, double small, double large,
		   const char *rate_what, const char *beta_from, const char *alpha_from,
		   struct hd_fit *fit, int *fitted);

/* The GPU's PCIe link as sysfs reports it now, for the log (calibrate.c). */
void calp_read_link(struct cal *c, int *gen, int *lanes, char *text, size_t n);

/* Which of n host rounds figure `key` takes: "median"; for a call's own
 * cost the API stage measures "slowest" (n up to 4) or "upper quartile";
 * for a figure whose rounds rise one after the other "fastest"
 * (calib_host.c). */
const char *calp_rounds_rule(const char *key, int n);
/* out's call costs and fastest-round figures from the n rounds
 * r[0..n-1], as calp_rounds_rule says (calib_host.c); every other key of
 * out is left as it is. */
void calp_rounds_pick(const struct hd_profile *r, int n, struct hd_profile *out);

/* The stages, each 0 or -1 (calibrate.c runs them in order). */
int calp_stage_api(struct cal *c); /* calib_host.c */
int calp_stage_pageable(struct cal *c);
int calp_stage_pinning(struct cal *c);
int calp_stage_managed(struct cal *c);
int calp_stage_pinned(struct cal *c); /* calib_copy.c */
int calp_stage_bidir(struct cal *c);
int calp_stage_latency(struct cal *c); /* calib_kernel.c */
int calp_stage_kernels(struct cal *c);
int calp_stage_graphs(struct cal *c); /* calib_graph.c */

/* ---- several GPUs ------------------------------------------------------------------- */

#define MAXG           HD_FIT_MAX_GPUS
#define RK_MAX_SAMPLES 16
#define RK_MAX_SIZES   24
#define WAIT_LIMIT_S   60.0 /* a collective or copy batch that takes longer is hung */

struct rk {
	const struct hd_calib_ranks *r;
	struct hd_profile *p;
	struct hd_err *e;
	struct hd_buf *log;
	int n, dev0;
	cudaStream_t s[MAXG];
	cudaEvent_t ev[MAXG][3];
	void *src[MAXG], *dst[MAXG]; /* bufsize bytes on each GPU */
	uint64_t bufsize;
	volatile int *flags;
	int *dflags[MAXG];
	int enabled[MAXG][MAXG]; /* peer access this run enabled */
	struct hd_fit_node nd;
	double lo, hi;         /* progress range of the current part */
	const char *nvml_note; /* how the link count was found */
	int nvml_links[MAXG];  /* active NVLinks per GPU, -1: not reported */
};

/* As calp_stopped and calp_progress, for the rank part. */
int calp_rk_stopped(struct rk *k);
void calp_rk_progress(struct rk *k, int i, int n, const char *fmt, ...) HD_PRINTF(4, 5);

/* The gate on GPU i's stream (flags reset first), its release, and whether it
 * let go by itself before `ops` operations were queued (-1 with e set). */
int calp_rk_hold(struct rk *k, int i);
void calp_rk_release(struct rk *k);
int calp_rk_timed_out(struct rk *k, int ops);

/* Peer copies between every ordered pair of GPUs (calib_peer.c). */
struct calp_peer_sweep {
	uint64_t size[RK_MAX_SIZES];
	int count;
	double small_max, large_min;
	double t[MAXG][MAXG][RK_MAX_SIZES]; /* median seconds per copy */
	double iqr[MAXG][MAXG][RK_MAX_SIZES];
	struct hd_fit fit[MAXG][MAXG];
	int fitted[MAXG][MAXG];
	double bi_total[MAXG][MAXG]; /* both directions at once, i < j */
	double bi_dir[MAXG][MAXG];   /* i -> j while j -> i runs */
	uint64_t bi_size;
};
int calp_rk_stage_peer(struct rk *k, struct calp_peer_sweep *ps);

/* Every GPU copying pinned host memory at once (calib_hostdma.c). */
enum {
	HDMA_H2D,
	HDMA_D2H,
	HDMA_BOTH,
	HDMA__COUNT
};
extern const char *const calp_hdma_name[HDMA__COUNT];

struct calp_host_dma {
	uint64_t size;                   /* bytes per copy */
	int reps;                        /* copies per GPU and direction */
	void *h_src[MAXG], *h_dst[MAXG]; /* pinned, one pair per GPU */
	cudaStream_t s2[MAXG];           /* the second direction's stream */
	int groups[MAXG], ngroups;       /* GPU counts measured */
	double total[MAXG][HDMA__COUNT]; /* bytes/s, all GPUs of the group */
	double least[MAXG][HDMA__COUNT]; /* bytes/s, the slowest GPU's own */
};
int calp_rk_stage_host_dma(struct rk *k);
/* Free the stage's buffers and streams (again: a no-op). */
void calp_rk_hdma_teardown(struct rk *k, struct calp_host_dma *hd);

/* The ring all-reduce fit, for the log (calib_ranks.c). */
void calp_rk_log_ring_fit(struct rk *k, const struct hd_fit_ranks *f);

/* ---- what needs NCCL: calib_nccl.c, or calib_nccl_stub.c ----------------------------- */

/*
 * The node's host-memory figures again with one process per GPU, as ranks
 * run (the stage's buffers in hd are freed first): where they give a
 * figure it replaces keys[d], and *from says where the keys came from.
 * 0, or -1 with e set.  Without NCCL: 0, nothing measured.
 */
int calp_nccl_host_dma(struct rk *k, struct calp_host_dma *hd, double keys[HDMA__COUNT],
		       const char **from);

/* The collectives: communicators and what they measured (opaque). */
struct calp_nccl;

/*
 * Open a communicator per GPU and sweep all-reduce: its sizes and times into
 * ar_size, ar_t (*ar_n of them, at most RK_MAX_SIZES), the sizes that bound
 * the fit into *small_max and *large_min.  *nc is set (to close) even on
 * failure.  0, or -1 with e set.  Without NCCL: logs that the build has
 * none, *nc NULL, *ar_n 0, and 0.
 */
int calp_nccl_allreduce(struct rk *k, struct calp_nccl **nc, double *ar_size, double *ar_t,
			size_t *ar_n, double *small_max, double *large_min);

/*
 * Log all-reduce against the fitted figures (fig, when the ring was fitted),
 * then sweep and log all-gather, broadcast and send/recv.  0, or -1 with e
 * set.  nc NULL (no NCCL): nothing, 0.
 */
int calp_nccl_report(struct rk *k, struct calp_nccl *nc, const struct hd_fit_ranks *fit,
		     const struct hd_coll_fig *fig);

/* Destroy (or, after a failure, abort) the communicators; nc may be NULL. */
void calp_nccl_close(struct calp_nccl *nc, int failed);

#endif
