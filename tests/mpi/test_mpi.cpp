// The MPI communicator and runs across ranks, in process: run by tests/mpi.cmake as
// `mpirun -np 2 mpi_tests`. Each rank also runs the model alone (serial communicator),
// and rank 0 checks that the ranks together recorded exactly the same.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "run/communicator.hpp"
#include "run/epoch_times.hpp"
#include "run/simulation.hpp"
#include "run/solver_auto.hpp"
#include "io/model_reader.hpp"
#include "io/sonata_sink.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

namespace {

std::shared_ptr<Communicator> world;

// The checkout: $ARBOLITO_SOURCE_DIR where set (a binary packed for another machine), else the build's.
std::string source_file(const std::string& rel) {
    const char* env = std::getenv("ARBOLITO_SOURCE_DIR");
    return std::string(env ? env : ARBOLITO_SOURCE_DIR) + "/" + rel;
}

struct Run {
    CaptureSink sink;
    RunReport report;
    ReportMapping mapping;
};

// first_gpu: GPU solvers' device for every rank (-1: from the local rank).
Run run_on(const std::shared_ptr<Communicator>& comm, const Model& m, const std::string& solver, int threads,
           bool pipeline, int first_gpu = -1) {
    SimOptions o;
    o.solver = parse_solver_spec(solver);
    o.threads = threads;
    o.pipeline = pipeline;
    o.comm = comm;
    o.first_gpu = first_gpu;
    Simulation sim(m, o);
    Run r;
    r.mapping = report_mapping(sim, m.run);
    long ncol = 0;
    for (long c : comm->all_gather(sim.n_columns())) ncol += c;
    r.sink.ncol = ncol;  // rank 0 receives every rank's columns
    r.report = sim.run(r.sink);
    return r;
}

void expect_same_as_serial(const Model& m, const std::string& solver, int threads, bool pipeline) {
    const std::string what = solver + ", " + std::to_string(threads) + " threads, pipeline " + (pipeline ? "on" : "off");
    const Run ref = run_on(std::make_shared<SerialCommunicator>(), m, "cpu", 1, true);
    const Run par = run_on(world, m, solver, threads, pipeline);
    EXPECT_EQ(par.report.ranks, world->size());
    EXPECT_EQ(par.report.n_spikes, ref.report.n_spikes) << what;
    EXPECT_EQ(par.report.n_events, ref.report.n_events) << what;
    EXPECT_EQ(par.report.n_cv, ref.report.n_cv) << what;
    EXPECT_GT(par.report.mpi_s, 0.0) << what;
    EXPECT_LE(par.report.mpi_s, par.report.exchange_s + par.report.run_s) << what;
    if (!world->is_root()) {
        // Ranks other than 0 record nothing.
        EXPECT_TRUE(par.sink.spikes_seen.empty()) << what;
        EXPECT_EQ(par.sink.n_frames, 0u) << what;
        return;
    }
    ASSERT_GT(ref.sink.spikes_seen.size(), 0u);
    EXPECT_EQ(par.sink.spikes_seen, ref.sink.spikes_seen) << what;  // Spike::operator==: gid, detector, exact time
    ASSERT_EQ(par.sink.n_frames, ref.sink.n_frames) << what;
    EXPECT_TRUE(par.sink.rows == ref.sink.rows) << what << ": traces differ";
    EXPECT_EQ(par.mapping.node_ids, ref.mapping.node_ids);
    EXPECT_EQ(par.mapping.index_pointers, ref.mapping.index_pointers);
    EXPECT_EQ(par.mapping.element_ids, ref.mapping.element_ids);
    EXPECT_EQ(par.mapping.element_pos, ref.mapping.element_pos);
}

void expect_all_variants(const Model& m) {
    for (bool pipeline : {true, false}) {
        expect_same_as_serial(m, "cpu", 1, pipeline);
        expect_same_as_serial(m, "omp", 2, pipeline);
    }
}

// Prints this rank's failures (the default printer runs on rank 0 only).
class RankFailures : public testing::EmptyTestEventListener {
    void OnTestPartResult(const testing::TestPartResult& r) override {
        if (r.failed())
            std::fprintf(stderr, "[rank %d] %s:%d: %s\n", world->rank(), r.file_name() ? r.file_name() : "?", r.line_number(),
                         r.summary());
    }
};

}  // namespace

// One GPU shared by the ranks (each rank's cells a group of their own on device 0): the
// same bits as one rank with every cell in one group, where each cell's layout is the
// same in both (the ring's cells are alike). Skipped without a CUDA device.
TEST(MpiGpu, RanksSharingOneGpuSameAsOneRank) {
    if (!gpu_available()) GTEST_SKIP() << "no CUDA device";
    const Model m = read_model(source_file("examples/ring.json"));
    for (const std::string solver : {"gpu-cell", "gpu-fine:step=resident", "gpu-branch"}) {
        const ::Run ref = run_on(std::make_shared<SerialCommunicator>(), m, solver, 1, true, 0);
        const ::Run par = run_on(world, m, solver, 1, true, 0);
        EXPECT_EQ(par.report.n_spikes, ref.report.n_spikes) << solver;
        if (!world->is_root()) continue;
        ASSERT_GT(ref.sink.spikes_seen.size(), 0u);
        EXPECT_EQ(par.sink.spikes_seen, ref.sink.spikes_seen) << solver;
        ASSERT_EQ(par.sink.n_frames, ref.sink.n_frames) << solver;
        EXPECT_TRUE(par.sink.rows == ref.sink.rows) << solver << ": traces differ";
    }
}

TEST(Mpi, Collectives) {
    const int rank = world->rank(), size = world->size();
    std::vector<int> expected(size);
    for (int r = 0; r < size; ++r) expected[r] = 10 * r;
    EXPECT_EQ(world->all_gather(10 * rank), expected);

    // Rank r gives r + 1 copies of r.
    std::vector<std::size_t> counts;
    std::vector<double> concat;
    for (int r = 0; r < size; ++r) {
        counts.push_back(r + 1);
        concat.insert(concat.end(), r + 1, r);
    }
    const std::vector<double> mine(rank + 1, rank);
    EXPECT_EQ(world->all_gather_v(mine, counts), concat);
    EXPECT_EQ(world->gather(mine), world->is_root() ? concat : std::vector<double>{});

    double v[2] = {1.0 * rank, 2.0};
    world->sum(v, 2);
    EXPECT_EQ(v[0], size * (size - 1) / 2.0);
    EXPECT_EQ(v[1], 2.0 * size);
    double m = rank;
    world->max(&m, 1);
    EXPECT_EQ(m, size - 1);
    EXPECT_TRUE(world->all(true));
    EXPECT_FALSE(world->all(rank != size - 1));
    EXPECT_GT(world->seconds(), 0.0);
    EXPECT_TRUE(world->thread_serialized()) << world->describe();
}

// A step that fails on the last rank only: it gets its own error, the others PeerFailure.
TEST(Mpi, FailureOnOneRankStopsAll) {
    const bool last = world->rank() == world->size() - 1;
    try {
        on_all_ranks(*world, [&] {
            if (last) throw std::runtime_error("only here");
        });
        ADD_FAILURE() << "no exception";
    } catch (const PeerFailure&) {
        EXPECT_FALSE(last);
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(last);
        EXPECT_STREQ(e.what(), "only here");
    }
    EXPECT_EQ(world->all_gather(1).size(), static_cast<std::size_t>(world->size()));  // still in step
}

TEST(Mpi, RanksHoldContiguousBlocks) {
    const Model m = read_model(source_file("tests/data/networks/busyring16_short.json"));
    SimOptions o;
    o.comm = world;
    Simulation sim(m, o);
    struct Block {
        std::uint64_t first, second;
    };
    const auto blocks = world->all_gather(Block{sim.gid_begin(), sim.gid_end()});
    EXPECT_EQ(blocks.front().first, 0u);
    EXPECT_EQ(blocks.back().second, m.cells.size());
    for (std::size_t r = 1; r < blocks.size(); ++r) EXPECT_EQ(blocks[r].first, blocks[r - 1].second);
    for (const auto& b : blocks) EXPECT_LT(b.first, b.second) << "a rank without cells";
}

// --timeline's epoch table with several ranks, each of several CPU groups (omp, 2
// threads): rank 0 holds every rank's epochs, all ranks ending at the same epoch, each
// with its groups' integration; the breakdown's parts add up to its wall time.
TEST(Mpi, EpochTableOfEveryRank) {
    const Model m = read_model(source_file("tests/data/networks/busyring16_short.json"));
    SimOptions o;
    o.comm = world;
    o.solver = parse_solver_spec("omp");
    o.threads = 2;
    o.epoch_times = true;
    Simulation sim(m, o);
    CaptureSink sink;
    long ncol = 0;
    for (long c : world->all_gather(sim.n_columns())) ncol += c;
    sink.ncol = ncol;
    sim.run(sink);
    const auto& table = sim.epoch_table();
    const auto groups = world->all_gather(sim.n_groups());
    if (!world->is_root()) {
        EXPECT_TRUE(table.empty());
        return;
    }
    ASSERT_EQ(static_cast<int>(table.size()), world->size());
    const long epoch = sim.epoch_steps(), epochs = (std::lround(m.run.tfinal / m.run.dt) + epoch - 1) / epoch;
    for (int r = 0; r < world->size(); ++r) {
        ASSERT_EQ(static_cast<long>(table[r].size()), epochs) << "rank " << r;
        for (long k = 0; k < epochs; ++k) {
            EXPECT_EQ(table[r][k].step, k * epoch);
            ASSERT_EQ(static_cast<int>(table[r][k].integrate.size()), groups[r]);
            for (double s : table[r][k].integrate) EXPECT_LE(s, table[r][k].update);
        }
    }
    const EpochBreakdown b = epoch_breakdown(table);
    int all_groups = 0;
    for (int g : groups) all_groups += g;
    EXPECT_EQ(b.groups, all_groups);
    EXPECT_GE(b.imbalance, 0.0);
    // Differences of the same sums: equal but for rounding.
    EXPECT_NEAR(b.integrate_mean + b.imbalance + b.update_rest + b.exposed + b.rest, b.wall, 1e-9);
}

TEST(Mpi, RingSameAsOneRank) { expect_all_variants(read_model(source_file("examples/ring.json"))); }

TEST(Mpi, Busyring16SameAsOneRank) {
    expect_all_variants(read_model(source_file("tests/data/networks/busyring16_short.json")));
}

// Read to run, busyring's connections are drawn on demand: each rank draws only those onto
// its own cells (model/connection_rules.hpp); the one-rank reference draws them all.
TEST(Mpi, Busyring16DrawnPerRankSameAsOneRank) {
    expect_all_variants(read_model(source_file("tests/data/networks/busyring16_short.json"), {}, ReadFor::run));
}

TEST(Mpi, SimultaneousSpikesSameAsOneRank) {
    expect_all_variants(read_model(source_file("tests/data/networks/simultaneous.json")));
}

// Rank 0's sink fails mid-run (a full disk): every rank stops at the next exchange, rank 0
// with the sink's error, the others with PeerFailure, and the ranks stay in step.
TEST(Mpi, SinkFailureOnRankZeroStopsEveryRank) {
    struct Failing : CaptureSink {
        int epochs = 0;
        void epoch_done(double) override {
            if (++epochs == 3) throw std::runtime_error("disk full");
        }
    };
    const Model m = read_model(source_file("examples/ring.json"));
    for (bool pipeline : {true, false}) {
        SimOptions o;
        o.comm = world;
        o.pipeline = pipeline;
        Simulation sim(m, o);
        Failing sink;
        sink.ncol = 16;
        try {
            sim.run(sink);
            ADD_FAILURE() << "run did not throw";
        } catch (const PeerFailure&) {
            EXPECT_FALSE(world->is_root());
        } catch (const std::runtime_error& e) {
            EXPECT_TRUE(world->is_root());
            EXPECT_STREQ(e.what(), "disk full");
        }
        if (world->is_root()) EXPECT_EQ(sink.epochs, 3);
        EXPECT_EQ(world->all_gather(1).size(), static_cast<std::size_t>(world->size()));
    }
}

int main(int argc, char** argv) {
    world = make_world_communicator(argc, argv);
    testing::InitGoogleTest(&argc, argv);
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    if (!world->is_root()) {
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new RankFailures);
    }
    if (world->size() < 2) {
        std::fprintf(stderr, "mpi_tests: needs at least 2 ranks (mpirun -np 2), got %d\n", world->size());
        return 1;
    }
    const int rc = RUN_ALL_TESTS();
    const bool all_passed = world->all(rc == 0);
    world.reset();  // MPI_Finalize
    return all_passed ? 0 : 1;
}
