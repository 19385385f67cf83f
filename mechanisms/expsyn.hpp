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
    static constexpr bool linear = true;
    static constexpr bool advance_reads_v = false;
    static constexpr std::array params{Quantity{"tau", "ms", 2.0, 0.0}, Quantity{"e", "mV", 0.0}};
    enum Param { tau, e };
    static constexpr std::array states{Quantity{"g", "uS"}};
    enum State { g };
    static constexpr std::array step_derived{Quantity{"g_decay", "1"}};
    enum StepDerived { g_decay };

    // The exact exponential decay over dt of a state with time constant tau (shared with
    // exp2syn): x times this.
    template <class T>
    ARB_HD static T decay_factor(double dt, T tau) { return math::exp(-dt / tau); }

    ARB_HD static void on_event(double w, const double*, double* s, const double*) { s[g] += w; }

    template <class T>
    ARB_HD static void current(T v, double /*t_mid*/, const Globals&, const T* p, const T* s, const T* /*c*/, T& i,
                               T& gout) {
        i = s[g] * (v - p[e]);  // nA
        gout = s[g];            // µS
    }

    template <class T>
    ARB_HD static void derive_step(double dt, const T* p, const T*, T* k) { k[g_decay] = decay_factor(dt, p[tau]); }

    template <class T, class G>
    ARB_HD static void advance_stepped(T, const G&, const T*, T* s, const T*, const T* k) { s[g] = s[g] * k[g_decay]; }

    template <class T>
    ARB_HD static void advance(T v, double dt, const Globals& gl, const T* p, T* s, const T* c) {
        step_advance<expsyn>(v, dt, gl, p, s, c);
    }
};

}  // namespace arbolito
