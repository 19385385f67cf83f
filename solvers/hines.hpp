#pragma once
// Serial Hines elimination on CVs first..last-1 of one tree numbered so that
// parent[i] < i (root first, parent -1). Symmetric matrix: u[i] couples i and parent[i].
// On return rhs holds the solution; d is overwritten.
#include "core/hd.hpp"

namespace arbolito {

ARB_HD void hines_solve(int first, int last, const int* parent, double* d, const double* u, double* rhs) {
    for (int i = last - 1; i > first; --i) {
        const int p = parent[i];
        const double f = u[i] / d[i];
        d[p] -= f * u[i];
        rhs[p] -= f * rhs[i];
    }
    rhs[first] /= d[first];
    for (int i = first + 1; i < last; ++i) rhs[i] = (rhs[i] - u[i] * rhs[parent[i]]) / d[i];
}

}  // namespace arbolito
