// The device's reciprocal (core/reciprocal.hpp), which every GPU solver's pivots
// use: within one ulp of the correctly rounded 1.0 / x over the normal range the pivots
// can take, and the same value every run; and gpu::divide, EDD's junction division (and,
// by divide_by, the branch sweeps' row quotients). Skipped on a machine without a GPU.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/gpu/memory.hpp"
#include "core/reciprocal.hpp"
#include "tests/support/gpu_skip.hpp"
#include "tests/support/on_device.cuh"

using namespace arbolito;
using test_support::on_device;

namespace {

__global__ void reciprocal_kernel(const double* x, double* r, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = gpu::reciprocal(x[i]);
}

__global__ void reciprocal_approx_kernel(const double* x, double* r, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = gpu::reciprocal_approx(x[i]);
}

__global__ void divide_kernel(const double* a, const double* b, double* q, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] = gpu::divide(a[i], b[i]);
}

std::vector<double> device_reciprocals(const std::vector<double>& x) { return on_device(reciprocal_kernel, x); }
std::vector<double> device_approx_reciprocals(const std::vector<double>& x) {
    return on_device(reciprocal_approx_kernel, x);
}

// Distance in ulps between two finite doubles of the same sign.
std::int64_t ulps_apart(double a, double b) {
    std::int64_t ia, ib;
    std::memcpy(&ia, &a, 8);
    std::memcpy(&ib, &b, 8);
    return ia > ib ? ia - ib : ib - ia;
}

}  // namespace

// Random mantissas at every binary exponent from 2^-1000 to 2^1000 (1/x stays normal),
// both signs, and the mantissas at the ends of a binade (1, 1 + ulp, 2 - ulp) where an
// approximation is most likely to slip.
TEST(GpuReciprocal, WithinOneUlpOfDivision) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 gen(2026);
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    std::vector<double> x;
    for (int e = -1000; e <= 1000; ++e) {
        for (int k = 0; k < 200; ++k) x.push_back(std::ldexp(mant(gen), e));
        for (double m : {1.0, std::nextafter(1.0, 2.0), std::nextafter(2.0, 1.0), 1.5, 1.0 + 1.0 / 3.0})
            x.push_back(std::ldexp(m, e));
    }
    const std::size_t half = x.size();
    for (std::size_t i = 0; i < half; ++i) x.push_back(-x[i]);
    const std::vector<double> r = device_reciprocals(x);
    std::int64_t worst = 0;
    std::size_t exact = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const std::int64_t d = ulps_apart(r[i], 1.0 / x[i]);
        worst = std::max(worst, d);
        exact += d == 0;
        ASSERT_LE(d, 1) << "x = " << x[i] << ": " << r[i] << " against " << 1.0 / x[i];
    }
    std::printf("[ info     ] %zu values: worst %lld ulp, %.4f %% correctly rounded\n", x.size(),
                static_cast<long long>(worst), 100.0 * exact / x.size());
    EXPECT_EQ(0, std::memcmp(r.data(), device_reciprocals(x).data(), r.size() * sizeof(double)));
}

// The sweeps' predicted reciprocals (fine_sweeps.hpp) scale each chunk's continuant by a
// power of two and rely on the hardware's approximation commuting with that scaling, so
// that where the chunks fall (4 or 8 rows ahead) changes no bit: approx(x 2^k) must be
// approx(x) 2^-k exactly, wherever both stay normal. Mantissas at random and at a
// binade's ends, exponents over the pivots' range and beyond, shifts of either sign.
TEST(GpuReciprocal, ApproximationCommutesWithPowersOfTwo) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 gen(14);
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    std::vector<double> base;
    for (int e = -200; e <= 200; e += 7) {
        for (int k = 0; k < 50; ++k) base.push_back(std::ldexp(mant(gen), e));
        for (double m : {1.0, std::nextafter(1.0, 2.0), std::nextafter(2.0, 1.0)}) base.push_back(std::ldexp(m, e));
    }
    const std::vector<double> r0 = device_approx_reciprocals(base);
    for (const int shift : {-300, -61, -1, 1, 9, 64, 300}) {
        std::vector<double> x(base.size());
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(base[i], shift);
        const std::vector<double> r = device_approx_reciprocals(x);
        for (std::size_t i = 0; i < x.size(); ++i)
            ASSERT_EQ(r[i], std::ldexp(r0[i], -shift)) << "x = " << base[i] << " * 2^" << shift;
    }
}

// gpu::divide (EDD's junction solve; divide_by, the same arithmetic, gives the branch
// sweeps' row quotients): reciprocal_once (one Newton step), the quotient and one
// correction step. Its claim: the correctly rounded a / b but in rare cases, never more than one ulp
// off. Random mantissas for both operands over exponents where the quotient stays normal
// (the junction rows' scale and far beyond), both signs, and a binade's ends; the same
// bits every run.
TEST(GpuReciprocal, DivideRoundsAsDivision) {
    SKIP_WITHOUT_GPU();
    std::mt19937_64 gen(77);
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    std::uniform_int_distribution<int> expo(-300, 300);
    std::vector<double> a, b;
    for (int k = 0; k < 400000; ++k) {
        a.push_back(std::ldexp(k % 2 ? mant(gen) : -mant(gen), expo(gen)));
        b.push_back(std::ldexp(k % 3 ? mant(gen) : -mant(gen), expo(gen)));
    }
    for (double m : {1.0, std::nextafter(1.0, 2.0), std::nextafter(2.0, 1.0), 1.5})
        for (double n : {1.0, std::nextafter(1.0, 2.0), std::nextafter(2.0, 1.0), 3.0}) a.push_back(m), b.push_back(n);
    const int n = static_cast<int>(a.size());
    const auto run = [&] {
        gpu::DeviceArray<double> da(a), db(b), dq(a.size());
        divide_kernel<<<(n + 255) / 256, 256>>>(da.data(), db.data(), dq.data(), n);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        return dq.download();
    };
    const std::vector<double> q = run();
    std::size_t exact = 0;
    for (int i = 0; i < n; ++i) {
        const double want = a[i] / b[i];
        const std::int64_t d = ulps_apart(q[i], want);
        exact += d == 0;
        ASSERT_LE(d, 1) << a[i] << " / " << b[i] << ": " << q[i] << " against " << want;
    }
    std::printf("[ info     ] %d quotients: %.5f %% correctly rounded\n", n, 100.0 * exact / n);
    EXPECT_GE(exact, static_cast<std::size_t>(0.999 * n)) << "the correction step should leave few off by one";
    EXPECT_EQ(0, std::memcmp(q.data(), run().data(), q.size() * sizeof(double)));
}
