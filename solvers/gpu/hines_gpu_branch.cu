#include "solvers/gpu/hines_gpu_branch.hpp"

#include "solvers/branch_sweeps.hpp"

namespace arbolito::gpu {

namespace {

__global__ void branch_backward(int s0, int s1, const int* __restrict__ first, const int* __restrict__ stride,
                                const int* __restrict__ padded, const int* __restrict__ parent, double* __restrict__ d,
                                const double* __restrict__ u, double* __restrict__ rhs, double* __restrict__ fold_d,
                                double* __restrict__ fold_r) {
    const int s = s0 + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (s < s1) branch_sweeps::backward(s, first, stride, padded, parent, d, u, rhs, fold_d, fold_r);
}

__global__ void branch_couple(int j0, int j1, const int* __restrict__ couple_cv, const int* __restrict__ couple_first,
                              const int* __restrict__ couple_slot, const double* __restrict__ fold_d,
                              const double* __restrict__ fold_r, double* __restrict__ d, double* __restrict__ rhs) {
    const int j = j0 + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (j < j1) branch_sweeps::couple(j, couple_cv, couple_first, couple_slot, fold_d, fold_r, d, rhs);
}

__global__ void branch_forward(int s0, int s1, const int* __restrict__ first, const int* __restrict__ stride,
                               const int* __restrict__ padded, const int* __restrict__ parent,
                               const double* __restrict__ d, const double* __restrict__ u, double* __restrict__ rhs) {
    const int s = s0 + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (s < s1) branch_sweeps::forward(s, first, stride, padded, parent, d, u, rhs);
}

unsigned blocks(int n, int t) { return static_cast<unsigned>((n + t - 1) / t); }

}  // namespace

GpuBranchPlan make_gpu_branch_plan(const Layout& l, const BranchSlots& sl) {
    const BranchSchedule s = branch_schedule(l, sl);
    GpuBranchPlan p;
    p.level_first = s.level_first;
    p.couple_level = s.couple_level;
    p.first = DeviceArray<int>(s.first);
    p.stride = DeviceArray<int>(s.stride);
    p.padded = DeviceArray<int>(s.padded);
    p.parent = DeviceArray<int>(s.parent);
    p.couple_cv = DeviceArray<int>(s.couple_cv);
    p.couple_first = DeviceArray<int>(s.couple_first);
    p.couple_slot = DeviceArray<int>(s.couple_slot);
    p.fold_d = DeviceArray<double>(s.n_slots());
    p.fold_r = DeviceArray<double>(s.n_slots());
    return p;
}

void gpu_branch_solve(const GpuBranchPlan& p, double* d, const double* u, double* rhs, cudaStream_t stream) {
    const int levels = static_cast<int>(p.level_first.size()) - 1, t = p.threads;
    for (int l = levels - 1; l >= 0; --l) {
        const int s0 = p.level_first[l], s1 = p.level_first[l + 1];
        if (s1 > s0) {
            branch_backward<<<blocks(s1 - s0, t), t, 0, stream>>>(s0, s1, p.first.data(), p.stride.data(),
                                                                  p.padded.data(), p.parent.data(), d, u, rhs,
                                                                  p.fold_d.data(), p.fold_r.data());
            CUDA_CHECK_LAUNCH();
        }
        const int j0 = p.couple_level[l], j1 = p.couple_level[l + 1];
        if (j1 > j0) {
            branch_couple<<<blocks(j1 - j0, t), t, 0, stream>>>(j0, j1, p.couple_cv.data(), p.couple_first.data(),
                                                                p.couple_slot.data(), p.fold_d.data(), p.fold_r.data(),
                                                                d, rhs);
            CUDA_CHECK_LAUNCH();
        }
    }
    for (int l = 0; l < levels; ++l) {
        const int s0 = p.level_first[l], s1 = p.level_first[l + 1];
        if (s1 <= s0) continue;
        branch_forward<<<blocks(s1 - s0, t), t, 0, stream>>>(s0, s1, p.first.data(), p.stride.data(), p.padded.data(),
                                                             p.parent.data(), d, u, rhs);
        CUDA_CHECK_LAUNCH();
    }
}

}  // namespace arbolito::gpu
