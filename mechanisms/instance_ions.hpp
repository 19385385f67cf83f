#pragma once
// How the backends hand a mechanism its ions (mechanisms/ion.hpp): each ion slot's per-CV
// arrays, an instance's ion values gathered from them, and one call per mechanism function
// that takes the form with ions or the form without, as M has them. For a mechanism without
// ions the calls are the plain ones: the same code and bits as before ions existed.
#include "mechanisms/ion.hpp"
#include "mechanisms/mechanism.hpp"

namespace arbolito {

// One ion species' per-CV values (host or device pointers, layout numbering).
struct IonArrays {
    double* e = nullptr;   // mV
    double* xi = nullptr;  // mM
    double* xo = nullptr;  // mM
    double* i = nullptr;   // mA/cm², summed over the step's currents phase
};

// Mechanism M's ion slots' arrays (in the order of M::ions), and per CV 1e-2·area (µm²), by
// which a point instance's ion current (nA) becomes a density.
template <class M>
struct MechIons {
    IonArrays slot[n_ions<M> > 0 ? n_ions<M> : 1];
    const double* cv_weight = nullptr;
};

// The ion values (ion_slot_size per slot) of the instance at CV cv. T: double.
template <class M>
ARB_HD void gather_ions(const MechIons<M>& a, int cv, double* ion) {
    for (int j = 0; j < n_ions<M>; ++j) {
        ion[ion_slot_size * j + ion_e] = a.slot[j].e[cv];
        ion[ion_slot_size * j + ion_xi] = a.slot[j].xi[cv];
        ion[ion_slot_size * j + ion_xo] = a.slot[j].xo[cv];
        ion[ion_slot_size * j + ion_i] = a.slot[j].i[cv];
    }
}

// The instance's current carried by each ion it writes, added to the ion's current on its
// CV: a density's as it is, a point's (nA) divided by the CV's 1e-2·area.
template <class M>
ARB_HD void add_ion_currents(const MechIons<M>& a, int cv, const double* ion_i) {
    for (int j = 0; j < n_ions<M>; ++j)
        if (M::ions[j].flags & ion_write_i)
            a.slot[j].i[cv] += M::kind == MechKind::density ? ion_i[j] : ion_i[j] / a.cv_weight[cv];
}

// The concentrations the instance writes (M::ion_state), from its states s to its CV.
template <class M, class T>
ARB_HD void write_ion_concentrations(const MechIons<M>& a, int cv, const T* s) {
    for (int j = 0; j < n_ions<M>; ++j) {
        const int q = ion_state_of<M>(j);
        if (q < 0) continue;
        if (M::ions[j].flags & ion_write_xi) a.slot[j].xi[cv] = s[q];
        if (M::ions[j].flags & ion_write_xo) a.slot[j].xo[cv] = s[q];
    }
}

// M's init, current and advance in the form M has; `ion` (the instance's ion values) and
// ion_i (its ion currents) are unused without ions.
template <class M, class G>
ARB_HD void mech_init(double v, const G& gl, const double* p, double* s, const double* ion) {
    if constexpr (n_ions<M> > 0)
        M::init(v, gl, p, s, ion);
    else
        M::init(v, gl, p, s);
}

template <class M, class T, class G>
ARB_HD void mech_current(T v, double t_mid, const G& gl, const T* p, const T* s, const T* c, const T* ion, T& i, T& g,
                         T* ion_i) {
    if constexpr (n_ions<M> > 0)
        M::current(v, t_mid, gl, p, s, c, ion, i, g, ion_i);
    else
        M::current(v, t_mid, gl, p, s, c, i, g);
}

template <class M, class T, class G>
ARB_HD void mech_advance(T v, double dt, const G& gl, const T* p, T* s, const T* c, const T* ion) {
    if constexpr (n_ions<M> > 0)
        M::advance(v, dt, gl, p, s, c, ion);
    else
        M::advance(v, dt, gl, p, s, c);
}

// A mechanism with ions has no step constants or separately advanced states: its advance
// reads the ions, which those forms do not pass.
template <class M>
constexpr bool ion_form_ok = n_ions<M> == 0 || (n_step_derived<M> == 0 && M::independent_states == 1);

}  // namespace arbolito
