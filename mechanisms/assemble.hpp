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

// What the current adds to d and to rhs; point currents landing on one CV are summed
// term by term on the GPU before they are added.
ARB_HD void current_terms(double i, double g, double v, double& dd, double& dr) {
    dd = g;
    dr = g * v - i;
}

ARB_HD void add_current(double i, double g, double v, double& d, double& rhs) {
    double dd, dr;
    current_terms(i, g, v, dd, dr);
    d += dd;
    rhs += dr;
}

// A stimulus injecting amp nA (depolarising for amp > 0): I = −amp, no conductance.
ARB_HD void add_injected(double amp, double& rhs) { rhs += amp; }

}  // namespace arbolito
