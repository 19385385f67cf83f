#pragma once
// The per-thread steps of gpu-fine's EDD schedule (FineOptions::edd_rows, fine_layout.hpp):
// one thread per run or junction on the GPU, one call each on the host. Indices are
// block-local as in fine_sweeps.hpp. A block's scratch (FineSchedule::fold_doubles) holds
// per branch what it gives the junction above it (fx: excess gained, fr: its right-hand
// side's term), per run what it gives the junction below it (qx, qr) and the coupling
// between its two junctions once its rows are eliminated (c), and per CV h, a run row's
// coefficient of the junction below.
//
//  1. run_eliminate (every run at once): rows from the distal end up, each normalised,
//     v_i = rn_i - f_i v_(i-1) - h_i v_below (in R, D and h), v_(-1) the junction above.
//  2. junction_eliminate (level by level, deepest first): a junction's excess, right-hand
//     side and pivot with the runs and junctions hanging from it and the run above it put
//     in; what its parent junction gains.
//  3. junction_substitute (level by level from the root): the junctions' values, in R.
//  4. run_complete (every run at once): its rows' values from its two ends.
//
// The arithmetic is gpu-branch's EDD (edd_sweeps.hpp): pivots from excesses (a row's
// diagonal less its couplings' magnitudes, plus what eliminating its neighbours gave it),
// never d - u²/d', so that short runs cost no accuracy (FineLayout.EddAsAccurateAsHines);
// a row's three quotients from one reciprocal. Every sum runs in a fixed order (the
// schedule's child lists): the same bits every run. It is another elimination than the
// serial Hines solve's: other bits, as accurate.
#include <cmath>

#include "core/hd.hpp"
#include "core/reciprocal.hpp"
#include "solvers/edd_sweeps.hpp"

namespace arbolito::fine_edd_sweeps {

struct Scratch {
    double *fx, *fr, *qx, *qr, *c, *h;
};
// The scratch F of a block of n_branches branches (FineSchedule::fold_doubles).
ARB_HD Scratch scratch(double* F, int n_branches) {
    const long nb = n_branches;
    return {F, F + nb, F + 2 * nb, F + 3 * nb, F + 4 * nb, F + 5 * nb};
}

// Run b (slot k of the run level at base, len >= 1 rows; q: the junction below it or -1).
// Row 0's u couples it to the junction above (0 at a cell's root). Each row's operands are
// loaded a row ahead, before the row's chain.
ARB_HD void run_eliminate(int b, int k, int base, const int* pos, int len, int q, double* D, const double* U,
                          double* R, const Scratch& w) {
    const double u_down = q >= 0 ? U[q] : 0.0;
    int i = len - 1, x = base + pos[i] + k;
    double dk = D[x], rk = R[x], uk = U[x];
    double below = u_down, gk = u_down, fb = 0.0, eb = 0.0, gain_down = 0.0, r_down = 0.0;
    for (;;) {
        const int xn = base + pos[i > 0 ? i - 1 : 0] + k;
        const double dn = D[xn], rn = R[xn], un = U[xn];
        const double e = edd_sweeps::excess(dk, uk, below, fb, eb), p = edd_sweeps::pivot(e, uk, gk);
        const double inv = gpu::reciprocal_once(p);
        const double f = gpu::divide_by(uk, p, inv), h = gpu::divide_by(gk, p, inv), y = gpu::divide_by(rk, p, inv);
        D[x] = f, R[x] = y, w.h[x] = h;
        gain_down += std::fabs(h) * e;
        r_down += gk * y;
        if (i == 0) {
            w.fx[b] = std::fabs(f) * e, w.fr[b] = uk * y, w.c[b] = -(uk * h);
            break;
        }
        rk = rn - f * rk, gk = -f * gk, below = uk, fb = f, eb = e;
        dk = dn, uk = un, x = xn, --i;
    }
    w.qx[b] = gain_down, w.qr[b] = r_down;
}

// Junction b at block-local CV x: ur, the run above it (-1: none); pcv, the junction above
// it (-1: none). Its children ch[cb[b] .. cb[b+1]) couple to it through U at their first
// CV: a run's (branch >= run0, first CV run_base + branch - run0), or a junction's of the
// level below (next0, next_base) that hangs from it directly (no run above it). D takes
// the pivot, R the right-hand side; fx, fr what the junction above gains.
ARB_HD void junction_eliminate(int b, int x, int ur, int pcv, const int* cb, const int* ch, int run0, int run_base,
                               int next0, int next_base, const int* up_run, double* D, const double* U, double* R,
                               const Scratch& w) {
    const double ux = U[x];  // to the run above, the junction above, or 0 at the root
    double own = D[x] - std::fabs(ux);
    for (int j = cb[b]; j < cb[b + 1]; ++j) {
        const int c = ch[j];
        const double uc = c >= run0 ? U[run_base + c - run0] : up_run[c] < 0 ? U[next_base + c - next0] : 0.0;
        own -= std::fabs(uc);
    }
    double gain = ur >= 0 ? w.qx[ur] : 0.0, r = R[x] - (ur >= 0 ? w.qr[ur] : 0.0);
    for (int j = cb[b]; j < cb[b + 1]; ++j) {
        const int c = ch[j];
        gain += w.fx[c];
        r -= w.fr[c];
    }
    const double e = own + gain;
    const double coupling = ur >= 0 ? w.c[ur] : pcv >= 0 ? ux : 0.0;
    const double piv = edd_sweeps::junction_pivot(e, coupling);
    const double f = gpu::divide(coupling, piv);
    w.fx[b] = std::fabs(f) * e, w.fr[b] = f * r;
    D[x] = piv, R[x] = r;
}

// Junction x's value, the junction above it (pcv) solved.
ARB_HD void junction_substitute(int x, int ur, int pcv, const double* D, const double* U, double* R,
                                const Scratch& w) {
    const double coupling = pcv < 0 ? 0.0 : ur >= 0 ? w.c[ur] : U[x];
    const double vp = pcv >= 0 ? R[pcv] : 0.0;
    R[x] = gpu::divide(R[x] - coupling * vp, D[x]);
}

// Run (slot k, len rows) from the values of the junctions above (pcv) and below (q).
ARB_HD void run_complete(int k, int base, const int* pos, int len, int pcv, int q, const double* D, double* R,
                         const double* h) {
    const double v_down = q >= 0 ? R[q] : 0.0;
    double v = pcv >= 0 ? R[pcv] : 0.0;
    int x = base + pos[0] + k;
    double f = D[x], y = R[x], hx = h[x];
    for (int i = 0; i < len; ++i) {
        const int xn = base + pos[i + 1 < len ? i + 1 : i] + k;
        const double fn = D[xn], yn = R[xn], hn = h[xn];
        v = y - hx * v_down - f * v;
        R[x] = v;
        f = fn, y = yn, hx = hn, x = xn;
    }
}

}  // namespace arbolito::fine_edd_sweeps
