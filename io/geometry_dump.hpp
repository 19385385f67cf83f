#pragma once
// `arbolito info --geometry`: the discretised model in NEURON's terms (docs/geometry-dump.md).
#include <string>

#include <nlohmann/json.hpp>

#include "model/model.hpp"

namespace arbolito {

nlohmann::json geometry_dump(const Model& m);

}  // namespace arbolito
