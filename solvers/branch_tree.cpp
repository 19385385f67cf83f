#include "solvers/branch_tree.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace arbolito {

BranchTree branch_tree(const std::vector<int>& p) {
    const int n = static_cast<int>(p.size());
    std::vector<int> children(n, 0);
    for (int i = 0; i < n; ++i) {
        const bool ok = i == 0 ? p[i] == -1 : p[i] >= 0 && p[i] < i;
        if (!ok)
            throw std::invalid_argument("branch_tree: CV " + std::to_string(i) + " has parent " + std::to_string(p[i]) +
                                        " (need -1 for CV 0 and 0 <= parent < CV otherwise)");
        if (i > 0) ++children[p[i]];
    }
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

void branch_level_solve(const BranchTree& t, const std::vector<int>& p, double* d, const double* u, double* rhs) {
    const int nb = t.n_branches();
    // Branches are numbered level by level (breadth-first): a level is a range.
    std::vector<int> level_first(t.n_levels + 1, nb);
    for (int b = nb - 1; b >= 0; --b) level_first[t.level[b]] = b;
    for (int l = t.n_levels - 1; l >= 0; --l) {
        for (int b = level_first[l]; b < level_first[l + 1]; ++b) {
            const int* c = t.cv.data() + t.offset[b];
            // Thomas along the branch from its distal end; the first CV then folds into
            // the parent branch (root branch: nothing to fold into).
            for (int k = t.length(b) - 1; k >= 0; --k) {
                const int i = c[k], q = p[i];
                if (q < 0) break;
                const double f = u[i] / d[i];
                d[q] -= f * u[i];
                rhs[q] -= f * rhs[i];
            }
        }
    }
    for (int l = 0; l < t.n_levels; ++l)
        for (int b = level_first[l]; b < level_first[l + 1]; ++b)
            for (int k = t.offset[b]; k < t.offset[b + 1]; ++k) {
                const int i = t.cv[k], q = p[i];
                rhs[i] = q < 0 ? rhs[i] / d[i] : (rhs[i] - u[i] * rhs[q]) / d[i];
            }
}

}  // namespace arbolito
