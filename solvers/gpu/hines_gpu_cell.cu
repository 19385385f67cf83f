#include "solvers/gpu/hines_gpu_cell.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "solvers/gpu/hines_cell_sweeps.hpp"

namespace arbolito::gpu {

const char* to_string(CellKernel k) {
    switch (k) {
    case CellKernel::plain: return "plain";
    case CellKernel::pipelined1: return "pipelined1";
    case CellKernel::pipelined2: return "pipelined2";
    case CellKernel::pipelined4: return "pipelined4";
    case CellKernel::resident: return "resident";
    case CellKernel::rowparent4: return "rowparent4";
    case CellKernel::rowparent8: return "rowparent8";
    case CellKernel::rowparent16: return "rowparent16";
    }
    return "?";
}

std::optional<CellKernel> cell_kernel_named(const std::string& name) {
    for (CellKernel k : all_cell_kernels)
        if (name == to_string(k)) return k;
    return std::nullopt;
}

namespace {

using namespace sweeps;

__global__ void cell_solve_plain(int n_slots, const int4* __restrict__ slot, const int* __restrict__ parent,
                                 double* __restrict__ d, const double* __restrict__ u, double* __restrict__ rhs) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n_slots) cell_plain(s, slot, parent, d, u, rhs);
}

template <int K>
__global__ void __launch_bounds__(128) cell_solve_pipelined(int n_slots, const int4* __restrict__ slot,
                                                            const int2* __restrict__ branch_range,
                                                            const int2* __restrict__ branch, double* __restrict__ d,
                                                            const double* __restrict__ u, double* __restrict__ rhs) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n_slots) cell_pipelined<K>(s, slot, branch_range, branch, d, u, rhs);
}

template <int S, bool Pad, class V>
__global__ void __launch_bounds__(128) cell_solve_rowparent(int n_slots, const int4* __restrict__ slot,
                                                            const unsigned short* __restrict__ dist,
                                                            V* __restrict__ d, const V* __restrict__ u,
                                                            V* __restrict__ rhs) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n_slots) cell_rowparent<S, Pad, V>(s, slot, dist, d, u, rhs);
}

// block-shared: CUDA block b solves layout block b (slots b*BS .. b*BS+BS-1, BS =
// blockDim.x, CVs base .. base + BS * padded - 1, position i of slot k at base + i*BS + k).
// The block's right-hand sides are copied into shared memory, the rowparent sweeps run on
// them there (d and u stay in device memory), and the result is copied back: rhs moves
// 16 B per CV through device memory instead of the 32 B of the streaming sweeps (rhs
// read, rhs' written and read back, x written). Every thread reads and writes only its
// own slot's column of the block, so no barrier is needed.
template <int S, bool Pad, class V>
__global__ void __launch_bounds__(128) cell_solve_block_shared(const int4* __restrict__ slot,
                                                               const unsigned short* __restrict__ dist,
                                                               V* __restrict__ d, const V* __restrict__ u,
                                                               V* __restrict__ rhs) {
    extern __shared__ unsigned char sh_bytes[];
    V* sh = reinterpret_cast<V*>(sh_bytes);
    const int bs = blockDim.x, k = threadIdx.x;
    const int4 sl = ld_ro(slot + static_cast<std::size_t>(blockIdx.x) * bs + k);
    const int base = sl.x - k;
    // Each thread copies its own slot's rows (position i at i * bs + k): a warp's lanes
    // touch consecutive addresses of a row, and a thread needs no barrier for its own
    // rows. Padding rows only where they are computed.
    const int rows = Pad ? sl.w : sl.z;
    for (int i = 0; i < rows; ++i) sh[i * bs + k] = rhs[base + i * bs + k];
    cell_rowparent_at<S, Pad, V>(make_int4(k, bs, sl.z, sl.w), dist + base, d + base, u + base, sh);
    for (int i = 0; i < rows; ++i) rhs[base + i * bs + k] = sh[i * bs + k];
}

// Warp w of W takes the warps' worth of slots w, w + W, ... (32 slots each); its lanes
// keep the pivots d' in rows of 32 at scratch + w * 32 * max_padded, reused from one batch
// to the next.
template <int K>
__global__ void cell_solve_resident(int n_slots, const int4* __restrict__ slot, const int2* __restrict__ branch_range,
                                    const int2* __restrict__ branch, double* __restrict__ d,
                                    const double* __restrict__ u, double* __restrict__ rhs, double* __restrict__ scratch,
                                    int max_padded) {
    const int lane = threadIdx.x & 31;
    const int w = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int W = static_cast<int>((gridDim.x * blockDim.x) >> 5);
    double* f_at = scratch + static_cast<std::size_t>(w) * 32 * max_padded + lane;
    for (int s = 32 * w + lane; s - lane < n_slots; s += 32 * W)
        if (s < n_slots) cell_pipelined<K, true>(s, slot, branch_range, branch, d, u, rhs, f_at, 32);
}

// What each kernel reads beyond the slots (a plan uploads only that).
bool reads_branch_list(CellKernel k) {
    return k == CellKernel::pipelined1 || k == CellKernel::pipelined2 || k == CellKernel::pipelined4 ||
           k == CellKernel::resident;
}
bool reads_dist(CellKernel k) {
    return k == CellKernel::rowparent4 || k == CellKernel::rowparent8 || k == CellKernel::rowparent16;
}

// A plan whose kernel was switched by hand must still hold that kernel's data.
void check_plan_data(const GpuCellPlan& p, CellKernel k) {
    const bool ok = reads_branch_list(k)   ? p.branch_range.size() == static_cast<std::size_t>(p.n_slots)
                    : reads_dist(k)        ? p.dist.size() > 0
                    : k == CellKernel::plain ? p.parent.size() > 0
                                             : true;
    if (!ok)
        throw std::logic_error(std::string("gpu-cell: the plan lacks what kernel ") + to_string(k) +
                               " reads; make it with make_gpu_cell_plan for that kernel");
}

}  // namespace

void set_resident(GpuCellPlan& plan, int warps_per_sm, int prefetch) {
    if (warps_per_sm < 1 || warps_per_sm > 32)
        throw std::invalid_argument("gpu-cell resident kernel: warps per SM must be in [1, 32]");
    if (prefetch != 8 && prefetch != 16)
        throw std::invalid_argument("gpu-cell resident kernel: prefetch must be 8 or 16");
    check_plan_data(plan, CellKernel::resident);
    const int sms = device_shape().sms;
    // One block per SM (the block scheduler spreads a first wave breadth-first); never more
    // warps than warps' worth of slots (rounded up: each warp loops over its slots, the
    // scratch is per warp, not per slot).
    const int warp_batches = std::max(1, (plan.n_slots + 31) / 32);
    plan.resident_blocks = std::max(1, std::min(sms, warp_batches / warps_per_sm));
    plan.resident_warps = std::max(1, std::min(warps_per_sm, warp_batches / plan.resident_blocks));
    plan.resident_prefetch = prefetch;
    plan.kernel = CellKernel::resident;
    plan.f_scratch = DeviceArray<double>(static_cast<std::size_t>(plan.resident_blocks) * plan.resident_warps * 32 *
                                         std::max(1, plan.max_padded));
}

CellSchedule cell_schedule(const Layout& l, const CellSlots& sl) {
    const std::size_t ns = sl.cell.size();
    if (sl.first.size() != ns || sl.stride.size() != ns || sl.size.size() != ns || sl.padded.size() != ns)
        throw std::invalid_argument("gpu-cell: slot arrays of different lengths (use gpu_cell_layout)");
    CellSchedule c;
    c.slot.resize(ns);
    c.branch_range.resize(ns);
    c.dist.assign(static_cast<std::size_t>(l.n_cv), 1);
    bool dist_fits = true;
    for (std::size_t s = 0; s < ns; ++s) {
        const int first = sl.first[s], stride = sl.stride[s];
        c.max_padded = std::max(c.max_padded, sl.padded[s]);
        c.slot[s] = make_int4(first, stride, sl.size[s], sl.padded[s]);
        c.branch_range[s].x = static_cast<int>(c.branch.size());
        for (int i = 1; i < sl.size[s]; ++i) {
            const int p = l.parent[first + i * stride];
            const int pi = (p - first) / stride;
            if (pi != i - 1) c.branch.push_back(make_int2(i, pi));
            if (i - pi > 65535) dist_fits = false;
            else c.dist[first + i * stride] = static_cast<unsigned short>(i - pi);
        }
        c.branch_range[s].y = static_cast<int>(c.branch.size());
    }
    if (!dist_fits) c.dist.clear();
    return c;
}

GpuCellPlan make_gpu_cell_plan(const Layout& l, const CellSlots& sl, std::optional<CellKernel> asked,
                               const CellPlanOptions& o) {
    return make_gpu_cell_plan(l, cell_schedule(l, sl), asked, o);
}

std::size_t shared_bytes_per_block() { return static_cast<std::size_t>(device_shape().shared_optin); }

int block_shared_auto(int rows, int value_bytes) {
    const std::size_t room = shared_bytes_per_block();
    for (int bs = 128; bs >= 1; bs /= 2)
        if (static_cast<std::size_t>(bs) * std::max(rows, 1) * value_bytes <= room) return bs;
    return 0;
}

namespace {

std::string kib(std::size_t bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f KiB", bytes / 1024.0);
    return b;
}

// block-shared's requirements on the numbering and the device (make_gpu_cell_plan's
// comment); returns BS.
int check_block_shared(const CellSchedule& c, CellKernel kernel) {
    if (!reads_dist(kernel))
        throw std::invalid_argument(std::string("gpu-cell: layout=block-shared runs the rowparent sweeps; kernel=") +
                                    to_string(kernel) + " is not one of them (rowparent4, rowparent8, rowparent16)");
    if (c.slot.empty()) return 1;
    const int bs = c.slot[0].y;
    for (std::size_t s = 0; s < c.slot.size(); ++s) {
        const int k = static_cast<int>(s % bs);
        const int4 first = c.slot[s - k];
        if (c.slot[s].y != bs || c.slot[s].x != first.x + k || c.slot[s].w != first.w || c.slot.size() % bs)
            throw std::invalid_argument("gpu-cell: layout=block-shared needs the block-interleaved numbering");
    }
    const std::size_t need = static_cast<std::size_t>(bs) * std::max(c.max_padded, 1) * sizeof(double);
    const std::size_t room = shared_bytes_per_block();
    if (need > room || bs > 128) {
        const int fits = block_shared_auto(c.max_padded);
        throw std::invalid_argument(
            "gpu-cell: layout=block-shared with block=" + std::to_string(bs) + ": " +
            (bs > 128 ? std::string("more than 128 threads per CUDA block")
                      : "the right-hand sides of a block of the largest cells (" + std::to_string(c.max_padded) +
                            " CVs) need " + kib(need) + " of shared memory, the device has " + kib(room) +
                            " per block") +
            (fits > 0 ? "; block=" + std::to_string(fits) + " or block=auto fits"
                      : "; not even one such cell fits: use layout=block-interleaved"));
    }
    return bs;
}

}  // namespace

GpuCellPlan make_gpu_cell_plan(const Layout& l, const CellSchedule& c, std::optional<CellKernel> asked,
                               const CellPlanOptions& o) {
    const CellKernel kernel = asked ? *asked : c.dist.empty() ? CellKernel::pipelined2 : CellKernel::rowparent8;
    if (o.padding == CellPadding::compute && kernel != CellKernel::plain && !reads_dist(kernel))
        throw std::invalid_argument(std::string("gpu-cell: padding=compute runs with kernel=plain or a rowparent "
                                                "kernel, not kernel=") + to_string(kernel));
    if (o.padding == CellPadding::stop && kernel == CellKernel::plain)
        throw std::invalid_argument("gpu-cell: kernel=plain always computes its padding rows (padding=stop: use a "
                                    "rowparent kernel)");
    GpuCellPlan plan;
    plan.compute_padding = o.padding == CellPadding::compute;
    if (o.block_shared) plan.shared_block = check_block_shared(c, kernel);
    plan.n_slots = static_cast<int>(c.slot.size());
    plan.kernel = kernel;
    plan.max_padded = c.max_padded;
    plan.slot = DeviceArray<int4>(c.slot);
    if (reads_branch_list(kernel)) {
        plan.branch_range = DeviceArray<int2>(c.branch_range);
        plan.branch = DeviceArray<int2>(c.branch);
    }
    if (kernel == CellKernel::plain) plan.parent = DeviceArray<int>(l.parent);
    if (reads_dist(kernel)) {
        if (c.dist.empty())
            throw std::invalid_argument("gpu-cell " + std::string(to_string(kernel)) +
                                        ": a CV's parent lies more than 65,535 rows before it; use pipelined2");
        plan.dist = DeviceArray<unsigned short>(c.dist);
    }
    if (kernel == CellKernel::resident) set_resident(plan, 2, 8);
    return plan;
}

namespace {

template <int S, bool Pad, class V>
void launch_rowparent(const GpuCellPlan& plan, V* d, const V* u, V* rhs, cudaStream_t stream) {
    if (plan.shared_block > 0) {
        const int bs = plan.shared_block;
        const std::size_t smem = static_cast<std::size_t>(bs) * plan.max_padded * sizeof(V);
        if (smem > 48 * 1024)
            CUDA_CHECK(cudaFuncSetAttribute(cell_solve_block_shared<S, Pad, V>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
        cell_solve_block_shared<S, Pad, V><<<plan.n_slots / bs, bs, smem, stream>>>(plan.slot.data(), plan.dist.data(),
                                                                                   d, u, rhs);
    } else {
        const int t = plan.threads;
        cell_solve_rowparent<S, Pad, V><<<(plan.n_slots + t - 1) / t, t, 0, stream>>>(
            plan.n_slots, plan.slot.data(), plan.dist.data(), d, u, rhs);
    }
    CUDA_CHECK_LAUNCH();
}

template <int S, class V>
void launch_rowparent(const GpuCellPlan& plan, V* d, const V* u, V* rhs, cudaStream_t stream) {
    if (plan.compute_padding) launch_rowparent<S, true, V>(plan, d, u, rhs, stream);
    else launch_rowparent<S, false, V>(plan, d, u, rhs, stream);
}

template <class V>
void rowparent_solve(const GpuCellPlan& plan, V* d, const V* u, V* rhs, cudaStream_t stream) {
    switch (plan.kernel) {
    case CellKernel::rowparent4: launch_rowparent<4, V>(plan, d, u, rhs, stream); break;
    case CellKernel::rowparent8: launch_rowparent<8, V>(plan, d, u, rhs, stream); break;
    case CellKernel::rowparent16: launch_rowparent<16, V>(plan, d, u, rhs, stream); break;
    default:
        throw std::invalid_argument(std::string("gpu-cell: kernel ") + to_string(plan.kernel) +
                                    " has no float or block-shared version (the rowparent kernels have)");
    }
}

}  // namespace

void gpu_cell_solve(const GpuCellPlan& plan, float* d, const float* u, float* rhs, cudaStream_t stream) {
    if (plan.n_slots == 0) return;
    check_plan_data(plan, plan.kernel);
    rowparent_solve(plan, d, u, rhs, stream);
}

void gpu_cell_solve(const GpuCellPlan& plan, double* d, const double* u, double* rhs, cudaStream_t stream) {
    if (plan.n_slots == 0) return;
    check_plan_data(plan, plan.kernel);
    const int t = plan.threads;
    const int blocks = (plan.n_slots + t - 1) / t;
    const int4* slot = plan.slot.data();
    const int2* range = plan.branch_range.data();
    const int2* bp = plan.branch.data();
    switch (plan.kernel) {
    case CellKernel::plain:
        cell_solve_plain<<<blocks, t, 0, stream>>>(plan.n_slots, slot, plan.parent.data(), d, u, rhs);
        break;
    case CellKernel::pipelined1:
        cell_solve_pipelined<1><<<blocks, t, 0, stream>>>(plan.n_slots, slot, range, bp, d, u, rhs);
        break;
    case CellKernel::pipelined2:
        cell_solve_pipelined<2><<<blocks, t, 0, stream>>>(plan.n_slots, slot, range, bp, d, u, rhs);
        break;
    case CellKernel::pipelined4:
        cell_solve_pipelined<4><<<blocks, t, 0, stream>>>(plan.n_slots, slot, range, bp, d, u, rhs);
        break;
    case CellKernel::rowparent4:
    case CellKernel::rowparent8:
    case CellKernel::rowparent16: rowparent_solve(plan, d, u, rhs, stream); return;
    case CellKernel::resident: {
        if (plan.resident_blocks == 0) throw std::logic_error("gpu_cell_solve: resident plan without set_resident");
        const int rt = 32 * plan.resident_warps;
        if (plan.resident_prefetch == 16)
            cell_solve_resident<16><<<plan.resident_blocks, rt, 0, stream>>>(plan.n_slots, slot, range, bp, d, u, rhs,
                                                                             plan.f_scratch.data(), plan.max_padded);
        else
            cell_solve_resident<8><<<plan.resident_blocks, rt, 0, stream>>>(plan.n_slots, slot, range, bp, d, u, rhs,
                                                                            plan.f_scratch.data(), plan.max_padded);
        break;
    }
    }
    CUDA_CHECK_LAUNCH();
}

}  // namespace arbolito::gpu
