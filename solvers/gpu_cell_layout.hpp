#pragma once
// CV numberings for the one-thread-per-cell GPU solver (gpu-cell, cuHinesBatch; docs/solvers.md).
// Host code only: the numbering and its schedule are chosen once at build time and the
// kernels read them as plain arrays (hines_gpu_cell.hpp's plan).
#include <string>
#include <vector>

#include "solvers/layout.hpp"

namespace arbolito {

// gpu-cell's schedule: one thread per slot, a slot one cell. Slots may be ordered
// differently from the caller's cells (sorted by size) and may be empty (they round a
// block of threads up). The CV at sequence position i (0 = root) of slot s lives at
// first[s] + i * stride[s]; its natural CV number is i, so parent positions precede
// children. The thread for s walks positions 0 .. padded[s]-1, the same count for every
// slot of its block so that a warp's lanes stay on one row; positions >= size[s] are
// padding (Layout::padding; parent = the position before, so the sequence stays a valid
// tree).
struct CellSlots {
    std::vector<int> cell;    // caller's cell index, -1 for an empty slot
    std::vector<int> first;   // layout index of position 0
    std::vector<int> stride;  // layout distance between consecutive positions
    std::vector<int> size;    // real CVs (0 for an empty slot)
    std::vector<int> padded;  // positions walked (>= size)
    int n_slots() const { return static_cast<int>(cell.size()); }
};

// The numbering (what the group's arrays use) and, beside it, the schedule of the
// gpu-cell kernels.
struct GpuCellNumbering {
    Layout layout;
    CellSlots slots;
};

// gpu-cell's numbering, typed: its kind and, for the blocked kinds, slots per block.
struct CellLayout {
    enum class Kind { flat, interleaved, block_interleaved, block_shared };
    Kind kind = Kind::block_interleaved;
    int block = 32;  // block-interleaved, block-shared: slots per block (>= 1)
};

// natural_parents[c]: cell c's CV tree in natural order (parent[0] = -1, parent[i] < i).
// option:
//   "flat"                  cells one after another in the caller's order, no padding
//                           (the same numbering as contiguous_layout);
//   "interleaved"           cells sorted by size, largest first; CV i of slot s at
//                           i * n_slots + s, n_slots = cells rounded up to a multiple of
//                           32 (a warp); every slot padded to the largest cell;
//   "block-interleaved:BS"  cells sorted by size and cut into blocks of BS slots; within
//                           a block CV i of its k-th slot at block_base + i * BS + k; each
//                           block padded to its largest cell;
//   "block-shared:BS"       the numbering of block-interleaved:BS (the gpu-cell solve
//                           then keeps each block's right-hand sides in shared memory).
// Layout::index keeps the caller's cell order; the sort only decides the slots.
// Throws std::invalid_argument for an unknown option or a malformed tree.
GpuCellNumbering gpu_cell_layout(const std::vector<std::vector<int>>& natural_parents, const CellLayout& layout);
// The same with the layout as text, as listed above (benches, tests); throws
// std::invalid_argument for an unknown option.
GpuCellNumbering gpu_cell_layout(const std::vector<std::vector<int>>& natural_parents, const std::string& option);
// The typed layout of such a text; throws as gpu_cell_layout does.
CellLayout parse_cell_layout(const std::string& option);

}  // namespace arbolito
