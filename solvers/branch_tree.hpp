#pragma once
// One cell's CV tree cut into unbranched branches, the unit of work of the branch-level
// GPU solvers (gpu-fine, Huber; gpu-branch, Valero-Lara; docs/solvers.md): within a branch the
// Hines elimination is a tridiagonal (Thomas) sweep; branches of one level are
// independent; a level's branches fold into their parents before the level above runs
// (branch_layout.hpp).
// Plain data on the host, in the cell's natural CV numbering (parent[i] < i).
#include <vector>

namespace arbolito {

struct BranchTree {
    // CVs branch by branch, each branch from its proximal CV (nearest the root) to its
    // distal one: branch b holds cv[offset[b]] .. cv[offset[b+1]-1], and each of its CVs
    // but the first is the only child of the one before. A branch starts at the root or
    // at a child of a CV with two or more children. Branches are numbered so that a
    // parent precedes its children (branch 0 holds the root).
    std::vector<int> cv;
    std::vector<int> offset;  // n_branches() + 1
    std::vector<int> parent;  // parent branch; -1 for branch 0
    std::vector<int> level;   // 0 for branch 0, the parent's level + 1 otherwise
    int n_levels = 0;         // 1 + the largest level (0 for an empty tree)

    int n_branches() const { return static_cast<int>(parent.size()); }
    int length(int b) const { return offset[b + 1] - offset[b]; }
};

// natural_parent: parent[0] = -1, 0 <= parent[i] < i. Throws std::invalid_argument on a
// malformed tree.
BranchTree branch_tree(const std::vector<int>& natural_parent);

// The branch points of a CV tree: CVs with two children or more.
int branch_points(const std::vector<int>& natural_parent);

}  // namespace arbolito
