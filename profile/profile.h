/*
 * profile.h - a hardware description the model runs on.
 *
 * Built-in profiles come from public datasheets and the figures in the
 * reference material (each key in a profile file may carry a `# source`
 * comment); calibrated profiles come from `hdsim calibrate` on a real
 * machine.  Both are the same text format (doc/profile-format.md) and the
 * same struct.  Rates are bytes/s or FLOP/s, times picoseconds.
 */
#ifndef HD_PROFILE_H
#define HD_PROFILE_H

#include <stdint.h>

#include "base/units.h"
#include "base/util.h"

enum hd_topo {
	HD_TOPO_SINGLE,       /* one GPU */
	HD_TOPO_NVSWITCH,     /* every GPU of a node reaches every other through NVSwitch */
	HD_TOPO_NVLINK_PAIRS, /* GPUs joined in pairs by NVLink, pairs by PCIe */
	HD_TOPO_PCIE,         /* peer traffic through the PCIe root complex */
	HD_TOPO__COUNT
};

/* How the simulator runs NCCL collectives. */
enum hd_coll_algo {
	HD_ALGO_AUTO, /* the faster of ring and tree by NCCL's cost model, as NCCL picks */
	HD_ALGO_RING,
	HD_ALGO_TREE,
	HD_ALGO__COUNT
};
enum hd_coll_model {
	HD_CMODEL_CHUNKS,  /* the algorithm step by step, chunk by chunk over the links */
	HD_CMODEL_FORMULA, /* NCCL's closed form: base + steps * latency + bytes / busBw */
	HD_CMODEL__COUNT
};

struct hd_profile {
	char name[64];         /* "h100-sxm" */
	char description[160]; /* "NVIDIA H100 SXM5 80GB, PCIe Gen5 x16 host link" */
	char origin[32];       /* "built-in", "calibrated", or the file it came from */

	/* Host <-> device: PCIe. */
	int pcie_gen, pcie_lanes;
	double h2d_bw; /* achievable pinned DMA rate, bytes/s */
	double d2h_bw;
	double bidir_bw;      /* both directions at once, total (host-side cap) */
	hd_time copy_latency; /* per transfer: DMA set-up until the first byte moves */
	int copy_engines;     /* asyncEngineCount */

	/* Host memory and pageable staging. */
	double host_memcpy_h2d_bw; /* CPU memcpy from pageable memory into a staging buffer */
	double host_memcpy_d2h_bw; /* CPU memcpy out of a staging buffer into pageable memory */
	/* The same rates for a copy of at most host_cache bytes, whose host
	 * side stays in the CPU's caches between copies (0: as above). */
	double host_memcpy_h2d_hot_bw, host_memcpy_d2h_hot_bw;
	uint64_t host_cache;
	/* first writes to malloc'd pages: the faults that map and zero them,
	 * and unmapping them at free (0: free) */
	double host_touch_bw;
	uint64_t staging_chunk;  /* bytes per staging chunk */
	int staging_buffers;     /* pinned staging buffers used in turn */
	double pin_bw;           /* cudaHostRegister of touched pages: bytes pinned per second */
	double mallochost_bw;    /* cudaMallocHost: fresh pages allocated and pinned, bytes/s */
	hd_time pin_base;        /* fixed cost of one pinned allocation */
	hd_time mallochost_base; /* fixed cost of cudaMallocHost (0: pin_base) */
	/* Every GPU of a node moving pinned host memory at once: caps on the
	 * node's total, bytes/s (0: none).  Host memory and the root complex
	 * serve all GPUs, so eight copies at once get less than eight links. */
	double node_h2d_bw, node_d2h_bw, node_bidir_bw;
	/* CPU cores one rank's host threads share (0: as many as it has threads);
	 * when more threads do host work at once, each gets cores / busy of one */
	int host_cores;
	hd_time malloc_cost; /* cudaMalloc of device memory */
	hd_time free_cost;   /* cudaFree (before its implicit device sync) */
	/* Allocations below HD_ALLOC_SMALL bytes come from the driver's pools
	 * (0: cost as large ones); cudaFreeHost unmaps and unpins its pages. */
	hd_time malloc_small, free_small;
	/* cudaMallocManaged with the first touch of its first page, and cudaFree
	 * of managed memory before its implicit device sync (0: as device
	 * memory) */
	hd_time malloc_managed, free_managed;
	/* cudaMalloc / cudaFree of device memory of 2 MiB up also map / unmap
	 * its bytes at these rates, bytes/s (0: no per-byte cost) */
	double malloc_bw, free_bw;
	/* cudaMalloc / cudaFree of device memory from HD_ALLOC_SMALL to
	 * HD_ALLOC_MID_TOP bytes that an earlier cudaFree of as many bytes
	 * served: the time at HD_ALLOC_MID bytes and below, rising linearly in
	 * bytes to what the two figures above give at HD_ALLOC_MID_TOP (0: as
	 * those two throughout; a first allocation always so) */
	hd_time malloc_mid, free_mid;
#define HD_ALLOC_SMALL   (2u << 20)
#define HD_ALLOC_MID     (4u << 20)
#define HD_ALLOC_MID_TOP (64u << 20)
	hd_time freehost_cost; /* cudaFreeHost, fixed part (0: api.free) */
	double unpin_bw;       /* cudaFreeHost: bytes unpinned per second (0: no per-byte cost) */

	/* Host API costs (CPU time spent inside the call). */
	hd_time api_launch;          /* kernel launch */
	hd_time api_memcpy;          /* cudaMemcpy / cudaMemcpyAsync submit */
	hd_time api_memcpy_d2d;      /* the same for a device-to-device copy (0: api_memcpy) */
	hd_time api_memcpy_sync;     /* a synchronous copy's return after it, beyond sync_wake */
	hd_time api_memcpy_managed;  /* more for a copy that names managed memory */
	hd_time api_memcpy_pageable; /* more for a staged copy to or from pageable memory */
	hd_time api_event;           /* cudaEventRecord, cudaEventQuery */
	hd_time api_event_notiming;  /* cudaEventRecord of a notiming event (0: api_event) */
	hd_time api_wait;            /* cudaStreamWaitEvent */
	hd_time api_sync;            /* a sync call that finds nothing to wait for */
	hd_time api_sync_kernel;     /* api_sync while a stream's last work is a kernel */
	hd_time api_sync_device;     /* cudaDeviceSynchronize finding nothing (0: api_sync) */
	hd_time sync_wake;           /* from the GPU finishing to the blocked host running again */
	int stream_queue;            /* ops a stream holds before a launch blocks the host */

	/* CUDA graphs: the host's cudaGraphLaunch, whatever the graph holds, and
	 * the GPU's time before each node of a launched graph starts. */
	hd_time api_graph_launch;
	hd_time graph_node;

	/* GPU. */
	char gpu_name[64];
	int sms;
	double hbm_bw;           /* device memory bandwidth, bytes/s (read + write traffic) */
	double flops;            /* peak FP32 FMA rate, FLOP/s */
	hd_time launch_latency;  /* from submit to the kernel starting on an idle GPU */
	hd_time kernel_overhead; /* fixed cost per kernel on the GPU */
	/* GPU time of a timing event's record (its timestamp), one record at a
	 * time across the GPU's streams (0: none; notiming events take none) */
	hd_time event_record;
	int max_kernels; /* concurrent kernels the GPU will run */
	double d2d_bw;   /* device-local copy, counted once, bytes/s */
	/* What one thread block of the memory, fill and reduce kernels draws
	 * from HBM, bytes/s (0: no per-block limit): a grid too small to fill
	 * the GPU runs below gpu.hbm. */
	double block_memory_bw, block_fill_bw, block_reduce_bw;
	/* A kernel's buffer of at most l2_bytes stays in the L2: its traffic
	 * runs at l2_bw (memory, reduce) or l2_fill_bw (fill) (0: gpu.hbm). */
	uint64_t l2_bytes;
	double l2_bw, l2_fill_bw;

	/* Unified memory. */
	uint64_t um_page;          /* migration granule for demand faults */
	hd_time um_fault;          /* cost per fault group on the GPU */
	double um_fault_bw;        /* bytes/s while migrating on demand */
	double um_prefetch_bw;     /* bytes/s for cudaMemPrefetchAsync */
	hd_time um_prefetch_base;  /* fixed time of a prefetch that moves pages (0: copy_latency) */
	double um_prefetch_d2h_bw; /* bytes/s of a prefetch to the host (0: um_prefetch_bw) */
	double um_walk_bw;         /* bytes/s a prefetch walks over pages already there (0: free) */
	hd_time um_prefetch_stay;  /* GPU time of a prefetch that moves nothing (0: copy_latency) */
	/* more GPU time for a prefetch that moves nothing, called while other
	 * work than a prefetch was last on its stream, unfinished: the driver
	 * does it once that work is done (0: none) */
	hd_time um_prefetch_defer;
	hd_time um_fault_base; /* once per kernel that faults, before its first group */
	double um_touch_bw; /* first touch on the host of fresh managed memory, bytes/s (0: free) */
	/* a copy's host side on managed pages that are on the device: the CPU
	 * faults them back, a fixed time and bytes/s reading or writing them */
	hd_time um_host_fault;
	double um_host_fault_bw, um_host_fault_write_bw;
	/* the CPU's first write into managed pages a prefetch to the host has
	 * brought there, bytes/s beyond the write itself (0: free) */
	double um_prefetched_write_bw;

	/* Between GPUs and nodes (used by rank scenarios). */
	enum hd_topo topo;
	int gpus_per_node;
	int nvlinks;      /* links per GPU */
	double nvlink_bw; /* per link, per direction, bytes/s */
	hd_time nvlink_latency;
	double nvlink_copy_bw; /* a copy-engine peer copy (cudaMemcpyPeer) over NVLink,
				 * bytes/s; 0: the links' rate */
	double p2p_pcie_bw;    /* peer traffic without NVLink, bytes/s */
	double nic_bw;         /* per node, per direction, bytes/s */
	hd_time net_latency;

	/* NCCL collectives. */
	enum hd_coll_algo coll_algo;
	enum hd_coll_model coll_model;
	hd_time coll_base;   /* fixed cost of one collective or send/recv on the GPU */
	uint64_t coll_chunk; /* pipelining unit of trees, broadcast, reduce and send/recv */
	int coll_sms;        /* SMs NCCL's kernels hold while they run (a block per channel) */
};

/* The built-in profiles, in display order; the first is the default. */
int hd_profile_builtin_count(void);
const struct hd_profile *hd_profile_builtin(int i);
const char *hd_profile_builtin_text(int i); /* its profile-file text */

/*
 * Resolve NAME|FILE as `--profile` does: a built-in name, else a path to a
 * profile file.  NULL or "" gives the default.  Fills *out; returns 0, or -1
 * with e set (status HD_EXIT_INPUT) naming the file:line:col or the name and
 * listing the built-in names.
 */
int hd_profile_resolve(const char *name_or_path, struct hd_profile *out, struct hd_err *e);
/* Parse profile text; `origin` names it in messages.  Unset keys keep the
 * values already in *out (so a file may start from `base NAME`). */
int hd_profile_parse(const char *text, const char *origin, struct hd_profile *out,
		     struct hd_err *e);
/* Write a profile as profile-file text that hd_profile_parse reads back equal
 * (every key; origin is not a key).  The caller frees the string. */
char *hd_profile_format(const struct hd_profile *p);

/* The built-in profile called `name`, or NULL. */
const struct hd_profile *hd_profile_builtin_find(const char *name);
/* The value of numeric key `key` ("api.launch") of p in base units (bytes,
 * picoseconds, bytes/s, FLOP/s; a count as it is) and its dimension (counts:
 * HD_DIM_NONE).  0, or -1 for an unknown key or one holding text or a word. */
int hd_profile_value(const struct hd_profile *p, const char *key, double *v, enum hd_dim *dim);
/* Set numeric key `key` of p from v in base units, as hd_profile_value gives
 * it (rounded to the key's type).  0, or -1 for an unknown key or one
 * holding text or a word. */
int hd_profile_set_value(struct hd_profile *p, const char *key, double v);
/* 1 when every key of a and b is equal (origin is not compared). */
int hd_profile_equal(const struct hd_profile *a, const struct hd_profile *b);
/* *out = in[0] with each numeric key the median of in[0..n-1]'s values (of
 * an even count: the mean of the middle two rates and times, the lower of
 * the middle counts and sizes); text and words as in[0] has them.  Keys
 * all n agree on are left exactly as they are.  n is 1 to 64; out may be
 * one of in. */
void hd_profile_median(const struct hd_profile *in, int n, struct hd_profile *out);
/* "single", "nvswitch", "nvlink-pairs", "pcie". */
const char *hd_topo_name(enum hd_topo t);
/* "auto", "ring", "tree";  "chunks", "formula". */
const char *hd_coll_algo_name(enum hd_coll_algo a);
const char *hd_coll_model_name(enum hd_coll_model m);

/* The keys of the profile format, in file order: key i's name and help text
 * (static strings); NULL when i is out of range. */
int hd_profile_key_count(void);
const char *hd_profile_key(int i, const char **help);

/*
 * Append the `hdsim profiles` table to out: one row per built-in with its
 * name, GPU, PCIe link, H2D/D2H rates, memory bandwidth, FP32 rate, copy
 * engines and launch cost, under two heading lines (name, unit), columns
 * aligned, no trailing blanks.  To fit `width` the GPU column narrows, then
 * goes, then columns go from the right; width <= 0 means no limit.
 */
void hd_profile_list(struct hd_buf *out, int width);
/* Every key of p with its value and help text, grouped, for `hdsim profiles
 * NAME`.  The caller frees the string. */
char *hd_profile_describe(const struct hd_profile *p);

#endif
