/*
 * fake_cuda.h - a stand-in CUDA runtime and kernel library for testing the
 * calibration code on machines without a GPU (tests/fake_cuda.c).
 *
 * It behaves like a GPU with known figures: copies, kernels and events
 * advance per-stream clocks in real time, host calls such as pinning take
 * real time, so every fit in calibrate.c has a known right answer.
 */
#ifndef HD_FAKE_CUDA_H
#define HD_FAKE_CUDA_H

#include <cuda_runtime_api.h>

/* The figures the fake GPU runs at. */
#define FAKE_H2D   55e9
#define FAKE_D2H   53e9
#define FAKE_D2D   1.3e12
#define FAKE_HBM   2.9e12
#define FAKE_FLOPS 60e12
/* what one block of the memory, fill and reduce kernels draws on a small grid */
#define FAKE_BLOCK_MEM    20e9
#define FAKE_BLOCK_FILL   60e9
#define FAKE_BLOCK_REDUCE 10e9
#define FAKE_PIN          6e9
#define FAKE_PREFETCH     40e9
#define FAKE_PREFETCH_D2H 12e9 /* a prefetch to the host */
#define FAKE_WALK         1e12 /* a prefetch of pages already there */
/* a copy whose host side is managed memory on the GPU: the CPU faults the
 * pages back, a fixed time and bytes/s reading and writing them: far from
 * h100-sxm's 9 and 2.9 GB/s, and slow enough (8.4 and 16.8 ms for the 16
 * MiB calibrate copies) that a baseline stretched by a few ms of load does
 * not hide the fault */
#define FAKE_HOST_FAULT       60e-6
#define FAKE_HOST_FAULT_READ  2e9
#define FAKE_HOST_FAULT_WRITE 1e9
/* more host time for any copy whose host side is managed memory */
#define FAKE_MEMCPY_MANAGED 30e-6
/* cudaMallocManaged and cudaFree of managed memory: fixed times, far from
 * cudaMalloc's pool (20 and 10 us) */
#define FAKE_MALLOC_MANAGED 90e-6
#define FAKE_FREE_MANAGED   45e-6
/* cudaMalloc / cudaFree from FAKE_MAP_MIN bytes up map / unmap their bytes */
#define FAKE_MAP_MIN  (2u << 20)
#define FAKE_MALLOC   20e12
#define FAKE_FREE     4e12
#define FAKE_PEER     300e9 /* peer copies between any two GPUs */
#define FAKE_PEER_LAT 2e-6
/* CUDA graphs: the host's cudaGraphLaunch, and the GPU's time before each node */
#define FAKE_GRAPH_LAUNCH 6e-6
#define FAKE_GRAPH_NODE   0.4e-6
/* A record of a timing event holds its stream this long after its
 * timestamp (a notiming event's none), and costs the host FAKE_RECORD
 * (FAKE_RECORD_NT) */
#define FAKE_EVENT_STAMP 2e-6
#define FAKE_RECORD      1e-6
#define FAKE_RECORD_NT   0.3e-6

extern int fake_cuda_calls;           /* checked calls made so far */
extern int fake_cuda_fail_at;         /* the call number that fails (0: none) */
extern int fake_cuda_latch_times_out; /* the latch kernel reports a timeout */
extern int fake_cuda_no_faults;       /* kernels on managed memory fault for free */
extern int fake_cuda_captures;        /* stream captures begun so far */
extern int fake_cuda_ptds;            /* cudaMemcpy_ptds calls so far */
extern int fake_cuda_managed_allocs;  /* cudaMallocManaged calls so far */
/* managed memory's cudaMallocManaged (A) and cudaFree (F) calls, in order,
 * as long as they fit (the test clears it) */
#define FAKE_MANAGED_LOG 256
extern char fake_cuda_managed_log[FAKE_MANAGED_LOG];
extern int fake_cuda_dma_pageable;  /* pageable copies take as long as pinned
				       * ones: the host's memcpy costs nothing */
extern int fake_cuda_slow_pageable; /* this many more pageable copies of 4 KiB
				       * or more stage at a third of the speed (a
				       * busy host; calibrate's 4 B API calls do
				       * not count) */

/* FAKE_CUDA_NODE_DMA in the environment (bytes/s): the total every GPU's
 * pinned copies, both ways, share (default: no such cap). */

/* Occupy stream s for `seconds` from when it is free (fake_nccl.c's calls).
 * FAKE_CUDA_DEVICES in the environment sets the device count (default 1). */
void fake_cuda_queue(cudaStream_t s, double seconds);

#endif
