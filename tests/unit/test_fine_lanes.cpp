// The lanes' order of gpu-fine's solve (solvers/fine_lanes.hpp): every branch once, lanes'
// paths in a deadlock-free order, and the solve in that order (turns of eight rows, the
// GPU's code) with the bits of the level loop (fine_layout_solve) on random, real,
// busyring and awkward trees, one lane per path and several paths per lane.
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "solvers/fine_lanes.hpp"
#include "solvers/fine_layout.hpp"
#include "tests/support/cell_trees.hpp"
#include "tests/support/layout_systems.hpp"

using namespace arbolito;

namespace {

// Lanes of every block cover its branches once; along each lane a branch's heaviest
// child (when in the lane) comes just before it.
void check_lanes(const FineSchedule& s, const FineLanes& l) {
    for (std::size_t bi = 0; bi < s.blocks.size(); ++bi) {
        const auto& B = s.blocks[bi];
        const int* lb = l.lane_begin.data() + bi * (l.threads + 1L);
        ASSERT_EQ(lb[0], 0);
        ASSERT_EQ(lb[l.threads], B.n_branches);
        std::vector<int> seen(B.n_branches, 0);
        for (int t = 0; t < l.threads; ++t) {
            ASSERT_LE(lb[t], lb[t + 1]);
            for (int i = lb[t]; i < lb[t + 1]; ++i) {
                const int b = l.item[B.branch0 + i];
                ASSERT_GE(b, 0);
                ASSERT_LT(b, B.n_branches);
                ++seen[b];
                const auto& lev = s.levels[B.level0 + l.item_level[B.branch0 + i]];
                EXPECT_GE(b, lev.branch0);
                EXPECT_LT(b, lev.branch0 + lev.n);
            }
        }
        for (int b = 0; b < B.n_branches; ++b) EXPECT_EQ(seen[b], 1) << "block " << bi << " branch " << b;
    }
}

// Both solves on the same random systems: the same bits.
void same_bits(const std::vector<std::vector<int>>& cells, const FineOptions& o, int threads, std::mt19937& gen) {
    const FineNumbering f = fine_layout(cells, o);
    const FineLanes l = fine_lanes(f.schedule, threads);
    check_lanes(f.schedule, l);
    test_systems::LayoutSystems a = test_systems::random_systems(cells, f.layout, gen);
    test_systems::LayoutSystems b = a;
    fine_layout_solve(f.schedule, a.d.data(), a.u.data(), a.rhs.data());
    ASSERT_NO_THROW(fine_lanes_solve(f.schedule, l, b.d.data(), b.u.data(), b.rhs.data()));
    ASSERT_EQ(a.rhs.size(), b.rhs.size());
    EXPECT_EQ(std::memcmp(a.rhs.data(), b.rhs.data(), a.rhs.size() * sizeof(double)), 0)
        << cells.size() << " cells, " << threads << " lanes";
    // And the solution itself (the level loop's own test bounds its error; this guards
    // against both being wrong alike).
    EXPECT_LT(test_systems::worst_relative_error(f.layout, b.rhs, b.ref), 1e-12);
}

}  // namespace

TEST(FineLanes, RandomTreesSameBitsAsLevels) {
    std::mt19937 gen(31);
    std::vector<std::vector<int>> cells;
    for (int k = 0; k < 40; ++k)
        cells.push_back(trees::random_parents(std::uniform_int_distribution<int>(1, 600)(gen),
                                              std::uniform_int_distribution<int>(1, 30)(gen), gen));
    for (Split split : {Split::off, Split::median, Split::cost})
        for (int threads : {32, 128}) {
            FineOptions o;
            o.split = split;
            o.block_cvs = 1;  // one cell a block: the resident step's
            same_bits(cells, o, threads, gen);
            o.block_cvs = 4096;  // several cells a block: several paths a lane at 32
            same_bits(cells, o, threads, gen);
        }
}

TEST(FineLanes, RealBusyringAndAwkwardShapes) {
    std::mt19937 gen(8);
    std::vector<std::vector<int>> cells = trees::busyring(6);
    for (const auto& e : std::filesystem::directory_iterator(trees::morphology_dir())) {
        if (e.path().extension() != ".swc") continue;
        try {
            const auto t = trees::real(e.path().string(), 1400);
            if (!t.empty()) cells.push_back(t);
        } catch (const std::exception&) {
        }
    }
    FineOptions o;
    o.block_cvs = 1;
    for (int threads : {32, 128}) same_bits(cells, o, threads, gen);
    for (const auto& shape : std::vector<std::vector<int>>{{-1}, trees::chain(2000), trees::star(1001), trees::comb(130)})
        for (int threads : {32, 128}) same_bits({shape}, o, threads, gen);
}

// The point of the order: on busyring cells a lane's path is far shorter than the
// level loop's sum over levels of each level's longest branch.
TEST(FineLanes, LongestPathShorterThanLevels) {
    const std::vector<std::vector<int>> cells = trees::busyring(4);
    FineOptions o;
    o.block_cvs = 1;
    const FineSchedule s = fine_layout(cells, o).schedule;
    const FineLanes l = fine_lanes(s, 128);
    for (std::size_t bi = 0; bi < s.blocks.size(); ++bi) {
        const auto& B = s.blocks[bi];
        long levels = 0;
        for (int L = 0; L < B.n_levels; ++L) levels += s.levels[B.level0 + L].positions;
        long longest = 0;
        const int* lb = l.lane_begin.data() + bi * 129L;
        for (int t = 0; t < 128; ++t) {
            long rows = 0;
            for (int i = lb[t]; i < lb[t + 1]; ++i) rows += s.length[B.branch0 + l.item[B.branch0 + i]];
            longest = std::max(longest, rows);
        }
        std::printf("[ info     ] busyring cell %zu: level loop %ld rows, longest lane %ld\n", bi, levels, longest);
        EXPECT_LT(longest, 0.8 * levels);
    }
}

TEST(FineLanes, RejectsThreadsNotAWarpMultiple) {
    const FineSchedule s = fine_layout({trees::chain(10)}).schedule;
    EXPECT_THROW(fine_lanes(s, 48), std::invalid_argument);
    EXPECT_THROW(fine_lanes(s, 0), std::invalid_argument);
}
