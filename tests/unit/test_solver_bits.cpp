// The GPU solvers' sweeps, run on the host (their headers are __host__ __device__), give
// the bits of the CPU's serial Hines solve (hines_solve over each cell in level order,
// what the CPU group and its lanes compute): the same quotient u / d, the same parent
// updates d_p - f u and rhs_p - f rhs (each product rounded, then the difference), each
// parent's children's terms in the CPU's order, and the same back-substitution
// (rhs - u x_p) / d. gpu-fine with reroot=off (a re-rooted cell is another elimination
// and rounds differently), gpu-branch with the fold coupling (EDD solves a junction
// system instead: another algorithm). gpu-cell's sweeps: test_gpu_cell_sweeps.cu (built
// with the CUDA backend). The device's bits: test_gpu_fine.cu, test_gpu_solvers.cu.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "solvers/branch_layout.hpp"
#include "solvers/fine_layout.hpp"
#include "tests/support/cell_trees.hpp"
#include "tests/support/host_bits.hpp"

using namespace arbolito;

namespace {

// Random trees (a branch point every 2 to 40 CVs), random parents (bushy), a star, a comb,
// single CVs, a chain, busyring cells, and every morphology in tests/data that the reader
// accepts (the Allen cells among them; a few are there to be refused).
std::vector<trees::Tree> test_cells(std::mt19937& gen) {
    std::vector<trees::Tree> cells = trees::random_batch(60, 1, 300, 2, gen);
    for (int reach : {1, 3, 20}) cells.push_back(trees::random_parents(200, reach, gen));
    cells.push_back(trees::star(50));
    cells.push_back(trees::comb(30));
    cells.push_back(trees::chain(257));
    cells.push_back({-1});
    for (auto& t : trees::busyring(4)) cells.push_back(t);
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(trees::morphology_dir()))
        if (e.path().extension() == ".swc") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    int real = 0;
    for (const auto& f : files) {
        try {
            if (auto t = trees::real(f, 800); !t.empty()) cells.push_back(t), ++real;
        } catch (const std::exception&) {
        }
    }
    EXPECT_GE(real, 14);
    return cells;
}

}  // namespace

TEST(SolverBits, LevelOrderIsNaturalOrder) {
    std::mt19937 gen(11);
    const auto cells = test_cells(gen);
    const auto natural = host_bits::serial_solution(cells, contiguous_layout(cells), 5);
    const auto level = host_bits::serial_solution(cells, level_layout(cells), 5);
    EXPECT_EQ(host_bits::differing(natural, level), 0);
}

TEST(SolverBits, FineSweepsGiveTheSerialSolvesBits) {
    std::mt19937 gen(12);
    const auto cells = test_cells(gen);
    const auto ref = host_bits::serial_solution(cells, level_layout(cells), 7);
    for (int m = 0; m < 6; ++m) {
        FineOptions o;
        o.reroot = false;
        o.sort = m & 1;
        o.split = m < 2 ? Split::off : m < 4 ? Split::median : Split::cost;
        o.block_cvs = 1500;
        const FineNumbering f = fine_layout(cells, o);
        for (int ahead : {4, 8}) {
            host_bits::Systems s = host_bits::systems(cells, f.layout, 7);
            fine_layout_solve(f.schedule, s.d.data(), s.u.data(), s.rhs.data(), ahead);
            EXPECT_EQ(host_bits::differing(ref, host_bits::per_cell(f.layout, s.rhs)), 0)
                << "of " << host_bits::count(ref) << " values; sort " << o.sort << " split "
                << static_cast<int>(o.split) << " ahead " << ahead;
        }
    }
}

TEST(SolverBits, BranchFoldSweepsGiveTheSerialSolvesBits) {
    std::mt19937 gen(13);
    const auto cells = test_cells(gen);
    const auto ref = host_bits::serial_solution(cells, level_layout(cells), 9);
    for (int block : {1, 32}) {
        const BranchNumbering b = branch_level_layout(cells, block, Coupling::fold);
        const BranchSchedule sch = branch_schedule(b.layout, b.slots);
        for (Padding pad : {Padding::compute, Padding::stop}) {
            host_bits::Systems s = host_bits::systems(cells, b.layout, 9);
            branch_layout_solve(sch, s.d.data(), s.u.data(), s.rhs.data(), pad);
            EXPECT_EQ(host_bits::differing(ref, host_bits::per_cell(b.layout, s.rhs)), 0)
                << "of " << host_bits::count(ref) << " values; block " << block << " padding "
                << (pad == Padding::compute ? "compute" : "stop");
        }
    }
}
