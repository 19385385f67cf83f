#pragma once
// One cell's part of its group's state (CellGroup::state()) in an order that does not
// depend on the solver's CV numbering or on where the cell sits in its group: two copies
// of a cell in different groups (or solvers) list their values in the same order, so a
// state can move from one to the other (parallel in time, parareal/parareal.hpp).
#include <cstddef>
#include <vector>

#include "lowered_cell/fvm_data.hpp"

namespace arbolito {

// For every cell of the group, the positions in CellGroup::state() of its values: v of its
// CVs in natural order, then per mechanism (all_mechanisms order) and state, its instances
// by natural CV (instances on one CV in group order).
std::vector<std::vector<std::size_t>> cell_state_positions(const FvmData& f);

// What each value of a cell's list (cell_state_positions' order) is: v (mech = -1) or
// state `state` of mechanism `mech` (all_mechanisms index), at natural CV `cv`; `point`
// for a point mechanism's, with its synapse (target) number on the cell where it is one
// (else -1). Lets a state move between two discretisations of one cell
// (parareal/cell_coarsening.hpp).
struct StateValue {
    int mech = -1, state = 0, cv = 0, synapse = -1;
    bool point = false;
};
std::vector<std::vector<StateValue>> cell_state_values(const FvmData& f);

// The values at `positions` of `state`, appended to `out`; and the reverse, reading
// positions.size() values of `from` from `offset` on.
void gather_state(const std::vector<double>& state, const std::vector<std::size_t>& positions, std::vector<double>& out);
void scatter_state(const std::vector<double>& from, std::size_t offset, const std::vector<std::size_t>& positions,
                   std::vector<double>& state);

}  // namespace arbolito
