#include "engine/cell_state_map.hpp"

#include <algorithm>
#include <utility>

namespace arbolito {

std::vector<std::vector<std::size_t>> cell_state_positions(const FvmData& f) {
    const int nc = f.n_cells();
    // Layout CV -> (cell, natural CV); padding stays at -1.
    std::vector<int> cell_of(f.n_cv(), -1), natural_of(f.n_cv(), -1);
    std::vector<std::vector<std::size_t>> out(nc);
    for (int c = 0; c < nc; ++c)
        for (std::size_t i = 0; i < f.layout.index[c].size(); ++i) {
            const int L = f.layout.index[c][i];
            cell_of[L] = c;
            natural_of[L] = static_cast<int>(i);
            out[c].push_back(static_cast<std::size_t>(L));
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
        for (int j = 0; j < n_states<M>; ++j)
            for (int c = 0; c < nc; ++c)
                for (const auto& [cv, k] : mine[c]) out[c].push_back(offset + static_cast<std::size_t>(j) * n + k);
        offset += static_cast<std::size_t>(n_states<M>) * n;
    });
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
