#include "engine/cell_group.hpp"

#include <stdexcept>

#include "engine/cpu/cpu_cell_group.hpp"
#include "mechanisms/exp2syn.hpp"
#include "mechanisms/hh.hpp"
#if defined(ARBOLITO_HAVE_CUDA) && __has_include("engine/gpu/gpu_cell_group.hpp")
#define ARBOLITO_GPU_BACKEND
#include "engine/gpu/gpu_cell_group.hpp"
#endif

namespace arbolito {

std::vector<double> axial_u(const FvmData& f) {
    std::vector<double> u(f.g_parent.size());
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = -f.g_parent[i];
    return u;
}

InitialStates initial_states(const FvmData& f, double q10) {
    InitialStates s;
    const int nh = f.hh.size();
    s.hh_m.resize(nh), s.hh_h.resize(nh), s.hh_n.resize(nh);
    for (int k = 0; k < nh; ++k) hh::init(f.v_init[f.hh.cv[k]], q10, s.hh_m[k], s.hh_h[k], s.hh_n[k]);
    for (int k = 0; k < f.exp2syn.size(); ++k) {
        const double t1 = f.exp2syn.params[0][k], t2 = f.exp2syn.params[1][k];
        s.exp2syn_factor.push_back(exp2syn::factor(t1, t2));
        s.exp2syn_tau1.push_back(exp2syn::effective_tau1(t1, t2));
    }
    return s;
}

std::vector<double> natural_order(const FvmData& f, const double* per_cv) {
    std::vector<double> out;
    out.reserve(f.n_real_cv());
    for (int c = 0; c < f.n_cells(); ++c)
        for (int L : f.layout.index[c]) out.push_back(per_cv[L]);
    return out;
}

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
