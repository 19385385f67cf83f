#include "solvers/gpu/hines_gpu_cell.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "solvers/gpu/reciprocal.hpp"

namespace arbolito::gpu {

const char* to_string(CellKernel k) {
    switch (k) {
    case CellKernel::plain: return "plain";
    case CellKernel::pipelined1: return "pipelined1";
    case CellKernel::pipelined2: return "pipelined2";
    case CellKernel::pipelined4: return "pipelined4";
    case CellKernel::resident: return "resident";
    }
    return "?";
}

namespace {

// Read-only loads through the non-coherent path on the device; the bodies below are also
// host-callable so that their index logic can be exercised without a GPU.
template <class T>
__host__ __device__ __forceinline__ T ld_ro(const T* p) {
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

// Loads of data read once (Stream): marked evict-first, so that they do not push the
// resident kernel's scratch out of L2.
template <bool Stream, class T>
__host__ __device__ __forceinline__ T ld_once(const T* p) {
#ifdef __CUDA_ARCH__
    if constexpr (Stream) return __ldcs(p);
#endif
    return *p;
}

// *p += v without waiting for the old value (a reduction, RED, on the device).
__host__ __device__ __forceinline__ void red_add(double* p, double v) {
#ifdef __CUDA_ARCH__
    atomicAdd(p, v);
#else
    *p += v;
#endif
}

// DESIGN §4 per slot, padding rows included (their d = 1, u = 0, rhs = 0 make them inert).
__host__ __device__ inline void cell_plain(int s, const int4* __restrict__ slot, const int* __restrict__ parent,
                                            double* __restrict__ d, const double* __restrict__ u,
                                            double* __restrict__ rhs) {
    const int4 sl = ld_ro(slot + s);
    const int first = sl.x, stride = sl.y, np = sl.w;
    if (np == 0) return;
    for (int i = np - 1; i > 0; --i) {
        const int x = first + i * stride;
        const int p = ld_ro(parent + x);
        const double ux = ld_ro(u + x);
        const double f = ux / d[x];
        d[p] -= f * ux;
        rhs[p] -= f * rhs[x];
    }
    rhs[first] /= d[first];
    for (int i = 1; i < np; ++i) {
        const int x = first + i * stride;
        rhs[x] = (rhs[x] - ld_ro(u + x) * rhs[ld_ro(parent + x)]) / d[x];
    }
}

__global__ void cell_solve_plain(int n_slots, const int4* __restrict__ slot, const int* __restrict__ parent,
                                 double* __restrict__ d, const double* __restrict__ u, double* __restrict__ rhs) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n_slots) cell_plain(s, slot, parent, d, u, rhs);
}

// The pipelined kernel, K rows of prefetch.
//
// Backward sweep, positions np-1 .. 1 (the warp's lanes share np, so they stay on one
// row of an interleaved layout; rows >= the lane's own size are skipped). K + 1 rows
// are in registers: row i and the K before it. Row i's d and rhs are final once every
// child (all at positions > i) has been eliminated, so row i-1-K can be loaded at the end
// of step i: every update to it from steps >= i was either issued to memory before that
// load or falls on a row already in registers (parent within K positions; the common
// case is the chain parent i-1). Branch points with a parent further back use an atomic
// add whose result is unused (a fire-and-forget reduction: the lane need not wait for
// the parent row); the same thread's later load of that row sees it (same-address
// program order).
//
// The register rows rotate instead of shifting: the loop is unrolled K + 1 times and
// step t keeps its row in slot t mod (K + 1), a compile-time index. Shifting (r[k] =
// r[k+1]) would copy each loaded value one step after its load was issued, and a copy
// waits for the load: one memory latency per row, whatever K (measured: about 650 ns
// per row with few warps per SM).
//
// The backward sweep leaves f_i = u_i/d'_i in d and rhs'_i/d'_i in rhs, so the forward
// sweep is x_i = rhs_i - f_i x_p: two loads per row, no u, no division. Its rows are
// prefetched K ahead too (nothing writes them before their own step), the chain parent
// is the previous x in a register, and a branch point's parent x is loaded as soon as it
// is written, long before it is needed.
//
// f of row i goes to f_at[i * f_stride]: in place of d (f_at = d + first, f_stride =
// stride), or in the resident kernel's scratch (Stream: d and u loaded evict-first).
template <int K, bool Stream = false>
__host__ __device__ inline void cell_pipelined(int s, const int4* __restrict__ slot,
                                               const int2* __restrict__ branch_range, const int2* __restrict__ branch,
                                               double* __restrict__ d, const double* __restrict__ u,
                                               double* __restrict__ rhs, double* f_at = nullptr, int f_stride = 0) {
    const int4 sl = ld_ro(slot + s);
    const int first = sl.x, stride = sl.y, n = sl.z, np = sl.w;
    if (n == 0) return;
    if (!f_at) f_at = d + first, f_stride = stride;
    const int2 br = ld_ro(branch_range + s);
    constexpr int2 none = {-1, -1};
    constexpr int S = K + 1;  // register rows; row np-1-t in slot t % S

    double rd[S], rr[S], ru[S];
    auto load = [&](int k, int j) {
        rd[k] = 1.0, rr[k] = 0.0, ru[k] = 0.0;
        if (j >= 0 && j < n) {
            const int x = first + j * stride;
            rd[k] = ld_once<Stream>(d + x);
            rr[k] = rhs[x];
            ru[k] = Stream ? ld_once<Stream>(u + x) : ld_ro(u + x);
        }
    };
#pragma unroll
    for (int k = 0; k < S; ++k) load(k, np - 1 - k);
    int e = br.y - 1;
    int2 bp = e >= br.x ? ld_ro(branch + e) : none;
    double xprev = 0.0;
    for (int t0 = 0; t0 < np; t0 += S) {
#pragma unroll
        for (int r = 0; r < S; ++r) {
            const int i = np - 1 - t0 - r;
            if (i == 0) xprev = rr[r] / rd[r];  // the root: its row is final now
            if (i <= 0) break;
            if (i < n) {
                const double inv = reciprocal(rd[r]);
                const double f = ru[r] * inv;
                const double df = f * ru[r], rf = f * rr[r];
                const int x = first + i * stride;
                f_at[i * f_stride] = f;
                rhs[x] = rr[r] * inv;
                int p = i - 1;
                if (i == bp.x) {
                    p = bp.y;
                    --e;
                    bp = e >= br.x ? ld_ro(branch + e) : none;
                }
                if (p >= i - K) {
#pragma unroll
                    for (int k = 1; k <= K; ++k)
                        if (p == i - k) {
                            rd[(r + k) % S] -= df;
                            rr[(r + k) % S] -= rf;
                        }
                } else {
                    const int xp = first + p * stride;
                    red_add(d + xp, -df);
                    red_add(rhs + xp, -rf);
                }
            }
            load(r, i - S);  // the row that takes this slot S steps on
        }
    }
    rhs[first] = xprev;

    // Forward sweep over the lane's own rows 1 .. n-1 (all lanes start at row 1 together);
    // row 1 + t in slot t % K.
    double ff[K], fr[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int j = 1 + k;
        ff[k] = 0.0;
        fr[k] = 0.0;
        if (j < n) {
            ff[k] = f_at[j * f_stride];
            fr[k] = rhs[first + j * stride];
        }
    }
    e = br.x;
    bp = e < br.y ? ld_ro(branch + e) : none;
    double xpar = 0.0;  // x of the next branch point's parent, once known
    bool have = false;
    if (bp.x >= 0 && bp.y == 0) {
        xpar = xprev;
        have = true;
    }
    for (int t0 = 0; t0 < n - 1; t0 += K) {
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int i = 1 + t0 + r;
            if (i >= n) break;
            const double fi = ff[r], ri = fr[r];
            const int j = i + K;
            if (j < n) {
                ff[r] = f_at[j * f_stride];
                fr[r] = rhs[first + j * stride];
            }
            double xp = xprev;
            if (i == bp.x) {
                xp = have ? xpar : rhs[first + bp.y * stride];
                ++e;
                bp = e < br.y ? ld_ro(branch + e) : none;
                have = false;
            }
            const double xi = ri - fi * xp;
            rhs[first + i * stride] = xi;
            xprev = xi;
            if (!have && bp.x >= 0 && bp.y <= i) {
                xpar = bp.y == i ? xi : rhs[first + bp.y * stride];
                have = true;
            }
        }
    }
}

template <int K>
__global__ void __launch_bounds__(128) cell_solve_pipelined(int n_slots, const int4* __restrict__ slot,
                                                            const int2* __restrict__ branch_range,
                                                            const int2* __restrict__ branch, double* __restrict__ d,
                                                            const double* __restrict__ u, double* __restrict__ rhs) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n_slots) cell_pipelined<K>(s, slot, branch_range, branch, d, u, rhs);
}

// Warp w of W takes the warps' worth of slots w, w + W, ... (32 slots each); its lanes
// keep f in rows of 32 at scratch + w * 32 * max_padded, reused from one batch to the next.
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

}  // namespace

void set_resident(GpuCellPlan& plan, int warps_per_sm, int prefetch) {
    if (warps_per_sm < 1 || warps_per_sm > 32)
        throw std::invalid_argument("gpu-cell resident kernel: warps per SM must be in [1, 32]");
    if (prefetch != 8 && prefetch != 16)
        throw std::invalid_argument("gpu-cell resident kernel: prefetch must be 8 or 16");
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    // One block per SM (the block scheduler spreads a first wave breadth-first); never more
    // warps than warps' worth of slots.
    const int warp_batches = std::max(1, (plan.n_slots + 31) / 32);
    plan.resident_blocks = std::max(1, std::min(sms, warp_batches / warps_per_sm));
    plan.resident_warps = std::max(1, std::min(warps_per_sm, warp_batches / plan.resident_blocks));
    plan.resident_prefetch = prefetch;
    plan.kernel = CellKernel::resident;
    plan.f_scratch = DeviceArray<double>(static_cast<std::size_t>(plan.resident_blocks) * plan.resident_warps * 32 *
                                         std::max(1, plan.max_padded));
}

GpuCellPlan make_gpu_cell_plan(const Layout& l, CellKernel kernel) {
    const std::size_t ns = l.slot_cell.size();
    if (l.slot_first.size() != ns || l.slot_stride.size() != ns || l.slot_size.size() != ns ||
        l.slot_padded.size() != ns)
        throw std::invalid_argument("make_gpu_cell_plan: layout has no per-slot schedule (use gpu_cell_layout)");
    GpuCellPlan plan;
    plan.n_slots = static_cast<int>(ns);
    plan.n_cv = l.n_cv;
    plan.kernel = kernel;
    std::vector<int4> slot(ns);
    std::vector<int2> range(ns);
    std::vector<int2> bps;
    for (std::size_t s = 0; s < ns; ++s) {
        const int first = l.slot_first[s], stride = l.slot_stride[s];
        plan.max_padded = std::max(plan.max_padded, l.slot_padded[s]);
        slot[s] = make_int4(first, stride, l.slot_size[s], l.slot_padded[s]);
        range[s].x = static_cast<int>(bps.size());
        for (int i = 1; i < l.slot_size[s]; ++i) {
            const int p = l.parent[first + i * stride];
            const int pi = (p - first) / stride;
            if (pi != i - 1) bps.push_back(make_int2(i, pi));
        }
        range[s].y = static_cast<int>(bps.size());
    }
    plan.n_branch_points = static_cast<long>(bps.size());
    plan.slot = DeviceArray<int4>(slot);
    plan.branch_range = DeviceArray<int2>(range);
    plan.branch = DeviceArray<int2>(bps);
    if (kernel == CellKernel::plain) plan.parent = DeviceArray<int>(l.parent);
    if (kernel == CellKernel::resident) set_resident(plan, 2, 8);
    return plan;
}

void gpu_cell_solve(const GpuCellPlan& plan, double* d, const double* u, double* rhs, cudaStream_t stream) {
    if (plan.n_slots == 0) return;
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
