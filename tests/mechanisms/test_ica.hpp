#pragma once
// Test mechanism: a calcium channel with one gate, its reversal potential read from the ca
// ion (Nernst where a mechanism writes cai) and its current written to it
// (tests/data/ions/test_ica.mod is the same in NMODL).
#include "core/math.hpp"
#include "mechanisms/ion.hpp"
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct test_ica : MechanismDefaults {
    static constexpr const char* name = "test_ica";
    static constexpr MechKind kind = MechKind::density;
    static constexpr std::array params{Quantity{"gbar", "S/cm2", 1e-3, 0.0}, Quantity{"mtau", "ms", 1.5, 0.0}};
    enum Param { gbar, mtau };
    static constexpr std::array states{Quantity{"m", "1"}};
    enum State { m };
    static constexpr std::array ions{IonUse{"ca", 2, ion_read_e | ion_write_i}};
    static constexpr std::array ion_state{-1};
    enum Ion { ca };

    template <class T>
    ARB_HD static T minf(T v) { return 1.0 / (1.0 + math::exp(-(v + 30.0) / 6.0)); }

    template <class G>
    ARB_HD static void init(double v, const G&, const double*, double* s, const double*) { s[m] = minf(v); }

    template <class T, class G>
    ARB_HD static void current(T v, double, const G&, const T* p, const T* s, const T*, const T* ion, T& i, T& g,
                               T* ion_i) {
        g = p[gbar] * s[m] * s[m];
        i = g * (v - ion[ion_slot_size * ca + ion_e]);
        ion_i[ca] = i;
    }

    // cnexp: exact relaxation to minf(v) over dt.
    template <class T, class G>
    ARB_HD static void advance(T v, double dt, const G&, const T* p, T* s, const T*, const T*) {
        const T inf = minf(v);
        s[m] = inf + (s[m] - inf) * math::exp(-dt / p[mtau]);
    }
};

}  // namespace arbolito
