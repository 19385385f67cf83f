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
#include "core/hd.hpp"
#include "solvers/gpu/reciprocal.hpp"

namespace arbolito::fine_sweeps {

// The distal row of branch b less its children's folds (subtracted in a fixed order):
// where each elimination starts, d into dx and rhs into rx.
ARB_HD void branch_start(int b, int x, const int* child_begin, const int* child, const double* D, const double* R,
                         const double* FD, const double* FR, double& dx, double& rx) {
    dx = D[x];
    rx = R[x];
    for (int j = child_begin[b]; j < child_begin[b + 1]; ++j) {
        dx -= FD[child[j]];
        rx -= FR[child[j]];
    }
}

// Rows i, i-1, ..., i-Ahead+1 of a branch (those >= 0) and the parent row of each: their
// indices x, their u, and the parent rows' d and rhs (dp, rp), all loaded before any
// arithmetic.
template <int Ahead>
struct Chunk {
    int x[Ahead + 1];
    double u[Ahead], dp[Ahead], rp[Ahead];
};
template <int Ahead>
ARB_HD Chunk<Ahead> load_chunk(int i, int base, const int* pos, int k, const double* D, const double* U,
                               const double* R) {
    Chunk<Ahead> c;
    ARB_UNROLL
    for (int j = 0; j <= Ahead; ++j) c.x[j] = i - j >= 0 ? base + pos[i - j] + k : 0;
    ARB_UNROLL
    for (int j = 0; j < Ahead; ++j) {
        c.u[j] = i - j >= 0 ? U[c.x[j]] : 0.0;
        c.dp[j] = i - j - 1 >= 0 ? D[c.x[j + 1]] : 0.0;
        c.rp[j] = i - j - 1 >= 0 ? R[c.x[j + 1]] : 0.0;
    }
    return c;
}

// Branch b (slot k of a level) of length len >= 1.
template <int Ahead>
ARB_HD void backward(int b, int k, int base, const int* pos, int len, const int* child_begin, const int* child,
                     double* D, const double* U, double* R, double* FD, double* FR) {
    int i = len - 1;  // the chunk's first row (the most distal left)
    double dx, rx;
    branch_start(b, base + pos[i] + k, child_begin, child, D, R, FD, FR, dx, rx);
    for (;;) {
        const Chunk<Ahead> c = load_chunk<Ahead>(i, base, pos, k, D, U, R);
        const int* x = c.x;
        const double *u = c.u, *dp = c.dp, *rp = c.rp;
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            const double inv = gpu::reciprocal(dx), f = u[j] * inv;
            D[x[j]] = f;
            R[x[j]] = rx * inv;
            if (i - j == 0) {  // a root's u is 0: its fold is 0 and nobody reads it
                FD[b] = f * u[j];
                FR[b] = f * rx;
                return;
            }
            dx = dp[j] - f * u[j];
            rx = rp[j] - f * rx;
        }
        i -= Ahead;
    }
}

// The same elimination with no reciprocal inside the chain of rows (`elim=projective`):
// a row's pivot d' is kept as a quotient a / q, with a' = dp·a − u²·q and q' = a, one
// multiply-add a row on the chain (u²·q is known a row ahead); each row's 1/a, which its
// f and g need, is off the chain, so rows overlap instead of each waiting for the last
// one's reciprocal. The same results within rounding, not the same bits as backward().
// (a, q) is scaled once per chunk by the 1/a of the chunk's last row but one (ready
// before the chunk ends), so that it stays within a product of Ahead + 2 pivots.
template <int Ahead>
ARB_HD void backward_projective(int b, int k, int base, const int* pos, int len, const int* child_begin,
                                const int* child, double* D, const double* U, double* R, double* FD, double* FR) {
    static_assert(Ahead >= 2, "the chunk's scale is its last row but one's");
    int i = len - 1;  // the chunk's first row (the most distal left)
    double a, rx, q = 1.0;
    branch_start(b, base + pos[i] + k, child_begin, child, D, R, FD, FR, a, rx);
    for (;;) {
        const Chunk<Ahead> c = load_chunk<Ahead>(i, base, pos, k, D, U, R);
        const int* x = c.x;
        const double *u = c.u, *dp = c.dp, *rp = c.rp;
        double scale = 1.0;
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            const double inv = gpu::reciprocal(a), s = q * inv, f = u[j] * s;  // s = 1/d'
            if (j == Ahead - 2) scale = inv;
            D[x[j]] = f;
            R[x[j]] = rx * s;
            if (i - j == 0) {
                FD[b] = f * u[j];
                FR[b] = f * rx;
                return;
            }
            const double next = dp[j] * a - (u[j] * u[j]) * q;
            q = a;
            a = next;
            rx = rp[j] - f * rx;
        }
        a *= scale;
        q *= scale;
        i -= Ahead;
    }
}

// x along the branch from position 0 (its parent CV's x final: an earlier level).
template <int Ahead>
ARB_HD void forward(int k, int base, const int* pos, int len, int parent_cv, const double* D, double* R) {
    double xp = parent_cv >= 0 ? R[parent_cv] : 0.0;
    for (int i = 0; i < len; i += Ahead) {
        int x[Ahead];
        double f[Ahead], g[Ahead];
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            x[j] = i + j < len ? base + pos[i + j] + k : 0;
            f[j] = i + j < len ? D[x[j]] : 0.0;
            g[j] = i + j < len ? R[x[j]] : 0.0;
        }
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            if (i + j >= len) return;
            xp = g[j] - f[j] * xp;
            R[x[j]] = xp;
        }
    }
}

}  // namespace arbolito::fine_sweeps
