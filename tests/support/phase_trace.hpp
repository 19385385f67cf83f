#pragma once
// The phases a whole run's groups step through (CellGroup::trace_phases), and the check
// that they are whole steps in lowered_cell/step_sequence.hpp's order: shared by the CPU
// and GPU tests of the one step sequence.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lowered_cell/step_sequence.hpp"
#include "run/simulation.hpp"
#include "tests/support/whole_run_models.hpp"

namespace arbolito::test_models {

// Every group's trace of a whole run of m on `solver`. (Simulation hands its groups out
// const; they are not const objects, so the cast to start the trace is defined.)
inline std::vector<std::vector<Phase>> traced_phases(const Model& m, const std::string& solver) {
    SimOptions o;
    o.solver = parse_solver_spec(solver);
    o.gpus = 1;  // one group: the run splits over every visible GPU otherwise
    Simulation sim(m, o);
    std::vector<std::vector<Phase>> traces(sim.n_groups());
    for (int g = 0; g < sim.n_groups(); ++g) const_cast<CellGroup&>(sim.group(g)).trace_phases(&traces[g]);
    Recorded rec;
    rec.ncol = sim.n_columns();
    sim.run(rec);
    for (int g = 0; g < sim.n_groups(); ++g) const_cast<CellGroup&>(sim.group(g)).trace_phases(nullptr);
    return traces;
}

// `trace` is `steps` whole steps, each every Phase in order.
inline ::testing::AssertionResult whole_steps_in_order(const std::vector<Phase>& trace, long steps) {
    if (trace.size() != static_cast<std::size_t>(steps) * n_phases)
        return ::testing::AssertionFailure() << trace.size() << " phases, not " << steps << " steps of " << n_phases;
    for (std::size_t i = 0; i < trace.size(); ++i)
        if (trace[i] != static_cast<Phase>(i % n_phases))
            return ::testing::AssertionFailure() << "phase " << i % n_phases << " of step " << i / n_phases << " is "
                                                 << phase_name(trace[i]) << ", not "
                                                 << phase_name(static_cast<Phase>(i % n_phases));
    return ::testing::AssertionSuccess();
}

}  // namespace arbolito::test_models
