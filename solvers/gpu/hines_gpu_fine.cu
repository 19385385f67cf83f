#include "solvers/gpu/hines_gpu_fine.hpp"

#include <stdexcept>
#include <string>

#include "solvers/gpu/fine_block.cuh"
#include "core/gpu/shared_memory_limit.hpp"

namespace arbolito::gpu {

namespace {

using Block = FineSchedule::Block;
using Level = FineSchedule::Level;

// One block's solve with its schedule s: D, U, R and the scratch staged in shared memory
// (in shared mode) or used where they lie in device memory.
template <int Ahead>
__device__ __forceinline__ void solve_block(const Block& B, const FineBlockSchedule& s, double* sm, double* d,
                                            const double* u, double* rhs, double* fold, double* edd_h) {
    const int t = threadIdx.x, nt = blockDim.x, n = B.n_cv;
    if (B.in_shared) {
        double* D = sm;
        double* U = sm + n;
        double* R = sm + 2 * n;
        for (int i = t; i < n; i += nt) {
            D[i] = d[B.first_cv + i];
            U[i] = u[B.first_cv + i];
            R[i] = rhs[B.first_cv + i];
        }
        __syncthreads();
        solve_block_schedule<Ahead>(s, D, U, R, sm + 3 * n, sm + 3 * n + FineSchedule::fold_doubles(B));
        for (int i = t; i < n; i += nt) rhs[B.first_cv + i] = R[i];
    } else {
        __syncthreads();
        solve_block_schedule<Ahead>(s, d + B.first_cv, u + B.first_cv, rhs + B.first_cv, fold + B.fold0,
                                    edd_h + B.first_cv);
    }
}

// Shared memory of a block: in shared mode D, U, R and the folds (doubles), then the
// block's schedule (ints), so that the level loop's bookkeeping costs no device-memory
// latency (a chain of dependent loads per level otherwise). A schedule too large for it
// is read from device memory. The two cases are separate calls, not one schedule chosen
// at run time: the compiler then knows the shared one's loads are shared-memory loads
// (one chosen at run time made every schedule load generic: the solve of busyring 1,024
// cells took 164 us a step instead of 105 on the H100).
template <int Ahead>
__global__ void fine_solve_kernel(const Block* __restrict__ blocks, const Level* __restrict__ levels,
                                  const int* __restrict__ pos_base, const int* __restrict__ length,
                                  const int* __restrict__ parent_cv, const int* __restrict__ child_begin,
                                  const int* __restrict__ child, const int* __restrict__ distal_cv,
                                  const int* __restrict__ up_run, const int* __restrict__ junction_kids,
                                  const int* __restrict__ run_order, double* __restrict__ d,
                                  const double* __restrict__ u,
                                  double* __restrict__ rhs, double* __restrict__ fold, double* __restrict__ edd_h,
                                  long shared_limit) {
    extern __shared__ double sm[];
    const Block B = blocks[blockIdx.x];
    if ((B.in_shared ? FineSchedule::data_bytes(B) : 0) + FineSchedule::schedule_bytes(B) <= shared_limit) {
        int* si = reinterpret_cast<int*>(
            sm + (B.in_shared ? 3 * B.n_cv + FineSchedule::fold_doubles(B) + FineSchedule::h_doubles(B) : 0));
        const FineBlockSchedule s =
            load_fine_schedule(B, si, levels, pos_base, length, parent_cv, child_begin, child, distal_cv, up_run,
                               junction_kids, run_order);
        solve_block<Ahead>(B, s, sm, d, u, rhs, fold, edd_h);
    } else {
        const FineBlockSchedule s =
            device_fine_schedule(B, levels, pos_base, length, parent_cv, child_begin, child, distal_cv, up_run,
                                 junction_kids, run_order);
        solve_block<Ahead>(B, s, sm, d, u, rhs, fold, edd_h);
    }
}

}  // namespace

GpuFinePlan make_gpu_fine_plan(const FineSchedule& s, int ahead) {
    check_fine_schedule(s);
    GpuFinePlan p;
    p.n_blocks = s.n_blocks();
    const int optin = device_shape().shared_optin;
    // A block whose schedule does not fit beside its data reads it from device memory
    // (the kernel makes the same test against optin).
    p.shared_limit = optin;
    for (const auto& b : s.blocks) {
        p.threads = std::max(p.threads, b.threads);
        const long data = b.in_shared ? FineSchedule::data_bytes(b) : 0;
        const long with_schedule = data + FineSchedule::schedule_bytes(b);
        p.shared_bytes = std::max<long>(p.shared_bytes, with_schedule <= optin ? with_schedule : data);
    }
    if (p.shared_bytes > optin)
        throw std::invalid_argument("gpu-fine: a block needs " + std::to_string(p.shared_bytes) +
                                    " bytes of shared memory, the device offers " + std::to_string(optin) +
                                    " (use smaller blocks, or memory=device)");
    if (ahead != 4 && ahead != 8) throw std::invalid_argument("gpu-fine: rows ahead must be 4 or 8");
    p.ahead = s.edd() ? edd_solve : ahead;
    for (auto* k : {fine_solve_kernel<4>, fine_solve_kernel<8>, fine_solve_kernel<edd_solve>})
        raise_dynamic_shared_limit(k, std::max(p.shared_bytes, 1));
    p.blocks = DeviceArray<Block>(s.blocks);
    p.levels = DeviceArray<Level>(s.levels);
    p.pos_base = DeviceArray<int>(s.pos_base);
    p.length = DeviceArray<int>(s.length);
    p.parent_cv = DeviceArray<int>(s.parent_cv);
    p.child_begin = DeviceArray<int>(s.child_begin);
    p.child = DeviceArray<int>(s.child);
    p.distal_cv = DeviceArray<int>(s.distal_cv);
    p.up_run = DeviceArray<int>(s.up_run);
    p.junction_kids = DeviceArray<int>(s.junction_kids);
    p.run_order = DeviceArray<int>(s.run_order);
    p.fold = DeviceArray<double>(s.fold_size());
    if (s.edd()) p.edd_h = DeviceArray<double>(s.blocks.back().first_cv + s.blocks.back().n_cv);
    return p;
}

void gpu_fine_solve(const GpuFinePlan& p, double* d, const double* u, double* rhs, cudaStream_t stream) {
    if (p.n_blocks == 0) return;
    auto kernel = p.ahead == 4 ? fine_solve_kernel<4> : p.ahead == 8 ? fine_solve_kernel<8> : fine_solve_kernel<edd_solve>;
    kernel<<<p.n_blocks, p.threads, p.shared_bytes, stream>>>(
        p.blocks.data(), p.levels.data(), p.pos_base.data(), p.length.data(), p.parent_cv.data(), p.child_begin.data(),
        p.child.data(), p.distal_cv.data(), p.up_run.data(), p.junction_kids.data(), p.run_order.data(), d, u, rhs,
        p.fold.data(), p.edd_h.data(), p.shared_limit);
    CUDA_CHECK_LAUNCH();
}

}  // namespace arbolito::gpu
