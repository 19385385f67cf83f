#include "lowered_cell/cell_group.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mechanisms/assemble.hpp"
#include "mechanisms/instance_currents.hpp"
#include "mechanisms/probed_current.hpp"

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

std::vector<double> fold_constant_currents(const FvmData& f, std::vector<double>& d_base) {
    std::vector<double> rhs_base(d_base.size(), 0.0);
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        if constexpr (M::constant_terms) {
            const MechInstances& m = f.mechs[mech_index<M>];
            for (int k = 0; k < m.size(); ++k)
                fold_constant_instance<M>([&](int j) { return m.param(j, k); }, m.weight[k], d_base[m.cv[k]],
                                          rhs_base[m.cv[k]]);
        }
    });
    return rhs_base;
}

std::vector<double> axial_u(const FvmData& f) {
    std::vector<double> u(f.g_parent.size());
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = -f.g_parent[i];
    return u;
}

IonStates initial_ions(const FvmData& f) {
    IonStates out;
    for (const IonSpecies& sp : f.ions) out.push_back({sp.e, sp.xi, sp.xo, std::vector<double>(sp.e.size(), 0.0)});
    return out;
}

MechStates initial_states(const FvmData& f, const all_mechanisms::Globals& globals) {
    if (!f.ions.empty()) throw std::logic_error("initial_states: the group has ions; pass their states");
    IonStates none;
    return initial_states(f, globals, none);
}

std::array<std::vector<double>, n_mechanisms> step_constants(const FvmData& f, const MechStates& st, double dt) {
    std::array<std::vector<double>, n_mechanisms> out;
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        constexpr int x = mech_index<M>;
        if constexpr (n_step_derived<M> > 0) {
            const int n = f.mechs[x].size();
            const MechColumns m = host_columns(f, const_cast<MechStates&>(st), x);  // read only
            out[x].resize(static_cast<std::size_t>(n_step_derived<M>) * n);
            for (int k = 0; k < n; ++k) {
                const Instance<M> in(m, k);
                Values<n_step_derived<M>> c;
                M::derive_step(dt, in.p.v, in.c.v, c.v);
                for (int j = 0; j < n_step_derived<M>; ++j) out[x][static_cast<std::size_t>(j) * n + k] = c[j];
            }
        }
    });
    return out;
}

namespace {
// Instance k's states, out of its mechanism's columns (n instances).
template <class M, class S>
Values<n_states<M>> instance_states(const S& mech, int n, int k) {
    Values<n_states<M>> s;
    for (int j = 0; j < n_states<M>; ++j) s[j] = mech.states[static_cast<std::size_t>(j) * n + k];
    return s;
}
}  // namespace

void write_all_ion_concentrations(const FvmData& f, const MechStates& mech, IonStates& ions) {
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        if constexpr (n_ions<M> > 0) {
            constexpr int x = mech_index<M>;
            const MechInstances& mi = f.mechs[x];
            const int n = mi.size();
            if (n == 0) return;
            const MechIons<M> a = mech_ions<M>(f, ions);
            for (int k = 0; k < n; ++k) {
                const Values<n_states<M>> s = instance_states<M>(mech[x], n, k);
                write_ion_concentrations<M>(a, mi.cv[k], s.data());
            }
        }
    });
}

void nernst_where_written(const FvmData& f, IonStates& ions, double celsius) {
    for (std::size_t s = 0; s < ions.size(); ++s)
        for (int cv : f.ions[s].nernst_cv)
            ions[s].e[cv] = nernst(ions[s].xi[cv], ions[s].xo[cv], f.ions[s].valence, celsius);
}

void initial_ion_currents(const FvmData& f, const all_mechanisms::Globals& globals, const MechStates& mech,
                          IonStates& ions) {
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        if constexpr (n_ions<M> > 0) {
            constexpr int x = mech_index<M>;
            const MechInstances& mi = f.mechs[x];
            const int n = mi.size();
            const MechIons<M> a = mech_ions<M>(f, ions);
            for (int k = 0; k < n; ++k) {
                Values<n_params<M>> p;
                const Values<n_states<M>> s = instance_states<M>(mech[x], n, k);
                Values<n_derived<M>> c;
                for (int j = 0; j < n_params<M>; ++j) p[j] = mi.param(j, k);
                for (int j = 0; j < n_derived<M>; ++j) c[j] = mech[x].derived[static_cast<std::size_t>(j) * n + k];
                double ion[ion_slot_size * n_ions<M>], ion_i[n_ions<M>] = {}, i, g;
                gather_ions<M>(a, mi.cv[k], ion);
                M::current(f.v_init[mi.cv[k]], 0.0, std::get<x>(globals), p.data(), s.data(), c.data(), ion, i, g, ion_i);
                add_ion_currents<M>(a, mi.cv[k], ion_i);
            }
        }
    });
}

bool probes_current(const FvmData& f, std::size_t p) {
    return p < f.probe_source.size() && f.probe_source[p].kind == ProbeVariable::mech_current;
}

double probed_current_at(const FvmData& f, const all_mechanisms::Globals& globals, MechStates& mech,
                         IonStates& ions, const double* v, double t_mid, std::size_t p) {
    const FvmData::ProbeSource& src = f.probe_source[p];
    double out = 0.0;
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        constexpr int x = mech_index<M>;
        if constexpr (M::kind == MechKind::density) {
            if (src.index != x) return;
            const MechColumns m = host_columns(f, mech, x);
            const int cv = m.cv[src.instance];
            MechIons<M> a;
            if constexpr (n_ions<M> > 0) a = mech_ions<M>(f, ions);
            out = probed_current<M>(m, src.instance, cv, a, std::get<x>(globals), v[cv], t_mid, src.state);
        }
    });
    return out;
}

std::vector<const double*> probe_pointers(const FvmData& f, const double* v, const MechStates& mech,
                                          const IonStates& ions, const double* currents) {
    std::vector<const double*> out;
    for (std::size_t p = 0; p < f.probe_source.size(); ++p) {
        const FvmData::ProbeSource& src = f.probe_source[p];
        const int cv = f.probe_cv[p];
        switch (src.kind) {
            case ProbeVariable::v: out.push_back(v + cv); break;
            case ProbeVariable::mech_state:
                out.push_back(mech[src.index].states.data() +
                              static_cast<std::size_t>(src.state) * f.mechs[src.index].size() + src.instance);
                break;
            case ProbeVariable::ion_e: out.push_back(ions[src.index].e.data() + cv); break;
            case ProbeVariable::ion_xi: out.push_back(ions[src.index].xi.data() + cv); break;
            case ProbeVariable::ion_xo: out.push_back(ions[src.index].xo.data() + cv); break;
            case ProbeVariable::ion_i: out.push_back(ions[src.index].i.data() + cv); break;
            case ProbeVariable::mech_current: out.push_back(currents + p); break;
        }
    }
    return out;
}

MechStates initial_states(const FvmData& f, const all_mechanisms::Globals& globals, IonStates& ions) {
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
            Values<ion_slot_size * n_ions<M>> ion{};
            if constexpr (n_ions<M> > 0) gather_ions<M>(mech_ions<M>(f, ions), mi.cv[k], ion.data());
            mech_init<M>(f.v_init[mi.cv[k]], std::get<x>(globals), p.data(), s.data(), ion.data());
            if constexpr (n_ions<M> > 0) write_ion_concentrations<M>(mech_ions<M>(f, ions), mi.cv[k], s.data());
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
