#pragma once
// The CPU backend's numbering: cells in blocks of W lanes, the CVs of a block's
// W cells side by side, so that one row of a block holds W cells' CVs and the Hines sweeps
// and the per-CV loops run as W-wide vector instructions (the CPU form of gpu-cell's
// block-interleaved:W). For W > 1 the W cells' rows are chosen together (lane_layout.cpp):
// as many rows as possible have every lane's parent in one row (vector loads and stores,
// not gathers and scatters: 86 % of busyring's rows at W = 4, against 11 % with each lane
// in its own level order), at least 4 rows back where the tree allows (the sweeps' chains
// overlap); each CV's children keep their natural order, so the sweeps subtract them in
// level order's order and every W gives the bits of W = 1. A lane shorter than its
// block's longest cell is padded. W = 1 is level_layout exactly.

#include <vector>

#include "solvers/layout.hpp"

namespace arbolito {

// Block b: rows i = 0 .. rows[b]-1; lane l of row i is the CV at layout index
// base[b] + i·width + l, a CV of cell cell[b·width + l] (or padding: Layout::padding,
// u = 0, whose parent is the row's shared parent row or the lane's previous row).
struct LaneBlocks {
    int width = 1;
    std::vector<int> base;        // per block: layout index of row 0, lane 0
    std::vector<int> rows;        // per block: its largest cell's CV count
    std::vector<int> cell;        // per block and lane: the caller's cell, -1 for an empty lane
    // Per block and row (from row_begin[b]): the row of every lane's parent where the lanes
    // share it (their parents side by side: vector loads), -1 for row 0 (the roots), -2
    // where the lanes' parents lie in different rows (Layout::parent, one lane at a time).
    std::vector<int> row_parent;
    std::vector<int> row_begin;   // per block + 1
    int n_blocks() const { return static_cast<int>(base.size()); }
};

struct LaneNumbering {
    Layout layout;
    LaneBlocks blocks;
};

// natural_parents[c]: cell c's CV tree in natural order. width: 1, 2, 4 or 8. For width > 1
// cells are sorted by size, largest first (stable), before they are cut into blocks, so
// that a block's lanes are alike in length; Layout::index keeps the caller's order.
// Throws std::invalid_argument for a bad width or a malformed tree.
LaneNumbering lane_layout(const std::vector<std::vector<int>>& natural_parents, int width);

}  // namespace arbolito
