#pragma once
// One cell's part of its group's state (CellGroup::state()) in an order that does not
// depend on the solver's CV numbering or on where the cell sits in its group: two copies
// of a cell in different groups (or solvers) list their values in the same order, so a
// state can move from one to the other (parallel in time, engine/parareal.hpp).
#include <cstddef>
#include <vector>

#include "engine/fvm_data.hpp"

namespace arbolito {

// For every cell of the group, the positions in CellGroup::state() of its values: v of its
// CVs in natural order, then per mechanism (all_mechanisms order) and state, its instances
// by natural CV (instances on one CV in group order).
std::vector<std::vector<std::size_t>> cell_state_positions(const FvmData& f);

// The values at `positions` of `state`, appended to `out`; and the reverse, reading
// positions.size() values of `from` from `offset` on.
void gather_state(const std::vector<double>& state, const std::vector<std::size_t>& positions, std::vector<double>& out);
void scatter_state(const std::vector<double>& from, std::size_t offset, const std::vector<std::size_t>& positions,
                   std::vector<double>& state);

}  // namespace arbolito
