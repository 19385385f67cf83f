#include "app/run_common.hpp"

#include <cmath>

#include "io/input_error.hpp"

namespace arbolito {

void apply_run_overrides(Model& m, const std::optional<double>& dt, const std::optional<double>& tfinal,
                         const std::string& event_rules) {
    if (dt) {
        if (!(*dt > 0)) throw InputError("--dt", "", "must be > 0, got " + std::to_string(*dt));
        m.run.dt = *dt;
        const double ratio = m.run.sample_dt / m.run.dt;
        if (std::fabs(ratio - std::round(ratio)) > 1e-9 * ratio)
            throw InputError("--dt", "", "the model's sample_dt " + std::to_string(m.run.sample_dt) + " is not a multiple of it");
        for (const auto& c : m.connections)
            if (c.delay < m.run.dt) throw InputError("--dt", "", "longer than a connection delay (" + std::to_string(c.delay) + " ms)");
    }
    if (tfinal) {
        if (*tfinal < 0) throw InputError("--tfinal", "", "must be >= 0");
        m.run.tfinal = *tfinal;
    }
    if (event_rules == "neuron") m.run.rules = EventRules::neuron;
    if (event_rules == "arbor") m.run.rules = EventRules::arbor;
}

}  // namespace arbolito
