/*
 * host_probe.cu - where does the host side of copies vary between processes?
 *
 * A diagnostic for the lent GPU machines, not part of hdsim: it times the
 * host-memory-bound operations the lessons use (CPU memcpy, pageable copies,
 * cudaHostRegister, cudaMallocHost, managed-memory faults, back-to-back
 * small copies) with the buffer's pages allocated three ways (malloc as is,
 * mmap + MADV_HUGEPAGE, mmap + MADV_NOHUGEPAGE) and reports how much of each
 * buffer the kernel backed with transparent huge pages.
 *
 *   nvcc -O2 -o host_probe bench/host_probe.cu && ./host_probe [TRIALS [interleave|behind|align]]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#define MiB (1024UL * 1024UL)
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmpd);
	return v[n / 2];
}

/* kB of AnonHugePages in the mapping that holds p (from /proc/self/smaps) */
static long
huge_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long a, b, q = (unsigned long)p;
	int in = 0;
	long kb = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
			in = q >= a && q < b;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

enum mode { PLAIN, HUGE, NOHUGE };
static const char *mode_name[] = { "malloc", "madv-huge", "madv-nohuge" };

static void *
alloc(enum mode m, size_t n)
{
	void *p;

	if (m == PLAIN)
		return malloc(n);
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n, m == HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return p;
}

static void
release(enum mode m, void *p, size_t n)
{
	if (m == PLAIN)
		free(p);
	else
		munmap(p, n);
}

__global__ void
touch(const char *p, size_t n, int *out)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	int s = 0;

	for (; i < n / 4096; i += (size_t)gridDim.x * blockDim.x)
		s += p[i * 4096];
	if (s == 12345)
		*out = s;
}

__global__ void
spin(unsigned long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
}

/*
 * A pageable copy on an idle stream against the same copy queued behind a
 * 5 ms kernel (time after the kernel's end): does waiting change the copy?
 */
static void
behind(void *d, cudaStream_t s, size_t n, int rounds)
{
	char *h = (char *)malloc(n);
	cudaEvent_t e;
	int r, dir;

	memset(h, 1, n);
	CK(cudaEventCreate(&e));
	printf("pageable %zu MiB copies: idle stream vs queued behind a 5 ms kernel (ms after it)\n",
	       n / MiB);
	for (r = 0; r < rounds; r++)
		for (dir = 0; dir < 2; dir++) {
			enum cudaMemcpyKind k = dir ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
			void *dst = dir ? (void *)h : d, *src = dir ? d : (void *)h;
			double t0, idle, after, waited;

			CK(cudaStreamSynchronize(s));
			t0 = now();
			CK(cudaMemcpyAsync(dst, src, n, k, s));
			CK(cudaStreamSynchronize(s));
			idle = now() - t0;
			spin<<<1, 32, 0, s>>>(5000000ull);
			CK(cudaEventRecord(e, s));
			t0 = now();
			CK(cudaMemcpyAsync(dst, src, n, k, s));
			CK(cudaStreamSynchronize(s));
			after = now() - t0;
			spin<<<1, 32, 0, s>>>(5000000ull);
			CK(cudaStreamSynchronize(s));
			t0 = now();
			CK(cudaMemcpyAsync(dst, src, n, k, s));
			CK(cudaStreamSynchronize(s));
			waited = now() - t0;
			printf("round %d %s: idle %.2f ms, behind kernel %.2f ms (incl. the rest of the "
			       "kernel), after a sync %.2f ms\n", r, dir ? "D2H" : "H2D", idle * 1e3,
			       after * 1e3, waited * 1e3);
		}
	free(h);
}

/*
 * Does the buffer's alignment matter?  malloc of a large block returns the
 * start of an mmap'd region plus malloc's 16-byte header; aligned_alloc
 * starts on a page.  Pageable copies from each, in turn.
 */
static void
alignment(void *d, cudaStream_t s, int rounds)
{
	static const size_t sizes[] = { 32 * MiB, 64 * MiB, 256 * MiB };
	int r, k, a, dir;

	printf("pageable copies, GB/s: malloc'd (page + 16 B) vs aligned_alloc(4096)\n");
	for (k = 0; k < 3; k++) {
		size_t n = sizes[k];
		char *b[2];

		b[0] = (char *)malloc(n);
		b[1] = (char *)aligned_alloc(4096, n);
		memset(b[0], 1, n);
		memset(b[1], 1, n);
		printf("%zu MiB (malloc at page offset %zu):\n", n / MiB,
		       (size_t)((unsigned long)b[0] % 4096));
		for (r = 0; r < rounds; r++) {
			printf("  round %d:", r);
			for (dir = 0; dir < 2; dir++)
				for (a = 0; a < 2; a++) {
					double t0 = now();

					if (dir)
						CK(cudaMemcpyAsync(b[a], d, n, cudaMemcpyDeviceToHost, s));
					else
						CK(cudaMemcpyAsync(d, b[a], n, cudaMemcpyHostToDevice, s));
					CK(cudaStreamSynchronize(s));
					printf("  %s %s %5.2f", dir ? "D2H" : "H2D", a ? "aligned" : "malloc",
					       n / (now() - t0) / 1e9);
				}
			printf("\n");
		}
		free(b[0]);
		free(b[1]);
	}
}

/*
 * Buffer or time?  Four fresh 256 MiB buffers, each measured in turn for
 * `rounds` rounds: if a buffer keeps its own rate round after round, the
 * spread comes from the pages behind it; if all move together, from time.
 */
static void
interleave(void *d, cudaStream_t s, size_t n, int rounds)
{
	enum { NB = 4 };
	char *b[NB];
	int i, r;

	for (i = 0; i < NB; i++) {
		b[i] = (char *)malloc(n);
		memset(b[i], 1, n);
	}
	printf("interleaved: pageable H2D GB/s, then cudaHostRegister GB/s, per buffer and round\n");
	for (r = 0; r < rounds; r++) {
		printf("round %d:", r);
		for (i = 0; i < NB; i++) {
			double t0 = now(), h2d, pin;

			CK(cudaMemcpyAsync(d, b[i], n, cudaMemcpyHostToDevice, s));
			CK(cudaStreamSynchronize(s));
			h2d = n / (now() - t0) / 1e9;
			t0 = now();
			CK(cudaHostRegister(b[i], n, cudaHostRegisterDefault));
			pin = n / (now() - t0) / 1e9;
			CK(cudaMemcpy(d, b[i], n, cudaMemcpyHostToDevice));
			CK(cudaHostUnregister(b[i]));
			printf("  buf%d %5.2f %5.1f", i, h2d, pin);
		}
		printf("\n");
	}
	for (i = 0; i < NB; i++)
		free(b[i]);
}

int
main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 3, t, m, r, cpu;
	size_t n = 256 * MiB;
	void *d, *q;
	int *scratch;
	cudaStream_t s;
	cpu_set_t one;

	cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof one, &one);
	CK(cudaFree(0));
	CK(cudaMalloc(&d, n));
	CK(cudaMalloc((void **)&scratch, 4096));
	CK(cudaStreamCreate(&s));
	if (argc > 2 && strcmp(argv[2], "align") == 0) {
		alignment(d, s, trials);
		return 0;
	}
	if (argc > 2 && strcmp(argv[2], "behind") == 0) {
		behind(d, s, 64 * MiB, trials);
		return 0;
	}
	if (argc > 2 && strcmp(argv[2], "interleave") == 0) {
		interleave(d, s, n, trials);
		return 0;
	}
	q = malloc(n);
	memset(q, 2, n);
	printf("pid %d on cpu %d, 256 MiB buffers\n", (int)getpid(), cpu);
	printf("%-12s %5s %9s %9s %9s %9s %9s %9s %9s\n", "pages", "trial", "hugeMiB",
	       "touchGB/s", "cpyGB/s", "h2dPgGB/s", "d2hPgGB/s", "pinGB/s", "unpinms");
	for (t = 0; t < trials; t++)
		for (m = 0; m < 3; m++) {
			double t0, a[5], b[5], c[5], pin[5], un[5];
			char *p = (char *)alloc((enum mode)m, n);

			if (p == NULL) {
				perror("alloc");
				return 1;
			}
			t0 = now();
			memset(p, 1, n);
			a[4] = n / (now() - t0) / 1e9;
			for (r = 0; r < 3; r++) {
				t0 = now();
				memcpy(q, p, n);
				a[r] = n / (now() - t0) / 1e9;
				t0 = now();
				CK(cudaMemcpyAsync(d, p, n, cudaMemcpyHostToDevice, s));
				CK(cudaStreamSynchronize(s));
				b[r] = n / (now() - t0) / 1e9;
				t0 = now();
				CK(cudaMemcpyAsync(p, d, n, cudaMemcpyDeviceToHost, s));
				CK(cudaStreamSynchronize(s));
				c[r] = n / (now() - t0) / 1e9;
				t0 = now();
				CK(cudaHostRegister(p, n, cudaHostRegisterDefault));
				pin[r] = n / (now() - t0) / 1e9;
				CK(cudaMemcpy(d, p, n, cudaMemcpyHostToDevice));
				t0 = now();
				CK(cudaHostUnregister(p));
				un[r] = (now() - t0) * 1e3;
			}
			printf("%-12s %5d %9.0f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n", mode_name[m], t,
			       huge_kb(p) / 1024.0, a[4], median(a, 3), median(b, 3), median(c, 3),
			       median(pin, 3), median(un, 3));
			release((enum mode)m, p, n);
		}

	/* cudaMallocHost of fresh pages */
	for (r = 0; r < 4; r++) {
		void *h;
		double t0 = now(), t1;

		CK(cudaMallocHost(&h, n));
		t1 = now();
		CK(cudaFreeHost(h));
		printf("cudaMallocHost 256 MiB: %.2f ms (%.2f GB/s), cudaFreeHost %.2f ms\n",
		       (t1 - t0) * 1e3, n / (t1 - t0) / 1e9, (now() - t1) * 1e3);
	}

	/* back-to-back small pinned copies: host issue time vs time to finish */
	{
		static const size_t sizes[] = { 4096, 16384, 65536, 262144 };
		char *h;
		int k;

		CK(cudaMallocHost((void **)&h, 64 * MiB));
		memset(h, 1, 64 * MiB);
		for (k = 0; k < 4; k++) {
			size_t sz = sizes[k];
			int cnt = 4096, i;
			double iss[3], tot[3], one1[9];

			for (r = 0; r < 3; r++) {
				double t0 = now(), t1;

				for (i = 0; i < cnt; i++)
					CK(cudaMemcpyAsync((char *)d + (size_t)i * sz % (64 * MiB),
							   h + (size_t)i * sz % (64 * MiB), sz,
							   cudaMemcpyHostToDevice, s));
				t1 = now();
				CK(cudaStreamSynchronize(s));
				iss[r] = (t1 - t0) / cnt * 1e6;
				tot[r] = (now() - t0) / cnt * 1e6;
			}
			for (r = 0; r < 9; r++) {
				double t0 = now();

				CK(cudaMemcpyAsync(d, h, sz, cudaMemcpyHostToDevice, s));
				CK(cudaStreamSynchronize(s));
				one1[r] = (now() - t0) * 1e6;
			}
			printf("b2b %6zu B x %d: issue %.2f us/copy, done %.2f us/copy; one copy+sync %.2f us\n",
			       sz, cnt, median(iss, 3), median(tot, 3), median(one1, 9));
		}
		CK(cudaFreeHost(h));
	}

	/* managed memory: a kernel faulting 256 MiB in, three times */
	{
		char *um;
		cudaEvent_t e0, e1;
		float ms;
		struct cudaMemLocation host;

		memset(&host, 0, sizeof host);
		host.type = cudaMemLocationTypeHost;
		CK(cudaEventCreate(&e0));
		CK(cudaEventCreate(&e1));
		CK(cudaMallocManaged((void **)&um, n, cudaMemAttachGlobal));
		for (r = 0; r < 4; r++) {
			CK(cudaMemPrefetchAsync(um, n, host, 0, s));
			CK(cudaStreamSynchronize(s));
			memset(um, 1, n);
			CK(cudaEventRecord(e0, s));
			touch<<<264, 256, 0, s>>>(um, n, scratch);
			CK(cudaEventRecord(e1, s));
			CK(cudaStreamSynchronize(s));
			CK(cudaEventElapsedTime(&ms, e0, e1));
			printf("managed 256 MiB fault-in by a kernel: %.2f ms (%.2f GB/s), hugeMiB %.0f\n", ms,
			       n / (ms * 1e-3) / 1e9, huge_kb(um) / 1024.0);
		}
		CK(cudaFree(um));
	}
	return 0;
}
