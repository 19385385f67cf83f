#pragma once
// Hodgkin-Huxley squid axon channels, as NEURON's hh.mod (rates in 1/ms, mV).
#include <cmath>

#include "core/math.hpp"
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct hh : MechanismDefaults {
    static constexpr const char* name = "hh";
    static constexpr MechKind kind = MechKind::density;
    static constexpr std::array params{
        Quantity{"gnabar", "S/cm2", 0.12, 0.0}, Quantity{"gkbar", "S/cm2", 0.036, 0.0}, Quantity{"gl", "S/cm2", 0.0003, 0.0},
        Quantity{"ena", "mV", 50.0},       Quantity{"ek", "mV", -77.0},       Quantity{"el", "mV", -54.3}};
    enum Param { gnabar, gkbar, gl, ena, ek, el };
    static constexpr std::array states{Quantity{"m", "1"}, Quantity{"h", "1"}, Quantity{"n", "1"}};
    enum State { m, h, n };

    // The rates' temperature factor.
    struct Globals { double q10; };
    static Globals globals(double celsius) { return {q10(celsius)}; }
    static double q10(double celsius) { return std::pow(3.0, (celsius - 6.3) / 10.0); }

    // T: double (one instance) or Lanes<W> (W instances, core/lanes.hpp).
    template <class T>
    ARB_HD static T vtrap(T x, double y) {
        return math::select(math::fabs(x / y) < 1e-6, y * (1.0 - x / y / 2.0), x / (math::exp(x / y) - 1.0));
    }

    // Steady state and time constant of one gate from its opening/closing rates.
    template <class T>
    ARB_HD static void gate(T alpha, T beta, double q10, T& inf, T& tau) {
        const T sum = alpha + beta;
        inf = alpha / sum;
        tau = 1.0 / (q10 * sum);
    }

    // Gate j's (m, h or n) steady state and time constant at v.
    template <class T>
    ARB_HD static void gate_rates(int j, T v, double q10, T& inf, T& tau) {
        if (j == m)
            gate<T>(0.1 * vtrap(-(v + 40.0), 10.0), 4.0 * math::exp(-(v + 65.0) / 18.0), q10, inf, tau);
        else if (j == h)
            gate<T>(0.07 * math::exp(-(v + 65.0) / 20.0), 1.0 / (math::exp(-(v + 35.0) / 10.0) + 1.0), q10, inf, tau);
        else
            gate<T>(0.01 * vtrap(-(v + 55.0), 10.0), 0.125 * math::exp(-(v + 65.0) / 80.0), q10, inf, tau);
    }

    template <class T>
    ARB_HD static void rates(T v, double q10, T& minf, T& mtau, T& hinf, T& htau, T& ninf, T& ntau) {
        gate_rates<T>(m, v, q10, minf, mtau);
        gate_rates<T>(h, v, q10, hinf, htau);
        gate_rates<T>(n, v, q10, ninf, ntau);
    }

    // Gates at their steady state.
    ARB_HD static void init(double v, const Globals& g, const double*, double* s) {
        double mt, ht, nt;
        rates<double>(v, g.q10, s[m], mt, s[h], ht, s[n], nt);
    }

    // Membrane current density (mA/cm², outward positive) and its conductance (S/cm²).
    template <class T>
    ARB_HD static void current(T v, double /*t_mid*/, const Globals&, const T* p, const T* s, const T* /*c*/, T& i,
                               T& g) {
        const T gna = p[gnabar] * s[m] * s[m] * s[m] * s[h], gk = p[gkbar] * s[n] * s[n] * s[n] * s[n];
        i = gna * (v - p[ena]) + gk * (v - p[ek]) + p[gl] * (v - p[el]);
        g = gna + gk + p[gl];
    }

    // cnexp: exact exponential relaxation of each gate over dt at voltage v.
    template <class T>
    ARB_HD static void advance(T v, double dt, const Globals& g, const T* p, T* s, const T* c) {
        advance_state<T>(m, v, dt, g, p, s, c);
        advance_state<T>(h, v, dt, g, p, s, c);
        advance_state<T>(n, v, dt, g, p, s, c);
    }
    // The gates relax independently: a backend may advance each on a thread of its own.
    static constexpr int independent_states = 3;
    template <class T>
    ARB_HD static void advance_state(int j, T v, double dt, const Globals& g, const T*, T* s, const T*) {
        T inf, tau;
        gate_rates<T>(j, v, g.q10, inf, tau);
        s[j] = inf + (s[j] - inf) * math::exp(-dt / tau);
    }
};

}  // namespace arbolito
