#pragma once
// Passive leak, as NEURON's pas.
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct pas : MechanismDefaults {
    static constexpr const char* name = "pas";
    static constexpr MechKind kind = MechKind::density;
    static constexpr std::array params{Quantity{"g", "S/cm2", 0.001, 0.0}, Quantity{"e", "mV", -70.0}};
    enum Param { g, e };
    static constexpr bool constant_terms = true;  // folded into the assembly (MechanismDefaults)
    ARB_HD static void constant_current(const double* p, double& gout, double& eout) {
        gout = p[g];
        eout = p[e];
    }

    template <class T>
    ARB_HD static void current(T v, double /*t_mid*/, const Globals&, const T* p, const T* /*s*/, const T* /*c*/, T& i,
                               T& gout) {
        i = p[g] * (v - p[e]);
        gout = p[g];
    }
};

}  // namespace arbolito
