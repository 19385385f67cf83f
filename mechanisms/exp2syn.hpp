#pragma once
// Difference-of-exponentials synapse (NEURON's Exp2Syn): g = B - A, rise tau1, decay
// tau2; an event of weight w adds w·factor to A and B so that the peak of g is w.
#include <cmath>

#include "mechanisms/expsyn.hpp"
#include "core/math.hpp"
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct exp2syn : MechanismDefaults {
    static constexpr const char* name = "exp2syn";
    static constexpr MechKind kind = MechKind::synapse;
    static constexpr bool linear = true;
    static constexpr bool advance_reads_v = false;
    static constexpr std::array params{Quantity{"tau1", "ms", 0.5, 0.0}, Quantity{"tau2", "ms", 2.0, 0.0}, Quantity{"e", "mV", 0.0}};
    enum Param { tau1, tau2, e };
    static constexpr std::array states{Quantity{"A", "uS"}, Quantity{"B", "uS"}};
    enum State { a, b };
    static constexpr std::array derived{Quantity{"tau1_effective", "ms"}, Quantity{"factor", "1"}};
    enum Derived { tau1_effective, peak_factor };
    static constexpr std::array step_derived{Quantity{"a_decay", "1"}, Quantity{"b_decay", "1"}};
    enum StepDerived { a_decay, b_decay };

    // NEURON's guard: tau1 kept away from tau2 (and from 0) so that the peak is finite.
    ARB_HD static double effective_tau1(double tau1, double tau2) {
        return tau1 / tau2 > 0.9999 ? 0.9999 * tau2 : (tau1 / tau2 < 1e-9 ? tau2 * 1e-9 : tau1);
    }

    // NEURON's peak normalisation.
    ARB_HD static double factor(double tau1, double tau2) {
        tau1 = effective_tau1(tau1, tau2);
        const double tp = (tau1 * tau2) / (tau2 - tau1) * math::log(tau2 / tau1);
        return 1.0 / (-math::exp(-tp / tau1) + math::exp(-tp / tau2));
    }

    static void derive(const double* p, double* c) {
        c[tau1_effective] = effective_tau1(p[tau1], p[tau2]);
        c[peak_factor] = factor(p[tau1], p[tau2]);
    }

    ARB_HD static void on_event(double w, const double*, double* s, const double* c) {
        s[a] += w * c[peak_factor];
        s[b] += w * c[peak_factor];
    }

    template <class T>
    ARB_HD static void current(T v, double /*t_mid*/, const Globals&, const T* p, const T* s, const T* /*c*/, T& i,
                               T& g) {
        g = s[b] - s[a];
        i = g * (v - p[e]);
    }

    template <class T>
    ARB_HD static void derive_step(double dt, const T* p, const T* c, T* k) {
        k[a_decay] = expsyn::decay_factor(dt, c[tau1_effective]);
        k[b_decay] = expsyn::decay_factor(dt, p[tau2]);
    }

    template <class T, class G>
    ARB_HD static void advance_stepped(T, const G&, const T*, T* s, const T*, const T* k) {
        s[a] = s[a] * k[a_decay];
        s[b] = s[b] * k[b_decay];
    }

    template <class T>
    ARB_HD static void advance(T v, double dt, const Globals& gl, const T* p, T* s, const T* c) {
        step_advance<exp2syn>(v, dt, gl, p, s, c);
    }
};

}  // namespace arbolito
