// bench/probe/umaddr.cu - where cudaMallocManaged and cudaMalloc put small
// buffers one after another (do separate small managed buffers share pages?)
//   nvcc -o umaddr bench/probe/umaddr.cu && ./umaddr
#include <cstdio>
#include <cuda_runtime.h>
int main() {
  size_t sz[] = {534, 3440, 245, 177000, 1540000, 4 << 20, 245, 64, 3440};
  for (size_t s : sz) { void *p; cudaMallocManaged(&p, s, cudaMemAttachGlobal); printf("managed %8zu B at %p\n", s, p); }
  for (size_t s : sz) { void *p; cudaMalloc(&p, s); printf("device  %8zu B at %p\n", s, p); }
  return 0;
}
