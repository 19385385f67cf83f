// Solver gpu-fine (Huber's fine-grained tree solver; DESIGN §7): the GPU cell group with
// fine_layout's numbering (cells packed into CUDA blocks, branches by level) and the
// block-level solve of solvers/gpu/hines_gpu_fine. Plain C++, compiled in every build so
// that a CPU-only build still knows the solver; only the CUDA build has the factory.
#include <memory>
#include <string>
#include <utility>

#include "engine/gpu/gpu_cell_group.hpp"
#include "engine/solver_registry.hpp"
#include "engine/solver_spec.hpp"
#include "solvers/fine_layout.hpp"
#ifdef ARBOLITO_HAVE_CUDA
#include "engine/gpu/gpu_solve.hpp"
#include "solvers/gpu/hines_gpu_fine.hpp"
#endif

namespace arbolito {

namespace {

#ifdef ARBOLITO_HAVE_CUDA
FineOptions fine_options(const SolverOptions& o) {
    FineOptions f;
    f.sort = o.at("sort") == "on";
    f.reroot = o.at("reroot") == "on";
    f.split = o.at("split") == "on";
    f.block_cvs = std::stoi(o.at("block"));
    f.shared_bytes = o.at("memory") == "shared" ? 96 * 1024 : 0;
    return f;
}

class GpuFineSolve final : public GpuSolve {
public:
    GpuFineSolve(const FineSchedule& s, int ahead) : plan_(gpu::make_gpu_fine_plan(s, ahead)) {}
    void solve(double* d, const double* u, double* rhs, cudaStream_t stream) const override {
        gpu::gpu_fine_solve(plan_, d, u, rhs, stream);
    }

private:
    gpu::GpuFinePlan plan_;
};

GpuSolverParts gpu_fine_parts(const FineOptions& fo, int ahead) {
    return numbered_parts<FineNumbering>(
        [fo](const std::vector<std::vector<int>>& np) { return fine_layout(np, fo); },
        [ahead](const Layout&, const FineNumbering& f) { return std::make_unique<GpuFineSolve>(f.schedule, ahead); });
}
#endif

}  // namespace

SolverInfo gpu_fine_solver() {
    SolverInfo s;
    s.name = "gpu-fine";
    s.needs_cuda = true;
    s.description = "cells packed into CUDA blocks, one thread per branch of a level (Huber), the whole step on the GPU";
    s.options = {
        {"sort", {"on", "off"}, "", "on", "each level's branches longest first (off: padded to the longest)", {}},
        {"reroot", {"on", "off"}, "", "on", "each cell re-rooted where its branch tree is shallowest", {}},
        {"split", {"on", "off"}, "", "off", "branches over twice their level's median length cut in two", {}},
        {"block", {}, "N >= 1", "8192", "CVs per CUDA block to aim at (a cell is never split)", check_whole_number},
        {"memory", {"device", "shared"}, "", "device",
         "solve each block in device memory, or in shared memory where its d, u, rhs fit 96 KiB", {}},
        {"ahead", {"4", "8"}, "", "8", "rows each thread loads before their arithmetic (more: fewer waits, more registers)",
         {}},
    };
    for (SolverOption& k : gpu_step_keys()) s.options.push_back(std::move(k));
#ifdef ARBOLITO_HAVE_CUDA
    s.make_group = [](const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end, const SolverOptions& o,
                      const StepSettings& st, int local_rank) {
        GpuGroupOptions g;
        apply_gpu_step_keys(o, g);
        return make_gpu_group(m, gid_begin, gid_end, "gpu-fine", gpu_fine_parts(fine_options(o), std::stoi(o.at("ahead"))),
                              g, st, local_rank);
    };
#endif
    return s;
}

}  // namespace arbolito
