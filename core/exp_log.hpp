#pragma once
// exp and log for one double, written so that the host (GCC, -ffp-contract=off) and the
// device (nvcc, which contracts a * b + c into a fused multiply-add unless told not to)
// compute the same bits: every multiply-add is an explicit fused one (fma), every other
// product is a multiply that is never fused (mul_rn), and the integer work on the bits
// is the same on both. The CUDA and glibc library functions differ in the last bit for
// some inputs, and spikes amplify that into the voltages; with these both backends run
// one exp and one log. No branches (selects only), so that a loop over SIMD lanes
// calling them vectorises (core/lanes.hpp). Host builds without FMA hardware
// (-march without it) get a correct but slow library fma.
//
// Accuracy against glibc (nearly correctly rounded), measured by test_exp_log.cpp: within
// one ulp over the physics' ranges and over random bit patterns.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/hd.hpp"

// Inlined into every caller in the host's own translation units, so that the lane loops
// see the body (at -O2 GCC would otherwise call it per lane; the host side of a .cu file
// calls it, at set-up only). On the device one copy that its callers call: the
// resident kernel holds every channel of a catalogue, and with a copy of exp and log at
// each of their calls it held more code than the instruction cache keeps (the Allen
// channels' kernel: 2.4 MB, 30 % of its warps' cycles waiting for instructions; with one
// copy 8.6 % faster; bench/HISTORY.md). The same bits.
#if defined(__CUDACC__)
#define ARB_EXP_LOG inline __host__ __device__ __noinline__
#elif !defined(__GNUC__)
#define ARB_EXP_LOG inline
#else
#define ARB_EXP_LOG inline __attribute__((always_inline))
#endif

namespace arbolito::exp_log {

ARB_HD double fma(double a, double b, double c) {
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}

// a * b rounded once, never fused with a following addition.
ARB_HD double mul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

ARB_HD std::uint64_t to_bits(double x) {
#ifdef __CUDA_ARCH__
    return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
#endif
}

ARB_HD double from_bits(std::uint64_t b) {
#ifdef __CUDA_ARCH__
    return __longlong_as_double(static_cast<long long>(b));
#else
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
#endif
}

// 1.5 * 2^52: added to a value of magnitude below 2^51, it leaves that value rounded to
// the nearest integer (ties to even) in the low bits of the sum's mantissa. Integers
// move between double and int64 this way (exact, and vectorisable without AVX-512's
// conversions).
constexpr double shifter = 0x1.8p52;
constexpr std::uint64_t shifter_bits = 0x4338000000000000ull;

// ln 2 as a double and the rest (ln 2 - ln2_hi, rounded); 1 / ln 2.
constexpr double ln2_hi = 0x1.62e42fefa39efp-1;
constexpr double ln2_lo = 0x1.abc9e3b39803fp-56;
constexpr double inv_ln2 = 0x1.71547652b82fep+0;

// e^x. x = k ln2 + r with k = round(x / ln2), |r| <= ln2 / 2 (r from the two-part ln 2,
// the first product exact inside the fma); e^r by its Taylor series to r^13 (the next
// term is below 4e-18 of the result); e^x = e^r 2^k with 2^k built from bits in two
// halves where 2^k is not a normal number, so that each half is: products are exact where
// the result is normal, round once into the subnormals and give 0 and +inf past them.
// Beyond [-746, 710]: 0 and +inf by selects; NaN gives NaN through the arithmetic.
ARB_EXP_LOG double exp(double x) {
    const double t = fma(x, inv_ln2, shifter);
    const double kd = t - shifter;
    const std::int64_t k = static_cast<std::int64_t>(to_bits(t) - shifter_bits);
    double r = fma(kd, -ln2_hi, x);
    r = fma(kd, -ln2_lo, r);
    // (e^r - 1 - r - r^2/2) / r^3 = sum of r^(n-3) / n! for n = 3 to 13, by Estrin's scheme
    // (pairs, then pairs of pairs: a shorter chain of dependent operations than Horner's),
    // then three Horner steps for the leading terms, whose rounding the result feels.
    const double r2 = mul_rn(r, r), r4 = mul_rn(r2, r2), r8 = mul_rn(r4, r4);
    const double a0 = fma(0x1.5555555555555p-5, r, 0x1.5555555555555p-3);  // 1/4!, 1/3!
    const double a1 = fma(0x1.6c16c16c16c17p-10, r, 0x1.1111111111111p-7); // 1/6!, 1/5!
    const double a2 = fma(0x1.a01a01a01a01ap-16, r, 0x1.a01a01a01a01ap-13); // 1/8!, 1/7!
    const double a3 = fma(0x1.27e4fb7789f5cp-22, r, 0x1.71de3a556c734p-19); // 1/10!, 1/9!
    const double a4 = fma(0x1.1eed8eff8d898p-29, r, 0x1.ae64567f544e4p-26); // 1/12!, 1/11!
    const double a5 = 0x1.6124613a86d09p-33;                                // 1/13!
    const double b0 = fma(a1, r2, a0), b1 = fma(a3, r2, a2), b2 = fma(a5, r2, a4);
    double p = fma(b2, r8, fma(b1, r4, b0));
    p = fma(p, r, 0.5);
    p = fma(p, r, 1.0);  // (e^r - 1) / r
    const double er = fma(p, r, 1.0);
    // 2^k where it is normal; else (k in [-1077, 1025] for x in [-746, 710]) in two halves.
    const double scaled = mul_rn(er, from_bits(static_cast<std::uint64_t>(k + 1023) << 52));
    const std::int64_t k1 = k >> 1, k2 = k - k1;  // arithmetic shift: floor(k / 2)
    const double s1 = from_bits(static_cast<std::uint64_t>(k1 + 1023) << 52);
    const double s2 = from_bits(static_cast<std::uint64_t>(k2 + 1023) << 52);
    double res = k >= -1022 && k <= 1023 ? scaled : mul_rn(mul_rn(er, s1), s2);
    // Beyond [-746, 710] k is meaningless (and x * inv_ln2 may pass the shifter's range):
    // the results are 0 and +inf there. NaN gives NaN through the arithmetic.
    res = x > 710.0 ? INFINITY : res;
    res = x < -746.0 ? 0.0 : res;
    return res;
}

// Natural logarithm. Subnormal x is scaled by 2^52 first. x = 2^e m with m in
// [sqrt(1/2), sqrt(2)) (the split from the bits), f = m - 1 (exact), s = f / (2 + f), so
// that ln m = ln((1 + s) / (1 - s)) = 2s + 2s^3/3 + 2s^5/5 + ... with |s| <= 0.1716 (the
// series to s^21; the next term is below 3e-19 of the result). Written as
// f - (f^2/2 - s (f^2/2 + R)), R = 2s^2/3 + 2s^4/5 + ..., which equals the series since
// s (2 + f) = f: the leading terms come from f without the rounded division.
// ln x = e ln2_hi + (that + e ln2_lo), the first product exact inside the last fma.
// log(0) = -inf, log(x < 0) = NaN, log(NaN) = NaN, log(+inf) = +inf.
ARB_EXP_LOG double log(double x) {
    const bool subnormal = x < 0x1p-1022;  // also 0, negative and -inf: replaced below
    const double xs = subnormal ? mul_rn(x, 0x1p52) : x;
    const std::uint64_t ix = to_bits(xs);
    // The exponent of x relative to sqrt(1/2)'s (arithmetic shift of the signed difference).
    const std::uint64_t rel = ix - 0x3fe6a09e667f3bcdull;
    const std::int64_t e = (static_cast<std::int64_t>(rel) >> 52) - (subnormal ? 52 : 0);
    const double m = from_bits(ix - (static_cast<std::uint64_t>(static_cast<std::int64_t>(rel) >> 52) << 52));
    const double ed = from_bits(shifter_bits + static_cast<std::uint64_t>(e)) - shifter;  // e as a double, exactly
    const double f = m - 1.0;
    const double s = f / (2.0 + f);
    const double z = mul_rn(s, s);
    // R / z = sum of 2 z^(n-1) / (2n+1) for n = 1 to 10, by Estrin's scheme.
    const double z2 = mul_rn(z, z), z4 = mul_rn(z2, z2), z8 = mul_rn(z4, z4);
    const double a0 = fma(0x1.999999999999ap-2, z, 0x1.5555555555555p-1);  // 2/5, 2/3
    const double a1 = fma(0x1.c71c71c71c71cp-3, z, 0x1.2492492492492p-2);  // 2/9, 2/7
    const double a2 = fma(0x1.3b13b13b13b14p-3, z, 0x1.745d1745d1746p-3);  // 2/13, 2/11
    const double a3 = fma(0x1.e1e1e1e1e1e1ep-4, z, 0x1.1111111111111p-3);  // 2/17, 2/15
    const double a4 = fma(0x1.8618618618618p-4, z, 0x1.af286bca1af28p-4);  // 2/21, 2/19
    const double q = fma(a4, z8, fma(fma(a3, z2, a2), z4, fma(a1, z2, a0)));
    const double R = mul_rn(z, q);
    const double hfsq = mul_rn(mul_rn(0.5, f), f);
    const double tail = fma(s, hfsq + R, mul_rn(ed, ln2_lo));
    const double y = f - (hfsq - tail);
    double res = fma(ed, ln2_hi, y);
    res = x == INFINITY ? x : res;
    res = x == 0.0 ? -INFINITY : res;
    res = x >= 0.0 ? res : from_bits(0x7ff8000000000000ull);  // negative or NaN
    return res;
}

}  // namespace arbolito::exp_log
