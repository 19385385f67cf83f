#pragma once
// Single-exponential conductance synapse: an event of weight w (µS) adds w to g,
// which decays exactly with time constant tau.
#include <cmath>

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
    ARB_HD static double decay(double x, double dt, double tau) { return x * std::exp(-dt / tau); }

    ARB_HD static void on_event(double w, const double*, double* s, const double*) { s[g] += w; }

    ARB_HD static void current(double v, double /*t_mid*/, const Globals&, const double* p, const double* s,
                               const double* /*c*/, double& i, double& gout) {
        i = s[g] * (v - p[e]);  // nA
        gout = s[g];            // µS
    }

    ARB_HD static void advance(double, double dt, const Globals&, const double* p, double* s, const double*) {
        s[g] = decay(s[g], dt, p[tau]);
    }
};

}  // namespace arbolito
