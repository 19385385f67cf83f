#pragma once
// Page-locked host memory for the once-per-epoch copies (asynchronous, full PCIe speed).
#include <cstddef>
#include <utility>

#include <cuda_runtime.h>

#include "solvers/gpu/cuda_check.hpp"

namespace arbolito::gpu {

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

// A device buffer that grows (contents not kept) to at least n elements.
template <class T>
void grow(DeviceArray<T>& a, std::size_t n) {
    if (a.size() < n) a = DeviceArray<T>(n);
}

}  // namespace arbolito::gpu
