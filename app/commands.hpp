#pragma once
// The subcommands of the arbolito binary.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "parareal/parareal.hpp"
#include "run/communicator.hpp"
#include "run/solver_spec.hpp"

namespace arbolito {

struct RunArgs {
    std::string model, output, timings, event_rules;
    SolverSpec solver = parse_solver_spec("cpu");  // --solver, parsed and checked as the command line is read
    std::vector<std::string> sets;  // --set KEY.PATH=VALUE on the model (io/model_overrides.hpp)
    std::string time_parallel;      // parareal[:KEY=VALUE...] as given (parareal/parareal.hpp); empty: sequential
    PararealSettings parareal;      // time_parallel parsed, as the command line is read
    std::optional<std::string> timeline;  // --timeline FILE: the run's marks as CSV (run/timeline.hpp)
    std::optional<double> dt, tfinal;
    int threads = 1;
    int exchange_threads = 0;  // 0: Simulation chooses
    int gpus = 0;              // GPU solvers: cell groups (devices) per rank; 0: the visible devices shared among the node's ranks
    std::optional<int> gpu;    // --gpu D: the rank's first device (else $ARBOLITO_GPU, else from its local rank)
    bool spikes_only = false, no_pipeline = false, double_report = false;
    bool output_given = false;  // -o was given (an empty one is an error, not the default)
};

struct InfoArgs {
    std::string model, geometry;  // no model: the solvers of this build
    std::vector<std::string> sets;
    int threads = 1;              // what --solver auto would choose with this many threads
    bool branches = false;        // list the branches of cell `gid` (locations name them)
    long gid = 0;
};

struct CompareArgs {
    std::string model, output;
    std::vector<SolverSpec> solvers;  // --solvers, parsed and checked as the command line is read
    std::vector<std::string> sets;
    std::optional<double> dt, tfinal;
    int threads = 1;
    bool spikes_only = false;
    // The verdict's tolerances (docs/compare.md); none: the defaults, from dt.
    std::optional<double> spike_tolerance, voltage_tolerance;  // ms, mV
};

// Collective: every rank runs it (rank 0 writes the output, see docs/mpi.md).
int command_run(const RunArgs& a, const std::shared_ptr<Communicator>& comm);
int command_compare(const CompareArgs& a);
int command_info(const InfoArgs& a);

}  // namespace arbolito
