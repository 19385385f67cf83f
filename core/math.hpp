#pragma once
// The few functions the per-CV physics calls besides + - * /, for one value (double, both
// backends) and, on the host, for Lanes<W> (W values side by side, the CPU's SIMD path;
// core/lanes.hpp). A mechanism is written once as a template over its value type and
// calls them as math::exp, math::fabs, math::log, math::pow, math::square,
// math::quotient (a / b), math::select. exp and log are the project's own
// (core/exp_log.hpp): the same bits on the host, in every SIMD lane and on the GPU. pow
// is the library's (glibc's on the host, CUDA's on the device); x^2 is math::square, x * x
// on both (the host's compiler turns pow(x, 2.0) into that product, CUDA's pow does not
// always give its bits).
#include <cmath>

#include "core/exp_log.hpp"
#include "core/hd.hpp"

namespace arbolito::math {

ARB_HD double exp(double x) { return exp_log::exp(x); }
ARB_HD double fabs(double x) { return std::fabs(x); }
ARB_HD double log(double x) { return exp_log::log(x); }
#ifdef __CUDA_ARCH__
// CUDA's pow and its correctly rounded quotient, one copy each that callers call (as
// exp and log, core/exp_log.hpp): inlined at every call they made the resident kernel's
// code outgrow the instruction cache.
__device__ __noinline__ inline double pow_call(double x, double y) { return ::pow(x, y); }
__device__ __noinline__ inline double quotient_call(double a, double b) { return a / b; }
#endif
ARB_HD double pow(double x, double y) {
#ifdef __CUDA_ARCH__
    return pow_call(x, y);
#else
    return std::pow(x, y);
#endif
}
// a / b, for the translated mechanisms' quotients of computed values.
ARB_HD double quotient(double a, double b) {
#ifdef __CUDA_ARCH__
    return quotient_call(a, b);
#else
    return a / b;
#endif
}
ARB_HD double square(double x) { return x * x; }
// Both values are computed (as in every SIMD lane); c chooses one.
ARB_HD double select(bool c, double a, double b) { return c ? a : b; }

}  // namespace arbolito::math

#ifndef __CUDACC__
#include "core/lanes.hpp"
#endif
