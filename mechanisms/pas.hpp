#pragma once
// Passive leak, as NEURON's pas.
#include "core/hd.hpp"

namespace arbolito::pas {

struct Params { double g = 0.001, e = -70.0; };

ARB_HD void current(double v, const Params& p, double& i, double& g) {
    i = p.g * (v - p.e);
    g = p.g;
}

}  // namespace arbolito::pas
