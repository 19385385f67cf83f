#pragma once
// The GPU cell benchmarks' check of a solve (gpu_solver_bench, seed_variants_bench): a few
// slots' CVs gathered from the device and compared with the serial double hines_solve of
// the same inputs.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include <cuda_runtime.h>

#include "core/gpu/cuda_check.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "solvers/hines.hpp"

namespace arbolito::bench {

// The n CVs of one slot (constant stride from `first`) of device array a, widened to double.
template <class T>
std::vector<double> gather(const T* a, int first, int stride, int n) {
    std::vector<T> h(n);
    if (n)
        CUDA_CHECK(cudaMemcpy2D(h.data(), sizeof(T), a + first, sizeof(T) * stride, sizeof(T), n, cudaMemcpyDeviceToHost));
    return std::vector<double>(h.begin(), h.end());
}

enum class ErrorNorm { max, two };

// The largest relative difference (in `norm`) over four slots (first, a third, half way,
// last) between the device's solution `got` and hines_solve of its inputs d0, r0, u.
template <class T>
double slot_error(const CellSlots& sl, const std::vector<std::vector<int>>& cells, const T* d0, const T* r0,
                  const T* u, const T* got, ErrorNorm norm) {
    double worst = 0;
    const std::size_t ns = sl.cell.size();
    for (std::size_t s : {std::size_t(0), ns / 3, ns / 2, ns - 1}) {
        if (s >= ns || sl.cell[s] < 0) continue;
        const int first = sl.first[s], stride = sl.stride[s], n = sl.size[s];
        std::vector<double> d = gather(d0, first, stride, n), x = gather(r0, first, stride, n),
                            uu = gather(u, first, stride, n), g = gather(got, first, stride, n);
        hines_solve(0, n, cells[sl.cell[s]].data(), d.data(), uu.data(), x.data());
        double num = 0, den = 0, e;
        if (norm == ErrorNorm::max) {
            for (int i = 0; i < n; ++i) num = std::max(num, std::fabs(g[i] - x[i])), den = std::max(den, std::fabs(x[i]));
            e = num / std::max(den, 1e-300);
        } else {
            for (int i = 0; i < n; ++i) num += (g[i] - x[i]) * (g[i] - x[i]), den += x[i] * x[i];
            e = std::sqrt(num / std::max(den, 1e-300));
        }
        worst = std::max(worst, std::isnan(e) ? INFINITY : e);
    }
    return worst;
}

}  // namespace arbolito::bench
