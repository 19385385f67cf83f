#pragma once
// Serial Hines elimination on CVs first..last-1 of one tree numbered so that
// parent[i] < i (root first, parent -1). Symmetric matrix: u[i] couples i and parent[i].
// On return rhs holds the solution; d is overwritten.
#include <algorithm>

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

namespace arbolito {

// Up to W independent cells solved in lockstep. Each cell's elimination is one long
// chain of dependent divisions; interleaving W chains lets the CPU overlap their
// latencies. Per cell the arithmetic is exactly hines_solve's (bitwise-equal results).
template <int W>
inline void hines_solve_lockstep(const int* first, const int* last, int ncells, const int* parent, double* d,
                                 const double* u, double* rhs) {
    int len = 0;
    for (int c = 0; c < ncells; ++c) len = std::max(len, last[c] - first[c]);
    for (int j = 1; j < len; ++j) {
        for (int c = 0; c < W; ++c) {
            if (c >= ncells) break;
            const int i = last[c] - j;
            if (i <= first[c]) continue;
            const int p = parent[i];
            const double f = u[i] / d[i];
            d[p] -= f * u[i];
            rhs[p] -= f * rhs[i];
        }
    }
    for (int c = 0; c < ncells; ++c) rhs[first[c]] /= d[first[c]];
    for (int j = 1; j < len; ++j) {
        for (int c = 0; c < W; ++c) {
            if (c >= ncells) break;
            const int i = first[c] + j;
            if (i >= last[c]) continue;
            rhs[i] = (rhs[i] - u[i] * rhs[parent[i]]) / d[i];
        }
    }
}

}  // namespace arbolito
