#pragma once
// Hines elimination of one lane block (lane_layout.hpp): its W cells at once on Lanes<W>,
// every lane the same arithmetic on its cell, so every W gives the bits W = 1 gives. Each
// row's diagonal is inverted once in the backward sweep (the one division per row) and the
// forward sweep multiplies by it: half hines_solve's divisions, which bound the sweeps'
// speed (a vector division issues every 2 cycles per double on current x86 cores), for
// results within rounding of hines_solve's (HinesVsEigen.LaneLayoutEveryWidth: 1e-12
// relative to Eigen's direct solve). Where a row's lanes share their parents' row the
// parent updates are vector loads and stores; otherwise they go lane by lane. Padding rows
// (u = 0, d = 1, rhs = 0) leave their parents unchanged and solve to 0.
#include "core/lanes.hpp"
#include "solvers/lane_layout.hpp"

namespace arbolito {

template <int W>
void lane_hines_solve(const LaneBlocks& blocks, int b, const int* parent, double* d, const double* u, double* rhs) {
    using L = Lanes<W>;
    const int base = blocks.base[b], rows = blocks.rows[b];
    const int* row_parent = blocks.row_parent.data() + blocks.row_begin[b];
    // d is overwritten with 1/d: the forward sweep's factor.
    for (int i = rows - 1; i > 0; --i) {
        const int r = base + i * W;
        const L ui = L::load(u + r), ri = L::load(rhs + r);
        const L inv = L(1.0) / L::load(d + r);
        inv.store(d + r);
        const L f = ui * inv;
        if (const int q = row_parent[i]; q >= 0) {
            const int rp = base + q * W;
            (L::load(d + rp) - f * ui).store(d + rp);
            (L::load(rhs + rp) - f * ri).store(rhs + rp);
        } else {
            for (int l = 0; l < W; ++l) {
                const int p = parent[r + l];
                d[p] -= f[l] * ui[l];
                rhs[p] -= f[l] * ri[l];
            }
        }
    }
    (L::load(rhs + base) * (L(1.0) / L::load(d + base))).store(rhs + base);
    for (int i = 1; i < rows; ++i) {
        const int r = base + i * W, q = row_parent[i];
        const L rp = q >= 0 ? L::load(rhs + base + q * W) : L::gather(rhs, parent + r);
        ((L::load(rhs + r) - L::load(u + r) * rp) * L::load(d + r)).store(rhs + r);
    }
}

// Every block of a lane layout of width W.
template <int W>
void lane_hines_solve_all(const LaneBlocks& blocks, const int* parent, double* d, const double* u, double* rhs) {
    for (int b = 0; b < blocks.n_blocks(); ++b) lane_hines_solve<W>(blocks, b, parent, d, u, rhs);
}

}  // namespace arbolito
