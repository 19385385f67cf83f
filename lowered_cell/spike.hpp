#pragma once
#include <cstdint>

namespace arbolito {

// A threshold crossing of a cell's detector.
struct Spike {
    std::uint64_t gid = 0;    // cell (SONATA node id)
    std::uint32_t source = 0; // detector index on that cell
    double time = 0;          // ms

    friend bool operator==(const Spike& a, const Spike& b) {
        return a.gid == b.gid && a.source == b.source && a.time == b.time;
    }
};

}  // namespace arbolito
