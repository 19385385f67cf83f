// Networks give the same spikes and traces, bit for bit, whatever the threads, the
// number of cell groups and whether the exchange is pipelined (docs/mpi.md).
// The runs across MPI ranks are checked by tests/mpi (they need mpirun).
#include <stdexcept>

#include <gtest/gtest.h>

#include "run/decomposition.hpp"
#include "run/simulation.hpp"
#include "io/model_reader.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

namespace {

std::string source_file(const std::string& rel) { return std::string(ARBOLITO_SOURCE_DIR) + "/" + rel; }

void expect_identical(const CaptureSink& a, const CaptureSink& b, const std::string& what) {
    ASSERT_EQ(a.spikes_seen.size(), b.spikes_seen.size()) << what;
    for (std::size_t k = 0; k < a.spikes_seen.size(); ++k) {
        EXPECT_EQ(a.spikes_seen[k].gid, b.spikes_seen[k].gid) << what << ", spike " << k;
        EXPECT_EQ(a.spikes_seen[k].time, b.spikes_seen[k].time) << what << ", spike " << k;  // exact
    }
    ASSERT_EQ(a.n_frames, b.n_frames) << what;
    ASSERT_EQ(a.rows.size(), b.rows.size()) << what;
    std::size_t differ = 0;
    for (std::size_t k = 0; k < a.rows.size(); ++k) differ += a.rows[k] != b.rows[k];
    EXPECT_EQ(differ, 0u) << what << ": samples that differ";
}

// Every variant against the serial, pipelined reference run.
void check_variants(const Model& m, std::size_t min_spikes) {
    const CaptureSink ref = run_model(m, "cpu", 1, true);
    ASSERT_GE(ref.spikes_seen.size(), min_spikes);
    ASSERT_GT(ref.n_frames, 0u);
    expect_identical(ref, run_model(m, "cpu", 1, false), "cpu, no pipeline");
    expect_identical(ref, run_model(m, "omp", 1, true), "omp, 1 thread");
    expect_identical(ref, run_model(m, "omp", 2, true), "omp, 2 threads");
    expect_identical(ref, run_model(m, "omp", 2, false), "omp, 2 threads, no pipeline");
    expect_identical(ref, run_model(m, "omp", 3, true), "omp, 3 threads");
    // Cells in SIMD lanes: every lane does the scalar arithmetic of its cell.
    for (const char* w : {"1", "2", "4", "8"})
        expect_identical(ref, run_model(m, std::string("cpu:lanes=") + w, 1, true), std::string("cpu, lanes ") + w);
    expect_identical(ref, run_model(m, "omp:lanes=2", 2, true), "omp, 2 threads, lanes 2");
}

}  // namespace

TEST(NetworkDeterminism, RingExample) { check_variants(read_model(source_file("examples/ring.json")), 16); }

// Cells of very different sizes in one lane block (padding), every mechanism, several
// point instances on one CV, stimuli, probes off the soma.
TEST(NetworkDeterminism, MixedShapes) { check_variants(read_model(test_data("networks/mixed_shapes.json")), 5); }

// One cell: lanes=auto runs it in one lane (the scalar path), the given widths pad it.
TEST(NetworkDeterminism, OneCellEveryWidth) { check_variants(read_model(source_file("examples/single_cell.json")), 1); }

TEST(NetworkDeterminism, Busyring16) { check_variants(read_model(test_data("networks/busyring16_short.json")), 16); }

// Four cell groups in one process, their exchange in 1, 2, 3, 4 and 8 lanes' worth of
// threads (run/exchange_lanes.hpp: one lane per thread up to one per group, lanes of
// unequal group counts at 3), pipelined and not: the same bits as one group.
TEST(NetworkDeterminism, FourGroupsSameBitsAsOneGroupInAnyLanes) {
    const Model m = read_model(test_data("networks/busyring16_short.json"));
    const CaptureSink one = run_model(m, "cpu", 1, true);
    ASSERT_GE(one.spikes_seen.size(), 16u);
    for (int xt : {1, 2, 3, 4, 8})
        for (bool pipe : {true, false}) {
            SimOptions o;
            o.solver = parse_solver_spec("omp");  // 4 groups a thread
            o.threads = 1;
            o.exchange_threads = xt;
            o.pipeline = pipe;
            const CaptureSink four = run_model(m, o, nullptr, [](const Simulation& sim) { EXPECT_EQ(sim.n_groups(), 4); });
            expect_identical(one, four, "4 groups, " + std::to_string(xt) + " exchange threads" + (pipe ? "" : ", no pipeline"));
        }
}

// Five cells spike at the same instant onto one synapse: the events must add up in the
// same order whichever groups the sources and the target sit in.
TEST(NetworkDeterminism, SimultaneousSpikes) {
    const Model m = read_model(test_data("networks/simultaneous.json"));
    check_variants(m, 10);
    const CaptureSink ref = run_model(m);
    int at_first = 0;
    for (const auto& s : ref.spikes_seen) at_first += s.time == ref.spikes_seen.front().time;
    EXPECT_EQ(at_first, 5) << "the model should have five spikes at one time";
}

// The spikes reach the sink in the global order: time, then gid.
TEST(NetworkDeterminism, SpikesArriveInGlobalOrder) {
    const CaptureSink out = run_model(read_model(test_data("networks/simultaneous.json")), "omp", 2);
    for (std::size_t k = 1; k < out.spikes_seen.size(); ++k) {
        const Spike &a = out.spikes_seen[k - 1], &b = out.spikes_seen[k];
        EXPECT_TRUE(a.time < b.time || (a.time == b.time && a.gid < b.gid)) << "spike " << k;
    }
}

// A communicator that cannot run collectives beside a computing thread (MPI below
// MPI_THREAD_SERIALIZED): the run falls back to the unpipelined exchange, same results.
TEST(NetworkDeterminism, NoThreadSupportFallsBackToUnpipelined) {
    struct Funneled : SerialCommunicator {
        bool thread_serialized() const override { return false; }
    };
    const Model m = read_model(source_file("examples/ring.json"));
    SimOptions o;
    o.comm = std::make_shared<Funneled>();
    Simulation sim(m, o);
    CaptureSink sink;
    sink.ncol = sim.n_columns();
    const RunReport r = sim.run(sink);
    EXPECT_FALSE(r.pipelined);
    EXPECT_EQ(r.exchange_exposed_s, r.exchange_s);
    expect_identical(run_model(m), sink, "unpipelined fallback");
}

// A sink that fails (a full disk) stops the run at the next exchange with its error, and
// is not called again.
TEST(NetworkDeterminism, SinkFailureStopsTheRun) {
    struct Failing : CaptureSink {
        int epochs = 0, calls_after = 0;
        void spikes(const std::vector<Spike>& s) override {
            if (epochs > 3) ++calls_after;
            CaptureSink::spikes(s);
        }
        void epoch_done(double) override {
            if (++epochs == 3) throw std::runtime_error("disk full");
        }
    };
    const Model m = read_model(source_file("examples/ring.json"));
    for (bool pipeline : {true, false}) {
        SimOptions o;
        o.pipeline = pipeline;
        Simulation sim(m, o);
        Failing sink;
        sink.ncol = sim.n_columns();
        try {
            sim.run(sink);
            ADD_FAILURE() << "run did not throw";
        } catch (const std::runtime_error& e) {
            EXPECT_STREQ(e.what(), "disk full");
        }
        EXPECT_EQ(sink.epochs, 3) << "pipeline " << pipeline;
        EXPECT_EQ(sink.calls_after, 0);
    }
}

TEST(Decomposition, ContiguousBlocksBalancedByWeight) {
    const std::vector<double> w = {4, 1, 1, 1, 1, 4, 2, 2};  // total 16
    EXPECT_EQ(split_by_weight(w, 0, 8, 1), (std::vector<std::uint64_t>{0, 8}));
    EXPECT_EQ(split_by_weight(w, 0, 8, 2), (std::vector<std::uint64_t>{0, 5, 8}));     // 8 | 8
    EXPECT_EQ(split_by_weight(w, 0, 8, 4), (std::vector<std::uint64_t>{0, 1, 5, 6, 8}));  // 4 | 4 | 4 | 4
    EXPECT_EQ(split_by_weight(w, 5, 8, 2), (std::vector<std::uint64_t>{5, 6, 8}));     // 4 | 4
    // More parts than cells: empty parts, never a cell twice.
    const auto many = split_by_weight(w, 0, 3, 5);
    ASSERT_EQ(many.size(), 6u);
    EXPECT_EQ(many.front(), 0u);
    EXPECT_EQ(many.back(), 3u);
    for (std::size_t k = 1; k < many.size(); ++k) EXPECT_LE(many[k - 1], many[k]);
    // A boundary goes to whichever side of the share is nearer.
    EXPECT_EQ(split_by_weight({1, 1, 1}, 0, 3, 2), (std::vector<std::uint64_t>{0, 2, 3}));  // a tie: the first part
    EXPECT_EQ(split_by_weight({5}, 0, 1, 2), (std::vector<std::uint64_t>{0, 1, 1}));
    EXPECT_EQ(split_by_weight({1, 3}, 0, 2, 2), (std::vector<std::uint64_t>{0, 1, 2}));
    EXPECT_THROW(split_by_weight(w, 0, 9, 2), std::invalid_argument);
    EXPECT_THROW(split_by_weight(w, 0, 8, 0), std::invalid_argument);
}

TEST(Communicator, SerialCollectivesCopy) {
    SerialCommunicator c;
    EXPECT_EQ(c.all_gather(7), std::vector<int>{7});
    const std::vector<double> v = {1.5, 2.5};
    EXPECT_EQ(c.all_gather_v(v, {2}), v);
    EXPECT_EQ(c.gather(v), v);
    double x[2] = {3, 4};
    c.sum(x, 2);
    c.max(x, 2);
    EXPECT_EQ(x[0], 3);
    EXPECT_TRUE(c.all(true));
    EXPECT_FALSE(c.all(false));
    EXPECT_THROW(on_all_ranks(c, [] { throw std::runtime_error("mine"); }), std::runtime_error);
    EXPECT_NO_THROW(on_all_ranks(c, [] {}));
}
