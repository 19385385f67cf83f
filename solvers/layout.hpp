#pragma once
// A solver's CV numbering for a group of cells (DESIGN §2). The solver chooses it once,
// at build time; every per-CV array of the group lives in this numbering for the run.
#include <vector>

namespace arbolito {

struct Layout {
    int n_cv = 0;                             // including padding
    std::vector<int> parent;                  // in layout numbering; -1 for roots and padding
    std::vector<std::vector<int>> index;      // [cell][natural CV] -> layout index
};

// Cells one after another, each in its natural order: the serial Hines layout.
Layout contiguous_layout(const std::vector<std::vector<int>>& natural_parents);

}  // namespace arbolito
