#pragma once
// gpu-branch (multi-morphology, Valero-Lara; docs/solvers.md) on the device: the branch-level
// solve of solvers/branch_layout.hpp, one thread per branch, with either coupling:
//  fold: three launches per level (a Thomas sweep per branch from the leaves up, the
//        fixed-order coupling of the level's folds into their parent CVs, and from the
//        root down the forward sweep);
//  edd:  four or five launches whatever the depth (every interior, every junction row,
//        every cell's junction system: the groups of 32 cells staged in shared memory, then
//        the others; every interior again); or, on a numbering laid out by tiles
//        (branch_level_layout's tile_cvs), one launch: a CUDA block per tile copies its
//        rows into shared memory, runs the same four steps there and writes the solution
//        back, reading and writing each row once.
// The per-thread steps are the host reference's own (branch_sweeps.hpp, edd_sweeps.hpp).
// With `graph` the launches are recorded once into a CUDA graph and replayed per solve.
#include <cuda_runtime.h>

#include "core/gpu/graph.hpp"
#include "core/gpu/memory.hpp"
#include "solvers/branch_layout.hpp"

namespace arbolito::gpu {

// Bytes of one EDD junction row staged in shared memory: E, R, P, Q and its parent.
constexpr int edd_junction_row_bytes = 4 * sizeof(double) + sizeof(int);

struct GpuBranchOptions {
    Coupling coupling = Coupling::fold;
    Padding padding = Padding::compute;
    bool graph = true;
    // CUDA block size of each launch; 0: by the launch's thread count, 32 where it is too
    // small to give every SM four blocks of 128 (a few warps per SM spread over all SMs
    // wait on memory in parallel), else 128.
    int threads = 0;
    // EDD: shared memory (bytes, at most 96 KiB) for the junction rows of a block's 32
    // cells; groups needing more solve in device memory. -1: 96 KiB where all staged
    // blocks run at once, else 74 KiB. The same bits either way.
    int junction_shared = -1;
    // EDD by tiles: each block, once its own rows have landed, prefetches into L2 the rows
    // of the tile this many blocks ahead, so that later blocks copy from L2 while device
    // memory streams on behind the first wave's arithmetic. -1: half the blocks resident at
    // once where the launch has more tiles than that, else none; 0: none. The same bits.
    int prefetch = -1;
    // EDD by tiles: the first wave's blocks start skewed over this many ns (block b of the
    // first wave waits (b / SMs) of (blocks an SM) steps), so that they do not all copy,
    // then all compute, in step. -1: 8,000 where the launch has more tiles than the GPU holds
    // at once, else none (plan_tiles); 0: none. The same bits.
    int skew_ns = -1;
};

struct GpuBranchPlan {
    GpuBranchOptions options;
    int sms = 1;  // the device's multiprocessors
    int n_slots = 0;
    DeviceArray<int> first, stride, walk;  // per slot; walk: padded or own length
    // fold
    std::vector<int> level_first, couple_level;  // host: launch ranges per level
    DeviceArray<int> parent, couple_cv, couple_first, couple_slot;
    mutable DeviceArray<double> fold_d, fold_r;  // workspace: per slot
    // edd
    int n_junctions = 0, n_cells = 0, junction_base = 0;
    int junction_shared = 0;                        // bytes: the staged groups' largest rows
    DeviceArray<int> groups_staged, groups_in_memory;  // groups of 32 cells, by where their junction rows go
    DeviceArray<int> size, up, down, cell_first, jparent, jslot, child_first, child_slot;
    // edd by tiles: a record per tile (hines_gpu_branch.cu's TileInfo), the block size (the
    // most slots of a tile, whole warps) and shared memory (the largest tile's)
    int n_tiles = 0, tile_threads = 0, tile_shared = 0;
    int tile_wave = 0;         // blocks of edd_tiles resident at once (all SMs)
    int tile_prefetch = 0;     // blocks ahead (GpuBranchOptions::prefetch resolved)
    int tile_skew_step = 0;    // ns a first-wave block waits per SM-round of the wave
    DeviceArray<int> tile_info;
    mutable DeviceArray<double> h, ends, E, R, P, Q;  // workspace
    mutable GraphReplay graph;
};

// Shared memory of an EDD tile's block: its rows' d, u (then h) and rhs; its slots' ends
// (the bottom's a, the first row's u and the two excess gains; the top's coefficients are
// read from the rows, the bottom's y goes into the branch point's rhs) and schedule (six
// ints); its junctions' Q (E, R and P are written over the junction rows' d, rhs and u),
// parent, slot and child list start; its child list; its cells' first junctions.
constexpr int edd_tile_ends = 4;
constexpr long edd_tile_bytes(long rows, long slots, long junctions, long children, long cells) {
    return 3 * 8 * rows + (edd_tile_ends * 8 + 6 * 4) * slots + (8 + 3 * 4) * junctions + 4 * (children + cells + 2);
}

// layout, slots, junctions: from one branch_level_layout with options.coupling. Throws
// std::invalid_argument where a tile needs more shared memory than a block may have.
GpuBranchPlan make_gpu_branch_plan(const Layout& layout, const BranchSlots& slots, const Junctions& junctions,
                                   const GpuBranchOptions& options = {});

// Solves every cell's system in place on `stream`, in the layout's numbering: on return
// rhs holds the solution; d is overwritten; u is read only. Padding rows must hold d = 1,
// u = 0, rhs = 0, and stay so.
void gpu_branch_solve(const GpuBranchPlan& plan, double* d, const double* u, double* rhs, cudaStream_t stream);

}  // namespace arbolito::gpu
