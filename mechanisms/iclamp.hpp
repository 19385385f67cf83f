#pragma once
// Current clamp: amp (nA, depolarising when > 0) while the step's midpoint lies in
// [delay, delay + dur), NEURON's rule.
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct iclamp : MechanismDefaults {
    static constexpr const char* name = "iclamp";
    static constexpr MechKind kind = MechKind::stimulus;
    static constexpr std::array params{Quantity{"delay", "ms", 0.0}, Quantity{"dur", "ms", 0.0, 0.0},
                                       Quantity{"amp", "nA", 0.0}};
    enum Param { delay, dur, amp };

    // i: the injected current (nA); a stimulus has no conductance.
    ARB_HD static void current(double /*v*/, double t_mid, const Globals&, const double* p, const double* /*s*/,
                               const double* /*c*/, double& i, double& g) {
        i = (t_mid >= p[delay] && t_mid < p[delay] + p[dur]) ? p[amp] : 0.0;
        g = 0.0;
    }
};

}  // namespace arbolito
