// The one-thread-per-cell GPU layouts (gpu_cell_layout: numbering and slots): host-only
// checks, always run.
#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>

#include <gtest/gtest.h>

#include "solvers/gpu_cell_layout.hpp"

using namespace arbolito;

namespace {

// A batch of random trees, sizes 0 .. max_n, with branch points and long unbranched runs.
std::vector<std::vector<int>> random_batch(int n_cells, int max_n, std::mt19937& gen) {
    std::vector<std::vector<int>> b(n_cells);
    for (auto& p : b) {
        const int n = std::uniform_int_distribution<int>(0, max_n)(gen);
        p.assign(n, -1);
        for (int i = 1; i < n; ++i)
            p[i] = std::bernoulli_distribution(0.8)(gen) ? i - 1 : std::uniform_int_distribution<int>(0, i - 1)(gen);
    }
    return b;
}

long real_cvs(const std::vector<std::vector<int>>& b) {
    long n = 0;
    for (const auto& p : b) n += static_cast<long>(p.size());
    return n;
}

// Expected padding of a blocked layout: per block, BS x its largest cell, minus the real CVs.
long expected_padding(std::vector<std::vector<int>> b, int bs) {
    std::vector<int> sizes;
    for (const auto& p : b) sizes.push_back(static_cast<int>(p.size()));
    std::sort(sizes.rbegin(), sizes.rend());
    long total = 0;
    for (std::size_t k = 0; k < sizes.size(); k += bs) total += static_cast<long>(bs) * sizes[k];
    return total - real_cvs(b);
}

// Everything a layout promises, whatever the option.
void check_layout(const std::vector<std::vector<int>>& b, const GpuCellNumbering& g, const std::string& what) {
    SCOPED_TRACE(what);
    const Layout& l = g.layout;
    const CellSlots& sl = g.slots;
    ASSERT_EQ(l.parent.size(), static_cast<std::size_t>(l.n_cv));
    ASSERT_EQ(l.index.size(), b.size());
    // Bijection: real CVs and padding cover 0 .. n_cv-1 exactly once.
    std::vector<int> seen(l.n_cv, 0);
    for (std::size_t c = 0; c < b.size(); ++c) {
        ASSERT_EQ(l.index[c].size(), b[c].size()) << "cell " << c;
        for (int x : l.index[c]) {
            ASSERT_GE(x, 0);
            ASSERT_LT(x, l.n_cv);
            ++seen[x];
        }
    }
    for (int x : l.padding) {
        ASSERT_GE(x, 0);
        ASSERT_LT(x, l.n_cv);
        ++seen[x];
    }
    EXPECT_TRUE(std::is_sorted(l.padding.begin(), l.padding.end()));
    for (int i = 0; i < l.n_cv; ++i) ASSERT_EQ(seen[i], 1) << "layout index " << i;
    EXPECT_EQ(static_cast<long>(l.n_cv), real_cvs(b) + static_cast<long>(l.padding.size()));
    // Parent relations carried over.
    for (std::size_t c = 0; c < b.size(); ++c)
        for (std::size_t i = 0; i < b[c].size(); ++i) {
            const int want = b[c][i] < 0 ? -1 : l.index[c][b[c][i]];
            ASSERT_EQ(l.parent[l.index[c][i]], want) << "cell " << c << " CV " << i;
        }
    // Slots: each cell in exactly one slot; a slot's sequence is CV i at first + i*stride,
    // parents earlier in the sequence, padding after the real CVs.
    const std::size_t ns = sl.cell.size();
    ASSERT_EQ(sl.first.size(), ns);
    ASSERT_EQ(sl.stride.size(), ns);
    ASSERT_EQ(sl.size.size(), ns);
    ASSERT_EQ(sl.padded.size(), ns);
    std::vector<int> slot_of(b.size(), -1);
    long positions = 0;
    for (std::size_t s = 0; s < ns; ++s) {
        const int c = sl.cell[s];
        ASSERT_GE(sl.padded[s], sl.size[s]);
        positions += sl.padded[s];
        if (c >= 0) {
            ASSERT_LT(c, static_cast<int>(b.size()));
            ASSERT_EQ(slot_of[c], -1) << "cell " << c << " in two slots";
            slot_of[c] = static_cast<int>(s);
            ASSERT_EQ(sl.size[s], static_cast<int>(b[c].size()));
            for (int i = 0; i < sl.size[s]; ++i) ASSERT_EQ(l.index[c][i], sl.first[s] + i * sl.stride[s]);
        } else {
            ASSERT_EQ(sl.size[s], 0);
        }
        for (int i = 0; i < sl.padded[s]; ++i) {
            const int x = sl.first[s] + i * sl.stride[s];
            const int p = l.parent[x];
            if (i == 0) {
                ASSERT_EQ(p, -1) << "slot " << s;
                continue;
            }
            ASSERT_GE(p, sl.first[s]) << "slot " << s << " position " << i;
            ASSERT_EQ((p - sl.first[s]) % sl.stride[s], 0);
            ASSERT_LT((p - sl.first[s]) / sl.stride[s], i) << "parent after child, slot " << s;
        }
    }
    for (std::size_t c = 0; c < b.size(); ++c) ASSERT_GE(slot_of[c], 0) << "cell " << c << " has no slot";
    EXPECT_EQ(positions, static_cast<long>(l.n_cv)) << "slots do not tile the layout";
}

}  // namespace

TEST(GpuCellLayout, Flat) {
    std::mt19937 gen(std::random_device{}());
    for (int rep = 0; rep < 5; ++rep) {
        const auto b = random_batch(1 + rep * 37, 300, gen);
        const GpuCellNumbering g = gpu_cell_layout(b, "flat");
        const Layout& l = g.layout;
        const CellSlots& sl = g.slots;
        check_layout(b, g, "flat");
        EXPECT_TRUE(l.padding.empty());
        // Same numbering as the serial layout, cells in the caller's order.
        const Layout ref = contiguous_layout(b);
        EXPECT_EQ(l.n_cv, ref.n_cv);
        EXPECT_EQ(l.parent, ref.parent);
        EXPECT_EQ(l.index, ref.index);
        for (std::size_t s = 0; s < sl.cell.size(); ++s) EXPECT_EQ(sl.cell[s], static_cast<int>(s));
    }
}

TEST(GpuCellLayout, Interleaved) {
    std::mt19937 gen(std::random_device{}());
    for (int n_cells : {1, 31, 32, 33, 100, 257}) {
        const auto b = random_batch(n_cells, 200, gen);
        const GpuCellNumbering g = gpu_cell_layout(b, "interleaved");
        const Layout& l = g.layout;
        const CellSlots& sl = g.slots;
        check_layout(b, g, "interleaved " + std::to_string(n_cells));
        const int n_slots = (n_cells + 31) / 32 * 32;
        ASSERT_EQ(static_cast<int>(sl.cell.size()), n_slots);
        EXPECT_EQ(static_cast<long>(l.padding.size()), expected_padding(b, n_slots));
        for (int s = 0; s < n_slots; ++s) {
            EXPECT_EQ(sl.first[s], s);
            EXPECT_EQ(sl.stride[s], n_slots);
            EXPECT_EQ(sl.padded[s], sl.padded[0]);
            if (s > 0) {
                EXPECT_LE(sl.size[s], sl.size[s - 1]) << "not sorted by size";
            }
        }
    }
}

TEST(GpuCellLayout, BlockInterleaved) {
    std::mt19937 gen(std::random_device{}());
    for (int bs : {1, 7, 32, 128}) {
        for (int n_cells : {1, 50, 300}) {
            const auto b = random_batch(n_cells, 250, gen);
            const std::string opt = "block-interleaved:" + std::to_string(bs);
            const GpuCellNumbering g = gpu_cell_layout(b, opt);
            const Layout& l = g.layout;
            const CellSlots& sl = g.slots;
            check_layout(b, g, opt + " " + std::to_string(n_cells));
            const int n_slots = (n_cells + bs - 1) / bs * bs;
            ASSERT_EQ(static_cast<int>(sl.cell.size()), n_slots);
            EXPECT_EQ(static_cast<long>(l.padding.size()), expected_padding(b, bs));
            for (int s = 0; s < n_slots; ++s) {
                const int blk = s / bs, k = s % bs, base = sl.first[blk * bs];
                EXPECT_EQ(sl.first[s], base + k);
                EXPECT_EQ(sl.stride[s], bs);
                EXPECT_EQ(sl.padded[s], sl.padded[blk * bs]);
                EXPECT_EQ(sl.padded[s], sl.size[blk * bs]) << "block padded beyond its largest cell";
                if (s > 0) {
                    EXPECT_LE(sl.size[s], sl.size[s - 1]);
                }
                if (blk > 0) {
                    EXPECT_EQ(base, sl.first[(blk - 1) * bs] + bs * sl.padded[(blk - 1) * bs]);
                }
            }
        }
    }
}

// Mono-morphology batches need no padding in any layout whose blocks are full.
TEST(GpuCellLayout, EqualCellsNeedNoPadding) {
    std::mt19937 gen(std::random_device{}());
    auto one = random_batch(1, 400, gen);
    one[0].resize(std::max<std::size_t>(one[0].size(), 2));
    one[0][0] = -1;
    one[0][1] = 0;
    const std::vector<std::vector<int>> b(256, one[0]);
    for (const char* opt : {"flat", "interleaved", "block-interleaved:32", "block-interleaved:128"}) {
        const GpuCellNumbering g = gpu_cell_layout(b, opt);
        check_layout(b, g, opt);
        EXPECT_TRUE(g.layout.padding.empty()) << opt;
    }
}

TEST(GpuCellLayout, EmptyBatchAndEmptyCells) {
    for (const char* opt : {"flat", "interleaved", "block-interleaved:4"}) {
        EXPECT_EQ(gpu_cell_layout({}, opt).layout.n_cv, 0);
        const std::vector<std::vector<int>> b = {{}, {-1, 0, 0}, {}, {-1}};
        check_layout(b, gpu_cell_layout(b, opt), opt);
    }
}

TEST(GpuCellLayout, RejectsBadInput) {
    const std::vector<std::vector<int>> ok = {{-1, 0, 1}};
    for (const char* opt : {"", "interleave", "block-interleaved:", "block-interleaved:0", "block-interleaved:-3",
                            "block-interleaved:4x"})
        EXPECT_THROW(gpu_cell_layout(ok, opt), std::invalid_argument) << opt;
    for (const std::vector<int>& bad : {std::vector<int>{0}, {-1, 1}, {-1, 0, 3}, {-1, -1}})
        EXPECT_THROW(gpu_cell_layout({bad}, "flat"), std::invalid_argument);
}
