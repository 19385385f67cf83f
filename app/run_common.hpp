#pragma once
// Helpers shared by the commands that run a model (run, compare).
#include <optional>
#include <string>

#include "engine/model.hpp"

namespace arbolito {

// Applies the command line's --dt, --tfinal and --event-rules (empty: the model's) to
// the model; an unusable value is an InputError naming the option.
void apply_run_overrides(Model& m, const std::optional<double>& dt, const std::optional<double>& tfinal,
                         const std::string& event_rules);

// Wall-clock nanoseconds per CV and step (0 for an empty run).
inline double ns_per_cv_step(double run_s, long n_cv, long steps) {
    const double cv_steps = static_cast<double>(n_cv) * steps;
    return cv_steps > 0 ? 1e9 * run_s / cv_steps : 0.0;
}

}  // namespace arbolito
