/*
 * cudagen.h - the CUDA C and PyTorch that a scenario stands for.
 *
 * `hdsim show --cuda` prints these so a learner sees what each lesson line
 * means in real code.  The CUDA C calls the same runtime functions, with the
 * same arguments, in the same order as the real backend (real_cuda.c), and
 * launches the kernels of kernels/kernels.cu through their C launchers; it
 * is a complete program that compiles with nvcc against kernels/kernels.h.
 */
#ifndef HD_CUDAGEN_H
#define HD_CUDAGEN_H

#include "base/util.h"
#include "ir/ir.h"

/* Append the CUDA C program for sc to out. */
void hd_cudagen_c(const struct hd_scenario *sc, struct hd_buf *out);
/* Append the PyTorch equivalent of sc to out. */
void hd_cudagen_torch(const struct hd_scenario *sc, struct hd_buf *out);

#endif
