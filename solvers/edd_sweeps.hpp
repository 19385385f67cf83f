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
#include "core/reciprocal.hpp"

namespace arbolito::edd_sweeps {

// Per slot, the affine coefficients at both ends of its interior, and u of its first row
// (assemble's coupling to the branch point above; kept here so that h may overwrite u).
enum End { top_y, top_a, top_c, bottom_y, bottom_a, bottom_c, top_u, n_ends };

using branch_sweeps::ahead;  // rows loaded before their arithmetic

// Thomas up slot s's interior with the branch point below as a parameter. Each row ends
// normalised, v_k = G_k - F_k v_(k-1) - H_k v_down (v_(-1) = v_up): F in d, G in rhs, H in
// h (h may be u itself: a row's u is read before its h is written). Then the three parts
// forward (y: v_up = v_down = 0; a: v_up = 1; c: v_down = 1) for the values at the
// interior's last row.
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
                     const int* child_slot, const double* d, const double* u, const double* rhs, const double* ends,
                     double* D, double* R, double* P, double* Q) {
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
// row through memory: 28 % of EDD's solve on 64-level trees, H100, Nsight Compute.)
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

// By tiles (hines_gpu_branch.cu's edd_tiles; edd_layout_solve on a tiled schedule): the
// four steps on one tile's rows with h over u, each slot's ends as TileEnd, and each
// junction's D, R and P written over its own row's d, rhs and u (Q apart): less memory
// a row and a slot, so that more cells fit a block's shared memory.
// A tile's ends per slot: the affine coefficients of its interior's last row and the u of
// its first row (End's others are read from the first row itself: y = rhs,
// a = -d, c = -h).
enum TileEnd { tile_bottom_y, tile_bottom_a, tile_bottom_c, tile_top_u, n_tile_ends };

// eliminate and complete for a tile's rows (in shared memory on the GPU), h over u: the same
// arithmetic in the same order (the same bits: BranchLayout.EddTilesSameBits on the host,
// GpuBranch.EddTilesSameBitsAsUntiled on the GPU), with
// the control flow the generic loops pay per row taken out: a running pointer per array
// for the row index products, the padding rows (past the slot's size) and the real ones
// in separate loops for the per-row choice of the branch point's coupling, and no bounds
// tests on loads that the real rows' loop never needs.
ARB_HD void tile_eliminate(int s, const int* first, const int* stride, const int* size, const int* walk,
                               const int* up, const int* down, double* d, double* u, double* rhs, double* ends) {
    const int x0 = first[s], st = stride[s], m = size[s], n = walk[s];
    if (m == 0) return;
    const double u_down = down[s] >= 0 ? u[down[s]] : 0.0;
    const double u_top = u[x0];
    int row = n - 1;
    double* pd = d + x0 + row * st;
    double* pu = u + x0 + row * st;
    double* pr = rhs + x0 + row * st;
    double dk = *pd, rk = *pr, gk = row == m - 1 ? u_down : 0.0;
    for (; row >= m; --row, pd -= st, pu -= st, pr -= st) {  // padding rows (row >= m >= 1)
        const double uu = *pu, dp = pd[-st], rp = pr[-st];
        const double inv = gpu::reciprocal_once(dk), f = gpu::divide_by(uu, dk, inv);
        *pd = f;
        *pr = gpu::divide_by(rk, dk, inv);
        *pu = gpu::divide_by(gk, dk, inv);
        dk = dp - f * uu;
        rk = rp - f * rk;
        gk = row - 1 == m - 1 ? u_down : -f * gk;
    }
ARB_UNROLL_BY(2)
    for (; row >= 1; --row, pd -= st, pu -= st, pr -= st) {  // the real rows above the first
        const double uu = *pu, dp = pd[-st], rp = pr[-st];
        const double inv = gpu::reciprocal_once(dk), f = gpu::divide_by(uu, dk, inv);
        *pd = f;
        *pr = gpu::divide_by(rk, dk, inv);
        *pu = gpu::divide_by(gk, dk, inv);
        dk = dp - f * uu;
        rk = rp - f * rk;
        gk = -f * gk;
    }
    {  // row 0
        const double uu = *pu, inv = gpu::reciprocal_once(dk), f = gpu::divide_by(uu, dk, inv);
        *pd = f;
        *pr = gpu::divide_by(rk, dk, inv);
        *pu = gpu::divide_by(gk, dk, inv);
    }
    double* e = ends + n_tile_ends * s;
    double y = rhs[x0], a = up[s] >= 0 ? -d[x0] : 0.0, c = -u[x0];
    e[tile_top_u] = u_top;
    const double *F = d + x0, *G = rhs + x0, *H = u + x0;
ARB_UNROLL_BY(4)
    for (int i = 1; i < m; ++i) {
        F += st, G += st, H += st;
        y = *G - *F * y;
        a = -*F * a;
        c = -*H - *F * c;
    }
    e[tile_bottom_y] = y, e[tile_bottom_a] = a, e[tile_bottom_c] = c;
}

// assemble for a tile: the same arithmetic, the top coefficients of a slot read
// from its first row (as tile_eliminate left it), and the junction's D, R and P written
// over its own row's d, rhs and u (read first; no other junction reads them), Q apart.
ARB_HD void tile_assemble(int k, int base, const int* jparent, const int* jslot, const int* child_first,
                              const int* child_slot, const int* first, const int* up, double* d, double* u,
                              double* rhs, const double* ends, double* Q) {
    const int x = base + k, s = jslot[k];
    double dk = d[x], rk = rhs[x], pk = 0.0, qk = 0.0;
    const double ux = u[x];
    if (s >= 0) {
        const double* e = ends + n_tile_ends * s;
        dk += ux * e[tile_bottom_c];
        rk -= ux * e[tile_bottom_y];
        pk = ux * e[tile_bottom_a];
        qk = e[tile_top_u] * -u[first[s]];
    } else if (jparent[k] >= 0) {  // hangs from the junction above directly
        pk = qk = ux;
    }
    for (int i = child_first[k]; i < child_first[k + 1]; ++i) {
        const int c = child_slot[i], x0 = first[c];
        const double* e = ends + n_tile_ends * c;
        dk += e[tile_top_u] * (up[c] >= 0 ? -d[x0] : 0.0);
        rk -= e[tile_top_u] * rhs[x0];
    }
    d[x] = dk, rhs[x] = rk, u[x] = pk, Q[k] = qk;
}

ARB_HD void tile_complete(int s, const int* first, const int* stride, const int* size, const int* walk,
                              const int* up, const int* down, const double* d, double* rhs, const double* h) {
    const int x0 = first[s], st = stride[s], n = walk[s];
    if (size[s] == 0) return;
    const double v_down = down[s] >= 0 ? rhs[down[s]] : 0.0;
    double v = up[s] >= 0 ? rhs[up[s]] : 0.0;
    const double *F = d + x0, *H = h + x0;
    double* G = rhs + x0;
ARB_UNROLL_BY(4)
    for (int i = 0; i < n; ++i, F += st, G += st, H += st) {
        v = *G - *H * v_down - *F * v;
        *G = v;
    }
}

// junctions<1> for a tile's cell (its rows in shared memory on the GPU): the same arithmetic
// in the same order (the same bits), but the row a junction has just updated (its parent's
// D and R) and the value it has just solved are also kept in registers, and the next
// junction takes them from there when it is that parent (a chain of cut runs) or a
// sibling: the serial chain then does not wait on shared memory between junctions.
// (Windows of 2, 4 and 8 junctions, junctions<N>, took 72-178 registers against
// 56 and were slower here, H100.)
ARB_HD void tile_junctions(int c, int base, const int* cell_first, const int* parent, double* D, double* R,
                               const double* P, const double* Q, double* rhs, int row0) {
    const int k0 = cell_first[c], k1 = cell_first[c + 1];
    int held = -1;  // the junction whose D and R (also in memory) are in dh, rh
    double dh = 0.0, rh = 0.0;
    for (int k = k1 - 1; k >= k0; --k) {  // elimination, leaves to root
        const int r = k - row0, p = parent[r];
        if (p < 0) continue;
        const double dd = held == k ? dh : D[r], rr = held == k ? rh : R[r];
        const double f = gpu::divide(Q[r], dd);
        const int rp = p - row0;
        const double dn = (held == p ? dh : D[rp]) - f * P[r];
        const double rn = (held == p ? rh : R[rp]) - f * rr;
        D[rp] = dn, R[rp] = rn;
        held = p, dh = dn, rh = rn;
    }
    int last = -1;  // the junction whose value (also in rhs) is in vl
    double vl = 0.0;
    for (int k = k0; k < k1; ++k) {  // values, root to leaves
        const int r = k - row0, p = parent[r];
        double vp = 0.0;
        if (p >= 0) vp = p == last ? vl : rhs[base + p];
        const double v = gpu::divide(R[r] - (p >= 0 ? P[r] * vp : 0.0), D[r]);
        rhs[base + k] = v;
        last = k, vl = v;
    }
}

}  // namespace arbolito::edd_sweeps
