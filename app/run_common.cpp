#include "app/run_common.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "cpu/cpu_cell_group.hpp"
#include "model/connection_rules.hpp"
#include "model/memory_estimate.hpp"
#include "run/solver_spec.hpp"
#include "model/run_settings.hpp"
#include "io/input_error.hpp"

namespace arbolito {

void apply_run_overrides(Model& m, const std::optional<double>& dt, const std::optional<double>& tfinal,
                         const std::string& event_rules) {
    if (dt) m.run.dt = *dt;
    if (tfinal) m.run.tfinal = *tfinal;
    if (event_rules == "neuron") m.run.rules = EventRules::neuron;
    if (event_rules == "arbor") m.run.rules = EventRules::arbor;
    // The model met the rules as read: a rule broken now is --tfinal's or else --dt's.
    try {
        validate_run_settings(m.run, m.connections);
        validate_rule_delays(m.run, m.connection_rules);
    } catch (const RunSettingError& e) {
        // Too many steps is --tfinal's when it was given, else --dt's.
        if (e.key == "run.tfinal") throw InputError(tfinal ? "--tfinal" : "--dt", "", e.reason);
        if (e.key == "run.dt") throw InputError("--dt", "", e.reason);
        throw InputError("--dt", "", "the model's " + e.key + ": " + e.reason);
    }
}

void warn_short_run(const RunSettings& r, bool report) {
    const long steps = std::lround(r.tfinal / r.dt), frames = std::lround(r.tfinal / r.sample_dt);
    if (steps < 2)
        spdlog::warn("dt {} ms against tfinal {} ms: the run takes {} step{}", r.dt, r.tfinal, steps, steps == 1 ? "" : "s");
    else if (report && frames < 2)
        spdlog::warn("sample_dt {} ms against tfinal {} ms: the report holds {} (frames at t = k * sample_dt while t < tfinal)",
                     r.sample_dt, r.tfinal, frames == 1 ? "one frame, t = 0" : "no frame");
}

int layout_lane_width(const SolverSpec& solver, std::uint64_t cells) {
    if (solver.solver && solver.solver->is_auto) return lanes_for_cells(native_lane_width(), cells);
    const int width = solver.lane_width();
    if (!solver.solver || !solver.solver->lane_width) return width;  // no lanes (GPU solvers): nothing to narrow
    return solver.options.number("lanes") ? width : lanes_for_cells(width, cells);
}

namespace {
// The cells of the largest rank's share.
std::uint64_t rank_cells(const ModelSize& size, int ranks) {
    return static_cast<std::uint64_t>(std::ceil(size.cells / std::max(ranks, 1)));
}

void require_room(const ModelSize& size, const std::string& model_file, int ranks, const SolverSpec& solver) {
    const std::string why =
        memory_shortfall(estimate_memory(size, ranks, layout_lane_width(solver, rank_cells(size, ranks))).run_bytes,
                         available_memory_bytes(), size);
    if (!why.empty()) throw InputError(model_file, "", "the run " + why);
}
}  // namespace

void require_run_memory(const Model& m, const std::string& model_file, int ranks, const SolverSpec& solver) {
    require_room(model_size(m), model_file, ranks, solver);
}

void require_run_memory(const Model& m, const std::string& model_file, Communicator& comm, const SolverSpec& solver) {
    const auto sizes = gather_slices<ModelSize>(
        comm, m.cells.size(), [&](std::uint64_t b, std::uint64_t e) { return cell_sizes(m, b, e); });
    require_room(model_size(m, sizes), model_file, comm.size(), solver);
}

int max_thread_count() { return std::max(64, 8 * static_cast<int>(std::thread::hardware_concurrency())); }

void check_thread_count(const std::string& option, int n) {
    if (n > max_thread_count())
        throw InputError(option, "", std::to_string(n) + " threads is more than this machine takes (at most " +
                                         std::to_string(max_thread_count()) + ": 8 per hardware thread, " +
                                         std::to_string(std::thread::hardware_concurrency()) + " here)");
}

}  // namespace arbolito
