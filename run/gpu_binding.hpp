#pragma once
// Which CUDA devices a rank's GPU cell groups run on (docs/mpi.md, "GPUs and ranks"): one
// group per device it takes, the rank's cells split among them by CV count. A pure rule,
// so that it is tested without a GPU; the simulation applies it.
#include <string>
#include <vector>

namespace arbolito {

struct GpuRequest {
    int gpus = 0;          // groups (devices) for this rank; 0: the visible devices shared among the node's ranks
    int first_device = -1;  // the rank's first device; -1: from its local rank
};

struct GpuBinding {
    std::vector<int> devices;  // one per cell group, in gid order; a device may repeat (groups sharing it)
    std::string why;           // how the devices were chosen, for the log
};

// The devices of a rank that is local_rank of local_size ranks on a node with `visible`
// CUDA devices (visible >= 1). By default each rank takes visible / local_size devices (at
// least one): local rank r takes r·k, ..., r·k + k − 1, modulo the visible devices, so
// that `mpiexec -n 4` on 4 GPUs gives each rank its own, one process takes every GPU, and
// more ranks than GPUs share them round-robin. request.gpus groups are laid on
// consecutive devices from the first, modulo the visible ones: more groups than devices
// share them (two groups on one GPU: the tests' way to check several groups on one).
// Throws std::invalid_argument where first_device is not a visible device.
GpuBinding bind_gpus(int visible, int local_rank, int local_size, const GpuRequest& request);

// CUDA devices this process sees (0 without the CUDA backend or a usable device).
int visible_gpus();
// "0 (NVIDIA H100 80GB HBM3, PCI 0000:19:00.0)", for the log; just the number where the
// device cannot be asked.
std::string describe_gpu(int device);

}  // namespace arbolito
