#pragma once
// The per-slot steps of the branch-level solve (branch_layout.hpp), one thread per branch
// on the GPU, one call per slot on the host. A level's backward pass leaves each branch's
// fold (what its first CV takes from its parent CV's d and rhs) in fold_d, fold_r; the
// coupling step then subtracts the folds from the parent CVs in a fixed order. walk[s]:
// the positions slot s computes, its padded length or its own (Padding): padding rows
// (d = 1, u = 0, rhs = 0) change nothing, so both give the same bits.
#include "core/hd.hpp"

namespace arbolito::branch_sweeps {

// Thomas along slot s from its last position up to position 0, then position 0's fold
// into its parent (0 for a root branch).
ARB_HD void backward(int s, const int* first, const int* stride, const int* walk, const int* parent, double* d,
                     const double* u, double* rhs, double* fold_d, double* fold_r) {
    const int x0 = first[s], st = stride[s];
    for (int k = walk[s] - 1; k > 0; --k) {
        const int x = x0 + k * st, p = x - st;
        const double f = u[x] / d[x];
        d[p] -= f * u[x];
        rhs[p] -= f * rhs[x];
    }
    double fd = 0.0, fr = 0.0;
    if (parent[s] >= 0 && walk[s] > 0) {
        const double f = u[x0] / d[x0];
        fd = f * u[x0];
        fr = f * rhs[x0];
    }
    fold_d[s] = fd;
    fold_r[s] = fr;
}

// Parent CV j of a level's coupling list takes the folds of its child slots, in order.
ARB_HD void couple(int j, const int* couple_cv, const int* couple_first, const int* couple_slot, const double* fold_d,
                   const double* fold_r, double* d, double* rhs) {
    double sd = 0.0, sr = 0.0;
    for (int k = couple_first[j]; k < couple_first[j + 1]; ++k) {
        sd += fold_d[couple_slot[k]];
        sr += fold_r[couple_slot[k]];
    }
    d[couple_cv[j]] -= sd;
    rhs[couple_cv[j]] -= sr;
}

// x along slot s from position 0 (its parent's x final: an earlier level) outwards.
ARB_HD void forward(int s, const int* first, const int* stride, const int* walk, const int* parent, const double* d,
                    const double* u, double* rhs) {
    const int x0 = first[s], st = stride[s], n = walk[s];
    if (n == 0) return;
    const int q = parent[s];
    double xp = q >= 0 ? rhs[q] : 0.0;
    for (int k = 0; k < n; ++k) {
        const int x = x0 + k * st;
        xp = (rhs[x] - u[x] * xp) / d[x];
        rhs[x] = xp;
    }
}

}  // namespace arbolito::branch_sweeps
