#include "mechanisms/catalogue.hpp"

#include <stdexcept>

namespace arbolito {

namespace {
const std::map<std::string, MechInfo>& catalogue() {
    static const std::map<std::string, MechInfo> c = {
        {"hh", {MechKind::density,
                {{"gnabar", 0.12}, {"gkbar", 0.036}, {"gl", 0.0003}, {"ena", 50.0}, {"ek", -77.0}, {"el", -54.3}}}},
        {"pas", {MechKind::density, {{"g", 0.001}, {"e", -70.0}}}},
        {"expsyn", {MechKind::synapse, {{"tau", 2.0}, {"e", 0.0}}}},
        {"exp2syn", {MechKind::synapse, {{"tau1", 0.5}, {"tau2", 2.0}, {"e", 0.0}}}},
        {"iclamp", {MechKind::stimulus, {{"delay", 0.0}, {"dur", 0.0}, {"amp", 0.0}}}},
    };
    return c;
}
}  // namespace

const MechInfo* find_mechanism(const std::string& name) {
    const auto it = catalogue().find(name);
    return it == catalogue().end() ? nullptr : &it->second;
}

std::vector<std::string> mechanism_names() {
    std::vector<std::string> out;
    for (const auto& [k, v] : catalogue()) out.push_back(k);
    return out;
}

std::vector<double> resolve_params(const std::string& mech, const std::map<std::string, double>& given) {
    const MechInfo* info = find_mechanism(mech);
    if (!info) throw std::invalid_argument("unknown mechanism '" + mech + "'");
    std::vector<double> out;
    for (const auto& [name, def] : info->params) {
        const auto it = given.find(name);
        out.push_back(it == given.end() ? def : it->second);
    }
    for (const auto& [name, v] : given) {
        bool known = false;
        for (const auto& p : info->params) known |= p.first == name;
        if (!known) {
            std::string list;
            for (const auto& p : info->params) list += (list.empty() ? "" : ", ") + p.first;
            throw std::invalid_argument("unknown parameter '" + name + "' of " + mech + " (has: " + list + ")");
        }
    }
    return out;
}

}  // namespace arbolito
