// Faults during a run in the engine: a blown-up voltage stops the run with the place and
// time named, before the epoch reaches the sink; a stop request ends it at an epoch
// boundary with everything to that time handed out.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "run/simulation.hpp"
#include "lowered_cell/voltage_blowup.hpp"
#include "io/model_reader.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

namespace {

std::string source_file(const std::string& rel) { return std::string(ARBOLITO_SOURCE_DIR) + "/" + rel; }

// Runs tests/data/blowups/<name>.json on `solver`; returns the error it ended with.
std::string blow_up(const std::string& name, const std::string& solver, CaptureSink& sink, VoltageBlowUp* out = nullptr) {
    const Model m = read_model(test_data("blowups/" + name + ".json"));
    SimOptions o;
    o.solver = parse_solver_spec(solver);
    o.threads = 2;
    Simulation sim(m, o);
    sink.ncol = sim.n_columns();
    try {
        sim.run(sink);
    } catch (const VoltageBlowUp& e) {
        if (out) *out = e;
        return e.what();
    }
    return "";
}

}  // namespace

// An iclamp of 1e300 nA from 25 ms: the epoch [20, 30) ms blows up (no connections:
// epochs of 10 ms), so the sink has frames 0 .. 20 ms (201 at 0.1 ms) and nothing later.
TEST(VoltageBlowUp, StopsAtTheEpochAndKeepsTheFinitePart) {
    for (const std::string solver : {"cpu", "omp"}) {
        CaptureSink sink;
        VoltageBlowUp e(0, 0, 0, 0, 0, 0);
        const std::string what = blow_up("iclamp_1e300", solver, sink, &e);
        ASSERT_FALSE(what.empty()) << solver << ": the run did not stop";
        EXPECT_EQ(e.gid, 0u);
        EXPECT_EQ(e.branch, 0);  // the lowest CV of the cell's numbering: the root node of the soma
        EXPECT_EQ(e.x, 0.0);
        EXPECT_TRUE(blown_up(e.value));
        EXPECT_DOUBLE_EQ(e.t_finite, 20.0);
        EXPECT_DOUBLE_EQ(e.t_found, 30.0);
        EXPECT_NE(what.find("gid 0, CV on branch 0 at x = 0"), std::string::npos) << what;
        EXPECT_NE(what.find("at t = 30 ms"), std::string::npos) << what;
        EXPECT_EQ(sink.n_frames, 201u) << solver;
        for (double v : sink.rows) EXPECT_FALSE(blown_up(v));
    }
}

TEST(VoltageBlowUp, HugeWeightIsNaN) {
    CaptureSink sink;
    VoltageBlowUp e(0, 0, 0, 0, 0, 0);
    ASSERT_FALSE(blow_up("weight_1e308", "cpu", sink, &e).empty());
    EXPECT_TRUE(std::isnan(e.value));
    EXPECT_DOUBLE_EQ(e.t_found, 30.0);  // the event at 25 ms
    EXPECT_EQ(sink.n_frames, 201u);
}

// A blown-up v_init stops the run before frame 0 reaches the sink.
TEST(VoltageBlowUp, InitialVoltageStopsBeforeFrameZero) {
    CaptureSink sink;
    const std::string what = blow_up("v_init_1e300", "cpu", sink);
    EXPECT_NE(what.find("v = 1e+300 mV at t = 0 ms (v_init)"), std::string::npos) << what;
    EXPECT_EQ(sink.n_frames, 0u);
}

// The CPU group's check: the lowest layout index past the bound, and nothing on a sound run.
TEST(VoltageBlowUp, BoundAndCpuGroupCheck) {
    EXPECT_FALSE(blown_up(-65.0));
    EXPECT_FALSE(blown_up(1e9));
    EXPECT_TRUE(blown_up(1.0000001e9));
    EXPECT_TRUE(blown_up(-INFINITY));
    EXPECT_TRUE(blown_up(NAN));
    const Model m = read_model(source_file("examples/ball_and_stick.json"));
    Simulation sim(m, SimOptions{});
    CaptureSink sink;
    sink.ncol = sim.n_columns();
    sim.run(sink);
    EXPECT_FALSE(sim.group(0).first_blown_up_v());
}

// A run stopped by a stop request (what the SIGINT/SIGTERM handler sets) ended at
// `epochs` whole epochs, with the record to that time handed out.
namespace {
void expect_stopped_at(const RunReport& r, const CaptureSink& sink, const Simulation& sim, const Model& m, long epochs) {
    EXPECT_TRUE(r.stopped);
    EXPECT_DOUBLE_EQ(r.t_end, epochs * (sim.epoch_steps() * m.run.dt));
    EXPECT_EQ(r.steps, epochs * sim.epoch_steps());
    EXPECT_EQ(sink.n_frames, static_cast<std::size_t>(std::lround(r.t_end / m.run.sample_dt)) + 1);
    for (const Spike& s : sink.spikes_seen) EXPECT_LT(s.time, r.t_end);
}
}  // namespace

// A stop asked for between epochs (here from the progress callback once 3 epochs are
// done): the next epoch stops at its first step, and the run ends at 3 epochs with the
// record to that time, in both exchange modes.
TEST(StopRequest, BetweenEpochsEndsThere) {
    const Model m = read_model(source_file("examples/ring.json"));  // epochs of min_delay/2 = 2.5 ms
    for (bool pipeline : {true, false}) {
        SimOptions o;
        o.pipeline = pipeline;
        Simulation sim(m, o);
        CaptureSink sink;
        sink.ncol = sim.n_columns();
        const double epoch = sim.epoch_steps() * m.run.dt;
        bool asked = false;
        const RunReport r = sim.run(sink, [&](double t) { asked = asked || t >= 3 * epoch - 1e-9; }, [&] { return asked; });
        SCOPED_TRACE(pipeline ? "pipeline" : "no pipeline");
        expect_stopped_at(r, sink, sim, m, 3);
    }
}

// A stop asked for while an epoch integrates takes effect at the CPU group's next step,
// not at the end of the epoch (one of 100 steps here) or of the next (as it did): the
// stop is asked exactly 10 times after it was armed (the epoch's start, then 9 steps), the
// unfinished epoch's record is dropped, and the run ends at that epoch's start.
TEST(StopRequest, MidEpochStopsAtTheNextStep) {
    const Model m = read_model(source_file("examples/ring.json"));
    for (bool pipeline : {true, false}) {
        SimOptions o;
        o.pipeline = pipeline;
        Simulation sim(m, o);
        ASSERT_EQ(sim.n_groups(), 1);
        CaptureSink sink;
        sink.ncol = sim.n_columns();
        const double epoch = sim.epoch_steps() * m.run.dt;
        ASSERT_GT(sim.epoch_steps(), 50);
        bool armed = false;
        int asked = 0;
        const RunReport r = sim.run(sink, [&](double t) { armed = armed || t >= 2 * epoch - 1e-9; },
                                    [&] { return armed && ++asked >= 10; });
        SCOPED_TRACE(pipeline ? "pipeline" : "no pipeline");
        EXPECT_EQ(asked, 10);
        expect_stopped_at(r, sink, sim, m, 2);
    }
}

// The zero-length tip segment's cell (docs/swc.md) under every_segment, hh soma, pas
// everywhere and a current clamp: it ran to NaN at the first check, it now runs to the
// end with every voltage finite.
TEST(ZeroLengthTip, RunsUnderEverySegment) {
    const std::string dir = ::testing::TempDir() + "arbolito_tip_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/tip.swc") << "1 1 0 0 0 6.3 -1\n2 3 6.3 0 0 0.5 1\n3 3 200 0 0 0.5 2\n4 3 200 0 0 0.5 3\n";
    const Model m = parse_model(R"({"run": {"tfinal": 20},
        "cells": [{"morphology": {"swc": "tip.swc"}, "discretization": {"policy": "every_segment"},
                   "paint": [{"region": "soma", "mechanism": "hh"}, {"region": "all", "mechanism": "pas"}],
                   "place": [{"location": "soma", "mechanism": "iclamp", "params": {"delay": 1, "dur": 10, "amp": 0.5}}],
                   "probes": [{"location": "soma"}]}]})",
                                dir + "/tip.json");
    Simulation sim(m, SimOptions{});
    CaptureSink sink;
    sink.ncol = sim.n_columns();
    EXPECT_NO_THROW(sim.run(sink));
    EXPECT_EQ(sink.n_frames, 200u);  // while t < tfinal
    for (double v : sink.rows) ASSERT_TRUE(std::isfinite(v));
    std::filesystem::remove_all(dir);
}
