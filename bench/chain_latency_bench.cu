// What one row of gpu-fine's branch sweeps costs on the device, by the SM's own clock: the
// dependent chains the resident kernel's solve is bound by (docs/gpu-backend.md, "What
// would go further"). Each case runs in one warp whose lanes are branches of one level
// (consecutive CVs at every position, as fine_layout places them), alone on the device
// (1 block) and with the device full (3 blocks per SM, as the resident step runs):
//   dfma      a chain of multiply-adds (the latency of one),
//   rcp       a chain of gpu::reciprocal (the hardware approximation and two Newton steps),
//   row       one elimination row in registers: 1/d, f = u/d, d' = dp - f*u,
//   backward  fine_sweeps::backward<8> on branches in shared memory (the production code),
//   forward   fine_sweeps::forward<8> likewise,
//   backward_dev, forward_dev      the same on branches in device memory (L1-cached: where
//                                  the resident step leaves what does not fit),
//   backward_peer, forward_peer    the same on branches in the shared memory of the other
//                                  block of a two-block cluster (Hopper's distributed shared
//                                  memory: a cell too large for one block's shared memory
//                                  spread over a cluster, the resident step's alternative).
// Cycles per link of the chain (median over the warps timed). Usage: chain_latency_bench
// [--rows 64]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cooperative_groups.h>

#include "core/gpu/cuda_check.hpp"
#include "core/gpu/memory.hpp"
#include "solvers/fine_sweeps.hpp"
#include "core/reciprocal.hpp"

using namespace arbolito;

namespace {

enum Case { dfma, rcp, row, backward, forward, backward_dev, forward_dev, backward_peer, forward_peer, n_cases };
const char* case_name[n_cases] = {"dfma",        "rcp",         "row",           "backward",    "forward",
                                  "backward_dev", "forward_dev", "backward_peer", "forward_peer"};
constexpr bool in_cluster(int c) { return c == backward_peer || c == forward_peer; }

// Branch arrays of one warp (D, U, R of n doubles each) with the bench's values.
__device__ void fill_branches(double* D, double* U, double* R, int n, int lane) {
    for (int i = lane; i < n; i += 32) D[i] = 4.0 + 1e-3 * (i % 7), U[i] = -1.0 - 1e-3 * (i % 5), R[i] = 1.0;
}

// The sweeps of lane k on D, U, R (wherever they are); returns a value of the result.
__device__ double sweep(bool back, int rows, int lane, const int* pos, const int* no_child, double* D, double* U,
                        double* R) {
    double fold[2];
    if (back) {
        fine_sweeps::backward<8>(0, lane, 0, pos, rows, no_child, no_child, D, U, R, fold, fold + 1);
        return fold[0];
    }
    fine_sweeps::forward<8>(lane, 0, pos, rows, -1, D, U, R);
    return R[(rows - 1) * 32 + lane];
}

// Lane k of each warp is branch k of a level of 32 branches, `rows` rows each: the CV at
// position i of branch k is i * 32 + k (pos[i] = i * 32). Thread 0 of each warp writes
// the warp's cycles per link to cycles[warp].
__global__ void chain_kernel(int which, int rows, double* cycles, double* sink, double* dev) {
    extern __shared__ double sm[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int n = rows * 32;
    double* D = sm + warp * 3 * n;
    double* U = D + n;
    double* R = U + n;
    __shared__ int pos[1024];
    __shared__ int no_child[2];
    for (int i = threadIdx.x; i < rows; i += blockDim.x) pos[i] = i * 32;
    if (threadIdx.x < 2) no_child[threadIdx.x] = 0;
    double* G = dev + (static_cast<long>(blockIdx.x) * warps + warp) * 3 * n;  // this warp's branches in device memory
    fill_branches(D, U, R, n, lane);
    fill_branches(G, G + n, G + 2 * n, n, lane);
    __syncthreads();
    double x = 1.0 + 1e-3 * lane, a = 0.999999, b = 1e-7, u = -1.0 - 1e-3 * lane, dp = 4.0;
    const long long t0 = clock64();
    switch (which) {
    case dfma:
        for (int i = 0; i < rows; ++i) x = fma(x, a, b);
        break;
    case rcp:
        for (int i = 0; i < rows; ++i) x = gpu::reciprocal(x);
        break;
    case row:
        for (int i = 0; i < rows; ++i) {
            const double inv = gpu::reciprocal(x), f = u * inv;
            x = dp - f * u;
        }
        break;
    case backward:
    case forward:
        x = sweep(which == backward, rows, lane, pos, no_child, D, U, R);
        break;
    case backward_dev:
    case forward_dev:
        x = sweep(which == backward_dev, rows, lane, pos, no_child, G, G + n, G + 2 * n);
        break;
    }
    const long long t1 = clock64();
    if (lane == 0) cycles[blockIdx.x * warps + warp] = double(t1 - t0) / rows;
    if (x == 12345.678) *sink = x;  // keeps the chain alive
}

// backward_peer, forward_peer: blocks in clusters of two; each sweeps the branches in the
// other's shared memory (both stay resident until both are done).
__global__ void __cluster_dims__(2, 1, 1) peer_kernel(int which, int rows, double* cycles, double* sink) {
    extern __shared__ double sm[];
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int n = rows * 32;
    __shared__ int pos[1024];
    __shared__ int no_child[2];
    for (int i = threadIdx.x; i < rows; i += blockDim.x) pos[i] = i * 32;
    if (threadIdx.x < 2) no_child[threadIdx.x] = 0;
    fill_branches(sm + warp * 3 * n, sm + warp * 3 * n + n, sm + warp * 3 * n + 2 * n, n, lane);
    cluster.sync();
    double* D = cluster.map_shared_rank(sm, cluster.block_rank() ^ 1) + warp * 3 * n;
    const long long t0 = clock64();
    const double x = sweep(which == backward_peer, rows, lane, pos, no_child, D, D + n, D + 2 * n);
    const long long t1 = clock64();
    cluster.sync();
    if (lane == 0) cycles[blockIdx.x * warps + warp] = double(t1 - t0) / rows;
    if (x == 12345.678) *sink = x;
}

}  // namespace

int main(int argc, char** argv) try {
    int rows = 64;  // 3 × 64 × 32 doubles: 48 KiB a block, three blocks per SM
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--rows" && i + 1 < argc) {
            rows = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "chain_latency_bench: unknown argument '%s' (usage: [--rows N], N in [8, 1024])\n",
                         a.c_str());
            return 2;
        }
    }
    if (rows < 8 || rows > 1024) {
        std::fprintf(stderr, "chain_latency_bench: --rows must be in [8, 1024]\n");
        return 2;
    }
    int device = 0, sms = 0, optin = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const int warps = 1, bytes = warps * 3 * rows * 32 * 8;  // one warp a block, as a level of one warp
    if (bytes > optin / 3) {
        std::fprintf(stderr, "chain_latency_bench: %d rows need %d bytes a block; at most %d (3 blocks per SM)\n", rows,
                     bytes, optin / 3);
        return 2;
    }
    CUDA_CHECK(cudaFuncSetAttribute(chain_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    CUDA_CHECK(cudaFuncSetAttribute(peer_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    gpu::DeviceArray<double> cycles(static_cast<std::size_t>(3 * sms * warps)), sink(1),
        dev(static_cast<std::size_t>(3 * sms * warps) * 3 * rows * 32);
    std::printf("case\tblocks\trows\tcycles_per_link_median\tmin\tmax\n");
    for (int blocks_asked : {1, 3 * sms}) {
        for (int c = 0; c < n_cases; ++c) {
            const int blocks = in_cluster(c) ? (blocks_asked + 1) / 2 * 2 : blocks_asked;  // whole clusters
            for (int rep = 0; rep < 2; ++rep) {  // the first warms up
                if (in_cluster(c))
                    peer_kernel<<<blocks, 32 * warps, bytes>>>(c, rows, cycles.data(), sink.data());
                else
                    chain_kernel<<<blocks, 32 * warps, bytes>>>(c, rows, cycles.data(), sink.data(), dev.data());
                CUDA_CHECK_LAUNCH();
                CUDA_CHECK(cudaDeviceSynchronize());
            }
            std::vector<double> v = cycles.download();
            v.resize(static_cast<std::size_t>(blocks * warps));
            std::sort(v.begin(), v.end());
            std::printf("%s\t%d\t%d\t%.1f\t%.1f\t%.1f\n", case_name[c], blocks, rows, v[v.size() / 2], v.front(),
                        v.back());
        }
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "chain_latency_bench: %s\n", e.what());
    return 1;
}
