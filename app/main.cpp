// arbolito: the command line. Parses arguments, sets up logging, loads the model,
// runs it and reports; all the work happens in the engine. Under mpirun every rank runs
// this; rank 0 prints and writes (docs/mpi.md).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "git_commit.hpp"  // ARBOLITO_GIT_COMMIT, written at build time (cmake/git_commit.cmake)

#include "app/commands.hpp"
#include "app/suggest.hpp"
#include "run/communicator.hpp"
#include "parareal/parareal.hpp"
#include "run/solver_spec.hpp"
#include "io/input_error.hpp"

namespace {

// A CLI check that parses the option's text once, as the command line is read, into
// `into` (parse_solver_spec, parse_solver_list, parse_time_parallel), and reports what it
// throws, so that a bad spec is refused before anything runs.
template <class T, class Parse>
CLI::Validator parsed_into(T* into, Parse parse, const std::string& description) {
    return CLI::Validator(
        [into, parse](std::string& v) {
            try {
                *into = parse(v);
                return std::string();
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
        },
        description);
}

// --threads and the like: a whole number >= 1 (CLI::PositiveNumber's message printed the
// largest double, 309 digits, as its bound).
const CLI::Validator at_least_one(
    [](std::string& v) {
        std::size_t end = 0;
        long n = 0;
        try {
            n = std::stol(v, &end);
        } catch (const std::exception&) {
            end = 0;
        }
        return end == v.size() && n >= 1 ? std::string() : "'" + v + "' is not a whole number >= 1";
    },
    "N >= 1");

// --gpu: a device number, a whole number >= 0.
const CLI::Validator device_number(
    [](std::string& v) {
        std::size_t end = 0;
        long n = -1;
        try {
            n = std::stol(v, &end);
        } catch (const std::exception&) {
            end = 0;
        }
        return end == v.size() && n >= 0 ? std::string() : "'" + v + "' is not a device number (0, 1, ...)";
    },
    "D >= 0");

// A hint for a mistyped command line, or "": an unknown subcommand or option named,
// with the nearest valid word (suggest.hpp). CLI11 says only "not expected".
std::string mistyped(CLI::App& app, int argc, char** argv) {
    const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
    std::vector<std::string> commands;
    for (const CLI::App* s : subs) commands.push_back(s->get_name());
    const auto parsed = app.get_subcommands();
    if (parsed.empty()) {
        // The first word that is not an option or --log-level's value names the command.
        for (int i = 1; i < argc; ++i) {
            const std::string w = argv[i];
            if (w == "--log-level") { ++i; continue; }
            if (w.empty() || w[0] == '-') continue;
            const std::string near = arbolito::nearest_word(w, commands);
            return "unknown command '" + w + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; commands: run, info, compare";
        }
        return "";
    }
    CLI::App* sub = parsed.front();
    std::vector<std::string> names;
    for (const CLI::App* a : {static_cast<const CLI::App*>(&app), static_cast<const CLI::App*>(sub)})
        for (const CLI::Option* o : a->get_options()) {
            if (o->get_group().empty()) continue;  // hidden (--layout)
            for (const auto& l : o->get_lnames()) names.push_back("--" + l);
            for (const auto& n : o->get_snames()) names.push_back("-" + n);
        }
    for (const CLI::App* a : {static_cast<const CLI::App*>(sub), static_cast<const CLI::App*>(&app)})
        for (const std::string& w : a->remaining()) {
            if (w.size() < 2 || w[0] != '-') continue;
            const std::string flag = w.substr(0, w.find('='));
            const std::string near = arbolito::nearest_word(flag, names);
            return "unknown option '" + flag + "' for " + sub->get_name() + (near.empty() ? "" : " (did you mean " + near + "?)") +
                   "; see arbolito " + sub->get_name() + " --help";
        }
    return "";
}

std::string version_text() {
    std::string v = std::string("arbolito ") + ARBOLITO_VERSION;
    if (const std::string commit = ARBOLITO_GIT_COMMIT; !commit.empty()) v += " (commit " + commit + ")";
#ifdef ARBOLITO_HAVE_CUDA
    v += ", CUDA on";
#else
    v += ", CUDA off";
#endif
#ifdef ARBOLITO_HAVE_MPI
    v += ", MPI on";
#else
    v += ", MPI off";
#endif
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace arbolito;
#ifdef __GLIBC__
    // Arrays of 1 MiB and more are mapped and unmapped on their own: set-up's freed arrays
    // go back to the system instead of staying in the heap beside the run's state (glibc
    // otherwise raises this threshold as they are freed), so that the peak is what the
    // memory estimate counts (one cell of 823,297 CVs: 102 MiB at its peak instead of 105).
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    std::shared_ptr<Communicator> comm;
    try {
        comm = make_world_communicator(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "[critical] %s\n", e.what());
        return 1;
    }
    const bool root = comm->is_root();
    CLI::App app{"arbolito: simulate networks of morphologically detailed neurons"};
    app.require_subcommand(1);
    app.set_version_flag("--version", version_text(), "print the version, the git commit and the backends built, and exit");
    app.fallthrough();  // --log-level may follow the subcommand
    std::string log_level = "info";
    app.add_option("--log-level", log_level, "trace, debug, info, warn, error, off")->check(
        CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

    RunArgs run;
    auto* run_cmd = app.add_subcommand("run", "run a model and write voltage traces and spikes (SONATA HDF5)");
    run_cmd->add_option("model", run.model, "model file (JSON)")->required();
    run_cmd->add_option("--set", run.sets, "change the model before it is read: KEY.PATH=VALUE, e.g. network.num-cells=64 (repeatable)");
    run_cmd->add_option("-o,--output", run.output, "output file (default: <model name>.h5)");
    std::string solver_text;
    run_cmd->add_option("--solver", solver_text, "NAME[:KEY=VALUE]...: " + available_solver_names() + " (below)")
        ->check(parsed_into(&run.solver, parse_solver_spec, "SPEC"));
    // The old --layout, hidden: the run says where its options went (below).
    std::string old_layout;
    run_cmd->add_option("--layout", old_layout)->group("");
    run_cmd->add_option("--time-parallel", run.time_parallel,
                        "parareal[:KEY=VALUE]... (keys slices, tol, coarse, coarse-solver, coarse-cvs, iterations, verify): "
                        "parallel in time for models without connections (docs/parareal.md)")
        ->check(parsed_into(&run.parareal, arbolito::parse_time_parallel, "parareal[:KEY=VALUE]..."));
    run_cmd->add_option("--dt", run.dt, "time step, ms (overrides the model)");
    run_cmd->add_option("--tfinal", run.tfinal, "end time, ms (overrides the model)");
    run_cmd->add_option("--threads", run.threads, "threads for the omp solver")->check(at_least_one);
    run_cmd->add_option("--exchange-threads", run.exchange_threads,
                        "threads of the spike exchange (default: 1 for cpu/omp, --threads with --no-pipeline, the idle "
                        "cores for gpu solvers)")
        ->check(at_least_one);
    run_cmd->add_option("--gpus", run.gpus,
                        "GPU solvers: cell groups of each rank, one per CUDA device (default: the visible devices "
                        "shared among the node's ranks; more than visible: groups share devices)")
        ->check(at_least_one);
    run_cmd->add_option("--gpu", run.gpu,
                        "GPU solvers: the rank's first CUDA device (default: $ARBOLITO_GPU, else from the rank's "
                        "place on its node)")
        ->check(device_number);
    run_cmd->add_option("--timings", run.timings, "print per-phase timings: json")->check(CLI::IsMember({"json"}));
    run_cmd->add_option("--timeline", run.timeline,
                        "write the run's timeline (rank 0): CSV of thread, microseconds, mark, step, for where time goes "
                        "between kernels and exchanges, and beside it FILE.epochs.csv, every rank's epochs per cell group, "
                        "broken down in the log (docs/architecture.md)");
    run_cmd->add_flag("--spikes-only", run.spikes_only, "record spikes, no voltage traces");
    run_cmd->add_flag("--double-report", run.double_report, "store voltages as float64 (validation; not SONATA's float32)");
    run_cmd->add_flag("--no-pipeline", run.no_pipeline, "exchange spikes after the cell update instead of during it");
    run_cmd->add_option("--event-rules", run.event_rules, "arbor or neuron (overrides the model)")->check(
        CLI::IsMember({"arbor", "neuron"}));

    run_cmd->footer(describe_solvers());

    CompareArgs cmp;
    auto* cmp_cmd = app.add_subcommand("compare", "run a model with several solvers and compare timings, traces and spikes");
    cmp_cmd->add_option("model", cmp.model, "model file (JSON)")->required();
    std::string solvers_text;
    cmp_cmd->add_option("--solvers", solvers_text,
                        "comma-separated NAME[:KEY=VALUE]..., e.g. cpu,omp,gpu-cell:layout=interleaved; this build has " +
                            available_solver_names())
        ->required()
        ->check(parsed_into(&cmp.solvers, parse_solver_list, "SPEC,..."));
    cmp_cmd->add_option("--set", cmp.sets, "change the model before it is read: KEY.PATH=VALUE, e.g. network.num-cells=64 (repeatable)");
    cmp_cmd->add_option("-o,--output", cmp.output, "output directory (default: out/<model name>_compare)");
    cmp_cmd->add_option("--threads", cmp.threads, "threads for the omp solver")->check(at_least_one);
    cmp_cmd->add_option("--dt", cmp.dt, "time step, ms (overrides the model)");
    cmp_cmd->add_option("--tfinal", cmp.tfinal, "end time, ms (overrides the model)");
    cmp_cmd->add_flag("--spikes-only", cmp.spikes_only, "record spikes, no voltage traces");
    cmp_cmd->add_option("--spike-tolerance", cmp.spike_tolerance,
                        "largest spike-time difference to the first solver that still agrees, ms (default: 1e-4 dt; "
                        "docs/compare.md)");
    cmp_cmd->add_option("--voltage-tolerance", cmp.voltage_tolerance,
                        "largest trace difference to the first solver that still agrees, mV (default: 400 mV/ms times "
                        "the spike tolerance; inf: traces not judged)");
    cmp_cmd->footer(describe_solvers());

    InfoArgs info;
    auto* info_cmd = app.add_subcommand("info", "describe a model: cells, CVs, mechanisms, memory (without a model: the solvers and mechanisms of this build)");
    info_cmd->add_option("model", info.model, "model file (JSON); without one: the solvers and mechanisms of this build");
    info_cmd->add_option("--set", info.sets, "change the model before it is read: KEY.PATH=VALUE, e.g. network.num-cells=64 (repeatable)");
    info_cmd->add_option("--geometry", info.geometry, "write the discretised model for NEURON (JSON)");
    info_cmd->add_option("--threads", info.threads, "threads to assume for what --solver auto would choose")
        ->check(CLI::Range(1, 1024));
    info_cmd->add_flag("--branches", info.branches,
                       "list cell --gid's branches (the numbers locations use): region, parent, length, distance from "
                       "the soma, CVs");
    info_cmd->add_option("--gid", info.gid, "the cell --branches lists (default 0)")->check(CLI::NonNegativeNumber);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // Every rank parses the same line: rank 0 alone prints help or the complaint.
        if (dynamic_cast<const CLI::ExtrasError*>(&e) || dynamic_cast<const CLI::RequiredError*>(&e)) {
            const std::string hint = mistyped(app, argc, argv);
            if (!hint.empty()) {
                if (root) std::fprintf(stderr, "[error] %s\n", arbolito::escape_control(hint).c_str());
                return 2;
            }
        }
        // CLI11's words, with a long token of the command line cut (cut_long_words).
        std::ostringstream out, err;
        const int rc = app.exit(e, out, err);
        if (root) {
            std::fputs(out.str().c_str(), stdout);
            std::istringstream lines(err.str());
            for (std::string line; std::getline(lines, line);)
                std::fprintf(stderr, "%s\n", arbolito::escape_control(arbolito::cut_long_words(line)).c_str());
        }
        return rc == 0 ? 0 : 2;
    }
    // Logs go to stderr: stdout carries machine-readable output (--timings json). With
    // several ranks the others log warnings and errors only, unless --log-level is given,
    // and name their rank.
    spdlog::set_default_logger(spdlog::stderr_color_mt("arbolito"));
    const bool level_given = app.count("--log-level") > 0;
    spdlog::set_level(root || level_given ? spdlog::level::from_str(log_level)
                                          : std::max(spdlog::level::warn, spdlog::level::from_str(log_level)));
    spdlog::set_pattern(root ? "[%l] %v" : "[rank " + std::to_string(comm->rank()) + "] [%l] %v");

    // Input errors come from the model and the command line, the same on every rank:
    // rank 0 reports them. Other errors are reported by the rank that met them; the
    // ranks that stopped because of it (PeerFailure) say so only on rank 0.
    try {
        if (*run_cmd && run_cmd->count("--layout") > 0)
            throw InputError("--layout", "", "gone: give gpu-cell's options in --solver, e.g. --solver "
                                             "gpu-cell:layout=block-interleaved:block=32:timing=off (docs/solvers.md)");
        run.output_given = run_cmd->count("--output") > 0;
        if (*run_cmd) return command_run(run, comm);
        if (comm->size() > 1)
            throw std::invalid_argument(std::string(*info_cmd ? "info" : "compare") + " runs on one rank (without mpirun)");
        if (*info_cmd) return command_info(info);
        if (*cmp_cmd) return command_compare(cmp);
    } catch (const InputError& e) {
        if (root) spdlog::error("{}", e.what());
        return 2;
    } catch (const std::invalid_argument& e) {
        if (root) spdlog::error("{}", e.what());
        return 2;
    } catch (const PeerFailure& e) {
        if (root) spdlog::error("{}", e.what());
        return 1;
    } catch (const std::exception& e) {
        spdlog::critical("{}", e.what());
        return 1;
    }
    return 0;
}
