#pragma once
// The lanes' order of a gpu-fine block's solve (the resident step's `solve=lanes`): the
// same branches, rows and arithmetic as the level loop (fine_sweeps.hpp), with no barrier
// between levels. Each thread (a lane) owns whole paths of branches, a path running from
// a leaf towards the root along each branch's heaviest child (the one with the most rows
// below it); a lane starts a branch as soon as its children are eliminated (in the
// substitution: as soon as its parent is substituted), which it reads from a flag per
// branch that the branch's own lane sets. So a cell's solve takes about the rows of its
// longest path from root to leaf, where the level loop takes the sum over levels of each
// level's longest branch (busyring: about 140 rows against 200 to 260).
//
// Deadlock-free by construction: a lane's paths run in one global order in which every
// path comes after the paths hanging from it (deepest top first), so the earliest
// unfinished branch of that order always has what it waits for.
#include <vector>

#include "solvers/fine_layout.hpp"

namespace arbolito {

struct FineLanes {
    int threads = 0;  // lanes per block (the CUDA block's threads)
    // Per block, at blocks[b].branch0 (block-local branch indices inside): the branches in
    // the elimination's order, lane after lane (lane l's at [lane_begin[l], lane_begin[l+1]));
    // the substitution takes each lane's branches in the reverse order.
    std::vector<int> item;
    std::vector<int> item_level;     // the block-local level of each item's branch
    std::vector<int> parent_branch;  // per branch (at branch0): its block-local parent branch, -1 at a root
    std::vector<int> lane_begin;     // per block, threads + 1 offsets into its items (block b's at b * (threads + 1))

    // Shared memory for block b's lanes: the four int arrays above (its part) and a flag
    // per branch, rounded up to 8 bytes.
    static long shared_bytes(const FineSchedule::Block& b, int threads) {
        return 8L * ((threads + 1L + 4L * b.n_branches + 1) / 2);
    }
};

// Lanes for every block of s, `threads` (a multiple of 32) a block. Paths go to lanes in
// their global order, dealt over the block's warps in turn (path p to lane
// (p mod W)·32 + p / W for W warps, when there are no more paths than threads; else
// round robin over that lane order). Throws std::invalid_argument where threads is not a
// positive multiple of 32.
FineLanes fine_lanes(const FineSchedule& s, int threads);

// The whole solve on the host in the lanes' order: lanes take turns (fine_sweeps'
// eliminate_turn and substitute_turn, eight rows each) wherever their next branch is
// ready, as the GPU's would. Same bits as fine_layout_solve. Throws std::logic_error
// where no lane can go on (a deadlock: a bad order).
void fine_lanes_solve(const FineSchedule& s, const FineLanes& l, double* d, const double* u, double* rhs);

}  // namespace arbolito
