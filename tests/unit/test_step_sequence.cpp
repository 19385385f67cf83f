// The one step sequence (lowered_cell/step_sequence.hpp): run_step calls every phase, each
// after its enter, in Phase's order; the CPU backend steps through it, lanes of any width.
// The GPU backends' traces are checked in test_gpu_cell_group.cu.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lowered_cell/step_sequence.hpp"
#include "tests/support/phase_trace.hpp"
#include "tests/support/whole_run_models.hpp"

using namespace arbolito;

namespace {

// A backend that records what run_step calls: enter(p) as p, each phase as its own name.
struct Recorder {
    std::vector<std::string> calls;
    void enter(Phase p) { calls.push_back(std::string("enter ") + phase_name(p)); }
    void events() { calls.push_back("events"); }
    void ions_begin() { calls.push_back("ions_begin"); }
    void assemble() { calls.push_back("assemble"); }
    void currents() { calls.push_back("currents"); }
    void solve() { calls.push_back("solve"); }
    void states() { calls.push_back("states"); }
    void ions_end() { calls.push_back("ions_end"); }
    void detect() { calls.push_back("detect"); }
    void sample() { calls.push_back("sample"); }
};

}  // namespace

TEST(StepSequence, EveryPhaseOnceInOrder) {
    Recorder r;
    run_step(r);
    std::vector<std::string> expected;
    for (int k = 0; k < n_phases; ++k) {
        const std::string name = phase_name(static_cast<Phase>(k));
        expected.push_back("enter " + name);
        expected.push_back(name);
    }
    EXPECT_EQ(r.calls, expected);
}

TEST(StepSequence, CpuGroupStepsThroughIt) {
    // 4 small cells: one chunk (about 4,096 CVs), so one trace entry per step and phase.
    const Model m = test_models::busyring(4, 1, 1.0);
    const long steps = std::lround(m.run.tfinal / m.run.dt);
    for (const std::string solver : {"cpu:lanes=1", "cpu:lanes=2", "cpu:lanes=4"}) {
        const auto traces = test_models::traced_phases(m, solver);
        ASSERT_EQ(traces.size(), 1u) << solver;
        EXPECT_TRUE(test_models::whole_steps_in_order(traces[0], steps)) << solver;
    }
}
