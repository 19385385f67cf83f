#pragma once
// Every mechanism, listed once. The list's order is the order in which currents are
// added to the matrix on both backends: appending keeps every existing result's bits.
// The build appends ARBOLITO_EXTRA_MECHANISMS (cmake/arbolito_mechanisms.cmake: the
// ARBOLITO_MECHANISMS headers and the ion test mechanisms).
#include "arbolito_extra_mechanisms.hpp"
#include "mechanisms/exp2syn.hpp"
#include "mechanisms/expsyn.hpp"
#include "mechanisms/hh.hpp"
#include "mechanisms/iclamp.hpp"
#include "mechanisms/mech_list.hpp"
#include "mechanisms/pas.hpp"

namespace arbolito {

using all_mechanisms = mech_list<hh, pas, expsyn, exp2syn, iclamp ARBOLITO_EXTRA_MECHANISMS>;
constexpr int n_builtin_mechanisms = 5;  // the list's first ones: those above

constexpr int n_mechanisms = all_mechanisms::size;
template <class M>
constexpr int mech_index = all_mechanisms::index_of<M>();

}  // namespace arbolito
