#pragma once
// Current clamp: amp (nA, depolarising when > 0) while the step's midpoint lies in
// [delay, delay + dur), NEURON's rule.
#include "core/hd.hpp"

namespace arbolito::iclamp {

struct Params { double delay = 0.0, dur = 0.0, amp = 0.0; };

ARB_HD double current(double t_mid, const Params& p) {
    return (t_mid >= p.delay && t_mid < p.delay + p.dur) ? p.amp : 0.0;
}

}  // namespace arbolito::iclamp
