#include "run/solver_auto.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "lowered_cell/fvm_data.hpp"
#include "model/junction_points.hpp"
#include "run/gpu_binding.hpp"
#include "run/solver_registry.hpp"
#include "solvers/branch_layout.hpp"
#include "solvers/branch_tree.hpp"

namespace arbolito {

ModelShape model_shape(const Model& m) {
    ModelShape s;
    s.cells = m.cells.size();
    long branches = 0;
    // Identical cells share their morphology: discretise each (morphology, policy) once.
    std::map<std::pair<const Morphology*, std::string>, std::pair<int, int>> seen;  // -> CVs, branches
    for (const CellDesc& c : m.cells) {
        const auto shape = [&] {  // -> CVs, branches
            const std::vector<int> parent = discretize_cell(c).parent;
            const BranchTree t = branch_tree(parent);
            s.max_levels = std::max(s.max_levels, t.n_levels);
            s.max_branch_points = std::max(s.max_branch_points, branch_points(parent));
            s.max_cell_cvs = std::max(s.max_cell_cvs, static_cast<long>(parent.size()));
            return std::make_pair(static_cast<int>(t.cv.size()), t.n_branches());
        };
        std::pair<int, int> cvs_branches;
        if (!c.morphology) {  // drawn per cell: nothing to share
            cvs_branches = shape();
        } else {
            // The points zero_area fold keeps are the cell's own: part of the key.
            std::string policy = c.policy.describe();
            for (const Location& l : junction_points(c, *c.morphology)) policy += fmt::format("; {} {}", l.branch, l.x);
            auto key = std::make_pair(c.morphology.get(), policy);
            auto it = seen.find(key);
            if (it == seen.end()) it = seen.emplace(key, shape()).first;
            cvs_branches = it->second;
        }
        s.cvs += cvs_branches.first;
        branches += cvs_branches.second;
    }
    s.cvs_per_branch = branches > 0 ? static_cast<double>(s.cvs) / branches : 0.0;
    return s;
}

AutoChoice choose_solver(const ModelShape& s, bool gpu, int threads) {
    const std::string shape = fmt::format("{} cells, {} CVs, {:.1f} CVs per branch", s.cells, s.cvs, s.cvs_per_branch);
    if (!gpu) {
        if (threads > 1) return {"omp", shape + "; no GPU, " + std::to_string(threads) + " threads"};
        return {"cpu", shape + "; no GPU, one thread"};
    }
    if (s.cvs_per_branch >= 24) {
        if (edd_auto_tile(s.max_branch_points, s.max_cell_cvs) > 0)
            return {"gpu-branch:coupling=edd", shape + ": long branches, few branch points: EDD by tiles, each tile "
                                                       "read and written once"};
        if (s.cells < 10000)
            return {"gpu-branch:coupling=edd", shape + ": long branches, few cells: each run cut and solved at once"};
        return {"gpu-branch:coupling=fold", shape + ": long branches, many cells: memory-bound, the fold moves fewer bytes"};
    }
    const std::string levels = fmt::format(", {} branch levels", s.max_levels);
    if (s.max_levels > 20 && s.cells < 4096)
        return {"gpu-branch:coupling=edd", shape + levels + ": deep, few cells: every branch at once, then each "
                                                            "cell's junctions"};
    if (s.max_levels > 40)
        return {"gpu-cell", shape + levels + ": deep, many cells: too deep for a barrier per level"};
    if (s.cells < 4096 || s.max_levels <= 20)
        return {"gpu-fine:step=resident",
                shape + levels + ": short branches, few cells or shallow trees: each block's cells on chip for an epoch"};
    return {"gpu-branch:coupling=fold", shape + levels + ": short branches, many cells of deeper trees: branches of all "
                                                         "cells level by level"};
}

SolverSpec resolve_auto(const SolverSpec& spec, const Model& m, int threads, bool log) {
    if (!spec.solver || !spec.solver->is_auto) return spec;
    const AutoChoice c = choose_solver(model_shape(m), gpu_available(), threads);
    if (log) spdlog::info("solver auto: {} ({})", c.spec, c.why);
    return parse_solver_spec(c.spec);
}

bool gpu_available() { return visible_gpus() > 0; }

std::string solver_unavailable_here(const SolverSpec& spec) {
    std::string why;
    return !spec.solver || solver_available(*spec.solver, &why) ? "" : spec.solver->name + " " + why;
}

}  // namespace arbolito
