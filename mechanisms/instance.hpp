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

}  // namespace arbolito
