#pragma once
// The steps of the EDD coupling (Exact Domain Decomposition, Mascagni; branch_layout.hpp),
// one thread each on the GPU, one call each on the host:
//  1. eliminate (per slot): Thomas up a branch's interior; its solution is then affine in
//     the values of the branch points at its two ends, v = y + a v_up + c v_down; the
//     coefficients at its first and last position go to `ends`, but y at its last into
//     the right-hand side of the branch point below (which no other slot writes).
//  2. assemble (per junction): the junction system's row, each branch point's equation
//     with its neighbours' affine values put in: excess E (below), right-hand side R, the
//     coefficient P of the junction above and the coefficient Q of this one in the row of
//     the junction above (the system is a tree, like the cell's).
//  3. junctions (per cell): that tree solved by Hines elimination, serially; the branch
//     points' values written to rhs.
//  4. complete (per slot): forward substitution along the interior with both ends known.
// Every sum runs in a fixed order (no atomics): the same bits every run. walk[s] as in
// branch_sweeps.hpp; position `size[s] - 1` is always the interior's last.
//
// Pivots from excesses, without cancellation: a row's excess is its diagonal less the
// magnitudes of its couplings (the membrane and capacitance term, tiny against the axial
// conductances of small CVs). Eliminating a row whose pivot is p and excess e adds
// |coupling| e / p to each neighbour's excess (its pivot loses coupling² / p but its
// coupling sum loses more), so every excess is a sum of positive terms and every pivot
// is an excess plus coupling magnitudes: d - u² / d' is never formed. Each row's own
// excess is d less its couplings once (within an ulp or two of d: what the assembled d
// holds anyway). Formed by subtraction, a short run's junction row subtracted u² / d from
// a pivot whose excess over its couplings was still the membrane term, where serial Hines
// subtracts from pivots whose excess has grown along the branch: with runs of 1 CV (cut=1)
// on 0.67-um CVs EDD lost 3.5e-6 mV over a 40-ms run against serial Hines' 4.2e-8
// (bench/RESULTS.md, "Host: why EDD with 1-CV runs misses"); from excesses every cut is
// as accurate as serial Hines (BranchLayout.EddAsAccurateAsHinesOnStiffCells).
#include <cmath>

#include "core/hd.hpp"
#include "solvers/branch_sweeps.hpp"
#include "core/reciprocal.hpp"

namespace arbolito::edd_sweeps {

// Per slot, the affine coefficients at both ends of its interior that assemble needs, u of
// its first row (its coupling to the branch point above; kept here so that h may overwrite
// u), and what eliminating the interior adds to the excesses of the branch points above
// and below.
enum End { top_y, top_c, top_u, top_excess, bottom_a, bottom_excess, n_ends };

using branch_sweeps::ahead;  // rows loaded before their arithmetic

// A row's excess: its diagonal less its couplings above and below, plus what eliminating
// the row below it gave, |f| e of that row (0 for the first row eliminated). Every product
// here is in the one expression with the sum it feeds, so that the device contracts it
// alike wherever this is inlined (the tiled and untiled steps' same bits).
ARB_HD double excess(double d, double above, double below, double f_below, double e_below) {
    return d - std::fabs(above) - std::fabs(below) + std::fabs(f_below) * e_below;
}

// A row's pivot: its excess plus the couplings it still has (above, and to the branch
// point below).
ARB_HD double pivot(double e, double above, double g) { return e + (std::fabs(above) + std::fabs(g)); }

// Thomas up slot s's interior with the branch point below as a parameter. Each row ends
// normalised, v_k = G_k - F_k v_(k-1) - H_k v_down (v_(-1) = v_up): F in d, G in rhs, H in
// h (h may be u itself: a row's u is read before its h is written). Then the forward parts
// (y: v_up = v_down = 0; a: v_up = 1) for the values at the interior's last row, y
// put into the right-hand side of the branch point below (assemble's first term). Pivots
// from excesses (above): the rows' excesses move up the interior, and each row gives the
// branch point below |H_k| e_k (row 0 the one above |F_0| e_0).
template <int Ahead = ahead>
ARB_HD void eliminate(int s, const int* first, const int* stride, const int* size, const int* walk, const int* up,
                      const int* down, double* d, const double* u, double* rhs, double* h, double* ends) {
    const int x0 = first[s], st = stride[s], m = size[s], n = walk[s];
    if (m == 0) return;
    const bool top = up[s] >= 0;  // row 0 couples to a branch point above (not the cell's root)
    const double u_down = down[s] >= 0 ? u[down[s]] : 0.0;  // the branch point couples to row m-1
    const double u_top = u[x0];  // read before h[x0] is written: h may be u itself
    int k = n - 1;
    // The row at hand: its diagonal, coupling below, the f and excess of the row below, its
    // rhs and its coupling to v_down.
    double dk = d[x0 + k * st], below = k == m - 1 ? u_down : 0.0, fb = 0.0, eb = 0.0, rk = rhs[x0 + k * st];
    double gk = below, excess_top = 0.0, excess_down = 0.0;
    for (bool done = false; !done; k -= Ahead) {
        double uu[Ahead], dp[Ahead], rp[Ahead];
        branch_sweeps::load_up<Ahead>(x0, st, k, d, u, rhs, uu, dp, rp);
        ARB_UNROLL
        for (int j = 0; j < Ahead && !done; ++j) {
            const int row = k - j, x = x0 + row * st;
            const double above = row > 0 || top ? uu[j] : 0.0;
            const double e = excess(dk, above, below, fb, eb), p = pivot(e, above, gk);
            const double inv = gpu::reciprocal_once(p), f = gpu::divide_by(above, p, inv);
            const double hk = gpu::divide_by(gk, p, inv);
            d[x] = f;
            rhs[x] = gpu::divide_by(rk, p, inv);
            h[x] = hk;
            excess_down += std::fabs(hk) * e;
            if (row == 0) {
                excess_top = std::fabs(f) * e;
                done = true;
            } else {
                dk = dp[j], fb = f, eb = e;
                below = row - 1 == m - 1 ? u_down : uu[j];
                rk = rp[j] - f * rk;
                gk = row - 1 == m - 1 ? u_down : -f * gk;
            }
        }
    }
    double* e = ends + n_ends * s;
    double y = rhs[x0], a = top ? -d[x0] : 0.0;
    e[top_y] = y, e[top_c] = -h[x0], e[top_u] = u_top, e[top_excess] = excess_top;
    for (int i = 1; i < m; i += Ahead) {
        double F[Ahead], G[Ahead];
        branch_sweeps::load_down<Ahead>(x0, st, i, m, d, rhs, nullptr, F, G, nullptr);
        ARB_UNROLL
        for (int j = 0; j < Ahead; ++j) {
            if (i + j >= m) break;
            y = G[j] - F[j] * y;
            a = -F[j] * a;
        }
    }
    e[bottom_a] = a, e[bottom_excess] = excess_down;
    if (down[s] >= 0) rhs[down[s]] = rhs[down[s]] - u_down * y;
}

// Junction k's row (its layout index base + k): its own equation, the interior above it
// (its slot, if any; its y already in rhs) and the interiors hanging from it put in as
// affine functions; in E its excess over P and the Q of the junctions below it: the
// branch point's diagonal less all its couplings, plus what eliminating the interiors gave
// it. A junction hanging directly from another couples to it by its u: P = Q = u; its
// parent lists it among its children as -1 - its number (Junctions::child_slot).
ARB_HD void assemble(int k, int base, const int* jparent, const int* jslot, const int* child_first,
                     const int* child_slot, const double* d, const double* u, const double* rhs, const double* ends,
                     double* E, double* R, double* P, double* Q) {
    const int x = base + k, s = jslot[k];
    const double above = s >= 0 || jparent[k] >= 0 ? u[x] : 0.0;  // none at the cell's root
    double own = d[x] - std::fabs(above), gain = 0.0, rk = rhs[x], pk = 0.0, qk = 0.0;
    if (s >= 0) {
        const double* e = ends + n_ends * s;
        gain = e[bottom_excess];
        pk = u[x] * e[bottom_a];
        qk = e[top_u] * e[top_c];
    } else if (jparent[k] >= 0) {  // hangs from the junction above directly
        pk = qk = u[x];
    }
    for (int i = child_first[k]; i < child_first[k + 1]; ++i) {
        const int c = child_slot[i];
        if (c < 0) {  // a junction hanging from this one directly
            own -= std::fabs(u[base - 1 - c]);
            continue;
        }
        const double* e = ends + n_ends * c;
        own -= std::fabs(e[top_u]);
        gain += e[top_excess];
        rk -= e[top_u] * e[top_y];
    }
    E[k] = own + gain, R[k] = rk, P[k] = pk, Q[k] = qk;
}

// Junction k's elimination into its parent (the step every junction but a cell's first
// takes, leaves to root): its pivot from its excess e and coupling P, the quotient
// f = Q / pivot, and the parent's excess gaining |Q| e / pivot = |f| e (parent_excess).
struct JunctionStep {
    double pivot, f, e;
};
ARB_HD double junction_pivot(double e, double p) { return e + std::fabs(p); }
ARB_HD JunctionStep junction_step(double e, double p, double q) {
    const double piv = junction_pivot(e, p);
    return {piv, gpu::divide(q, piv), e};
}
ARB_HD double parent_excess(double e, const JunctionStep& st) { return e + std::fabs(st.f) * st.e; }

// Cell c's junctions (parents first): Hines elimination leaves to root, then values root
// to leaves, written to rhs at base + k; junction k's row (E, R, P, Q and its parent in
// `parent`) at k - row0. E holds each junction's excess (assemble), then its pivot. Serial per cell, so it goes by windows of Window
// junctions whose rows are loaded together (they do not depend on the chain); a row
// updated or a value needed inside the window stays in registers, the rest goes through
// memory. The same operations in the same order as one junction at a time: the
// same bits. (One at a time, each junction waited for its row's loads and for its parent's
// row through memory: 28 % of EDD's solve on 64-level trees, H100, Nsight Compute.)
// Divisions by gpu::divide: no division subroutine on the serial path.
template <int Window = 8>
ARB_HD void junctions(int c, int base, const int* cell_first, const int* parent, double* E, double* R,
                      const double* P, const double* Q, double* rhs, int row0 = 0) {
    const int k0 = cell_first[c], k1 = cell_first[c + 1];
    // Elimination, k from k1 - 1 down: the window [top - Window + 1, top].
    for (int top = k1 - 1; top >= k0; top -= Window) {
        int par[Window];
        double ee[Window], rr[Window], pp[Window], qq[Window];
        ARB_UNROLL
        for (int j = 0; j < Window; ++j) {
            const int k = top - j;
            if (k < k0) break;
            const int r = k - row0;
            par[j] = parent[r], ee[j] = E[r], rr[j] = R[r], pp[j] = P[r], qq[j] = Q[r];
        }
        ARB_UNROLL
        for (int j = 0; j < Window; ++j) {
            if (top - j < k0) break;
            const int p = par[j];
            if (p < 0) continue;
            const JunctionStep st = junction_step(ee[j], pp[j], qq[j]);
            ee[j] = st.pivot;
            if (p > top - Window) {  // in the window, not yet eliminated (p < k: parents first)
                ARB_UNROLL
                for (int i = j + 1; i < Window; ++i)
                    if (p == top - i) {
                        ee[i] = parent_excess(ee[i], st);
                        rr[i] -= st.f * rr[j];
                    }
            } else {
                E[p - row0] = parent_excess(E[p - row0], st);
                R[p - row0] -= st.f * rr[j];
            }
        }
        ARB_UNROLL
        for (int j = 0; j < Window; ++j) {
            const int k = top - j;
            if (k < k0) break;
            E[k - row0] = ee[j], R[k - row0] = rr[j];
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
            par[j] = parent[r], dd[j] = E[r], rr[j] = R[r], pp[j] = P[r];
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
        double F[Ahead], G[Ahead], H[Ahead] = {};  // all loaded (h is not null): GCC cannot tell
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
// junction's E, R and P written over its own row's d, rhs and u (Q apart): less memory
// a row and a slot, so that more cells fit a block's shared memory.
// A tile's ends per slot: End's but the top's coefficients, read from the first row
// itself (y = rhs, c = -h).
enum TileEnd { tile_bottom_a, tile_bottom_excess, tile_top_u, tile_top_excess, n_tile_ends };

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
    const bool top = up[s] >= 0;
    const double u_down = down[s] >= 0 ? u[down[s]] : 0.0;
    const double u_top = u[x0];
    int row = n - 1;
    double* pd = d + x0 + row * st;
    double* pu = u + x0 + row * st;
    double* pr = rhs + x0 + row * st;
    double dk = *pd, below = row == m - 1 ? u_down : 0.0, fb = 0.0, eb = 0.0, rk = *pr, gk = below;
    double excess_down = 0.0;
    for (; row >= m; --row, pd -= st, pu -= st, pr -= st) {  // padding rows (row >= m >= 1)
        const double uu = *pu, dp = pd[-st], rp = pr[-st];
        const double e = excess(dk, uu, below, fb, eb), p = pivot(e, uu, gk);
        const double inv = gpu::reciprocal_once(p), f = gpu::divide_by(uu, p, inv);
        const double hk = gpu::divide_by(gk, p, inv);
        *pd = f;
        *pr = gpu::divide_by(rk, p, inv);
        *pu = hk;
        excess_down += std::fabs(hk) * e;
        dk = dp, fb = f, eb = e;
        below = row - 1 == m - 1 ? u_down : uu;
        rk = rp - f * rk;
        gk = row - 1 == m - 1 ? u_down : -f * gk;
    }
ARB_UNROLL_BY(2)
    for (; row >= 1; --row, pd -= st, pu -= st, pr -= st) {  // the real rows above the first
        const double uu = *pu, dp = pd[-st], rp = pr[-st];
        const double e = excess(dk, uu, below, fb, eb), p = pivot(e, uu, gk);
        const double inv = gpu::reciprocal_once(p), f = gpu::divide_by(uu, p, inv);
        const double hk = gpu::divide_by(gk, p, inv);
        *pd = f;
        *pr = gpu::divide_by(rk, p, inv);
        *pu = hk;
        excess_down += std::fabs(hk) * e;
        dk = dp, fb = f, eb = e;
        below = uu;
        rk = rp - f * rk;
        gk = -f * gk;
    }
    double excess_top;
    {  // row 0
        const double above = top ? *pu : 0.0;
        const double e = excess(dk, above, below, fb, eb), p = pivot(e, above, gk);
        const double inv = gpu::reciprocal_once(p), f = gpu::divide_by(above, p, inv);
        const double hk = gpu::divide_by(gk, p, inv);
        *pd = f;
        *pr = gpu::divide_by(rk, p, inv);
        *pu = hk;
        excess_down += std::fabs(hk) * e;
        excess_top = std::fabs(f) * e;
    }
    double* e = ends + n_tile_ends * s;
    double y = rhs[x0], a = top ? -d[x0] : 0.0;
    e[tile_top_u] = u_top, e[tile_top_excess] = excess_top;
    const double *F = d + x0, *G = rhs + x0;
ARB_UNROLL_BY(4)
    for (int i = 1; i < m; ++i) {
        F += st, G += st;
        y = *G - *F * y;
        a = -*F * a;
    }
    e[tile_bottom_a] = a, e[tile_bottom_excess] = excess_down;
    if (down[s] >= 0) rhs[down[s]] = rhs[down[s]] - u_down * y;
}

// assemble for a tile: the same arithmetic, the top coefficients of a slot read
// from its first row (as tile_eliminate left it), and the junction's E, R and P written
// over its own row's d, rhs and u (read first; no other junction reads its d and rhs, and
// its u only where it hangs from its parent directly, where P is u and is not written), Q
// apart.
ARB_HD void tile_assemble(int k, int base, const int* jparent, const int* jslot, const int* child_first,
                          const int* child_slot, const int* first, double* d, double* u, double* rhs,
                          const double* ends, double* Q) {
    const int x = base + k, s = jslot[k];
    const double ux = u[x], above = s >= 0 || jparent[k] >= 0 ? ux : 0.0;
    double own = d[x] - std::fabs(above), gain = 0.0, rk = rhs[x], pk = 0.0, qk = 0.0;
    if (s >= 0) {
        const double* e = ends + n_tile_ends * s;
        gain = e[tile_bottom_excess];
        pk = ux * e[tile_bottom_a];
        qk = e[tile_top_u] * -u[first[s]];
    } else if (jparent[k] >= 0) {  // hangs from the junction above directly
        pk = qk = ux;
    }
    for (int i = child_first[k]; i < child_first[k + 1]; ++i) {
        const int c = child_slot[i];
        if (c < 0) {  // a junction hanging from this one directly
            own -= std::fabs(u[base - 1 - c]);
            continue;
        }
        const double* e = ends + n_tile_ends * c;
        own -= std::fabs(e[tile_top_u]);
        gain += e[tile_top_excess];
        rk -= e[tile_top_u] * rhs[first[c]];
    }
    d[x] = own + gain, rhs[x] = rk, Q[k] = qk;
    if (s >= 0) u[x] = pk;  // else P is u (or unused: a cell's first)
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
// E and R) and the value it has just solved are also kept in registers, and the next
// junction takes them from there when it is that parent (a chain of cut runs) or a
// sibling: the serial chain then does not wait on shared memory between junctions.
// Nor on loads: each junction's operands (P, Q, its own E and R, its parent's E and R; in
// the values P, E, R and its parent's value) are loaded one junction ahead, before the
// junction at hand stores anything, and each parent two ahead (the parent's row is the
// address); the pivot, E + |P|, wants P first thing. A value loaded ahead is stale only
// where the junction before wrote it (its parent's E and R, or its value), and that one
// is held in registers and taken instead. The pivots are not stored: the values form each
// again from the excess that E keeps (junction_pivot, the same addition: the same bits).
// (Windows of 2, 4 and 8 junctions, junctions<N>, took 72-178 registers against
// 56 and were slower here: H100.)
ARB_HD void tile_junctions(int c, int base, const int* cell_first, const int* parent, double* E, double* R,
                           const double* P, const double* Q, double* rhs, int row0) {
    const int k0 = cell_first[c], k1 = cell_first[c + 1];
    if (k1 <= k0) return;
    // Junction k's row; past the cell's first (leaves to root) or last (root to leaves)
    // junction that one's: loads ahead without a branch, their values unused.
    const auto below = [&](int k) { return (k < k0 ? k0 : k) - row0; };
    const auto above = [&](int k) { return (k >= k1 ? k1 - 1 : k) - row0; };
    int held = -1;  // the junction whose E and R (also in memory) are in eh, rh
    double eh = 0.0, rh = 0.0;
    // The next junction's parent and operands, and the parent of the one after it.
    int np = parent[below(k1 - 1)], nnp = parent[below(k1 - 2)];
    double nP, nQ, nE, nR, nEp, nRp;
    {
        const int r = below(k1 - 1), rp = np >= 0 ? np - row0 : r;
        nP = P[r], nQ = Q[r], nE = E[r], nR = R[r], nEp = E[rp], nRp = R[rp];
    }
    for (int k = k1 - 1; k >= k0; --k) {  // elimination, leaves to root
        const int p = np;
        const double pk = nP, qk = nQ, ek = nE, rk = nR, ep = nEp, rp = nRp;
        {  // junction k - 1's operands, before junction k's stores
            const int r = below(k - 1), rq = nnp >= 0 ? nnp - row0 : r;
            nP = P[r], nQ = Q[r], nE = E[r], nR = R[r], nEp = E[rq], nRp = R[rq];
            np = nnp, nnp = parent[below(k - 2)];
        }
        if (p < 0) continue;
        const double ee = held == k ? eh : ek, rr = held == k ? rh : rk;
        const JunctionStep st = junction_step(ee, pk, qk);
        const double en = parent_excess(held == p ? eh : ep, st);
        const double rn = (held == p ? rh : rp) - st.f * rr;
        E[p - row0] = en, R[p - row0] = rn;
        held = p, eh = en, rh = rn;
    }
    int last = -1;  // the junction whose value (also in rhs) is in vl
    double vl = 0.0, nV;
    np = parent[above(k0)], nnp = parent[above(k0 + 1)];
    {
        const int r = above(k0);
        nP = P[r], nE = E[r], nR = R[r], nV = rhs[base + (np >= 0 ? np : k0)];
    }
    for (int k = k0; k < k1; ++k) {  // values, root to leaves
        const int p = np;
        const double pk = nP, ek = nE, rk = nR, vm = nV;
        {  // junction k + 1's operands, before junction k's store
            const int r = above(k + 1);
            nP = P[r], nE = E[r], nR = R[r], nV = rhs[base + (nnp >= 0 ? nnp : k0)];
            np = nnp, nnp = parent[above(k + 2)];
        }
        const double vp = p >= 0 ? (p == last ? vl : vm) : 0.0;
        const double piv = p >= 0 ? junction_pivot(ek, pk) : ek;
        const double v = gpu::divide(rk - (p >= 0 ? pk * vp : 0.0), piv);
        rhs[base + k] = v;
        last = k, vl = v;
    }
}

}  // namespace arbolito::edd_sweeps
