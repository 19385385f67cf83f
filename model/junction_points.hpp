#pragma once
// The points of a cell where something is placed on a junction node (x = 0 or x = 1 of a
// branch): zero_area fold keeps those nodes (model/discretization.hpp).
#include <vector>

#include "model/model.hpp"

namespace arbolito {

// The synapses (listed and drawn), stimuli, detectors and single-point probes of c on its
// shape m that sit at a branch's x <= 0 or x >= 1; empty where c's policy keeps every
// zero-area node (nothing to keep then).
std::vector<Location> junction_points(const CellDesc& c, const Morphology& m);

}  // namespace arbolito
