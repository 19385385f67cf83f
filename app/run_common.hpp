#pragma once
// Helpers shared by the commands that run a model (run, compare).
#include <cstdint>
#include <optional>
#include <string>

#include "model/model.hpp"
#include "run/communicator.hpp"
#include "run/solver_spec.hpp"

namespace arbolito {

// Applies the command line's --dt, --tfinal and --event-rules (empty: the model's) to
// the model; an unusable value is an InputError naming the option.
void apply_run_overrides(Model& m, const std::optional<double>& dt, const std::optional<double>& tfinal,
                         const std::string& event_rules);

// Warns, naming the settings, where a run would record next to nothing: fewer than two
// steps (dt beyond tfinal), or with a report, fewer than two frames (sample_dt at or
// beyond tfinal: frame 0 alone). Such settings are valid; silence made them look broken.
void warn_short_run(const RunSettings& r, bool report);

// Refuses (InputError naming the model file) a run whose memory estimate is more than
// this machine has available (model/memory_estimate.hpp); `ranks` on this host,
// `solver` the --solver spec (its layout's SIMD lanes).
void require_run_memory(const Model& m, const std::string& model_file, int ranks, const SolverSpec& solver);
// The same on every rank of comm, each rank sizing a slice of the cells (a drawn shape is
// drawn once per cell over all ranks, not once per rank). Collective.
void require_run_memory(const Model& m, const std::string& model_file, Communicator& comm, const SolverSpec& solver);

// The SIMD lanes the CPU solvers lay `cells` cells out in for a --solver spec (cpu and
// omp: their lanes, auto: this machine's; auto may choose them; lanes=auto no wider than
// the cells fill, lanes_for_cells), 1 for the GPU solvers.
int layout_lane_width(const SolverSpec& solver, std::uint64_t cells);

// The most threads --threads or --exchange-threads may ask for: 8 per hardware thread of
// this machine, and at least 64 (a typo such as 10000 would start that many threads).
int max_thread_count();

// Throws InputError naming `option` when `n` is more than max_thread_count().
void check_thread_count(const std::string& option, int n);

// Wall-clock nanoseconds per CV and step (0 for an empty run).
inline double ns_per_cv_step(double run_s, long n_cv, long steps) {
    const double cv_steps = static_cast<double>(n_cv) * steps;
    return cv_steps > 0 ? 1e9 * run_s / cv_steps : 0.0;
}

}  // namespace arbolito
