#pragma once
// The per-thread sweeps of gpu-cell (hines_gpu_cell.cu): one cell's Hines system, solved
// in place in the numbering of a gpu_cell_layout. __host__ __device__ so that their index
// logic runs and is tested on machines without a GPU (tests/unit/test_gpu_cell_sweeps.cu).
#include <cuda_runtime.h>

#include "solvers/gpu/loads.hpp"
#include "core/reciprocal.hpp"
#include "core/uncontracted.hpp"

namespace arbolito::gpu::sweeps {

// *p += v without waiting for the old value (a reduction, RED, on the device).
template <class V>
__host__ __device__ __forceinline__ void red_add(V* p, V v) {
#ifdef __CUDA_ARCH__
    atomicAdd(p, v);
#else
    *p += v;
#endif
}

// Eliminates one row of the backward sweep in hines_solve's arithmetic: f = u/d' (divide:
// the correctly rounded quotient), d' and rhs' kept for the forward sweep (d_out, r_out),
// and returns what the parent row loses, f u from its d and f rhs' from its rhs, each
// product rounded on its own (the parent subtracts it: two roundings, as on the host).
template <class V>
struct RowLoss {
    V d, r;
};
template <class V>
__host__ __device__ __forceinline__ RowLoss<V> eliminate(V d, V u, V r, V* d_out, V* r_out) {
    const V f = divide(u, d);
    *d_out = d;
    *r_out = r;
    return {product(f, u), product(f, r)};
}

// Row x of the forward sweep from its parent's x_p, as hines_solve: (rhs' - u x_p) / d'.
// The quotient's reciprocal waits on nothing of the chain (d' is loaded ahead).
template <class V>
__host__ __device__ __forceinline__ V substitute(V d, V u, V r, V xp) {
    return divide(minus_product(r, u, xp), d);
}

// The serial Hines elimination (hines.hpp) per slot, padding rows included (their d = 1,
// u = 0, rhs = 0 make them inert).
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
        d[p] = minus_product(d[p], f, ux);
        rhs[p] = minus_product(rhs[p], f, rhs[x]);
    }
    rhs[first] /= d[first];
    for (int i = 1; i < np; ++i) {
        const int x = first + i * stride;
        rhs[x] = minus_product(rhs[x], ld_ro(u + x), rhs[ld_ro(parent + x)]) / d[x];
    }
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
// The backward sweep leaves each row's pivot d'_i in d and rhs'_i in rhs, so the forward
// sweep is hines_solve's x_i = (rhs'_i - u_i x_p) / d'_i (substitute): three loads per
// row. Its rows are prefetched K ahead too (nothing writes them before their own step),
// the chain parent is the previous x in a register, and a branch point's parent x is
// loaded as soon as it is written, long before it is needed.
//
// d' of row i goes to f_at[i * f_stride]: in place of d (f_at = d + first, f_stride =
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
            ru[k] = ld_input<Stream>(u + x);
        }
    };
#pragma unroll
    for (int k = 0; k < S; ++k) load(k, np - 1 - k);
    int e = br.y - 1;
    int2 bp = e >= br.x ? ld_ro(branch + e) : none;
    double root_d = 1.0, root_r = 0.0;  // the root's row, final once reached
    for (int t0 = 0; t0 < np; t0 += S) {
#pragma unroll
        for (int r = 0; r < S; ++r) {
            const int i = np - 1 - t0 - r;
            // The root's division waits until after the loop: a division in the loop
            // body brings its slow-path subroutine call with it (reciprocal.hpp), and
            // the sweep may then wait on its loads at every row.
            if (i == 0) root_d = rd[r], root_r = rr[r];
            if (i <= 0) break;
            if (i < n) {
                const int x = first + i * stride;
                const RowLoss<double> loss = eliminate(rd[r], ru[r], rr[r], f_at + i * f_stride, rhs + x);
                const double df = loss.d, rf = loss.r;
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
    double xprev = root_r / root_d;
    rhs[first] = xprev;

    // Forward sweep over the lane's own rows 1 .. n-1 (all lanes start at row 1 together);
    // row 1 + t in slot t % K.
    double ff[K], fr[K], fu[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const int j = 1 + k;
        ff[k] = 1.0;
        fr[k] = 0.0;
        fu[k] = 0.0;
        if (j < n) {
            ff[k] = f_at[j * f_stride];
            fr[k] = rhs[first + j * stride];
            fu[k] = ld_input<Stream>(u + first + j * stride);
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
            const double di = ff[r], ri = fr[r], ui = fu[r];
            const int j = i + K;
            if (j < n) {
                ff[r] = f_at[j * f_stride];
                fr[r] = rhs[first + j * stride];
                fu[r] = ld_input<Stream>(u + first + j * stride);
            }
            double xp = xprev;
            if (i == bp.x) {
                xp = have ? xpar : rhs[first + bp.y * stride];
                ++e;
                bp = e < br.y ? ld_ro(branch + e) : none;
                have = false;
            }
            const double xi = substitute(di, ui, ri, xp);
            rhs[first + i * stride] = xi;
            xprev = xi;
            if (!have && bp.x >= 0 && bp.y <= i) {
                xpar = bp.y == i ? xi : rhs[first + bp.y * stride];
                have = true;
            }
        }
    }
}

// The row-parent kernel, S rows in flight: as cell_pipelined, but each row carries the
// distance to its parent (row i's parent is row i - dist[x], uint16, 1 on chains and
// padding) in a per-CV array loaded with the row, instead of the per-cell list of branch
// points. The list is read one record at a time, when the previous branch point is
// passed, and the next row needs that record at once: in a warp of cells of different
// shapes (busyring) some lane passes a branch point at most rows, and the whole warp then
// waits one memory latency per row (Nsight Compute: the record's load, about 70 % of
// rows). Here nothing is read just before it is needed:
//
// Backward sweep, rows np-1 .. 1, row np-1-t in slot t % S: a parent within S-1 rows is
// in registers (updated there), a parent further back gets a fire-and-forget atomic add
// before its row is loaded, as in cell_pipelined.
//
// Forward sweep, rows 1 .. n-1, row 1+t in slot t % S (d', rhs', u and dist, loaded S
// rows ahead). The parent's x of row j is (a) the previous x, (b) one of the last H = S/2 x
// values, kept in a ring of registers, or (c) loaded from memory H rows ahead (at step
// j - H every x before row j - H is final; the load needs row j's dist, loaded S - H
// steps earlier).
//
// Pad (padding=compute, cuHinesVBatch's "computing padding"): the padding rows are walked as
// real ones (loaded, eliminated, written: d' = 1 into d, 0 into rhs), so every lane of a
// block does the same rows; without it (stop) a lane neither reads nor writes past its
// own size. Same bits on the real rows (padding rows d = 1, u = 0, rhs = 0 subtract 0).
//
// cell_rowparent_at takes the slot itself (first, stride, size, padded) and the arrays
// as the slot's numbers reach them: block-shared passes rhs in shared memory and the
// others offset to the block's base. V: double, or float in the benchmarks.
template <int S, bool Pad = false, class V = double>
__host__ __device__ inline void cell_rowparent_at(int4 sl, const unsigned short* __restrict__ dist,
                                                  V* __restrict__ d, const V* __restrict__ u, V* __restrict__ rhs) {
    static_assert(S >= 2 && S % 2 == 0, "cell_rowparent: S even, at least 2");
    constexpr int H = S / 2;
    const int first = sl.x, stride = sl.y, np = sl.w;
    const int n = Pad ? (sl.z > 0 ? np : 0) : sl.z;
    if (n == 0) return;

    V rd[S], rr[S], ru[S];
    int rp[S];
    auto load = [&](int k, int j) {
        rd[k] = 1, rr[k] = 0, ru[k] = 0, rp[k] = 1;
        if (j >= 0 && j < n) {
            const int x = first + j * stride;
            rd[k] = d[x];
            rr[k] = rhs[x];
            ru[k] = ld_ro(u + x);
            rp[k] = ld_ro(dist + x);
        }
    };
#pragma unroll
    for (int k = 0; k < S; ++k) load(k, np - 1 - k);
    V root_d = 1, root_r = 0;
    for (int t0 = 0; t0 < np; t0 += S) {
#pragma unroll
        for (int r = 0; r < S; ++r) {
            const int i = np - 1 - t0 - r;
            if (i == 0) root_d = rd[r], root_r = rr[r];  // its division after the loop
            if (i <= 0) break;
            if (i < n) {
                const int x = first + i * stride;
                const RowLoss<V> loss = eliminate(rd[r], ru[r], rr[r], d + x, rhs + x);
                const V df = loss.d, rf = loss.r;
                const int k = rp[r];
                if (k == 1) {
                    rd[(r + 1) % S] -= df;
                    rr[(r + 1) % S] -= rf;
                } else if (k < S) {
#pragma unroll
                    for (int q = 2; q < S; ++q)
                        if (k == q) {
                            rd[(r + q) % S] -= df;
                            rr[(r + q) % S] -= rf;
                        }
                } else {
                    const int xp = x - k * stride;
                    red_add(d + xp, -df);
                    red_add(rhs + xp, -rf);
                }
            }
            load(r, i - S);
        }
    }
    V xprev = root_r / root_d;
    rhs[first] = xprev;

    V ff[S], fr[S], fu[S], fx[S], xr[S];
    int fp[S];
    auto fload = [&](int k, int j) {
        ff[k] = 1, fr[k] = 0, fu[k] = 0, fp[k] = 1;
        if (j < n) {
            const int x = first + j * stride;
            ff[k] = d[x];
            fr[k] = rhs[x];
            fu[k] = ld_ro(u + x);
            fp[k] = ld_ro(dist + x);
        }
    };
#pragma unroll
    for (int k = 0; k < S; ++k) fload(k, 1 + k), fx[k] = 0, xr[k] = 0;
    xr[S - 1] = xprev;  // row 0's slot in the ring: row i's x goes to xr[(i - 1) % S]
    for (int t0 = 0; t0 < n - 1; t0 += S) {
#pragma unroll
        for (int r = 0; r < S; ++r) {
            const int i = 1 + t0 + r;
            if (i >= n) break;
            const int k = fp[r];
            V xp = fx[r];
            if (k == 1) {
                xp = xprev;
            } else if (k <= H) {
#pragma unroll
                for (int q = 2; q <= H; ++q)
                    if (k == q) xp = xr[(r - q + S) % S];
            }
            const V xi = substitute(ff[r], fu[r], fr[r], xp);
            rhs[first + i * stride] = xi;
            xprev = xi;
            xr[r] = xi;
            fload(r, i + S);
            // Row i + H: its parent's x, if it lies before row i (final now).
            const int h = (r + H) % S;  // row i + H's slot (a constant once unrolled)
            const int j = i + H;
            if (j < n && fp[h] > H) fx[h] = rhs[first + (j - fp[h]) * stride];
        }
    }
}

template <int S, bool Pad = false, class V = double>
__host__ __device__ inline void cell_rowparent(int s, const int4* __restrict__ slot,
                                               const unsigned short* __restrict__ dist, V* __restrict__ d,
                                               const V* __restrict__ u, V* __restrict__ rhs) {
    cell_rowparent_at<S, Pad, V>(ld_ro(slot + s), dist, d, u, rhs);
}

}  // namespace arbolito::gpu::sweeps
