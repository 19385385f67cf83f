#pragma once
// Runs and checks shared by the parareal tests (test_parareal.cpp, test_parareal_coarse_cvs.cpp,
// test_parareal_gpu.cu): a model's record in memory run sequentially or parallel in time,
// the error falling with every iteration, and a group's state moved into another group.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "parareal/parareal.hpp"
#include "run/simulation.hpp"

namespace arbolito::parareal_test {

// The record of the usual time stepping with `solver`.
inline RecordedRun sequential_run(const Model& m, const std::string& solver, int threads = 1) {
    SimOptions o;
    o.solver = parse_solver_spec(solver);
    o.threads = threads;
    Simulation sim(m, o);
    RecordedRun r;
    r.n_columns = sim.n_columns();
    sim.run(r);
    return r;
}

// The record of `--time-parallel spec` with `solver`; its report to `rep` if given.
inline RecordedRun parareal_run(const Model& m, const std::string& solver, const std::string& spec, int threads = 1,
                                PararealReport* rep = nullptr) {
    RecordedRun r;
    PararealRun run(m, parse_solver_spec(solver), threads, true, parse_time_parallel(spec));
    r.n_columns = run.n_columns();
    const PararealReport got = run.run(r);
    if (rep) *rep = got;
    return r;
}

// After j = 1 .. K fine passes (`spec` + ",iterations=j", K slices) the largest trace
// difference to the sequential run falls with j, to 0 at K.
inline void expect_error_falls_every_iteration(const Model& m, const std::string& solver, const std::string& spec,
                                               int K, int threads, const std::string& what) {
    const RecordedRun seq = sequential_run(m, solver);
    double last = INFINITY;
    for (int j = 1; j <= K; ++j) {
        const RecordedRun par = parareal_run(m, solver, spec + ",iterations=" + std::to_string(j), threads);
        const double err = max_trace_difference(par, seq);
        if (last > 0) EXPECT_LT(err, last) << what << " after " << j << " iterations";
        last = err;
    }
    EXPECT_EQ(last, 0.0) << what;
}

// K slices and K fine passes (`spec`'s tol unreachable) give the sequential run: traces
// within trace_tol mV (0: the same bits), the same spikes with times within spike_tol
// ms, and at least min_spikes of them. Returns the parareal run's report for the caller's
// own checks.
inline PararealReport expect_k_passes_give_sequential(const Model& m, const std::string& solver, const std::string& spec,
                                                      int K, int threads, double trace_tol, double spike_tol,
                                                      const std::string& what, std::size_t min_spikes = 0) {
    const RecordedRun seq = sequential_run(m, solver);
    EXPECT_GE(seq.spikes_seen.size(), min_spikes) << what;
    PararealReport rep;
    const RecordedRun par = parareal_run(m, solver, spec, threads, &rep);
    EXPECT_EQ(rep.iterations, K) << what;
    EXPECT_EQ(par.rows.size(), seq.rows.size()) << what;
    EXPECT_LE(max_trace_difference(par, seq), trace_tol) << what;
    EXPECT_EQ(par.spikes_seen.size(), seq.spikes_seen.size()) << what;
    EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), spike_tol) << what;
    return rep;
}

// Converged at tol before the K passes: the change between iterations falls strictly, to
// below tol; the traces within `bound` mV of the sequential run (the tests say why each
// bound); the same spikes, times within 1e-6 ms. Returns the report.
inline PararealReport expect_converged_within(const Model& m, const std::string& solver, const std::string& spec,
                                              int K, int threads, double tol, double bound, const std::string& what) {
    const RecordedRun seq = sequential_run(m, solver);
    PararealReport rep;
    const RecordedRun par = parareal_run(m, solver, spec, threads, &rep);
    EXPECT_LT(rep.iterations, K) << what;  // converged before the K passes that are exact anyway
    EXPECT_FALSE(rep.change.empty()) << what;
    if (!rep.change.empty()) EXPECT_LT(rep.change.back(), tol) << what;
    for (std::size_t i = 1; i < rep.change.size(); ++i) EXPECT_LT(rep.change[i], rep.change[i - 1]) << what;
    EXPECT_LE(max_trace_difference(par, seq), bound) << what;
    EXPECT_EQ(par.spikes_seen.size(), seq.spikes_seen.size()) << what;
    EXPECT_LE(max_spike_difference(par.spikes_seen, seq.spikes_seen), 1e-6) << what;
    return rep;
}

// Cells 0 and 1 of `m` in two groups of `solver`: the first's state set into the second
// makes both continue with the same bits.
inline void expect_state_moves_between_groups(const Model& m, const std::string& solver) {
    const SolverSpec spec = parse_solver_spec(solver);
    StepSettings st;
    auto a = spec.solver->make_group(m, 0, 2, spec.options, st, 0);
    auto b = spec.solver->make_group(m, 0, 2, spec.options, st, 0);
    std::vector<Spike> sp;
    std::vector<double> fr;
    a->advance(0, 400, {}, sp, fr);
    EXPECT_EQ(a->state().size(), state_size(a->data())) << solver;
    b->set_state(a->state());
    a->advance(400, 500, {}, sp, fr);
    b->advance(400, 500, {}, sp, fr);
    EXPECT_EQ(a->state(), b->state()) << solver;
}

}  // namespace arbolito::parareal_test
