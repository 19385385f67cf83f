#pragma once
// A solver benchmark's matrices in a layout's numbering: random diagonally dominant
// systems filled on the device (padding rows d = 1, u = 0, rhs = 0), kept pristine in
// d0, r0 and restored into d, r before each timed solve.
#include <cstdint>

#include "bench/gpu_bench_util.hpp"
#include "solvers/layout.hpp"

namespace arbolito::bench {

__global__ void set_rows(const int* idx, int n, double d, double u, double r, double* D, double* U, double* R) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (D) D[idx[i]] = d;
    if (U) U[idx[i]] = u;
    if (R) R[idx[i]] = r;
}

struct SolveBuffers {
    gpu::DeviceArray<double> d0, r0, d, u, r;
    SolveBuffers(const Layout& l, std::uint64_t seed) : d0(l.n_cv), r0(l.n_cv), d(l.n_cv), u(l.n_cv), r(l.n_cv) {
        device_fill(d0.data(), l.n_cv, seed, 2.5, 3.5);  // dominant for up to 25 children per CV
        device_fill(r0.data(), l.n_cv, seed + 1, -1.0, 1.0);
        device_fill(u.data(), l.n_cv, seed + 2, -0.1, -0.01);
        if (!l.padding.empty()) {
            gpu::DeviceArray<int> pad(l.padding);
            const int n = static_cast<int>(l.padding.size());
            set_rows<<<(n + 255) / 256, 256>>>(pad.data(), n, 1.0, 0.0, 0.0, d0.data(), u.data(), r0.data());
            CUDA_CHECK_LAUNCH();
        }
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    void restore() {
        if (!d0.size()) return;
        CUDA_CHECK(cudaMemcpyAsync(d.data(), d0.data(), d0.size() * 8, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaMemcpyAsync(r.data(), r0.data(), r0.size() * 8, cudaMemcpyDeviceToDevice));
    }
};

}  // namespace arbolito::bench
