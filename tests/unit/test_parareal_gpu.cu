// Parallel in time on the GPU solvers (parareal/parareal.hpp): the fine propagator is one
// GPU group holding a copy of the cells per slice, so this checks the batch and the
// device state copies (CellGroup::state/set_state) against the sequential run of the
// same solver. Skips without a device.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "parareal/parareal.hpp"
#include "run/simulation.hpp"
#include "io/model_reader.hpp"
#include "tests/support/gpu_skip.hpp"
#include "tests/support/parareal_runs.hpp"

using namespace arbolito;
using parareal_test::expect_state_moves_between_groups;
using parareal_test::parareal_run;
using parareal_test::sequential_run;

namespace {

// The checkout: $ARBOLITO_SOURCE_DIR (binaries run on another machine) or the build's.
std::string parareal_model(const std::string& name) {
    const char* env = std::getenv("ARBOLITO_SOURCE_DIR");
    return std::string(env ? env : ARBOLITO_SOURCE_DIR) + "/tests/data/parareal/" + name + ".json";
}

}  // namespace

// K passes: every slice starts from the sequential state, and each copy in the batch is
// stepped by the same kernels as the one cell of the sequential run. 1e-9 mV leaves room
// for a solve schedule that the batch's size may change (gpu-fine packs cells into blocks),
// six orders below any physical effect; spikes the same, times within 1e-9 ms.
TEST(PararealGpu, KIterationsGiveTheSequentialRun) {
    SKIP_WITHOUT_GPU();
    const Model m = read_model(parareal_model("hh_cells"));
    for (const std::string solver : {"gpu-cell", "gpu-fine"}) {
        const RecordedRun seq = sequential_run(m, solver);
        PararealReport rep;
        const RecordedRun par = parareal_run(m, solver, "parareal:slices=8,tol=1e-300", 1, &rep);
        EXPECT_EQ(rep.iterations, 8) << solver;
        ASSERT_EQ(par.rows.size(), seq.rows.size()) << solver;
        EXPECT_LE(max_trace_difference(par, seq), 1e-9) << solver;
        EXPECT_GE(seq.spikes_seen.size(), 4u);
        EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), 1e-9) << solver;
    }
}

// Converged at tol = 1e-6: the bounds of the CPU test (tests/unit/test_parareal.cpp,
// ConvergedTracesWithinTolBounds), which says why: 1.2·tol on the passive cable, 10·tol on
// hh cells, the same spikes.
TEST(PararealGpu, ConvergedTracesWithinTolBounds) {
    SKIP_WITHOUT_GPU();
    for (const auto& [name, bound] : std::vector<std::pair<std::string, double>>{{"passive_cable", 1.2e-6}, {"hh_cells", 1e-5}}) {
        const Model m = read_model(parareal_model(name));
        const RecordedRun seq = sequential_run(m, "gpu-fine");
        PararealReport rep;
        const RecordedRun par = parareal_run(m, "gpu-fine", "parareal:slices=8,tol=1e-6", 1, &rep);
        EXPECT_LT(rep.iterations, 8) << name;
        EXPECT_LE(max_trace_difference(par, seq), bound) << name;
        EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), 1e-6) << name;
    }
}

// The device state copied out and into a second group makes it continue exactly.
TEST(PararealGpu, StateMovesBetweenGroups) {
    SKIP_WITHOUT_GPU();
    expect_state_moves_between_groups(read_model(parareal_model("hh_cells")), "gpu-fine");
}

// G on coarser CVs on the host under a gpu-fine F (coarse-cvs, the device study's set-up):
// K passes give the sequential run (1e-9 mV, as above: G never enters an unchanged start),
// and converged at tol = 1e-6 within the CPU test's bounds (test_parareal_coarse_cvs.cpp),
// the same spikes.
TEST(PararealGpu, CoarseCvsOnTheHost) {
    SKIP_WITHOUT_GPU();
    const Model m = read_model(parareal_model("hh_cells"));
    const RecordedRun seq = sequential_run(m, "gpu-fine");
    PararealReport rep;
    RecordedRun par =
        parareal_run(m, "gpu-fine", "parareal:slices=8,tol=1e-300,coarse-cvs=4,coarse-solver=cpu", 1, &rep);
    EXPECT_EQ(rep.iterations, 8);
    EXPECT_LE(max_trace_difference(par, seq), 1e-9);
    EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), 1e-9);
    par = parareal_run(m, "gpu-fine", "parareal:slices=8,tol=1e-6,coarse-cvs=4,coarse-solver=cpu", 1, &rep);
    EXPECT_LT(rep.iterations, 8);
    EXPECT_LE(max_trace_difference(par, seq), 1e-5);
    ASSERT_EQ(par.spikes_seen.size(), seq.spikes_seen.size());
    EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), 1e-6);
}
