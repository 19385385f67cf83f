#include "lowered_cell/cell_state_map.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace arbolito {

namespace {

// Both lists in one walk, so that they cannot disagree on the order; either may be null.
void walk_cell_states(const FvmData& f, std::vector<std::vector<std::size_t>>* positions,
                      std::vector<std::vector<StateValue>>* values) {
    const int nc = f.n_cells();
    // Layout CV -> (cell, natural CV); padding stays at -1.
    std::vector<int> cell_of(f.n_cv(), -1), natural_of(f.n_cv(), -1);
    if (positions) positions->assign(nc, {});
    if (values) values->assign(nc, {});
    for (int c = 0; c < nc; ++c)
        for (std::size_t i = 0; i < f.layout.index[c].size(); ++i) {
            const int L = f.layout.index[c][i];
            cell_of[L] = c;
            natural_of[L] = static_cast<int>(i);
            if (positions) (*positions)[c].push_back(static_cast<std::size_t>(L));
            if (values) (*values)[c].push_back({-1, 0, static_cast<int>(i), -1, false});
        }
    // Point instances that are synapses: their number on the cell (coalesced synapses: the
    // first of them).
    std::vector<std::vector<int>> synapse_of(n_mechanisms);
    if (values)
        for (int c = 0; c < nc; ++c)
            for (std::uint32_t t = f.target_offset[c]; t < f.target_offset[c + 1]; ++t) {
                auto& of = synapse_of[f.target_mech[t]];
                const int k = f.target_instance[t];
                if (static_cast<int>(of.size()) <= k) of.resize(k + 1, -1);
                if (of[k] < 0) of[k] = static_cast<int>(t - f.target_offset[c]);
            }
    std::size_t offset = static_cast<std::size_t>(f.n_cv());
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        const MechInstances& mi = f.mechs[mech_index<M>];
        const std::size_t n = static_cast<std::size_t>(mi.size());
        // Per cell, its instances as (natural CV, instance): sorted, the order of a copy.
        std::vector<std::vector<std::pair<int, int>>> mine(nc);
        for (int k = 0; k < mi.size(); ++k) mine[cell_of[mi.cv[k]]].push_back({natural_of[mi.cv[k]], k});
        for (auto& m : mine) std::sort(m.begin(), m.end());
        const int x = static_cast<int>(mech_index<M>);
        const auto& syn = synapse_of[x];
        const bool point = M::kind != MechKind::density;
        for (int j = 0; j < n_states<M>; ++j)
            for (int c = 0; c < nc; ++c)
                for (const auto& [cv, k] : mine[c]) {
                    if (positions) (*positions)[c].push_back(offset + static_cast<std::size_t>(j) * n + k);
                    if (values) (*values)[c].push_back({x, j, cv, k < static_cast<int>(syn.size()) ? syn[k] : -1, point});
                }
        offset += static_cast<std::size_t>(n_states<M>) * n;
    });
}

}  // namespace

std::vector<std::vector<std::size_t>> cell_state_positions(const FvmData& f) {
    std::vector<std::vector<std::size_t>> out;
    walk_cell_states(f, &out, nullptr);
    return out;
}

std::vector<std::vector<StateValue>> cell_state_values(const FvmData& f) {
    std::vector<std::vector<StateValue>> out;
    walk_cell_states(f, nullptr, &out);
    return out;
}

void gather_state(const std::vector<double>& state, const std::vector<std::size_t>& positions, std::vector<double>& out) {
    for (std::size_t p : positions) out.push_back(state[p]);
}

void scatter_state(const std::vector<double>& from, std::size_t offset, const std::vector<std::size_t>& positions,
                   std::vector<double>& state) {
    for (std::size_t i = 0; i < positions.size(); ++i) state[positions[i]] = from[offset + i];
}

}  // namespace arbolito
