#include "solvers/branch_tree.hpp"

#include <algorithm>

#include "solvers/layout.hpp"

namespace arbolito {

BranchTree branch_tree(const std::vector<int>& p) {
    const int n = static_cast<int>(p.size());
    std::vector<int> children(n, 0);
    check_cv_tree(p, "branch_tree");
    for (int i = 1; i < n; ++i) ++children[p[i]];
    BranchTree t;
    t.offset.push_back(0);
    if (n == 0) return t;
    // Depth-first from each branch's first CV, following the only child while there is
    // one; a CV with several children ends its branch and each child starts one. Natural
    // numbering has parents first, so a CV's children are found by one pass that lists
    // them per CV.
    std::vector<int> child_begin(n + 1, 0), child_list(n > 0 ? n - 1 : 0);
    for (int i = 0; i < n; ++i) child_begin[i + 1] = child_begin[i] + children[i];
    {
        std::vector<int> fill(child_begin.begin(), child_begin.end() - 1);
        for (int i = 1; i < n; ++i) child_list[fill[p[i]]++] = i;
    }
    struct Start { int cv, parent, level; };
    std::vector<Start> todo{{0, -1, 0}};
    // Breadth-first over branches keeps parents before children and levels ascending.
    for (std::size_t k = 0; k < todo.size(); ++k) {
        const Start s = todo[k];
        const int b = t.n_branches();
        t.parent.push_back(s.parent);
        t.level.push_back(s.level);
        t.n_levels = std::max(t.n_levels, s.level + 1);
        int c = s.cv;
        for (;;) {
            t.cv.push_back(c);
            if (children[c] != 1) break;
            c = child_list[child_begin[c]];
        }
        for (int j = child_begin[c]; j < child_begin[c + 1]; ++j) todo.push_back({child_list[j], b, s.level + 1});
        t.offset.push_back(static_cast<int>(t.cv.size()));
    }
    return t;
}

}  // namespace arbolito
