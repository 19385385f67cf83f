#pragma once
// A solver's CV numbering for a group of cells (DESIGN §2). The solver chooses it once,
// at build time; every per-CV array of the group lives in this numbering for the run.
#include <string>
#include <vector>

namespace arbolito {

struct Layout {
    int n_cv = 0;                             // including padding
    std::vector<int> parent;                  // in layout numbering; -1 for roots (padding: see below)
    std::vector<std::vector<int>> index;      // [cell][natural CV] -> layout index

    // Per-thread schedule of the one-thread-per-cell GPU layouts (gpu_cell_layout); empty
    // for layouts that need none. A slot is one thread's cell; slots may be ordered
    // differently from the caller's cells (sorted by size) and may be empty (they round
    // a block of threads up). The CV at sequence position i (0 = root) of slot s lives at
    // slot_first[s] + i * slot_stride[s]; its natural CV number is i, so parent
    // positions precede children. The thread for s walks positions 0 .. slot_padded[s]-1,
    // the same count for every slot of its block so that a warp's lanes stay on one row;
    // positions >= slot_size[s] are padding (d = 1, u = 0, rhs = 0, parent = the position
    // before, so the sequence stays a valid tree and any solver may compute them).
    std::vector<int> slot_cell;    // caller's cell index, -1 for an empty slot
    std::vector<int> slot_first;   // layout index of position 0
    std::vector<int> slot_stride;  // layout distance between consecutive positions
    std::vector<int> slot_size;    // real CVs (0 for an empty slot)
    std::vector<int> slot_padded;  // positions walked (>= slot_size)
    std::vector<int> padding;      // layout indices of all padding CVs, ascending
};

// Throws std::invalid_argument, starting with `who`, unless parent is a CV tree in natural
// order: parent[0] = -1 and 0 <= parent[i] < i.
void check_cv_tree(const std::vector<int>& parent, const std::string& who);

// Cells one after another, each in its natural order: the serial Hines layout.
Layout contiguous_layout(const std::vector<std::vector<int>>& natural_parents);

// Cells one after another, each in level order (by distance from the root in CVs, ties in
// natural order): parents still precede children, and consecutive CVs mostly lie on
// different branches, so the serial Hines sweeps are not one long chain of dependent
// divisions but several interleaved ones the CPU can overlap. The CPU backend's layout.
Layout level_layout(const std::vector<std::vector<int>>& natural_parents);

}  // namespace arbolito
