#include "run/solver_registry.hpp"

#include "run/solver_auto.hpp"

namespace arbolito {

// Each solver's entry, defined in its own file (cpu/cpu_solvers.cpp,
// gpu/gpu_cell_solver.cpp, gpu/gpu_fine_solver.cpp,
// gpu/gpu_branch_solver.cpp). A list, not static
// self-registration: a static library drops object files nothing refers to, and their
// registrars with them.
SolverInfo cpu_solver();
SolverInfo omp_solver();
SolverInfo gpu_cell_solver();
SolverInfo gpu_fine_solver();
SolverInfo gpu_branch_solver();

namespace {

SolverInfo auto_solver() {
    SolverInfo s;
    s.name = "auto";
    s.is_auto = true;
    s.description = "one of the above, chosen for the model and the machine at set-up (docs/solvers.md; arbolito info "
                    "MODEL says which and why)";
    return s;
}

}  // namespace

const std::vector<SolverInfo>& all_solvers() {
    static const std::vector<SolverInfo> list = {cpu_solver(), omp_solver(), gpu_cell_solver(), gpu_fine_solver(),
                                                 gpu_branch_solver(), auto_solver()};
    return list;
}

std::string available_solver_names() {
    std::string out;
    for (const SolverInfo& s : all_solvers())
        if (s.make_group || s.is_auto) out += (out.empty() ? "" : ", ") + s.name;
    return out;
}

const SolverInfo* find_solver(const std::string& name) {
    for (const SolverInfo& s : all_solvers())
        if (s.name == name) return &s;
    return nullptr;
}

bool solver_available(const SolverInfo& s, std::string* why) {
    std::string reason;
    if (!s.make_group && !s.is_auto)
        reason = "needs the CUDA build of arbolito";
    else if (s.needs_cuda && !gpu_available())
        reason = "needs a CUDA device, and none is usable here";
    if (why) *why = reason;
    return reason.empty();
}

}  // namespace arbolito
