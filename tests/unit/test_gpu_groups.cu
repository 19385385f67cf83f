// Several GPU cell groups in one process (SimOptions::gpus, docs/gpu-backend.md, "Several
// GPUs"): one group per device, each with its own stream and host thread; with fewer
// devices than groups, groups share them, so one GPU runs this test too. Where each cell's
// layout is the same in every group (identical cells, or one cell per block), a cell's
// arithmetic does not depend on its group: spikes, traces and final voltages are the same
// bits as with one group.
#include <cstdint>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "core/gpu/device_scope.hpp"
#include "lowered_cell/voltage_blowup.hpp"
#include "run/gpu_binding.hpp"
#include "run/simulation.hpp"
#include "tests/support/gpu_skip.hpp"
#include "tests/support/whole_run_models.hpp"
#include "tests/support/whole_run_result.hpp"

using namespace arbolito;
using test_models::mixed_model;
using test_models::Recorded;
using test_models::source_path;

namespace {

using Result = test_models::RunResult;

Result run_groups(const Model& m, const std::string& solver, int gpus, bool pipeline = true) {
    SimOptions o;
    o.solver = parse_solver_spec(solver);
    o.gpus = gpus;
    o.first_gpu = 0;
    o.pipeline = pipeline;
    Simulation sim(m, o);
    EXPECT_EQ(sim.n_groups(), gpus) << solver;
    const int visible = visible_gpus();
    for (int g = 0; g < sim.n_groups(); ++g) EXPECT_EQ(sim.group_device(g), g % visible) << solver << ", group " << g;
    return test_models::run_to_end(sim);
}

void expect_same_bits_as_one_group(const Model& m, const std::string& solver, const std::string& what) {
    const Result one = run_groups(m, solver, 1);
    ASSERT_GT(one.rec.spikes_seen.size(), 0u) << what;
    for (int gpus : {2, 3}) {
        SCOPED_TRACE(what + ", " + solver + ", " + std::to_string(gpus) + " groups");
        const Result several = run_groups(m, solver, gpus);
        EXPECT_EQ(several.rec.spikes_seen, one.rec.spikes_seen);
        EXPECT_TRUE(several.rec.rows == one.rec.rows) << "traces differ";
        EXPECT_TRUE(several.v_end == one.v_end) << "final voltages differ";
    }
    std::cout << "[ info     ] " << what << ", " << solver << ": " << one.rec.spikes_seen.size() << " spikes, "
              << one.rec.rows.size() << " samples, the same bits in 1, 2 and 3 groups\n";
}

}  // namespace

// The ring's cells are alike: every solver lays each one out the same in any group.
TEST(GpuGroups, RingSameBitsAsOneGroup) {
    SKIP_WITHOUT_GPU();
    const Model ring = read_model(source_path("examples/ring.json"));
    for (const std::string solver : {"gpu-cell", "gpu-fine", "gpu-fine:step=resident", "gpu-branch:coupling=fold",
                                     "gpu-branch:coupling=edd"})
        expect_same_bits_as_one_group(ring, solver, "ring");
}

// Cells of very different sizes, every mechanism, at most one point instance per CV:
// gpu-cell's bits do not depend on a cell's block or place (GpuCellGroup.
// LayoutLeavesEachCellIdentical), and with block=1 gpu-fine gives every cell a block of
// its own in any group, streaming and resident.
TEST(GpuGroups, MixedSizesSameBitsAsOneGroup) {
    SKIP_WITHOUT_GPU();
    const Model m = mixed_model(false);
    for (const std::string solver : {"gpu-cell", "gpu-cell:layout=flat", "gpu-fine:block=1", "gpu-fine:step=resident:block=1"})
        expect_same_bits_as_one_group(m, solver, "mixed sizes");
}

// The exchange packs each group's next epoch on its own thread while the groups run on
// theirs: pipelined and unpipelined give the same bits.
TEST(GpuGroups, PipelinedAndUnpipelinedSameBits) {
    SKIP_WITHOUT_GPU();
    const Model m = test_models::busyring(64, 20, 20);
    for (const std::string solver : {"gpu-cell", "gpu-fine:step=resident"}) {
        const Result piped = run_groups(m, solver, 2, true), unpiped = run_groups(m, solver, 2, false);
        EXPECT_GT(piped.rec.spikes_seen.size(), 10u) << solver;
        EXPECT_EQ(piped.rec.spikes_seen, unpiped.rec.spikes_seen) << solver;
        EXPECT_TRUE(piped.rec.rows == unpiped.rec.rows) << solver;
    }
}

// A voltage blown up in the second group (its cell's iclamp, at 25 ms) stops the run at
// that epoch's end, naming that cell, as with one group; the groups are then destroyed on
// the main thread, each on its own device.
TEST(GpuGroups, BlowUpInSecondGroupStopsTheRun) {
    SKIP_WITHOUT_GPU();
    Model m = read_model(source_path("tests/data/blowups/iclamp_1e300.json"));
    ASSERT_EQ(m.cells.size(), 1u);
    m.cells.insert(m.cells.begin(), m.cells[0]);
    m.cells[0].stimuli.clear();  // gid 0 stays well; gid 1 blows up
    for (int gpus : {1, 2}) {
        SimOptions o;
        o.solver = parse_solver_spec("gpu-fine:step=resident");
        o.gpus = gpus;
        o.first_gpu = 0;
        Simulation sim(m, o);
        ASSERT_EQ(sim.n_groups(), gpus);
        Recorded rec;
        rec.ncol = sim.n_columns();
        try {
            sim.run(rec);
            ADD_FAILURE() << gpus << " groups: no blow-up reported";
        } catch (const VoltageBlowUp& e) {
            EXPECT_EQ(e.gid, 1u) << gpus << " groups";
            EXPECT_DOUBLE_EQ(e.t_found, 30.0) << gpus << " groups";  // the end of the epoch [20, 30) ms
        }
    }
}

// A scope gives a thread its earlier device back only where the process works on that
// device: a thread that never chose one reports device 0, and making 0 current again
// would create a context there, which slowed ranks bound to other GPUs (docs/mpi.md).
TEST(GpuGroups, ScopeRestoresOnlyDevicesInUse) {
    SKIP_WITHOUT_GPU();
    if (visible_gpus() < 2) GTEST_SKIP() << "needs two visible GPUs";
    auto& mask = gpu::devices_in_use_mask();
    const std::uint64_t saved = mask.load();
    const auto device_after_scope = [](int device) {
        int after = -1;
        std::thread([&] {
            { gpu::DeviceScope on(device); }
            EXPECT_EQ(cudaGetDevice(&after), cudaSuccess);
        }).join();
        return after;
    };
    mask = 0;
    EXPECT_EQ(device_after_scope(1), 1);  // device 0 not in use: left on the scope's
    gpu::note_device_in_use(0);
    EXPECT_EQ(device_after_scope(1), 0);  // in use: given back
    mask = saved;
}
