#pragma once
// CV trees (parent arrays in natural order: parent[0] = -1, parent[i] < i) for the GPU
// solver tests and benchmarks: synthetic cells with a chosen number of branches, size
// variants of a cell, and real morphologies (SWC through arbolito's reader and
// discretisation) where the build has the reader (ARBOLITO_WITH_SWC).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#ifdef ARBOLITO_WITH_SWC
// Host-only use of Eigen from .cu files: without this nvcc annotates Eigen for devices
// and warns about it at every defaulted member.
#if defined(__CUDACC__) && !defined(EIGEN_NO_CUDA)
#define EIGEN_NO_CUDA
#endif
#include "model/cell_builders.hpp"
#include "model/discretization.hpp"
#include "io/swc.hpp"
#endif

namespace arbolito::trees {

using Tree = std::vector<int>;

// n CVs in `branches` unbranched runs, numbered branch by branch as discretize does: each
// run's first CV hangs from a random CV of an earlier run (its end in 3 cases of 4, as
// dendrites fork at branch ends), the rest of the run is a chain.
inline Tree synthetic(int n, int branches, std::mt19937& gen) {
    branches = std::max(1, std::min(branches, n));
    if (n <= 0) return {};
    // Cut 1..n-1 at branches-1 distinct random points: run lengths >= 1.
    std::vector<int> cuts;
    {
        std::vector<int> all(n - 1);
        for (int i = 0; i < n - 1; ++i) all[i] = i + 1;
        std::shuffle(all.begin(), all.end(), gen);
        cuts.assign(all.begin(), all.begin() + (branches - 1));
        std::sort(cuts.begin(), cuts.end());
    }
    cuts.push_back(n);
    Tree p(n, -1);
    std::vector<int> run_first, run_last;
    int start = 0;
    for (int cut : cuts) {
        if (!run_first.empty()) {
            const int r = std::uniform_int_distribution<int>(0, static_cast<int>(run_first.size()) - 1)(gen);
            p[start] = std::bernoulli_distribution(0.75)(gen)
                           ? run_last[r]
                           : std::uniform_int_distribution<int>(run_first[r], run_last[r])(gen);
        }
        for (int i = start + 1; i < cut; ++i) p[i] = i - 1;
        run_first.push_back(start);
        run_last.push_back(cut - 1);
        start = cut;
    }
    return p;
}

// n_cells synthetic trees of min_n..max_n CVs with a branch point every min_run..40 CVs.
inline std::vector<Tree> random_batch(int n_cells, int min_n, int max_n, int min_run, std::mt19937& gen) {
    std::vector<Tree> cells;
    for (int c = 0; c < n_cells; ++c) {
        const int n = std::uniform_int_distribution<int>(min_n, max_n)(gen);
        const int per_branch = std::uniform_int_distribution<int>(min_run, 40)(gen);
        cells.push_back(synthetic(n, 1 + n / per_branch, gen));
    }
    return cells;
}

// n CVs, each one's parent drawn uniformly from the `reach` CVs before it: from long
// chains (reach 1) to bushy trees.
inline Tree random_parents(int n, int reach, std::mt19937& gen) {
    Tree p(std::max(0, n), -1);
    for (int i = 1; i < n; ++i) p[i] = std::uniform_int_distribution<int>(std::max(0, i - reach), i - 1)(gen);
    return p;
}

// n CVs, every one but the root a child of the root: each a branch of its own.
inline Tree star(int n) {
    Tree p(std::max(0, n), 0);
    if (n > 0) p[0] = -1;
    return p;
}

// Number of CVs whose parent is not the previous CV (where a new branch starts; not
// arbolito::branch_points, the CVs with two or more children).
inline int branch_starts(const Tree& p) {
    int k = 0;
    for (std::size_t i = 1; i < p.size(); ++i) k += p[i] != static_cast<int>(i) - 1;
    return k;
}

// A variant of `base` with `target` CVs: a prefix of its numbering (whole trailing
// branches dropped, still a valid tree) or base plus random extra branches of the same
// mean length as base's.
inline Tree variant(const Tree& base, int target, std::mt19937& gen) {
    if (target <= static_cast<int>(base.size())) return Tree(base.begin(), base.begin() + target);
    Tree p = base;
    const int mean_run = std::max(2, static_cast<int>(base.size()) / (branch_starts(base) + 1));
    while (static_cast<int>(p.size()) < target) {
        const int len = std::min(target - static_cast<int>(p.size()),
                                 std::uniform_int_distribution<int>(1, 2 * mean_run - 1)(gen));
        const int at = std::uniform_int_distribution<int>(0, static_cast<int>(p.size()) - 1)(gen);
        p.push_back(at);
        for (int k = 1; k < len; ++k) p.push_back(static_cast<int>(p.size()) - 1);
    }
    return p;
}

// The CV trees of busyring cells 0 .. n-1, discretised as the busyring network does
// (every segment a CV).
inline std::vector<Tree> busyring(int n, const BusyringParams& p = {}) {
    std::vector<Tree> cells(n);
#pragma omp parallel for schedule(dynamic, 16)
    for (int c = 0; c < n; ++c)
        cells[c] = discretize(busyring_cell(c, p), {CvPolicy::every_segment, 1, 0}, std::vector<double>(1000, 100.0)).parent;
    return cells;
}

// An unbranched cable of n CVs.
inline Tree chain(int n) {
    Tree p(n);
    for (int i = 0; i < n; ++i) p[i] = i - 1;
    return p;
}

// A comb: a spine of `teeth` CVs, each with a side branch of 2 CVs: `teeth` levels deep.
inline Tree comb(int teeth) {
    Tree p{-1};
    int spine = 0;
    for (int t = 0; t < teeth; ++t) {
        const int side = static_cast<int>(p.size());
        p.push_back(spine);
        p.push_back(side);
        p.push_back(spine);
        spine = static_cast<int>(p.size()) - 1;
    }
    return p;
}

inline bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

// tests/data/morphologies of the checkout: $ARBOLITO_SOURCE_DIR if set (binaries built
// elsewhere), else the source folder the build saw.
inline std::string morphology_dir() {
    const char* env = std::getenv("ARBOLITO_SOURCE_DIR");
#ifdef ARBOLITO_SOURCE_DIR
    const std::string root = env ? env : ARBOLITO_SOURCE_DIR;
#else
    const std::string root = env ? env : ".";
#endif
    return root + "/tests/data/morphologies/";
}

// The SWC file's CV tree under the discretisation whose size lands nearest `target`
// (nseg 1..20 and max_extent from 1 to 400 µm tried); empty if the file is missing or
// the build cannot read SWC. `policy` receives the chosen policy's description.
inline Tree real(const std::string& path, int target, std::string* policy = nullptr) {
#ifdef ARBOLITO_WITH_SWC
    if (!file_exists(path)) return {};
    const Morphology m = read_swc(path);
    const std::vector<double> ra(m.branches.size(), 100.0);
    Tree best;
    std::string best_desc;
    auto consider = [&](const CvPolicy& pol) {
        const CellCvs cvs = discretize(m, pol, ra);
        if (best.empty() || std::abs(cvs.size() - target) < std::abs(static_cast<int>(best.size()) - target)) {
            best = cvs.parent;
            best_desc = pol.describe();
        }
    };
    for (int n = 1; n <= 20; ++n) consider(CvPolicy{CvPolicy::nseg, n, 0.0});
    for (double ext = 1.0; ext <= 400.0; ext *= 1.15) consider(CvPolicy{CvPolicy::max_extent, 1, ext});
    if (policy) *policy = best_desc;
    return best;
#else
    (void)path, (void)target, (void)policy;
    return {};
#endif
}

}  // namespace arbolito::trees
