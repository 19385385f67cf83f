#include "solvers/gpu_cell_layout.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "core/parallel_for.hpp"

namespace arbolito {

namespace {

constexpr int warp = 32;

// Places the slots' CVs; the slots must be filled, n_cv set. Padding positions form a chain
// behind the real CVs (parent = previous position), so each slot is one valid tree.
// Slots are visited 32 at a time, row by row, so that the writes of an interleaved
// layout run along memory instead of jumping a whole row per CV.
void place(GpuCellNumbering& g, const std::vector<std::vector<int>>& np) {
    Layout& l = g.layout;
    const CellSlots& sl = g.slots;
    l.parent.assign(l.n_cv, -1);
    l.index.assign(np.size(), {});
    const std::size_t ns = sl.cell.size();
    // Groups of 32 slots own disjoint CVs and cells: place them in parallel, each
    // collecting its own padding.
    const long n_groups = static_cast<long>((ns + warp - 1) / warp);
    std::vector<std::vector<int>> padding(n_groups);
    parallel_for(n_groups, 64, [&](long gi) {
        const std::size_t s0 = static_cast<std::size_t>(gi) * warp, s1 = std::min(ns, s0 + warp);
        int rows = 0;
        for (std::size_t s = s0; s < s1; ++s) {
            rows = std::max(rows, sl.padded[s]);
            if (sl.cell[s] >= 0) l.index[sl.cell[s]].resize(np[sl.cell[s]].size());
        }
        for (int i = 0; i < rows; ++i)
            for (std::size_t s = s0; s < s1; ++s) {
                if (i >= sl.padded[s]) continue;
                const int first = sl.first[s], stride = sl.stride[s];
                const int x = first + i * stride;
                if (i < sl.size[s]) {
                    const int c = sl.cell[s];
                    const int p = np[c][i];
                    l.index[c][i] = x;
                    l.parent[x] = p < 0 ? -1 : first + p * stride;
                } else {
                    l.parent[x] = i == 0 ? -1 : x - stride;
                    padding[gi].push_back(x);
                }
            }
    });
    for (auto& p : padding) l.padding.insert(l.padding.end(), p.begin(), p.end());
    std::sort(l.padding.begin(), l.padding.end());
}

// Cells by size, largest first; equal sizes keep the caller's order.
std::vector<int> by_size(const std::vector<std::vector<int>>& np) {
    std::vector<int> order(np.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return np[a].size() > np[b].size(); });
    return order;
}

// Blocks of bs slots over the size-sorted cells, each padded to its largest cell; the
// last block is filled up with empty slots.
GpuCellNumbering blocked(const std::vector<std::vector<int>>& np, int bs) {
    GpuCellNumbering g;
    CellSlots& sl = g.slots;
    const std::vector<int> order = by_size(np);
    const std::size_t n_blocks = (order.size() + bs - 1) / bs;
    std::int64_t base = 0;
    for (std::size_t b = 0; b < n_blocks; ++b) {
        int padded = 0;
        for (int k = 0; k < bs; ++k) {
            const std::size_t j = b * bs + k;
            if (j < order.size()) padded = std::max(padded, static_cast<int>(np[order[j]].size()));
        }
        for (int k = 0; k < bs; ++k) {
            const std::size_t j = b * bs + k;
            const int c = j < order.size() ? order[j] : -1;
            sl.cell.push_back(c);
            sl.first.push_back(static_cast<int>(base + k));
            sl.stride.push_back(bs);
            sl.size.push_back(c < 0 ? 0 : static_cast<int>(np[c].size()));
            sl.padded.push_back(padded);
        }
        base += static_cast<std::int64_t>(bs) * padded;
        if (base > std::numeric_limits<int>::max()) throw std::invalid_argument("gpu_cell_layout: more CVs than an int counts");
    }
    g.layout.n_cv = static_cast<int>(base);
    place(g, np);
    return g;
}

}  // namespace

GpuCellNumbering gpu_cell_layout(const std::vector<std::vector<int>>& np, const CellLayout& l) {
    for (std::size_t c = 0; c < np.size(); ++c) check_cv_tree(np[c], "gpu_cell_layout: cell " + std::to_string(c));

    if (l.kind == CellLayout::Kind::flat) {
        GpuCellNumbering g;
        CellSlots& sl = g.slots;
        std::int64_t base = 0;
        for (std::size_t c = 0; c < np.size(); ++c) {
            const int n = static_cast<int>(np[c].size());
            sl.cell.push_back(static_cast<int>(c));
            sl.first.push_back(static_cast<int>(base));
            sl.stride.push_back(1);
            sl.size.push_back(n);
            sl.padded.push_back(n);
            base += n;
            if (base > std::numeric_limits<int>::max()) throw std::invalid_argument("gpu_cell_layout: more CVs than an int counts");
        }
        g.layout.n_cv = static_cast<int>(base);
        place(g, np);
        return g;
    }
    if (l.kind == CellLayout::Kind::interleaved) {
        // One block spanning every slot is exactly the full interleaving.
        const int n_slots = static_cast<int>((np.size() + warp - 1) / warp * warp);
        return n_slots == 0 ? GpuCellNumbering{} : blocked(np, n_slots);
    }
    // block-shared: the same numbering; the solve holds each block's rhs in shared memory.
    if (l.block < 1)
        throw std::invalid_argument("gpu_cell_layout: block size " + std::to_string(l.block) + " must be a positive integer");
    return blocked(np, l.block);
}

CellLayout parse_cell_layout(const std::string& option) {
    if (option == "flat") return {CellLayout::Kind::flat, 0};
    if (option == "interleaved") return {CellLayout::Kind::interleaved, 0};
    for (const auto& [prefix, kind] : {std::make_pair(std::string("block-interleaved:"), CellLayout::Kind::block_interleaved),
                                       std::make_pair(std::string("block-shared:"), CellLayout::Kind::block_shared)}) {
        if (option.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string num = option.substr(prefix.size());
        std::size_t used = 0;
        int bs = 0;
        try {
            bs = std::stoi(num, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (num.empty() || used != num.size() || bs < 1)
            throw std::invalid_argument("gpu_cell_layout: block size in '" + option + "' must be a positive integer");
        return {kind, bs};
    }
    throw std::invalid_argument("gpu_cell_layout: unknown layout '" + option +
                                "' (flat, interleaved, block-interleaved:BS, block-shared:BS)");
}

GpuCellNumbering gpu_cell_layout(const std::vector<std::vector<int>>& np, const std::string& option) {
    return gpu_cell_layout(np, parse_cell_layout(option));
}

}  // namespace arbolito
