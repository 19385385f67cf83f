#pragma once
// A probe's value of a density mechanism's current (ProbeVariable::mech_current): the
// current density (mA/cm²) that instance k computes in the step's currents phase, at the
// step's starting voltage and states (NEURON's ina_NaTs recorded at the step's end is
// that step's BREAKPOINT value). Every backend computes it with this function, at the
// currents phase of a step whose end is sampled.
#include "mechanisms/instance.hpp"
#include "mechanisms/instance_ions.hpp"

namespace arbolito {

// which: -1 the whole current, else ion slot `which`'s current (a slot the mechanism writes).
// c indexes v and the ions' arrays (the group's CV, or a resident block's).
template <class M, class G>
ARB_HD double probed_current(const MechColumns& m, int k, int c, const MechIons<M>& ions, const G& gl, double v,
                             double t_mid, int which) {
    static_assert(M::kind == MechKind::density, "probes record density mechanisms' currents");
    const Instance<M> in(m, k);
    double ion[ion_slot_size * n_ions<M> + 1], ion_i[n_ions<M> + 1];
    for (int j = 0; j <= n_ions<M>; ++j) ion_i[j] = 0.0;
    gather_ions<M>(ions, c, ion);
    double i_m, g_m;
    mech_current<M>(v, t_mid, gl, in.p.v, in.s.v, in.c.v, ion, i_m, g_m, ion_i);
    return which < 0 ? i_m : ion_i[which];
}

}  // namespace arbolito
