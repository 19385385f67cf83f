#pragma once
// The GPU backend (DESIGN §2, §7): the whole time step on the device. Plain C++ header:
// cell_group.cpp includes it when the build has CUDA.
#include <cstdint>
#include <memory>
#include <string>

#include "engine/cell_group.hpp"

namespace arbolito {

// How point-mechanism currents that land on one CV are summed into d and rhs.
enum class PointSum {
    segmented,  // instances sorted by CV, warp-level segmented reduction, one add per segment
    atomic,     // one atomicAdd per instance
};

struct GpuGroupOptions {
    std::string layout;             // gpu_cell_layout option: flat, interleaved, block-interleaved:BS
    PointSum point_sum = PointSum::segmented;
    bool phase_times = true;        // CUDA events around every phase of every step
    std::string solve_kernel;       // gpu::CellKernel by name (hines_gpu_cell.hpp); empty: the solver's default
    int solve_threads = 0;          // CUDA block size of the solve; 0: chosen from the cell count
};

// The layout option of `--layout`: "<layout>[+MODIFIER]..." with modifiers segmented |
// atomic (point sums), untimed (no per-phase CUDA events), a solve kernel by name
// (gpu::all_cell_kernels; none: make_gpu_cell_plan's default), threads:N (solve block
// size: 32, 64, 96 or 128). An empty layout takes the default (default_gpu_layout).
// Throws std::invalid_argument.
GpuGroupOptions parse_gpu_options(const std::string& option);
const char* default_gpu_layout();

// Makes GPU (local_rank mod the visible devices) current for this process: the node's
// ranks take its GPUs round-robin. std::runtime_error naming `solver` where no CUDA
// device is usable.
void select_gpu(int local_rank, const std::string& solver);

// Solver gpu-cell: one thread per cell (cuHinesBatch) in a gpu_cell_layout numbering.
// Throws std::invalid_argument for a GPU solver not built yet or a bad option, and
// std::runtime_error where no CUDA device is present.
std::unique_ptr<CellGroup> make_gpu_cell_group(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end,
                                               const std::string& solver, const std::string& layout,
                                               const StepSettings& s, int local_rank = 0);

}  // namespace arbolito
