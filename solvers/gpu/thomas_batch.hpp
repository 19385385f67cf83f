#pragma once
// cuThomasBatch: many independent tridiagonal systems, one thread per system, stored so
// that a warp's loads of one row are contiguous. For the branch-level solver (gpu-branch,
// docs/solvers.md) and, in float, for the benchmarks only (the simulator stays double). No
// pivoting: the systems must be diagonally dominant (cable equations are). Systems
// shorter than n are padded with rows a = c = 0, b = 1, d = 0 (their solution is 0); the
// last real row of a system must have c = 0.
//
// Two storages (ThomasSystems), both with row i of system s at i * row_stride + s:
//   interleaved     four arrays a, b, c, d, row_stride = nsys (cuThomasBatch);
//   unified vector  one array v of 4 n nsys values, row i holding a, b, c, d of every
//                   system one after another: a = v, b = v + nsys, c = v + 2 nsys,
//                   d = v + 3 nsys, row_stride = 4 nsys (the published cuThomasBatch-UV).
// And two ways with systems of different sizes (cuThomasVBatch):
//   ThomasPadding::compute  every thread walks all n rows, padding included;
//   ThomasPadding::stop     each thread stops at its own system's size (sizes[s]); its
//                           padding rows are neither read nor written.
#include <cstddef>

#include <cuda_runtime.h>

namespace arbolito::gpu {

enum class ThomasPadding { compute, stop };

struct ThomasTuning {
    int prefetch = 0;         // rows loaded ahead of use: 2, 4, 8 or 16; 0: 8 (double), 16 (float)
    int smem_rows = 0;        // last rows of c', d' kept in shared memory; -1: min(n, 32)
    int threads = 0;          // per CUDA block, a multiple of 32; 0: chosen from nsys
    // > 0: "L2-resident": only this many warps per SM run, each looping over batches of 32
    // systems and reusing one c' scratch of n rows, so that c' and the d' rows in flight
    // stay in L2 and device memory sees only the 40 bytes per unknown that must move.
    // Needs nsys >= 32 (else one thread per system). -1: 4 (double) or 8 (float) where
    // that scratch fits in a third of L2, else off. 0: off.
    int resident_warps = -1;
    // stop needs ThomasSystems::sizes and no shared-memory rows (smem_rows 0).
    ThomasPadding padding = ThomasPadding::compute;
};

// Where the systems are: row i of system s at a[i * row_stride + s], likewise b, c, d;
// row_stride nsys (interleaved) or 4 nsys (unified vector), others refused: the kernels
// take it as a compile-time multiple of nsys.
template <class T>
struct ThomasSystems {
    const T* a = nullptr;
    const T* b = nullptr;
    const T* c = nullptr;
    T* d = nullptr;
    std::size_t row_stride = 0;
    const int* sizes = nullptr;  // device, per system: its real rows (0..n); padding=stop only
};

template <class T>
ThomasSystems<T> interleaved_systems(const T* a, const T* b, const T* c, T* d, int nsys, const int* sizes = nullptr) {
    return {a, b, c, d, static_cast<std::size_t>(nsys), sizes};
}
// v: 4 n nsys values, row by row (a, b, c, d of all systems).
template <class T>
ThomasSystems<T> unified_systems(T* v, int nsys, const int* sizes = nullptr) {
    const std::size_t N = static_cast<std::size_t>(nsys);
    return {v, v + N, v + 2 * N, v + 3 * N, 4 * N, sizes};
}

// The tuning thomas_batch runs for (n, nsys) and values of `value_bytes` bytes on the
// current device: automatic fields made concrete, after the checks (std::invalid_argument
// on a bad tuning).
ThomasTuning thomas_resolve(const ThomasTuning& tuning, int n, int nsys, int value_bytes = 8);

// Solves every system: d is overwritten with the solution (its padding rows with 0 under
// padding=compute, untouched under stop); a, b, c are not modified; scratch: n * nsys
// values (c'). Runs on `stream`; no host synchronisation. T: double or float.
template <class T>
void thomas_batch(const ThomasSystems<T>& systems, T* scratch, int n, int nsys, cudaStream_t stream,
                  const ThomasTuning& tuning = {});

// The interleaved storage in double: a sub-diagonal (row 0 ignored), b diagonal, c
// super-diagonal (row n-1 ignored), d right-hand side.
void thomas_batch(const double* a, const double* b, const double* c, double* d, double* scratch, int n, int nsys,
                  cudaStream_t stream, const ThomasTuning& tuning = {});

}  // namespace arbolito::gpu
