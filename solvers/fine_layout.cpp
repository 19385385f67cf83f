#include "solvers/fine_layout.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/parallel_for.hpp"
#include "solvers/branch_tree.hpp"
#include "solvers/fine_edd_sweeps.hpp"
#include "solvers/fine_sweeps.hpp"

namespace arbolito {

namespace {

// Undirected neighbours of every CV, from a natural parent array.
struct Adjacency {
    std::vector<int> begin, list;
    int degree(int v) const { return begin[v + 1] - begin[v]; }
};
Adjacency adjacency(const std::vector<int>& p) {
    const int n = static_cast<int>(p.size());
    Adjacency a;
    a.begin.assign(n + 1, 0);
    for (int i = 1; i < n; ++i) ++a.begin[i + 1], ++a.begin[p[i] + 1];
    for (int i = 0; i < n; ++i) a.begin[i + 1] += a.begin[i];
    a.list.resize(a.begin[n]);
    std::vector<int> at(a.begin.begin(), a.begin.end() - 1);
    for (int i = 1; i < n; ++i) a.list[at[i]++] = p[i], a.list[at[p[i]]++] = i;
    return a;
}

// The CV whose branch tree is shallowest as a root (ties: the natural root, then the
// lowest CV). Rooted at r, a path's level rises by one on leaving r when r has two or
// more neighbours, and on leaving any other CV with three or more (a branch point); the
// depth is the largest rise over all paths from r. One pass down and one up over the
// natural tree give it for every r (the usual re-rooting of a tree's farthest distance).
int shallowest_root(const std::vector<int>& p, const Adjacency& a) {
    const int n = static_cast<int>(p.size());
    if (n <= 2) return 0;
    auto rise = [&](int v) { return a.degree(v) >= 3 ? 1 : 0; };
    // down[v]: the largest rise from v into its natural subtree (v counted, the end not);
    // best1, best2: the two largest down of v's children (children follow their parent).
    std::vector<int> down(n, 0), best1(n, -1), best2(n, -1);
    for (int v = n - 1; v >= 0; --v) {
        down[v] = best1[v] >= 0 ? rise(v) + best1[v] : 0;
        if (v == 0) break;
        const int q = p[v], x = down[v];
        if (x > best1[q]) best2[q] = best1[q], best1[q] = x;
        else if (x > best2[q]) best2[q] = x;
    }
    // up[v]: the largest rise from p[v] away from v (p[v] counted).
    std::vector<int> up(n, 0);
    for (int v = 1; v < n; ++v) {
        const int q = p[v];
        const int sibling = down[v] == best1[q] ? best2[q] : best1[q];
        const int beyond = std::max(q > 0 ? up[q] : -1, sibling);
        up[v] = beyond >= 0 ? rise(q) + beyond : 0;
    }
    int best = 0, best_depth = std::numeric_limits<int>::max();
    for (int r = 0; r < n; ++r) {
        const int far = std::max(best1[r], r > 0 ? up[r] : -1);
        const int depth = far < 0 ? 0 : (a.degree(r) >= 2 ? 1 : 0) + far;
        if (depth < best_depth) best = r, best_depth = depth;
    }
    return best;
}

// What a level costs beside its longest piece's rows, in rows: the phase clock of the
// resident kernel (H100, busyring; ARBOLITO_RESIDENT_PROFILE) gave an elimination of about
// 107 cycles per row of a level's longest branch plus 390 per level, a substitution of 35
// plus 470: (390 + 470) / (107 + 35) ≈ 6.
constexpr double split_level_rows = 6.0;

// One cell's branches, ready to be placed: per branch its natural CVs (proximal first),
// level and parent branch, in the order branch_tree gives (parents first).
struct CellBranches {
    std::vector<int> cv, offset, parent, level;
    int n_levels = 0;
    int n_cv = 0;
    std::vector<int> up_run, distal;  // EDD (cell_edd): per branch, as FineSchedule's, cell branch ids
};

// One cell's junctions and runs for EDD (FineOptions::edd_rows = N): the last CV of every
// branch with children (a branch point) is a junction, and each branch's other CVs are
// cut into runs of at most N with a junction between each two. A junction's level is its
// depth in the cell's junction tree; a run's is -1 where a junction lies below it, else -2
// (the block's last two levels hold them: only the first needs h).
CellBranches cell_edd(const std::vector<int>& p, int N) {
    CellBranches cb;
    cb.n_cv = static_cast<int>(p.size());
    cb.offset.push_back(0);
    const BranchTree t = branch_tree(p);
    std::vector<char> has_child(t.n_branches(), 0);
    for (int b = 1; b < t.n_branches(); ++b) has_child[t.parent[b]] = 1;
    auto add = [&](const int* cvs, int len, int parent, int level) {
        cb.cv.insert(cb.cv.end(), cvs, cvs + len);
        cb.offset.push_back(static_cast<int>(cb.cv.size()));
        cb.parent.push_back(parent);
        cb.level.push_back(level);
        cb.up_run.push_back(-1);
        cb.distal.push_back(-1);
        return static_cast<int>(cb.parent.size()) - 1;
    };
    std::vector<int> end_junction(t.n_branches(), -1);  // the junction a branch ends on
    for (int b = 0; b < t.n_branches(); ++b) {
        const int* c = t.cv.data() + t.offset[b];
        const bool leaf = !has_child[b];
        const int m = t.length(b) - (leaf ? 0 : 1);  // CVs that are no branch point
        const int cuts = m > N ? m / (N + 1) : 0;    // ceil((m - N) / (N + 1)): runs of at most N
        const int runs = cuts + 1, run_cvs = m - cuts;
        int up = t.parent[b] >= 0 ? end_junction[t.parent[b]] : -1, at = 0;
        for (int r = 0; r < runs; ++r) {
            const int len = run_cvs / runs + (r < run_cvs % runs ? 1 : 0);
            int run = -1;
            if (len > 0) run = add(c + at, len, up, -1), at += len;
            if (r < cuts || !leaf) {  // a cut, or the branch point that ends the branch
                const int depth = up >= 0 ? cb.level[up] + 1 : 0;
                const int j = add(c + at, 1, up, depth);
                at += 1;
                if (run >= 0) cb.up_run[j] = run, cb.distal[run] = j;
                cb.n_levels = std::max(cb.n_levels, depth + 1);
                up = j;
            }
        }
        end_junction[b] = up;
    }
    for (std::size_t b = 0; b < cb.level.size(); ++b)  // runs without a junction below: the last level
        if (cb.level[b] < 0 && cb.distal[b] < 0) cb.level[b] = -2;
    return cb;
}

CellBranches cell_branches(const std::vector<int>& p, const FineOptions& o) {
    CellBranches cb;
    const int n = static_cast<int>(p.size());
    cb.n_cv = n;
    std::vector<int> order;  // breadth-first from the root: order[j] is a natural CV
    std::vector<int> tree;   // parents in that order
    if (o.reroot && n > 2) {
        const Adjacency a = adjacency(p);
        const int r = shallowest_root(p, a);
        order.reserve(n);
        tree.reserve(n);
        std::vector<int> pos(n, -1);
        order.push_back(r);
        tree.push_back(-1);
        pos[r] = 0;
        for (std::size_t j = 0; j < order.size(); ++j) {
            const int v = order[j];
            for (int e = a.begin[v]; e < a.begin[v + 1]; ++e) {
                const int w = a.list[e];
                if (pos[w] >= 0) continue;
                pos[w] = static_cast<int>(order.size());
                order.push_back(w);
                tree.push_back(static_cast<int>(j));
            }
        }
    } else {
        order.resize(n);
        std::iota(order.begin(), order.end(), 0);
        tree = p;
    }
    const BranchTree t = branch_tree(tree);
    cb.cv.resize(t.cv.size());
    for (std::size_t i = 0; i < t.cv.size(); ++i) cb.cv[i] = order[t.cv[i]];
    cb.offset = t.offset;
    cb.parent = t.parent;
    cb.level = t.level;
    cb.n_levels = t.n_levels;
    if (o.split == Split::off) return cb;
    // The pieces of each branch (lengths, proximal first).
    std::vector<std::vector<int>> pieces(t.n_branches());
    if (o.split == Split::median) {
        // A branch more than twice as long as its level's median (the medians of the
        // unsplit tree) is cut in two.
        std::vector<std::vector<int>> lengths(t.n_levels);
        for (int b = 0; b < t.n_branches(); ++b) lengths[t.level[b]].push_back(t.length(b));
        std::vector<int> median(t.n_levels);
        for (int l = 0; l < t.n_levels; ++l) {
            auto& v = lengths[l];
            std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
            median[l] = v[v.size() / 2];
        }
        for (int b = 0; b < t.n_branches(); ++b) {
            const int len = t.length(b);
            if (len >= 4 && len > 2 * median[t.level[b]])
                pieces[b] = {len / 2, len - len / 2};
            else
                pieces[b] = {len};
        }
    } else {
        std::vector<int> length(t.n_branches());
        for (int b = 0; b < t.n_branches(); ++b) length[b] = t.length(b);
        pieces = split_by_cost(t.parent, length, split_level_rows);
    }
    // Each piece a branch: the next piece its only child, one level down, and the subtree
    // below the last piece moved down as many levels as the branch has extra pieces.
    CellBranches s;
    s.n_cv = n;
    s.offset.push_back(0);
    std::vector<int> tail_id(t.n_branches());  // the piece a branch's children hang from
    std::vector<int> shift(t.n_branches(), 0);  // levels a branch moved down
    for (int b = 0; b < t.n_branches(); ++b) {
        const int pb = t.parent[b];
        shift[b] = pb >= 0 ? shift[pb] : 0;
        int from = 0, parent = pb >= 0 ? tail_id[pb] : -1, level = t.level[b] + shift[b];
        for (int len : pieces[b]) {
            for (int i = from; i < from + len; ++i) s.cv.push_back(cb.cv[t.offset[b] + i]);
            s.offset.push_back(static_cast<int>(s.cv.size()));
            s.parent.push_back(parent);
            s.level.push_back(level);
            s.n_levels = std::max(s.n_levels, level + 1);
            parent = static_cast<int>(s.parent.size()) - 1;
            from += len, ++level;
        }
        tail_id[b] = parent;
        shift[b] += static_cast<int>(pieces[b].size()) - 1;
    }
    // Parents before children still holds: a branch's pieces come right after it, and its
    // children after them. Levels need not be ascending: the placement sorts.
    return s;
}

}  // namespace

std::vector<std::vector<int>> split_by_cost(const std::vector<int>& parent, const std::vector<int>& length,
                                            double level_rows) {
    const int n = static_cast<int>(parent.size());
    std::vector<std::vector<int>> pieces(n);
    for (int b = 0; b < n; ++b) pieces[b] = {length[b]};
    // The modelled cost of `pieces` with piece k of branch cb cut after `cut` rows (cb < 0:
    // as they are), and per level the first piece (branch, index) of the level's longest.
    std::vector<int> first(n), longest;
    std::vector<std::pair<int, int>> at;
    auto cost = [&](int cb, int ck, int cut) {
        longest.clear();
        at.clear();
        for (int b = 0; b < n; ++b) {
            const std::vector<int>& p = pieces[b];
            const int np = static_cast<int>(p.size()) + (b == cb);
            const int pp = parent[b];
            first[b] = pp < 0 ? 0 : first[pp] + static_cast<int>(pieces[pp].size()) + (pp == cb);
            for (int j = 0; j < np; ++j) {
                const int len = b != cb ? p[j] : j < ck ? p[j] : j == ck ? cut : j == ck + 1 ? p[ck] - cut : p[j - 1];
                const int L = first[b] + j;
                if (L >= static_cast<int>(longest.size())) longest.resize(L + 1, 0), at.resize(L + 1, {-1, -1});
                if (len > longest[L]) longest[L] = len, at[L] = {b, j};
            }
        }
        double c = 0;
        for (int m : longest) c += m + level_rows;
        return c;
    };
    // Bounded work (a cost evaluation visits every piece): at most max_cuts cuts, each
    // tried at the longest piece of the candidate_levels levels whose longest pieces are
    // longest (in level order; a busyring cell has 11 to 15 levels and takes about 6
    // cuts), and no cut tried once about max_visits pieces have been visited (a tree of
    // 60,000 branches stops after a few cuts: 0.3 s).
    constexpr int max_cuts = 64, candidate_levels = 16;
    constexpr long max_visits = 20'000'000;
    long visits = 0;
    double now = cost(-1, 0, 0);
    for (int cuts = 0; cuts < max_cuts && visits < max_visits; ++cuts) {
        std::vector<std::pair<int, int>> candidates = at;
        if (static_cast<int>(candidates.size()) > candidate_levels) {
            std::vector<int> sorted = longest;
            std::nth_element(sorted.begin(), sorted.end() - candidate_levels, sorted.end());
            const int bar = *(sorted.end() - candidate_levels);  // the 16th longest
            int above = 0;  // levels strictly above the bar are all taken, ties in level order
            for (int m : longest) above += m > bar;
            int ties = candidate_levels - above;
            for (std::size_t L = 0; L < candidates.size(); ++L) {
                const bool take = longest[L] > bar || (longest[L] == bar && ties-- > 0);
                if (!take) candidates[L] = {-1, -1};
            }
        }
        double best = now;
        int best_b = -1, best_k = 0, best_cut = 0;
        for (const auto& [b, k] : candidates) {
            const int len = b >= 0 ? pieces[b][k] : 0;
            if (len < 2) continue;
            for (int cut : {len / 2, len / 3, len - len / 3}) {
                if (cut < 1 || cut >= len) continue;
                const double c = cost(b, k, cut);
                visits += n;
                if (c < best) best = c, best_b = b, best_k = k, best_cut = cut;
            }
        }
        if (best_b < 0) break;
        const int len = pieces[best_b][best_k];
        pieces[best_b][best_k] = best_cut;
        pieces[best_b].insert(pieces[best_b].begin() + best_k + 1, len - best_cut);
        now = cost(-1, 0, 0);
    }
    return pieces;
}

FineNumbering fine_layout(const std::vector<std::vector<int>>& natural_parents, const FineOptions& o) {
    if (o.block_cvs < 1) throw std::invalid_argument("fine_layout: block_cvs must be >= 1");
    if (o.max_threads < 32 || o.max_threads % 32 != 0 || o.max_threads > 1024)
        throw std::invalid_argument("fine_layout: max_threads must be a multiple of 32 in [32, 1024]");
    const int nc = static_cast<int>(natural_parents.size());
    for (int c = 0; c < nc; ++c) check_cv_tree(natural_parents[c], "fine_layout: cell " + std::to_string(c));
    if (o.edd_rows < 0) throw std::invalid_argument("fine_layout: edd_rows must be >= 0");
    const bool edd = o.edd_rows > 0;
    std::vector<CellBranches> cells(nc);
    parallel_for(nc, 16, [&](long c) {
        cells[c] = edd ? cell_edd(natural_parents[c], o.edd_rows) : cell_branches(natural_parents[c], o);
    });

    FineNumbering out;
    Layout& l = out.layout;
    FineSchedule& s = out.schedule;
    l.index.resize(nc);
    parallel_for(nc, 64, [&](long c) { l.index[c].assign(natural_parents[c].size(), -1); });
    s.child_begin.push_back(0);

    // The blocks: cells [c0, c1) as many as fit block_cvs, at least one.
    std::vector<int> block_first{0};
    for (int c0 = 0; c0 < nc;) {
        int c1 = c0 + 1;
        long cvs = cells[c0].n_cv;
        while (c1 < nc && cvs + cells[c1].n_cv <= o.block_cvs) cvs += cells[c1++].n_cv;
        block_first.push_back(c1);
        c0 = c1;
    }
    const long n_blocks = static_cast<long>(block_first.size()) - 1;

    // Each block placed on its own, side by side, in block-local numbers (CVs, positions;
    // branches and parent CVs are block-local in the schedule anyway), then the blocks
    // concatenated: the numbering one block after another would give.
    struct Placed {
        FineSchedule::Block blk{};                 // sizes; the offsets are set when concatenated
        std::vector<FineSchedule::Level> levels;   // pos0 into the block's own pos_base
        std::vector<int> pos_base, length, parent_cv, child_count, child;
        std::vector<int> parent, padding;          // block-local CVs
        std::vector<int> distal_cv, up_run, kids, runs;  // EDD
    };
    std::vector<Placed> placed(n_blocks);
    parallel_for(n_blocks, 1, [&](long block) {
        const int c0 = block_first[block], c1 = block_first[block + 1];
        Placed& P = placed[block];
        FineSchedule::Block& blk = P.blk;
        int n_levels = 0;
        for (int c = c0; c < c1; ++c) n_levels = std::max(n_levels, cells[c].n_levels);
        if (edd) n_levels += 2;  // the runs': with a junction below, then without
        blk.n_levels = n_levels;
        blk.edd = edd;

        // The block's branches by level: (cell, branch), longest first when sorting.
        std::vector<std::vector<std::pair<int, int>>> by_level(n_levels);
        for (int c = c0; c < c1; ++c)
            for (int b = 0; b < static_cast<int>(cells[c].parent.size()); ++b) {
                const int L = cells[c].level[b];
                by_level[L == -1 ? n_levels - 2 : L == -2 ? n_levels - 1 : L].push_back({c, b});
            }
        auto len_of = [&](std::pair<int, int> cb) {
            const CellBranches& x = cells[cb.first];
            return x.offset[cb.second + 1] - x.offset[cb.second];
        };
        const bool sorted = o.sort || edd;  // EDD's run levels always longest first
        if (sorted)
            for (auto& v : by_level)
                std::stable_sort(v.begin(), v.end(), [&](auto a, auto b) { return len_of(a) > len_of(b); });

        // Place them: block-local branch ids level by level, and every CV's index.
        std::vector<std::vector<int>> local_id(c1 - c0);  // [cell][branch] -> block-local branch
        for (int c = c0; c < c1; ++c) local_id[c - c0].assign(cells[c].parent.size(), -1);
        std::vector<int> last_cv;  // block-local CV of each block-local branch's distal end
        int base = 0, widest = 0;
        for (int L = 0; L < n_levels; ++L) {
            const auto& v = by_level[L];
            int longest = 0;
            for (auto cb : v) longest = std::max(longest, len_of(cb));
            FineSchedule::Level lev{base, static_cast<int>(P.pos_base.size()), static_cast<int>(last_cv.size()),
                                    static_cast<int>(v.size()), longest};
            widest = std::max(widest, lev.n);
            // pos_base: sorted, position i holds the branches still that long; unsorted,
            // every branch (padding where it is shorter).
            P.pos_base.push_back(0);
            for (int i = 0; i < longest; ++i) {
                int n_i = 0;
                if (sorted) {
                    while (n_i < lev.n && len_of(v[n_i]) > i) ++n_i;
                } else {
                    n_i = lev.n;
                }
                P.pos_base.push_back(P.pos_base.back() + n_i);
            }
            const int* pos = P.pos_base.data() + lev.pos0;
            // The numbering's parent of each position: the position before it on the
            // branch, or the parent CV for position 0; unsorted, the padding positions
            // past a branch's end hang from the one before (inert rows: d = 1, u = 0,
            // rhs = 0).
            const int at = base;
            P.parent.resize(at + pos[longest], -1);
            for (int k = 0; k < lev.n; ++k) {
                const auto [c, b] = v[k];
                const CellBranches& x = cells[c];
                const int len = len_of(v[k]);
                local_id[c - c0][b] = lev.branch0 + k;
                const int pb = x.parent[b];
                const int parent_cv = pb < 0 ? -1 : last_cv[local_id[c - c0][pb]];
                P.length.push_back(len);
                P.parent_cv.push_back(parent_cv);
                for (int i = 0; i < len; ++i) l.index[c][x.cv[x.offset[b] + i]] = at + pos[i] + k;
                P.parent[at + pos[0] + k] = parent_cv;
                for (int i = 1; i < longest && pos[i + 1] - pos[i] > k; ++i) {
                    P.parent[at + pos[i] + k] = at + pos[i - 1] + k;
                    if (i >= len) P.padding.push_back(at + pos[i] + k);
                }
                last_cv.push_back(base + pos[len - 1] + k);
            }
            base += pos[longest];
            P.levels.push_back(lev);
        }
        blk.n_cv = base;
        blk.n_pos = static_cast<int>(P.pos_base.size());
        blk.n_branches = static_cast<int>(last_cv.size());
        if (edd) {  // each run's distal junction, each junction's run above, whose last CV is its layout parent
            P.distal_cv.assign(blk.n_branches, -1);
            P.up_run.assign(blk.n_branches, -1);
            for (int c = c0; c < c1; ++c)
                for (int b = 0; b < static_cast<int>(cells[c].parent.size()); ++b)
                    if (const int r = cells[c].up_run[b]; r >= 0) {
                        const int j = local_id[c - c0][b], lr = local_id[c - c0][r];
                        P.up_run[j] = lr;
                        P.distal_cv[lr] = last_cv[j];
                        P.parent[last_cv[j]] = last_cv[lr];
                    }
        }
        blk.threads = std::min(o.max_threads, std::max(32, (widest + 31) / 32 * 32));

        // Children of each block-local branch in the order the serial Hines solve (hines.hpp)
        // subtracts their terms from the parent CV: by their first CV's natural number,
        // descending (its elimination runs from the last CV to the first), so that the
        // solve gives its bits.
        std::vector<std::vector<std::pair<int, int>>> children(blk.n_branches);  // (natural CV, branch)
        for (int c = c0; c < c1; ++c)
            for (int b = 0; b < static_cast<int>(cells[c].parent.size()); ++b)
                if (const int pb = cells[c].parent[b]; pb >= 0)
                    children[local_id[c - c0][pb]].push_back({cells[c].cv[cells[c].offset[b]], local_id[c - c0][b]});
        // EDD: a junction's junction children first (the junctions' serial phase reads only
        // them), then its runs; each kind in the order above.
        const int run0 = edd ? P.levels[n_levels - 2].branch0 : 0;
        for (auto& ch : children) {
            std::sort(ch.begin(), ch.end(), [&](auto x, auto y) {
                const bool xr = edd && x.second >= run0, yr = edd && y.second >= run0;
                return xr != yr ? yr : x.first > y.first;
            });
            for (const auto& e : ch) P.child.push_back(e.second);
            P.child_count.push_back(static_cast<int>(ch.size()));
        }
        blk.n_child = static_cast<int>(P.child.size());
        blk.n_junctions = edd ? run0 : 0;
        if (edd) {  // junction_kids: the junction children (they lead each list), padded
            std::vector<int> n_kids(run0, 0);
            for (int b = 0; b < run0; ++b)
                while (n_kids[b] < static_cast<int>(children[b].size()) && children[b][n_kids[b]].second < run0)
                    ++n_kids[b];
            const int most = run0 > 0 ? *std::max_element(n_kids.begin(), n_kids.end()) : 0;
            blk.n_kids = std::max(2, (most + 1) / 2 * 2);
            P.kids.assign(static_cast<std::size_t>(blk.n_kids) * run0, blk.n_branches);
            for (int b = 0; b < run0; ++b)
                for (int k = 0; k < n_kids[b]; ++k)
                    P.kids[static_cast<std::size_t>(k) * run0 + b] = children[b][k].second;
            // run_order: the two run levels (each longest first) merged by length
            const int n_runs = blk.n_branches - run0;
            P.runs.resize(n_runs);
            for (int p = 0; p < n_runs; ++p) P.runs[p] = p;
            std::stable_sort(P.runs.begin(), P.runs.end(),
                             [&](int x, int y) { return P.length[run0 + x] > P.length[run0 + y]; });
        }
        blk.h_cvs = edd ? P.levels.back().base : 0;
        blk.in_shared = FineSchedule::data_bytes(blk) + FineSchedule::schedule_bytes(blk) <= o.shared_bytes;
    });

    // Each block's offsets, then its parts copied to them, the blocks side by side.
    long next_cv = 0, next_fold = 0;  // checked against int's range as blocks are placed
    std::size_t n_levels = 0, n_pos = 0, n_branches = 0, n_child = 0, n_padding = 0, n_kids = 0, n_runs = 0;
    std::vector<std::size_t> padding_at(n_blocks), child_at(n_blocks);
    s.blocks.resize(n_blocks);
    for (long block = 0; block < n_blocks; ++block) {
        FineSchedule::Block& blk = placed[block].blk;
        blk.first_cv = static_cast<int>(next_cv);
        blk.fold0 = static_cast<int>(next_fold);
        blk.level0 = static_cast<int>(n_levels);
        blk.branch0 = static_cast<int>(n_branches);
        blk.pos0 = static_cast<int>(n_pos);
        padding_at[block] = n_padding;
        child_at[block] = n_child;
        blk.kids0 = static_cast<int>(n_kids);
        blk.runs0 = static_cast<int>(n_runs);
        s.blocks[block] = blk;
        next_cv += blk.n_cv;
        next_fold += FineSchedule::fold_doubles(blk);
        if (next_cv > std::numeric_limits<int>::max() || next_fold > std::numeric_limits<int>::max())
            throw std::invalid_argument("fine_layout: more CVs than an int counts");
        n_levels += blk.n_levels;
        n_pos += blk.n_pos;
        n_branches += blk.n_branches;
        n_child += blk.n_child;
        n_kids += placed[block].kids.size();
        n_runs += placed[block].runs.size();
        n_padding += placed[block].padding.size();
    }
    l.n_cv = static_cast<int>(next_cv);
    s.levels.resize(n_levels);
    s.pos_base.resize(n_pos);
    s.length.resize(n_branches);
    s.parent_cv.resize(n_branches);
    s.child_begin.resize(n_branches + 1);
    s.child.resize(n_child);
    if (edd) {
        s.distal_cv.resize(n_branches), s.up_run.resize(n_branches);
        s.junction_kids.resize(n_kids), s.run_order.resize(n_runs);
    }
    l.parent.resize(next_cv);
    l.padding.resize(n_padding);
    parallel_for(n_blocks, 1, [&](long block) {
        Placed& P = placed[block];
        const FineSchedule::Block& blk = P.blk;
        const int first = blk.first_cv;
        for (int i = 0; i < blk.n_levels; ++i) {
            FineSchedule::Level lev = P.levels[i];
            lev.pos0 += blk.pos0;
            s.levels[blk.level0 + i] = lev;
        }
        std::copy(P.pos_base.begin(), P.pos_base.end(), s.pos_base.begin() + blk.pos0);
        std::copy(P.length.begin(), P.length.end(), s.length.begin() + blk.branch0);
        std::copy(P.parent_cv.begin(), P.parent_cv.end(), s.parent_cv.begin() + blk.branch0);
        std::copy(P.distal_cv.begin(), P.distal_cv.end(), s.distal_cv.begin() + blk.branch0);
        std::copy(P.up_run.begin(), P.up_run.end(), s.up_run.begin() + blk.branch0);
        std::copy(P.kids.begin(), P.kids.end(), s.junction_kids.begin() + blk.kids0);
        std::copy(P.runs.begin(), P.runs.end(), s.run_order.begin() + blk.runs0);
        std::size_t at = child_at[block];
        std::copy(P.child.begin(), P.child.end(), s.child.begin() + at);
        for (int j = 0; j < blk.n_branches; ++j) s.child_begin[blk.branch0 + j + 1] = static_cast<int>(at += P.child_count[j]);
        for (int i = 0; i < blk.n_cv; ++i) l.parent[first + i] = P.parent[i] < 0 ? -1 : P.parent[i] + first;
        for (std::size_t i = 0; i < P.padding.size(); ++i) l.padding[padding_at[block] + i] = P.padding[i] + first;
        for (int c = block_first[block]; c < block_first[block + 1]; ++c)
            for (int& x : l.index[c]) x += first;
        P = Placed{};
    });

    std::sort(l.padding.begin(), l.padding.end());  // levels interleave branches and padding
    return out;
}

namespace {

void check_edd_block(const FineSchedule& s, const FineSchedule::Block& blk) {
    if (s.distal_cv.size() != s.length.size() || s.up_run.size() != s.length.size())
        throw std::logic_error("fine schedule: EDD block without distal CVs or runs above");
    if (blk.n_levels < 2) throw std::logic_error("fine schedule: an EDD block without its two run levels");
    const FineSchedule::Level& inner = s.levels[blk.level0 + blk.n_levels - 2];
    const FineSchedule::Level& leaf = s.levels[blk.level0 + blk.n_levels - 1];
    if (inner.branch0 != blk.n_junctions || leaf.branch0 != inner.branch0 + inner.n ||
        leaf.branch0 + leaf.n != blk.n_branches || leaf.base != blk.h_cvs)
        throw std::logic_error("fine schedule: EDD runs do not end the block");
    for (int L = 0; L + 1 < blk.n_levels; ++L) {  // but the last, branch b's first CV is b (fine_edd_sweeps.hpp)
        const auto& l = s.levels[blk.level0 + L];
        if (l.base != l.branch0 || (l.n > 0 && s.pos_base[l.pos0] != 0))
            throw std::logic_error("fine schedule: an EDD branch's first CV is not its number");
    }
    if (leaf.n > 0 && s.pos_base[leaf.pos0] != 0) throw std::logic_error("fine schedule: EDD leaf runs misplaced");
    const int run0 = blk.n_junctions;
    for (int b = 0; b < blk.n_branches; ++b) {  // junction children before runs
        bool run = false;
        for (int j = s.child_begin[blk.branch0 + b]; j < s.child_begin[blk.branch0 + b + 1]; ++j) {
            if (run && s.child[j] < run0) throw std::logic_error("fine schedule: an EDD junction child after a run");
            run = s.child[j] >= run0;
        }
    }
    // junction_kids: each junction's junction children in list order, then the pad.
    if (blk.n_kids < 2 || blk.n_kids % 2 != 0 || blk.kids0 < 0 ||
        static_cast<std::size_t>(blk.kids0) + static_cast<std::size_t>(blk.n_kids) * run0 > s.junction_kids.size())
        throw std::logic_error("fine schedule: an EDD block's junction children table is out of place");
    for (int b = 0; b < run0; ++b) {
        int k = 0;
        for (int j = s.child_begin[blk.branch0 + b]; j < s.child_begin[blk.branch0 + b + 1] && s.child[j] < run0; ++j)
            if (k >= blk.n_kids || s.junction_kids[blk.kids0 + static_cast<std::size_t>(k++) * run0 + b] != s.child[j])
                throw std::logic_error("fine schedule: an EDD junction's children table differs from its list");
        for (; k < blk.n_kids; ++k)
            if (s.junction_kids[blk.kids0 + static_cast<std::size_t>(k) * run0 + b] != blk.n_branches)
                throw std::logic_error("fine schedule: an EDD junction's children table is not padded");
    }
    // run_order: every run once, longest first.
    const int n_runs = blk.n_branches - run0;
    if (blk.runs0 < 0 || static_cast<std::size_t>(blk.runs0) + n_runs > s.run_order.size())
        throw std::logic_error("fine schedule: an EDD block's run order is out of place");
    std::vector<char> ranked(n_runs, 0);
    for (int r = 0; r < n_runs; ++r) {
        const int p = s.run_order[blk.runs0 + r];
        if (p < 0 || p >= n_runs || ranked[p]++)
            throw std::logic_error("fine schedule: an EDD block's run order is not a permutation of its runs");
        if (r > 0 && s.length[blk.branch0 + run0 + p] > s.length[blk.branch0 + run0 + s.run_order[blk.runs0 + r - 1]])
            throw std::logic_error("fine schedule: an EDD block's run order is not longest first");
    }
    for (int b = 0; b < blk.n_branches; ++b) {
        const int g = blk.branch0 + b;
        const bool run = b >= run0;
        if (!run && (s.length[g] != 1 || s.distal_cv[g] != -1))
            throw std::logic_error("fine schedule: an EDD junction is not one CV");
        if (run && s.up_run[g] != -1) throw std::logic_error("fine schedule: an EDD run names a run above");
        if (run && (s.distal_cv[g] >= 0) != (b < leaf.branch0))
            throw std::logic_error("fine schedule: an EDD run in the wrong run level");
        if (!run && s.up_run[g] >= 0) {
            const int r = s.up_run[g];
            if (r < run0 || r >= leaf.branch0) throw std::logic_error("fine schedule: a run above that is no run");
            if (s.distal_cv[blk.branch0 + r] != b)
                throw std::logic_error("fine schedule: a run's distal junction does not name it");
        }
    }
}

}  // namespace

void check_fine_schedule(const FineSchedule& s) {
    for (const auto& blk : s.blocks) {
        std::vector<int> level_of(blk.n_cv, -1);
        std::vector<int> seen(blk.n_cv, 0);
        for (int L = 0; L < blk.n_levels; ++L) {
            const auto& lev = s.levels[blk.level0 + L];
            const int* pos = s.pos_base.data() + lev.pos0;
            for (int k = 0; k < lev.n; ++k) {
                const int b = blk.branch0 + lev.branch0 + k;
                for (int i = 0; i < s.length[b]; ++i) {
                    const int x = lev.base + pos[i] + k;
                    if (x < 0 || x >= blk.n_cv || pos[i + 1] - pos[i] <= k)
                        throw std::logic_error("fine schedule: branch position outside its level");
                    if (seen[x]++) throw std::logic_error("fine schedule: CV reached twice");
                    level_of[x] = L;
                }
            }
        }
        for (int L = 0; L < blk.n_levels; ++L) {
            const auto& lev = s.levels[blk.level0 + L];
            for (int k = 0; k < lev.n; ++k) {
                const int b = blk.branch0 + lev.branch0 + k;
                const int pcv = s.parent_cv[b];
                if (pcv >= 0 && !(pcv < blk.n_cv && level_of[pcv] >= 0 && level_of[pcv] < L))
                    throw std::logic_error("fine schedule: a branch hangs from a CV that is not in an earlier level");
                for (int j = s.child_begin[b]; j < s.child_begin[b + 1]; ++j) {
                    const int ch = s.child[j];
                    if (ch < 0 || ch >= blk.n_branches) throw std::logic_error("fine schedule: child outside the block");
                }
            }
        }
        if (blk.edd) check_edd_block(s, blk);
    }
}

namespace {

// An EDD block (fine_edd_sweeps.hpp): the kernel's five steps, one branch at a time.
void solve_edd_block(const FineSchedule& s, const FineSchedule::Block& blk, double* D, const double* U, double* R,
                     std::vector<double>& scratch) {
    namespace es = fine_edd_sweeps;
    scratch.assign(FineSchedule::fold_doubles(blk) + FineSchedule::h_doubles(blk), 0.0);
    const es::Scratch w = es::scratch(scratch.data(), blk.n_branches, blk.n_junctions,
                                      scratch.data() + FineSchedule::fold_doubles(blk));
    const int* len = s.length.data() + blk.branch0;
    const int* pcv = s.parent_cv.data() + blk.branch0;
    const int* dcv = s.distal_cv.data() + blk.branch0;
    const int* upr = s.up_run.data() + blk.branch0;
    const int* cb = s.child_begin.data() + blk.branch0;
    const FineSchedule::Level* lev = s.levels.data() + blk.level0;
    const FineSchedule::Level& inner = lev[blk.n_levels - 2];
    const FineSchedule::Level& leaf = lev[blk.n_levels - 1];
    const int run0 = inner.branch0, leaf_shift = leaf.base - leaf.branch0;
    for (const FineSchedule::Level* r : {&inner, &leaf})
        for (int k = 0; k < r->n; ++k) {
            const int b = r->branch0 + k;
            es::run_eliminate(b, k, r->base, s.pos_base.data() + r->pos0, len[b], dcv[b], D, U, R, w);
        }
    for (int b = 0; b < run0; ++b)
        es::junction_assemble(b, upr[b], pcv[b], cb, s.child.data(), run0, leaf.branch0, leaf_shift, upr, D, U, R, w);
    const es::JunctionKids kids{s.junction_kids.data() + blk.kids0, run0, blk.n_kids};
    es::set_fold_pad(w, blk.n_branches);
    for (int L = blk.n_levels - 3; L >= 0; --L)
        for (int k = 0; k < lev[L].n; ++k)
            es::junction_eliminate(es::junction_ahead(lev[L].branch0 + k, kids, D, R, w), kids, D, R, w);
    for (int L = 0; L + 2 < blk.n_levels; ++L)
        for (int k = 0; k < lev[L].n; ++k) {
            const int b = lev[L].branch0 + k;
            es::junction_substitute(es::substitute_ahead(b, pcv[b], D, R, w), R);
        }
    for (const FineSchedule::Level* r : {&inner, &leaf})
        for (int k = 0; k < r->n; ++k) {
            const int b = r->branch0 + k;
            es::run_complete(k, r->base, s.pos_base.data() + r->pos0, len[b], pcv[b], dcv[b], D, R, w.h);
        }
}

template <int Ahead>
void solve_blocks(const FineSchedule& s, double* d, const double* u, double* rhs) {
    std::vector<double> fd, fr;
    for (const auto& blk : s.blocks) {
        double* D = d + blk.first_cv;
        const double* U = u + blk.first_cv;
        double* R = rhs + blk.first_cv;
        if (blk.edd) {
            solve_edd_block(s, blk, D, U, R, fd);
            continue;
        }
        fd.assign(blk.n_branches, 0.0);
        fr.assign(blk.n_branches, 0.0);
        const int* len = s.length.data() + blk.branch0;
        const int* cb = s.child_begin.data() + blk.branch0;
        for (int L = blk.n_levels - 1; L >= 0; --L) {
            const auto& lev = s.levels[blk.level0 + L];
            const int* pos = s.pos_base.data() + lev.pos0;
            for (int k = 0; k < lev.n; ++k)
                fine_sweeps::backward<Ahead>(lev.branch0 + k, k, lev.base, pos, len[lev.branch0 + k], cb,
                                             s.child.data(), D, U, R, fd.data(), fr.data());
        }
        for (int L = 0; L < blk.n_levels; ++L) {
            const auto& lev = s.levels[blk.level0 + L];
            for (int k = 0; k < lev.n; ++k)
                fine_sweeps::forward<Ahead>(k, lev.base, s.pos_base.data() + lev.pos0, len[lev.branch0 + k],
                                            s.parent_cv[blk.branch0 + lev.branch0 + k], D, U, R);
        }
    }
}

}  // namespace

void fine_layout_solve(const FineSchedule& s, double* d, const double* u, double* rhs, int ahead) {
    if (ahead != 4 && ahead != 8) throw std::invalid_argument("fine_layout_solve: ahead must be 4 or 8");
    ahead == 4 ? solve_blocks<4>(s, d, u, rhs) : solve_blocks<8>(s, d, u, rhs);
}

}  // namespace arbolito
