/*
 * profkeys.c - the numeric keys of the profile format that lessons may read
 * with profile(KEY) (profkeys.h), in the order of profile.c's table.
 */
#include <string.h>

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
	{ "host.pin_rate", HD_DIM_RATE },
	{ "host.mallochost_rate", HD_DIM_RATE },
	{ "host.pin_base", HD_DIM_TIME },
	{ "host.dma_h2d", HD_DIM_RATE },
	{ "host.dma_d2h", HD_DIM_RATE },
	{ "host.dma_bidir", HD_DIM_RATE },
	{ "staging.chunk", HD_DIM_BYTES },
	{ "staging.buffers", HD_DIM_NONE },
	{ "api.launch", HD_DIM_TIME },
	{ "api.memcpy", HD_DIM_TIME },
	{ "api.event", HD_DIM_TIME },
	{ "api.wait", HD_DIM_TIME },
	{ "api.sync", HD_DIM_TIME },
	{ "api.wake", HD_DIM_TIME },
	{ "api.malloc", HD_DIM_TIME },
	{ "api.free", HD_DIM_TIME },
	{ "api.queue_depth", HD_DIM_NONE },
	{ "gpu.sms", HD_DIM_NONE },
	{ "gpu.hbm", HD_DIM_RATE },
	{ "gpu.fp32", HD_DIM_FLOPS },
	{ "gpu.launch_latency", HD_DIM_TIME },
	{ "gpu.kernel_overhead", HD_DIM_TIME },
	{ "gpu.max_kernels", HD_DIM_NONE },
	{ "gpu.d2d", HD_DIM_RATE },
	{ "um.page", HD_DIM_BYTES },
	{ "um.fault", HD_DIM_TIME },
	{ "um.fault_rate", HD_DIM_RATE },
	{ "um.prefetch_rate", HD_DIM_RATE },
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
hd_profkey_list(struct hd_buf *b)
{
	int i;

	for (i = 0; i < hd_profkey_count(); i++)
		hd_buf_printf(b, "%s%s", i > 0 ? ", " : "", keys[i].key);
}
