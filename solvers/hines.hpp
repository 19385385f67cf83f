#pragma once
// Serial Hines elimination on CVs first..last-1 of one tree numbered so that
// parent[i] < i (root first, parent -1). Symmetric matrix: u[i] couples i and parent[i].
// On return rhs holds the solution; d is overwritten.
#include "core/hd.hpp"

namespace arbolito {

// The elimination and substitution in the arithmetic of T, with row i of d and rhs at
// i - offset (a copy of the rows in another type: hines_long_double.hpp).
template <class T>
ARB_HD void hines_solve_as(int first, int last, const int* parent, T* d, const double* u, T* rhs, int offset) {
    for (int i = last - 1; i > first; --i) {
        const int p = parent[i] - offset;
        const T f = u[i] / d[i - offset];
        d[p] -= f * u[i];
        rhs[p] -= f * rhs[i - offset];
    }
    rhs[first - offset] /= d[first - offset];
    for (int i = first + 1; i < last; ++i)
        rhs[i - offset] = (rhs[i - offset] - u[i] * rhs[parent[i] - offset]) / d[i - offset];
}

ARB_HD void hines_solve(int first, int last, const int* parent, double* d, const double* u, double* rhs) {
    hines_solve_as<double>(first, last, parent, d, u, rhs, 0);
}

}  // namespace arbolito
