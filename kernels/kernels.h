/*
 * kernels.h - the scenario language's kernel library on real GPUs.
 *
 * C launchers around the CUDA kernels in kernels.cu, so the real backend
 * (plain C) can launch them.  Each kernel does a known amount of work, the
 * amount the simulator's roofline model is given:
 *
 *   spin     runs for an exact time, read off the GPU's global timer
 *   compute  a known number of FLOP of FP32 FMA (2 FLOP per FMA)
 *   memory   moves a known number of bytes through device memory
 *            (half read, half written: a copy of the buffer's first half
 *            into its second)
 *   fill     writes every byte of a buffer (creating data on the device)
 *   reduce   reads every byte of a buffer and sums it as floats
 *   latch    holds a stream until the host writes a flag in pinned memory:
 *            the spin-kernel gate used to time copies without host gaps
 *
 * Every launcher returns a cudaError_t as int (0 = cudaSuccess) from the
 * launch itself; `grid` 0 means enough blocks to fill every SM.  Every
 * launcher launches, however small the buffer: a memory kernel on fewer
 * than 32 bytes or a reduce on fewer than 16 takes its bytes one by one in
 * one block, as the scenario's kernel still costs its launch and the GPU's
 * overhead, and touches the buffer.
 */
#ifndef HD_KERNELS_H
#define HD_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *hd_cuda_stream; /* cudaStream_t, without the CUDA headers */

int hd_kernel_spin(hd_cuda_stream s, uint64_t ns, unsigned grid);
/* Returns the FLOP count actually launched in *done (a multiple of the kernel's step). */
int hd_kernel_compute(hd_cuda_stream s, float *scratch, double flops, unsigned grid, double *done);
int hd_kernel_memory(hd_cuda_stream s, void *buf, uint64_t bytes, unsigned grid);
int hd_kernel_fill(hd_cuda_stream s, void *buf, uint64_t bytes, uint32_t pattern, unsigned grid);
int hd_kernel_reduce(hd_cuda_stream s, const void *buf, uint64_t bytes, float *out, unsigned grid);
/* Spin until *flag != 0 or timeout_ns passes; on timeout set *timed_out = 1. */
int hd_kernel_latch(hd_cuda_stream s, volatile int *flag, uint64_t timeout_ns, int *timed_out);
/* Threads per block used by the kernels, and the grid that fills the GPU. */
unsigned hd_kernel_full_grid(void);

#ifdef __cplusplus
}
#endif

#endif
