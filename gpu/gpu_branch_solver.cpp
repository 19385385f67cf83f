// Solver gpu-branch (Valero-Lara's multi-morphology branch-level solver; docs/solvers.md): the
// GPU cell group with branch_level_layout's numbering (all branches of all cells by
// level, a warp's slots interleaved) and the solve of solvers/gpu/hines_gpu_branch, with
// the fold or the EDD coupling. Plain C++, compiled in every build so that a CPU-only
// build still knows the solver; only the CUDA build has the factory.
#include <climits>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gpu/gpu_cell_group.hpp"
#include "run/solver_registry.hpp"
#include "run/solver_spec.hpp"
#include "solvers/branch_layout.hpp"
#ifdef ARBOLITO_HAVE_CUDA
#include "gpu/gpu_solve.hpp"
#include "solvers/gpu/hines_gpu_branch.hpp"
#endif

namespace arbolito {

namespace {

#ifdef ARBOLITO_HAVE_CUDA
class GpuBranchSolve final : public GpuSolve {
public:
    GpuBranchSolve(const Layout& l, const BranchNumbering& n, const gpu::GpuBranchOptions& o)
        : plan_(gpu::make_gpu_branch_plan(l, n.slots, n.junctions, o)) {}
    void solve(double* d, const double* u, double* rhs, cudaStream_t stream) const override {
        gpu::gpu_branch_solve(plan_, d, u, rhs, stream);
    }

private:
    gpu::GpuBranchPlan plan_;
};

GpuSolverParts gpu_branch_parts(const SolverOptions& opt) {
    gpu::GpuBranchOptions o;
    o.coupling = opt.choice("coupling") == "edd" ? Coupling::edd : Coupling::fold;
    o.padding = opt.choice("padding") == "stop" ? Padding::stop : Padding::compute;
    o.graph = opt.flag("graph");
    o.threads = opt.number_or("threads", 0);
    o.prefetch = opt.number_or("prefetch", -1);
    o.skew_ns = opt.number_or("skew", -1);
    const int block = opt.number_or("block", 0), cut = opt.number_or("cut", 0);
    const std::optional<int> tile = opt.number("tile");  // none: auto
    return numbered_parts<BranchNumbering>(
        [block, cut, tile, o](const std::vector<std::vector<int>>& np) {
            const bool edd = o.coupling == Coupling::edd;  // the fold has no tiles
            const int tiles = !edd ? 0 : tile ? *tile : edd_auto_tile(np);
            return branch_level_layout(np, block, o.coupling, cut, tiles);
        },
        [o](const Layout& l, const BranchNumbering& n) { return std::make_unique<GpuBranchSolve>(l, n, o); });
}
#endif

}  // namespace

SolverInfo gpu_branch_solver() {
    SolverInfo s;
    s.name = "gpu-branch";
    s.needs_cuda = true;
    s.description = "every branch of every cell one thread, batched Thomas level by level (Valero-Lara) or EDD, the whole "
                    "step on the GPU";
    s.options = {
        choice_option("coupling", {"fold", "edd"}, "fold",
                      "fold: branches level by level into their parents; edd: all branches at once, then the branch "
                      "points' system"),
        integer_option("cut", 0, INT_MAX, "32",
                       "edd: interiors longer than N CVs cut into runs of N with a junction between (0: uncut)"),
        integer_option("tile", 0, INT_MAX, "auto",
                       "edd: consecutive cells grouped into tiles of at most N CVs, each tile solved by one CUDA block "
                       "in shared memory, the whole solve one launch (0: untiled, four or five launches through device "
                       "memory); auto: 1536 where every cell has at most 64 branch points and 4,096 CVs, else 0",
                       {"auto"}),
        integer_option("prefetch", 0, INT_MAX, "auto",
                       "edd by tiles: each block prefetches into L2 the rows of the tile N blocks ahead (0: none); "
                       "auto: half the blocks the GPU holds at once, where the launch has more tiles than that, else 0",
                       {"auto"}),
        integer_option("skew", 0, INT_MAX, "auto",
                       "edd by tiles: the first wave of blocks starts skewed over N ns, so that they do not all copy, "
                       "then all compute, in step (0: none); auto: 8000 where the launch has more tiles than the GPU "
                       "holds at once, else 0",
                       {"auto"}),
        choice_option("padding", {"compute", "stop"}, "compute",
                      "compute: every thread walks its block's longest branch; stop: each its own length"),
        flag_option("graph", true, "the solve's launches recorded once as a CUDA graph and replayed"),
        integer_option("block", 1, INT_MAX, "32", "branches interleaved per block of the numbering (a warp's loads coalesce)"),
        number_list_option("threads", {32, 64, 128, 256}, "auto",
                           "CUDA block size of the solve's launches; auto: 32 for launches too small to fill every SM, "
                           "else 128",
                           {"auto"}),
    };
    for (SolverOption& k : gpu_step_keys()) s.options.push_back(std::move(k));
#ifdef ARBOLITO_HAVE_CUDA
    s.make_group = gpu_group_maker("gpu-branch", gpu_branch_parts);
#endif
    return s;
}

}  // namespace arbolito
