/*
 * affinity.c - keep the host thread on one CPU near the GPU.
 *
 * Host-side copies through memory (pageable staging, pinning pages) run at
 * rates that depend on which CPU does them: on the lent GPU machines the
 * same pageable copy measured 30 to 40 % apart from one process to the next.
 * nvbandwidth pins its thread next to the GPU before it measures; hdsim does
 * the same in calibration and in --real, so both see the host from one place.
 * A scenario's host threads (workers.c) take the process's CPUs back.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "real/real.h"

/* The GPU's local_cpulist from sysfs ("0-15", "0-7,16-23"), or "" if unknown. */
static void
local_cpus(int dev, char *out, size_t n)
{
	char busid[32], path[128];
	unsigned dom, bus, slot, fn;
	FILE *f;

	out[0] = '\0';
	if (cudaDeviceGetPCIBusId(busid, sizeof busid, dev) != cudaSuccess ||
	    sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4)
		return;
	snprintf(path, sizeof path, "/sys/bus/pci/devices/%04x:%02x:%02x.%x/local_cpulist", dom,
		 bus, slot, fn);
	if ((f = fopen(path, "r")) == NULL)
		return;
	if (fgets(out, (int)n, f) == NULL)
		out[0] = '\0';
	fclose(f);
}

/* The process's CPUs before a thread was kept on one (hd_real_unpin_thread). */
static cpu_set_t before;
static int have_before;

int
hd_real_pin_host_thread(int dev)
{
	char cpus[256], *p, *end;
	cpu_set_t allowed, one;
	long a, b, c, best = -1;

	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		return -1;
	if (!have_before) {
		before = allowed;
		have_before = 1;
	}
	local_cpus(dev, cpus, sizeof cpus);
	/* The last allowed CPU of the GPU's list: CPU 0 takes more interrupts. */
	for (p = cpus; isdigit((unsigned char)*p); p = *end == ',' ? end + 1 : end) {
		a = strtol(p, &end, 10);
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (c = a; c <= b && c < CPU_SETSIZE; c++)
			if (CPU_ISSET((int)c, &allowed))
				best = c;
	}
	for (c = CPU_SETSIZE - 1; best < 0 && c >= 0; c--)
		if (CPU_ISSET((int)c, &allowed))
			best = c;
	if (best < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET((int)best, &one);
	return sched_setaffinity(0, sizeof one, &one) == 0 ? (int)best : -1;
}

int
hd_real_unpin_thread(void)
{
	if (!have_before)
		return -1;
	return sched_setaffinity(0, sizeof before, &before) == 0 ? 0 : -1;
}

int
hd_real_host_cpus(void)
{
	cpu_set_t now;

	if (have_before)
		return CPU_COUNT(&before);
	if (sched_getaffinity(0, sizeof now, &now) != 0)
		return -1;
	return CPU_COUNT(&now);
}
