// The mechanism descriptions (mechanisms/all.hpp) against NEURON's published defaults
// and units, and the catalogue generated from them against the descriptions.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "mechanisms/all.hpp"
#include "mechanisms/assemble.hpp"
#include "mechanisms/catalogue.hpp"
#include "mechanisms/instance_currents.hpp"

using namespace arbolito;

namespace {

struct Expected {
    MechKind kind;
    std::vector<std::tuple<std::string, std::string, double>> params;  // name, unit, default
    std::vector<std::pair<std::string, std::string>> states;          // name, unit
};

// NEURON's hh.mod, pas, ExpSyn, Exp2Syn and IClamp.
const std::map<std::string, Expected>& published() {
    static const std::map<std::string, Expected> m = {
        {"hh",
         {MechKind::density,
          {{"gnabar", "S/cm2", 0.12},
           {"gkbar", "S/cm2", 0.036},
           {"gl", "S/cm2", 0.0003},
           {"ena", "mV", 50.0},
           {"ek", "mV", -77.0},
           {"el", "mV", -54.3}},
          {{"m", "1"}, {"h", "1"}, {"n", "1"}}}},
        {"pas", {MechKind::density, {{"g", "S/cm2", 0.001}, {"e", "mV", -70.0}}, {}}},
        {"expsyn", {MechKind::synapse, {{"tau", "ms", 2.0}, {"e", "mV", 0.0}}, {{"g", "uS"}}}},
        {"exp2syn",
         {MechKind::synapse, {{"tau1", "ms", 0.5}, {"tau2", "ms", 2.0}, {"e", "mV", 0.0}}, {{"A", "uS"}, {"B", "uS"}}}},
        {"iclamp", {MechKind::stimulus, {{"delay", "ms", 0.0}, {"dur", "ms", 0.0}, {"amp", "nA", 0.0}}, {}}},
    };
    return m;
}

template <class M>
void check_description() {
    SCOPED_TRACE(M::name);
    const auto it = published().find(M::name);
    ASSERT_NE(it, published().end()) << "a new mechanism: add its published values to this test";
    const Expected& e = it->second;
    EXPECT_EQ(M::kind, e.kind);
    ASSERT_EQ(n_params<M>, static_cast<int>(e.params.size()));
    for (int j = 0; j < n_params<M>; ++j) {
        EXPECT_EQ(M::params[j].name, std::get<0>(e.params[j]));
        EXPECT_EQ(M::params[j].unit, std::get<1>(e.params[j]));
        EXPECT_EQ(M::params[j].default_value, std::get<2>(e.params[j])) << M::params[j].name;
        EXPECT_GE(M::params[j].default_value, M::params[j].min) << "a default a model file could not give";
    }
    ASSERT_EQ(n_states<M>, static_cast<int>(e.states.size()));
    for (int j = 0; j < n_states<M>; ++j) {
        EXPECT_EQ(M::states[j].name, e.states[j].first);
        EXPECT_EQ(M::states[j].unit, e.states[j].second);
    }
    for (int j = 0; j < n_derived<M>; ++j) EXPECT_STRNE(M::derived[j].unit, "") << M::derived[j].name;
}

TEST(Mechanisms, DefaultsAndUnitsArePublishedValues) {
    int n = 0;
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        if (mech_index<M> >= n_builtin_mechanisms) return;  // the build's extra ones: their .mod files'
        check_description<M>();
        ++n;
    });
    EXPECT_EQ(n, static_cast<int>(published().size()));
}

TEST(Mechanisms, CatalogueIsTheDescriptions) {
    ASSERT_EQ(static_cast<int>(mechanism_infos().size()), n_mechanisms);
    all_mechanisms::for_each([](auto tag) {
        using M = typename decltype(tag)::type;
        SCOPED_TRACE(M::name);
        const MechInfo* info = find_mechanism(M::name);
        ASSERT_NE(info, nullptr);
        EXPECT_EQ(info, &mechanism_infos()[mech_index<M>]);
        EXPECT_EQ(info->index, mech_index<M>);
        EXPECT_EQ(info->kind, M::kind);
        ASSERT_EQ(info->params.size(), M::params.size());
        std::vector<double> defaults;
        for (std::size_t j = 0; j < M::params.size(); ++j) {
            EXPECT_STREQ(info->params[j].name, M::params[j].name);
            EXPECT_STREQ(info->params[j].unit, M::params[j].unit);
            defaults.push_back(M::params[j].default_value);
        }
        EXPECT_EQ(info->states.size(), M::states.size());
        EXPECT_EQ(info->derived.size(), M::derived.size());
        EXPECT_EQ(resolve_params(M::name, {}), defaults);
    });
    EXPECT_EQ(find_mechanism("nax"), nullptr);
    const std::vector<std::string> names = mechanism_names();
    EXPECT_EQ(static_cast<int>(names.size()), n_mechanisms);
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(Mechanisms, ResolveParamsOverlaysAndRejectsUnknownNames) {
    EXPECT_EQ(resolve_params("pas", {{"e", -65.0}}), (std::vector<double>{0.001, -65.0}));
    EXPECT_THROW(resolve_params("pas", {{"gbar", 1.0}}), std::invalid_argument);
    EXPECT_THROW(resolve_params("nax", {}), std::invalid_argument);
}

// The list's order is the order in which currents are added on both backends: reordering
// it changes results in the last bits.
TEST(Mechanisms, ListOrderIsTheAdditionOrder) {
    EXPECT_EQ(mech_index<hh>, 0);
    EXPECT_EQ(mech_index<pas>, 1);
    EXPECT_EQ(mech_index<expsyn>, 2);
    EXPECT_EQ(mech_index<exp2syn>, 3);
    EXPECT_EQ(mech_index<iclamp>, 4);
}

// Mechanism M's parameters at their defaults, and its constants derived from them.
template <class M>
std::pair<std::vector<double>, std::vector<double>> defaults_and_constants() {
    std::vector<double> p(n_params<M>), c(n_derived<M>);
    for (int j = 0; j < n_params<M>; ++j) p[j] = M::params[j].default_value;
    M::derive(p.data(), c.data());
    return {p, c};
}

// n states drawn uniformly from [0, 1).
std::vector<double> random_states(int n, std::mt19937& gen) {
    std::uniform_real_distribution<double> state(0.0, 1.0);
    std::vector<double> s(n);
    for (double& x : s) x = state(gen);
    return s;
}

// Where a mechanism's states advance independently (hh's gates; the resident GPU step
// advances each on a warp of its own), advance_state(j) gives state j exactly what
// advance gives it, and touches no other state: over voltages from -100 to +60 mV (the
// vtrap branches at -40 and -55 included), random states and two time steps.
TEST(Mechanisms, IndependentStatesAdvanceAloneAsTogether) {
    std::mt19937 gen(17);
    int checked = 0;
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        if constexpr (M::independent_states > 1) {
            static_assert(M::independent_states == n_states<M>, "every state advances alone");
            const auto g = M::globals(6.3);
            const auto [p, c] = defaults_and_constants<M>();
            for (double dt : {0.025, 0.1})
                for (int k = 0; k <= 1600; ++k) {
                    const double v = k == 1600 ? -55.0 : k == 1599 ? -40.0 : -100.0 + 0.1 * k;
                    const std::vector<double> s0 = random_states(n_states<M>, gen);
                    std::vector<double> together = s0;
                    M::advance(v, dt, g, p.data(), together.data(), c.data());
                    for (int j = 0; j < n_states<M>; ++j) {
                        std::vector<double> alone = s0;
                        M::advance_state(j, v, dt, g, p.data(), alone.data(), c.data());
                        for (int i = 0; i < n_states<M>; ++i)
                            ASSERT_EQ(alone[i], i == j ? together[j] : s0[i]) << M::name << " state " << i << " v " << v;
                    }
                    ++checked;
                }
        }
    });
    EXPECT_GT(checked, 0);
}

// A mechanism that says its advance reads no v (advance_reads_v false: the resident GPU
// step then advances it beside the junctions' tree, before the new v exists) gives the
// same bits at any v: random states and v from -100 to +60 mV, two time steps.
TEST(Mechanisms, AdvanceThatReadsNoVIgnoresV) {
    std::mt19937 gen(19);
    int checked = 0;
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        if constexpr (!M::advance_reads_v) {
            static_assert(M::kind != MechKind::density && n_ions<M> == 0, "only point mechanisms without ions");
            const auto g = M::globals(6.3);
            const auto [p, c] = defaults_and_constants<M>();
            for (double dt : {0.025, 0.1})
                for (int k = 0; k < 200; ++k) {
                    const std::vector<double> s0 = random_states(n_states<M>, gen);
                    std::vector<double> at_rest = s0;
                    M::advance(-65.0, dt, g, p.data(), at_rest.data(), c.data());
                    for (double v : {-100.0, -40.0, 0.0, 60.0}) {
                        std::vector<double> other = s0;
                        M::advance(v, dt, g, p.data(), other.data(), c.data());
                        for (int i = 0; i < n_states<M>; ++i) ASSERT_EQ(other[i], at_rest[i]) << M::name << " v " << v;
                    }
                    ++checked;
                }
        }
    });
    EXPECT_GT(checked, 0);
}

// Where a mechanism has step constants (the synapses' exact decay factors), the CPU
// computes them once at set-up, one instance at a time, and advances W instances side by
// side through them: that gives every state exactly advance's bits, over parameters from
// 0.01 to 100 ms, random states and three time steps.
TEST(Mechanisms, StepConstantsGiveAdvancesBits) {
    std::mt19937 gen(23);
    std::uniform_real_distribution<double> state(0.0, 1.0), log_ms(-2.0, 2.0);
    int checked = 0;
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        if constexpr (n_step_derived<M> > 0) {
            constexpr int W = 4;
            using L = Lanes<W>;
            const auto g = M::globals(6.3);
            for (double dt : {0.025, 0.01, 0.1})
                for (int rep = 0; rep < 200; ++rep) {
                    double p[W][n_params<M>], c[W][n_derived<M> > 0 ? n_derived<M> : 1], k[W][n_step_derived<M>];
                    double s0[W][n_states<M>], alone[W][n_states<M>];
                    for (int l = 0; l < W; ++l) {
                        for (int j = 0; j < n_params<M>; ++j) p[l][j] = std::pow(10.0, log_ms(gen));
                        M::derive(p[l], c[l]);
                        M::derive_step(dt, p[l], c[l], k[l]);
                        for (int j = 0; j < n_states<M>; ++j) alone[l][j] = s0[l][j] = state(gen);
                        M::advance(-65.0, dt, g, p[l], alone[l], c[l]);
                    }
                    // The W instances side by side, as the CPU's columns give them.
                    L lp[n_params<M>], lc[n_derived<M> > 0 ? n_derived<M> : 1], lk[n_step_derived<M>], ls[n_states<M>];
                    for (int l = 0; l < W; ++l) {
                        for (int j = 0; j < n_params<M>; ++j) lp[j].set(l, p[l][j]);
                        for (int j = 0; j < n_derived<M>; ++j) lc[j].set(l, c[l][j]);
                        for (int j = 0; j < n_step_derived<M>; ++j) lk[j].set(l, k[l][j]);
                        for (int j = 0; j < n_states<M>; ++j) ls[j].set(l, s0[l][j]);
                    }
                    M::advance_stepped(L(-65.0), g, lp, ls, lc, lk);
                    for (int l = 0; l < W; ++l)
                        for (int j = 0; j < n_states<M>; ++j)
                            ASSERT_EQ(ls[j][l], alone[l][j]) << M::name << " state " << j << " dt " << dt;
                    ++checked;
                }
        }
    });
    EXPECT_EQ(checked, 2 * 3 * 200);  // expsyn and exp2syn
}

// Per-instance constants: exp2syn's effective rise time and peak factor.
TEST(Mechanisms, Exp2synConstantsAreNeuronsGuardAndPeak) {
    double c[2];
    const double p[] = {0.5, 2.0, 0.0};
    exp2syn::derive(p, c);
    EXPECT_EQ(c[exp2syn::tau1_effective], 0.5);
    // The peak of B - A after an event of weight 1 is 1.
    const double tp = (0.5 * 2.0) / (2.0 - 0.5) * std::log(2.0 / 0.5);
    EXPECT_NEAR(c[exp2syn::peak_factor] * (std::exp(-tp / 2.0) - std::exp(-tp / 0.5)), 1.0, 1e-14);
    const double equal[] = {2.0, 2.0, 0.0};
    exp2syn::derive(equal, c);
    EXPECT_EQ(c[exp2syn::tau1_effective], 0.9999 * 2.0);
}

}  // namespace

// The backends assemble from terms computed once for the run's dt (assemble_precomputed
// from assemble_base at v = 1): the same bits as assemble_base each step, over CV
// capacitances and conductances from 1e-9 to 1e3 and voltages of either sign.
// pas's terms folded into the assembly once (MechanismDefaults::constant_terms) against
// its current added each step (instance_terms): d the same bits (d_base + w·g, one
// rounding each way); rhs the same value but for rounding. The per-step form rounds
// cap/dt·v, w·g, w·g·v, v − e, g·(v − e), w·g·(v − e), their difference and the sum (about
// 10 half-ulps of the largest magnitude in all), the folded one cap/dt·v, w·g, w·g·e and
// the sum (about 4): 8 DBL_EPSILON (16 half-ulps) of the largest magnitude bounds the gap.
TEST(Assembly, ConstantTermsAreThePerStepCurrent) {
    std::mt19937 gen(21);
    std::uniform_real_distribution<double> expo(-9, 3), volt(-120, 60), rev(-100, 50), gexp(-7, -1), wexp(-6, 1);
    double worst = 0;
    for (int k = 0; k < 100000; ++k) {
        const double cap = std::pow(10.0, expo(gen)), g_sum = std::pow(10.0, expo(gen)), v = volt(gen);
        const double w = std::pow(10.0, wexp(gen)), p[] = {std::pow(10.0, gexp(gen)), rev(gen)};
        double d_base, cap_dt;
        assemble_base(cap, g_sum, 0.025, 1.0, d_base, cap_dt);
        double d0, r0, i_m, g_m, dd, dr;
        assemble_precomputed(d_base, cap_dt, 0.0, v, d0, r0);
        pas::current<double>(v, 0.0, pas::Globals{}, p, nullptr, nullptr, i_m, g_m);
        instance_terms<pas>(i_m, g_m, w, v, dd, dr);
        d0 += dd;
        r0 += dr;
        double g, e, db = d_base, rb = 0.0, d1, r1;
        pas::constant_current(p, g, e);
        fold_constant_terms(w, g, e, db, rb);
        assemble_precomputed(db, cap_dt, rb, v, d1, r1);
        ASSERT_EQ(d0, d1) << k;
        const double scale = std::max({std::fabs(cap_dt * v), std::fabs(w * g * v), std::fabs(w * g * (v - e)),
                                       std::fabs(w * g * e)});
        ASSERT_LE(std::fabs(r0 - r1), 8 * DBL_EPSILON * scale) << k;
        worst = std::max(worst, std::fabs(r0 - r1) / (DBL_EPSILON * scale));
    }
    std::cout << "[ info     ] largest rhs gap: " << worst << " DBL_EPSILON of the largest magnitude\n";
}

TEST(Assembly, PrecomputedTermsSameBits) {
    std::mt19937 gen(12);
    std::uniform_real_distribution<double> expo(-9, 3), volt(-120, 60);
    for (double dt : {0.025, 0.01, 0.1, 1.0 / 3}) {
        for (int k = 0; k < 20000; ++k) {
            const double cap = std::pow(10.0, expo(gen)), g_sum = std::pow(10.0, expo(gen)), v = volt(gen);
            double d0, r0, d_base, cap_dt, d1, r1;
            assemble_base(cap, g_sum, dt, v, d0, r0);
            assemble_base(cap, g_sum, dt, 1.0, d_base, cap_dt);
            assemble_precomputed(d_base, cap_dt, 0.0, v, d1, r1);  // no constant terms: rhs_base 0
            ASSERT_EQ(d0, d1) << cap << " " << g_sum << " " << dt;
            ASSERT_EQ(r0, r1) << cap << " " << g_sum << " " << dt << " " << v;
        }
    }
}
