// Translated mechanisms against NEURON, step by step: tests/nmodl/neuron_reference.py runs each
// .mod file in NEURON (nrnivmodl) on one voltage-clamped compartment and records, per time
// step, the voltage, the ions' values, the mechanism's states and its current. Here the
// translation's init, current and advance are given NEURON's inputs of each step (its states
// at t_k, v at t_k for the current and at t_{k+1} for the advance, the ions' values) and must
// give NEURON's outputs (the current of step k, the states at t_{k+1}). One step at a time, so
// that a difference is the one step's own and does not accumulate. The same steps in SIMD
// lanes (Lanes<4>, four steps side by side) must give each lane the scalar code's bits.
//
// The directory of NEURON's CSV files is $ARBOLITO_NMODL_REFERENCE (tests/nmodl.cmake sets it
// to the output of the fixture that runs neuron_reference.py); without it the tests skip.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/lanes.hpp"
#include "mechanisms/ion.hpp"
#include "nmodl_vs_neuron_mechanisms.hpp"

namespace arbolito {
namespace {

using Table = std::map<std::string, std::vector<double>>;

// NEURON's CSV: a header of column names, then one row of numbers per step.
bool read_table(const std::string& path, Table& t) {
    std::ifstream in(path);
    if (!in) return false;
    std::string line;
    std::getline(in, line);
    std::vector<std::string> names;
    std::stringstream h(line);
    for (std::string c; std::getline(h, c, ',');) names.push_back(c);
    while (std::getline(in, line)) {
        std::stringstream r(line);
        std::string c;
        for (const auto& n : names) {
            std::getline(r, c, ',');
            t[n].push_back(std::stod(c));
        }
    }
    return !names.empty();
}

// How close the translation must come to NEURON, per quantity: |a - b| <= abs + rel·|b|.
struct Tolerance {
    double rel, abs;
};

bool close(double a, double b, Tolerance t) { return std::fabs(a - b) <= t.abs + t.rel * std::fabs(b); }
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void check_zero(double x) { EXPECT_EQ(x, 0.0) << "an ion's current the mechanism does not write"; }
void check_equal(double a, double b) { EXPECT_TRUE(same_bits(a, b)) << "ion currents " << a << " vs i " << b; }
template <int W>
void check_zero(Lanes<W> x) {
    for (int l = 0; l < W; ++l) check_zero(x[l]);
}
template <int W>
void check_equal(Lanes<W> a, Lanes<W> b) {
    for (int l = 0; l < W; ++l) check_equal(a[l], b[l]);
}

template <class M>
struct Replay {
    static constexpr int ni = n_ions<M>;
    static constexpr int np = n_params<M>, ns = n_states<M>;
    Table t;
    std::vector<double> p;
    typename M::Globals gl;
    std::size_t rows = 0;

    bool load(const char* name, const std::map<std::string, double>& params) {
        const char* dir = std::getenv("ARBOLITO_NMODL_REFERENCE");
        if (!dir || !read_table(std::string(dir) + "/" + name + ".csv", t)) return false;
        rows = t["v"].size();
        for (int j = 0; j < np; ++j) {
            auto it = params.find(M::params[j].name);
            p.push_back(it == params.end() ? M::params[j].default_value : it->second);
        }
        gl = M::globals(34.0);  // neuron_reference.py's celsius
        return true;
    }
    // Ion j's four values at row k, with the ion current of row ki (the step's current phase).
    void ions_at(std::size_t k, std::size_t ki, double* ion) const {
        if constexpr (ni > 0) {
            for (int j = 0; j < ni; ++j) {
                const std::string x = M::ions[j].name;
                ion[4 * j + 0] = t.at(x + "_e")[k];
                ion[4 * j + 1] = t.at(x + "_xi")[k];
                ion[4 * j + 2] = t.at(x + "_xo")[k];
                ion[4 * j + 3] = t.at(x + "_i")[ki];
            }
        }
    }
    double state(int j, std::size_t k) const { return t.at(std::string("s_") + M::states[j].name)[k]; }

    template <class T>
    void current(T v, const T* pp, const T* s, const T* ion, T& i, T& g) const {
        if constexpr (ni > 0) {
            T ion_i[ni > 0 ? ni : 1];
            for (int j = 0; j < ni; ++j) ion_i[j] = T(std::nan(""));  // each slot must be written
            M::template current<T>(v, 0.0, gl, pp, s, nullptr, ion, i, g, ion_i);
            // The mechanisms tested carry all their current by the ions they write: the slots
            // of those ions sum to i, the others are 0.
            T carried = T(0.0);
            for (int j = 0; j < ni; ++j) {
                if (M::ions[j].flags & ion_write_i)
                    carried = carried + ion_i[j];
                else
                    check_zero(ion_i[j]);
            }
            check_equal(carried, i);
        } else {
            M::template current<T>(v, 0.0, gl, pp, s, nullptr, i, g);
        }
    }
    template <class T>
    void advance(T v, double dt, const T* pp, T* s, const T* ion) const {
        if constexpr (ni > 0)
            M::template advance<T>(v, dt, gl, pp, s, nullptr, ion);
        else
            M::template advance<T>(v, dt, gl, pp, s, nullptr);
    }

    void run(Tolerance tol_state, Tolerance tol_current) {
        const auto& v = t.at("v");
        const bool has_current = t.count("i") > 0;
        std::vector<double> ion(4 * ni + 1), s(ns + 1);
        // init at row 0
        ions_at(0, 0, ion.data());
        if constexpr (ni > 0)
            M::init(v[0], gl, p.data(), s.data(), ion.data());
        else
            M::init(v[0], gl, p.data(), s.data());
        for (int j = 0; j < ns; ++j)
            EXPECT_TRUE(close(s[j], state(j, 0), tol_state))
                << "init: state " << M::states[j].name << " " << s[j] << " vs NEURON " << state(j, 0);
        double worst_s = 0.0, worst_i = 0.0;
        int failures = 0;
        std::vector<double> i_of(rows), s_of(rows * (ns + 1));
        for (std::size_t k = 0; k + 1 < rows; ++k) {
            // the current of step k: v, states and ions at t_k
            for (int j = 0; j < ns; ++j) s[j] = state(j, k);
            ions_at(k, k, ion.data());
            double i = 0.0, g = 0.0;
            current(v[k], p.data(), s.data(), ion.data(), i, g);
            i_of[k] = i;
            if (has_current) {
                const double ref = t.at("i")[k];
                worst_i = std::max(worst_i, std::fabs(i - ref) / (tol_current.abs + tol_current.rel * std::fabs(ref)));
                if (!close(i, ref, tol_current) && ++failures < 5)
                    ADD_FAILURE() << "step " << k << " v " << v[k] << ": current " << i << " vs NEURON " << ref;
            }
            // the advance of step k: v at t_{k+1}, the ions as the states' update sees them
            ions_at(k + 1, k, ion.data());
            advance(v[k + 1], 0.025, p.data(), s.data(), ion.data());
            for (int j = 0; j < ns; ++j) {
                s_of[k * (ns + 1) + j] = s[j];
                const double ref = state(j, k + 1);
                worst_s = std::max(worst_s, std::fabs(s[j] - ref) / (tol_state.abs + tol_state.rel * std::fabs(ref)));
                if (!close(s[j], ref, tol_state) && ++failures < 5)
                    ADD_FAILURE() << "step " << k << " v " << v[k + 1] << ": state " << M::states[j].name << " "
                                  << s[j] << " vs NEURON " << ref;
            }
        }
        // The worst difference as a fraction of the tolerance (1: at the limit).
        std::printf("%s: %zu steps; worst state difference %.3g, current %.3g of the tolerance\n", M::name, rows - 1,
                    worst_s, worst_i);
        // The same steps in lanes: four rows side by side, each lane the scalar bits.
        constexpr int W = 4;
        using L = Lanes<W>;
        std::vector<L> pl(np + 1), sl(ns + 1), il(4 * ni + 1);
        for (int j = 0; j < np; ++j) pl[j] = L(p[j]);
        int lane_mismatches = 0;
        for (std::size_t k0 = 0; k0 + W < rows; k0 += 97) {
            std::vector<double> tmp(4 * ni + 1);
            L vl, vnext;
            for (int l = 0; l < W; ++l) {
                vl.set(l, v[k0 + l]);
                vnext.set(l, v[k0 + l + 1]);
                for (int j = 0; j < ns; ++j) sl[j].set(l, state(j, k0 + l));
                ions_at(k0 + l, k0 + l, tmp.data());
                for (int j = 0; j < 4 * ni; ++j) il[j].set(l, tmp[j]);
            }
            L i, g;
            current(vl, pl.data(), sl.data(), il.data(), i, g);
            for (int l = 0; l < W; ++l) {
                ions_at(k0 + l + 1, k0 + l, tmp.data());
                for (int j = 0; j < 4 * ni; ++j) il[j].set(l, tmp[j]);
            }
            advance(vnext, 0.025, pl.data(), sl.data(), il.data());
            for (int l = 0; l < W; ++l) {
                lane_mismatches += !same_bits(i[l], i_of[k0 + l]);
                for (int j = 0; j < ns; ++j) lane_mismatches += !same_bits(sl[j][l], s_of[(k0 + l) * (ns + 1) + j]);
            }
        }
        EXPECT_EQ(lane_mismatches, 0) << "lanes differ from the scalar code";
    }
};

template <class M>
void replay(const char* name, const std::map<std::string, double>& params, Tolerance tol_state,
            Tolerance tol_current) {
    Replay<M> r;
    if (!r.load(name, params)) GTEST_SKIP() << "no NEURON reference for " << name << " ($ARBOLITO_NMODL_REFERENCE)";
    ASSERT_GT(r.rows, 100u);
    r.run(tol_state, tol_current);
}

// Tolerances. A one-step comparison of the same formulas: the translation and NEURON (its
// nocmodl C) evaluate the same rate expressions, in operations that differ in order and
// grouping (NEURON's cnexp writes x + (1 - exp(-dt/tau))·(xinf - x), sympy's solution
// xinf - (xinf - x)·exp(-dt/tau)); each is within a few units in the last place (1.1e-16
// relative) per operation over some tens of operations, so 1e-12 relative (with 1e-15 mV/ms-
// scale floor for values crossing 0) bounds a correct translation by a factor of ~100, while a
// wrong rate, sign, unit factor or update rule gives differences of 1e-3 and more.
constexpr Tolerance same_formula{1e-12, 1e-15};
// Gates near 0 or 1: an absolute floor at 1e-15 of the gate's range [0, 1].
constexpr Tolerance gate{1e-12, 1e-15};
// Implicit schemes: NEURON solves (I - dt·J)·(x_new - x) = dt·f(x) by its sparse LU with
// pivoting, the translation (I - dt·J)·x_new = x by unrolled elimination. Both are backward
// stable: the difference is bounded by cond(I - dt·J) times the unit round-off; with the
// fastest rates here (NaV: 4·alpha·exp(v/24)·qt ≈ 2e4 /ms at +50 mV, dt·rate ≈ 500)
// cond(I - dt·J) stays below 1e3, so 1e-12 absolute in states within [0, 1] is that bound
// with a margin of ~10.
constexpr Tolerance implicit_scheme{0.0, 1e-12};
// A derivimplicit equation not linear in its state: NEURON iterates Newton's method until
// its residual f(s) - (s - s_old)/dt is below 1e-8 /ms (scopmath's ZERO; the change below
// 1e-6 relative too), so its state is within 1e-8·dt = 2.5e-10 of the implicit solution
// where df/ds <= 0, as here; the translation's fixed iterations reach round-off.
constexpr Tolerance newton{0.0, 2.5e-10 + 1e-12};

TEST(NmodlVsNeuron, IonChannelWithVShift) { replay<nmodl::kion>("kion", {}, gate, same_formula); }
TEST(NmodlVsNeuron, CalciumChannelReadingCai) { replay<nmodl::cachan>("cachan", {}, gate, same_formula); }
TEST(NmodlVsNeuron, CalciumConcentrationWritten) {
    replay<nmodl::cadecay>("cadecay", {{"gamma", 0.5}}, same_formula, same_formula);
}
TEST(NmodlVsNeuron, DerivimplicitLinear) { replay<nmodl::implicit>("implicit", {}, implicit_scheme, same_formula); }
TEST(NmodlVsNeuron, DerivimplicitNewton) { replay<nmodl::nonlinear>("nonlinear", {}, newton, same_formula); }
TEST(NmodlVsNeuron, KineticSparseAndLinearInitial) {
    replay<nmodl::threestate>("threestate", {}, implicit_scheme, same_formula);
}
TEST(NmodlVsNeuron, KineticSteadyStateInitial) {
    replay<nmodl::steadystate>("steadystate", {}, implicit_scheme, same_formula);
}

#ifdef ARBOLITO_ALLEN_MECHANISMS
TEST(NmodlVsNeuronAllen, NaTs) { replay<nmodl::NaTs>("NaTs", {{"gbar", 0.1}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, NaTa) { replay<nmodl::NaTa>("NaTa", {{"gbar", 0.1}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, Nap) { replay<nmodl::Nap>("Nap", {{"gbar", 0.01}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, NaV) { replay<nmodl::NaV>("NaV", {{"gbar", 0.1}}, implicit_scheme, same_formula); }
TEST(NmodlVsNeuronAllen, K_P) { replay<nmodl::K_P>("K_P", {{"gbar", 0.01}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, K_T) { replay<nmodl::K_T>("K_T", {{"gbar", 0.01}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, Kd) { replay<nmodl::Kd>("Kd", {{"gbar", 0.01}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, Kv2like) { replay<nmodl::Kv2like>("Kv2like", {{"gbar", 0.01}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, Kv3_1) { replay<nmodl::Kv3_1>("Kv3_1", {{"gbar", 0.01}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, Im) { replay<nmodl::Im>("Im", {{"gbar", 0.01}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, Im_v2) { replay<nmodl::Im_v2>("Im_v2", {{"gbar", 0.01}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, Ih) { replay<nmodl::Ih>("Ih", {{"gbar", 0.001}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, Ca_HVA) { replay<nmodl::Ca_HVA>("Ca_HVA", {{"gbar", 0.001}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, Ca_LVA) { replay<nmodl::Ca_LVA>("Ca_LVA", {{"gbar", 0.001}}, gate, same_formula); }
TEST(NmodlVsNeuronAllen, CaDynamics) { replay<nmodl::CaDynamics>("CaDynamics", {}, same_formula, same_formula); }
TEST(NmodlVsNeuronAllen, SK) { replay<nmodl::SK>("SK", {{"gbar", 0.01}}, gate, same_formula); }
#endif

}  // namespace
}  // namespace arbolito
