#include "solvers/layout.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/parallel_for.hpp"

namespace arbolito {

void check_cv_tree(const std::vector<int>& p, const std::string& who) {
    for (std::size_t i = 0; i < p.size(); ++i) {
        const bool ok = i == 0 ? p[i] == -1 : p[i] >= 0 && p[i] < static_cast<int>(i);
        if (!ok)
            throw std::invalid_argument(who + ": CV " + std::to_string(i) + " has parent " + std::to_string(p[i]) +
                                        " (need -1 for CV 0 and 0 <= parent < CV otherwise)");
    }
}

Layout contiguous_layout(const std::vector<std::vector<int>>& natural_parents) {
    Layout l;
    for (const auto& p : natural_parents) {
        const int base = l.n_cv;
        std::vector<int> idx(p.size());
        for (std::size_t i = 0; i < p.size(); ++i) {
            idx[i] = base + static_cast<int>(i);
            l.parent.push_back(p[i] < 0 ? -1 : base + p[i]);
        }
        l.n_cv += static_cast<int>(p.size());
        l.index.push_back(std::move(idx));
    }
    return l;
}

CvChildren cv_children(const std::vector<int>& p) {
    const int n = static_cast<int>(p.size());
    CvChildren c;
    c.begin.assign(n + 1, 0);
    for (int i = 1; i < n; ++i) ++c.begin[p[i] + 1];
    for (int i = 0; i < n; ++i) c.begin[i + 1] += c.begin[i];
    c.list.resize(n > 0 ? n - 1 : 0);
    std::vector<int> fill(c.begin.begin(), c.begin.end() - 1);
    for (int i = 1; i < n; ++i) c.list[fill[p[i]]++] = i;
    return c;
}

std::vector<int> level_order(const std::vector<int>& p) {
    const int n = static_cast<int>(p.size());
    std::vector<int> depth(n, 0);
    for (int i = 0; i < n; ++i) depth[i] = p[i] < 0 ? 0 : depth[p[i]] + 1;  // parent[i] < i
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return depth[a] < depth[b]; });
    return order;
}

Layout level_layout(const std::vector<std::vector<int>>& natural_parents) {
    Layout l;
    const long nc = static_cast<long>(natural_parents.size());
    std::vector<int> base(nc + 1, 0);
    for (long c = 0; c < nc; ++c) base[c + 1] = base[c] + static_cast<int>(natural_parents[c].size());
    l.n_cv = base[nc];
    l.parent.resize(l.n_cv);
    l.index.resize(nc);
    // Cells are independent (each owns its slice of the numbering): order them in parallel.
    parallel_for(nc, 16, [&](long c) {
        const auto& p = natural_parents[c];
        const int n = static_cast<int>(p.size());
        const std::vector<int> order = level_order(p);
        std::vector<int>& idx = l.index[c];
        idx.resize(n);
        for (int k = 0; k < n; ++k) idx[order[k]] = base[c] + k;
        for (int k = 0; k < n; ++k) l.parent[base[c] + k] = p[order[k]] < 0 ? -1 : idx[p[order[k]]];
    });
    return l;
}

}  // namespace arbolito
