#include <fstream>
#include <iostream>
#include <map>

#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "engine/fvm_data.hpp"
#include "engine/cpu/cpu_cell_group.hpp"
#include "engine/solver_auto.hpp"
#include "engine/solver_spec.hpp"
#include "io/geometry_dump.hpp"
#include "io/model_reader.hpp"
#include "mechanisms/catalogue.hpp"
#include "solvers/branch_tree.hpp"

namespace arbolito {

int command_info(const InfoArgs& a) {
    if (a.model.empty()) {
        std::cout << describe_solvers();
        return 0;
    }
    const Model m = read_model(a.model);
    long total_cv = 0;
    std::map<std::string, long> instances;
    std::cout << "model " << m.name << " (" << a.model << "): " << m.cells.size() << " cells, " << m.connections.size()
              << " connections, " << m.generators.size() << " generators\n";
    std::cout << "run: dt " << m.run.dt << " ms, tfinal " << m.run.tfinal << " ms, sample_dt " << m.run.sample_dt << " ms\n";
    // CV branches and levels: the unbranched runs of CVs and the depth of their tree, the
    // work units and the sequential steps of the branch-level GPU solvers.
    std::cout << "gid  branches  CVs  CV-branches  levels  policy  morphology\n";
    for (std::size_t gid = 0; gid < m.cells.size(); ++gid) {
        const CellDesc& c = m.cells[gid];
        const CellCvs cvs = discretize_cell(c);
        total_cv += cvs.size();
        for (const Paint& p : c.paints) {
            for (int i = 0; i < cvs.size(); ++i)
                if (cvs.area[i] > 0 && (p.tag < 0 || c.morphology->branches[cvs.branch[i]].tag == p.tag)) ++instances[p.mechanism];
        }
        for (const auto& s : c.synapses) ++instances[s.mechanism];
        for (const auto& s : c.stimuli) ++instances[s.mechanism];
        if (gid < 20 || gid + 1 == m.cells.size()) {
            const BranchTree bt = branch_tree(cvs.parent);
            std::cout << gid << "  " << c.morphology->branches.size() << "  " << cvs.size() << "  " << bt.n_branches()
                      << "  " << bt.n_levels << "  " << c.policy.describe() << "  " << c.morphology->source << "\n";
        } else if (gid == 20) {
            std::cout << "...\n";
        }
    }
    std::cout << "total CVs: " << total_cv << "\nmechanism instances:";
    for (const auto& [k, v] : instances) std::cout << " " << k << " " << v;
    // Per CV: v, d, u, rhs, cap, g_parent, g_sum, v_init (8 doubles) and a parent index;
    // per mechanism instance its parameters, states, constants and weight, and a CV index.
    double bytes = total_cv * (8 * 8 + 4);
    for (const MechInfo& mi : mechanism_infos())
        bytes += instances[mi.name] * ((mi.params.size() + mi.states.size() + mi.derived.size() + 1) * 8.0 + 4);
    std::cout << "\nmemory estimate: " << bytes / (1 << 20) << " MiB of simulation state\n";
    const AutoChoice choice = choose_solver(model_shape(m), gpu_available(), a.threads);
    std::cout << "solver auto would choose: " << choice.spec << " (" << choice.why << ")\n";
    std::cout << "CPU SIMD lanes: " << native_lane_width() << " cells side by side (" << native_lane_isa()
              << "; cpu and omp, lanes=auto)\n";
    if (!a.geometry.empty()) {
        std::ofstream out(a.geometry);
        if (!out) throw std::runtime_error("cannot write " + a.geometry);
        out << geometry_dump(m).dump(1) << "\n";
        spdlog::info("wrote {}", a.geometry);
    }
    return 0;
}

}  // namespace arbolito
