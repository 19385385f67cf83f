// gpu-cell solver benchmark: time per solve of batches of cells for each layout
// and kernel, against OpenMP on the host's cores running the serial hines_solve, and as a
// share of the device's measured copy bandwidth.
//
// Bytes counted per real CV:
//   "eff" (the issue's count, one pass): read d, u, rhs, parent (8+8+8+4), write d, rhs
//        (8+8) = 44 B; the same figure for every kernel, so times compare directly;
//   "moved": what the kernel itself must move through device memory when the batch is
//        larger than L2: plain 80 B (backward: read d, u, rhs, parent, write d and rhs of
//        the parent row; forward: read d, u, rhs, parent, write rhs), pipelined 64 B
//        (backward: read d, u, rhs, write f and rhs'; forward: read f, rhs', write x),
//        rowparent 68 B (pipelined's, plus the uint16 parent distance read in each sweep),
//        resident 32 B (read d, u, rhs, write x: f and rhs' of the cells in flight are
//        meant to stay in L2; a figure above 100 % would show that they do).
// Usage: gpu_solver_bench [--sizes 256,2560,25600,256000] [--reps 20] [--classes a,b]
//                         [--no-cpu] [--resident] [--tsv FILE] [--summary FILE] [--budget-s S]
// (--resident: also the L2-resident kernel, 6 variants; 2.6-9x slower when last measured)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cell_trees.hpp"
#include "bench/cell_slot_check.cuh"
#include "bench/gpu_bench_util.hpp"
#include "solvers/gpu/hines_gpu_cell.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "solvers/hines.hpp"

using namespace arbolito;
using namespace arbolito::bench;
using arbolito::gpu::CellKernel;
using arbolito::gpu::DeviceArray;

namespace {

struct Options {
    std::vector<int> sizes = {256, 2560, 25600, 256000};
    int reps = 20;
    bool cpu = true;
    bool resident = false;
    std::vector<std::string> classes;  // empty: all
    std::string tsv, summary;
    double budget_s = 1e9;  // no new batch is started after this many seconds
};

struct CellClass {
    std::string name;   // e.g. medium-few
    std::string what;   // where the base tree came from
    trees::Tree base;
    bool synthetic = true;
    int branches = 1;   // for synthetic variants
};

std::vector<CellClass> make_classes(std::mt19937& gen) {
    std::vector<CellClass> out;
    const struct { const char* name; int n; const char* swc; } sizes[] = {
        {"medium", 305, "ca1_pyramidal_n120.swc"},  // first: the issue's target size
        {"small", 76, "Pvalb_470522102_m.swc"},
        {"big", 690, "l5_pyramidal_with_axon.swc"}};
    for (const auto& s : sizes) {
        std::string policy;
        trees::Tree real = trees::real(trees::morphology_dir() + s.swc, s.n, &policy);
        const int n = real.empty() ? s.n : static_cast<int>(real.size());
        if (!real.empty())
            out.push_back({std::string(s.name) + "-real", std::string(s.swc) + " " + policy, real, false, 0});
        // Few: one branch point per ~50 CVs; many: one per ~5 CVs.
        const int few = std::max(2, n / 50), many = std::max(3, n / 5);
        out.push_back({std::string(s.name) + "-few", "synthetic", trees::synthetic(n, few, gen), true, few});
        out.push_back({std::string(s.name) + "-many", "synthetic", trees::synthetic(n, many, gen), true, many});
    }
    return out;
}

// A batch: mono = every cell the class's base tree; multi = cells drawn from 512 variants
// whose sizes are uniform within +-20% of the base (synthetic: fresh trees of the same
// branch density; real: the base cut short or grown by extra branches).
std::vector<std::vector<int>> make_batch(const CellClass& cc, bool multi, int n_cells, std::mt19937& gen) {
    if (!multi) return std::vector<std::vector<int>>(n_cells, cc.base);
    const int n = static_cast<int>(cc.base.size());
    std::vector<std::vector<int>> pool;
    for (int k = 0; k < 512; ++k) {
        const int target = std::uniform_int_distribution<int>(n * 8 / 10, n * 12 / 10)(gen);
        pool.push_back(cc.synthetic ? trees::synthetic(target, std::max(1, cc.branches * target / n), gen)
                                    : trees::variant(cc.base, target, gen));
    }
    std::vector<std::vector<int>> cells(n_cells);
    for (auto& c : cells) c = pool[std::uniform_int_distribution<int>(0, 511)(gen)];
    return cells;
}

__global__ void set_padding(const int* idx, int n, double* d, double* u, double* rhs) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (d) d[idx[i]] = 1.0;
    if (u) u[idx[i]] = 0.0;
    if (rhs) rhs[idx[i]] = 0.0;
}

struct Row {
    std::string cls, kind, layout, kernel;
    int cells = 0;
    long real_cv = 0, padding = 0, branch_points = 0;
    double ms = 0, eff_gbs = 0, eff_pct = 0, moved_gbs = 0, moved_pct = 0, max_err = 0;
};

double moved_bytes_per_cv(const std::string& kernel) {
    if (kernel == "plain") return 80.0;
    if (kernel.rfind("rowparent", 0) == 0) return 68.0;
    return kernel.rfind("res", 0) == 0 ? 32.0 : 64.0;
}

// The device arrays of one layout: two sets (d, u, rhs), rotated between repetitions,
// and pristine d, rhs that each repetition copies back (the solve overwrites them).
struct Buffers {
    DeviceArray<double> d0, r0, d[2], u[2], r[2];
    explicit Buffers(const Layout& l, std::uint64_t seed) : d0(l.n_cv), r0(l.n_cv) {
        // Diagonally dominant for up to 25 children per CV, never zero.
        device_fill(d0.data(), l.n_cv, seed, 2.5, 3.5);
        device_fill(r0.data(), l.n_cv, seed + 1, -1.0, 1.0);
        for (int k = 0; k < 2; ++k) {
            d[k] = DeviceArray<double>(l.n_cv);
            u[k] = DeviceArray<double>(l.n_cv);
            r[k] = DeviceArray<double>(l.n_cv);
            device_fill(u[k].data(), l.n_cv, seed + 2 + k, -0.1, -0.01);
        }
        if (!l.padding.empty()) {
            DeviceArray<int> pad(l.padding);
            const int n = static_cast<int>(l.padding.size());
            const int b = (n + 255) / 256;
            set_padding<<<b, 256>>>(pad.data(), n, d0.data(), nullptr, r0.data());
            CUDA_CHECK_LAUNCH();
            for (int k = 0; k < 2; ++k) {
                set_padding<<<b, 256>>>(pad.data(), n, nullptr, u[k].data(), nullptr);
                CUDA_CHECK_LAUNCH();
            }
        }
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    void restore(int k) {
        const std::size_t bytes = d0.size() * sizeof(double);
        if (!bytes) return;
        CUDA_CHECK(cudaMemcpyAsync(d[k].data(), d0.data(), bytes, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaMemcpyAsync(r[k].data(), r0.data(), bytes, cudaMemcpyDeviceToDevice));
    }
};

// OpenMP over cells, serial Hines per cell, contiguous layout; median ms.
double cpu_omp_ms(const std::vector<std::vector<int>>& cells, int reps, std::uint64_t seed) {
    const Layout l = contiguous_layout(cells);
    const std::size_t n = l.n_cv;
    std::vector<int> first(cells.size() + 1, 0);
    for (std::size_t c = 0; c < cells.size(); ++c) first[c + 1] = first[c] + static_cast<int>(cells[c].size());
    std::unique_ptr<double[]> d0(new double[n]), r0(new double[n]), u(new double[n]), d(new double[n]),
        r(new double[n]);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        d0[i] = hash_uniform(seed, i, 2.5, 3.5), r0[i] = hash_uniform(seed + 1, i, -1, 1);
        u[i] = hash_uniform(seed + 2, i, -0.1, -0.01), d[i] = 0, r[i] = 0;
    }
    std::vector<double> t;
    const int nc = static_cast<int>(cells.size());
    for (int rep = 0; rep < reps + 1; ++rep) {
#pragma omp parallel for schedule(static)
        for (std::size_t i = 0; i < n; ++i) d[i] = d0[i], r[i] = r0[i];
        const auto a = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 16)
        for (int c = 0; c < nc; ++c) hines_solve(first[c], first[c + 1], l.parent.data(), d.get(), u.get(), r.get());
        const auto b = std::chrono::steady_clock::now();
        if (rep > 0) t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
    // Keep freed memory in the heap: the layouts of big batches are rebuilt many times.
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    Options o;
    for (Args a(argc, argv); a.next();) {
        if (a.is("--sizes")) o.sizes = split_ints(a.value());
        else if (a.is("--reps")) o.reps = std::stoi(a.value());
        else if (a.is("--no-cpu")) o.cpu = false;
        else if (a.is("--resident")) o.resident = true;
        else if (a.is("--classes")) o.classes = split_list(a.value());
        else if (a.is("--tsv")) o.tsv = a.value();
        else if (a.is("--summary")) o.summary = a.value();
        else if (a.is("--budget-s")) o.budget_s = std::stod(a.value());
        else a.unknown();
    }
    if (!have_gpu()) return 0;
    const Device dev;
    const unsigned seed0 = std::random_device{}();
    std::mt19937 gen(seed0);
    std::printf("device: %s\nhost: %d OpenMP threads\nseed: %u\n", device_summary(dev.prop).c_str(),
                omp_get_max_threads(), seed0);
    const double copy_gbs = copy_bandwidth_gbs();
    std::printf("device-to-device copy (1 GiB, read+write): %.0f GB/s\n\n", copy_gbs);
    L2Flush flush(dev.prop);

    std::vector<CellClass> classes = make_classes(gen);
    for (const auto& c : classes)
        std::printf("class %-12s %4zu CVs, %3d branch starts  (%s)\n", c.name.c_str(), c.base.size(),
                    trees::branch_starts(c.base), c.what.c_str());
    std::printf("\n");

    const std::vector<std::string> layouts = {"flat", "interleaved", "block-interleaved:32", "block-interleaved:128"};
    std::vector<Row> rows;
    std::FILE* tsv = o.tsv.empty() ? nullptr : std::fopen(o.tsv.c_str(), "w");
    if (tsv)
        std::fprintf(tsv, "class\tkind\tcells\treal_cv\tpadding\tbranch_points\tlayout\tkernel\tms\teff_GBs\teff_pct\t"
                          "moved_GBs\tmoved_pct\tmax_rel_err\n");
    struct Cpu { std::string cls, kind; int cells; double ms; long real_cv; };
    std::vector<Cpu> cpu_rows;
    std::printf("%-12s %-5s %7s %-22s %-10s %9s %7s %7s %9s\n", "class", "kind", "cells", "layout", "kernel", "ms",
                "eff%", "moved%", "rel.err");
    // One batch: every layout (and in two of them every kernel), then the CPU.
    auto measure = [&](const CellClass& cc, bool multi, int n_cells) {
        const char* kind = multi ? "multi" : "mono";
        const auto cells = make_batch(cc, multi, n_cells, gen);
        long real_cv = 0;
        for (const auto& c : cells) real_cv += static_cast<long>(c.size());
        std::vector<GpuCellNumbering> ls(layouts.size());
#pragma omp parallel for schedule(dynamic, 1)
        for (std::size_t k = 0; k < layouts.size(); ++k) ls[k] = gpu_cell_layout(cells, layouts[k]);
        for (std::size_t li = 0; li < layouts.size(); ++li) {
            const Layout& l = ls[li].layout;
            Buffers buf(l, gen());
            const bool compare = layouts[li] == "interleaved" || layouts[li] == "block-interleaved:32";
            const gpu::CellSchedule schedule = gpu::cell_schedule(l, ls[li].slots);
            // Kernels: every one in the two compared layouts (the resident one with 1, 2
            // and 4 warps per SM and prefetch 8 or 16: "res2p8", with --resident), rowparent8 (the
            // default) elsewhere.
            struct Variant { CellKernel k; int warps, prefetch; std::string name; };
            std::vector<Variant> variants;
            for (CellKernel k : gpu::all_cell_kernels)
                if (k != CellKernel::resident && (compare || k == CellKernel::rowparent8))
                    variants.push_back({k, 0, 0, to_string(k)});
            if (compare && o.resident)
                for (int w : {1, 2, 4})
                    for (int pf : {8, 16})
                        variants.push_back({CellKernel::resident, w, pf, "res" + std::to_string(w) + "p" + std::to_string(pf)});
            for (const Variant& v : variants) {
                const CellKernel k = v.k;
                // The resident variants start from a plan that holds the branch list.
                auto plan = gpu::make_gpu_cell_plan(l, schedule, k == CellKernel::resident ? CellKernel::pipelined2 : k);
                if (k == CellKernel::resident) gpu::set_resident(plan, v.warps, v.prefetch);
                const double ms = time_median_ms(
                    [&](int r) {
                        buf.restore(r % 2);
                        flush();
                    },
                    [&](int r) { gpu::gpu_cell_solve(plan, buf.d[r % 2].data(), buf.u[r % 2].data(), buf.r[r % 2].data(), nullptr); },
                    o.reps);
                CUDA_CHECK(cudaDeviceSynchronize());
                Row row;
                row.cls = cc.name, row.kind = kind, row.layout = layouts[li], row.kernel = v.name;
                row.cells = n_cells, row.real_cv = real_cv, row.padding = static_cast<long>(l.padding.size());
                row.branch_points = static_cast<long>(schedule.branch.size());
                row.ms = ms;
                row.eff_gbs = 44.0 * real_cv / (ms * 1e-3) / 1e9;
                row.eff_pct = 100.0 * row.eff_gbs / copy_gbs;
                const long cv_touched = k == CellKernel::plain ? real_cv + row.padding : real_cv;
                row.moved_gbs = moved_bytes_per_cv(row.kernel) * cv_touched / (ms * 1e-3) / 1e9;
                row.moved_pct = 100.0 * row.moved_gbs / copy_gbs;
                // The last timed repetition solved set (warmup + reps - 1) % 2.
                const int solved = (3 + o.reps - 1) % 2;  // the set just solved
                row.max_err = slot_error(ls[li].slots, cells, buf.d0.data(), buf.r0.data(), buf.u[solved].data(),
                                         buf.r[solved].data(), ErrorNorm::two);
                std::printf("%-12s %-5s %7d %-22s %-10s %9.4f %6.1f%% %6.1f%% %9.1e\n", row.cls.c_str(), kind,
                            n_cells, row.layout.c_str(), row.kernel.c_str(), ms, row.eff_pct, row.moved_pct,
                            row.max_err);
                std::fflush(stdout);
                if (tsv)
                    std::fprintf(tsv, "%s\t%s\t%d\t%ld\t%ld\t%ld\t%s\t%s\t%.5f\t%.1f\t%.1f\t%.1f\t%.1f\t%.2e\n",
                                 row.cls.c_str(), kind, n_cells, real_cv, row.padding, row.branch_points,
                                 row.layout.c_str(), row.kernel.c_str(), ms, row.eff_gbs, row.eff_pct,
                                 row.moved_gbs, row.moved_pct, row.max_err);
                if (tsv) std::fflush(tsv);
                rows.push_back(row);
            }
        }
        ls.clear();
        if (o.cpu) {
            const int reps = real_cv > 50'000'000 ? 5 : real_cv > 5'000'000 ? 10 : 20;
            const double ms = cpu_omp_ms(cells, reps, gen());
            cpu_rows.push_back({cc.name, kind, n_cells, ms, real_cv});
            std::printf("%-12s %-5s %7d %-22s %-10s %9.4f %6.1f%%\n", cc.name.c_str(), kind, n_cells,
                        "contiguous", "cpu-omp", ms, 100.0 * 44.0 * real_cv / (ms * 1e-3) / 1e9 / copy_gbs);
            if (tsv)
                std::fprintf(tsv, "%s\t%s\t%d\t%ld\t0\t0\tcontiguous\tcpu-omp%d\t%.5f\t%.1f\t%.1f\t\t\t\n",
                             cc.name.c_str(), kind, n_cells, real_cv, omp_get_max_threads(), ms,
                             44.0 * real_cv / (ms * 1e-3) / 1e9,
                             100.0 * 44.0 * real_cv / (ms * 1e-3) / 1e9 / copy_gbs);
        }
    };
    const auto start = std::chrono::steady_clock::now();
    bool out_of_time = false;
    for (int n_cells : o.sizes)
        for (const auto& cc : classes) {
            if (!o.classes.empty() && std::find(o.classes.begin(), o.classes.end(), cc.name) == o.classes.end())
                continue;
            for (bool multi : {false, true}) {
                if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > o.budget_s)
                    out_of_time = true;
                else
                    measure(cc, multi, n_cells);
            }
        }
    if (tsv) std::fclose(tsv);
    if (out_of_time) std::printf("\nbudget of %.0f s spent: later batches skipped\n", o.budget_s);

    // Summary: per batch, the default kernel in each layout, the best GPU time, the CPU.
    std::ostringstream s;
    char line[512];
    std::snprintf(line, sizeof line,
                  "gpu-cell solve, ms per solve (median of %d), %s; copy %.0f GB/s; eff%% = 44 B per real CV / time "
                  "/ copy bandwidth (e32%%: 32 B, the issue's count); layout columns: the default kernel, rowparent8\n",
                  o.reps, dev.prop.name, copy_gbs);
    s << line;
    std::snprintf(line, sizeof line, "%-12s %-5s %7s %6s | %9s %9s %9s %9s | %9s %-16s %6s %6s | %9s %8s\n", "class",
                  "kind", "cells", "CVs", "flat", "interl.", "block32", "block128", "best", "(layout/kernel)", "eff%",
                  "e32%", "cpu-omp", "speedup");
    s << line;
    for (const auto& cc : classes)
        for (const char* kind : {"mono", "multi"})
            for (int n_cells : o.sizes) {
                auto pick = [&](const std::string& layout) -> double {
                    for (const auto& r : rows)
                        if (r.cls == cc.name && r.kind == kind && r.cells == n_cells && r.layout == layout &&
                            r.kernel == "rowparent8")
                            return r.ms;
                    return NAN;
                };
                const Row* best = nullptr;
                for (const auto& r : rows)
                    if (r.cls == cc.name && r.kind == kind && r.cells == n_cells && (!best || r.ms < best->ms)) best = &r;
                if (!best) continue;
                double cpu = NAN;
                for (const auto& c : cpu_rows)
                    if (c.cls == cc.name && c.kind == kind && c.cells == n_cells) cpu = c.ms;
                std::string lk = best->layout;
                if (lk.rfind("block-interleaved:", 0) == 0) lk = "block" + lk.substr(18);
                if (lk == "interleaved") lk = "interl";
                lk += "/" + (best->kernel.rfind("pipelined", 0) == 0   ? "p" + best->kernel.substr(9)
                       : best->kernel.rfind("rowparent", 0) == 0 ? "rp" + best->kernel.substr(9)
                                                                 : best->kernel);
                std::snprintf(line, sizeof line, "%-12s %-5s %7d %6.0f | %9.4f %9.4f %9.4f %9.4f | %9.4f %-16s %5.1f%% %5.1f%% | %9.3f %7.1fx\n",
                              cc.name.c_str(), kind, n_cells, double(best->real_cv) / n_cells, pick("flat"),
                              pick("interleaved"), pick("block-interleaved:32"), pick("block-interleaved:128"),
                              best->ms, lk.c_str(), best->eff_pct, best->eff_pct * 32.0 / 44.0, cpu, cpu / best->ms);
                s << line;
            }
    std::printf("\n%s", s.str().c_str());
    if (!o.summary.empty()) std::ofstream(o.summary) << s.str();
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_solver_bench: %s\n", e.what());
    return 1;
}
