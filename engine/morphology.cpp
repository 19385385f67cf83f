#include "engine/morphology.hpp"

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
        const std::string where = "branch " + std::to_string(b);
        if ((b == 0) != (br.parent < 0)) throw std::invalid_argument(where + ": only branch 0 may be the root");
        if (br.parent >= static_cast<int>(b)) throw std::invalid_argument(where + ": parent must precede child");
        if (br.parent_x < 0 || br.parent_x > 1) throw std::invalid_argument(where + ": parent_x outside [0,1]");
        if (br.xyz.size() < 2 || br.xyz.size() != br.radius.size())
            throw std::invalid_argument(where + ": needs >= 2 points with one radius each");
        for (double r : br.radius)
            if (!(r > 0)) throw std::invalid_argument(where + ": radius must be > 0");
        if (!(br.length() > 0)) throw std::invalid_argument(where + ": zero length");
    }
}

}  // namespace arbolito
