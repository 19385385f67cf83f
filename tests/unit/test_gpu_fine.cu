// gpu-fine's kernel (solvers/gpu/hines_gpu_fine.cu) against the serial CPU solve, for
// every combination of the passes, in shared memory and in device memory, on random
// trees, every real morphology in tests/data, busyring cells and the awkward shapes; the
// same bits on every run; a mutated schedule refused. Skipped without a GPU.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/gpu/memory.hpp"
#include "solvers/fine_layout.hpp"
#include "solvers/gpu/hines_gpu_fine.hpp"
#include "tests/support/cell_trees.hpp"
#include "tests/support/layout_systems.hpp"
#include "tests/support/gpu_skip.hpp"

using namespace arbolito;
using namespace arbolito::gpu;

namespace {

// The solution on the GPU of the systems in layout numbering; u must come back intact
// and padding rows untouched.
std::vector<double> gpu_solve(const FineNumbering& f, const test_systems::LayoutSystems& sys, int ahead = 8) {
    const int n = f.layout.n_cv;
    GpuFinePlan plan = make_gpu_fine_plan(f.schedule, ahead);
    DeviceArray<double> d(sys.d), u(sys.u), rhs(sys.rhs);
    gpu_fine_solve(plan, d.data(), u.data(), rhs.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> x = rhs.download(), u_after = u.download();
    EXPECT_EQ(0, std::memcmp(sys.u.data(), u_after.data(), n * sizeof(double))) << "u was modified";
    for (int p : f.layout.padding) EXPECT_EQ(x[p], 0.0) << "padding row " << p;
    return x;
}



// Every pass combination, with blocks in device memory and (where they fit 96 KiB) in
// shared memory: the worst relative difference from hines_solve over the cells.
double worst_over_passes(const std::vector<std::vector<int>>& cells, int block_cvs, int max_threads,
                         std::mt19937& gen) {
    double worst = 0;
    for (int m = 0; m < 16; ++m) {
        FineOptions o;
        o.sort = m & 1, o.reroot = m & 2, o.split = m & 4 ? (m & 1 ? Split::cost : Split::median) : Split::off;
        o.shared_bytes = m & 8 ? 96 * 1024 : 0;
        o.block_cvs = block_cvs, o.max_threads = max_threads;
        const FineNumbering f = fine_layout(cells, o);
        const test_systems::LayoutSystems sys = test_systems::random_systems(cells, f.layout, gen);
        for (int ahead : {4, 8}) {
            const double e = test_systems::worst_relative_error(f.layout, gpu_solve(f, sys, ahead), sys.ref);
            EXPECT_LT(e, 1e-12) << "passes " << m << ", rows ahead " << ahead;
            worst = std::max(worst, e);
        }
    }
    return worst;
}

}  // namespace

// As the host test (test_fine_layout.cpp): rounding differences only, far below 1e-12.
TEST(GpuFine, RandomTreesAndShapes) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(std::random_device{}());
    std::vector<std::vector<int>> cells;
    for (int k = 0; k < 200; ++k)
        cells.push_back(trees::random_parents(std::uniform_int_distribution<int>(1, 800)(gen),
                                              std::uniform_int_distribution<int>(1, 40)(gen), gen));
    worst_over_passes(cells, 2048, 256, gen);
    for (const auto& shape : std::vector<std::vector<std::vector<int>>>{
             {{-1}}, {trees::chain(3000)}, {trees::star(1001)}, {trees::comb(130)}, {{-1}, {-1, 0}, trees::chain(7), trees::star(40)}})
        for (int threads : {32, 256}) worst_over_passes(shape, 2048, threads, gen);
}

// One unbranched cell of 100,004 CVs (parareal's long cable): its schedule (positions
// per row) passes the device's shared memory per block, so the block reads it from device
// memory; beside it a small tree whose schedule fits. Both solve as the CPU does.
TEST(GpuFine, ScheduleBeyondSharedMemory) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(7);
    const std::vector<std::vector<int>> cells = {trees::chain(100004), trees::star(40)};
    for (Split split : {Split::off, Split::median, Split::cost}) {
        FineOptions o;
        o.split = split;
        const FineNumbering f = fine_layout(cells, o);
        long biggest = 0;
        for (const auto& b : f.schedule.blocks) biggest = std::max(biggest, FineSchedule::schedule_bytes(b));
        if (split == Split::off) EXPECT_GT(biggest, 232448) << "the chain's schedule should pass 227 KiB";
        const test_systems::LayoutSystems sys = test_systems::random_systems(cells, f.layout, gen);
        for (int ahead : {4, 8})
            EXPECT_LT(test_systems::worst_relative_error(f.layout, gpu_solve(f, sys, ahead), sys.ref), 1e-12)
                << "split " << static_cast<int>(split) << ", rows ahead " << ahead;
    }
}

// The 4,000-CV discretisations overflow 96 KiB of shared memory and the 500-CV ones do
// not: with memory=shared both kinds of block run in one launch.
TEST(GpuFine, RealMorphologiesAndBusyring) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(11);
    std::vector<std::vector<int>> cells = trees::busyring(64);
    int real = 0;
    for (const auto& e : std::filesystem::directory_iterator(trees::morphology_dir())) {
        if (e.path().extension() != ".swc") continue;
        try {
            for (int target : {500, 4000}) {
                const auto t = trees::real(e.path().string(), target);
                if (!t.empty()) cells.push_back(t), ++real;
            }
        } catch (const std::exception&) {  // the files there to be refused
        }
    }
    EXPECT_GE(real, 28);
    worst_over_passes(cells, 2048, 256, gen);
}

// No atomics: 20 solves of the same systems give the same bits.
TEST(GpuFine, SameBitsEveryRun) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(1);
    std::vector<std::vector<int>> cells = trees::busyring(256);
    cells.push_back(trees::star(1001));
    const FineNumbering f = fine_layout(cells, FineOptions{});
    const test_systems::LayoutSystems sys = test_systems::random_systems(cells, f.layout, gen);
    const std::vector<double> first = gpu_solve(f, sys);
    for (int run = 1; run < 20; ++run)
        ASSERT_EQ(0, std::memcmp(first.data(), gpu_solve(f, sys).data(), first.size() * sizeof(double))) << "run " << run;
}

// A schedule whose level order is broken (a parent level after its child's: what a
// missing barrier amounts to) is refused before anything runs.
TEST(GpuFine, MutatedScheduleRefused) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(3);
    FineOptions o;
    o.reroot = false;
    FineNumbering f = fine_layout({trees::random_parents(300, 10, gen)}, o);
    ASSERT_GE(f.schedule.blocks[0].n_levels, 3);
    std::swap(f.schedule.levels[1], f.schedule.levels[2]);
    EXPECT_THROW(make_gpu_fine_plan(f.schedule), std::logic_error);
}

// EDD inside the blocks (FineOptions::edd_rows): random trees, busyring cells, the real
// morphologies and the awkward shapes, cut every 1 to 64 rows and uncut, in device memory
// and shared memory, with a block of one warp and of 256 threads: within rounding of the
// serial solve (1e-12, as the level loop), and the same bits as the host's EDD where they
// are not tied quotients (the device's quotient is correctly rounded but in rare ties,
// core/reciprocal.hpp): at most 1e-15 relative apart. The same bits on every run.
TEST(GpuFine, EddMatchesHostAndRepeats) {
    SKIP_WITHOUT_GPU();
    std::mt19937 gen(19);
    std::vector<std::vector<int>> cells = trees::busyring(16);
    for (int k = 0; k < 60; ++k)
        cells.push_back(trees::random_parents(std::uniform_int_distribution<int>(1, 800)(gen),
                                              std::uniform_int_distribution<int>(1, 40)(gen), gen));
    for (auto shape : {std::vector<int>{-1}, trees::chain(3000), trees::star(1001), trees::comb(130)})
        cells.push_back(shape);
    for (const auto& e : std::filesystem::directory_iterator(trees::morphology_dir())) {
        if (e.path().extension() != ".swc") continue;
        try {
            if (auto t = trees::real(e.path().string(), 1400); !t.empty()) cells.push_back(std::move(t));
        } catch (const std::exception&) {
        }
    }
    for (const int N : {1, 4, 16, 64, 100000})
        for (const int shared : {0, 96 * 1024})
            for (const int threads : {32, 256}) {
                FineOptions o;
                o.edd_rows = N, o.shared_bytes = shared, o.max_threads = threads, o.block_cvs = 2048;
                const FineNumbering f = fine_layout(cells, o);
                const test_systems::LayoutSystems sys = test_systems::random_systems(cells, f.layout, gen);
                const std::vector<double> x = gpu_solve(f, sys);
                const std::string what = "N " + std::to_string(N) + ", shared " + std::to_string(shared) +
                                         ", threads " + std::to_string(threads);
                EXPECT_LT(test_systems::worst_relative_error(f.layout, x, sys.ref), 1e-12) << what;
                std::vector<double> d = sys.d, host = sys.rhs;
                fine_layout_solve(f.schedule, d.data(), sys.u.data(), host.data());
                EXPECT_LT(test_systems::worst_relative_error(f.layout, x, test_systems::per_cell(f.layout, host)), 1e-15)
                    << what;
                if (N == 16 && threads == 256) {
                    for (int run = 1; run < 10; ++run)
                        ASSERT_EQ(0, std::memcmp(x.data(), gpu_solve(f, sys).data(), x.size() * sizeof(double)))
                            << what << ", run " << run;
                }
            }
}
