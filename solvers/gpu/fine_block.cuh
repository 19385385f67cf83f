#pragma once
// gpu-fine's block-level solve (Huber's level loop), shared by its solve kernel
// (hines_gpu_fine.cu) and the epoch-resident step (engine/gpu/resident_epoch.cu): the
// block's schedule copied to shared memory once, then one thread per branch of a level
// with a block-wide barrier between levels.
#include <cuda_runtime.h>

#include "solvers/fine_layout.hpp"
#include "solvers/fine_sweeps.hpp"

namespace arbolito::gpu {

// A block's schedule in shared memory, block-local (FineSchedule's arrays from the
// block's first entry on; pos indexed as pos_base).
struct FineBlockSchedule {
    int n_levels;
    const FineSchedule::Level* lev;
    const int *pos, *len, *pcv, *cb, *ch;
    const FineSchedule::Twist* tw;
    double* h;  // the twists' rows (FineSchedule::Twist)
};

// Copies block B's schedule into shared memory at `si` (FineSchedule::schedule_bytes(B)
// bytes) with every thread of the block; the caller's barrier makes it visible.
__device__ __forceinline__ FineBlockSchedule load_fine_schedule(const FineSchedule::Block& B, int* si,
                                                                const FineSchedule::Level* __restrict__ levels,
                                                                const int* __restrict__ pos_base,
                                                                const int* __restrict__ length,
                                                                const int* __restrict__ parent_cv,
                                                                const int* __restrict__ child_begin,
                                                                const int* __restrict__ child,
                                                                const FineSchedule::Twist* __restrict__ twist) {
    const int t = threadIdx.x, nt = blockDim.x, nb = B.n_branches;
    int* spos = si;
    auto* slev = reinterpret_cast<FineSchedule::Level*>(spos + B.n_pos);
    int* slen = reinterpret_cast<int*>(slev + B.n_levels);
    int* spcv = slen + nb;
    int* scb = spcv + nb;
    int* sch = scb + nb + 1;
    auto* stw = reinterpret_cast<FineSchedule::Twist*>(sch + B.n_child);
    const int c0 = child_begin[B.branch0];
    for (int i = t; i < B.n_pos; i += nt) spos[i] = pos_base[B.pos0 + i];
    for (int i = t; i < B.n_levels; i += nt) slev[i] = levels[B.level0 + i];
    for (int i = t; i < nb; i += nt) slen[i] = length[B.branch0 + i], spcv[i] = parent_cv[B.branch0 + i];
    for (int i = t; i <= nb; i += nt) scb[i] = child_begin[B.branch0 + i] - c0;
    for (int i = t; i < B.n_child; i += nt) sch[i] = child[c0 + i];
    for (int i = t; i < B.n_tw; i += nt) stw[i] = twist[B.tw0 + i];
    double* sh = reinterpret_cast<double*>(si) + FineSchedule::schedule_int_doubles(B);
    return {B.n_levels, slev, spos - B.pos0, slen, spcv, scb, sch, stw, sh};
}

// Block B's schedule read where it lies, in device memory: for a block whose schedule
// does not fit shared memory beside its data (one unbranched cell of some 50,000 CVs or
// more: its positions alone pass the 227 KiB a block may have). Indexed as
// load_fine_schedule's copy is.
__device__ __forceinline__ FineBlockSchedule device_fine_schedule(const FineSchedule::Block& B,
                                                                  const FineSchedule::Level* levels, const int* pos_base,
                                                                  const int* length, const int* parent_cv,
                                                                  const int* child_begin, const int* child,
                                                                  const FineSchedule::Twist* twist, double* h) {
    return {B.n_levels, levels + B.level0, pos_base, length + B.branch0, parent_cv + B.branch0, child_begin + B.branch0,
            child, twist + B.tw0, h + B.h0};
}

// The level loop of one block over D, U, R (shared or device memory: generic pointers),
// the folds FD, FR and the twists' rows s.h (FineSchedule::Twist). Per level, the threads
// from 0 take its branches, those from the next warp on its top group (so that each warp
// runs one sweep), which after a barrier join their twists. (ARBOLITO_TWIST_STRIP, a
// bench variant, compiles the twists out: the cost of their code where none run.) Every thread reaches every barrier: the
// loops over a level's branches have no early exit. Ends with a barrier: R holds the
// solution. after_level(sweep, L, rows) after each level's barrier (sweep 0: elimination,
// 1: substitution; rows: the level's longest chain, a top piece's less its row m): a profile's hook
// (resident_epoch.cu), else nothing.
struct NoLevelHook {
    __device__ void operator()(int, int, int) const {}
};
template <int Ahead, class AfterLevel = NoLevelHook>
__device__ __forceinline__ void solve_levels(const FineBlockSchedule& s, double* D, const double* U, double* R,
                                             double* FD, double* FR, AfterLevel after_level = {}) {
    const int t = threadIdx.x, nt = blockDim.x;
    for (int L = s.n_levels - 1; L >= 0; --L) {
        const FineSchedule::Level l = s.lev[L];
        for (int k = t; k < l.n; k += nt)
            fine_sweeps::backward<Ahead>(l.branch0 + k, k, l.base, s.pos + l.pos0, s.len[l.branch0 + k], s.cb, s.ch, D,
                                         U, R, FD, FR);
#ifndef ARBOLITO_TWIST_STRIP
        if (l.top_n > 0) {  // the same for every thread: a barrier inside is safe
            const int k = t - (l.n + 31) / 32 * 32;
            const bool top = k >= 0 && k < l.top_n;
            fine_sweeps::TopPivots tp{};
            if (top)
                tp = fine_sweeps::backward_top<Ahead>(k, l.top_base, s.pos + l.top_pos0, s.len[l.top_branch0 + k], D, U,
                                                      R, s.h, l.top_h0 - l.top_base);
            __syncthreads();  // the bottom pieces' folds
            if (top) fine_sweeps::join_twist(s.tw[l.top_tw0 + k], tp, D, R, FD, FR);
        }
#endif
        __syncthreads();
        after_level(0, L, max(l.positions, l.top_positions - 1));
    }
    for (int L = 0; L < s.n_levels; ++L) {
        const FineSchedule::Level l = s.lev[L];
        for (int k = t; k < l.n; k += nt)
            fine_sweeps::forward<Ahead>(k, l.base, s.pos + l.pos0, s.len[l.branch0 + k], s.pcv[l.branch0 + k], s.tw, D,
                                        R, FD, FR);
#ifndef ARBOLITO_TWIST_STRIP
        if (const int k = t - (l.n + 31) / 32 * 32; k >= 0 && k < l.top_n)
            fine_sweeps::forward_top<Ahead>(k, l.top_base, s.pos + l.top_pos0, s.len[l.top_branch0 + k],
                                            s.pcv[l.top_branch0 + k], D, R, s.h, l.top_h0 - l.top_base);
#endif
        __syncthreads();
        after_level(1, L, max(l.positions, l.top_positions - 1));
    }
}

}  // namespace arbolito::gpu
