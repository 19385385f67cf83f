#pragma once
// Discretisation of one cell into control volumes (CVs), as plain data (cf. Arbor's
// fvm_layout). The node layout is NEURON's: each branch is cut into pieces, a node sits
// at the centre of every piece, and a zero-area node sits at x = 1 of every branch
// (and x = 0 of the root), where children attach. With the `nseg` policy the CVs are
// NEURON's nodes exactly, so both simulators assemble the same matrix.
#include <string>
#include <vector>

#include "model/morphology.hpp"

namespace arbolito {

struct CvPolicy {
    enum Kind { nseg, max_extent, every_segment, odd_per_length } kind = nseg;
    int n = 1;             // nseg: pieces per branch
    double extent = 20.0;  // max_extent: largest piece length, µm; odd_per_length: the length, µm,
                           // per two more pieces (1 + 2*floor(L/extent) pieces, AllenSDK's rule at 40)
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
    std::vector<int> first_cv, n_pieces, end_cv;  // end_cv: node at x = 1
    std::vector<std::vector<double>> cuts;        // piece boundaries per branch, 0 .. 1

    int size() const { return static_cast<int>(parent.size()); }
    // The CV that acts for the point (branch, x): the node of the piece holding x,
    // or the junction node at x = 0 / x = 1.
    int locate(int branch, double x) const;
};

// ra: axial resistivity per branch, Ω·cm.
CellCvs discretize(const Morphology& m, const CvPolicy& p, const std::vector<double>& ra);
// discretize without the geometry: the same CVs, parents and positions, areas and
// conductances 0 (the layout needs only the tree).
CellCvs cv_tree(const Morphology& m, const CvPolicy& p);
// discretize(m, p, ra).size(): the same cuts, no areas or conductances.
int count_cvs(const Morphology& m, const CvPolicy& p);

}  // namespace arbolito
