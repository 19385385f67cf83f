#pragma once
// Matrix assembly terms of DESIGN §4, shared by both backends. A membrane current I (nA,
// outward positive) with conductance G (µS), linearised about v, adds G to the diagonal
// and G·v − I to the right-hand side.
#include "engine/hd.hpp"

namespace arbolito {

// Diagonal and rhs before any membrane current: capacitance and axial coupling.
ARB_HD void assemble_base(double cap, double g_sum, double dt, double v, double& d, double& rhs) {
    const double c = cap / dt;
    d = c + g_sum;
    rhs = c * v;
}

ARB_HD void add_current(double i, double g, double v, double& d, double& rhs) {
    d += g;
    rhs += g * v - i;
}

}  // namespace arbolito
