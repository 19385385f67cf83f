#pragma once
// Hodgkin-Huxley squid axon channels, as NEURON's hh.mod (rates in 1/ms, mV).
#include <cmath>

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

    ARB_HD static double vtrap(double x, double y) {
        return std::fabs(x / y) < 1e-6 ? y * (1.0 - x / y / 2.0) : x / (std::exp(x / y) - 1.0);
    }

    // Steady state and time constant of one gate from its opening/closing rates.
    ARB_HD static void gate(double alpha, double beta, double q10, double& inf, double& tau) {
        const double sum = alpha + beta;
        inf = alpha / sum;
        tau = 1.0 / (q10 * sum);
    }

    ARB_HD static void rates(double v, double q10, double& minf, double& mtau, double& hinf, double& htau,
                             double& ninf, double& ntau) {
        gate(0.1 * vtrap(-(v + 40.0), 10.0), 4.0 * std::exp(-(v + 65.0) / 18.0), q10, minf, mtau);
        gate(0.07 * std::exp(-(v + 65.0) / 20.0), 1.0 / (std::exp(-(v + 35.0) / 10.0) + 1.0), q10, hinf, htau);
        gate(0.01 * vtrap(-(v + 55.0), 10.0), 0.125 * std::exp(-(v + 65.0) / 80.0), q10, ninf, ntau);
    }

    // Gates at their steady state.
    ARB_HD static void init(double v, const Globals& g, const double*, double* s) {
        double mt, ht, nt;
        rates(v, g.q10, s[m], mt, s[h], ht, s[n], nt);
    }

    // Membrane current density (mA/cm², outward positive) and its conductance (S/cm²).
    ARB_HD static void current(double v, double /*t_mid*/, const Globals&, const double* p, const double* s,
                               const double* /*c*/, double& i, double& g) {
        const double gna = p[gnabar] * s[m] * s[m] * s[m] * s[h], gk = p[gkbar] * s[n] * s[n] * s[n] * s[n];
        i = gna * (v - p[ena]) + gk * (v - p[ek]) + p[gl] * (v - p[el]);
        g = gna + gk + p[gl];
    }

    // cnexp: exact exponential relaxation of each gate over dt at voltage v.
    ARB_HD static void advance(double v, double dt, const Globals& g, const double*, double* s, const double*) {
        double minf, mtau, hinf, htau, ninf, ntau;
        rates(v, g.q10, minf, mtau, hinf, htau, ninf, ntau);
        s[m] = minf + (s[m] - minf) * std::exp(-dt / mtau);
        s[h] = hinf + (s[h] - hinf) * std::exp(-dt / htau);
        s[n] = ninf + (s[n] - ninf) * std::exp(-dt / ntau);
    }
};

}  // namespace arbolito
