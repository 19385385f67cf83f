#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "app/output_checks.hpp"
#include "app/run_common.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "cpu/cpu_cell_group.hpp"
#include "model/connection_rules.hpp"
#include "model/drawn_synapses.hpp"
#include "model/memory_estimate.hpp"
#include "run/solver_auto.hpp"
#include "run/solver_spec.hpp"
#include "io/geometry_dump.hpp"
#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "mechanisms/catalogue.hpp"
#include "solvers/branch_tree.hpp"

namespace arbolito {

namespace {

std::string region_name(int tag) {
    switch (tag) {
    case tag_soma: return "soma";
    case tag_axon: return "axon";
    case tag_dend: return "dend";
    case tag_apic: return "apic";
    default: return "type " + std::to_string(tag);
    }
}

// The branches of one cell as locations name them ({"branch": b, "x": x}): region, where
// it attaches, length, path distance from the soma's middle (from the root without a
// soma) to its start and end, and its CVs.
void list_branches(const Model& m, long gid, std::ostream& out) {
    if (gid < 0 || gid >= static_cast<long>(m.cells.size()))
        throw InputError("--gid", "", std::to_string(gid) + ": the model has " + std::to_string(m.cells.size()) +
                                          " cells (gids 0 to " + std::to_string(m.cells.size() - 1) + ")");
    const CellDesc& c = m.cells[gid];
    const auto shape = c.shape();
    const Morphology& morph = *shape;
    const CellCvs cvs = discretize_cell(c, morph);
    const int nb = static_cast<int>(morph.branches.size());
    const bool soma = morph.soma() == 0;
    // Distance of each branch's start from the reference point (soma middle or root).
    std::vector<double> start(nb, 0.0), length(nb);
    for (int b = 0; b < nb; ++b) {
        const Branch& br = morph.branches[b];
        length[b] = br.length();
        if (br.parent < 0) continue;
        const double at = br.parent_x * length[br.parent];
        start[b] = br.parent == 0 && soma ? std::abs(at - 0.5 * length[0]) : start[br.parent] + at;
    }
    out << "cell " << gid << " (" << morph.source << "): " << nb << " branches; distances along the cell from "
        << (soma ? "the soma's middle" : "the root (no soma)") << "\n";
    out << fmt::format("{:>7}  {:<8}  {:<12}  {:>10}  {:>24}  {:>6}\n", "branch", "region", "parent (x)", "length µm",
                       "from soma µm (start-end)", "CVs");
    for (int b = 0; b < nb; ++b) {
        const Branch& br = morph.branches[b];
        const std::string parent = br.parent < 0 ? "-" : fmt::format("{} ({:g})", br.parent, br.parent_x);
        const std::string span = b == 0 && soma ? fmt::format("0 (the soma, ±{:.4g})", 0.5 * length[0])
                                                : fmt::format("{:.4g}-{:.4g}", start[b], start[b] + length[b]);
        out << fmt::format("{:>7}  {:<8}  {:<12}  {:>10.4g}  {:>24}  {:>6}\n", b, region_name(br.tag), parent, length[b],
                           span, cvs.n_pieces[b]);
    }
}

// The catalogue in list order (built-in, then those the build appended, e.g. from
// -DARBOLITO_MECHANISMS): name, kind and parameters with units and defaults; for a density
// mechanism what probes may record of it (its states and currents, "<name>.<variable>").
std::string describe_mechanisms() {
    std::string out = "mechanisms:\n";
    for (const MechInfo& m : mechanism_infos()) {
        const char* kind = m.kind == MechKind::density ? "density" : m.kind == MechKind::synapse ? "synapse" : "stimulus";
        out += fmt::format("  {:<12} {:<8}", m.name, kind);
        for (std::size_t j = 0; j < m.params.size(); ++j)
            out += fmt::format("{}{} {} {}", j ? ", " : " ", m.params[j].name, m.params[j].default_value,
                               m.params[j].unit);
        if (m.kind == MechKind::density) {
            std::string probes;
            for (const Quantity& q : m.states) probes += std::string(", ") + q.name;
            for (const MechCurrent& c : mechanism_currents(m)) probes += ", " + c.name;
            out += "; probes: " + probes.substr(2);
        }
        out += "\n";
    }
    return out;
}

}  // namespace

int command_info(const InfoArgs& a) {
    if (a.model.empty()) {
        std::cout << describe_solvers() << describe_mechanisms();
        return 0;
    }
    const Model m = read_model(a.model, a.sets);
    if (!a.geometry.empty()) {
        check_stream_path(a.geometry, "--geometry");
        check_not_an_input(a.geometry, "--geometry", m.inputs);
        check_not_an_input(a.geometry + ".partial", "--geometry", m.inputs);
    }
    long total_cv = 0;
    std::map<std::string, long> instances;
    std::cout << "model " << m.name << " (" << a.model << "): " << m.cells.size() << " cells, " << connection_count(m)
              << " connections, " << m.generators.size() << " generators\n";
    std::cout << "run: dt " << m.run.dt << " ms, tfinal " << m.run.tfinal << " ms, sample_dt " << m.run.sample_dt << " ms\n";
    // CV branches and levels: the unbranched runs of CVs and the depth of their tree, the
    // work units and the sequential steps of the branch-level GPU solvers.
    const auto row = [](const auto& gid, const auto& branches, const auto& cvs, const auto& cv_branches, const auto& levels,
                        const std::string& policy, const std::string& source) {
        return fmt::format("{:>7}  {:>8}  {:>7}  {:>11}  {:>6}  {:<14}  {}\n", gid, branches, cvs, cv_branches, levels, policy, source);
    };
    std::cout << row("gid", "branches", "CVs", "CV-branches", "levels", "policy", "morphology");
    for (std::size_t gid = 0; gid < m.cells.size(); ++gid) {
        const CellDesc& c = m.cells[gid];
        const auto morph = c.shape();
        const CellCvs cvs = discretize_cell(c, *morph);
        total_cv += cvs.size();
        for (const Paint& p : c.paints) {
            for (int i = 0; i < cvs.size(); ++i)
                if (cvs.area[i] > 0 && (p.tag < 0 || morph->branches[cvs.branch[i]].tag == p.tag)) ++instances[p.mechanism];
        }
        if (c.policy.coalesce_synapses) {  // one instance per linear mechanism, CV and parameters
            std::set<std::tuple<std::string, int, std::vector<double>>> shared;
            for_each_synapse(c, *morph, [&](std::size_t, const Location& w, const std::string& mech,
                                            const std::vector<double>& params) {
                const MechInfo* mi = find_mechanism(mech);
                if (mi && coalesces(c, *mi)) {
                    if (shared.insert({mech, cvs.locate(w.branch, w.x), params}).second) ++instances[mech];
                } else {
                    ++instances[mech];
                }
            });
        } else {
            for (const auto& s : c.synapses) ++instances[s.mechanism];
            if (c.drawn_synapses.count > 0) instances[c.drawn_synapses.mechanism] += c.drawn_synapses.count;
        }
        for (const auto& s : c.stimuli) ++instances[s.mechanism];
        if (gid < 20 || gid + 1 == m.cells.size()) {
            const BranchTree bt = branch_tree(cvs.parent);
            std::cout << row(gid, morph->branches.size(), cvs.size(), bt.n_branches(), bt.n_levels, c.policy.describe(),
                             morph->source);
        } else if (gid == 20) {
            std::cout << "...\n";
        }
    }
    std::cout << "total CVs: " << total_cv << "\nmechanism instances:";
    for (const auto& [k, v] : instances) std::cout << " " << k << " " << v;
    // The estimate `run` checks before it allocates (model/memory_estimate.hpp).
    const ModelSize size = model_size(m);
    // The default solver's layout (cpu, lanes=auto).
    const MemoryEstimate e = estimate_memory(size, 1, lanes_for_cells(native_lane_width(), static_cast<std::uint64_t>(size.cells)));
    const double avail = available_memory_bytes();
    std::cout << "\nmemory estimate: " << describe_bytes(e.state_bytes) << " of simulation state, "
              << describe_bytes(e.model_bytes) << " of model; a run needs about " << describe_bytes(e.run_bytes)
              << " (available here: " << (avail > 0 ? describe_bytes(avail) : std::string("unknown")) << ")\n";
    const AutoChoice choice = choose_solver(model_shape(m), gpu_available(), a.threads);
    std::cout << "solver auto would choose: " << choice.spec << " (" << choice.why << ")\n";
    std::cout << "CPU SIMD lanes: " << native_lane_width() << " cells side by side (" << native_lane_isa()
              << "; cpu and omp, lanes=auto; fewer for a group of fewer cells)\n";
    if (a.branches) list_branches(m, a.gid, std::cout);
    if (!a.geometry.empty()) {
        // Through GEOMETRY.partial, renamed once complete: a full disk leaves no truncated
        // dump behind (exit 1), as a bad path leaves none (exit 2, checked above).
        try {
            write_file_atomically(a.geometry, geometry_dump(m).dump(1) + "\n");
        } catch (const std::runtime_error& e) {
            spdlog::error("{}", e.what());
            return 1;
        }
        spdlog::info("wrote {}", a.geometry);
    }
    return 0;
}

}  // namespace arbolito
