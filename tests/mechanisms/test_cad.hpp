#pragma once
// Test mechanism: a calcium shell with a pump, in the form of the Allen models'
// CaDynamics.mod: cai' = -10000·ica·gamma/(2·F·depth) − (cai − minCai)/decay, with cai a
// state written to the ca ion (tests/data/ions/test_cad.mod is the same in NMODL).
#include "core/math.hpp"
#include "mechanisms/ion.hpp"
#include "mechanisms/mechanism.hpp"

namespace arbolito {

struct test_cad : MechanismDefaults {
    static constexpr const char* name = "test_cad";
    static constexpr MechKind kind = MechKind::density;
    static constexpr std::array params{Quantity{"gamma", "1", 0.05, 0.0}, Quantity{"decay", "ms", 80.0, 0.0},
                                       Quantity{"depth", "um", 0.1, 0.0}, Quantity{"minCai", "mM", 1e-4, 0.0}};
    enum Param { gamma, decay, depth, minCai };
    static constexpr std::array states{Quantity{"cai", "mM"}};
    enum State { cai };
    static constexpr std::array ions{IonUse{"ca", 2, ion_read_i | ion_write_xi}};
    static constexpr std::array ion_state{static_cast<int>(cai)};
    enum Ion { ca };

    template <class G>
    ARB_HD static void init(double, const G&, const double* p, double* s, const double*) { s[cai] = p[minCai]; }

    template <class T, class G>
    ARB_HD static void current(T, double, const G&, const T*, const T*, const T*, const T*, T& i, T& g, T*) {
        i = 0.0;
        g = 0.0;
    }

    // cnexp: the linear equation's exact solution over dt, ica held.
    template <class T, class G>
    ARB_HD static void advance(T, double dt, const G&, const T* p, T* s, const T*, const T* ion) {
        const T inflow = -10000.0 * (ion[ion_slot_size * ca + ion_i] * p[gamma] / (2.0 * faraday * p[depth]));
        const T inf = p[minCai] + inflow * p[decay];
        s[cai] = inf + (s[cai] - inf) * math::exp(-dt / p[decay]);
    }
};

}  // namespace arbolito
