#pragma once
// The CV numbering and schedule of the fine-grained GPU solver (gpu-fine; Huber's
// level-based tree solver, docs/solvers.md). Cells are packed into CUDA blocks at set-up; a
// block solves its cells' systems alone (no grid-wide synchronisation): each cell is cut
// into unbranched branches (branch_tree.hpp), the branches of all the block's cells are
// grouped by level, and one thread per branch of the current level runs a Thomas sweep,
// with a block-wide barrier between levels. Plain host data; the kernel
// (solvers/gpu/hines_gpu_fine.cu) and the host reference (fine_layout_solve) read it alike.
//
// Numbering inside a block: level after level; within a level, position after position
// (position 0 is a branch's proximal CV); within a position, the level's branches in
// slot order. The CV at position i of slot k of level L lives at
//     block.first_cv + level.base + pos_base[level.pos0 + i] + k,
// so a warp's threads touch consecutive CVs at every position. Sorted (longest branch
// first), the branches still long at position i are exactly the first ones and the level
// needs no padding; unsorted, every branch of a level is padded to the level's longest.
#include <vector>

#include "core/hd.hpp"
#include "solvers/layout.hpp"

namespace arbolito {

// How branches are cut into pieces on successive levels (a piece is a branch of its own,
// the next piece its only child): not at all; median: a branch longer than twice its
// level's median in two (the resident step's kernel 7 % faster at 1,024 and 8,192
// busyring cells than with none, H100); cost: where it lowers the solve's modelled time,
// split_by_cost (below), the default (resident kernel 3.3 % faster than median at 8,192
// cells, 3.9 % at 32,768, H100).
enum class Split { off, median, cost };

// The passes of Huber's published fine-grained solver, each switchable per run.
struct FineOptions {
    bool sort = true;     // each level's branches by length, longest first (no padding, less divergence)
    // Each cell re-rooted at the CV that minimises the depth of its branch tree: another
    // elimination than the CPU's (it rounds differently). Off by default: the solve then
    // gives the CPU's bits, at no measured cost (resident step, one H200: busyring 0.1-0.4 %
    // slower, the Allen network 1.3 % faster; bench/RESULTS.md).
    bool reroot = false;
    Split split = Split::cost;
    // CVs per block to aim at (cells are never split between blocks). Measured on an H100
    // (fine_bench, bench/RESULTS.md): blocks of several cells in device memory beat one
    // cell per block in shared memory (more threads per block; the block's few loads per
    // row are L1 hits after the first).
    int block_cvs = 8192;
    int max_threads = 256;  // threads per block at most; wider levels loop
    int shared_bytes = 0;   // a block whose d, u, rhs fit this is solved in shared memory
    // 0: the level loop above. N > 0: exact domain decomposition inside each block (the
    // schedule's `edd`): every branch point, and a cut every N rows of a longer run, is a
    // junction; all runs between junctions are eliminated at once (one thread each, at
    // most N rows), the junctions' tree is solved level by level, and the runs completed
    // at once. The chain per solve is then about 2N rows plus the junction tree's depth
    // instead of every level's longest branch. Sort, reroot, split (and the kernels'
    // rows ahead) do not apply.
    int edd_rows = 0;
};

struct FineSchedule {
    struct Block {
        int first_cv;    // layout index of the block's first CV
        int n_cv;        // CVs of the block (padding included)
        int level0;      // its levels: levels[level0 .. level0 + n_levels - 1]
        int n_levels;
        int branch0;     // its branches: branch arrays [branch0 .. branch0 + n_branches - 1]
        int n_branches;
        int n_child;     // entries of child[] its branches use
        int pos0;        // its levels' position offsets: pos_base[pos0 .. pos0 + n_pos - 1]
        int n_pos;
        int threads;     // CUDA block size (a multiple of 32)
        int in_shared;   // 1: d, u, rhs staged in shared memory; 0: solved in device memory
        int edd;         // 1: an EDD schedule (FineOptions::edd_rows; see below)
        int n_junctions; // EDD: its junctions (branches 0 .. n_junctions-1; the runs follow)
        int fold0;       // its scratch's offset in the blocks' scratch in device memory
        int h_cvs;       // EDD: its CVs before the runs without a junction below (h's size)
        int n_kids;      // EDD: junction_kids' columns (even; 0 otherwise)
        int kids0;       // EDD: its junction_kids from here on
        int runs0;       // EDD: its run_order from here on (n_branches - n_junctions entries)
    };
    struct Level {  // five ints: the kernel copies a block's levels to shared memory as such
        int base;     // block-local index of the level's first CV
        int pos0;     // pos_base[pos0 + i]: offset of position i within the level
        int branch0;  // block-local index of the level's first branch (slot 0)
        int n;        // branches (slots)
        int positions;  // the longest branch's length
    };
    std::vector<Block> blocks;
    std::vector<Level> levels;
    std::vector<int> pos_base;       // per level: longest branch + 1 entries, ascending
    // Per branch (blocks' branches one after another, block-local numbering inside):
    std::vector<int> length;         // real CVs
    std::vector<int> parent_cv;      // block-local CV the branch's position 0 hangs from; -1: a root
    std::vector<int> child_begin;    // children: child[child_begin[b] .. child_begin[b+1]-1],
    std::vector<int> child;          // block-local branch indices, in a fixed order
    // An EDD block (Block::edd): its last two levels hold the runs (branches of at most
    // edd_rows CVs between junctions), first those with a junction below them, then those
    // without (whose h is 0 and takes no memory); the levels before them the junctions
    // (branches of one CV), by depth in the cell's junction tree. A run's parent CV is the junction above
    // it (-1: none, the run holds the root); a junction's parent CV the junction above it
    // in that tree, its layout parent the run between them where there is one. Each
    // branch's first CV but a last level run's is its number (those levels' bases equal
    // their first branches). A
    // junction's children: the junctions that hang from it, then its runs. Per branch of
    // an EDD block (empty where no block is one):
    std::vector<int> distal_cv;      // a run: the junction below it (block-local CV), or -1
    std::vector<int> up_run;         // a junction: the run between it and its parent (block-local branch), or -1
    // Per EDD block, each junction's junction children as a table of n_kids columns
    // (kids[k * n_junctions + b], in child-list order), padded with n_branches: a slot of the
    // folds fx and fr that holds -0.0 and +0.0, which leave a sum's bits as they are. The
    // junctions' tree then reads them without a branch per child.
    std::vector<int> junction_kids;
    // Per EDD block, its runs longest first over both run levels (ties: the level with a
    // junction below first): entry r is the r-th longest run's index in the two levels taken
    // as one list (the first level's slots, then the second's). The threads take the
    // longest runs one each and the rest from the other end, the longest of those with the
    // shortest first run (solve_edd), which for at most two runs a thread is what the
    // longest-processing-time assignment gives: each thread's rows as even as the runs allow.
    std::vector<int> run_order;

    int n_blocks() const { return static_cast<int>(blocks.size()); }
    bool edd() const { return !blocks.empty() && blocks[0].edd; }  // every block is EDD's, or none
    // The solve's scratch of a block, in doubles: the folds (two per branch), for EDD also
    // the folds' pad slot (junction_kids) and three per junction (fine_edd_sweeps.hpp). In
    // device memory the blocks' scratch lies side by side, block b's from b.fold0 on. EDD
    // also takes h, one double per CV before the runs without a junction below (in device
    // memory the group's per-CV array).
    ARB_HD static long fold_doubles(const Block& b) { return 2L * (b.n_branches + b.edd) + 3L * b.n_junctions; }
    ARB_HD static long h_doubles(const Block& b) { return b.edd ? b.h_cvs : 0; }
    // Shared memory of a block: its schedule (position offsets, levels, per-branch length,
    // parent CV and children, and for EDD distal CV, run above, the junction_kids table
    // and the run_order), and in shared mode d, u, rhs per CV, the scratch and h (in
    // device-memory mode they stay there).
    ARB_HD static long data_bytes(const Block& b) { return 24L * b.n_cv + 8L * (fold_doubles(b) + h_doubles(b)); }
    ARB_HD static long schedule_bytes(const Block& b) {
        return 8L * ((b.n_pos + 5L * b.n_levels + (b.edd ? 5L : 3L) * b.n_branches + 1 + b.n_child +
                      static_cast<long>(b.n_kids) * b.n_junctions + (b.edd ? b.n_branches - b.n_junctions : 0) + 1) /
                     2);
    }
    long fold_size() const {  // every block's scratch
        return blocks.empty() ? 0 : blocks.back().fold0 + fold_doubles(blocks.back());
    }
    static int shared_bytes(const Block& b) {
        return static_cast<int>((b.in_shared ? data_bytes(b) : 0) + schedule_bytes(b));
    }
};

struct FineNumbering {
    Layout layout;
    FineSchedule schedule;
};

// natural_parents[c]: cell c's CV tree (parent[0] = -1, parent[i] < i). Cells keep the
// caller's order and are packed greedily into blocks of about block_cvs CVs. The
// numbering's parent of a CV is its neighbour towards the (possibly new) root; re-rooted
// cells' edges thus point the other way in places (the engine takes each edge's
// conductance from whichever end names the other as parent). Throws
// std::invalid_argument on a malformed tree or bad options.
FineNumbering fine_layout(const std::vector<std::vector<int>>& natural_parents, const FineOptions& o = {});

// Throws std::logic_error unless every branch's parent CV lies in an earlier level of its
// block (the barrier between levels is then all the ordering the solve needs), every
// level's positions fit its block, and each CV is reached exactly once; in an EDD block
// also unless junctions are single CVs, a run's distal junction names it as its run
// above, and the runs fill the last two levels, each in its own.
void check_fine_schedule(const FineSchedule& s);

// The whole solve on the host, level by level with the kernel's per-branch steps
// (fine_sweeps.hpp): the reference the GPU tests compare against. d, u, rhs in layout
// numbering; on return rhs holds the solution; d is overwritten. ahead: the sweeps'
// rows ahead, 4 or 8 (the same bits either way).
void fine_layout_solve(const FineSchedule& s, double* d, const double* u, double* rhs, int ahead = 8);

// split=cost's cuts for one cell's branch tree (parent[b] < b, -1 for the root; length[b]
// CVs): per branch the lengths of its pieces, proximal first. Each level of a block costs
// about its longest piece's rows plus level_rows (the level's barrier and start-up in
// rows' worth); greedily, the longest piece of some level is cut (at a half or a third)
// while the sum over the cell's levels falls: at most 64 cuts, each among the 16 levels
// with the longest pieces, and none once some 2·10^7 branches have been visited (a
// bounded set-up on any tree).
std::vector<std::vector<int>> split_by_cost(const std::vector<int>& parent, const std::vector<int>& length,
                                            double level_rows);

}  // namespace arbolito
