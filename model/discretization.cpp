#include "model/discretization.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace arbolito {

namespace {

constexpr double pi = 3.14159265358979323846;

// Lateral area (µm²) and axial resistance (MΩ) of a branch between arc positions s0 < s1,
// integrated frustum by frustum with radii interpolated linearly in arc length.
struct Piece { double area = 0, resistance = 0; };

Piece integrate(const Branch& br, const std::vector<double>& arc, double ra, double s0, double s1) {
    Piece out;
    auto radius_at = [&](std::size_t k, double s) {
        const double len = arc[k + 1] - arc[k];
        if (len <= 0) return br.radius[k + 1];
        const double f = (s - arc[k]) / len;
        return br.radius[k] + f * (br.radius[k + 1] - br.radius[k]);
    };
    // Only the segments that reach [s0, s1] contribute, in order: start at the last sample
    // before s0 and stop past s1, so that a branch's pieces cost O(samples) in all, not
    // O(pieces × samples) (a 100,000-sample chain: 30 s before).
    const std::size_t first = static_cast<std::size_t>(std::lower_bound(arc.begin(), arc.end(), s0) - arc.begin());
    for (std::size_t k = first > 0 ? first - 1 : 0; k + 1 < arc.size() && arc[k] <= s1; ++k) {
        const double a = std::max(s0, arc[k]), b = std::min(s1, arc[k + 1]);
        if (arc[k] == arc[k + 1]) {
            // A radius step at one point: its annulus belongs to the piece [s0, s1).
            if (arc[k] < s0 || arc[k] > s1 || (arc[k] == s1 && s1 < arc.back())) continue;
        } else if (b <= a) {
            continue;
        }
        const double ra_ = radius_at(k, a), rb = radius_at(k, b), l = b - a;
        out.area += pi * (ra_ + rb) * std::sqrt(l * l + (ra_ - rb) * (ra_ - rb));
        // R = ρ·l / (π·r_a·r_b); ρ in Ω·cm = 1e4 Ω·µm, result in MΩ.
        out.resistance += 1e-2 * ra * l / (pi * ra_ * rb);
    }
    return out;
}

// Pieces of a branch of length len under the nseg, max_extent and odd_per_length policies.
int pieces_of(double len, const CvPolicy& p) {
    switch (p.kind) {
        case CvPolicy::nseg: return p.n;
        case CvPolicy::max_extent: return std::max(1, static_cast<int>(std::ceil(len / p.extent - 1e-9)));
        // NEURON users' 1 + 2*int(L/d): odd, so that x = 0.5 is a node; no round-off slack
        // (the rule is applied to NEURON's L as it is).
        case CvPolicy::odd_per_length: return 1 + 2 * static_cast<int>(std::floor(len / p.extent));
        case CvPolicy::every_segment: break;
    }
    throw std::logic_error("pieces_of: every_segment has no piece count per length");
}

std::vector<double> cuts_for(const std::vector<double>& arc, const CvPolicy& p) {
    const double len = arc.back();
    std::vector<double> cuts{0.0};
    if (p.kind == CvPolicy::every_segment) {
        for (std::size_t k = 1; k + 1 < arc.size(); ++k) {
            const double x = arc[k] / len;
            if (x > cuts.back()) cuts.push_back(x);  // coincident points make no piece
        }
    } else {
        const int n = pieces_of(len, p);
        for (int i = 1; i < n; ++i) cuts.push_back(static_cast<double>(i) / n);
    }
    cuts.push_back(1.0);
    return cuts;
}

}  // namespace

std::string CvPolicy::describe() const {
    std::string out = "?";
    switch (kind) {
        case nseg: out = "nseg " + std::to_string(n); break;
        case max_extent: out = "max_extent " + std::to_string(extent) + " um"; break;
        case every_segment: out = "every_segment"; break;
        case odd_per_length: out = "odd_per_length " + std::to_string(extent) + " um"; break;
    }
    if (zero_area == fold) out += ", zero_area fold";
    return coalesce_synapses ? out + ", synapses coalesced" : out;
}

int CellCvs::locate(int b, double x) const {
    if (x > 0.0 && x < 1.0) {
        const auto& c = cuts[b];
        const auto it = std::upper_bound(c.begin(), c.end(), x);
        const int piece = std::clamp(static_cast<int>(it - c.begin()) - 1, 0, n_pieces[b] - 1);
        return first_cv[b] + piece;
    }
    const int at = x >= 1.0 ? end_cv[b] : start_cv[b];
    if (at < 0)
        throw std::logic_error("locate: the node at branch " + std::to_string(b) + " x = " + std::to_string(x) +
                               " was folded away (zero_area fold), yet a point is placed there");
    return at;
}

int FoldedJunctions::count() const {
    return static_cast<int>(std::count(end.begin(), end.end(), 1)) + (root ? 1 : 0);
}

FoldedJunctions folded_junctions(const Morphology& m, const std::vector<Location>& kept) {
    // The junction node of each point, as CellCvs::locate finds it: the root (-1), branch
    // k's x = 1 node (k), or none (a centre node, -2). Branch b's first centre node is a
    // child of the node at its x = 0, which is where b attaches on its parent.
    constexpr int root = -1, centre = -2;
    const int nb = static_cast<int>(m.branches.size());
    std::vector<int> attach(nb, root);
    auto node_at = [&](int b, double x) { return x >= 1.0 ? b : x <= 0.0 ? attach[b] : centre; };
    for (int b = 1; b < nb; ++b) attach[b] = node_at(m.branches[b].parent, m.branches[b].parent_x);
    std::vector<int> children(nb + 1, 0);  // per node: index k + 1, the root at 0
    for (int b = 0; b < nb; ++b)
        if (attach[b] != centre) ++children[attach[b] + 1];
    std::vector<char> pinned(nb + 1, 0);
    for (const Location& l : kept) {
        if (l.branch < 0 || l.branch >= nb) throw std::logic_error("folded_junctions: a point on no branch");
        const int k = node_at(l.branch, l.x);
        if (k != centre) pinned[k + 1] = 1;
    }
    FoldedJunctions f;
    f.root = !pinned[0] && children[0] == 1;
    f.end.resize(nb);
    for (int b = 0; b < nb; ++b) f.end[b] = !pinned[b + 1] && children[b + 1] <= 1;
    return f;
}

namespace {
void check_policy(const CvPolicy& p) {
    if (p.kind == CvPolicy::nseg && p.n < 1) throw std::invalid_argument("nseg must be >= 1");
    if ((p.kind == CvPolicy::max_extent || p.kind == CvPolicy::odd_per_length) && !(p.extent > 0))
        throw std::invalid_argument(p.kind == CvPolicy::max_extent ? "max_extent must be > 0" : "odd_per_length's length must be > 0");
}
}  // namespace

int count_cvs(const Morphology& m, const CvPolicy& p, const std::vector<Location>& kept) {
    check_policy(p);
    int n = 1;  // the root's x = 0 junction node
    for (const Branch& br : m.branches) n += static_cast<int>(cuts_for(br.arc(), p).size());  // pieces + the x = 1 node
    return p.zero_area == CvPolicy::fold ? n - folded_junctions(m, kept).count() : n;
}

namespace {
// The layout without the junction nodes `f` names: the CVs that stay keep their order
// (so parent[i] < i still), a child of a folded node with one child takes that node's
// parent and the series conductance of the two edges, the child of a folded root
// becomes the root.
void fold(CellCvs& c, const FoldedJunctions& f) {
    const int n = c.size();
    std::vector<char> gone(n, 0);
    gone[0] = f.root;
    for (std::size_t b = 0; b < f.end.size(); ++b)
        if (f.end[b]) gone[c.end_cv[b]] = 1;
    std::vector<int> to(n, -1);
    int k = 0;
    for (int i = 0; i < n; ++i)
        if (!gone[i]) to[i] = k++;
    CellCvs out;
    for (auto* v : {&out.parent, &out.branch}) v->reserve(k);
    for (auto* v : {&out.area, &out.g_axial, &out.pos}) v->reserve(k);
    for (int i = 0; i < n; ++i) {
        if (gone[i]) continue;
        int p = c.parent[i];
        double g = c.g_axial[i];
        if (p >= 0 && gone[p]) {
            const int pp = c.parent[p];  // a centre node: a folded node's parent always is
            const double g1 = c.g_axial[p];
            g = pp < 0 ? 0.0 : g1 + g > 0 ? g1 * g / (g1 + g) : 0.0;  // 0 + 0: the tree without geometry
            p = pp;
        }
        out.parent.push_back(p < 0 ? -1 : to[p]);
        out.g_axial.push_back(g);
        out.area.push_back(c.area[i]);
        out.branch.push_back(c.branch[i]);
        out.pos.push_back(c.pos[i]);
    }
    auto moved = [&](std::vector<int>& v) { for (int& i : v) i = i < 0 ? -1 : to[i]; };
    moved(c.first_cv);
    moved(c.end_cv);
    moved(c.start_cv);
    out.first_cv = std::move(c.first_cv);
    out.n_pieces = std::move(c.n_pieces);
    out.end_cv = std::move(c.end_cv);
    out.start_cv = std::move(c.start_cv);
    out.cuts = std::move(c.cuts);
    c = std::move(out);
}

// Geometry = false: the CV tree alone (areas and conductances left 0).
template <bool Geometry>
CellCvs discretize_impl(const Morphology& m, const CvPolicy& p, const std::vector<double>& ra,
                        const std::vector<Location>& kept) {
    check_policy(p);
    const int nb = static_cast<int>(m.branches.size());
    CellCvs c;
    c.first_cv.resize(nb);
    c.n_pieces.resize(nb);
    c.end_cv.resize(nb);
    c.start_cv.resize(nb);
    c.cuts.resize(nb);
    auto add = [&](int parent, double area, double g, int b, double x) {
        c.parent.push_back(parent);
        c.area.push_back(area);
        c.g_axial.push_back(g);
        c.branch.push_back(b);
        c.pos.push_back(x);
        return c.size() - 1;
    };
    // Every branch's cuts first, so that the per-CV arrays are sized once.
    std::vector<std::vector<double>> arcs(nb);
    std::size_t n_cv = 1;
    for (int b = 0; b < nb; ++b) {
        arcs[b] = m.branches[b].arc();
        c.cuts[b] = cuts_for(arcs[b], p);
        n_cv += c.cuts[b].size();  // pieces + the x = 1 node
    }
    for (auto* v : {&c.parent, &c.branch}) v->reserve(n_cv);
    for (auto* v : {&c.area, &c.g_axial, &c.pos}) v->reserve(n_cv);
    add(-1, 0.0, 0.0, 0, 0.0);  // the root's x = 0 junction node

    for (int b = 0; b < nb; ++b) {
        const Branch& br = m.branches[b];
        const auto& arc = arcs[b];
        const double len = arc.back();
        const auto& cuts = c.cuts[b];
        const int n = static_cast<int>(cuts.size()) - 1;
        c.n_pieces[b] = n;
        const int attach = b == 0 ? 0 : c.locate(br.parent, br.parent_x);
        c.start_cv[b] = attach;
        c.first_cv[b] = c.size();
        // Resistance from the previous node to this one: the far half of the previous
        // piece plus the near half of this one (NEURON's rleft + rright).
        double r_prev_half = 0;  // the attach node sits on the branch's x = 0
        int prev = attach;
        for (int i = 0; i < n; ++i) {
            const double x = 0.5 * (cuts[i] + cuts[i + 1]);
            if constexpr (Geometry) {
                const double s0 = cuts[i] * len, s1 = cuts[i + 1] * len, sm = 0.5 * (s0 + s1);
                const Piece left = integrate(br, arc, ra[b], s0, sm);
                const Piece right = integrate(br, arc, ra[b], sm, s1);
                prev = add(prev, left.area + right.area, 1.0 / (r_prev_half + left.resistance), b, x);
                r_prev_half = right.resistance;
            } else {
                prev = add(prev, 0.0, 0.0, b, x);
            }
        }
        c.end_cv[b] = add(prev, 0.0, Geometry ? 1.0 / r_prev_half : 0.0, b, 1.0);
    }
    if (p.zero_area == CvPolicy::fold) fold(c, folded_junctions(m, kept));
    return c;
}
}  // namespace

CellCvs discretize(const Morphology& m, const CvPolicy& p, const std::vector<double>& ra,
                   const std::vector<Location>& kept) {
    return discretize_impl<true>(m, p, ra, kept);
}

CellCvs cv_tree(const Morphology& m, const CvPolicy& p, const std::vector<Location>& kept) {
    return discretize_impl<false>(m, p, {}, kept);
}

}  // namespace arbolito
