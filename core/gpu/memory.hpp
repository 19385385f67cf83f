#pragma once
// The CUDA memory helpers, in one place: plain device allocations (never managed memory)
// and page-locked host buffers for the once-per-epoch copies. Every call is checked.
#include <cstddef>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "core/gpu/cuda_check.hpp"

namespace arbolito::gpu {

// Owns one plain device allocation (never managed memory); move-only.
template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    explicit DeviceArray(std::size_t n) { allocate(n); }
    explicit DeviceArray(const std::vector<T>& h) {
        allocate(h.size());
        if (n_) CUDA_CHECK(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    }
    DeviceArray(DeviceArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
    DeviceArray& operator=(DeviceArray&& o) noexcept {
        if (this != &o) {
            release();
            p_ = std::exchange(o.p_, nullptr);
            n_ = std::exchange(o.n_, 0);
        }
        return *this;
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    ~DeviceArray() { release(); }

    T* data() { return p_; }
    const T* data() const { return p_; }
    std::size_t size() const { return n_; }
    std::vector<T> download() const {
        std::vector<T> h(n_);
        if (n_) CUDA_CHECK(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }

private:
    void allocate(std::size_t n) {
        n_ = n;
        if (n) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
    }
    // A destructor must not throw; a failing cudaFree here means the context is already gone.
    void release() noexcept {
        if (p_) cudaFree(p_);
        p_ = nullptr;
        n_ = 0;
    }
    T* p_ = nullptr;
    std::size_t n_ = 0;
};

}  // namespace arbolito::gpu

namespace arbolito::gpu {

// Page-locked host memory for the once-per-epoch copies (asynchronous, full PCIe speed).

template <class T>
class PinnedArray {
public:
    PinnedArray() = default;
    PinnedArray(const PinnedArray&) = delete;
    PinnedArray& operator=(const PinnedArray&) = delete;
    ~PinnedArray() {
        if (p_) cudaFreeHost(p_);  // no throw from a destructor
    }
    // At least n elements; the contents are not kept.
    void reserve(std::size_t n) {
        if (n <= cap_) return;
        if (p_) CUDA_CHECK(cudaFreeHost(p_));
        p_ = nullptr;
        cap_ = 0;
        CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p_), n * sizeof(T)));
        cap_ = n;
    }
    T* data() { return p_; }
    T& operator[](std::size_t i) { return p_[i]; }

private:
    T* p_ = nullptr;
    std::size_t cap_ = 0;
};

// Device memory in stream order (cudaMallocAsync / cudaFreeAsync, the device's default
// pool), for buffers that grow while kernels run: freeing the old buffer waits for the work
// queued before it on that stream only, where cudaFree waits for the whole device (a
// resident epoch: some 100 ms). release() on a stream before destruction, or the
// destructor's cudaFree waits for the device.
template <class T>
class StreamArray {
public:
    StreamArray() = default;
    StreamArray(const StreamArray&) = delete;
    StreamArray& operator=(const StreamArray&) = delete;
    ~StreamArray() {
        if (p_) cudaFree(p_);  // no throw from a destructor
    }
    // At least n elements, contents not kept, in `stream`'s order: work queued on it before
    // still reads the old buffer. A quarter to spare, so that slowly growing sizes do not
    // reallocate every time.
    void grow(std::size_t n, cudaStream_t stream) {
        if (n <= n_) return;
        release(stream);
        const std::size_t m = n + n / 4;
        CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&p_), m * sizeof(T), stream));
        n_ = m;
    }
    void release(cudaStream_t stream) {
        if (p_) CUDA_CHECK(cudaFreeAsync(p_, stream));
        p_ = nullptr;
        n_ = 0;
    }
    T* data() { return p_; }
    const T* data() const { return p_; }
    std::size_t capacity() const { return n_; }  // what grow() allocated, its spare quarter included

private:
    T* p_ = nullptr;
    std::size_t n_ = 0;
};

// A device buffer that grows (contents not kept) to at least n elements.
template <class T>
void grow(DeviceArray<T>& a, std::size_t n) {
    if (a.size() < n) a = DeviceArray<T>(n);
}

}  // namespace arbolito::gpu
