#include "solvers/gpu/thomas_batch.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/gpu/memory.hpp"
#include "solvers/gpu/loads.hpp"
#include "solvers/gpu/reciprocal.hpp"

namespace arbolito::gpu {

namespace {

// Forward elimination c'_i = c_i m_i, d'_i = (d_i - a_i d'_{i-1}) m_i with
// m_i = 1 / (b_i - a_i c'_{i-1}); back substitution x_i = d'_i - c'_i x_{i+1}.
// Inputs are read K rows ahead of use (nothing writes them before), so each lane keeps
// 4K loads in flight instead of waiting one memory latency per row. The K rows in
// registers rotate (loop unrolled K times, row i in slot i mod K, a compile-time index):
// shifting them would copy each value right after its load was issued, and a copy waits
// for the load. The last R rows of c', d' stay in shared memory: they are the first the
// back substitution needs, and each kept row saves two 8-byte stores and two loads of
// device memory.
//
// One system per call: s the system, sh this block's shared rows, t the lane's place in
// the block of T, row i of c' at cp[i * cps] (host-callable, so that the index logic can be
// checked without a GPU).
template <int K, bool Stream>
__host__ __device__ inline void thomas_system(int s, int t, int T, double* sh, const double* __restrict__ a,
                                              const double* __restrict__ b, const double* __restrict__ c,
                                              double* __restrict__ d, double* __restrict__ cp, std::size_t cps,
                                              int n, int nsys, int R) {
    const std::size_t N = static_cast<std::size_t>(nsys);
    double* sc = sh + t;  // row r of c' at sc[r * T]
    double* sd = sh + static_cast<std::size_t>(R) * T + t;
    const int g = n - R;                         // rows [0, g) go to device memory

    double ra[K], rb[K], rc[K], rd[K];
    auto load = [&](int k, int i) {
        if (i < n) {
            const std::size_t x = i * N + s;
            ra[k] = ld_input<Stream>(a + x), rb[k] = ld_input<Stream>(b + x), rc[k] = ld_input<Stream>(c + x), rd[k] = d[x];
        }
    };
#pragma unroll
    for (int k = 0; k < K; ++k) load(k, k);
    double cprev = 0.0, dprev = 0.0;
    for (int i0 = 0; i0 < n; i0 += K) {
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int i = i0 + r;
            if (i >= n) break;
            const double ai = i > 0 ? ra[r] : 0.0, bi = rb[r], ci = rc[r], di = rd[r];
            load(r, i + K);
            const double m = reciprocal(bi - ai * cprev);
            cprev = ci * m;
            dprev = (di - ai * dprev) * m;
            if (i < g) {
                cp[i * cps] = cprev;
                d[i * N + s] = dprev;
            } else {
                sc[(i - g) * T] = cprev;
                sd[(i - g) * T] = dprev;
            }
        }
    }
    // Back substitution: row n-1 is dprev; then the shared rows, then device memory.
    double xnext = dprev;
    d[(n - 1) * N + s] = xnext;
    for (int i = n - 2; i >= g; --i) {
        xnext = sd[(i - g) * T] - sc[(i - g) * T] * xnext;
        d[i * N + s] = xnext;
    }
    const int top = g < n - 1 ? g : n - 1;  // rows [0, top) still to do, from device memory
    double qc[K], qd[K];                     // row top-1-t in slot t % K
    auto load_back = [&](int k, int j) {
        if (j >= 0) qc[k] = cp[j * cps], qd[k] = d[j * N + s];
    };
#pragma unroll
    for (int k = 0; k < K; ++k) load_back(k, top - 1 - k);
    for (int t0 = 0; t0 < top; t0 += K) {
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int i = top - 1 - t0 - r;
            if (i < 0) break;
            const double ci = qc[r], di = qd[r];
            load_back(r, i - K);
            xnext = di - ci * xnext;
            d[i * N + s] = xnext;
        }
    }
}

template <int K>
__global__ void thomas_kernel(const double* __restrict__ a, const double* __restrict__ b,
                              const double* __restrict__ c, double* __restrict__ d, double* __restrict__ cp, int n,
                              int nsys, int R) {
    extern __shared__ double sh[];
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    // No barriers: lanes are independent and each uses only its own shared column.
    if (s < nsys) thomas_system<K, false>(s, threadIdx.x, blockDim.x, sh, a, b, c, d, cp + s, nsys, n, nsys, R);
}

// L2-resident: warp w of W loops over batches of 32 systems w, w + W, ...; its lanes keep
// c' in rows of 32 at scratch + w * 32 n (W * 32 <= nsys, so inside n * nsys doubles).
template <int K>
__global__ void thomas_resident_kernel(const double* __restrict__ a, const double* __restrict__ b,
                                       const double* __restrict__ c, double* __restrict__ d,
                                       double* __restrict__ scratch, int n, int nsys) {
    const int lane = threadIdx.x & 31;
    const int w = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int W = static_cast<int>((gridDim.x * blockDim.x) >> 5);
    double* cp = scratch + static_cast<std::size_t>(w) * 32 * n + lane;
    for (int s = 32 * w + lane; s - lane < nsys; s += 32 * W)
        if (s < nsys) thomas_system<K, true>(s, 0, 0, nullptr, a, b, c, d, cp, 32, n, nsys, 0);
}

template <int K>
void launch(const double* a, const double* b, const double* c, double* d, double* cp, int n, int nsys,
            const ThomasTuning& t, int sms, cudaStream_t stream) {
    if (t.resident_warps > 0) {
        // At most one block per SM (the block scheduler spreads a first wave breadth-first),
        // never more warps than whole batches of 32 systems (rounded down: the scratch
        // holds n x nsys values, so every lane's 32-row stripe must lie inside it).
        const int blocks = std::max(1, std::min(sms, nsys / 32));
        const int warps = std::max(1, std::min(t.resident_warps, nsys / 32 / blocks));
        thomas_resident_kernel<K><<<blocks, 32 * warps, 0, stream>>>(a, b, c, d, cp, n, nsys);
        CUDA_CHECK_LAUNCH();
        return;
    }
    const int R = t.smem_rows, T = t.threads;
    const std::size_t smem = 2 * sizeof(double) * static_cast<std::size_t>(R) * T;
    if (smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(thomas_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(smem)));
    const int blocks = (nsys + T - 1) / T;
    thomas_kernel<K><<<blocks, T, smem, stream>>>(a, b, c, d, cp, n, nsys, R);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace {

// The automatic choices, from bench/thomas_bench on an H100 (bench/RESULTS.md): with the
// rotating prefetch, shared-memory rows no longer pay (they cost occupancy); 4 resident
// warps per SM win where their scratch stays in L2 (64 unknowns: 1.3x cuSPARSE at 256,000
// systems; 512 unknowns x 2,560 systems: 1.6x the non-resident kernel) and lose where it
// cannot (512 x 256,000: 0.6x); small batches run one warp per block so that their few
// warps spread over every SM.
ThomasTuning resolve(const ThomasTuning& in, int n, int nsys, const DeviceShape& dev) {
    if (n < 0 || nsys < 0) throw std::invalid_argument("thomas_batch: negative size");
    ThomasTuning t = in;
    if (t.prefetch != 2 && t.prefetch != 4 && t.prefetch != 8 && t.prefetch != 16)
        throw std::invalid_argument("thomas_batch: prefetch must be 2, 4, 8 or 16, not " + std::to_string(t.prefetch));
    if (t.resident_warps < -1 || t.resident_warps > 32)
        throw std::invalid_argument("thomas_batch: resident_warps must be -1 (automatic), 0 (off) or 1..32");
    if (t.threads != 0 && (t.threads < 32 || t.threads > 1024 || t.threads % 32))
        throw std::invalid_argument("thomas_batch: threads per block must be 0 (automatic) or a multiple of 32 in "
                                    "[32, 1024]");
    const int sms = dev.sms;
    if (t.resident_warps == -1) {
        // Bytes of c' for the lanes that run at once: 4 warps per SM, or all systems.
        const double lanes = std::min(static_cast<double>(nsys), 32.0 * 4 * sms);
        t.resident_warps = 8.0 * n * lanes <= dev.l2_bytes / 3.0 ? 4 : 0;
    }
    if (nsys < 32) t.resident_warps = 0;
    if (t.threads == 0) t.threads = nsys < 32 * 4 * sms ? 32 : 64;
    t.smem_rows = t.resident_warps > 0 ? 0 : t.smem_rows < 0 ? std::min(n, 32) : std::min(t.smem_rows, n);
    if (2 * sizeof(double) * static_cast<std::size_t>(t.smem_rows) * t.threads > 200 * 1024)
        throw std::invalid_argument("thomas_batch: smem_rows x threads needs more than 200 KB of shared memory");
    return t;
}

}  // namespace

ThomasTuning thomas_resolve(const ThomasTuning& tuning, int n, int nsys) {
    return resolve(tuning, n, nsys, device_shape());
}

void thomas_batch(const double* a, const double* b, const double* c, double* d, double* scratch, int n, int nsys,
                  cudaStream_t stream, const ThomasTuning& tuning) {
    const DeviceShape dev = device_shape();
    const ThomasTuning t = resolve(tuning, n, nsys, dev);
    if (n == 0 || nsys == 0) return;
    switch (t.prefetch) {
    case 2: launch<2>(a, b, c, d, scratch, n, nsys, t, dev.sms, stream); break;
    case 4: launch<4>(a, b, c, d, scratch, n, nsys, t, dev.sms, stream); break;
    case 8: launch<8>(a, b, c, d, scratch, n, nsys, t, dev.sms, stream); break;
    default: launch<16>(a, b, c, d, scratch, n, nsys, t, dev.sms, stream); break;
    }
}

}  // namespace arbolito::gpu
