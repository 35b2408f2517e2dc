/*
 * profkeys.c - the numeric keys of the profile format that lessons may read
 * with profile(KEY) (profkeys.h), in the order of profile.c's table.
 */
#include <stdio.h>
#include <string.h>

#include "lang/lex.h"
#include "lang/profkeys.h"

static const struct hd_profkey keys[] = {
	{ "pcie.gen", HD_DIM_NONE },
	{ "pcie.lanes", HD_DIM_NONE },
	{ "pcie.h2d", HD_DIM_RATE },
	{ "pcie.d2h", HD_DIM_RATE },
	{ "pcie.bidir", HD_DIM_RATE },
	{ "pcie.latency", HD_DIM_TIME },
	{ "pcie.copy_engines", HD_DIM_NONE },
	{ "host.memcpy_h2d", HD_DIM_RATE },
	{ "host.memcpy_d2h", HD_DIM_RATE },
	{ "host.memcpy_h2d_hot", HD_DIM_RATE },
	{ "host.memcpy_d2h_hot", HD_DIM_RATE },
	{ "host.cache", HD_DIM_BYTES },
	{ "host.touch", HD_DIM_RATE },
	{ "host.pin_rate", HD_DIM_RATE },
	{ "host.mallochost_rate", HD_DIM_RATE },
	{ "host.pin_base", HD_DIM_TIME },
	{ "host.mallochost_base", HD_DIM_TIME },
	{ "host.unpin_rate", HD_DIM_RATE },
	{ "host.dma_h2d", HD_DIM_RATE },
	{ "host.dma_d2h", HD_DIM_RATE },
	{ "host.dma_bidir", HD_DIM_RATE },
	{ "host.cores", HD_DIM_NONE },
	{ "staging.chunk", HD_DIM_BYTES },
	{ "staging.buffers", HD_DIM_NONE },
	{ "api.launch", HD_DIM_TIME },
	{ "api.memcpy", HD_DIM_TIME },
	{ "api.memcpy_d2d", HD_DIM_TIME },
	{ "api.memcpy_sync", HD_DIM_TIME },
	{ "api.memcpy_managed", HD_DIM_TIME },
	{ "api.memcpy_pageable", HD_DIM_TIME },
	{ "api.event", HD_DIM_TIME },
	{ "api.event_notiming", HD_DIM_TIME },
	{ "api.wait", HD_DIM_TIME },
	{ "api.sync", HD_DIM_TIME },
	{ "api.sync_kernel", HD_DIM_TIME },
	{ "api.sync_device", HD_DIM_TIME },
	{ "api.wake", HD_DIM_TIME },
	{ "api.malloc", HD_DIM_TIME },
	{ "api.free", HD_DIM_TIME },
	{ "api.malloc_small", HD_DIM_TIME },
	{ "api.free_small", HD_DIM_TIME },
	{ "api.malloc_managed", HD_DIM_TIME },
	{ "api.free_managed", HD_DIM_TIME },
	{ "api.malloc_rate", HD_DIM_RATE },
	{ "api.free_rate", HD_DIM_RATE },
	{ "api.malloc_mid", HD_DIM_TIME },
	{ "api.free_mid", HD_DIM_TIME },
	{ "api.freehost", HD_DIM_TIME },
	{ "api.queue_depth", HD_DIM_NONE },
	{ "api.graph_launch", HD_DIM_TIME },
	{ "gpu.sms", HD_DIM_NONE },
	{ "gpu.hbm", HD_DIM_RATE },
	{ "gpu.fp32", HD_DIM_FLOPS },
	{ "gpu.launch_latency", HD_DIM_TIME },
	{ "gpu.kernel_overhead", HD_DIM_TIME },
	{ "gpu.event_record", HD_DIM_TIME },
	{ "gpu.max_kernels", HD_DIM_NONE },
	{ "gpu.d2d", HD_DIM_RATE },
	{ "gpu.block_memory", HD_DIM_RATE },
	{ "gpu.block_fill", HD_DIM_RATE },
	{ "gpu.block_reduce", HD_DIM_RATE },
	{ "gpu.l2", HD_DIM_BYTES },
	{ "gpu.l2_rate", HD_DIM_RATE },
	{ "gpu.l2_fill", HD_DIM_RATE },
	{ "gpu.graph_node", HD_DIM_TIME },
	{ "um.page", HD_DIM_BYTES },
	{ "um.fault", HD_DIM_TIME },
	{ "um.fault_rate", HD_DIM_RATE },
	{ "um.prefetch_rate", HD_DIM_RATE },
	{ "um.prefetch_base", HD_DIM_TIME },
	{ "um.prefetch_d2h_rate", HD_DIM_RATE },
	{ "um.prefetch_walk", HD_DIM_RATE },
	{ "um.prefetch_stay", HD_DIM_TIME },
	{ "um.prefetch_defer", HD_DIM_TIME },
	{ "um.host_fault", HD_DIM_TIME },
	{ "um.host_fault_rate", HD_DIM_RATE },
	{ "um.host_fault_write", HD_DIM_RATE },
	{ "um.prefetched_write", HD_DIM_RATE },
	{ "um.fault_base", HD_DIM_TIME },
	{ "um.host_touch", HD_DIM_RATE },
	{ "topo.gpus_per_node", HD_DIM_NONE },
	{ "topo.p2p_pcie", HD_DIM_RATE },
	{ "nvlink.links", HD_DIM_NONE },
	{ "nvlink.rate", HD_DIM_RATE },
	{ "nvlink.latency", HD_DIM_TIME },
	{ "nvlink.copy_rate", HD_DIM_RATE },
	{ "net.rate", HD_DIM_RATE },
	{ "net.latency", HD_DIM_TIME },
	{ "coll.base", HD_DIM_TIME },
	{ "coll.chunk", HD_DIM_BYTES },
	{ "coll.sms", HD_DIM_NONE },
};

int
hd_profkey_count(void)
{
	return (int)HD_ARRAY_LEN(keys);
}

const struct hd_profkey *
hd_profkey(int i)
{
	return i >= 0 && i < hd_profkey_count() ? &keys[i] : NULL;
}

int
hd_profkey_find(const char *key, size_t len)
{
	int i;

	for (i = 0; i < hd_profkey_count(); i++)
		if (strlen(keys[i].key) == len && memcmp(keys[i].key, key, len) == 0)
			return i;
	return -1;
}

void
hd_profkey_explain(const char *key, size_t len, struct hd_buf *b)
{
	const char *dot = memchr(key, '.', len);
	size_t glen = dot != NULL ? (size_t)(dot - key) : len;
	char want[80];
	int i, best = -1, bestd = 99, n = 0;

	snprintf(want, sizeof want, "%.*s", (int)len, key);
	for (i = 0; i < hd_profkey_count(); i++) {
		int d = hd_edit_distance(want, keys[i].key);
		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	if (best >= 0 && bestd <= 2)
		hd_buf_printf(b, ": did you mean '%s'?", keys[best].key);
	for (i = 0; i < hd_profkey_count(); i++)
		if (strncmp(keys[i].key, key, glen) == 0 && keys[i].key[glen] == '.')
			hd_buf_printf(b, "%s%s", n++ == 0 ? " (the keys of its group: " : ", ",
				      keys[i].key);
	if (n > 0) {
		hd_buf_puts(b, ")");
		return;
	}
	hd_buf_puts(b, " (groups: ");
	for (i = 0; i < hd_profkey_count(); i++) {
		const char *d = strchr(keys[i].key, '.');
		size_t gl = (size_t)(d - keys[i].key);
		if (i == 0 || strncmp(keys[i - 1].key, keys[i].key, gl) != 0 ||
		    keys[i - 1].key[gl] != '.')
			hd_buf_printf(b, "%s%.*s", i > 0 ? ", " : "", (int)gl, keys[i].key);
	}
	hd_buf_puts(b, "; 'hdsim profiles h100-sxm' lists every key)");
}
