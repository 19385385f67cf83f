#pragma once
// A whole run's frames and spikes with every CV's voltage at its end, for the tests that
// compare runs across solvers, groups and layouts.
#include <vector>

#include "run/simulation.hpp"
#include "tests/support/whole_run_models.hpp"

namespace arbolito::test_models {

struct RunResult {
    Recorded rec;               // the recorded frames and the spikes
    std::vector<double> v_end;  // every CV at the end, natural order, groups in gid order
};

// Runs `sim` to its end into a RunResult.
inline RunResult run_to_end(Simulation& sim) {
    RunResult r;
    r.rec.ncol = sim.n_columns();
    sim.run(r.rec);
    for (int g = 0; g < sim.n_groups(); ++g) {
        const auto v = sim.group(g).voltages();
        r.v_end.insert(r.v_end.end(), v.begin(), v.end());
    }
    return r;
}

}  // namespace arbolito::test_models
