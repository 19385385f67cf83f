#pragma once
// The per-branch steps of the fine-grained solve (fine_layout.hpp): one thread per branch
// on the GPU, one call per branch on the host. All indices are block-local: D, U, R point
// at the block's first CV (in shared memory or device memory), FD, FR at its folds, pos
// at the level's position offsets.
//
// The backward step leaves, per row, f = u / d' in D and g = rhs' / d' in R (d', rhs':
// after elimination), so that the forward step is one multiply-add per row; the fold of
// the branch's first CV into its parent CV (what the parent's d and rhs lose) goes to the
// branch's own slot in FD, FR, and the parent's thread subtracts its children's folds in
// a fixed order: no atomics, the same sums every run.
//
// Rows go in chunks of Ahead: a chunk's indices and values are all loaded before its
// arithmetic starts, so a thread waits one load latency per chunk, not one per row (the
// loads do not depend on the elimination: only this thread writes its branch's rows).
// More rows ahead hide more latency but take more registers (fewer blocks per SM).
// Within a chunk there is no branch (the rest of a branch goes in chunks of 4, 2 and 1).
#include "core/hd.hpp"
#include "solvers/gpu/reciprocal.hpp"

namespace arbolito::fine_sweeps {

// Eliminates rows i, i-1, ..., i-N+1 of a branch (all >= 1) into the row below each
// (towards position 0): their indices, u, and the next rows' d and rhs are all loaded
// before any arithmetic, and the arithmetic has no branch, so that the compiler can
// overlap one row's reciprocal with the last row's stores (GPUs issue each warp's
// instructions in order: a branch per row made every row wait out its whole chain).
// dx, rx: row i's d and rhs on entry, row i-N's on return. Per row, f = u / d' into D and
// g = rhs' / d' into R.
template <int N>
ARB_HD void eliminate_rows(int i, int base, const int* pos, int k, double* D, const double* U, double* R, double& dx,
                           double& rx) {
    int x[N + 1];
    double u[N], dp[N], rp[N];
    ARB_UNROLL
    for (int j = 0; j <= N; ++j) x[j] = base + pos[i - j] + k;
    ARB_UNROLL
    for (int j = 0; j < N; ++j) {
        u[j] = U[x[j]];
        dp[j] = D[x[j + 1]];
        rp[j] = R[x[j + 1]];
    }
    ARB_UNROLL
    for (int j = 0; j < N; ++j) {
        const double inv = gpu::reciprocal(dx), f = u[j] * inv;
        D[x[j]] = f;
        R[x[j]] = rx * inv;
        dx = dp[j] - f * u[j];
        rx = rp[j] - f * rx;
    }
}

// What the elimination of branch b (slot k of a level, length len >= 1) reads before its
// rows, but for its children's folds: u and the index of its row 0, d and rhs of its row
// len-1. Nothing of the children's level writes these, so solve_levels' heads variant
// (ARBOLITO_FINE_HEADS, fine_block.cuh) loads them before that level's barrier.
struct BranchHead {
    int len, x0;
    double u0, d, r;
};
ARB_HD BranchHead branch_head(int k, int base, const int* pos, int len, const double* D, const double* U,
                              const double* R) {
    BranchHead h;
    h.len = len;
    h.x0 = base + pos[0] + k;
    h.u0 = U[h.x0];  // nobody writes u: loaded ahead of the chain
    const int x = base + pos[len - 1] + k;
    h.d = D[x];
    h.r = R[x];
    return h;
}

// Branch b (slot k of a level) from its head: its distal row less its children's folds
// (subtracted in a fixed order), rows len-1 ... 1 in chunks of Ahead (then 4, 2, 1 for
// the rest), then row 0, whose fold into the parent CV (what the parent's d and rhs lose)
// goes to FD[b], FR[b].
template <int Ahead>
ARB_HD void backward_from(const BranchHead& h, int b, int k, int base, const int* pos, const int* child_begin,
                          const int* child, double* D, const double* U, double* R, double* FD, double* FR) {
    static_assert(Ahead == 4 || Ahead == 8, "chunks of 8 or 4 rows, then 2 and 1");
    const int x0 = h.x0;
    double dx = h.d, rx = h.r;
    for (int j = child_begin[b]; j < child_begin[b + 1]; ++j) {
        dx -= FD[child[j]];
        rx -= FR[child[j]];
    }
    int i = h.len - 1;
    for (; i >= Ahead; i -= Ahead) eliminate_rows<Ahead>(i, base, pos, k, D, U, R, dx, rx);
    if constexpr (Ahead == 8)
        if (i >= 4) eliminate_rows<4>(i, base, pos, k, D, U, R, dx, rx), i -= 4;
    if (i >= 2) eliminate_rows<2>(i, base, pos, k, D, U, R, dx, rx), i -= 2;
    if (i >= 1) eliminate_rows<1>(i, base, pos, k, D, U, R, dx, rx);
    const double inv = gpu::reciprocal(dx), f = h.u0 * inv;  // row 0 (a root's u is 0: its fold is 0)
    D[x0] = f;
    R[x0] = rx * inv;
    FD[b] = f * h.u0;
    FR[b] = f * rx;
}

// Branch b (slot k of a level) of length len >= 1, head and rows.
template <int Ahead>
ARB_HD void backward(int b, int k, int base, const int* pos, int len, const int* child_begin, const int* child,
                     double* D, const double* U, double* R, double* FD, double* FR) {
    backward_from<Ahead>(branch_head(k, base, pos, len, D, U, R), b, k, base, pos, child_begin, child, D, U, R, FD, FR);
}

// x at rows i ... i+N-1 of a branch (all < len), from xp, the row before's x.
template <int N>
ARB_HD void substitute_rows(int i, int base, const int* pos, int k, const double* D, double* R, double& xp) {
    int x[N];
    double f[N], g[N];
    ARB_UNROLL
    for (int j = 0; j < N; ++j) {
        x[j] = base + pos[i + j] + k;
        f[j] = D[x[j]];
        g[j] = R[x[j]];
    }
    ARB_UNROLL
    for (int j = 0; j < N; ++j) {
        xp = g[j] - f[j] * xp;
        R[x[j]] = xp;
    }
}

// x along the branch from position 0 (its parent CV's x final: an earlier level), in
// chunks as backward's.
template <int Ahead>
ARB_HD void forward(int k, int base, const int* pos, int len, int parent_cv, const double* D, double* R) {
    double xp = parent_cv >= 0 ? R[parent_cv] : 0.0;
    int i = 0;
    for (; i + Ahead <= len; i += Ahead) substitute_rows<Ahead>(i, base, pos, k, D, R, xp);
    if constexpr (Ahead == 8)
        if (i + 4 <= len) substitute_rows<4>(i, base, pos, k, D, R, xp), i += 4;
    if (i + 2 <= len) substitute_rows<2>(i, base, pos, k, D, R, xp), i += 2;
    if (i < len) substitute_rows<1>(i, base, pos, k, D, R, xp);
}

}  // namespace arbolito::fine_sweeps
