#include "gpu/event_queue.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include <cub/device/device_radix_sort.cuh>

#include "gpu/apply_events.cuh"
#include "mechanisms/all.hpp"

namespace arbolito::gpu {

namespace {

std::uint64_t low_bits(int bits) {  // a mask of the lowest `bits` bits
    return bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
}

int bits_for(std::uint64_t n) {  // bits to count 0 .. n-1
    int b = 0;
    while (b < 64 && (std::uint64_t(1) << b) < n) ++b;
    return b;
}

// One thread per event of the step; the first event of each target applies the target's
// whole run, in order.
__global__ void deliver_kernel(std::size_t begin, std::size_t end, const std::uint64_t* __restrict__ key,
                               const double* __restrict__ weight, std::uint64_t target_mask, EventTargets t) {
    const std::size_t i = begin + blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= end) return;
    const std::uint64_t k = key[i];
    if (i > begin && key[i - 1] == k) return;
    const auto target = static_cast<std::uint32_t>(k & target_mask);
    apply_run_any(all_mechanisms{}, t.mech[target], t.columns, t.instance[target], i, end, key, k, weight);
}

// offset[b·(n_steps + 1) + s]: the first event of block b at local step s or later (keys
// block, step, target from the high bits), by binary search over the sorted keys.
__global__ void block_offsets_kernel(const std::uint64_t* __restrict__ key, unsigned n, int n_blocks, long n_steps,
                                     int target_bits, int step_bits, unsigned* __restrict__ offset) {
    const long i = blockIdx.x * long(blockDim.x) + threadIdx.x;
    if (i >= n_blocks * (n_steps + 1)) return;
    const long b = i / (n_steps + 1), s = i % (n_steps + 1);
    // (b, n_steps) is (b + 1, 0) for the search's purpose: every key of block b is below it.
    const std::uint64_t want = s == n_steps ? std::uint64_t(b + 1) << (step_bits + target_bits)
                                            : (std::uint64_t(b) << step_bits | std::uint64_t(s)) << target_bits;
    unsigned lo = 0, hi = n;
    while (lo < hi) {
        const unsigned mid = lo + (hi - lo) / 2;
        if (key[mid] < want) lo = mid + 1; else hi = mid;
    }
    offset[i] = lo;
}

// The block of each event's target into the key's top bits (shift: step and target bits),
// on the device: the host would look each target up at random in a table of every
// synapse, a cache miss per event (about 20 ms an epoch at 8,192 busyring cells).
__global__ void add_block_kernel(std::size_t n, std::uint64_t* __restrict__ key, const std::uint32_t* __restrict__ block,
                                 std::uint64_t target_mask, int shift) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const std::uint64_t k = key[i];
    key[i] = k | std::uint64_t(block[k & target_mask]) << shift;
}

}  // namespace

EventQueue::EventQueue(std::uint32_t n_targets) : n_targets_(n_targets), target_bits_(bits_for(n_targets)) {
    CUDA_CHECK(cudaGetDevice(&device_));
    int pools = 0;  // the slots' buffers grow in stream order (StreamArray: cudaMallocAsync)
    CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device_));
    if (!pools)
        throw std::runtime_error("gpu events: device " + std::to_string(device_) +
                                 " has no stream-ordered memory pools (cudaMallocAsync), which the GPU groups need");
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (Slot& p : slots_) {
        CUDA_CHECK(cudaEventCreateWithFlags(&p.uploaded, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&p.consumed, cudaEventDisableTiming));
        for (Chunk& c : p.chunks) {
            c.host.reserve(chunk_events * 16);
            CUDA_CHECK(cudaEventCreateWithFlags(&c.copied, cudaEventDisableTiming));
        }
    }
    // The stream-ordered pool's first allocation here, at set-up: at the first epoch's
    // pack it took 4 ms of a resident busyring run (its --timeline, H100).
    void* first = nullptr;
    CUDA_CHECK(cudaMallocAsync(&first, 1, stream_));
    CUDA_CHECK(cudaFreeAsync(first, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
}

EventQueue::~EventQueue() {  // no throw from a destructor
    try {  // the buffers back to the pool once the kernels that read them are done
        for (Slot& p : slots_) {
            CUDA_CHECK(cudaStreamWaitEvent(stream_, p.consumed, 0));
            CUDA_CHECK(cudaStreamWaitEvent(stream_, p.uploaded, 0));
            p.in.release(stream_);
            p.temp.release(stream_);
            p.keys.release(stream_);
            p.weights.release(stream_);
            p.block_offset.release(stream_);
        }
    } catch (...) {  // a context already gone: StreamArray's destructors free what is left
    }
    if (stream_) cudaStreamSynchronize(stream_);
    for (Slot& p : slots_) {
        if (p.uploaded) cudaEventDestroy(p.uploaded);
        if (p.consumed) cudaEventDestroy(p.consumed);
        for (Chunk& c : p.chunks)
            if (c.copied) cudaEventDestroy(c.copied);
    }
    if (stream_) cudaStreamDestroy(stream_);
}

void EventQueue::sort_by_block(const std::vector<std::uint32_t>& target_block, int n_blocks) {
    if (target_block.size() < n_targets_) throw std::logic_error("gpu events: a block for every target expected");
    target_block_ = DeviceArray<std::uint32_t>(target_block);
    n_blocks_ = n_blocks;
}

std::uint64_t EventQueue::target_mask() const { return low_bits(target_bits_); }

BlockEvents EventQueue::by_block() const {
    if (!current_) return {};
    return {current_->keys.data(), current_->weights.data(), current_->block_offset.data(),
            static_cast<long>(current_->offset.size()) - 1, current_->step_begin, target_mask()};
}

void EventQueue::upload(Slot& p, const std::vector<StepEvent>& events, long step_begin, long step_end,
                        cudaStream_t stream) {
    p.step_begin = step_begin;
    p.step_end = step_end;
    p.error = nullptr;
    const long n_steps = step_end - step_begin;
    const std::size_t n = events.size();
    const int step_bits = bits_for(static_cast<std::uint64_t>(n_steps));
    const int block_bits = n_blocks_ > 0 ? bits_for(static_cast<std::uint64_t>(n_blocks_) + 1) : 0;
    const int end_bit = std::max(1, target_bits_ + step_bits + block_bits);
    if (end_bit > 64) throw std::runtime_error("gpu events: block, step and target do not fit a 64-bit key");
    if (n > static_cast<std::size_t>(INT32_MAX)) throw std::runtime_error("gpu events: too many events in one epoch");

    // After whatever last read or wrote the slot's device buffers; they grow (in stream
    // order) only then.
    CUDA_CHECK(cudaStreamWaitEvent(stream, p.consumed, 0));
    CUDA_CHECK(cudaStreamWaitEvent(stream, p.uploaded, 0));
    if (n_blocks_ > 0) p.block_offset.grow(static_cast<std::size_t>(n_blocks_) * (n_steps + 1), stream);
    p.in.grow(n * 16, stream);
    p.keys.grow(n, stream);
    p.weights.grow(n, stream);
    copy_packed(p, events, stream);
    if (n == 0) {
        if (n_blocks_ > 0)
            CUDA_CHECK(cudaMemsetAsync(p.block_offset.data(), 0, p.block_offset.capacity() * sizeof(unsigned), stream));
        CUDA_CHECK(cudaEventRecord(p.uploaded, stream));
        return;
    }
    auto* dk = reinterpret_cast<std::uint64_t*>(p.in.data());
    const std::uint64_t mask = target_mask();
    if (n_blocks_ > 0) {
        add_block_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(n, dk, target_block_.data(), mask,
                                                                                      step_bits + target_bits_);
        CUDA_CHECK_LAUNCH();
    }
    const auto* dw = reinterpret_cast<const double*>(p.in.data() + n * 8);
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, dk, p.keys.data(), dw, p.weights.data(),
                                               static_cast<int>(n), 0, end_bit, stream));
    p.temp.grow(temp_bytes, stream);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(p.temp.data(), temp_bytes, dk, p.keys.data(), dw, p.weights.data(),
                                               static_cast<int>(n), 0, end_bit, stream));
    if (n_blocks_ > 0) {
        const long m = n_blocks_ * (n_steps + 1);
        block_offsets_kernel<<<static_cast<unsigned>((m + 255) / 256), 256, 0, stream>>>(
            p.keys.data(), static_cast<unsigned>(n), n_blocks_, n_steps, target_bits_, step_bits,
            p.block_offset.data());
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaEventRecord(p.uploaded, stream));
}

// Chunk by chunk: filled on the host once its previous copy is done, then its keys and
// weights copied to their places in p.in (keys [0, n), weights from byte n·8). The block
// bits are added on the device.
void EventQueue::copy_packed(Slot& p, const std::vector<StepEvent>& events, cudaStream_t stream) const {
    const std::size_t n = events.size();
    p.offset.assign(p.step_end - p.step_begin + 1, 0);
    for (std::size_t first = 0, k = 0; first < n; first += chunk_events, k ^= 1) {
        Chunk& c = p.chunks[k];
        const std::size_t m = std::min(chunk_events, n - first);
        CUDA_CHECK(cudaEventSynchronize(c.copied));
        auto* hk = reinterpret_cast<std::uint64_t*>(c.host.data());
        auto* hw = reinterpret_cast<double*>(hk + chunk_events);
        for (std::size_t i = 0; i < m; ++i) {
            const StepEvent& e = events[first + i];
            if (e.step < p.step_begin || e.step >= p.step_end || e.target >= n_targets_)
                throw std::logic_error("gpu events: event outside the epoch or the group's targets");
            const auto s = static_cast<std::uint64_t>(e.step - p.step_begin);
            hk[i] = s << target_bits_ | e.target;
            hw[i] = e.weight;
            ++p.offset[s + 1];
        }
        CUDA_CHECK(cudaMemcpyAsync(p.in.data() + first * 8, hk, m * 8, cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaMemcpyAsync(p.in.data() + n * 8 + first * 8, hw, m * 8, cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaEventRecord(c.copied, stream));
    }
    for (std::size_t s = 0; s + 1 < p.offset.size(); ++s) p.offset[s + 1] += p.offset[s];
}

void EventQueue::pack(const std::vector<StepEvent>& events, long step_begin, long step_end) {
    int slot = -1;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (int s = 0; s < 2; ++s)
            if (!slots_[s].ready && s != staged_) slot = s;
        for (int s = 0; s < 2 && slot < 0; ++s)
            if (!slots_[s].ready) slot = s;
        if (slot < 0) slot = staged_ == 0 ? 1 : 0;  // cannot happen: two epochs packed ahead
        packing_ = slot;
        slots_[slot].ready = false;
    }
    Slot& p = slots_[slot];
    try {
        CUDA_CHECK(cudaSetDevice(device_));  // this thread's device: the group's
        upload(p, events, step_begin, step_end, stream_);
    } catch (...) {
        p.error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    packing_ = -1;
    p.ready = true;
}

void EventQueue::stage(const std::vector<StepEvent>& events, long step_begin, long step_end, cudaStream_t stream) {
    int slot = -1;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (int s = 0; s < 2; ++s)
            if (slots_[s].ready && slots_[s].step_begin == step_begin && slots_[s].step_end == step_end) slot = s;
        const bool packed = slot >= 0;
        if (!packed) slot = packing_ == 0 ? 1 : 0;
        staged_ = slot;
        slots_[slot].ready = false;
        if (!packed) slots_[slot].error = nullptr, slots_[slot].step_end = -1;
    }
    Slot& p = slots_[slot];
    current_ = nullptr;
    if (p.step_end != step_end || p.step_begin != step_begin) {
        upload(p, events, step_begin, step_end, stream);
    } else {
        if (p.error) std::rethrow_exception(p.error);
        CUDA_CHECK(cudaStreamWaitEvent(stream, p.uploaded, 0));
    }
    current_ = &p;
}

void EventQueue::release(cudaStream_t stream) {
    if (current_) CUDA_CHECK(cudaEventRecord(const_cast<Slot*>(current_)->consumed, stream));
}

bool EventQueue::has_events(long n) const {
    if (!current_) return false;
    const long s = n - current_->step_begin;
    const auto& o = current_->offset;
    return s >= 0 && s + 1 < static_cast<long>(o.size()) && o[s + 1] > o[s];
}

void EventQueue::deliver(long n, const EventTargets& t, cudaStream_t stream) {
    if (!has_events(n)) return;
    const long s = n - current_->step_begin;
    const std::size_t begin = current_->offset[s], end = current_->offset[s + 1];
    const int threads = 128;
    const auto blocks = static_cast<unsigned>((end - begin + threads - 1) / threads);
    deliver_kernel<<<blocks, threads, 0, stream>>>(begin, end, current_->keys.data(), current_->weights.data(),
                                                   target_mask(), t);
    CUDA_CHECK_LAUNCH();
}

}  // namespace arbolito::gpu
