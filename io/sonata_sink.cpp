#include "io/sonata_sink.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "mechanisms/catalogue.hpp"

namespace arbolito {

namespace {

// What probe column k of a group records, as the model names it.
std::string probe_variable_name(const FvmData& f, std::size_t k) {
    if (f.probe_source.empty()) return "v";
    const FvmData::ProbeSource& s = f.probe_source[k];
    switch (s.kind) {
        case ProbeVariable::v: return "v";
        case ProbeVariable::mech_state: {
            const MechInfo& mi = mechanism_infos()[s.index];
            return mi.name + "." + mi.states[s.state].name;
        }
        case ProbeVariable::mech_current: {
            const MechInfo& mi = mechanism_infos()[s.index];
            for (const MechCurrent& c : mechanism_currents(mi))
                if (c.which == s.state) return mi.name + "." + c.name;  // "i" first: the whole's name
            return mi.name + ".i";
        }
        case ProbeVariable::ion_e: return f.ions[s.index].name + ".e";
        case ProbeVariable::ion_xi: return f.ions[s.index].name + ".xi";
        case ProbeVariable::ion_xo: return f.ions[s.index].name + ".xo";
        case ProbeVariable::ion_i: return f.ions[s.index].name + ".i";
    }
    return "v";
}

// One rank's part of the mapping: cells [0, n_cells) of f in order, those with probes.
struct MappingPart {
    std::vector<std::uint64_t> node_ids, counts;
    std::vector<std::uint32_t> element_ids;
    std::vector<float> element_pos;
    std::string variables;  // ';'-separated, column by column
    bool any_variable = false;
    void add(const FvmData& f, int n_cells) {
        for (int c = 0; c < n_cells; ++c) {
            const auto b = f.probe_offset[c], e = f.probe_offset[c + 1];
            if (b == e) continue;
            node_ids.push_back(f.gids[c]);
            counts.push_back(e - b);
            for (auto k = b; k < e; ++k) {
                element_ids.push_back(f.probe_element[k]);
                element_pos.push_back(f.probe_pos[k]);
                variables += (variables.empty() ? "" : ";") + probe_variable_name(f, k);
                any_variable |= !f.probe_source.empty() && f.probe_source[k].kind != ProbeVariable::v;
            }
        }
    }
};

// The parts concatenated in rank order (on rank 0) and the report's time.
ReportMapping gathered(MappingPart part, Communicator& comm, const RunSettings& run) {
    ReportMapping m;
    m.node_ids = comm.gather(part.node_ids);
    const std::vector<std::uint64_t> counts = comm.gather(part.counts);
    m.element_ids = comm.gather(part.element_ids);
    m.element_pos = comm.gather(part.element_pos);
    // The columns' variables, where some column records other than v (on every rank that
    // has one: rank 0's own, else the gathered bytes).
    std::vector<char> mine(part.variables.begin(), part.variables.end());
    if (!mine.empty()) mine.push_back(';');
    const std::vector<char> all = comm.gather(mine);
    const bool any = comm.all_gather(static_cast<char>(part.any_variable)) != std::vector<char>(comm.size(), 0);
    if (any && !all.empty()) m.variables.assign(all.begin(), all.end() - 1);
    m.index_pointers.push_back(0);
    for (auto n : counts) m.index_pointers.push_back(m.index_pointers.back() + n);
    m.start = 0;
    m.step = run.sample_dt;
    m.stop = std::lround(run.tfinal / run.sample_dt) * run.sample_dt;
    return m;
}

}  // namespace

ReportMapping report_mapping(const Simulation& sim, const RunSettings& run) {
    // This rank's part: its cells in gid order. Ranks hold ascending gid blocks:
    // concatenated in rank order, the parts are the mapping of the whole model (on rank
    // 0, which writes the file).
    MappingPart part;
    for (int g = 0; g < sim.n_groups(); ++g) part.add(sim.group(g).data(), sim.group(g).data().n_cells());
    return gathered(std::move(part), sim.comm(), run);
}

ReportMapping report_mapping(const FvmData& cells, int n_cells, const RunSettings& run) {
    MappingPart part;
    part.add(cells, n_cells);
    SerialCommunicator one;
    return gathered(std::move(part), one, run);
}

}  // namespace arbolito
