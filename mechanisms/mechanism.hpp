#pragma once
// The description format every mechanism follows (docs/mechanisms.md): a struct with its
// name, kind, parameters, states and per-instance constants, and static ARB_HD functions
// that act on one instance. The engine loops over all_mechanisms (all.hpp) and calls them
// on both backends, so a mechanism is one header plus one line in that list.
#include <array>
#include <limits>

#include "core/hd.hpp"
#include "mechanisms/ion.hpp"

namespace arbolito {

enum class MechKind {
    density,   // painted on regions; current density (mA/cm²) and conductance (S/cm²), scaled by CV area
    synapse,   // placed; a synapse target: current (nA) and conductance (µS), events through on_event
    stimulus,  // placed; an injected current (nA, depolarising when > 0), added to the rhs only
};

// A parameter, state or per-instance constant: name, unit, default (parameters only) and
// the least value a model file may give (parameters only).
struct Quantity {
    const char* name;
    const char* unit;
    double default_value = 0.0;
    double min = -std::numeric_limits<double>::infinity();
};

// What a mechanism without states, constants or temperature dependence inherits; a
// mechanism hides what it needs (a static member of the same name).
struct MechanismDefaults {
    static constexpr std::array<Quantity, 0> states{};
    static constexpr std::array<Quantity, 0> derived{};  // per-instance constants from the parameters
    // Per-instance constants from the parameters, the constants and dt (exact decay
    // factors): a backend whose dt is fixed may compute them once with derive_step and
    // advance with advance_stepped (step_advance below), instead of an exp per step.
    static constexpr std::array<Quantity, 0> step_derived{};
    // Ion species used (mechanisms/ion.hpp): none. A mechanism with ions declares them and
    // ion_state, and has the forms of init, current and advance with the ion values.
    static constexpr std::array<IonUse, 0> ions{};
    static constexpr std::array<int, 0> ion_state{};
    // Another name of the whole current where the mechanism has one (a sole
    // NONSPECIFIC_CURRENT and no ion current: Ih's ihcn); probes take it for "i".
    static constexpr const char* nonspecific_current = nullptr;
    // A synapse whose states start at 0 and whose advance, current and on_event are linear
    // in them (expsyn, exp2syn): instances with the same parameters on one CV then act as
    // one instance holding their summed states, and a model may coalesce them
    // (CvPolicy::coalesce_synapses).
    static constexpr bool linear = false;
    // A density mechanism without ions or states whose current is g·(v − e), g and e from
    // its parameters (constant_current): what it adds to a CV's d and rhs is the same every
    // step, w·g and w·g·e (the implicit step of a linear current, exactly), so
    // fold_constant_currents adds it to the assembly's constant terms once and no backend
    // computes its current per step (probes still do).
    static constexpr bool constant_terms = false;

    // Constants of a whole cell group (e.g. a temperature factor), computed on the host.
    struct Globals {};
    static Globals globals(double /*celsius*/) { return {}; }

    // p: the instance's parameters, s: its states, c: its constants, in the order of the
    // description's arrays. States start at 0; init may set them at rest at voltage v.
    static void derive(const double* /*p*/, double* /*c*/) {}
    template <class G>
    ARB_HD static void init(double /*v*/, const G&, const double* /*p*/, double* /*s*/) {}
    // States after the solve, at the new voltage v. current and advance are templates over
    // the value type T: double (one instance, both backends) or Lanes<W> (W instances side
    // by side, the CPU backend; core/lanes.hpp), so they use + - * / and core/math.hpp's
    // math::exp, math::fabs and math::select.
    template <class T, class G>
    ARB_HD static void advance(T /*v*/, double /*dt*/, const G&, const T* /*p*/, T* /*s*/, const T* /*c*/) {}
    // With step_derived: k = its constants for dt, and the states' advance given them
    // (advance must be step_advance<M>: the same bits either way).
    template <class T>
    ARB_HD static void derive_step(double /*dt*/, const T* /*p*/, const T* /*c*/, T* /*k*/) {}
    template <class T, class G>
    ARB_HD static void advance_stepped(T /*v*/, const G&, const T* /*p*/, T* /*s*/, const T* /*c*/, const T* /*k*/) {}
    // States that advance independently of each other (hh's gates): a backend may advance
    // state j alone, on a thread of its own, with advance_state(j, ...), which computes for
    // it exactly what advance does. 1: advance only.
    static constexpr int independent_states = 1;
    // Whether advance reads v. A point mechanism whose states advance without it (a
    // synapse's decay) may advance while the solve still runs (the resident step does so
    // beside the junctions' tree); the same arithmetic on the same states.
    static constexpr bool advance_reads_v = true;
    // An event of weight w (µS) on a synapse.
    ARB_HD static void on_event(double /*w*/, const double* /*p*/, double* /*s*/, const double* /*c*/) {}
};

template <class M> constexpr int n_params = static_cast<int>(std::tuple_size<decltype(M::params)>::value);
template <class M> constexpr int n_states = static_cast<int>(std::tuple_size<decltype(M::states)>::value);
template <class M> constexpr int n_derived = static_cast<int>(std::tuple_size<decltype(M::derived)>::value);
template <class M> constexpr int n_step_derived = static_cast<int>(std::tuple_size<decltype(M::step_derived)>::value);

// One instance's values on the stack (at least one slot: C++ has no empty arrays); T:
// Lanes<W> for W instances.
template <int N, class T = double>
struct Values {
    T v[N > 0 ? N : 1];
    ARB_HD T* data() { return v; }
    ARB_HD const T* data() const { return v; }
    ARB_HD T& operator[](int i) { return v[i]; }
};

// advance of a mechanism with step_derived constants: derive_step for dt, then
// advance_stepped, so that a backend holding the constants computes the same bits.
template <class M, class T, class G>
ARB_HD void step_advance(T v, double dt, const G& gl, const T* p, T* s, const T* c) {
    Values<n_step_derived<M>, T> k;
    M::derive_step(dt, p, c, k.data());
    M::advance_stepped(v, gl, p, s, c, k.data());
}

}  // namespace arbolito
