// The cut of a CV tree into unbranched branches (solvers/branch_tree.hpp): every CV in
// exactly one branch, each branch a chain of only children, parents before children and
// one level deeper, and the cuts exactly at CVs with several children. Its solve order is
// checked against Eigen in test_hines_vs_eigen.cpp (BranchLevelOrder).
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cell_trees.hpp"
#include "solvers/branch_tree.hpp"

using namespace arbolito;

namespace {

// Checks every property the branch-level solvers rely on; returns the number of CVs
// with two or more children (each ends a branch).
int check_tree(const std::vector<int>& p, const BranchTree& t) {
    const int n = static_cast<int>(p.size());
    std::vector<int> children(n, 0), branch_of(n, -1);
    for (int i = 1; i < n; ++i) ++children[p[i]];
    EXPECT_EQ(t.offset.size(), t.parent.size() + 1);
    EXPECT_EQ(t.level.size(), t.parent.size());
    EXPECT_EQ(static_cast<int>(t.cv.size()), n);
    int forks = 0;
    for (int b = 0; b < t.n_branches(); ++b) {
        EXPECT_GT(t.length(b), 0) << "branch " << b;
        for (int k = t.offset[b]; k < t.offset[b + 1]; ++k) {
            const int c = t.cv[k];
            EXPECT_EQ(branch_of[c], -1) << "CV " << c << " in two branches";
            branch_of[c] = b;
            if (k > t.offset[b]) {
                EXPECT_EQ(p[c], t.cv[k - 1]) << "branch " << b << " is not a chain";
                EXPECT_EQ(children[t.cv[k - 1]], 1) << "branch " << b << " runs through a fork";
            }
        }
        const int first = t.cv[t.offset[b]], last = t.cv[t.offset[b + 1] - 1];
        EXPECT_NE(children[last], 1) << "branch " << b << " stops before its end";
        if (children[last] > 1) ++forks;
        if (b == 0) {
            EXPECT_EQ(first, 0);
            EXPECT_EQ(t.parent[b], -1);
            EXPECT_EQ(t.level[b], 0);
        } else {
            if (t.parent[b] < 0) {
                ADD_FAILURE() << "branch " << b << " has no parent";
                continue;
            }
            EXPECT_LT(t.parent[b], b) << "parent after child";
            EXPECT_EQ(branch_of[p[first]], t.parent[b]) << "branch " << b << " hangs from another branch";
            EXPECT_GT(children[p[first]], 1) << "branch " << b << " starts at an only child";
            EXPECT_EQ(t.level[b], t.level[t.parent[b]] + 1);
            EXPECT_GE(t.level[b], t.level[b - 1]) << "levels not ascending";
        }
    }
    for (int c = 0; c < n; ++c) EXPECT_GE(branch_of[c], 0) << "CV " << c << " in no branch";
    int max_level = -1;
    for (int l : t.level) max_level = std::max(max_level, l);
    EXPECT_EQ(t.n_levels, max_level + 1);
    return forks;
}

}  // namespace

TEST(BranchTree, SmallTrees) {
    const BranchTree empty = branch_tree({});
    EXPECT_EQ(empty.n_branches(), 0);
    EXPECT_EQ(empty.n_levels, 0);

    const BranchTree one = branch_tree({-1});
    EXPECT_EQ(one.n_branches(), 1);
    EXPECT_EQ(one.n_levels, 1);

    const BranchTree chain = branch_tree({-1, 0, 1, 2});
    EXPECT_EQ(chain.n_branches(), 1);
    EXPECT_EQ(chain.length(0), 4);

    // A Y: 0-1-2 forks into 3-4 and 5; then 4 forks into 6 and 7.
    const std::vector<int> y{-1, 0, 1, 2, 3, 2, 4, 4};
    const BranchTree t = branch_tree(y);
    check_tree(y, t);
    EXPECT_EQ(t.n_branches(), 5);
    EXPECT_EQ(t.n_levels, 3);
    EXPECT_EQ(std::vector<int>(t.cv.begin(), t.cv.begin() + t.offset[1]), (std::vector<int>{0, 1, 2}));

    const std::vector<int> star = trees::star(9);
    const BranchTree s = branch_tree(star);
    check_tree(star, s);
    EXPECT_EQ(s.n_branches(), 9);
    EXPECT_EQ(s.n_levels, 2);
}

TEST(BranchTree, RandomTreesKeepEveryProperty) {
    std::mt19937 gen(2026);
    for (int trial = 0; trial < 50; ++trial) {
        const int n = std::uniform_int_distribution<int>(1, 3000)(gen);
        const int reach = std::uniform_int_distribution<int>(1, 40)(gen);  // small: long chains
        const std::vector<int> p = trees::random_parents(n, reach, gen);
        const BranchTree t = branch_tree(p);
        const int forks = check_tree(p, t);
        // Each fork with k children adds k branches; the root adds one.
        int added = 1;
        std::vector<int> children(n, 0);
        for (int i = 1; i < n; ++i) ++children[p[i]];
        for (int c : children) if (c > 1) added += c;
        EXPECT_EQ(t.n_branches(), added) << "trial " << trial << ", " << forks << " forks";
    }
}

TEST(BranchTree, MalformedTreeIsAnError) {
    EXPECT_THROW(branch_tree({0}), std::invalid_argument);
    EXPECT_THROW(branch_tree({-1, 1}), std::invalid_argument);
    EXPECT_THROW(branch_tree({-1, 0, -1}), std::invalid_argument);
}
