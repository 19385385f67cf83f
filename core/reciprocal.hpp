#pragma once
// 1 / x for the GPU solvers' pivots. On the device: the hardware's approximate reciprocal
// refined by two Newton steps, within one ulp of 1.0 / x for normal x (the pivots of
// diagonally dominant systems are). Plain `1.0 / x` compiles to a fast path plus a
// branch to a division subroutine, and (measured) the sweeps then took a whole memory
// latency per row whatever their prefetch depth; this has no branch and no call.
// On the host: 1.0 / x.
#include <cmath>

#include "core/hd.hpp"

namespace arbolito::gpu {

// One Newton step from r ~ 1 / x: its relative error squared (e = 1 - x r, then r + r e).
ARB_HD double newton_step(double r, double x) { return fma(r, fma(-x, r, 1.0), r); }

// 1 / x within about 2^-23: the hardware's approximation alone, for a caller that takes
// the Newton steps itself where they wait on nothing (fine_sweeps.hpp). On the host:
// 1.0 / x.
ARB_HD double reciprocal_approx(double x) {
#ifdef __CUDA_ARCH__
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    return r;
#else
    return 1.0 / x;
#endif
}

ARB_HD double reciprocal(double x) {
#ifdef __CUDA_ARCH__
    return newton_step(newton_step(reciprocal_approx(x), x), x);  // 2^-23, 2^-46, then rounding
#else
    return 1.0 / x;
#endif
}

// 1 / x within about 2^-46 from one Newton step: enough for divide_by, whose correction
// step squares the quotient's error (the correctly rounded quotient but in rare cases,
// GpuReciprocal.DivideRoundsAsDivision), one Newton step (two dependent FMAs) shorter on
// the sweeps' serial chains than reciprocal. On the host: 1.0 / x.
ARB_HD double reciprocal_once(double x) {
#ifdef __CUDA_ARCH__
    return newton_step(reciprocal_approx(x), x);
#else
    return 1.0 / x;
#endif
}

// a / b from r = reciprocal_once(b) already at hand (the branch sweeps' row quotients: f, g and h
// of a normalised row share one reciprocal): the quotient and one correction step, one
// rounding where r * a made two. Per solve, the fold's and EDD's errors then match the
// serial Hines solve's (BranchLayout.QuotientsRoundOnce), and whole runs come closer to
// the CPU's (bench/HISTORY.md, "one rounding per quotient"). On the host: a / b.
ARB_HD double divide_by(double a, double b, double r) {
#ifdef __CUDA_ARCH__
    const double q = a * r;
    return fma(fma(-q, b, a), r, q);
#else
    (void)r;
    return a / b;
#endif
}

// a / b for a serial chain on the device: the reciprocal, the quotient, and one correction
// step (the residual a - q b, exact in a fused multiply-add, times the reciprocal): the
// correctly rounded quotient but in rare ties, with no branch to the division subroutine,
// whose call held each junction of EDD's chain (measured on the H100, bench/HISTORY.md).
// On the host: a / b.
ARB_HD double divide(double a, double b) { return divide_by(a, b, reciprocal_once(b)); }

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

// divide_by and divide in float: the reciprocal above (one Newton step) and one correction
// step. On the host: a / b.
ARB_HD float reciprocal_once(float x) { return reciprocal(x); }
ARB_HD float divide_by(float a, float b, float r) {
#ifdef __CUDA_ARCH__
    const float q = a * r;
    return fmaf(fmaf(-q, b, a), r, q);
#else
    (void)r;
    return a / b;
#endif
}
ARB_HD float divide(float a, float b) { return divide_by(a, b, reciprocal_once(b)); }

}  // namespace arbolito::gpu
