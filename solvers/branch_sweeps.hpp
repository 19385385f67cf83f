#pragma once
// The per-slot steps of the branch-level solve with the fold coupling (branch_layout.hpp),
// one thread per branch on the GPU, one call per slot on the host. A level's backward
// pass leaves each branch's fold (what its first CV takes from its parent CV's d and rhs)
// in fold_d, fold_r; the coupling step then subtracts the folds from the parent CVs in a
// fixed order (no atomics). walk[s]: the positions slot s computes, its padded length or
// its own (Padding): padding rows (d = 1, u = 0, rhs = 0) end as x = 0 either way.
//
// As in gpu-fine (fine_sweeps.hpp), the arithmetic is the serial Hines solve's (hines.hpp),
// so that the fold coupling gives its bits (tests/unit/test_solver_bits.cpp): f = u / d'
// correctly rounded, the next row's d and rhs less f u and f rhs' (product rounded, then
// the difference), each parent CV's folds subtracted one by one in the serial solve's
// order (branch_schedule's coupling lists), x = (rhs' - u x_p) / d'. The backward step
// leaves the pivots d' in d and rhs' in rhs for the forward step; rows go in chunks of
// Ahead whose loads are all issued before their arithmetic (a branch's rows change only
// by its own thread here), so a thread waits one memory latency per chunk, not one per
// row.
#include "core/hd.hpp"
#include "core/reciprocal.hpp"
#include "core/uncontracted.hpp"

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
            const double f = gpu::divide(uu[j], dk);
            d[x] = dk;
            rhs[x] = rk;
            if (row == 0) {
                if (parent[s] >= 0) fold_d[s] = product(f, uu[j]), fold_r[s] = product(f, rk);
                return;
            }
            dk = minus_product(dp[j], f, uu[j]);
            rk = minus_product(rp[j], f, rk);
        }
        k -= Ahead;
    }
}

// Parent CV j of a level's coupling list takes the folds of its child slots, one by one in
// order (as the serial solve subtracts its children's terms).
ARB_HD void couple(int j, const int* couple_cv, const int* couple_first, const int* couple_slot, const double* fold_d,
                   const double* fold_r, double* d, double* rhs) {
    double sd = d[couple_cv[j]], sr = rhs[couple_cv[j]];
    for (int k = couple_first[j]; k < couple_first[j + 1]; ++k) {
        sd -= fold_d[couple_slot[k]];
        sr -= fold_r[couple_slot[k]];
    }
    d[couple_cv[j]] = sd;
    rhs[couple_cv[j]] = sr;
}

// x along slot s from position 0 (its parent's x final: an earlier level) outwards:
// (rhs' - u x_p) / d', the quotient's reciprocal taken off the chain (it waits on the
// chunk's loads only).
template <int Ahead = ahead>
ARB_HD void forward(int s, const int* first, const int* stride, const int* walk, const int* parent, const double* d,
                    const double* u, double* rhs) {
    const int x0 = first[s], st = stride[s], n = walk[s];
    double xp = parent[s] >= 0 ? rhs[parent[s]] : 0.0;
    for (int i = 0; i < n; i += Ahead) {
        double dd[Ahead], g[Ahead], uu[Ahead] = {}, r[Ahead];
        load_down<Ahead>(x0, st, i, n, d, rhs, u, dd, g, uu);
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) r[j] = gpu::reciprocal_once(i + j < n ? dd[j] : 1.0);
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            if (i + j >= n) return;
            xp = gpu::divide_by(minus_product(g[j], uu[j], xp), dd[j], r[j]);
            rhs[x0 + (i + j) * st] = xp;
        }
    }
}

}  // namespace arbolito::branch_sweeps
