#pragma once
// a - b c with the product rounded, then the difference: the host's arithmetic (its code is
// built with -ffp-contract=off) on the device too, where nvcc would otherwise fuse the two
// into one multiply-add (--fmad=true, its default) and round once. The GPU solvers' sweeps
// use these where the serial Hines solve (hines.hpp) multiplies and subtracts, so that
// they give its bits (tests/unit/test_solver_bits.cpp). The host side of a .cu file is
// compiled with -ffp-contract=off too (CMakeLists.txt).
#include "core/hd.hpp"

namespace arbolito {

// b c, rounded, never fused into a later add.
ARB_HD double product(double b, double c) {
#ifdef __CUDA_ARCH__
    return __dmul_rn(b, c);
#else
    return b * c;
#endif
}

// a - b c: the product rounded, then the difference.
ARB_HD double minus_product(double a, double b, double c) {
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, __dmul_rn(b, c));
#else
    return a - b * c;
#endif
}

// The same in float (the benchmarks' single-precision kernels).
ARB_HD float product(float b, float c) {
#ifdef __CUDA_ARCH__
    return __fmul_rn(b, c);
#else
    return b * c;
#endif
}

ARB_HD float minus_product(float a, float b, float c) {
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, __fmul_rn(b, c));
#else
    return a - b * c;
#endif
}

}  // namespace arbolito
