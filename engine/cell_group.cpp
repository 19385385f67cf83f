#include "engine/cell_group.hpp"

#include <stdexcept>

#include "engine/cpu/cpu_cell_group.hpp"
#if defined(ARBOLITO_HAVE_CUDA) && __has_include("engine/gpu/gpu_cell_group.hpp")
#define ARBOLITO_GPU_BACKEND
#include "engine/gpu/gpu_cell_group.hpp"
#endif

namespace arbolito {

std::vector<std::string> solver_names() { return {"cpu", "omp", "gpu-cell", "gpu-fine", "gpu-branch"}; }

bool solver_is_gpu(const std::string& solver) { return solver.rfind("gpu", 0) == 0; }

std::unique_ptr<CellGroup> make_cell_group(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end,
                                           const std::string& solver, const std::string& layout,
                                           const StepSettings& s, int local_rank) {
    if (solver == "cpu" || solver == "omp") {
        if (!layout.empty()) throw std::invalid_argument("solver " + solver + " takes no layout option");
        return std::make_unique<CpuCellGroup>(build_fvm(m, gid_begin, gid_end, level_layout), s);
    }
    if (solver_is_gpu(solver)) {
#ifdef ARBOLITO_GPU_BACKEND
        return make_gpu_cell_group(m, gid_begin, gid_end, solver, layout, s, local_rank);
#else
        (void)local_rank;
        throw std::invalid_argument("solver " + solver + " needs the CUDA backend, and this build has none");
#endif
    }
    throw std::invalid_argument("unknown solver '" + solver + "' (cpu, omp, gpu-cell, gpu-fine, gpu-branch)");
}

}  // namespace arbolito
