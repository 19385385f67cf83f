#pragma once
// Single-exponential conductance synapse: an event of weight w (µS) adds w to g,
// which decays exactly with time constant tau.
#include <cmath>

#include "core/hd.hpp"

namespace arbolito::expsyn {

struct Params { double tau = 2.0, e = 0.0; };

ARB_HD void on_event(double w, double& g) { g += w; }

ARB_HD void current(double v, double g, const Params& p, double& i, double& gout) {
    i = g * (v - p.e);  // nA
    gout = g;           // µS
}

ARB_HD double decay(double g, double dt, double tau) { return g * std::exp(-dt / tau); }

}  // namespace arbolito::expsyn
