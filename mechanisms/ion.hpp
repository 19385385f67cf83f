#pragma once
// Ions as NEURON's USEION declares them (docs/mechanisms.md, "Ions"): which ion species a
// mechanism reads and writes, the species' defaults, the Nernst potential, and how a
// backend tells a mechanism with ions from one without (the two forms of init, current
// and advance).
#include <array>
#include <cmath>
#include <type_traits>

#include "core/hd.hpp"
#include "core/math.hpp"

namespace arbolito {

// What a mechanism does with one ion species (NMODL's READ and WRITE of e, Xi, Xo, iX).
enum IonFlag : unsigned {
    ion_read_e = 1u << 0,
    ion_read_xi = 1u << 1,
    ion_read_xo = 1u << 2,
    ion_read_i = 1u << 3,
    ion_write_i = 1u << 4,
    ion_write_xi = 1u << 5,
    ion_write_xo = 1u << 6,
};

struct IonUse {
    const char* name;  // "na", "k", "ca", or any species a .mod declares
    int valence;
    unsigned flags;    // IonFlag
};

// Per instance a backend hands the mechanism 4 values per ion slot j (the order of M::ions).
enum IonSlot { ion_e = 0, ion_xi = 1, ion_xo = 2, ion_i = 3, ion_slot_size = 4 };

// Number of ion species mechanism M uses (0: the mechanism has the forms without ions).
template <class M> constexpr int n_ions = static_cast<int>(std::tuple_size<decltype(M::ions)>::value);

// A written concentration is one of M's states (NMODL's STATE { cai }): M::ion_state[j]
// is the state copied to ion j's Xi (ion_write_xi) or Xo (ion_write_xo) after init and
// after every advance, -1 where the mechanism writes no concentration of ion j.
template <class M>
constexpr int ion_state_of(int j) {
    if constexpr (n_ions<M> > 0) return M::ion_state[j];
    return -1;
}

// The defaults of a species (NEURON 8.2's na_ion, k_ion, ca_ion: nai0_na_ion, nao0_na_ion,
// ena's default, ...; checked by tests/neuron/check_ion_defaults.py). A species none of
// these is: valence from the mechanism, Xi = Xo = 1 mM, e = 0 mV.
struct IonDefaults {
    int valence;
    double xi, xo, e;  // mM, mM, mV
};
inline IonDefaults ion_defaults(const char* name, int valence) {
    const auto is = [&](const char* s) {
        int k = 0;
        for (; s[k] && name[k] == s[k]; ++k) {}
        return s[k] == 0 && name[k] == 0;
    };
    if (is("na")) return {1, 10.0, 140.0, 50.0};
    if (is("k")) return {1, 54.4, 2.5, -77.0};
    if (is("ca")) return {2, 5e-5, 2.0, 132.4579341637009};  // e: 12.5·ln(2/5e-5), NEURON's eca
    return {valence, 1.0, 1.0, 0.0};
}

// NEURON 8.2's physical constants (CODATA 2018, as h.FARADAY and h.R print them, and the
// value NMODL's (faraday) takes): e·N_A and k·N_A.
constexpr double faraday = 96485.3321233100184;     // C/mol
constexpr double gas_constant = 8.31446261815324;   // J/(K mol)

// Nernst potential (mV) of an ion of valence z at concentrations xi, xo (mM) and celsius,
// as NEURON's nrn_nernst: 1000·R·(celsius + 273.15)/F / z · ln(xo/xi); 0 where z = 0, and
// where a concentration is not positive the value NEURON gives (±1e6 mV).
ARB_HD double nernst(double xi, double xo, int z, double celsius) {
    if (z == 0) return 0.0;
    if (xi <= 0.0) return 1e6;
    if (xo <= 0.0) return -1e6;
    return (1000.0 * gas_constant * (celsius + 273.15) / faraday) / z * math::log(xo / xi);
}

}  // namespace arbolito
