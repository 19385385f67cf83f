#pragma once
// Whole-run models that the CPU and GPU tests share: Arbor's busyring in small, and a
// network of cells of very different sizes with every mechanism.
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "model/cell_builders.hpp"
#include "model/model.hpp"
#include "model/network_builders.hpp"
#include "io/model_reader.hpp"
#include "mechanisms/catalogue.hpp"
#include "run/record_exchange.hpp"

namespace arbolito::test_models {

// A whole run's frames and spikes, kept in memory.
struct Recorded : RecordSink {
    long ncol = 0;
    std::vector<double> rows;
    std::vector<Spike> spikes_seen;
    void frames(const double* r, std::size_t n) override { rows.insert(rows.end(), r, r + n * ncol); }
    void spikes(const std::vector<Spike>& s) override { spikes_seen.insert(spikes_seen.end(), s.begin(), s.end()); }
};

// The checkout: $ARBOLITO_SOURCE_DIR (binaries run on another machine) or the build's.
inline std::string source_path(const std::string& rel) {
    const char* env = std::getenv("ARBOLITO_SOURCE_DIR");
    return std::string(env ? env : ARBOLITO_SOURCE_DIR) + "/" + rel;
}

// unconnected: expsyn per cell beside the connected one (Arbor's busyring places
// `synapses` of them; 0 keeps these tests' models as they were written). coalesce: the
// builder's default is Arbor's (on); off keeps every synapse its own instance, as these
// tests' models were written.
inline Model busyring(std::uint64_t cells, unsigned synapses, double tfinal, unsigned unconnected = 0,
                      bool coalesce = false) {
    Model m;
    BusyringNetwork p;
    p.coalesce_synapses = coalesce;
    p.num_cells = cells;
    p.synapses = synapses;
    p.unconnected_synapses = unconnected;
    p.min_delay = 5;
    p.ring_size = 4;
    p.event_weight = 0.2;
    p.record = true;
    p.cell.depth = 6;
    build_busyring(m, p);
    m.run.tfinal = tfinal;
    return m;
}

// Cells of very different sizes (1 to ~600 CVs, SWC cell included when available) and
// every mechanism: hh, pas, expsyn, exp2syn, iclamp; a ring of connections plus explicit
// events, simultaneous ones on one target included. With stack_synapses, several point
// instances share CVs; without, each CV holds at most one (layout-invariant bits).
// tau1_soma: the somatic exp2syn's rise time (its decay is 2 ms). Every other cell folds
// its zero-area nodes ("zero_area": "fold"): the solvers see both layouts. coalesce: every
// cell coalesces its synapses, and events reach two stacked synapses of one instance in the
// same steps.
inline Model mixed_model(bool stack_synapses, double tau1_soma = 1.0, double tfinal = 40, bool coalesce = false) {
    Model m;
    m.run.dt = 0.025;
    m.run.tfinal = tfinal;
    m.run.sample_dt = 0.1;
    auto bs = std::make_shared<Morphology>(ball_and_stick(12.6157, 400, 0.6));
    std::vector<CellDesc> cells;
    for (int n : {1, 3, 200, 2, 64, 9, 600, 17, 1, 33, 128, 5}) {
        CellDesc c;
        c.morphology = bs;
        c.policy.kind = CvPolicy::nseg;
        c.policy.n = n;
        c.cm[-1] = 1.0;
        c.ra[-1] = 100.0;
        c.paints.push_back({tag_soma, "hh", resolve_params("hh", {})});
        c.paints.push_back({tag_dend, "pas", resolve_params("pas", {{"g", 2e-4}, {"e", -65.0}})});
        cells.push_back(std::move(c));
    }
    try {  // a real morphology: hundreds of CVs, many branch points
        Model sc = read_model(source_path("examples/single_cell.json"));
        CellDesc c = sc.cells.at(0);
        c.synapses.clear();
        c.stimuli.clear();
        c.detectors.clear();
        c.probes.clear();
        cells.insert(cells.begin() + 4, c);
    } catch (const std::exception&) {
    }
    for (std::size_t i = 0; i < cells.size(); ++i) {
        CellDesc& c = cells[i];
        const int dend = static_cast<int>(c.morphology->branches.size()) - 1;
        c.synapses.push_back({{dend, 0.5}, "expsyn", resolve_params("expsyn", {})});
        c.synapses.push_back({{dend, 0.9}, "exp2syn", resolve_params("exp2syn", {{"tau1", 0.3}, {"tau2", 3.0}})});
        c.synapses.push_back({{0, 0.5}, "exp2syn", resolve_params("exp2syn", {{"tau1", tau1_soma}, {"tau2", 2.0}})});
        if (stack_synapses)
            for (int k = 0; k < 40; ++k)
                c.synapses.push_back({{0, 0.5}, k % 3 ? "expsyn" : "exp2syn",
                                      resolve_params(k % 3 ? "expsyn" : "exp2syn", {})});
        if (i % 3 == 0) {
            c.stimuli.push_back({{0, 0.5}, "iclamp", {2.0 + i, 1.5, 0.4}});
            if (stack_synapses) c.stimuli.push_back({{0, 0.5}, "iclamp", {20.0, 3.0, 0.2}});
        }
        c.detectors.push_back({{0, 0.5}, -10.0});
        c.probes.push_back({false, {0, 0.5}});
        if (i % 4 == 1) c.probes.push_back({true, {}});
        else c.probes.push_back({false, {dend, 1.0}});  // under fold, the tip's node stays for it
        if (i % 2 == 0) c.policy.zero_area = CvPolicy::fold;
        c.policy.coalesce_synapses = coalesce;
        m.cells.push_back(c);
    }
    const std::uint64_t n = m.cells.size();
    for (std::uint64_t g = 0; g < n; ++g) {
        const auto nsyn = static_cast<std::uint32_t>(m.cells[(g + 1) % n].synapses.size());
        m.connections.push_back({g, 0, (g + 1) % n, 0, 0.06, 3.0});
        m.connections.push_back({g, 0, (g + 5) % n, 1 % nsyn, 0.02, 4.1});
        m.connections.push_back({g, 0, (g + 2) % n, nsyn - 1, 0.03, 3.7});
    }
    for (std::uint64_t g = 0; g < n; g += 2) {
        m.generators.push_back({g, 0, 0.08, {1.0, 1.0, 1.01, 6.3}});
        m.generators.push_back({g, 1, 0.01, {1.0125, 2.0, 2.0, 2.0}});
        m.generators.push_back({g, 2, 0.015, {0.5, 0.51, 9.0}});
        // The stacked synapses nsyn - 4 and nsyn - 1 (exp2syn, defaults): one instance
        // where coalesced; nsyn - 1 also takes a connection.
        if (coalesce && stack_synapses) {
            const auto nsyn = static_cast<std::uint32_t>(m.cells[g].synapses.size());
            m.generators.push_back({g, nsyn - 4, 0.02, {1.0, 3.7, 4.0}});
            m.generators.push_back({g, nsyn - 1, 0.01, {1.0, 3.7, 5.5}});
        }
    }
    return m;
}

}  // namespace arbolito::test_models
