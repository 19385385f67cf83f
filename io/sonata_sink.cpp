#include "io/sonata_sink.hpp"

namespace arbolito {

ReportMapping report_mapping(const Simulation& sim, const RunSettings& run) {
    ReportMapping m;
    m.index_pointers.push_back(0);
    for (int g = 0; g < sim.n_groups(); ++g) {
        const FvmData& f = sim.group(g).data();
        for (int c = 0; c < f.n_cells(); ++c) {
            const auto b = f.probe_offset[c], e = f.probe_offset[c + 1];
            if (b == e) continue;
            m.node_ids.push_back(f.gids[c]);
            for (auto k = b; k < e; ++k) {
                m.element_ids.push_back(f.probe_element[k]);
                m.element_pos.push_back(f.probe_pos[k]);
            }
            m.index_pointers.push_back(m.element_ids.size());
        }
    }
    m.start = 0;
    m.step = run.sample_dt;
    m.stop = std::lround(run.tfinal / run.sample_dt) * run.sample_dt;
    return m;
}

}  // namespace arbolito
