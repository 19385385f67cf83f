#include "solvers/gpu/hines_gpu_cell.hpp"

#include <stdexcept>
#include <vector>

namespace arbolito::gpu {

const char* to_string(CellKernel k) {
    switch (k) {
    case CellKernel::plain: return "plain";
    case CellKernel::pipelined1: return "pipelined1";
    case CellKernel::pipelined2: return "pipelined2";
    case CellKernel::pipelined4: return "pipelined4";
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
// row of an interleaved layout; rows >= the lane's own size are skipped). Registers
// r*[k] hold row i-k. Row i's d and rhs are final once every child (all at positions
// > i) has been eliminated, so row i-1-K can be loaded at the end of step i: every
// update to it from steps >= i was either issued to memory before that load or falls on
// a row already in registers (parent within K positions; the common case is the chain
// parent i-1). Branch points with a parent further back use an atomic add whose result
// is unused (a fire-and-forget reduction: the lane need not wait for the parent row);
// the same thread's later load of that row sees it (same-address program order).
//
// The backward sweep leaves f_i = u_i/d'_i in d and rhs'_i/d'_i in rhs, so the forward
// sweep is x_i = rhs_i - f_i x_p: two loads per row, no u, no division. Its rows are
// prefetched K ahead too (nothing writes them before their own step), the chain parent
// is the previous x in a register, and a branch point's parent x is loaded as soon as it
// is written, long before it is needed.
template <int K>
__host__ __device__ inline void cell_pipelined(int s, const int4* __restrict__ slot,
                                               const int2* __restrict__ branch_range, const int2* __restrict__ branch,
                                               double* __restrict__ d, const double* __restrict__ u,
                                               double* __restrict__ rhs) {
    const int4 sl = ld_ro(slot + s);
    const int first = sl.x, stride = sl.y, n = sl.z, np = sl.w;
    if (n == 0) return;
    const int2 br = ld_ro(branch_range + s);
    constexpr int2 none = {-1, -1};

    double rd[K + 1], rr[K + 1], ru[K + 1];
#pragma unroll
    for (int k = 0; k <= K; ++k) {
        const int j = np - 1 - k;
        rd[k] = 1.0;
        rr[k] = 0.0;
        ru[k] = 0.0;
        if (j >= 0 && j < n) {
            const int x = first + j * stride;
            rd[k] = d[x];
            rr[k] = rhs[x];
            ru[k] = ld_ro(u + x);
        }
    }
    int e = br.y - 1;
    int2 bp = e >= br.x ? ld_ro(branch + e) : none;
    for (int i = np - 1; i > 0; --i) {
        if (i < n) {
            const double inv = 1.0 / rd[0];
            const double f = ru[0] * inv;
            const double df = f * ru[0], rf = f * rr[0];
            const int x = first + i * stride;
            d[x] = f;
            rhs[x] = rr[0] * inv;
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
                        rd[k] -= df;
                        rr[k] -= rf;
                    }
            } else {
                const int xp = first + p * stride;
                red_add(d + xp, -df);
                red_add(rhs + xp, -rf);
            }
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
            rd[k] = rd[k + 1];
            rr[k] = rr[k + 1];
            ru[k] = ru[k + 1];
        }
        const int j = i - 1 - K;
        if (j >= 0 && j < n) {
            const int x = first + j * stride;
            rd[K] = d[x];
            rr[K] = rhs[x];
            ru[K] = ld_ro(u + x);
        }
    }
    double xprev = rr[0] / rd[0];
    rhs[first] = xprev;

    // Forward sweep over the lane's own rows 1 .. n-1 (all lanes start at row 1 together).
    double ff[K], fr[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int j = 1 + k;
        ff[k] = 0.0;
        fr[k] = 0.0;
        if (j < n) {
            const int x = first + j * stride;
            ff[k] = d[x];
            fr[k] = rhs[x];
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
    for (int i = 1; i < n; ++i) {
        const double fi = ff[0], ri = fr[0];
#pragma unroll
        for (int k = 0; k + 1 < K; ++k) {
            ff[k] = ff[k + 1];
            fr[k] = fr[k + 1];
        }
        const int j = i + K;
        if (j < n) {
            const int x = first + j * stride;
            ff[K - 1] = d[x];
            fr[K - 1] = rhs[x];
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

template <int K>
__global__ void __launch_bounds__(128) cell_solve_pipelined(int n_slots, const int4* __restrict__ slot,
                                                            const int2* __restrict__ branch_range,
                                                            const int2* __restrict__ branch, double* __restrict__ d,
                                                            const double* __restrict__ u, double* __restrict__ rhs) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < n_slots) cell_pipelined<K>(s, slot, branch_range, branch, d, u, rhs);
}

}  // namespace

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
    }
    CUDA_CHECK_LAUNCH();
}

}  // namespace arbolito::gpu
