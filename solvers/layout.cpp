#include "solvers/layout.hpp"

namespace arbolito {

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

}  // namespace arbolito
