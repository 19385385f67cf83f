#pragma once
// The CV numbering and schedule of the branch-level GPU solver (gpu-branch, Valero-Lara;
// DESIGN §7), as plain host data: every cell cut into unbranched branches
// (branch_tree.hpp), the branches of all cells grouped by level, one thread per branch
// (a "slot"), the slots of a level interleaved in blocks so that a warp's loads of one
// position are contiguous. A solve is one pass per level from the deepest up (a Thomas
// sweep per branch, then its first CV folded into its parent CV), and one pass per level
// from the root down.
#include <vector>

#include "solvers/layout.hpp"

namespace arbolito {

// natural_parents[c]: cell c's CV tree (parent[0] = -1, parent[i] < i). Slots are
// ordered by level (cells' root branches first), within a level by length, longest
// first, and cut into blocks of block_size slots; in a block, position k of its j-th
// slot lives at block_base + k * block_size + j, every slot padded to the block's
// longest branch (padding rows: d = 1, u = 0, rhs = 0, each the child of the position
// before). Layout::slot_* describe the slots (slot_cell: the branch's cell; positions
// run from the branch's proximal CV to its distal one). Throws std::invalid_argument on a
// malformed tree, block_size < 1 or more CVs than an int counts.
Layout branch_level_layout(const std::vector<std::vector<int>>& natural_parents, int block_size = 32);

// What the sweeps read, per slot and per level, derived from a branch_level_layout.
struct BranchSchedule {
    std::vector<int> first, stride, padded;  // per slot, as Layout::slot_*
    std::vector<int> parent;      // per slot: layout index of the CV position 0 hangs from; -1: a root branch
    std::vector<int> level_first; // slots of level l: level_first[l] .. level_first[l+1]-1
    // Coupling of level l (>= 1) into level l-1, in a fixed order (no atomics, so every
    // run sums the same way): parent CVs couple_cv[j], j in couple_level[l] ..
    // couple_level[l+1]-1, each taking the folds of the slots couple_slot[couple_first[j]
    // .. couple_first[j+1]-1].
    std::vector<int> couple_level, couple_cv, couple_first, couple_slot;
    int n_levels() const { return static_cast<int>(level_first.size()) - 1; }
    int n_slots() const { return static_cast<int>(first.size()); }
};
BranchSchedule branch_schedule(const Layout& layout);

// The whole solve on the host, in the order and with the arithmetic of the GPU kernels
// (branch_sweeps.hpp): the reference their tests compare against. d, u, rhs in layout
// numbering; on return rhs holds the solution; d is overwritten.
void branch_layout_solve(const BranchSchedule& s, double* d, const double* u, double* rhs);

}  // namespace arbolito
