#pragma once
// Cells drawn by code rather than read from SWC.
#include <array>
#include <cstdint>

#include "model/morphology.hpp"

namespace arbolito {

// Soma: a cylinder along x from (0,0,0) to (d,0,0) of radius d/2 (the default d gives
// 500 µm²); dendrite from (d,0,0) to (d+L,0,0), attached at the soma's end.
Morphology ball_and_stick(double soma_diameter = 12.6157, double dend_length = 200, double dend_radius = 0.5);

// Arbor's busyring benchmark cell (example/busyring, branch_cell): `depth` levels of
// dendrites along z, each kept with probability interpolated from branch_probs, split
// into round(compartments) segments of total length `lengths` (both interpolated
// linearly from level 0 to level depth-1).
struct BusyringParams {
    unsigned depth = 10;
    std::array<double, 2> branch_probs{1.0, 0.5};
    std::array<double, 2> compartments{20, 2};
    std::array<double, 2> lengths{200, 20};
};

// Deterministic in gid (std::mt19937 seeded with it). Throws std::invalid_argument on
// lengths <= 0, compartments that round to < 1 or exceed max_busyring_compartments, or
// an expected size beyond max_busyring_segments (busyring_expected_shape).
Morphology busyring_cell(std::uint64_t gid, const BusyringParams& p);

// The expected number of dendrite segments and of sections (runs of `compartments`
// segments) of a busyring cell over the random branching, computed without drawing:
// level i holds 2·bp_i times as many sections as level i−1 (bp clamped to [0, 1]).
struct BusyringShape {
    double segments = 0, sections = 0;
};
BusyringShape busyring_expected_shape(const BusyringParams& p);

// Bounds that keep one cell's construction finite (a depth of 64 with branch-probs 1
// would ask for 2^64 sections; compartments 4e9 overflow the segment count).
inline constexpr double max_busyring_compartments = 1e6;
inline constexpr double max_busyring_segments = 1e6;

}  // namespace arbolito
