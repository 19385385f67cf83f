#pragma once
// Every call the engine makes on a mechanism M, with the engine's own argument types:
// the matrix terms on one instance (instance_terms_at, as the GPU and the scalar paths),
// current and advance on Lanes<4> (W instances side by side, as the CPU group), init,
// derive, globals and, for a synapse, on_event. Examples of mechanisms in docs/ compile
// against it (tools/check_doc_snippets.py): an example that the engine could not take
// fails there, not in a reader's build.
#include "core/lanes.hpp"
#include "mechanisms/instance.hpp"
#include "mechanisms/instance_currents.hpp"
#include "mechanisms/instance_ions.hpp"

namespace arbolito {

template <class M>
void use_as_the_engine_does() {
    const auto g = M::globals(6.3);
    MechColumns columns;
    double p[n_params<M> + 1] = {}, s[n_states<M> + 1] = {}, c[n_derived<M> + 1] = {}, weight = 1, d = 0, r = 0;
    int cv = 0;
    columns.n = 1, columns.cv = &cv, columns.weight = &weight, columns.p = p, columns.s = s, columns.c = c;
    // Ion values (mechanisms/ion.hpp), read and written by mechanisms with ions only.
    double ion[ion_slot_size * n_ions<M> + 1] = {}, ion_i[n_ions<M> + 1] = {};
    M::derive(p, c);
    mech_init<M>(-65.0, g, p, s, ion);
    Instance<M> one(columns, 0);
    instance_terms_at<M>(one, 1.0, -65.0, 0.0, g, d, r, ion, ion_i);
    mech_advance<M>(-65.0, 0.025, g, one.p.v, one.s.v, one.c.v, ion);
    using L = Lanes<4>;
    L lp[n_params<M> + 1], ls[n_states<M> + 1], lc[n_derived<M> + 1], lion[ion_slot_size * n_ions<M> + 1], lion_i[n_ions<M> + 1],
        i, gm;
    mech_current<M>(L(-65.0), 0.0, g, static_cast<const L*>(lp), static_cast<const L*>(ls), static_cast<const L*>(lc),
                    static_cast<const L*>(lion), i, gm, lion_i);
    mech_advance<M>(L(-65.0), 0.025, g, static_cast<const L*>(lp), ls, static_cast<const L*>(lc),
                    static_cast<const L*>(lion));
    if constexpr (M::kind == MechKind::synapse) M::on_event(0.01, p, s, c);
}

}  // namespace arbolito
