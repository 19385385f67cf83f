// Solvers cpu and omp: the CPU cell group, cells in SIMD lanes (lane_layout numbering).
#include "cpu/cpu_cell_group.hpp"
#include "run/solver_registry.hpp"

namespace arbolito {

namespace {

std::vector<SolverOption> cpu_keys() {
    return {{"lanes", {"auto", "1", "2", "4", "8"}, "", "auto",
             "cells stepped side by side in SIMD lanes; auto: " +
                 std::to_string(native_lane_width()) + " here; 1: the scalar path",
             {}}};
}

std::unique_ptr<CellGroup> make_cpu_group(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end,
                                          const SolverOptions& o, const StepSettings& s, int) {
    const std::string& lanes = o.at("lanes");
    const int width = lanes == "auto" ? native_lane_width() : std::stoi(lanes);
    LaneBlocks blocks;  // numbering runs first, once
    FvmData f = build_fvm(m, gid_begin, gid_end, [&](const std::vector<std::vector<int>>& natural_parents) {
        LaneNumbering n = lane_layout(natural_parents, width);
        blocks = std::move(n.blocks);
        return std::move(n.layout);
    });
    return std::make_unique<CpuCellGroup>(std::move(f), std::move(blocks), s);
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
