// The branch-level numbering and schedule (solvers/branch_layout.hpp) and its solve on the
// host, in the kernels' order and arithmetic (solvers/branch_sweeps.hpp, edd_sweeps.hpp),
// with both couplings and both padding variants: every cell's solution equals the serial
// Hines solve of the same system in natural numbering.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cell_trees.hpp"
#include "solvers/branch_layout.hpp"
#include "solvers/edd_sweeps.hpp"
#include "solvers/hines.hpp"
#include "solvers/hines_long_double.hpp"
#include "tests/support/layout_systems.hpp"

using namespace arbolito;

namespace {

// The numbering's invariants: each CV once, parents preserved, padding where slots are
// shorter than their block, blocks of one level.
void check_layout(const std::vector<std::vector<int>>& np, const BranchNumbering& g, int bs) {
    const Layout& l = g.layout;
    const BranchSlots& sl = g.slots;
    std::vector<int> seen(l.n_cv, 0);
    long real = 0;
    for (std::size_t c = 0; c < np.size(); ++c) {
        ASSERT_EQ(l.index[c].size(), np[c].size());
        real += static_cast<long>(np[c].size());
        for (std::size_t i = 0; i < np[c].size(); ++i) {
            const int x = l.index[c][i];
            ASSERT_GE(x, 0);
            ASSERT_LT(x, l.n_cv);
            ++seen[x];
            EXPECT_EQ(l.parent[x], np[c][i] < 0 ? -1 : l.index[c][np[c][i]]) << "cell " << c << " CV " << i;
        }
    }
    for (int x : l.padding) ++seen[x];
    for (int x = 0; x < l.n_cv; ++x) EXPECT_EQ(seen[x], 1) << "layout CV " << x;
    EXPECT_EQ(static_cast<long>(l.padding.size()), l.n_cv - real);
    const Junctions& j = g.junctions;
    for (int s = 0; s < sl.n_slots(); ++s) {
        EXPECT_LE(sl.size[s], sl.padded[s]);
        if (j.tiled) continue;
        EXPECT_EQ(sl.stride[s], bs);
        EXPECT_EQ(sl.padded[s], sl.padded[s - s % bs]) << "slot " << s << " padded unlike its block";
    }
    if (!j.tiled) return;
    // Tiles: each cell's rows in its tile's range, its junctions from the tile's junction
    // row on; a tile's slots hold its cells' branches and no empty slot.
    for (int t = 0; t < j.n_tiles(); ++t) {
        EXPECT_LT(j.tile_cell[t], j.tile_cell[t + 1]);
        for (int c = j.tile_cell[t]; c < j.tile_cell[t + 1]; ++c) {
            for (int x : l.index[c]) {
                EXPECT_GE(x, j.tile_row[t]) << "cell " << c;
                EXPECT_LT(x, j.tile_row[t + 1]) << "cell " << c;
            }
            std::vector<int> at, want;  // the cell's rows from the junction row on; its junctions' rows
            for (int x : l.index[c])
                if (x >= j.tile_junction[t]) at.push_back(x);
            for (int k = j.cell_first[c]; k < j.cell_first[c + 1]; ++k)
                want.push_back(j.tile_junction[t] + k - j.cell_first[j.tile_cell[t]]);
            std::sort(at.begin(), at.end());
            EXPECT_EQ(at, want) << "cell " << c;
        }
        for (int s = j.tile_slot[t]; s < j.tile_slot[t + 1]; ++s) {
            EXPECT_GE(sl.cell[s], j.tile_cell[t]) << "slot " << s;
            EXPECT_LT(sl.cell[s], j.tile_cell[t + 1]) << "slot " << s;
            EXPECT_LE(sl.stride[s], bs);
        }
    }
}

// The branch-level solve of random systems per cell against hines_solve: the worst
// norm-wise relative difference.
double solve_both(const std::vector<std::vector<int>>& np, int bs, std::mt19937& gen, Coupling coupling,
                  Padding padding, int cut = 0, int tile = 0) {
    const BranchNumbering g = branch_level_layout(np, bs, coupling, cut, tile);
    const Layout& l = g.layout;
    check_layout(np, g, bs);
    test_systems::LayoutSystems sys = test_systems::random_systems(np, l, gen);
    if (coupling == Coupling::fold)
        branch_layout_solve(branch_schedule(l, g.slots), sys.d.data(), sys.u.data(), sys.rhs.data(), padding);
    else
        edd_layout_solve(edd_schedule(l, g.slots, g.junctions), sys.d.data(), sys.u.data(), sys.rhs.data(), padding);
    for (int x : l.padding) EXPECT_EQ(sys.rhs[x], 0.0) << "padding row " << x;
    return test_systems::worst_relative_error(l, sys.rhs, sys.ref);
}

// Every coupling and padding variant, EDD uncut and cut every 1, 2 and 7 CVs, and by
// tiles of one cell each and of up to 700 CVs: the worst error.
double solve_every_way(const std::vector<std::vector<int>>& np, int bs, std::mt19937& gen) {
    double worst = 0;
    for (int way = 0; way < 8; ++way) {
        const Coupling c = way == 0 ? Coupling::fold : Coupling::edd;
        const int cut = way < 2 || way == 5 ? 0 : way == 2 ? 1 : way == 3 ? 2 : 7;
        const int tile = way == 5 ? 1 : way == 6 ? 700 : way == 7 ? 1 : 0;
        for (Padding p : {Padding::compute, Padding::stop}) {
            const double e = solve_both(np, bs, gen, c, p, cut, tile);
            EXPECT_LT(e, 1e-12) << (c == Coupling::fold ? "fold" : "edd, cut " + std::to_string(cut))
                                << ", tile " << tile << (p == Padding::compute ? ", compute" : ", stop");
            worst = std::max(worst, e);
        }
    }
    return worst;
}

}  // namespace

// Both are backward-stable eliminations of diagonally dominant systems (condition far
// below 1e4) in different orders: their difference is rounding, 1e-12 is generous.
TEST(BranchLayout, RandomTreesEveryBlockSize) {
    std::mt19937 gen(31337);
    std::vector<std::vector<int>> cells;
    for (int k = 0; k < 120; ++k)
        cells.push_back(trees::random_parents(std::uniform_int_distribution<int>(1, 600)(gen),
                                    std::uniform_int_distribution<int>(1, 30)(gen), gen));
    cells.push_back(trees::star(40));
    cells.push_back({-1});
    cells.push_back({-1, 0, 1, 2, 3});
    for (int bs : {1, 7, 32}) EXPECT_LT(solve_every_way(cells, bs, gen), 1e-12) << "block size " << bs;
}

// The awkward shapes of the issue: a single CV, an unbranched cable, a star of 1,000
// children, a comb 130 levels deep (EDD's junction system is then a 130-long chain), a
// branch point whose child is itself a branch point (a junction with no interior above).
TEST(BranchLayout, AwkwardShapes) {
    std::mt19937 gen(7);
    const std::vector<int> fork_of_forks = {-1, 0, 0, 1, 1, 2, 2, 3, 4};
    for (const auto& cells : std::vector<std::vector<std::vector<int>>>{
             {{-1}}, {trees::chain(3000)}, {trees::star(1001)}, {trees::comb(130)}, {fork_of_forks},
             {{-1}, trees::chain(2), trees::star(3), trees::comb(101), fork_of_forks}})
        for (int bs : {1, 32}) solve_every_way(cells, bs, gen);
}

// EDD's junctions: one per branch point (a CV with two or more children), after the
// slots, each cell's together, parents first, a cell's first with no parent.
TEST(BranchLayout, EddJunctions) {
    const std::vector<int> fork_of_forks = {-1, 0, 0, 1, 1, 2, 2, 3, 4};
    const std::vector<std::vector<int>> cells = {trees::comb(5), trees::chain(4), {-1}, trees::star(6), fork_of_forks};
    const BranchNumbering g = branch_level_layout(cells, 4, Coupling::edd);
    const Junctions& j = g.junctions;
    ASSERT_EQ(j.cell_first.size(), cells.size() + 1);
    EXPECT_EQ(g.layout.n_cv, j.base + j.n());
    for (std::size_t c = 0; c < cells.size(); ++c) {
        std::vector<int> children(cells[c].size(), 0);
        for (std::size_t i = 1; i < cells[c].size(); ++i) ++children[cells[c][i]];
        int points = 0;
        for (std::size_t i = 0; i < cells[c].size(); ++i) {
            const int x = g.layout.index[c][i];
            const bool junction = x >= j.base;
            EXPECT_EQ(junction, children[i] >= 2) << "cell " << c << " CV " << i;
            if (!junction) continue;
            ++points;
            EXPECT_GE(x - j.base, j.cell_first[c]);
            EXPECT_LT(x - j.base, j.cell_first[c + 1]);
        }
        EXPECT_EQ(j.cell_first[c + 1] - j.cell_first[c], points) << "cell " << c;
        for (int k = j.cell_first[c]; k < j.cell_first[c + 1]; ++k)
            EXPECT_EQ(j.parent[k] < 0, k == j.cell_first[c]) << "junction " << k;
    }
    EXPECT_EQ(j.n(), 5 + 0 + 0 + 1 + 3);
    // The fork of forks' one-CV branches are branch points: junctions hanging from the
    // root's directly, listed among its children as -1 - junction, after its slots (none).
    const int k0 = j.cell_first[4];
    EXPECT_EQ(std::vector<int>(j.child_slot.begin() + j.child_first[k0], j.child_slot.begin() + j.child_first[k0 + 1]),
              (std::vector<int>{-1 - (k0 + 1), -1 - (k0 + 2)}));
    EXPECT_EQ(j.slot[k0 + 1], -1);
    EXPECT_EQ(j.parent[k0 + 1], k0);
    // Cut every 3 CVs: a 10-CV cable becomes runs 3 + 3 + 2 (the last taking the lone CV)
    // with cut points at CVs 3 and 7, a chain of two junctions.
    const BranchNumbering cut = branch_level_layout({trees::chain(10)}, 4, Coupling::edd, 3);
    ASSERT_EQ(cut.junctions.n(), 2);
    EXPECT_EQ(cut.layout.index[0][3], cut.junctions.base);
    EXPECT_EQ(cut.layout.index[0][7], cut.junctions.base + 1);
    EXPECT_EQ(cut.junctions.parent, (std::vector<int>{-1, 0}));
    EXPECT_EQ(cut.junctions.child_first, (std::vector<int>{0, 1, 2}));
}

// The junction solve by windows (edd_sweeps::junctions<Window>) does what one junction at
// a time does (Window 1), in the same order: the same bits, on junction trees that are
// chains (the 64-level caterpillar's), stars, random trees and single junctions, with
// parents inside and outside each window.
TEST(BranchLayout, EddJunctionWindowsSameBits) {
    std::mt19937 gen(15);
    std::uniform_real_distribution<double> val(-1.0, 1.0), diag(4.0, 8.0);
    std::vector<int> cell_first{0}, parent;
    auto add_cell = [&](int n, auto parent_of) {
        const int k0 = cell_first.back();
        for (int i = 0; i < n; ++i) parent.push_back(i == 0 ? -1 : k0 + parent_of(i));
        cell_first.push_back(k0 + n);
    };
    add_cell(1, [](int) { return 0; });
    add_cell(64, [](int i) { return i - 1; });  // a chain
    add_cell(9, [](int) { return 0; });         // a star
    add_cell(17, [](int i) { return i - 1; });  // a chain across window edges
    for (int c = 0; c < 20; ++c)
        add_cell(1 + static_cast<int>(gen() % 60), [&](int i) { return static_cast<int>(gen() % i); });
    add_cell(40, [](int i) { return (i - 1) / 2; });  // a binary tree
    const int n = cell_first.back(), base = 3;
    std::vector<double> D0(n), R0(n), P0(n), Q0(n);
    for (int k = 0; k < n; ++k) D0[k] = diag(gen), R0[k] = val(gen), P0[k] = val(gen), Q0[k] = val(gen);
    auto solve = [&](auto window) {
        std::vector<double> D = D0, R = R0, rhs(base + n, 0.0);
        for (int c = 0; c + 1 < static_cast<int>(cell_first.size()); ++c)
            edd_sweeps::junctions<decltype(window)::value>(c, base, cell_first.data(), parent.data(), D.data(),
                                                           R.data(), P0.data(), Q0.data(), rhs.data());
        return std::make_pair(rhs, D);
    };
    const auto one = solve(std::integral_constant<int, 1>{});
    for (int k = 0; k < n; ++k) ASSERT_TRUE(std::isfinite(one.first[base + k]));
    EXPECT_EQ(solve(std::integral_constant<int, 4>{}), one);
    EXPECT_EQ(solve(std::integral_constant<int, 8>{}), one);

    // Each cell's rows copied out and solved there (row0: the cell's first junction), as
    // the GPU does from shared memory: the same values.
    std::vector<double> rhs(base + n, 0.0);
    for (int c = 0; c + 1 < static_cast<int>(cell_first.size()); ++c) {
        const int k0 = cell_first[c], k1 = cell_first[c + 1];
        std::vector<double> D(D0.begin() + k0, D0.begin() + k1), R(R0.begin() + k0, R0.begin() + k1);
        std::vector<int> par(parent.begin() + k0, parent.begin() + k1);
        edd_sweeps::junctions(c, base, cell_first.data(), par.data(), D.data(), R.data(), P0.data() + k0,
                              Q0.data() + k0, rhs.data(), k0);
    }
    EXPECT_EQ(rhs, one.first);
}

// Tiles change where rows live, not the arithmetic: EDD by tiles gives the untiled
// solution's bits, whatever the tile size, cut and padding.
TEST(BranchLayout, EddTilesSameBits) {
    std::mt19937 gen(2026);
    std::vector<std::vector<int>> cells = trees::random_batch(60, 1, 500, 1, gen);
    cells.push_back(trees::comb(70));
    cells.push_back({-1});
    const auto solve = [&](int cut, int tile, Padding padding) {
        const BranchNumbering g = branch_level_layout(cells, 32, Coupling::edd, cut, tile);
        std::mt19937 same(99);
        test_systems::LayoutSystems sys = test_systems::random_systems(cells, g.layout, same);
        edd_layout_solve(edd_schedule(g.layout, g.slots, g.junctions), sys.d.data(), sys.u.data(), sys.rhs.data(),
                         padding);
        return test_systems::per_cell(g.layout, sys.rhs);
    };
    for (int cut : {0, 7, 32})
        for (Padding p : {Padding::compute, Padding::stop}) {
            const auto untiled = solve(cut, 0, p);
            for (int tile : {1, 600, 4096, 1 << 30}) EXPECT_EQ(solve(cut, tile, p), untiled) << "cut " << cut << ", tile " << tile;
        }
}

// Each quotient of a row rounded once (gpu::divide_by): the fold's and EDD's errors per
// solve match or beat the serial Hines solve's (the CPU's, solvers/hines.hpp). RMS relative
// error against a long double solve over 4,000 random cables of 11 CVs (a cable's d = 40 +
// its axial conductances, u = -those, 5 to 2,000): serial and fold measured 1 : 1.02, with
// the reciprocal multiplied in (two roundings a quotient) 1 : 1.29; the fold's bound sits
// between the two. EDD, its pivots from excesses (edd_sweeps.hpp), measured 0.54 uncut and
// 0.53 cut every 8 CVs (0.54 either way with two roundings a quotient: the pivots'
// cancellation, gone, was the larger error; formed by subtraction it measured 1.02 and
// 1.10); its bound holds that. On the host divide_by is a / b: this holds the sweeps' form
// (one quotient a row's value); that the device's divide_by rounds as a / b is
// GpuReciprocal.DivideRoundsAsDivision's.
TEST(BranchLayout, QuotientsRoundOnce) {
    const int n = 11, samples = 4000;
    const std::vector<std::vector<int>> cells = {trees::chain(n)};
    const BranchNumbering fold = branch_level_layout(cells, 32, Coupling::fold, 0, 0);
    const BranchNumbering edd = branch_level_layout(cells, 32, Coupling::edd, 0, 0);
    const BranchNumbering edd8 = branch_level_layout(cells, 32, Coupling::edd, 8, 0);
    std::mt19937_64 gen(11);
    std::uniform_real_distribution<double> conductance(5, 2000), wobble(-1, 1);
    double serial = 0, folded = 0, uncut = 0, cut8 = 0;
    std::vector<long double> work;
    for (int s = 0; s < samples; ++s) {
        std::vector<double> d(n), u(n, 0.0), b(n);
        for (int i = 1; i < n; ++i) u[i] = -conductance(gen);
        for (int i = 0; i < n; ++i) d[i] = 40.0 - u[i] - (i + 1 < n ? u[i + 1] : 0.0), b[i] = 40.0 * (-65 + wobble(gen));
        std::vector<int> parent(n);
        for (int i = 0; i < n; ++i) parent[i] = i - 1;
        std::vector<double> x = b;
        hines_solve_long_double(0, n, parent.data(), d.data(), u.data(), x.data(), work);
        const auto rms = [&](const std::vector<double>& y) {
            double sum = 0;
            for (int i = 0; i < n; ++i) sum += std::pow((y[i] - x[i]) / x[i], 2);
            return sum;
        };
        std::vector<double> d1 = d, y = b;
        hines_solve(0, n, parent.data(), d1.data(), u.data(), y.data());
        serial += rms(y);
        const auto in_layout = [&](const BranchNumbering& g, bool is_edd) {
            const Layout& l = g.layout;
            std::vector<double> ld(l.n_cv, 1.0), lu(l.n_cv, 0.0), lr(l.n_cv, 0.0), out(n);
            for (int i = 0; i < n; ++i) {
                const int k = l.index[0][i];
                ld[k] = d[i], lu[k] = u[i], lr[k] = b[i];
            }
            if (is_edd) edd_layout_solve(edd_schedule(l, g.slots, g.junctions), ld.data(), lu.data(), lr.data());
            else branch_layout_solve(branch_schedule(l, g.slots), ld.data(), lu.data(), lr.data());
            for (int i = 0; i < n; ++i) out[i] = lr[l.index[0][i]];
            return rms(out);
        };
        folded += in_layout(fold, false);
        uncut += in_layout(edd, true);
        cut8 += in_layout(edd8, true);
    }
    EXPECT_GT(serial, 0.0);
    EXPECT_LT(std::sqrt(folded / serial), 1.1);
    EXPECT_LT(std::sqrt(uncut / serial), 0.7);
    EXPECT_LT(std::sqrt(cut8 / serial), 0.7);
}

// EDD on stiff cells (CVs so short that the membrane term is 6e-4 of the axial
// conductances, as the finest dendrite of GpuBranchGroup.MixedSizesEveryMechanismMatchesCpu)
// is at least as accurate as the serial Hines solve, uncut, cut every 32, 8 and 1 CVs, and
// by tiles: RMS absolute error over 100 right-hand sides against a long double solve of
// the same double system, on a uniform cable, a cable and a tree with conductances
// varied, and a ball whose two one-CV branches are branch points (junctions hanging from
// the root's directly). Measured with edd_sweeps.hpp's pivots from excesses: 0.45-0.49
// of serial Hines' error (0.02-0.04 on the uniform cable, whose rows Hines rounds alike,
// so that its errors add up); the bound leaves twice that. With pivots formed as
// d - u² / d' EDD measured 1.00-1.01 uncut, up to 1.10 cut 32, 1.21-2.60 cut 8 and
// 1.20-12.5 cut 1 (the uniform cable), failing it.
TEST(BranchLayout, EddAsAccurateAsHinesOnStiffCells) {
    std::mt19937_64 gen(5);
    // A ball with two one-CV branches that are branch points themselves (junctions hanging
    // from the root's directly), each with two dendrites of 150 CVs.
    std::vector<int> forks = {-1, 0, 0};
    for (int b = 0; b < 4; ++b)
        for (int i = 0; i < 150; ++i) forks.push_back(i == 0 ? 1 + b / 2 : static_cast<int>(forks.size()) - 1);
    std::mt19937 tree_gen(3);
    struct Cell {
        std::vector<int> parent;
        double spread;  // each conductance and membrane term times 1 +- spread
    };
    const std::vector<Cell> cells = {{trees::chain(601), 0.0}, {trees::chain(601), 0.3}, {forks, 0.3},
                                     {trees::synthetic(600, 20, tree_gen), 0.3}};
    struct Way {
        int cut, tile;
    };
    const std::vector<Way> ways = {{0, 0}, {32, 0}, {8, 0}, {1, 0}, {1, edd_auto_tile_cvs}, {32, edd_auto_tile_cvs}};
    std::vector<long double> work;
    for (std::size_t ci = 0; ci < cells.size(); ++ci) {
        const std::vector<int>& p = cells[ci].parent;
        const int n = static_cast<int>(p.size());
        std::vector<BranchNumbering> gs;
        for (const Way& w : ways) gs.push_back(branch_level_layout({p}, 32, Coupling::edd, w.cut, w.tile));
        double serial = 0;
        std::vector<double> edd(ways.size(), 0.0);
        for (int sample = 0; sample < 100; ++sample) {
            const auto [d, u, b] = test_systems::stiff_system(p, cells[ci].spread, gen);
            std::vector<double> x = b;
            hines_solve_long_double(0, n, p.data(), d.data(), u.data(), x.data(), work);
            const auto squares = [&](const std::vector<double>& y) {
                double sum = 0;
                for (int i = 0; i < n; ++i) sum += std::pow(y[i] - x[i], 2);
                return sum;
            };
            std::vector<double> d1 = d, y = b;
            hines_solve(0, n, p.data(), d1.data(), u.data(), y.data());
            serial += squares(y);
            for (std::size_t w = 0; w < ways.size(); ++w) {
                const Layout& l = gs[w].layout;
                std::vector<double> ld(l.n_cv, 1.0), lu(l.n_cv, 0.0), lr(l.n_cv, 0.0), out(n);
                for (int i = 0; i < n; ++i) {
                    const int k = l.index[0][i];
                    ld[k] = d[i], lu[k] = u[i], lr[k] = b[i];
                }
                edd_layout_solve(edd_schedule(l, gs[w].slots, gs[w].junctions), ld.data(), lu.data(), lr.data());
                for (int i = 0; i < n; ++i) out[i] = lr[l.index[0][i]];
                edd[w] += squares(out);
            }
        }
        ASSERT_GT(serial, 0.0);
        for (std::size_t w = 0; w < ways.size(); ++w)
            EXPECT_LT(std::sqrt(edd[w] / serial), 1.0)
                << "cell " << ci << ", cut " << ways[w].cut << ", tile " << ways[w].tile;
    }
}

// tile=auto's rule: tiles of edd_auto_tile_cvs (1,536) CVs while every cell has at most
// 64 branch points and 4,096 CVs.
TEST(BranchLayout, EddAutoTile) {
    EXPECT_EQ(edd_auto_tile(64, 4096), edd_auto_tile_cvs);
    EXPECT_EQ(edd_auto_tile(65, 512), 0);
    EXPECT_EQ(edd_auto_tile(0, 4097), 0);
    const auto binary = [](int points) {  // a heap-ordered binary tree with `points` branch points
        std::vector<int> p{-1};
        for (int i = 1; i <= 2 * points; ++i) p.push_back((i - 1) / 2);
        return p;
    };
    EXPECT_EQ(edd_auto_tile({binary(64), trees::chain(4096), {-1}}), edd_auto_tile_cvs);
    EXPECT_EQ(edd_auto_tile({binary(64), binary(65)}), 0);
    EXPECT_EQ(edd_auto_tile({trees::chain(4097)}), 0);
    EXPECT_EQ(edd_auto_tile({}), edd_auto_tile_cvs);
}

TEST(BranchLayout, BusyringCells) {
    std::mt19937 gen(5);
    const std::vector<std::vector<int>> cells = trees::busyring(40);
    EXPECT_LT(solve_every_way(cells, 32, gen), 1e-12);
    const BranchNumbering g = branch_level_layout(cells, 32);
    const BranchSchedule s = branch_schedule(g.layout, g.slots);
    EXPECT_GE(s.n_levels(), 10);  // busyring: depth 10 plus the soma's branch
}

TEST(BranchLayout, EmptyAndBadInput) {
    const BranchNumbering g = branch_level_layout({}, 32);
    EXPECT_EQ(g.layout.n_cv, 0);
    EXPECT_EQ(branch_schedule(g.layout, g.slots).n_levels(), 0);
    const BranchNumbering e = branch_level_layout({}, 32, Coupling::edd);
    EXPECT_EQ(edd_schedule(e.layout, e.slots, e.junctions).n_slots(), 0);
    const BranchNumbering f = branch_level_layout({{-1, 0}}, 32);
    EXPECT_THROW(edd_schedule(f.layout, f.slots, f.junctions), std::invalid_argument);
    EXPECT_THROW(branch_level_layout({{-1, 0}}, 0), std::invalid_argument);
    EXPECT_THROW(branch_level_layout({{-1, 0}}, 32, Coupling::edd, 0, -1), std::invalid_argument);
    const BranchNumbering t = branch_level_layout({}, 32, Coupling::edd, 8, 100);
    EXPECT_EQ(t.junctions.n_tiles(), 0);
    EXPECT_EQ(edd_schedule(t.layout, t.slots, t.junctions).n_slots(), 0);
    EXPECT_THROW(branch_level_layout({{-1, 0}, {-1, 2}}, 32), std::invalid_argument);
}
