#pragma once
// Current clamp: amp (nA, depolarising when > 0) while the step's midpoint lies in
// [delay, delay + dur), NEURON's rule.
#include "core/math.hpp"
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct iclamp : MechanismDefaults {
    static constexpr const char* name = "iclamp";
    static constexpr MechKind kind = MechKind::stimulus;
    static constexpr std::array params{Quantity{"delay", "ms", 0.0}, Quantity{"dur", "ms", 0.0, 0.0},
                                       Quantity{"amp", "nA", 0.0}};
    enum Param { delay, dur, amp };

    // i: the injected current (nA); a stimulus has no conductance.
    template <class T>
    ARB_HD static void current(T /*v*/, double t_mid, const Globals&, const T* p, const T* /*s*/, const T* /*c*/, T& i,
                               T& g) {
        i = math::select((p[delay] <= t_mid) & (t_mid < p[delay] + p[dur]), p[amp], T(0.0));
        g = 0.0;
    }
};

}  // namespace arbolito
