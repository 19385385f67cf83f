#pragma once
// CV numberings for the one-thread-per-cell GPU solver (gpu-cell, cuHinesBatch; DESIGN §7).
// Host code only: the layout is chosen once at build time and the kernels read it as
// plain arrays (Layout::slot_*).
#include <string>
#include <vector>

#include "solvers/layout.hpp"

namespace arbolito {

// natural_parents[c]: cell c's CV tree in natural order (parent[0] = -1, parent[i] < i).
// option:
//   "flat"                  cells one after another in the caller's order, no padding
//                           (the same numbering as contiguous_layout);
//   "interleaved"           cells sorted by size, largest first; CV i of slot s at
//                           i * n_slots + s, n_slots = cells rounded up to a multiple of
//                           32 (a warp); every slot padded to the largest cell;
//   "block-interleaved:BS"  cells sorted by size and cut into blocks of BS slots; within
//                           a block CV i of its k-th slot at block_base + i * BS + k; each
//                           block padded to its largest cell.
// Layout::index keeps the caller's cell order; the sort only decides the slots.
// Throws std::invalid_argument for an unknown option or a malformed tree.
Layout gpu_cell_layout(const std::vector<std::vector<int>>& natural_parents, const std::string& option);

}  // namespace arbolito
