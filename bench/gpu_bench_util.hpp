#pragma once
// Shared pieces of the GPU benchmarks: timing with CUDA events (median of repetitions
// after warm-up), an L2 flush between repetitions, hash-based random fills on the device
// (fresh seed per run, never zeros), and the device-to-device copy bandwidth that the
// kernels are measured against.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "core/gpu/memory.hpp"

namespace arbolito::bench {

// "a,b,,c" -> {"a", "b", "c"}: the benchmarks' comma-separated arguments.
inline std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string t; std::getline(ss, t, ',');)
        if (!t.empty()) out.push_back(t);
    return out;
}

inline std::vector<int> split_ints(const std::string& s) {
    std::vector<int> out;
    for (const auto& t : split_list(s)) out.push_back(std::stoi(t));
    return out;
}

// The benchmarks' command lines: `for (Args a(argc, argv); a.next();) { if (a.is("--x"))
// x = a.value(); ... else a.unknown(); }`.
class Args {
public:
    Args(int argc, char** argv) : argc_(argc), argv_(argv) {}
    bool next() { return ++i_ < argc_ && (flag_ = argv_[i_], true); }
    bool is(const char* name) const { return flag_ == name; }
    // The value after the current flag.
    std::string value() {
        if (i_ + 1 >= argc_) throw std::invalid_argument(flag_ + " needs a value");
        return argv_[++i_];
    }
    [[noreturn]] void unknown() const { throw std::invalid_argument("unknown argument " + flag_); }

private:
    int argc_, i_ = 0;
    char** argv_;
    std::string flag_;
};

// False, having said so, where no CUDA device is usable: a benchmark then measures nothing.
inline bool have_gpu() {
    int n_dev = 0;
    if (cudaGetDeviceCount(&n_dev) == cudaSuccess && n_dev > 0) return true;
    cudaGetLastError();
    std::printf("no CUDA device: nothing to measure\n");
    return false;
}

__host__ __device__ inline std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Uniform in [lo, hi) from (seed, i).
__host__ __device__ inline double hash_uniform(std::uint64_t seed, std::uint64_t i, double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(splitmix(seed * 0x100000001b3ull + i) >> 11) * 0x1.0p-53;
}

__global__ void fill_uniform(double* x, std::size_t n, std::uint64_t seed, double lo, double hi) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        x[i] = hash_uniform(seed, i, lo, hi);
}

inline void device_fill(double* x, std::size_t n, std::uint64_t seed, double lo, double hi, cudaStream_t s = nullptr) {
    if (!n) return;
    fill_uniform<<<1024, 256, 0, s>>>(x, n, seed, lo, hi);
    CUDA_CHECK_LAUNCH();
}

struct Device {
    cudaDeviceProp prop{};
    int id = 0;
    Device() {
        CUDA_CHECK(cudaGetDevice(&id));
        CUDA_CHECK(cudaGetDeviceProperties(&prop, id));
    }
};

// Evicts the L2 by writing a buffer twice its size.
class L2Flush {
public:
    explicit L2Flush(const cudaDeviceProp& p) : buf_(2 * static_cast<std::size_t>(std::max(p.l2CacheSize, 1 << 20))) {}
    void operator()(cudaStream_t s = nullptr) {
        CUDA_CHECK(cudaMemsetAsync(buf_.data(), ++v_ & 0xff, buf_.size(), s));
    }

private:
    gpu::DeviceArray<unsigned char> buf_;
    int v_ = 0;
};

// Median in ms of `reps` timed runs of work(rep) after `warmup` untimed ones; prepare(rep)
// runs before each, outside the timed region (refill inputs, flush L2).
inline double time_median_ms(const std::function<void(int)>& prepare, const std::function<void(int)>& work,
                             int reps, int warmup = 3, std::vector<float>* all = nullptr) {
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    std::vector<float> t;
    for (int r = 0; r < warmup + reps; ++r) {
        prepare(r);
        CUDA_CHECK(cudaEventRecord(e0));
        work(r);
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= warmup) t.push_back(ms);
    }
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    if (all) *all = t;
    std::sort(t.begin(), t.end());
    return t.empty() ? 0.0 : (t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]));
}

// Device-to-device copy bandwidth in GB/s (1e9 B/s), bytes read plus bytes written, of a
// 1 GiB cudaMemcpy: the ceiling the memory-bound kernels are compared with.
inline double copy_bandwidth_gbs(int reps = 20) {
    const std::size_t bytes = std::size_t(1) << 30;
    gpu::DeviceArray<double> a(bytes / 8), b(bytes / 8);
    device_fill(a.data(), a.size(), 1, -1, 1);
    device_fill(b.data(), b.size(), 2, -1, 1);
    const double ms = time_median_ms([](int) {},
                                     [&](int r) {
                                         double* src = r % 2 ? a.data() : b.data();
                                         double* dst = r % 2 ? b.data() : a.data();
                                         CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
                                     },
                                     reps);
    return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

inline std::string device_summary(const cudaDeviceProp& p) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s, %d SMs, %.0f MB L2, %.1f GiB, cc %d.%d", p.name, p.multiProcessorCount,
                  p.l2CacheSize / 1e6, p.totalGlobalMem / 1073741824.0, p.major, p.minor);
    return buf;
}

// The device a solver benchmark runs on, announced on stdout: its properties, the
// measured copy bandwidth and an L2 flush.
struct SolveBenchDevice {
    Device dev;
    double copy_gbs = copy_bandwidth_gbs();
    L2Flush flush{dev.prop};
    SolveBenchDevice() {
        std::printf("device: %s\ndevice-to-device copy: %.0f GB/s\n\n", device_summary(dev.prop).c_str(), copy_gbs);
    }
    // Moving `bytes` at the copy bandwidth, in ms: the floor memory-bound kernels are
    // measured against.
    double floor_ms(double bytes) const { return bytes / (copy_gbs * 1e9) * 1e3; }
};

}  // namespace arbolito::bench
