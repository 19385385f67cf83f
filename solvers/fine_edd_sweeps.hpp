#pragma once
// The per-thread steps of gpu-fine's EDD schedule (FineOptions::edd_rows, fine_layout.hpp):
// one thread per run or junction on the GPU, one call each on the host. Indices are
// block-local as in fine_sweeps.hpp. A block's scratch (FineSchedule::fold_doubles) holds
// per branch what it gives the junction above it (fx: excess gained, fr: its right-hand
// side's term; each with a pad slot past the branches, set_fold_pad), per junction what
// the run above it gives it (qx, qr) and its coupling to the junction above (c; through
// that run, once its rows are eliminated); beside it, per CV, h: a run row's coefficient
// of the junction below (stored only for the runs that have one: FineSchedule::h_doubles).
// A junction's CV is its branch number (an EDD block numbers each branch's first CV as
// the branch, but those of its last level).
//
//  1. run_eliminate (every run at once): rows from the distal end up, each normalised,
//     v_i = y_i - f_i v_(i-1) - h_i v_below (in R, D and h), v_(-1) the junction above.
//  2. junction_assemble (every junction at once): its own couplings, the run above it and
//     the runs hanging from it put in.
//  3. junction_eliminate (level by level, deepest first): its junction children's folds
//     put in, its pivot, and what its parent junction gains.
//  4. junction_substitute (level by level from the root): the junctions' values, in R.
//  5. run_complete (every run at once): its rows' values from its two ends.
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
// The scratch F of a block of n_branches branches, n_junctions of them junctions
// (FineSchedule::fold_doubles), and its h (FineSchedule::h_doubles, by CV).
ARB_HD Scratch scratch(double* F, int n_branches, int n_junctions, double* h) {
    const long nb = n_branches + 1, nj = n_junctions;  // fx and fr: the branches and the pad
    return {F, F + nb, F + 2 * nb, F + 2 * nb + nj, F + 2 * nb + 2 * nj, h};
}

// The folds' pad slot (FineSchedule::junction_kids): -0.0 in fx and +0.0 in fr, so that
// adding the one and subtracting the other leave every value's bits as they are.
ARB_HD void set_fold_pad(const Scratch& w, int n_branches) {
    w.fx[n_branches] = -0.0;
    w.fr[n_branches] = 0.0;
}

// A block's junction children table (FineSchedule::junction_kids from its kids0 on).
struct JunctionKids {
    const int* at;  // at[k * n_junctions + b]
    int n_junctions, n;  // n columns, even, at least 2
    ARB_HD int operator()(int k, int b) const { return at[k * n_junctions + b]; }
};

// Run b (slot k of its run level at base, len >= 1 rows; q: the junction below it or -1).
// Row 0's u couples it to the junction above (0 at a cell's root). A GPU issues a warp's
// instructions in order, so the loop is written as it should run: a row's operands were
// loaded two rows ahead, the position of the row after those while this one is
// eliminated (its index waits on that load), and each row's three quotients are stored
// while the next row is (a store waits for its value). The loop's one exit is its test
// (the GPU compiler may unroll it by three, the period of the rows' registers); the last
// row's values are those the loop carries on (fb, eb, below).
ARB_HD void run_eliminate(int b, int k, int base, const int* pos, int len, int q, double* D, const double* U,
                          double* R, const Scratch& w) {
    auto at = [&](int i) { return base + pos[i > 0 ? i : 0] + k; };
    const double u_down = q >= 0 ? U[q] : 0.0;
    int x = at(len - 1), x1 = at(len - 2), x2 = at(len - 3);
    double dk = D[x], rk = R[x], uk = U[x];
    double d1 = D[x1], r1 = R[x1], u1 = U[x1];
    double below = u_down, gk = u_down, fb = 0.0, eb = 0.0, gain_down = 0.0, r_down = 0.0;
    int xs = -1;  // the row whose quotients wait to be stored
    double fs = 0.0, ys = 0.0, hs = 0.0;
    ARB_UNROLL_BY(3)
    for (int i = len - 1; i >= 0; --i) {
        const int x3 = at(i - 3);
        const double d2 = D[x2], r2 = R[x2], u2 = U[x2];
        const double e = edd_sweeps::excess(dk, uk, below, fb, eb), p = edd_sweeps::pivot(e, uk, gk);
        if (xs >= 0) {
            D[xs] = fs, R[xs] = ys;
            if (q >= 0) w.h[xs] = hs;  // a run without a junction below has h = 0: not stored
        }
        const double inv = gpu::reciprocal_once(p);
        const double f = gpu::divide_by(uk, p, inv), h = gpu::divide_by(gk, p, inv), y = gpu::divide_by(rk, p, inv);
        gain_down += std::fabs(h) * e;
        r_down += gk * y;
        xs = x, fs = f, ys = y, hs = h;
        rk = r1 - f * rk, gk = -f * gk, below = uk, fb = f, eb = e;  // the next row's (unused after row 0)
        dk = d1, uk = u1, d1 = d2, r1 = r2, u1 = u2;
        x = x1, x1 = x2, x2 = x3;
    }
    // Row 0: its f, e and u are fb, eb and below now; its y and h, ys and hs.
    w.fx[b] = std::fabs(fb) * eb, w.fr[b] = below * ys;
    if (q >= 0) w.c[q] = -(below * hs);
    D[xs] = fs, R[xs] = ys;
    if (q >= 0) w.h[xs] = hs, w.qx[q] = gain_down, w.qr[q] = r_down;
}

// Junction b (its CV is b: an EDD block numbers each branch's first CV as the branch,
// but a run's without a junction below, leaf0 on, whose first CV is its number plus
// leaf_shift), before the junctions' serial phase, all junctions at once: its own
// couplings (to the run or junction above, ur and pcv, and to each child: a run's first
// row or a junction that hangs from it directly; a junction below a run couples to that
// run), the run above it and the runs hanging from it put in: its excess so far in D,
// right-hand side in R, and in c its coupling to the junction above (0 at the root).
ARB_HD void junction_assemble(int b, int ur, int pcv, const int* cb, const int* ch, int run0, int leaf0, int leaf_shift,
                              const int* up_run, double* D, const double* U, double* R, const Scratch& w) {
    const double ub = U[b];  // to the run above, the junction above, or 0 at the root
    double own = D[b] - std::fabs(ub);
    double gain = ur >= 0 ? w.qx[b] : 0.0, r = R[b] - (ur >= 0 ? w.qr[b] : 0.0);
    // One pass over the children, without a branch per child: what a child does not put
    // in is -0.0 added or +0.0 subtracted, which leave every value's bits as they are (the
    // three sums keep their own orders).
    for (int j = cb[b]; j < cb[b + 1]; ++j) {
        const int c = ch[j];
        const bool run = c >= run0;
        const double u_c = std::fabs(U[c < leaf0 ? c : c + leaf_shift]), fx = w.fx[c], fr = w.fr[c];
        own -= run || up_run[c] < 0 ? u_c : 0.0;
        gain += run ? fx : -0.0;
        r -= run ? fr : 0.0;
    }
    D[b] = own + gain, R[b] = r;
    if (ur < 0) w.c[b] = pcv >= 0 ? ub : 0.0;  // else the run above wrote it
}

// Junction b's operands that nothing of the level below it writes (its excess and
// right-hand side so far, coupling, its first two junction children or the pad): loaded
// before that level's barrier, so that after it a junction waits only for its children's
// folds.
struct JunctionAhead {
    int b, k0, k1;
    double e, r, c;
};
ARB_HD JunctionAhead junction_ahead(int b, const JunctionKids& kids, const double* D, const double* R,
                                    const Scratch& w) {
    return {b, kids(0, b), kids(1, b), D[b], R[b], w.c[b]};
}

// Junction b (a), its junction children eliminated: their folds put in, in list order (the
// pads change nothing), two at a time; its pivot, right-hand side, and what the junction
// above gains (fx, fr). junction_folds loads the first two children's folds, which the
// GPU's tree issues before anything else of a level (junctions_on_warp).
struct JunctionFolds {
    double x0, y0, x1, y1;
};
ARB_HD JunctionFolds junction_folds(const JunctionAhead& a, const Scratch& w) {
    return {w.fx[a.k0], w.fr[a.k0], w.fx[a.k1], w.fr[a.k1]};
}
struct JunctionPivot {
    double piv, r, fx, fr;
};
ARB_HD JunctionPivot pivot_junction(const JunctionAhead& a, const JunctionFolds& f, const JunctionKids& kids,
                                    const Scratch& w) {
    double e = a.e, r = a.r;
    e += f.x0, r -= f.y0;
    e += f.x1, r -= f.y1;
    ARB_UNROLL_BY(1)  // rare (a junction with more than two junction children): no code beside the common path
    for (int k = 2; k < kids.n; k += 2) {
        const int c0 = kids(k, a.b), c1 = kids(k + 1, a.b);
        const double xa = w.fx[c0], ya = w.fr[c0], xb = w.fx[c1], yb = w.fr[c1];
        e += xa, r -= ya;
        e += xb, r -= yb;
    }
    const double piv = edd_sweeps::junction_pivot(e, a.c);
    const double f_up = gpu::divide(a.c, piv);
    return {piv, r, std::fabs(f_up) * e, f_up * r};
}
ARB_HD void junction_store(int b, const JunctionPivot& p, double* D, double* R, const Scratch& w) {
    w.fx[b] = p.fx, w.fr[b] = p.fr;
    D[b] = p.piv, R[b] = p.r;
}
ARB_HD void junction_eliminate(const JunctionAhead& a, const JunctionKids& kids, double* D, double* R,
                               const Scratch& w) {
    junction_store(a.b, pivot_junction(a, junction_folds(a, w), kids, w), D, R, w);
}

// Junction b's operands for its value, loaded before the barrier of the level above it
// (its pivot's reciprocal taken there too): after it, only the value above is awaited.
struct SubstituteAhead {
    int b, pcv;
    double r, c, d, inv;
};
ARB_HD SubstituteAhead substitute_ahead(int b, int pcv, const double* D, const double* R, const Scratch& w) {
    const double d = D[b];
    return {b, pcv, R[b], w.c[b], d, gpu::reciprocal_once(d)};
}

// Junction b's value (a), given the value vp above it (0 at the root): divide's arithmetic.
ARB_HD double junction_value(const SubstituteAhead& a, double vp) { return gpu::divide_by(a.r - a.c * vp, a.d, a.inv); }
ARB_HD void junction_substitute(const SubstituteAhead& a, double* R) {
    R[a.b] = junction_value(a, a.pcv >= 0 ? R[a.pcv] : 0.0);
}

// Run (slot k, len >= 1 rows) from the values of the junctions above (pcv) and below (q):
// row i's value while row i+1's operands are in flight, row i+2's loads issued and row
// i+3's position loaded (the rows' chain is two operations; the loads are the work). The
// loop's one exit is its test, as above.
ARB_HD void run_complete(int k, int base, const int* pos, int len, int pcv, int q, const double* D, double* R,
                         const double* h) {
    const int last = len - 1;
    auto at = [&](int i) { return base + pos[i < last ? i : last] + k; };
    const double v_down = q >= 0 ? R[q] : 0.0;
    double v = pcv >= 0 ? R[pcv] : 0.0;
    // Without a junction below, h is 0 (and not stored): 0 · 0 subtracted, the same bits.
    const auto h_at = [&](int x) { return q >= 0 ? h[x] : 0.0; };
    int x0 = at(0), x1 = at(1), x2 = at(2);
    double f0 = D[x0], y0 = R[x0], h0 = h_at(x0);
    double f1 = D[x1], y1 = R[x1], h1 = h_at(x1);
    ARB_UNROLL_BY(3)
    for (int i = 0; i <= last; ++i) {
        const int x3 = at(i + 3);
        const double f2 = D[x2], y2 = R[x2], h2 = h_at(x2);
        v = y0 - h0 * v_down - f0 * v;
        R[x0] = v;
        x0 = x1, x1 = x2, x2 = x3;
        f0 = f1, y0 = y1, h0 = h1;
        f1 = f2, y1 = y2, h1 = h2;
    }
}

}  // namespace arbolito::fine_edd_sweeps
