// Solvers cpu and omp: the CPU cell group (serial Hines per cell, level_layout numbering).
#include "engine/cpu/cpu_cell_group.hpp"
#include "engine/solver_registry.hpp"

namespace arbolito {

namespace {

std::unique_ptr<CellGroup> make_cpu_group(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end,
                                          const SolverOptions&, const StepSettings& s, int) {
    return std::make_unique<CpuCellGroup>(build_fvm(m, gid_begin, gid_end, level_layout), s);
}

}  // namespace

SolverInfo cpu_solver() {
    SolverInfo s;
    s.name = "cpu";
    s.description = "serial Hines solver, one cell group per rank on one thread";
    s.make_group = make_cpu_group;
    return s;
}

SolverInfo omp_solver() {
    SolverInfo s;
    s.name = "omp";
    s.description = "the cpu solver on 4 x --threads cell groups, stepped by OpenMP threads";
    s.groups_per_thread = 4;
    s.make_group = make_cpu_group;
    return s;
}

}  // namespace arbolito
