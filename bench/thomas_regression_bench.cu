// Batched Thomas, two checks side by side in one run (the per-size tuning's open findings):
//   double  the kernel before the per-size tuning (bench/thomas_baseline.cuh, commit d101974) against
//           thomas_batch now, uniform sizes (padding=compute) and variable (padding=stop,
//           every size n: the per-lane size logic that the tuning had put into the one
//           kernel, 110 registers), all with the tuning thomas_resolve picks, and cuSPARSE
//           gtsvInterleavedBatch; the three kernels must give the same bits;
//   float   thomas_batch in float with its automatic tuning and alternatives (prefetch
//           depth, resident warps, the tuning picked then), against double and
//           cuSPARSE in both precisions.
// Every variant of a point runs once per repetition, in an order rotated each time, so
// that drift (clocks, temperature) falls on all alike; inputs restored and L2 flushed
// before each run; medians. Bandwidth: 5 values per unknown (read a, b, c, d, write x).
// Usage: thomas_regression_bench [--double 512x256000,...] [--float 64x256000,...]
//        [--reps 15] [--tsv FILE]
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench/gpu_bench_util.hpp"
#include "bench/tridiagonal_systems.cuh"
#include "bench/thomas_baseline.cuh"
#include "solvers/gpu/thomas_batch.hpp"

using namespace arbolito;
using namespace arbolito::bench;
using arbolito::gpu::DeviceArray;
using arbolito::gpu::ThomasTuning;

namespace {

// Values of x and y whose bits differ (integer sums: the count does not depend on the order).
__global__ void count_differences(const double* x, const double* y, std::size_t n, unsigned long long* out) {
    unsigned long long k = 0;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        k += __double_as_longlong(x[i]) != __double_as_longlong(y[i]);
    if (k) atomicAdd(out, k);
}

unsigned long long differences(const double* x, const double* y, std::size_t n) {
    DeviceArray<unsigned long long> k(std::vector<unsigned long long>{0});
    count_differences<<<1024, 256>>>(x, y, n, k.data());
    CUDA_CHECK_LAUNCH();
    return k.download()[0];
}

// A batch in T: pristine systems, thomas_batch's working copy (it leaves a, b, c: d alone
// restored before a run) and scratch, cuSPARSE's own copy (it overwrites a, b, c: all four
// restored) and buffer. Separate copies: the variants run interleaved.
template <class T>
struct Batch {
    int n, nsys;
    TridiagonalArrays<T> pristine, work, cs;
    DeviceArray<T> scratch;
    DeviceArray<unsigned char> cusparse_buf;
    Batch(cusparseHandle_t h, int n_, int nsys_, std::uint64_t seed)
        : n(n_), nsys(nsys_), pristine(std::size_t(n_) * nsys_), work(std::size_t(n_) * nsys_),
          cs(std::size_t(n_) * nsys_), scratch(std::size_t(n_) * nsys_), cusparse_buf(1) {
        pristine.make(n, nsys, true, nullptr, seed);
        work.copy_from(pristine, false);
        cs.copy_from(pristine, false);
        std::size_t ws = 0;
        if constexpr (std::is_same_v<T, double>)
            CUSPARSE_CHECK(cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, n, cs.a.data(), cs.b.data(),
                                                                       cs.c.data(), cs.d.data(), nsys, &ws));
        else
            CUSPARSE_CHECK(cusparseSgtsvInterleavedBatch_bufferSizeExt(h, 0, n, cs.a.data(), cs.b.data(),
                                                                       cs.c.data(), cs.d.data(), nsys, &ws));
        cusparse_buf = DeviceArray<unsigned char>(std::max<std::size_t>(ws, 1));
    }
    std::size_t size() const { return std::size_t(n) * nsys; }
    void restore_work() { work.copy_from(pristine, true); }
    void restore_cs() { cs.copy_from(pristine, false); }
    void cusparse(cusparseHandle_t h) {
        if constexpr (std::is_same_v<T, double>)
            CUSPARSE_CHECK(cusparseDgtsvInterleavedBatch(h, 0, n, cs.a.data(), cs.b.data(), cs.c.data(), cs.d.data(),
                                                         nsys, cusparse_buf.data()));
        else
            CUSPARSE_CHECK(cusparseSgtsvInterleavedBatch(h, 0, n, cs.a.data(), cs.b.data(), cs.c.data(), cs.d.data(),
                                                         nsys, cusparse_buf.data()));
    }
    void thomas(const ThomasTuning& t, const int* sizes = nullptr) {
        gpu::thomas_batch(gpu::interleaved_systems<T>(work.a.data(), work.b.data(), work.c.data(), work.d.data(),
                                                      nsys, sizes),
                          scratch.data(), n, nsys, nullptr, t);
    }
    // The first min(nsys, 1024) systems' rows of a solution (thomas_batch's, or cuSPARSE's), widened.
    std::vector<double> first_systems(bool of_cusparse = false) const {
        const int k = std::min(nsys, 1024);
        std::vector<T> rows(std::size_t(k) * n);
        CUDA_CHECK(cudaMemcpy2D(rows.data(), k * sizeof(T), (of_cusparse ? cs : work).d.data(), nsys * sizeof(T),
                                k * sizeof(T), n, cudaMemcpyDeviceToHost));
        return std::vector<double>(rows.begin(), rows.end());
    }
};

double max_rel(const std::vector<double>& x, const std::vector<double>& ref) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
        num = std::max(num, std::isnan(x[i]) ? INFINITY : std::fabs(x[i] - ref[i])), den = std::max(den, std::fabs(ref[i]));
    return den > 0 ? num / den : num;
}

struct Variant {
    std::string name, tuning;
    std::function<void()> prepare, run;  // prepare: restore inputs (the L2 flush comes after)
    std::vector<float> ms;
};

// Every variant once per repetition, the order rotated by one each time.
void time_interleaved(std::vector<Variant>& vs, int reps, L2Flush& flush, int warmup = 2) {
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    for (int r = 0; r < warmup + reps; ++r)
        for (std::size_t j = 0; j < vs.size(); ++j) {
            Variant& v = vs[(j + r) % vs.size()];
            v.prepare();
            flush();
            CUDA_CHECK(cudaEventRecord(e0));
            v.run();
            CUDA_CHECK(cudaEventRecord(e1));
            CUDA_CHECK(cudaEventSynchronize(e1));
            float ms = 0;
            CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= warmup) v.ms.push_back(ms);
        }
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
}

double median(std::vector<float> t) {
    std::sort(t.begin(), t.end());
    return t.empty() ? NAN : t.size() % 2 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

std::string describe(const ThomasTuning& t) {
    return "K" + std::to_string(t.prefetch) + " R" + std::to_string(t.smem_rows) + " T" + std::to_string(t.threads) +
           " W" + std::to_string(t.resident_warps);
}

struct Out {
    std::FILE* tsv = nullptr;
    double copy_gbs = 0;
    // One row per variant; ratio: the reference variant's median over this one's (> 1: faster).
    void rows(const char* section, int n, int nsys, const std::vector<Variant>& vs, std::size_t ref,
              const std::vector<std::string>& checks, int value_bytes) {
        const double ref_ms = median(vs[ref].ms);
        for (std::size_t j = 0; j < vs.size(); ++j) {
            const Variant& v = vs[j];
            const double ms = median(v.ms), lo = *std::min_element(v.ms.begin(), v.ms.end()),
                         hi = *std::max_element(v.ms.begin(), v.ms.end());
            const double gbs = 5.0 * value_bytes * double(n) * nsys / (ms * 1e-3) / 1e9;
            std::printf("%-6s %4d %7d %-34s %-16s %9.4f ms [%8.4f %8.4f] %7.1f GB/s %5.1f%%  x%5.3f  %s\n", section, n,
                        nsys, v.name.c_str(), v.tuning.c_str(), ms, lo, hi, gbs, 100 * gbs / copy_gbs, ref_ms / ms,
                        checks[j].c_str());
            if (tsv)
                std::fprintf(tsv, "%s\t%d\t%d\t%s\t%s\t%zu\t%.5f\t%.5f\t%.5f\t%.1f\t%.1f\t%.4f\t%s\n", section, n, nsys,
                             v.name.c_str(), v.tuning.c_str(), v.ms.size(), ms, lo, hi, gbs, 100 * gbs / copy_gbs,
                             ref_ms / ms, checks[j].c_str());
        }
        std::fflush(stdout);
        if (tsv) std::fflush(tsv);
    }
};

std::vector<std::pair<int, int>> points(const std::string& s) {
    std::vector<std::pair<int, int>> out;
    for (const std::string& p : split_list(s)) {
        const auto x = p.find('x');
        if (x == std::string::npos) throw std::invalid_argument("point " + p + ": expected NxNSYS");
        out.emplace_back(std::stoi(p.substr(0, x)), std::stoi(p.substr(x + 1)));
    }
    return out;
}

// The old kernel, thomas_batch uniform and variable, cuSPARSE; old and new: same bits.
void double_point(cusparseHandle_t h, int n, int nsys, int reps, L2Flush& flush, Out& out, std::uint64_t seed) {
    Batch<double> B(h, n, nsys, seed);
    const DeviceArray<int> sizes(std::vector<int>(nsys, n));
    const ThomasTuning uniform = gpu::thomas_resolve({}, n, nsys, 8);
    ThomasTuning variable = uniform;
    variable.padding = gpu::ThomasPadding::stop;
    const int sms = gpu::device_shape().sms;
    auto restore_d = [&] { B.restore_work(); };
    std::vector<Variant> vs = {
        {"baseline d101974", describe(uniform), restore_d,
         [&] {
             baseline::thomas_batch(B.work.a.data(), B.work.b.data(), B.work.c.data(), B.work.d.data(),
                                    B.scratch.data(), n, nsys, uniform, sms, nullptr);
         }},
        {"thomas_batch uniform", describe(uniform), restore_d, [&] { B.thomas({}); }},
        {"thomas_batch variable (stop, all n)", describe(variable), restore_d,
         [&] { B.thomas(variable, sizes.data()); }},
        {"cusparse gtsvInterleaved", "", [&] { B.restore_cs(); }, [&] { B.cusparse(h); }}};
    // Results first (untimed): each against the baseline's bits, cuSPARSE's against them too.
    DeviceArray<double> base(B.size());
    std::vector<std::string> checks;
    std::vector<double> base_first;
    for (std::size_t j = 0; j < vs.size(); ++j) {
        vs[j].prepare();
        vs[j].run();
        CUDA_CHECK(cudaDeviceSynchronize());
        if (j == 0) {
            CUDA_CHECK(cudaMemcpy(base.data(), B.work.d.data(), B.size() * sizeof(double), cudaMemcpyDeviceToDevice));
            base_first = B.first_systems();
            checks.push_back("reference");
        } else if (j < 3) {
            const unsigned long long k = differences(B.work.d.data(), base.data(), B.size());
            checks.push_back(k ? "DIFFERENT BITS: " + std::to_string(k) + " values" : "same bits");
        } else {
            char e[64];
            std::snprintf(e, sizeof e, "err %.1e", max_rel(B.first_systems(true), base_first));
            checks.push_back(e);
        }
    }
    time_interleaved(vs, reps, flush);
    out.rows("fp64", n, nsys, vs, 0, checks, 8);
}

// float: the automatic tuning now, the one picked then, alternatives; double alongside.
void float_point(cusparseHandle_t h, int n, int nsys, int reps, L2Flush& flush, Out& out, std::uint64_t seed) {
    Batch<double> D(h, n, nsys, seed);
    Batch<float> F(h, n, nsys, seed);
    const gpu::DeviceShape dev = gpu::device_shape();
    // The float tuning chosen for the batched Thomas: prefetch 8, 4 resident warps where 4 bytes x n x their lanes
    // fit in a third of L2.
    const double lanes15 = std::min(double(nsys), 32.0 * 4 * dev.sms);
    const ThomasTuning t15{8, 0, 0, 4.0 * n * lanes15 <= dev.l2_bytes / 3.0 ? 4 : 0};
    std::vector<std::pair<std::string, ThomasTuning>> tunings = {{"fp32 thomas_batch auto", {}},
                                                                 {"fp32 issue-15 auto", t15},
                                                                 {"fp32 K8 W0", {8, 0, 0, 0}},
                                                                 {"fp32 K16 W0", {16, 0, 0, 0}},
                                                                 {"fp32 K16 W4", {16, 0, 0, 4}},
                                                                 {"fp32 K16 W8", {16, 0, 0, 8}},
                                                                 {"fp32 K8 W8", {8, 0, 0, 8}}};
    auto restore_f = [&] { F.restore_work(); };
    std::vector<Variant> vs = {{"fp64 thomas_batch auto", describe(gpu::thomas_resolve({}, n, nsys, 8)),
                                [&] { D.restore_work(); }, [&] { D.thomas({}); }},
                               {"fp64 cusparse gtsvInterleaved", "", [&] { D.restore_cs(); }, [&] { D.cusparse(h); }},
                               {"fp32 cusparse gtsvInterleaved", "", [&] { F.restore_cs(); }, [&] { F.cusparse(h); }}};
    for (const auto& [name, t] : tunings)
        vs.push_back({name, describe(gpu::thomas_resolve(t, n, nsys, 4)), restore_f, [&F, t = t] { F.thomas(t); }});
    // Errors against the double thomas_batch (untimed run first).
    std::vector<std::string> checks;
    std::vector<double> ref;
    for (std::size_t j = 0; j < vs.size(); ++j) {
        vs[j].prepare();
        vs[j].run();
        CUDA_CHECK(cudaDeviceSynchronize());
        if (j == 0) {
            ref = D.first_systems();
            checks.push_back("reference");
            continue;
        }
        char e[64];
        std::snprintf(e, sizeof e, "err %.1e",
                      max_rel(j == 1 ? D.first_systems(true) : F.first_systems(j == 2), ref));
        checks.push_back(e);
    }
    time_interleaved(vs, reps, flush);
    out.rows("fp32", n, nsys, vs, 0, checks, 4);
}

}  // namespace

int main(int argc, char** argv) try {
    std::string dbl = "512x256000,256x256000,128x256000,64x256000,512x2560", flt =
        "64x256,64x25600,64x256000,128x256000,256x2560,256x256000,512x25600,512x256000";
    int reps = 15;
    std::string tsv;
    for (Args a(argc, argv); a.next();) {
        if (a.is("--double")) dbl = a.value();
        else if (a.is("--float")) flt = a.value();
        else if (a.is("--reps")) reps = std::stoi(a.value());
        else if (a.is("--tsv")) tsv = a.value();
        else a.unknown();
    }
    if (!have_gpu()) return 0;
    const Device dev;
    const std::uint64_t seed = std::random_device{}();
    Out out;
    out.copy_gbs = copy_bandwidth_gbs();
    std::printf("device: %s\nseed: %llu\ndevice-to-device copy (1 GiB, read+write): %.0f GB/s\n"
                "ratio: the section's first variant's median over the row's (> 1: faster)\n\n",
                device_summary(dev.prop).c_str(), static_cast<unsigned long long>(seed), out.copy_gbs);
    if (!tsv.empty()) {
        out.tsv = std::fopen(tsv.c_str(), "w");
        if (!out.tsv) throw std::runtime_error("cannot write " + tsv);
        std::fprintf(out.tsv, "# %s; copy %.0f GB/s; seed %llu\nsection\tn\tnsys\tvariant\ttuning\treps\tms_median\t"
                              "ms_min\tms_max\tGBs\tpct_copy\tratio_to_first\tcheck\n",
                     dev.prop.name, out.copy_gbs, static_cast<unsigned long long>(seed));
    }
    L2Flush flush(dev.prop);
    cusparseHandle_t h;
    CUSPARSE_CHECK(cusparseCreate(&h));
    for (const auto& [n, nsys] : points(dbl)) double_point(h, n, nsys, reps, flush, out, seed + 7 * n + nsys);
    for (const auto& [n, nsys] : points(flt)) float_point(h, n, nsys, reps, flush, out, seed + 7 * n + nsys);
    CUSPARSE_CHECK(cusparseDestroy(h));
    if (out.tsv) std::fclose(out.tsv);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "thomas_regression_bench: %s\n", e.what());
    return 1;
}
