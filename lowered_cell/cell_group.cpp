#include "lowered_cell/cell_group.hpp"

#include <algorithm>
#include <cmath>

#include "mechanisms/assemble.hpp"

namespace arbolito {

StepSettings step_settings(const RunSettings& r, bool record_samples) {
    StepSettings s;
    s.dt = r.dt;
    s.celsius = r.celsius;
    s.rules = r.rules;
    s.steps_per_sample = std::max(1L, std::lround(r.sample_dt / r.dt));
    s.n_frames = record_samples ? std::lround(r.tfinal / r.sample_dt) : 0;
    return s;
}

long run_steps(const RunSettings& r) { return std::lround(r.tfinal / r.dt); }

AssemblyTerms take_assembly_terms(FvmData& f, double dt) {
    AssemblyTerms t{std::move(f.g_sum), std::move(f.cap)};
    f.g_sum.clear();
    f.cap.clear();
    for (std::size_t i = 0; i < t.d_base.size(); ++i)
        assemble_base(t.cap_dt[i], t.d_base[i], dt, 1.0, t.d_base[i], t.cap_dt[i]);  // by value, then written
    for (int x : f.layout.padding) t.d_base[x] = 1.0, t.cap_dt[x] = 0.0;
    return t;
}

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

BlownUpCv first_blown_up(const FvmData& f) {
    for (int i = 0; i < f.n_cv(); ++i)
        if (blown_up(f.v_init[i])) return {i, f.v_init[i]};
    return {};
}

std::size_t state_size(const FvmData& f) {
    std::size_t n = static_cast<std::size_t>(f.n_cv());
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        n += static_cast<std::size_t>(n_states<M>) * f.mechs[mech_index<M>].size();
    });
    return n;
}

std::vector<double> natural_order(const FvmData& f, const double* per_cv) {
    std::vector<double> out;
    out.reserve(f.n_real_cv());
    for (int c = 0; c < f.n_cells(); ++c)
        for (int L : f.layout.index[c]) out.push_back(per_cv[L]);
    return out;
}

}  // namespace arbolito
