#pragma once
// Matrix assembly terms of DESIGN §4, shared by both backends. A membrane current I (nA,
// outward positive) with conductance G (µS), linearised about v, adds G to the diagonal
// and G·v − I to the right-hand side.
#include "core/hd.hpp"

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
