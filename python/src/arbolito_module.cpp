// The Python module's native part (arbolito._arbolito): the engine's model reader,
// in-memory run (api/run_in_memory.hpp), SONATA writer and catalogue, with the command
// line's checks (app/run_common, app/output_checks) and its stop on SIGINT/SIGTERM
// (app/stop_signals). The Pythonic layer is python/arbolito/*.py.
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "api/run_in_memory.hpp"
#include "app/output_checks.hpp"
#include "app/run_common.hpp"
#include "app/spike_agreement.hpp"
#include "app/stop_signals.hpp"
#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "io/sonata_sink.hpp"
#include "mechanisms/catalogue.hpp"
#include "model/memory_estimate.hpp"
#include "run/solver_auto.hpp"
#include "run/solver_registry.hpp"
#include "run/solver_spec.hpp"

namespace py = pybind11;
using namespace arbolito;

namespace {

// A vector handed to numpy without a copy: the array owns it.
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
    auto* owned = new std::vector<T>(std::move(v));
    py::capsule free_it(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(shape, owned->data(), free_it);
}

template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
    const auto n = static_cast<py::ssize_t>(v.size());
    return to_numpy(std::move(v), {n});
}

// The model as the command line reads it: a file (text empty) or a JSON text named by
// `path` (relative file names in it are relative to path's folder), --set assignments on
// top.
Model load_model(const std::string& path, const std::optional<std::string>& text, const std::vector<std::string>& sets,
                 ReadFor purpose) {
    return text ? parse_model(*text, path, sets, purpose) : read_model(path, sets, purpose);
}

py::dict timings_dict(const InMemoryRecord& r, int threads, int exchange_threads) {
    const RunReport& rep = r.report;
    py::dict j;
    j["solver"] = r.solver;
    j["threads"] = threads;
    j["exchange_threads"] = exchange_threads;
    j["pipeline"] = rep.pipelined;
    j["setup"] = rep.setup_s;
    j["run"] = rep.run_s;
    for (const auto& [k, v] : rep.phases.as_map()) j[py::str(k)] = v;
    j["exchange"] = rep.exchange_s;
    j["exchange_exposed"] = rep.exchange_exposed_s;
    j["steps"] = rep.steps;
    j["n_cv"] = rep.n_cv;
    j["ns_per_cv_step"] = ns_per_cv_step(rep.run_s, rep.n_cv, rep.steps);
    j["n_spikes"] = rep.n_spikes;
    j["n_events"] = rep.n_events;
    j["peak_memory"] = peak_resident_bytes();
    return j;
}

// The record as numpy arrays: spikes (gids uint64, detectors uint32, times float64),
// frame times and frames (n_frames x n_columns float64), the columns (gid, branch, position,
// what each records).
py::dict record_dict(InMemoryRecord&& r, int threads, int exchange_threads, const std::string& output) {
    py::dict d;
    d["timings"] = timings_dict(r, threads, exchange_threads);
    d["solver"] = r.solver;
    d["stopped"] = r.report.stopped;
    d["t_end"] = r.report.t_end;
    d["output"] = output;
    std::vector<std::uint64_t> gids(r.spikes.size());
    std::vector<std::uint32_t> sources(r.spikes.size());
    std::vector<double> times(r.spikes.size());
    for (std::size_t i = 0; i < r.spikes.size(); ++i) {
        gids[i] = r.spikes[i].gid;
        sources[i] = r.spikes[i].source;
        times[i] = r.spikes[i].time;
    }
    d["spike_gids"] = to_numpy(std::move(gids));
    d["spike_sources"] = to_numpy(std::move(sources));
    d["spike_times"] = to_numpy(std::move(times));
    const std::size_t nf = r.n_frames(), nv = r.mapping.n_values();
    std::vector<double> t(nf);
    for (std::size_t f = 0; f < nf; ++f) t[f] = r.frame_time(f);
    d["time"] = to_numpy(std::move(t));
    d["data"] = to_numpy(std::move(r.frames), {static_cast<py::ssize_t>(nf), static_cast<py::ssize_t>(nv)});
    // One gid per column (the mapping holds one per cell and where its columns start).
    std::vector<std::uint64_t> column_gid;
    column_gid.reserve(nv);
    for (std::size_t c = 0; c + 1 < r.mapping.index_pointers.size(); ++c)
        for (auto k = r.mapping.index_pointers[c]; k < r.mapping.index_pointers[c + 1]; ++k)
            column_gid.push_back(r.mapping.node_ids[c]);
    std::vector<double> pos(r.mapping.element_pos.begin(), r.mapping.element_pos.end());
    // What each column records ("v", "NaTs.ina", "ca.xi", ...): the report's variables.
    py::list variables;
    std::size_t at = 0;
    for (std::size_t c = 0; c < nv; ++c) {
        if (r.mapping.variables.empty()) {
            variables.append("v");
            continue;
        }
        const std::size_t end = std::min(r.mapping.variables.find(';', at), r.mapping.variables.size());
        variables.append(r.mapping.variables.substr(at, end - at));
        at = end + 1;
    }
    d["column_variables"] = variables;
    d["column_gids"] = to_numpy(std::move(column_gid));
    d["column_branches"] = to_numpy(std::move(r.mapping.element_ids));
    d["column_positions"] = to_numpy(std::move(pos));
    return d;
}

// arbolito run, one rank, its record returned; `output` non-empty: the SONATA file too,
// written as `arbolito run -o` writes it. Python's progress(t, tfinal) is called from the
// run's thread with the GIL taken, at most every 0.1 s of wall time and at the end; an
// exception it raises stops the run and is raised here. With catch_signals (the caller
// is Python's main thread), SIGINT and SIGTERM stop the run as they stop the command line's.
py::dict run(const std::string& path, const std::optional<std::string>& text, const std::vector<std::string>& sets,
             const std::string& solver, int threads, int exchange_threads, bool pipeline, bool spikes_only,
             std::optional<double> dt, std::optional<double> tfinal, const std::string& event_rules,
             const std::string& output, bool double_report, const std::optional<py::function>& progress,
             bool catch_signals) {
    // The command line's checks, in its order and words (app/command_run.cpp).
    SolverSpec spec;
    try {
        spec = parse_solver_spec(solver);
    } catch (const std::invalid_argument& e) {
        throw InputError("--solver", "", e.what());
    }
    if (const std::string why = solver_unavailable_here(spec); !why.empty()) throw InputError("--solver", "", why);
    if (threads < 1) throw InputError("--threads", "", "'" + std::to_string(threads) + "' is not a whole number >= 1");
    if (exchange_threads < 0)
        throw InputError("--exchange-threads", "", "'" + std::to_string(exchange_threads) + "' is not a whole number >= 1");
    check_thread_count("--threads", threads);
    check_thread_count("--exchange-threads", exchange_threads);
    Model m = load_model(path, text, sets, ReadFor::run);
    apply_run_overrides(m, dt, tfinal, event_rules);
    warn_short_run(m.run, !spikes_only);
    std::string out;
    OutputLock lock;
    if (!output.empty()) {
        out = checked_output_path(output, true, m.name);
        check_not_an_input(out, "-o", m.inputs);
        check_not_an_input(out + ".partial", "-o", m.inputs);
        try {
            lock = OutputLock::take(out + ".partial");
        } catch (const std::runtime_error& e) {
            throw InputError("-o", "", e.what());
        }
    }
    require_run_memory(m, path, 1, spec);
    SimOptions o;
    o.solver = spec;
    o.threads = threads;
    o.exchange_threads = exchange_threads;
    o.pipeline = pipeline;
    o.record_samples = !spikes_only;
    // From here, as in command_run, a first SIGINT or SIGTERM stops the run (at its first
    // epoch boundary when it came during the set-up); Python's handlers are back on return.
    std::optional<StopSignals> signals;
    if (catch_signals) signals.emplace();
    std::unique_ptr<InMemoryRun> setup;
    {
        py::gil_scoped_release free_python;
        setup = std::make_unique<InMemoryRun>(m, o);
    }
    const ReportMapping& mapping = setup->mapping();
    const bool report = !spikes_only && !mapping.element_ids.empty();
    std::unique_ptr<SonataSink> file;
    if (!out.empty()) {
        check_output_room(out, output_bytes(report ? mapping.n_frames() : 0, report ? mapping.n_values() : 0,
                                            double_report ? sizeof(double) : sizeof(float), mapping.node_ids.size()));
        file = std::make_unique<SonataSink>(out, m.name, report ? &mapping : nullptr, double_report, std::move(lock));
    }

    // The progress callback's failure (a Python exception) stops the run and is raised after it.
    std::optional<py::error_already_set> callback_error;
    std::atomic<bool> callback_failed{false};
    const double tf = m.run.tfinal;
    auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    RunHooks hooks;
    hooks.also = file.get();
    if (progress)
        hooks.progress = [&](double t) {
            const auto now = std::chrono::steady_clock::now();
            if (t < tf && now - last < std::chrono::milliseconds(100)) return;
            last = now;
            py::gil_scoped_acquire python;
            try {
                (*progress)(t, tf);
            } catch (py::error_already_set& e) {
                if (!callback_error) callback_error = std::move(e);
                callback_failed = true;
            }
        };
    hooks.stop_requested = [&] { return callback_failed.load() || (catch_signals && StopSignals::received() != 0); };

    InMemoryRecord rec;
    std::string failure;
    int sig = 0;
    {
        py::gil_scoped_release free_python;
        try {
            rec = setup->run(hooks);
            if (file && !rec.report.stopped) file->writer().finish();
        } catch (const std::exception& e) {
            failure = e.what();
        }
        sig = catch_signals ? StopSignals::received() : 0;
    }
    signals.reset();
    // As the command line: a failure or a stop keeps what reached the disk as <out>.partial.
    if (!failure.empty()) {
        if (file) {
            std::string kept;
            try {
                kept = file->writer().interrupt(failure);
            } catch (const std::runtime_error&) {
                kept = file->writer().partial_path();
            }
            failure += "; kept " + kept;
        }
        if (callback_error) throw *callback_error;
        throw std::runtime_error(failure);
    }
    if (callback_error) {
        if (file) file->writer().interrupt("stopped by an exception in the progress callback");
        throw *callback_error;
    }
    std::string written = out;
    py::dict d;
    if (rec.report.stopped) {
        if (sig == 0) sig = SIGTERM;
        char why[96];
        std::snprintf(why, sizeof why, "stopped by %s at t = %.9g ms", StopSignals::name(sig), rec.report.t_end);
        if (file) {
            const std::string kept = file->writer().interrupt(why);
            spdlog::warn("{}: kept {}", why, kept);
            written = file->writer().partial_path();
        }
        d = record_dict(std::move(rec), threads, exchange_threads, written);
        d["stopped_by"] = why;
        d["signal"] = sig;
        return d;
    }
    return record_dict(std::move(rec), threads, exchange_threads, written);
}

py::dict describe_model(const std::string& path, const std::optional<std::string>& text, const std::vector<std::string>& sets) {
    const Model m = load_model(path, text, sets, ReadFor::description);
    py::dict d;
    d["name"] = m.name;
    d["cells"] = m.cells.size();
    d["connections"] = m.connections.size();
    d["generators"] = m.generators.size();
    d["dt"] = m.run.dt;
    d["tfinal"] = m.run.tfinal;
    d["sample_dt"] = m.run.sample_dt;
    d["celsius"] = m.run.celsius;
    d["event_rules"] = m.run.rules == EventRules::neuron ? "neuron" : "arbor";
    return d;
}

py::list mechanisms() {
    py::list out;
    for (const MechInfo& mi : mechanism_infos()) {
        py::dict d, params;
        d["name"] = mi.name;
        d["kind"] = mi.kind == MechKind::density ? "density" : mi.kind == MechKind::synapse ? "synapse" : "stimulus";
        for (const Quantity& q : mi.params) {
            py::dict p;
            p["default"] = q.default_value;
            p["unit"] = q.unit;
            p["min"] = q.min;
            params[q.name] = p;
        }
        d["parameters"] = params;
        py::list states;
        for (const Quantity& q : mi.states) states.append(q.name);
        d["states"] = states;
        py::list currents;  // what probes may record of its current ("<name>.<current>")
        if (mi.kind == MechKind::density)
            for (const MechCurrent& c : mechanism_currents(mi)) currents.append(c.name);
        d["currents"] = currents;
        out.append(d);
    }
    return out;
}

py::list solvers() {
    py::list out;
    for (const SolverInfo& s : all_solvers()) {
        std::string why;
        py::dict d;
        d["name"] = s.name;
        d["available"] = solver_available(s, &why);
        d["why"] = why;
        out.append(d);
    }
    return out;
}

py::dict spike_agreement_of(py::array_t<std::uint64_t> gids, py::array_t<std::uint32_t> sources, py::array_t<double> times,
                            py::array_t<std::uint64_t> ref_gids, py::array_t<std::uint32_t> ref_sources,
                            py::array_t<double> ref_times) {
    const auto spikes = [](py::array_t<std::uint64_t>& g, py::array_t<std::uint32_t>& s, py::array_t<double>& t) {
        if (g.size() != s.size() || g.size() != t.size()) throw std::invalid_argument("spike arrays of different lengths");
        std::vector<Spike> v(g.size());
        for (py::ssize_t i = 0; i < g.size(); ++i) v[i] = Spike{g.at(i), s.at(i), t.at(i)};
        return v;
    };
    const SpikeAgreement a = spike_agreement(spikes(gids, sources, times), spikes(ref_gids, ref_sources, ref_times));
    py::dict d;
    d["n"] = a.n;
    d["n_ref"] = a.n_ref;
    d["trains_differ"] = a.trains_differ;
    d["matched"] = a.matched;
    d["max_dt"] = a.max_dt;
    d["identical"] = a.identical;
    return d;
}

}  // namespace

PYBIND11_MODULE(_arbolito, mod) {
    mod.doc() = "arbolito's engine; use the package arbolito";
    // Messages as the command line logs them, on stderr; warnings and errors only unless
    // set_log_level says otherwise.
    if (!spdlog::get("arbolito")) spdlog::set_default_logger(spdlog::stderr_color_mt("arbolito"));
    spdlog::set_pattern("[%l] %v");
    spdlog::set_level(spdlog::level::warn);

    // Kept for the interpreter's life (never destroyed: no Python object outlives it).
    static const auto* input_error = new py::exception<InputError>(mod, "InputError", PyExc_ValueError);
    static const auto* run_error = new py::exception<std::runtime_error>(mod, "RunError", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const InputError& e) {
            PyErr_SetString(input_error->ptr(), e.what());
        } catch (const std::invalid_argument& e) {
            PyErr_SetString(input_error->ptr(), e.what());
        } catch (const std::exception& e) {
            PyErr_SetString(run_error->ptr(), e.what());
        }
    });

    mod.def("run", &run, py::arg("path"), py::arg("text"), py::arg("sets"), py::arg("solver"), py::arg("threads"),
            py::arg("exchange_threads"), py::arg("pipeline"), py::arg("spikes_only"), py::arg("dt"), py::arg("tfinal"),
            py::arg("event_rules"), py::arg("output"), py::arg("double_report"), py::arg("progress"),
            py::arg("catch_signals"));
    mod.def("describe_model", &describe_model, py::arg("path"), py::arg("text"), py::arg("sets"));
    mod.def("mechanisms", &mechanisms);
    mod.def("solvers", &solvers);
    mod.def("describe_solvers", &describe_solvers);
    // arbolito compare's --solvers: the specs as their text, each checked to run here
    // before any runs, in the command line's words.
    mod.def("check_solver_list", [](const std::string& list) {
        std::vector<SolverSpec> specs;
        try {
            specs = parse_solver_list(list);
        } catch (const std::invalid_argument& e) {
            throw InputError("--solvers", "", e.what());
        }
        std::vector<std::string> out;
        for (const SolverSpec& s : specs) {
            std::string why;
            if (!solver_available(*s.solver, &why))
                throw InputError("--solvers", "", s.text() + ": " + why + " (no solver was run)");
            out.push_back(s.text());
        }
        return out;
    });
    mod.def("spike_agreement", &spike_agreement_of);
    mod.def("default_spike_tolerance", &default_spike_tolerance, py::arg("dt"));
    mod.def("set_log_level", [](const std::string& level) {
        const auto l = spdlog::level::from_str(level);
        if (l == spdlog::level::off && level != "off")
            throw InputError("--log-level", "", "'" + level + "': expected trace, debug, info, warn, error or off");
        spdlog::set_level(l);
    });
    mod.attr("version") = ARBOLITO_VERSION;
#ifdef ARBOLITO_HAVE_CUDA
    mod.attr("cuda") = true;
#else
    mod.attr("cuda") = false;
#endif
}
