#pragma once
// Test mechanism: a calcium-permeable synapse, a point mechanism with an ion. An event of
// weight w (µS) adds w to g, which decays with time constant tau; its current (nA) is
// carried by ca, at ca's reversal potential (e by Nernst where test_cad writes cai). The
// backends add its ion current over the CV's area to ca's current density; instances may
// share a CV (the GPU sums them per CV: GpuIons.PointMechanismWithIonsMatchesCpu).
#include "core/math.hpp"
#include "mechanisms/ion.hpp"
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct test_casyn : MechanismDefaults {
    static constexpr const char* name = "test_casyn";
    static constexpr MechKind kind = MechKind::synapse;
    static constexpr std::array params{Quantity{"tau", "ms", 2.0, 0.0}};
    enum Param { tau };
    static constexpr std::array states{Quantity{"g", "uS"}};
    enum State { g };
    static constexpr std::array ions{IonUse{"ca", 2, ion_read_e | ion_write_i}};
    static constexpr std::array ion_state{-1};
    enum Ion { ca };

    ARB_HD static void on_event(double w, const double*, double* s, const double*) { s[g] += w; }

    template <class G>
    ARB_HD static void init(double, const G&, const double*, double* s, const double*) { s[g] = 0.0; }

    template <class T, class G>
    ARB_HD static void current(T v, double, const G&, const T*, const T* s, const T*, const T* ion, T& i, T& gout,
                               T* ion_i) {
        gout = s[g];
        i = s[g] * (v - ion[ion_slot_size * ca + ion_e]);  // nA
        ion_i[ca] = i;
    }

    // The exact decay over dt.
    template <class T, class G>
    ARB_HD static void advance(T, double dt, const G&, const T* p, T* s, const T*, const T*) {
        s[g] = s[g] * math::exp(-dt / p[tau]);
    }
};

}  // namespace arbolito
