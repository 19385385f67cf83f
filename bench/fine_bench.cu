// gpu-fine solver benchmark: Huber's study — solve time against the number of
// cells, busyring cells with high and low branch probabilities, gpu-fine with each pass
// on and off against gpu-cell on the same batch — and DeepDendrite's anchor: 3,000
// copies of a real cell of about 1,400 CVs, ns per CV and solve.
//
// Times are medians of --reps solves, each after restoring d and rhs and flushing L2.
// "floor": the time to move 32 B per real CV (read d, u, rhs, write x) at the measured
// device-to-device copy bandwidth, the least a solve that does not keep the matrix on
// chip between steps can take.
// Usage: fine_bench [--cells 64,256,...] [--sets high,low] [--reps 10] [--anchor-cells 3000]
//                   [--no-anchor] [--tsv FILE] [--summary FILE] [--budget-s S]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gpu_bench_util.hpp"
#include "bench/solve_buffers.hpp"
#include "model/cell_builders.hpp"
#include "solvers/fine_layout.hpp"
#include "solvers/gpu/hines_gpu_cell.hpp"
#include "solvers/gpu/hines_gpu_fine.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "tests/support/cell_trees.hpp"

using namespace arbolito;
using namespace arbolito::bench;
using gpu::DeviceArray;

namespace {

struct Options {
    std::vector<int> cells{64, 256, 1024, 4096, 16384, 65536};
    std::vector<std::string> sets{"high", "low"};
    int reps = 10, anchor_cells = 3000;
    bool anchor = true;
    std::string tsv, summary;
    double budget_s = 400;
};

// Busyring cells, discretised as the busyring network does, with branch probabilities
// {1, 0.5} ("high", the benchmark's) or {1, 0.25} ("low").
std::vector<std::vector<int>> busyring_batch(const std::string& set, int n) {
    BusyringParams p;
    if (set == "low") p.branch_probs = {1.0, 0.25};
    return trees::busyring(n, p);
}

struct Variant {
    std::string name;
    bool fine;
    FineOptions o;
    int ahead = 8;
};

std::vector<Variant> variants() {
    std::vector<Variant> v{{"gpu-cell", false, {}}};
    FineOptions all;  // the defaults (sort, split=cost, blocks of 8192 CVs in device memory), re-rooted
    all.reroot = true;
    v.push_back({"fine", true, all});
    v.push_back({"fine-a4", true, all, 4});
    FineOptions x = all;
    x.sort = false;
    v.push_back({"fine-nosort", true, x});
    x = all, x.reroot = false;
    v.push_back({"fine-noreroot", true, x});
    x = all, x.split = Split::off;
    v.push_back({"fine-nosplit", true, x});
    x = all, x.block_cvs = 2048;
    v.push_back({"fine-blk2k", true, x});
    x.shared_bytes = 96 * 1024;
    v.push_back({"fine-blk2k-shm", true, x});
    return v;
}

struct Row {
    std::string set, variant;
    int cells;
    long real_cv;
    int blocks, levels;
    double ms, ns_cv, floor_x, err;
};

// The host reference for a few batches: the relative difference over all CVs.
double check(const FineSchedule* s, const Layout& l, SolveBuffers& b) {
    if (!s || l.n_cv > 20'000'000) return NAN;
    std::vector<double> d = b.d0.download(), u = b.u.download(), r = b.r0.download(), x = b.r.download();
    fine_layout_solve(*s, d.data(), u.data(), r.data());
    double num = 0, den = 0;
    for (std::size_t i = 0; i < x.size(); ++i) num += (x[i] - r[i]) * (x[i] - r[i]), den += r[i] * r[i];
    return std::sqrt(num / std::max(den, 1e-300));
}

}  // namespace

int main(int argc, char** argv) try {
    Options o;
    for (Args a(argc, argv); a.next();) {
        if (a.is("--cells")) o.cells = split_ints(a.value());
        else if (a.is("--sets")) o.sets = split_list(a.value());
        else if (a.is("--reps")) o.reps = std::stoi(a.value());
        else if (a.is("--anchor-cells")) o.anchor_cells = std::stoi(a.value());
        else if (a.is("--no-anchor")) o.anchor = false;
        else if (a.is("--tsv")) o.tsv = a.value();
        else if (a.is("--summary")) o.summary = a.value();
        else if (a.is("--budget-s")) o.budget_s = std::stod(a.value());
        else a.unknown();
    }
    if (!have_gpu()) {
        std::printf("fine_bench: no CUDA device, nothing measured\n");
        return 0;
    }
    SolveBenchDevice bd;
    const cudaDeviceProp& prop = bd.dev.prop;
    std::vector<Row> rows;
    const auto start = std::chrono::steady_clock::now();

    auto measure = [&](const std::string& set, const std::vector<std::vector<int>>& cells) {
        long real_cv = 0;
        for (const auto& c : cells) real_cv += static_cast<long>(c.size());
        for (const Variant& v : variants()) {
            Layout l;
            FineSchedule sched;
            gpu::GpuFinePlan fplan;
            gpu::GpuCellPlan cplan;
            if (v.fine) {
                FineNumbering f = fine_layout(cells, v.o);
                l = std::move(f.layout);
                sched = std::move(f.schedule);
                fplan = gpu::make_gpu_fine_plan(sched, v.ahead);
            } else {
                GpuCellNumbering g = gpu_cell_layout(cells, "block-interleaved:32");
                l = std::move(g.layout);
                cplan = gpu::make_gpu_cell_plan(l, g.slots);
            }
            SolveBuffers b(l, 1234);
            const double ms = time_median_ms(
                [&](int) {
                    b.restore();
                    bd.flush();
                },
                [&](int) {
                    if (v.fine) gpu::gpu_fine_solve(fplan, b.d.data(), b.u.data(), b.r.data(), nullptr);
                    else gpu::gpu_cell_solve(cplan, b.d.data(), b.u.data(), b.r.data(), nullptr);
                },
                o.reps);
            CUDA_CHECK(cudaDeviceSynchronize());
            Row r{set, v.name, static_cast<int>(cells.size()), real_cv, v.fine ? sched.n_blocks() : 0, 0, ms,
                  1e6 * ms / real_cv, ms / bd.floor_ms(32.0 * real_cv),
                  v.fine && cells.size() <= 4096 ? check(&sched, l, b) : NAN};
            for (const auto& blk : sched.blocks) r.levels = std::max(r.levels, blk.n_levels);
            std::printf("%-8s %7d cells %10ld CVs  %-14s %6d blocks %4d levels  %9.4f ms  %7.4f ns/CV  %5.2fx floor  err %.1e\n",
                        set.c_str(), r.cells, real_cv, v.name.c_str(), r.blocks, r.levels, ms, r.ns_cv, r.floor_x, r.err);
            std::fflush(stdout);
            rows.push_back(r);
        }
    };
    for (int n : o.cells)
        for (const auto& set : o.sets) {
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > o.budget_s) {
                std::printf("budget of %.0f s spent: %s %d and later skipped\n", o.budget_s, set.c_str(), n);
                continue;
            }
            measure(set, busyring_batch(set, n));
        }
    if (o.anchor) {
        std::string policy;
        const auto cell = trees::real(trees::morphology_dir() + "ca1_pyramidal_n120.swc", 1400, &policy);
        if (cell.empty()) {
            std::printf("anchor: ca1_pyramidal_n120.swc not readable here, skipped\n");
        } else {
            std::printf("anchor: %d copies of ca1_pyramidal_n120.swc, %zu CVs (%s)\n", o.anchor_cells, cell.size(),
                        policy.c_str());
            measure("ca1x", std::vector<std::vector<int>>(o.anchor_cells, cell));
        }
    }

    std::ostringstream s;
    char line[512];
    std::snprintf(line, sizeof line,
                  "solve alone, %s, median of %d, L2 flushed; ns per real CV and solve; x floor: time / (32 B per CV at "
                  "%.0f GB/s)\n%-6s %7s %11s |", prop.name, o.reps, bd.copy_gbs, "set", "cells", "CVs");
    s << line;
    const auto vs = variants();
    for (const auto& v : vs) s << " " << std::string(14 - std::min<std::size_t>(14, v.name.size()), ' ') << v.name;
    s << " | fine vs cell\n";
    for (std::size_t i = 0; i < rows.size(); i += vs.size()) {
        std::snprintf(line, sizeof line, "%-6s %7d %11ld |", rows[i].set.c_str(), rows[i].cells, rows[i].real_cv);
        s << line;
        for (std::size_t k = 0; k < vs.size() && i + k < rows.size(); ++k) {
            std::snprintf(line, sizeof line, " %14.4f", rows[i + k].ns_cv);
            s << line;
        }
        std::snprintf(line, sizeof line, " | %6.2fx (%.2fx floor)\n", rows[i].ms / rows[i + 1].ms, rows[i + 1].floor_x);
        s << line;
    }
    std::printf("\n%s", s.str().c_str());
    if (!o.summary.empty()) std::ofstream(o.summary) << s.str();
    if (!o.tsv.empty()) {
        std::ofstream t(o.tsv);
        t << "set\tvariant\tcells\treal_cv\tblocks\tlevels\tms\tns_per_cv\tfloor_x\trel_err\n";
        for (const auto& r : rows)
            t << r.set << "\t" << r.variant << "\t" << r.cells << "\t" << r.real_cv << "\t" << r.blocks << "\t" << r.levels
              << "\t" << r.ms << "\t" << r.ns_cv << "\t" << r.floor_x << "\t" << r.err << "\n";
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "fine_bench: %s\n", e.what());
    return 1;
}
