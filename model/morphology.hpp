#pragma once
// A cell's geometry as a tree of unbranched cables (branches), each a polyline of
// 3-D points with radii; radius varies linearly between points (frusta).
#include <string>
#include <vector>

#include <Eigen/Core>

namespace arbolito {

// SWC sample types; other codes are kept as they are and can be painted by number.
enum Tag : int { tag_soma = 1, tag_axon = 2, tag_dend = 3, tag_apic = 4 };

struct Branch {
    int parent = -1;         // parent branch, -1 for the root; always < own index
    double parent_x = 1.0;   // where it attaches on the parent, relative position 0..1
    int tag = tag_dend;      // region (SWC type) of the whole branch
    std::vector<Eigen::Vector3d> xyz;   // >= 2 points, µm
    std::vector<double> radius;         // µm, one per point

    double length() const;
    // Arc length from the first point to each point (same size as xyz).
    std::vector<double> arc() const;
};

struct Morphology {
    std::vector<Branch> branches;  // branches[0] is the root; parents precede children
    std::string source;            // file it came from, or the generator's name

    int soma() const { return !branches.empty() && branches[0].tag == tag_soma ? 0 : -1; }
};

// A point of a cell: branch and relative position 0..1 on it.
struct Location {
    int branch = 0;
    double x = 0.5;
};

// Structural checks shared by every producer of morphologies: throws std::invalid_argument.
void validate(const Morphology& m);

}  // namespace arbolito
