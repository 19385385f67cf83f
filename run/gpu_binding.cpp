#include "run/gpu_binding.hpp"

#include <algorithm>
#include <stdexcept>

#ifdef ARBOLITO_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace arbolito {

GpuBinding bind_gpus(int visible, int local_rank, int local_size, const GpuRequest& request) {
    if (visible < 1) throw std::invalid_argument("no CUDA device to bind");
    if (request.first_device >= visible)
        throw std::invalid_argument("GPU " + std::to_string(request.first_device) + " is not visible: this process sees " +
                                    std::to_string(visible) + " (devices 0 to " + std::to_string(visible - 1) + ")");
    const int ranks = std::max(1, local_size), rank = std::max(0, local_rank);
    const int per_rank = request.gpus > 0 ? request.gpus : std::max(1, visible / ranks);
    GpuBinding b;
    int first = 0;
    if (request.first_device >= 0) {
        first = request.first_device;
        b.why = "first device given";
    } else {
        first = static_cast<int>((static_cast<long>(rank) * per_rank) % visible);
        b.why = "local rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " on the node, " +
                std::to_string(visible) + " visible";
    }
    for (int g = 0; g < per_rank; ++g) b.devices.push_back((first + g) % visible);
    if (per_rank > visible) b.why += "; " + std::to_string(per_rank) + " groups share them";
    return b;
}

int visible_gpus() {
#ifdef ARBOLITO_HAVE_CUDA
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();  // no driver or no device: clear the error, answer none
        return 0;
    }
    return n;
#else
    return 0;
#endif
}

std::string describe_gpu(int device) {
    std::string s = std::to_string(device);
#ifdef ARBOLITO_HAVE_CUDA
    cudaDeviceProp p{};
    char bus[32] = {};
    if (cudaGetDeviceProperties(&p, device) == cudaSuccess &&
        cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess)
        return s + " (" + p.name + ", PCI " + bus + ")";
    cudaGetLastError();
#endif
    return s;
}

}  // namespace arbolito
