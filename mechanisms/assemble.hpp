#pragma once
// Matrix assembly terms of the time step (docs/architecture.md), shared by both
// backends. A membrane current I (nA, outward positive) with conductance G (µS),
// linearised about v, adds G to the diagonal and G·v − I to the right-hand side.
#include "core/hd.hpp"
#include "core/strided_batches.hpp"

namespace arbolito {

// Diagonal and rhs before any membrane current: capacitance and axial coupling.
ARB_HD void assemble_base(double cap, double g_sum, double dt, double v, double& d, double& rhs) {
    const double c = cap / dt;
    d = c + g_sum;
    rhs = c * v;
}

// The same from the terms assemble_base gives at v = 1 for the run's dt, d_base = cap/dt +
// g_sum and cap_dt = cap/dt, computed once: the same bits, no division per step.
// T: double, or Lanes<W> on the CPU (core/lanes.hpp).
template <class T>
ARB_HD void assemble_precomputed(T d_base, T cap_dt, T v, T& d, T& rhs) {
    d = d_base;
    rhs = cap_dt * v;
}

// Thread t of nt assembles CVs t, t + nt, ... < n of a block, the loads of B CVs before
// their arithmetic (core/strided_batches.hpp): the same values as assemble_precomputed CV
// by CV.
template <int B = 4>
ARB_HD void assemble_strided(int t, int nt, int n, const double* d_base, const double* cap_dt, const double* v,
                             double* d, double* rhs) {
    struct In {
        double d_base, cap_dt, v;
    };
    for_strided_in_batches<B>(
        t, nt, n, [&](int i) { return In{d_base[i], cap_dt[i], v[i]}; },
        [&](int i, const In& x) { assemble_precomputed(x.d_base, x.cap_dt, x.v, d[i], rhs[i]); });
}

// What the current adds to d and to rhs; point currents landing on one CV are summed
// term by term on the GPU before they are added.
// T: double, or Lanes<W> on the CPU (core/lanes.hpp).
template <class T>
ARB_HD void current_terms(T i, T g, T v, T& dd, T& dr) {
    dd = g;
    dr = g * v - i;
}

// A stimulus injecting amp nA (depolarising for amp > 0) adds amp to the rhs alone
// (instance_terms, mechanisms/instance_currents.hpp).

}  // namespace arbolito
