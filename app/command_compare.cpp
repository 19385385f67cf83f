// arbolito compare: the same model with several solvers, side by side.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "app/run_common.hpp"
#include "engine/simulation.hpp"
#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "io/sonata_sink.hpp"

namespace arbolito {

namespace {

std::vector<SolverSpec> parse_solvers(const std::string& list) {
    try {
        return parse_solver_list(list);
    } catch (const std::invalid_argument& e) {
        throw InputError("--solvers", "", e.what());
    }
}

// Writes the run's SONATA file and keeps what the comparison needs: the first solver's
// frames (the reference) and, for the others, the largest difference to them.
class CompareSink final : public RecordSink {
public:
    CompareSink(SonataSink& file, std::vector<double>* keep, const std::vector<double>* ref)
        : file_(file), keep_(keep), ref_(ref) {}
    void frames(const double* rows, std::size_t n) override {
        file_.frames(rows, n);
        if (n == 0) return;
        const std::size_t count = n * width_;
        if (keep_) keep_->insert(keep_->end(), rows, rows + count);
        if (ref_) {
            for (std::size_t i = 0; i < count; ++i) {
                const std::size_t k = offset_ + i;
                if (k >= ref_->size()) { shape_ok_ = false; break; }
                max_dv_ = std::max(max_dv_, std::fabs(rows[i] - (*ref_)[k]));
            }
        }
        offset_ += count;
    }
    void spikes(const std::vector<Spike>& s) override {
        file_.spikes(s);
        spikes_.insert(spikes_.end(), s.begin(), s.end());
    }
    void epoch_done(double t) override { file_.epoch_done(t); }
    void set_width(std::size_t w) { width_ = w; }

    double max_dv() const { return max_dv_; }
    bool shape_ok() const { return shape_ok_ && (!ref_ || offset_ == ref_->size()); }
    std::vector<Spike>& spike_list() { return spikes_; }

private:
    SonataSink& file_;
    std::vector<double>* keep_;
    const std::vector<double>* ref_;
    std::size_t width_ = 1, offset_ = 0;  // width_: columns per frame (set_width)
    double max_dv_ = 0;
    bool shape_ok_ = true;
    std::vector<Spike> spikes_;
};

struct Row {
    std::string solver;
    RunReport r;
    double ns_cv_step = 0, speedup = 1, max_dv = 0;
    bool spikes_same = true, traces_compared = true;
    std::string file;
};

void sort_spikes(std::vector<Spike>& s) {
    std::sort(s.begin(), s.end(), [](const Spike& a, const Spike& b) {
        return a.gid != b.gid ? a.gid < b.gid : a.time < b.time;
    });
}

}  // namespace

int command_compare(const CompareArgs& a) {
    // Every solver is checked before any runs (and before the output directory exists).
    const auto specs = parse_solvers(a.solvers);
    check_thread_count("--threads", a.threads);
    Model m = read_model(a.model, a.sets);
    apply_run_overrides(m, a.dt, a.tfinal, "");
    require_run_memory(m, a.model, 1);
    // Under out/ (git-ignored) unless -o says where: not loose in the work tree.
    const std::filesystem::path dir = a.output.empty() ? std::filesystem::path("out") / (m.name + "_compare") : std::filesystem::path(a.output);
    std::filesystem::create_directories(dir);

    std::vector<double> ref_frames;
    std::vector<Spike> ref_spikes;
    std::vector<Row> rows;
    for (std::size_t k = 0; k < specs.size(); ++k) {
        const SolverSpec& s = specs[k];
        SimOptions o;
        o.solver = s.text();
        o.threads = a.threads;
        o.record_samples = !a.spikes_only;
        spdlog::info("compare: {} ({} cells)", s.text(), m.cells.size());
        Simulation sim(m, o);
        const ReportMapping mapping = report_mapping(sim, m.run);
        const bool report = !a.spikes_only && !mapping.element_ids.empty();
        std::string fname = s.text();  // gpu-cell:timing=off -> gpu-cell_timing=off.h5
        std::replace(fname.begin(), fname.end(), ':', '_');
        const std::string path = (dir / (fname + ".h5")).string();
        SonataSink file(path, m.name, report ? &mapping : nullptr, true);
        CompareSink sink(file, k == 0 ? &ref_frames : nullptr, k == 0 ? nullptr : &ref_frames);
        sink.set_width(std::max<long>(1, sim.n_columns()));
        Row row;
        row.solver = s.solver->is_auto ? "auto=" + sim.solver().text() : s.text();
        row.r = sim.run(sink);
        file.writer().finish();
        row.file = path;
        row.ns_cv_step = ns_per_cv_step(row.r.run_s, row.r.n_cv, row.r.steps);
        sort_spikes(sink.spike_list());
        if (k == 0) {
            ref_spikes = sink.spike_list();
        } else {
            const auto& sp = sink.spike_list();
            row.spikes_same = sp.size() == ref_spikes.size() &&
                              std::equal(sp.begin(), sp.end(), ref_spikes.begin(), [](const Spike& x, const Spike& y) {
                                  return x.gid == y.gid && x.time == y.time;
                              });
            row.max_dv = sink.max_dv();
            row.traces_compared = report && sink.shape_ok();
            row.speedup = row.r.run_s > 0 ? rows[0].r.run_s / row.r.run_s : 0;
        }
        rows.push_back(row);
    }

    // The table: stdout; CSV and JSON beside the traces.
    const std::vector<std::string> phase_names = {"events", "currents", "assemble", "solve", "states", "detect", "sample", "fused"};
    std::cout << fmt::format("{:<28} {:>8} {:>9} {:>11} {:>8} {:>11} {:>7}", "solver", "setup_s", "run_s", "ns/CV-step",
                             "speedup", "max|dV|_mV", "spikes")
              << "\n";
    for (const Row& r : rows)
        std::cout << fmt::format("{:<28} {:>8.3f} {:>9.3f} {:>11.2f} {:>8.2f} {:>11.3g} {:>7}", r.solver, r.r.setup_s,
                                 r.r.run_s, r.ns_cv_step, r.speedup, r.traces_compared ? r.max_dv : NAN,
                                 r.spikes_same ? "same" : "DIFFER")
                  << "\n";
    std::cout << "per-phase seconds (summed over cell groups; exch_exp: spike exchange not hidden behind the cell "
                 "update, i.e. time the cells waited for it):\n"
              << fmt::format("{:<28}", "solver");
    for (const auto& p : phase_names) std::cout << fmt::format(" {:>9}", p);
    std::cout << fmt::format(" {:>9}\n", "exch_exp");
    for (const Row& r : rows) {
        std::cout << fmt::format("{:<28}", r.solver);
        const auto ph = r.r.phases.as_map();
        for (const auto& p : phase_names) std::cout << fmt::format(" {:>9.3f}", ph.at(p));
        std::cout << fmt::format(" {:>9.3f}\n", r.r.exchange_exposed_s);
    }

    std::ofstream csv(dir / "compare.csv");
    csv << "solver,setup_s,run_s,steps,n_cv,ns_per_cv_step,speedup,max_abs_dv_mV,spikes_identical,n_spikes";
    for (const auto& p : phase_names) csv << "," << p << "_s";
    csv << ",exchange_exposed_s,file\n";
    nlohmann::json j = nlohmann::json::array();
    for (const Row& r : rows) {
        csv << r.solver << "," << r.r.setup_s << "," << r.r.run_s << "," << r.r.steps << "," << r.r.n_cv << ","
            << r.ns_cv_step << "," << r.speedup << "," << (r.traces_compared ? std::to_string(r.max_dv) : "nan") << ","
            << (r.spikes_same ? "yes" : "no") << "," << r.r.n_spikes;
        const auto ph = r.r.phases.as_map();
        for (const auto& p : phase_names) csv << "," << ph.at(p);
        csv << "," << r.r.exchange_exposed_s << "," << r.file << "\n";
        nlohmann::json e;
        e["solver"] = r.solver;
        e["setup_s"] = r.r.setup_s;
        e["run_s"] = r.r.run_s;
        e["steps"] = r.r.steps;
        e["n_cv"] = r.r.n_cv;
        e["ns_per_cv_step"] = r.ns_cv_step;
        e["speedup"] = r.speedup;
        e["max_abs_dv_mV"] = r.traces_compared ? nlohmann::json(r.max_dv) : nlohmann::json(nullptr);
        e["spikes_identical"] = r.spikes_same;
        e["n_spikes"] = r.r.n_spikes;
        e["phases_s"] = ph;
        e["exchange_exposed_s"] = r.r.exchange_exposed_s;
        e["file"] = r.file;
        j.push_back(e);
    }
    std::ofstream(dir / "compare.json") << j.dump(2) << "\n";
    spdlog::info("wrote {}/compare.csv, compare.json and one .h5 per solver", dir.string());
    const bool all_same = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.spikes_same; });
    return all_same ? 0 : 1;
}

}  // namespace arbolito
