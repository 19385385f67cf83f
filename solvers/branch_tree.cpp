#include "solvers/branch_tree.hpp"

#include <algorithm>

#include "solvers/layout.hpp"

namespace arbolito {

int branch_points(const std::vector<int>& p) {
    std::vector<int> children(p.size(), 0);
    for (std::size_t i = 1; i < p.size(); ++i)
        if (p[i] >= 0) ++children[p[i]];
    return static_cast<int>(std::count_if(children.begin(), children.end(), [](int n) { return n >= 2; }));
}

BranchTree branch_tree(const std::vector<int>& p) {
    const int n = static_cast<int>(p.size());
    check_cv_tree(p, "branch_tree");
    BranchTree t;
    t.offset.push_back(0);
    if (n == 0) return t;
    // Depth-first from each branch's first CV, following the only child while there is
    // one; a CV with several children ends its branch and each child starts one.
    const CvChildren ch = cv_children(p);
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
            if (ch.count(c) != 1) break;
            c = ch.list[ch.begin[c]];
        }
        for (int j = ch.begin[c]; j < ch.begin[c + 1]; ++j) todo.push_back({ch.list[j], b, s.level + 1});
        t.offset.push_back(static_cast<int>(t.cv.size()));
    }
    return t;
}

}  // namespace arbolito
