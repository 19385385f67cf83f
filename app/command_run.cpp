#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "app/progress_bar.hpp"
#include "app/run_common.hpp"
#include "engine/simulation.hpp"
#include "io/model_reader.hpp"
#include "io/sonata_sink.hpp"

namespace arbolito {

int command_run(const RunArgs& a) {
    Model m = read_model(a.model);
    apply_run_overrides(m, a.dt, a.tfinal, a.event_rules);
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

    const double ns_cv_step = ns_per_cv_step(r.run_s, r.n_cv, r.steps);
    spdlog::info("wrote {}: {} spikes; set-up {:.3f} s, run {:.3f} s ({:.1f} ns per CV-step)", out, r.n_spikes, r.setup_s,
                 r.run_s, ns_cv_step);
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
        j["ns_per_cv_step"] = ns_cv_step;
        j["n_spikes"] = r.n_spikes;
        j["n_events"] = r.n_events;
        std::cout << j.dump() << std::endl;
    }
    return 0;
}

}  // namespace arbolito
