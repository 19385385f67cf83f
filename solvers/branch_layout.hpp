#pragma once
// The CV numbering and schedule of the branch-level GPU solver (gpu-branch, Valero-Lara;
// docs/solvers.md), as plain host data: every cell cut into unbranched branches
// (branch_tree.hpp), the branches of all cells grouped by level, one thread per branch
// (a "slot"), the slots of a level interleaved in blocks so that a warp's loads of one
// position are contiguous. A solve is one pass per level from the deepest up (a Thomas
// sweep per branch, then its first CV folded into its parent CV), and one pass per level
// from the root down (the fold coupling), or, with the EDD coupling (Exact Domain
// Decomposition, Mascagni), every branch at once, a small system of the branch points,
// every branch at once again.
#include <vector>

#include "solvers/layout.hpp"

namespace arbolito {

// The branch-level solver's slots: one thread per slot, a slot one branch of a cell (-1:
// an empty slot rounding its block up). The CV at position k of slot s (k = 0: the
// branch's proximal CV, then towards its distal one) lives at first[s] + k * stride[s];
// the thread walks positions 0 .. padded[s]-1, positions >= size[s] being padding
// (Layout::padding; parent = the position before).
struct BranchSlots {
    std::vector<int> cell;    // the branch's cell, -1 for an empty slot
    std::vector<int> first;   // layout index of position 0
    std::vector<int> stride;  // layout distance between consecutive positions
    std::vector<int> size;    // the branch's CVs (0 for an empty slot)
    std::vector<int> padded;  // positions walked (>= size): the block's longest branch
    int n_slots() const { return static_cast<int>(cell.size()); }
};

// How a branch's solve joins its parent's. fold: level by level, each branch's first CV
// folded into its parent CV before the level above runs. edd: each branch point (a CV
// with two or more children) taken out of its branch as one unknown of a small junction
// system; every branch's interior solved at once as an affine function of the branch
// points at its two ends, the junction system solved per cell, the interiors completed.
enum class Coupling { fold, edd };
// Whether a thread walks its block's padding rows (compute: every thread of a block runs
// the same count, cuHinesVBatch's "computing padding") or stops at its own branch's length.
enum class Padding { compute, stop };

// EDD's branch points (and cut points), after every slot in layout numbering (junction k
// at layout index base + k), cell by cell, in each cell parents before children.
struct Junctions {
    int base = 0;
    std::vector<int> cell_first;   // cell c's junctions: cell_first[c] .. cell_first[c+1]-1
    std::vector<int> parent;       // per junction: the junction above it, -1 for a cell's first
    std::vector<int> slot;         // per junction: the slot of the interior it ends, -1 if none
    std::vector<int> child_first;  // per junction: the interiors hanging from it, slots, then
    std::vector<int> child_slot;   //   the junctions hanging from it directly as -1 - junction:
                                   //   child_slot[child_first[k] .. child_first[k+1]-1]
    // Tiles: tile t holds cells tile_cell[t] .. tile_cell[t+1]-1, their slots tile_slot[t]
    // .. tile_slot[t+1]-1 and the layout rows tile_row[t] .. tile_row[t+1]-1: its slots'
    // rows, then from tile_junction[t] its junctions' (junction k at tile_junction[t] + k -
    // cell_first[tile_cell[t]]). Untiled: one tile, tile_junction[0] = base.
    std::vector<int> tile_cell{0}, tile_slot{0}, tile_row{0}, tile_junction;
    bool tiled = false;  // laid out by tiles (tile_cvs > 0), even if one
    int n() const { return static_cast<int>(parent.size()); }
    int n_tiles() const { return static_cast<int>(tile_cell.size()) - 1; }
};

// The numbering (what the group's arrays use) and, beside it, the branch slots (and with
// the EDD coupling the junctions).
struct BranchNumbering {
    Layout layout;
    BranchSlots slots;
    Junctions junctions;  // empty for the fold coupling
};

// natural_parents[c]: cell c's CV tree (parent[0] = -1, parent[i] < i). Slots are
// ordered by level (cells' root branches first), within a level by length, longest
// first, and cut into blocks of block_size slots; in a block, position k of its j-th
// slot lives at block_base + k * block_size + j, every slot padded to the block's
// longest branch (padding rows: d = 1, u = 0, rhs = 0, each the child of the position
// before). With the EDD coupling a slot holds a branch's interior (the branch less its
// last CV where that is a branch point; branches with no interior get no slot) and the
// branch points follow the slots (Junctions); with cut > 0 every interior longer than
// `cut` CVs is cut into runs of `cut` (the last up to cut + 1) with one CV between runs
// made a junction too (a cut point): the serial part of each thread shrinks to `cut`
// rows, the cell's junction system grows. Slots are then ordered by length only (EDD
// runs them all at once). With tile_cvs > 0 (EDD), consecutive cells are grouped into
// tiles of at most tile_cvs CVs (a larger cell is a tile alone): a tile's slots come
// together, ordered by length, in blocks of like lengths (a block ends where a slot is
// shorter than 3/4 of its first: little padding) only as wide as their slots (no empty
// slots), and its junctions right after them, so that each tile is one contiguous range
// of rows that one CUDA block solves in shared memory (Junctions' tiles). Throws
// std::invalid_argument on a malformed tree, block_size < 1, cut < 0, tile_cvs < 0 or
// more CVs than an int counts.
BranchNumbering branch_level_layout(const std::vector<std::vector<int>>& natural_parents, int block_size = 32,
                                    Coupling coupling = Coupling::fold, int cut = 0, int tile_cvs = 0);

// EDD's tiles by default (gpu-branch's tile=auto): tiles of 1,536 CVs where every cell has
// at most 64 branch points and 4,096 CVs, else none. A tile's block solves each cell's
// junction system on one thread while the block's other threads wait, and holds few
// cells at once: on the H100 tiles (of 1,024) were 1.3-2x untiled EDD on the
// multi-morphology study's binary trees and the 64-level caterpillar (64 branch points a
// cell), 1.5-3x slower on real cells (up to 378); 4,096 CVs keep a cell's rows well
// inside a block's shared memory (bench/RESULTS.md, "Solve alone: gpu-branch's
// multi-morphology study"). 1,536 rather than 1,024: three cells of 512 CVs a block, five
// blocks an SM, hold 15 cells an SM in shared memory where two a block held 14 (seven
// blocks), and were the fastest at 25,600 cells.
constexpr int edd_auto_tile_cvs = 1536;
int edd_auto_tile(int max_branch_points, long max_cvs);
int edd_auto_tile(const std::vector<std::vector<int>>& natural_parents);

// What the sweeps read, per slot and per level, derived from a branch_level_layout's
// numbering and slots.
struct BranchSchedule {
    std::vector<int> first, stride, size, padded;  // per slot, BranchSlots' own
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
BranchSchedule branch_schedule(const Layout& layout, const BranchSlots& slots);

// What EDD's steps read (edd_sweeps.hpp), from a branch_level_layout(..., Coupling::edd),
// in each tile's own frame: rows counted from the tile's first (tile_row), slots from its
// first (tile_slot). Untiled, the one tile's frame is the layout's.
struct EddSchedule {
    std::vector<int> first, stride, size, padded;  // per slot, BranchSlots' own (first: the tile's row)
    std::vector<int> up;    // per slot: the tile's row of the branch point above, -1 for a cell's root
    std::vector<int> down;  // per slot: the tile's row of the branch point ending it, -1 for a leaf
    Junctions junctions;    // slot and child_slot: the tile's slots (and junctions)
    std::vector<int> junction_row;  // per tile: its first junction's row in its frame
    int n_slots() const { return static_cast<int>(first.size()); }
    int n_cells() const { return static_cast<int>(junctions.cell_first.size()) - 1; }
};
EddSchedule edd_schedule(const Layout& layout, const BranchSlots& slots, const Junctions& junctions);

// The whole solve on the host, in the order and with the arithmetic of the GPU kernels
// (branch_sweeps.hpp, edd_sweeps.hpp): the reference their tests compare against. d, u,
// rhs in layout numbering; on return rhs holds the solution; d is overwritten.
void branch_layout_solve(const BranchSchedule& s, double* d, const double* u, double* rhs,
                         Padding padding = Padding::compute);
void edd_layout_solve(const EddSchedule& s, double* d, const double* u, double* rhs, Padding padding = Padding::compute);

}  // namespace arbolito
