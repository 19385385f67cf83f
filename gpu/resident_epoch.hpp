#pragma once
// The epoch-resident GPU step (gpu-fine `step=resident`; docs/gpu-backend.md): one kernel
// launch per epoch piece. Each CUDA block takes one block of gpu-fine's schedule, loads
// what resident_plan staged into shared memory, runs every step of the piece there
// (events, assembly, currents, gpu-fine's block solve, states, detectors, samples) and
// writes the state back once. Blocks that do not fit the device at once run in waves:
// within an epoch no cell needs another's spikes, so any order gives the same result.
#include <array>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "core/gpu/memory.hpp"
#include "gpu/device_spike.hpp"
#include "gpu/event_queue.hpp"
#include "gpu/resident_plan.hpp"
#include "mechanisms/all.hpp"
#include "mechanisms/instance_ions.hpp"
#include "mechanisms/instance.hpp"
#include "solvers/gpu/hines_gpu_fine.hpp"

namespace arbolito::gpu {

// Resident blocks per SM that the default shape aims at (gpu-fine's shared=auto) and that
// its kernel instance of 168 registers a thread is compiled for (resident_epoch.cu).
constexpr int resident_blocks_per_sm = 3;

// The dynamic shared memory per block, in whole KiB, at which `blocks_per_sm` resident
// blocks share one multiprocessor of the current device: its shared memory per
// multiprocessor over blocks_per_sm, less what the device reserves per block and the
// kernel's own. (gpu-fine's `shared=auto` takes three: 74 KiB on an H100.)
int resident_shared_kib_for(int blocks_per_sm);

// One ion species of the group on the device: its per-CV arrays (the group's CVs) and the
// CVs where its e follows Nernst.
struct ResidentIon {
    IonArrays a;
    const int* nernst_cv = nullptr;
    int valence = 1;
};

// Where mechanism x's ion slots start in ResidentState::mech_ion_species: the ion slots of
// the mechanisms before it in all_mechanisms.
template <class... Ms>
constexpr std::array<int, sizeof...(Ms) + 1> ion_slot_offsets_of(mech_list<Ms...>) {
    std::array<int, sizeof...(Ms) + 1> o{};
    const int n[] = {n_ions<Ms>...};
    for (std::size_t i = 0; i < sizeof...(Ms); ++i) o[i + 1] = o[i] + n[i];
    return o;
}
constexpr auto ion_slot_offsets = ion_slot_offsets_of(all_mechanisms{});

// The GPU cell group's device state (its pointers) that a piece reads and writes.
struct ResidentState {
    double* v = nullptr;    // V at the piece's start; V at its end on return
    double* rhs = nullptr;  // scratch (the streaming step's second voltage buffer)
    double* d = nullptr;    // scratch
    const double *u = nullptr, *d_base = nullptr, *cap_dt = nullptr, *rhs_base = nullptr;  // the assembly's terms
    MechColumns mechs[n_mechanisms];  // the group's instances, by all_mechanisms index
    const std::uint8_t* target_mech = nullptr;
    const int* target_instance = nullptr;
    const int* det_cv = nullptr;
    const double* det_threshold = nullptr;
    DeviceSpike* spikes = nullptr;
    unsigned* spike_count = nullptr;
    unsigned spike_capacity = 0;
    double* frames = nullptr;  // rows of n_columns, the piece's first row at frames
    // Per column: where it records a mechanism's current (ProbeVariable::mech_current), its
    // value at a sampled step, computed before the step by the streaming step's kernel.
    double* probe_current = nullptr;
    int n_columns = 0;
    unsigned* phase_trace = nullptr;  // tests: null, or a count then the phases block 0 runs, by their Phase value
    // Ions (none: n_ions 0): the species (FvmData::ions), and the species of mechanism x's
    // ion slot j at mech_ion_species[ion_slot_offsets[x] + j] (FvmData::mech_ions).
    const ResidentIon* ions = nullptr;
    int n_ions = 0;
    const int* mech_ion_species = nullptr;
    const double* ion_cv_weight = nullptr;  // FvmData::ion_cv_weight
};

// Every mechanism's Globals in one trivially copyable kernel argument.
struct alignas(8) MechGlobals {
    unsigned char bytes[256];
};

class ResidentEpoch {
public:
    // s: gpu-fine's schedule of the group's layout, solve: its device copy (kept alive by
    // the group). budget_bytes: shared memory a CUDA block may use; threads: its size;
    // launch: the order the blocks run in (LaunchOrder). Throws std::invalid_argument where
    // the device cannot run it.
    ResidentEpoch(const FvmData& f, const FineSchedule& s, const GpuFinePlan& solve, int budget_bytes, int threads,
                  LaunchOrder launch, const all_mechanisms::Globals& globals);
    ~ResidentEpoch();  // prints the phase profile in an ARBOLITO_RESIDENT_PROFILE build
    ResidentEpoch(const ResidentEpoch&) = delete;
    ResidentEpoch& operator=(const ResidentEpoch&) = delete;
    const ResidentPlan& plan() const { return plan_; }
    int threads() const { return threads_; }

    // Steps [b, e) of the epoch whose events `ev` holds; step n samples (where s says it
    // completes a frame) into row s.frame_after(n) - frame0 of st.frames.
    void run(const ResidentState& st, const BlockEvents& ev, long b, long e, long frame0, const StepSettings& s,
             cudaStream_t stream);

private:
    void reorder_from_cycles(cudaStream_t stream);  // the measured orders, where new cycles arrived

    ResidentPlan plan_;
    const GpuFinePlan& solve_;
    int threads_;
    bool wide_registers_;  // the kernel instance of 168 registers a thread (resident_epoch.cu)
    bool extended_;        // the instance with ions and probes' sources (resident_epoch.cu, BlockStep)
    MechGlobals globals_{};
    DeviceArray<ResidentBlock> blocks_;
    DeviceArray<int> probe_col_, probe_cv_;
    DeviceArray<ResidentProbeSource> probe_source_;
    DeviceArray<int> nernst_range_;
    DeviceArray<int> launch_order_;
    // The measured orders: each block's cycles of the last run that recorded them, copied
    // back without waiting (cycles_ready_) and summed over the runs read so far.
    LaunchOrder launch_;
    int slots_ = 0;  // blocks the device runs at once
    DeviceArray<long long> block_cycles_;
    PinnedArray<long long> host_cycles_;
    std::vector<double> total_cycles_;
    cudaEvent_t cycles_ready_ = nullptr;
    bool cycles_pending_ = false;
    long runs_ = 0;
};

}  // namespace arbolito::gpu
