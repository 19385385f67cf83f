// gpu-branch solver benchmark: the multi-morphology study. Cells of 512
// CVs shaped as binary trees of 2, 3 and 4 branch levels (the first branch half the cell,
// the other half shared evenly by the rest), each shape alone ("mono") and all mixed with
// random branch lengths ("multi"); "deep": a caterpillar 64 levels deep (a spine of 4-CV
// branches, a 4-CV side branch at each fork); "real": the real morphologies of
// tests/data at about 512 CVs, mixed. On each batch gpu-branch (fold and EDD, each
// padding variant, with and without the CUDA graph; fold-t128: CUDA blocks of 128 threads
// whatever the launch's size; edd-cutN: EDD with interiors cut every N CVs; edd-cN-tM:
// cut every N, by tiles of up to M CVs, one launch solving each tile in shared memory) against
// gpu-cell and gpu-fine.
//
// Times are medians of --reps solves, each after restoring d and rhs and flushing L2;
// "floor" as in fine_bench: 32 B per real CV at the device-to-device copy bandwidth.
// edd-c32-t1536-plain: tiles without the L2 prefetch and the first wave's skew.
// Usage: branch_bench [--cells 256,2560,...] [--sets 2,3,4,multi,deep,real] [--reps 10]
//                     [--variants gpu-cell,fold,...] (the summary table wants them all)
//                     [--tsv FILE] [--summary FILE] [--budget-s S]
//                     [--tile-prefetch N] [--tile-skew-ns N] (every tiled variant's, for tuning)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gpu_bench_util.hpp"
#include "bench/solve_buffers.hpp"
#include "solvers/branch_layout.hpp"
#include "solvers/branch_tree.hpp"
#include "solvers/fine_layout.hpp"
#include "solvers/gpu/hines_gpu_branch.hpp"
#include "solvers/gpu/hines_gpu_cell.hpp"
#include "solvers/gpu/hines_gpu_fine.hpp"
#include "solvers/gpu_cell_layout.hpp"
#include "tests/support/cell_trees.hpp"

using namespace arbolito;
using namespace arbolito::bench;
using gpu::DeviceArray;

namespace {

using Tree = std::vector<int>;

// Branches of the given lengths, branch b > 0 hanging from the end of branch (b - 1) / 2:
// a binary tree filled level by level.
Tree binary_tree(const std::vector<int>& lengths) {
    Tree p;
    std::vector<int> last(lengths.size());
    for (std::size_t b = 0; b < lengths.size(); ++b) {
        for (int k = 0; k < lengths[b]; ++k) {
            const int n = static_cast<int>(p.size());
            p.push_back(k > 0 ? n - 1 : b == 0 ? -1 : last[(b - 1) / 2]);
        }
        last[b] = static_cast<int>(p.size()) - 1;
    }
    return p;
}

// 512 CVs in `levels` binary levels: 256 in the first branch, 256 in the other 2^levels
// - 2, evenly (random positive weights when `gen` is given).
Tree seed_cell(int levels, std::mt19937* gen = nullptr) {
    const int nb = (1 << levels) - 1;
    std::vector<double> w(nb, 1.0);
    if (gen)
        for (double& x : w) x = std::uniform_real_distribution<double>(0.25, 1.75)(*gen);
    double sum = 0;
    for (int b = 1; b < nb; ++b) sum += w[b];
    std::vector<int> len(nb, 256);
    int used = 0;
    for (int b = 1; b < nb; ++b) used += len[b] = std::max(1, static_cast<int>(256 * w[b] / sum));
    len[nb - 1] += 256 - used;  // exact total
    if (len[nb - 1] < 1) len[0] -= 1 - len[nb - 1], len[nb - 1] = 1;
    return binary_tree(len);
}

// A spine of 64 branches of 4 CVs (the last 8), a side branch of 4 CVs at each of the 63
// forks: 512 CVs, 64 branch levels.
Tree caterpillar() {
    Tree p;
    int fork = -1;
    for (int i = 0; i < 64; ++i) {
        const int spine_len = i == 63 ? 8 : 4;
        for (int k = 0; k < spine_len; ++k) p.push_back(k == 0 ? fork : static_cast<int>(p.size()) - 1);
        const int end = static_cast<int>(p.size()) - 1;
        if (i < 63)
            for (int k = 0; k < 4; ++k) p.push_back(k == 0 ? end : static_cast<int>(p.size()) - 1);
        fork = end;
    }
    return p;
}

std::vector<Tree> batch(const std::string& set, int n, std::mt19937& gen) {
    if (set == "2" || set == "3" || set == "4") return std::vector<Tree>(n, seed_cell(std::stoi(set)));
    if (set == "deep") return std::vector<Tree>(n, caterpillar());
    std::vector<Tree> out;
    if (set == "multi") {
        for (int c = 0; c < n; ++c) out.push_back(seed_cell(2 + c % 3, &gen));
        return out;
    }
    if (set == "real") {
        std::vector<Tree> kinds;
        for (const auto& e : std::filesystem::directory_iterator(trees::morphology_dir())) {
            if (e.path().extension() != ".swc") continue;
            try {
                Tree t = trees::real(e.path().string(), 512);
                if (!t.empty()) kinds.push_back(std::move(t));
            } catch (const std::exception&) {  // the files there to be refused
            }
        }
        std::sort(kinds.begin(), kinds.end());
        for (int c = 0; c < n && !kinds.empty(); ++c) out.push_back(kinds[c % kinds.size()]);
        return out;
    }
    throw std::invalid_argument("unknown set " + set);
}

enum class Kind { cell, fine, branch };
struct Variant {
    std::string name;
    Kind kind;
    gpu::GpuBranchOptions b{};
    int cut = 0;  // EDD's runs
    int fine_shared_kib = -1;  // gpu-fine: blocks staged in this much shared memory (-1: FineOptions' default)
    int tile = 0;              // EDD by tiles of this many CVs (0: untiled)
};

// EDD cut every `cut` CVs, by tiles of up to `cvs` CVs (one launch, shared memory), with
// GpuBranchOptions' prefetch and skew.
Variant edd_tiles(int cut, int cvs, const std::string& suffix = "", int prefetch = -1, int skew_ns = -1) {
    Variant v{"edd-c" + std::to_string(cut) + "-t" + std::to_string(cvs) + suffix, Kind::branch,
              {Coupling::edd, Padding::compute, true}, cut};
    v.tile = cvs;
    v.b.prefetch = prefetch;
    v.b.skew_ns = skew_ns;
    return v;
}

// gpu-fine staged in shared memory: blocks of as many CVs as fit kib KiB at 32 B a CV
// (d, u, rhs and room for the folds and the schedule).
Variant fine_in_shared(int kib) {
    Variant v{"gpu-fine-s" + std::to_string(kib), Kind::fine};
    v.fine_shared_kib = kib;
    return v;
}

std::vector<Variant> variants() {
    using gpu::GpuBranchOptions;
    return {{"gpu-cell", Kind::cell},
            {"gpu-fine", Kind::fine},
            fine_in_shared(24),
            fine_in_shared(48),
            fine_in_shared(96),
            {"fold", Kind::branch, {Coupling::fold, Padding::compute, true}},
            {"fold-stop", Kind::branch, {Coupling::fold, Padding::stop, true}},
            {"fold-nograph", Kind::branch, {Coupling::fold, Padding::compute, false}},
            {"fold-t128", Kind::branch, {Coupling::fold, Padding::compute, true, 128}},
            {"edd", Kind::branch, {Coupling::edd, Padding::compute, true}},
            {"edd-cut16", Kind::branch, {Coupling::edd, Padding::compute, true}, 16},
            {"edd-cut32", Kind::branch, {Coupling::edd, Padding::compute, true}, 32},
            {"edd-cut64", Kind::branch, {Coupling::edd, Padding::compute, true}, 64},
            {"edd-stop", Kind::branch, {Coupling::edd, Padding::stop, true}},
            {"edd-nograph", Kind::branch, {Coupling::edd, Padding::compute, false}},
            // EDD cut 32 with the junction rows staged up to N KiB a block of 32 cells (0:
            // never; the default is 96).
            {"edd-js0", Kind::branch, {Coupling::edd, Padding::compute, true, 0, 0}, 32},
            {"edd-js48", Kind::branch, {Coupling::edd, Padding::compute, true, 0, 48 * 1024}, 32},
            {"edd-js74", Kind::branch, {Coupling::edd, Padding::compute, true, 0, 74 * 1024}, 32},
            edd_tiles(16, 1024),
            edd_tiles(24, 1024),
            edd_tiles(32, 512),
            edd_tiles(32, 1024),
            edd_tiles(32, 1536),
            edd_tiles(24, 1536),
            edd_tiles(32, 2048),
            edd_tiles(48, 1024),
            edd_tiles(64, 1024),
            edd_tiles(32, 1536, "-plain", 0, 0)};
}

// One variant set up on a batch: its layout and whatever its solve needs.
struct Prepared {
    Layout layout;
    std::unique_ptr<gpu::GpuCellPlan> cell;
    std::unique_ptr<gpu::GpuFinePlan> fine;
    std::unique_ptr<gpu::GpuBranchPlan> branch;
    BranchNumbering numbering;  // branch: for the host check
    void solve(SolveBuffers& b) const {
        if (cell) gpu::gpu_cell_solve(*cell, b.d.data(), b.u.data(), b.r.data(), nullptr);
        if (fine) gpu::gpu_fine_solve(*fine, b.d.data(), b.u.data(), b.r.data(), nullptr);
        if (branch) gpu::gpu_branch_solve(*branch, b.d.data(), b.u.data(), b.r.data(), nullptr);
    }
};

Prepared prepare(const Variant& v, const std::vector<Tree>& cells) {
    Prepared p;
    if (v.kind == Kind::cell) {
        GpuCellNumbering g = gpu_cell_layout(cells, "block-interleaved:32");
        p.layout = std::move(g.layout);
        p.cell = std::make_unique<gpu::GpuCellPlan>(gpu::make_gpu_cell_plan(p.layout, g.slots));
    } else if (v.kind == Kind::fine) {
        FineOptions o;
        if (v.fine_shared_kib > 0) {
            o.shared_bytes = v.fine_shared_kib * 1024;
            o.block_cvs = o.shared_bytes / 32;
        }
        FineNumbering f = fine_layout(cells, o);
        p.layout = std::move(f.layout);
        p.fine = std::make_unique<gpu::GpuFinePlan>(gpu::make_gpu_fine_plan(f.schedule));
    } else {
        p.numbering = branch_level_layout(cells, 32, v.b.coupling, v.cut, v.tile);
        p.layout = std::move(p.numbering.layout);
        p.branch = std::make_unique<gpu::GpuBranchPlan>(
            gpu::make_gpu_branch_plan(p.layout, p.numbering.slots, p.numbering.junctions, v.b));
    }
    return p;
}

// The host reference of a branch variant: the relative difference over all CVs.
double check(const Prepared& p, const Variant& v, SolveBuffers& b) {
    if (!p.branch || p.layout.n_cv > 5'000'000) return NAN;
    std::vector<double> d = b.d0.download(), u = b.u.download(), r = b.r0.download(), x = b.r.download();
    if (v.b.coupling == Coupling::fold)
        branch_layout_solve(branch_schedule(p.layout, p.numbering.slots), d.data(), u.data(), r.data(), v.b.padding);
    else
        edd_layout_solve(edd_schedule(p.layout, p.numbering.slots, p.numbering.junctions), d.data(), u.data(), r.data(), v.b.padding);
    double num = 0, den = 0;
    for (std::size_t i = 0; i < x.size(); ++i) num += (x[i] - r[i]) * (x[i] - r[i]), den += r[i] * r[i];
    return std::sqrt(num / std::max(den, 1e-300));
}

struct Row {
    std::string set, variant;
    int cells;
    long real_cv;
    double cvs_per_branch;
    int levels;
    int max_branch_points;  // the most a cell has (edd_auto_tile's input)
    double ms, ns_cv, floor_x, err;
};

}  // namespace

int main(int argc, char** argv) try {
    std::vector<int> cell_counts{256, 2560, 25600, 256000};
    std::vector<std::string> sets{"2", "3", "4", "multi", "deep", "real"}, only;
    int reps = 10;
    std::string tsv, summary;
    double budget_s = 400;
    int tile_prefetch = -2, tile_skew_ns = -2;  // -2: each variant's own
    for (Args a(argc, argv); a.next();) {
        if (a.is("--cells")) cell_counts = split_ints(a.value());
        else if (a.is("--sets")) sets = split_list(a.value());
        else if (a.is("--reps")) reps = std::stoi(a.value());
        else if (a.is("--variants")) only = split_list(a.value());
        else if (a.is("--tsv")) tsv = a.value();
        else if (a.is("--summary")) summary = a.value();
        else if (a.is("--budget-s")) budget_s = std::stod(a.value());
        else if (a.is("--tile-prefetch")) tile_prefetch = std::stoi(a.value());
        else if (a.is("--tile-skew-ns")) tile_skew_ns = std::stoi(a.value());
        else a.unknown();
    }
    if (!have_gpu()) return 0;
    SolveBenchDevice bd;
    const cudaDeviceProp& prop = bd.dev.prop;
    std::vector<Row> rows;
    const auto start = std::chrono::steady_clock::now();
    std::mt19937 gen(2026);
    auto vs = variants();
    for (Variant& v : vs) {
        if (v.tile == 0) continue;
        if (tile_prefetch > -2) v.b.prefetch = tile_prefetch;
        if (tile_skew_ns > -2) v.b.skew_ns = tile_skew_ns;
    }
    for (int n : cell_counts)
        for (const auto& set : sets) {
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget_s) {
                std::printf("budget of %.0f s spent: set %s, %d cells skipped\n", budget_s, set.c_str(), n);
                continue;
            }
            const std::vector<Tree> cells = batch(set, n, gen);
            long real_cv = 0, branches = 0;
            int levels = 0, max_branch_points = 0;  // the deepest cell's branch levels; the most branch points
            for (std::size_t c = 0; c < cells.size(); ++c) {
                real_cv += static_cast<long>(cells[c].size());
                max_branch_points = std::max(max_branch_points, branch_points(cells[c]));
                const BranchTree t = branch_tree(cells[c]);
                levels = std::max(levels, t.n_levels);
                branches += t.n_branches();
            }
            const double cvs_per_branch = static_cast<double>(real_cv) / std::max(1L, branches);
            for (const Variant& v : vs) {
                if (!only.empty() && std::find(only.begin(), only.end(), v.name) == only.end()) continue;
                const Prepared p = prepare(v, cells);
                SolveBuffers b(p.layout, 1234);
                const double ms = time_median_ms(
                    [&](int) {
                        b.restore();
                        bd.flush();
                    },
                    [&](int) { p.solve(b); }, reps);
                CUDA_CHECK(cudaDeviceSynchronize());
                const Row r{set, v.name, n, real_cv, cvs_per_branch, levels, max_branch_points, ms, 1e6 * ms / real_cv,
                            ms / bd.floor_ms(32.0 * real_cv), n <= 2560 ? check(p, v, b) : NAN};
                std::printf("%-5s %7d cells %10ld CVs  %-13s %3d levels  %9.4f ms  %7.4f ns/CV  %6.2fx floor  err %.1e\n",
                            set.c_str(), n, real_cv, v.name.c_str(), r.levels, ms, r.ns_cv, r.floor_x, r.err);
                std::fflush(stdout);
                rows.push_back(r);
            }
        }

    std::ostringstream s;
    char line[512];
    std::snprintf(line, sizeof line,
                  "solve alone, %s, median of %d, L2 flushed; ns per real CV and solve (x floor: 32 B per CV at %.0f "
                  "GB/s)\n%-5s %7s %10s |",
                  prop.name, reps, bd.copy_gbs, "set", "cells", "CVs");
    s << line;
    for (const auto& v : vs) s << " " << std::string(12 - std::min<std::size_t>(12, v.name.size()), ' ') << v.name;
    s << " | best branch vs cell, best edd vs fold\n";
    for (std::size_t i = 0; only.empty() && i + vs.size() <= rows.size(); i += vs.size()) {
        std::snprintf(line, sizeof line, "%-5s %7d %10ld |", rows[i].set.c_str(), rows[i].cells, rows[i].real_cv);
        s << line;
        double best_branch = INFINITY, best_edd = INFINITY, fold = NAN;
        for (std::size_t k = 0; k < vs.size(); ++k) {
            std::snprintf(line, sizeof line, " %12.4f", rows[i + k].ns_cv);
            s << line;
            if (vs[k].kind == Kind::branch) best_branch = std::min(best_branch, rows[i + k].ms);
            if (vs[k].kind == Kind::branch && vs[k].b.coupling == Coupling::edd) best_edd = std::min(best_edd, rows[i + k].ms);
            if (vs[k].name == "fold") fold = rows[i + k].ms;
        }
        std::snprintf(line, sizeof line, " | %5.2fx %5.2fx\n", rows[i].ms / best_branch, fold / best_edd);
        s << line;
    }
    std::printf("\n%s", s.str().c_str());
    if (!summary.empty()) std::ofstream(summary) << s.str();
    if (!tsv.empty()) {
        std::ofstream t(tsv);
        t << "set\tvariant\tcells\treal_cv\tcvs_per_branch\tlevels\tmax_branch_points\tms\tns_per_cv\tfloor_x\trel_"
             "err\n";
        for (const auto& r : rows)
            t << r.set << "\t" << r.variant << "\t" << r.cells << "\t" << r.real_cv << "\t" << r.cvs_per_branch << "\t"
              << r.levels << "\t" << r.max_branch_points << "\t" << r.ms
              << "\t" << r.ns_cv << "\t" << r.floor_x << "\t" << r.err << "\n";
    }
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "branch_bench: %s\n", e.what());
    return 1;
}
