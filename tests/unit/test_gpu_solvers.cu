// GPU solvers against the CPU reference: gpu-cell (every layout and kernel) and the
// branch-level solve (gpu-branch) against the serial hines_solve, batched Thomas against a CPU Thomas. Fresh random matrices each run
// (the seed is printed on failure); every test is skipped on a machine without a GPU.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/cell_trees.hpp"
#include "core/gpu/memory.hpp"
#include "solvers/branch_layout.hpp"
#include "solvers/gpu/hines_gpu_branch.hpp"
#include "solvers/gpu/hines_gpu_cell.hpp"
#include "solvers/gpu/thomas_batch.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "solvers/hines.hpp"
#include "tests/support/gpu_skip.hpp"
#include "tests/support/layout_systems.hpp"

using namespace arbolito;
using namespace arbolito::gpu;

namespace {

unsigned fresh_seed() { return std::random_device{}(); }

// One cell's Hines system in natural order: d = c + sum of the axial conductances at the
// CV, u = -g to the parent (symmetric, diagonally dominant, as a time step assembles).
struct System {
    std::vector<double> d, u, rhs;
};

System random_system(const std::vector<int>& p, std::mt19937& gen) {
    std::uniform_real_distribution<double> g(0.01, 10.0), c(0.001, 1.0), b(-100.0, 100.0);
    const int n = static_cast<int>(p.size());
    System s{std::vector<double>(n), std::vector<double>(n, 0.0), std::vector<double>(n)};
    for (int i = 0; i < n; ++i) s.d[i] = c(gen), s.rhs[i] = b(gen);
    for (int i = 1; i < n; ++i) {
        const double gi = g(gen);
        s.u[i] = -gi;
        s.d[i] += gi;
        s.d[p[i]] += gi;
    }
    return s;
}

std::vector<double> cpu_solve(const std::vector<int>& p, System s) {
    if (!p.empty()) hines_solve(0, static_cast<int>(p.size()), p.data(), s.d.data(), s.u.data(), s.rhs.data());
    return s.rhs;
}

double rel_diff(const std::vector<double>& x, const std::vector<double>& ref) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        num += (x[i] - ref[i]) * (x[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    if (std::isnan(num)) return INFINITY;
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Solves the batch on the GPU in one layout and kernel; returns each cell's solution in
// natural order. Device buffers start as NaN, then padding rows get d = 1, u = 0,
// rhs = 0 and real rows their values. Checks that u and the padding come back intact.
std::vector<std::vector<double>> gpu_solve(const std::vector<std::vector<int>>& cells, const std::vector<System>& sys,
                                           const std::string& layout_opt, CellKernel kernel,
                                           int resident_warps = 2, int resident_prefetch = 8) {
    const GpuCellNumbering g = gpu_cell_layout(cells, layout_opt);
    const Layout& l = g.layout;
    GpuCellPlan plan = make_gpu_cell_plan(l, g.slots, kernel);
    if (kernel == CellKernel::resident) set_resident(plan, resident_warps, resident_prefetch);
    std::vector<double> d(l.n_cv, NAN), u(l.n_cv, NAN), rhs(l.n_cv, NAN);
    for (int x : l.padding) d[x] = 1.0, u[x] = 0.0, rhs[x] = 0.0;
    for (std::size_t c = 0; c < cells.size(); ++c)
        for (std::size_t i = 0; i < cells[c].size(); ++i) {
            const int x = l.index[c][i];
            d[x] = sys[c].d[i], u[x] = sys[c].u[i], rhs[x] = sys[c].rhs[i];
        }
    DeviceArray<double> dd(l.n_cv), du(l.n_cv), dr(l.n_cv);
    if (l.n_cv) {
        // Poison first so that nothing left over from an earlier allocation can pass.
        CUDA_CHECK(cudaMemset(dd.data(), 0xff, l.n_cv * sizeof(double)));
        CUDA_CHECK(cudaMemset(dr.data(), 0xff, l.n_cv * sizeof(double)));
        CUDA_CHECK(cudaMemcpy(dd.data(), d.data(), l.n_cv * sizeof(double), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(du.data(), u.data(), l.n_cv * sizeof(double), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dr.data(), rhs.data(), l.n_cv * sizeof(double), cudaMemcpyHostToDevice));
    }
    gpu_cell_solve(plan, dd.data(), du.data(), dr.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<double> x = dr.download(), u_after = du.download();
    EXPECT_EQ(0, std::memcmp(u.data(), u_after.data(), u.size() * sizeof(double))) << "u was modified";
    for (int p : l.padding) EXPECT_EQ(x[p], 0.0) << "padding row " << p << " not zero after the solve";
    std::vector<std::vector<double>> out(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c)
        for (int xi : l.index[c]) out[c].push_back(x[xi]);
    return out;
}

const std::vector<std::string> layouts = {"flat", "interleaved", "block-interleaved:1", "block-interleaved:7",
                                          "block-interleaved:32", "block-interleaved:128"};

// Every layout and kernel against the CPU on each cell of the batch.
void check_batch(const std::vector<std::vector<int>>& cells, std::mt19937& gen) {
    std::vector<System> sys;
    std::vector<std::vector<double>> ref;
    for (const auto& p : cells) {
        sys.push_back(random_system(p, gen));
        ref.push_back(cpu_solve(p, sys.back()));
    }
    for (const auto& opt : layouts)
        for (CellKernel k : all_cell_kernels) {
            SCOPED_TRACE(opt + " / " + to_string(k));
            const auto x = gpu_solve(cells, sys, opt, k);
            double worst = 0;
            for (std::size_t c = 0; c < cells.size(); ++c) worst = std::max(worst, rel_diff(x[c], ref[c]));
            EXPECT_LT(worst, 1e-12);
        }
}

// Synthetic cells with realistic branching: one branch point per 5 to 40 CVs.
std::string morphology_path(const char* name) { return trees::morphology_dir() + name; }

}  // namespace

TEST(GpuCell, RandomTreesEveryLayoutAndKernel) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    check_batch(trees::random_batch(300, 1, 400, 5, gen), gen);
    // Degenerate shapes: single CVs, a bare chain, a star (every CV a branch point).
    std::vector<std::vector<int>> odd = {{-1}, {-1, 0}, trees::synthetic(200, 1, gen), trees::synthetic(150, 150, gen),
                                         trees::star(60)};
    check_batch(odd, gen);
}

TEST(GpuCell, RealMorphologies) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    std::vector<std::vector<int>> cells;
    for (const char* f : {"ca1_pyramidal_n120.swc", "purkinje_mouse_original.swc", "l5_pyramidal_with_axon.swc"})
        for (int target : {76, 305, 690}) {
            auto t = trees::real(morphology_path(f), target);
            if (!t.empty()) cells.push_back(std::move(t));
        }
    if (cells.empty()) GTEST_SKIP() << "no SWC reader in this build or no files under tests/data/morphologies";
    // Many copies of each, so that interleaved warps hold several morphologies.
    std::vector<std::vector<int>> batch;
    for (int rep = 0; rep < 20; ++rep)
        for (const auto& t : cells) batch.push_back(t);
    std::shuffle(batch.begin(), batch.end(), gen);
    check_batch(batch, gen);
}

// A cell's result must not depend on its neighbours: solved alone (flat, no padding) or
// in a size-sorted, padded batch of other cells, the bits are the same.
TEST(GpuCell, PaddingAndSortingLeaveEachCellIdentical) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    const auto cells = trees::random_batch(200, 1, 500, 5, gen);
    std::vector<System> sys;
    for (const auto& p : cells) sys.push_back(random_system(p, gen));
    for (CellKernel k : all_cell_kernels) {
        SCOPED_TRACE(to_string(k));
        // Alone: each cell its own batch.
        std::vector<std::vector<double>> alone;
        for (std::size_t c = 0; c < cells.size(); ++c) alone.push_back(gpu_solve({cells[c]}, {sys[c]}, "flat", k)[0]);
        // Shuffled batch in every layout.
        std::vector<int> perm(cells.size());
        for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
        std::shuffle(perm.begin(), perm.end(), gen);
        std::vector<std::vector<int>> pc;
        std::vector<System> ps;
        for (int c : perm) pc.push_back(cells[c]), ps.push_back(sys[c]);
        for (const auto& opt : layouts) {
            const auto x = gpu_solve(pc, ps, opt, k);
            for (std::size_t j = 0; j < perm.size(); ++j)
                ASSERT_EQ(0, std::memcmp(x[j].data(), alone[perm[j]].data(), x[j].size() * sizeof(double)))
                    << opt << ": cell " << perm[j] << " differs from its solve alone";
        }
    }
}

TEST(GpuCell, LargeBatch) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    const auto cells = trees::random_batch(5000, 50, 700, 5, gen);
    std::vector<System> sys;
    std::vector<std::vector<double>> ref;
    for (const auto& p : cells) {
        sys.push_back(random_system(p, gen));
        ref.push_back(cpu_solve(p, sys.back()));
    }
    // The resident kernel with 1 warp per SM and both prefetch depths: 157 warps' worth of
    // cells on fewer warps, so warps loop and reuse their scratch.
    struct Run { CellKernel k; int warps, prefetch; };
    for (const char* opt : {"interleaved", "block-interleaved:32"})
        for (Run r : {Run{CellKernel::pipelined2, 0, 0}, Run{CellKernel::resident, 1, 8}, Run{CellKernel::resident, 1, 16},
                      Run{CellKernel::resident, 4, 8}}) {
            const auto x = gpu_solve(cells, sys, opt, r.k, r.warps, r.prefetch);
            double worst = 0;
            for (std::size_t c = 0; c < cells.size(); ++c) worst = std::max(worst, rel_diff(x[c], ref[c]));
            EXPECT_LT(worst, 1e-12) << opt << " " << to_string(r.k) << " warps " << r.warps << " prefetch " << r.prefetch;
        }
}

namespace {

// Textbook Thomas on one system, n rows.
std::vector<double> cpu_thomas(const double* a, const double* b, const double* c, const double* d, int n) {
    std::vector<double> cp(n), dp(n), x(n);
    for (int i = 0; i < n; ++i) {
        const double ai = i ? a[i] : 0.0;
        const double m = 1.0 / (b[i] - ai * (i ? cp[i - 1] : 0.0));
        cp[i] = c[i] * m;
        dp[i] = (d[i] - ai * (i ? dp[i - 1] : 0.0)) * m;
    }
    for (int i = n - 1; i >= 0; --i) x[i] = dp[i] - (i + 1 < n ? cp[i] * x[i + 1] : 0.0);
    return x;
}

}  // namespace

namespace {

// The branch-level solve with every coupling, padding variant and launch mode (graph or
// not): the solution, with padding rows left at 0 and u intact.
std::vector<double> branch_solve(const BranchNumbering& g, const test_systems::LayoutSystems& sys,
                                 const GpuBranchOptions& o) {
    const GpuBranchPlan plan = make_gpu_branch_plan(g.layout, g.slots, g.junctions, o);
    DeviceArray<double> d(sys.d), u(sys.u), rhs(sys.rhs);
    gpu_branch_solve(plan, d.data(), u.data(), rhs.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> x = rhs.download();
    EXPECT_EQ(u.download(), sys.u) << "u was modified";
    for (int p : g.layout.padding) EXPECT_EQ(x[p], 0.0) << "padding row " << p;
    return x;
}

std::vector<GpuBranchOptions> every_branch_variant() {
    std::vector<GpuBranchOptions> v;
    for (Coupling c : {Coupling::fold, Coupling::edd})
        for (Padding p : {Padding::compute, Padding::stop})
            for (bool graph : {true, false}) v.push_back({c, p, graph, graph ? 0 : 64});
    return v;
}

std::string describe(const GpuBranchOptions& o) {
    return std::string(o.coupling == Coupling::fold ? "fold" : "edd") +
           (o.padding == Padding::compute ? ", compute padding" : ", stop") + (o.graph ? ", graph" : ", launches");
}

// Every variant on one batch in blocks of 1, 7 and 32 branches, EDD uncut and cut every
// 5 CVs, and cut every 5 by tiles of one cell and of up to 2,000 CVs.
void expect_every_branch_variant(const std::vector<std::vector<int>>& cells, std::mt19937& gen) {
    for (int bs : {1, 7, 32})
        for (int way = 0; way < 5; ++way) {
            const Coupling c = way == 0 ? Coupling::fold : Coupling::edd;
            const int cut = way >= 2 ? 5 : 0, tile = way == 3 ? 1 : way == 4 ? 2000 : 0;
            const BranchNumbering g = branch_level_layout(cells, bs, c, cut, tile);
            const test_systems::LayoutSystems sys = test_systems::random_systems(cells, g.layout, gen);
            for (const GpuBranchOptions& o : every_branch_variant()) {
                if (o.coupling != c) continue;
                const std::vector<double> x = branch_solve(g, sys, o);
                EXPECT_LT(test_systems::worst_relative_error(g.layout, x, sys.ref), 1e-12)
                    << describe(o) << ", cut " << cut << ", tile " << tile << ", block size " << bs;
            }
        }
}

}  // namespace

// The branch-level solve on random trees of every shape, stars, single CVs and real cells
// (where the build reads SWC): every cell's solution within 1e-12 of hines_solve
// (rounding of another elimination order and of fused multiply-adds).
TEST(GpuBranch, RandomAndRealTrees) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    std::vector<std::vector<int>> cells = trees::random_batch(300, 1, 800, 1, gen);
    cells.push_back(trees::star(70));
    cells.push_back({-1});
    for (const char* f : {"ca1_pyramidal_n120.swc", "purkinje_mouse_original.swc", "l5_pyramidal_with_axon.swc"})
        for (int target : {305, 690}) {
            auto t = trees::real(morphology_path(f), target);
            for (int rep = 0; rep < 10 && !t.empty(); ++rep) cells.push_back(t);
        }
    std::shuffle(cells.begin(), cells.end(), gen);
    expect_every_branch_variant(cells, gen);
}

// The awkward shapes: a single CV, an unbranched cable, a star of 1,000 children, a tree
// 130 levels deep, a branch point hanging from a branch point, and all of them together.
TEST(GpuBranch, AwkwardShapes) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(17);
    const std::vector<int> fork_of_forks = {-1, 0, 0, 1, 1, 2, 2, 3, 4};
    for (const auto& cells : std::vector<std::vector<std::vector<int>>>{
             {{-1}}, {trees::chain(3000)}, {trees::star(1001)}, {trees::comb(130)}, {fork_of_forks},
             {{-1}, trees::chain(2), trees::star(1001), trees::comb(130), fork_of_forks, trees::chain(700)}})
        expect_every_branch_variant(cells, gen);
}

// EDD by tiles (one launch, each tile's rows in shared memory) runs the untiled launches'
// steps in the same order: per cell and CV the same bits, on random and real cells, with
// tiles of one cell and of a few, both paddings; cells too large for a block's
// shared memory are refused at set-up, with the sizes.
TEST(GpuBranch, EddTilesSameBitsAsUntiled) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(404);
    std::vector<std::vector<int>> cells = trees::random_batch(200, 1, 900, 1, gen);
    for (const char* f : {"ca1_pyramidal_n120.swc", "purkinje_mouse_original.swc"}) {
        auto t = trees::real(morphology_path(f), 512);
        for (int rep = 0; rep < 20 && !t.empty(); ++rep) cells.push_back(t);
    }
    cells.push_back(trees::star(1001));
    cells.push_back(trees::comb(130));
    std::shuffle(cells.begin(), cells.end(), gen);
    const auto solve = [&](int cut, int tile, Padding padding) {
        const BranchNumbering g = branch_level_layout(cells, 32, Coupling::edd, cut, tile);
        std::mt19937 same(7);
        const test_systems::LayoutSystems sys = test_systems::random_systems(cells, g.layout, same);
        GpuBranchOptions o;
        o.coupling = Coupling::edd;
        o.padding = padding;
        const std::vector<double> x = branch_solve(g, sys, o);
        EXPECT_LT(test_systems::worst_relative_error(g.layout, x, sys.ref), 1e-12) << "cut " << cut << ", tile " << tile;
        return test_systems::per_cell(g.layout, x);
    };
    for (int cut : {0, 32})
        for (Padding p : {Padding::compute, Padding::stop}) {
            const auto untiled = solve(cut, 0, p);
            for (int tile : {1, 700})
                EXPECT_EQ(solve(cut, tile, p), untiled) << "cut " << cut << ", tile " << tile;
        }
    // A 20,000-CV cable uncut: 640 KiB of rows, more than any block's shared memory.
    const BranchNumbering big = branch_level_layout({trees::chain(20000)}, 32, Coupling::edd, 0, 1);
    GpuBranchOptions o;
    o.coupling = Coupling::edd;
    try {
        make_gpu_branch_plan(big.layout, big.slots, big.junctions, o);
        ADD_FAILURE() << "a tile larger than shared memory was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("KiB of shared memory"), std::string::npos) << e.what();
    }
}

// EDD by tiles over more tiles than the GPU holds at once (6,000 one-cell tiles): the L2
// prefetch of a tile ahead and the first wave's skew, on by default there, leave every bit
// as without them and as untiled, for a prefetch distance of 1, of the default and of more
// tiles than there are.
TEST(GpuBranch, EddTilesPrefetchAndSkewSameBits) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(77);
    const std::vector<std::vector<int>> cells = trees::random_batch(6000, 1, 60, 1, gen);
    const BranchNumbering untiled = branch_level_layout(cells, 32, Coupling::edd, 32, 0);
    const BranchNumbering tiled = branch_level_layout(cells, 32, Coupling::edd, 32, 1);
    GpuBranchOptions o;
    o.coupling = Coupling::edd;
    std::mt19937 same(8);  // the same systems cell by cell in both numberings
    const test_systems::LayoutSystems su = test_systems::random_systems(cells, untiled.layout, same);
    const auto reference = test_systems::per_cell(untiled.layout, branch_solve(untiled, su, o));
    same.seed(8);
    const test_systems::LayoutSystems st = test_systems::random_systems(cells, tiled.layout, same);
    const GpuBranchPlan plan = make_gpu_branch_plan(tiled.layout, tiled.slots, tiled.junctions, o);
    ASSERT_GT(plan.n_tiles, plan.tile_wave) << "the test wants more than one wave of tiles";
    EXPECT_GT(plan.tile_prefetch, 0);
    EXPECT_GT(plan.tile_skew_step, 0);
    for (const auto& [prefetch, skew] : std::vector<std::pair<int, int>>{{-1, -1}, {0, 0}, {1, 0}, {0, 5000}, {10000, 0}}) {
        o.prefetch = prefetch;
        o.skew_ns = skew;
        const std::vector<double> x = branch_solve(tiled, st, o);
        EXPECT_LT(test_systems::worst_relative_error(tiled.layout, x, st.ref), 1e-12);
        EXPECT_EQ(test_systems::per_cell(tiled.layout, x), reference) << "prefetch " << prefetch << ", skew " << skew;
    }
}

// EDD's junction solve, a warp per 32 cells: groups whose rows fit shared memory and
// groups that stay in device memory (cells cut every 5 CVs, 400 junctions each), in one
// solve, give the reference within 1e-12 and the bits of every group in device memory.
TEST(GpuBranch, JunctionRowsInSharedAndDeviceMemory) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(9);
    std::vector<std::vector<int>> cells;
    for (int c = 0; c < 40; ++c) cells.push_back(trees::chain(2000));  // 32 of them: 460 KB of rows
    for (const auto& t : trees::random_batch(70, 1, 300, 1, gen)) cells.push_back(t);
    cells.push_back(trees::comb(130));
    const BranchNumbering g = branch_level_layout(cells, 32, Coupling::edd, 5);
    const test_systems::LayoutSystems sys = test_systems::random_systems(cells, g.layout, gen);
    GpuBranchOptions o;
    o.coupling = Coupling::edd;
    const std::vector<double> mixed = branch_solve(g, sys, o);
    EXPECT_LT(test_systems::worst_relative_error(g.layout, mixed, sys.ref), 1e-12);
    o.junction_shared = 0;
    EXPECT_EQ(branch_solve(g, sys, o), mixed);
    // Groups of both kinds: the first (32 chains) in device memory.
    const GpuBranchPlan plan = make_gpu_branch_plan(g.layout, g.slots, g.junctions, {Coupling::edd});
    EXPECT_GT(plan.groups_staged.size(), 0u);
    ASSERT_GT(plan.groups_in_memory.size(), 0u);
    EXPECT_EQ(plan.groups_in_memory.download().front(), 0);
    EXPECT_GT((g.junctions.cell_first[32] - g.junctions.cell_first[0]) * gpu::edd_junction_row_bytes,
              plan.junction_shared);
}

// No atomics in either coupling: 20 solves of the same systems give the same bits, and
// the graph replays exactly what the launches compute.
TEST(GpuBranch, SameBitsEveryRun) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(2);
    std::vector<std::vector<int>> cells = trees::busyring(128);
    cells.push_back(trees::star(1001));
    cells.push_back(trees::comb(130));
    for (Coupling c : {Coupling::fold, Coupling::edd}) {
        const BranchNumbering g = branch_level_layout(cells, 32, c, c == Coupling::edd ? 16 : 0);
        const test_systems::LayoutSystems sys = test_systems::random_systems(cells, g.layout, gen);
        GpuBranchOptions o;
        o.coupling = c;
        const std::vector<double> first = branch_solve(g, sys, o);
        for (int run = 1; run < 20; ++run) {
            o.graph = run % 2 == 0;
            o.padding = run % 3 == 0 ? Padding::stop : Padding::compute;
            ASSERT_EQ(first, branch_solve(g, sys, o)) << describe(o) << ", run " << run;
        }
    }
}

// One plan, solves with different arrays: the graph is recorded anew for new pointers.
TEST(GpuBranch, GraphFollowsTheArrays) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(4);
    const std::vector<std::vector<int>> cells = trees::random_batch(50, 1, 300, 1, gen);
    const BranchNumbering g = branch_level_layout(cells, 32);
    const GpuBranchPlan plan = make_gpu_branch_plan(g.layout, g.slots, g.junctions);
    for (int k = 0; k < 3; ++k) {
        const test_systems::LayoutSystems sys = test_systems::random_systems(cells, g.layout, gen);
        DeviceArray<double> d(sys.d), u(sys.u), rhs(sys.rhs);
        gpu_branch_solve(plan, d.data(), u.data(), rhs.data(), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        EXPECT_LT(test_systems::worst_relative_error(g.layout, rhs.download(), sys.ref), 1e-12) << "arrays " << k;
    }
}

TEST(ThomasBatch, AgainstCpu) {
    SKIP_WITHOUT_GPU();
    const unsigned seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> off(-1.0, 1.0), rhs(-100.0, 100.0), extra(0.01, 2.0);
    for (int n : {1, 2, 3, 5, 31, 64, 100, 512})
        for (int nsys : {1, 33, 700}) {
            // Systems of random sizes 1..n, padded to n with a = c = 0, b = 1, d = 0.
            const std::size_t N = static_cast<std::size_t>(n) * nsys;
            std::vector<double> a(N), b(N), c(N), d(N);
            std::vector<int> size(nsys);
            std::vector<std::vector<double>> ref(nsys);
            for (int s = 0; s < nsys; ++s) {
                size[s] = std::uniform_int_distribution<int>(1, n)(gen);
                std::vector<double> sa(n, 0.0), sb(n, 1.0), sc(n, 0.0), sd(n, 0.0);
                for (int i = 0; i < size[s]; ++i) {
                    sa[i] = i ? off(gen) : 0.0;
                    sc[i] = i + 1 < size[s] ? off(gen) : 0.0;
                    sb[i] = std::abs(sa[i]) + std::abs(sc[i]) + extra(gen);  // diagonally dominant
                    if (std::bernoulli_distribution(0.5)(gen)) sb[i] = -sb[i];
                    sd[i] = rhs(gen);
                }
                ref[s] = cpu_thomas(sa.data(), sb.data(), sc.data(), sd.data(), n);
                for (int i = 0; i < n; ++i) {
                    const std::size_t x = static_cast<std::size_t>(i) * nsys + s;
                    a[x] = sa[i], b[x] = sb[i], c[x] = sc[i], d[x] = sd[i];
                }
            }
            // Tunings: the automatic one, every prefetch depth with shared-memory rows (none, min(n, 32), half,
            // all: all of 512 rows needs 512 KB a block and must be refused), and the
            // L2-resident mode with 1 and 3 warps per SM (loops over batches when nsys >
            // its lanes; falls back below 32 systems).
            std::vector<ThomasTuning> tunings = {ThomasTuning{}, ThomasTuning{8, 0, 32, 0}};  // automatic; 1 warp a block
            for (int pf : {2, 4, 8, 16})
                for (int smem : {-1, 0, n / 2, n}) tunings.push_back(ThomasTuning{pf, smem, 64, 0});
            for (int pf : {4, 16})
                for (int w : {1, 3}) tunings.push_back(ThomasTuning{pf, -1, 64, w});
            for (const ThomasTuning& t : tunings) {
                const int pf = t.prefetch, smem = t.smem_rows;
                SCOPED_TRACE("n " + std::to_string(n) + " nsys " + std::to_string(nsys) + " prefetch " +
                             std::to_string(pf) + " smem_rows " + std::to_string(smem) + " resident_warps " +
                             std::to_string(t.resident_warps));
                DeviceArray<double> da(a), db(b), dc(c), dd(N), scratch(N);
                const std::size_t smem_bytes = 2 * sizeof(double) * std::min(n, smem < 0 ? 32 : smem) * 64;
                if (t.resident_warps == 0 && smem_bytes > 200 * 1024) {
                    EXPECT_THROW(thomas_batch(da.data(), db.data(), dc.data(), dd.data(), scratch.data(), n, nsys,
                                              nullptr, t),
                                 std::invalid_argument);
                    continue;
                }
                CUDA_CHECK(cudaMemset(dd.data(), 0xff, N * sizeof(double)));
                CUDA_CHECK(cudaMemset(scratch.data(), 0xff, N * sizeof(double)));  // NaN: never read unwritten
                CUDA_CHECK(cudaMemcpy(dd.data(), d.data(), N * sizeof(double), cudaMemcpyHostToDevice));
                thomas_batch(da.data(), db.data(), dc.data(), dd.data(), scratch.data(), n, nsys, nullptr, t);
                CUDA_CHECK(cudaDeviceSynchronize());
                const auto x = dd.download();
                EXPECT_EQ(da.download(), a);
                EXPECT_EQ(db.download(), b);
                EXPECT_EQ(dc.download(), c);
                double worst = 0;
                for (int s = 0; s < nsys; ++s) {
                    std::vector<double> xs(n);
                    for (int i = 0; i < n; ++i) xs[i] = x[static_cast<std::size_t>(i) * nsys + s];
                    worst = std::max(worst, rel_diff(xs, ref[s]));
                    for (int i = size[s]; i < n; ++i) ASSERT_EQ(xs[i], 0.0) << "padding row of system " << s;
                }
                EXPECT_LT(worst, 1e-12);
            }
        }
}

TEST(ThomasBatch, RejectsBadTuning) {
    SKIP_WITHOUT_GPU();
    DeviceArray<double> v(64);
    EXPECT_THROW(thomas_batch(v.data(), v.data(), v.data(), v.data(), v.data(), 8, 8, nullptr, ThomasTuning{3, -1, 64}),
                 std::invalid_argument);
    EXPECT_THROW(thomas_batch(v.data(), v.data(), v.data(), v.data(), v.data(), 8, 8, nullptr, ThomasTuning{4, -1, 64, -2}),
                 std::invalid_argument);
    EXPECT_THROW(thomas_batch(v.data(), v.data(), v.data(), v.data(), v.data(), 8, 8, nullptr, ThomasTuning{4, -1, 48}),
                 std::invalid_argument);
    EXPECT_THROW(thomas_batch(v.data(), v.data(), v.data(), v.data(), v.data(), 8, 8, nullptr, ThomasTuning{4, -1, 16}),
                 std::invalid_argument);
}
