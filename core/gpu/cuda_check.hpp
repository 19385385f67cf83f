#pragma once
// Every CUDA runtime call and every kernel launch is checked: a failure throws
// std::runtime_error naming the file, the line and CUDA's own message.
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace arbolito::gpu {

[[noreturn]] inline void cuda_fail(cudaError_t e, const char* what, const char* file, int line) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                             cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
    if (e != cudaSuccess) cuda_fail(e, what, file, line);
}

}  // namespace arbolito::gpu

#define CUDA_CHECK(call) ::arbolito::gpu::cuda_check((call), #call, __FILE__, __LINE__)

namespace arbolito::gpu {

// What kernel sizing depends on of the current device, queried once per device and thread.
struct DeviceShape {
    int sms = 0, l2_bytes = 0;
    int shared_optin = 0;     // bytes of shared memory a block may opt in to
    int shared_per_sm = 0;    // bytes of shared memory per multiprocessor
    int shared_reserved = 0;  // bytes the system reserves per block
};
inline DeviceShape device_shape() {
    thread_local std::vector<DeviceShape> known;
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (dev >= static_cast<int>(known.size())) known.resize(dev + 1);
    DeviceShape& d = known[dev];
    if (d.sms == 0) {
        CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&d.l2_bytes, cudaDevAttrL2CacheSize, dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&d.shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&d.shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&d.shared_reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    }
    return d;
}

}  // namespace arbolito::gpu
// After a <<<...>>> launch: launch-configuration errors show at once (cudaGetLastError);
// errors while the kernel runs show at the next synchronising call, itself checked.
#define CUDA_CHECK_LAUNCH() ::arbolito::gpu::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
