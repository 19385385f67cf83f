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
    int prefetch = 4;      // rows loaded ahead of use: 2 or 4
    int smem_rows = -1;    // last rows of c', d' kept in shared memory; -1: chosen from n
    int threads = 64;      // per CUDA block
};

// a: sub-diagonal (row 0 ignored), b: diagonal, c: super-diagonal (row n-1 ignored),
// d: right-hand side, overwritten with the solution; scratch: n * nsys doubles (c').
// a, b, c are not modified. Runs on `stream`; no host synchronisation.
void thomas_batch(const double* a, const double* b, const double* c, double* d, double* scratch, int n, int nsys,
                  cudaStream_t stream, const ThomasTuning& tuning = {});

// The shared-memory rows thomas_batch uses for a tuning's smem_rows = -1.
int thomas_default_smem_rows(int n);

}  // namespace arbolito::gpu
