#pragma once
// A model's connections, explicit (Model::connections) and drawn on demand by rules
// (Model::connection_rules): what every user of the whole list or of a target range calls.
#include <cstdint>
#include <vector>

#include "model/model.hpp"

namespace arbolito {

// The connections onto targets [b, e): the explicit ones whose target lies there, in their
// order, then each rule's, drawn now, target by target.
std::vector<Connection> connections_onto(const Model& m, std::uint64_t b, std::uint64_t e);
// Connections in all, explicit and drawn.
std::uint64_t connection_count(const Model& m);
// The least delay of any connection, ms; 0 where there are none.
double min_connection_delay(const Model& m);
// Every rule's connections drawn into Model::connections, the rules dropped: the whole
// network explicit, as `info`, `compare` and --geometry describe it.
void draw_all_connections(Model& m);
// Throws RunSettingError (model/run_settings.hpp) naming a rule's key where its least delay
// is shorter than dt (the explicit connections: validate_run_settings).
void validate_rule_delays(const RunSettings& r, const std::vector<ConnectionRule>& rules);

}  // namespace arbolito
