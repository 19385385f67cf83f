// Solvers cpu and omp: the CPU cell group, cells in SIMD lanes (lane_layout numbering).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cpu/cpu_cell_group.hpp"
#include "run/solver_registry.hpp"
#include "solvers/hines_long_double.hpp"

namespace arbolito {

namespace {

std::vector<SolverOption> cpu_keys() {
    return {number_list_option("lanes", {1, 2, 4, 8}, "auto",
                               "cells stepped side by side in SIMD lanes; auto: " + std::to_string(native_lane_width()) +
                                   " here (1 with solve=long-double); 1: the scalar path",
                               {"auto"}),
            choice_option("solve", {"double", "long-double"}, "double",
                          "the Hines solve's arithmetic; long-double: elimination and substitution in long double, "
                          "cells one at a time (a reference for accuracy tests; slow)")};
}

bool long_double_solve(const SolverOptions& o) { return o.choice("solve") == "long-double"; }

// solve=long-double steps cells one at a time.
std::string check_cpu_keys(const SolverOptions& o) {
    const std::optional<int> lanes = o.number("lanes");
    if (long_double_solve(o) && lanes && *lanes != 1)
        return "solve=long-double steps cells one at a time: lanes=" + std::to_string(*lanes) +
               " is not allowed with it (lanes=1 or auto)";
    return "";
}

int cpu_lane_width(const SolverOptions& o) {
    return long_double_solve(o) ? 1 : o.number_or("lanes", native_lane_width());
}

// The group's lanes: as given, or lanes=auto no wider than its cells fill (lanes_for_cells).
int group_lane_width(const SolverOptions& o, std::uint64_t n_cells) {
    const int width = cpu_lane_width(o);
    return o.number("lanes") ? width : lanes_for_cells(width, n_cells);
}

std::unique_ptr<CellGroup> make_cpu_group(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end,
                                          const SolverOptions& o, const StepSettings& s, int) {
    const bool long_double = long_double_solve(o);
    const int width = group_lane_width(o, gid_end - gid_begin);
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
    s.check = check_cpu_keys;
    s.lane_width = cpu_lane_width;
    s.make_group = make_cpu_group;
    return s;
}

SolverInfo omp_solver() {
    SolverInfo s;
    s.name = "omp";
    s.description = "the cpu solver on 4 x --threads cell groups, stepped by OpenMP threads";
    s.options = cpu_keys();
    s.groups_per_thread = 4;
    s.lane_width = cpu_lane_width;
    s.make_group = make_cpu_group;
    return s;
}

}  // namespace arbolito
