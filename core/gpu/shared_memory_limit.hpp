#pragma once
// A kernel's limit on dynamic shared memory (cudaFuncAttributeMaxDynamicSharedMemorySize)
// is one per kernel and process, not one per plan: a plan that set it to its own blocks'
// need would lower it under a plan of the same kernel made earlier, whose launches then
// fail (parareal holds two groups of one solver: the slices' batch and the coarse cell).
// Plans only ever raise it.
#include <cuda_runtime.h>

#include "core/gpu/cuda_check.hpp"

namespace arbolito::gpu {

template <class Kernel>
void raise_dynamic_shared_limit(Kernel* kernel, int bytes) {
    cudaFuncAttributes a{};
    CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
    if (a.maxDynamicSharedSizeBytes < bytes)
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

}  // namespace arbolito::gpu
