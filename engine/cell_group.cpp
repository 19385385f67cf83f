#include "engine/cell_group.hpp"

#include <stdexcept>

#include "engine/cpu/cpu_cell_group.hpp"
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

MechStates initial_states(const FvmData& f, const all_mechanisms::Globals& globals) {
    MechStates out;
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        constexpr int x = mech_index<M>;
        const MechInstances& mi = f.mechs[x];
        const int n = mi.size();
        MechState& st = out[x];
        st.states.assign(static_cast<std::size_t>(n_states<M>) * n, 0.0);
        st.derived.assign(static_cast<std::size_t>(n_derived<M>) * n, 0.0);
        for (int k = 0; k < n; ++k) {
            Values<n_params<M>> p;
            Values<n_states<M>> s{};
            Values<n_derived<M>> c{};
            for (int j = 0; j < n_params<M>; ++j) p[j] = mi.param(j, k);
            M::derive(p.data(), c.data());
            M::init(f.v_init[mi.cv[k]], std::get<x>(globals), p.data(), s.data());
            for (int j = 0; j < n_states<M>; ++j) st.states[static_cast<std::size_t>(j) * n + k] = s[j];
            for (int j = 0; j < n_derived<M>; ++j) st.derived[static_cast<std::size_t>(j) * n + k] = c[j];
        }
    });
    return out;
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
