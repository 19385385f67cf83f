#pragma once
// The events of one epoch on the device: copied in once, sorted once, then delivered
// step by step by kernels. Within a step, the events on one target are applied one after
// another in the CPU's order (time, then weight), so that sums match it bit for bit.
#include <cstdint>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "engine/cell_group.hpp"
#include "core/gpu/memory.hpp"
#include "mechanisms/instance.hpp"

namespace arbolito::gpu {

// Where the synapse targets of the group lead (device pointers).
struct EventTargets {
    const std::uint8_t* mech = nullptr;  // all_mechanisms index of each target's mechanism
    const int* instance = nullptr;
    MechColumns columns[n_mechanisms];   // the mechanisms' instances (synapses: states read and written)
};

// The epoch's events of each CUDA block of the epoch-resident step (resident_epoch.cu):
// block b's events of local step s are [offset[b·(n_steps + 1) + s], offset[... + s + 1])
// of key and weight, sorted by target there (time order on each target kept).
struct BlockEvents {
    const std::uint64_t* key = nullptr;
    const double* weight = nullptr;
    const unsigned* offset = nullptr;
    long n_steps = 0;
    long step_begin = 0;  // global step of local step 0
    std::uint64_t target_mask = 0;
};

class EventQueue {
public:
    explicit EventQueue(std::uint32_t n_targets) : n_targets_(n_targets) {}
    // From now on events are sorted by block first (target_block: each target's block of
    // n_blocks > 0), for the epoch-resident step: by_block() after stage(), not deliver().
    void sort_by_block(const std::vector<std::uint32_t>& target_block, int n_blocks);

    // `events` sorted (StepEvent order) with steps in [step_begin, step_end). One copy to
    // the device on `stream`, then a stable sort by (step, target) there, which keeps the
    // time order of the events on each target. Uses what pack() made of the same epoch if
    // it did (the events are then not read again), else packs them first.
    void stage(const std::vector<StepEvent>& events, long step_begin, long step_end, cudaStream_t stream);
    // The host's part of stage() ahead of time, into the buffer the next stage() reads
    // (two buffers: pack() may run on another thread while the current epoch's stage()d
    // events are delivered). No CUDA calls; an error is kept and thrown by stage().
    void pack(const std::vector<StepEvent>& events, long step_begin, long step_end);

    // Applies the events of global step n; launches nothing when it has none.
    void deliver(long n, const EventTargets& t, cudaStream_t stream);

    BlockEvents by_block() const;

private:
    bool has_events(long n) const;
    std::uint64_t target_mask() const;
    std::uint32_t n_targets_;
    int n_blocks_ = 0;                       // > 0: sorted by block first
    DeviceArray<std::uint32_t> target_block_;  // each target's block (device)
    DeviceArray<unsigned> block_offset_;     // by_block()'s offsets
    // One epoch's events packed on the host: keys (local step, target) then weights.
    struct Packed {
        long step_begin = 0, step_end = -1;
        std::size_t n = 0;
        int target_bits = 0, step_bits = 0, end_bit = 1;
        std::vector<std::size_t> offset;  // per local step: first event (plus the end)
        PinnedArray<unsigned char> host;
        std::exception_ptr error;
        bool ready = false;  // packed by pack() and not yet staged (guarded by slots_)
    };
    void pack_into(Packed& p, const std::vector<StepEvent>& events, long step_begin, long step_end) const;
    Packed packed_[2];
    // Which buffer stage() last took and which one pack() is filling (-1: none): pack()
    // fills the one stage() did not take, stage() packs itself into one pack() is not
    // filling. Guarded by slots_; the buffers' contents are each one side's alone. A pack()
    // of epoch k+1 that starts before stage() has taken epoch k takes k's buffer; stage()
    // then packs k again from its events: the same result, only not ahead of time.
    std::mutex slots_;
    int staged_ = -1, packing_ = -1;
    // The staged epoch's, for deliver() and by_block().
    int target_bits_ = 0;
    long step_begin_ = 0;
    const std::vector<std::size_t>* offset_ = nullptr;
    DeviceArray<unsigned char> in_;    // the same on the device
    DeviceArray<std::uint64_t> keys_;  // sorted
    DeviceArray<double> weights_;      // sorted with them
    DeviceArray<unsigned char> temp_;  // the sort's scratch
};

}  // namespace arbolito::gpu
