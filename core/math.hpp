#pragma once
// The few functions the per-CV physics calls besides + - * /, for one value (double, both
// backends) and, on the host, for Lanes<W> (W values side by side, the CPU's SIMD path;
// core/lanes.hpp). A mechanism is written once as a template over its value type and
// calls them as math::exp, math::fabs, math::log, math::pow, math::select.
#include <cmath>

#include "core/hd.hpp"

namespace arbolito::math {

ARB_HD double exp(double x) { return std::exp(x); }
ARB_HD double fabs(double x) { return std::fabs(x); }
ARB_HD double log(double x) { return std::log(x); }
ARB_HD double pow(double x, double y) { return std::pow(x, y); }
// Both values are computed (as in every SIMD lane); c chooses one.
ARB_HD double select(bool c, double a, double b) { return c ? a : b; }

}  // namespace arbolito::math

#ifndef __CUDACC__
#include "core/lanes.hpp"
#endif
