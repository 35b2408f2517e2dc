/*
 * doctor.c - what this machine offers hdsim, for `hdsim doctor`, and the
 * machine facts stored with every measured run.
 *
 * The report covers the build, the host (CPU, memory, NUMA), the NVIDIA
 * driver, the CUDA runtime, NCCL, every GPU with its PCIe link as sysfs
 * reports it, the peer-access matrix, the environment variables that change
 * timings, and what hdsim can and cannot do here.  Without a driver or a GPU
 * everything the host can tell is still reported, and the reason is named.
 *
 * Nothing here changes the machine: no device flags, clocks or limits are
 * set.  cudaSetDevice and cudaMemGetInfo create a context on each GPU, and
 * the current device is set back to 0 afterwards.  Nothing forks.
 */
#define _GNU_SOURCE
#include "config.h"

#include <sys/utsname.h>

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "real/ncclinfo.h"
#include "real/pcie.h"
#include "real/real.h"

extern char **environ;

#define DRIVER_FILE "/proc/driver/nvidia/version"

/* nvcc flags the kernel library was built with (Makefile.am passes them). */
#ifndef HD_CUDA_ARCH
#define HD_CUDA_ARCH ""
#endif

/* Variables that change how runs behave, shown before every NCCL_* one. */
static const char *const cuda_env[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",           "CUDA_LAUNCH_BLOCKING",
	"CUDA_MODULE_LOADING",  "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_MPS_PIPE_DIRECTORY",
};

static const char *const compute_modes[] = {
	[cudaComputeModeDefault] = "default (shared)",
	[cudaComputeModeExclusive] = "exclusive thread",
	[cudaComputeModeProhibited] = "prohibited: no process may use this GPU",
	[cudaComputeModeExclusiveProcess] = "exclusive process",
};

/* A GPU's PCIe link and locality as sysfs reports them (0 / "" when not). */
struct pcie {
	char bus[32]; /* sysfs form: 0000:1b:00.0 */
	struct hd_pcie_link l;
	int numa;       /* -1: none reported */
	char cpus[256]; /* local_cpulist */
};

/* ---- small readers --------------------------------------------------------- */

/* The value of "key<spaces>: value" in a /proc file such as cpuinfo: 0, or -1
 * (dst "") when the file has no such line. */
static int
proc_field(const char *path, const char *key, char *dst, size_t n)
{
	char line[1024];
	size_t k = strlen(key);
	FILE *f;
	int rc = -1;

	dst[0] = '\0';
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		char *v;

		if (strncmp(line, key, k) != 0 ||
		    (line[k] != ' ' && line[k] != '\t' && line[k] != ':'))
			continue;
		if ((v = strchr(line, ':')) == NULL)
			continue;
		v += strspn(v + 1, " \t") + 1;
		v[strcspn(v, "\n")] = '\0';
		snprintf(dst, n, "%s", v);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/* A "NNN kB" field of /proc/meminfo in bytes, or 0. */
static uint64_t
meminfo_bytes(const char *key)
{
	char v[128];

	if (proc_field("/proc/meminfo", key, v, sizeof v) != 0)
		return 0;
	return strtoull(v, NULL, 10) * 1024;
}

static double
gib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

/*
 * The kernel module's version from /proc/driver/nvidia/version ("NVRM
 * version: NVIDIA UNIX x86_64 Kernel Module  580.82.07  Wed Aug ..."): the
 * first word of the first line made of digits and dots: 0 if found, else -1;
 * *open says whether it is the open kernel module.
 */
static int
driver_file_version(char *dst, size_t n, int *open)
{
	char line[512], *w, *save = NULL;

	dst[0] = '\0';
	if (open != NULL)
		*open = 0;
	if (hd_pcie_read_line(NULL, DRIVER_FILE, line, sizeof line) != 0)
		return -1;
	if (open != NULL)
		*open = strstr(line, "Open Kernel Module") != NULL;
	for (w = strtok_r(line, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
		if (w[0] >= '0' && w[0] <= '9' && strchr(w, '.') != NULL &&
		    w[strspn(w, "0123456789.")] == '\0') {
			snprintf(dst, n, "%s", w);
			return 0;
		}
	}
	return -1;
}

/* "13.0" from a CUDA version number (1000 * major + 10 * minor). */
static void
cuda_version_str(int v, char *dst, size_t n)
{
	snprintf(dst, n, "%d.%d", v / 1000, v % 1000 / 10);
}

/* "call failed: message (cudaErrorName)" */
static void
cuda_why(char *dst, size_t n, const char *call, cudaError_t rc)
{
	snprintf(dst, n, "%s failed: %s (%s)", call, cudaGetErrorString(rc), cudaGetErrorName(rc));
}

/* GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, as nvidia-smi prints it. */
static void
uuid_str(const cudaUUID_t *u, char *dst, size_t n)
{
	const unsigned char *b = (const unsigned char *)u->bytes;

	snprintf(dst, n,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

/*
 * A GPU's PCI address and link from sysfs.  `busid` is the runtime's form
 * ("0000:1B:00.0"); sysfs names devices in lower case.
 */
static void
pcie_read(const char *busid, struct pcie *p)
{
	unsigned dom, bus, slot, fn;
	char dir[96], v[64];

	memset(p, 0, sizeof *p);
	p->numa = -1;
	if (sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4)
		return;
	snprintf(p->bus, sizeof p->bus, "%04x:%02x:%02x.%x", dom, bus, slot, fn);
	snprintf(dir, sizeof dir, "/sys/bus/pci/devices/%s", p->bus);
	hd_pcie_link_read(dir, &p->l);
	if (hd_pcie_read_line(dir, "numa_node", v, sizeof v) == 0)
		p->numa = atoi(v);
	hd_pcie_read_line(dir, "local_cpulist", p->cpus, sizeof p->cpus);
}

/* Does /proc/cpuinfo carry the "hypervisor" flag (running in a VM)? */
static int
in_vm(void)
{
	char flags[4096];

	if (proc_field("/proc/cpuinfo", "flags", flags, sizeof flags) != 0)
		return 0;
	return strstr(flags, " hypervisor") != NULL || strncmp(flags, "hypervisor", 10) == 0;
}

static int
cpus_allowed(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	return CPU_COUNT(&set);
}

/* ---- kernel images ------------------------------------------------------------ */

/* Parse "sm_90", "compute_80a" ...: 0 with the arch, or -1. */
static int
parse_arch(const char *s, size_t len, int *ptx, int *cc, char *suffix)
{
	const char *d;
	char *end;
	long v;

	if (len > 3 && strncmp(s, "sm_", 3) == 0) {
		*ptx = 0;
		d = s + 3;
	} else if (len > 8 && strncmp(s, "compute_", 8) == 0) {
		*ptx = 1;
		d = s + 8;
	} else
		return -1;
	v = strtol(d, &end, 10);
	if (end == d || v <= 0 || end > s + len)
		return -1;
	*cc = (int)v;
	*suffix = end < s + len ? *end : '\0';
	return 0;
}

/* Does one code (cubin or PTX) run on a GPU of compute capability cc (major*10+minor)? */
static int
code_runs(int ptx, int code, char suffix, int cc)
{
	if (suffix == 'a')
		return cc == code; /* arch-specific: that GPU only */
	if (ptx)
		return cc >= code;                 /* the driver compiles PTX forward */
	return cc / 10 == code / 10 && cc >= code; /* cubins run within a major */
}

/* Whether the kernel library has code for a GPU. */
enum arch_fit {
	ARCH_RUNS,
	ARCH_NO_CODE,
	ARCH_UNKNOWN
};

/*
 * Can the kernel library, compiled with nvcc flags `flags`, run on compute
 * capability cc?  ARCH_UNKNOWN when the flags do not say (e.g. -arch=native).
 */
static enum arch_fit
arch_runs(const char *flags, int cc)
{
	const char *p = flags, *t, *list;
	int seen = 0, unknown = 0;

	while (*p != '\0') {
		size_t tl;
		char tok[256];

		p += strspn(p, " \t");
		t = p;
		p += strcspn(p, " \t");
		tl = (size_t)(p - t);
		if (tl == 0 || tl >= sizeof tok)
			continue;
		memcpy(tok, t, tl);
		tok[tl] = '\0';
		list = NULL;
		if (strncmp(tok, "-arch=", 6) == 0 ||
		    strncmp(tok, "--gpu-architecture=", 19) == 0) {
			int ptx, code;
			char suf;
			const char *a = strchr(tok, '=') + 1;

			if (parse_arch(a, strlen(a), &ptx, &code, &suf) != 0) {
				unknown = 1;
				continue;
			}
			seen = 1;
			/* -arch=sm_XY embeds the cubin and the PTX of XY */
			if (code_runs(0, code, suf, cc) || code_runs(1, code, suf, cc))
				return ARCH_RUNS;
			continue;
		}
		if (strncmp(tok, "code=", 5) == 0)
			list = tok + 5;
		else if ((list = strstr(tok, ",code=")) != NULL)
			list += 6;
		if (list == NULL)
			continue;
		while (*list != '\0') {
			int ptx, code;
			char suf;
			size_t n;

			list += strspn(list, "[],;\"'");
			n = strcspn(list, "[],;\"'");
			if (n == 0)
				break;
			if (parse_arch(list, n, &ptx, &code, &suf) == 0) {
				seen = 1;
				if (code_runs(ptx, code, suf, cc))
					return ARCH_RUNS;
			} else
				unknown = 1;
			list += n;
		}
	}
	if (!seen || unknown)
		return ARCH_UNKNOWN;
	return ARCH_NO_CODE;
}

/* ---- the report ---------------------------------------------------------------- */

static void
report_build(struct hd_buf *out)
{
	hd_buf_printf(out, "hdsim build\n");
	hd_buf_printf(out, "  %s\n", hd_real_build_info());
	hd_buf_printf(out, "  configured with: CUDA yes, NCCL %s, MPI %s\n", hd_ncclinfo.configured,
#ifdef HAVE_MPI
		      "yes"
#else
		      "no"
#endif
	);
	if (HD_CUDA_ARCH[0] != '\0')
		hd_buf_printf(out, "  kernel library compiled for: %s\n", HD_CUDA_ARCH);
}

static void
report_numa(struct hd_buf *out)
{
	DIR *d;
	struct dirent *de;
	int ids[1024], n = 0, i, j;

	if ((d = opendir("/sys/devices/system/node")) == NULL) {
		hd_buf_printf(out, "  NUMA: not reported (/sys/devices/system/node is missing)\n");
		return;
	}
	while ((de = readdir(d)) != NULL && n < (int)HD_ARRAY_LEN(ids)) {
		char *end;
		long v;

		if (strncmp(de->d_name, "node", 4) != 0)
			continue;
		v = strtol(de->d_name + 4, &end, 10);
		if (end == de->d_name + 4 || *end != '\0' || v < 0)
			continue;
		ids[n++] = (int)v;
	}
	closedir(d);
	for (i = 1; i < n; i++) /* insertion sort: a handful of nodes */
		for (j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			int t = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	hd_buf_printf(out, "  NUMA nodes: %d", n);
	for (i = 0; i < n; i++) {
		char path[96], cpus[256];

		snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", ids[i]);
		if (hd_pcie_read_line(NULL, path, cpus, sizeof cpus) != 0 || cpus[0] == '\0')
			snprintf(cpus, sizeof cpus, "none");
		hd_buf_printf(out, "%snode%d: CPUs %s", i == 0 ? " (" : ", ", ids[i], cpus);
	}
	hd_buf_printf(out, "%s\n", n > 0 ? ")" : "");
}

static void
report_host(struct hd_buf *out)
{
	char host[256], model[256], limit[64];
	struct utsname u;
	uint64_t total = meminfo_bytes("MemTotal"), avail = meminfo_bytes("MemAvailable");
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	hd_buf_printf(out, "\nHost\n");
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "(unknown)");
	host[sizeof host - 1] = '\0';
	hd_buf_printf(out, "  hostname: %s\n", host);
	if (uname(&u) == 0)
		hd_buf_printf(out, "  kernel: %s %s %s%s\n", u.sysname, u.release, u.machine,
			      in_vm() ? " (virtual machine: the CPU reports a hypervisor)" : "");
	if (proc_field("/proc/cpuinfo", "model name", model, sizeof model) != 0)
		snprintf(model, sizeof model, "not reported by /proc/cpuinfo");
	hd_buf_printf(out, "  CPU: %s\n", model);
	hd_buf_printf(out, "  logical CPUs: %ld online, %d usable by this process\n", online,
		      cpus_allowed());
	if (total > 0)
		hd_buf_printf(out, "  memory: %.1f GiB total, %.1f GiB available now\n", gib(total),
			      gib(avail));
	else
		hd_buf_printf(out, "  memory: not reported (/proc/meminfo unreadable)\n");
	if (hd_pcie_read_line(NULL, "/sys/fs/cgroup/memory.max", limit, sizeof limit) == 0 &&
	    strcmp(limit, "max") != 0)
		hd_buf_printf(out,
			      "  memory limit of this cgroup: %.1f GiB (pinned buffers "
			      "count against it)\n",
			      gib(strtoull(limit, NULL, 10)));
	report_numa(out);
}

/*
 * Driver, runtime and NCCL versions.  Returns whether a driver answers
 * (cudaDriverGetVersion gives a version); *kmod says whether the kernel
 * module's version file exists.
 */
static int
report_versions(struct hd_buf *out, int *kmod)
{
	char ver[64], why[512];
	int drv = 0, rt = 0, open = 0;
	cudaError_t rc;

	hd_buf_printf(out, "\nNVIDIA driver\n");
	*kmod = driver_file_version(ver, sizeof ver, &open) == 0;
	if (*kmod)
		hd_buf_printf(out, "  kernel module: %s%s (%s)\n", ver, open ? ", open" : "",
			      DRIVER_FILE);
	else if (access(DRIVER_FILE, F_OK) == 0)
		hd_buf_printf(out, "  kernel module: loaded, but %s has no version\n", DRIVER_FILE);
	else
		hd_buf_printf(out, "  no NVIDIA driver is loaded: %s does not exist\n",
			      DRIVER_FILE);
	rc = cudaDriverGetVersion(&drv);
	if (rc != cudaSuccess) {
		cuda_why(why, sizeof why, "cudaDriverGetVersion", rc);
		hd_buf_printf(out, "  CUDA driver: %s\n", why);
		drv = 0;
	} else if (drv == 0) {
		hd_buf_printf(out,
			      "  CUDA driver: none (cudaDriverGetVersion reports 0: "
			      "libcuda.so was not found)\n");
		if (*kmod)
			hd_buf_printf(out,
				      "    the kernel module is loaded but its user-space "
				      "library is not visible; in a container, start it with "
				      "the NVIDIA container toolkit (docker run --gpus all)\n");
	} else {
		cuda_version_str(drv, ver, sizeof ver);
		hd_buf_printf(out, "  CUDA driver: supports CUDA %s (cudaDriverGetVersion)\n", ver);
	}

	hd_buf_printf(out, "\nCUDA runtime\n");
	rc = cudaRuntimeGetVersion(&rt);
	if (rc != cudaSuccess) {
		cuda_why(why, sizeof why, "cudaRuntimeGetVersion", rc);
		hd_buf_printf(out, "  %s\n", why);
	} else {
		cuda_version_str(rt, ver, sizeof ver);
		hd_buf_printf(out, "  version %s (cudaRuntimeGetVersion)\n", ver);
		if (drv > 0 && drv / 1000 < rt / 1000) {
			char dv[16];

			cuda_version_str(drv, dv, sizeof dv);
			hd_buf_printf(out,
				      "  the driver supports CUDA %s, older than this "
				      "runtime's major version: update the driver to one for "
				      "CUDA %d or later\n",
				      dv, rt / 1000);
		}
	}

	hd_buf_printf(out, "\nNCCL\n");
	if (hd_ncclinfo.version(ver, sizeof ver) == 0)
		hd_buf_printf(out, "  version %s (ncclGetVersion)\n", ver);
	else
		hd_buf_printf(out, "  %s\n", ver);
	return drv > 0;
}

/* cudaDeviceGetAttribute, its failure appended to errs: 0, or -1 with *v 0. */
static int
attr(int dev, enum cudaDeviceAttr a, const char *name, int *v, struct hd_buf *errs)
{
	cudaError_t rc = cudaDeviceGetAttribute(v, a, dev);
	char call[128], why[512];

	if (rc == cudaSuccess)
		return 0;
	snprintf(call, sizeof call, "cudaDeviceGetAttribute(%s)", name);
	cuda_why(why, sizeof why, call, rc);
	hd_buf_printf(errs, "      %s\n", why);
	*v = 0;
	return -1;
}
#define ATTR(dev, a, v, errs) attr((dev), (a), #a, (v), (errs))

static const char *
yes_no(int ok, int v)
{
	return !ok ? "?" : v ? "yes" : "no";
}

static void
report_pcie(struct hd_buf *out, const struct pcie *p, int vm)
{
	if (p->bus[0] == '\0')
		return;
	if (p->l.speed_cur[0] == '\0' && p->l.lanes_cur == 0) {
		hd_buf_printf(out, "    PCIe link: not reported (/sys/bus/pci/devices/%s)\n",
			      p->bus);
	} else {
		hd_buf_printf(out, "    PCIe link now: ");
		if (p->l.gen_cur > 0)
			hd_buf_printf(out, "Gen%d", p->l.gen_cur);
		else
			hd_buf_printf(out, "%s", p->l.speed_cur[0] ? p->l.speed_cur : "speed ?");
		hd_buf_printf(out, " x%d, maximum: ", p->l.lanes_cur);
		if (p->l.gen_max > 0)
			hd_buf_printf(out, "Gen%d", p->l.gen_max);
		else
			hd_buf_printf(out, "%s", p->l.speed_max[0] ? p->l.speed_max : "speed ?");
		hd_buf_printf(out, " x%d (sysfs: %s, %s)\n", p->l.lanes_max,
			      p->l.speed_cur[0] ? p->l.speed_cur : "?",
			      p->l.speed_max[0] ? p->l.speed_max : "?");
		if (p->l.gen_cur > 0 && p->l.gen_max > 0 && p->l.gen_cur < p->l.gen_max)
			hd_buf_printf(out,
				      "    the link runs below its maximum speed now: "
				      "idle GPUs lower their PCIe speed to save power and raise it "
				      "under load, so read it again during a copy; if it stays "
				      "low, the slot or riser limits it\n");
		if (p->l.lanes_cur > 0 && p->l.lanes_max > 0 && p->l.lanes_cur < p->l.lanes_max)
			hd_buf_printf(out,
				      "    the link trained to x%d of x%d lanes: copies "
				      "to and from the host are slower (check the slot and "
				      "riser)\n",
				      p->l.lanes_cur, p->l.lanes_max);
		if (vm)
			hd_buf_printf(out,
				      "    in a virtual machine the link shown may be the "
				      "virtual one, not the physical slot\n");
	}
	hd_buf_printf(out, "    NUMA node: ");
	if (p->numa >= 0)
		hd_buf_printf(out, "%d", p->numa);
	else
		hd_buf_printf(out, "none reported");
	if (p->cpus[0] != '\0')
		hd_buf_printf(out, ", nearby CPUs %s (pin host threads there for host copies)",
			      p->cpus);
	hd_buf_printf(out, "\n");
}

/*
 * One GPU's section.  Returns 0 when the GPU is usable, with name, cc (major *
 * 10 + minor) and *kernels_ok (whether the kernel library has code for it)
 * set; -1 when it cannot be queried (the first such failure goes to why1).
 */
static int
report_gpu(struct hd_buf *out, int dev, int vm, char *name, size_t namelen, int *cc,
	   int *kernels_ok, char *why1, size_t whylen)
{
	struct cudaDeviceProp p;
	struct hd_buf errs;
	struct pcie link;
	char busid[32], uuid[64], why[512];
	cudaError_t rc;
	size_t freeb = 0, totalb = 0;
	int v, ok, sms, clk, mclk, bus, l2;
	enum arch_fit runs;

	memset(&p, 0, sizeof p);
	rc = cudaGetDeviceProperties(&p, dev);
	if (rc != cudaSuccess) {
		cuda_why(why, sizeof why, "cudaGetDeviceProperties", rc);
		hd_buf_printf(out, "  GPU %d: not usable: %s\n", dev, why);
		if (why1[0] == '\0')
			snprintf(why1, whylen, "%s", why);
		return -1;
	}
	hd_buf_init(&errs);
	snprintf(name, namelen, "%s", p.name);
	*cc = p.major * 10 + p.minor;
	uuid_str(&p.uuid, uuid, sizeof uuid);
	hd_buf_printf(out, "  GPU %d: %s, compute capability %d.%d\n", dev, p.name, p.major,
		      p.minor);
	hd_buf_printf(out, "    UUID: %s\n", uuid);

	rc = cudaDeviceGetPCIBusId(busid, (int)sizeof busid, dev);
	if (rc != cudaSuccess) {
		cuda_why(why, sizeof why, "cudaDeviceGetPCIBusId", rc);
		hd_buf_printf(&errs, "      %s\n", why);
		snprintf(busid, sizeof busid, "%04x:%02x:%02x.0", (unsigned)p.pciDomainID,
			 (unsigned)p.pciBusID, (unsigned)p.pciDeviceID);
	}
	pcie_read(busid, &link);
	hd_buf_printf(out, "    PCI bus id: %s\n", busid);

	ok = ATTR(dev, cudaDevAttrMultiProcessorCount, &sms, &errs) == 0;
	hd_buf_printf(out, "    SMs: %s", ok ? "" : "?");
	if (ok)
		hd_buf_printf(out, "%d", sms);
	if (ATTR(dev, cudaDevAttrClockRate, &clk, &errs) == 0 && clk > 0)
		hd_buf_printf(out, ", SM clock up to %d MHz", clk / 1000);
	hd_buf_printf(out, "\n");

	hd_buf_printf(out, "    memory: %.1f GiB", gib(p.totalGlobalMem));
	rc = cudaSetDevice(dev);
	if (rc == cudaSuccess)
		rc = cudaMemGetInfo(&freeb, &totalb);
	if (rc == cudaSuccess)
		hd_buf_printf(out, " (%.1f GiB free now)", gib(freeb));
	else {
		cuda_why(why, sizeof why, "cudaSetDevice/cudaMemGetInfo", rc);
		hd_buf_printf(&errs, "      %s\n", why);
		cudaGetLastError();
	}
	if (ATTR(dev, cudaDevAttrGlobalMemoryBusWidth, &bus, &errs) == 0 && bus > 0)
		hd_buf_printf(out, ", %d-bit bus", bus);
	if (ATTR(dev, cudaDevAttrMemoryClockRate, &mclk, &errs) == 0 && mclk > 0) {
		hd_buf_printf(out, ", clock up to %d MHz", mclk / 1000);
		if (bus > 0) /* double data rate: two transfers per clock */
			hd_buf_printf(out, " (peak %.0f GB/s)", 2.0 * mclk * 1e3 * (bus / 8) / 1e9);
	}
	hd_buf_printf(out, "\n");
	if (ATTR(dev, cudaDevAttrL2CacheSize, &l2, &errs) == 0)
		hd_buf_printf(out, "    L2 cache: %.1f MiB (size copy buffers well above it)\n",
			      l2 / (1024.0 * 1024.0));

	ok = ATTR(dev, cudaDevAttrAsyncEngineCount, &v, &errs) == 0;
	hd_buf_printf(out, "    copy engines (asyncEngineCount): %s", ok ? "" : "?");
	if (ok)
		hd_buf_printf(out, "%d%s", v,
			      v >= 2     ? " (H2D and D2H copies can overlap)" :
				  v == 1 ? " (copies overlap kernels but not each other)" :
					   " (copies do not overlap kernels)");
	hd_buf_printf(out, "\n");
	{
		static const struct {
			enum cudaDeviceAttr a;
			const char *name, *label;
		} flags[] = {
#define F(a, label) { a, #a, label }
			F(cudaDevAttrConcurrentKernels, "concurrentKernels"),
			F(cudaDevAttrUnifiedAddressing, "unifiedAddressing"),
			F(cudaDevAttrCanMapHostMemory, "canMapHostMemory"),
			F(cudaDevAttrManagedMemory, "managedMemory"),
			F(cudaDevAttrConcurrentManagedAccess, "concurrentManagedAccess"),
			F(cudaDevAttrPageableMemoryAccess, "pageableMemoryAccess"),
			F(cudaDevAttrEccEnabled, "ECC"),
#undef F
		};
		size_t i;

		hd_buf_printf(out, "    features:");
		for (i = 0; i < HD_ARRAY_LEN(flags); i++) {
			ok = attr(dev, flags[i].a, flags[i].name, &v, &errs) == 0;
			hd_buf_printf(out, "%s %s %s", i == 0 ? "" : ",", flags[i].label,
				      yes_no(ok, v));
		}
		hd_buf_printf(out, "\n");
	}
	if (ATTR(dev, cudaDevAttrComputeMode, &v, &errs) == 0 && v != cudaComputeModeDefault)
		hd_buf_printf(out, "    compute mode: %s\n",
			      v >= 0 && v < (int)HD_ARRAY_LEN(compute_modes) && compute_modes[v] ?
				  compute_modes[v] :
				  "unknown");
	report_pcie(out, &link, vm);
	runs = arch_runs(HD_CUDA_ARCH, *cc);
	if (runs == ARCH_NO_CODE)
		hd_buf_printf(out,
			      "    the kernel library has no code for compute capability "
			      "%d.%d: reconfigure with CUDA_ARCH including -gencode "
			      "arch=compute_%d,code=sm_%d\n",
			      p.major, p.minor, *cc, *cc);
	if (errs.len > 0)
		hd_buf_printf(out, "    not reported:\n%s", errs.s);
	hd_buf_free(&errs);
	*kernels_ok = runs != ARCH_NO_CODE;
	return 0;
}

/* Peer access between every pair of GPUs, and a guess at the link. */
static void
report_p2p(struct hd_buf *out, int n)
{
	enum {
		NONE,
		NVLINK,
		PCIE,
		ERR,
		NKIND
	};
	static const char *const kind_name[NKIND] = {
		"no peer access (copies go through host memory)",
		"NVLink likely (peer access with native atomics)",
		"PCIe likely (peer access without native atomics)",
		"could not be read",
	};
	struct hd_buf errs, pairs[NKIND];
	int i, j, k, npairs[NKIND] = { 0 };
	char why[512];

	hd_buf_init(&errs);
	for (k = 0; k < NKIND; k++)
		hd_buf_init(&pairs[k]);
	hd_buf_printf(out, "\nPeer access between GPUs (row: from, column: to)\n        ");
	for (j = 0; j < n; j++) {
		char h[16];

		snprintf(h, sizeof h, "GPU%d", j);
		hd_buf_printf(out, j + 1 < n ? " %-10s" : " %s", h);
	}
	hd_buf_printf(out, "\n");
	for (i = 0; i < n; i++) {
		char h[16];

		snprintf(h, sizeof h, "GPU%d", i);
		hd_buf_printf(out, "  %-6s", h);
		for (j = 0; j < n; j++) {
			int can = 0, rank = 0, acc = 0, atom = 0, kind;
			cudaError_t rc;
			char cell[32];

			if (i == j) {
				hd_buf_printf(out, j + 1 < n ? " %-10s" : " %s", "-");
				continue;
			}
			rc = cudaDeviceCanAccessPeer(&can, i, j);
			if (rc != cudaSuccess) {
				cuda_why(why, sizeof why, "cudaDeviceCanAccessPeer", rc);
			} else if ((rc = cudaDeviceGetP2PAttribute(&rank,
								   cudaDevP2PAttrPerformanceRank, i,
								   j)) != cudaSuccess) {
				cuda_why(why, sizeof why,
					 "cudaDeviceGetP2PAttribute("
					 "cudaDevP2PAttrPerformanceRank)",
					 rc);
			} else if ((rc = cudaDeviceGetP2PAttribute(&acc,
								   cudaDevP2PAttrAccessSupported, i,
								   j)) != cudaSuccess) {
				cuda_why(why, sizeof why,
					 "cudaDeviceGetP2PAttribute("
					 "cudaDevP2PAttrAccessSupported)",
					 rc);
			} else if ((rc = cudaDeviceGetP2PAttribute(
					&atom, cudaDevP2PAttrNativeAtomicSupported, i, j)) !=
				   cudaSuccess) {
				cuda_why(why, sizeof why,
					 "cudaDeviceGetP2PAttribute("
					 "cudaDevP2PAttrNativeAtomicSupported)",
					 rc);
			}
			if (rc != cudaSuccess) {
				hd_buf_printf(&errs, "    GPU%d -> GPU%d: %s\n", i, j, why);
				cudaGetLastError();
				kind = ERR;
				snprintf(cell, sizeof cell, "err");
			} else if (!can) {
				kind = NONE;
				snprintf(cell, sizeof cell, "no");
			} else {
				kind = atom ? NVLINK : PCIE;
				snprintf(cell, sizeof cell, "P2P r%d%s%s", rank, atom ? " at" : "",
					 acc ? "" : " !");
			}
			hd_buf_printf(out, j + 1 < n ? " %-10s" : " %s", cell);
			if (i < j) { /* each pair once in the summary */
				hd_buf_printf(&pairs[kind], "%s GPU%d-GPU%d",
					      npairs[kind] > 0 ? "," : "", i, j);
				npairs[kind]++;
			}
		}
		hd_buf_printf(out, "\n");
	}
	hd_buf_printf(out,
		      "  P2P: cudaDeviceCanAccessPeer says yes; no: copies between "
		      "the two go through host memory\n"
		      "  rN: cudaDevP2PAttrPerformanceRank (a relative rank; 0 is the best "
		      "link here)\n"
		      "  at: native atomics over the link (cudaDevP2PAttrNativeAtomicSupported)\n"
		      "  !: cudaDevP2PAttrAccessSupported disagrees with "
		      "cudaDeviceCanAccessPeer\n");
	hd_buf_printf(out,
		      "  Links (a hint from the attributes above; `nvidia-smi topo -m` "
		      "names them):\n");
	for (k = 0; k < NKIND; k++) {
		if (npairs[k] == 0)
			continue;
		if (npairs[k] == n * (n - 1) / 2 && n > 2)
			hd_buf_printf(out, "    all %d pairs: %s\n", npairs[k], kind_name[k]);
		else
			hd_buf_printf(out, "    %s:%s\n", kind_name[k], pairs[k].s);
	}
	if (errs.len > 0)
		hd_buf_printf(out, "  not reported:\n%s", errs.s);
	hd_buf_free(&errs);
	for (k = 0; k < NKIND; k++)
		hd_buf_free(&pairs[k]);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Environment variables that change runs; returns 1 if CUDA_LAUNCH_BLOCKING is on. */
static int
report_env(struct hd_buf *out)
{
	const char **nccl = NULL, *v;
	size_t n = 0, cap = 0, i, unset = 0;
	char **ep;
	int blocking;

	hd_buf_printf(out, "\nEnvironment\n");
	for (i = 0; i < HD_ARRAY_LEN(cuda_env); i++)
		if ((v = getenv(cuda_env[i])) != NULL)
			hd_buf_printf(out, "  %s=%s\n", cuda_env[i], v);
	for (i = 0; i < HD_ARRAY_LEN(cuda_env); i++)
		if (getenv(cuda_env[i]) == NULL)
			hd_buf_printf(out, "%s%s", unset++ == 0 ? "  not set: " : ", ",
				      cuda_env[i]);
	if (unset > 0)
		hd_buf_printf(out, "\n");
	for (ep = environ; ep != NULL && *ep != NULL; ep++) {
		if (strncmp(*ep, "NCCL_", 5) != 0)
			continue;
		nccl = hd_xgrow(nccl, &cap, n + 1, sizeof *nccl);
		nccl[n++] = *ep;
	}
	if (n > 0)
		qsort(nccl, n, sizeof *nccl, cmp_str);
	for (i = 0; i < n; i++)
		hd_buf_printf(out, "  %s\n", nccl[i]);
	if (n == 0)
		hd_buf_printf(out, "  no NCCL_* variables are set\n");
	free(nccl);
	if (getenv("NCCL_NVLS_ENABLE") == NULL)
		hd_buf_printf(out,
			      "  NCCL_NVLS_ENABLE is not set: NCCL uses NVLink SHARP "
			      "where the system has it, which changes collective timings\n");

	v = getenv("CUDA_VISIBLE_DEVICES");
	if (v != NULL && v[0] == '\0')
		hd_buf_printf(out,
			      "  warning: CUDA_VISIBLE_DEVICES is empty, which hides "
			      "every GPU from CUDA\n");
	v = getenv("CUDA_LAUNCH_BLOCKING");
	blocking = v != NULL && strcmp(v, "1") == 0;
	if (blocking)
		hd_buf_printf(out,
			      "  warning: CUDA_LAUNCH_BLOCKING=1 makes every launch wait "
			      "for the GPU, so asynchronous copies and overlaps serialise and "
			      "measured timings will be wrong: unset it for --real and "
			      "calibrate\n");
	return blocking;
}

static void
report_can(struct hd_buf *out, int ngpu, const char *name0, int blocking, int kernels_ok,
	   const char *why)
{
	hd_buf_printf(out, "\nWhat hdsim can do here\n");
	hd_buf_printf(out,
		      "  yes  simulate every lesson on every profile "
		      "(the model needs no GPU)\n");
	if (ngpu >= 1) {
		const char *note = blocking ? " (but unset CUDA_LAUNCH_BLOCKING first)" :
		    !kernels_ok ? " (but the kernel library cannot run on it: see GPU 0 "
				  "above)" :
				  "";

		hd_buf_printf(out, "  yes  hdsim --real: single-GPU lessons on GPU 0, %s%s\n",
			      name0, note);
		hd_buf_printf(out,
			      "  yes  hdsim calibrate: measure GPU 0 and fit a profile "
			      "of it%s\n",
			      note);
		if (ngpu > 1)
			hd_buf_printf(out,
				      "       and the peer copies between the %d GPUs%s, "
				      "for the topology and NVLink figures\n",
				      ngpu, hd_ncclinfo.with_peer_copies);
		if (ngpu > 1)
			hd_buf_printf(out,
				      "       (CUDA_VISIBLE_DEVICES picks another GPU as "
				      "GPU 0; CUDA numbers GPUs fastest first unless "
				      "CUDA_DEVICE_ORDER=PCI_BUS_ID, nvidia-smi by PCI bus id)\n");
	} else {
		hd_buf_printf(out, "  no   hdsim --real: %s\n", why);
		hd_buf_printf(out,
			      "  no   hdsim calibrate: it measures a GPU, and there is "
			      "none\n");
	}
	hd_ncclinfo.report_ranks(out, ngpu);
}

int
hd_real_doctor(struct hd_buf *out, struct hd_err *e)
{
	char why[1100], name0[256] = "", reason[512] = "", first[512] = "";
	cudaError_t rc;
	int n = 0, i, kmod, drv, usable = 0, blocking, vm = in_vm(), kernels_ok = 1;

	report_build(out);
	report_host(out);
	drv = report_versions(out, &kmod);

	hd_buf_printf(out, "\nGPUs\n");
	rc = cudaGetDeviceCount(&n);
	if (rc != cudaSuccess || n == 0) {
		const char *cvd = getenv("CUDA_VISIBLE_DEVICES");

		if (rc != cudaSuccess)
			cuda_why(first, sizeof first, "cudaGetDeviceCount", rc);
		else
			snprintf(first, sizeof first, "cudaGetDeviceCount reports 0 devices");
		cudaGetLastError();
		if (!kmod && !drv)
			snprintf(reason, sizeof reason,
				 "no NVIDIA driver is loaded (%s does "
				 "not exist)",
				 DRIVER_FILE);
		else if (!drv)
			snprintf(reason, sizeof reason,
				 "the NVIDIA kernel module is loaded "
				 "but the CUDA driver library libcuda.so was not found");
		else if (cvd != NULL)
			snprintf(reason, sizeof reason,
				 "the driver answers but no GPU is "
				 "visible to this process (CUDA_VISIBLE_DEVICES=%s)",
				 cvd);
		else
			snprintf(reason, sizeof reason,
				 "the driver answers but sees no GPU "
				 "this process may use (check /dev/nvidia* permissions and "
				 "nvidia-smi)");
		hd_buf_printf(out, "  none: %s\n  %s\n", first, reason);
		if (rc == cudaErrorInsufficientDriver && !drv)
			hd_buf_printf(out,
				      "  (with no driver at all, the runtime reports an "
				      "\"insufficient\" driver version)\n");
		n = 0;
	} else {
		hd_buf_printf(out, "  %d GPU%s visible to CUDA\n", n, n == 1 ? "" : "s");
		for (i = 0; i < n; i++) {
			char name[256];
			int cc = 0, ok = 1;

			if (report_gpu(out, i, vm, name, sizeof name, &cc, &ok, first,
				       sizeof first) != 0)
				continue;
			if (usable++ == 0) {
				snprintf(name0, sizeof name0, "%s", name);
				kernels_ok = ok;
			}
		}
		if (n > 1)
			report_p2p(out, n);
		rc = cudaSetDevice(0); /* leave device 0 current, as a fresh process has */
		if (rc != cudaSuccess)
			cudaGetLastError();
	}
	blocking = report_env(out);
	if (usable == 0 && n > 0)
		snprintf(reason, sizeof reason, "no GPU could be queried");
	snprintf(why, sizeof why, "no CUDA-capable GPU was found: %s%s%s", first,
		 reason[0] ? "; " : "", reason);
	report_can(out, usable, name0, blocking, kernels_ok, reason[0] ? reason : first);
	if (usable == 0) {
		hd_err_set(e, HD_EXIT_FAIL, "", "%s", why);
		return -1;
	}
	return 0;
}

/* ---- machine facts for the store ---------------------------------------------- */

/* ,"key":v  (or "key":null when v <= 0, meaning not reported); no comma first if !comma */
static void
json_int(struct hd_buf *b, const char *key, int v, int comma)
{
	if (v > 0)
		hd_buf_printf(b, "%s\"%s\":%d", comma ? "," : "", key, v);
	else
		hd_buf_printf(b, "%s\"%s\":null", comma ? "," : "", key);
}

int
hd_real_machine(int dev, struct hd_store_machine *m, struct hd_err *e)
{
	static char host[256], name[256], uuid[64], busid[32], driver[64], runtime[16], nccl[64];
	static struct hd_buf facts;
	struct cudaDeviceProp p;
	struct utsname u;
	struct pcie link;
	char why[512];
	cudaError_t rc;
	int n = 0, drv = 0, rt = 0, v;
	size_t i;
	static const struct {
		enum cudaDeviceAttr a;
		const char *key;
	} attrs[] = {
		{ cudaDevAttrMultiProcessorCount, "sm_count" },
		{ cudaDevAttrClockRate, "sm_clock_khz" },
		{ cudaDevAttrMemoryClockRate, "mem_clock_khz" },
		{ cudaDevAttrGlobalMemoryBusWidth, "mem_bus_bits" },
		{ cudaDevAttrL2CacheSize, "l2_bytes" },
		{ cudaDevAttrAsyncEngineCount, "async_engines" },
		{ cudaDevAttrComputeMode, "compute_mode" },
		{ cudaDevAttrEccEnabled, "ecc" },
	};

	memset(m, 0, sizeof *m);
	rc = cudaGetDeviceCount(&n);
	if (rc != cudaSuccess) {
		cuda_why(why, sizeof why, "cudaGetDeviceCount", rc);
		cudaGetLastError();
		hd_err_set(e, HD_EXIT_FAIL, "", "no CUDA-capable GPU was found: %s", why);
		return -1;
	}
	if (dev < 0 || dev >= n) {
		hd_err_set(e, HD_EXIT_FAIL, "", "there is no GPU %d: CUDA sees %d", dev, n);
		return -1;
	}
	rc = cudaGetDeviceProperties(&p, dev);
	if (rc != cudaSuccess) {
		cuda_why(why, sizeof why, "cudaGetDeviceProperties", rc);
		cudaGetLastError();
		hd_err_set(e, HD_EXIT_FAIL, "", "GPU %d: %s", dev, why);
		return -1;
	}
	rc = cudaDeviceGetPCIBusId(busid, (int)sizeof busid, dev);
	if (rc != cudaSuccess) {
		cuda_why(why, sizeof why, "cudaDeviceGetPCIBusId", rc);
		cudaGetLastError();
		hd_err_set(e, HD_EXIT_FAIL, "", "GPU %d: %s", dev, why);
		return -1;
	}
	if (gethostname(host, sizeof host) != 0)
		host[0] = '\0';
	host[sizeof host - 1] = '\0';
	snprintf(name, sizeof name, "%s", p.name);
	uuid_str(&p.uuid, uuid, sizeof uuid);
	if (driver_file_version(driver, sizeof driver, NULL) != 0) {
		rc = cudaDriverGetVersion(&drv);
		if (rc == cudaSuccess && drv > 0)
			cuda_version_str(drv, driver, sizeof driver);
		else
			cudaGetLastError();
	}
	runtime[0] = '\0';
	if (cudaRuntimeGetVersion(&rt) == cudaSuccess)
		cuda_version_str(rt, runtime, sizeof runtime);
	m->nccl = hd_ncclinfo.version(nccl, sizeof nccl) == 0 ? nccl : NULL;
	m->hostname = host[0] ? host : NULL;
	m->gpu_name = name;
	m->gpu_uuid = uuid;
	m->pci_bus_id = busid;
	m->driver = driver[0] ? driver : NULL;
	m->cuda_runtime = runtime[0] ? runtime : NULL;
	m->gpu_count = n;

	pcie_read(busid, &link);
	hd_buf_free(&facts);
	hd_buf_init(&facts);
	hd_buf_printf(&facts, "{\"cc\":\"%d.%d\",\"memory_bytes\":%zu", p.major, p.minor,
		      p.totalGlobalMem);
	for (i = 0; i < HD_ARRAY_LEN(attrs); i++) {
		if (cudaDeviceGetAttribute(&v, attrs[i].a, dev) == cudaSuccess)
			hd_buf_printf(&facts, ",\"%s\":%d", attrs[i].key, v);
		else
			cudaGetLastError();
	}
	hd_buf_printf(&facts, ",\"pcie\":{");
	json_int(&facts, "gen", link.l.gen_cur, 0);
	json_int(&facts, "width", link.l.lanes_cur, 1);
	json_int(&facts, "gen_max", link.l.gen_max, 1);
	json_int(&facts, "width_max", link.l.lanes_max, 1);
	hd_buf_printf(&facts, "}");
	if (link.numa >= 0)
		hd_buf_printf(&facts, ",\"numa_node\":%d", link.numa);
	else
		hd_buf_printf(&facts, ",\"numa_node\":null");
	hd_buf_printf(&facts, ",\"local_cpus\":");
	if (link.cpus[0] != '\0')
		hd_buf_json_str(&facts, link.cpus);
	else
		hd_buf_puts(&facts, "null");
	hd_buf_printf(&facts, ",\"cpus_allowed\":%d", cpus_allowed());
	if (uname(&u) == 0) {
		hd_buf_printf(&facts, ",\"kernel\":");
		hd_buf_json_str(&facts, u.release);
	}
	hd_buf_printf(&facts, ",\"vm\":%s,\"env\":{", in_vm() ? "true" : "false");
	{
		const char *sep = "";
		char **ep;

		for (i = 0; i < HD_ARRAY_LEN(cuda_env); i++) {
			const char *val = getenv(cuda_env[i]);

			if (val == NULL)
				continue;
			hd_buf_printf(&facts, "%s\"%s\":", sep, cuda_env[i]);
			hd_buf_json_str(&facts, val);
			sep = ",";
		}
		for (ep = environ; ep != NULL && *ep != NULL; ep++) {
			const char *eq = strchr(*ep, '=');
			char key[128];

			if (strncmp(*ep, "NCCL_", 5) != 0 || eq == NULL ||
			    (size_t)(eq - *ep) >= sizeof key)
				continue;
			memcpy(key, *ep, (size_t)(eq - *ep));
			key[eq - *ep] = '\0';
			hd_buf_printf(&facts, "%s", sep);
			hd_buf_json_str(&facts, key);
			hd_buf_putc(&facts, ':');
			hd_buf_json_str(&facts, eq + 1);
			sep = ",";
		}
	}
	hd_buf_printf(&facts, "}}");
	m->facts_json = facts.s;
	return 0;
}
