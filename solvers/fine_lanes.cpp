#include "solvers/fine_lanes.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "solvers/fine_sweeps.hpp"

namespace arbolito {

FineLanes fine_lanes(const FineSchedule& s, int threads) {
    if (threads <= 0 || threads % 32 != 0)
        throw std::invalid_argument("fine_lanes: threads must be a positive multiple of 32, not " +
                                    std::to_string(threads));
    FineLanes l;
    l.threads = threads;
    const int nbr = static_cast<int>(s.length.size());
    l.item.assign(nbr, -1);
    l.item_level.assign(nbr, -1);
    l.parent_branch.assign(nbr, -1);
    l.lane_begin.assign(s.blocks.size() * (threads + 1L), 0);
    const int warps = threads / 32;
    for (std::size_t bi = 0; bi < s.blocks.size(); ++bi) {
        const FineSchedule::Block& B = s.blocks[bi];
        const int nb = B.n_branches, b0 = B.branch0;
        const int* cb = s.child_begin.data() + b0;
        std::vector<int> level(nb);
        for (int L = 0; L < B.n_levels; ++L) {
            const FineSchedule::Level& lev = s.levels[B.level0 + L];
            for (int k = 0; k < lev.n; ++k) level[lev.branch0 + k] = L;
        }
        for (int b = 0; b < nb; ++b)
            for (int j = cb[b]; j < cb[b + 1]; ++j) l.parent_branch[b0 + s.child[j]] = b;
        // Rows below each branch (its own and its heaviest child's), deepest levels first:
        // children always lie in the next level.
        std::vector<int> order(nb);
        for (int b = 0; b < nb; ++b) order[b] = b;
        std::stable_sort(order.begin(), order.end(), [&](int a, int c) { return level[a] > level[c]; });
        std::vector<long> below(nb, 0);
        std::vector<int> heavy(nb, -1);
        for (int b : order) {
            for (int j = cb[b]; j < cb[b + 1]; ++j) {
                const int c = s.child[j];
                if (heavy[b] < 0 || below[c] > below[heavy[b]]) heavy[b] = c;
            }
            below[b] = s.length[b0 + b] + (heavy[b] >= 0 ? below[heavy[b]] : 0);
        }
        // Paths: from each top (a root, or a branch that is not its parent's heaviest
        // child) down the heaviest children; the deepest tops first (then the longest).
        std::vector<std::vector<int>> paths;
        for (int b = 0; b < nb; ++b) {
            const int p = l.parent_branch[b0 + b];
            if (p >= 0 && heavy[p] == b) continue;
            std::vector<int> path;
            for (int x = b; x >= 0; x = heavy[x]) path.push_back(x);
            std::reverse(path.begin(), path.end());  // leaf first: the elimination's order
            paths.push_back(std::move(path));
        }
        std::stable_sort(paths.begin(), paths.end(), [&](const std::vector<int>& a, const std::vector<int>& c) {
            const int la = level[a.back()], lc = level[c.back()];
            return la != lc ? la > lc : below[a.back()] > below[c.back()];
        });
        // Path p to lane perm(p mod threads): consecutive paths to different warps.
        std::vector<std::vector<int>> lanes(threads);
        for (std::size_t p = 0; p < paths.size(); ++p) {
            const int q = static_cast<int>(p % threads);
            std::vector<int>& lane = lanes[(q % warps) * 32 + q / warps];
            lane.insert(lane.end(), paths[p].begin(), paths[p].end());
        }
        int* lb = l.lane_begin.data() + bi * (threads + 1L);
        int n = 0;
        for (int t = 0; t < threads; ++t) {
            lb[t] = n;
            for (int b : lanes[t]) {
                l.item[b0 + n] = b;
                l.item_level[b0 + n] = level[b];
                ++n;
            }
        }
        lb[threads] = n;
        if (n != nb) throw std::logic_error("fine_lanes: a block's paths do not cover its branches once");
    }
    return l;
}

void fine_lanes_solve(const FineSchedule& s, const FineLanes& l, double* d, const double* u, double* rhs) {
    constexpr int N = 8;
    std::vector<double> fd, fr;
    std::vector<char> done;
    struct Lane {
        int it, end;         // next item; one past the last (the substitution: counting down, to begin)
        bool started;
        int i;               // next row
        double x0, x1;       // dx, rx (elimination); xp (substitution)
    };
    for (std::size_t bi = 0; bi < s.blocks.size(); ++bi) {
        const FineSchedule::Block& B = s.blocks[bi];
        const int b0 = B.branch0;
        double* D = d + B.first_cv;
        const double* U = u + B.first_cv;
        double* R = rhs + B.first_cv;
        fd.assign(B.n_branches, 0.0);
        fr.assign(B.n_branches, 0.0);
        const int* cb = s.child_begin.data() + b0;
        const int* lb = l.lane_begin.data() + bi * (l.threads + 1L);
        const int* item = l.item.data() + b0;
        const int* ilev = l.item_level.data() + b0;
        auto at = [&](int it, int& base, const int*& pos, int& k) {
            const FineSchedule::Level& lev = s.levels[B.level0 + ilev[it]];
            base = lev.base, pos = s.pos_base.data() + lev.pos0, k = item[it] - lev.branch0;
        };
        // Rounds: in each, every lane whose branch is ready takes one turn.
        auto rounds = [&](bool elim) {
            std::vector<Lane> lanes(l.threads);
            for (int t = 0; t < l.threads; ++t)
                lanes[t] = elim ? Lane{lb[t], lb[t + 1], false, 0, 0, 0} : Lane{lb[t + 1] - 1, lb[t] - 1, false, 0, 0, 0};
            done.assign(B.n_branches, 0);
            for (bool left = true; left;) {
                left = false;
                bool moved = false;
                for (Lane& a : lanes) {
                    if (a.it == a.end) continue;
                    left = true;
                    const int b = item[a.it];
                    int base, k;
                    const int* pos;
                    at(a.it, base, pos, k);
                    const int len = s.length[b0 + b];
                    if (!a.started) {
                        if (elim) {
                            bool ready = true;
                            for (int j = cb[b]; j < cb[b + 1]; ++j) ready = ready && done[s.child[j]];
                            if (!ready) continue;
                            a.i = len - 1;
                            fine_sweeps::branch_start(b, base + pos[a.i] + k, cb, s.child.data(), D, R, fd.data(),
                                                      fr.data(), a.x0, a.x1);
                        } else {
                            const int p = l.parent_branch[b0 + b];
                            if (p >= 0 && !done[p]) continue;
                            const int pcv = s.parent_cv[b0 + b];
                            a.i = 0;
                            a.x0 = pcv >= 0 ? R[pcv] : 0.0;
                        }
                        a.started = true;
                    }
                    moved = true;
                    const bool finished =
                        elim ? fine_sweeps::eliminate_turn<N>(b, a.i, base, pos, k, D, U, R, fd.data(), fr.data(), a.x0, a.x1)
                             : fine_sweeps::substitute_turn<N>(a.i, len, base, pos, k, D, R, a.x0);
                    if (finished) {
                        done[b] = 1;
                        a.started = false;
                        a.it += elim ? 1 : -1;
                    }
                }
                if (left && !moved) throw std::logic_error("fine_lanes_solve: no lane can go on (a bad order)");
            }
        };
        rounds(true);
        rounds(false);
    }
}

}  // namespace arbolito
