#include "model/drawn_synapses.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace arbolito {

namespace {

// Vigna's splitmix64 finaliser: every input bit reaches every output bit.
std::uint64_t splitmix64(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

std::vector<Location> drawn_synapse_sites(const DrawnSynapses& d, const Morphology& m) {
    const std::size_t nb = m.branches.size();
    std::vector<double> length(nb), end(nb);  // end[b]: the arc length up to branch b's end
    double total = 0;
    std::size_t last = 0;  // the last branch with a length
    for (std::size_t b = 0; b < nb; ++b) {
        length[b] = m.branches[b].length();
        total += length[b];
        end[b] = total;
        if (length[b] > 0) last = b;
    }
    if (!(total > 0)) throw std::invalid_argument("drawn synapses: the cell (" + m.source + ") has no length to place them on");
    std::vector<Location> out(d.count);
    const std::uint64_t base = splitmix64(d.seed);
    for (std::uint32_t k = 0; k < d.count; ++k) {
        const double u = static_cast<double>(splitmix64(base + k) >> 11) * 0x1.0p-53;
        const double s = u * total;
        // The first branch ending past s (a zero-length branch never does); none where u · L
        // rounded up to L: then the end of the last branch.
        const auto it = std::upper_bound(end.begin(), end.end(), s);
        const std::size_t b = it == end.end() ? last : static_cast<std::size_t>(it - end.begin());
        const double x = (s - (b == 0 ? 0.0 : end[b - 1])) / length[b];
        out[k] = {static_cast<int>(b), std::clamp(x, 0.0, 1.0)};
    }
    return out;
}

}  // namespace arbolito
