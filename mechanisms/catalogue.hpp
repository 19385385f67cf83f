#pragma once
// The mechanisms a model file may name, their kind and their parameters with defaults
// (NEURON's names and units, DESIGN §5).
#include <map>
#include <string>
#include <vector>

namespace arbolito {

enum class MechKind { density, synapse, stimulus };

struct MechInfo {
    MechKind kind;
    std::vector<std::pair<std::string, double>> params;  // name, default; fixed order
};

// Null when the name is unknown.
const MechInfo* find_mechanism(const std::string& name);
std::vector<std::string> mechanism_names();

// Defaults overlaid with the given values, in the catalogue's parameter order.
// Throws std::invalid_argument naming an unknown parameter.
std::vector<double> resolve_params(const std::string& mech, const std::map<std::string, double>& given);

}  // namespace arbolito
