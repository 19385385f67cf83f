// What the epoch-resident GPU step keeps on chip, measured without a GPU: a model's
// per-CV arrays (gpu/resident_plan.hpp's ResidentArray: the solve's rhs, d, folds, u and
// EDD's h, then v, the assembly's constant terms and the mechanisms' columns) in bytes per
// CV, and the share of each that resident_plan stages in shared memory at each budget a
// block. An H100 leaves a block about 73 KiB at three blocks an SM and 55 KiB at four.
//
//   resident_bytes MODEL [--set KEY=VALUE]... [--edd N] [--block-cvs N] [--budget KIB]...
//
// --edd N: EDD's cut (default 20; 0 the level loop); --block-cvs N: CVs a block to aim at
// (default 1: a cell a block, as the resident step takes busyring's cells).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gpu/resident_plan.hpp"
#include "io/model_reader.hpp"
#include "lowered_cell/cell_group.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "mechanisms/catalogue.hpp"
#include "solvers/fine_layout.hpp"

using namespace arbolito;

namespace {

const char* array_name(int a) {
    static const char* names[] = {"rhs", "d", "fold", "u", "edd_h", "v", "d_base", "cap_dt", "rhs_base"};
    return a < res_mech0 ? names[a] : mechanism_infos()[a - res_mech0].name.c_str();
}

}  // namespace

int main(int argc, char** argv) {
    std::string model;
    std::vector<std::string> sets;
    std::vector<int> budgets;
    FineOptions o;
    o.block_cvs = 1;
    o.edd_rows = 20;
    o.max_threads = 128;
    for (int i = 1; i < argc; ++i) {
        const bool more = i + 1 < argc;
        if (!std::strcmp(argv[i], "--set") && more) sets.push_back(argv[++i]);
        else if (!std::strcmp(argv[i], "--edd") && more) o.edd_rows = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--block-cvs") && more) o.block_cvs = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--budget") && more) budgets.push_back(std::atoi(argv[++i]));
        else if (argv[i][0] != '-' && model.empty()) model = argv[i];
        else {
            std::fprintf(stderr, "usage: resident_bytes MODEL [--set KEY=VALUE]... [--edd N] [--block-cvs N] [--budget KIB]...\n");
            return 2;
        }
    }
    if (model.empty()) {
        std::fprintf(stderr, "resident_bytes: no model\n");
        return 2;
    }
    if (budgets.empty()) budgets = {73, 55};
    try {
        const Model m = read_model(model, sets, ReadFor::run);
        FineSchedule s;
        const FvmData f = build_fvm(m, 0, m.cells.size(), [&](const std::vector<std::vector<int>>& np) {
            FineNumbering n = fine_layout(np, o);
            s = std::move(n.schedule);
            return std::move(n.layout);
        });
        for (int kib : budgets) {
            const ResidentPlan p = resident_plan(f, s, kib * 1024);
            std::map<int, double> staged, total;
            double cvs = 0, schedule = 0;
            for (std::size_t k = 0; k < p.blocks.size(); ++k) {
                const ResidentBlock& rb = p.blocks[k];
                const FineSchedule::Block& b = s.blocks[k];
                cvs += b.n_cv;
                schedule += FineSchedule::schedule_bytes(b);
                for (int a = 0; a < res_ion0; ++a) {
                    const double bytes = resident_array_bytes(a, b, a >= res_mech0 ? rb.inst_n[a - res_mech0] : 0);
                    total[a] += bytes;
                    if (rb.offset[a] >= 0) staged[a] += bytes;
                }
            }
            std::printf("budget %d KiB: %zu blocks of %.0f CVs on average; the schedule %.2f bytes a CV (always staged)\n",
                        kib, p.blocks.size(), cvs / p.blocks.size(), schedule / cvs);
            double all = 0, on_chip = 0;
            for (const auto& [a, bytes] : total) {
                if (bytes == 0) continue;
                all += bytes;
                on_chip += staged[a];
                std::printf("  %-12s %6.2f bytes a CV, %5.1f %% staged\n", array_name(a), bytes / cvs,
                            100 * staged[a] / bytes);
            }
            std::printf("  every array %.1f bytes a CV, staged %.1f (%.1f %%)\n", all / cvs, on_chip / cvs,
                        100 * on_chip / all);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "resident_bytes: %s\n", e.what());
        return 2;
    }
    return 0;
}
