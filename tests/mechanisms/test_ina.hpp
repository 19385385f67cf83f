#pragma once
// Test mechanism: hh's sodium channel with its reversal potential read from the na ion and
// its current written to it (tests/data/ions/test_ina.mod is the same in NMODL).
#include "mechanisms/hh.hpp"
#include "mechanisms/ion.hpp"
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct test_ina : MechanismDefaults {
    static constexpr const char* name = "test_ina";
    static constexpr MechKind kind = MechKind::density;
    static constexpr std::array params{Quantity{"gnabar", "S/cm2", 0.12, 0.0}};
    enum Param { gnabar };
    static constexpr std::array states{Quantity{"m", "1"}, Quantity{"h", "1"}};
    enum State { m, h };
    static constexpr std::array ions{IonUse{"na", 1, ion_read_e | ion_write_i}};
    static constexpr std::array ion_state{-1};
    enum Ion { na };

    using Globals = hh::Globals;
    static Globals globals(double celsius) { return hh::globals(celsius); }

    ARB_HD static void init(double v, const Globals& g, const double*, double* s, const double*) {
        double tau;
        hh::gate_rates<double>(hh::m, v, g.q10, s[m], tau);
        hh::gate_rates<double>(hh::h, v, g.q10, s[h], tau);
    }

    template <class T>
    ARB_HD static void current(T v, double, const Globals&, const T* p, const T* s, const T*, const T* ion, T& i, T& g,
                               T* ion_i) {
        g = p[gnabar] * s[m] * s[m] * s[m] * s[h];
        i = g * (v - ion[ion_slot_size * na + ion_e]);
        ion_i[na] = i;
    }

    template <class T>
    ARB_HD static void advance(T v, double dt, const Globals& g, const T* p, T* s, const T* c, const T*) {
        hh::advance_state<T>(hh::m, v, dt, g, p, s, c);
        hh::advance_state<T>(hh::h, v, dt, g, p, s, c);
    }
};

}  // namespace arbolito
