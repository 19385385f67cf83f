// Every CPU solve equals Eigen's sparse direct solve of the same matrix.
#include <random>

#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>
#include <gtest/gtest.h>

#include "tests/support/cell_trees.hpp"
#include "model/cell_builders.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "io/swc.hpp"
#include "solvers/branch_layout.hpp"
#include "solvers/hines.hpp"
#include "solvers/lane_hines.hpp"
#include "solvers/lane_layout.hpp"
#include "solvers/layout.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

namespace {

// Solves with Hines and with Eigen (LDLT of the symmetric matrix); returns the relative
// residual of the Hines solution, ‖A x − b‖ / ‖b‖, and the relative difference to Eigen.
// With `cvs`, the matrix is the one a time step assembles for that cell: capacitance
// over dt plus a random membrane conductance on the diagonal, its axial conductances.
// branch_level: solve in the branch-level solver's numbering and order (branch_layout_solve).
std::pair<double, double> check(const std::vector<int>& parent, std::mt19937& gen, const CellCvs* cvs = nullptr,
                                bool branch_level = false) {
    const int n = static_cast<int>(parent.size());
    std::uniform_real_distribution<double> g(0.01, 10.0), c(0.001, 1.0), b(-100.0, 100.0);
    std::vector<double> d(n), u(n, 0.0), rhs(n);
    const double dt = 0.025;
    for (int i = 0; i < n; ++i) {
        d[i] = cvs ? 1e-5 * cvs->area[i] / dt + 1e-2 * cvs->area[i] * c(gen) * 1e-3 : c(gen);
        rhs[i] = b(gen);
    }
    for (int i = 1; i < n; ++i) {
        const double gi = cvs ? cvs->g_axial[i] : g(gen);
        u[i] = -gi;
        d[i] += gi;
        d[parent[i]] += gi;
    }
    std::vector<Eigen::Triplet<double>> t;
    for (int i = 0; i < n; ++i) {
        t.emplace_back(i, i, d[i]);
        if (parent[i] >= 0) { t.emplace_back(i, parent[i], u[i]); t.emplace_back(parent[i], i, u[i]); }
    }
    Eigen::SparseMatrix<double> A(n, n);
    A.setFromTriplets(t.begin(), t.end());
    Eigen::Map<Eigen::VectorXd> bv(rhs.data(), n);
    const Eigen::VectorXd bcopy = bv;
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(A);
    const Eigen::VectorXd xe = ldlt.solve(bcopy);
    if (branch_level) {
        // One cell in the branch-level numbering, one branch per block: the GPU's order.
        const BranchNumbering g = branch_level_layout({parent}, 1);
        const Layout& l = g.layout;
        std::vector<double> dl(l.n_cv, 1.0), ul(l.n_cv, 0.0), rl(l.n_cv, 0.0);
        for (int i = 0; i < n; ++i) dl[l.index[0][i]] = d[i], ul[l.index[0][i]] = u[i], rl[l.index[0][i]] = rhs[i];
        branch_layout_solve(branch_schedule(l, g.slots), dl.data(), ul.data(), rl.data());
        for (int i = 0; i < n; ++i) rhs[i] = rl[l.index[0][i]];
    } else {
        hines_solve(0, n, parent.data(), d.data(), u.data(), rhs.data());
    }
    const Eigen::Map<Eigen::VectorXd> x(rhs.data(), n);
    return {(A * x - bcopy).norm() / bcopy.norm(), (x - xe).norm() / xe.norm()};
}

}  // namespace

// The matrices are diagonally dominant with condition numbers far below 1e4, so a
// backward-stable elimination leaves residuals of a few ulps: 1e-12 is generous.
TEST(HinesVsEigen, RandomTrees) {
    std::mt19937 gen(12345);
    for (int n : {1, 2, 7, 100, 5000}) {
        const auto [res, diff] = check(trees::random_parents(n, 8, gen), gen);
        EXPECT_LT(res, 1e-12) << n;
        EXPECT_LT(diff, 1e-12) << n;
    }
}

TEST(HinesVsEigen, RealMorphologies) {
    std::mt19937 gen(777);
    for (const char* f : {"ca1_pyramidal_n120.swc", "purkinje_mouse_original.swc", "l5_pyramidal_with_axon.swc"}) {
        const Morphology m = read_swc(test_data("morphologies/" + std::string(f)));
        for (CvPolicy p : {CvPolicy{CvPolicy::nseg, 3, 0}, CvPolicy{CvPolicy::max_extent, 1, 10.0}, CvPolicy{CvPolicy::every_segment, 1, 0}}) {
            const CellCvs cvs = discretize(m, p, std::vector<double>(m.branches.size(), 100.0));
            const auto [res, diff] = check(cvs.parent, gen, &cvs);
            EXPECT_LT(res, 1e-12) << f << " " << p.describe();
            EXPECT_LT(diff, 1e-12) << f << " " << p.describe();
        }
    }
    for (std::uint64_t gid : {0, 1, 2}) {
        const CellCvs cvs = discretize(busyring_cell(gid, {}), {CvPolicy::every_segment, 1, 0}, std::vector<double>(1000, 100.0));
        const auto [res, diff] = check(cvs.parent, gen, &cvs);
        EXPECT_LT(res, 1e-12);
        EXPECT_LT(diff, 1e-12);
    }
}

// The branch-level order (levels from the deepest up, a Thomas sweep per branch) solves
// the same systems as well: random trees, stars, real cells at three discretisations.
TEST(HinesVsEigen, BranchLevelOrder) {
    std::mt19937 gen(4242);
    for (int n : {1, 2, 7, 100, 5000}) {
        const auto [res, diff] = check(trees::random_parents(n, 8, gen), gen, nullptr, true);
        EXPECT_LT(res, 1e-12) << n;
        EXPECT_LT(diff, 1e-12) << n;
    }
    const auto [res, diff] = check(trees::star(50), gen, nullptr, true);
    EXPECT_LT(res, 1e-12);
    EXPECT_LT(diff, 1e-12);
    for (const char* f : {"ca1_pyramidal_n120.swc", "purkinje_mouse_original.swc"}) {
        const Morphology m = read_swc(test_data("morphologies/" + std::string(f)));
        for (CvPolicy p : {CvPolicy{CvPolicy::nseg, 3, 0}, CvPolicy{CvPolicy::every_segment, 1, 0}}) {
            const CellCvs cvs = discretize(m, p, std::vector<double>(m.branches.size(), 100.0));
            const auto [r, e] = check(cvs.parent, gen, &cvs, true);
            EXPECT_LT(r, 1e-12) << f << " " << p.describe();
            EXPECT_LT(e, 1e-12) << f << " " << p.describe();
        }
    }
    const CellCvs cvs = discretize(busyring_cell(3, {}), {CvPolicy::every_segment, 1, 0}, std::vector<double>(1000, 100.0));
    const auto [r, e] = check(cvs.parent, gen, &cvs, true);
    EXPECT_LT(r, 1e-12);
    EXPECT_LT(e, 1e-12);
}

// The CPU backend's numbering (lane_layout) and its solve of W cells at once in SIMD
// lanes: per cell, the solution equals Eigen's on the natural numbering (1e-12 relative:
// the same bound as the serial solve, both direct eliminations of well-conditioned
// matrices), and every width gives the same bits as W = 1 (each lane does the same
// arithmetic on its cell). W = 1 is level_layout's numbering.
TEST(HinesVsEigen, LaneLayoutEveryWidth) {
    std::mt19937 gen(99);
    std::vector<std::vector<int>> trees;
    for (int n : {1, 3, 50, 400, 2000, 7, 400}) trees.push_back(trees::random_parents(n, 8, gen));
    trees.push_back(discretize(read_swc(test_data("morphologies/ca1_pyramidal_n120.swc")), {CvPolicy::max_extent, 1, 20.0},
                               std::vector<double>(1000, 100.0)).parent);
    trees.push_back(trees::random_parents(400, 8, gen));  // as long as another: a block of alike lanes
    // The matrices, per cell in natural numbering.
    std::uniform_real_distribution<double> g(0.01, 10.0), c(0.001, 1.0), b(-100.0, 100.0);
    struct Cell {
        std::vector<double> d, u, rhs;
    };
    std::vector<Cell> cells;
    std::vector<Eigen::VectorXd> expected;
    for (const auto& p : trees) {
        const int n = static_cast<int>(p.size());
        Cell m{std::vector<double>(n), std::vector<double>(n, 0.0), std::vector<double>(n)};
        std::vector<Eigen::Triplet<double>> t;
        Eigen::VectorXd bv(n);
        for (int i = 0; i < n; ++i) { m.d[i] = c(gen); bv[i] = m.rhs[i] = b(gen); }
        for (int i = 1; i < n; ++i) {
            const double gi = g(gen);
            m.u[i] = -gi;
            m.d[i] += gi;
            m.d[p[i]] += gi;
            t.emplace_back(i, p[i], -gi);
            t.emplace_back(p[i], i, -gi);
        }
        for (int i = 0; i < n; ++i) t.emplace_back(i, i, m.d[i]);
        Eigen::SparseMatrix<double> A(n, n);
        A.setFromTriplets(t.begin(), t.end());
        expected.push_back(Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>(A).solve(bv));
        cells.push_back(std::move(m));
    }
    // Solves in the lane layout of width W; returns each cell's solution in natural order.
    auto solve = [&](int W) {
        const LaneNumbering ln = lane_layout(trees, W);
        const Layout& l = ln.layout;
        std::vector<double> d(l.n_cv, 1.0), u(l.n_cv, 0.0), rhs(l.n_cv, 0.0);  // padding: the inert row
        for (std::size_t k = 0; k < trees.size(); ++k)
            for (std::size_t i = 0; i < trees[k].size(); ++i) {
                const int L = l.index[k][i];
                d[L] = cells[k].d[i];
                u[L] = cells[k].u[i];
                rhs[L] = cells[k].rhs[i];
                EXPECT_EQ(l.parent[L], trees[k][i] < 0 ? -1 : l.index[k][trees[k][i]]) << "W " << W;
            }
        switch (W) {
            case 1: lane_hines_solve_all<1>(ln.blocks, l.parent.data(), d.data(), u.data(), rhs.data()); break;
            case 2: lane_hines_solve_all<2>(ln.blocks, l.parent.data(), d.data(), u.data(), rhs.data()); break;
            case 4: lane_hines_solve_all<4>(ln.blocks, l.parent.data(), d.data(), u.data(), rhs.data()); break;
            default: lane_hines_solve_all<8>(ln.blocks, l.parent.data(), d.data(), u.data(), rhs.data()); break;
        }
        for (int p : l.padding) EXPECT_EQ(rhs[p], 0.0) << "W " << W << " padding row " << p;
        std::vector<std::vector<double>> x(trees.size());
        for (std::size_t k = 0; k < trees.size(); ++k)
            for (std::size_t i = 0; i < trees[k].size(); ++i) x[k].push_back(rhs[l.index[k][i]]);
        return x;
    };
    const Layout level = level_layout(trees);
    const LaneNumbering one = lane_layout(trees, 1);
    EXPECT_EQ(one.layout.parent, level.parent);
    EXPECT_EQ(one.layout.index, level.index);
    const auto ref = solve(1);
    for (std::size_t k = 0; k < trees.size(); ++k) {
        const Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(ref[k].data(), ref[k].size());
        EXPECT_LT((x - expected[k]).norm() / expected[k].norm(), 1e-12) << "tree " << k;
    }
    for (int W : {2, 4, 8}) EXPECT_EQ(solve(W), ref) << "W " << W;
}

// Load balancing counts CVs without discretising (count_cvs): the counts must be the
// discretisation's, or ranks get unequal work without anyone noticing.
TEST(HinesVsEigen, CvCountMatchesDiscretisation) {
    for (const char* f : {"ca1_pyramidal_n120.swc", "purkinje_mouse_original.swc", "l5_pyramidal_with_axon.swc"}) {
        const Morphology m = read_swc(test_data("morphologies/" + std::string(f)));
        for (CvPolicy p : {CvPolicy{CvPolicy::nseg, 3, 0}, CvPolicy{CvPolicy::max_extent, 1, 10.0},
                           CvPolicy{CvPolicy::every_segment, 1, 0}})
            EXPECT_EQ(count_cvs(m, p), discretize(m, p, std::vector<double>(m.branches.size(), 100.0)).size())
                << f << " " << p.describe();
    }
    for (std::uint64_t gid : {0, 7}) {
        const Morphology m = busyring_cell(gid, {});
        const CvPolicy p{CvPolicy::every_segment, 1, 0};
        EXPECT_EQ(count_cvs(m, p), discretize(m, p, std::vector<double>(m.branches.size(), 100.0)).size());
    }
}
