// The gpu-cell sweeps (solvers/gpu/hines_cell_sweeps.hpp) run on the host, one call per
// slot, against the serial hines_solve: their index logic (rotating prefetch registers,
// branch points within and beyond the prefetch, the row-parent variant's parent ring,
// padding rows, the forward sweep's parent values) and the serial solve's bits, checked
// wherever the CUDA backend is built, GPU or not. On the host `reciprocal` is 1.0 / x, so
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
#include "tests/support/host_bits.hpp"
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

// Every variant of the sweeps on the host gives the serial solve's bits (hines_solve in the
// CPU's level order): the same quotients, the parent updates unfused, each parent's
// children's terms in the same order (descending natural CV), the same back-substitution.
TEST(GpuCellSweeps, OnTheHostTheSerialSolvesBits) {
    std::mt19937 gen(21);
    const std::vector<std::vector<int>> cells = host_bits::test_cells(gen);
    const auto ref = host_bits::serial_solution(cells, level_layout(cells), 3);
    for (const char* layout : {"flat", "interleaved", "block-interleaved:7", "block-interleaved:32"}) {
        const GpuCellNumbering g = gpu_cell_layout(cells, layout);
        const Layout& l = g.layout;
        const gpu::CellSchedule c = gpu::cell_schedule(l, g.slots);
        const int n_slots = static_cast<int>(c.slot.size());
        // variant: 0 plain, 1-5 pipelined K = 1 .. 16 (6-10: f in a scratch of rows of 32),
        // 11-14 row-parent S = 2 .. 16, 15-16 row-parent S = 2, 8 with padding computed.
        for (int variant = 0; variant <= 16; ++variant) {
            host_bits::Systems s = host_bits::systems(cells, l, 3);
            double *d = s.d.data(), *rhs = s.rhs.data();
            const double* u = s.u.data();
            std::vector<double> f(32 * static_cast<std::size_t>(std::max(1, c.max_padded)), NAN);
            for (int k = 0; k < n_slots; ++k) {
                double* f_at = variant >= 6 && variant <= 10 ? f.data() + k % 32 : nullptr;
                const int fs = f_at ? 32 : 0;
                const int2 *br = c.branch_range.data(), *b = c.branch.data();
                switch (variant) {
                    case 0: gpu::sweeps::cell_plain(k, c.slot.data(), l.parent.data(), d, u, rhs); break;
                    case 1: case 6: gpu::sweeps::cell_pipelined<1>(k, c.slot.data(), br, b, d, u, rhs, f_at, fs); break;
                    case 2: case 7: gpu::sweeps::cell_pipelined<2>(k, c.slot.data(), br, b, d, u, rhs, f_at, fs); break;
                    case 3: case 8: gpu::sweeps::cell_pipelined<4>(k, c.slot.data(), br, b, d, u, rhs, f_at, fs); break;
                    case 4: case 9: gpu::sweeps::cell_pipelined<8>(k, c.slot.data(), br, b, d, u, rhs, f_at, fs); break;
                    case 5: case 10:
                        gpu::sweeps::cell_pipelined<16>(k, c.slot.data(), br, b, d, u, rhs, f_at, fs);
                        break;
                    case 11: gpu::sweeps::cell_rowparent<2>(k, c.slot.data(), c.dist.data(), d, u, rhs); break;
                    case 12: gpu::sweeps::cell_rowparent<4>(k, c.slot.data(), c.dist.data(), d, u, rhs); break;
                    case 13: gpu::sweeps::cell_rowparent<8>(k, c.slot.data(), c.dist.data(), d, u, rhs); break;
                    case 14: gpu::sweeps::cell_rowparent<16>(k, c.slot.data(), c.dist.data(), d, u, rhs); break;
                    case 15: gpu::sweeps::cell_rowparent<2, true>(k, c.slot.data(), c.dist.data(), d, u, rhs); break;
                    default: gpu::sweeps::cell_rowparent<8, true>(k, c.slot.data(), c.dist.data(), d, u, rhs); break;
                }
            }
            EXPECT_EQ(host_bits::differing(ref, host_bits::per_cell(l, s.rhs)), 0)
                << "of " << host_bits::count(ref) << " values; layout " << layout << ", variant " << variant;
        }
    }
}
