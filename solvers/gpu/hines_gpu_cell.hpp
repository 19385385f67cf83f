#pragma once
// gpu-cell (cuHinesBatch, docs/solvers.md): one thread per cell solves its Hines system in the
// numbering of a gpu_cell_layout (flat, interleaved, block-interleaved or block-shared). A device-side
// building block: the matrix is assembled on the device in the layout's numbering and
// solved in place, nothing is copied to or from the host.
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "core/gpu/memory.hpp"
#include "solvers/gpu_cell_layout.hpp"

namespace arbolito::gpu {

enum class CellKernel {
    // The serial Hines elimination (hines.hpp) as written, per thread: parent index per
    // CV, padding computed as d = 1, u = 0, rhs = 0 rows. The reference for the others.
    plain,
    // Rows prefetched 1, 2 or 4 steps ahead, the unbranched-chain update kept in
    // registers, branch points (parent != previous CV) from a short per-cell list, the
    // forward sweep reading the pivots d' and rhs' left by the backward sweep and u (the
    // serial solve's arithmetic, hines_cell_sweeps.hpp), padding rows skipped without
    // leaving the warp's row.
    pipelined1,
    pipelined2,
    pipelined4,
    // The pipelined sweeps, "L2-resident": only resident_warps warps per SM run, each
    // looping over its share of the warps' worth of cells and keeping the pivots d' in one
    // scratch of 32 x (largest padded cell) doubles that it reuses, so that d' and rhs' of
    // the cells in flight stay in L2 and device memory sees little more than d, u, rhs read
    // (u twice: the forward sweep reads it again) and x written. Deep prefetch (resident_prefetch rows) makes up for the few
    // warps. For many small or medium cells; big cells overflow L2 (the scratch size says).
    resident,
    // The pipelined sweeps with each row's parent distance loaded with the row (a uint16
    // per CV, 4 B more per CV and solve) instead of the per-cell list of branch points,
    // whose one-record-at-a-time reads stall warps of cells of different shapes at almost
    // every row (busyring); 4, 8 or 16 rows in flight. rowparent8 is the default of the GPU
    // cell group (measured fastest from 1,024 busyring cells to 256,000 real cells).
    rowparent4,
    rowparent8,
    rowparent16,
};

inline constexpr CellKernel all_cell_kernels[] = {
    CellKernel::plain,      CellKernel::pipelined1, CellKernel::pipelined2, CellKernel::pipelined4,
    CellKernel::resident,   CellKernel::rowparent4, CellKernel::rowparent8, CellKernel::rowparent16};

const char* to_string(CellKernel k);

// Padding rows (positions past a cell's size up to its block's largest): computed as
// real rows, or skipped by each lane (the published cuHinesVBatch "computing padding" and
// "no computing padding"). automatic: the kernel's own (plain computes, the others stop);
// compute is offered by the rowparent kernels (and plain), stop by all but plain.
enum class CellPadding { automatic, compute, stop };

// What a plan is made for besides its kernel.
struct CellPlanOptions {
    // The block-shared solve: the layout must be block-interleaved (every slot's stride the
    // block's size BS); one CUDA block of BS threads per layout block holds the block's
    // right-hand sides in shared memory through both sweeps (rowparent sweeps only).
    bool block_shared = false;
    CellPadding padding = CellPadding::automatic;
};
// The kernel of that name (to_string's), if any.
std::optional<CellKernel> cell_kernel_named(const std::string& name);

// What the sweeps read of a gpu_cell_layout's numbering and slots, on the host: per slot
// (first, stride, size, padded) and the slot's range of branch points (position, parent
// position) whose parent is not the previous position, ascending per slot.
struct CellSchedule {
    std::vector<int4> slot;
    std::vector<int2> branch_range;
    std::vector<int2> branch;
    // Per CV in layout numbering: row i's parent is row i - dist (1 on chains and padding
    // rows); empty when some parent lies more than 65,535 rows back.
    std::vector<unsigned short> dist;
    int max_padded = 0;
};
CellSchedule cell_schedule(const Layout& layout, const CellSlots& slots);

// Device copies of what its kernel reads of a gpu_cell_layout; built once per layout.
struct GpuCellPlan {
    int n_slots = 0;
    int threads = 128;                 // per CUDA block
    CellKernel kernel = CellKernel::rowparent8;
    DeviceArray<int4> slot;            // per slot: first, stride, size, padded
    DeviceArray<int2> branch_range;    // per slot: [begin, end) into branch (pipelined, resident)
    DeviceArray<int2> branch;          // (position, parent position), ascending per slot (pipelined, resident)
    DeviceArray<int> parent;           // layout numbering (plain kernel only)
    DeviceArray<unsigned short> dist;  // layout numbering (rowparent kernels only)
    int max_padded = 0;                // largest CellSlots::padded
    int resident_warps = 0;            // resident kernel: warps per SM (set_resident)
    int resident_prefetch = 8;         // resident kernel: rows loaded ahead (8 or 16)
    int resident_blocks = 0;           // resident kernel: blocks of resident_warps warps
    mutable DeviceArray<double> f_scratch;  // resident kernel (workspace): blocks x warps x 32 x max_padded
    bool compute_padding = false;      // padding rows walked (rowparent kernels; plain always)
    int shared_block = 0;              // > 0: block-shared, slots per layout block (= CUDA block size)
};

// layout, slots: from one gpu_cell_layout.
// With kernel = resident: set_resident(plan, 2, 8).
// No kernel: rowparent8 (measured fastest from 1,024 busyring cells to 256,000 real cells;
// pipelined4 is 5 % faster on nearly unbranched cells), or pipelined2 where a parent lies
// too far back for rowparent's uint16 distance (cells of more than 65,535 CVs). A
// rowparent kernel asked for there: std::invalid_argument.
// With options.block_shared: a layout that is not block-interleaved, a kernel other than a
// rowparent one, or a block whose right-hand sides (BS x its largest cell's rows x 8 B)
// exceed the device's shared memory per block: std::invalid_argument naming the key
// (layout, block, kernel) and why. A padding the kernel does not offer: the same.
GpuCellPlan make_gpu_cell_plan(const Layout& layout, const CellSlots& slots,
                               std::optional<CellKernel> kernel = std::nullopt, const CellPlanOptions& options = {});
// The same from the layout's schedule, computed once for several plans (benchmarks).
GpuCellPlan make_gpu_cell_plan(const Layout& layout, const CellSchedule& schedule, std::optional<CellKernel> kernel,
                               const CellPlanOptions& options = {});

// Shared memory per CUDA block the current device grants (opt-in maximum), in bytes.
std::size_t shared_bytes_per_block();
// block-shared's automatic block size for cells of at most `rows` CVs and values of
// `value_bytes` bytes: the largest power of two <= 128 whose right-hand sides fit
// shared_bytes_per_block(); 0 where not even one cell fits.
int block_shared_auto(int rows, int value_bytes = 8);

// Switches a plan to the resident kernel with `warps_per_sm` warps per SM (1..32) and
// `prefetch` rows of prefetch (8 or 16), allocating its scratch.
void set_resident(GpuCellPlan& plan, int warps_per_sm, int prefetch);

// Solves every cell's system in place on `stream`: on return rhs holds the solution of the
// real CVs; d is overwritten; u is read only. Padding rows must hold d = 1, u = 0,
// rhs = 0 (inert rows: docs/architecture.md); the pipelined kernels leave them untouched.
void gpu_cell_solve(const GpuCellPlan& plan, double* d, const double* u, double* rhs, cudaStream_t stream);
// The same in float, for the benchmarks (the simulator stays double): the rowparent
// kernels and block-shared only (others: std::invalid_argument).
void gpu_cell_solve(const GpuCellPlan& plan, float* d, const float* u, float* rhs, cudaStream_t stream);

}  // namespace arbolito::gpu
