#pragma once
// A solver's CV numbering for a group of cells (docs/architecture.md). The solver chooses it once,
// at build time; every per-CV array of the group lives in this numbering for the run.
//
// Layout holds the numbering only: what the groups, FvmData and the assembly read. How a
// solver walks the numbering (its schedule: which thread takes which CVs, in what order)
// lives with that solver, in its own struct beside the Layout, and its layout function
// returns both: gpu_cell_layout a GpuCellNumbering {layout, CellSlots},
// branch_level_layout a BranchNumbering {layout, BranchSlots}, fine_layout a
// FineNumbering {layout, FineSchedule}. A new solver adds its
// schedule the same way; the CPU group and FvmData never see one.
#include <string>
#include <vector>

namespace arbolito {

struct Layout {
    int n_cv = 0;                             // including padding
    // In layout numbering, -1 for roots. A CV's parent is its tree neighbour towards the
    // root of the numbering: the natural parent, or (where a solver re-roots a cell,
    // gpu-fine) a natural child. Each edge's axial conductance belongs to its child end.
    std::vector<int> parent;
    std::vector<std::vector<int>> index;      // [cell][natural CV] -> layout index
    // Layout indices of the padding CVs, ascending: rows a solver adds to even out its
    // threads' work, no cell's CV. Each is a valid row of the tree (d = 1, u = 0, rhs = 0
    // at every solve, so any solver may compute it); empty for the CPU layouts.
    std::vector<int> padding;
};

// Throws std::invalid_argument, starting with `who`, unless parent is a CV tree in natural
// order: parent[0] = -1 and 0 <= parent[i] < i.
void check_cv_tree(const std::vector<int>& parent, const std::string& who);

// Cells one after another, each in its natural order: the serial Hines layout.
Layout contiguous_layout(const std::vector<std::vector<int>>& natural_parents);

// One cell's children lists: the children of CV i are list[begin[i] .. begin[i+1]-1], in
// ascending (natural) order. parent: a CV tree in natural order (check_cv_tree).
struct CvChildren {
    std::vector<int> begin, list;
    int count(int i) const { return begin[i + 1] - begin[i]; }
};
CvChildren cv_children(const std::vector<int>& parent);

// One cell's CVs in level order (by distance from the root in CVs, ties in natural
// order): order[k] is the natural CV at position k; parents precede children.
std::vector<int> level_order(const std::vector<int>& natural_parent);

// Cells one after another, each in level order (by distance from the root in CVs, ties in
// natural order): parents still precede children, and consecutive CVs mostly lie on
// different branches, so the serial Hines sweeps are not one long chain of dependent
// divisions but several interleaved ones the CPU can overlap. The CPU backend's layout.
Layout level_layout(const std::vector<std::vector<int>>& natural_parents);

}  // namespace arbolito
