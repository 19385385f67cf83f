#pragma once
// gpu-branch (multi-morphology, Valero-Lara; DESIGN §7) on the device: the branch-level
// solve of solvers/branch_layout.hpp, one thread per branch, three launches per level (a
// Thomas sweep per branch from the leaves up, the fixed-order coupling of the level's
// folds into their parent CVs, and per level from the root down the forward sweep). The
// per-slot steps are the host reference's own (solvers/branch_sweeps.hpp).
#include <vector>

#include <cuda_runtime.h>

#include "solvers/branch_layout.hpp"
#include "core/gpu/memory.hpp"

namespace arbolito::gpu {

struct GpuBranchPlan {
    int threads = 128;                      // per CUDA block
    std::vector<int> level_first;           // host: slots of level l (launch ranges)
    std::vector<int> couple_level;          // host: coupling entries of level l
    DeviceArray<int> first, stride, padded, parent;
    DeviceArray<int> couple_cv, couple_first, couple_slot;
    mutable DeviceArray<double> fold_d, fold_r;  // workspace: per slot
};

// layout, slots: from one branch_level_layout.
GpuBranchPlan make_gpu_branch_plan(const Layout& layout, const BranchSlots& slots);

// Solves every cell's system in place on `stream`, in the layout's numbering: on return
// rhs holds the solution; d is overwritten; u is read only. Padding rows must hold d = 1,
// u = 0, rhs = 0.
void gpu_branch_solve(const GpuBranchPlan& plan, double* d, const double* u, double* rhs, cudaStream_t stream);

}  // namespace arbolito::gpu
