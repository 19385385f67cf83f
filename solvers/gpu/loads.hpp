#pragma once
// The solver kernels' loads, host-callable so that their index logic also runs and is
// tested on machines without a GPU (there they are plain reads).
#include <cuda_runtime.h>

namespace arbolito::gpu {

// Read-only data: through the non-coherent (texture) path.
template <class T>
__host__ __device__ __forceinline__ T ld_ro(const T* p) {
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

// Data read once (Stream): marked evict-first, so that it does not push an L2-resident
// scratch out; otherwise a plain load (the data may be written by the same kernel).
template <bool Stream, class T>
__host__ __device__ __forceinline__ T ld_once(const T* p) {
#ifdef __CUDA_ARCH__
    if constexpr (Stream) return __ldcs(p);
#endif
    return *p;
}

// Read-only input read once: evict-first when Stream, else the non-coherent path.
template <bool Stream, class T>
__host__ __device__ __forceinline__ T ld_input(const T* p) {
    if constexpr (Stream) return ld_once<true>(p);
    else return ld_ro(p);
}

}  // namespace arbolito::gpu
