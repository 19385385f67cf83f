#pragma once
// One instance's contribution to the matrix, written once for every backend's loops:
// a density instance adds its area-scaled current to its CV's d and rhs; a point
// instance's terms are returned so that the GPU can sum those sharing a CV first.
#include "mechanisms/assemble.hpp"
#include "mechanisms/instance.hpp"

namespace arbolito {

// Density instance k of M at voltage v: adds to d and rhs of its CV.
template <class M, class G>
ARB_HD void add_density_current(const MechColumns& m, int k, double v, double t_mid, const G& gl, double& d,
                                double& rhs) {
    const Instance<M> in(m, k);
    double i_m, g_m;
    M::current(v, t_mid, gl, in.p.v, in.s.v, in.c.v, i_m, g_m);
    add_current(m.weight[k] * i_m, m.weight[k] * g_m, v, d, rhs);
}

// Point instance k of M at voltage v: what it adds to d (dd) and rhs (dr). A synapse's
// linearised current; a stimulus's injected current (add_injected: dd = 0).
template <class M, class G>
ARB_HD void point_terms(const MechColumns& m, int k, double v, double t_mid, const G& gl, double& dd, double& dr) {
    const Instance<M> in(m, k);
    double i_m, g_m;
    M::current(v, t_mid, gl, in.p.v, in.s.v, in.c.v, i_m, g_m);
    if constexpr (M::kind == MechKind::synapse) {
        current_terms(i_m, g_m, v, dd, dr);
    } else {
        dd = 0.0;
        dr = i_m;
    }
}

}  // namespace arbolito
