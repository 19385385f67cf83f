// Solvers cpu and omp: the CPU cell group, cells in SIMD lanes (lane_layout numbering).
#include <stdexcept>
#include <vector>

#include "cpu/cpu_cell_group.hpp"
#include "run/solver_registry.hpp"
#include "solvers/hines_long_double.hpp"

namespace arbolito {

namespace {

std::vector<SolverOption> cpu_keys() {
    return {{"lanes", {"auto", "1", "2", "4", "8"}, "", "auto",
             "cells stepped side by side in SIMD lanes; auto: " +
                 std::to_string(native_lane_width()) + " here (1 with solve=long-double); 1: the scalar path",
             {}},
            {"solve", {"double", "long-double"}, "", "double",
             "the Hines solve's arithmetic; long-double: elimination and substitution in long double, cells one at a "
             "time (a reference for accuracy tests; slow)",
             {}}};
}

std::unique_ptr<CellGroup> make_cpu_group(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end,
                                          const SolverOptions& o, const StepSettings& s, int) {
    const std::string& lanes = o.at("lanes");
    const bool long_double = o.at("solve") == "long-double";
    if (long_double && lanes != "auto" && lanes != "1")
        throw std::invalid_argument("solver cpu: solve=long-double steps cells one at a time: lanes=" + lanes +
                                    " is not allowed with it (lanes=1 or auto)");
    const int width = long_double ? 1 : lanes == "auto" ? native_lane_width() : std::stoi(lanes);
    LaneBlocks blocks;  // numbering runs first, once
    FvmData f = build_fvm(m, gid_begin, gid_end, [&](const std::vector<std::vector<int>>& natural_parents) {
        LaneNumbering n = lane_layout(natural_parents, width);
        blocks = std::move(n.blocks);
        return std::move(n.layout);
    });
    auto group = std::make_unique<CpuCellGroup>(std::move(f), std::move(blocks), s);
    if (long_double)
        group->solve_cells_by([work = std::vector<long double>()](int first, int last, const int* parent, double* d,
                                                                  const double* u, double* rhs) mutable {
            hines_solve_long_double(first, last, parent, d, u, rhs, work);
        });
    return group;
}

}  // namespace

SolverInfo cpu_solver() {
    SolverInfo s;
    s.name = "cpu";
    s.description = "serial Hines solver, one cell group per rank on one thread, cells in SIMD lanes";
    s.options = cpu_keys();
    s.make_group = make_cpu_group;
    return s;
}

SolverInfo omp_solver() {
    SolverInfo s;
    s.name = "omp";
    s.description = "the cpu solver on 4 x --threads cell groups, stepped by OpenMP threads";
    s.options = cpu_keys();
    s.groups_per_thread = 4;
    s.make_group = make_cpu_group;
    return s;
}

}  // namespace arbolito
