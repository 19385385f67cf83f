#pragma once
// Hines systems for cells placed in a solver's layout and the CPU's serial solve of them,
// compared bit for bit: the tests that a GPU solver's sweeps give the host's bits
// (test_solver_bits.cpp on the host, the GPU tests on the device).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/hines.hpp"
#include "solvers/layout.hpp"
#include "tests/support/cell_trees.hpp"

namespace arbolito::host_bits {

struct Systems {
    std::vector<double> d, u, rhs;  // layout numbering; padding rows d 1, u 0, rhs 0
};

// Diagonally dominant systems (the cable equation's form), drawn from `seed` cell by cell
// in natural order: the same values whatever the layout. Each edge's u goes to its child
// end in the layout (the CV, or its natural parent where the layout re-rooted the cell).
inline Systems systems(const std::vector<std::vector<int>>& cells, const Layout& l, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> g(0.1, 2.0), r(-1.0, 1.0);
    Systems s;
    s.d.assign(l.n_cv, 1.0), s.u.assign(l.n_cv, 0.0), s.rhs.assign(l.n_cv, 0.0);
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
            else throw std::logic_error("host_bits::systems: a tree edge the layout does not keep");
        }
    }
    return s;
}

// x (layout numbering) cell by cell, each cell's CVs in natural order.
inline std::vector<std::vector<double>> per_cell(const Layout& l, const std::vector<double>& x) {
    std::vector<std::vector<double>> out(l.index.size());
    for (std::size_t c = 0; c < l.index.size(); ++c)
        for (int i : l.index[c]) out[c].push_back(x[i]);
    return out;
}

// The serial Hines solve (hines_solve) of systems(cells, l, seed) in l, a layout of cells
// one after another (contiguous_layout, level_layout: the CPU's), per cell in natural order.
inline std::vector<std::vector<double>> serial_solution(const std::vector<std::vector<int>>& cells, const Layout& l,
                                                        unsigned seed) {
    Systems s = systems(cells, l, seed);
    int first = 0;
    for (const auto& c : cells) {
        const int n = static_cast<int>(c.size());
        hines_solve(first, first + n, l.parent.data(), s.d.data(), s.u.data(), s.rhs.data());
        first += n;
    }
    return per_cell(l, s.rhs);
}

// How many values there are.
inline long count(const std::vector<std::vector<double>>& a) {
    long n = 0;
    for (const auto& c : a) n += static_cast<long>(c.size());
    return n;
}

// How many values differ in their bits (a shape mismatch counts every value).
inline long differing(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
    long n = 0;
    if (a.size() != b.size()) return 1 << 30;
    for (std::size_t c = 0; c < a.size(); ++c) {
        if (a[c].size() != b[c].size()) return 1 << 30;
        for (std::size_t i = 0; i < a[c].size(); ++i) {
            std::uint64_t x, y;
            std::memcpy(&x, &a[c][i], sizeof x);
            std::memcpy(&y, &b[c][i], sizeof y);
            n += x != y;
        }
    }
    return n;
}

// Random trees (a branch point every 2 to 40 CVs), random parents (bushy), a star, a comb,
// single CVs, a chain, busyring cells, and every morphology in tests/data that the reader
// accepts (the Allen cells among them; a few are there to be refused).
inline std::vector<trees::Tree> test_cells(std::mt19937& gen) {
    std::vector<trees::Tree> cells = trees::random_batch(60, 1, 300, 2, gen);
    for (int reach : {1, 3, 20}) cells.push_back(trees::random_parents(200, reach, gen));
    cells.push_back(trees::star(50));
    cells.push_back(trees::comb(30));
    cells.push_back(trees::chain(257));
    cells.push_back({-1});
    for (auto& t : trees::busyring(4)) cells.push_back(t);
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(trees::morphology_dir()))
        if (e.path().extension() == ".swc") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    int real = 0;
    for (const auto& f : files) {
        try {
            if (auto t = trees::real(f, 800); !t.empty()) cells.push_back(t), ++real;
        } catch (const std::exception&) {
        }
    }
#ifdef ARBOLITO_WITH_SWC
    if (real < 14) throw std::runtime_error("host_bits::test_cells: fewer than 14 morphologies read");
#endif
    return cells;
}

}  // namespace arbolito::host_bits
