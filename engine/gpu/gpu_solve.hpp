#pragma once
// A GPU solver's solve inside the GPU cell group (GpuSolverParts, gpu_cell_group.hpp):
// set up once for the group's layout, then called once per step.
#include <cuda_runtime.h>

namespace arbolito {

class GpuSolve {
public:
    virtual ~GpuSolve() = default;
    // Solves every cell's system in place on `stream`, in the layout's numbering: on return
    // rhs holds the solution of the real CVs; d may be overwritten, u is read only.
    // Padding rows hold d = 1, u = 0, rhs = 0.
    virtual void solve(double* d, const double* u, double* rhs, cudaStream_t stream) const = 0;
};

}  // namespace arbolito
