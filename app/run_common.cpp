#include "app/run_common.hpp"

#include "engine/run_settings.hpp"
#include "io/input_error.hpp"

namespace arbolito {

void apply_run_overrides(Model& m, const std::optional<double>& dt, const std::optional<double>& tfinal,
                         const std::string& event_rules) {
    if (dt) m.run.dt = *dt;
    if (tfinal) m.run.tfinal = *tfinal;
    if (event_rules == "neuron") m.run.rules = EventRules::neuron;
    if (event_rules == "arbor") m.run.rules = EventRules::arbor;
    // The model met the rules as read: a rule broken now is --tfinal's or else --dt's.
    try {
        validate_run_settings(m.run, m.connections);
    } catch (const RunSettingError& e) {
        if (e.key == "run.tfinal") throw InputError("--tfinal", "", e.reason);
        if (e.key == "run.dt") throw InputError("--dt", "", e.reason);
        throw InputError("--dt", "", "the model's " + e.key + ": " + e.reason);
    }
}

}  // namespace arbolito
