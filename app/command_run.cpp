#include <cmath>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "app/progress_bar.hpp"
#include "engine/simulation.hpp"
#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "io/sonata_sink.hpp"

namespace arbolito {

namespace {

void apply_overrides(Model& m, const RunArgs& a) {
    if (a.dt) {
        if (!(*a.dt > 0)) throw InputError("--dt", "", "must be > 0, got " + std::to_string(*a.dt));
        m.run.dt = *a.dt;
        const double ratio = m.run.sample_dt / m.run.dt;
        if (std::fabs(ratio - std::round(ratio)) > 1e-9 * ratio)
            throw InputError("--dt", "", "the model's sample_dt " + std::to_string(m.run.sample_dt) + " is not a multiple of it");
        for (const auto& c : m.connections)
            if (c.delay < m.run.dt) throw InputError("--dt", "", "longer than a connection delay (" + std::to_string(c.delay) + " ms)");
    }
    if (a.tfinal) {
        if (*a.tfinal < 0) throw InputError("--tfinal", "", "must be >= 0");
        m.run.tfinal = *a.tfinal;
    }
    if (a.event_rules == "neuron") m.run.rules = EventRules::neuron;
    if (a.event_rules == "arbor") m.run.rules = EventRules::arbor;
}

}  // namespace

int command_run(const RunArgs& a) {
    Model m = read_model(a.model);
    apply_overrides(m, a);
    SimOptions o;
    o.solver = a.solver;
    o.layout = a.layout;
    o.threads = a.threads;
    o.pipeline = !a.no_pipeline;
    o.record_samples = !a.spikes_only;
    spdlog::info("{}: {} cells, solver {}, dt {} ms, tfinal {} ms", a.model, m.cells.size(), o.solver, m.run.dt, m.run.tfinal);
    Simulation sim(m, o);

    const std::string out = a.output.empty() ? m.name + ".h5" : a.output;
    const ReportMapping mapping = report_mapping(sim, m.run);
    const bool report = !a.spikes_only && !mapping.element_ids.empty();
    SonataSink sink(out, m.name, report ? &mapping : nullptr, a.double_report);
    ProgressBar bar(m.run.tfinal);
    const RunReport r = sim.run(sink, [&](double t) { bar.update(t); });
    sink.writer().finish();

    const double cv_steps = static_cast<double>(r.n_cv) * r.steps;
    spdlog::info("wrote {}: {} spikes; set-up {:.3f} s, run {:.3f} s ({:.1f} ns per CV-step)", out, r.n_spikes, r.setup_s,
                 r.run_s, cv_steps > 0 ? 1e9 * r.run_s / cv_steps : 0.0);
    if (a.timings == "json") {
        nlohmann::json j;
        j["solver"] = o.solver;
        j["setup"] = r.setup_s;
        j["run"] = r.run_s;
        for (const auto& [k, v] : r.phases.as_map()) j[k] = v;
        j["exchange"] = r.exchange_s;
        j["exchange_exposed"] = r.exchange_exposed_s;
        j["steps"] = r.steps;
        j["n_cv"] = r.n_cv;
        j["ns_per_cv_step"] = cv_steps > 0 ? 1e9 * r.run_s / cv_steps : 0.0;
        j["spikes"] = r.n_spikes;
        j["events"] = r.n_events;
        std::cout << j.dump() << std::endl;
    }
    return 0;
}

}  // namespace arbolito
