// Solver gpu-cell (gpu/gpu_cell_group.cu): its options and its factory. Plain C++,
// compiled in every build so that a CPU-only build still knows the solver (and says it
// needs the CUDA build); only the CUDA build has the factory.
#include <stdexcept>
#include <utility>
#include <vector>

#include "gpu/gpu_cell_group.hpp"
#include "run/solver_registry.hpp"
#include "run/solver_spec.hpp"
#ifdef ARBOLITO_HAVE_CUDA
#include "solvers/gpu/hines_gpu_cell.hpp"
#endif

namespace arbolito {

namespace {

// The solve kernels by name; a CPU-only build lists them by form (the names live in CUDA code).
SolverOption kernel_option() {
    SolverOption o{"kernel", {}, "auto or a solve kernel of the CUDA build", "auto",
                   "solve kernel; auto: rowparent8, or pipelined2 for cells over 65,535 CVs", {}};
#ifdef ARBOLITO_HAVE_CUDA
    o.values = {"auto"};
    for (gpu::CellKernel k : gpu::all_cell_kernels) o.values.push_back(gpu::to_string(k));
#endif
    return o;
}

}  // namespace

GpuGroupOptions gpu_group_options(const SolverOptions& o) {
    GpuGroupOptions g;
    const std::string& layout = o.at("layout");
    const std::string& block = o.at("block");
    // block=auto: 32 for block-interleaved; block-shared's is chosen from the device's
    // shared memory and the cells, once they are known (gpu_cell_parts).
    if (layout == "block-interleaved") g.layout = "block-interleaved:" + (block == "auto" ? std::string("32") : block);
    else if (layout == "block-shared") {
        // One CUDA thread per slot of a block: refused before any numbering is built.
        if (block != "auto" && std::stoi(block) > 128)
            throw std::invalid_argument("gpu-cell: layout=block-shared with block=" + block +
                                        ": at most 128 (one CUDA block of that many threads per block of cells), or auto");
        g.layout = "block-shared:" + block;
    }
    else g.layout = layout;
    g.solve_padding = o.at("padding");
    apply_gpu_step_keys(o, g);
    g.solve_kernel = o.at("kernel") == "auto" ? "" : o.at("kernel");
    g.solve_threads = o.at("threads") == "auto" ? 0 : std::stoi(o.at("threads"));
    return g;
}

GpuGroupOptions parse_gpu_options(const std::string& options) {
    return gpu_group_options(parse_solver_spec(options.empty() ? "gpu-cell" : "gpu-cell:" + options).options);
}

std::vector<SolverOption> gpu_step_keys() {
    return {{"timing", {"on", "off"}, "", "on", "CUDA events around every phase of every step (--timings)", {}}};
}

void apply_gpu_step_keys(const SolverOptions& o, GpuGroupOptions& g) {
    g.phase_times = o.at("timing") == "on";
}

SolverInfo gpu_cell_solver() {
    SolverInfo s;
    s.name = "gpu-cell";
    s.needs_cuda = true;
    s.description = "one CUDA thread per cell (cuHinesBatch), the whole time step on the GPU";
    s.options = {
        {"layout", {"flat", "interleaved", "block-interleaved", "block-shared"}, "", "block-interleaved",
         "CV numbering: cells one after another, interleaved across all cells, or interleaved within blocks "
         "(block-shared: each block's right-hand sides in shared memory during the solve)", {}},
        {"block", {}, "N >= 1 or auto", "auto",
         "slots (cells) per block of layout=block-interleaved or block-shared; auto: 32, or for block-shared the "
         "most (up to 128) whose right-hand sides fit the shared memory of a CUDA block",
         [](const std::string& v) { return v == "auto" ? std::string() : check_whole_number(v); }},
        kernel_option(),
        {"threads", {"auto", "32", "64", "96", "128"}, "", "auto", "CUDA block size of the solve; auto: by cell count",
         {}},
        {"padding", {"auto", "compute", "stop"}, "", "auto",
         "padding rows of a block's smaller cells: computed as real rows or skipped by each thread; auto: the "
         "kernel's own (plain computes, the others stop)",
         {}},
    };
    const std::vector<SolverOption> step = gpu_step_keys();  // after kernel, as they always were
    s.options.insert(s.options.begin() + 3, step.begin(), step.end());
#ifdef ARBOLITO_HAVE_CUDA
    s.make_group = [](const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end, const SolverOptions& o,
                      const StepSettings& st, int device) {
        const GpuGroupOptions g = gpu_group_options(o);
        return make_gpu_group(m, gid_begin, gid_end, "gpu-cell", gpu_cell_parts(g), g, st, device);
    };
#endif
    return s;
}

}  // namespace arbolito
