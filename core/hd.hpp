#pragma once
// Functions marked ARB_HD are the single definition of the per-CV physics: called from
// OpenMP loops on the CPU and from kernels on the GPU.
#ifdef __CUDACC__
#define ARB_HD __host__ __device__ __forceinline__
#else
#define ARB_HD inline
#endif
