#pragma once
// A CUDA device made current for a scope: an object that lives on one device (a GPU cell
// group) is called from several host threads (its own, the exchange's, the main one), and
// the current device is per thread. The caller's device is restored on leaving.
#include <cuda_runtime.h>

#include "core/gpu/cuda_check.hpp"

namespace arbolito::gpu {

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
        int now = 0;
        CUDA_CHECK(cudaGetDevice(&now));
        if (now == device) return;
        CUDA_CHECK(cudaSetDevice(device));
        if (restore_ < 0) restore_ = now;
    }
    // For a destructor: no throw; where the device cannot be made current, the frees that
    // follow fail quietly as they would anyway.
    void enter_quietly(int device) noexcept {
        int now = 0;
        if (cudaGetDevice(&now) != cudaSuccess || now == device || cudaSetDevice(device) != cudaSuccess) {
            cudaGetLastError();
            return;
        }
        if (restore_ < 0) restore_ = now;
    }

private:
    int restore_ = -1;  // the device to make current again; -1: none
};

}  // namespace arbolito::gpu
