// Every GPU solver's solve on the device gives the bits of the CPU's serial Hines solve
// (hines_solve in level order) on the same systems: gpu-cell (every kernel and layout,
// block-shared included), gpu-fine with reroot=off (the resident step runs the same
// sweeps, fine_block.cuh) and gpu-branch with the fold coupling. The sweeps compute the
// serial solve's operations (quotients correctly rounded by gpu::divide, products and
// differences never fused: core/uncontracted.hpp) in its order; the host-run sweeps are
// checked in test_solver_bits.cpp and test_gpu_cell_sweeps.cu. gpu::divide may round a
// quotient within about 2^-90 of a tie the other way (core/reciprocal.hpp): never seen on
// these systems. Skipped without a GPU.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/gpu/memory.hpp"
#include "solvers/branch_layout.hpp"
#include "solvers/fine_layout.hpp"
#include "solvers/gpu/hines_gpu_branch.hpp"
#include "solvers/gpu/hines_gpu_cell.hpp"
#include "solvers/gpu/hines_gpu_fine.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "tests/support/gpu_skip.hpp"
#include "tests/support/host_bits.hpp"

using namespace arbolito;
using namespace arbolito::gpu;

namespace {

constexpr unsigned seed = 31;

// The cells and their serial solution, once.
struct Reference {
    std::vector<std::vector<int>> cells;
    std::vector<std::vector<double>> x;
};
const Reference& reference() {
    static const Reference r = [] {
        std::mt19937 gen(41);
        Reference r;
        r.cells = host_bits::test_cells(gen);
        r.x = host_bits::serial_solution(r.cells, level_layout(r.cells), seed);
        return r;
    }();
    return r;
}

// The systems of `l` on the device, solved by `solve(d, u, rhs)`; the solution per cell.
template <class Solve>
std::vector<std::vector<double>> on_device(const Layout& l, Solve solve) {
    const host_bits::Systems s = host_bits::systems(reference().cells, l, seed);
    DeviceArray<double> d(s.d), u(s.u), rhs(s.rhs);
    solve(d.data(), u.data(), rhs.data());
    CUDA_CHECK(cudaDeviceSynchronize());
    return host_bits::per_cell(l, rhs.download());
}

}  // namespace

TEST(GpuSolverBits, CellEveryKernelAndLayout) {
    SKIP_WITHOUT_GPU();
    const Reference& ref = reference();
    for (const char* layout : {"flat", "interleaved", "block-interleaved:7", "block-interleaved:32"}) {
        const GpuCellNumbering g = gpu_cell_layout(ref.cells, layout);
        for (CellKernel k : all_cell_kernels) {
            GpuCellPlan plan = make_gpu_cell_plan(g.layout, g.slots, k);
            if (k == CellKernel::resident) set_resident(plan, 2, 8);
            const auto x = on_device(g.layout, [&](double* d, double* u, double* r) {
                gpu_cell_solve(plan, d, u, r, nullptr);
            });
            EXPECT_EQ(host_bits::differing(ref.x, x), 0)
                << "of " << host_bits::count(ref.x) << " values; " << layout << " / " << to_string(k);
        }
    }
    // Blocks of 8 cells: the right-hand sides of 32 of the largest (2,305 CVs) exceed a
    // block's shared memory (the layout says so and names block=8).
    const GpuCellNumbering g = gpu_cell_layout(ref.cells, "block-shared:8");
    CellPlanOptions o;
    o.block_shared = true;
    for (CellKernel k : {CellKernel::rowparent4, CellKernel::rowparent8}) {
        const GpuCellPlan plan = make_gpu_cell_plan(g.layout, g.slots, k, o);
        const auto x = on_device(g.layout, [&](double* d, double* u, double* r) {
            gpu_cell_solve(plan, d, u, r, nullptr);
        });
        EXPECT_EQ(host_bits::differing(ref.x, x), 0) << "block-shared:8 / " << to_string(k);
    }
}

TEST(GpuSolverBits, FineEveryPassWithoutReroot) {
    SKIP_WITHOUT_GPU();
    const Reference& ref = reference();
    for (int m = 0; m < 12; ++m) {
        FineOptions o;
        o.reroot = false;
        o.sort = m & 1;
        o.split = (m >> 1) % 3 == 0 ? Split::off : (m >> 1) % 3 == 1 ? Split::median : Split::cost;
        o.shared_bytes = m >= 6 ? 96 * 1024 : 0;
        o.block_cvs = 1500;
        const FineNumbering f = fine_layout(ref.cells, o);
        for (int ahead : {4, 8}) {
            const GpuFinePlan plan = make_gpu_fine_plan(f.schedule, ahead);
            const auto x = on_device(f.layout, [&](double* d, double* u, double* r) {
                gpu_fine_solve(plan, d, u, r, nullptr);
            });
            EXPECT_EQ(host_bits::differing(ref.x, x), 0)
                << "of " << host_bits::count(ref.x) << " values; passes " << m << ", rows ahead " << ahead;
        }
    }
}

TEST(GpuSolverBits, BranchFold) {
    SKIP_WITHOUT_GPU();
    const Reference& ref = reference();
    for (int bs : {1, 7, 32}) {
        const BranchNumbering g = branch_level_layout(ref.cells, bs, Coupling::fold);
        for (Padding p : {Padding::compute, Padding::stop})
            for (bool graph : {true, false}) {
                const GpuBranchPlan plan = make_gpu_branch_plan(g.layout, g.slots, g.junctions,
                                                                {Coupling::fold, p, graph, graph ? 0 : 64});
                const auto x = on_device(g.layout, [&](double* d, double* u, double* r) {
                    gpu_branch_solve(plan, d, u, r, nullptr);
                });
                EXPECT_EQ(host_bits::differing(ref.x, x), 0)
                    << "of " << host_bits::count(ref.x) << " values; block " << bs << ", padding "
                    << (p == Padding::compute ? "compute" : "stop") << (graph ? ", graph" : ", launches");
            }
    }
}
