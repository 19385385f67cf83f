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

void build_busyring(Model& m, const BusyringNetwork& p, ConnectionsDrawn drawn) {
    if (p.num_cells < 2) throw std::invalid_argument("num-cells must be >= 2");
    if (p.ring_size < 1) throw std::invalid_argument("ring-size must be >= 1");
    if (p.synapses < 1) throw std::invalid_argument("synapses must be >= 1");
    const std::uint64_t first = m.cells.size(), n = p.num_cells;
    CellDesc proto;  // all but the morphology
    proto.policy.kind = CvPolicy::every_segment;
    proto.policy.zero_area = p.zero_area;
    proto.policy.coalesce_synapses = p.coalesce_synapses;
    proto.cm[-1] = 1.0;
    proto.ra[-1] = 100.0;
    proto.paints.push_back({tag_soma, "hh", resolve_params("hh", {})});
    proto.paints.push_back({tag_dend, "pas", resolve_params("pas", {})});
    proto.detectors.push_back({{0, 0.0}, 10.0});
    proto.synapses.push_back({{1, 0.0}, "expsyn", resolve_params("expsyn", {})});
    proto.drawn_synapses = {p.unconnected_synapses.value_or(p.synapses), 0, "expsyn", resolve_params("expsyn", {})};
    if (p.record) proto.probes.push_back({false, {0, 0.5}, {}});

    // Every cell comes from its own seed: set up in parallel, each into its own slot.
    m.cells.resize(first + n);
    parallel_for(static_cast<long>(n), 64, [&](long li) {
        const std::uint64_t i = static_cast<std::uint64_t>(li);
        CellDesc& c = m.cells[first + i];
        c = proto;
        c.drawn_synapses.seed = i;
        const BusyringParams shape = p.cell;
        c.draw_morphology = [i, shape] { return busyring_cell(i, shape); };
    });

    // Each cell's fan-in from the cell's own seed, drawn for any range of targets: the ring
    // predecessor, then the weightless random fan-in, as Arbor's recipe draws it. Targets
    // in parallel, each into its own slots, in the same order as one after another.
    ConnectionRule rule;
    rule.target_begin = first;
    rule.target_end = first + n;
    rule.count = n * p.synapses;
    // The ring's delay; the random fan-in's are min_delay plus [0, 2·min_delay) rounded to
    // float, never below min_delay rounded to float.
    rule.min_delay = std::min(p.min_delay, static_cast<double>(static_cast<float>(p.min_delay)));
    rule.delay_key = "network.min-delay";
    rule.draw = [first, n, s = p.ring_size, syn = p.synapses, weight = p.event_weight, min_delay = p.min_delay](
                    std::uint64_t b, std::uint64_t e, std::vector<Connection>& out) {
        b = std::max(b, first);
        e = std::min(e, first + n);
        if (b >= e) return;
        const std::size_t at = out.size();
        out.resize(at + (e - b) * syn);
        parallel_for(static_cast<long>(e - b), 64, [&](long k) {
            const std::uint64_t gid = b + static_cast<std::uint64_t>(k), i = gid - first;
            Connection* c = &out[at + static_cast<std::size_t>(k) * syn];
            const std::uint64_t group_start = s * (i / s), group_end = std::min(group_start + s, n);
            const std::uint64_t pred = i == group_start ? group_end - 1 : i - 1;
            *c++ = {first + pred, 0, gid, 0, weight, min_delay};
            std::uniform_int_distribution<std::uint32_t> dist(0, static_cast<std::uint32_t>(n - 2));
            std::uniform_real_distribution<float> delay_dist(0, static_cast<float>(2 * min_delay));
            std::mt19937 gen(static_cast<std::uint32_t>(i));
            for (unsigned j = 1; j < syn; ++j) {
                std::uint64_t src = dist(gen);
                if (src == i) ++src;
                const float delay = static_cast<float>(min_delay + delay_dist(gen));
                *c++ = {first + src, 0, gid, 0, 0.0, static_cast<double>(delay)};
            }
        });
    };
    if (drawn == ConnectionsDrawn::now) {
        m.connections.reserve(m.connections.size() + rule.count);
        rule.draw(rule.target_begin, rule.target_end, m.connections);
    } else {
        m.connection_rules.push_back(std::move(rule));
    }
    for (std::uint64_t i = 0; i < n; i += p.ring_size) m.generators.push_back({first + i, 0, p.event_weight, {1.0}});
}

}  // namespace arbolito
