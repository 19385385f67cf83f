#pragma once
// Hines elimination of one lane block (lane_layout.hpp): its W cells at once on Lanes<W>.
// Every lane does hines_solve's arithmetic on its cell; lane_layout keeps each CV's
// children in level order's order, so each parent gets its children's terms in the order
// hines_solve takes them in level_layout, and every W gives the bits of W = 1. Where
// a row's lanes share their parents' row the parent updates are vector loads and stores;
// otherwise gathers and scatters. Padding rows (u = 0, d = 1, rhs = 0) leave their parents
// unchanged and solve to 0. The solution goes to x (which may be rhs itself): the CPU
// group writes it straight into v, saving a pass over the block. on_solved(r, x_r) is
// called with each row's solution as the forward sweep leaves it (the CPU group assembles
// the next step's base there, in the rows just read, and skips its assembly pass).
#include "core/lanes.hpp"
#include "solvers/lane_layout.hpp"

namespace arbolito {

struct NothingOnSolved {
    template <class L>
    void operator()(int, L) const {}
};

template <int W, class OnSolved = NothingOnSolved>
void lane_hines_solve(const LaneBlocks& blocks, int b, const int* parent, double* d, const double* u, double* rhs,
                      double* x, OnSolved on_solved = {}) {
    using L = Lanes<W>;
    const int base = blocks.base[b], rows = blocks.rows[b];
    const int* row_parent = blocks.row_parent.data() + blocks.row_begin[b];
    for (int i = rows - 1; i > 0; --i) {
        const int r = base + i * W;
        const L ui = L::load(u + r), ri = L::load(rhs + r);
        const L f = ui / L::load(d + r);
        if (const int q = row_parent[i]; q >= 0) {
            const int rp = base + q * W;
            (L::load(d + rp) - f * ui).store(d + rp);
            (L::load(rhs + rp) - f * ri).store(rhs + rp);
        } else {  // the lanes are different cells: their parents are distinct rows
            const int* p = parent + r;
            (L::gather(d, p) - f * ui).scatter(d, p);
            (L::gather(rhs, p) - f * ri).scatter(rhs, p);
        }
    }
    auto solved = [&](int r, L xr) {  // row r's solution
        xr.store(x + r);
        on_solved(r, xr);
    };
    solved(base, L::load(rhs + base) / L::load(d + base));
    for (int i = 1; i < rows; ++i) {
        const int r = base + i * W, q = row_parent[i];
        const L xp = q >= 0 ? L::load(x + base + q * W) : L::gather(x, parent + r);
        solved(r, (L::load(rhs + r) - L::load(u + r) * xp) / L::load(d + r));
    }
}

// Every block of a lane layout of width W, solution in rhs.
template <int W>
void lane_hines_solve_all(const LaneBlocks& blocks, const int* parent, double* d, const double* u, double* rhs) {
    for (int b = 0; b < blocks.n_blocks(); ++b) lane_hines_solve<W>(blocks, b, parent, d, u, rhs, rhs);
}

}  // namespace arbolito
