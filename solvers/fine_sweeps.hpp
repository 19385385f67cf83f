#pragma once
// The per-branch steps of the fine-grained solve (fine_layout.hpp): one thread per branch
// on the GPU, one call per branch on the host. All indices are block-local: D, U, R point
// at the block's first CV (in shared memory or device memory), FD, FR at its folds, pos
// at the level's position offsets.
//
// The arithmetic is the serial Hines solve's (hines.hpp), so that the solve gives its bits
// (tests/unit/test_solver_bits.cpp): per row f = u / d' correctly rounded, d and rhs of
// the next row less f u and f rhs' (each product rounded, then the difference: never
// fused), and x = (rhs' - u x_p) / d'. The backward step leaves, per row, the pivot d' in
// D and rhs' in R (after elimination) for the forward step; the fold of the branch's first
// CV into its parent CV (what the parent's d and rhs lose) goes to the branch's own slot
// in FD, FR, and the parent's thread subtracts its children's folds one by one in the
// serial solve's order (fine_layout's child lists): no atomics, the same bits every run.
//
// Rows go in chunks of Ahead: a chunk's indices and values are all loaded before its
// arithmetic starts, so a thread waits one load latency per chunk, not one per row (the
// loads do not depend on the elimination: only this thread writes its branch's rows).
// More rows ahead hide more latency but take more registers (fewer blocks per SM).
// Within a chunk there is no branch (the rest of a branch goes in chunks of 4, 2 and 1).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/hd.hpp"
#include "core/reciprocal.hpp"
#include "core/uncontracted.hpp"

namespace arbolito::fine_sweeps {

// A row's pivot d' = d - (u / d'_before) u hangs on the row before's quotient: ~70 cycles
// a row on an H100, 54 of them the reciprocal (bench/RESULTS.md, the chain bench). So each
// row's 1 / d' is predicted ahead, off that chain, by the continuant of the branch's rows,
// a three-term recurrence with no division in it:
//     pb <- d pb - u^2 pa,    pa <- pb        (d' = pb / pa at every row),
// and the chain only takes the quotient's correction step with the prediction r
// (gpu::divide_by: q = u r off the chain, then f = q + (u - q d') r, two multiply-adds),
// then d' of the next row = d - f u (a product and a difference): four operations a row.
// The prediction is good to ~1e-13 (the continuant is the dominant solution of a
// diagonally dominant matrix's recurrence), so the correction leaves f the correctly
// rounded u / d' (but in rare ties) from the very pivots the chain computes: the
// arithmetic is the serial solve's, the continuant only says where to look. pa, pb grow as
// the product of the pivots; every chunk scales them by a power of two near 1 / pa,
// which is exact, so where the chunks fall changes no bit (either Ahead gives the same
// results). Pivots between about 1e-30 and 1e30 never overflow a chunk: far outside any
// cable equation's in µS.
struct Pivots {
    double d, r;    // the row's d' and rhs' (its children's folds and the rows above taken)
    double pa, pb;  // its continuant: d' ~ pb / pa
};

// 2^-e for x = m 2^e (1 <= |m| < 2): exact to multiply by, for normal x.
ARB_HD double inverse_power_of_two(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    b = (std::uint64_t{0x7fe} << 52) - (b & (std::uint64_t{0x7ff} << 52));
    std::memcpy(&x, &b, sizeof b);
    return x;
}

// Eliminates rows i, i-1, ..., i-N+1 of a branch (all >= 1) into the row below each
// (towards position 0): u, and the next rows' d and rhs are all loaded before any
// arithmetic, and the arithmetic has no branch. Their indices come in xs (rows i ... i-N,
// loaded a chunk before, so that a chunk's loads wait on one latency, not on the position
// offsets' and then the data's: 1.7-2.1 % of the resident kernel, bench/RESULTS.md call
// 14e), and xs leaves holding the next chunk's, rows i-N ... i-N-M+1 (clamped at row 0;
// a tail's extra loads are harmless). A GPU issues each warp's instructions in order, so
// the code is written in the order it should run: the continuant's chain, then every
// row's approximate reciprocal, then their Newton steps (each waits on nothing by then),
// then the pivots' chain, each row's d' and rhs' stored as its step starts (the step before
// computed them: a store waits for its value, and stalls what comes after it, so none is
// stored as soon as computed). p: row i's on entry, row i-N's on return.
template <int N, int M>
ARB_HD void eliminate_rows(int i, int base, const int* pos, int k, double* D, const double* U, double* R, Pivots& p,
                           int (&xs)[M]) {
    static_assert(N < M, "a chunk's indices come from the chunk before");
    int x[N + 1];
    double u[N], dp[N], rp[N], pb[N + 1], r[N];
    ARB_UNROLL
    for (int j = 0; j <= N; ++j) x[j] = xs[j];
    ARB_UNROLL
    for (int j = 0; j < N; ++j) {
        u[j] = U[x[j]];
        dp[j] = D[x[j + 1]];
        rp[j] = R[x[j + 1]];
    }
    xs[0] = x[N];
    ARB_UNROLL
    for (int j = 1; j < M; ++j) xs[j] = base + pos[i - N - j > 0 ? i - N - j : 0] + k;
    pb[0] = p.pb;  // row j's continuant: pb[j] / pb[j - 1], pb[-1] = p.pa
    ARB_UNROLL
    for (int j = 0; j < N; ++j) pb[j + 1] = std::fma(dp[j], pb[j], -(u[j] * u[j]) * (j ? pb[j - 1] : p.pa));
    ARB_UNROLL
    for (int j = 0; j < N; ++j) r[j] = gpu::reciprocal_approx(pb[j]);
    ARB_UNROLL
    for (int j = 0; j < N; ++j) r[j] = (j ? pb[j - 1] : p.pa) * gpu::newton_step(r[j], pb[j]);
    double dx = p.d, rx = p.r;
    ARB_UNROLL
    for (int j = 0; j < N; ++j) {
        D[x[j]] = dx, R[x[j]] = rx;
        const double f = gpu::divide_by(u[j], dx, r[j]);
        dx = minus_product(dp[j], f, u[j]);  // the chain: f's correction, f u, d'
        rx = minus_product(rp[j], f, rx);
    }
    const double s = inverse_power_of_two(pb[N - 1]);
    p = {dx, rx, pb[N - 1] * s, pb[N] * s};
}

// Branch b (slot k of a level, length len >= 1): its distal row less its children's
// folds (subtracted in a fixed order), rows len-1 ... 1 in chunks of Ahead (then 4, 2, 1
// for the rest), then row 0, whose fold into the parent CV (what the parent's d and rhs
// lose) goes to FD[b], FR[b]. (Loading the head, row 0's u and the distal row, before the
// level's barrier, which nothing of the children's level writes them across, measured
// slower on the H100.)
template <int Ahead>
ARB_HD void backward(int b, int k, int base, const int* pos, int len, const int* child_begin, const int* child,
                     double* D, const double* U, double* R, double* FD, double* FR) {
    static_assert(Ahead == 4 || Ahead == 8, "chunks of 8 or 4 rows, then 2 and 1");
    const int x0 = base + pos[0] + k, xd = base + pos[len - 1] + k;
    const double u0 = U[x0];  // nobody writes u: loaded ahead of the chain
    double dx = D[xd], rx = R[xd];
    for (int j = child_begin[b]; j < child_begin[b + 1]; ++j) {
        dx -= FD[child[j]];
        rx -= FR[child[j]];
    }
    Pivots p{dx, rx, 1.0, dx};
    int i = len - 1, xs[Ahead + 1];  // the first chunk's indices
    ARB_UNROLL
    for (int j = 0; j <= Ahead; ++j) xs[j] = base + pos[i - j > 0 ? i - j : 0] + k;
    for (; i >= Ahead; i -= Ahead) eliminate_rows<Ahead>(i, base, pos, k, D, U, R, p, xs);
    if constexpr (Ahead == 8)
        if (i >= 4) eliminate_rows<4>(i, base, pos, k, D, U, R, p, xs), i -= 4;
    if (i >= 2) eliminate_rows<2>(i, base, pos, k, D, U, R, p, xs), i -= 2;
    if (i >= 1) eliminate_rows<1>(i, base, pos, k, D, U, R, p, xs);
    const double f = gpu::divide(u0, p.d);  // row 0 (a root's u is 0: its fold is 0)
    D[x0] = p.d;
    R[x0] = p.r;
    FD[b] = product(f, u0);
    FR[b] = product(f, p.r);
}

// x at rows i ... i+N-1 of a branch (all < len), from xp, the row before's x:
// (rhs' - u x_p) / d' with the quotient's reciprocal taken before the chain reaches the
// row (it waits on the loads only); each x stored a row late (a store waits for its
// value). The indices come in xs (rows i ... i+N-1, loaded a chunk before, as in
// eliminate_rows), and xs leaves holding the next chunk's, rows i+N ... i+N+A-1 (clamped
// at the last row).
template <int N, int A>
ARB_HD void substitute_rows(int i, int base, const int* pos, int k, int last, const double* D, const double* U,
                            double* R, double& xp, int (&xs)[A]) {
    static_assert(N <= A, "a chunk's indices come from the chunk before");
    int x[N];
    double d[N], u[N], g[N], r[N];
    ARB_UNROLL
    for (int j = 0; j < N; ++j) {
        x[j] = xs[j];
        d[j] = D[x[j]];
        u[j] = U[x[j]];
        g[j] = R[x[j]];
    }
    ARB_UNROLL
    for (int j = 0; j < A; ++j) xs[j] = base + pos[i + N + j < last ? i + N + j : last] + k;
    ARB_UNROLL
    for (int j = 0; j < N; ++j) r[j] = gpu::reciprocal_once(d[j]);
    double late = 0;
    ARB_UNROLL
    for (int j = 0; j < N; ++j) {
        if (j) R[x[j - 1]] = late;
        xp = gpu::divide_by(minus_product(g[j], u[j], xp), d[j], r[j]);
        late = xp;
    }
    R[x[N - 1]] = late;
}

// x along the branch from position 0 (its parent CV's x final: an earlier level), in
// chunks as backward's.
template <int Ahead>
ARB_HD void forward(int k, int base, const int* pos, int len, int parent_cv, const double* D, const double* U,
                    double* R) {
    double xp = parent_cv >= 0 ? R[parent_cv] : 0.0;
    const int last = len - 1;
    int i = 0, xs[Ahead];  // the first chunk's indices
    ARB_UNROLL
    for (int j = 0; j < Ahead; ++j) xs[j] = base + pos[j < last ? j : last] + k;
    for (; i + Ahead <= len; i += Ahead) substitute_rows<Ahead>(i, base, pos, k, last, D, U, R, xp, xs);
    if constexpr (Ahead == 8)
        if (i + 4 <= len) substitute_rows<4>(i, base, pos, k, last, D, U, R, xp, xs), i += 4;
    if (i + 2 <= len) substitute_rows<2>(i, base, pos, k, last, D, U, R, xp, xs), i += 2;
    if (i < len) substitute_rows<1>(i, base, pos, k, last, D, U, R, xp, xs);
}

}  // namespace arbolito::fine_sweeps
