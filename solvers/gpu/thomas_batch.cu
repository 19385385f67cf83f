#include "solvers/gpu/thomas_batch.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "solvers/gpu/cuda_check.hpp"

namespace arbolito::gpu {

namespace {

// Read-only loads through the non-coherent path on the device.
template <class T_>
__host__ __device__ __forceinline__ T_ ld_ro(const T_* p) {
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

// Forward elimination c'_i = c_i m_i, d'_i = (d_i - a_i d'_{i-1}) m_i with
// m_i = 1 / (b_i - a_i c'_{i-1}); back substitution x_i = d'_i - c'_i x_{i+1}.
// Inputs are read K rows ahead of use (nothing writes them before), so each lane keeps
// 4K loads in flight instead of waiting one memory latency per row. The last R rows of
// c', d' stay in shared memory: they are the first the back substitution needs, and
// each kept row saves two 8-byte stores and two loads of device memory.
//
// One system per call: s the system, sh this block's shared rows, t the lane's place in
// the block of T (host-callable, so that the index logic can be checked without a GPU).
template <int K>
__host__ __device__ inline void thomas_system(int s, int t, int T, double* sh, const double* __restrict__ a,
                                              const double* __restrict__ b, const double* __restrict__ c,
                                              double* __restrict__ d, double* __restrict__ cp, int n, int nsys,
                                              int R) {
    const std::size_t N = static_cast<std::size_t>(nsys);
    double* sc = sh + t;  // row r of c' at sc[r * T]
    double* sd = sh + static_cast<std::size_t>(R) * T + t;
    const int g = n - R;                         // rows [0, g) go to device memory

    double ra[K], rb[K], rc[K], rd[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        ra[k] = 0.0, rb[k] = 1.0, rc[k] = 0.0, rd[k] = 0.0;
        if (k < n) {
            const std::size_t x = k * N + s;
            ra[k] = ld_ro(a + x), rb[k] = ld_ro(b + x), rc[k] = ld_ro(c + x), rd[k] = d[x];
        }
    }
    double cprev = 0.0, dprev = 0.0;
    for (int i = 0; i < n; ++i) {
        const double ai = i > 0 ? ra[0] : 0.0, bi = rb[0], ci = rc[0], di = rd[0];
#pragma unroll
        for (int k = 0; k + 1 < K; ++k) ra[k] = ra[k + 1], rb[k] = rb[k + 1], rc[k] = rc[k + 1], rd[k] = rd[k + 1];
        if (i + K < n) {
            const std::size_t x = (i + K) * N + s;
            ra[K - 1] = ld_ro(a + x), rb[K - 1] = ld_ro(b + x), rc[K - 1] = ld_ro(c + x), rd[K - 1] = d[x];
        }
        const double m = 1.0 / (bi - ai * cprev);
        cprev = ci * m;
        dprev = (di - ai * dprev) * m;
        if (i < g) {
            const std::size_t x = i * N + s;
            cp[x] = cprev;
            d[x] = dprev;
        } else {
            sc[(i - g) * T] = cprev;
            sd[(i - g) * T] = dprev;
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
    double qc[K], qd[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int j = top - 1 - k;
        qc[k] = 0.0, qd[k] = 0.0;
        if (j >= 0) qc[k] = cp[j * N + s], qd[k] = d[j * N + s];
    }
    for (int i = top - 1; i >= 0; --i) {
        const double ci = qc[0], di = qd[0];
#pragma unroll
        for (int k = 0; k + 1 < K; ++k) qc[k] = qc[k + 1], qd[k] = qd[k + 1];
        if (i - K >= 0) qc[K - 1] = cp[(i - K) * N + s], qd[K - 1] = d[(i - K) * N + s];
        xnext = di - ci * xnext;
        d[i * N + s] = xnext;
    }
}

template <int K>
__global__ void thomas_kernel(const double* __restrict__ a, const double* __restrict__ b,
                              const double* __restrict__ c, double* __restrict__ d, double* __restrict__ cp, int n,
                              int nsys, int R) {
    extern __shared__ double sh[];
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    // No barriers: lanes are independent and each uses only its own shared column.
    if (s < nsys) thomas_system<K>(s, threadIdx.x, blockDim.x, sh, a, b, c, d, cp, n, nsys, R);
}

template <int K>
void launch(const double* a, const double* b, const double* c, double* d, double* cp, int n, int nsys, int R, int T,
            cudaStream_t stream) {
    const std::size_t smem = 2 * sizeof(double) * static_cast<std::size_t>(R) * T;
    if (smem > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(thomas_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(smem)));
    const int blocks = (nsys + T - 1) / T;
    thomas_kernel<K><<<blocks, T, smem, stream>>>(a, b, c, d, cp, n, nsys, R);
    CUDA_CHECK_LAUNCH();
}

}  // namespace

// 32 rows x 64 threads x 16 bytes = 32 KB a block: 7 blocks (14 warps) fit an SM's
// 228 KB, enough lanes to keep device memory busy; longer systems keep their last 32
// rows on chip and stream the rest.
int thomas_default_smem_rows(int n) { return std::min(n, 32); }

void thomas_batch(const double* a, const double* b, const double* c, double* d, double* scratch, int n, int nsys,
                  cudaStream_t stream, const ThomasTuning& t) {
    if (n < 0 || nsys < 0) throw std::invalid_argument("thomas_batch: negative size");
    if (n == 0 || nsys == 0) return;
    if (t.threads < 32 || t.threads > 1024 || t.threads % 32)
        throw std::invalid_argument("thomas_batch: threads per block must be a multiple of 32 in [32, 1024]");
    const int R = t.smem_rows < 0 ? thomas_default_smem_rows(n) : std::min(t.smem_rows, n);
    if (2 * sizeof(double) * static_cast<std::size_t>(R) * t.threads > 200 * 1024)
        throw std::invalid_argument("thomas_batch: smem_rows x threads needs more than 200 KB of shared memory");
    switch (t.prefetch) {
    case 2: launch<2>(a, b, c, d, scratch, n, nsys, R, t.threads, stream); break;
    case 4: launch<4>(a, b, c, d, scratch, n, nsys, R, t.threads, stream); break;
    default: throw std::invalid_argument("thomas_batch: prefetch must be 2 or 4, not " + std::to_string(t.prefetch));
    }
}

}  // namespace arbolito::gpu
