#pragma once
// One instance's contribution to the matrix, written once for every backend's loops:
// a density instance adds its area-scaled current to its CV's d and rhs; a point
// instance's terms are returned so that the GPU can sum those sharing a CV first.
#include "mechanisms/assemble.hpp"
#include "mechanisms/instance.hpp"

namespace arbolito {

// What an instance of M with current i_m and conductance g_m at voltage v adds to d (dd)
// and rhs (dr): a density current scaled by the instance's weight w (1e-2 · area), a
// synapse's linearised current as it is, a stimulus's injected current to the rhs
// alone (dd = 0). T: double, or Lanes<W> for W instances on the CPU.
template <class M, class T>
ARB_HD void instance_terms(T i_m, T g_m, T w, T v, T& dd, T& dr) {
    if constexpr (M::kind == MechKind::density) {
        current_terms<T>(w * i_m, w * g_m, v, dd, dr);
    } else if constexpr (M::kind == MechKind::synapse) {
        current_terms<T>(i_m, g_m, v, dd, dr);
    } else {
        dd = 0.0;
        dr = i_m;
    }
}

// Density instance k of M at voltage v: adds to d and rhs of its CV.
template <class M, class G>
ARB_HD void add_density_current(const MechColumns& m, int k, double v, double t_mid, const G& gl, double& d,
                                double& rhs) {
    const Instance<M> in(m, k);
    double i_m, g_m, dd, dr;
    M::current(v, t_mid, gl, in.p.v, in.s.v, in.c.v, i_m, g_m);
    instance_terms<M>(i_m, g_m, m.weight[k], v, dd, dr);
    d += dd;
    rhs += dr;
}

// Point instance k of M at voltage v: what it adds to d (dd) and rhs (dr).
template <class M, class G>
ARB_HD void point_terms(const MechColumns& m, int k, double v, double t_mid, const G& gl, double& dd, double& dr) {
    const Instance<M> in(m, k);
    double i_m, g_m;
    M::current(v, t_mid, gl, in.p.v, in.s.v, in.c.v, i_m, g_m);
    instance_terms<M>(i_m, g_m, 1.0, v, dd, dr);
}

}  // namespace arbolito
