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
// the block of T, row i of a, b, c, d at i * rs + s, row i of c' at cp[i * cps]
// (host-callable, so that the index logic can be checked without a GPU). The system has
// m real rows of n stored (m = n under padding=compute); w >= m is the most rows any lane
// of the warp has (its warp's maximum of m): the forward sweep stops at the lane's own m,
// and the back substitution walks rows w-2 .. 0 with every lane on the same row, a lane
// idle above its own, so that a warp's loads of one row stay contiguous.
template <int K, bool Stream, class V>
__host__ __device__ inline void thomas_system(int s, int t, int T, V* sh, const V* __restrict__ a,
                                              const V* __restrict__ b, const V* __restrict__ c, V* __restrict__ d,
                                              std::size_t rs, V* __restrict__ cp, std::size_t cps, int n, int m,
                                              int w, int R) {
    if (m <= 0) return;
    V* sc = sh + t;  // row r of c' at sc[r * T]
    V* sd = sh + static_cast<std::size_t>(R) * T + t;
    const int g = n - R;  // rows [0, g) go to device memory

    V ra[K], rb[K], rc[K], rd[K];
    auto load = [&](int k, int i) {
        if (i < m) {
            const std::size_t x = i * rs + s;
            ra[k] = ld_input<Stream>(a + x), rb[k] = ld_input<Stream>(b + x), rc[k] = ld_input<Stream>(c + x), rd[k] = d[x];
        }
    };
#pragma unroll
    for (int k = 0; k < K; ++k) load(k, k);
    V cprev = 0, dprev = 0;
    for (int i0 = 0; i0 < m; i0 += K) {
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int i = i0 + r;
            if (i >= m) break;
            const V ai = i > 0 ? ra[r] : V(0), bi = rb[r], ci = rc[r], di = rd[r];
            load(r, i + K);
            const V mi = reciprocal(bi - ai * cprev);
            cprev = ci * mi;
            dprev = (di - ai * dprev) * mi;
            if (i < g) {
                cp[i * cps] = cprev;
                d[i * rs + s] = dprev;
            } else {
                sc[(i - g) * T] = cprev;
                sd[(i - g) * T] = dprev;
            }
        }
    }
    // Back substitution: row m-1 is dprev; then the shared rows, then device memory.
    V xnext = dprev;
    d[(m - 1) * rs + s] = xnext;
    for (int i = m - 2; i >= g; --i) {
        xnext = sd[(i - g) * T] - sc[(i - g) * T] * xnext;
        d[i * rs + s] = xnext;
    }
    const int top = g < m - 1 ? g : m - 1;   // rows [0, top) still to do, from device memory
    const int topw = top + (w - m);          // the warp's first row (R = 0 where w > m)
    V qc[K], qd[K];                          // row topw-1-t in slot t % K
    auto load_back = [&](int k, int j) {
        if (j >= 0 && j < top) qc[k] = cp[j * cps], qd[k] = d[j * rs + s];
    };
#pragma unroll
    for (int k = 0; k < K; ++k) load_back(k, topw - 1 - k);
    for (int t0 = 0; t0 < topw; t0 += K) {
#pragma unroll
        for (int r = 0; r < K; ++r) {
            const int i = topw - 1 - t0 - r;
            if (i < 0) break;
            const V ci = qc[r], di = qd[r];
            load_back(r, i - K);
            if (i < top) {
                xnext = di - ci * xnext;
                d[i * rs + s] = xnext;
            }
        }
    }
}

// The rows system s has and the rows its warp walks: n and n, or with sizes its own
// (clamped to [0, n]) and the warp's largest. Every lane of the warp calls it (s past
// nsys included) before any of them branches off.
__device__ __forceinline__ int2 system_rows(int s, int nsys, int n, const int* sizes) {
    if (!sizes) return make_int2(n, n);
    const int m = s < nsys ? max(0, min(n, ld_ro(sizes + s))) : 0;
    return make_int2(m, __reduce_max_sync(0xffffffffu, m));
}

template <int K, class V>
__global__ void thomas_kernel(ThomasSystems<V> sys, V* __restrict__ cp, int n, int nsys, int R) {
    extern __shared__ unsigned char sh_bytes[];
    V* sh = reinterpret_cast<V*>(sh_bytes);
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    const int2 mw = system_rows(s, nsys, n, sys.sizes);  // blockDim: whole warps
    // No barriers: lanes are independent and each uses only its own shared column.
    if (s < nsys)
        thomas_system<K, false>(s, threadIdx.x, blockDim.x, sh, sys.a, sys.b, sys.c, sys.d, sys.row_stride, cp + s,
                                nsys, n, mw.x, mw.y, R);
}

// L2-resident: warp w of W loops over batches of 32 systems w, w + W, ...; its lanes keep
// c' in rows of 32 at scratch + w * 32 n (W * 32 <= nsys, so inside n * nsys values).
template <int K, class V>
__global__ void thomas_resident_kernel(ThomasSystems<V> sys, V* __restrict__ scratch, int n, int nsys) {
    const int lane = threadIdx.x & 31;
    const int w = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int W = static_cast<int>((gridDim.x * blockDim.x) >> 5);
    V* cp = scratch + static_cast<std::size_t>(w) * 32 * n + lane;
    for (int s = 32 * w + lane; s - lane < nsys; s += 32 * W) {
        const int2 mw = system_rows(s, nsys, n, sys.sizes);
        if (s < nsys)
            thomas_system<K, true, V>(s, 0, 0, nullptr, sys.a, sys.b, sys.c, sys.d, sys.row_stride, cp, 32, n, mw.x,
                                      mw.y, 0);
    }
}

template <int K, class V>
void launch(const ThomasSystems<V>& sys, V* cp, int n, int nsys, const ThomasTuning& t, int sms,
            cudaStream_t stream) {
    if (t.resident_warps > 0) {
        // At most one block per SM (the block scheduler spreads a first wave breadth-first),
        // never more warps than whole batches of 32 systems (rounded down: the scratch
        // holds n x nsys values, so every lane's 32-row stripe must lie inside it).
        const int blocks = std::max(1, std::min(sms, nsys / 32));
        const int warps = std::max(1, std::min(t.resident_warps, nsys / 32 / blocks));
        thomas_resident_kernel<K, V><<<blocks, 32 * warps, 0, stream>>>(sys, cp, n, nsys);
        CUDA_CHECK_LAUNCH();
        return;
    }
    const int R = t.smem_rows, T = t.threads;
    const std::size_t smem = 2 * sizeof(V) * static_cast<std::size_t>(R) * T;
    if (smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(thomas_kernel<K, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(smem)));
    const int blocks = (nsys + T - 1) / T;
    thomas_kernel<K, V><<<blocks, T, smem, stream>>>(sys, cp, n, nsys, R);
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
ThomasTuning resolve(const ThomasTuning& in, int n, int nsys, int value_bytes, const DeviceShape& dev) {
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
        t.resident_warps = double(value_bytes) * n * lanes <= dev.l2_bytes / 3.0 ? 4 : 0;
    }
    if (nsys < 32) t.resident_warps = 0;
    if (t.threads == 0) t.threads = nsys < 32 * 4 * sms ? 32 : 64;
    t.smem_rows = t.resident_warps > 0 ? 0 : t.smem_rows < 0 ? std::min(n, 32) : std::min(t.smem_rows, n);
    if (2 * static_cast<std::size_t>(value_bytes) * t.smem_rows * t.threads > 200 * 1024)
        throw std::invalid_argument("thomas_batch: smem_rows x threads needs more than 200 KB of shared memory");
    // Shared rows are the last n - R rows of every system: with systems of their own
    // sizes those would be padding. Stopping at each size keeps c', d' in device memory.
    if (t.padding == ThomasPadding::stop && t.smem_rows > 0)
        throw std::invalid_argument("thomas_batch: padding=stop keeps no rows in shared memory (smem_rows must be 0)");
    return t;
}

}  // namespace

ThomasTuning thomas_resolve(const ThomasTuning& tuning, int n, int nsys, int value_bytes) {
    return resolve(tuning, n, nsys, value_bytes, device_shape());
}

template <class T>
void thomas_batch(const ThomasSystems<T>& sys, T* scratch, int n, int nsys, cudaStream_t stream,
                  const ThomasTuning& tuning) {
    const DeviceShape dev = device_shape();
    const ThomasTuning t = resolve(tuning, n, nsys, sizeof(T), dev);
    if (t.padding == ThomasPadding::stop && !sys.sizes && n > 0 && nsys > 0)
        throw std::invalid_argument("thomas_batch: padding=stop needs the systems' sizes");
    if (n == 0 || nsys == 0) return;
    // Under compute the sizes are not read: every system is walked to n.
    ThomasSystems<T> s = sys;
    if (t.padding == ThomasPadding::compute) s.sizes = nullptr;
    switch (t.prefetch) {
    case 2: launch<2>(s, scratch, n, nsys, t, dev.sms, stream); break;
    case 4: launch<4>(s, scratch, n, nsys, t, dev.sms, stream); break;
    case 8: launch<8>(s, scratch, n, nsys, t, dev.sms, stream); break;
    default: launch<16>(s, scratch, n, nsys, t, dev.sms, stream); break;
    }
}

template void thomas_batch<double>(const ThomasSystems<double>&, double*, int, int, cudaStream_t, const ThomasTuning&);
template void thomas_batch<float>(const ThomasSystems<float>&, float*, int, int, cudaStream_t, const ThomasTuning&);

void thomas_batch(const double* a, const double* b, const double* c, double* d, double* scratch, int n, int nsys,
                  cudaStream_t stream, const ThomasTuning& tuning) {
    thomas_batch(interleaved_systems(a, b, c, d, nsys), scratch, n, nsys, stream, tuning);
}

}  // namespace arbolito::gpu
