#pragma once
// Discretisation of one cell into control volumes (CVs), as plain data (cf. Arbor's
// fvm_layout). The node layout is NEURON's: each branch is cut into pieces, a node sits
// at the centre of every piece, and a zero-area node sits at x = 1 of every branch
// (and x = 0 of the root), where children attach. With the `nseg` policy the CVs are
// NEURON's nodes exactly, so both simulators assemble the same matrix.
//
// zero_area = fold removes the zero-area nodes that carry no current of their own, exactly
// (docs/architecture.md, "Zero-area nodes"): a node with no child (a tip, or the root with one
// child) has its neighbour's voltage and is dropped; a node with one child is two axial
// conductances in series and becomes one, g1·g2/(g1 + g2), between its parent and child.
// A node where two or more children attach, or where something is placed (`kept`), stays.
#include <string>
#include <vector>

#include "model/morphology.hpp"

namespace arbolito {

struct CvPolicy {
    enum Kind { nseg, max_extent, every_segment, odd_per_length } kind = nseg;
    int n = 1;             // nseg: pieces per branch
    double extent = 20.0;  // max_extent: largest piece length, µm; odd_per_length: the length, µm,
                           // per two more pieces (1 + 2*floor(L/extent) pieces, AllenSDK's rule at 40)
    enum ZeroArea { keep, fold } zero_area = keep;  // the zero-area nodes with fewer than two children
    // Instances of a linear synapse (MechanismDefaults::linear) with equal parameters on one
    // CV made one instance, as Arbor does by default (NEURON keeps them apart): the same
    // voltages up to the order of the sums on the CV, less work per step.
    bool coalesce_synapses = false;
    std::string describe() const;
};

struct CellCvs {
    // CVs in the cell's natural order: parent[i] < i, CV 0 is the root.
    std::vector<int> parent;      // -1 for the root
    std::vector<double> area;     // membrane area, µm² (0 for junction nodes)
    std::vector<double> g_axial;  // conductance to the parent CV, µS (0 for the root)
    std::vector<int> branch;      // branch the node lies on
    std::vector<double> pos;      // node position on that branch, 0..1
    // Per branch: the centre nodes are first_cv[b] .. first_cv[b]+n_pieces[b]-1.
    std::vector<int> first_cv, n_pieces;
    // Per branch: the node at x = 1 and the node at x = 0 (the one it attaches to: a
    // junction node, or its parent's centre node where it attaches inside the parent);
    // -1 where zero_area fold removed that junction node.
    std::vector<int> end_cv, start_cv;
    std::vector<std::vector<double>> cuts;        // piece boundaries per branch, 0 .. 1

    int size() const { return static_cast<int>(parent.size()); }
    // The CV that acts for the point (branch, x): the node of the piece holding x,
    // or the junction node at x = 0 / x = 1. Throws std::logic_error where that junction
    // node was folded away (a point placed there keeps it: discretize's `kept`).
    int locate(int branch, double x) const;
};

// ra: axial resistivity per branch, Ω·cm. kept: points where something is placed
// (synapse, stimulus, detector, probe); under zero_area fold their junction nodes stay.
CellCvs discretize(const Morphology& m, const CvPolicy& p, const std::vector<double>& ra,
                   const std::vector<Location>& kept = {});
// discretize without the geometry: the same CVs, parents and positions, areas and
// conductances 0 (the layout needs only the tree).
CellCvs cv_tree(const Morphology& m, const CvPolicy& p, const std::vector<Location>& kept = {});
// discretize(m, p, ra, kept).size(): the same cuts, no areas or conductances.
int count_cvs(const Morphology& m, const CvPolicy& p, const std::vector<Location>& kept = {});
// The junction nodes zero_area fold removes (from the tree alone: the same for every
// piece count): `end[b]` for branch b's x = 1 node, `root` for the root's x = 0 node.
struct FoldedJunctions {
    std::vector<char> end;
    bool root = false;
    int count() const;
};
FoldedJunctions folded_junctions(const Morphology& m, const std::vector<Location>& kept);

}  // namespace arbolito
