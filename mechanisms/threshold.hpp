#pragma once
// Threshold detector (docs/event-rules.md): a spike when v rises through the threshold during a
// step, at the linearly interpolated crossing time (Arbor) or at the step's end (NEURON's
// fixed-step rule). Shared by both backends so that spike times agree bit for bit.
#include "core/hd.hpp"

namespace arbolito::threshold {

// v0: voltage at the step's start t, v1 at its end t + dt.
ARB_HD bool crossed(double v0, double v1, double th) { return v0 < th && v1 >= th; }

ARB_HD double crossing_time(double t, double dt, double v0, double v1, double th, bool at_step_end) {
    return at_step_end ? t + dt : t + dt * (th - v0) / (v1 - v0);
}

}  // namespace arbolito::threshold
