#pragma once
// gpu-fine (Huber's fine-grained tree solver, docs/solvers.md): one CUDA block per block of
// cells of a fine_layout, one thread per branch of the current level, a block-wide
// barrier between levels and nothing grid-wide. A block whose d, u and rhs fit is solved
// in shared memory (loaded and stored once, coalesced); a larger one in device memory.
// Device-side building block: the matrix is assembled on the device in the layout's
// numbering and solved in place.
#include <cuda_runtime.h>

#include "core/gpu/memory.hpp"
#include "solvers/fine_layout.hpp"

namespace arbolito::gpu {

// Device copies of a FineSchedule; built once per layout.
struct GpuFinePlan {
    int n_blocks = 0;
    int threads = 32;       // CUDA block size: the widest block's
    int shared_bytes = 0;   // dynamic shared memory per block: the largest block's need
    long shared_limit = 0;  // the device's shared memory per block: a schedule beyond it stays in device memory
    int ahead = 8;          // rows loaded before their arithmetic (fine_sweeps.hpp): 4 or 8; 0 (edd_solve): EDD
    DeviceArray<FineSchedule::Block> blocks;
    DeviceArray<FineSchedule::Level> levels;
    DeviceArray<int> pos_base, length, parent_cv, child_begin, child;
    DeviceArray<int> distal_cv, up_run, junction_kids, run_order;  // EDD schedules' (empty otherwise)
    mutable DeviceArray<double> fold;    // workspace: the scratch of blocks solved in device memory (Block::fold0)
    mutable DeviceArray<double> edd_h;   // workspace: EDD's h of blocks solved in device memory, per CV
};

// Checks the schedule (check_fine_schedule) and the device's shared memory per block.
// Throws std::invalid_argument where a block needs more than the device has. ahead: rows
// loaded before their arithmetic, 4 (72 registers a thread) or 8 (96; the same bits).
GpuFinePlan make_gpu_fine_plan(const FineSchedule& s, int ahead = 8);

// Solves every cell's system in place on `stream`: on return rhs holds the solution of
// the real CVs; d is overwritten; u is read only. Padding rows are not touched.
void gpu_fine_solve(const GpuFinePlan& plan, double* d, const double* u, double* rhs, cudaStream_t stream);

}  // namespace arbolito::gpu
