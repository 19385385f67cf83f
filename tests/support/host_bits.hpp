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
#include <utility>
#include <vector>

#include "solvers/hines.hpp"
#include "solvers/layout.hpp"
#include "tests/support/cell_trees.hpp"
#include "tests/support/layout_systems.hpp"

namespace arbolito::host_bits {

struct Systems {
    std::vector<double> d, u, rhs;  // layout numbering; padding rows d 1, u 0, rhs 0
};

// Diagonally dominant systems (the cable equation's form), drawn from `seed` cell by cell
// in natural order (layout_systems.hpp's random_systems): the same values whatever the
// layout.
inline Systems systems(const std::vector<std::vector<int>>& cells, const Layout& l, unsigned seed) {
    std::mt19937 gen(seed);
    test_systems::LayoutSystems r = test_systems::random_systems(cells, l, gen);
    return {std::move(r.d), std::move(r.u), std::move(r.rhs)};
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
