// arbolito: the command line. Parses arguments, sets up logging, loads the model,
// runs it and reports; all the work happens in the engine.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/commands.hpp"
#include "io/input_error.hpp"

int main(int argc, char** argv) {
    using namespace arbolito;
    CLI::App app{"arbolito: simulate networks of morphologically detailed neurons"};
    app.require_subcommand(1);
    app.fallthrough();  // --log-level may follow the subcommand
    std::string log_level = "info";
    app.add_option("--log-level", log_level, "trace, debug, info, warn, error, off")->check(
        CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

    RunArgs run;
    auto* run_cmd = app.add_subcommand("run", "run a model and write voltage traces and spikes (SONATA HDF5)");
    run_cmd->add_option("model", run.model, "model file (JSON)")->required();
    run_cmd->add_option("-o,--output", run.output, "output file (default: <model name>.h5)");
    run_cmd->add_option("--solver", run.solver, "cpu, omp, gpu-cell, gpu-fine, gpu-branch");
    run_cmd->add_option("--layout", run.layout, "gpu-cell layout: flat, interleaved, block-interleaved:BS");
    run_cmd->add_option("--dt", run.dt, "time step, ms (overrides the model)");
    run_cmd->add_option("--tfinal", run.tfinal, "end time, ms (overrides the model)");
    run_cmd->add_option("--threads", run.threads, "threads for the omp solver")->check(CLI::PositiveNumber);
    run_cmd->add_option("--timings", run.timings, "print per-phase timings: json")->check(CLI::IsMember({"json"}));
    run_cmd->add_flag("--spikes-only", run.spikes_only, "record spikes, no voltage traces");
    run_cmd->add_flag("--double-report", run.double_report, "store voltages as float64 (validation; not SONATA's float32)");
    run_cmd->add_flag("--no-pipeline", run.no_pipeline, "exchange spikes after the cell update instead of during it");
    run_cmd->add_option("--event-rules", run.event_rules, "arbor or neuron (overrides the model)")->check(
        CLI::IsMember({"arbor", "neuron"}));

    CompareArgs cmp;
    auto* cmp_cmd = app.add_subcommand("compare", "run a model with several solvers and compare timings, traces and spikes");
    cmp_cmd->add_option("model", cmp.model, "model file (JSON)")->required();
    cmp_cmd->add_option("--solvers", cmp.solvers, "comma-separated name[:layout], e.g. cpu,omp,gpu-cell:interleaved")->required();
    cmp_cmd->add_option("-o,--output", cmp.output, "output directory (default: <model name>_compare)");
    cmp_cmd->add_option("--threads", cmp.threads, "threads for the omp solver")->check(CLI::PositiveNumber);
    cmp_cmd->add_option("--dt", cmp.dt, "time step, ms (overrides the model)");
    cmp_cmd->add_option("--tfinal", cmp.tfinal, "end time, ms (overrides the model)");
    cmp_cmd->add_flag("--spikes-only", cmp.spikes_only, "record spikes, no voltage traces");

    InfoArgs info;
    auto* info_cmd = app.add_subcommand("info", "describe a model: cells, CVs, mechanisms, memory");
    info_cmd->add_option("model", info.model, "model file (JSON)")->required();
    info_cmd->add_option("--geometry", info.geometry, "write the discretised model for NEURON (JSON)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    // Logs go to stderr: stdout carries machine-readable output (--timings json).
    spdlog::set_default_logger(spdlog::stderr_color_mt("arbolito"));
    spdlog::set_level(spdlog::level::from_str(log_level));
    spdlog::set_pattern("[%l] %v");

    try {
        if (*run_cmd) return command_run(run);
        if (*info_cmd) return command_info(info);
        if (*cmp_cmd) return command_compare(cmp);
    } catch (const InputError& e) {
        spdlog::error("{}", e.what());
        return 2;
    } catch (const std::invalid_argument& e) {
        spdlog::error("{}", e.what());
        return 2;
    } catch (const std::exception& e) {
        spdlog::critical("{}", e.what());
        return 1;
    }
    return 0;
}
