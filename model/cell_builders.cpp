#include "model/cell_builders.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <random>
#include <stdexcept>
#include <vector>

namespace arbolito {

Morphology ball_and_stick(double d, double len, double r) {
    Morphology m;
    m.source = "ball_and_stick";
    Branch soma;
    soma.tag = tag_soma;
    soma.parent = -1;
    soma.xyz = {{0, 0, 0}, {d, 0, 0}};
    soma.radius = {d / 2, d / 2};
    Branch dend;
    dend.tag = tag_dend;
    dend.parent = 0;
    dend.parent_x = 1.0;
    dend.xyz = {{d, 0, 0}, {d + len, 0, 0}};
    dend.radius = {r, r};
    m.branches = {soma, dend};
    validate(m);
    return m;
}

namespace {

double interp(const std::array<double, 2>& r, unsigned i, unsigned n) {
    const double p = n > 1 ? i * 1. / (n - 1) : 0.0;  // Arbor's formula is 0/0 for one level
    return r[0] + p * (r[1] - r[0]);
}

// Arbor's segment: its proximal end is its parent's distal end (the soma's is (0,0,-r)).
struct Segment {
    int parent;
    double z;  // distal point (0,0,z)
    double r;  // distal radius
};

}  // namespace

BusyringShape busyring_expected_shape(const BusyringParams& p) {
    BusyringShape s;
    double sections = 1;  // at the level before: the soma
    for (unsigned i = 0; i < p.depth; ++i) {
        sections *= 2 * std::clamp(interp(p.branch_probs, i, p.depth), 0.0, 1.0);
        s.sections += sections;
        s.segments += sections * std::round(interp(p.compartments, i, p.depth));
    }
    return s;
}

Morphology busyring_cell(std::uint64_t gid, const BusyringParams& p) {
    for (unsigned i = 0; i < p.depth; ++i) {
        if (!(interp(p.lengths, i, p.depth) > 0)) throw std::invalid_argument("busyring: lengths must be > 0");
        const double nc = std::round(interp(p.compartments, i, p.depth));
        if (!(nc >= 1)) throw std::invalid_argument("busyring: compartments must round to >= 1 at every level");
        if (nc > max_busyring_compartments)
            throw std::invalid_argument("busyring: compartments must be at most 1000000 at every level");
    }
    const BusyringShape expected = busyring_expected_shape(p);
    if (!(expected.segments <= max_busyring_segments))
    {
        std::ostringstream why;
        why << "busyring: depth, branch-probs and compartments give about " << std::setprecision(3) << expected.segments
            << " segments per cell, more than 1000000";
        throw std::invalid_argument(why.str());
    }
    const double soma_r = 12.6157 / 2.0;  // 500 µm² as a cylinder of length 2r
    const double dend_r = 0.5;
    std::vector<Segment> seg{{-1, soma_r, soma_r}};
    seg.reserve(static_cast<std::size_t>(expected.segments * 1.5) + 16);

    // The same draws in the same order as Arbor, so that a gid gives Arbor's cell.
    std::mt19937 gen(static_cast<std::mt19937::result_type>(gid));
    std::uniform_real_distribution<double> dis(0, 1);
    std::vector<int> level{0};
    double dist_from_soma = soma_r;
    for (unsigned i = 0; i < p.depth; ++i) {
        const double bp = interp(p.branch_probs, i, p.depth);
        const double l = interp(p.lengths, i, p.depth);
        const unsigned nc = static_cast<unsigned>(std::round(interp(p.compartments, i, p.depth)));
        std::vector<int> next;
        for (int sec : level) {
            for (int j = 0; j < 2; ++j) {
                if (!(dis(gen) < bp)) continue;
                const double z = dist_from_soma, dz = l / nc;
                int q = sec;
                for (unsigned k = 0; k < nc; ++k) {
                    const int id = static_cast<int>(seg.size());
                    seg.push_back({q, z + (k + 1) * dz, dend_r});
                    q = id;
                }
                next.push_back(q);
            }
        }
        if (next.empty()) break;
        level = std::move(next);
        dist_from_soma += l;
    }

    Morphology m;
    m.source = "busyring gid " + std::to_string(gid);
    Branch soma;
    soma.parent = -1;
    soma.tag = tag_soma;
    soma.xyz = {{0, 0, -soma_r}, {0, 0, soma_r}};
    soma.radius = {soma_r, soma_r};
    m.branches.push_back(soma);

    // Each segment's children, in increasing id (one array, not a vector per segment:
    // thousands of small allocations per cell were a tenth of busyring's set-up).
    const int n_seg = static_cast<int>(seg.size());
    std::vector<int> child_first(n_seg + 1, 0), child(n_seg > 0 ? n_seg - 1 : 0);
    for (int id = 1; id < n_seg; ++id) ++child_first[seg[id].parent + 1];
    for (int i = 0; i < n_seg; ++i) child_first[i + 1] += child_first[i];
    {
        std::vector<int> at(child_first.begin(), child_first.end() - 1);
        for (int id = 1; id < n_seg; ++id) child[at[seg[id].parent]++] = id;
    }
    const auto n_children = [&](int s) { return child_first[s + 1] - child_first[s]; };

    // Branches are unbranched runs of segments, as Arbor makes them, but the soma stays alone.
    struct Pending { int parent_branch, first; };
    int n_branches = 1;  // a run starts at every child of the soma or of a fork
    for (int id = 1; id < n_seg; ++id) n_branches += seg[id].parent == 0 || n_children(seg[id].parent) != 1;
    m.branches.reserve(n_branches);
    std::vector<Pending> stack;
    for (int k = child_first[1]; k-- > child_first[0];) stack.push_back({0, child[k]});
    while (!stack.empty()) {
        const Pending pd = stack.back();
        stack.pop_back();
        Branch b;
        b.parent = pd.parent_branch;
        b.parent_x = 1.0;
        b.tag = tag_dend;
        const Segment& up = seg[seg[pd.first].parent];
        int n_points = 2;  // the parent's end and the run's first segment, then one per segment
        for (int s = pd.first; n_children(s) == 1; s = child[child_first[s]]) ++n_points;
        b.xyz.reserve(n_points);
        b.radius.reserve(n_points);
        b.xyz.push_back({0, 0, up.z});
        b.radius.push_back(up.r);
        int s = pd.first;
        while (true) {
            b.xyz.push_back({0, 0, seg[s].z});
            b.radius.push_back(seg[s].r);
            if (n_children(s) != 1) break;
            s = child[child_first[s]];
        }
        const int self = static_cast<int>(m.branches.size());
        m.branches.push_back(std::move(b));
        for (int k = child_first[s + 1]; k-- > child_first[s];) stack.push_back({self, child[k]});
    }
    validate(m);
    return m;
}

}  // namespace arbolito
