#pragma once
// The rules a run's settings obey, in one place for the model reader and the command
// line's overrides: dt > 0, tfinal >= 0, both finite and at most max_run_steps steps,
// sample_dt > 0 and a whole multiple of dt, every connection delay > 0 and at least dt
// (the epoch is half the shortest delay and at least one step, docs/architecture.md).
#include <stdexcept>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace arbolito {

// The most time steps a run may take (tfinal / dt): 1e9, a day or more for even one
// small cell; beyond it a step count is a typo (tfinal 1e308, dt 1e-300), not a plan.
inline constexpr double max_run_steps = 1e9;

struct RunSettingError : std::invalid_argument {
    RunSettingError(std::string key, std::string reason)
        : std::invalid_argument(key + ": " + reason), key(std::move(key)), reason(std::move(reason)) {}
    std::string key;     // as in a model file: run.dt, run.tfinal, run.sample_dt, connections[i].delay
    std::string reason;
};

// Throws RunSettingError for the first rule broken.
void validate_run_settings(const RunSettings& r, const std::vector<Connection>& connections);

}  // namespace arbolito
