// The published cuHinesBatch/cuThomasBatch variants, each beside the others in one run, double and float:
//   grid    batched Thomas, 64/128/256/512 unknowns x 256 ... 256,000 systems: thomas_batch
//           interleaved and unified-vector (cuThomasBatch-UV), cuSPARSE
//           gtsvInterleavedBatch (algorithm 0, Thomas) and gtsv2StridedBatch;
//   vbatch  cuThomasVBatch: systems of random size 256-512 stored padded to 512, padding
//           computed or each thread stopping at its size, in random and in sorted order,
//           against fixed 256 and 512;
//   cells   cuHinesVBatch: gpu-cell (rowparent8) on mono-morphology, multi-morphology and
//           multi 600-700 CV batches, padding computed or not, block-interleaved against
//           block-shared (rhs in shared memory) on the same numbering.
// Times: medians of CUDA-event timings, inputs restored and L2 flushed before each run.
// Bandwidth counts the bytes a solve cannot avoid, of real unknowns only: Thomas 5 values
// per unknown (read a, b, c, d, write x: 40 B in double, 20 B in float), gpu-cell 4 per CV
// (read d, u, rhs, write x: 32 B / 16 B); pct = that over the device-to-device copy
// bandwidth measured in the same run. err: max-norm relative difference to the double
// reference (cuSPARSE gtsvInterleavedBatch in double for Thomas, on the first 1,024
// systems; the serial hines_solve for cells, on 4 cells).
// Usage: seed_variants_bench [--sections grid,vbatch,cells] [--n 64,128,256,512]
//        [--nsys 256,2560,25600,256000] [--cells 256,2560,25600,256000] [--reps 10]
//        [--tsv FILE] [--budget-s S]
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/support/cell_trees.hpp"
#include "bench/cell_slot_check.cuh"
#include "bench/gpu_bench_util.hpp"
#include "bench/tridiagonal_systems.cuh"
#include "solvers/gpu/hines_gpu_cell.hpp"
#include "solvers/gpu/thomas_batch.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "solvers/hines.hpp"

using namespace arbolito;
using namespace arbolito::bench;
using arbolito::gpu::DeviceArray;

namespace {

struct Options {
    std::vector<std::string> sections = {"grid", "vbatch", "cells"};
    std::vector<int> ns = {64, 128, 256, 512}, nsys = {256, 2560, 25600, 256000}, cells = {256, 2560, 25600, 256000};
    int reps = 10;
    std::string tsv;
    double budget_s = 1e9;
};

template <class T>
const char* prec() {
    return std::is_same_v<T, float> ? "fp32" : "fp64";
}

// One measured row of the TSV.
struct Out {
    std::FILE* tsv = nullptr;
    double copy_gbs = 0;
    void row(const std::string& section, const char* precision, const std::string& variant, const std::string& shape,
             long count, double real_units, double bytes_per_unit, double ms, double err) {
        const double gbs = real_units * bytes_per_unit / (ms * 1e-3) / 1e9;
        std::printf("%-7s %-4s %-28s %-14s %7ld %10.4f ms %7.1f GB/s %5.1f%% err %8.1e\n", section.c_str(), precision,
                    variant.c_str(), shape.c_str(), count, ms, gbs, 100 * gbs / copy_gbs, err);
        std::fflush(stdout);
        if (tsv) {
            std::fprintf(tsv, "%s\t%s\t%s\t%s\t%ld\t%.0f\t%.5f\t%.1f\t%.1f\t%.2e\n", section.c_str(), precision,
                         variant.c_str(), shape.c_str(), count, real_units, ms, gbs, 100 * gbs / copy_gbs, err);
            std::fflush(tsv);
        }
    }
};

// ---- batched Thomas ----

// Interleaved arrays into one unified vector: row i's a, b, c, d of all systems in turn.
template <class T>
__global__ void to_unified(const T* a, const T* b, const T* c, const T* d, T* v, int n, int nsys) {
    const std::size_t total = std::size_t(n) * nsys;
    for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < total;
         k += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t i = k / nsys, s = k % nsys, r = 4 * i * nsys + s;
        v[r] = a[k], v[r + nsys] = b[k], v[r + 2 * nsys] = c[k], v[r + 3 * nsys] = d[k];
    }
}

constexpr int checked_systems = 1024;

// The first min(nsys, 1,024) systems' rows, system-major (x[s * n + i]), from storage with
// row i of system s at base[i * row_stride + s] or (strided) base[s * n + i].
template <class T>
std::vector<double> first_systems(const T* base, int n, int nsys, std::size_t row_stride, bool strided) {
    const int k = std::min(nsys, checked_systems);
    std::vector<T> h(std::size_t(k) * n);
    if (strided) {
        CUDA_CHECK(cudaMemcpy(h.data(), base, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
        return std::vector<double>(h.begin(), h.end());
    }
    std::vector<T> rows(std::size_t(k) * n);  // row-major k wide
    CUDA_CHECK(cudaMemcpy2D(rows.data(), k * sizeof(T), base, row_stride * sizeof(T), k * sizeof(T), n,
                            cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        for (int s = 0; s < k; ++s) h[std::size_t(s) * n + i] = rows[std::size_t(i) * k + s];
    return std::vector<double>(h.begin(), h.end());
}

// Max-norm relative difference per system, the worst over the systems (real rows only).
double rel_err(const std::vector<double>& x, const std::vector<double>& ref, int n, const std::vector<int>& size) {
    double worst = 0;
    for (std::size_t s = 0; s * n < ref.size(); ++s) {
        const int m = size.empty() ? n : size[s];
        double num = 0, den = 0;
        for (int i = 0; i < m; ++i) {
            const double e = std::fabs(x[s * n + i] - ref[s * n + i]);
            num = std::max(num, std::isnan(e) ? INFINITY : e);
            den = std::max(den, std::fabs(ref[s * n + i]));
        }
        worst = std::max(worst, den > 0 ? num / den : num);
    }
    return worst;
}

// cuSPARSE in either precision.
cusparseStatus_t il_buf(cusparseHandle_t h, int n, double* a, double* b, double* c, double* d, int k, std::size_t* w) {
    return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, n, a, b, c, d, k, w);
}
cusparseStatus_t il_buf(cusparseHandle_t h, int n, float* a, float* b, float* c, float* d, int k, std::size_t* w) {
    return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, 0, n, a, b, c, d, k, w);
}
cusparseStatus_t il_solve(cusparseHandle_t h, int n, double* a, double* b, double* c, double* d, int k, void* w) {
    return cusparseDgtsvInterleavedBatch(h, 0, n, a, b, c, d, k, w);
}
cusparseStatus_t il_solve(cusparseHandle_t h, int n, float* a, float* b, float* c, float* d, int k, void* w) {
    return cusparseSgtsvInterleavedBatch(h, 0, n, a, b, c, d, k, w);
}
cusparseStatus_t st_buf(cusparseHandle_t h, int n, const double* a, const double* b, const double* c, const double* d,
                        int k, std::size_t* w) {
    return cusparseDgtsv2StridedBatch_bufferSizeExt(h, n, a, b, c, d, k, n, w);
}
cusparseStatus_t st_buf(cusparseHandle_t h, int n, const float* a, const float* b, const float* c, const float* d, int k,
                        std::size_t* w) {
    return cusparseSgtsv2StridedBatch_bufferSizeExt(h, n, a, b, c, d, k, n, w);
}
cusparseStatus_t st_solve(cusparseHandle_t h, int n, const double* a, const double* b, const double* c, double* d,
                          int k, void* w) {
    return cusparseDgtsv2StridedBatch(h, n, a, b, c, d, k, n, w);
}
cusparseStatus_t st_solve(cusparseHandle_t h, int n, const float* a, const float* b, const float* c, float* d, int k,
                          void* w) {
    return cusparseSgtsv2StridedBatch(h, n, a, b, c, d, k, n, w);
}

// The double reference of one batch: cuSPARSE gtsvInterleavedBatch in double on the
// first systems.
std::vector<double> thomas_reference(cusparseHandle_t h, int n, int nsys, const int* size, std::uint64_t seed) {
    const int k = std::min(nsys, checked_systems);
    // The first k systems of the batch are systems 0..k-1 of an interleaved batch of k
    // (same hash keys), so a small batch gives the reference.
    TridiagonalArrays<double> r(std::size_t(n) * k);
    r.make(n, k, true, size, seed);
    std::size_t ws = 0;
    CUSPARSE_CHECK(il_buf(h, n, r.a.data(), r.b.data(), r.c.data(), r.d.data(), k, &ws));
    DeviceArray<unsigned char> w(std::max<std::size_t>(ws, 1));
    CUSPARSE_CHECK(il_solve(h, n, r.a.data(), r.b.data(), r.c.data(), r.d.data(), k, w.data()));
    CUDA_CHECK(cudaDeviceSynchronize());
    return first_systems(r.d.data(), n, k, k, false);
}

// Every variant on one batch of nsys systems of n rows in T.
template <class T>
void thomas_grid(cusparseHandle_t h, int n, int nsys, int reps, L2Flush& flush, Out& out, std::uint64_t seed) {
    const std::size_t N = std::size_t(n) * nsys;
    const std::vector<double> ref = thomas_reference(h, n, nsys, nullptr, seed);
    const std::string shape = "n=" + std::to_string(n);
    const double units = double(N), bpu = 5.0 * sizeof(T);
    TridiagonalArrays<T> pristine(N), work(N);
    pristine.make(n, nsys, true, nullptr, seed);
    work.copy_from(pristine, false);  // a, b, c once (thomas_batch leaves them), d before each run
    DeviceArray<T> scratch(N);
    auto prepare = [&](bool d_only) {
        return [&, d_only](int) {
            work.copy_from(pristine, d_only);
            flush();
        };
    };
    // thomas_batch, interleaved.
    double ms = time_median_ms(prepare(true),
                               [&](int) {
                                   gpu::thomas_batch(gpu::interleaved_systems<T>(work.a.data(), work.b.data(),
                                                                                 work.c.data(), work.d.data(), nsys),
                                                     scratch.data(), n, nsys, nullptr);
                               },
                               reps);
    out.row("grid", prec<T>(), "thomas_batch interleaved", shape, nsys, units, bpu, ms,
            rel_err(first_systems(work.d.data(), n, nsys, nsys, false), ref, n, {}));
    // thomas_batch, unified vector.
    {
        DeviceArray<T> v0(4 * N), v(4 * N);
        to_unified<T><<<1024, 256>>>(pristine.a.data(), pristine.b.data(), pristine.c.data(), pristine.d.data(),
                                      v0.data(), n, nsys);
        CUDA_CHECK_LAUNCH();
        ms = time_median_ms(
            [&](int) {
                CUDA_CHECK(cudaMemcpyAsync(v.data(), v0.data(), 4 * N * sizeof(T), cudaMemcpyDeviceToDevice));
                flush();
            },
            [&](int) { gpu::thomas_batch(gpu::unified_systems(v.data(), nsys), scratch.data(), n, nsys, nullptr); },
            reps);
        out.row("grid", prec<T>(), "thomas_batch unified-vector", shape, nsys, units, bpu, ms,
                rel_err(first_systems(v.data() + 3 * std::size_t(nsys), n, nsys, 4 * std::size_t(nsys), false), ref, n,
                        {}));
    }
    // cuSPARSE gtsvInterleavedBatch (overwrites a, b, c: all four restored).
    {
        std::size_t ws = 0;
        CUSPARSE_CHECK(il_buf(h, n, work.a.data(), work.b.data(), work.c.data(), work.d.data(), nsys, &ws));
        DeviceArray<unsigned char> w(std::max<std::size_t>(ws, 1));
        ms = time_median_ms(prepare(false),
                            [&](int) {
                                CUSPARSE_CHECK(il_solve(h, n, work.a.data(), work.b.data(), work.c.data(),
                                                        work.d.data(), nsys, w.data()));
                            },
                            reps);
        out.row("grid", prec<T>(), "cusparse gtsvInterleavedBatch", shape, nsys, units, bpu, ms,
                rel_err(first_systems(work.d.data(), n, nsys, nsys, false), ref, n, {}));
    }
    // cuSPARSE gtsv2StridedBatch, each system contiguous (a, b, c not modified).
    {
        TridiagonalArrays<T> sp(N);
        sp.make(n, nsys, false, nullptr, seed);
        DeviceArray<T> x(N);
        std::size_t ws = 0;
        CUSPARSE_CHECK(st_buf(h, n, sp.a.data(), sp.b.data(), sp.c.data(), sp.d.data(), nsys, &ws));
        DeviceArray<unsigned char> w(std::max<std::size_t>(ws, 1));
        ms = time_median_ms(
            [&](int) {
                CUDA_CHECK(cudaMemcpyAsync(x.data(), sp.d.data(), N * sizeof(T), cudaMemcpyDeviceToDevice));
                flush();
            },
            [&](int) { CUSPARSE_CHECK(st_solve(h, n, sp.a.data(), sp.b.data(), sp.c.data(), x.data(), nsys, w.data())); },
            reps);
        out.row("grid", prec<T>(), "cusparse gtsv2StridedBatch", shape, nsys, units, bpu, ms,
                rel_err(first_systems(x.data(), n, nsys, 0, true), ref, n, {}));
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

// cuThomasVBatch: fixed 256, fixed 512, random 256..512 padded to 512 (compute, stop).
template <class T>
void thomas_vbatch(cusparseHandle_t h, int nsys, int reps, L2Flush& flush, Out& out, std::uint64_t seed,
                   std::mt19937& gen) {
    // Random sizes in the callers' order, and the same sorted (largest first): a warp walks
    // its largest system, so stopping at each size pays only where a warp's sizes are alike.
    std::vector<int> rnd(nsys);
    for (int& m : rnd) m = std::uniform_int_distribution<int>(256, 512)(gen);
    std::vector<int> sorted = rnd;
    std::sort(sorted.begin(), sorted.end(), std::greater<int>());
    const DeviceArray<int> rnd_dev(rnd), sorted_dev(sorted);
    struct Case {
        const char* name;
        int n;
        const int* size;
        gpu::ThomasPadding pad;
    };
    const Case cases[] = {{"fixed-256", 256, nullptr, gpu::ThomasPadding::compute},
                          {"fixed-512", 512, nullptr, gpu::ThomasPadding::compute},
                          {"random-256-512 compute", 512, rnd_dev.data(), gpu::ThomasPadding::compute},
                          {"random-256-512 stop", 512, rnd_dev.data(), gpu::ThomasPadding::stop},
                          {"sorted-256-512 compute", 512, sorted_dev.data(), gpu::ThomasPadding::compute},
                          {"sorted-256-512 stop", 512, sorted_dev.data(), gpu::ThomasPadding::stop}};
    for (const Case& c : cases) {
        const int n = c.n;
        const std::size_t N = std::size_t(n) * nsys;
        const std::vector<int>& sz = c.size == sorted_dev.data() ? sorted : rnd;
        const std::vector<int> first(c.size ? sz.begin() : sz.end(),
                                     c.size ? sz.begin() + std::min(nsys, checked_systems) : sz.end());
        const std::vector<double> ref = thomas_reference(h, n, nsys, c.size, seed);
        double real = 0;
        for (int s = 0; s < nsys; ++s) real += c.size ? sz[s] : n;
        TridiagonalArrays<T> pristine(N), work(N);
        pristine.make(n, nsys, true, c.size, seed);
        work.copy_from(pristine, false);
        DeviceArray<T> scratch(N);
        gpu::ThomasTuning t;
        t.padding = c.pad;
        const double ms = time_median_ms(
            [&](int) {
                work.copy_from(pristine, true);
                flush();
            },
            [&](int) {
                gpu::thomas_batch(gpu::interleaved_systems<T>(work.a.data(), work.b.data(), work.c.data(),
                                                              work.d.data(), nsys, c.size),
                                  scratch.data(), n, nsys, nullptr, t);
            },
            reps);
        out.row("vbatch", prec<T>(), std::string("thomas ") + c.name, "n<=" + std::to_string(n), nsys, real,
                5.0 * sizeof(T), ms, rel_err(first_systems(work.d.data(), n, nsys, nsys, false), ref, n, first));
    }
}

// ---- gpu-cell ----

template <class T>
__global__ void fill_cast(T* x, std::size_t n, std::uint64_t seed, double lo, double hi) {
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
        x[i] = T(hash_uniform(seed, i, lo, hi));
}
template <class T>
__global__ void set_padding(const int* idx, int n, T* d, T* u, T* rhs) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[idx[i]] = T(1), u[idx[i]] = T(0), rhs[idx[i]] = T(0);
}

// d, u, rhs of a layout in T (the same values in either precision: d in [2.5, 3.5),
// u in [-0.1, -0.01), diagonally dominant for up to 25 children), padding rows inert,
// and pristine copies of d and rhs for restoring before each solve.
template <class T>
struct CellBuffers {
    DeviceArray<T> d0, r0, d, u, r;
    CellBuffers(const Layout& l, std::uint64_t seed) : d0(l.n_cv), r0(l.n_cv), d(l.n_cv), u(l.n_cv), r(l.n_cv) {
        const std::size_t n = l.n_cv;
        fill_cast<T><<<1024, 256>>>(d0.data(), n, seed, 2.5, 3.5);
        CUDA_CHECK_LAUNCH();
        fill_cast<T><<<1024, 256>>>(r0.data(), n, seed + 1, -1, 1);
        CUDA_CHECK_LAUNCH();
        fill_cast<T><<<1024, 256>>>(u.data(), n, seed + 2, -0.1, -0.01);
        CUDA_CHECK_LAUNCH();
        if (!l.padding.empty()) {
            const DeviceArray<int> pad(l.padding);
            const int np = static_cast<int>(l.padding.size());
            set_padding<T><<<(np + 255) / 256, 256>>>(pad.data(), np, d0.data(), u.data(), r0.data());
            CUDA_CHECK_LAUNCH();
            CUDA_CHECK(cudaDeviceSynchronize());
        }
    }
    void restore() {
        CUDA_CHECK(cudaMemcpyAsync(d.data(), d0.data(), d.size() * sizeof(T), cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaMemcpyAsync(r.data(), r0.data(), r.size() * sizeof(T), cudaMemcpyDeviceToDevice));
    }
};

// One batch in one numbering: each (block-shared?, padding) variant in T.
template <class T>
void cell_variants(const std::vector<std::vector<int>>& cells, const GpuCellNumbering& g, int bs, long real_cv,
                   const std::string& kind, int reps, L2Flush& flush, Out& out, std::uint64_t seed) {
    const gpu::CellSchedule sched = gpu::cell_schedule(g.layout, g.slots);
    CellBuffers<T> buf(g.layout, seed);
    for (bool shared : {false, true})
        for (gpu::CellPadding pad : {gpu::CellPadding::stop, gpu::CellPadding::compute}) {
            if (shared && bs * sched.max_padded * sizeof(double) > gpu::shared_bytes_per_block()) continue;
            gpu::GpuCellPlan plan = gpu::make_gpu_cell_plan(g.layout, sched, gpu::CellKernel::rowparent8, {shared, pad});
            plan.threads = g.slots.n_slots() < 128 * 2 * gpu::device_shape().sms ? 32 : 128;  // the group's choice
            const double ms = time_median_ms(
                [&](int) {
                    buf.restore();
                    flush();
                },
                [&](int) { gpu::gpu_cell_solve(plan, buf.d.data(), buf.u.data(), buf.r.data(), nullptr); }, reps);
            CUDA_CHECK(cudaDeviceSynchronize());
            const std::string variant = std::string(shared ? "block-shared:" : "block-interleaved:") +
                                        std::to_string(bs) + (pad == gpu::CellPadding::compute ? " compute" : " stop");
            out.row("cells", prec<T>(), variant, kind, g.slots.n_slots(), double(real_cv), 4.0 * sizeof(T), ms,
                    slot_error(g.slots, cells, buf.d0.data(), buf.r0.data(), buf.u.data(), buf.r.data(), ErrorNorm::max));
        }
}

}  // namespace

int main(int argc, char** argv) try {
    Options o;
    for (Args a(argc, argv); a.next();) {
        if (a.is("--sections")) o.sections = split_list(a.value());
        else if (a.is("--n")) o.ns = split_ints(a.value());
        else if (a.is("--nsys")) o.nsys = split_ints(a.value());
        else if (a.is("--cells")) o.cells = split_ints(a.value());
        else if (a.is("--reps")) o.reps = std::stoi(a.value());
        else if (a.is("--tsv")) o.tsv = a.value();
        else if (a.is("--budget-s")) o.budget_s = std::stod(a.value());
        else a.unknown();
    }
    if (!have_gpu()) return 0;
    const Device dev;
    const std::uint64_t seed = std::random_device{}();
    std::mt19937 gen(static_cast<unsigned>(seed));
    Out out;
    out.copy_gbs = copy_bandwidth_gbs();
    std::printf("device: %s\nseed: %llu\ndevice-to-device copy (1 GiB, read+write): %.0f GB/s\nshared memory per "
                "block: %zu B\n\n",
                device_summary(dev.prop).c_str(), static_cast<unsigned long long>(seed), out.copy_gbs,
                gpu::shared_bytes_per_block());
    if (!o.tsv.empty()) {
        out.tsv = std::fopen(o.tsv.c_str(), "w");
        if (!out.tsv) throw std::runtime_error("cannot write " + o.tsv);
        std::fprintf(out.tsv, "# %s; copy %.0f GB/s\nsection\tprecision\tvariant\tshape\tcount\treal_units\tms\tGBs\t"
                              "pct_copy\terr\n",
                     dev.prop.name, out.copy_gbs);
    }
    L2Flush flush(dev.prop);
    cusparseHandle_t h;
    CUSPARSE_CHECK(cusparseCreate(&h));
    const auto start = std::chrono::steady_clock::now();
    auto in_time = [&] {
        const bool ok = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < o.budget_s;
        if (!ok) std::printf("budget of %.0f s spent: skipped\n", o.budget_s);
        return ok;
    };
    auto has = [&](const char* s) { return std::find(o.sections.begin(), o.sections.end(), s) != o.sections.end(); };

    if (has("grid"))
        for (int n : o.ns)
            for (int nsys : o.nsys) {
                if (!in_time()) break;
                thomas_grid<double>(h, n, nsys, o.reps, flush, out, seed + 7 * n + nsys);
                thomas_grid<float>(h, n, nsys, o.reps, flush, out, seed + 7 * n + nsys);
            }
    if (has("vbatch"))
        for (int nsys : o.nsys) {
            if (!in_time()) break;
            thomas_vbatch<double>(h, nsys, o.reps, flush, out, seed + nsys, gen);
            thomas_vbatch<float>(h, nsys, o.reps, flush, out, seed + nsys, gen);
        }
    if (has("cells")) {
        // mono: the CA1 pyramidal cell (~309 CVs) throughout; multi: cells drawn from 512
        // variants (sizes +-20 %) of three real morphologies of 77, 309 and 690 CVs; multi
        // 600-700: 512 variants of the L5 pyramidal of 600 to 700 CVs.
        const std::string dir = trees::morphology_dir();
        const trees::Tree small = trees::real(dir + "Pvalb_470522102_m.swc", 76),
                          medium = trees::real(dir + "ca1_pyramidal_n120.swc", 305),
                          big = trees::real(dir + "l5_pyramidal_with_axon.swc", 690);
        if (small.empty() || medium.empty() || big.empty()) throw std::runtime_error("morphologies not found in " + dir);
        std::vector<trees::Tree> multi_pool, big_pool;
        for (int k = 0; k < 512; ++k) {
            const trees::Tree& base = k % 3 == 0 ? small : k % 3 == 1 ? medium : big;
            const int nb = static_cast<int>(base.size());
            multi_pool.push_back(trees::variant(base, std::uniform_int_distribution<int>(nb * 8 / 10, nb * 12 / 10)(gen), gen));
            big_pool.push_back(trees::variant(big, std::uniform_int_distribution<int>(600, 700)(gen), gen));
        }
        for (int n_cells : o.cells)
            for (const char* kind : {"mono", "multi", "multi600-700"}) {
                if (!in_time()) break;
                std::vector<std::vector<int>> cells(n_cells);
                for (auto& c : cells)
                    c = std::string(kind) == "mono" ? medium
                        : std::string(kind) == "multi"
                            ? multi_pool[std::uniform_int_distribution<int>(0, 511)(gen)]
                            : big_pool[std::uniform_int_distribution<int>(0, 511)(gen)];
                long real_cv = 0;
                std::size_t rows = 0;
                for (const auto& c : cells) real_cv += static_cast<long>(c.size()), rows = std::max(rows, c.size());
                // block-interleaved:32 (the default) and the block-shared size chosen from
                // the shared memory (double: block=auto), each in both variants.
                const int bs_auto = gpu::block_shared_auto(static_cast<int>(rows));
                std::vector<int> sizes = {32};
                if (bs_auto != 32 && bs_auto > 0) sizes.push_back(bs_auto);
                for (int bs : sizes) {
                    const GpuCellNumbering g = gpu_cell_layout(cells, "block-interleaved:" + std::to_string(bs));
                    cell_variants<double>(cells, g, bs, real_cv, kind, o.reps, flush, out, seed + n_cells);
                    cell_variants<float>(cells, g, bs, real_cv, kind, o.reps, flush, out, seed + n_cells);
                }
            }
    }
    CUSPARSE_CHECK(cusparseDestroy(h));
    if (out.tsv) std::fclose(out.tsv);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "seed_variants_bench: %s\n", e.what());
    return 1;
}
