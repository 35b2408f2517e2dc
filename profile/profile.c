/*
 * profile.c - hardware profiles: the text format, the built-in table and
 * the `hdsim profiles` listings.
 *
 * One table, keys[], names every key of the format with the struct field it
 * fills, its type, the unit it is written in and a line of help.  Parsing,
 * formatting, comparison and the listings all walk that table, so a new
 * field is one new row (and a line in doc/profile-format.md).
 *
 * Why one file of some 1,350 lines: every part below reads keys[] and its
 * struct, which stay private here so that a key is defined in exactly one
 * place; splitting the file would export the table's internals to do it.
 *
 * Built-in profiles are profile files compiled into the binary
 * (build-aux/embed.sh); they are parsed once, on first use, in the order of
 * PROFILE_FILES in Makefile.am, and the first is the default.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/embedded.h"
#include "lang/lex.h"
#include "profile/profile.h"

#define PROFILE_VERSION 1
#define MAX_BUILTIN     32
#define MAX_VALUE       256 /* bytes of one value's text */

/* Largest integer a double holds exactly: parsed sizes and times stay below
 * it, so every value that parses also formats back exactly. */
#define EXACT_MAX 9007199254740992.0

/* ------------------------------------------------------------------------ */
/* The key table                                                            */
/* ------------------------------------------------------------------------ */

enum ktype {
	KT_STR,  /* "quoted text" into a char array */
	KT_INT,  /* a whole number into an int */
	KT_RATE, /* a rate (bytes/s or FLOP/s) into a double */
	KT_TIME, /* a time into an hd_time */
	KT_SIZE, /* a size into a uint64_t */
	KT_WORD, /* one of the key's words into an enum (stored as int) */
	KT__COUNT
};

/* Flags on a key. */
#define KF_POS 0x1 /* must be greater than zero */
#define KF_OPT \
	0x2 /* may be left out (it is then 0): keys added after
				 * calibrated profiles were first written, so that
				 * those still load */

struct pkey {
	const char *key;
	size_t off;  /* offset of the field in struct hd_profile */
	size_t size; /* size of the field (char arrays: capacity) */
	enum ktype type;
	enum hd_dim dim;  /* quantities: the dimension the value must have */
	const char *unit; /* quantities: the unit written by format */
	double min, max;  /* allowed range, inclusive (ints, quantities) */
	int flags;
	const char *help;
	const char *const *words; /* KT_WORD: the words, in enum order */
	int nwords;
};

#define FLD(m) offsetof(struct hd_profile, m), sizeof(((struct hd_profile *)0)->m)
#define STR(k, m, h) \
	{ \
		k, FLD(m), KT_STR, HD_DIM_NONE, NULL, 0, 0, 0, h, NULL, 0 \
	}
#define INT(k, m, lo, hi, h) \
	{ \
		k, FLD(m), KT_INT, HD_DIM_NONE, NULL, lo, hi, 0, h, NULL, 0 \
	}
/* rates from 1 kB/s and 1 MFLOP/s up: slower ones would make one copy or
 * kernel outlast the longest run the model can time (base/units.h) */
#define RATE(k, m, u, fl, h) \
	{ \
		k, FLD(m), KT_RATE, HD_DIM_RATE, u, 1e3, 1e18, fl, h, NULL, 0 \
	}
#define FLOPS(k, m, u, fl, h) \
	{ \
		k, FLD(m), KT_RATE, HD_DIM_FLOPS, u, 1e6, 1e21, fl, h, NULL, 0 \
	}
#define TIME(k, m, u, fl, h) \
	{ \
		k, FLD(m), KT_TIME, HD_DIM_TIME, u, 0, EXACT_MAX, fl, h, NULL, 0 \
	}
#define SIZE(k, m, fl, h) \
	{ \
		k, FLD(m), KT_SIZE, HD_DIM_BYTES, NULL, 0, EXACT_MAX, fl, h, NULL, 0 \
	}

static const char *const topo_names[HD_TOPO__COUNT] = {
	[HD_TOPO_SINGLE] = "single",
	[HD_TOPO_NVSWITCH] = "nvswitch",
	[HD_TOPO_NVLINK_PAIRS] = "nvlink-pairs",
	[HD_TOPO_PCIE] = "pcie",
};
static const char *const algo_names[HD_ALGO__COUNT] = {
	[HD_ALGO_AUTO] = "auto",
	[HD_ALGO_RING] = "ring",
	[HD_ALGO_TREE] = "tree",
};
static const char *const cmodel_names[HD_CMODEL__COUNT] = {
	[HD_CMODEL_CHUNKS] = "chunks",
	[HD_CMODEL_FORMULA] = "formula",
};
#define WORD(k, m, names, h) \
	{ \
		k, FLD(m), KT_WORD, HD_DIM_NONE, NULL, 0, 0, 0, h, names, (int)HD_ARRAY_LEN(names) \
	}

static const struct pkey keys[] = {
	STR("name", name, "short name, as given to --profile"),
	STR("description", description, "one line: the GPU, its memory, the host link"),

	INT("pcie.gen", pcie_gen, 1, 6, "PCIe generation of the host link"),
	INT("pcie.lanes", pcie_lanes, 1, 32, "PCIe lanes of the host link"),
	RATE("pcie.h2d", h2d_bw, "GB/s", KF_POS, "achievable pinned host-to-device DMA rate"),
	RATE("pcie.d2h", d2h_bw, "GB/s", KF_POS, "achievable pinned device-to-host DMA rate"),
	RATE("pcie.bidir", bidir_bw, "GB/s", KF_POS,
	     "both directions at once, total (a host-side cap)"),
	TIME("pcie.latency", copy_latency, "us", 0,
	     "per copy: the copy engine's fixed cost (DMA set-up, gap to the next copy)"),
	INT("pcie.copy_engines", copy_engines, 1, 64, "copy engines (asyncEngineCount)"),

	RATE("host.memcpy_h2d", host_memcpy_h2d_bw, "GB/s", KF_POS,
	     "CPU memcpy rate from pageable memory into a staging buffer (and host to host)"),
	RATE("host.memcpy_d2h", host_memcpy_d2h_bw, "GB/s", KF_POS,
	     "CPU memcpy rate out of a staging buffer into pageable memory"),
	RATE(
	    "host.memcpy_h2d_hot", host_memcpy_h2d_hot_bw, "GB/s", KF_OPT,
	    "host.memcpy_h2d for a copy of at most host.cache bytes, host to host too (0: host.memcpy_h2d)"),
	RATE("host.memcpy_d2h_hot", host_memcpy_d2h_hot_bw, "GB/s", KF_OPT,
	     "host.memcpy_d2h for a copy of at most host.cache bytes (0: host.memcpy_d2h)"),
	SIZE("host.cache", host_cache, KF_OPT,
	     "copies up to this size find their host side in the CPU's caches"),
	RATE("host.touch", host_touch_bw, "GB/s", KF_OPT,
	     "first writes to freshly allocated pageable memory: its page faults, and its free "
	     "(0: free)"),
	RATE("host.pin_rate", pin_bw, "GB/s", KF_POS,
	     "bytes pinned per second by cudaHostRegister of touched pages"),
	RATE("host.mallochost_rate", mallochost_bw, "GB/s", KF_POS,
	     "cudaMallocHost: fresh pages allocated and pinned, bytes per second"),
	TIME("host.pin_base", pin_base, "us", 0, "fixed cost of one pinned allocation"),
	TIME("host.mallochost_base", mallochost_base, "us", KF_OPT,
	     "fixed cost of cudaMallocHost with no other small pinned buffer alive (0: "
	     "host.pin_base)"),
	RATE("host.dma_h2d", node_h2d_bw, "GB/s", KF_OPT,
	     "every GPU of a node copying from pinned memory at once, total (0: no cap)"),
	RATE("host.dma_d2h", node_d2h_bw, "GB/s", KF_OPT,
	     "every GPU of a node copying to pinned memory at once, total (0: no cap)"),
	RATE("host.dma_bidir", node_bidir_bw, "GB/s", KF_OPT,
	     "every GPU of a node copying both ways at once, total (0: no cap)"),
	{ "host.cores", FLD(host_cores), KT_INT, HD_DIM_NONE, NULL, 0, 4096, KF_OPT,
	  "CPU cores one rank's host threads share (0: one per thread)", NULL, 0 },
	SIZE("staging.chunk", staging_chunk, KF_POS,
	     "bytes per pinned staging chunk of a pageable copy"),
	INT("staging.buffers", staging_buffers, 1, 64, "pinned staging buffers used in turn"),

	TIME("api.launch", api_launch, "us", 0, "host time inside a kernel launch"),
	TIME("api.memcpy", api_memcpy, "us", 0,
	     "host time to submit a cudaMemcpy / cudaMemcpyAsync"),
	TIME("api.memcpy_d2d", api_memcpy_d2d, "us", KF_OPT,
	     "host time to submit a device-to-device copy (0: api.memcpy)"),
	TIME("api.memcpy_sync", api_memcpy_sync, "us", KF_OPT,
	     "more than api.wake: a synchronous cudaMemcpy's return after its copy"),
	TIME("api.memcpy_managed", api_memcpy_managed, "us", KF_OPT,
	     "more host time for a copy to or from managed memory"),
	TIME("api.memcpy_pageable", api_memcpy_pageable, "us", KF_OPT,
	     "more host time for a copy to or from pageable memory (staged; 0: none)"),
	TIME("api.event", api_event, "us", 0, "cudaEventRecord, cudaEventQuery"),
	TIME("api.event_notiming", api_event_notiming, "us", KF_OPT,
	     "cudaEventRecord of an event made without timing (0: api.event)"),
	TIME("api.wait", api_wait, "us", 0, "cudaStreamWaitEvent"),
	TIME("api.sync", api_sync, "us", 0, "a sync call that finds nothing to wait for"),
	TIME(
	    "api.sync_kernel", api_sync_kernel, "us", KF_OPT,
	    "a stream or event sync that finds nothing to wait for while a stream's last work is a "
	    "kernel (0: api.sync)"),
	TIME("api.sync_device", api_sync_device, "us", KF_OPT,
	     "cudaDeviceSynchronize that finds nothing to wait for (0: api.sync)"),
	TIME("api.wake", sync_wake, "us", 0,
	     "from the GPU finishing to the blocked host running again"),
	TIME("api.malloc", malloc_cost, "us", 0, "cudaMalloc of device memory"),
	TIME("api.free", free_cost, "us", 0, "cudaFree, before its implicit device sync"),
	TIME("api.malloc_small", malloc_small, "us", KF_OPT,
	     "cudaMalloc below 2 MiB (cudaMallocManaged too when api.malloc_managed is 0), from "
	     "the driver's pool (0: api.malloc)"),
	TIME("api.free_small", free_small, "us", KF_OPT,
	     "cudaFree below 2 MiB, before its implicit device sync (0: api.free)"),
	TIME("api.malloc_managed", malloc_managed, "us", KF_OPT,
	     "cudaMallocManaged and the first touch of its first page (0: as cudaMalloc)"),
	TIME("api.free_managed", free_managed, "us", KF_OPT,
	     "cudaFree of managed memory, before its implicit device sync (0: as device memory)"),
	RATE("api.malloc_rate", malloc_bw, "TB/s", KF_OPT,
	     "cudaMalloc of 2 MiB up also maps its bytes at this rate (0: no per-byte cost)"),
	RATE("api.free_rate", free_bw, "TB/s", KF_OPT,
	     "cudaFree of 2 MiB up also unmaps its bytes at this rate (0: no per-byte cost)"),
	TIME("api.malloc_mid", malloc_mid, "us", KF_OPT,
	     "cudaMalloc of 2 to 4 MiB that an earlier cudaFree of as many bytes served; up to 64 "
	     "MiB it rises linearly to what api.malloc and api.malloc_rate give there (0: as those "
	     "two throughout)"),
	TIME("api.free_mid", free_mid, "us", KF_OPT,
	     "cudaFree of such a cudaMalloc of 2 to 4 MiB; up to 64 MiB it rises linearly to what "
	     "api.free and api.free_rate give there (0: as those two throughout)"),
	TIME("api.freehost", freehost_cost, "us", KF_OPT,
	     "cudaFreeHost, fixed part, before its implicit device sync (0: api.free)"),
	RATE("host.unpin_rate", unpin_bw, "GB/s", KF_OPT,
	     "cudaFreeHost: bytes unmapped and unpinned per second (0: no per-byte cost)"),
	INT("api.queue_depth", stream_queue, 1, 1000000,
	    "ops a stream holds before a submit blocks the host"),
	TIME("api.graph_launch", api_graph_launch, "us", KF_OPT,
	     "host time inside cudaGraphLaunch, one call for the whole graph"),

	STR("gpu.name", gpu_name, "the GPU as the driver names it"),
	INT("gpu.sms", sms, 1, 100000, "streaming multiprocessors"),
	RATE("gpu.hbm", hbm_bw, "TB/s", KF_POS, "device memory bandwidth (read + write traffic)"),
	FLOPS("gpu.fp32", flops, "TFLOP/s", KF_POS, "peak FP32 rate (an FMA counts as 2 FLOP)"),
	TIME("gpu.launch_latency", launch_latency, "us", 0,
	     "from submit to the kernel starting on an idle GPU"),
	TIME("gpu.kernel_overhead", kernel_overhead, "us", 0, "fixed GPU time per kernel"),
	TIME("gpu.event_record", event_record, "us", KF_OPT,
	     "GPU time of a timing event's record, one at a time across the streams (0: none)"),
	INT("gpu.max_kernels", max_kernels, 1, 4096, "kernels the GPU runs at once"),
	RATE("gpu.d2d", d2d_bw, "TB/s", KF_POS, "device-local copy rate, bytes counted once"),
	RATE("gpu.block_memory", block_memory_bw, "GB/s", KF_OPT,
	     "HBM traffic one thread block of a memory kernel draws (0: no per-block limit)"),
	RATE("gpu.block_fill", block_fill_bw, "GB/s", KF_OPT,
	     "bytes one thread block of a fill kernel writes per second (0: no limit)"),
	RATE("gpu.block_reduce", block_reduce_bw, "GB/s", KF_OPT,
	     "bytes one thread block of a reduce kernel reads per second (0: no limit)"),
	SIZE("gpu.l2", l2_bytes, KF_OPT,
	     "a kernel's buffer up to this size stays in the L2 between kernels (0: never)"),
	RATE("gpu.l2_rate", l2_bw, "TB/s", KF_OPT,
	     "memory and reduce kernels' traffic on a buffer that fits gpu.l2 (0: gpu.hbm)"),
	RATE("gpu.l2_fill", l2_fill_bw, "TB/s", KF_OPT,
	     "a fill kernel's writes to a buffer that fits gpu.l2 (0: gpu.hbm)"),
	TIME("gpu.graph_node", graph_node, "us", KF_OPT,
	     "GPU time before each node of a launched graph starts"),

	SIZE("um.page", um_page, KF_POS, "migration granule of a demand fault"),
	TIME("um.fault", um_fault, "us", 0, "GPU time per fault group"),
	RATE("um.fault_rate", um_fault_bw, "GB/s", KF_POS,
	     "migration rate while faulting on demand"),
	RATE("um.prefetch_rate", um_prefetch_bw, "GB/s", KF_POS,
	     "migration rate of cudaMemPrefetchAsync"),
	TIME("um.prefetch_base", um_prefetch_base, "us", KF_OPT,
	     "fixed time of a cudaMemPrefetchAsync that moves pages (0: pcie.latency)"),
	RATE("um.prefetch_d2h_rate", um_prefetch_d2h_bw, "GB/s", KF_OPT,
	     "migration rate of a prefetch to the host (0: um.prefetch_rate)"),
	RATE("um.prefetch_walk", um_walk_bw, "TB/s", KF_OPT,
	     "a prefetch's pages already where it sends them, walked per second (0: free)"),
	TIME("um.prefetch_stay", um_prefetch_stay, "us", KF_OPT,
	     "GPU time of a prefetch that moves no pages, before its walk (0: pcie.latency)"),
	TIME("um.prefetch_defer", um_prefetch_defer, "us", KF_OPT,
	     "more GPU time for a prefetch that moves no pages, called behind unfinished "
	     "other work on its stream (0: none)"),
	TIME("um.fault_base", um_fault_base, "us", KF_OPT,
	     "GPU time once per kernel that faults, before its first fault group"),
	RATE("um.host_touch", um_touch_bw, "GB/s", KF_OPT,
	     "first touch on the host of fresh managed memory (0: free)"),
	TIME("um.host_fault", um_host_fault, "us", KF_OPT,
	     "fixed time of a copy whose host side faults managed pages back from the device"),
	RATE("um.host_fault_rate", um_host_fault_bw, "GB/s", KF_OPT,
	     "a copy reading managed pages that are on the device faults them back at this rate "
	     "(0: free)"),
	RATE("um.host_fault_write", um_host_fault_write_bw, "GB/s", KF_OPT,
	     "a copy writing into managed pages that are on the device faults them back at this "
	     "rate (0: um.host_fault_rate)"),
	RATE("um.prefetched_write", um_prefetched_write_bw, "GB/s", KF_OPT,
	     "the CPU's first write into managed pages a prefetch to the host brought there, "
	     "bytes per second beyond the write itself (0: free)"),

	WORD("topo.kind", topo, topo_names, "how the GPUs of a node reach each other"),
	INT("topo.gpus_per_node", gpus_per_node, 1, 1024, "GPUs in one node"),
	RATE("topo.p2p_pcie", p2p_pcie_bw, "GB/s", KF_POS,
	     "GPU-to-GPU rate without NVLink, per direction"),
	INT("nvlink.links", nvlinks, 0, 64, "NVLinks per GPU (0: none)"),
	RATE("nvlink.rate", nvlink_bw, "GB/s", 0, "achievable rate per link, per direction"),
	TIME("nvlink.latency", nvlink_latency, "ns", 0, "GPU-to-GPU latency over NVLink"),
	RATE("nvlink.copy_rate", nvlink_copy_bw, "GB/s", 0,
	     "a copy-engine peer copy over NVLink (0: links x rate)"),
	RATE("net.rate", nic_bw, "GB/s", KF_POS, "network rate per node, per direction"),
	TIME("net.latency", net_latency, "us", 0, "network latency per hop"),

	WORD("coll.algorithm", coll_algo, algo_names,
	     "collective algorithm: ring, tree, or auto (the faster, as NCCL picks)"),
	WORD("coll.model", coll_model, cmodel_names,
	     "chunks (simulated step by step over the links) or formula (closed form)"),
	TIME("coll.base", coll_base, "us", 0, "fixed GPU cost of one collective or send/recv"),
	SIZE("coll.chunk", coll_chunk, KF_POS,
	     "pipelining unit of trees, broadcast, reduce and send/recv"),
	INT("coll.sms", coll_sms, 0, 100000,
	    "SMs NCCL's kernels hold while they run; kernels started then get the rest"),
};
#define NKEYS ((int)HD_ARRAY_LEN(keys))

/* Section titles, by key prefix, for format and describe. */
static const struct {
	const char *prefix, *title;
} groups[] = {
	{ "", "Identity" },
	{ "pcie", "Host link (PCIe) and copy engines" },
	{ "host", "Host memory and pinning" },
	{ "staging", "Pageable staging" },
	{ "api", "Host API costs (CPU time inside the call)" },
	{ "gpu", "GPU" },
	{ "um", "Unified memory" },
	{ "topo", "Node topology" },
	{ "nvlink", "NVLink" },
	{ "net", "Network" },
	{ "coll", "NCCL collectives" },
};

/* An example value per dimension, for "expects a rate such as 50 GB/s". */
static const char *const dim_example[] = {
	[HD_DIM_NONE] = "16",      [HD_DIM_BYTES] = "2 MiB",  [HD_DIM_TIME] = "5 us",
	[HD_DIM_RATE] = "50 GB/s", [HD_DIM_FLOP] = "1 GFLOP", [HD_DIM_FLOPS] = "60 TFLOP/s",
	[HD_DIM_PERCENT] = "50%",
};

const char *
hd_coll_algo_name(enum hd_coll_algo a)
{
	return (unsigned)a < HD_ALGO__COUNT ? algo_names[a] : "?";
}

const char *
hd_coll_model_name(enum hd_coll_model m)
{
	return (unsigned)m < HD_CMODEL__COUNT ? cmodel_names[m] : "?";
}

const char *
hd_topo_name(enum hd_topo t)
{
	if ((unsigned)t >= HD_TOPO__COUNT)
		return "?";
	return topo_names[t];
}

int
hd_profile_key_count(void)
{
	return NKEYS;
}

const char *
hd_profile_key(int i, const char **help)
{
	if (i < 0 || i >= NKEYS)
		return NULL;
	if (help != NULL)
		*help = keys[i].help;
	return keys[i].key;
}

static void *
field(struct hd_profile *p, const struct pkey *k)
{
	return (char *)p + k->off;
}

static const void *
cfield(const struct hd_profile *p, const struct pkey *k)
{
	return (const char *)p + k->off;
}

/* The section title of a key. */
static const char *
group_of(const char *key)
{
	const char *dot = strchr(key, '.');
	size_t n = dot ? (size_t)(dot - key) : 0, i;

	for (i = 0; i < HD_ARRAY_LEN(groups); i++) {
		if (strlen(groups[i].prefix) == n && strncmp(groups[i].prefix, key, n) == 0)
			return groups[i].title;
	}
	return "Other";
}

/* ------------------------------------------------------------------------ */
/* Writing values                                                           */
/* ------------------------------------------------------------------------ */

/* Does text parse back to exactly v (times: to the integer v)? */
static int
reads_back(const char *text, double v, int integral)
{
	enum hd_dim dim;
	double got;

	if (!hd_quantity_parse(text, &dim, &got))
		return 0;
	if (integral)
		return llround(got) == (long long)v;
	return got == v;
}

/*
 * Write the quantity v in `unit` with the fewest digits that read back
 * exactly, falling back to the base unit (which always does).
 */
static void
fmt_quantity(char *out, size_t n, double v, const char *unit, const char *base, int integral)
{
	enum hd_dim dim;
	double factor;
	int prec, pass;

	if (v == 0) {
		snprintf(out, n, "0 %s", unit);
		return;
	}
	if (hd_unit_lookup(unit, strlen(unit), &dim, &factor)) {
		/* First without an exponent, then with one. */
		for (pass = 0; pass < 2; pass++) {
			for (prec = 1; prec <= 17; prec++) {
				char num[64];

				snprintf(num, sizeof num, "%.*g", prec, v / factor);
				if (pass == 0 && strchr(num, 'e') != NULL)
					continue;
				snprintf(out, n, "%s %s", num, unit);
				if (reads_back(out, v, integral))
					return;
			}
		}
	}
	if (integral)
		snprintf(out, n, "%lld %s", (long long)v, base);
	else
		snprintf(out, n, "%.17g %s", v, base);
}

/* A size in the largest binary unit that divides it. */
static void
fmt_size(char *out, size_t n, uint64_t b)
{
	static const struct {
		const char *unit;
		int shift;
	} su[] = { { "TiB", 40 }, { "GiB", 30 }, { "MiB", 20 }, { "KiB", 10 } };
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(su); i++) {
		uint64_t f = (uint64_t)1 << su[i].shift;
		if (b != 0 && b % f == 0) {
			snprintf(out, n, "%llu %s", (unsigned long long)(b / f), su[i].unit);
			return;
		}
	}
	snprintf(out, n, "%llu B", (unsigned long long)b);
}

/* Append a string literal with the escapes the parser reads. */
static void
put_string(struct hd_buf *b, const char *s)
{
	hd_buf_putc(b, '"');
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '"':
			hd_buf_puts(b, "\\\"");
			break;
		case '\\':
			hd_buf_puts(b, "\\\\");
			break;
		case '\n':
			hd_buf_puts(b, "\\n");
			break;
		case '\t':
			hd_buf_puts(b, "\\t");
			break;
		default:
			if ((unsigned char)*s < 0x20)
				hd_buf_printf(b, "\\x%02x", (unsigned char)*s);
			else
				hd_buf_putc(b, *s);
		}
	}
	hd_buf_putc(b, '"');
}

/* Append the value of key k of p, as the format writes it. */
static void
put_value(struct hd_buf *b, const struct hd_profile *p, const struct pkey *k)
{
	const void *f = cfield(p, k);
	char tmp[128];
	int iv;
	double dv;
	hd_time tv;
	uint64_t sv;

	switch (k->type) {
	case KT_STR:
		put_string(b, f);
		return;
	case KT_INT:
		memcpy(&iv, f, sizeof iv);
		hd_buf_printf(b, "%d", iv);
		return;
	case KT_RATE:
		memcpy(&dv, f, sizeof dv);
		fmt_quantity(tmp, sizeof tmp, dv, k->unit,
			     k->dim == HD_DIM_FLOPS ? "FLOP/s" : "B/s", 0);
		break;
	case KT_TIME:
		memcpy(&tv, f, sizeof tv);
		fmt_quantity(tmp, sizeof tmp, (double)tv, k->unit, "ps", 1);
		break;
	case KT_SIZE:
		memcpy(&sv, f, sizeof sv);
		fmt_size(tmp, sizeof tmp, sv);
		break;
	case KT_WORD:
	case KT__COUNT:
		memcpy(&iv, f, sizeof iv);
		snprintf(tmp, sizeof tmp, "%s", iv >= 0 && iv < k->nwords ? k->words[iv] : "?");
		break;
	}
	hd_buf_puts(b, tmp);
}

char *
hd_profile_format(const struct hd_profile *p)
{
	struct hd_buf b;
	const char *group = NULL;
	int i;

	hd_buf_init(&b);
	hd_buf_printf(&b, "hdsim-profile %d\n", PROFILE_VERSION);
	for (i = 0; i < NKEYS; i++) {
		const char *g = group_of(keys[i].key);
		size_t start;

		if (g != group) {
			hd_buf_printf(&b, "\n# %s\n", g);
			group = g;
		}
		start = b.len;
		hd_buf_printf(&b, "%s = ", keys[i].key);
		put_value(&b, p, &keys[i]);
		if (keys[i].type != KT_STR) {
			while (b.len - start < 34)
				hd_buf_putc(&b, ' ');
			hd_buf_printf(&b, " # %s", keys[i].help);
		}
		hd_buf_putc(&b, '\n');
	}
	return hd_buf_take(&b);
}

/* A numeric key's value in base units into *v: 0, or -1 for text and words. */
static int
num_get(const struct hd_profile *p, const struct pkey *k, double *v)
{
	const void *f = cfield(p, k);

	switch (k->type) {
	case KT_INT:
		*v = *(const int *)f;
		return 0;
	case KT_RATE:
		*v = *(const double *)f;
		return 0;
	case KT_TIME:
		*v = (double)*(const hd_time *)f;
		return 0;
	case KT_SIZE:
		*v = (double)*(const uint64_t *)f;
		return 0;
	case KT_STR:
	case KT_WORD:
	case KT__COUNT:
		break;
	}
	return -1;
}

/* Set a numeric key from a value in base units (rounded to the key's type):
 * 0, or -1 for text and words. */
static int
num_set(struct hd_profile *p, const struct pkey *k, double v)
{
	void *f = field(p, k);

	switch (k->type) {
	case KT_INT:
		*(int *)f = (int)v;
		return 0;
	case KT_RATE:
		*(double *)f = v;
		return 0;
	case KT_TIME:
		*(hd_time *)f = (hd_time)llround(v);
		return 0;
	case KT_SIZE:
		*(uint64_t *)f = (uint64_t)v;
		return 0;
	case KT_STR:
	case KT_WORD:
	case KT__COUNT:
		break;
	}
	return -1;
}

/* The key called `key`, or NULL. */
static const struct pkey *
key_named(const char *key)
{
	int i;

	for (i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].key, key) == 0)
			return &keys[i];
	return NULL;
}

int
hd_profile_value(const struct hd_profile *p, const char *key, double *v, enum hd_dim *dim)
{
	const struct pkey *k = key_named(key);

	if (k == NULL)
		return -1;
	*dim = k->type == KT_INT ? HD_DIM_NONE : k->dim;
	return num_get(p, k, v);
}

int
hd_profile_equal(const struct hd_profile *a, const struct hd_profile *b)
{
	int i;

	for (i = 0; i < NKEYS; i++) {
		const struct pkey *k = &keys[i];

		if (k->type == KT_STR) {
			if (strncmp(cfield(a, k), cfield(b, k), k->size) != 0)
				return 0;
		} else if (memcmp(cfield(a, k), cfield(b, k), k->size) != 0)
			return 0;
	}
	return 1;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
hd_profile_median(const struct hd_profile *in, int n, struct hd_profile *out)
{
	struct hd_profile m = in[0];
	double v[64];
	int i, j;

	if (n > 64)
		n = 64;
	for (i = 0; i < NKEYS; i++) {
		const struct pkey *k = &keys[i];
		int same = 1;

		if (k->type == KT_STR || k->type == KT_WORD)
			continue;
		for (j = 1; j < n; j++)
			same &= memcmp(cfield(&in[0], k), cfield(&in[j], k), k->size) == 0;
		if (same)
			continue;
		for (j = 0; j < n; j++)
			num_get(&in[j], k, &v[j]);
		qsort(v, (size_t)n, sizeof v[0], cmp_double);
		/* counts and sizes: the lower middle; rates and times: the middle,
		 * or the mean of the two */
		num_set(&m, k,
			k->type == KT_INT || k->type == KT_SIZE || n % 2 ?
			    v[(n - 1) / 2] :
			    (v[n / 2 - 1] + v[n / 2]) / 2);
	}
	*out = m;
}

int
hd_profile_set_value(struct hd_profile *p, const char *key, double v)
{
	const struct pkey *k = key_named(key);

	return k == NULL ? -1 : num_set(p, k, v);
}

/* ------------------------------------------------------------------------ */
/* Parsing                                                                  */
/* ------------------------------------------------------------------------ */

struct parser {
	struct hd_src src;
	const char *ls; /* the current line */
	size_t ll;
	int line;
	struct hd_err *e;
	struct hd_profile *out;
	int setline[NKEYS]; /* line that set each key, 0 if none */
	int has_base;
	int statements; /* statements after the header */
};

/* Column (1-based, in code points) of byte pointer q in the current line. */
static int
col_at(const struct parser *ps, const char *q)
{
	const char *s;
	int col = 1;

	for (s = ps->ls; s < q && s < ps->ls + ps->ll; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			col++;
	return col;
}

static int perr(struct parser *ps, const char *at, const char *fmt, ...) HD_PRINTF(3, 4);

static int
perr(struct parser *ps, const char *at, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	hd_src_error(&ps->src, ps->e, ps->line, at ? col_at(ps, at) : 1, "%s", msg);
	return -1;
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t';
}

static int
is_keychar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '.' || c == '-';
}

static int
find_key(const char *name, size_t n)
{
	int i;

	for (i = 0; i < NKEYS; i++)
		if (strlen(keys[i].key) == n && memcmp(keys[i].key, name, n) == 0)
			return i;
	return -1;
}

static int
key_index(const char *name)
{
	return find_key(name, strlen(name));
}

/* The key most like `name` (edit distance, or the part after the dot). */
static const char *
suggest_key(const char *name)
{
	const char *best = NULL;
	int i, bestd = 99, limit = (int)strlen(name) / 3;

	if (limit < 2)
		limit = 2;
	for (i = 0; i < NKEYS; i++) {
		const char *dot = strchr(keys[i].key, '.');
		int d = hd_edit_distance(name, keys[i].key);

		if (dot != NULL && hd_edit_distance(name, dot + 1) == 0)
			d = 1;
		if (d < bestd) {
			bestd = d;
			best = keys[i].key;
		}
	}
	if (strcmp(name, "topology") == 0)
		return "topo.kind";
	if (hd_edit_distance(name, "base") < bestd && hd_edit_distance(name, "base") <= 1)
		return "base";
	return bestd <= limit ? best : NULL;
}

/* Built-in lookup that init may call while the table is being filled. */
static const struct hd_profile *builtin_lookup(const char *name);
static void builtin_names(char *buf, size_t n);

/* Parse a quoted string at v (which starts with '"'); *endp after the quote. */
static int
parse_string(struct parser *ps, const char *v, const char *lend, char *dst, size_t cap,
	     const char *key, const char **endp)
{
	const char *q = v + 1;
	size_t n = 0;

	while (q < lend && *q != '"') {
		char c = *q;

		if (c == '\\') {
			if (q + 1 >= lend)
				break;
			switch (q[1]) {
			case '"':
				c = '"';
				break;
			case '\\':
				c = '\\';
				break;
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			default:
				return perr(ps, q,
					    "unknown escape '\\%c' in a string "
					    "(use \\\" \\\\ \\n or \\t)",
					    q[1]);
			}
			q += 2;
		} else {
			if ((unsigned char)c < 0x20 && c != '\t')
				return perr(ps, q, "control character in a string");
			q++;
		}
		if (n + 1 >= cap)
			return perr(ps, v, "%s is too long (at most %zu bytes)", key, cap - 1);
		dst[n++] = c;
	}
	if (q >= lend)
		return perr(ps, v, "unterminated string: a closing '\"' is missing");
	memset(dst + n, 0, cap - n);
	*endp = q + 1;
	return 0;
}

/* Parse the number-with-unit `text` (at column pointer at) for key k. */
static int
parse_quantity(struct parser *ps, const struct pkey *k, const char *text, const char *at,
	       double *val)
{
	enum hd_dim dim;
	double v;

	if (!hd_quantity_parse(text, &dim, &v))
		return perr(ps, at, "%s expects %s such as %s, found '%s'", k->key,
			    hd_dim_name(k->dim), dim_example[k->dim], text);
	if (dim != k->dim && !(dim == HD_DIM_NONE && v == 0))
		return perr(ps, at, "%s expects %s such as %s, found %s '%s'", k->key,
			    hd_dim_name(k->dim), dim_example[k->dim], hd_dim_name(dim), text);
	if (v < 0)
		return perr(ps, at, "%s must not be negative, found '%s'", k->key, text);
	if (v == 0 && (k->flags & KF_POS))
		return perr(ps, at, "%s must be greater than zero, found '%s'", k->key, text);
	if (v > k->max)
		return perr(ps, at, "%s is too large: '%s'", k->key, text);
	if (v > 0 && v < k->min)
		return perr(ps, at, "%s is too small: '%s' (the least it can be is %g %s)", k->key,
			    text, k->min, k->dim == HD_DIM_FLOPS ? "FLOP/s" : "B/s");
	*val = v == 0 ? 0 : v; /* -0 reads as 0, so values format back exactly */
	return 0;
}

/* Parse `text` for key k into the profile.  at: the value, for the caret. */
static int
parse_value(struct parser *ps, const struct pkey *k, const char *text, const char *at)
{
	void *f = field(ps->out, k);
	double v;
	long long iv;
	char *end;
	int i;

	switch (k->type) {
	case KT_INT:
		errno = 0;
		iv = strtoll(text, &end, 10);
		if (end == text || *end != '\0' || errno != 0 ||
		    !(text[0] == '-' || (text[0] >= '0' && text[0] <= '9')))
			return perr(ps, at,
				    "%s expects a whole number such as %g, "
				    "found '%s'",
				    k->key, k->max < 16 ? k->max : 16, text);
		if (iv < k->min || iv > k->max)
			return perr(ps, at, "%s must be between %g and %g, found %lld", k->key,
				    k->min, k->max, iv);
		i = (int)iv;
		memcpy(f, &i, sizeof i);
		return 0;
	case KT_RATE:
		if (parse_quantity(ps, k, text, at, &v) < 0)
			return -1;
		memcpy(f, &v, sizeof v);
		return 0;
	case KT_TIME: {
		hd_time t;

		if (parse_quantity(ps, k, text, at, &v) < 0)
			return -1;
		t = (hd_time)llround(v);
		if (t == 0 && v > 0 && (k->flags & KF_POS))
			return perr(ps, at, "%s must be at least 1 ps, found '%s'", k->key, text);
		memcpy(f, &t, sizeof t);
		return 0;
	}
	case KT_SIZE: {
		uint64_t b;

		if (parse_quantity(ps, k, text, at, &v) < 0)
			return -1;
		if (v != floor(v))
			return perr(ps, at,
				    "%s expects a whole number of bytes, found "
				    "'%s'",
				    k->key, text);
		b = (uint64_t)v;
		memcpy(f, &b, sizeof b);
		return 0;
	}
	case KT_WORD: {
		struct hd_buf list = { 0 };
		int r;

		for (i = 0; i < k->nwords; i++) {
			if (strcmp(text, k->words[i]) == 0) {
				memcpy(f, &i, sizeof i);
				return 0;
			}
		}
		for (i = 0; i < k->nwords; i++)
			hd_buf_printf(&list, "%s%s", i > 0 ? ", " : "", k->words[i]);
		r = perr(ps, at, "%s expects one of %s; found '%s'", k->key, list.s, text);
		hd_buf_free(&list);
		return r;
	}
	case KT_STR:
	case KT__COUNT:
		break;
	}
	return perr(ps, at, "internal: %s has no parser", k->key);
}

/* `base = NAME`: start from a built-in profile. */
static int
parse_base(struct parser *ps, const char *text, const char *at)
{
	const struct hd_profile *b;
	char origin[sizeof ps->out->origin];
	char names[256];

	if (ps->statements != 0)
		return perr(ps, at, "base must come first, right after 'hdsim-profile %d'",
			    PROFILE_VERSION);
	if (ps->has_base)
		return perr(ps, at, "base is set twice");
	b = builtin_lookup(text);
	if (b == NULL) {
		builtin_names(names, sizeof names);
		return perr(ps, at, "unknown base profile '%s'; the built-ins are %s", text, names);
	}
	memcpy(origin, ps->out->origin, sizeof origin);
	*ps->out = *b;
	memcpy(ps->out->origin, origin, sizeof origin);
	ps->has_base = 1;
	return 0;
}

/* One `key = value` line; s points at the key. */
static int
parse_statement(struct parser *ps, const char *s)
{
	const char *lend = ps->ls + ps->ll, *q, *v, *vend = NULL;
	char key[64], text[MAX_VALUE];
	size_t klen;
	int ki;

	for (q = s; q < lend && is_keychar(*q); q++)
		;
	klen = (size_t)(q - s);
	if (klen == 0)
		return perr(ps, s, "expected 'key = value', found '%c'", *s);
	if (klen >= sizeof key)
		return perr(ps, s, "key is too long");
	memcpy(key, s, klen);
	key[klen] = '\0';
	while (q < lend && is_space(*q))
		q++;
	if (q >= lend || *q != '=')
		return perr(ps, q, "expected '=' after '%s'", key);
	v = q + 1;
	while (v < lend && is_space(*v))
		v++;
	if (v >= lend || *v == '#')
		return perr(ps, v, "missing value after '%s ='", key);

	ki = strcmp(key, "base") == 0 ? -2 : find_key(key, klen);
	if (ki == -1) {
		const char *sug = suggest_key(key);

		if (sug != NULL)
			return perr(ps, s, "unknown key '%s'; did you mean '%s'?", key, sug);
		return perr(ps, s,
			    "unknown key '%s' (doc/profile-format.md lists "
			    "the keys)",
			    key);
	}
	if (ki >= 0 && ps->setline[ki] != 0)
		return perr(ps, s, "duplicate key '%s' (first set on line %d)", key,
			    ps->setline[ki]);

	if (ki >= 0 && keys[ki].type == KT_STR) {
		if (*v != '"')
			return perr(ps, v,
				    "%s expects a string in double quotes, "
				    "such as \"text\"",
				    key);
		if (parse_string(ps, v, lend, field(ps->out, &keys[ki]), keys[ki].size, key,
				 &vend) < 0)
			return -1;
		while (vend < lend && is_space(*vend))
			vend++;
		if (vend < lend && *vend != '#')
			return perr(ps, vend, "unexpected text after the string");
	} else {
		if (*v == '"')
			return perr(ps, v, "%s expects %s, not a string", key,
				    ki == -2                     ? "a built-in profile name" :
					keys[ki].type == KT_WORD ? "a word" :
					keys[ki].type == KT_INT  ? "a whole number" :
								   "a number with a unit");
		for (vend = v; vend < lend && *vend != '#'; vend++)
			;
		while (vend > v && is_space(vend[-1]))
			vend--;
		if ((size_t)(vend - v) >= sizeof text)
			return perr(ps, v, "value is too long");
		memcpy(text, v, (size_t)(vend - v));
		text[vend - v] = '\0';
		if (ki == -2) {
			if (parse_base(ps, text, v) < 0)
				return -1;
		} else if (parse_value(ps, &keys[ki], text, v) < 0)
			return -1;
	}
	if (ki >= 0)
		ps->setline[ki] = ps->line;
	ps->statements++;
	return 0;
}

/* The header: `hdsim-profile 1`. */
static int
parse_header(struct parser *ps, const char *s)
{
	const char *lend = ps->ls + ps->ll, *q;
	static const char magic[] = "hdsim-profile";
	long ver;
	char *end;

	if ((size_t)(lend - s) < sizeof magic - 1 || memcmp(s, magic, sizeof magic - 1) != 0 ||
	    !is_space(s[sizeof magic - 1]))
		return perr(ps, s,
			    "expected 'hdsim-profile %d' as the first statement "
			    "of a profile file",
			    PROFILE_VERSION);
	q = s + sizeof magic - 1;
	while (q < lend && is_space(*q))
		q++;
	ver = strtol(q, &end, 10);
	if (end == q)
		return perr(ps, q,
			    "expected a format version number after "
			    "'hdsim-profile'");
	if (ver != PROFILE_VERSION)
		return perr(ps, q,
			    "profile format version %ld is not supported "
			    "(this hdsim reads version %d)",
			    ver, PROFILE_VERSION);
	for (q = end; q < lend && is_space(*q); q++)
		;
	if (q < lend && *q != '#')
		return perr(ps, q, "unexpected text after the format version");
	return 0;
}

/* Relations between keys that no single value can check. */
static int
check_relations(struct parser *ps)
{
	const struct hd_profile *p = ps->out;
	int lk = key_index("topo.kind"), ll = key_index("nvlink.links");
	int lr = key_index("nvlink.rate"), lg = key_index("topo.gpus_per_node");
	const char *msg = NULL;
	int at = 0;

	if (p->nvlinks > 0 && p->nvlink_bw <= 0) {
		msg = "nvlink.rate must be greater than zero when nvlink.links is not 0";
		at = ps->setline[lr] ? ps->setline[lr] : ps->setline[ll];
	} else if ((p->topo == HD_TOPO_NVSWITCH || p->topo == HD_TOPO_NVLINK_PAIRS) &&
		   p->nvlinks == 0) {
		msg = "topo.kind nvswitch and nvlink-pairs need nvlink.links of 1 or more";
		at = ps->setline[ll] ? ps->setline[ll] : ps->setline[lk];
	} else if (p->topo == HD_TOPO_SINGLE && p->gpus_per_node != 1) {
		msg = "topo.kind single needs topo.gpus_per_node = 1";
		at = ps->setline[lg] ? ps->setline[lg] : ps->setline[lk];
	}
	if (msg == NULL)
		return 0;
	hd_src_error(&ps->src, ps->e, at > 0 ? at : 1, 1, "%s", msg);
	return -1;
}

/*
 * The parser behind hd_profile_parse.  *name_set tells whether the text set
 * `name` (a file that starts from `base` may leave it out).
 */
static int
parse_text(const char *text, const char *origin, struct hd_profile *out, struct hd_err *e,
	   int *name_set)
{
	struct parser ps;
	const char *s, *end, *nl;
	size_t len = strlen(text);
	int header_line = 0, i;
	struct hd_buf missing;
	int nmissing = 0;

	memset(&ps, 0, sizeof ps);
	hd_src_init(&ps.src, origin ? origin : "profile", text, len);
	ps.e = e;
	ps.out = out;
	for (s = text, end = text + len; s < end || ps.line == 0; s = nl + 1) {
		const char *q;

		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl == NULL)
			nl = end;
		ps.line++;
		ps.ls = s;
		ps.ll = (size_t)(nl - s);
		if (ps.ll > 0 && s[ps.ll - 1] == '\r')
			ps.ll--;
		for (q = s; q < s + ps.ll; q++)
			if (*q == '\0')
				goto fail_nul;
		for (q = s; q < s + ps.ll && is_space(*q); q++)
			;
		if (q < s + ps.ll && *q != '#') {
			if (header_line == 0) {
				if (parse_header(&ps, q) < 0)
					goto fail;
				header_line = ps.line;
			} else if (parse_statement(&ps, q) < 0)
				goto fail;
		}
		if (nl >= end)
			break;
	}
	if (header_line == 0) {
		ps.line = 1;
		ps.ls = text;
		ps.ll = strcspn(text, "\r\n");
		perr(&ps, text,
		     "expected 'hdsim-profile %d' as the first statement of "
		     "a profile file, found %s",
		     PROFILE_VERSION, len == 0 ? "an empty file" : "only comments");
		goto fail;
	}
	if (!ps.has_base) {
		hd_buf_init(&missing);
		for (i = 0; i < NKEYS; i++) {
			if (ps.setline[i] != 0 || (keys[i].flags & KF_OPT))
				continue;
			if (nmissing < 12)
				hd_buf_printf(&missing, "%s%s", nmissing ? ", " : "", keys[i].key);
			nmissing++;
		}
		if (nmissing > 12)
			hd_buf_printf(&missing, " and %d more", nmissing - 12);
		if (nmissing > 0) {
			hd_src_error(&ps.src, e, header_line, 1,
				     "missing key%s: %s (a "
				     "profile without 'base = NAME' must set every key)",
				     nmissing > 1 ? "s" : "", missing.s);
			hd_buf_free(&missing);
			goto fail;
		}
		hd_buf_free(&missing);
	}
	if (check_relations(&ps) < 0)
		goto fail;
	if (name_set != NULL)
		*name_set = ps.setline[0] != 0;
	hd_src_free(&ps.src);
	return 0;

fail_nul:
	perr(&ps, NULL, "NUL byte in a profile file");
fail:
	hd_src_free(&ps.src);
	return -1;
}

int
hd_profile_parse(const char *text, const char *origin, struct hd_profile *out, struct hd_err *e)
{
	return parse_text(text, origin, out, e, NULL);
}

/* ------------------------------------------------------------------------ */
/* Built-in profiles                                                        */
/* ------------------------------------------------------------------------ */

static struct hd_profile builtin[MAX_BUILTIN];
static int builtin_state; /* 0: not parsed, 1: parsing, 2: ready */
static int nready;        /* parsed so far (base may name only these) */

static void
builtin_init(void)
{
	struct hd_err e;
	int i;

	if (builtin_state != 0)
		return;
	if (hd_builtin_profiles_count > MAX_BUILTIN)
		hd_fatal("%d built-in profiles; at most %d", hd_builtin_profiles_count,
			 MAX_BUILTIN);
	builtin_state = 1;
	for (i = 0; i < hd_builtin_profiles_count; i++) {
		memset(&e, 0, sizeof e);
		memset(&builtin[i], 0, sizeof builtin[i]);
		if (parse_text(hd_builtin_profiles[i].text, hd_builtin_profiles[i].name,
			       &builtin[i], &e, NULL) < 0)
			hd_fatal("built-in profile %s: %s: %s", hd_builtin_profiles[i].name,
				 e.where, e.msg);
		snprintf(builtin[i].origin, sizeof builtin[i].origin, "built-in");
		nready = i + 1;
	}
	builtin_state = 2;
}

static const struct hd_profile *
builtin_lookup(const char *name)
{
	int i;

	builtin_init();
	for (i = 0; i < nready; i++)
		if (strcmp(builtin[i].name, name) == 0)
			return &builtin[i];
	return NULL;
}

/* "h100-sxm, h200-sxm, ..." */
static void
builtin_names(char *buf, size_t n)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < nready && off < n; i++)
		off += (size_t)snprintf(buf + off, n - off, "%s%s", i ? ", " : "", builtin[i].name);
}

int
hd_profile_builtin_count(void)
{
	builtin_init();
	return nready;
}

const struct hd_profile *
hd_profile_builtin(int i)
{
	builtin_init();
	if (i < 0 || i >= nready)
		return NULL;
	return &builtin[i];
}

const char *
hd_profile_builtin_text(int i)
{
	if (i < 0 || i >= hd_builtin_profiles_count)
		return NULL;
	return hd_builtin_profiles[i].text;
}

const struct hd_profile *
hd_profile_builtin_find(const char *name)
{
	builtin_init();
	return name ? builtin_lookup(name) : NULL;
}

/* ------------------------------------------------------------------------ */
/* Resolving --profile                                                      */
/* ------------------------------------------------------------------------ */

int
hd_profile_resolve(const char *arg, struct hd_profile *out, struct hd_err *e)
{
	const struct hd_profile *b;
	struct stat st;
	char names[256], *text;
	const char *base, *dot;
	size_t len;
	int name_set = 0, i, bestd = 99;
	const char *best = NULL;

	builtin_init();
	if (arg == NULL || arg[0] == '\0') {
		if (nready == 0) {
			hd_err_set(e, HD_EXIT_INPUT, "--profile", "no built-in profiles");
			return -1;
		}
		*out = builtin[0];
		return 0;
	}
	if ((b = builtin_lookup(arg)) != NULL) {
		*out = *b;
		return 0;
	}
	if (stat(arg, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
		builtin_names(names, sizeof names);
		for (i = 0; i < nready; i++) {
			int d = hd_edit_distance(arg, builtin[i].name);

			/* "h10" for "h100-sxm": a prefix counts as close. */
			if (strncmp(builtin[i].name, arg, strlen(arg)) == 0)
				d = 1;
			if (d < bestd) {
				bestd = d;
				best = builtin[i].name;
			}
		}
		if (best != NULL && bestd <= 3)
			hd_err_set(e, HD_EXIT_INPUT, arg,
				   "unknown profile '%s': not a "
				   "built-in (%s) and no such file; did you mean '%s'?",
				   arg, names, best);
		else
			hd_err_set(e, HD_EXIT_INPUT, arg,
				   "unknown profile '%s': not a "
				   "built-in (%s) and no such file",
				   arg, names);
		return -1;
	}
	text = hd_read_file(arg, &len, e);
	if (text == NULL) {
		if (e != NULL)
			e->status = HD_EXIT_INPUT;
		return -1;
	}
	if (strlen(text) != len) {
		hd_err_set(e, HD_EXIT_INPUT, arg, "not a profile file: it holds NUL bytes");
		free(text);
		return -1;
	}
	memset(out, 0, sizeof *out);
	base = strrchr(arg, '/');
	base = base ? base + 1 : arg;
	snprintf(out->origin, sizeof out->origin, "%s", base);
	if (parse_text(text, arg, out, e, &name_set) < 0) {
		free(text);
		return -1;
	}
	free(text);
	if (!name_set) {
		/* A file that starts from a built-in is called after itself. */
		dot = strrchr(base, '.');
		len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
		if (len >= sizeof out->name)
			len = sizeof out->name - 1;
		memset(out->name, 0, sizeof out->name);
		memcpy(out->name, base, len);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Listings                                                                 */
/* ------------------------------------------------------------------------ */

char *
hd_profile_describe(const struct hd_profile *p)
{
	struct hd_buf b, v;
	const char *group = NULL;
	int i;

	hd_buf_init(&b);
	hd_buf_init(&v);
	hd_buf_printf(&b, "%s: %s\n", p->name, p->description);
	if (p->origin[0] != '\0')
		hd_buf_printf(&b, "origin: %s\n", p->origin);
	for (i = 2; i < NKEYS; i++) {
		const char *g = group_of(keys[i].key);

		if (g != group) {
			hd_buf_printf(&b, "\n%s\n", g);
			group = g;
		}
		v.len = 0;
		if (v.s != NULL)
			v.s[0] = '\0';
		put_value(&v, p, &keys[i]);
		hd_buf_printf(&b, "  %-20s %-14s %s\n", keys[i].key, v.s, keys[i].help);
	}
	hd_buf_free(&v);
	return hd_buf_take(&b);
}

/* One column of the `hdsim profiles` table. */
struct lcol {
	const char *head;
	const char *unit; /* second heading line */
	int right;        /* right-aligned (numbers) */
	void (*cell)(const struct hd_profile *, char *, size_t);
};

static void
c_name(const struct hd_profile *p, char *s, size_t n)
{
	snprintf(s, n, "%s", p->name);
}

static void
c_gpu(const struct hd_profile *p, char *s, size_t n)
{
	/* Words every row would repeat. */
	static const char *const skip[] = { "NVIDIA ", "Tesla " };
	const char *g = p->gpu_name;
	size_t i;

	for (i = 0; i < HD_ARRAY_LEN(skip); i++)
		if (strncmp(g, skip[i], strlen(skip[i])) == 0)
			g += strlen(skip[i]);
	snprintf(s, n, "%s", g);
}

static void
c_pcie(const struct hd_profile *p, char *s, size_t n)
{
	snprintf(s, n, "Gen%d x%d", p->pcie_gen, p->pcie_lanes);
}

static void
c_h2d(const struct hd_profile *p, char *s, size_t n)
{
	snprintf(s, n, "%.1f", p->h2d_bw / 1e9);
}

static void
c_d2h(const struct hd_profile *p, char *s, size_t n)
{
	snprintf(s, n, "%.1f", p->d2h_bw / 1e9);
}

static void
c_hbm(const struct hd_profile *p, char *s, size_t n)
{
	snprintf(s, n, "%.2f", p->hbm_bw / 1e12);
}

static void
c_fp32(const struct hd_profile *p, char *s, size_t n)
{
	snprintf(s, n, "%.1f", p->flops / 1e12);
}

static void
c_ce(const struct hd_profile *p, char *s, size_t n)
{
	snprintf(s, n, "%d", p->copy_engines);
}

static void
c_launch(const struct hd_profile *p, char *s, size_t n)
{
	snprintf(s, n, "%.1f", (double)p->api_launch / HD_US);
}

/* In display order; when the table is too wide the GPU column goes first. */
static const struct lcol lcols[] = {
	{ "NAME", "", 0, c_name },       { "GPU", "", 0, c_gpu },
	{ "PCIE", "", 0, c_pcie },       { "H2D", "GB/s", 1, c_h2d },
	{ "D2H", "GB/s", 1, c_d2h },     { "MEM", "TB/s", 1, c_hbm },
	{ "FP32", "TFLOPS", 1, c_fp32 }, { "COPY", "ENG", 1, c_ce },
	{ "LAUNCH", "us", 1, c_launch },
};
#define NLCOLS       ((int)HD_ARRAY_LEN(lcols))
#define LCOL_GAP     2
#define LCOL_GPU_MIN 10

void
hd_profile_list(struct hd_buf *out, int width)
{
	int w[NLCOLS], show[NLCOLS], i, c, n, total;
	char cell[128];

	builtin_init();
	n = nready;
	for (c = 0; c < NLCOLS; c++) {
		w[c] = (int)strlen(lcols[c].head);
		if ((int)strlen(lcols[c].unit) > w[c])
			w[c] = (int)strlen(lcols[c].unit);
		show[c] = 1;
		for (i = 0; i < n; i++) {
			lcols[c].cell(&builtin[i], cell, sizeof cell);
			if ((int)strlen(cell) > w[c])
				w[c] = (int)strlen(cell);
		}
	}
	/* Narrow the GPU column (to LCOL_GPU_MIN), then drop it, then drop
	 * columns from the right, until the table fits. */
	for (;;) {
		total = 0;
		for (c = 0; c < NLCOLS; c++)
			if (show[c])
				total += w[c] + (total ? LCOL_GAP : 0);
		if (width <= 0 || total <= width)
			break;
		if (show[1] && w[1] - (total - width) >= LCOL_GPU_MIN) {
			w[1] -= total - width;
			continue;
		}
		if (show[1]) {
			show[1] = 0;
			continue;
		}
		for (c = NLCOLS - 1; c > 1 && !show[c]; c--)
			;
		if (c <= 1)
			break;
		show[c] = 0;
	}
	/* Two heading lines (name, unit), then one line per profile. */
	for (i = -2; i < n; i++) {
		int first = 1;
		size_t start = out->len;

		for (c = 0; c < NLCOLS; c++) {
			const char *s;

			if (!show[c])
				continue;
			if (i == -2)
				s = lcols[c].head;
			else if (i == -1)
				s = lcols[c].unit;
			else {
				lcols[c].cell(&builtin[i], cell, sizeof cell);
				if ((int)strlen(cell) > w[c])
					cell[w[c]] = '\0'; /* a narrowed GPU column */
				s = cell;
			}
			hd_buf_printf(out, "%*s%*s", first ? 0 : LCOL_GAP, "",
				      lcols[c].right ? w[c] : -w[c], s);
			first = 0;
		}
		/* No trailing blanks. */
		while (out->len > start && out->s[out->len - 1] == ' ')
			out->s[--out->len] = '\0';
		hd_buf_putc(out, '\n');
	}
}
