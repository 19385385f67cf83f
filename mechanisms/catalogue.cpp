#include "mechanisms/catalogue.hpp"

#include <algorithm>
#include <stdexcept>

#include "mechanisms/all.hpp"
#include "mechanisms/instance_ions.hpp"

namespace arbolito {

const std::vector<MechInfo>& mechanism_infos() {
    static const std::vector<MechInfo> infos = [] {
        std::vector<MechInfo> out;
        all_mechanisms::for_each([&](auto tag) {
            using M = typename decltype(tag)::type;
            static_assert(ion_form_ok<M>, "a mechanism with ions has neither step constants nor advance_state");
            static_assert(n_ions<M> == static_cast<int>(std::tuple_size<decltype(M::ion_state)>::value),
                          "one ion_state entry per ion");
            static_assert(!M::constant_terms || (M::kind == MechKind::density && n_ions<M> == 0 && n_states<M> == 0),
                          "constant terms: a density mechanism without ions or states");
            out.push_back({M::name, M::kind, mech_index<M>, {M::params.begin(), M::params.end()},
                           {M::states.begin(), M::states.end()}, {M::derived.begin(), M::derived.end()},
                           {M::ions.begin(), M::ions.end()},
                           M::nonspecific_current ? M::nonspecific_current : "", M::linear, M::constant_terms});
        });
        return out;
    }();
    return infos;
}

std::vector<MechCurrent> mechanism_currents(const MechInfo& m) {
    std::vector<MechCurrent> out{{"i", -1}};
    if (!m.nonspecific_current.empty() && m.nonspecific_current != "i") out.push_back({m.nonspecific_current, -1});
    for (std::size_t k = 0; k < m.ions.size(); ++k)
        if (m.ions[k].flags & ion_write_i) out.push_back({"i" + std::string(m.ions[k].name), static_cast<int>(k)});
    return out;
}

const MechInfo* find_mechanism(const std::string& name) {
    for (const MechInfo& m : mechanism_infos())
        if (m.name == name) return &m;
    return nullptr;
}

int ion_valence(const std::string& name) {
    for (const MechInfo& m : mechanism_infos())
        for (const IonUse& u : m.ions)
            if (name == u.name) return u.valence;
    for (const char* own : {"na", "k", "ca"})
        if (name == own) return ion_defaults(own, 0).valence;
    return 0;
}

std::vector<std::string> mechanism_names() {
    std::vector<std::string> out;
    for (const MechInfo& m : mechanism_infos()) out.push_back(m.name);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<double> resolve_params(const std::string& mech, const std::map<std::string, double>& given) {
    const MechInfo* info = find_mechanism(mech);
    if (!info) throw std::invalid_argument("unknown mechanism '" + mech + "'");
    std::vector<double> out;
    for (const Quantity& q : info->params) {
        const auto it = given.find(q.name);
        out.push_back(it == given.end() ? q.default_value : it->second);
    }
    for (const auto& [name, v] : given) {
        bool known = false;
        for (const Quantity& q : info->params) known |= name == q.name;
        if (!known) {
            std::string list;
            for (const Quantity& q : info->params) list += (list.empty() ? "" : ", ") + std::string(q.name);
            throw std::invalid_argument("unknown parameter '" + name + "' of " + mech + " (has: " + list + ")");
        }
    }
    return out;
}

}  // namespace arbolito
