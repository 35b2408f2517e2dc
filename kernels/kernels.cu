/*
 * kernels.cu - CUDA kernels for the scenario language's kernel library
 * (see kernels.h for what each does and why its work is exactly known).
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/kernels.h"

#define THREADS 256

__device__ __forceinline__ uint64_t
global_ns(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* One thread per block spins: the time is exact, the SM cost is small. */
__global__ void
spin_kernel(uint64_t ns)
{
	uint64_t start;

	if (threadIdx.x != 0)
		return;
	start = global_ns();
	while (global_ns() - start < ns)
		;
}

__global__ void
latch_kernel(volatile int *flag, uint64_t timeout_ns, int *timed_out)
{
	uint64_t start = global_ns();

	while (*flag == 0) {
		if (global_ns() - start > timeout_ns) {
			*timed_out = 1;
			return;
		}
	}
}

/* CHAINS independent FMA chains per thread, `iters` rounds: 2*CHAINS*iters FLOP. */
#define CHAINS 8
__global__ void
fma_kernel(float *out, uint64_t iters)
{
	float a[CHAINS];
	const float m = 1.000001f, c = 0.999999f;
	uint64_t i;
	int k;

#pragma unroll
	for (k = 0; k < CHAINS; k++)
		a[k] = (float)(threadIdx.x + k);
	for (i = 0; i < iters; i++) {
#pragma unroll
		for (k = 0; k < CHAINS; k++)
			a[k] = fmaf(a[k], m, c);
	}
	/* Keep the result alive without a store per thread. */
	float sum = 0;
#pragma unroll
	for (k = 0; k < CHAINS; k++)
		sum += a[k];
	if (sum == 0.123456f)
		out[blockIdx.x] = sum;
}

/* Copy the first half of buf into the second with 16-byte accesses. */
__global__ void
stream_kernel(uint4 *dst, const uint4 *src, uint64_t n)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;

	for (; i < n; i += stride)
		dst[i] = src[i];
}

__global__ void
fill_kernel(uint4 *dst, uint64_t n, uint32_t pattern)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	uint4 v = make_uint4(pattern, pattern, pattern, pattern);

	for (; i < n; i += stride)
		dst[i] = v;
}

__global__ void
fill_tail_kernel(unsigned char *dst, uint64_t n, uint32_t pattern)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;

	if (i < n)
		dst[i] = (unsigned char)(pattern >> (8 * (i % 4)));
}

__global__ void
reduce_kernel(const float4 *src, uint64_t n, float *out)
{
	__shared__ float part[THREADS];
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	float sum = 0;
	unsigned s;

	for (; i < n; i += stride) {
		float4 v = src[i];
		sum += v.x + v.y + v.z + v.w;
	}
	part[threadIdx.x] = sum;
	__syncthreads();
	for (s = blockDim.x / 2; s > 0; s /= 2) {
		if (threadIdx.x < s)
			part[threadIdx.x] += part[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(out, part[0]);
}

/* A buffer too small for one item (a memory kernel's 32 bytes, a reduce's
 * 16): its bytes one by one, so the kernel still touches what it names
 * (managed pages fault in) and costs a launch, as the scenario says. */
__global__ void
copy_bytes_kernel(unsigned char *buf, unsigned half)
{
	if (threadIdx.x < half)
		buf[half + threadIdx.x] = buf[threadIdx.x];
}

__global__ void
sum_bytes_kernel(const unsigned char *buf, unsigned bytes, float *out)
{
	if (threadIdx.x < bytes)
		atomicAdd(out, (float)buf[threadIdx.x]);
}

static unsigned
full_grid(void)
{
	static unsigned cached;
	int dev = 0, sms = 0;

	if (cached == 0) {
		if (cudaGetDevice(&dev) != cudaSuccess ||
		    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
		    sms <= 0)
			sms = 80;
		cached = (unsigned)sms * 4;
	}
	return cached;
}

static unsigned
grid_for(unsigned grid, uint64_t items)
{
	uint64_t need;

	if (grid != 0)
		return grid;
	need = (items + THREADS - 1) / THREADS;
	if (need == 0)
		need = 1;
	return need < full_grid() ? (unsigned)need : full_grid();
}

extern "C" unsigned
hd_kernel_full_grid(void)
{
	return full_grid();
}

extern "C" int
hd_kernel_spin(hd_cuda_stream s, uint64_t ns, unsigned grid)
{
	spin_kernel<<<grid ? grid : 1, 32, 0, (cudaStream_t)s>>>(ns);
	return (int)cudaGetLastError();
}

extern "C" int
hd_kernel_latch(hd_cuda_stream s, volatile int *flag, uint64_t timeout_ns, int *timed_out)
{
	latch_kernel<<<1, 1, 0, (cudaStream_t)s>>>(flag, timeout_ns, timed_out);
	return (int)cudaGetLastError();
}

extern "C" int
hd_kernel_compute(hd_cuda_stream s, float *scratch, double flops, unsigned grid, double *done)
{
	unsigned blocks = grid ? grid : full_grid();
	double per_round = 2.0 * CHAINS * (double)blocks * THREADS;
	uint64_t iters = (uint64_t)(flops / per_round + 0.5);

	if (iters == 0)
		iters = 1;
	fma_kernel<<<blocks, THREADS, 0, (cudaStream_t)s>>>(scratch, iters);
	if (done)
		*done = per_round * (double)iters;
	return (int)cudaGetLastError();
}

extern "C" int
hd_kernel_memory(hd_cuda_stream s, void *buf, uint64_t bytes, unsigned grid)
{
	/* bytes of traffic: bytes/2 read from the first half, bytes/2 written to the second. */
	uint64_t n = bytes / 2 / sizeof(uint4);
	uint4 *base = (uint4 *)buf;

	if (n == 0) {
		copy_bytes_kernel<<<1, 32, 0, (cudaStream_t)s>>>((unsigned char *)buf,
								 (unsigned)(bytes / 2));
		return (int)cudaGetLastError();
	}
	stream_kernel<<<grid_for(grid, n), THREADS, 0, (cudaStream_t)s>>>(base + n, base, n);
	return (int)cudaGetLastError();
}

extern "C" int
hd_kernel_fill(hd_cuda_stream s, void *buf, uint64_t bytes, uint32_t pattern, unsigned grid)
{
	uint64_t n = bytes / sizeof(uint4), tail = bytes - n * sizeof(uint4);
	int rc;

	if (n > 0)
		fill_kernel<<<grid_for(grid, n), THREADS, 0, (cudaStream_t)s>>>((uint4 *)buf, n,
									    pattern);
	rc = (int)cudaGetLastError();
	if (rc == 0 && tail > 0) {
		fill_tail_kernel<<<1, 32, 0, (cudaStream_t)s>>>((unsigned char *)buf + n * 16, tail,
								pattern);
		rc = (int)cudaGetLastError();
	}
	return rc;
}

extern "C" int
hd_kernel_reduce(hd_cuda_stream s, const void *buf, uint64_t bytes, float *out, unsigned grid)
{
	uint64_t n = bytes / sizeof(float4);

	if (n == 0) {
		sum_bytes_kernel<<<1, 32, 0, (cudaStream_t)s>>>((const unsigned char *)buf,
								(unsigned)bytes, out);
		return (int)cudaGetLastError();
	}
	reduce_kernel<<<grid_for(grid, n), THREADS, 0, (cudaStream_t)s>>>((const float4 *)buf, n,
									 out);
	return (int)cudaGetLastError();
}
