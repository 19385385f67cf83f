#pragma once
// Where a cell's drawn synapses (CellDesc::drawn_synapses) sit, and the walk over all of
// a cell's synapses in target order: the listed ones, then the drawn ones.
#include <cstddef>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace arbolito {

// Site k of `d` on `m`: a point uniform in arc length over the whole cell, every branch
// (the soma's included) weighted by its length. u_k = the top 53 bits of
// splitmix64(splitmix64(seed) + k) / 2^53 in [0, 1) picks the arc-length position
// u_k · L (L: the branches' total length, branches in index order); its branch is the
// one whose arc holds it, x its fraction of that branch. Site k depends on (seed, k)
// alone: the same on every machine and library. Throws std::invalid_argument where the
// cell has no length.
std::vector<Location> drawn_synapse_sites(const DrawnSynapses& d, const Morphology& m);

// f(k, where, mechanism, params) for every synapse of c on its shape m, k = target number.
template <class F>
void for_each_synapse(const CellDesc& c, const Morphology& m, F&& f) {
    std::size_t k = 0;
    for (const Placement& p : c.synapses) f(k++, p.where, p.mechanism, p.params);
    if (c.drawn_synapses.count == 0) return;
    for (const Location& where : drawn_synapse_sites(c.drawn_synapses, m))
        f(k++, where, c.drawn_synapses.mechanism, c.drawn_synapses.params);
}

}  // namespace arbolito
