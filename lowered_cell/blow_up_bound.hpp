#pragma once
// What counts as a blown-up voltage (checked once per epoch on both backends): not a
// number, or beyond ±1e9 mV. The bound is six orders of magnitude past any membrane
// potential and far inside float32's range (3.4e38), so the output, stored as float32,
// never holds an inf made from a huge but finite double (an iclamp of 1e300 nA).
#include <cmath>

#include "core/hd.hpp"

namespace arbolito {

constexpr double blow_up_mV = 1e9;

ARB_HD bool blown_up(double v) { return !(std::fabs(v) <= blow_up_mV); }  // NaN compares false

}  // namespace arbolito
