#pragma once
// How events and spikes meet the time grid (docs/event-rules.md): the rules
// and the step that delivers an event under them.
#include <algorithm>
#include <cmath>

namespace arbolito {

enum class EventRules {
    arbor,   // deliver in the step [t, t+dt) holding the event; interpolate spike times
    neuron,  // deliver in the step whose start is nearest (time <= t + dt/2); spike at step end
};

// The step that delivers an event at time t under `rules`.
inline long delivery_step(double t, double dt, EventRules rules) {
    // The small margins absorb rounding in t/dt for times meant to sit on the grid; an
    // event exactly half a step off the grid goes to the later step, as in NEURON.
    if (rules == EventRules::neuron) return std::max(0L, static_cast<long>(std::ceil(t / dt - 0.5 + 1e-9)));
    return std::max(0L, static_cast<long>(std::floor(t / dt + 1e-9)));
}

}  // namespace arbolito
