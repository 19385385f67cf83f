// Ions (docs/mechanisms.md, "Ions"): NEURON's constants and defaults, the model keys, and
// whole runs with the ion test mechanisms (tests/mechanisms/; skipped where the build
// leaves them out): the written concentration reaches the ion, e follows Nernst, every
// CPU variant gives the same bits. The comparison with NEURON itself is
// tests/validation/ions/vs_neuron_ions.py.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "mechanisms/catalogue.hpp"
#include "mechanisms/hh.hpp"
#include "mechanisms/ion.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

namespace {

bool have_test_mechanisms() { return find_mechanism("test_cad") != nullptr; }

std::string model_text() {
    return R"({"run": {"dt": 0.025, "tfinal": 1, "sample_dt": 0.1},
               "cells": [{"morphology": {"builder": "ball_and_stick"},
                          "paint": [{"mechanism": "test_cad"}], "ions": IONS, "probes": PROBES}]})";
}

std::string with(std::string text, const std::string& key, const std::string& value) {
    return text.replace(text.find(key), key.size(), value);
}

// The error of a model whose "ions" and "probes" are these; "" when it reads.
std::string error_of(const std::string& ions, const std::string& probes) {
    try {
        parse_model(with(with(model_text(), "IONS", ions), "PROBES", probes), "m.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// NEURON 8.2's h.nernst(5e-5, 2, 2) at celsius 6.3 and 34, and its Na, K: printed by
// python3-neuron (repr, 17 digits). The same formula and constants give the same double,
// or one rounding away (the log and the divisions): 1e-14 relative.
TEST(Ions, NernstIsNeurons) {
    EXPECT_NEAR(nernst(5e-5, 2.0, 2, 6.3), 127.58951061761749, 127.6 * 1e-14);
    EXPECT_NEAR(nernst(5e-5, 2.0, 2, 34.0), 140.23660113151266, 140.3 * 1e-14);
    EXPECT_NEAR(nernst(1e-4, 2.0, 2, 6.3), 119.24362423187573, 119.3 * 1e-14);
    EXPECT_EQ(nernst(0.0, 2.0, 2, 6.3), 1e6);
    EXPECT_EQ(nernst(1.0, 0.0, 2, 6.3), -1e6);
    EXPECT_EQ(nernst(1.0, 2.0, 0, 6.3), 0.0);
}

// NEURON's nai0_na_ion, nao0_na_ion, ... and its default e (eca: 12.5·ln(2/5e-5), printed by
// NEURON as 132.4579341637009 where no mechanism writes calcium).
TEST(Ions, DefaultsAreNeurons) {
    const IonDefaults na = ion_defaults("na", 1), k = ion_defaults("k", 1), ca = ion_defaults("ca", 2),
                      x = ion_defaults("x", 3);
    EXPECT_EQ(na.xi, 10.0);
    EXPECT_EQ(na.xo, 140.0);
    EXPECT_EQ(na.e, 50.0);
    EXPECT_EQ(k.xi, 54.4);
    EXPECT_EQ(k.xo, 2.5);
    EXPECT_EQ(k.e, -77.0);
    EXPECT_EQ(ca.valence, 2);
    EXPECT_EQ(ca.xi, 5e-5);
    EXPECT_EQ(ca.xo, 2.0);
    EXPECT_EQ(ca.e, 132.4579341637009);
    EXPECT_EQ(x.valence, 3);
    EXPECT_EQ(x.xi, 1.0);
    EXPECT_EQ(x.e, 0.0);
}

TEST(Ions, ModelKeysAndProbesRefusedNamingTheKey) {
    if (!have_test_mechanisms()) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    EXPECT_EQ(error_of(R"([{"ion": "ca", "xi": 1e-4}])", R"([{"location": "soma", "variable": "ca.e"}])"), "");
    EXPECT_NE(error_of(R"([{"ion": "zz"}])", "[]").find("cells[0].ions[0].ion"), std::string::npos);
    EXPECT_NE(error_of(R"([{"ion": "ca", "ee": 1}])", "[]").find("cells[0].ions[0].ee"), std::string::npos);
    EXPECT_NE(error_of(R"([{"ion": "ca", "xi": -1}])", "[]").find("cells[0].ions[0].xi"), std::string::npos);
    EXPECT_NE(error_of(R"([{"ion": "ca", "region": "leg"}])", "[]").find("cells[0].ions[0].region"), std::string::npos);
    EXPECT_NE(error_of("[]", R"([{"location": "soma", "variable": "ca.q"}])").find("cells[0].probes[0].variable"),
              std::string::npos);
    EXPECT_NE(error_of("[]", R"([{"location": "soma", "variable": "test_cad.m"}])").find("has no state or current 'm'"),
              std::string::npos);
    EXPECT_NE(error_of("[]", R"([{"location": "soma", "variable": "iclamp.x"}])").find("point mechanism"),
              std::string::npos);
    EXPECT_NE(error_of("[]", R"([{"location": "soma", "variable": "w"}])").find("unknown variable"), std::string::npos);
    // A mechanism's currents: "i", and "i<ion>" for each ion current it writes.
    EXPECT_EQ(error_of("[]", R"([{"location": "soma", "variable": "test_cad.i"}])"), "");
    EXPECT_NE(error_of("[]", R"([{"location": "soma", "variable": "test_cad.ica"}])").find("currents: i)"),
              std::string::npos);
    EXPECT_NE(error_of("[]", R"([{"location": "soma", "variable": "iclamp.i"}])").find("point mechanism"),
              std::string::npos);
}

// Three cells with every ion path (e read and fixed by a key, e by Nernst from a written
// cai, ica read by the pump): the pump's cai reaches the ion's xi on every sample, the
// initial e is the Nernst potential of the pump's initial cai, and every CPU variant gives
// the same bits.
TEST(Ions, WholeRunOnTheCpu) {
    if (!have_test_mechanisms()) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    const Model m = read_model(test_data("ions/three_cells_ions.json"));
    const CaptureSink ref = run_model(m, "cpu");
    ASSERT_EQ(ref.ncol, 21);
    ASSERT_GE(ref.spikes_seen.size(), 3u);  // each cell fires
    double cai_max = 0;
    for (std::size_t f = 0; f < ref.n_frames; ++f)
        for (int c = 0; c < 3; ++c) {
            const long b = 7 * c;
            EXPECT_EQ(ref.at(f, b + 2), ref.at(f, b + 3)) << "frame " << f;  // ca.xi is test_cad.cai
            EXPECT_EQ(ref.at(f, b + 5), 55.0);                              // na.e as the key set it
            EXPECT_LT(ref.at(f, b + 4), f == 0 ? 1.0 : 0.0);                // ica inward once it flows
            cai_max = std::max(cai_max, ref.at(f, b + 3));
        }
    // Frame 0: e of the initial cai (minCai 1e-4 mM, xo 2.5 mM by the key, 34 °C).
    EXPECT_NEAR(ref.at(0, 1), nernst(1e-4, 2.5, 2, 34.0), 1e-12);
    EXPECT_GT(cai_max, 1e-3) << "the calcium current should raise cai well above its floor";
    for (const char* v : {"cpu:lanes=1", "cpu:lanes=2", "cpu:lanes=4", "omp"}) {
        const CaptureSink other = run_model(m, v, 2);
        EXPECT_EQ(other.rows, ref.rows) << v;
        EXPECT_EQ(other.spikes_seen, ref.spikes_seen) << v;
    }
}

// A probe of a mechanism's current records what the mechanism computed in the currents
// phase of the step that ends at the frame: at the step's starting voltage and states
// (NEURON's ina_NaTs recorded at t is the BREAKPOINT value of the step ending at t), and at
// frame 0 the current at v_init and the initial states. Frames every step, so that frame
// f's v and gates are step f's start: hh's own current function on them gives frame f + 1's
// value bit for bit. The soma's only calcium current is test_ica's, so ca.i (summed over the
// currents phase) is test_ica.ica, and its whole current too. Every CPU variant: the same bits.
TEST(Ions, CurrentProbesRecordTheStepsCurrents) {
    if (!have_test_mechanisms()) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    const Model m = read_model(test_data("ions/current_probes.json"));
    const CaptureSink ref = run_model(m, "cpu");
    constexpr long per_cell = 12;
    ASSERT_EQ(ref.ncol, 3 * per_cell);
    ASSERT_GE(ref.spikes_seen.size(), 3u);
    const hh::Globals gl = hh::globals(m.run.celsius);
    const double p[] = {0.0, 0.036, 0.0003, 50.0, -77.0, -54.3};  // gnabar 0 by the model, the rest hh's defaults
    double ica_max = 0, pas_max = 0;
    for (std::size_t f = 0; f < ref.n_frames; ++f)
        for (int c = 0; c < 3; ++c) {
            const long b = per_cell * c;
            if (f + 1 < ref.n_frames) {  // frame f's v and gates give frame f + 1's hh.i (and frame 0's)
                const double s[] = {ref.at(f, b + 1), ref.at(f, b + 2), ref.at(f, b + 3)};
                double i, g;
                hh::current<double>(ref.at(f, b), 0.0, gl, p, s, nullptr, i, g);
                EXPECT_EQ(ref.at(f + 1, b + 4), i) << "cell " << c << ", frame " << f + 1;
                if (f == 0) EXPECT_EQ(ref.at(0, b + 4), i) << "cell " << c << " at t = 0";
            }
            EXPECT_EQ(ref.at(f, b + 6), ref.at(f, b + 7)) << "frame " << f;  // test_ica's ica is its whole current
            EXPECT_EQ(ref.at(f, b + 8), ref.at(f, b + 6)) << "frame " << f;  // ca.i: the step's sum, test_ica's alone
            EXPECT_EQ(ref.at(f, b + 11), 0.0);                               // test_cad carries no current
            ica_max = std::max(ica_max, std::fabs(ref.at(f, b + 6)));
            pas_max = std::max(pas_max, std::fabs(ref.at(f, b + 9)));
        }
    EXPECT_GT(ica_max, 1e-4) << "the calcium current should flow";
    EXPECT_GT(pas_max, 1e-6) << "the dendrite's leak should carry current";
    for (const char* v : {"cpu:lanes=1", "cpu:lanes=2", "cpu:lanes=4", "omp"}) {
        const CaptureSink other = run_model(m, v, 2);
        EXPECT_EQ(other.rows, ref.rows) << v;
        EXPECT_EQ(other.spikes_seen, ref.spikes_seen) << v;
    }
}
