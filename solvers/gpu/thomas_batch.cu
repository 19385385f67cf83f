#include "solvers/gpu/thomas_batch.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/gpu/memory.hpp"
#include "solvers/gpu/loads.hpp"
#include "core/reciprocal.hpp"

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
// (host-callable, so that the index logic can be checked without a GPU). Var: the system
// has m real rows of n stored; w >= m is the most rows any lane of the warp has (its
// warp's maximum of m): the forward sweep stops at the lane's own m, and the back
// substitution walks rows w-2 .. 0 with every lane on the same row, a lane idle above its
// own, so that a warp's loads of one row stay contiguous. Not Var (every system n rows,
// m and w ignored): the guards fold away and the code is the kernel before variable
// batches (which cost it 22 registers and 4 % at 512 x 256,000, H100; bench/RESULTS.md,
// "Batched Thomas").
template <int K, bool Stream, bool Var, class V>
__host__ __device__ inline void thomas_system(int s, int t, int T, V* sh, const V* __restrict__ a,
                                              const V* __restrict__ b, const V* __restrict__ c, V* __restrict__ d,
                                              std::size_t rs, V* __restrict__ cp, std::size_t cps, int n, int m,
                                              int w, int R) {
    if constexpr (!Var) m = w = n;
    else if (m <= 0) return;  // in the uniform kernel this return alone cost 22 registers
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
    const int top = g < m - 1 ? g : m - 1;        // rows [0, top) still to do, from device memory
    const int topw = Var ? top + (w - m) : top;   // the warp's first row (R = 0 where w > m)
    V qc[K], qd[K];                               // row topw-1-t in slot t % K
    auto load_back = [&](int k, int j) {
        if (j >= 0 && (!Var || j < top)) qc[k] = cp[j * cps], qd[k] = d[j * rs + s];
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
            if (!Var || i < top) {
                xnext = di - ci * xnext;
                d[i * rs + s] = xnext;
            }
        }
    }
}

// Var: the rows system s has (sizes, clamped to [0, n]) and the rows its warp walks (the
// warp's largest). Every lane of the warp calls it (s past nsys included) before any of
// them branches off. Not Var: n and n, sizes not read.
template <bool Var>
__device__ __forceinline__ int2 system_rows(int s, int nsys, int n, const int* sizes) {
    if constexpr (!Var) return make_int2(n, n);
    const int m = s < nsys ? max(0, min(n, ld_ro(sizes + s))) : 0;
    return make_int2(m, __reduce_max_sync(0xffffffffu, m));
}

// S: rows S * nsys apart (1 interleaved, 4 unified vector). A compile-time multiple of
// c''s stride nsys lets one offset i * nsys address inputs and c' alike (with a run-time
// stride the uniform kernel took 90 registers, not 88: one 64-thread block per SM fewer).
template <int K, bool Var, int S, class V>
__global__ void thomas_kernel(ThomasSystems<V> sys, V* __restrict__ cp, int n, int nsys, int R) {
    extern __shared__ unsigned char sh_bytes[];
    V* sh = reinterpret_cast<V*>(sh_bytes);
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    const int2 mw = system_rows<Var>(s, nsys, n, sys.sizes);  // blockDim: whole warps
    // No barriers: lanes are independent and each uses only its own shared column.
    if (s < nsys)
        thomas_system<K, false, Var>(s, threadIdx.x, blockDim.x, sh, sys.a, sys.b, sys.c, sys.d,
                                     S * static_cast<std::size_t>(nsys), cp + s, nsys, n, mw.x, mw.y, R);
}

// L2-resident: warp w of W loops over batches of 32 systems w, w + W, ...; its lanes keep
// c' in rows of 32 at scratch + w * 32 n (W * 32 <= nsys, so inside n * nsys values).
template <int K, bool Var, int S, class V>
__global__ void thomas_resident_kernel(ThomasSystems<V> sys, V* __restrict__ scratch, int n, int nsys) {
    const int lane = threadIdx.x & 31;
    const int w = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int W = static_cast<int>((gridDim.x * blockDim.x) >> 5);
    V* cp = scratch + static_cast<std::size_t>(w) * 32 * n + lane;
    for (int s = 32 * w + lane; s - lane < nsys; s += 32 * W) {
        const int2 mw = system_rows<Var>(s, nsys, n, sys.sizes);
        if (s < nsys)
            thomas_system<K, true, Var, V>(s, 0, 0, nullptr, sys.a, sys.b, sys.c, sys.d,
                                           S * static_cast<std::size_t>(nsys), cp, 32, n, mw.x, mw.y, 0);
    }
}

// Var: systems of their own sizes (padding=stop); else every system walked to n.
template <int K, bool Var, int S, class V>
void launch(const ThomasSystems<V>& sys, V* cp, int n, int nsys, const ThomasTuning& t, int sms,
            cudaStream_t stream) {
    if (t.resident_warps > 0) {
        // At most one block per SM (the block scheduler spreads a first wave breadth-first),
        // never more warps than whole batches of 32 systems (rounded down: the scratch
        // holds n x nsys values, so every lane's 32-row stripe must lie inside it).
        const int blocks = std::max(1, std::min(sms, nsys / 32));
        const int warps = std::max(1, std::min(t.resident_warps, nsys / 32 / blocks));
        thomas_resident_kernel<K, Var, S, V><<<blocks, 32 * warps, 0, stream>>>(sys, cp, n, nsys);
        CUDA_CHECK_LAUNCH();
        return;
    }
    const int R = t.smem_rows, T = t.threads;
    const std::size_t smem = 2 * sizeof(V) * static_cast<std::size_t>(R) * T;
    if (smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(thomas_kernel<K, Var, S, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(smem)));
    const int blocks = (nsys + T - 1) / T;
    thomas_kernel<K, Var, S, V><<<blocks, T, smem, stream>>>(sys, cp, n, nsys, R);
    CUDA_CHECK_LAUNCH();
}

template <bool Var, int S, class V>
void launch_prefetch(const ThomasSystems<V>& sys, V* cp, int n, int nsys, const ThomasTuning& t, int sms,
                     cudaStream_t stream) {
    switch (t.prefetch) {
    case 2: launch<2, Var, S>(sys, cp, n, nsys, t, sms, stream); break;
    case 4: launch<4, Var, S>(sys, cp, n, nsys, t, sms, stream); break;
    case 8: launch<8, Var, S>(sys, cp, n, nsys, t, sms, stream); break;
    default: launch<16, Var, S>(sys, cp, n, nsys, t, sms, stream); break;
    }
}

template <bool Var, class V>
void launch_storage(const ThomasSystems<V>& sys, V* cp, int n, int nsys, const ThomasTuning& t, int sms,
                    cudaStream_t stream) {
    if (sys.row_stride == static_cast<std::size_t>(nsys)) launch_prefetch<Var, 1>(sys, cp, n, nsys, t, sms, stream);
    else launch_prefetch<Var, 4>(sys, cp, n, nsys, t, sms, stream);
}

}  // namespace

namespace {

// The automatic choices per value type, fixed at compile time. Double, from
// bench/thomas_bench on an H100 (bench/RESULTS.md): with the rotating prefetch,
// shared-memory rows no longer pay (they cost occupancy); 4 resident warps per SM win
// where their scratch stays in L2 (64 unknowns: 1.3x cuSPARSE at 256,000 systems; 512
// unknowns x 2,560 systems: 1.6x the non-resident kernel) and lose where it cannot (512 x
// 256,000: 0.6x); small batches run one warp per block so that their few warps spread
// over every SM. Float: its dependent chain per row is several times shorter than
// double's, so 8 rows ahead no longer cover a load's latency (Nsight: 63 % of issue slots
// waiting on loads); a row is half the bytes, so twice the rows and twice the resident
// warps keep the same bytes in flight, and c' of those warps takes the bytes of double's
// (the same n x nsys go resident in both; float used to go resident at 256 x 256,000,
// where it lost 1.8x to its own streaming kernel). Registers, streaming / resident: 104 /
// 157 (16 rows, float) against 88 / 160 (8 rows, double), no spills.
template <class V>
struct ThomasAuto;
// Rows loaded ahead with c' kept L2-resident and when streaming, and the resident warps
// per SM. Measured on the H100 (bench/thomas_regression_bench, bench/RESULTS.md): float
// gains from 16 rows ahead where resident (1.9-2.0x double at 64-128 x 256,000) but
// streams faster with 8 (256-512 x 256,000: 12-14 % faster than 16).
template <>
struct ThomasAuto<double> {
    static constexpr int prefetch_resident = 8, prefetch_streaming = 8, resident_warps = 4;
};
template <>
struct ThomasAuto<float> {
    static constexpr int prefetch_resident = 16, prefetch_streaming = 8, resident_warps = 8;
};

template <class V>
ThomasTuning resolve(const ThomasTuning& in, int n, int nsys, const DeviceShape& dev) {
    if (n < 0 || nsys < 0) throw std::invalid_argument("thomas_batch: negative size");
    ThomasTuning t = in;
    if (t.prefetch != 0 && t.prefetch != 2 && t.prefetch != 4 && t.prefetch != 8 && t.prefetch != 16)
        throw std::invalid_argument("thomas_batch: prefetch must be 0 (automatic), 2, 4, 8 or 16, not " +
                                    std::to_string(t.prefetch));
    if (t.resident_warps < -1 || t.resident_warps > 32)
        throw std::invalid_argument("thomas_batch: resident_warps must be -1 (automatic), 0 (off) or 1..32");
    if (t.threads != 0 && (t.threads < 32 || t.threads > 1024 || t.threads % 32))
        throw std::invalid_argument("thomas_batch: threads per block must be 0 (automatic) or a multiple of 32 in "
                                    "[32, 1024]");
    const int sms = dev.sms;
    if (t.resident_warps == -1) {
        // Bytes of c' for the lanes that run at once: W warps per SM, or all systems.
        constexpr int W = ThomasAuto<V>::resident_warps;
        const double lanes = std::min(static_cast<double>(nsys), 32.0 * W * sms);
        t.resident_warps = double(sizeof(V)) * n * lanes <= dev.l2_bytes / 3.0 ? W : 0;
    }
    if (nsys < 32) t.resident_warps = 0;
    if (t.prefetch == 0)
        t.prefetch = t.resident_warps > 0 ? ThomasAuto<V>::prefetch_resident : ThomasAuto<V>::prefetch_streaming;
    if (t.threads == 0) t.threads = nsys < 32 * 4 * sms ? 32 : 64;
    t.smem_rows = t.resident_warps > 0 ? 0 : t.smem_rows < 0 ? std::min(n, 32) : std::min(t.smem_rows, n);
    if (2 * sizeof(V) * static_cast<std::size_t>(t.smem_rows) * t.threads > 200 * 1024)
        throw std::invalid_argument("thomas_batch: smem_rows x threads needs more than 200 KB of shared memory");
    // Shared rows are the last n - R rows of every system: with systems of their own
    // sizes those would be padding. Stopping at each size keeps c', d' in device memory.
    if (t.padding == ThomasPadding::stop && t.smem_rows > 0)
        throw std::invalid_argument("thomas_batch: padding=stop keeps no rows in shared memory (smem_rows must be 0)");
    return t;
}

}  // namespace

ThomasTuning thomas_resolve(const ThomasTuning& tuning, int n, int nsys, int value_bytes) {
    if (value_bytes != 4 && value_bytes != 8) throw std::invalid_argument("thomas_resolve: values of 4 or 8 bytes");
    return value_bytes == 4 ? resolve<float>(tuning, n, nsys, device_shape())
                            : resolve<double>(tuning, n, nsys, device_shape());
}

template <class T>
void thomas_batch(const ThomasSystems<T>& sys, T* scratch, int n, int nsys, cudaStream_t stream,
                  const ThomasTuning& tuning) {
    const DeviceShape dev = device_shape();
    const ThomasTuning t = resolve<T>(tuning, n, nsys, dev);
    if (t.padding == ThomasPadding::stop && !sys.sizes && n > 0 && nsys > 0)
        throw std::invalid_argument("thomas_batch: padding=stop needs the systems' sizes");
    if (sys.row_stride != static_cast<std::size_t>(nsys) && sys.row_stride != 4 * static_cast<std::size_t>(nsys))
        throw std::invalid_argument("thomas_batch: row_stride must be nsys (interleaved) or 4 nsys (unified vector)");
    if (n == 0 || nsys == 0) return;
    // Under compute the sizes are not read: every system is walked to n.
    ThomasSystems<T> s = sys;
    if (t.padding == ThomasPadding::compute) s.sizes = nullptr;
    if (t.padding == ThomasPadding::stop) launch_storage<true>(s, scratch, n, nsys, t, dev.sms, stream);
    else launch_storage<false>(s, scratch, n, nsys, t, dev.sms, stream);
}

template void thomas_batch<double>(const ThomasSystems<double>&, double*, int, int, cudaStream_t, const ThomasTuning&);
template void thomas_batch<float>(const ThomasSystems<float>&, float*, int, int, cudaStream_t, const ThomasTuning&);

void thomas_batch(const double* a, const double* b, const double* c, double* d, double* scratch, int n, int nsys,
                  cudaStream_t stream, const ThomasTuning& tuning) {
    thomas_batch(interleaved_systems(a, b, c, d, nsys), scratch, n, nsys, stream, tuning);
}

}  // namespace arbolito::gpu
