#include "solvers/gpu/hines_gpu_fine.hpp"

#include <stdexcept>
#include <string>

#include "solvers/fine_sweeps.hpp"

namespace arbolito::gpu {

namespace {

using Block = FineSchedule::Block;
using Level = FineSchedule::Level;

// The level loop of one block over D, U, R (shared or device memory) and the folds FD, FR.
// Every thread reaches every barrier: the loops over a level's branches have no early exit.
__device__ __forceinline__ void solve_levels(const Block& B, const Level* __restrict__ levels,
                                             const int* pos_base, const int* __restrict__ length,
                                             const int* __restrict__ parent_cv, const int* __restrict__ child_begin,
                                             const int* __restrict__ child, double* D, const double* U, double* R,
                                             double* FD, double* FR) {
    const int t = threadIdx.x, nt = blockDim.x;
    const int* len = length + B.branch0;
    const int* cb = child_begin + B.branch0;
    for (int L = B.n_levels - 1; L >= 0; --L) {
        const Level lev = levels[B.level0 + L];
        for (int k = t; k < lev.n; k += nt)
            fine_sweeps::backward(lev.branch0 + k, k, lev.base, pos_base + lev.pos0, len[lev.branch0 + k], cb, child, D,
                                  U, R, FD, FR);
        __syncthreads();
    }
    for (int L = 0; L < B.n_levels; ++L) {
        const Level lev = levels[B.level0 + L];
        for (int k = t; k < lev.n; k += nt)
            fine_sweeps::forward(k, lev.base, pos_base + lev.pos0, len[lev.branch0 + k],
                                 parent_cv[B.branch0 + lev.branch0 + k], D, R);
        __syncthreads();
    }
}

__global__ void fine_solve_kernel(const Block* __restrict__ blocks, const Level* __restrict__ levels,
                                  const int* __restrict__ pos_base, const int* __restrict__ length,
                                  const int* __restrict__ parent_cv, const int* __restrict__ child_begin,
                                  const int* __restrict__ child, double* __restrict__ d, const double* __restrict__ u,
                                  double* __restrict__ rhs, double* __restrict__ fold_d, double* __restrict__ fold_r) {
    extern __shared__ double sm[];
    const Block B = blocks[blockIdx.x];
    const int t = threadIdx.x, nt = blockDim.x, n = B.n_cv;
    // The position offsets after the doubles, shifted so that pos_base's indices apply.
    int* spos = reinterpret_cast<int*>(sm + (B.in_shared ? 3 * n + 2 * B.n_branches : 0));
    for (int i = t; i < B.n_pos; i += nt) spos[i] = pos_base[B.pos0 + i];
    const int* pos = spos - B.pos0;
    if (B.in_shared) {
        double* D = sm;
        double* U = sm + n;
        double* R = sm + 2 * n;
        for (int i = t; i < n; i += nt) {
            D[i] = d[B.first_cv + i];
            U[i] = u[B.first_cv + i];
            R[i] = rhs[B.first_cv + i];
        }
        __syncthreads();
        solve_levels(B, levels, pos, length, parent_cv, child_begin, child, D, U, R, sm + 3 * n,
                     sm + 3 * n + B.n_branches);
        for (int i = t; i < n; i += nt) rhs[B.first_cv + i] = R[i];
    } else {
        __syncthreads();
        solve_levels(B, levels, pos, length, parent_cv, child_begin, child, d + B.first_cv, u + B.first_cv,
                     rhs + B.first_cv, fold_d + B.branch0, fold_r + B.branch0);
    }
}

}  // namespace

GpuFinePlan make_gpu_fine_plan(const FineSchedule& s) {
    check_fine_schedule(s);
    GpuFinePlan p;
    p.n_blocks = s.n_blocks();
    for (const auto& b : s.blocks) p.threads = std::max(p.threads, b.threads);
    p.shared_bytes = s.max_shared_bytes;
    int dev = 0, optin = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (p.shared_bytes > optin)
        throw std::invalid_argument("gpu-fine: a block needs " + std::to_string(p.shared_bytes) +
                                    " bytes of shared memory, the device offers " + std::to_string(optin) +
                                    " (lower the shared-memory budget)");
    CUDA_CHECK(cudaFuncSetAttribute(fine_solve_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    std::max(p.shared_bytes, 1)));
    p.blocks = DeviceArray<Block>(s.blocks);
    p.levels = DeviceArray<Level>(s.levels);
    p.pos_base = DeviceArray<int>(s.pos_base);
    p.length = DeviceArray<int>(s.length);
    p.parent_cv = DeviceArray<int>(s.parent_cv);
    p.child_begin = DeviceArray<int>(s.child_begin);
    p.child = DeviceArray<int>(s.child);
    p.fold_d = DeviceArray<double>(s.length.size());
    p.fold_r = DeviceArray<double>(s.length.size());
    return p;
}

void gpu_fine_solve(const GpuFinePlan& p, double* d, const double* u, double* rhs, cudaStream_t stream) {
    if (p.n_blocks == 0) return;
    fine_solve_kernel<<<p.n_blocks, p.threads, p.shared_bytes, stream>>>(
        p.blocks.data(), p.levels.data(), p.pos_base.data(), p.length.data(), p.parent_cv.data(), p.child_begin.data(),
        p.child.data(), d, u, rhs, p.fold_d.data(), p.fold_r.data());
    CUDA_CHECK_LAUNCH();
}

}  // namespace arbolito::gpu
