#pragma once
// hines_solve's elimination and substitution, in the same order, carried in long double on
// a system given in double: the reference that accuracy tests measure the double solvers
// against (solver cpu:solve=long-double; on x86-64 a long double has a 64-bit significand,
// 11 bits more than a double, so its own rounding is 2^-11 of theirs). Host only; slow.
// Rows first..last-1 of one tree, parent[i] < i, first the root (hines.hpp). On return rhs
// holds the solution rounded to double; d and u are left alone. work: scratch space,
// resized as needed.
#include <cstddef>
#include <vector>

#include "solvers/hines.hpp"

namespace arbolito {

inline void hines_solve_long_double(int first, int last, const int* parent, const double* d, const double* u,
                                    double* rhs, std::vector<long double>& work) {
    const int n = last - first;
    if (n <= 0) return;
    work.resize(2 * static_cast<std::size_t>(n));
    long double* dd = work.data();  // row i at i - first
    long double* x = dd + n;
    for (int i = 0; i < n; ++i) dd[i] = d[first + i], x[i] = rhs[first + i];
    hines_solve_as<long double>(first, last, parent, dd, u, x, first);
    for (int i = 0; i < n; ++i) rhs[first + i] = static_cast<double>(x[i]);
}

}  // namespace arbolito
