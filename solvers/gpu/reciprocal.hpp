#pragma once
// 1 / x for the GPU solvers' pivots. On the device: the hardware's approximate reciprocal
// refined by one third-order step, within one ulp of 1.0 / x for normal x (the pivots of
// diagonally dominant systems are). Plain `1.0 / x` compiles to a fast path plus a
// branch to a division subroutine, and (measured) the sweeps then took a whole memory
// latency per row whatever their prefetch depth; this has no branch and no call.
// On the host: 1.0 / x.
#include "core/hd.hpp"

namespace arbolito::gpu {

ARB_HD double reciprocal(double x) {
#ifdef __CUDA_ARCH__
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    // One third-order step: with e = 1 - x·r, 1/x = r·(1 + e + e² + ...); r·(1 + e + e²)
    // leaves e³ (about 2^-66 for the approximation's 2^-22), so the result is within
    // one ulp as two Newton steps' are, with three multiply-adds on the chain, not four.
    const double e = fma(-x, r, 1.0);
    return fma(r, fma(e, e, e), r);
#else
    return 1.0 / x;
#endif
}

// The same in float (the benchmarks' single-precision kernels): the approximate
// reciprocal (about 1 ulp) and one Newton step.
ARB_HD float reciprocal(float x) {
#ifdef __CUDA_ARCH__
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    const float e = fmaf(-x, r, 1.0f);
    return fmaf(r, e, r);
#else
    return 1.0f / x;
#endif
}

}  // namespace arbolito::gpu
