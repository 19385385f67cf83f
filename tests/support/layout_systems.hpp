#pragma once
// Random Hines systems for cells placed in a solver's layout, with each cell's serial
// solve in natural numbering as the reference: shared by the tests of the layouts' own
// solves (gpu-cell sweeps, branch-level solve).
#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "solvers/hines.hpp"
#include "solvers/layout.hpp"

namespace arbolito::test_systems {

struct LayoutSystems {
    std::vector<double> d, u, rhs;            // layout numbering; padding rows d 1, u 0, rhs 0
    std::vector<std::vector<double>> ref;     // per cell, natural numbering: hines_solve's x
};

// Diagonally dominant (membrane term > 0 on every diagonal), as the cable equation is.
inline LayoutSystems random_systems(const std::vector<std::vector<int>>& cells, const Layout& l, std::mt19937& gen) {
    std::uniform_real_distribution<double> g(0.1, 2.0), r(-1.0, 1.0);
    LayoutSystems s;
    s.d.assign(l.n_cv, 1.0), s.u.assign(l.n_cv, 0.0), s.rhs.assign(l.n_cv, 0.0);
    s.ref.resize(cells.size());
    for (std::size_t k = 0; k < cells.size(); ++k) {
        const auto& p = cells[k];
        const int n = static_cast<int>(p.size());
        std::vector<double> cd(n), cu(n, 0.0), cr(n);
        for (int i = 0; i < n; ++i) cd[i] = g(gen), cr[i] = r(gen);
        for (int i = 1; i < n; ++i) {
            const double gi = g(gen);
            cu[i] = -gi;
            cd[i] += gi;
            cd[p[i]] += gi;
        }
        // Each edge's u goes to its child end in the layout: the CV, or its natural
        // parent where the layout re-rooted the cell (gpu-fine).
        for (int i = 0; i < n; ++i) {
            const int x = l.index[k][i];
            s.d[x] = cd[i], s.rhs[x] = cr[i];
            if (i == 0) continue;
            const int px = l.index[k][p[i]];
            if (l.parent[x] == px) s.u[x] = cu[i];
            else if (l.parent[px] == x) s.u[px] = cu[i];
            else throw std::logic_error("random_systems: a tree edge the layout does not keep");
        }
        hines_solve(0, n, p.data(), cd.data(), cu.data(), cr.data());
        s.ref[k] = cr;
    }
    return s;
}

// A stiff system on the CV tree p (natural numbering), as the EDD accuracy tests take it:
// each axial conductance about 1 and each membrane term about 6e-4 of it (CVs so short
// that the membrane barely shows in the diagonal), both times a factor drawn from
// [1 - spread, 1 + spread]; right-hand sides of a membrane near -65 mV.
struct StiffSystem {
    std::vector<double> d, u, b;
};
inline StiffSystem stiff_system(const std::vector<int>& p, double spread, std::mt19937_64& gen) {
    std::uniform_real_distribution<double> wobble(-1, 1), around(1 - spread, 1 + spread);
    const int n = static_cast<int>(p.size());
    StiffSystem s{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0), std::vector<double>(n)};
    for (int i = 1; i < n; ++i) {
        s.u[i] = -around(gen);
        s.d[i] -= s.u[i], s.d[p[i]] -= s.u[i];
    }
    for (int i = 0; i < n; ++i) {
        const double membrane = 6e-4 * around(gen);
        s.d[i] += membrane, s.b[i] = membrane * (-65 + 10 * wobble(gen));
    }
    return s;
}

// The worst norm-wise relative difference over the cells between x (layout numbering)
// and the references; infinity where x holds a NaN.
inline double worst_relative_error(const Layout& l, const std::vector<double>& x,
                                   const std::vector<std::vector<double>>& ref) {
    double worst = 0;
    for (std::size_t k = 0; k < ref.size(); ++k) {
        double num = 0, den = 0;
        for (std::size_t i = 0; i < ref[k].size(); ++i) {
            const double e = x[l.index[k][i]] - ref[k][i];
            num += e * e;
            den += ref[k][i] * ref[k][i];
        }
        if (std::isnan(num)) return INFINITY;
        if (den > 0) worst = std::max(worst, std::sqrt(num / den));
    }
    return worst;
}

// x (in layout numbering) cell by cell, each cell's CVs in natural order: what tests compare
// between numberings of the same cells.
inline std::vector<std::vector<double>> per_cell(const Layout& l, const std::vector<double>& x) {
    std::vector<std::vector<double>> out(l.index.size());
    for (std::size_t c = 0; c < l.index.size(); ++c)
        for (int i : l.index[c]) out[c].push_back(x[i]);
    return out;
}

}  // namespace arbolito::test_systems
