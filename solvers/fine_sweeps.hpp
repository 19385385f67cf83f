#pragma once
// The per-branch steps of the fine-grained solve (fine_layout.hpp): one thread per branch
// on the GPU, one call per branch on the host. All indices are block-local: D, U, R point
// at the block's first CV (in shared memory or device memory), FD, FR at its folds.
//
// The backward step leaves, per row, f = u / d' in D and g = rhs' / d' in R (d', rhs':
// after elimination), so that the forward step is one multiply-add per row; the fold of
// the branch's first CV into its parent CV (what the parent's d and rhs lose) goes to the
// branch's own slot in FD, FR, and the parent's thread subtracts its children's folds in
// a fixed order: no atomics, the same sums every run.
#include "core/hd.hpp"
#include "solvers/gpu/reciprocal.hpp"

namespace arbolito::fine_sweeps {

// Branch b (slot k of a level whose positions start at pos[0..]) of length len >= 1.
ARB_HD void backward(int b, int k, int base, const int* pos, int len, const int* child_begin, const int* child,
                     double* D, const double* U, double* R, double* FD, double* FR) {
    int x = base + pos[len - 1] + k;
    double dx = D[x], rx = R[x];
    for (int j = child_begin[b]; j < child_begin[b + 1]; ++j) {
        dx -= FD[child[j]];
        rx -= FR[child[j]];
    }
    for (int i = len - 1;; --i) {
        const double ux = U[x], inv = gpu::reciprocal(dx);
        const double f = ux * inv;
        D[x] = f;
        R[x] = rx * inv;
        if (i == 0) {  // a root's u is 0: its fold is 0 and nobody reads it
            FD[b] = f * ux;
            FR[b] = f * rx;
            return;
        }
        const int p = base + pos[i - 1] + k;
        dx = D[p] - f * ux;
        rx = R[p] - f * rx;
        x = p;
    }
}

// x along the branch from position 0 (its parent CV's x final: an earlier level).
ARB_HD void forward(int k, int base, const int* pos, int len, int parent_cv, const double* D, double* R) {
    double xp = parent_cv >= 0 ? R[parent_cv] : 0.0;
    for (int i = 0; i < len; ++i) {
        const int x = base + pos[i] + k;
        xp = R[x] - D[x] * xp;
        R[x] = xp;
    }
}

}  // namespace arbolito::fine_sweeps
