#pragma once
// The phases of one time step, in order: written here once for every backend. The CPU
// chunk step (cpu/cpu_cell_group.cpp), the GPU streaming step (gpu/gpu_cell_group.cu)
// and the epoch-resident kernel's block step (gpu/resident_epoch.cu) each implement one
// member function per phase and step only through run_step; a backend that lacks a
// phase does not compile. Adding a phase: a name in Phase at its place in the order, a
// line in run_step, the member in every backend (tests/unit/test_step_sequence.cpp and
// the GPU tests check the order each backend runs against Phase).
#include "core/hd.hpp"

namespace arbolito {

// In step order.
enum class Phase : unsigned char { events, ions_begin, assemble, currents, solve, states, ions_end, detect, sample };
constexpr int n_phases = static_cast<int>(Phase::sample) + 1;

constexpr const char* phase_name(Phase p) {
    constexpr const char* name[n_phases] = {"events", "ions_begin", "assemble", "currents", "solve",
                                            "states", "ions_end",   "detect",   "sample"};
    return name[static_cast<int>(p)];
}

// One time step of backend `s`. s.enter(p) comes before phase p: a backend records its
// phases there when a test asks (CellGroup::trace_phases), and does nothing otherwise.
#ifdef __CUDACC__
#pragma nv_exec_check_disable  // host backends on the host, the resident kernel's on the device
#endif
template <class Step>
ARB_HD void run_step(Step& s) {
    s.enter(Phase::events);     s.events();      // the step's events act on their synapses
    s.enter(Phase::ions_begin); s.ions_begin();  // hook: each ion's current to 0, its reversal potential
    s.enter(Phase::assemble);   s.assemble();    // d = cap/dt + g_sum, rhs = cap/dt · v
    s.enter(Phase::currents);   s.currents();    // each mechanism adds its current to d and rhs
    s.enter(Phase::solve);      s.solve();       // the Hines system: its solution is the new v
    s.enter(Phase::states);     s.states();      // each mechanism's states advance at the new v
    s.enter(Phase::ions_end);   s.ions_end();    // hook: written concentrations to the ions' xi, xo
    s.enter(Phase::detect);     s.detect();      // a detector fires where v crossed its threshold
    s.enter(Phase::sample);     s.sample();      // probes copy v into the frames
}

}  // namespace arbolito
