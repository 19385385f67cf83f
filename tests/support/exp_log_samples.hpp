#pragma once
// Inputs for core/exp_log.hpp's tests: evenly spaced over the ranges the physics uses and
// over the whole domain, random bit patterns (every exponent, NaNs and infinities among
// them) and the special values; and the host's results over them (exp_log_host.cpp,
// compiled with the host code's flags), for the GPU test to compare the device's with.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace arbolito::test_exp_log {

inline double from_bits(std::uint64_t b) {
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

inline void evenly(std::vector<double>& x, double lo, double hi, int n) {
    for (int i = 0; i <= n; ++i) x.push_back(lo + (hi - lo) * i / n);
}

// n + 1 points evenly spaced in ln x.
inline void log_spaced(std::vector<double>& x, double lo, double hi, int n) {
    const double a = std::log(lo), b = std::log(hi);
    for (int i = 0; i <= n; ++i) x.push_back(std::exp(a + (b - a) * i / n));
}

inline void random_bits(std::vector<double>& x, std::uint64_t seed, int n) {
    std::mt19937_64 gen(seed);
    for (int i = 0; i < n; ++i) x.push_back(from_bits(gen()));
}

inline const std::vector<double>& special_values() {
    static const std::vector<double> v = {0.0,
                                          -0.0,
                                          1.0,
                                          -1.0,
                                          std::numeric_limits<double>::infinity(),
                                          -std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<double>::quiet_NaN(),
                                          std::numeric_limits<double>::min(),
                                          std::numeric_limits<double>::denorm_min(),
                                          std::numeric_limits<double>::max(),
                                          std::numeric_limits<double>::lowest(),
                                          709.782712893384,
                                          709.7827128933841,
                                          -708.3964185322641,
                                          -745.1332191019411,
                                          -745.1332191019412,
                                          1e-300,
                                          -1e-300};
    return v;
}

// n points per range: exp's from -50 to 50 (the rates), over its whole finite range
// and into the overflow and underflow, random bit patterns.
inline std::vector<double> exp_inputs(int n) {
    std::vector<double> x = special_values();
    evenly(x, -50, 50, n);
    evenly(x, -746, 710, n);
    evenly(x, -1e-3, 1e-3, n / 10);
    random_bits(x, 1, n);
    return x;
}

// log's: 1e-7 to 1e3 (concentrations and their ratios, Nernst), subnormal to 1e300,
// [0.5, 2] (where ln x is smallest relative to x - 1), random bit patterns.
inline std::vector<double> log_inputs(int n) {
    std::vector<double> x = special_values();
    log_spaced(x, 1e-7, 1e3, n);
    log_spaced(x, std::numeric_limits<double>::denorm_min(), 1e300, n);
    evenly(x, 0.5, 2, n);
    random_bits(x, 2, n);
    return x;
}

// math::exp and math::log on the host, one value at a time (exp_log_host.cpp).
std::vector<double> host_exp(const std::vector<double>& x);
std::vector<double> host_log(const std::vector<double>& x);

}  // namespace arbolito::test_exp_log
