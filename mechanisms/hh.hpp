#pragma once
// Hodgkin-Huxley squid axon channels, as NEURON's hh.mod (rates in 1/ms, mV).
#include <cmath>

#include "core/hd.hpp"

namespace arbolito::hh {

struct Params { double gnabar = 0.12, gkbar = 0.036, gl = 0.0003, ena = 50.0, ek = -77.0, el = -54.3; };

ARB_HD double vtrap(double x, double y) {
    return std::fabs(x / y) < 1e-6 ? y * (1.0 - x / y / 2.0) : x / (std::exp(x / y) - 1.0);
}

ARB_HD double q10(double celsius) { return std::pow(3.0, (celsius - 6.3) / 10.0); }

// Steady state and time constant of one gate from its opening/closing rates.
ARB_HD void gate(double alpha, double beta, double q10, double& inf, double& tau) {
    const double sum = alpha + beta;
    inf = alpha / sum;
    tau = 1.0 / (q10 * sum);
}

ARB_HD void rates(double v, double q10, double& minf, double& mtau, double& hinf, double& htau,
                  double& ninf, double& ntau) {
    gate(0.1 * vtrap(-(v + 40.0), 10.0), 4.0 * std::exp(-(v + 65.0) / 18.0), q10, minf, mtau);
    gate(0.07 * std::exp(-(v + 65.0) / 20.0), 1.0 / (std::exp(-(v + 35.0) / 10.0) + 1.0), q10, hinf, htau);
    gate(0.01 * vtrap(-(v + 55.0), 10.0), 0.125 * std::exp(-(v + 65.0) / 80.0), q10, ninf, ntau);
}

ARB_HD void init(double v, double q10, double& m, double& h, double& n) {
    double mt, ht, nt;
    rates(v, q10, m, mt, h, ht, n, nt);
}

// Membrane current density (mA/cm², outward positive) and its conductance (S/cm²).
ARB_HD void current(double v, double m, double h, double n, const Params& p, double& i, double& g) {
    const double gna = p.gnabar * m * m * m * h, gk = p.gkbar * n * n * n * n;
    i = gna * (v - p.ena) + gk * (v - p.ek) + p.gl * (v - p.el);
    g = gna + gk + p.gl;
}

// cnexp: exact exponential relaxation of each gate over dt at voltage v.
ARB_HD void advance(double v, double dt, double q10, double& m, double& h, double& n) {
    double minf, mtau, hinf, htau, ninf, ntau;
    rates(v, q10, minf, mtau, hinf, htau, ninf, ntau);
    m = minf + (m - minf) * std::exp(-dt / mtau);
    h = hinf + (h - hinf) * std::exp(-dt / htau);
    n = ninf + (n - ninf) * std::exp(-dt / ntau);
}

}  // namespace arbolito::hh
