#include "model/network_builders.hpp"

#include <algorithm>
#include <memory>
#include <random>
#include <stdexcept>

#include "core/parallel_for.hpp"
#include "mechanisms/catalogue.hpp"

namespace arbolito {

void build_ring(Model& m, double weight, double delay, double kick_time, double kick_weight) {
    const std::uint64_t n = m.cells.size();
    for (std::uint64_t gid = 0; gid < n; ++gid) {
        if (m.cells[gid].detectors.empty()) throw std::invalid_argument("ring: cell " + std::to_string(gid) + " has no detector");
        if (m.cells[gid].n_synapses() == 0) throw std::invalid_argument("ring: cell " + std::to_string(gid) + " has no synapse");
    }
    for (std::uint64_t gid = 0; gid < n; ++gid) m.connections.push_back({gid, 0, (gid + 1) % n, 0, weight, delay});
    m.generators.push_back({0, 0, kick_weight, {kick_time}});
}

void build_busyring(Model& m, const BusyringNetwork& p) {
    if (p.num_cells < 2) throw std::invalid_argument("num-cells must be >= 2");
    if (p.ring_size < 1) throw std::invalid_argument("ring-size must be >= 1");
    if (p.synapses < 1) throw std::invalid_argument("synapses must be >= 1");
    const std::uint64_t first = m.cells.size(), n = p.num_cells;
    CellDesc proto;  // all but the morphology
    proto.policy.kind = CvPolicy::every_segment;
    proto.cm[-1] = 1.0;
    proto.ra[-1] = 100.0;
    proto.paints.push_back({tag_soma, "hh", resolve_params("hh", {})});
    proto.paints.push_back({tag_dend, "pas", resolve_params("pas", {})});
    proto.detectors.push_back({{0, 0.0}, 10.0});
    proto.synapses.push_back({{1, 0.0}, "expsyn", resolve_params("expsyn", {})});
    proto.drawn_synapses = {p.unconnected_synapses.value_or(p.synapses), 0, "expsyn", resolve_params("expsyn", {})};
    if (p.record) proto.probes.push_back({false, {0, 0.5}, {}});

    // Every cell and its fan-in come from the cell's own seed: draw them in parallel, each
    // into its own slots, in the same order as one after another.
    const std::size_t conn_first = m.connections.size();
    m.cells.resize(first + n);
    m.connections.resize(conn_first + n * p.synapses);
    parallel_for(static_cast<long>(n), 64, [&](long li) {
        const std::uint64_t i = static_cast<std::uint64_t>(li), gid = first + i;
        CellDesc& c = m.cells[gid];
        c = proto;
        c.drawn_synapses.seed = i;
        const BusyringParams shape = p.cell;
        c.draw_morphology = [i, shape] { return busyring_cell(i, shape); };

        // Ring predecessor, then the weightless random fan-in, as Arbor's recipe draws it.
        Connection* out = &m.connections[conn_first + i * p.synapses];
        const std::uint64_t s = p.ring_size, group_start = s * (i / s), group_end = std::min(group_start + s, n);
        const std::uint64_t pred = i == group_start ? group_end - 1 : i - 1;
        *out++ = {first + pred, 0, gid, 0, p.event_weight, p.min_delay};
        std::uniform_int_distribution<std::uint32_t> dist(0, static_cast<std::uint32_t>(n - 2));
        std::uniform_real_distribution<float> delay_dist(0, static_cast<float>(2 * p.min_delay));
        std::mt19937 gen(static_cast<std::uint32_t>(i));
        for (unsigned k = 1; k < p.synapses; ++k) {
            std::uint64_t src = dist(gen);
            if (src == i) ++src;
            const float delay = static_cast<float>(p.min_delay + delay_dist(gen));
            *out++ = {first + src, 0, gid, 0, 0.0, static_cast<double>(delay)};
        }
    });
    for (std::uint64_t i = 0; i < n; i += p.ring_size) m.generators.push_back({first + i, 0, p.event_weight, {1.0}});
}

}  // namespace arbolito
