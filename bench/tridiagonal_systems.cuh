#pragma once
// What the batched-tridiagonal benchmarks share (thomas_bench, seed_variants_bench,
// thomas_regression_bench): cuSPARSE's status check and their random systems.
#include <cusparse.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "bench/gpu_bench_util.hpp"
#include "core/gpu/cuda_check.hpp"
#include "core/gpu/memory.hpp"

// A failed cuSPARSE call throws with file, line and cuSPARSE's message (as CUDA_CHECK).
#define CUSPARSE_CHECK(call)                                                                                  \
    do {                                                                                                      \
        const cusparseStatus_t st_ = (call);                                                                  \
        if (st_ != CUSPARSE_STATUS_SUCCESS)                                                                   \
            throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " #call ": " + \
                                     cusparseGetErrorString(st_));                                            \
    } while (0)

namespace arbolito::bench {

// Diagonally dominant systems, the same values in either precision and either storage:
// row i of system s (interleaved at i * nsys + s; strided at s * n + i) from hash(seed, i,
// s): a in [-1, 1) with a = 0 on the first row, c likewise with c = 0 on the last real row,
// b = |a| + |c| + [0.5, 1.5), d in [-1, 1). System s has size[s] real rows (all n where
// size is null); padding rows a = c = 0, b = 1, d = 0.
template <class T>
__global__ void make_tridiagonal_systems(T* a, T* b, T* c, T* d, int n, int nsys, bool interleaved, const int* size,
                                         std::uint64_t seed) {
    const std::size_t total = std::size_t(n) * nsys;
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < total;
         k += std::size_t(gridDim.x) * blockDim.x) {
        const int i = interleaved ? static_cast<int>(k / nsys) : static_cast<int>(k % n);
        const int s = interleaved ? static_cast<int>(k % nsys) : static_cast<int>(k / n);
        const int m = size ? size[s] : n;
        const std::uint64_t key = 4 * (std::uint64_t(s) * n + i);
        const double ak = i == 0 || i >= m ? 0.0 : hash_uniform(seed, key, -1, 1);
        const double ck = i >= m - 1 ? 0.0 : hash_uniform(seed, key + 1, -1, 1);
        a[k] = T(ak), c[k] = T(ck);
        b[k] = T(i >= m ? 1.0 : std::fabs(ak) + std::fabs(ck) + hash_uniform(seed, key + 2, 0.5, 1.5));
        d[k] = T(i >= m ? 0.0 : hash_uniform(seed, key + 3, -1, 1));
    }
}

// A batch's four arrays (sub-, main and super-diagonal, right-hand side) in device memory.
template <class T>
struct TridiagonalArrays {
    gpu::DeviceArray<T> a, b, c, d;
    explicit TridiagonalArrays(std::size_t n) : a(n), b(n), c(n), d(n) {}
    // make_tridiagonal_systems into these arrays.
    void make(int n, int nsys, bool interleaved, const int* size, std::uint64_t seed) {
        make_tridiagonal_systems<T><<<1024, 256>>>(a.data(), b.data(), c.data(), d.data(), n, nsys, interleaved, size, seed);
        CUDA_CHECK_LAUNCH();
    }
    // o's values (with d_only, the right-hand side alone: what a solve that keeps a, b, c overwrote).
    void copy_from(const TridiagonalArrays& o, bool d_only = false) {
        const std::size_t bytes = a.size() * sizeof(T);
        if (!d_only) {
            CUDA_CHECK(cudaMemcpyAsync(a.data(), o.a.data(), bytes, cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpyAsync(b.data(), o.b.data(), bytes, cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpyAsync(c.data(), o.c.data(), bytes, cudaMemcpyDeviceToDevice));
        }
        CUDA_CHECK(cudaMemcpyAsync(d.data(), o.d.data(), bytes, cudaMemcpyDeviceToDevice));
    }
};

}  // namespace arbolito::bench
