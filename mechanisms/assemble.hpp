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
// g_sum and cap_dt = cap/dt, computed once: the same bits, no division per step; with
// rhs_base, what the mechanisms with constant terms add to the rhs (d_base holds what
// they add to d: fold_constant_currents), 0 where none is.
// T: double, or Lanes<W> on the CPU (core/lanes.hpp).
template <class T>
ARB_HD void assemble_precomputed(T d_base, T cap_dt, T rhs_base, T v, T& d, T& rhs) {
    d = d_base;
    rhs = cap_dt * v + rhs_base;
}

// What an instance of a mechanism with constant terms (current g·(v − e), weight w) adds
// to its CV's d_base and rhs_base once, as instance_terms would add w·g to d each step:
// host and device round each product and sum alone (whatever the device code's
// contraction), so that every backend's assembly has the same terms.
ARB_HD void fold_constant_terms(double w, double g, double e, double& d_base, double& rhs_base) {
#ifdef __CUDA_ARCH__
    const double dd = __dmul_rn(w, g);
    d_base = __dadd_rn(d_base, dd);
    rhs_base = __dadd_rn(rhs_base, __dmul_rn(dd, e));
#else
    const double dd = w * g;
    d_base += dd;
    rhs_base += dd * e;
#endif
}

// Thread t of nt assembles CVs t, t + nt, ... < n of a block, the loads of B CVs before
// their arithmetic (core/strided_batches.hpp): the same values as assemble_precomputed CV
// by CV.
template <int B = 4>
ARB_HD void assemble_strided(int t, int nt, int n, const double* d_base, const double* cap_dt, const double* rhs_base,
                             const double* v, double* d, double* rhs) {
    struct In {
        double d_base, cap_dt, rhs_base, v;
    };
    for_strided_in_batches<B>(
        t, nt, n, [&](int i) { return In{d_base[i], cap_dt[i], rhs_base[i], v[i]}; },
        [&](int i, const In& x) { assemble_precomputed(x.d_base, x.cap_dt, x.rhs_base, x.v, d[i], rhs[i]); });
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
