#include "solvers/lane_layout.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

namespace arbolito {

namespace {

// Rows back that a shared row's parent should lie at least: the sweeps' chain through a
// parent (load, division, product, difference, store: ~30 cycles) is then spread over
// this many rows' independent work.
constexpr int chain_rows = 4;

// The rows of one block's W cells, chosen together (width > 1): row by row, every lane
// places one CV whose parent is already placed, so that as many rows as possible have all
// lanes' parents in one row q (vector loads and stores in the sweeps) with q at least
// chain_rows back. Each lane takes its children in natural order (a later sibling only
// once the earlier one is placed): the backward sweep then subtracts a CV's children in the
// order level order does, so the solve's bits are those of W = 1. Returns, per lane, the
// CV of every row (-1: padding) and per row the shared parent row (-2: none; -1: row 0).
struct BlockRows {
    std::vector<std::vector<int>> cv;   // [lane][row]
    std::vector<std::vector<int>> parent_row;  // [lane][row], -1 for row 0
    std::vector<int> shared;            // [row]
};

BlockRows schedule_block(const std::vector<const std::vector<int>*>& cells, int rows) {
    const int W = static_cast<int>(cells.size());
    BlockRows out;
    out.cv.assign(W, std::vector<int>(rows, -1));
    out.parent_row.assign(W, std::vector<int>(rows, -1));
    out.shared.assign(rows, -1);
    // Per lane: children (ascending), the next child to place per CV, the rows whose CV
    // still has a child to place, and the CVs placed so far.
    struct Lane {
        CvChildren ch;          // ascending: natural order
        std::vector<int> next;  // per CV: its next child to place (an index into ch.list)
        std::set<int> open;
        int placed = 0, n = 0;
    };
    std::vector<Lane> lanes(W);
    for (int l = 0; l < W; ++l) {
        Lane& a = lanes[l];
        if (!cells[l]) continue;
        const std::vector<int>& p = *cells[l];
        a.n = static_cast<int>(p.size());
        a.ch = cv_children(p);
        a.next.assign(a.ch.begin.begin(), a.ch.begin.end() - 1);
    }
    auto place = [&](int l, int row, int q) {
        Lane& a = lanes[l];
        int c = 0;
        if (q >= 0) {
            const int pc = out.cv[l][q];
            c = a.ch.list[a.next[pc]++];
            if (a.next[pc] == a.ch.begin[pc + 1]) a.open.erase(q);
        }
        out.cv[l][row] = c;
        out.parent_row[l][row] = q;
        if (a.ch.count(c) > 0) a.open.insert(row);
        ++a.placed;
    };
    auto active = [&](int l) { return lanes[l].placed < lanes[l].n; };
    // Lane l's oldest open row if it is at or before r, else its latest (a chain that
    // must wait: the tree gives nothing older), -1 if none.
    auto oldest_open = [&](int l, int r) {
        const std::set<int>& o = lanes[l].open;
        if (o.empty()) return -1;
        return *o.begin() <= r ? *o.begin() : *o.rbegin();
    };
    for (int l = 0; l < W; ++l)
        if (active(l)) place(l, 0, -1);
    for (int i = 1; i < rows; ++i) {
        const int want = i - chain_rows;
        int first = -1;
        for (int l = 0; l < W && first < 0; ++l)
            if (active(l)) first = l;
        int q = -2;
        const std::set<int>& o = lanes[first].open;
        auto in_all = [&](int r) {
            for (int l = 0; l < W; ++l)
                if (active(l) && !lanes[l].open.count(r)) return false;
            return true;
        };
        // A parent row ready in every lane (chain_rows back): the oldest, as level order
        // would take it (the most rows between a parent and its child).
        int tries = 0;
        for (auto it = o.begin(); it != o.end() && *it <= want && tries < 64; ++it, ++tries)
            if (in_all(*it)) { q = *it; break; }
        // None: where some lane has nothing ready, a near row open in every lane (the
        // lanes wait anyway); else the lanes part (gathers and scatters for this row).
        bool all_ready = true;
        for (int l = 0; l < W; ++l)
            if (active(l) && (lanes[l].open.empty() || *lanes[l].open.begin() > want)) all_ready = false;
        if (q == -2 && !all_ready) {
            tries = 0;
            for (auto it = o.rbegin(); it != o.rend() && *it > want && tries < 4; ++it, ++tries)
                if (in_all(*it)) { q = *it; break; }
        }
        for (int l = 0; l < W; ++l)
            if (active(l)) place(l, i, q >= 0 ? q : oldest_open(l, want));
        if (q == -2) {  // the lanes may still have met by themselves
            int met = -1;
            for (int l = 0; l < W; ++l)
                if (out.cv[l][i] >= 0) {
                    const int ql = out.parent_row[l][i];
                    met = met == -1 ? ql : (met == ql ? met : -2);
                }
            q = met;
        }
        out.shared[i] = q;
        // Padding (a lane done, or empty) hangs on the shared parent row, else on its previous row.
        for (int l = 0; l < W; ++l)
            if (out.cv[l][i] < 0) out.parent_row[l][i] = q >= 0 ? q : i - 1;
    }
    return out;
}

}  // namespace

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
        // parent_row[l][i]: the row of lane l's parent at row i; cv_at[l][i]: its CV.
        std::vector<std::vector<int>> parent_row(width, std::vector<int>(rows)), cv_at(width, std::vector<int>(rows, -1));
        std::vector<int> shared(rows, -1);
        if (width == 1) {  // level order: W = 1 is level_layout exactly
            const std::vector<int>& p = natural_parents[by_size[first]];
            const std::vector<int> order = level_order(p);
            std::vector<int> position(rows);
            for (int i = 0; i < rows; ++i) position[order[i]] = i;
            for (int i = 0; i < rows; ++i) {
                cv_at[0][i] = order[i];
                parent_row[0][i] = p[order[i]] < 0 ? -1 : position[p[order[i]]];
                shared[i] = i == 0 ? -1 : parent_row[0][i];
            }
        } else {
            std::vector<const std::vector<int>*> cells(width, nullptr);
            for (int l = 0; l < width && first + l < nc; ++l) cells[l] = &natural_parents[by_size[first + l]];
            BlockRows r = schedule_block(cells, rows);
            parent_row = std::move(r.parent_row);
            cv_at = std::move(r.cv);
            shared = std::move(r.shared);
        }
        for (int l = 0; l < width; ++l) {
            const int c = first + l < nc ? by_size[first + l] : -1;
            B.cell.push_back(c);
            if (c >= 0) L.index[c].resize(natural_parents[c].size());
            for (int i = 0; i < rows; ++i) {
                const int q = parent_row[l][i];
                L.parent[base + i * width + l] = q < 0 ? -1 : base + q * width + l;
                if (cv_at[l][i] >= 0)
                    L.index[c][cv_at[l][i]] = base + i * width + l;
                else
                    L.padding.push_back(base + i * width + l);
            }
        }
        // Row 0 holds the roots (a cell's first position; an empty lane's padding).
        for (int i = 0; i < rows; ++i) B.row_parent.push_back(i == 0 ? -1 : shared[i]);
        B.row_begin.push_back(static_cast<int>(B.row_parent.size()));
    }
    std::sort(L.padding.begin(), L.padding.end());
    return out;
}

}  // namespace arbolito
