#pragma once
// The steps of the EDD coupling (Exact Domain Decomposition, Mascagni; branch_layout.hpp),
// one thread each on the GPU, one call each on the host:
//  1. eliminate (per slot): Thomas up a branch's interior; its solution is then affine in
//     the values of the branch points at its two ends, v = y + a v_up + c v_down; the
//     coefficients at its first and last position go to `ends`.
//  2. assemble (per junction): the junction system's row, each branch point's equation
//     with its neighbours' affine values put in: diagonal D, right-hand side R, the
//     coefficient P of the junction above and the coefficient Q of this one in the row of
//     the junction above (the system is a tree, like the cell's).
//  3. junctions (per cell): that tree solved by Hines elimination, serially; the branch
//     points' values written to rhs.
//  4. complete (per slot): forward substitution along the interior with both ends known.
// Every sum runs in a fixed order (no atomics): the same bits every run. walk[s] as in
// branch_sweeps.hpp; position `size[s] - 1` is always the interior's last.
#include "core/hd.hpp"
#include "solvers/branch_sweeps.hpp"
#include "solvers/gpu/reciprocal.hpp"

namespace arbolito::edd_sweeps {

// Per slot, the affine coefficients at both ends of its interior, and u of its first row
// (assemble's coupling to the branch point above; kept here so that h may overwrite u).
enum End { top_y, top_a, top_c, bottom_y, bottom_a, bottom_c, top_u, n_ends };

using branch_sweeps::ahead;  // rows loaded before their arithmetic

// Thomas up slot s's interior with the branch point below as a parameter. Each row ends
// normalised, v_k = G_k - F_k v_(k-1) - H_k v_down (v_(-1) = v_up): F in d, G in rhs, H in
// h (h may be u itself: a row's u is read before its h is written). Then the three parts forward (y: v_up = v_down = 0; a: v_up = 1; c: v_down = 1) for
// the values at the interior's last row.
template <int Ahead = ahead>
ARB_HD void eliminate(int s, const int* first, const int* stride, const int* size, const int* walk, const int* up,
                      const int* down, double* d, const double* u, double* rhs, double* h, double* ends) {
    const int x0 = first[s], st = stride[s], m = size[s], n = walk[s];
    if (m == 0) return;
    const double u_down = down[s] >= 0 ? u[down[s]] : 0.0;  // the branch point couples to row m-1
    const double u_top = u[x0];  // read before h[x0] is written: h may be u itself
    int k = n - 1;
    double dk = d[x0 + k * st], rk = rhs[x0 + k * st], gk = k == m - 1 ? u_down : 0.0;
    for (bool done = false; !done; k -= Ahead) {
        double uu[Ahead], dp[Ahead], rp[Ahead];
        branch_sweeps::load_up<Ahead>(x0, st, k, d, u, rhs, uu, dp, rp);
        ARB_UNROLL
        for (int j = 0; j < Ahead && !done; ++j) {
            const int row = k - j, x = x0 + row * st;
            const double inv = gpu::reciprocal_once(dk), f = gpu::divide_by(uu[j], dk, inv);
            d[x] = f;
            rhs[x] = gpu::divide_by(rk, dk, inv);
            h[x] = gpu::divide_by(gk, dk, inv);
            if (row == 0) {
                done = true;
            } else {
                dk = dp[j] - f * uu[j];
                rk = rp[j] - f * rk;
                gk = row - 1 == m - 1 ? u_down : -f * gk;
            }
        }
    }
    double* e = ends + n_ends * s;
    double y = rhs[x0], a = up[s] >= 0 ? -d[x0] : 0.0, c = -h[x0];
    e[top_y] = y, e[top_a] = a, e[top_c] = c, e[top_u] = u_top;
    for (int i = 1; i < m; i += Ahead) {
        double F[Ahead], G[Ahead], H[Ahead];
        branch_sweeps::load_down<Ahead>(x0, st, i, m, d, rhs, h, F, G, H);
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            if (i + j >= m) break;
            y = G[j] - F[j] * y;
            a = -F[j] * a;
            c = -H[j] - F[j] * c;
        }
    }
    e[bottom_y] = y, e[bottom_a] = a, e[bottom_c] = c;
}

// Junction k's row (its layout index base + k): its own equation, the interior above it
// (its slot, if any) and the interiors hanging from it put in as affine functions.
ARB_HD void assemble(int k, int base, const int* jparent, const int* jslot, const int* child_first,
                     const int* child_slot, const int* first, const double* d, const double* u, const double* rhs,
                     const double* ends, double* D, double* R, double* P, double* Q) {
    const int x = base + k, s = jslot[k];
    double dk = d[x], rk = rhs[x], pk = 0.0, qk = 0.0;
    if (s >= 0) {
        const double* e = ends + n_ends * s;
        dk += u[x] * e[bottom_c];
        rk -= u[x] * e[bottom_y];
        pk = u[x] * e[bottom_a];
        qk = e[top_u] * e[top_c];
    } else if (jparent[k] >= 0) {  // hangs from the junction above directly
        pk = qk = u[x];
    }
    for (int i = child_first[k]; i < child_first[k + 1]; ++i) {
        const int c = child_slot[i];
        const double* e = ends + n_ends * c;
        dk += e[top_u] * e[top_a];
        rk -= e[top_u] * e[top_y];
    }
    D[k] = dk, R[k] = rk, P[k] = pk, Q[k] = qk;
}

// Cell c's junctions (parents first): Hines elimination leaves to root, then values root
// to leaves, written to rhs at base + k; junction k's row (D, R, P, Q and its parent in
// `parent`) at k - row0. Serial per cell, so it goes by windows of Window
// junctions whose rows are loaded together (they do not depend on the chain); a row
// updated or a value needed inside the window stays in registers, the rest goes through
// memory. The same operations in the same order as one junction at a time: the
// same bits. (One at a time, each junction waited for its row's loads and for its parent's
// row through memory: 28 % of EDD's solve on 64-level trees, bench/RESULTS.md call 15g.)
// Divisions by gpu::divide: no division subroutine on the serial path.
template <int Window = 8>
ARB_HD void junctions(int c, int base, const int* cell_first, const int* parent, double* D, double* R,
                      const double* P, const double* Q, double* rhs, int row0 = 0) {
    const int k0 = cell_first[c], k1 = cell_first[c + 1];
    // Elimination, k from k1 - 1 down: the window [top - Window + 1, top].
    for (int top = k1 - 1; top >= k0; top -= Window) {
        int par[Window];
        double dd[Window], rr[Window], pp[Window], qq[Window];
        ARB_UNROLL
        for (int j = 0; j < Window; ++j) {
            const int k = top - j;
            if (k < k0) break;
            const int r = k - row0;
            par[j] = parent[r], dd[j] = D[r], rr[j] = R[r], pp[j] = P[r], qq[j] = Q[r];
        }
        ARB_UNROLL
        for (int j = 0; j < Window; ++j) {
            if (top - j < k0) break;
            const int p = par[j];
            if (p < 0) continue;
            const double f = gpu::divide(qq[j], dd[j]);
            if (p > top - Window) {  // in the window, not yet eliminated (p < k: parents first)
                ARB_UNROLL
                for (int i = j + 1; i < Window; ++i)
                    if (p == top - i) {
                        dd[i] -= f * pp[j];
                        rr[i] -= f * rr[j];
                    }
            } else {
                D[p - row0] -= f * pp[j];
                R[p - row0] -= f * rr[j];
            }
        }
        ARB_UNROLL
        for (int j = 0; j < Window; ++j) {
            const int k = top - j;
            if (k < k0) break;
            D[k - row0] = dd[j], R[k - row0] = rr[j];
        }
    }
    // Values, k from k0 up: the window [first, first + Window - 1].
    for (int first = k0; first < k1; first += Window) {
        int par[Window];
        double dd[Window], rr[Window], pp[Window], v[Window];
        ARB_UNROLL
        for (int j = 0; j < Window; ++j) {
            const int k = first + j;
            if (k >= k1) break;
            const int r = k - row0;
            par[j] = parent[r], dd[j] = D[r], rr[j] = R[r], pp[j] = P[r];
        }
        ARB_UNROLL
        for (int j = 0; j < Window; ++j) {
            const int k = first + j;
            if (k >= k1) break;
            const int p = par[j];
            double vp = 0.0;
            if (p >= first) {  // in the window, already solved (p < k)
                ARB_UNROLL
                for (int i = 0; i < j; ++i)
                    if (p == first + i) vp = v[i];
            } else if (p >= 0) {
                vp = rhs[base + p];
            }
            v[j] = gpu::divide(rr[j] - (p >= 0 ? pp[j] * vp : 0.0), dd[j]);
            rhs[base + k] = v[j];
        }
    }
}

// Slot s's interior from its normalised rows, the branch points' values now in rhs.
template <int Ahead = ahead>
ARB_HD void complete(int s, const int* first, const int* stride, const int* size, const int* walk, const int* up,
                     const int* down, const double* d, double* rhs, const double* h) {
    const int x0 = first[s], st = stride[s], n = walk[s];
    if (size[s] == 0) return;  // an empty slot: padding rows only
    const double v_down = down[s] >= 0 ? rhs[down[s]] : 0.0;
    double v = up[s] >= 0 ? rhs[up[s]] : 0.0;
    for (int i = 0; i < n; i += Ahead) {
        double F[Ahead], G[Ahead], H[Ahead];
        branch_sweeps::load_down<Ahead>(x0, st, i, n, d, rhs, h, F, G, H);
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            if (i + j >= n) return;
            v = G[j] - H[j] * v_down - F[j] * v;
            rhs[x0 + (i + j) * st] = v;
        }
    }
}

}  // namespace arbolito::edd_sweeps
