#pragma once
// cuThomasBatch: many independent tridiagonal systems, one thread per system, stored
// interleaved (element i of system s at i * nsys + s) so that a warp's loads of one row
// are contiguous. For the branch-level solver (gpu-branch, DESIGN §7). No pivoting: the
// systems must be diagonally dominant (cable equations are). Systems shorter than n are
// padded with rows a = c = 0, b = 1, d = 0 (their solution is 0); the last real row of a
// system must have c = 0.
#include <cuda_runtime.h>

namespace arbolito::gpu {

struct ThomasTuning {
    int prefetch = 8;         // rows loaded ahead of use: 2, 4, 8 or 16
    int smem_rows = 0;        // last rows of c', d' kept in shared memory; -1: min(n, 32)
    int threads = 0;          // per CUDA block, a multiple of 32; 0: chosen from nsys
    // > 0: "L2-resident": only this many warps per SM run, each looping over batches of 32
    // systems and reusing one c' scratch of n rows, so that c' and the d' rows in flight
    // stay in L2 and device memory sees only the 40 bytes per unknown that must move.
    // Needs nsys >= 32 (else one thread per system). -1: 4 where that scratch fits in a
    // third of L2, else off. 0: off.
    int resident_warps = -1;
};

// The tuning thomas_batch runs for (n, nsys) on the current device: automatic fields
// made concrete, after the checks (std::invalid_argument on a bad tuning).
ThomasTuning thomas_resolve(const ThomasTuning& tuning, int n, int nsys);

// a: sub-diagonal (row 0 ignored), b: diagonal, c: super-diagonal (row n-1 ignored),
// d: right-hand side, overwritten with the solution; scratch: n * nsys doubles (c').
// a, b, c are not modified. Runs on `stream`; no host synchronisation.
void thomas_batch(const double* a, const double* b, const double* c, double* d, double* scratch, int n, int nsys,
                  cudaStream_t stream, const ThomasTuning& tuning = {});


}  // namespace arbolito::gpu
