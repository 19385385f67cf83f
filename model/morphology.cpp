#include "model/morphology.hpp"

#include <stdexcept>
#include <string>

namespace arbolito {

double Branch::length() const {
    double l = 0;
    for (std::size_t i = 1; i < xyz.size(); ++i) l += (xyz[i] - xyz[i - 1]).norm();
    return l;
}

std::vector<double> Branch::arc() const {
    std::vector<double> a(xyz.size(), 0.0);
    for (std::size_t i = 1; i < xyz.size(); ++i) a[i] = a[i - 1] + (xyz[i] - xyz[i - 1]).norm();
    return a;
}

void validate(const Morphology& m) {
    if (m.branches.empty()) throw std::invalid_argument("morphology has no branches");
    for (std::size_t b = 0; b < m.branches.size(); ++b) {
        const auto& br = m.branches[b];
        // The branch is named only when it fails (busyring draws thousands per cell).
        auto fail = [b](const char* why) { throw std::invalid_argument("branch " + std::to_string(b) + ": " + why); };
        if ((b == 0) != (br.parent < 0)) fail("only branch 0 may be the root");
        if (br.parent >= static_cast<int>(b)) fail("parent must precede child");
        if (br.parent_x < 0 || br.parent_x > 1) fail("parent_x outside [0,1]");
        if (br.xyz.size() < 2 || br.xyz.size() != br.radius.size()) fail("needs >= 2 points with one radius each");
        for (double r : br.radius)
            if (!(r > 0)) fail("radius must be > 0");
        if (!(br.length() > 0)) fail("zero length");
    }
}

}  // namespace arbolito
