#pragma once
// `--solver auto`: one of the solvers chosen at set-up from the model's shape and the
// machine, by a rule derived from the measured tables of bench/RESULTS.md (H100;
// docs/solvers.md, "auto"). The rule:
//  - no usable GPU: omp with more than one thread, else cpu;
//  - long unbranched runs (a mean of 24 CVs per branch or more: the seed's binary trees):
//    gpu-branch with the EDD coupling below 10,000 cells (few, long serial runs cut into
//    pieces solved at once), gpu-branch with the fold above (memory-bound: the fold moves
//    fewer bytes);
//  - short runs (busyring, real dendrites): gpu-fine below 20,000 cells, gpu-cell above
//    (enough cells to keep the memory busy one thread per cell).
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
