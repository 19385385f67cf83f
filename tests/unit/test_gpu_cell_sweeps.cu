// The gpu-cell sweeps (solvers/gpu/hines_cell_sweeps.hpp) run on the host, one call per
// slot, against the serial hines_solve: their index logic (rotating prefetch registers,
// branch points within and beyond the prefetch, the row-parent variant's parent ring,
// padding rows, the forward sweep's parent values) checked wherever the CUDA backend is
// built, GPU or not. On the host `reciprocal` is 1.0 / x, so
// the device's Newton reciprocal is left to the GPU tests.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cell_trees.hpp"
#include "solvers/gpu/hines_cell_sweeps.hpp"
#include "solvers/gpu/hines_gpu_cell.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "tests/support/layout_systems.hpp"

using namespace arbolito;

namespace {

// Worst norm-wise relative difference over the cells, after solving every slot of the
// batch in `layout` with the pipelined sweeps of prefetch K (f in place, or in a scratch
// of rows of 32 as the resident kernel keeps it).
// K < 0: the row-parent sweeps with S = -K rows in flight (scratch unused), Pad: their
// padding rows computed (padding=compute).
template <int K, bool Pad = false>
double sweep_batch(const std::vector<std::vector<int>>& cells, const std::string& layout, bool scratch,
                   std::mt19937& gen) {
    const GpuCellNumbering g = gpu_cell_layout(cells, layout);
    const Layout& l = g.layout;
    const gpu::CellSchedule c = gpu::cell_schedule(l, g.slots);
    test_systems::LayoutSystems sys = test_systems::random_systems(cells, l, gen);
    double *d = sys.d.data(), *rhs = sys.rhs.data();
    const double* u = sys.u.data();
    std::vector<double> f(32 * static_cast<std::size_t>(std::max(1, c.max_padded)), NAN);
    for (std::size_t s = 0; s < c.slot.size(); ++s) {
        if constexpr (K < 0)
            gpu::sweeps::cell_rowparent<-K, Pad>(static_cast<int>(s), c.slot.data(), c.dist.data(), d, u, rhs);
        else
            gpu::sweeps::cell_pipelined<K>(static_cast<int>(s), c.slot.data(), c.branch_range.data(),
                                           c.branch.data(), d, u, rhs, scratch ? f.data() + s % 32 : nullptr,
                                           scratch ? 32 : 0);
    }
    for (int x : l.padding) EXPECT_EQ(rhs[x], 0.0) << "padding row " << x;
    return test_systems::worst_relative_error(l, sys.rhs, sys.ref);
}

}  // namespace

TEST(GpuCellSweeps, OnTheHostEveryPrefetchAndLayout) {
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    // Random trees (a branch point every 2 to 40 CVs), a star, single CVs, a bare chain.
    std::vector<std::vector<int>> cells = trees::random_batch(200, 1, 400, 2, gen);
    cells.push_back(trees::star(60));
    cells.push_back({-1});
    cells.push_back({-1, 0});
    cells.push_back(trees::synthetic(300, 1, gen));
    // Roundoff of a different but equivalent elimination order: 1e-12 as for the GPU.
    for (const char* layout : {"flat", "interleaved", "block-interleaved:7", "block-interleaved:32"})
        for (bool scratch : {false, true}) {
            SCOPED_TRACE(std::string(layout) + (scratch ? ", f in scratch" : ", f in place"));
            EXPECT_LT(sweep_batch<1>(cells, layout, scratch, gen), 1e-12);
            EXPECT_LT(sweep_batch<2>(cells, layout, scratch, gen), 1e-12);
            EXPECT_LT(sweep_batch<4>(cells, layout, scratch, gen), 1e-12);
            EXPECT_LT(sweep_batch<8>(cells, layout, scratch, gen), 1e-12);
            EXPECT_LT(sweep_batch<16>(cells, layout, scratch, gen), 1e-12);
            if (scratch) continue;
            SCOPED_TRACE("row-parent sweeps");
            EXPECT_LT(sweep_batch<-2>(cells, layout, false, gen), 1e-12);
            EXPECT_LT(sweep_batch<-4>(cells, layout, false, gen), 1e-12);
            EXPECT_LT(sweep_batch<-8>(cells, layout, false, gen), 1e-12);
            EXPECT_LT(sweep_batch<-16>(cells, layout, false, gen), 1e-12);
            SCOPED_TRACE("row-parent sweeps, padding computed");
            EXPECT_LT((sweep_batch<-2, true>(cells, layout, false, gen)), 1e-12);
            EXPECT_LT((sweep_batch<-8, true>(cells, layout, false, gen)), 1e-12);
        }
}

// rowparent keeps each parent distance in 16 bits: a star of 70,000 CVs (distances up to
// 69,999) leaves the schedule without distances (make_gpu_cell_plan then defaults to
// pipelined2, which needs a device to check); 65,536 CVs (distances up to 65,535) still fit.
TEST(GpuCellSweeps, RowParentDistancesFitSixteenBits) {
    for (int n : {65536, 70000}) {
        const GpuCellNumbering g = gpu_cell_layout({trees::star(n)}, "interleaved");
        const gpu::CellSchedule c = gpu::cell_schedule(g.layout, g.slots);
        EXPECT_EQ(c.dist.empty(), n > 65536) << n << " CVs";
        if (!c.dist.empty()) EXPECT_EQ(*std::max_element(c.dist.begin(), c.dist.end()), 65535);
    }
}
