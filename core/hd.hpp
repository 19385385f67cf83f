#pragma once
// Functions marked ARB_HD are the single definition of the per-CV physics: called from
// OpenMP loops on the CPU and from kernels on the GPU.
#ifdef __CUDACC__
#define ARB_HD __host__ __device__ __forceinline__
#else
#define ARB_HD inline
#endif

// A loop the GPU compiler should unroll completely (so that small arrays indexed by its
// counter live in registers); the host compiler decides for itself.
#ifdef __CUDACC__
#define ARB_UNROLL _Pragma("unroll")
#else
#define ARB_UNROLL
#endif

// A loop the GPU compiler should unroll N times (a serial chain that gains from the next
// rows' loads issued early); the host compiler decides for itself.
#define ARB_PRAGMA(x) _Pragma(#x)
#ifdef __CUDACC__
#define ARB_UNROLL_BY(n) ARB_PRAGMA(unroll n)
#else
#define ARB_UNROLL_BY(n)
#endif
