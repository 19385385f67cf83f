#pragma once
// Every mechanism, listed once. The list's order is the order in which currents are
// added to the matrix on both backends: appending keeps every existing result's bits.
#include "mechanisms/exp2syn.hpp"
#include "mechanisms/expsyn.hpp"
#include "mechanisms/hh.hpp"
#include "mechanisms/iclamp.hpp"
#include "mechanisms/mech_list.hpp"
#include "mechanisms/pas.hpp"

namespace arbolito {

using all_mechanisms = mech_list<hh, pas, expsyn, exp2syn, iclamp>;

constexpr int n_mechanisms = all_mechanisms::size;
template <class M>
constexpr int mech_index = all_mechanisms::index_of<M>();

}  // namespace arbolito
