#include <csignal>
#include <cstdlib>
#include <optional>
#include <string>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "app/output_checks.hpp"
#include "app/progress_bar.hpp"
#include "app/run_common.hpp"
#include "app/stop_signals.hpp"
#include "model/memory_estimate.hpp"
#include "parareal/parareal.hpp"
#include "run/gpu_binding.hpp"
#include "run/simulation.hpp"
#include "run/solver_auto.hpp"
#include "run/solver_spec.hpp"
#include "run/timeline.hpp"
#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "io/sonata_sink.hpp"

namespace arbolito {

namespace {

// --timeline's epoch table (run/epoch_times.hpp): T.csv -> T.epochs.csv, else T.epochs.csv appended.
std::string epoch_table_path(const std::string& timeline) {
    const std::string csv = ".csv";
    const bool has = timeline.size() > csv.size() && timeline.compare(timeline.size() - csv.size(), csv.size(), csv) == 0;
    return (has ? timeline.substr(0, timeline.size() - csv.size()) : timeline) + ".epochs.csv";
}

// Ranks other than 0 record nothing: rank 0 gathers everything (docs/mpi.md).
struct NoSink final : RecordSink {
    void frames(const double*, std::size_t) override {}
    void spikes(const std::vector<Spike>&) override {}
};

// Runs `check` on rank 0 (which writes the output). Collective: an InputError there is
// one on every rank (exit 2 whichever rank mpirun hears from first); rank 0 alone says why.
template <class Check>
void on_root_input_check(Communicator& comm, Check check) {
    std::exception_ptr bad;
    if (comm.is_root()) try {
            check();
        } catch (const InputError&) {
            bad = std::current_exception();
        }
    double refused = bad ? 1 : 0;
    comm.max(&refused, 1);
    if (bad) std::rethrow_exception(bad);
    if (refused > 0) throw InputError("-o", "", "refused by rank 0");
}

// The run parallel in time (one rank): parareal's record, handed to the file as a
// sequential run hands it; with verify=on the sequential run (`sequential`) too, in
// memory, and the difference. Returns the exit status.
int run_time_parallel(const RunArgs& a, const Model& m, const SolverSpec& solver, PararealRun& run,
                      Simulation* sequential, SonataSink& file) {
    const PararealSettings& p = a.parareal;
    RecordedRun par, seq;
    par.n_columns = seq.n_columns = run.n_columns();
    PararealReport r;
    RunReport s;
    try {
        if (p.verify) s = sequential->run(seq);
        r = run.run(par, [] { return StopSignals::received() != 0; });
        if (r.stopped) {
            const int sig = StopSignals::received();
            char why[128];
            std::snprintf(why, sizeof why, "stopped by %s after parareal iteration %d (its record exists only at the end)",
                          StopSignals::name(sig), r.iterations);
            spdlog::warn("{}: kept {}", why, file.writer().interrupt(why));
            return 128 + sig;
        }
        if (par.n_frames() > 0) file.frames(par.rows.data(), par.n_frames());
        file.spikes(par.spikes_seen);
        file.epoch_done(m.run.tfinal);
        file.writer().finish();
    } catch (const std::exception& e) {
        std::string kept;
        try {
            kept = file.writer().interrupt(e.what());
        } catch (const std::runtime_error&) {
            kept = file.writer().partial_path();
        }
        spdlog::error("{}; kept {}", e.what(), kept);
        return 1;
    }
    const double last_change = r.change.empty() ? 0.0 : r.change.back();
    spdlog::info("parareal: {} slices of {} steps, coarse dt {} ms on {} CVs ({} fine): {} iterations, last change "
                 "{:.3g} (tol {:g}); run {:.3f} s (fine {:.3f} s, coarse {:.3f} s), set-up {:.3f} s",
                 p.slices, r.slice_steps, m.run.dt * p.coarse, r.n_cv_coarse, r.n_cv, r.iterations, last_change, p.tol,
                 r.run_s, r.fine_s, r.coarse_s, r.setup_s);
    const double trace_diff = p.verify ? max_trace_difference(par, seq) : 0.0;
    const double spike_diff = p.verify ? max_spike_difference(par.spikes_seen, seq.spikes_seen) : 0.0;
    if (p.verify)
        spdlog::info("sequential run {:.3f} s (parareal {:.2f}x as fast); largest difference to it: {:.3g} mV in the "
                     "traces, {:.3g} ms in spike times ({} spikes, {} sequentially)",
                     s.run_s, r.run_s > 0 ? s.run_s / r.run_s : 0.0, trace_diff, spike_diff, par.spikes_seen.size(),
                     seq.spikes_seen.size());
    else
        spdlog::info("largest difference to the sequential run: not measured (verify=on runs it too)");
    spdlog::info("wrote {}: {} spikes", file.writer().path(), par.spikes_seen.size());
    if (a.timings == "json") {
        nlohmann::json j;
        j["solver"] = solver.text();
        j["threads"] = a.threads;
        j["time_parallel"] = a.time_parallel;
        j["slices"] = p.slices;
        j["coarse"] = p.coarse;
        j["tol"] = p.tol;
        j["slice_steps"] = r.slice_steps;
        j["iterations"] = r.iterations;
        j["change"] = r.change;
        j["setup"] = r.setup_s;
        j["run"] = r.run_s;
        j["fine"] = r.fine_s;
        j["coarse_s"] = r.coarse_s;
        j["n_cv"] = r.n_cv;
        j["coarse_cvs"] = p.coarse_cvs;
        j["n_cv_coarse"] = r.n_cv_coarse;
        j["n_spikes"] = par.spikes_seen.size();
        if (p.verify) {
            j["sequential_run"] = s.run_s;
            j["max_trace_difference"] = trace_diff;
            j["max_spike_difference"] = spike_diff;
            j["sequential_spikes"] = seq.spikes_seen.size();
        }
        std::cout << j.dump() << std::endl;
    }
    return 0;
}

// The rank's first CUDA device: --gpu, else $ARBOLITO_GPU (a launcher's wrapper may set it
// per rank), else -1 (from the rank's place on its node). One that this process cannot see
// is an input error naming where it came from.
int requested_first_gpu(const std::optional<int>& option) {
    std::string from = "--gpu";
    long d = -1;
    if (option) {
        d = *option;
    } else if (const char* env = std::getenv("ARBOLITO_GPU"); env && *env) {
        from = "ARBOLITO_GPU";
        const std::string text = env;
        std::size_t end = 0;
        try {
            d = std::stol(text, &end);
        } catch (const std::exception&) {
            end = 0;
        }
        if (end != text.size() || d < 0) throw InputError(from, "", "'" + text + "' is not a device number (0, 1, ...)");
    } else {
        return -1;
    }
    const int visible = visible_gpus();
    if (visible > 0 && d >= visible)
        throw InputError(from, "", "device " + std::to_string(d) + " is not visible: this process sees " +
                                       std::to_string(visible) + " (0 to " + std::to_string(visible - 1) + ")");
    return static_cast<int>(d);
}

}  // namespace

int command_run(const RunArgs& a, const std::shared_ptr<Communicator>& comm_ptr) {
    Communicator& comm = *comm_ptr;
    const bool root = comm.is_root();
    // From here a first SIGINT/SIGTERM ends the run at an epoch boundary within a step,
    // keeping what it simulated (docs: README, "Running"; docs/faults.md).
    StopSignals signals;
    // Each step that may fail on some ranks only ends with an agreement (on_all_ranks),
    // so that a failure anywhere stops every rank instead of leaving the others waiting.
    Model m;
    SimOptions o;
    std::string out;
    std::unique_ptr<Simulation> sim;
    std::unique_ptr<PararealRun> parareal;  // --time-parallel: set up in place of the epoch loop
    int first_gpu = -1;
    on_all_ranks(comm, [&] {
        // A GPU solver without a usable device: refused before the model is read.
        if (const std::string why = solver_unavailable_here(a.solver); !why.empty())
            throw InputError("--solver", "", why);
        check_thread_count("--threads", a.threads);
        check_thread_count("--exchange-threads", a.exchange_threads);
        check_thread_count("--gpus", a.gpus);  // a host thread per GPU group
        first_gpu = requested_first_gpu(a.gpu);
        m = read_model(a.model, a.sets, ReadFor::run);
        apply_run_overrides(m, a.dt, a.tfinal, a.event_rules);
        if (comm.is_root()) {
            warn_short_run(m.run, !a.spikes_only);
            // The default solver runs on one core: --threads alone would do nothing there.
            if ((a.gpus > 0 || first_gpu >= 0) && !a.solver.solver->needs_cuda && !a.solver.solver->is_auto)
                spdlog::warn("--gpus and --gpu apply to the GPU solvers only: solver {} ignores them", a.solver.text());
            if (a.threads > 1 && !a.no_pipeline && a.solver.solver->name == "cpu")
                spdlog::warn("--threads {}: the cpu solver updates the cells on one core (--solver omp or auto uses the "
                             "threads)",
                             a.threads);
        }
        if (!a.time_parallel.empty()) {
            if (comm.size() > 1) throw InputError("--time-parallel", "", "runs on one rank (without mpirun)");
            if (time_parallel_is_deprecated(a.time_parallel))
                spdlog::warn("--time-parallel: keys separated by ',' are deprecated: separate them by ':' as --solver's "
                             "(parareal:slices=8:tol=1e-6)");
            if (a.timeline) throw InputError("--timeline", "", "marks the epoch loop, which --time-parallel does not run");
            try {
                check_time_parallel(m, a.parareal, !a.spikes_only);
            } catch (const std::invalid_argument& e) {
                throw InputError("--time-parallel", "", e.what());
            }
            // The fine propagator holds the cells once per slice.
            require_run_memory(model_per_slice(m, a.parareal.slices), a.model, 1, a.solver);
        }
    });
    // Rank 0 alone writes: it checks the output's path before the set-up. A bad one is an
    // input error on every rank (exit 2 whichever rank mpirun hears from first); rank 0
    // alone says why.
    // The lock of the output's .partial (rank 0) from here to the end: a second run given
    // the same -o is refused before its set-up (io/output_lock.hpp).
    OutputLock lock;
    on_root_input_check(comm, [&] {
        out = checked_output_path(a.output, a.output_given, m.name);
        check_not_an_input(out, "-o", m.inputs);
        check_not_an_input(out + ".partial", "-o", m.inputs);
        if (a.timeline) {
            check_file_path(*a.timeline, "--timeline");
            check_not_an_input(*a.timeline, "--timeline", m.inputs);
            check_not_an_input(epoch_table_path(*a.timeline), "--timeline", m.inputs);
            // Written after the output is renamed into place: the same file would replace it.
            namespace fs = std::filesystem;
            std::error_code e1, e2;
            const fs::path t = fs::weakly_canonical(*a.timeline, e1), o = fs::weakly_canonical(out, e2);
            if ((!e1 && !e2 && (t == o || t == fs::path(o.string() + ".partial"))) || same_file(*a.timeline, out) ||
                same_file(*a.timeline, out + ".partial"))
                throw InputError(*a.timeline, "", "is the output (-o) itself: --timeline must name another file");
            const std::string table = epoch_table_path(*a.timeline);
            const fs::path tt = fs::weakly_canonical(table, e1);
            if ((!e1 && !e2 && (tt == o || tt == fs::path(o.string() + ".partial"))) || same_file(table, out) ||
                same_file(table, out + ".partial"))
                throw InputError(*a.timeline, "", "its epoch table " + table + " is the output (-o): --timeline must name "
                                                  "another file");
        }
        try {
            lock = OutputLock::take(out + ".partial");
        } catch (const OutputBusy& e) {
            throw InputError("-o", "", e.what());
        } catch (const std::runtime_error& e) {
            throw InputError("-o", "", e.what());
        }
    });
    on_all_ranks(comm, [&] {
        require_run_memory(m, a.model, comm, a.solver);  // every rank of one host: see README, Limits
        o.solver = a.solver;
        o.threads = a.threads;
        o.exchange_threads = a.exchange_threads;
        o.gpus = a.gpus;
        o.first_gpu = first_gpu;
        o.pipeline = !a.no_pipeline;
        o.epoch_times = a.timeline.has_value();  // every rank's epochs for the breakdown
        o.record_samples = !a.spikes_only;
        o.comm = comm_ptr;
        spdlog::info("{}: {} cells, solver {}, dt {} ms, tfinal {} ms{}", a.model, m.cells.size(), o.solver.text(), m.run.dt,
                     m.run.tfinal, comm.size() > 1 ? ", " + comm.describe() : "");
        if (a.time_parallel.empty()) {
            sim = std::make_unique<Simulation>(m, o);
            return;
        }
        // Parallel in time: the solver (auto's choice) and its lanes from the spec; the
        // epoch loop only for verify=on's sequential run.
        o.solver = resolve_auto(a.solver, m, a.threads, true);
        parareal = std::make_unique<PararealRun>(m, o.solver, a.threads, !a.spikes_only, a.parareal);
        if (a.parareal.verify) sim = std::make_unique<Simulation>(m, o);
    });

    // Rank 0 writes the one output file (as <out>.partial until the end): it is the only
    // rank that creates, writes or removes anything.
    const ReportMapping mapping =
        parareal ? report_mapping(parareal->cells(), parareal->n_cells(), m.run) : report_mapping(*sim, m.run);
    std::unique_ptr<SonataSink> file;
    const bool report = !a.spikes_only && !mapping.element_ids.empty();
    on_root_input_check(comm, [&] {
        check_output_room(out, output_bytes(report ? mapping.n_frames() : 0, report ? mapping.n_values() : 0,
                                            a.double_report ? sizeof(double) : sizeof(float), mapping.node_ids.size()));
    });
    on_all_ranks(comm, [&] {
        if (root)
            file = std::make_unique<SonataSink>(out, m.name, report ? &mapping : nullptr, a.double_report, std::move(lock));
    });
    if (parareal) return run_time_parallel(a, m, o.solver, *parareal, sim.get(), *file);
    NoSink nothing;
    ProgressBar bar(m.run.tfinal);
    RunReport r;
    std::string failure;  // rank 0: why the run or the output failed
    if (root && a.timeline) timeline::start();
    try {
        r = sim->run(root ? static_cast<RecordSink&>(*file) : nothing, [&](double t) {
                if (root) bar.update(t);
            },
            [] { return StopSignals::received() != 0; });
        if (root && !r.stopped) file->writer().finish();
    } catch (const std::exception& e) {
        if (!root) throw;  // rank 0 keeps the output; this rank reports its own failure
        failure = e.what();
    }
    bar.end_line();
    timeline::stop();
    // A failure, a blow-up or a signal: rank 0 keeps what reached the disk as
    // <out>.partial, marked as interrupted, and says so in one line.
    if (root && !failure.empty()) {
        std::string kept;
        try {
            kept = file->writer().interrupt(failure);
        } catch (const std::runtime_error&) {
            kept = file->writer().partial_path();  // finish() wrote and closed it, then failed to rename it
        }
        spdlog::error("{}; kept {}", failure, kept);
        return 1;
    }
    if (!failure.empty()) return 1;
    if (r.stopped) {
        const int sig = StopSignals::received() != 0 ? StopSignals::received() : SIGTERM;
        if (root) {
            char why[96];
            std::snprintf(why, sizeof why, "stopped by %s at t = %.9g ms", StopSignals::name(sig), r.t_end);
            spdlog::warn("{}: kept {}", why, file->writer().interrupt(why));
        }
        return 128 + sig;
    }

    if (root && a.timeline) {
        std::ofstream f(*a.timeline);
        timeline::write_csv(f, timeline::marks());
        if (!f.flush()) {
            spdlog::error("{}: could not write the timeline", *a.timeline);
            return 1;
        }
        // Every rank's epochs: the table beside the timeline, its breakdown into the log.
        const std::string table = epoch_table_path(*a.timeline);
        std::ofstream t(table);
        write_epoch_csv(t, sim->epoch_table());
        if (!t.flush()) {
            spdlog::error("{}: could not write the epoch table", table);
            return 1;
        }
        for (const std::string& line : describe(epoch_breakdown(sim->epoch_table()))) spdlog::info("{}", line);
    }

    const double ns_cv_step = ns_per_cv_step(r.run_s, r.n_cv, r.steps);
    if (root) spdlog::info("wrote {}: {} spikes; set-up {:.3f} s, run {:.3f} s ({:.3g} ns per CV-step)", out, r.n_spikes, r.setup_s,
                 r.run_s, ns_cv_step);
    if (a.timings == "json" && root) {
        nlohmann::json j;
        j["solver"] = sim->solver().text();  // auto: what it chose
        j["threads"] = o.threads;
        j["exchange_threads"] = sim->exchange_threads();
        j["groups"] = sim->n_groups();  // rank 0's cell groups (GPU solvers: one per device it drives)
        j["ranks"] = r.ranks;
        j["pipeline"] = r.pipelined;
        j["setup"] = r.setup_s;
        for (const auto& [k, v] : sim->setup_phases()) j["setup_phases"][k] = v;  // rank 0's
        j["run"] = r.run_s;
        for (const auto& [k, v] : r.phases.as_map()) j[k] = v;
        j["exchange"] = r.exchange_s;
        j["exchange_exposed"] = r.exchange_exposed_s;
        j["mpi"] = r.mpi_s;
        j["steps"] = r.steps;
        j["n_cv"] = r.n_cv;
        j["ns_per_cv_step"] = ns_cv_step;
        j["n_spikes"] = r.n_spikes;
        j["n_events"] = r.n_events;
        j["peak_memory"] = peak_resident_bytes();  // rank 0's, bytes
        long own_cvs = 0;  // rank 0's share: the peak per CV of it (set-up's peak on a short run)
        for (int g = 0; g < sim->n_groups(); ++g) own_cvs += sim->group(g).data().n_real_cv();
        j["peak_memory_per_cv"] = own_cvs > 0 ? peak_resident_bytes() / static_cast<double>(own_cvs) : 0.0;
        std::cout << j.dump() << std::endl;
    }
    return 0;
}

}  // namespace arbolito
