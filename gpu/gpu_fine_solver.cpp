// Solver gpu-fine (Huber's fine-grained tree solver; docs/solvers.md): the GPU cell group with
// fine_layout's numbering (cells packed into CUDA blocks, branches by level) and the
// block-level solve of solvers/gpu/hines_gpu_fine. Plain C++, compiled in every build so
// that a CPU-only build still knows the solver; only the CUDA build has the factory.
#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gpu/gpu_cell_group.hpp"
#include "gpu/resident_plan.hpp"
#include "run/solver_registry.hpp"
#include "run/solver_spec.hpp"
#include "solvers/fine_layout.hpp"
#ifdef ARBOLITO_HAVE_CUDA
#include "gpu/gpu_solve.hpp"
#include "gpu/resident_epoch.hpp"
#include "solvers/gpu/hines_gpu_fine.hpp"
#endif

namespace arbolito {

namespace {

// `split`'s values, in Split's order: off, median (`on`), cost.
const std::array<std::string, 3> split_names = {"off", "on", "cost"};
// `launch`'s values, in LaunchOrder's order.
const std::array<std::string, 4> launch_names = {"index", "cost", "measured", "longest"};

#ifdef ARBOLITO_HAVE_CUDA
// Shared memory of a resident block by default: as much as lets three blocks
// (gpu::resident_blocks_per_sm) share a multiprocessor (gpu::resident_shared_kib_for; 74
// KiB on an H100: 228 KiB each, 1 KiB reserved per block, the kernel's own 0.3 KiB).
// Measured on busyring (H100, bench/HISTORY.md): 110 KiB and 256 threads (two blocks,
// all of a cell staged) 23 % slower at 8,192 cells; 50 KiB (four blocks) 7 %; 74 KiB
// 1.3 % faster than 72 and 75 (two blocks) 36 % slower.
// CVs per block of a resident schedule when `block=auto`: the budget at 57 bytes per CV
// (1,311 CVs in the 73 KiB an H100 leaves a block of the build with the Allen channels;
// 1,329 in 74 KiB without them). A block's time grows less than its cells (its chains of
// barriers and the somata's channels are per block), but fewer, larger blocks leave more
// of the last wave idle: on the 10,000-cell Allen network (H100, 400 ms, bench/RESULTS.md)
// 1,000 / 1,150 / 1,300 / 1,450 / 1,557 / 1,900 / 2,300 CVs a block ran in 4.38 / 3.86 /
// 3.53 / 3.67 / 3.84 / 4.30 / 5.03 s, and auto (1,311) stayed the best after the kernel
// shrank (1,150 / 1,450 / 1,700: 18 / 4 / 21 % slower). Times rise more gently above
// 1,300 than below. Busyring's cells, of about 1,700 CVs, fill a block alone either way.
constexpr int resident_bytes_per_cv = 57;

// shared_bytes 0: the streaming step.
ResidentRequest resident_request(const SolverOptions& o) {
    ResidentRequest r;
    if (o.choice("step") == "resident") {
        r.shared_bytes = 1024 * o.number_or("shared", gpu::resident_shared_kib_for(gpu::resident_blocks_per_sm));
        r.threads = o.number_or("threads", 128);
        r.launch = static_cast<LaunchOrder>(std::find(launch_names.begin(), launch_names.end(), o.choice("launch")) -
                                            launch_names.begin());
    }
    return r;
}

// ahead=auto: 8 rows, or 4 for the streaming solve of a group of more than about 4 M CVs.
// There its blocks outnumber what the device runs at once, and fewer registers per thread
// (more blocks per SM) win over fewer waits per thread (busyring, H100, bench/RESULTS.md:
// 8 better by 26 % at 1.8 M CVs, 4 better by 7-10 % at 7-29 M CVs solve alone and by 3.6 %
// on the whole run at 58 M). The resident step takes 4: with the predicted reciprocals
// (fine_sweeps.hpp) 4 rows ahead beat 8 there by 3-5 % (H100, bench/HISTORY.md).
// Every choice gives the same bits.
int rows_ahead(std::optional<int> ahead, const FineSchedule& s, const ResidentRequest& r) {
    if (ahead) return *ahead;
    if (r.shared_bytes > 0) return 4;
    long cvs = 0;
    for (const FineSchedule::Block& b : s.blocks) cvs += b.n_cv;
    return cvs > 4'000'000 ? 4 : 8;
}

FineOptions fine_options(const SolverOptions& o, const ResidentRequest& r) {
    FineOptions f;
    f.sort = o.flag("sort");
    f.reroot = o.flag("reroot");
    f.split = static_cast<Split>(std::find(split_names.begin(), split_names.end(), o.choice("split")) - split_names.begin());
    const bool resident = r.shared_bytes > 0;
    f.block_cvs = o.number_or("block", resident ? r.shared_bytes / resident_bytes_per_cv : 8192);
    f.shared_bytes = o.choice("memory") == "shared" && !resident ? 96 * 1024 : 0;
    f.edd_rows = o.number_or("edd", 0);
    return f;
}

class GpuFineSolve final : public GpuSolve {
public:
    GpuFineSolve(const FineSchedule& s, int ahead, const ResidentRequest& r)
        : schedule_(r.shared_bytes > 0 ? s : FineSchedule{}), plan_(gpu::make_gpu_fine_plan(s, ahead)),
          resident_(r) {
        resident_.schedule = &schedule_;
        resident_.plan = &plan_;
    }
    void solve(double* d, const double* u, double* rhs, cudaStream_t stream) const override {
        gpu::gpu_fine_solve(plan_, d, u, rhs, stream);
    }
    const ResidentRequest* resident() const override { return resident_.shared_bytes > 0 ? &resident_ : nullptr; }

private:
    FineSchedule schedule_;  // kept for the resident step's plan only
    gpu::GpuFinePlan plan_;
    ResidentRequest resident_;  // shared_bytes 0: streaming
};

GpuSolverParts gpu_fine_parts(const SolverOptions& o) {
    // shared=auto asks the device: resolved in the numbering, which runs once the group
    // has selected it (a missing device is then reported as such), and kept for the solve.
    auto r = std::make_shared<ResidentRequest>();
    const std::optional<int> ahead = o.number("ahead");  // none: auto
    return numbered_parts<FineNumbering>(
        [o, r](const std::vector<std::vector<int>>& np) {
            *r = resident_request(o);
            return fine_layout(np, fine_options(o, *r));
        },
        [ahead, r](const Layout&, const FineNumbering& f) {
            return std::make_unique<GpuFineSolve>(f.schedule, rows_ahead(ahead, f.schedule, *r), *r);
        });
}
#endif

}  // namespace

SolverInfo gpu_fine_solver() {
    SolverInfo s;
    s.name = "gpu-fine";
    s.needs_cuda = true;
    s.description = "cells packed into CUDA blocks, one thread per branch of a level (Huber), the whole step on the GPU";
    // The passes' defaults are FineOptions' own (solvers/fine_layout.hpp), as the benches use them.
    const FineOptions passes;
    s.options = {
        flag_option("sort", passes.sort, "each level's branches longest first (off: padded to the longest)"),
        flag_option("reroot", passes.reroot, "each cell re-rooted where its branch tree is shallowest"),
        choice_option("split", {split_names.begin(), split_names.end()}, split_names[static_cast<int>(passes.split)],
                      "branches cut into pieces on successive levels; on: those over twice their level's median length "
                      "in two; cost: where the solve's modelled time falls (a level ~ its longest piece + 6 rows)"),
        integer_option("block", 1, INT_MAX, "auto",
                       "CVs per CUDA block to aim at (a cell is never split); auto: 8192, or what fits shared= with "
                       "step=resident",
                       {"auto"}),
        integer_option("edd", 1, INT_MAX, "off",
                       "exact domain decomposition inside each block: every branch point, and a cut every N rows of a "
                       "longer run, a junction; the runs eliminated at once, the junctions' tree by one warp, the runs "
                       "completed at once (another elimination than the serial solve's: other bits, as accurate); off: "
                       "the level loop (sort, reroot, split and ahead apply only there)",
                       {"off"}),
        choice_option("memory", {"device", "shared"}, "device",
                      "solve each block in device memory, or in shared memory where its d, u, rhs fit 96 KiB"),
        number_list_option("ahead", {4, 8}, "auto",
                           "rows each thread loads before their arithmetic (more: fewer waits, more registers; the same "
                           "bits); auto: 4 for step=resident and for the streaming step over more than 4 M CVs, else 8",
                           {"auto"}),
        choice_option("step", {"streaming", "resident"}, "streaming",
                      "resident: every step of an epoch piece in one kernel, each block's state in shared memory"),
        integer_option("shared", 1, 1024, "auto",
                       "step=resident: shared memory per CUDA block, KiB (auto: as much as lets three blocks share a "
                       "multiprocessor, 74 on an H100); what does not fit stays in device memory",
                       {"auto"}),
        number_list_option("threads", {64, 128, 256}, "128", "step=resident: threads per CUDA block"),
        choice_option("launch", {launch_names.begin(), launch_names.end()},
                      launch_names[static_cast<int>(LaunchOrder::longest)],
                      "step=resident: the order blocks are launched in, from each block's clock cycles in earlier "
                      "epochs (the first epoch as cost): longest, every block, longest first; measured, the schedule's "
                      "with the cheapest wave last; cost, where blocks hold about one cell each, the schedule's with the "
                      "cheapest blocks by an estimate last (a wave's worth, costliest of them first), else the "
                      "schedule's; index, the schedule's; the same bits any way"),
    };
    for (SolverOption& k : gpu_step_keys()) s.options.push_back(std::move(k));
#ifdef ARBOLITO_HAVE_CUDA
    s.make_group = gpu_group_maker("gpu-fine", gpu_fine_parts);
#endif
    return s;
}

}  // namespace arbolito
