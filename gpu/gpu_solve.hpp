#pragma once
// A GPU solver's solve inside the GPU cell group (GpuSolverParts, gpu_cell_group.hpp):
// set up once for the group's layout, then called once per step.
#include <cuda_runtime.h>

#include "gpu/resident_plan.hpp"

namespace arbolito {

struct FineSchedule;
namespace gpu {
struct GpuFinePlan;
}

// gpu-fine's `step=resident`: the group runs each epoch piece as one kernel on chip
// (gpu/resident_epoch) with this schedule instead of calling solve() per step.
struct ResidentRequest {
    const FineSchedule* schedule = nullptr;
    const gpu::GpuFinePlan* plan = nullptr;  // the schedule on the device
    int shared_bytes = 0;                    // per CUDA block
    int threads = 0;                         // per CUDA block (gpu-fine's `threads`)
    LaunchOrder launch = LaunchOrder::longest;  // the blocks' order (gpu-fine's `launch`)
};

class GpuSolve {
public:
    virtual ~GpuSolve() = default;
    // Solves every cell's system in place on `stream`, in the layout's numbering: on return
    // rhs holds the solution of the real CVs; d may be overwritten, u is read only.
    // Padding rows hold d = 1, u = 0, rhs = 0.
    virtual void solve(double* d, const double* u, double* rhs, cudaStream_t stream) const = 0;
    // Non-null: the whole step runs epoch-resident instead (only gpu-fine offers it).
    virtual const ResidentRequest* resident() const { return nullptr; }
};

}  // namespace arbolito
