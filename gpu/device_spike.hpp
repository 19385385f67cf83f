#pragma once
// A spike as the GPU step kernels append it; the group maps detectors to (gid, index).
#include <cstdint>

namespace arbolito::gpu {

struct DeviceSpike {
    double time;
    std::uint32_t detector;  // group-wide detector index
};

}  // namespace arbolito::gpu
