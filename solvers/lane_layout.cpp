#include "solvers/lane_layout.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace arbolito {

LaneNumbering lane_layout(const std::vector<std::vector<int>>& natural_parents, int width) {
    if (width != 1 && width != 2 && width != 4 && width != 8)
        throw std::invalid_argument("lane_layout: width must be 1, 2, 4 or 8, got " + std::to_string(width));
    const int nc = static_cast<int>(natural_parents.size());
    for (int c = 0; c < nc; ++c) check_cv_tree(natural_parents[c], "lane_layout: cell " + std::to_string(c));

    std::vector<int> by_size(nc);
    std::iota(by_size.begin(), by_size.end(), 0);
    if (width > 1)
        std::stable_sort(by_size.begin(), by_size.end(), [&](int a, int b) {
            return natural_parents[a].size() > natural_parents[b].size();
        });

    LaneNumbering out;
    Layout& L = out.layout;
    LaneBlocks& B = out.blocks;
    B.width = width;
    L.index.resize(nc);
    B.row_begin.push_back(0);
    for (int first = 0; first < nc; first += width) {
        const int base = L.n_cv;
        int rows = 0;
        for (int l = 0; l < width && first + l < nc; ++l)
            rows = std::max(rows, static_cast<int>(natural_parents[by_size[first + l]].size()));
        B.base.push_back(base);
        B.rows.push_back(rows);
        L.n_cv += rows * width;
        L.parent.resize(L.n_cv);
        // parent_row[i·width + l]: the row of lane l's parent at row i.
        std::vector<int> parent_row(static_cast<std::size_t>(rows) * width);
        for (int l = 0; l < width; ++l) {
            const int c = first + l < nc ? by_size[first + l] : -1;
            B.cell.push_back(c);
            int size = 0;
            if (c >= 0) {
                const std::vector<int>& p = natural_parents[c];
                const std::vector<int> order = level_order(p);
                size = static_cast<int>(order.size());
                std::vector<int> position(size);
                for (int i = 0; i < size; ++i) position[order[i]] = i;
                L.index[c].resize(size);
                for (int i = 0; i < size; ++i) {
                    L.index[c][order[i]] = base + i * width + l;
                    parent_row[static_cast<std::size_t>(i) * width + l] = p[order[i]] < 0 ? -1 : position[p[order[i]]];
                }
            }
            for (int i = size; i < rows; ++i) parent_row[static_cast<std::size_t>(i) * width + l] = i - 1;
        }
        for (int i = 0; i < rows; ++i) {
            int shared = parent_row[static_cast<std::size_t>(i) * width];
            for (int l = 0; l < width; ++l) {
                const int q = parent_row[static_cast<std::size_t>(i) * width + l];
                L.parent[base + i * width + l] = q < 0 ? -1 : base + q * width + l;
                if (q != shared) shared = -2;
            }
            // Row 0 holds the roots (a cell's first position; an empty lane's padding).
            B.row_parent.push_back(i == 0 ? -1 : shared);
        }
        for (int l = 0; l < width; ++l) {
            const int c = B.cell[B.cell.size() - width + l];
            const int size = c >= 0 ? static_cast<int>(natural_parents[c].size()) : 0;
            for (int i = size; i < rows; ++i) L.padding.push_back(base + i * width + l);
        }
        B.row_begin.push_back(static_cast<int>(B.row_parent.size()));
    }
    std::sort(L.padding.begin(), L.padding.end());
    return out;
}

}  // namespace arbolito
