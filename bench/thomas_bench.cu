// Batched tridiagonal solves: thomas_batch against cuSPARSE's
// gtsvInterleavedBatch (algo 0, Thomas; same interleaved storage) and gtsv2StridedBatch
// (each system contiguous), same sizes, same run, medians of CUDA-event timings.
//
// Bytes counted per unknown: "eff" = read a, b, c, d and write x = 40 B (the fewest any
// solver can move); thomas_batch itself moves 40 B + 32 B for each row of c', d' that
// does not fit its shared-memory rows (stored in the forward sweep, read back) unless the
// L2-resident mode (W > 0) keeps those in L2. Variant names: K prefetch, R shared rows,
// T threads per block, W resident warps per SM.
// Usage: thomas_bench [--n 64,512] [--nsys 2560,25600,256000] [--reps 20] [--summary FILE]
#include <cusparse.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gpu_bench_util.hpp"
#include "bench/tridiagonal_systems.cuh"
#include "solvers/gpu/thomas_batch.hpp"

using namespace arbolito;
using namespace arbolito::bench;
using arbolito::gpu::DeviceArray;

namespace {

double max_rel_diff(const std::vector<double>& x, const std::vector<double>& y) {
    double m = 0, s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::fabs(x[i] - y[i])), s = std::max(s, std::fabs(y[i]));
    return std::isnan(m) ? INFINITY : m / s;
}

}  // namespace

int main(int argc, char** argv) try {
    std::vector<int> ns = {64, 512}, batches = {2560, 25600, 256000};
    int reps = 20;
    std::string summary;
    for (Args a(argc, argv); a.next();) {
        if (a.is("--n")) ns = split_ints(a.value());
        else if (a.is("--nsys")) batches = split_ints(a.value());
        else if (a.is("--reps")) reps = std::stoi(a.value());
        else if (a.is("--summary")) summary = a.value();
        else a.unknown();
    }
    if (!have_gpu()) return 0;
    const Device dev;
    const std::uint64_t seed = std::random_device{}();
    std::printf("device: %s\nseed: %llu\n", device_summary(dev.prop).c_str(), static_cast<unsigned long long>(seed));
    const double copy_gbs = copy_bandwidth_gbs();
    std::printf("device-to-device copy (1 GiB, read+write): %.0f GB/s\n\n", copy_gbs);
    L2Flush flush(dev.prop);
    cusparseHandle_t h;
    CUSPARSE_CHECK(cusparseCreate(&h));

    std::ostringstream s;
    char line[512];
    std::snprintf(line, sizeof line,
                  "batched tridiagonal, ms per solve (median of %d), %s; copy %.0f GB/s; eff%% = 40 B per unknown / "
                  "time / copy bandwidth\n",
                  reps, dev.prop.name, copy_gbs);
    s << line;
    std::snprintf(line, sizeof line, "%5s %7s | %-24s %9s %6s | %9s %6s %9s | %9s %9s | %8s | %-18s %9s %8s\n", "n",
                  "nsys", "thomas_batch (tuning)", "ms", "eff%", "gtsvIntl", "eff%", "gtsv2Str", "vs Intl", "vs Str",
                  "err", "best variant", "ms", "vs Intl");
    s << line;
    std::printf("%5s %7s %-28s %9s %7s %10s\n", "n", "nsys", "solver", "ms", "eff%", "max.rel.diff");
    for (int n : ns)
        for (int nsys : batches) {
            const std::size_t N = std::size_t(n) * nsys;
            TridiagonalArrays<double> pristine(N), work0(N), work1(N);
            TridiagonalArrays<double>* work[2] = {&work0, &work1};
            DeviceArray<double> scratch(N);
            pristine.make(n, nsys, true, nullptr, seed + n * 7 + nsys);
            CUDA_CHECK(cudaDeviceSynchronize());
            const double eff_bytes = 40.0 * N;
            auto report = [&](const std::string& name, double ms, double err) {
                std::printf("%5d %7d %-28s %9.4f %6.1f%% %10.1e\n", n, nsys, name.c_str(), ms,
                            100.0 * eff_bytes / (ms * 1e-3) / 1e9 / copy_gbs, err);
                std::fflush(stdout);
            };

            // cuSPARSE gtsvInterleavedBatch, Thomas: the reference solution too.
            std::size_t ws = 0;
            CUSPARSE_CHECK(cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, n, work0.a.data(), work0.b.data(),
                                                                       work0.c.data(), work0.d.data(), nsys, &ws));
            DeviceArray<unsigned char> wsbuf(std::max<std::size_t>(ws, 1));
            const double ms_il = time_median_ms(
                [&](int r) {
                    work[r % 2]->copy_from(pristine);
                    flush();
                },
                [&](int r) {
                    TridiagonalArrays<double>& w = *work[r % 2];
                    CUSPARSE_CHECK(cusparseDgtsvInterleavedBatch(h, 0, n, w.a.data(), w.b.data(), w.c.data(),
                                                                 w.d.data(), nsys, wsbuf.data()));
                },
                reps);
            CUDA_CHECK(cudaDeviceSynchronize());
            const std::vector<double> ref = work[(3 + reps - 1) % 2]->d.download();
            report("cusparse gtsvInterleaved/0", ms_il, 0.0);
            std::printf("%5s %7s   (gtsvInterleavedBatch workspace %zu bytes)\n", "", "", ws);

            // thomas_batch: default tuning and the alternatives.
            struct Variant { std::string name; gpu::ThomasTuning t; };
            std::vector<Variant> variants = {{"default", {}},
                                             {"pf4-smem32", {4, -1, 64, 0}},  // the first default
                                             {"pf8-smem32", {8, -1, 64, 0}},
                                             {"pf8-no-smem", {8, 0, 64, 0}},
                                             {"pf16-no-smem", {16, 0, 64, 0}}};
            // L2-resident: W warps per SM reuse one c' scratch each (thomas_batch.hpp).
            for (int w : {1, 2, 4}) variants.push_back({"resident" + std::to_string(w), {8, 0, 0, w}});
            double best_ms = 1e30, ms_def = 0, err_def = 0;  // best: over every variant
            std::string best_name;
            for (const auto& v : variants) {
                const double ms = time_median_ms(
                    [&](int r) {
                        work[r % 2]->copy_from(pristine);
                        flush();
                    },
                    [&](int r) {
                        TridiagonalArrays<double>& w = *work[r % 2];
                        gpu::thomas_batch(w.a.data(), w.b.data(), w.c.data(), w.d.data(), scratch.data(), n, nsys,
                                          nullptr, v.t);
                    },
                    reps);
                CUDA_CHECK(cudaDeviceSynchronize());
                const double err = max_rel_diff(work[(3 + reps - 1) % 2]->d.download(), ref);
                const gpu::ThomasTuning r = gpu::thomas_resolve(v.t, n, nsys);
                report("thomas_batch " + v.name + " (K" + std::to_string(r.prefetch) + " R" + std::to_string(r.smem_rows) +
                           " T" + std::to_string(r.threads) + " W" + std::to_string(r.resident_warps) + ")",
                       ms, err);
                if (ms < best_ms) best_ms = ms, best_name = v.name;
                if (v.name == "default") ms_def = ms, err_def = err;
            }
            // cuSPARSE gtsv2StridedBatch on the same systems stored system by system.
            double ms_st = NAN;
            {
                TridiagonalArrays<double> sp(N), sw(N);
                sp.make(n, nsys, false, nullptr, seed + n * 7 + nsys);
                std::size_t ws2 = 0;
                CUSPARSE_CHECK(cusparseDgtsv2StridedBatch_bufferSizeExt(h, n, sp.a.data(), sp.b.data(), sp.c.data(),
                                                                        sp.d.data(), nsys, n, &ws2));
                DeviceArray<unsigned char> wb2(std::max<std::size_t>(ws2, 1));
                // One buffer set here (memory): the L2 flush keeps repetitions honest.
                ms_st = time_median_ms(
                    [&](int) {
                        CUDA_CHECK(cudaMemcpyAsync(sw.d.data(), sp.d.data(), N * sizeof(double), cudaMemcpyDeviceToDevice));
                        flush();
                    },
                    [&](int) {
                        CUSPARSE_CHECK(cusparseDgtsv2StridedBatch(h, n, sp.a.data(), sp.b.data(), sp.c.data(),
                                                                  sw.d.data(), nsys, n, wb2.data()));
                    },
                    reps);
                CUDA_CHECK(cudaDeviceSynchronize());
                // Same systems: compare with the interleaved reference.
                const std::vector<double> xs = sw.d.download();
                std::vector<double> xi(N);
                for (int sy = 0; sy < nsys; ++sy)
                    for (int i = 0; i < n; ++i) xi[std::size_t(i) * nsys + sy] = xs[std::size_t(sy) * n + i];
                report("cusparse gtsv2StridedBatch", ms_st, max_rel_diff(xi, ref));
                std::printf("%5s %7s   (gtsv2StridedBatch workspace %zu bytes)\n", "", "", ws2);
            }
            const double eff = 100.0 * eff_bytes / (ms_def * 1e-3) / 1e9 / copy_gbs;
            const double eff_il = 100.0 * eff_bytes / (ms_il * 1e-3) / 1e9 / copy_gbs;
            std::snprintf(line, sizeof line,
                          "%5d %7d | %-24s %9.4f %5.1f%% | %9.4f %5.1f%% %9.4f | %8.2fx %8.2fx | %8.1e | %-18s %9.4f %7.2fx\n",
                          n, nsys, "default", ms_def, eff, ms_il, eff_il, ms_st, ms_il / ms_def, ms_st / ms_def, err_def,
                          best_name.c_str(), best_ms, ms_il / best_ms);
            s << line;
        }
    CUSPARSE_CHECK(cusparseDestroy(h));
    std::printf("\n%s", s.str().c_str());
    if (!summary.empty()) std::ofstream(summary) << s.str();
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "thomas_bench: %s\n", e.what());
    return 1;
}
