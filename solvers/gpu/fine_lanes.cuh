#pragma once
// gpu-fine's block solve in the lanes' order (solvers/fine_lanes.hpp; the resident step's
// `solve=lanes`): each thread takes its own branches a turn of eight rows at a time
// (fine_sweeps' eliminate_turn, substitute_turn) as soon as they are ready, instead of
// one level at a time with a barrier between levels. A branch is ready when the flags of
// its children (the elimination) or of its parent (the substitution) say so. The flags
// are per-branch ints in shared memory, written by the branch's own thread with release
// and read with acquire order: no read-modify-write, so the same arithmetic in the same
// order per row whatever the timing, the bits of the level loop.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include "solvers/fine_lanes.hpp"
#include "solvers/gpu/fine_block.cuh"

namespace arbolito::gpu {

// A block's lanes in shared memory (block-local, as FineLanes' per-block parts).
struct FineBlockLanes {
    const int *begin, *item, *level, *parent;
    int* flag;  // per branch: 2g+1 once eliminated in step g of the launch, 2g+2 once substituted
};

// Copies block B's lanes (lane_begin at the block's threads + 1 entries) to shared memory
// at `si` (FineLanes::shared_bytes(B, blockDim.x) bytes) with every thread and zeroes the
// flags; the caller's barrier makes them visible.
__device__ __forceinline__ FineBlockLanes load_fine_lanes(const FineSchedule::Block& B, int* si,
                                                          const int* __restrict__ lane_begin,
                                                          const int* __restrict__ item,
                                                          const int* __restrict__ item_level,
                                                          const int* __restrict__ parent_branch) {
    const int t = threadIdx.x, nt = blockDim.x, nb = B.n_branches;
    int* sbeg = si;
    int* sitem = sbeg + nt + 1;
    int* slev = sitem + nb;
    int* spar = slev + nb;
    int* sflag = spar + nb;
    for (int i = t; i <= nt; i += nt) sbeg[i] = lane_begin[i];
    for (int i = t; i < nb; i += nt) {
        sitem[i] = item[B.branch0 + i];
        slev[i] = item_level[B.branch0 + i];
        spar[i] = parent_branch[B.branch0 + i];
        sflag[i] = 0;
    }
    return {sbeg, sitem, slev, spar, sflag};
}

namespace lanes_detail {
__device__ __forceinline__ int acquire(int& f) {
    return cuda::atomic_ref<int, cuda::thread_scope_block>(f).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ void release(int& f, int v) {
    cuda::atomic_ref<int, cuda::thread_scope_block>(f).store(v, cuda::memory_order_release);
}
}  // namespace lanes_detail

// The solve of step g (0, 1, ... within the launch) over D, U, R and the folds FD, FR,
// as solve_levels (fine_block.cuh): ends with a barrier, R holding the solution.
template <int N>
__device__ __forceinline__ void solve_lanes(const FineBlockSchedule& s, const FineBlockLanes& l, double* D,
                                            const double* U, double* R, double* FD, double* FR, int g) {
    using namespace lanes_detail;
    const int t = threadIdx.x, first = l.begin[t], end = l.begin[t + 1];
    const int eliminated = 2 * g + 1, substituted = 2 * g + 2;
    bool started = false;
    int b = 0, i = 0, base = 0, k = 0, len = 0;
    const int* pos = nullptr;
    double dx = 0.0, rx = 0.0;
    // Elimination: this lane's branches leaf first; a branch once its children are done.
    // The loop runs while any lane of the warp has work, and the warp meets before each
    // turn, so that its lanes take their turns together (one issue of the turn's code),
    // whichever branch each is on.
    for (int it = first; __any_sync(0xffffffffu, it < end);) {
        bool go = false;
        if (it < end) {
            if (!started) {
                b = l.item[it];
                bool ready = true;
                for (int j = s.cb[b]; j < s.cb[b + 1]; ++j) ready &= acquire(l.flag[s.ch[j]]) == eliminated;
                if (ready) {
                    const FineSchedule::Level lev = s.lev[l.level[it]];
                    base = lev.base, pos = s.pos + lev.pos0, k = b - lev.branch0, i = s.len[b] - 1;
                    fine_sweeps::branch_start(b, base + pos[i] + k, s.cb, s.ch, D, R, FD, FR, dx, rx);
                    started = true;
                }
            }
            go = started;
        }
        __syncwarp();
        if (go && fine_sweeps::eliminate_turn<N>(b, i, base, pos, k, D, U, R, FD, FR, dx, rx)) {
            release(l.flag[b], eliminated);
            started = false;
            ++it;
        }
    }
    // The root's branch is the last of every elimination: a barrier costs nothing here.
    __syncthreads();
    // Substitution: the same branches in the reverse order; a branch once its parent is done.
    for (int it = end - 1; __any_sync(0xffffffffu, it >= first);) {
        bool go = false;
        if (it >= first) {
            if (!started) {
                b = l.item[it];
                const int p = l.parent[b];
                if (p < 0 || acquire(l.flag[p]) == substituted) {
                    const FineSchedule::Level lev = s.lev[l.level[it]];
                    base = lev.base, pos = s.pos + lev.pos0, k = b - lev.branch0, i = 0, len = s.len[b];
                    const int pcv = s.pcv[b];
                    dx = pcv >= 0 ? R[pcv] : 0.0;  // x of the parent CV
                    started = true;
                }
            }
            go = started;
        }
        __syncwarp();
        if (go && fine_sweeps::substitute_turn<N>(i, len, base, pos, k, D, R, dx)) {
            release(l.flag[b], substituted);
            started = false;
            --it;
        }
    }
    __syncthreads();
}

}  // namespace arbolito::gpu
