#pragma once
// The epoch-resident GPU step (gpu-fine's `step=resident`, docs/gpu-backend.md): one CUDA
// block per block of gpu-fine's schedule runs every step of an epoch piece with its
// cells' state in shared memory, written back once at the end. This is the host half:
// what each block stages in shared memory and which of the group's instances,
// detectors and probes it owns. Plain C++ (the CPU build tests it).
#include <cstdint>
#include <vector>

#include "lowered_cell/fvm_data.hpp"
#include "solvers/fine_layout.hpp"

namespace arbolito {

// Ion species (FvmData::ions, in order) whose per-CV arrays a block may stage: e, Xi, Xo
// and i of each (IonArrays' order). Further species stay in device memory.
constexpr int resident_ion_species = 4;
enum ResidentIonField : int { res_ion_e, res_ion_xi, res_ion_xo, res_ion_i, res_ion_fields };

// The arrays a block may stage. They are offered shared memory in this order: those the
// solve's dependent chain of rows reads and writes first (rhs, d, the folds, u), then EDD's
// h (FineSchedule::h_doubles: written and read by the runs' row loops, which wait on
// device memory's latency), then v (read and written element by element, so device
// memory's latency overlaps), then the constant per-CV ones (the assembly's terms), then
// the ions' per-CV arrays (every mechanism with ions reads them each step), then the
// mechanisms (but those whose terms the assembly's hold: no step reads their columns).
enum ResidentArray : int {
    res_rhs, res_d, res_fold, res_u, res_edd_h, res_v, res_d_base, res_cap_dt, res_rhs_base,
    res_mech0,  // mechanism x: res_mech0 + x (all_mechanisms index)
    res_ion0 = res_mech0 + n_mechanisms,  // species q's field f: res_ion0 + res_ion_fields·q + f
    res_n_arrays = res_ion0 + res_ion_fields * resident_ion_species
};

struct ResidentBlock {
    int inst_begin[n_mechanisms];  // the block's instances of mechanism x: [inst_begin, + inst_n)
    int inst_n[n_mechanisms];
    int det_begin, det_n;          // its detectors (group numbering)
    int probe_begin, probe_n;      // its entries of ResidentPlan::probe_col, probe_cv
    int offset[res_n_arrays];      // byte offset in the block's shared memory; -1: device memory
    int data_bytes;                // the staged arrays; gpu-fine's schedule follows them
};

// What a probe column records where not v (FvmData::ProbeSource), for a block: a state of
// the block's instance `instance` of mechanism `index`, or a value of ion species `index`.
struct ResidentProbeSource {
    int kind = 0;  // ProbeVariable::Kind
    int index = 0, state = 0, instance = 0;
};

struct ResidentPlan {
    std::vector<ResidentBlock> blocks;         // one per FineSchedule block
    std::vector<int> probe_col, probe_cv;      // per block: probe columns and their block-local CVs
    std::vector<ResidentProbeSource> probe_source;  // beside probe_col; empty where every column records v
    bool probes_read_states = false;           // some column records a mechanism's state
    // Species q's CVs where e follows Nernst (IonSpecies::nernst_cv) in block b: entries
    // [nernst_range[2·(b·n_species + q)], nernst_range[2·(b·n_species + q) + 1]) of its list.
    std::vector<int> nernst_range;
    std::vector<std::uint32_t> target_block;   // the block of every synapse target
    int shared_bytes = 0;                      // dynamic shared memory per CUDA block: the largest need
    long staged_bytes = 0, total_bytes = 0;    // over all blocks: staged, and what staging all would take
};

// Bytes of array `a` for block b with n_inst instances of the mechanism: the solve's
// scratch (FineSchedule::fold_doubles, h_doubles), 8 per CV for the other per-CV arrays and
// an ion's (where its species exists), and a mechanism's weights of density mechanisms,
// parameters, states, constants and CV indices (rounded up to 8); none for a mechanism
// with constant terms (MechanismDefaults::constant_terms).
long resident_array_bytes(int a, const FineSchedule::Block& b, int n_inst);

// A block's estimated time per step, in rows of the solve's dependent chain: the chain
// (each level's longest branch) plus the CVs each thread takes in the per-CV phases. It
// orders the launch only (resident_launch_order).
double resident_block_cost(const FineSchedule& s, const FineSchedule::Block& b);

// The order the kernel launches the blocks of `s` in, where the device runs `slots` of
// them at once. Where the blocks hold about one cell each (at most 1.5 on average), the
// schedule's order but the `slots` cheapest blocks by resident_block_cost last
// (cheapest_last_order), so that each epoch ends on a wave of the cheapest blocks instead
// of whichever came last: busyring's cells range from about 550 to 3,100 CVs, and this is
// 0.2-2.8 % faster on one H200 and 2.4 % on four at 8,192 cells a GPU. Only the last
// wave: sorting every block lost 1.1 % at 32,768 cells. Blocks of several cells keep the
// schedule's order: the estimate misses what their somata's channels cost, and on the
// Allen network (about 8 cells a block) the sorted last wave lost 1.5 % (bench/HISTORY.md);
// there the measured orders below know the cost. Any order gives the same result: the
// cells of an epoch are independent.
std::vector<int> resident_launch_order(const FineSchedule& s, int slots);

// The blocks 0..cost.size()-1 in index order but the `last` cheapest by `cost` at the end,
// costliest of them first (ties by index).
std::vector<int> cheapest_last_order(const std::vector<double>& cost, int last);
// Every block, costliest first (ties by index): longest processing time first.
std::vector<int> costliest_first_order(const std::vector<double>& cost);

// How the resident kernel orders its blocks (gpu-fine's `launch`): index, the schedule's;
// cost, resident_launch_order; measured and longest, from each block's clock cycles summed
// over earlier epochs (the first epoch as `cost`): measured, cheapest_last_order with a
// wave's worth; longest (the default), costliest_first_order. Longest was the fastest on
// one H200 (bench/RESULTS.md): busyring 1.0-1.8 % faster than cost at 8,192 and 32,768
// cells (1,024 within 0.9 %), the Allen network 2.0 % faster than the schedule's order;
// with four GPUs, strong scaling 3.93x. Sorting every block by the estimate had lost
// 1.1 %: the measured cycles rank the blocks, the estimate did not.
enum class LaunchOrder { index, cost, measured, longest };

// Every block of `s` over `f` (built with s's numbering). Each array is staged where it
// fits what remains of budget_bytes after the block's schedule, in ResidentArray order,
// mechanisms smallest first; what does not fit stays in device memory (same arithmetic,
// slower). Throws std::invalid_argument where a block's schedule alone exceeds the budget,
// std::logic_error where instances are not sorted by CV or lie outside every block.
ResidentPlan resident_plan(const FvmData& f, const FineSchedule& s, int budget_bytes);

}  // namespace arbolito
