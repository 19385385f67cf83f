#pragma once
// A baseline for a side-by-side regression check, not a solver: the double kernel of
// thomas_batch as it was at commit d101974 (solvers/gpu/thomas_batch.cu before its per-size tuning
// added float, the unified vector and variable batches), prefetch 8 only (the automatic
// choice then and now). bench/thomas_regression_bench times it beside thomas_batch on
// the same systems with the same tuning; both must give the same bits.
#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include <cuda_runtime.h>

#include "core/gpu/memory.hpp"
#include "solvers/gpu/loads.hpp"
#include "core/reciprocal.hpp"
#include "solvers/gpu/thomas_batch.hpp"

namespace arbolito::bench::baseline {

template <int K, bool Stream>
__device__ inline void thomas_system(int s, int t, int T, double* sh, const double* __restrict__ a,
                                     const double* __restrict__ b, const double* __restrict__ c,
                                     double* __restrict__ d, double* __restrict__ cp, std::size_t cps, int n,
                                     int nsys, int R) {
    using gpu::ld_input;
    using gpu::reciprocal;
    const std::size_t N = static_cast<std::size_t>(nsys);
    double* sc = sh + t;
    double* sd = sh + static_cast<std::size_t>(R) * T + t;
    const int g = n - R;
    double ra[K], rb[K], rc[K], rd[K];
    auto load = [&](int k, int i) {
        if (i < n) {
            const std::size_t x = i * N + s;
            ra[k] = ld_input<Stream>(a + x), rb[k] = ld_input<Stream>(b + x), rc[k] = ld_input<Stream>(c + x), rd[k] = d[x];
        }
    };
#pragma unroll
    for (int k = 0; k < K; ++k) load(k, k);
    double cprev = 0.0, dprev = 0.0;
    for (int i0 = 0; i0 < n; i0 += K) {
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int i = i0 + r;
            if (i >= n) break;
            const double ai = i > 0 ? ra[r] : 0.0, bi = rb[r], ci = rc[r], di = rd[r];
            load(r, i + K);
            const double m = reciprocal(bi - ai * cprev);
            cprev = ci * m;
            dprev = (di - ai * dprev) * m;
            if (i < g) {
                cp[i * cps] = cprev;
                d[i * N + s] = dprev;
            } else {
                sc[(i - g) * T] = cprev;
                sd[(i - g) * T] = dprev;
            }
        }
    }
    double xnext = dprev;
    d[(n - 1) * N + s] = xnext;
    for (int i = n - 2; i >= g; --i) {
        xnext = sd[(i - g) * T] - sc[(i - g) * T] * xnext;
        d[i * N + s] = xnext;
    }
    const int top = g < n - 1 ? g : n - 1;
    double qc[K], qd[K];
    auto load_back = [&](int k, int j) {
        if (j >= 0) qc[k] = cp[j * cps], qd[k] = d[j * N + s];
    };
#pragma unroll
    for (int k = 0; k < K; ++k) load_back(k, top - 1 - k);
    for (int t0 = 0; t0 < top; t0 += K) {
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int i = top - 1 - t0 - r;
            if (i < 0) break;
            const double ci = qc[r], di = qd[r];
            load_back(r, i - K);
            xnext = di - ci * xnext;
            d[i * N + s] = xnext;
        }
    }
}

template <int K>
__global__ void thomas_kernel(const double* __restrict__ a, const double* __restrict__ b,
                              const double* __restrict__ c, double* __restrict__ d, double* __restrict__ cp, int n,
                              int nsys, int R) {
    extern __shared__ double sh[];
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < nsys) thomas_system<K, false>(s, threadIdx.x, blockDim.x, sh, a, b, c, d, cp + s, nsys, n, nsys, R);
}

template <int K>
__global__ void thomas_resident_kernel(const double* __restrict__ a, const double* __restrict__ b,
                                       const double* __restrict__ c, double* __restrict__ d,
                                       double* __restrict__ scratch, int n, int nsys) {
    const int lane = threadIdx.x & 31;
    const int w = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int W = static_cast<int>((gridDim.x * blockDim.x) >> 5);
    double* cp = scratch + static_cast<std::size_t>(w) * 32 * n + lane;
    for (int s = 32 * w + lane; s - lane < nsys; s += 32 * W)
        if (s < nsys) thomas_system<K, true>(s, 0, 0, nullptr, a, b, c, d, cp, 32, n, nsys, 0);
}

// t: a tuning thomas_resolve made concrete (the same rules as then for double).
inline void thomas_batch(const double* a, const double* b, const double* c, double* d, double* cp, int n, int nsys,
                         const gpu::ThomasTuning& t, int sms, cudaStream_t stream) {
    if (t.prefetch != 8) throw std::invalid_argument("baseline thomas_batch: prefetch 8 only");
    if (n == 0 || nsys == 0) return;
    if (t.resident_warps > 0) {
        const int blocks = std::max(1, std::min(sms, nsys / 32));
        const int warps = std::max(1, std::min(t.resident_warps, nsys / 32 / blocks));
        thomas_resident_kernel<8><<<blocks, 32 * warps, 0, stream>>>(a, b, c, d, cp, n, nsys);
        CUDA_CHECK_LAUNCH();
        return;
    }
    const int R = t.smem_rows, T = t.threads;
    const std::size_t smem = 2 * sizeof(double) * static_cast<std::size_t>(R) * T;
    if (smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(thomas_kernel<8>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(smem)));
    thomas_kernel<8><<<(nsys + T - 1) / T, T, smem, stream>>>(a, b, c, d, cp, n, nsys, R);
    CUDA_CHECK_LAUNCH();
}

}  // namespace arbolito::bench::baseline
