#pragma once
// The mechanisms a model file may name, by name: their kind and their parameters with
// defaults (NEURON's names and units, docs/mechanisms.md), generated from all_mechanisms.
#include <map>
#include <string>
#include <vector>

#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct MechInfo {
    std::string name;
    MechKind kind;
    int index;                     // position in all_mechanisms
    std::vector<Quantity> params;  // fixed order
    std::vector<Quantity> states, derived;
    std::vector<IonUse> ions;      // M::ions
    std::string nonspecific_current;  // M::nonspecific_current, or empty
    bool linear = false;              // M::linear: instances may be coalesced
    bool constant_terms = false;      // M::constant_terms: folded into the assembly's terms
};

// What a probe may record of a density mechanism's current ("<name>.<current>"): "i", its
// whole current (also by its one NONSPECIFIC_CURRENT's name, where that is the whole), and
// "i<ion>" for each ion current it writes; which: -1 the whole, else the ion slot.
struct MechCurrent {
    std::string name;
    int which;
};
std::vector<MechCurrent> mechanism_currents(const MechInfo& m);

// Null when the name is unknown.
const MechInfo* find_mechanism(const std::string& name);
std::vector<std::string> mechanism_names();  // sorted
// Every mechanism in list order: all_mechanisms' index i is element i.
const std::vector<MechInfo>& mechanism_infos();

// Whether some mechanism of the catalogue uses ion species `name`, or it is one of NEURON's
// own (na, k, ca); its valence then (a mechanism's, else NEURON's), else 0.
int ion_valence(const std::string& name);

// Defaults overlaid with the given values, in the catalogue's parameter order.
// Throws std::invalid_argument naming an unknown parameter.
std::vector<double> resolve_params(const std::string& mech, const std::map<std::string, double>& given);

}  // namespace arbolito
