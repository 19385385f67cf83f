#pragma once
// A solver as the command line names it: NAME[:KEY=VALUE]... (docs/solvers.md), e.g.
// "gpu-cell:layout=interleaved:timing=off". Keys are the solver's declared options; a key
// left out takes its default.
#include <string>
#include <utility>
#include <vector>

#include "run/solver_registry.hpp"

namespace arbolito {

struct SolverSpec {
    const SolverInfo* solver = nullptr;
    std::vector<std::pair<std::string, std::string>> given;  // as written, in order
    SolverOptions options;                                   // every key, defaults filled in
    // NAME[:KEY=VALUE]... as given (labels, file names).
    std::string text() const;
};

// Parses and checks a spec against the registry: the solver must exist and be in this
// build, every key declared and every value allowed. Throws std::invalid_argument with
// one line saying what is wrong and what is allowed.
SolverSpec parse_solver_spec(const std::string& text);

// A comma-separated list of specs (compare), each parsed and checked; throws as
// parse_solver_spec does, or for a list naming no solver.
std::vector<SolverSpec> parse_solver_list(const std::string& list);

// The grammar and every solver's keys, for help texts and `arbolito info`.
std::string describe_solvers();

// A SolverOption check for a whole number >= 1: "" if good, else why not.
std::string check_whole_number(const std::string& value);
// The same for a whole number >= 0.
std::string check_count(const std::string& value);

}  // namespace arbolito
