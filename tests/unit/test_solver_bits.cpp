// The GPU solvers' sweeps, run on the host (their headers are __host__ __device__), give
// the bits of the CPU's serial Hines solve (hines_solve over each cell in level order,
// what the CPU group and its lanes compute): the same quotient u / d, the same parent
// updates d_p - f u and rhs_p - f rhs (each product rounded, then the difference), each
// parent's children's terms in the CPU's order, and the same back-substitution
// (rhs - u x_p) / d. gpu-fine with reroot=off (a re-rooted cell is another elimination
// and rounds differently), gpu-branch with the fold coupling (EDD solves a junction
// system instead: another algorithm). gpu-cell's sweeps: test_gpu_cell_sweeps.cu (built
// with the CUDA backend). The device's bits: test_gpu_solver_bits.cu.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "solvers/branch_layout.hpp"
#include "solvers/fine_layout.hpp"
#include "tests/support/host_bits.hpp"

using namespace arbolito;

TEST(SolverBits, LevelOrderIsNaturalOrder) {
    std::mt19937 gen(11);
    const auto cells = host_bits::test_cells(gen);
    const auto natural = host_bits::serial_solution(cells, contiguous_layout(cells), 5);
    const auto level = host_bits::serial_solution(cells, level_layout(cells), 5);
    EXPECT_EQ(host_bits::differing(natural, level), 0);
}

TEST(SolverBits, FineSweepsGiveTheSerialSolvesBits) {
    std::mt19937 gen(12);
    const auto cells = host_bits::test_cells(gen);
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
    const auto cells = host_bits::test_cells(gen);
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
