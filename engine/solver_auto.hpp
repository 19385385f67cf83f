#pragma once
// `--solver auto`: one of the solvers chosen at set-up from the model's shape and the
// machine, by a rule derived from the tables measured on the H100 (bench/RESULTS.md,
// bench/branch_bench_h100.tsv, bench/busyring_solvers_h100.tsv; docs/solvers.md):
//  - no usable GPU: omp with more than one thread, else cpu;
//  - long unbranched runs (24 CVs per branch or more, the seed's binary trees): below
//    10,000 cells gpu-branch with EDD (the long runs cut and solved at once), above it
//    gpu-branch with the fold (memory-bound: the fold moves fewer bytes);
//  - short runs (busyring, real dendrites): below 4,096 cells gpu-fine (threads within
//    each cell); above, gpu-branch with the fold, unless the cells are deeper than 40
//    branch levels (three launches per level): then gpu-cell.
#include <cstdint>
#include <string>

#include "engine/model.hpp"

namespace arbolito {

// What the rule looks at.
struct ModelShape {
    std::uint64_t cells = 0;
    long cvs = 0;
    double cvs_per_branch = 0;  // CVs over unbranched runs, all cells together
    int max_levels = 0;         // the deepest cell's branch levels
};
ModelShape model_shape(const Model& m);

struct AutoChoice {
    std::string spec;  // a solver spec, e.g. "gpu-branch:coupling=edd"
    std::string why;   // one line
};
// gpu: a CUDA device this build can use; threads: --threads.
AutoChoice choose_solver(const ModelShape& shape, bool gpu, int threads);

// Whether this build has the CUDA backend and the machine a CUDA device.
bool gpu_available();

}  // namespace arbolito
