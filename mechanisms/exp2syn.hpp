#pragma once
// Difference-of-exponentials synapse (NEURON's Exp2Syn): g = B - A, rise tau1, decay
// tau2; an event of weight w adds w·factor to A and B so that the peak of g is w.
#include <cmath>

#include "core/hd.hpp"

namespace arbolito::exp2syn {

struct Params { double tau1 = 0.5, tau2 = 2.0, e = 0.0; };

// NEURON's guard: tau1 kept away from tau2 (and from 0) so that the peak is finite.
ARB_HD double effective_tau1(double tau1, double tau2) {
    return tau1 / tau2 > 0.9999 ? 0.9999 * tau2 : (tau1 / tau2 < 1e-9 ? tau2 * 1e-9 : tau1);
}

// NEURON's peak normalisation.
ARB_HD double factor(double tau1, double tau2) {
    tau1 = effective_tau1(tau1, tau2);
    const double tp = (tau1 * tau2) / (tau2 - tau1) * std::log(tau2 / tau1);
    return 1.0 / (-std::exp(-tp / tau1) + std::exp(-tp / tau2));
}

// An event of weight w (µS); f = factor(tau1, tau2).
ARB_HD void on_event(double w, double f, double& a, double& b) {
    a += w * f;
    b += w * f;
}

ARB_HD void current(double v, double a, double b, const Params& p, double& i, double& g) {
    g = b - a;
    i = g * (v - p.e);
}

}  // namespace arbolito::exp2syn
