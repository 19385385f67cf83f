#include "parareal/cell_coarsening.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace arbolito {

CvPolicy coarser_policy(const CvPolicy& p, int factor) {
    if (factor < 1) throw std::invalid_argument("coarsening factor must be at least 1");
    CvPolicy out = p;
    switch (p.kind) {
        case CvPolicy::nseg: out.n = (p.n + factor - 1) / factor; break;
        case CvPolicy::max_extent:
        case CvPolicy::odd_per_length: out.extent = p.extent * factor; break;
        case CvPolicy::every_segment:
            if (factor > 1) throw std::invalid_argument("a cell with every_segment CVs has no coarser discretisation");
            break;
    }
    return out;
}

Model coarser_model(const Model& m, int factor) {
    Model out = m;
    for (CellDesc& c : out.cells) c.policy = coarser_policy(c.policy, factor);
    return out;
}

std::vector<double> LinearMap::apply(const std::vector<double>& x) const {
    std::vector<double> y(rows(), 0.0);
    add_apply(x, y);
    return y;
}

void LinearMap::add_apply(const std::vector<double>& x, std::vector<double>& y) const {
    for (std::size_t i = 0; i + 1 < start.size(); ++i) {
        double s = 0;
        for (std::size_t k = start[i]; k < start[i + 1]; ++k) s += w[k] * x[col[k]];
        y[i] += s;
    }
}

namespace {

// A junction node: the root's x = 0 node or a branch's x = 1 node (zero_area fold removes
// the same ones from every discretisation of a cell: which depends on the tree alone).
bool is_junction(const CellCvs& c, int cv) { return cv == c.start_cv[0] || cv == c.end_cv[c.branch[cv]]; }

// One discretisation's list, indexed: (mech, state) → value per natural CV (-1: none), and
// (mech, state, synapse) → value for point states.
struct ValueIndex {
    std::map<std::pair<int, int>, std::vector<int>> by_cv;
    std::map<std::tuple<int, int, int>, int> by_synapse;
    ValueIndex(const CellCvs& cvs, const std::vector<StateValue>& values) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            const StateValue& v = values[i];
            if (v.point) {
                if (v.synapse < 0)  // a stimulus with states would need a rule of its own
                    throw std::logic_error("cell_coarsening: a point state that is not a synapse's");
                by_synapse[{v.mech, v.state, v.synapse}] = static_cast<int>(i);
            } else {
                auto& at = by_cv[{v.mech, v.state}];
                if (at.empty()) at.assign(cvs.size(), -1);
                at[v.cv] = static_cast<int>(i);
            }
        }
    }
    int point(const StateValue& v) const {
        const auto it = by_synapse.find({v.mech, v.state, v.synapse});
        if (it == by_synapse.end()) throw std::logic_error("cell_coarsening: a synapse state missing in one discretisation");
        return it->second;
    }
    const std::vector<int>& on_cvs(const StateValue& v) const {
        const auto it = by_cv.find({v.mech, v.state});
        if (it == by_cv.end()) throw std::logic_error("cell_coarsening: a state missing in one discretisation");
        return it->second;
    }
};

// The value at the same junction of the other discretisation (root, or branch b's x = 1).
int same_junction(const CellCvs& from, int cv, const CellCvs& to) {
    return cv == from.start_cv[0] ? to.start_cv[0] : to.end_cv[from.branch[cv]];
}

void end_row(LinearMap& a) { a.start.push_back(a.col.size()); }

// Row of a coarse piece value: the area-weighted mean of the fine values of the same
// quantity on the fine pieces it overlaps (each fine piece counted by the fraction of its
// length inside; where all areas are 0, by length).
void restriction_row(const CellCvs& f, const std::vector<int>& fine_at, const CellCvs& c, int cv, LinearMap& a) {
    const int b = c.branch[cv], p = cv - c.first_cv[b];
    const double a0 = c.cuts[b][p], a1 = c.cuts[b][p + 1];
    std::vector<std::pair<int, double>> by_area, by_length;
    // The fine pieces that can overlap [a0, a1]: from the one holding a0 on.
    const auto& fc = f.cuts[b];
    const int first = std::max(0, static_cast<int>(std::upper_bound(fc.begin(), fc.end(), a0) - fc.begin()) - 1);
    for (int i = first; i < f.n_pieces[b] && fc[i] < a1; ++i) {
        const double f0 = f.cuts[b][i], f1 = f.cuts[b][i + 1];
        const double overlap = std::min(a1, f1) - std::max(a0, f0);
        const int fcv = f.first_cv[b] + i, at = fine_at[fcv];
        if (overlap <= 0 || at < 0) continue;
        by_length.push_back({at, overlap});
        if (f.area[fcv] > 0) by_area.push_back({at, f.area[fcv] * overlap / (f1 - f0)});
    }
    const auto& terms = by_area.empty() ? by_length : by_area;
    if (terms.empty()) throw std::logic_error("cell_coarsening: a coarse CV covers no fine value");
    double sum = 0;
    for (const auto& t : terms) sum += t.second;
    for (const auto& [at, weight] : terms) {
        a.col.push_back(static_cast<std::size_t>(at));
        a.w.push_back(weight / sum);
    }
}

using Nodes = std::vector<std::pair<double, int>>;  // (position, coarse value), ascending

// The coarse values of one quantity on branch b, by position (for v also the junctions at
// the branch's x = 0 and x = 1).
Nodes branch_nodes(const CellCvs& c, const std::vector<int>& coarse_at, bool is_v, int b) {
    Nodes nodes;
    // (a junction that zero_area fold removed is left out: the value beyond the branch's
    // outermost centre node is then that node's).
    if (is_v && c.start_cv[b] >= 0) nodes.push_back({0.0, coarse_at[c.start_cv[b]]});
    for (int i = 0; i < c.n_pieces[b]; ++i)
        if (coarse_at[c.first_cv[b] + i] >= 0) nodes.push_back({c.pos[c.first_cv[b] + i], coarse_at[c.first_cv[b] + i]});
    if (is_v && c.end_cv[b] >= 0) nodes.push_back({1.0, coarse_at[c.end_cv[b]]});
    return nodes;
}

// Row of a fine piece value at x: linear interpolation between the nearest nodes of its
// branch and quantity on either side, constant beyond the outermost.
void prolongation_row(const Nodes& nodes, double x, LinearMap& a) {
    if (nodes.empty()) throw std::logic_error("cell_coarsening: a fine value with no coarse value on its branch");
    const auto hi = std::upper_bound(nodes.begin(), nodes.end(), std::make_pair(x, -1),
                                     [](const auto& l, const auto& r) { return l.first < r.first; });
    if (hi == nodes.begin() || hi == nodes.end()) {
        const auto& n = hi == nodes.begin() ? nodes.front() : nodes.back();
        a.col.push_back(static_cast<std::size_t>(n.second));
        a.w.push_back(1.0);
        return;
    }
    const auto lo = hi - 1;
    const double t = (x - lo->first) / (hi->first - lo->first);
    a.col.push_back(static_cast<std::size_t>(lo->second));
    a.w.push_back(1.0 - t);
    if (t > 0) {
        a.col.push_back(static_cast<std::size_t>(hi->second));
        a.w.push_back(t);
    }
}

void append(LinearMap& to, const LinearMap& from, std::size_t col_offset) {
    for (std::size_t i = 0; i < from.rows(); ++i) {
        for (std::size_t k = from.start[i]; k < from.start[i + 1]; ++k) {
            to.col.push_back(from.col[k] + col_offset);
            to.w.push_back(from.w[k]);
        }
        end_row(to);
    }
}

}  // namespace

Coarsening cell_coarsening(const CellCvs& fine_cvs, const std::vector<StateValue>& fine,
                           const CellCvs& coarse_cvs, const std::vector<StateValue>& coarse) {
    const ValueIndex fi(fine_cvs, fine), ci(coarse_cvs, coarse);
    Coarsening out;
    for (const StateValue& v : coarse) {
        if (v.point) {
            out.to_coarse.col.push_back(static_cast<std::size_t>(fi.point(v)));
            out.to_coarse.w.push_back(1.0);
        } else if (is_junction(coarse_cvs, v.cv)) {
            const int at = fi.on_cvs(v)[same_junction(coarse_cvs, v.cv, fine_cvs)];
            if (at < 0) throw std::logic_error("cell_coarsening: a junction value missing in the fine list");
            out.to_coarse.col.push_back(static_cast<std::size_t>(at));
            out.to_coarse.w.push_back(1.0);
        } else {
            restriction_row(fine_cvs, fi.on_cvs(v), coarse_cvs, v.cv, out.to_coarse);
        }
        end_row(out.to_coarse);
    }
    Nodes nodes;
    int nodes_branch = -1, nodes_mech = -2, nodes_state = -1;
    for (const StateValue& v : fine) {
        if (v.point) {
            out.to_fine.col.push_back(static_cast<std::size_t>(ci.point(v)));
            out.to_fine.w.push_back(1.0);
        } else if (is_junction(fine_cvs, v.cv)) {
            const int at = ci.on_cvs(v)[same_junction(fine_cvs, v.cv, coarse_cvs)];
            if (at < 0) throw std::logic_error("cell_coarsening: a junction value missing in the coarse list");
            out.to_fine.col.push_back(static_cast<std::size_t>(at));
            out.to_fine.w.push_back(1.0);
        } else {
            // Consecutive values mostly share branch and quantity (natural CV order): the
            // nodes are made once per run of them, not per value.
            const int b = fine_cvs.branch[v.cv];
            if (b != nodes_branch || v.mech != nodes_mech || v.state != nodes_state) {
                nodes = branch_nodes(coarse_cvs, ci.on_cvs(v), v.mech < 0, b);
                nodes_branch = b, nodes_mech = v.mech, nodes_state = v.state;
            }
            prolongation_row(nodes, fine_cvs.pos[v.cv], out.to_fine);
        }
        end_row(out.to_fine);
    }
    return out;
}

Coarsening model_coarsening(const Model& fine, const FvmData& fine_data, const Model& coarse,
                            const FvmData& coarse_data, int n_cells) {
    const auto fv = cell_state_values(fine_data), cv = cell_state_values(coarse_data);
    Coarsening out;
    std::size_t fine_at = 0, coarse_at = 0;
    for (int c = 0; c < n_cells; ++c) {
        const Coarsening one =
            cell_coarsening(discretize_cell(fine.cells[c]), fv[c], discretize_cell(coarse.cells[c]), cv[c]);
        append(out.to_coarse, one.to_coarse, fine_at);
        append(out.to_fine, one.to_fine, coarse_at);
        fine_at += fv[c].size();
        coarse_at += cv[c].size();
    }
    return out;
}

}  // namespace arbolito
