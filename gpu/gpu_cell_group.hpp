#pragma once
// The GPU backend (docs/gpu-backend.md): the whole time step on the device. Plain C++ header:
// gpu_cell_solver.cpp includes it in every build; only the CUDA build defines the groups.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lowered_cell/cell_group.hpp"
#include "run/solver_registry.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "solvers/layout.hpp"

namespace arbolito {

struct GpuGroupOptions {
    CellLayout layout;              // gpu-cell's numbering (gpu_cell_layout)
    bool block_auto = false;        // block-shared: the most slots per block whose rhs fit (layout.block unset)
    bool phase_times = true;        // CUDA events around every phase of every step
    std::string solve_kernel;       // gpu::CellKernel by name, one the spec checked (hines_gpu_cell.hpp); empty: the solver's default
    int solve_threads = 0;          // CUDA block size of the solve; 0: chosen from the cell count
    enum class Padding { automatic, compute, stop };
    Padding solve_padding = Padding::automatic;  // gpu::CellPadding
};

// gpu-cell's options (docs/solvers.md, gpu/gpu_cell_solver.cpp) as the group takes
// them: from a spec's typed options, or from the KEY=VALUE part of a spec, e.g.
// "layout=interleaved:timing=off" ("": the defaults; checked as parse_solver_spec
// checks, throws std::invalid_argument).
GpuGroupOptions gpu_group_options(const SolverOptions& o);
GpuGroupOptions parse_gpu_options(const std::string& options);
// The keys every GPU solver shares (the group's, not the solve's): timing; and
// their values applied to a solver's GpuGroupOptions.
std::vector<SolverOption> gpu_step_keys();
void apply_gpu_step_keys(const SolverOptions& o, GpuGroupOptions& g);

// Makes CUDA device `device` (mod the visible devices) current for the calling thread and
// returns its number (run/gpu_binding.hpp decides which a rank's groups take).
// std::runtime_error naming `solver` where no CUDA device is usable.
int select_gpu(int device, const std::string& solver);

// What a GPU solver brings to the GPU cell group: its CV numbering and its solve of every
// cell's system in that numbering (GpuSolve, gpu/gpu_solve.hpp). The group does the
// rest of the step. gpu-cell's: gpu_cell_layout and one thread per cell; gpu-fine and
// gpu-branch bring their own and share the group.
class GpuSolve;
// A solver whose schedule lives beside its numbering (CellSlots, FineSchedule) shares it
// between the two through state both functions capture: numbering runs first, once.
struct GpuSolverParts {
    LayoutMaker numbering;  // build_fvm's
    std::function<std::unique_ptr<GpuSolve>(const Layout& layout)> make_solve;  // called with a device selected
};

// The parts of a solver whose layout function returns a Numbering (its `layout` and,
// beside it, the schedule): number(natural_parents) builds it, its layout moves to
// build_fvm, and solve(layout, numbering) gets the layout back with the rest.
template <class Numbering, class Number, class Solve>
GpuSolverParts numbered_parts(Number number, Solve solve) {
    GpuSolverParts p;
    auto kept = std::make_shared<Numbering>();
    p.numbering = [kept, number](const std::vector<std::vector<int>>& np) {
        *kept = number(np);
        return std::move(kept->layout);
    };
    p.make_solve = [kept, solve](const Layout& l) -> std::unique_ptr<GpuSolve> { return solve(l, *kept); };
    return p;
}
GpuSolverParts gpu_cell_parts(const GpuGroupOptions& o);

// The GPU cell group for cells [gid_begin, gid_end) with a solver's parts, on CUDA device
// `device` mod the visible ones: its set-up, its calls, its stream and its destruction all
// on that device. Throws std::invalid_argument for a bad option and
// std::runtime_error where no CUDA device is present (naming `solver`).
std::unique_ptr<CellGroup> make_gpu_group(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end,
                                          const std::string& solver, const GpuSolverParts& parts,
                                          const GpuGroupOptions& o, const StepSettings& s, int device = 0);

// SolverInfo::make_group of a GPU solver built on the group: the shared step keys (sum,
// timing) applied, then the solver's parts from its own options, parts_of(options).
template <class PartsOf>
auto gpu_group_maker(std::string solver, PartsOf parts_of) {
    return [solver, parts_of](const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end, const SolverOptions& o,
                              const StepSettings& st, int device) {
        GpuGroupOptions g;
        apply_gpu_step_keys(o, g);
        return make_gpu_group(m, gid_begin, gid_end, solver, parts_of(o), g, st, device);
    };
}

}  // namespace arbolito
