#include "io/sonata_sink.hpp"

#include <cmath>

namespace arbolito {

ReportMapping report_mapping(const Simulation& sim, const RunSettings& run) {
    // This rank's part: its cells in gid order.
    std::vector<std::uint64_t> node_ids, counts;
    std::vector<std::uint32_t> element_ids;
    std::vector<float> element_pos;
    for (int g = 0; g < sim.n_groups(); ++g) {
        const FvmData& f = sim.group(g).data();
        for (int c = 0; c < f.n_cells(); ++c) {
            const auto b = f.probe_offset[c], e = f.probe_offset[c + 1];
            if (b == e) continue;
            node_ids.push_back(f.gids[c]);
            counts.push_back(e - b);
            for (auto k = b; k < e; ++k) {
                element_ids.push_back(f.probe_element[k]);
                element_pos.push_back(f.probe_pos[k]);
            }
        }
    }
    // Ranks hold ascending gid blocks: concatenated in rank order, the parts are the
    // mapping of the whole model (on rank 0, which writes the file).
    Communicator& comm = sim.comm();
    ReportMapping m;
    m.node_ids = comm.gather(node_ids);
    counts = comm.gather(counts);
    m.element_ids = comm.gather(element_ids);
    m.element_pos = comm.gather(element_pos);
    m.index_pointers.push_back(0);
    for (auto n : counts) m.index_pointers.push_back(m.index_pointers.back() + n);
    m.start = 0;
    m.step = run.sample_dt;
    m.stop = std::lround(run.tfinal / run.sample_dt) * run.sample_dt;
    return m;
}

}  // namespace arbolito
