#include "solvers/branch_layout.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/parallel_for.hpp"
#include "solvers/branch_sweeps.hpp"
#include "solvers/branch_tree.hpp"
#include "solvers/edd_sweeps.hpp"

namespace arbolito {

namespace {

// A run of one branch's CVs that one slot holds: the branch's CVs start .. start+length-1.
struct BranchRef {
    int cell, branch, level, length, start;
};

// branch_level_layout's steps, in order, over the state they share.
struct BranchLayoutBuilder {
    const std::vector<std::vector<int>>& np;
    const int nc, bs;
    const bool edd, tiled;
    const int cut, tile_cvs;
    std::vector<BranchTree> trees;
    std::vector<int> tile_of;  // EDD's tile of each cell (untiled: 0)
    int n_tiles = 0;
    std::vector<BranchRef> refs;  // the slots' runs, sorted
    std::vector<std::vector<char>> is_junction;  // per cell and CV (EDD)
    std::vector<int> tile_junctions;  // junctions per tile
    BranchNumbering g;
    std::vector<int> slot_ref;  // index into refs, -1 for an empty slot
    std::int64_t base = 0;      // rows laid so far
    // EDD, per tile: the row of its next junction, and the cell after its last.
    std::vector<int> junction_row, tile_end_cell;
    std::vector<std::vector<int>> slot_of_cv;  // EDD: the slot holding each interior CV
    std::vector<std::vector<int>> jnum;        // EDD: per CV its junction's number, -1 if none

    BranchLayoutBuilder(const std::vector<std::vector<int>>& np_, int bs_, Coupling coupling, int cut_, int tile_cvs_)
        : np(np_), nc(static_cast<int>(np_.size())), bs(bs_), edd(coupling == Coupling::edd),
          tiled(edd && tile_cvs_ > 0), cut(edd ? cut_ : 0), tile_cvs(edd ? tile_cvs_ : 0) {}

    BranchNumbering build() {
        make_trees();
        assign_tiles();
        cut_runs();
        lay_slots();
        place_runs();
        if (edd) number_junctions();
        if (edd) link_junctions();
        g.layout.n_cv = static_cast<int>(base);
        set_parents_and_padding();
        return std::move(g);
    }

    void check_size() const {
        if (base > std::numeric_limits<int>::max())
            throw std::invalid_argument("branch_level_layout: more CVs than an int counts");
    }

    void make_trees() {
        for (int c = 0; c < nc; ++c) check_cv_tree(np[c], "branch_level_layout: cell " + std::to_string(c));
        trees.resize(nc);
        parallel_for(nc, 16, [&](long c) { trees[c] = branch_tree(np[c]); });
    }

    // EDD's tiles: consecutive cells while their CVs fit tile_cvs (untiled: one tile).
    void assign_tiles() {
        tile_of.assign(nc, 0);
        for (long c = 1, cvs = np.empty() ? 0 : static_cast<long>(np[0].size()); c < nc; ++c) {
            cvs += static_cast<long>(np[c].size());
            tile_of[c] = tile_of[c - 1];
            if (tiled && cvs > tile_cvs) ++tile_of[c], cvs = static_cast<long>(np[c].size());
        }
        n_tiles = edd && nc > 0 ? tile_of[nc - 1] + 1 : 0;
    }

    // The slots' runs. Fold: one per branch. EDD: a branch ending in a branch point gives
    // that CV to the junctions, and with `cut` its other CVs go in runs of at most `cut`
    // (one more rather than leave a lone CV) with a junction, a cut point, between runs.
    // Sorted by level (EDD: by tile, levels do not matter), longest first.
    void cut_runs() {
        is_junction.resize(nc);
        for (int c = 0; c < nc; ++c) {
            const BranchTree& t = trees[c];
            is_junction[c].assign(np[c].size(), 0);
            std::vector<char> has_children(t.n_branches(), 0);
            for (int b = 1; b < t.n_branches(); ++b) has_children[t.parent[b]] = 1;
            for (int b = 0; b < t.n_branches(); ++b) {
                const int ends = edd && has_children[b], avail = t.length(b) - ends;
                for (int pos = 0; pos < avail;) {
                    int len = avail - pos;
                    if (cut > 0 && len > cut) len = len == cut + 1 ? len : cut;
                    refs.push_back({c, b, edd ? tile_of[c] : t.level[b], len, pos});
                    pos += len;
                    if (pos < avail) is_junction[c][t.cv[t.offset[b] + pos++]] = 1;
                }
                if (ends) is_junction[c][t.cv[t.offset[b + 1] - 1]] = 1;
            }
        }
        std::stable_sort(refs.begin(), refs.end(), [](const BranchRef& a, const BranchRef& b) {
            return a.level != b.level ? a.level < b.level : a.length > b.length;
        });
        tile_junctions.assign(n_tiles, 0);
        for (int c = 0; c < nc && edd; ++c)
            for (char x : is_junction[c]) tile_junctions[tile_of[c]] += x;
    }

    // Tile t's slots laid: its junctions after them (EDD).
    void end_tile(int t) {
        Junctions& j = g.junctions;
        junction_row[t] = static_cast<int>(base);
        base += tile_junctions[t];
        check_size();
        j.tile_cell.push_back(tile_end_cell[t]);
        j.tile_slot.push_back(static_cast<int>(g.slots.cell.size()));
        j.tile_row.push_back(static_cast<int>(base));
    }

    // The slots, block by block: up to bs runs of one level (EDD: of one tile), each block's
    // runs interleaved and padded to its longest. (Every cell has a slot, a leaf's run at
    // least, so every tile appears in refs, in order.)
    void lay_slots() {
        BranchSlots& sl = g.slots;
        junction_row.assign(n_tiles, 0);
        tile_end_cell.assign(n_tiles, nc);
        for (int c = 1; c < nc; ++c)
            if (tile_of[c] != tile_of[c - 1]) tile_end_cell[tile_of[c - 1]] = c;
        for (std::size_t i = 0; i < refs.size();) {
            if (edd && i > 0 && refs[i].level != refs[i - 1].level) end_tile(refs[i - 1].level);
            std::size_t end = i;
            while (end < refs.size() && end - i < static_cast<std::size_t>(bs) && refs[end].level == refs[i].level &&
                   (!tiled || 4 * refs[end].length >= 3 * refs[i].length))  // tiles: a block of like lengths
                ++end;
            const int padded = refs[i].length;  // longest first
            const int width = tiled ? static_cast<int>(end - i) : bs;
            for (int k = 0; k < width; ++k) {
                const std::size_t r = i + k;
                const bool real = r < end;
                sl.cell.push_back(real ? refs[r].cell : -1);
                sl.first.push_back(static_cast<int>(base + k));
                sl.stride.push_back(width);
                sl.size.push_back(real ? refs[r].length : 0);
                sl.padded.push_back(padded);
                slot_ref.push_back(real ? static_cast<int>(r) : -1);
            }
            base += static_cast<std::int64_t>(width) * padded;
            check_size();
            i = end;
        }
        if (n_tiles > 0) end_tile(n_tiles - 1);
        Junctions& j = g.junctions;
        j.base = n_tiles > 0 ? junction_row[0] : static_cast<int>(base);
        j.tile_junction = junction_row;
        j.tiled = tiled;
    }

    // Every run's CVs at its slot's rows.
    void place_runs() {
        const BranchSlots& sl = g.slots;
        Layout& l = g.layout;
        l.index.resize(nc);
        for (int c = 0; c < nc; ++c) l.index[c].assign(np[c].size(), -1);
        slot_of_cv.resize(nc);
        if (edd)
            for (int c = 0; c < nc; ++c) slot_of_cv[c].assign(np[c].size(), -1);
        for (int s = 0; s < sl.n_slots(); ++s) {
            if (slot_ref[s] < 0) continue;
            const BranchRef& r = refs[slot_ref[s]];
            const BranchTree& t = trees[r.cell];
            for (int k = 0; k < r.length; ++k) {
                const int cv = t.cv[t.offset[r.branch] + r.start + k];
                l.index[r.cell][cv] = sl.first[s] + k * sl.stride[s];
                if (edd) slot_of_cv[r.cell][cv] = s;
            }
        }
    }

    // A slot's run's first CV (natural numbering).
    int run_top(int s) const {
        const BranchRef& r = refs[slot_ref[s]];
        return trees[r.cell].cv[trees[r.cell].offset[r.branch] + r.start];
    }

    // The junctions (EDD), cell by cell, each cell's in natural order (parents first),
    // each tile's in the rows left for them after its slots; each with the junction above
    // it: the parent CV, or the junction above the parent's run.
    void number_junctions() {
        Junctions& j = g.junctions;
        Layout& l = g.layout;
        jnum.resize(nc);
        j.cell_first.push_back(0);
        for (int c = 0; c < nc; ++c) {
            jnum[c].assign(np[c].size(), -1);
            for (std::size_t cv = 0; cv < np[c].size(); ++cv) {
                if (!is_junction[c][cv]) continue;
                l.index[c][cv] = junction_row[tile_of[c]]++;
                jnum[c][cv] = j.n();
                const int p = np[c][cv];
                int above = -1;
                if (p >= 0 && is_junction[c][p]) above = jnum[c][p];
                else if (p >= 0) {
                    const int q = np[c][run_top(slot_of_cv[c][p])];
                    above = q >= 0 ? jnum[c][q] : -1;
                }
                j.parent.push_back(above);
            }
            j.cell_first.push_back(j.n());
        }
    }

    // Each junction's run above it (ending at it) and runs below it (starting from it),
    // in slot order, then the junctions hanging from it directly (no run between).
    void link_junctions() {
        Junctions& j = g.junctions;
        const int ns = g.slots.n_slots();
        j.slot.assign(j.n(), -1);
        std::vector<std::vector<int>> below(j.n());
        for (int s = 0; s < ns; ++s) {
            if (slot_ref[s] < 0) continue;
            const BranchRef& r = refs[slot_ref[s]];
            const BranchTree& t = trees[r.cell];
            const int top = run_top(s), next = r.start + r.length;
            if (np[r.cell][top] >= 0) below[jnum[r.cell][np[r.cell][top]]].push_back(s);
            if (next < t.length(r.branch)) j.slot[jnum[r.cell][t.cv[t.offset[r.branch] + next]]] = s;
        }
        for (int k = 0; k < j.n(); ++k)
            if (j.slot[k] < 0 && j.parent[k] >= 0) below[j.parent[k]].push_back(-1 - k);
        j.child_first.push_back(0);
        for (int k = 0; k < j.n(); ++k) {
            j.child_slot.insert(j.child_slot.end(), below[k].begin(), below[k].end());
            j.child_first.push_back(static_cast<int>(j.child_slot.size()));
        }
    }

    // Parents: every CV's natural parent; padding rows hang from the position before.
    void set_parents_and_padding() {
        Layout& l = g.layout;
        const BranchSlots& sl = g.slots;
        l.parent.assign(l.n_cv, -1);
        for (int c = 0; c < nc; ++c)
            for (std::size_t i = 1; i < np[c].size(); ++i) l.parent[l.index[c][i]] = l.index[c][np[c][i]];
        for (int s = 0; s < sl.n_slots(); ++s) {
            const int x0 = sl.first[s];
            for (int k = sl.size[s], st = sl.stride[s]; k < sl.padded[s]; ++k) {
                if (k > 0) l.parent[x0 + k * st] = x0 + (k - 1) * st;
                l.padding.push_back(x0 + k * st);
            }
        }
        std::sort(l.padding.begin(), l.padding.end());
    }
};

}  // namespace

BranchNumbering branch_level_layout(const std::vector<std::vector<int>>& np, int bs, Coupling coupling, int cut,
                                    int tile_cvs) {
    if (bs < 1) throw std::invalid_argument("branch_level_layout: block size must be at least 1");
    if (cut < 0) throw std::invalid_argument("branch_level_layout: cut must be 0 (none) or positive");
    if (tile_cvs < 0) throw std::invalid_argument("branch_level_layout: tile must be 0 (none) or positive");
    return BranchLayoutBuilder(np, bs, coupling, cut, tile_cvs).build();
}

int edd_auto_tile(int max_branch_points, long max_cvs) {
    return max_branch_points <= 64 && max_cvs <= 4096 ? edd_auto_tile_cvs : 0;
}

int edd_auto_tile(const std::vector<std::vector<int>>& np) {
    int most_points = 0;
    long most_cvs = 0;
    for (const std::vector<int>& parent : np) {
        most_points = std::max(most_points, branch_points(parent));
        most_cvs = std::max(most_cvs, static_cast<long>(parent.size()));
    }
    return edd_auto_tile(most_points, most_cvs);
}

BranchSchedule branch_schedule(const Layout& l, const BranchSlots& sl) {
    const int ns = sl.n_slots();
    BranchSchedule s;
    s.first = sl.first, s.stride = sl.stride, s.size = sl.size, s.padded = sl.padded;
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
    // slots in the order the serial Hines solve (hines.hpp) subtracts their terms: by their
    // first CV's natural number, descending (its elimination runs from the last CV to the
    // first), so that the fold gives its bits.
    std::vector<int> natural(l.n_cv, -1);  // layout index -> natural CV of its cell
    for (const auto& cell : l.index)
        for (std::size_t i = 0; i < cell.size(); ++i) natural[cell[i]] = static_cast<int>(i);
    s.couple_level.push_back(0);
    s.couple_level.push_back(0);  // level 0 couples into nothing
    s.couple_first.push_back(0);
    for (int lv = 1; lv < n_levels; ++lv) {
        std::vector<std::array<int, 3>> pairs;  // (parent CV, -natural CV of the slot's first, slot)
        for (int i = s.level_first[lv]; i < s.level_first[lv + 1]; ++i)
            if (s.parent[i] >= 0) pairs.push_back({s.parent[i], -natural[sl.first[i]], i});
        std::sort(pairs.begin(), pairs.end());
        for (std::size_t k = 0; k < pairs.size(); ++k) {
            if (k == 0 || pairs[k][0] != pairs[k - 1][0]) {
                if (k > 0) s.couple_first.push_back(static_cast<int>(s.couple_slot.size()));
                s.couple_cv.push_back(pairs[k][0]);
            }
            s.couple_slot.push_back(pairs[k][2]);
        }
        if (!pairs.empty()) s.couple_first.push_back(static_cast<int>(s.couple_slot.size()));
        s.couple_level.push_back(static_cast<int>(s.couple_cv.size()));
    }
    return s;
}

void branch_layout_solve(const BranchSchedule& s, double* d, const double* u, double* rhs, Padding padding) {
    namespace bs = branch_sweeps;
    const int* walk = padding == Padding::compute ? s.padded.data() : s.size.data();
    std::vector<double> fold_d(s.n_slots()), fold_r(s.n_slots());
    for (int lv = s.n_levels() - 1; lv >= 0; --lv) {
        for (int i = s.level_first[lv]; i < s.level_first[lv + 1]; ++i)
            bs::backward(i, s.first.data(), s.stride.data(), walk, s.parent.data(), d, u, rhs, fold_d.data(),
                         fold_r.data());
        for (int j = s.couple_level[lv]; j < s.couple_level[lv + 1]; ++j)
            bs::couple(j, s.couple_cv.data(), s.couple_first.data(), s.couple_slot.data(), fold_d.data(), fold_r.data(), d,
                       rhs);
    }
    for (int lv = 0; lv < s.n_levels(); ++lv)
        for (int i = s.level_first[lv]; i < s.level_first[lv + 1]; ++i)
            bs::forward(i, s.first.data(), s.stride.data(), walk, s.parent.data(), d, u, rhs);
}

EddSchedule edd_schedule(const Layout& l, const BranchSlots& sl, const Junctions& j) {
    if (j.cell_first.empty() && !l.index.empty())
        throw std::invalid_argument("edd_schedule: a numbering without junctions (not Coupling::edd)");
    EddSchedule s;
    s.first = sl.first, s.stride = sl.stride, s.size = sl.size, s.padded = sl.padded;
    Junctions& sj = s.junctions;
    sj = j;
    if (sj.cell_first.empty()) sj.cell_first.push_back(0), sj.child_first.push_back(0);
    const int ns = sl.n_slots(), nc = s.n_cells();
    if (sj.n_tiles() <= 0 && nc > 0)  // no tiles given: one
        sj.tile_cell = {0, nc}, sj.tile_slot = {0, ns}, sj.tile_row = {0, l.n_cv}, sj.tile_junction = {j.base};
    s.up.assign(ns, -1);
    s.down.assign(ns, -1);
    s.junction_row.resize(sj.n_tiles());
    // Everything into its tile's frame.
    for (int t = 0; t < sj.n_tiles(); ++t) {
        const int row0 = sj.tile_row[t], s0 = sj.tile_slot[t], k0 = sj.cell_first[sj.tile_cell[t]];
        s.junction_row[t] = sj.tile_junction[t] - row0;
        for (int i = s0; i < sj.tile_slot[t + 1]; ++i) {
            if (sl.size[i] > 0 && l.parent[sl.first[i]] >= 0) s.up[i] = l.parent[sl.first[i]] - row0;
            s.first[i] -= row0;
        }
        for (int k = k0; k < sj.cell_first[sj.tile_cell[t + 1]]; ++k) {
            if (j.slot[k] >= 0) s.down[j.slot[k]] = s.junction_row[t] + k - k0, sj.slot[k] -= s0;
            for (int i = j.child_first[k]; i < j.child_first[k + 1]; ++i)
                sj.child_slot[i] += j.child_slot[i] >= 0 ? -s0 : k0;  // -1 - junction: the tile's junction
        }
    }
    return s;
}

void edd_layout_solve(const EddSchedule& s, double* d, const double* u, double* rhs, Padding padding) {
    namespace es = edd_sweeps;
    const int* walk = padding == Padding::compute ? s.padded.data() : s.size.data();
    const Junctions& j = s.junctions;
    std::vector<double> h, ends, E(j.n()), R(j.n()), P(j.n()), Q(j.n());
    // Tile by tile, each in its own frame (pointers from its first row, slot and
    // junction). Tiled, with the tiled GPU kernel's steps and storage (es::tile_*: h over
    // a copy of the tile's u, E, R and P over the junction rows); untiled (one tile), with
    // the untiled kernels'. Both give the same bits (BranchLayout.EddTilesSameBits).
    for (int t = 0; t < j.n_tiles(); ++t) {
        const int o = j.tile_row[t], rows = j.tile_row[t + 1] - o, s0 = j.tile_slot[t], ns = j.tile_slot[t + 1] - s0;
        const int c0 = j.tile_cell[t], c1 = j.tile_cell[t + 1], k0 = j.cell_first[c0], nj = j.cell_first[c1] - k0;
        const int jr = s.junction_row[t];
        const int *first = s.first.data() + s0, *stride = s.stride.data() + s0, *size = s.size.data() + s0,
                  *wk = walk + s0, *up = s.up.data() + s0, *down = s.down.data() + s0;
        const int *parent = j.parent.data() + k0, *slot = j.slot.data() + k0, *child_first = j.child_first.data() + k0;
        if (j.tiled) {
            h.assign(u + o, u + o + rows);
            ends.assign(static_cast<std::size_t>(es::n_tile_ends) * ns, 0.0);
            for (int i = 0; i < ns; ++i)
                es::tile_eliminate(i, first, stride, size, wk, up, down, d + o, h.data(), rhs + o, ends.data());
            for (int k = 0; k < nj; ++k)
                es::tile_assemble(k, jr, parent, slot, child_first, j.child_slot.data(), first, d + o, h.data(),
                                  rhs + o, ends.data(), Q.data() + k0);
            for (int c = c0; c < c1; ++c)
                es::tile_junctions(c, jr - k0, j.cell_first.data(), parent, d + o + jr, rhs + o + jr, h.data() + jr,
                                   Q.data() + k0, rhs + o, k0);
            for (int i = 0; i < ns; ++i)
                es::tile_complete(i, first, stride, size, wk, up, down, d + o, rhs + o, h.data());
            continue;
        }
        h.assign(std::max(1, rows), 0.0);
        ends.assign(static_cast<std::size_t>(es::n_ends) * ns, 0.0);
        for (int i = 0; i < ns; ++i)
            es::eliminate(i, first, stride, size, wk, up, down, d + o, u + o, rhs + o, h.data(), ends.data());
        for (int k = 0; k < nj; ++k)
            es::assemble(k, jr, parent, slot, child_first, j.child_slot.data(), d + o, u + o, rhs + o, ends.data(),
                         E.data() + k0, R.data() + k0, P.data() + k0, Q.data() + k0);
        for (int c = c0; c < c1; ++c)
            es::junctions(c, jr - k0, j.cell_first.data(), j.parent.data(), E.data(), R.data(), P.data(), Q.data(),
                          rhs + o);
        for (int i = 0; i < ns; ++i) es::complete(i, first, stride, size, wk, up, down, d + o, rhs + o, h.data());
    }
}

}  // namespace arbolito
