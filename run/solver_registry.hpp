#pragma once
// The solvers a run may choose, each with its name, its options and the factory of its
// cell groups (docs/solvers.md). The list is explicit, in solver_registry.cpp: adding a
// solver is one file defining its SolverInfo and one line there.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lowered_cell/cell_group.hpp"
#include "model/model.hpp"

namespace arbolito {

// One key of a solver's options.
struct SolverOption {
    std::string key;
    std::vector<std::string> values;  // the allowed values; empty: any value `form` describes
    std::string form;                 // a free value's form, e.g. "N >= 1" (help, errors)
    std::string default_value;
    std::string help;
    // Free values only: "" if `value` is good, else why not.
    std::function<std::string(const std::string& value)> check;
};

// Every declared key of a solver with its value: given, else the default.
using SolverOptions = std::map<std::string, std::string>;

// Builds the group for cells [gid_begin, gid_end). A GPU group runs on CUDA device
// `device` (mod the visible devices: run/gpu_binding.hpp chooses); CPU groups ignore it.
using GroupFactory = std::function<std::unique_ptr<CellGroup>(const Model& m, std::uint64_t gid_begin,
                                                              std::uint64_t gid_end, const SolverOptions& o,
                                                              const StepSettings& s, int device)>;

struct SolverInfo {
    std::string name;
    bool needs_cuda = false;  // a GPU solver: only the CUDA build has its factory
    bool is_auto = false;     // `auto`: no factory, the simulation picks a solver (solver_auto.hpp)
    std::string description;  // one line
    std::vector<SolverOption> options;
    // Cell groups per OpenMP thread on a rank (dynamic scheduling evens out cells of
    // different cost); 0: one group per rank.
    int groups_per_thread = 0;
    GroupFactory make_group;  // null where this build lacks the backend
};

// Every solver arbolito knows, in help order, whether this build has it or not.
const std::vector<SolverInfo>& all_solvers();
// The names of those this build can run, comma-separated (help texts, errors).
std::string available_solver_names();
// The solver of that name, or null.
const SolverInfo* find_solver(const std::string& name);
// Whether `s` can run in this build on this machine: a GPU solver needs the CUDA build and
// a usable CUDA device (gpu_available, solver_auto.hpp); cpu, omp and auto always can.
// Where not, `why` (if given) gets the reason, e.g. "needs a CUDA device, and none is usable here".
bool solver_available(const SolverInfo& s, std::string* why = nullptr);

}  // namespace arbolito
