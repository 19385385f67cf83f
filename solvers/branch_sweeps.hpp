#pragma once
// The per-slot steps of the branch-level solve with the fold coupling (branch_layout.hpp),
// one thread per branch on the GPU, one call per slot on the host. A level's backward
// pass leaves each branch's fold (what its first CV takes from its parent CV's d and rhs)
// in fold_d, fold_r; the coupling step then subtracts the folds from the parent CVs in a
// fixed order (no atomics). walk[s]: the positions slot s computes, its padded length or
// its own (Padding): padding rows (d = 1, u = 0, rhs = 0) end as x = 0 either way.
//
// As in gpu-fine (fine_sweeps.hpp): the backward step leaves f = u / d' in d and
// g = rhs' / d' in rhs, so that the forward step reads two arrays and does one
// multiply-add per row; rows go in chunks of Ahead whose loads are all issued before
// their arithmetic (a branch's rows change only by its own thread here), so a thread
// waits one memory latency per chunk, not one per row.
#include "core/hd.hpp"
#include "core/reciprocal.hpp"

namespace arbolito::branch_sweeps {

constexpr int ahead = 8;

// The loads of an upward chunk of a slot (first position x0, stride st): rows k, k-1, ...,
// k-Ahead+1, those >= 0: each row's u, and d and rhs of the row before it (0 past the
// slot's ends).
template <int Ahead>
ARB_HD void load_up(int x0, int st, int k, const double* d, const double* u, const double* rhs, double* uu,
                    double* dp, double* rp) {
    ARB_UNROLL
    for (int j = 0; j < Ahead; ++j) {
        const int row = k - j, x = x0 + row * st;
        uu[j] = row >= 0 ? u[x] : 0.0;
        dp[j] = row >= 1 ? d[x - st] : 0.0;
        rp[j] = row >= 1 ? rhs[x - st] : 0.0;
    }
}

// The loads of a downward chunk: rows i .. i+Ahead-1, those < n, of a, b and (unless null)
// c (0 past the end).
template <int Ahead>
ARB_HD void load_down(int x0, int st, int i, int n, const double* a, const double* b, const double* c, double* A,
                      double* B, double* C) {
    ARB_UNROLL
    for (int j = 0; j < Ahead; ++j) {
        const int x = x0 + (i + j) * st;
        const bool in = i + j < n;
        A[j] = in ? a[x] : 0.0;
        B[j] = in ? b[x] : 0.0;
        if (c) C[j] = in ? c[x] : 0.0;
    }
}

// Thomas along slot s from its last position up to position 0, then position 0's fold
// into its parent (0 for a root branch).
template <int Ahead = ahead>
ARB_HD void backward(int s, const int* first, const int* stride, const int* walk, const int* parent, double* d,
                     const double* u, double* rhs, double* fold_d, double* fold_r) {
    const int x0 = first[s], st = stride[s], n = walk[s];
    fold_d[s] = 0.0, fold_r[s] = 0.0;
    if (n == 0) return;
    int k = n - 1;  // the chunk's first row (the most distal left)
    double dk = d[x0 + k * st], rk = rhs[x0 + k * st];
    for (;;) {
        double uu[Ahead], dp[Ahead], rp[Ahead];
        load_up<Ahead>(x0, st, k, d, u, rhs, uu, dp, rp);
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            const int row = k - j, x = x0 + row * st;
            const double inv = gpu::reciprocal_once(dk), f = gpu::divide_by(uu[j], dk, inv);
            d[x] = f;
            rhs[x] = gpu::divide_by(rk, dk, inv);
            if (row == 0) {
                if (parent[s] >= 0) fold_d[s] = f * uu[j], fold_r[s] = f * rk;
                return;
            }
            dk = dp[j] - f * uu[j];
            rk = rp[j] - f * rk;
        }
        k -= Ahead;
    }
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
template <int Ahead = ahead>
ARB_HD void forward(int s, const int* first, const int* stride, const int* walk, const int* parent, const double* d,
                    double* rhs) {
    const int x0 = first[s], st = stride[s], n = walk[s];
    double xp = parent[s] >= 0 ? rhs[parent[s]] : 0.0;
    for (int i = 0; i < n; i += Ahead) {
        double f[Ahead], g[Ahead];
        load_down<Ahead>(x0, st, i, n, d, rhs, nullptr, f, g, nullptr);
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            if (i + j >= n) return;
            xp = g[j] - f[j] * xp;
            rhs[x0 + (i + j) * st] = xp;
        }
    }
}

}  // namespace arbolito::branch_sweeps
