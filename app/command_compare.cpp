// arbolito compare: the same model with several solvers, side by side.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "app/output_checks.hpp"
#include "app/run_common.hpp"
#include "app/spike_agreement.hpp"
#include "app/stop_signals.hpp"
#include "run/simulation.hpp"
#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "io/sonata_sink.hpp"

namespace arbolito {

namespace {

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
                const double d = std::fabs(rows[i] - (*ref_)[k]);
                if (!std::isnan(max_dv_) && !(d <= max_dv_)) max_dv_ = d;  // a NaN stays: the verdict fails
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
    // whole: every frame of the reference came (else a run stopped early: its frames a prefix of them).
    bool shape_ok(bool whole) const { return shape_ok_ && (!ref_ || !whole || offset_ == ref_->size()); }
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

// What the traces of a run are, against the reference's.
enum class Traces {
    compared,  // the same frames and columns: max_dv holds the largest difference
    none,      // not recorded (--spikes-only, no probes)
    mismatch,  // other frames or other columns than the reference's: a disagreement
};

struct Row {
    std::string solver;
    RunReport r;
    double ns_cv_step = 0, speedup = 1, max_dv = 0;
    Traces traces = Traces::compared;
    SpikeAgreement spikes;
    bool reference = false, agrees = true;
    std::vector<std::string> why;  // what broke the verdict, one item each
    std::string file;
    // A signal stopped this solver before tfinal ("stopped by SIGINT at t = 12 ms"): its
    // file is the .partial and it is judged on the part it ran; "" for a whole run.
    std::string interrupted;
};

bool same_columns(const ReportMapping& a, const ReportMapping& b) {
    return a.node_ids == b.node_ids && a.index_pointers == b.index_pointers && a.element_ids == b.element_ids;
}

// The verdict on row against the reference, with what broke it (docs/compare.md).
void judge(Row& row, double spike_tol, double voltage_tol) {
    const SpikeAgreement& s = row.spikes;
    if (s.trains_differ > 0)
        row.why.push_back(fmt::format("{} spikes against {}: {} spike train(s) with another count", s.n, s.n_ref,
                                      s.trains_differ));
    if (!(s.max_dt <= spike_tol))
        row.why.push_back(fmt::format("spike times {:.3g} ms apart (tolerance {:.3g} ms)", s.max_dt, spike_tol));
    const bool traces_agree = row.traces == Traces::none || (row.traces == Traces::compared && row.max_dv <= voltage_tol);
    if (row.traces == Traces::mismatch) row.why.push_back("traces of other frames or columns");
    if (row.traces == Traces::compared && !traces_agree)
        row.why.push_back(fmt::format("traces {:.3g} mV apart (tolerance {:.3g} mV)", row.max_dv, voltage_tol));
    row.agrees = s.agrees(spike_tol) && traces_agree;  // the spike rule SpikeAgreement.* tests
}

std::string verdict_word(const Row& r) {
    return !r.interrupted.empty() ? "interrupted" : r.reference ? "reference" : r.agrees ? "agree" : "differ";
}

std::string table_verdict(const Row& r) {
    return !r.interrupted.empty() ? "interrupted" : r.reference ? "ref" : r.agrees ? "agree" : "DIFFER";
}

std::string dv_text(const Row& r) {
    if (r.traces == Traces::none) return "-";
    if (r.traces == Traces::mismatch) return "mismatch";
    return fmt::format("{:.3g}", r.max_dv);
}

std::string traces_word(Traces t) {
    return t == Traces::compared ? "compared" : t == Traces::none ? "none" : "mismatch";
}

// JSON has no infinity: an infinite tolerance (judge nothing of that kind) is "inf".
nlohmann::json tolerance_json(double v) { return std::isinf(v) ? nlohmann::json("inf") : nlohmann::json(v); }

// mV/ms: a bound on an action potential's steepest slope (267 mV/ms measured on the
// ring's hh soma). A spike moved by the spike tolerance moves its upstroke's samples by at
// most this times as much, so the default trace tolerance passes what the spike
// tolerance passes.
constexpr double upstroke_slope = 400;

void check_tolerance(const std::string& option, double v) {
    if (std::isnan(v) || v < 0) throw InputError(option, "", fmt::format("{} is no tolerance: give a number >= 0", v));
}

// Every solver must be able to run here before the first runs: a GPU solver on a machine
// without a usable device would otherwise fail after the ones before it wrote their files.
void check_available(const std::vector<SolverSpec>& specs) {
    for (const SolverSpec& s : specs) {
        std::string why;
        if (!solver_available(*s.solver, &why))
            throw InputError("--solvers", "", fmt::format("{}: {} (no solver was run)", s.text(), why));
    }
}

// The solvers from specs[from] on, as given: "omp, gpu" ("" for none).
std::string solver_list(const std::vector<SolverSpec>& specs, std::size_t from) {
    std::string list;
    for (std::size_t i = from; i < specs.size(); ++i) list += (list.empty() ? "" : ", ") + specs[i].text();
    return list;
}

const std::vector<std::string> phase_names = {"events", "currents", "assemble", "solve", "states", "detect", "sample", "fused"};

// compare.csv and compare.json of the rows so far: rewritten after each solver, so that
// the solvers that ended are on disk whatever ends the comparison; each written whole or
// not at all (write_file_atomically), so that a process ended mid-write (a second signal)
// leaves the previous version.
void write_results(const std::filesystem::path& dir, const std::vector<Row>& rows, double spike_tol, double voltage_tol) {
    std::ostringstream csv;
    csv << "solver,setup_s,run_s,steps,n_cv,ns_per_cv_step,speedup,traces,max_abs_dv_mV,n_spikes,n_spikes_ref,"
           "n_spikes_diff,spike_trains_count_differ,max_spike_dt_ms,spikes_identical,spike_tolerance_ms,"
           "voltage_tolerance_mV,verdict";
    for (const auto& p : phase_names) csv << "," << p << "_s";
    csv << ",exchange_exposed_s,file\n";
    nlohmann::json j = nlohmann::json::array();
    for (const Row& r : rows) {
        const SpikeAgreement& sp = r.spikes;
        const long long n_diff = static_cast<long long>(sp.n) - static_cast<long long>(sp.n_ref);
        // %.17g: doubles read back to the same bits.
        const auto num = [](double v) { return fmt::format("{:.17g}", v); };
        csv << r.solver << "," << r.r.setup_s << "," << r.r.run_s << "," << r.r.steps << "," << r.r.n_cv << ","
            << r.ns_cv_step << "," << r.speedup << "," << traces_word(r.traces) << ","
            << (r.traces == Traces::compared ? num(r.max_dv) : "nan") << "," << sp.n << "," << sp.n_ref << "," << n_diff
            << "," << sp.trains_differ << "," << num(sp.max_dt) << "," << (sp.identical ? "yes" : "no") << ","
            << num(spike_tol) << "," << num(voltage_tol) << "," << verdict_word(r);
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
        e["traces"] = traces_word(r.traces);
        e["max_abs_dv_mV"] = r.traces == Traces::compared ? nlohmann::json(r.max_dv) : nlohmann::json(nullptr);
        e["n_spikes"] = sp.n;
        e["n_spikes_ref"] = sp.n_ref;
        e["n_spikes_diff"] = n_diff;
        e["spike_trains_count_differ"] = sp.trains_differ;
        e["max_spike_dt_ms"] = std::isnan(sp.max_dt) ? nlohmann::json(nullptr) : nlohmann::json(sp.max_dt);
        e["spikes_identical"] = sp.identical;
        e["spike_tolerance_ms"] = tolerance_json(spike_tol);
        e["voltage_tolerance_mV"] = tolerance_json(voltage_tol);
        e["verdict"] = verdict_word(r);
        e["why"] = r.why;
        e["interrupted"] = r.interrupted.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.interrupted);
        e["phases_s"] = ph;
        e["exchange_exposed_s"] = r.r.exchange_exposed_s;
        e["file"] = r.file;
        j.push_back(e);
    }
    write_file_atomically((dir / "compare.csv").string(), csv.str());
    write_file_atomically((dir / "compare.json").string(), j.dump(2) + "\n");
}

// The table on stdout. Spike columns: the count, its difference from the first solver's,
// the largest spike-time difference (ms) and whether the spikes are the first solver's
// bit for bit.
void print_table(const std::vector<Row>& rows, double spike_tol, double voltage_tol) {
    const std::string head = "{:<28} {:>8} {:>9} {:>11} {:>8} {:>11} {:>8} {:>8} {:>11} {:>7} {:>11}";
    std::cout << fmt::format(head, "solver", "setup_s", "run_s", "ns/CV-step", "speedup", "max|dV|_mV", "spikes",
                             "d_spikes", "max|dt|_ms", "bitwise", "verdict")
              << "\n";
    for (const Row& r : rows)
        std::cout << fmt::format("{:<28} {:>8.3f} {:>9.3f} {:>11.2f} {:>8.2f} {:>11} {:>8} {:>+8} {:>11.3g} {:>7} {:>11}",
                                 r.solver, r.r.setup_s, r.r.run_s, r.ns_cv_step, r.speedup, dv_text(r), r.spikes.n,
                                 static_cast<long long>(r.spikes.n) - static_cast<long long>(r.spikes.n_ref),
                                 r.spikes.max_dt, r.spikes.identical ? "yes" : "no", table_verdict(r))
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
    // The verdict, with the tolerances it used and what broke it; a stopped solver was
    // judged on the part it ran.
    const bool all_agree = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.agrees; });
    const bool stopped = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.interrupted.empty(); });
    const std::string times = std::isinf(spike_tol) ? "spike times not judged" : fmt::format("spike times within {:.3g} ms", spike_tol);
    const std::string traces = rows[0].traces == Traces::none ? "no traces recorded"
                               : std::isinf(voltage_tol)      ? "traces not judged"
                                                              : fmt::format("traces within {:.3g} mV", voltage_tol);
    std::cout << fmt::format("verdict against {}{}: {} (spike counts equal, {}, {})\n", rows[0].solver,
                             stopped ? " so far" : "", all_agree ? "all agree" : "DIFFER", times, traces);
    for (const Row& r : rows) {
        for (const auto& w : r.why) std::cout << fmt::format("  {}: {}\n", r.solver, w);
        if (!r.interrupted.empty()) std::cout << fmt::format("  {}: {}, judged to there\n", r.solver, r.interrupted);
    }
}

}  // namespace

int command_compare(const CompareArgs& a) {
    // From here a first SIGINT/SIGTERM stops the solver running at an epoch boundary,
    // keeping its file as .partial, and starts no other (docs/compare.md).
    StopSignals signals;
    // Every solver is checked before any runs (and before the output directory exists).
    const std::vector<SolverSpec>& specs = a.solvers;
    check_available(specs);
    check_thread_count("--threads", a.threads);
    if (a.spike_tolerance) check_tolerance("--spike-tolerance", *a.spike_tolerance);
    if (a.voltage_tolerance) check_tolerance("--voltage-tolerance", *a.voltage_tolerance);
    Model m = read_model(a.model, a.sets);
    apply_run_overrides(m, a.dt, a.tfinal, "");
    for (const SolverSpec& s : specs) require_run_memory(m, a.model, 1, s);  // one at a time: each must fit
    const double spike_tol = a.spike_tolerance ? *a.spike_tolerance : default_spike_tolerance(m.run.dt);
    const double voltage_tol = a.voltage_tolerance ? *a.voltage_tolerance : spike_tol * upstroke_slope;
    // Under out/ (git-ignored) unless -o says where: not loose in the work tree.
    const std::filesystem::path dir = a.output.empty() ? std::filesystem::path("out") / (m.name + "_compare") : std::filesystem::path(a.output);
    std::filesystem::create_directories(dir);

    std::vector<double> ref_frames;
    std::vector<Spike> ref_spikes;
    ReportMapping ref_mapping;
    std::vector<Row> rows;
    int stopped_by = 0;  // the signal that ended the comparison early; 0: none
    for (std::size_t k = 0; k < specs.size(); ++k) {
        // A signal while the solver before ran to its end: the rest do not start.
        if (k > 0 && StopSignals::received() != 0) {
            stopped_by = StopSignals::received();
            spdlog::warn("stopped by {} after {}: not run: {}", StopSignals::name(stopped_by), rows.back().solver,
                         solver_list(specs, k));
            break;
        }
        const SolverSpec& s = specs[k];
        SimOptions o;
        o.solver = s;
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
        row.r = sim.run(sink, {}, [] { return StopSignals::received() != 0; });
        std::vector<Spike> ref_to_end = ref_spikes;  // the reference's spikes over the time this run covered
        if (row.r.stopped) {
            stopped_by = StopSignals::received() != 0 ? StopSignals::received() : SIGTERM;
            row.interrupted = fmt::format("stopped by {} at t = {:.9g} ms", StopSignals::name(stopped_by), row.r.t_end);
            const std::string kept = file.writer().interrupt(row.interrupted);
            row.file = file.writer().partial_path();
            const std::string rest = solver_list(specs, k + 1);
            spdlog::warn("{}: {}: kept {}{}", row.solver, row.interrupted, kept, rest.empty() ? "" : "; not run: " + rest);
            const double t_end = row.r.t_end;
            ref_to_end.erase(std::remove_if(ref_to_end.begin(), ref_to_end.end(),
                                            [t_end](const Spike& x) { return x.time > t_end; }),
                             ref_to_end.end());
        } else {
            file.writer().finish();
            row.file = path;
        }
        row.ns_cv_step = ns_per_cv_step(row.r.run_s, row.r.n_cv, row.r.steps);
        if (k == 0) {
            ref_spikes = sink.spike_list();
            ref_mapping = mapping;
            row.reference = true;
            row.traces = report ? Traces::compared : Traces::none;
            row.spikes = spike_agreement(ref_spikes, ref_spikes);
        } else {
            row.spikes = spike_agreement(sink.spike_list(), ref_to_end);
            row.max_dv = sink.max_dv();
            // Both without traces: none; one without, or other frames or columns: mismatch.
            const bool ref_traces = rows[0].traces == Traces::compared;
            if (!report && !ref_traces)
                row.traces = Traces::none;
            else if (report && ref_traces && sink.shape_ok(!row.r.stopped) && same_columns(mapping, ref_mapping))
                row.traces = Traces::compared;
            else
                row.traces = Traces::mismatch;
            // A stopped run ran fewer steps: its speed against the reference's per CV-step.
            if (row.r.stopped)
                row.speedup = row.ns_cv_step > 0 ? rows[0].ns_cv_step / row.ns_cv_step : 0;
            else
                row.speedup = row.r.run_s > 0 ? rows[0].r.run_s / row.r.run_s : 0;
            judge(row, spike_tol, voltage_tol);
        }
        rows.push_back(row);
        write_results(dir, rows, spike_tol, voltage_tol);
        if (row.r.stopped) break;
    }

    print_table(rows, spike_tol, voltage_tol);
    spdlog::info("wrote {}/compare.csv, compare.json and one .h5 per solver{}", dir.string(),
                 stopped_by != 0 ? " that ran (the stopped one's as .h5.partial)" : "");
    // Exit status 128 + the signal: stopped early; 1: a solver disagrees with the first
    // beyond the tolerances.
    if (stopped_by != 0) return 128 + stopped_by;
    const bool all_agree = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.agrees; });
    return all_agree ? 0 : 1;
}

}  // namespace arbolito
