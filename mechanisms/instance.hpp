#pragma once
// How the backends hand a mechanism's instances to its functions: the instances' arrays
// as columns (host or device pointers), and one instance's values copied out of them.
#include "mechanisms/mechanism.hpp"

namespace arbolito {

// Column j of instance k at j·n + k.
struct MechColumns {
    int n = 0;
    const int* cv = nullptr;
    const double* weight = nullptr;  // read for density mechanisms only
    const double* p = nullptr;       // parameters
    double* s = nullptr;             // states
    const double* c = nullptr;       // per-instance constants
    // Step constants for the run's dt (M::step_derived, lowered_cell's step_constants) where
    // the backend holds them, with the others' stride n; else null: advance computes them.
    const double* k = nullptr;
};

template <class M>
struct Instance {
    Values<n_params<M>> p;
    Values<n_states<M>> s;
    Values<n_derived<M>> c;

    Instance() = default;
    ARB_HD Instance(const MechColumns& m, int k) {
        for (int j = 0; j < n_params<M>; ++j) p[j] = m.p[static_cast<long>(j) * m.n + k];
        for (int j = 0; j < n_states<M>; ++j) s[j] = m.s[static_cast<long>(j) * m.n + k];
        for (int j = 0; j < n_derived<M>; ++j) c[j] = m.c[static_cast<long>(j) * m.n + k];
    }
    ARB_HD void store_states(const MechColumns& m, int k) const {
        for (int j = 0; j < n_states<M>; ++j) m.s[static_cast<long>(j) * m.n + k] = s.v[j];
    }
};

// Instance k's step constants where m holds them (m.k); else left unset.
template <class M>
struct InstanceStepConstants {
    Values<n_step_derived<M>> v;

    InstanceStepConstants() = default;
    ARB_HD InstanceStepConstants(const MechColumns& m, int k) {
        if (m.k)
            for (int j = 0; j < n_step_derived<M>; ++j) v[j] = m.k[static_cast<long>(j) * m.n + k];
    }
};

// An instance's advance at voltage v: through its step constants where m holds them
// (advance_stepped: advance's bits with no exp per instance and step), else advance.
template <class M, class G>
ARB_HD void advance_instance(const MechColumns& m, const InstanceStepConstants<M>& sk, Instance<M>& in, double v,
                             double dt, const G& gl) {
    if constexpr (n_step_derived<M> > 0) {
        if (m.k) {
            M::advance_stepped(v, gl, in.p.v, in.s.v, in.c.v, sk.v.v);
            return;
        }
    }
    M::advance(v, dt, gl, in.p.v, in.s.v, in.c.v);
}

}  // namespace arbolito
