#pragma once
// kernel(x, r, n) over every element of x on the device, its results back on the host:
// the element-wise GPU tests of a device function against the host's.
#include <vector>

#include "core/gpu/memory.hpp"

namespace arbolito::test_support {

inline std::vector<double> on_device(void (*kernel)(const double*, double*, int), const std::vector<double>& x) {
    gpu::DeviceArray<double> dx(x), dr(x.size());
    const int n = static_cast<int>(x.size());
    kernel<<<(n + 255) / 256, 256>>>(dx.data(), dr.data(), n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    return dr.download();
}

}  // namespace arbolito::test_support
