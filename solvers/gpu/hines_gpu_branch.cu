#include "solvers/gpu/hines_gpu_branch.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <cuda_pipeline.h>

#include "core/gpu/shared_memory_limit.hpp"
#include "solvers/branch_sweeps.hpp"
#include "solvers/edd_sweeps.hpp"

namespace arbolito::gpu {

namespace {

__device__ int thread_index() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }

__global__ void branch_backward(int s0, int s1, const int* __restrict__ first, const int* __restrict__ stride,
                                const int* __restrict__ walk, const int* __restrict__ parent, double* __restrict__ d,
                                const double* __restrict__ u, double* __restrict__ rhs, double* __restrict__ fold_d,
                                double* __restrict__ fold_r) {
    const int s = s0 + thread_index();
    if (s < s1) branch_sweeps::backward(s, first, stride, walk, parent, d, u, rhs, fold_d, fold_r);
}

__global__ void branch_couple(int j0, int j1, const int* __restrict__ couple_cv, const int* __restrict__ couple_first,
                              const int* __restrict__ couple_slot, const double* __restrict__ fold_d,
                              const double* __restrict__ fold_r, double* __restrict__ d, double* __restrict__ rhs) {
    const int j = j0 + thread_index();
    if (j < j1) branch_sweeps::couple(j, couple_cv, couple_first, couple_slot, fold_d, fold_r, d, rhs);
}

__global__ void branch_forward(int s0, int s1, const int* __restrict__ first, const int* __restrict__ stride,
                               const int* __restrict__ walk, const int* __restrict__ parent,
                               const double* __restrict__ d, const double* __restrict__ u,
                               double* __restrict__ rhs) {
    const int s = s0 + thread_index();
    if (s < s1) branch_sweeps::forward(s, first, stride, walk, parent, d, u, rhs);
}

__global__ void edd_eliminate(int n, const int* __restrict__ first, const int* __restrict__ stride,
                              const int* __restrict__ size, const int* __restrict__ walk, const int* __restrict__ up,
                              const int* __restrict__ down, double* __restrict__ d, const double* __restrict__ u,
                              double* __restrict__ rhs, double* __restrict__ h, double* __restrict__ ends) {
    const int s = thread_index();
    if (s < n) edd_sweeps::eliminate(s, first, stride, size, walk, up, down, d, u, rhs, h, ends);
}

__global__ void edd_assemble(int n, int base, const int* __restrict__ jparent, const int* __restrict__ jslot,
                             const int* __restrict__ child_first, const int* __restrict__ child_slot,
                             const double* __restrict__ d, const double* __restrict__ u,
                             const double* __restrict__ rhs, const double* __restrict__ ends, double* __restrict__ E,
                             double* __restrict__ R, double* __restrict__ P, double* __restrict__ Q) {
    const int k = thread_index();
    if (k < n) edd_sweeps::assemble(k, base, jparent, jslot, child_first, child_slot, d, u, rhs, ends, E, R, P, Q);
}

// EDD's junction systems, 32 consecutive cells (a group) a block, a thread of its first
// warp per cell. A group's junction rows are one contiguous range. Groups whose rows fit
// the launch's shared memory: the block's 128 threads first copy them there (contiguous
// loads, four warps of them in flight), then each cell's system is solved there. The
// other groups, launched apart with no shared memory (which would hold them to a few
// blocks an SM), solve in device memory. (Read from device memory a cell per thread, the
// loads are 32 lines apart and wait on L2: Nsight Compute, H100.)
constexpr int junction_cells = 32;
constexpr int junction_threads = 128;
// Staged blocks of up to 96 KiB when they all run at once; beyond one wave, at most 74 KiB
// (three blocks an SM): real cells at 25,600, whose groups need 74-96 KiB, ran two blocks
// an SM in four waves and lost 24 % to their rows left in device memory, where at 256 and
// 2,560 cells (one wave) staging them gained 24-28 % (H100, the multi-morphology study's cells).
constexpr int junction_shared_cap = 96 * 1024;
constexpr int junction_shared_cap_waves = 74 * 1024;

// The groups of 32 cells whose junction rows fit `cap` bytes (staged), the others, and the
// largest staged rows' bytes.
struct JunctionGroups {
    std::vector<int> staged, in_memory;
    int shared = 0;
};
JunctionGroups junction_groups(const Junctions& j, int n_cells, int cap) {
    JunctionGroups g;
    for (int k = 0; k * junction_cells < n_cells; ++k) {
        const int c0 = k * junction_cells;
        const long bytes =
            static_cast<long>(j.cell_first[std::min(n_cells, c0 + junction_cells)] - j.cell_first[c0]) * edd_junction_row_bytes;
        if (bytes <= cap) {
            g.staged.push_back(k);
            g.shared = std::max(g.shared, static_cast<int>(bytes));
        } else {
            g.in_memory.push_back(k);
        }
    }
    return g;
}

__global__ void __launch_bounds__(junction_threads)
    edd_junctions_staged(const int* __restrict__ groups, int n, int base, const int* __restrict__ cell_first,
                         const int* __restrict__ jparent, const double* __restrict__ E, const double* __restrict__ R,
                         const double* __restrict__ P, const double* __restrict__ Q, double* __restrict__ rhs) {
    extern __shared__ double sm[];
    const int t = static_cast<int>(threadIdx.x);
    const int c0 = groups[blockIdx.x] * junction_cells, c1 = min(n, c0 + junction_cells);
    const int kb = cell_first[c0], m = cell_first[c1] - kb, c = c0 + t;
    double *sE = sm, *sR = sm + m, *sP = sm + 2 * m, *sQ = sm + 3 * m;
    int* sparent = reinterpret_cast<int*>(sm + 4 * m);
#pragma unroll 4
    for (int i = t; i < m; i += junction_threads) {
        sE[i] = E[kb + i], sR[i] = R[kb + i], sP[i] = P[kb + i], sQ[i] = Q[kb + i];
        sparent[i] = jparent[kb + i];
    }
    __syncthreads();
    if (t < junction_cells && c < c1) edd_sweeps::junctions(c, base, cell_first, sparent, sE, sR, sP, sQ, rhs, kb);
}

__global__ void __launch_bounds__(junction_cells)
    edd_junctions_in_memory(const int* __restrict__ groups, int n, int base, const int* __restrict__ cell_first,
                            const int* __restrict__ jparent, double* __restrict__ E, double* __restrict__ R,
                            const double* __restrict__ P, const double* __restrict__ Q, double* __restrict__ rhs) {
    const int c = groups[blockIdx.x] * junction_cells + static_cast<int>(threadIdx.x);
    if (c < n) edd_sweeps::junctions(c, base, cell_first, jparent, E, R, P, Q, rhs);
}

__global__ void edd_complete(int n, const int* __restrict__ first, const int* __restrict__ stride,
                             const int* __restrict__ size, const int* __restrict__ walk, const int* __restrict__ up,
                             const int* __restrict__ down, const double* __restrict__ d, double* __restrict__ rhs,
                             const double* __restrict__ h) {
    const int s = thread_index();
    if (s < n) edd_sweeps::complete(s, first, stride, size, walk, up, down, d, rhs, h);
}

// The first wave's default skew (ns; about a block's life on the multi-morphology study's
// cells, H100).
constexpr int tile_skew_ns = 8000;
static_assert(edd_sweeps::n_tile_ends == edd_tile_ends, "edd_tile_bytes counts the ends of a slot");

// Per tile, what its block reads first (host-made, so that nothing waits on a chain of
// loads): its rows, slots, cells, junctions and child lists as first and count, and its
// junctions' first row in its frame.
enum TileInfo { ti_row, ti_rows, ti_slot, ti_slots, ti_cell, ti_cells, ti_junction, ti_junctions, ti_junction_row,
                ti_child, ti_children, n_tile_info };

// 4-byte asynchronous copies of n ints.
__device__ void copy_ints_async(int* to, const int* from, int n, int tid, int nt) {
    for (int i = tid; i < n; i += nt) __pipeline_memcpy_async(to + i, from + i, sizeof(int));
}

// Hopper's bulk L2 prefetch of [a, a + n) doubles, in whole 16-byte units (the
// instruction's granule); a hint only: nothing waits on it. Before sm_90: nothing.
__device__ void prefetch_l2(const double* a, int n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const auto b = reinterpret_cast<unsigned long long>(a) & ~15ull;  // inside the allocation too
    const auto e = reinterpret_cast<unsigned long long>(a + n) & ~15ull;
    if (e > b) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(b), "r"(static_cast<unsigned>(e - b)) : "memory");
#endif
}

// EDD by tiles, one launch: block t copies tile t's rows (d, u, rhs: one contiguous range)
// and its slots' and junctions' schedule into shared memory, runs the four steps there in
// the tile's frame, as edd_layout_solve does on the host, and writes the solution back.
// Each row is read and written once, where the four launches above stream the rows
// through device memory three times; every copy is issued at once (asynchronous, none
// waiting on another), so a tile waits on device memory once. Two things keep device memory
// streaming while blocks compute (measured on the H100): once its rows have landed,
// a block prefetches into L2 the rows of the tile `prefetch` blocks ahead, which a later
// block then copies from L2; and the first wave's blocks start skewed (`skew_step` ns per
// round of SMs), where they would all copy, then all compute, in step.
__global__ void edd_tiles(const int* __restrict__ info, const int* __restrict__ cell_first,
                          const int* __restrict__ first, const int* __restrict__ stride, const int* __restrict__ size,
                          const int* __restrict__ walk, const int* __restrict__ up, const int* __restrict__ down,
                          const int* __restrict__ jparent, const int* __restrict__ jslot,
                          const int* __restrict__ child_first, const int* __restrict__ child_slot,
                          const double* __restrict__ d, const double* __restrict__ u, double* __restrict__ rhs,
                          int n_tiles, int wave, int sms, int prefetch, int skew_step) {
    extern __shared__ double sm[];
    const int tid = static_cast<int>(threadIdx.x), nt = static_cast<int>(blockDim.x);
    const int b = static_cast<int>(blockIdx.x);
    if (skew_step > 0 && b < wave)  // __nanosleep's longest wait is 1 ms: a step per round
        for (int r = b / sms; r > 0; --r) __nanosleep(static_cast<unsigned>(skew_step));
    const int* ti = info + n_tile_info * blockIdx.x;
    const int o = ti[ti_row], rows = ti[ti_rows], s0 = ti[ti_slot], ns = ti[ti_slots], c0 = ti[ti_cell];
    const int nc = ti[ti_cells], k0 = ti[ti_junction], nj = ti[ti_junctions], jr = ti[ti_junction_row];
    const int ch0 = ti[ti_child], nch = ti[ti_children];
    // h overwrites u row by row (eliminate reads a row's u before writing its h; the u of
    // each slot's first row, which assemble needs, goes to its ends): 24 B a row. The
    // junctions' E, R and P go over their rows' d, rhs and u (edd_tile_bytes).
    double *sd = sm, *su = sd + rows, *sr = su + rows, *se = sr + rows, *sQ = se + edd_sweeps::n_tile_ends * ns;
    int *sfirst = reinterpret_cast<int*>(sQ + nj), *sstride = sfirst + ns, *ssize = sstride + ns;
    int *swalk = ssize + ns, *sup = swalk + ns, *sdown = sup + ns, *sparent = sdown + ns, *sjslot = sparent + nj;
    int *schild_first = sjslot + nj, *schild = schild_first + nj + 1, *scell_first = schild + nch;
    for (int i = tid; i < rows; i += nt) {
        __pipeline_memcpy_async(sd + i, d + o + i, sizeof(double));
        __pipeline_memcpy_async(su + i, u + o + i, sizeof(double));
        __pipeline_memcpy_async(sr + i, rhs + o + i, sizeof(double));
    }
    copy_ints_async(sfirst, first + s0, ns, tid, nt);
    copy_ints_async(sstride, stride + s0, ns, tid, nt);
    copy_ints_async(ssize, size + s0, ns, tid, nt);
    copy_ints_async(swalk, walk + s0, ns, tid, nt);
    copy_ints_async(sup, up + s0, ns, tid, nt);
    copy_ints_async(sdown, down + s0, ns, tid, nt);
    copy_ints_async(sparent, jparent + k0, nj, tid, nt);
    copy_ints_async(sjslot, jslot + k0, nj, tid, nt);
    copy_ints_async(schild, child_slot + ch0, nch, tid, nt);
    copy_ints_async(scell_first, cell_first + c0, nc + 1, tid, nt);
    __pipeline_commit();
    for (int k = tid; k <= nj; k += nt) schild_first[k] = child_first[k0 + k] - ch0;  // into the tile's list
    __pipeline_wait_prior(0);
    __syncthreads();
    // A tile of the first wave is already being copied by its own block: none prefetched.
    if (tid == 0 && prefetch > 0 && b + prefetch < n_tiles && b + prefetch >= wave) {
        const int* tn = info + n_tile_info * (b + prefetch);
        for (const double* a : {d, u, static_cast<const double*>(rhs)}) prefetch_l2(a + tn[ti_row], tn[ti_rows]);
    }
    for (int s = tid; s < ns; s += nt)
        edd_sweeps::tile_eliminate(s, sfirst, sstride, ssize, swalk, sup, sdown, sd, su, sr, se);
    __syncthreads();
    for (int k = tid; k < nj; k += nt)
        edd_sweeps::tile_assemble(k, jr, sparent, sjslot, schild_first, schild, sfirst, sd, su, sr, se, sQ);
    __syncthreads();
    for (int c = tid; c < nc; c += nt)
        edd_sweeps::tile_junctions(c, jr - k0, scell_first, sparent, sd + jr, sr + jr, su + jr, sQ, sr, k0);
    __syncthreads();
    for (int s = tid; s < ns; s += nt)
        edd_sweeps::tile_complete(s, sfirst, sstride, ssize, swalk, sup, sdown, sd, sr, su);
    __syncthreads();
    for (int i = tid; i < rows; i += nt) rhs[o + i] = sr[i];
}

unsigned blocks(int n, int t) { return static_cast<unsigned>((n + t - 1) / t); }

int threads_for(const GpuBranchPlan& p, int n) {
    if (p.options.threads > 0) return p.options.threads;
    return n >= 4 * 128 * p.sms ? 128 : 32;
}

void enqueue_fold(const GpuBranchPlan& p, double* d, const double* u, double* rhs, cudaStream_t stream) {
    const int levels = static_cast<int>(p.level_first.size()) - 1;
    for (int l = levels - 1; l >= 0; --l) {
        const int s0 = p.level_first[l], s1 = p.level_first[l + 1];
        int t = threads_for(p, s1 - s0);
        if (s1 > s0) {
            branch_backward<<<blocks(s1 - s0, t), t, 0, stream>>>(s0, s1, p.first.data(), p.stride.data(),
                                                                  p.walk.data(), p.parent.data(), d, u, rhs,
                                                                  p.fold_d.data(), p.fold_r.data());
            CUDA_CHECK_LAUNCH();
        }
        const int j0 = p.couple_level[l], j1 = p.couple_level[l + 1];
        t = threads_for(p, j1 - j0);
        if (j1 > j0) {
            branch_couple<<<blocks(j1 - j0, t), t, 0, stream>>>(j0, j1, p.couple_cv.data(), p.couple_first.data(),
                                                                p.couple_slot.data(), p.fold_d.data(), p.fold_r.data(),
                                                                d, rhs);
            CUDA_CHECK_LAUNCH();
        }
    }
    for (int l = 0; l < levels; ++l) {
        const int s0 = p.level_first[l], s1 = p.level_first[l + 1], t = threads_for(p, s1 - s0);
        if (s1 <= s0) continue;
        branch_forward<<<blocks(s1 - s0, t), t, 0, stream>>>(s0, s1, p.first.data(), p.stride.data(), p.walk.data(),
                                                             p.parent.data(), d, u, rhs);
        CUDA_CHECK_LAUNCH();
    }
}

void enqueue_edd(const GpuBranchPlan& p, double* d, const double* u, double* rhs, cudaStream_t stream) {
    if (p.n_tiles > 0) {
        edd_tiles<<<static_cast<unsigned>(p.n_tiles), p.tile_threads, p.tile_shared, stream>>>(
            p.tile_info.data(), p.cell_first.data(), p.first.data(), p.stride.data(), p.size.data(), p.walk.data(),
            p.up.data(), p.down.data(), p.jparent.data(), p.jslot.data(), p.child_first.data(), p.child_slot.data(), d,
            u, rhs, p.n_tiles, p.tile_wave, p.sms, p.tile_prefetch, p.tile_skew_step);
        CUDA_CHECK_LAUNCH();
        return;
    }
    const int ns = p.n_slots, nj = p.n_junctions, nc = p.n_cells, t = threads_for(p, ns), tj = threads_for(p, nj);
    if (ns > 0) {
        edd_eliminate<<<blocks(ns, t), t, 0, stream>>>(ns, p.first.data(), p.stride.data(), p.size.data(),
                                                       p.walk.data(), p.up.data(), p.down.data(), d, u, rhs,
                                                       p.h.data(), p.ends.data());
        CUDA_CHECK_LAUNCH();
    }
    if (nj > 0) {
        edd_assemble<<<blocks(nj, tj), tj, 0, stream>>>(nj, p.junction_base, p.jparent.data(), p.jslot.data(),
                                                      p.child_first.data(), p.child_slot.data(), d, u,
                                                      rhs, p.ends.data(), p.E.data(), p.R.data(), p.P.data(),
                                                      p.Q.data());
        CUDA_CHECK_LAUNCH();
        // One solving thread per cell: a warp of 32 cells per block spreads the serial
        // junction solves over more SMs (with staging, three more warps copy the rows).
        if (p.groups_staged.size() > 0) {
            edd_junctions_staged<<<static_cast<unsigned>(p.groups_staged.size()), junction_threads, p.junction_shared,
                                   stream>>>(p.groups_staged.data(), nc, p.junction_base, p.cell_first.data(),
                                             p.jparent.data(), p.E.data(), p.R.data(), p.P.data(), p.Q.data(), rhs);
            CUDA_CHECK_LAUNCH();
        }
        if (p.groups_in_memory.size() > 0) {
            edd_junctions_in_memory<<<static_cast<unsigned>(p.groups_in_memory.size()), junction_cells, 0, stream>>>(
                p.groups_in_memory.data(), nc, p.junction_base, p.cell_first.data(), p.jparent.data(), p.E.data(),
                p.R.data(), p.P.data(), p.Q.data(), rhs);
            CUDA_CHECK_LAUNCH();
        }
    }
    if (ns > 0) {
        edd_complete<<<blocks(ns, t), t, 0, stream>>>(ns, p.first.data(), p.stride.data(), p.size.data(),
                                                      p.walk.data(), p.up.data(), p.down.data(), d, rhs,
                                                      p.h.data());
        CUDA_CHECK_LAUNCH();
    }
}

// EDD by tiles: the per-tile records (TileInfo), the block size and the shared memory.
void plan_tiles(GpuBranchPlan& p, const EddSchedule& s) {
    const Junctions& j = s.junctions;
    // One block per tile: as many threads as its most slots (whole warps, at most what the
    // kernel's registers allow: its loops stride), shared memory for its largest.
    std::vector<int> info;
    long most_slots = 1, most_bytes = 0;
    for (int t = 0; t < j.n_tiles(); ++t) {
        const int c0 = j.tile_cell[t], c1 = j.tile_cell[t + 1], k0 = j.cell_first[c0], k1 = j.cell_first[c1];
        const int ch0 = j.child_first[k0], ch1 = j.child_first[k1];
        const int row = j.tile_row[t], rows = j.tile_row[t + 1] - row;
        const int slot = j.tile_slot[t], slots = j.tile_slot[t + 1] - slot;
        info.insert(info.end(), {row, rows, slot, slots, c0, c1 - c0, k0, k1 - k0, s.junction_row[t], ch0,
                                 ch1 - ch0});
        most_slots = std::max<long>(most_slots, slots);
        most_bytes = std::max(most_bytes, edd_tile_bytes(rows, slots, k1 - k0, ch1 - ch0, c1 - c0));
    }
    static_assert(n_tile_info == 11, "the tile record above");
    const int optin = device_shape().shared_optin;
    if (most_bytes > optin)
        throw std::invalid_argument("gpu-branch: an EDD tile needs " + std::to_string(most_bytes / 1024) +
                                    " KiB of shared memory, more than a block's " +
                                    std::to_string(optin / 1024) + " KiB: use smaller tiles (tile=N) or none");
    cudaFuncAttributes a{};
    CUDA_CHECK(cudaFuncGetAttributes(&a, edd_tiles));
    p.n_tiles = j.n_tiles();
    p.tile_threads = static_cast<int>(std::min<long>(a.maxThreadsPerBlock / 32 * 32, (most_slots + 31) / 32 * 32));
    p.tile_shared = static_cast<int>(most_bytes);
    p.tile_info = DeviceArray<int>(info);
    raise_dynamic_shared_limit(edd_tiles, p.tile_shared);
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, edd_tiles, p.tile_threads, p.tile_shared));
    p.tile_wave = std::max(1, per_sm) * p.sms;
    // Both only where there is more than one wave: a single wave's blocks all copy first
    // whatever is done (H100: half a wave ahead was best; a whole
    // wave ahead, twice the first wave's rows held in L2, was slower than none).
    const bool waves = p.n_tiles > p.tile_wave;
    const GpuBranchOptions& o = p.options;
    p.tile_prefetch = std::min(p.n_tiles, o.prefetch >= 0 ? o.prefetch : waves ? p.tile_wave / 2 : 0);
    // A step per round of SMs, at most __nanosleep's 1 ms; one block an SM: no rounds to skew.
    const int skew = o.skew_ns >= 0 ? o.skew_ns : waves ? tile_skew_ns : 0;
    p.tile_skew_step = per_sm > 1 ? std::min(1'000'000, skew / per_sm) : 0;
}

}  // namespace

GpuBranchPlan make_gpu_branch_plan(const Layout& l, const BranchSlots& sl, const Junctions& junctions,
                                   const GpuBranchOptions& o) {
    if (o.threads < 0 || o.threads > 1024) throw std::invalid_argument("make_gpu_branch_plan: threads must be 0..1024");
    GpuBranchPlan p;
    p.options = o;
    p.sms = device_shape().sms;
    p.n_slots = sl.n_slots();
    p.stride = DeviceArray<int>(sl.stride);
    p.walk = DeviceArray<int>(o.padding == Padding::compute ? sl.padded : sl.size);
    if (o.coupling == Coupling::fold) {
        p.first = DeviceArray<int>(sl.first);
        const BranchSchedule s = branch_schedule(l, sl);
        p.level_first = s.level_first;
        p.couple_level = s.couple_level;
        p.parent = DeviceArray<int>(s.parent);
        p.couple_cv = DeviceArray<int>(s.couple_cv);
        p.couple_first = DeviceArray<int>(s.couple_first);
        p.couple_slot = DeviceArray<int>(s.couple_slot);
        p.fold_d = DeviceArray<double>(p.n_slots);
        p.fold_r = DeviceArray<double>(p.n_slots);
    } else {
        const EddSchedule s = edd_schedule(l, sl, junctions);
        const Junctions& j = s.junctions;
        p.n_junctions = j.n();
        p.n_cells = s.n_cells();
        p.junction_base = j.base;
        p.first = DeviceArray<int>(s.first);  // each tile's frame (untiled: the layout's)
        p.size = DeviceArray<int>(s.size);
        p.up = DeviceArray<int>(s.up);
        p.down = DeviceArray<int>(s.down);
        p.cell_first = DeviceArray<int>(j.cell_first);
        p.jparent = DeviceArray<int>(j.parent);
        p.jslot = DeviceArray<int>(j.slot);
        p.child_first = DeviceArray<int>(j.child_first);
        p.child_slot = DeviceArray<int>(j.child_slot);
        if (j.tiled) {
            plan_tiles(p, s);
            return p;
        }
        p.h = DeviceArray<double>(std::vector<double>(j.base, 0.0));
        p.ends = DeviceArray<double>(static_cast<std::size_t>(edd_sweeps::n_ends) * p.n_slots);
        for (DeviceArray<double>* a : {&p.E, &p.R, &p.P, &p.Q}) *a = DeviceArray<double>(p.n_junctions);
        // Groups of 32 cells whose rows fit the cap are staged, the others solve in device
        // memory.
        // The limit raised first to the most any cap stages: the occupancy query below
        // counts no blocks of more dynamic shared memory than the kernel allows.
        raise_dynamic_shared_limit(edd_junctions_staged, junction_shared_cap);
        JunctionGroups g;
        if (o.junction_shared >= 0) {
            g = junction_groups(j, p.n_cells, std::min(o.junction_shared, junction_shared_cap));
        } else {
            g = junction_groups(j, p.n_cells, junction_shared_cap);
            int per_sm = 0;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, edd_junctions_staged, junction_threads,
                                                                     g.shared));
            if (static_cast<long>(g.staged.size()) > static_cast<long>(p.sms) * per_sm)
                g = junction_groups(j, p.n_cells, junction_shared_cap_waves);
        }
        p.junction_shared = g.shared;
        p.groups_staged = DeviceArray<int>(g.staged);
        p.groups_in_memory = DeviceArray<int>(g.in_memory);
    }
    return p;
}

void gpu_branch_solve(const GpuBranchPlan& p, double* d, const double* u, double* rhs, cudaStream_t stream) {
    const auto enqueue = [&](cudaStream_t s) {
        if (p.options.coupling == Coupling::fold) enqueue_fold(p, d, u, rhs, s);
        else enqueue_edd(p, d, u, rhs, s);
    };
    if (p.options.graph) p.graph.launch({d, u, rhs, nullptr}, stream, enqueue);
    else enqueue(stream);
}

}  // namespace arbolito::gpu
