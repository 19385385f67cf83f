#pragma once
// `--solver auto`: one of the solvers chosen at set-up from the model's shape and the
// machine, by a rule derived from the tables measured on the H100 (bench/RESULTS.md,
// bench/branch_bench_h100.tsv, bench/busyring_solvers_h100.tsv; docs/solvers.md):
//  - no usable GPU: omp with more than one thread, else cpu;
//  - long unbranched runs (24 CVs per branch or more: the multi-morphology study's
//    binary trees): gpu-branch with EDD (the long runs cut and solved at once; by tiles
//    in shared memory where tile=auto tiles the cells, edd_auto_tile), unless EDD is
//    untiled and the cells 10,000 or more: then gpu-branch with the fold (memory-bound:
//    it moves fewer bytes);
//  - short runs (busyring, real dendrites): below 4,096 cells gpu-branch with EDD if the
//    cells are deeper than 20 branch levels, else gpu-fine's resident step (threads
//    within each cell); above, the resident step up to 20 levels, gpu-branch with the
//    fold up to 40, gpu-cell deeper (the fold's three launches per level).
#include <cstdint>
#include <string>

#include "model/model.hpp"
#include "run/solver_spec.hpp"

namespace arbolito {

// What the rule looks at.
struct ModelShape {
    std::uint64_t cells = 0;
    long cvs = 0;
    double cvs_per_branch = 0;  // CVs over unbranched runs, all cells together
    int max_levels = 0;         // the deepest cell's branch levels
    int max_branch_points = 0;  // the most a cell has (CVs with two children or more)
    long max_cell_cvs = 0;      // the largest cell's CVs
};
ModelShape model_shape(const Model& m);

struct AutoChoice {
    std::string spec;  // a solver spec, e.g. "gpu-branch:coupling=edd"
    std::string why;   // one line
};
// gpu: a CUDA device this build can use; threads: --threads.
AutoChoice choose_solver(const ModelShape& shape, bool gpu, int threads);

// The spec to run: `spec` itself, or for `auto` the rule's choice for this model, machine
// and thread count (logged where `log`: "solver auto: SPEC (why)").
SolverSpec resolve_auto(const SolverSpec& spec, const Model& m, int threads, bool log);

// Whether this build has the CUDA backend and the machine a CUDA device.
bool gpu_available();

// Why `spec` cannot run on this machine ("" where it can): a GPU solver where no CUDA
// device is usable. For the checks made before anything runs (run, and compare for every
// solver of its list before the first).
std::string solver_unavailable_here(const SolverSpec& spec);

}  // namespace arbolito
