// gpu-fine's numbering and schedule (solvers/fine_layout.hpp) and its solve on the host,
// in the kernel's order and arithmetic (solvers/fine_sweeps.hpp): every cell's solution
// equals the serial Hines solve of the same system in natural numbering, for every
// combination of the passes and for the awkward shapes (one CV, an unbranched cable, a
// star of 1,000 children, a tree deeper than 100 levels, cells wider than a block).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "solvers/branch_tree.hpp"
#include "solvers/fine_layout.hpp"
#include "solvers/hines.hpp"
#include "solvers/hines_long_double.hpp"
#include "tests/support/cell_trees.hpp"
#include "tests/support/layout_systems.hpp"

using namespace arbolito;

namespace {

std::vector<FineOptions> every_pass_combination(int block_cvs = 2048) {
    std::vector<FineOptions> out;
    for (int m = 0; m < 12; ++m) {
        FineOptions o;
        o.sort = m & 1, o.reroot = m & 2, o.split = m < 4 ? Split::off : m < 8 ? Split::median : Split::cost;
        o.block_cvs = block_cvs;
        out.push_back(o);
    }
    return out;
}

std::string describe(const FineOptions& o) {
    return std::string("sort ") + (o.sort ? "on" : "off") + ", reroot " + (o.reroot ? "on" : "off") + ", split " +
           (o.split == Split::off ? "off" : o.split == Split::median ? "median" : "cost") + ", block_cvs " + std::to_string(o.block_cvs);
}

// `count` random trees of 1..max_cvs CVs with 1..max_branches branches each.
void add_random_trees(std::vector<std::vector<int>>& cells, int count, int max_cvs, int max_branches,
                      std::mt19937& gen) {
    for (int k = 0; k < count; ++k)
        cells.push_back(trees::random_parents(std::uniform_int_distribution<int>(1, max_cvs)(gen),
                                              std::uniform_int_distribution<int>(1, max_branches)(gen), gen));
}

// The numbering's invariants: each CV once (real or padding), the layout's parent of a
// CV is a tree neighbour (the natural parent, or a child where re-rooting turned the
// edge round), parents precede children (but in EDD's numbering), one root per cell.
void check_numbering(const std::vector<std::vector<int>>& np, const FineNumbering& f) {
    const Layout& l = f.layout;
    std::vector<int> seen(l.n_cv, 0);
    long real = 0;
    for (std::size_t c = 0; c < np.size(); ++c) {
        ASSERT_EQ(l.index[c].size(), np[c].size());
        real += static_cast<long>(np[c].size());
        int roots = 0;
        for (std::size_t i = 0; i < np[c].size(); ++i) {
            const int x = l.index[c][i];
            ASSERT_GE(x, 0);
            ASSERT_LT(x, l.n_cv);
            ++seen[x];
            const int px = l.parent[x];
            if (!f.schedule.blocks.empty() && !f.schedule.edd())  // EDD numbers its runs after their junctions
                ASSERT_LT(px, x) << "parent after child, cell " << c << " CV " << i;
            if (px < 0) {
                ++roots;
                continue;
            }
            const bool natural = np[c][i] >= 0 && l.index[c][np[c][i]] == px;
            bool turned = false;  // px is a natural child of i
            for (std::size_t j = 1; j < np[c].size() && !natural && !turned; ++j)
                turned = np[c][j] == static_cast<int>(i) && l.index[c][j] == px;
            EXPECT_TRUE(natural || turned) << "cell " << c << " CV " << i << ": layout parent is no neighbour";
        }
        EXPECT_EQ(roots, np[c].empty() ? 0 : 1) << "cell " << c;
    }
    for (int x : l.padding) ++seen[x];
    for (int x = 0; x < l.n_cv; ++x) ASSERT_EQ(seen[x], 1) << "layout CV " << x;
    EXPECT_NO_THROW(check_fine_schedule(f.schedule));
    EXPECT_EQ(static_cast<long>(l.padding.size()), l.n_cv - real);
}

double solve_both(const std::vector<std::vector<int>>& np, const FineOptions& o, std::mt19937& gen) {
    const FineNumbering f = fine_layout(np, o);
    check_numbering(np, f);
    test_systems::LayoutSystems sys = test_systems::random_systems(np, f.layout, gen);
    fine_layout_solve(f.schedule, sys.d.data(), sys.u.data(), sys.rhs.data());
    for (int x : f.layout.padding) EXPECT_EQ(sys.rhs[x], 0.0) << "padding row " << x;
    return test_systems::worst_relative_error(f.layout, sys.rhs, sys.ref);
}



}  // namespace

// Both are backward-stable eliminations of diagonally dominant systems (condition far
// below 1e4) in different orders, with a reciprocal in place of a division: the
// difference is rounding, 1e-12 is generous.
TEST(FineLayout, RandomTreesEveryPassCombination) {
    std::mt19937 gen(2024);
    std::vector<std::vector<int>> cells;
    add_random_trees(cells, 60, 500, 30, gen);
    cells.push_back({-1});
    cells.push_back(trees::chain(300));
    cells.push_back(trees::star(40));
    for (const FineOptions& o : every_pass_combination(700)) EXPECT_LT(solve_both(cells, o, gen), 1e-12) << describe(o);
}

TEST(FineLayout, AwkwardShapes) {
    std::mt19937 gen(77);
    const std::vector<std::vector<std::vector<int>>> shapes = {
        {{-1}},                      // one CV
        {trees::chain(2000)},               // an unbranched cable
        {trees::star(1001)},         // a star of 1,000 children: wider than any block
        {trees::comb(130)},                 // deeper than 100 levels
        {{-1}, {-1, 0}, trees::chain(5)},   // tiny cells sharing a block
    };
    for (const auto& cells : shapes)
        for (FineOptions o : every_pass_combination()) {
            o.max_threads = 32;  // wide levels loop over the block's threads
            EXPECT_LT(solve_both(cells, o, gen), 1e-12) << describe(o) << ", first cell of " << cells[0].size() << " CVs";
        }
    FineOptions keep;
    keep.reroot = false;
    const FineNumbering deep = fine_layout({trees::comb(130)}, keep);
    EXPECT_GT(deep.schedule.blocks[0].n_levels, 100);
}

// The elimination runs on continuants (fine_sweeps.hpp), products of up to nine pivots
// between two scalings: a system scaled by 2^±100 (pivots near 1e±30, far outside any
// cable equation's µS) must give the very bits of the unscaled one, since scaling by a
// power of two is exact when nothing overflows or underflows.
TEST(FineLayout, PivotsFarFromOneGiveTheSameBits) {
    const std::vector<std::vector<int>> cells = {trees::chain(2000), trees::comb(40), trees::busyring(1)[0]};
    for (const int e : {100, -100}) {
        std::mt19937 gen(11);
        const FineNumbering f = fine_layout(cells, FineOptions{});
        test_systems::LayoutSystems sys = test_systems::random_systems(cells, f.layout, gen);
        std::vector<double> d = sys.d, u = sys.u, rhs = sys.rhs;
        fine_layout_solve(f.schedule, d.data(), u.data(), rhs.data());
        for (std::size_t i = 0; i < sys.d.size(); ++i)
            sys.d[i] = std::ldexp(sys.d[i], e), sys.u[i] = std::ldexp(sys.u[i], e), sys.rhs[i] = std::ldexp(sys.rhs[i], e);
        fine_layout_solve(f.schedule, sys.d.data(), sys.u.data(), sys.rhs.data());
        for (std::size_t i = 0; i < rhs.size(); ++i) ASSERT_EQ(sys.rhs[i], rhs[i]) << "2^" << e << ", CV " << i;
        EXPECT_LT(test_systems::worst_relative_error(f.layout, rhs, sys.ref), 1e-12);
    }
}

// 4 and 8 rows ahead chunk the rows differently, which must not change a bit: the
// resident step takes 4 where streaming gpu-fine takes 8 on small groups, and the two
// must agree bit for bit. Chunks change only where the continuant is scaled, by powers
// of two, which are exact (fine_sweeps.hpp).
TEST(FineLayout, EitherAheadGivesTheSameBits) {
    std::mt19937 gen(3);
    std::vector<std::vector<int>> cells = trees::busyring(4);
    add_random_trees(cells, 20, 400, 20, gen);
    cells.push_back(trees::chain(999));
    cells.push_back({-1});
    const FineNumbering f = fine_layout(cells, FineOptions{});
    const test_systems::LayoutSystems sys = test_systems::random_systems(cells, f.layout, gen);
    std::vector<double> d8 = sys.d, r8 = sys.rhs, d4 = sys.d, r4 = sys.rhs;
    fine_layout_solve(f.schedule, d8.data(), sys.u.data(), r8.data(), 8);
    fine_layout_solve(f.schedule, d4.data(), sys.u.data(), r4.data(), 4);
    EXPECT_EQ(r4, r8);
    EXPECT_EQ(d4, d8);
    EXPECT_LT(test_systems::worst_relative_error(f.layout, r4, sys.ref), 1e-12);
}

TEST(FineLayout, RealAndBusyringCells) {
    std::mt19937 gen(5);
    std::vector<std::vector<int>> cells = trees::busyring(12);
    // Every morphology in tests/data that the reader accepts (a few are there to be refused).
    int real = 0;
    for (const auto& e : std::filesystem::directory_iterator(trees::morphology_dir())) {
        if (e.path().extension() != ".swc") continue;
        try {
            const auto t = trees::real(e.path().string(), 1400);
            if (t.empty()) continue;
            cells.push_back(t);
            ++real;
        } catch (const std::exception&) {
        }
    }
    ASSERT_GE(real, 14);
    for (const FineOptions& o : every_pass_combination()) EXPECT_LT(solve_both(cells, o, gen), 1e-12) << describe(o);
}

// split=cost: pieces that add up to each branch, never a cut of an unbranched cable (a cut
// only adds a level to its one chain), and on busyring cells (one per block) a modelled
// solve, the sum over levels of the longest branch plus 6 rows a level, no longer than
// unsplit and shorter than the median rule's.
TEST(FineLayout, CostSplitShortensTheModelledSolve) {
    const std::vector<std::vector<int>> cable = split_by_cost({-1}, {100}, 6.0);
    ASSERT_EQ(cable.size(), 1u);
    EXPECT_EQ(cable[0], std::vector<int>{100});
    std::mt19937 gen(12);
    for (int k = 0; k < 50; ++k) {
        const int n = std::uniform_int_distribution<int>(1, 60)(gen);
        std::vector<int> parent(n), length(n);
        for (int b = 0; b < n; ++b) {
            parent[b] = b == 0 ? -1 : std::uniform_int_distribution<int>(0, b - 1)(gen);
            length[b] = std::uniform_int_distribution<int>(1, 40)(gen);
        }
        const auto pieces = split_by_cost(parent, length, 6.0);
        ASSERT_EQ(static_cast<int>(pieces.size()), n);
        for (int b = 0; b < n; ++b) {
            int sum = 0;
            for (int len : pieces[b]) {
                EXPECT_GE(len, 1);
                sum += len;
            }
            EXPECT_EQ(sum, length[b]) << "tree " << k << ", branch " << b;
        }
    }
    // A bounded set-up on any tree: at most 64 cuts, here on 61,000 short branches.
    {
        std::mt19937 big(3);
        const std::vector<int> p = trees::random_parents(100000, 8, big);
        const BranchTree t = branch_tree(p);
        std::vector<int> length(t.n_branches());
        for (int b = 0; b < t.n_branches(); ++b) length[b] = t.length(b);
        long n_pieces = 0;
        for (const auto& q : split_by_cost(t.parent, length, 6.0)) n_pieces += static_cast<long>(q.size());
        EXPECT_LE(n_pieces - t.n_branches(), 64);
    }
    auto modelled = [](const std::vector<std::vector<int>>& cells, Split split) {
        FineOptions o;
        o.block_cvs = 1, o.split = split;
        const FineSchedule s = fine_layout(cells, o).schedule;
        double rows = 0;
        for (const auto& l : s.levels) rows += l.positions + 6.0;
        return rows;
    };
    const std::vector<std::vector<int>> cells = trees::busyring(16);
    const double off = modelled(cells, Split::off), median = modelled(cells, Split::median),
                 cost = modelled(cells, Split::cost);
    std::printf("[ info     ] busyring 16 cells, modelled rows: off %.0f, median %.0f, cost %.0f\n", off, median, cost);
    EXPECT_LE(cost, off);
    EXPECT_LT(cost, median);
}

// Re-rooting picks the shallowest branch tree: never deeper than the natural root's.
TEST(FineLayout, RerootNeverDeepens) {
    std::mt19937 gen(9);
    for (int k = 0; k < 200; ++k) {
        const auto p = trees::random_parents(std::uniform_int_distribution<int>(1, 400)(gen), 20, gen);
        FineOptions a, b;
        a.reroot = false, b.reroot = true;
        a.sort = b.sort = true;
        a.split = b.split = Split::off;  // levels of the branch tree itself
        const int natural = fine_layout({p}, a).schedule.blocks[0].n_levels;
        const int rerooted = fine_layout({p}, b).schedule.blocks[0].n_levels;
        EXPECT_LE(rerooted, natural) << "tree " << k;
        EXPECT_EQ(natural, branch_tree(p).n_levels);
    }
    // A comb rooted at one end of its spine rises a level at every tooth; from the
    // spine's middle, half as many.
    FineOptions a, b;
    a.reroot = false, b.reroot = true;
    a.split = b.split = Split::off;
    const int natural = fine_layout({trees::comb(40)}, a).schedule.blocks[0].n_levels;
    const int rerooted = fine_layout({trees::comb(40)}, b).schedule.blocks[0].n_levels;
    EXPECT_GE(natural, 40);
    EXPECT_LE(rerooted, natural / 2 + 2);
}

// The schedule check catches a child placed in the same level as its parent (what a
// missing barrier between levels amounts to), and the solve then goes wrong.
TEST(FineLayout, MutatedScheduleFails) {
    std::mt19937 gen(3);
    const std::vector<std::vector<int>> cells{trees::random_parents(300, 10, gen)};
    FineOptions o;
    o.reroot = false;
    FineNumbering f = fine_layout(cells, o);
    FineSchedule& s = f.schedule;
    ASSERT_GE(s.blocks[0].n_levels, 3);
    // Run level 1 after level 2 in the backward pass: swap their records.
    std::swap(s.levels[s.blocks[0].level0 + 1], s.levels[s.blocks[0].level0 + 2]);
    EXPECT_THROW(check_fine_schedule(s), std::logic_error);
    test_systems::LayoutSystems sys = test_systems::random_systems(cells, f.layout, gen);
    fine_layout_solve(s, sys.d.data(), sys.u.data(), sys.rhs.data());
    EXPECT_GT(test_systems::worst_relative_error(f.layout, sys.rhs, sys.ref), 1e-6);
}

TEST(FineLayout, PackingAndBadInput) {
    std::vector<std::vector<int>> cells(10, trees::chain(100));
    FineOptions o;
    o.block_cvs = 250;
    const FineNumbering f = fine_layout(cells, o);
    EXPECT_EQ(f.schedule.n_blocks(), 5);  // two cells of 100 CVs a block
    for (const auto& b : f.schedule.blocks) EXPECT_EQ(b.threads, 32);
    EXPECT_EQ(fine_layout({}, o).layout.n_cv, 0);
    o.block_cvs = 0;
    EXPECT_THROW(fine_layout(cells, o), std::invalid_argument);
    EXPECT_THROW(fine_layout({{-1, 0}, {-1, 2}}, FineOptions{}), std::invalid_argument);
}

// EDD inside the blocks (FineOptions::edd_rows): the numbering's invariants, runs of at
// most N rows between single-CV junctions, and the solve within rounding of the serial
// Hines solve (another elimination, as the passes above: 1e-12) on random trees, the
// awkward shapes, busyring's and the real cells, N from 1 (every CV a junction) to longer
// than any branch (only the branch points).
TEST(FineLayout, EddEveryCutAndShape) {
    std::mt19937 gen(31);
    std::vector<std::vector<int>> cells = trees::busyring(4);
    add_random_trees(cells, 30, 500, 30, gen);
    cells.push_back({-1});
    cells.push_back({-1, 0});
    cells.push_back(trees::chain(300));
    cells.push_back(trees::star(40));
    cells.push_back(trees::comb(130));
    for (const auto& e : std::filesystem::directory_iterator(trees::morphology_dir())) {
        if (e.path().extension() != ".swc") continue;
        try {
            if (auto t = trees::real(e.path().string(), 1400); !t.empty()) cells.push_back(std::move(t));
        } catch (const std::exception&) {
        }
    }
    for (const int N : {1, 2, 5, 16, 64, 100000}) {
        for (const int block_cvs : {700, 3000}) {
            FineOptions o;
            o.edd_rows = N;
            o.block_cvs = block_cvs;
            o.max_threads = 64;
            const FineNumbering f = fine_layout(cells, o);
            const FineSchedule& s = f.schedule;
            for (const auto& blk : s.blocks) {
                ASSERT_TRUE(blk.edd);
                for (int L : {blk.n_levels - 2, blk.n_levels - 1}) {  // the runs with a junction below, then without
                    const auto& runs = s.levels[blk.level0 + L];
                    for (int k = 0; k < runs.n; ++k) ASSERT_LE(s.length[blk.branch0 + runs.branch0 + k], N) << "N " << N;
                }
            }
            EXPECT_LT(solve_both(cells, o, gen), 1e-12) << "N " << N << ", block_cvs " << block_cvs;
        }
    }
    FineOptions bad;
    bad.edd_rows = -1;
    EXPECT_THROW(fine_layout(cells, bad), std::invalid_argument);
}

// EDD's table of each junction's junction children (FineSchedule::junction_kids): two
// columns on busyring's binary cells; where a root has 40 chains of 4 CVs cut at every CV
// (N 1), its 40 junction children, each in its own column; the schedule check catches a
// child missing from the table or a pad that names a branch.
TEST(FineLayout, EddJunctionChildrenTable) {
    FineOptions o;
    o.edd_rows = 24;
    const FineNumbering ring = fine_layout(trees::busyring(2), o);
    for (const auto& blk : ring.schedule.blocks) EXPECT_EQ(blk.n_kids, 2);
    o.edd_rows = 1;
    std::vector<int> chains{-1};
    for (int c = 0; c < 40; ++c)
        for (int i = 0; i < 4; ++i) chains.push_back(i == 0 ? 0 : static_cast<int>(chains.size()) - 1);
    FineNumbering f = fine_layout({chains}, o);
    FineSchedule& s = f.schedule;
    ASSERT_EQ(s.n_blocks(), 1);
    const FineSchedule::Block& blk = s.blocks[0];
    EXPECT_EQ(blk.n_kids, 40);
    EXPECT_NO_THROW(check_fine_schedule(s));
    int root = -1;  // the junction whose table row is full
    for (int b = 0; b < blk.n_junctions; ++b)
        if (s.junction_kids[blk.kids0 + 39L * blk.n_junctions + b] != blk.n_branches) root = b;
    ASSERT_GE(root, 0);
    FineSchedule missing = s;
    missing.junction_kids[blk.kids0 + root] = blk.n_branches;
    EXPECT_THROW(check_fine_schedule(missing), std::logic_error);
    FineSchedule bad_pad = s;
    const int leaf = root == 0 ? 1 : 0;  // a junction without junction children: all pads
    bad_pad.junction_kids[blk.kids0 + leaf] = root;
    EXPECT_THROW(check_fine_schedule(bad_pad), std::logic_error);
}

// EDD's run order (FineSchedule::run_order): busyring's runs of both run levels longest
// first, so that with at most two runs a thread (solve_edd's each_run: rank f - 1 - t,
// then nt + t) no thread takes more rows than the greedy longest-processing-time
// assignment of the same runs gives; the check catches an order that is not longest first.
TEST(FineLayout, EddRunOrderBalancesTheThreads) {
    FineOptions o;
    o.edd_rows = 24;
    o.block_cvs = 1;  // a cell a block
    o.max_threads = 128;
    FineNumbering f = fine_layout(trees::busyring(8), o);
    FineSchedule& s = f.schedule;
    for (const auto& blk : s.blocks) {
        const int n_runs = blk.n_branches - blk.n_junctions, nt = blk.threads, run0 = blk.n_junctions;
        ASSERT_LE(n_runs, 2 * nt);
        std::vector<int> len(n_runs);
        for (int r = 0; r < n_runs; ++r) len[r] = s.length[blk.branch0 + run0 + s.run_order[blk.runs0 + r]];
        std::vector<int> dealt(nt, 0), lpt(nt, 0);
        const int f = std::min(nt, n_runs);
        for (int k = 0; k < n_runs; ++k) dealt[k % nt] += len[k < nt ? f - 1 - k : k];  // each_run
        for (int r = 0; r < n_runs; ++r) *std::min_element(lpt.begin(), lpt.end()) += len[r];
        EXPECT_LE(*std::max_element(dealt.begin(), dealt.end()), *std::max_element(lpt.begin(), lpt.end()));
    }
    const FineSchedule::Block& b0 = s.blocks[0];
    int r = 1;  // two neighbouring ranks of different lengths, swapped
    while (s.length[b0.branch0 + b0.n_junctions + s.run_order[b0.runs0 + r]] ==
           s.length[b0.branch0 + b0.n_junctions + s.run_order[b0.runs0 + r - 1]])
        ++r;
    std::swap(s.run_order[b0.runs0 + r], s.run_order[b0.runs0 + r - 1]);
    EXPECT_THROW(check_fine_schedule(s), std::logic_error);
}

// EDD's pivots from excesses (fine_edd_sweeps.hpp) on stiff cells (membrane term 6e-4 of
// the axial conductances, as gpu-branch's EDD test takes them): RMS error over 100
// right-hand sides against a long double solve of the same system, at most that of the
// serial Hines solve. Measured 0.45-0.85 of it (a cable, a busyring cell, a random tree;
// cuts every 1, 8 and 32 rows); gpu-branch's EDD with pivots formed as d - u²/d' had
// measured up to 12.5 times it with runs of one CV.
TEST(FineLayout, EddAsAccurateAsHines) {
    std::mt19937_64 gen(5);
    std::mt19937 tree_gen(3);
    const std::vector<std::vector<int>> cells = {trees::chain(601), trees::busyring(1)[0],
                                                 trees::random_parents(600, 20, tree_gen)};
    std::vector<long double> work;
    for (const auto& p : cells) {
        const int n = static_cast<int>(p.size());
        for (const int N : {1, 8, 32}) {
            FineOptions o;
            o.edd_rows = N;
            const FineNumbering f = fine_layout({p}, o);
            const Layout& l = f.layout;
            double serial = 0, edd = 0;
            for (int sample = 0; sample < 100; ++sample) {
                const auto [d, u, b] = test_systems::stiff_system(p, 0.3, gen);
                std::vector<double> x = b;
                hines_solve_long_double(0, n, p.data(), d.data(), u.data(), x.data(), work);
                std::vector<double> d1 = d, y = b;
                hines_solve(0, n, p.data(), d1.data(), u.data(), y.data());
                std::vector<double> ld(l.n_cv, 1.0), lu(l.n_cv, 0.0), lr(l.n_cv, 0.0);
                for (int i = 0; i < n; ++i) {
                    const int k = l.index[0][i];
                    ld[k] = d[i], lr[k] = b[i];
                    if (i > 0) (l.parent[k] == l.index[0][p[i]] ? lu[k] : lu[l.index[0][p[i]]]) = u[i];
                }
                fine_layout_solve(f.schedule, ld.data(), lu.data(), lr.data());
                for (int i = 0; i < n; ++i) {
                    serial += std::pow(y[i] - x[i], 2);
                    edd += std::pow(lr[l.index[0][i]] - x[i], 2);
                }
            }
            ASSERT_GT(serial, 0.0);
            EXPECT_LT(std::sqrt(edd / serial), 1.0) << n << " CVs, N " << N;
            std::printf("EDD / serial Hines RMS error, %d CVs, N %d: %.3f\n", n, N, std::sqrt(edd / serial));
        }
    }
}
