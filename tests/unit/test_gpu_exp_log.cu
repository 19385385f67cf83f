// math::exp and math::log (core/exp_log.hpp) on the device give the host's bits: the
// samples of tests/support/exp_log_samples.hpp (the physics' ranges, the whole domain,
// random bit patterns, the special values) computed by a kernel against the host's
// values from exp_log_host.cpp (compiled with the host code's flags). NaN against NaN.
// Skipped on a machine without a GPU.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "core/math.hpp"
#include "tests/support/exp_log_samples.hpp"
#include "tests/support/gpu_skip.hpp"
#include "tests/support/on_device.cuh"

using namespace arbolito;
using test_support::on_device;

namespace {

__global__ void exp_kernel(const double* x, double* r, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = math::exp(x[i]);
}

__global__ void log_kernel(const double* x, double* r, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = math::log(x[i]);
}

// exp(x) - 1 (the rates' vtrap) and log(x) + 0.5: nvcc fuses a product with the addition
// that follows it, so an exp whose last operation were a plain product would, inlined
// into this, round once less on the device than on the host.
__global__ void exp_minus_one_kernel(const double* x, double* r, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = math::exp(x[i]) - 1.0;
}

__global__ void log_plus_half_kernel(const double* x, double* r, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = math::log(x[i]) + 0.5;
}


std::uint64_t bits(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

// The number of values whose bits differ (NaN equals NaN); prints the first few.
std::size_t count_differing(const char* what, const std::vector<double>& x, const std::vector<double>& host,
                            const std::vector<double>& device) {
    std::size_t differ = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if ((std::isnan(host[i]) && std::isnan(device[i])) || bits(host[i]) == bits(device[i])) continue;
        if (++differ <= 5)
            std::printf("%s(%.17g): host %.17g, device %.17g\n", what, x[i], host[i], device[i]);
    }
    std::printf("[ info     ] %s: %zu values, %zu with other bits\n", what, x.size(), differ);
    return differ;
}

}  // namespace

TEST(GpuExpLog, DeviceGivesTheHostsBits) {
    SKIP_WITHOUT_GPU();
    const int n = 1000000;
    const std::vector<double> xe = test_exp_log::exp_inputs(n), xl = test_exp_log::log_inputs(n);
    EXPECT_EQ(0u, count_differing("exp", xe, test_exp_log::host_exp(xe), on_device(exp_kernel, xe)));
    EXPECT_EQ(0u, count_differing("log", xl, test_exp_log::host_log(xl), on_device(log_kernel, xl)));
}

TEST(GpuExpLog, CallersAdditionsDoNotFuseIntoThem) {
    SKIP_WITHOUT_GPU();
    const int n = 200000;
    const std::vector<double> xe = test_exp_log::exp_inputs(n), xl = test_exp_log::log_inputs(n);
    std::vector<double> he = test_exp_log::host_exp(xe), hl = test_exp_log::host_log(xl);
    for (double& v : he) v -= 1.0;
    for (double& v : hl) v += 0.5;
    EXPECT_EQ(0u, count_differing("exp - 1", xe, he, on_device(exp_minus_one_kernel, xe)));
    EXPECT_EQ(0u, count_differing("log + 0.5", xl, hl, on_device(log_plus_half_kernel, xl)));
}
