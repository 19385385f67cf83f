#pragma once
// A CUDA device made current for a scope: an object that lives on one device (a GPU cell
// group) is called from several host threads (its own, the exchange's, the main one), and
// the current device is per thread. The caller's device is restored on leaving where the
// process works on it (device_in_use).
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

#include "core/gpu/cuda_check.hpp"

namespace arbolito::gpu {

// The devices this process has made current for its work (select_gpu, DeviceScope): those
// it holds a context on. cudaSetDevice creates the device's context (CUDA 12), so a scope
// restores a thread's earlier device only where it is one of these: a thread that never
// chose one reports device 0, and restoring 0 in a rank bound to another GPU put a context
// on GPU 0 that made that rank's steps 3.5 % slower (4 ranks on 4 H200s, bench/RESULTS.md).
inline std::atomic<std::uint64_t>& devices_in_use_mask() {
    static std::atomic<std::uint64_t> mask{0};
    return mask;
}
inline void note_device_in_use(int device) {
    if (device >= 0 && device < 64) devices_in_use_mask().fetch_or(std::uint64_t{1} << device);
}
inline bool device_in_use(int device) {
    return device >= 0 && device < 64 && ((devices_in_use_mask().load() >> device) & 1) != 0;
}

class DeviceScope {
public:
    DeviceScope() = default;  // inactive until enter()
    explicit DeviceScope(int device) { enter(device); }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;
    ~DeviceScope() {
        if (restore_ >= 0) cudaSetDevice(restore_);  // no throw from a destructor
    }
    void enter(int device) {
        note_device_in_use(device);
        int now = 0;
        CUDA_CHECK(cudaGetDevice(&now));
        if (now == device) return;
        CUDA_CHECK(cudaSetDevice(device));
        if (restore_ < 0 && device_in_use(now)) restore_ = now;
    }
    // For a destructor: no throw; where the device cannot be made current, the frees that
    // follow fail quietly as they would anyway.
    void enter_quietly(int device) noexcept {
        int now = 0;
        if (cudaGetDevice(&now) != cudaSuccess || now == device || cudaSetDevice(device) != cudaSuccess) {
            cudaGetLastError();
            return;
        }
        if (restore_ < 0 && device_in_use(now)) restore_ = now;
    }

private:
    int restore_ = -1;  // the device to make current again; -1: none
};

}  // namespace arbolito::gpu
