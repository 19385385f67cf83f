#include "solvers/branch_layout.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/parallel_for.hpp"
#include "solvers/branch_sweeps.hpp"
#include "solvers/branch_tree.hpp"

namespace arbolito {

namespace {

struct BranchRef {
    int cell, branch, level, length;
};

}  // namespace

BranchNumbering branch_level_layout(const std::vector<std::vector<int>>& np, int bs) {
    if (bs < 1) throw std::invalid_argument("branch_level_layout: block size must be at least 1");
    const int nc = static_cast<int>(np.size());
    for (int c = 0; c < nc; ++c) check_cv_tree(np[c], "branch_level_layout: cell " + std::to_string(c));
    std::vector<BranchTree> trees(nc);
    parallel_for(nc, 16, [&](long c) { trees[c] = branch_tree(np[c]); });

    std::vector<BranchRef> refs;
    for (int c = 0; c < nc; ++c)
        for (int b = 0; b < trees[c].n_branches(); ++b) refs.push_back({c, b, trees[c].level[b], trees[c].length(b)});
    std::stable_sort(refs.begin(), refs.end(), [](const BranchRef& a, const BranchRef& b) {
        return a.level != b.level ? a.level < b.level : a.length > b.length;
    });

    BranchNumbering g;
    Layout& l = g.layout;
    BranchSlots& sl = g.slots;
    l.index.resize(nc);
    for (int c = 0; c < nc; ++c) l.index[c].assign(np[c].size(), -1);
    std::vector<int> slot_branch;  // index into refs, -1 for an empty slot
    std::int64_t base = 0;
    for (std::size_t i = 0; i < refs.size();) {
        // A block: up to bs branches of one level.
        std::size_t end = i;
        while (end < refs.size() && end - i < static_cast<std::size_t>(bs) && refs[end].level == refs[i].level) ++end;
        const int padded = refs[i].length;  // longest first
        for (int k = 0; k < bs; ++k) {
            const std::size_t r = i + k;
            const bool real = r < end;
            sl.cell.push_back(real ? refs[r].cell : -1);
            sl.first.push_back(static_cast<int>(base + k));
            sl.stride.push_back(bs);
            sl.size.push_back(real ? refs[r].length : 0);
            sl.padded.push_back(padded);
            slot_branch.push_back(real ? static_cast<int>(r) : -1);
        }
        base += static_cast<std::int64_t>(bs) * padded;
        if (base > std::numeric_limits<int>::max())
            throw std::invalid_argument("branch_level_layout: more CVs than an int counts");
        i = end;
    }
    l.n_cv = static_cast<int>(base);
    const int ns = static_cast<int>(sl.cell.size());
    for (int s = 0; s < ns; ++s) {
        if (slot_branch[s] < 0) continue;
        const BranchRef& r = refs[slot_branch[s]];
        const BranchTree& t = trees[r.cell];
        for (int k = 0; k < r.length; ++k) l.index[r.cell][t.cv[t.offset[r.branch] + k]] = sl.first[s] + k * bs;
    }
    l.parent.assign(l.n_cv, -1);
    for (int s = 0; s < ns; ++s) {
        const int x0 = sl.first[s];
        for (int k = 1; k < sl.padded[s]; ++k) l.parent[x0 + k * bs] = x0 + (k - 1) * bs;
        for (int k = sl.size[s]; k < sl.padded[s]; ++k) l.padding.push_back(x0 + k * bs);
        if (slot_branch[s] < 0) continue;
        const BranchRef& r = refs[slot_branch[s]];
        const BranchTree& t = trees[r.cell];
        const int p = np[r.cell][t.cv[t.offset[r.branch]]];
        if (p >= 0) l.parent[x0] = l.index[r.cell][p];
    }
    std::sort(l.padding.begin(), l.padding.end());
    return g;
}

BranchSchedule branch_schedule(const Layout& l, const BranchSlots& sl) {
    const int ns = sl.n_slots();
    BranchSchedule s;
    s.first = sl.first, s.stride = sl.stride, s.padded = sl.padded;
    s.parent.resize(ns);
    // Levels from the slots' parents: a slot's level is one more than its parent's slot's.
    std::vector<int> slot_of(l.n_cv, -1), level(ns, 0);
    for (int i = 0; i < ns; ++i)
        for (int k = 0; k < sl.padded[i]; ++k) slot_of[sl.first[i] + k * sl.stride[i]] = i;
    int n_levels = ns > 0 ? 1 : 0;
    for (int i = 0; i < ns; ++i) {
        const int q = sl.padded[i] > 0 && sl.size[i] > 0 ? l.parent[sl.first[i]] : -1;
        s.parent[i] = q;
        if (q >= 0) {
            if (slot_of[q] >= i) throw std::invalid_argument("branch_schedule: slot after the slot of its parent CV");
            level[i] = level[slot_of[q]] + 1;
        } else if (i > 0 && sl.size[i] == 0) {
            level[i] = level[i - 1];  // an empty slot stays in its block's level
        }
        if (i > 0 && level[i] < level[i - 1]) throw std::invalid_argument("branch_schedule: slots not ordered by level");
        n_levels = std::max(n_levels, level[i] + 1);
    }
    s.level_first.assign(n_levels + 1, ns);
    for (int i = ns - 1; i >= 0; --i) s.level_first[level[i]] = i;
    // Coupling lists: per level, the parent CVs in ascending order, each with its child
    // slots in slot order.
    s.couple_level.push_back(0);
    s.couple_level.push_back(0);  // level 0 couples into nothing
    s.couple_first.push_back(0);
    for (int lv = 1; lv < n_levels; ++lv) {
        std::vector<std::pair<int, int>> pairs;  // (parent CV, slot)
        for (int i = s.level_first[lv]; i < s.level_first[lv + 1]; ++i)
            if (s.parent[i] >= 0) pairs.push_back({s.parent[i], i});
        std::sort(pairs.begin(), pairs.end());
        for (std::size_t k = 0; k < pairs.size(); ++k) {
            if (k == 0 || pairs[k].first != pairs[k - 1].first) {
                if (k > 0) s.couple_first.push_back(static_cast<int>(s.couple_slot.size()));
                s.couple_cv.push_back(pairs[k].first);
            }
            s.couple_slot.push_back(pairs[k].second);
        }
        if (!pairs.empty()) s.couple_first.push_back(static_cast<int>(s.couple_slot.size()));
        s.couple_level.push_back(static_cast<int>(s.couple_cv.size()));
    }
    return s;
}

void branch_layout_solve(const BranchSchedule& s, double* d, const double* u, double* rhs) {
    namespace bs = branch_sweeps;
    std::vector<double> fold_d(s.n_slots()), fold_r(s.n_slots());
    for (int lv = s.n_levels() - 1; lv >= 0; --lv) {
        for (int i = s.level_first[lv]; i < s.level_first[lv + 1]; ++i)
            bs::backward(i, s.first.data(), s.stride.data(), s.padded.data(), s.parent.data(), d, u, rhs, fold_d.data(),
                         fold_r.data());
        for (int j = s.couple_level[lv]; j < s.couple_level[lv + 1]; ++j)
            bs::couple(j, s.couple_cv.data(), s.couple_first.data(), s.couple_slot.data(), fold_d.data(), fold_r.data(), d,
                       rhs);
    }
    for (int lv = 0; lv < s.n_levels(); ++lv)
        for (int i = s.level_first[lv]; i < s.level_first[lv + 1]; ++i)
            bs::forward(i, s.first.data(), s.stride.data(), s.padded.data(), s.parent.data(), d, u, rhs);
}

}  // namespace arbolito
