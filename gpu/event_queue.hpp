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

#include "lowered_cell/cell_group.hpp"
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
    explicit EventQueue(std::uint32_t n_targets);  // on the group's device (selected)
    ~EventQueue();
    EventQueue(const EventQueue&) = delete;
    EventQueue& operator=(const EventQueue&) = delete;
    // From now on events are sorted by block first (target_block: each target's block of
    // n_blocks > 0), for the epoch-resident step: by_block() after stage(), not deliver().
    void sort_by_block(const std::vector<std::uint32_t>& target_block, int n_blocks);

    // `events` sorted (StepEvent order) with steps in [step_begin, step_end): packed into
    // keys (step, target) and weights on the host, copied to the device, sorted there by
    // (step, target) with a stable sort, which keeps the time order on each target. Work on
    // the device on the queue's own stream, so that the copy and the sort of the coming
    // epoch overlap the current epoch's kernels. Into the slot the next stage() takes (two
    // slots: pack() runs on the exchange's thread while the staged epoch is delivered). An
    // error is kept and thrown by stage().
    void pack(const std::vector<StepEvent>& events, long step_begin, long step_end);
    // Makes the epoch current for deliver() and by_block(): what pack() made of it, `stream`
    // waiting for its device work; or, when pack() did not see this epoch, all of pack()'s
    // work here on `stream`.
    void stage(const std::vector<StepEvent>& events, long step_begin, long step_end, cudaStream_t stream);
    // After the last work on `stream` that reads the staged epoch: its slot may be refilled
    // once that work is done.
    void release(cudaStream_t stream);

    // Applies the events of global step n; launches nothing when it has none.
    void deliver(long n, const EventTargets& t, cudaStream_t stream);

    BlockEvents by_block() const;

private:
    // Keys and weights go up through a slot's two page-locked chunks in turn: a fixed
    // 2 MiB, where a buffer of the epoch's size was page-locked anew as event counts grew
    // (tens of MB at 32,768 busyring cells), holding the driver for 8–31 ms while the
    // group's launches waited (a resident busyring run's --timeline, H100).
    static constexpr std::size_t chunk_events = std::size_t(1) << 16;
    struct Chunk {
        PinnedArray<unsigned char> host;  // chunk_events keys, then as many weights
        cudaEvent_t copied = nullptr;     // after its last copy to the device
    };
    // One epoch's events: keys (local step, target) then weights, copied up and sorted on
    // the device. Device buffers grow in stream order (StreamArray): no wait for the kernels.
    struct Slot {
        long step_begin = 0, step_end = -1;
        std::vector<std::size_t> offset;  // per local step: first event (plus the end)
        Chunk chunks[2];
        StreamArray<unsigned char> in, temp;  // the copy; the sort's scratch
        StreamArray<std::uint64_t> keys;      // sorted
        StreamArray<double> weights;          // sorted with them
        StreamArray<unsigned> block_offset;   // by_block()'s offsets
        cudaEvent_t uploaded = nullptr;       // after the slot's device work (copy, sort)
        cudaEvent_t consumed = nullptr;       // after the last kernel that read it
        std::exception_ptr error;
        bool ready = false;  // packed by pack() and not yet staged (guarded by mutex_)
    };
    // The epoch into slot p: packed on the host, copied, sorted on `stream`.
    void upload(Slot& p, const std::vector<StepEvent>& events, long step_begin, long step_end, cudaStream_t stream);
    // Keys, weights and per-step offsets of the epoch, through the chunks into p.in.
    void copy_packed(Slot& p, const std::vector<StepEvent>& events, cudaStream_t stream) const;
    bool has_events(long n) const;
    std::uint64_t target_mask() const;

    std::uint32_t n_targets_;
    int target_bits_;  // a key's target field (target_mask())
    int device_ = 0;
    cudaStream_t stream_ = nullptr;  // pack()'s
    int n_blocks_ = 0;                         // > 0: sorted by block first
    DeviceArray<std::uint32_t> target_block_;  // each target's block (device)
    // Which slot stage() last took and which one pack() is filling (-1: none). pack()
    // fills a slot that holds no epoch waiting to be staged, the staged one only when the
    // other waits: pack() of epoch k + 1 needs epoch k - 1's spikes, so k - 1's advance,
    // the staged slot's, has ended when pack() overtakes stage() of epoch k.
    std::mutex mutex_;
    int staged_ = -1, packing_ = -1;
    Slot slots_[2];
    const Slot* current_ = nullptr;  // the staged epoch's slot
};

}  // namespace arbolito::gpu
