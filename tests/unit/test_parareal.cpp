// Parallel in time (parareal/parareal.hpp) against the sequential run of the same
// solver: K iterations give the sequential record, the error falls with every iteration,
// the converged record lies within bounds derived from tol, spikes are the same; and the
// refusals (connections, tol <= 0, slices < 2).
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lowered_cell/cell_state_map.hpp"
#include "parareal/parareal.hpp"
#include "run/simulation.hpp"
#include "io/model_reader.hpp"
#include "tests/support/parareal_runs.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

using parareal_test::expect_converged_within;
using parareal_test::expect_error_falls_every_iteration;
using parareal_test::expect_k_passes_give_sequential;
using parareal_test::expect_state_moves_between_groups;
using parareal_test::parareal_run;
using parareal_test::sequential_run;

// With K fine passes every slice starts from the sequential state bit for bit (a start
// that did not change takes F's end state as it is), so the traces are the same bits: the
// copies' arithmetic per step is the sequential run's, and a clamp shifted by k slices
// differs only where its edge falls on a step's midpoint (none here). Spike times are a
// slice's local time plus k·T_slice: one addition rounded differently, within an ulp of
// 40 ms (7e-15 ms), hence 1e-12 ms. The generators put events on, just before and just
// after slice boundaries (5 ms slices) and two in one step.
TEST(Parareal, KIterationsGiveTheSequentialRun) {
    const Model m = read_model(test_data("parareal/hh_cells.json"));
    for (const std::string solver : {"cpu", "omp"}) {
        // omp's G on cpu:lanes=1: states move between solvers of different numberings.
        const std::string spec = solver == "omp" ? "parareal:slices=8,tol=1e-300,coarse-solver=cpu:lanes=1"
                                                 : "parareal:slices=8,tol=1e-300";
        // At least 4 spikes: both cells fire, through slice boundaries.
        expect_k_passes_give_sequential(m, solver, spec, 8, 2, 0.0, 1e-12, solver, 4);
    }
}

// The largest difference to the sequential traces after j fine passes falls with j, to 0
// at K. On the passive cable the parareal error contracts by the coarse propagator's error
// each iteration (linear problem); on hh cells by more or less per iteration, but it still
// must fall strictly while it is not 0.
TEST(Parareal, ErrorFallsWithEveryIteration) {
    for (const std::string model : {"passive_cable", "hh_cells"})
        expect_error_falls_every_iteration(read_model(test_data("parareal/" + model + ".json")), "cpu",
                                           "parareal:slices=6,tol=1e-300", 6, 1, model);
}

// Converged at tol: the record is the last fine pass's, from start states U_j that differ
// from the accepted U_{j+1} by less than tol. Parareal contracts the error by a factor
// rho per iteration (measured at slices=8: about 1e-2 on the cable, up to 0.08 on the hh
// cells; take rho <= 0.1), so |U_j − U*| <= tol/(1 − rho)
// < 1.2·tol, and a fine slice from U_j does not amplify an error on the passive cable
// (the implicit step is a contraction). hh cells amplify it around a spike's upstroke: the
// bound there is 10·tol, and the spikes must still be the same (times within 1e-6 ms: a
// 1e-5 mV error on a 100 mV/ms upstroke moves a crossing by 1e-7 ms).
TEST(Parareal, ConvergedTracesWithinTolBounds) {
    const double tol = 1e-6;
    struct Case {
        std::string model;
        double bound;
    };
    for (const Case& c : {Case{"passive_cable", 1.2 * tol}, Case{"hh_cells", 10 * tol}})
        expect_converged_within(read_model(test_data("parareal/" + c.model + ".json")), "cpu",
                                "parareal:slices=8,tol=1e-6", 8, 1, tol, c.bound, c.model);
}

// A slice count that does not divide the run: the last slice is shorter (or longer) and
// stops at tfinal; coarse=3 with 4 steps per sample makes slices of whole 12-step units.
TEST(Parareal, UnevenSlicesAndCoarseSteps) {
    Model m = read_model(test_data("parareal/hh_cells.json"));
    m.run.tfinal = 37.5;
    const RecordedRun seq = sequential_run(m, "cpu");
    PararealReport rep;
    const RecordedRun par = parareal_run(m, "cpu", "parareal:slices=7,coarse=3,tol=1e-300", 2, &rep);
    EXPECT_EQ(rep.slice_steps % 12, 0);
    EXPECT_EQ(rep.iterations, 7);
    EXPECT_EQ(par.n_frames(), seq.n_frames());
    EXPECT_EQ(max_trace_difference(par, seq), 0.0);  // K passes: exact (see the first test)
    EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), 1e-12);
    // 1600 steps in 24 slices of whole 20-step units: 66.7 rounds up to 80 (the last slice
    // would be empty), so down to 60 and a last slice of 220 steps.
    m.run.tfinal = 40;
    const RecordedRun seq16 = sequential_run(m, "cpu");
    const RecordedRun par16 = parareal_run(m, "cpu", "parareal:slices=24,tol=1e-300", 2, &rep);
    EXPECT_EQ(rep.slice_steps, 60);
    EXPECT_EQ(max_trace_difference(par16, seq16), 0.0);
    EXPECT_LE(max_spike_difference(par16.spikes_seen, seq16.spikes_seen), 1e-12);
}

// A group's state moved into another group of the same cells makes it continue exactly.
TEST(Parareal, StateMovesBetweenGroups) {
    const Model m = read_model(test_data("parareal/hh_cells.json"));
    expect_state_moves_between_groups(m, "cpu");
    const SolverSpec spec = parse_solver_spec("cpu");
    auto a = spec.solver->make_group(m, 0, 2, spec.options, StepSettings{}, 0);
    const auto pos = cell_state_positions(a->data());
    ASSERT_EQ(pos.size(), 2u);
    EXPECT_EQ(pos[0].size(), pos[1].size());  // two copies of one cell
    EXPECT_THROW(a->set_state(std::vector<double>(3)), std::invalid_argument);
}

TEST(Parareal, Refusals) {
    auto error = [](auto f) -> std::string {
        try {
            f();
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return "";
    };
    const Model ring = read_model(std::string(ARBOLITO_SOURCE_DIR) + "/examples/ring.json");
    EXPECT_NE(error([&] { check_time_parallel(ring, PararealSettings{}, true); }).find("connections"), std::string::npos);
    EXPECT_NE(error([] { parse_time_parallel("parareal:tol=0"); }).find("tol=0: must be"), std::string::npos);
    EXPECT_NE(error([] { parse_time_parallel("parareal:tol=-1e-6"); }).find("tol=-1e-6"), std::string::npos);
    EXPECT_NE(error([] { parse_time_parallel("parareal:slices=1"); }).find("slices=1: must be at least 2"),
              std::string::npos);
    EXPECT_NE(error([] { parse_time_parallel("parareal:slice=4"); }).find("unknown key 'slice'"), std::string::npos);
    EXPECT_NE(error([] { parse_time_parallel("pararea"); }).find("unknown method"), std::string::npos);
    EXPECT_NE(error([] { parse_time_parallel("parareal:coarse=x"); }).find("coarse=x"), std::string::npos);
    EXPECT_NE(error([] { parse_time_parallel("parareal:coarse-solver=fast"); }).find("coarse-solver=fast"),
              std::string::npos);
    // One grammar with --solver: ':' throughout, a coarse solver's own options after it;
    // the older ',' still reads the same (and the command line warns).
    for (const char* text : {"parareal:slices=16:tol=1e-8:coarse=5:coarse-solver=cpu:lanes=1:verify=on",
                             "parareal:slices=16,tol=1e-8,coarse=5,coarse-solver=cpu:lanes=1,verify=on"}) {
        const PararealSettings p = parse_time_parallel(text);
        EXPECT_EQ(p.slices, 16) << text;
        EXPECT_EQ(p.tol, 1e-8) << text;
        EXPECT_EQ(p.coarse, 5) << text;
        ASSERT_TRUE(p.coarse_solver) << text;
        EXPECT_EQ(p.coarse_solver->text(), "cpu:lanes=1") << text;
        EXPECT_TRUE(p.verify) << text;
    }
    EXPECT_FALSE(time_parallel_is_deprecated("parareal:slices=16:tol=1e-8"));
    EXPECT_TRUE(time_parallel_is_deprecated("parareal:slices=16,tol=1e-8"));
    EXPECT_NE(error([] { parse_time_parallel("parareal:coarse-solver=cpu:warp=1"); }).find("coarse-solver=cpu:warp=1"),
              std::string::npos);
    EXPECT_EQ(parse_time_parallel("parareal:coarse-solver=cpu:slices=4").slices, 4);  // slices is parareal's
    // 40 ms at 0.025 ms: 1600 steps do not fill 400 slices of 40 steps (lcm of 4 and 10).
    const Model cell = read_model(test_data("parareal/passive_cable.json"));
    PararealSettings many;
    many.slices = 400;
    EXPECT_NE(error([&] { check_time_parallel(cell, many, true); }).find("slices=400"), std::string::npos);
}
