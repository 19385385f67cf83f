#pragma once
// Single-exponential conductance synapse: an event of weight w (µS) adds w to g,
// which decays exactly with time constant tau.
#include <cmath>

#include "core/math.hpp"
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct expsyn : MechanismDefaults {
    static constexpr const char* name = "expsyn";
    static constexpr MechKind kind = MechKind::synapse;
    static constexpr std::array params{Quantity{"tau", "ms", 2.0, 0.0}, Quantity{"e", "mV", 0.0}};
    enum Param { tau, e };
    static constexpr std::array states{Quantity{"g", "uS"}};
    enum State { g };

    // Exact exponential decay over dt (shared with exp2syn).
    template <class T>
    ARB_HD static T decay(T x, double dt, T tau) { return x * math::exp(-dt / tau); }

    ARB_HD static void on_event(double w, const double*, double* s, const double*) { s[g] += w; }

    template <class T>
    ARB_HD static void current(T v, double /*t_mid*/, const Globals&, const T* p, const T* s, const T* /*c*/, T& i,
                               T& gout) {
        i = s[g] * (v - p[e]);  // nA
        gout = s[g];            // µS
    }

    template <class T>
    ARB_HD static void advance(T, double dt, const Globals&, const T* p, T* s, const T*) {
        s[g] = decay(s[g], dt, p[tau]);
    }
};

}  // namespace arbolito
