#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "model/cell_builders.hpp"

using namespace arbolito;

namespace {

const double soma_r = 12.6157 / 2;

std::size_t n_segments(const Morphology& m) {
    std::size_t n = 0;
    for (const auto& b : m.branches) n += b.xyz.size() - 1;
    return n;
}

double lerp(const std::array<double, 2>& a, unsigned i, unsigned n) { return n == 1 ? a[0] : a[0] + (a[1] - a[0]) * i / (n - 1.0); }

// A second construction of the busyring tree, written independently of the builder: draw
// the keep/drop decisions (breadth first, as Arbor draws them), link them into a tree by
// recursion, and list the branches that tree must give.
struct Expected {
    int parent;
    std::size_t points;
    double z0, z1;
};

struct Node {
    int level;  // -1 for the soma
    std::vector<Node> kids;
};

Node grow(const std::vector<std::vector<bool>>& keep, int gen, std::size_t k) {
    Node n{gen - 1, {}};
    if (gen >= static_cast<int>(keep.size())) return n;
    const auto& d = keep[gen];
    for (std::size_t j = 0; j < 2; ++j) {
        const std::size_t pos = 2 * k + j;
        if (!d[pos]) continue;
        std::size_t rank = 0;
        for (std::size_t q = 0; q < pos; ++q) rank += d[q];
        n.kids.push_back(grow(keep, gen + 1, rank));
    }
    return n;
}

void emit(const Node& first, int parent, const std::vector<double>& z, const std::vector<unsigned>& nc, std::vector<Expected>& out) {
    const Node* n = &first;
    std::size_t pts = 1 + nc[n->level];
    while (n->kids.size() == 1) {
        n = &n->kids[0];
        pts += nc[n->level];
    }
    const int self = static_cast<int>(out.size()) + 1;  // the soma is branch 0
    out.push_back({parent, pts, z[first.level], z[n->level + 1]});
    for (const Node& k : n->kids) emit(k, self, z, nc, out);
}

std::vector<Expected> expected_busyring(std::uint64_t gid, const BusyringParams& p) {
    std::vector<double> z{soma_r};
    std::vector<unsigned> nc;
    for (unsigned i = 0; i < p.depth; ++i) {
        z.push_back(z.back() + lerp(p.lengths, i, p.depth));
        nc.push_back(static_cast<unsigned>(std::lround(lerp(p.compartments, i, p.depth))));
    }
    std::mt19937 gen(static_cast<unsigned>(gid));
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<std::vector<bool>> keep;
    std::size_t parents = 1;
    for (unsigned i = 0; i < p.depth && parents > 0; ++i) {
        std::vector<bool> d(2 * parents);
        parents = 0;
        for (std::size_t q = 0; q < d.size(); ++q) parents += (d[q] = u(gen) < lerp(p.branch_probs, i, p.depth));
        keep.push_back(d);
    }
    const Node soma = grow(keep, 0, 0);
    std::vector<Expected> out;
    for (const Node& k : soma.kids) emit(k, 0, z, nc, out);
    return out;
}

void expect_same(const Morphology& a, const Morphology& b) {
    ASSERT_EQ(a.branches.size(), b.branches.size());
    for (std::size_t i = 0; i < a.branches.size(); ++i) {
        EXPECT_EQ(a.branches[i].parent, b.branches[i].parent);
        EXPECT_EQ(a.branches[i].xyz, b.branches[i].xyz);
        EXPECT_EQ(a.branches[i].radius, b.branches[i].radius);
    }
}

}  // namespace

TEST(CellBuilders, BallAndStick) {
    const Morphology m = ball_and_stick();
    ASSERT_EQ(m.branches.size(), 2u);
    const Branch &s = m.branches[0], &d = m.branches[1];
    EXPECT_EQ(s.tag, tag_soma);
    EXPECT_EQ(d.tag, tag_dend);
    EXPECT_EQ(d.parent, 0);
    EXPECT_EQ(d.parent_x, 1.0);
    EXPECT_EQ(s.xyz[1], Eigen::Vector3d(12.6157, 0, 0));
    EXPECT_EQ(d.xyz[0], s.xyz[1]);
    EXPECT_EQ(d.length(), 200);
    EXPECT_EQ(d.radius, std::vector<double>({0.5, 0.5}));
    // 12.6157 µm is 500 µm²'s diameter to six digits (<= 4e-6 relative): area within 8e-6 · 500 = 4e-3 µm².
    EXPECT_NEAR(2 * M_PI * s.radius[0] * s.length(), 500.0, 5e-3);
    const Morphology o = ball_and_stick(10, 50, 1);
    EXPECT_EQ(o.branches[1].xyz[1], Eigen::Vector3d(60, 0, 0));
    EXPECT_EQ(o.branches[0].radius[0], 5);
}

TEST(CellBuilders, BusyringIsDeterministicInGid) {
    expect_same(busyring_cell(0, {}), busyring_cell(0, {}));
    expect_same(busyring_cell(7, {}), busyring_cell(7, {}));
    const Morphology a = busyring_cell(0, {}), b = busyring_cell(1, {});
    EXPECT_TRUE(a.branches.size() != b.branches.size() || n_segments(a) != n_segments(b));
}

// Obtained by running this builder (mt19937 and uniform_real_distribution of libstdc++,
// as Arbor's busyring uses them) and confirmed by the independent construction below.
TEST(CellBuilders, BusyringGidZeroCounts) {
    const Morphology m = busyring_cell(0, {});
    EXPECT_EQ(m.branches.size(), 197u);
    EXPECT_EQ(n_segments(m), 2107u);
    std::size_t total = 0;
    for (std::uint64_t g = 0; g < 64; ++g) total += n_segments(busyring_cell(g, {}));
    EXPECT_EQ(total, 99746u);
}

// Positions (< 1e3 µm) are summed in a different order here: a few ulps (~1e-13 µm) apart at most.
TEST(CellBuilders, BusyringMatchesIndependentConstruction) {
    std::vector<BusyringParams> ps(3);
    ps[1].depth = 4;
    ps[1].branch_probs = {0.9, 0.7};
    ps[2].depth = 1;
    for (const auto& p : ps) {
        for (std::uint64_t gid : {0, 1, 2, 3, 41, 1000}) {
            SCOPED_TRACE(gid);
            const Morphology m = busyring_cell(gid, p);
            const auto want = expected_busyring(gid, p);
            ASSERT_EQ(m.branches.size(), want.size() + 1);
            for (std::size_t i = 0; i < want.size(); ++i) {
                const Branch& b = m.branches[i + 1];
                EXPECT_EQ(b.parent, want[i].parent) << i;
                EXPECT_EQ(b.xyz.size(), want[i].points) << i;
                EXPECT_NEAR(b.xyz.front().z(), want[i].z0, 1e-9) << i;
                EXPECT_NEAR(b.xyz.back().z(), want[i].z1, 1e-9) << i;
                EXPECT_NEAR(b.length(), want[i].z1 - want[i].z0, 1e-9) << i;
            }
        }
    }
}

TEST(CellBuilders, BusyringStructure) {
    const BusyringParams p;
    for (std::uint64_t gid = 0; gid < 16; ++gid) {
        SCOPED_TRACE(gid);
        const Morphology m = busyring_cell(gid, p);
        const Branch& soma = m.branches[0];
        EXPECT_EQ(soma.tag, tag_soma);
        EXPECT_EQ(soma.xyz[0], Eigen::Vector3d(0, 0, -soma_r));
        EXPECT_EQ(soma.xyz[1], Eigen::Vector3d(0, 0, soma_r));
        // 12.6157 µm is 500 µm²'s diameter to six digits: area within 4e-3 µm².
        EXPECT_NEAR(2 * M_PI * soma_r * soma.length(), 500.0, 5e-3);
        std::vector<int> n_kids(m.branches.size(), 0);
        for (std::size_t i = 1; i < m.branches.size(); ++i) {
            const Branch& b = m.branches[i];
            const Branch& up = m.branches[b.parent];
            ++n_kids[b.parent];
            EXPECT_EQ(b.tag, tag_dend);
            EXPECT_EQ(b.parent_x, 1.0);
            EXPECT_EQ(b.xyz.front(), up.xyz.back());
            EXPECT_EQ(b.radius.front(), up.radius.back());
            for (std::size_t k = 0; k < b.xyz.size(); ++k) {
                EXPECT_EQ(b.xyz[k].x(), 0);
                EXPECT_EQ(b.xyz[k].y(), 0);
                if (k > 0) EXPECT_GT(b.xyz[k].z(), b.xyz[k - 1].z());
                if (k > 0 || b.parent != 0) EXPECT_EQ(b.radius[k], 0.5);
            }
            if (b.parent == 0) EXPECT_EQ(b.radius[0], soma_r);
        }
        // A section with one kept child is merged with it; only the soma may have one child.
        EXPECT_EQ(n_kids[0], 2);  // branch_probs[0] = 1 keeps both level-0 dendrites
        for (std::size_t i = 1; i < m.branches.size(); ++i) EXPECT_TRUE(n_kids[i] == 0 || n_kids[i] == 2) << i;
        // Every point sits on its level's grid: level i spans lengths[i] in round(compartments[i]) steps.
        std::vector<double> grid{soma_r};
        double z = soma_r;
        for (unsigned i = 0; i < p.depth; ++i) {
            const double l = lerp(p.lengths, i, p.depth);
            const int nc = static_cast<int>(std::lround(lerp(p.compartments, i, p.depth)));
            for (int k = 1; k <= nc; ++k) grid.push_back(z + k * l / nc);
            z += l;
        }
        for (const auto& b : m.branches)
            for (std::size_t k = 1; k < b.xyz.size(); ++k) {
                bool on = false;
                for (double g : grid) on = on || std::abs(b.xyz[k].z() - g) < 1e-9;
                EXPECT_TRUE(on) << b.xyz[k].z();
            }
        EXPECT_LE(m.branches.back().xyz.back().z(), z + 1e-9);
    }
}

TEST(CellBuilders, BusyringEdgeParameters) {
    BusyringParams one;
    one.depth = 1;  // interpolation at p = 0: level 0 only
    const Morphology m = busyring_cell(5, one);
    ASSERT_EQ(m.branches.size(), 3u);
    EXPECT_EQ(m.branches[1].xyz.size(), 21u);
    EXPECT_NEAR(m.branches[1].length(), 200, 1e-12);
    BusyringParams bad;
    bad.compartments = {20, 0.2};
    EXPECT_THROW(busyring_cell(0, bad), std::invalid_argument);
    bad = {};
    bad.lengths = {200, -1};
    EXPECT_THROW(busyring_cell(0, bad), std::invalid_argument);
}
