#include "engine/cell_group.hpp"

#include "mechanisms/exp2syn.hpp"
#include "mechanisms/hh.hpp"

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

}  // namespace arbolito
