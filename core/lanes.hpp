#pragma once
// W doubles side by side in one SIMD register (or a few): the CPU backend's value type
// when it steps W cells, or W mechanism instances, at once. GCC/Clang vector
// extensions: + - * / and comparisons compile to the target's vector instructions (SSE2,
// AVX2, AVX-512, NEON) with no code per ISA; W = 1 is a plain double. Every operation is
// the scalar one lane by lane, with the same rounding, so a lane computes the same bits
// as the scalar code on its value (math::exp and log too: the lane loop calls the scalar,
// branch-free core/exp_log.hpp body, which GCC vectorises; pow calls std::pow per lane).
// Host only: the GPU runs one value per thread.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/exp_log.hpp"

// Wide vectors passed by value where the target's registers are narrower (Lanes<8> on
// AVX2) change the calling convention GCC warns about; these functions are all inline.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace arbolito {

// The vector types, spelled out per width (GCC does not apply vector_size to a type that
// depends on a template parameter); W = 1 is the plain scalar.
template <int W>
struct LaneTypes;
template <>
struct LaneTypes<1> {
    using vec = double;
    using bits = std::int64_t;
};
template <>
struct LaneTypes<2> {
    typedef double vec __attribute__((vector_size(16)));
    typedef std::int64_t bits __attribute__((vector_size(16)));
};
template <>
struct LaneTypes<4> {
    typedef double vec __attribute__((vector_size(32)));
    typedef std::int64_t bits __attribute__((vector_size(32)));
};
template <>
struct LaneTypes<8> {
    typedef double vec __attribute__((vector_size(64)));
    typedef std::int64_t bits __attribute__((vector_size(64)));
};

template <int W>
struct Lanes {
    using vec = typename LaneTypes<W>::vec;
    using bits = typename LaneTypes<W>::bits;
    using mask = decltype(vec{} < vec{});  // all ones where true (bool for W = 1)
    vec v;

    Lanes() = default;
    Lanes(double x) : v(vec{} + x) {}  // NOLINT: a number is every lane's value
    static Lanes from(vec x) {
        Lanes r;
        r.v = x;
        return r;
    }
    static Lanes load(const double* p) {
        Lanes r;
        std::memcpy(&r.v, p, sizeof r.v);
        return r;
    }
    void store(double* p) const { std::memcpy(p, &v, sizeof v); }
    // p[index[l]] in lane l.
    static Lanes gather(const double* p, const int* index) {
        Lanes r;
        for (int l = 0; l < W; ++l) r.set(l, p[index[l]]);
        return r;
    }
    // p[index[l]] = lane l, for distinct indices.
    void scatter(double* p, const int* index) const {
        for (int l = 0; l < W; ++l) p[index[l]] = (*this)[l];
    }
    // Lane l (vector types may be read and written through their element type).
    double operator[](int l) const { return reinterpret_cast<const double*>(&v)[l]; }
    void set(int l, double x) { reinterpret_cast<double*>(&v)[l] = x; }

    friend Lanes operator+(Lanes a, Lanes b) { return from(a.v + b.v); }
    friend Lanes operator-(Lanes a, Lanes b) { return from(a.v - b.v); }
    friend Lanes operator*(Lanes a, Lanes b) { return from(a.v * b.v); }
    friend Lanes operator/(Lanes a, Lanes b) { return from(a.v / b.v); }
    friend Lanes operator-(Lanes a) { return from(-a.v); }
    Lanes& operator+=(Lanes b) { return *this = *this + b; }
    Lanes& operator-=(Lanes b) { return *this = *this - b; }
    Lanes& operator*=(Lanes b) { return *this = *this * b; }
    friend mask operator<(Lanes a, Lanes b) { return a.v < b.v; }
    friend mask operator>(Lanes a, Lanes b) { return a.v > b.v; }
    friend mask operator<=(Lanes a, Lanes b) { return a.v <= b.v; }
    friend mask operator>=(Lanes a, Lanes b) { return a.v >= b.v; }
    friend mask operator==(Lanes a, Lanes b) { return a.v == b.v; }
    friend mask operator!=(Lanes a, Lanes b) { return a.v != b.v; }
};

namespace math {

// exp, log and pow: lane by lane, on the raw vector type and [[gnu::const]], so that GCC
// computes a repeated call once, as it does for the scalar body it inlines. The lane
// bodies are too long to inline; a Lanes argument (a struct, passed in memory) hid the
// repeats from GCC, and every repeat of exp(x) in a translated mechanism was a call of
// its own (NaV's advance: 16 calls for its 2 distinct rates). The vector type is passed
// in a register, where the target's registers are as wide.
namespace lane_calls {

template <int W>
[[gnu::const]] typename Lanes<W>::vec exp(typename Lanes<W>::vec x) {
    Lanes<W> r;
    const Lanes<W> a = Lanes<W>::from(x);
    for (int l = 0; l < W; ++l) r.set(l, exp_log::exp(a[l]));
    return r.v;
}

template <int W>
[[gnu::const]] typename Lanes<W>::vec log(typename Lanes<W>::vec x) {
    Lanes<W> r;
    const Lanes<W> a = Lanes<W>::from(x);
    for (int l = 0; l < W; ++l) r.set(l, exp_log::log(a[l]));
    return r.v;
}

template <int W>
[[gnu::const]] typename Lanes<W>::vec pow(typename Lanes<W>::vec x, typename Lanes<W>::vec y) {
    Lanes<W> r;
    const Lanes<W> a = Lanes<W>::from(x), b = Lanes<W>::from(y);
    for (int l = 0; l < W; ++l) r.set(l, std::pow(a[l], b[l]));
    return r.v;
}

}  // namespace lane_calls

template <int W>
Lanes<W> exp(Lanes<W> x) {
    return Lanes<W>::from(lane_calls::exp<W>(x.v));
}

template <int W>
Lanes<W> log(Lanes<W> x) {
    return Lanes<W>::from(lane_calls::log<W>(x.v));
}

template <int W>
Lanes<W> pow(Lanes<W> x, Lanes<W> y) {
    return Lanes<W>::from(lane_calls::pow<W>(x.v, y.v));
}

template <int W>
Lanes<W> quotient(Lanes<W> a, Lanes<W> b) {
    return a / b;
}

template <int W>
Lanes<W> square(Lanes<W> x) {
    return x * x;
}

template <int W>
Lanes<W> fabs(Lanes<W> x) {
    typename Lanes<W>::bits b;
    std::memcpy(&b, &x.v, sizeof b);
    b &= INT64_MAX;  // clears the sign bit, as std::fabs
    std::memcpy(&x.v, &b, sizeof b);
    return x;
}

template <int W>
Lanes<W> select(typename Lanes<W>::mask c, Lanes<W> a, Lanes<W> b) {
    return Lanes<W>::from(c ? a.v : b.v);
}

}  // namespace math

}  // namespace arbolito
