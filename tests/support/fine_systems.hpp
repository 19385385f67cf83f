#pragma once
// Random Hines systems for a numbering whose parent edges may point the other way than
// the natural tree's (gpu-fine re-roots cells): each edge's u goes to whichever end the
// numbering makes the child. Otherwise as layout_systems.hpp's random_systems, with the
// same serial solve in natural numbering as the reference.
#include <random>
#include <stdexcept>
#include <vector>

#include "solvers/hines.hpp"
#include "solvers/layout.hpp"
#include "tests/support/layout_systems.hpp"

namespace arbolito::test_systems {

inline LayoutSystems fine_random_systems(const std::vector<std::vector<int>>& cells, const Layout& l, std::mt19937& gen) {
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
        for (int i = 0; i < n; ++i) {
            const int x = l.index[k][i];
            s.d[x] = cd[i], s.rhs[x] = cr[i];
            if (i == 0) continue;
            const int px = l.index[k][p[i]];
            if (l.parent[x] == px) s.u[x] = cu[i];
            else if (l.parent[px] == x) s.u[px] = cu[i];
            else throw std::logic_error("fine_random_systems: a tree edge the numbering does not keep");
        }
        hines_solve(0, n, p.data(), cd.data(), cu.data(), cr.data());
        s.ref[k] = cr;
    }
    return s;
}

}  // namespace arbolito::test_systems
