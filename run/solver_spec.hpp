#pragma once
// A solver as the command line names it: NAME[:KEY=VALUE]... (docs/solvers.md), e.g.
// "gpu-cell:layout=interleaved:timing=off". Parsed once, where the command line is read:
// keys are the solver's declared options (solver_registry.hpp), each value checked against
// its type, and a key left out takes its default. The solver receives the typed values.
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
    // Cells a group steps side by side in SIMD lanes (SolverInfo::lane_width; 1 for the GPU
    // solvers and auto).
    int lane_width() const;
};

// Parses and checks a spec against the registry: the solver must exist and be in this
// build, every key declared, every value of its key's type (a whole number in its range
// or list, one of its words, on/off), every key given once, and the keys together as the
// solver's rule wants. Throws std::invalid_argument with one line naming the solver, the
// key and what it takes.
SolverSpec parse_solver_spec(const std::string& text);

// The same checks for a solver this build may lack (a GPU solver in a CPU-only build):
// its options are checked all the same (tests).
SolverSpec parse_solver_spec_any_build(const std::string& text);

// A comma-separated list of specs (compare), each parsed and checked; throws as
// parse_solver_spec does, or for a list naming no solver.
std::vector<SolverSpec> parse_solver_list(const std::string& list);

// The grammar and every solver's keys with their types, for help texts and `arbolito info`.
std::string describe_solvers();

}  // namespace arbolito
