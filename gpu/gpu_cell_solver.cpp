// Solver gpu-cell (gpu/gpu_cell_group.cu): its options and its factory. Plain C++,
// compiled in every build so that a CPU-only build still knows the solver (and says it
// needs the CUDA build); only the CUDA build has the factory.
#include <climits>
#include <optional>
#include <string>
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
    SolverOption o = choice_option("kernel", {}, "auto", "solve kernel; auto: rowparent8, or pipelined2 for cells over 65,535 CVs");
    o.form = "auto or a solve kernel of the CUDA build";
#ifdef ARBOLITO_HAVE_CUDA
    o.words = {"auto"};
    for (gpu::CellKernel k : gpu::all_cell_kernels) o.words.push_back(gpu::to_string(k));
#endif
    return o;
}

// One CUDA thread per slot of a block-shared block: refused before any numbering is built.
std::string check_gpu_cell_keys(const SolverOptions& o) {
    const std::optional<int> block = o.number("block");
    if (o.choice("layout") == "block-shared" && block && *block > 128)
        return "layout=block-shared with block=" + std::to_string(*block) +
               ": at most 128 (one CUDA block of that many threads per block of cells), or auto";
    return "";
}

}  // namespace

GpuGroupOptions gpu_group_options(const SolverOptions& o) {
    GpuGroupOptions g;
    const std::string& layout = o.choice("layout");
    const std::optional<int> block = o.number("block");
    using Kind = CellLayout::Kind;
    g.layout.kind = layout == "flat"                ? Kind::flat
                    : layout == "interleaved"       ? Kind::interleaved
                    : layout == "block-interleaved" ? Kind::block_interleaved
                                                    : Kind::block_shared;
    // block=auto: 32 for block-interleaved; block-shared's is chosen from the device's
    // shared memory and the cells, once they are known (gpu_cell_parts).
    g.layout.block = block.value_or(32);
    g.block_auto = g.layout.kind == Kind::block_shared && !block;
    const std::string& padding = o.choice("padding");
    g.solve_padding = padding == "compute" ? GpuGroupOptions::Padding::compute
                      : padding == "stop"  ? GpuGroupOptions::Padding::stop
                                           : GpuGroupOptions::Padding::automatic;
    apply_gpu_step_keys(o, g);
    g.solve_kernel = o.choice("kernel") == "auto" ? "" : o.choice("kernel");
    g.solve_threads = o.number_or("threads", 0);
    return g;
}

GpuGroupOptions parse_gpu_options(const std::string& options) {
    return gpu_group_options(parse_solver_spec(options.empty() ? "gpu-cell" : "gpu-cell:" + options).options);
}

std::vector<SolverOption> gpu_step_keys() {
    return {flag_option("timing", true, "CUDA events around every phase of every step (--timings)")};
}

void apply_gpu_step_keys(const SolverOptions& o, GpuGroupOptions& g) { g.phase_times = o.flag("timing"); }

SolverInfo gpu_cell_solver() {
    SolverInfo s;
    s.name = "gpu-cell";
    s.needs_cuda = true;
    s.description = "one CUDA thread per cell (cuHinesBatch), the whole time step on the GPU";
    s.options = {
        choice_option("layout", {"flat", "interleaved", "block-interleaved", "block-shared"}, "block-interleaved",
                      "CV numbering: cells one after another, interleaved across all cells, or interleaved within blocks "
                      "(block-shared: each block's right-hand sides in shared memory during the solve)"),
        integer_option("block", 1, INT_MAX, "auto",
                       "slots (cells) per block of layout=block-interleaved or block-shared; auto: 32, or for "
                       "block-shared the most (up to 128) whose right-hand sides fit the shared memory of a CUDA block",
                       {"auto"}),
        kernel_option(),
        number_list_option("threads", {32, 64, 96, 128}, "auto", "CUDA block size of the solve; auto: by cell count",
                           {"auto"}),
        choice_option("padding", {"auto", "compute", "stop"}, "auto",
                      "padding rows of a block's smaller cells: computed as real rows or skipped by each thread; auto: "
                      "the kernel's own (plain computes, the others stop)"),
    };
    const std::vector<SolverOption> step = gpu_step_keys();  // after kernel, as they always were
    s.options.insert(s.options.begin() + 3, step.begin(), step.end());
    s.check = check_gpu_cell_keys;
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
