#pragma once
// gpu-fine's block-level solve (Huber's level loop), shared by its solve kernel
// (hines_gpu_fine.cu) and the epoch-resident step (gpu/resident_epoch.cu): the
// block's schedule copied to shared memory once, then one thread per branch of a level
// with a block-wide barrier between levels.
#include <cuda_runtime.h>

#include "solvers/fine_edd_sweeps.hpp"
#include "solvers/fine_layout.hpp"
#include "solvers/fine_sweeps.hpp"

namespace arbolito::gpu {

// A block's schedule in shared memory, block-local (FineSchedule's arrays from the
// block's first entry on; pos indexed as pos_base).
struct FineBlockSchedule {
    int n_levels;
    const FineSchedule::Level* lev;
    const int *pos, *len, *pcv, *cb, *ch;
    int n_branches, n_junctions;
    const int *dcv, *upr;  // an EDD block's distal CVs and runs above; null otherwise
    const int* kids;       // an EDD block's junction_kids (n_kids columns); null otherwise
    int n_kids;
    const int* runs;       // an EDD block's run_order; null otherwise
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
                                                                const int* __restrict__ distal_cv,
                                                                const int* __restrict__ up_run,
                                                                const int* __restrict__ junction_kids,
                                                                const int* __restrict__ run_order) {
    const int t = threadIdx.x, nt = blockDim.x, nb = B.n_branches;
    int* spos = si;
    auto* slev = reinterpret_cast<FineSchedule::Level*>(spos + B.n_pos);
    int* slen = reinterpret_cast<int*>(slev + B.n_levels);
    int* spcv = slen + nb;
    int* scb = spcv + nb;
    int* sch = scb + nb + 1;
    const int c0 = child_begin[B.branch0];
    for (int i = t; i < B.n_pos; i += nt) spos[i] = pos_base[B.pos0 + i];
    for (int i = t; i < B.n_levels; i += nt) slev[i] = levels[B.level0 + i];
    for (int i = t; i < nb; i += nt) slen[i] = length[B.branch0 + i], spcv[i] = parent_cv[B.branch0 + i];
    for (int i = t; i <= nb; i += nt) scb[i] = child_begin[B.branch0 + i] - c0;
    for (int i = t; i < B.n_child; i += nt) sch[i] = child[c0 + i];
    int *sdcv = nullptr, *supr = nullptr, *skids = nullptr, *sruns = nullptr;
    if (B.edd) {
        sdcv = sch + B.n_child;
        supr = sdcv + nb;
        skids = supr + nb;
        for (int i = t; i < nb; i += nt) sdcv[i] = distal_cv[B.branch0 + i], supr[i] = up_run[B.branch0 + i];
        sruns = skids + B.n_kids * B.n_junctions;
        for (int i = t; i < B.n_kids * B.n_junctions; i += nt) skids[i] = junction_kids[B.kids0 + i];
        for (int i = t; i < nb - B.n_junctions; i += nt) sruns[i] = run_order[B.runs0 + i];
    }
    return {B.n_levels, slev, spos - B.pos0, slen, spcv, scb, sch, nb, B.n_junctions,
            sdcv, supr, skids, B.n_kids, sruns};
}

// Block B's schedule read where it lies, in device memory: for a block whose schedule
// does not fit shared memory beside its data (one unbranched cell of some 50,000 CVs or
// more: its positions alone pass the 227 KiB a block may have). Indexed as
// load_fine_schedule's copy is.
__device__ __forceinline__ FineBlockSchedule device_fine_schedule(const FineSchedule::Block& B,
                                                                  const FineSchedule::Level* levels, const int* pos_base,
                                                                  const int* length, const int* parent_cv,
                                                                  const int* child_begin, const int* child,
                                                                  const int* distal_cv, const int* up_run,
                                                                  const int* junction_kids, const int* run_order) {
    return {B.n_levels, levels + B.level0, pos_base, length + B.branch0, parent_cv + B.branch0, child_begin + B.branch0,
            child, B.n_branches, B.n_junctions, B.edd ? distal_cv + B.branch0 : nullptr,
            B.edd ? up_run + B.branch0 : nullptr, B.edd ? junction_kids + B.kids0 : nullptr, B.n_kids,
            B.edd ? run_order + B.runs0 : nullptr};
}

// The level loop of one block over D, U, R (shared or device memory: generic pointers)
// and the folds FD, FR. Every thread reaches every barrier: the loops over a level's
// branches have no early exit. Ends with a barrier: R holds the solution. after_level(
// sweep, L, rows) after each level's barrier (sweep 0: elimination, 1: substitution;
// rows: the level's longest branch): a profile's hook (resident_epoch.cu), else nothing.
struct NoLevelHook {
    __device__ void operator()(int, int, int) const {}
};
// Work an EDD solve's caller gives the threads that wait for the junctions' tree:
// while_tree(t, nt) on thread t of nt, with no block barrier inside (NoTreeWork: none).
struct NoTreeWork {
    __device__ void operator()(int, int) const {}
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
        __syncthreads();
        after_level(0, L, l.positions);
    }
    for (int L = 0; L < s.n_levels; ++L) {
        const FineSchedule::Level l = s.lev[L];
        for (int k = t; k < l.n; k += nt)
            fine_sweeps::forward<Ahead>(k, l.base, s.pos + l.pos0, s.len[l.branch0 + k], s.pcv[l.branch0 + k], D, U,
                                        R);
        __syncthreads();
        after_level(1, L, l.positions);
    }
}

// A lane's junction of a level of the junctions' tree and what it loaded of it (A): lane
// 0's where the level has no junction t (on false: computed, never stored).
template <class A>
struct LevelLane {
    A a;
    int n, branch0;
    bool on;
};
// Level L's descriptor into x; the junction lane t loads.
template <class A>
__device__ __forceinline__ int lane_junction(const FineBlockSchedule& s, int L, int t, LevelLane<A>& x) {
    const FineSchedule::Level l = s.lev[L];
    x.n = l.n, x.branch0 = l.branch0, x.on = t < l.n;
    return l.branch0 + (x.on ? t : 0);
}

// The junctions' tree of an EDD block on the first warp (solve_edd's third step): lane t
// takes junction t of each level (a wider level loops), levels deepest first and then
// from the root, a warp barrier between levels. A level's step has no branch before its
// stores: a lane without a junction there computes lane 0's and stores nothing, so that
// the compiler may order the step's instructions freely. Its chain after the barrier is
// then the children's folds (their addresses a level old), the pivot and the stores;
// the next level's junction (level descriptor, children, operands) is loaded beside
// it, into the other of two register sets (levels go in pairs: nothing copied between
// levels). The children come from the padded table (FineSchedule::junction_kids).
__device__ __forceinline__ void junctions_on_warp(const FineBlockSchedule& s, double* D, double* R,
                                                  const fine_edd_sweeps::Scratch& w) {
    namespace es = fine_edd_sweeps;
    const int t = threadIdx.x, top = s.n_levels - 3;
    if (top < 0) return;
    const es::JunctionKids kids{s.kids, s.n_junctions, s.n_kids};
    if (t == 0) es::set_fold_pad(w, s.n_branches);
    __syncwarp();
    using Lane = LevelLane<es::JunctionAhead>;
    const auto load = [&](int L, Lane& x) { x.a = es::junction_ahead(lane_junction(s, L, t, x), kids, D, R, w); };
    const auto eliminate = [&](int L, const Lane& x, Lane& next) {
        const es::JunctionFolds f = es::junction_folds(x.a, w);
        load(L > 0 ? L - 1 : 0, next);  // the level above's (level 0's again after level 0: unused)
        const es::JunctionPivot p = es::pivot_junction(x.a, f, kids, w);
        if (x.on) es::junction_store(x.a.b, p, D, R, w);
        for (int k = t + 32; k < x.n; k += 32)  // a level wider than the warp
            es::junction_eliminate(es::junction_ahead(x.branch0 + k, kids, D, R, w), kids, D, R, w);
        __syncwarp();
    };
    Lane x0, x1;
    load(top, x0);
    for (int L = top;; L -= 2) {
        eliminate(L, x0, x1);
        if (L == 0) break;
        eliminate(L - 1, x1, x0);
        if (L == 1) break;
    }
    using SubLane = LevelLane<es::SubstituteAhead>;
    const auto sub_load = [&](int L, SubLane& x) {
        const int b = lane_junction(s, L, t, x);
        x.a = es::substitute_ahead(b, s.pcv[b], D, R, w);
    };
    const auto substitute = [&](int L, const SubLane& x, SubLane& next) {
        const double vp = R[x.a.pcv >= 0 ? x.a.pcv : x.a.b];  // x.a.b: any CV (unused at the root)
        sub_load(L < top ? L + 1 : top, next);
        const double v = es::junction_value(x.a, x.a.pcv >= 0 ? vp : 0.0);
        if (x.on) R[x.a.b] = v;
        for (int k = t + 32; k < x.n; k += 32)
            es::junction_substitute(es::substitute_ahead(x.branch0 + k, s.pcv[x.branch0 + k], D, R, w), R);
        __syncwarp();
    };
    SubLane y0, y1;
    sub_load(0, y0);
    for (int L = 0;; L += 2) {
        substitute(L, y0, y1);
        if (L == top) break;
        substitute(L + 1, y1, y0);
        if (L + 1 == top) break;
    }
}

// An EDD block's solve (fine_edd_sweeps.hpp) over D, U, R, its scratch F and H: every run at
// once; every junction's row assembled at once; the junctions' tree by the block's first
// warp alone (a level's junctions on its lanes, a warp's barrier between levels: the
// block's barrier waits for its slowest warp, and the serial phase has only each
// junction's junction children and its division left); every run completed at once.
// Ends with a barrier: R holds the solution. after_level as solve_levels' (sweep 0: the
// runs (level 1), the junctions' rows (2), their tree on the first warp (3), then the
// wait for the other warps' work beside it (0); 1: the runs' completion).
// while_tree: run by the block's other warps beside the tree (after it, where the block
// is one warp).
template <class AfterLevel = NoLevelHook, class WhileTree = NoTreeWork>
__device__ __forceinline__ void solve_edd(const FineBlockSchedule& s, double* D, const double* U, double* R,
                                          double* F, double* H, AfterLevel after_level = {},
                                          WhileTree while_tree = {}) {
    namespace es = fine_edd_sweeps;
    const int t = threadIdx.x, nt = blockDim.x;
    const es::Scratch w = es::scratch(F, s.n_branches, s.n_junctions, H);
    // The runs (with a junction below: level n_levels - 2; without: the last) by length
    // over both levels (the schedule's run_order) over the block's threads: thread t's
    // first run is rank f - 1 - t (f = min(nt, n_runs)), its second rank nt + t, so that
    // the longest of the second runs joins the shortest of the first (each_run).
    const FineSchedule::Level inner = s.lev[s.n_levels - 2], leaf = s.lev[s.n_levels - 1];
    const int run0 = inner.branch0, n_runs = inner.n + leaf.n, leaf_shift = leaf.base - leaf.branch0;
    const int rows = inner.positions > leaf.positions ? inner.positions : leaf.positions;
    const auto each_run = [&](auto&& step) {  // step(branch, slot, its level) on this thread's runs
        const int f = nt < n_runs ? nt : n_runs;
        for (int k = t; k < n_runs; k += nt) {
            const int p = s.runs[k < nt ? f - 1 - k : k];
            const FineSchedule::Level& r = p < inner.n ? inner : leaf;
            const int slot = p < inner.n ? p : p - inner.n;
            step(r.branch0 + slot, slot, r);
        }
    };
    each_run([&](int b, int slot, const FineSchedule::Level& r) {
        es::run_eliminate(b, slot, r.base, s.pos + r.pos0, s.len[b], s.dcv[b], D, U, R, w);
    });
    __syncthreads();
    after_level(0, 1, rows);
    for (int b = t; b < run0; b += nt)
        es::junction_assemble(b, s.upr[b], s.pcv[b], s.cb, s.ch, run0, leaf.branch0, leaf_shift, s.upr, D, U, R, w);
    __syncthreads();
    after_level(0, 2, run0);  // a profile's: the junctions' rows apart from their tree
    if (t < 32) junctions_on_warp(s, D, R, w);
    after_level(0, 3, s.n_levels - 2);  // a profile's: the tree on the first warp, before its wait
    if (nt > 32) {
        if (t >= 32) while_tree(t - 32, nt - 32);
    } else {
        __syncwarp();
        while_tree(t, nt);
    }
    __syncthreads();
    after_level(0, 0, s.n_levels - 2);
    each_run([&](int b, int slot, const FineSchedule::Level& r) {
        es::run_complete(slot, r.base, s.pos + r.pos0, s.len[b], s.pcv[b], s.dcv[b], D, R, w.h);
    });
    __syncthreads();
    after_level(1, 0, rows);
}

// The kernels' `Ahead` for an EDD schedule (which loads no chunks ahead): a kernel
// instance has the code of one solve only, so that EDD's registers and code weigh nothing
// on the level loop's instances and the other way round.
constexpr int edd_solve = 0;

// A block's solve: EDD (Ahead edd_solve) or the level loop with Ahead rows ahead. F: its
// scratch (FineSchedule::fold_doubles; the level loop's folds FD = F, FR = F + n_branches);
// H: EDD's h (FineSchedule::h_doubles).
// while_tree: EDD's (solve_edd); the level loop has no such phase and takes none.
template <int Ahead, class AfterLevel = NoLevelHook, class WhileTree = NoTreeWork>
__device__ __forceinline__ void solve_block_schedule(const FineBlockSchedule& s, double* D, const double* U, double* R,
                                                     double* F, double* H, AfterLevel after_level = {},
                                                     WhileTree while_tree = {}) {
    if constexpr (Ahead == edd_solve) solve_edd(s, D, U, R, F, H, after_level, while_tree);
    else solve_levels<Ahead>(s, D, U, R, F, F + s.n_branches, after_level);
}

}  // namespace arbolito::gpu
