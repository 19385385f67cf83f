#pragma once
// One instance's contribution to the matrix, written once for every backend's loops:
// a density instance adds its area-scaled current to its CV's d and rhs; a point
// instance's terms are returned so that the GPU can sum those sharing a CV first.
#include "core/strided_batches.hpp"
#include "mechanisms/assemble.hpp"
#include "mechanisms/instance.hpp"
#include "mechanisms/instance_ions.hpp"

namespace arbolito {

// What an instance of M with current i_m and conductance g_m at voltage v adds to d (dd)
// and rhs (dr): a density current scaled by the instance's weight w (1e-2 · area), a
// synapse's linearised current as it is, a stimulus's injected current to the rhs
// alone (dd = 0). T: double, or Lanes<W> for W instances on the CPU.
template <class M, class T>
ARB_HD void instance_terms(T i_m, T g_m, T w, T v, T& dd, T& dr) {
    if constexpr (M::kind == MechKind::density) {
        current_terms<T>(w * i_m, w * g_m, v, dd, dr);
    } else if constexpr (M::kind == MechKind::synapse) {
        current_terms<T>(i_m, g_m, v, dd, dr);
    } else {
        dd = 0.0;
        dr = i_m;
    }
}

// An instance of M, a mechanism with constant terms (parameter j: param(j); weight w),
// folded into its CV's d_base and rhs_base once (constant_current, fold_constant_terms):
// the host's fold_constant_currents and the device's fold_constant_terms_kernel alike.
template <class M, class Param>
ARB_HD void fold_constant_instance(Param param, double w, double& d_base, double& rhs_base) {
    double p[n_params<M>];
    for (int j = 0; j < n_params<M>; ++j) p[j] = param(j);
    double g, e;
    M::constant_current(p, g, e);
    fold_constant_terms(w, g, e, d_base, rhs_base);
}

// What instance `in` of M adds to d (dd) and rhs (dr) at voltage v (w: a density
// instance's weight, else 1). With ions: ion, its ion values (gather_ions), and ion_i, where
// its ion currents go (mechanisms/instance_ions.hpp); unused without.
template <class M, class G>
ARB_HD void instance_terms_at(const Instance<M>& in, double w, double v, double t_mid, const G& gl, double& dd,
                              double& dr, const double* ion = nullptr, double* ion_i = nullptr) {
    double i_m, g_m;
    mech_current<M>(v, t_mid, gl, in.p.v, in.s.v, in.c.v, ion, i_m, g_m, ion_i);
    instance_terms<M>(i_m, g_m, w, v, dd, dr);
}

// Density instance k of M with ions (as below), in two halves: its terms, x[0] to d, x[1]
// to rhs and x[2 + j] its current of ion slot j; then their sums into d, rhs and the ions'
// currents. Between the two nothing of the instance's reads changes where its ion
// currents are not among what it reads (the resident step computes the terms of several
// mechanisms side by side and adds them in list order).
template <class M, class G>
ARB_HD void density_terms_with_ions(const MechColumns& m, int k, int c, const MechIons<M>& ions, const G& gl,
                                    double t_mid, const double* v, double* x) {
    const Instance<M> in(m, k);
    double ion[ion_slot_size * n_ions<M>];
    double* ion_i = x + 2;
    for (int j = 0; j < n_ions<M>; ++j) ion_i[j] = 0.0;
    gather_ions<M>(ions, c, ion);
    instance_terms_at<M>(in, m.weight[k], v[c], t_mid, gl, x[0], x[1], ion, ion_i);
}
template <class M>
ARB_HD void add_density_terms_with_ions(int c, const MechIons<M>& ions, const double* x, double* d, double* rhs) {
    d[c] += x[0];
    rhs[c] += x[1];
    add_ion_currents<M>(ions, c, x + 2);
}

// Density instance k of M with ions at index c of v, d, rhs and the ions' arrays (the
// group's CV, or the CV less a resident block's first): its terms to d and rhs, its ion
// currents to its ions' (add_ion_currents). The streaming kernel and the resident block
// step both call it: the same bits.
template <class M, class G>
ARB_HD void add_density_current_with_ions(const MechColumns& m, int k, int c, const MechIons<M>& ions, const G& gl,
                                          double t_mid, const double* v, double* d, double* rhs) {
    double x[2 + n_ions<M>];
    density_terms_with_ions<M>(m, k, c, ions, gl, t_mid, v, x);
    add_density_terms_with_ions<M>(c, ions, x, d, rhs);
}

// Instance k of M with ions advances at v[c] (c as above), then its written
// concentrations go to index c of its ions' arrays at once (NEURON writes them at the end
// of the mechanism's own state update: a later mechanism reads them).
template <class M, class G>
ARB_HD void advance_with_ions(const MechColumns& m, int k, int c, const MechIons<M>& ions, const G& gl, double dt,
                              const double* v) {
    Instance<M> in(m, k);
    double ion[ion_slot_size * n_ions<M>];
    gather_ions<M>(ions, c, ion);
    mech_advance<M>(v[c], dt, gl, in.p.v, in.s.v, in.c.v, ion);
    in.store_states(m, k);
    write_ion_concentrations<M>(ions, c, in.s.v);
}

// The ion slots of M whose current it writes (ion_write_i), and slot j's place among them.
template <class M>
constexpr int n_written_ion_currents() {
    int n = 0;
    for (int j = 0; j < n_ions<M>; ++j) n += (M::ions[j].flags & ion_write_i) != 0;
    return n;
}
template <class M>
constexpr int written_ion_current_index(int j) {
    int w = 0;
    for (int q = 0; q < j; ++q) w += (M::ions[q].flags & ion_write_i) != 0;
    return w;
}

// Point instance k of M with ions at voltage v, index c of its ions' arrays (as
// add_density_current_with_ions): x[0] and x[1] what it adds to d and rhs, x[2 + w] the
// current density of its w-th written ion current (its nA over the CV's 1e-2·area, as
// add_ion_currents). The GPU sums these over the instances sharing a CV (point_sums).
template <class M, class G>
ARB_HD void point_terms_with_ions(const MechColumns& m, int k, int c, const MechIons<M>& ions, double v, double t_mid,
                                  const G& gl, double* x) {
    const Instance<M> in(m, k);
    double ion[ion_slot_size * n_ions<M>], ion_i[n_ions<M>] = {};
    gather_ions<M>(ions, c, ion);
    instance_terms_at<M>(in, 1.0, v, t_mid, gl, x[0], x[1], ion, ion_i);
    for_each_ion_slot<M>([&](auto slot) {
        constexpr int j = decltype(slot)::value;
        if constexpr ((M::ions[j].flags & ion_write_i) != 0)
            x[2 + written_ion_current_index<M>(j)] = ion_i[j] / ions.cv_weight[c];
    });
}

// Density instance k of M at voltage v: adds to d and rhs of its CV.
template <class M, class G>
ARB_HD void add_density_current(const MechColumns& m, int k, double v, double t_mid, const G& gl, double& d,
                                double& rhs) {
    const Instance<M> in(m, k);
    double dd, dr;
    instance_terms_at<M>(in, m.weight[k], v, t_mid, gl, dd, dr);
    d += dd;
    rhs += dr;
}

// Instances of density mechanism M a thread loads before their arithmetic in a block's
// loop (add_density_currents): 4 where an instance has few columns, else 1 (registers).
template <class M>
constexpr int density_batch = n_params<M> + n_states<M> + n_derived<M> <= 4 ? 4 : 1;

// Thread t of nt adds the currents of density instances t, t + nt, ... < n of M to d and
// rhs (D, R, V indexed by CV less `first`), B (by default density_batch<M>) instances'
// loads at a time (for_strided_in_batches): the same sums as add_density_current one by one, since no
// two instances of a density mechanism share a CV.
template <class M, int B = density_batch<M>, class G>
ARB_HD void add_density_currents(int t, int nt, const MechColumns& m, int n, int first, const G& gl, double t_mid,
                                 const double* V, double* D, double* R) {
    struct In {
        Instance<M> in;
        double w, v;
        int c;
    };
    for_strided_in_batches<B>(
        t, nt, n,
        [&](int k) {
            In x;
            x.in = Instance<M>(m, k);
            x.c = m.cv[k] - first;
            x.w = m.weight[k];
            x.v = V[x.c];
            return x;
        },
        [&](int, const In& x) {
            double dd, dr;
            instance_terms_at<M>(x.in, x.w, x.v, t_mid, gl, dd, dr);
            D[x.c] += dd;
            R[x.c] += dr;
        });
}

// Point instance k of M at voltage v: what it adds to d (dd) and rhs (dr).
template <class M, class G>
ARB_HD void point_terms(const MechColumns& m, int k, double v, double t_mid, const G& gl, double& dd, double& dr) {
    instance_terms_at<M>(Instance<M>(m, k), 1.0, v, t_mid, gl, dd, dr);
}

}  // namespace arbolito
