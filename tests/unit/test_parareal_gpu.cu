// Parallel in time on the GPU solvers (engine/parareal.hpp): the fine propagator is one
// GPU group holding a copy of the cells per slice, so this checks the batch and the
// device state copies (CellGroup::state/set_state) against the sequential run of the
// same solver. Skips without a device.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/parareal.hpp"
#include "engine/simulation.hpp"
#include "io/model_reader.hpp"
#include "tests/support/gpu_skip.hpp"

using namespace arbolito;

namespace {

// The checkout: $ARBOLITO_SOURCE_DIR (binaries run on another machine) or the build's.
std::string parareal_model(const std::string& name) {
    const char* env = std::getenv("ARBOLITO_SOURCE_DIR");
    return std::string(env ? env : ARBOLITO_SOURCE_DIR) + "/tests/data/parareal/" + name + ".json";
}

RecordedRun sequential_gpu(const Model& m, const std::string& solver) {
    SimOptions o;
    o.solver = solver;
    Simulation sim(m, o);
    RecordedRun r;
    r.n_columns = sim.n_columns();
    sim.run(r);
    return r;
}

RecordedRun parallel_gpu(const Model& m, const std::string& solver, const std::string& spec, long ncol,
                         PararealReport& rep) {
    RecordedRun r;
    r.n_columns = ncol;
    rep = run_parareal(m, parse_solver_spec(solver), 1, true, parse_time_parallel(spec), r);
    return r;
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
        const RecordedRun seq = sequential_gpu(m, solver);
        PararealReport rep;
        const RecordedRun par = parallel_gpu(m, solver, "parareal:slices=8,tol=1e-300", seq.n_columns, rep);
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
        const RecordedRun seq = sequential_gpu(m, "gpu-fine");
        PararealReport rep;
        const RecordedRun par = parallel_gpu(m, "gpu-fine", "parareal:slices=8,tol=1e-6", seq.n_columns, rep);
        EXPECT_LT(rep.iterations, 8) << name;
        EXPECT_LE(max_trace_difference(par, seq), bound) << name;
        EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), 1e-6) << name;
    }
}

// The device state copied out and into a second group makes it continue exactly.
TEST(PararealGpu, StateMovesBetweenGroups) {
    SKIP_WITHOUT_GPU();
    const Model m = read_model(parareal_model("hh_cells"));
    const SolverSpec spec = parse_solver_spec("gpu-fine");
    StepSettings st;
    auto a = spec.solver->make_group(m, 0, 2, spec.options, st, 0);
    auto b = spec.solver->make_group(m, 0, 2, spec.options, st, 0);
    std::vector<Spike> sp;
    std::vector<double> fr;
    a->advance(0, 400, {}, sp, fr);
    b->set_state(a->state());
    a->advance(400, 500, {}, sp, fr);
    b->advance(400, 500, {}, sp, fr);
    EXPECT_EQ(a->state(), b->state());
}

// G on coarser CVs on the host under a gpu-fine F (coarse-cvs, the device study's set-up):
// K passes give the sequential run (1e-9 mV, as above: G never enters an unchanged start),
// and converged at tol = 1e-6 within the CPU test's bounds (test_parareal_coarse_cvs.cpp),
// the same spikes.
TEST(PararealGpu, CoarseCvsOnTheHost) {
    SKIP_WITHOUT_GPU();
    const Model m = read_model(parareal_model("hh_cells"));
    const RecordedRun seq = sequential_gpu(m, "gpu-fine");
    PararealReport rep;
    RecordedRun par =
        parallel_gpu(m, "gpu-fine", "parareal:slices=8,tol=1e-300,coarse-cvs=4,coarse-solver=cpu", seq.n_columns, rep);
    EXPECT_EQ(rep.iterations, 8);
    EXPECT_LE(max_trace_difference(par, seq), 1e-9);
    EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), 1e-9);
    par = parallel_gpu(m, "gpu-fine", "parareal:slices=8,tol=1e-6,coarse-cvs=4,coarse-solver=cpu", seq.n_columns, rep);
    EXPECT_LT(rep.iterations, 8);
    EXPECT_LE(max_trace_difference(par, seq), 1e-5);
    ASSERT_EQ(par.spikes_seen.size(), seq.spikes_seen.size());
    EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), 1e-6);
}
