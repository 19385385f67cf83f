// Host memory of a GPU run's set-up, measured without a GPU: one rank's share of the
// model taken through the host side of `arbolito run --solver gpu-fine:step=resident`
// (run/simulation.cpp, gpu/gpu_cell_group.cu's make_gpu_group and group constructor,
// gpu/resident_epoch.cu's plan) with every upload replaced by dropping the host array
// there: the model, the rank's and the groups' cell blocks, build_fvm in gpu-fine's
// numbering, the assembly terms, the initial states, the resident plan, the per-CV inputs
// released, then the connections onto the rank's cells and the exchange's fan-out. Prints,
// after each phase, its seconds, the resident memory now and the phase's peak (VmHWM,
// reset between phases), build_fvm's passes (FvmBuildPasses) with one group, and at the
// end the whole peak in bytes per CV of the rank's share.
//
//   host_setup MODEL [--set KEY=VALUE]... [--ranks N] [--rank R] [--groups G] [--threads T]
//
// --ranks N --rank R: the share of rank R of N (default 1, 0; under mpirun the rank comes
// from OMPI_COMM_WORLD_RANK / PMI_RANK and N from OMPI_COMM_WORLD_SIZE / PMI_SIZE).
// --groups G: the rank's GPU groups (one process driving G GPUs), each built on its own
// thread as make_gpu_group does. --threads T: the exchange's threads (the fan-out's parts).
#include <malloc.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "io/model_reader.hpp"
#include "lowered_cell/cell_group.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "model/connection_rules.hpp"
#include "model/memory_estimate.hpp"
#include "run/decomposition.hpp"
#include "gpu/resident_plan.hpp"
#include "run/spike_fanout.hpp"
#include "core/free_heap.hpp"
#include "solvers/fine_layout.hpp"

using namespace arbolito;

namespace {

long status_kb(const char* key) {
    std::ifstream f("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(key);
    while (std::getline(f, line))
        if (line.compare(0, n, key) == 0) return std::atol(line.c_str() + n + 1);
    return -1;
}

struct Phases {
    double share_cvs = 1;
    long whole_peak_kb = 0;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();  // the phase's start
    // VmHWM back to the current resident size: the next phase's peak is its own.
    static void reset_peak() {
        std::ofstream f("/proc/self/clear_refs");
        f << "5";
    }
    void end(const char* what) {
        const long rss = status_kb("VmRSS:"), hwm = status_kb("VmHWM:");
        whole_peak_kb = std::max(whole_peak_kb, hwm);
        const struct mallinfo2 mi = mallinfo2();  // in use: what the heap holds, of the resident
        const double used = static_cast<double>(mi.uordblks + mi.hblkhd);
        const auto now = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(now - t0).count();
        std::printf("%-34s %8.2f s  rss %9.1f MB  peak %9.1f MB  heap in use %9.1f MB  (%6.1f / %6.1f / %6.1f B per CV)\n",
                    what, s, rss / 1024.0, hwm / 1024.0, used / 1048576.0, rss * 1024.0 / share_cvs,
                    hwm * 1024.0 / share_cvs, used / share_cvs);
        std::fflush(stdout);
        reset_peak();
        t0 = std::chrono::steady_clock::now();  // the printing and the reset are no phase's
    }
};

int env_int(const char* a, const char* b, int fallback) {
    for (const char* k : {a, b})
        if (const char* v = std::getenv(k)) return std::atoi(v);
    return fallback;
}

// The resident step's defaults (gpu/gpu_fine_solver.cpp): 74 KiB of shared memory a block
// (an H100's three blocks per SM), blocks of budget / 64 bytes per CV.
constexpr int resident_shared_bytes = 74 * 1024;
constexpr int resident_bytes_per_cv = 64;

// One GPU group's host side: what stays on the host for the run.
struct HostGroup {
    FvmData f;
    FineSchedule schedule;  // GpuFineSolve keeps it for the resident plan
    ResidentPlan plan;
};

// phases: where a lone group reports its steps (null: several groups, side by side).
HostGroup build_group(const Model& m, std::uint64_t b, std::uint64_t e, Phases* phases) {
    auto step = [&](const char* what) {
        if (phases) phases->end(what);
    };
    HostGroup g;
    FineOptions o;
    o.block_cvs = resident_shared_bytes / resident_bytes_per_cv;
    auto kept = std::make_shared<FineNumbering>();
    // make_gpu_group's taker (upload_electrical): u and the assembly's terms made, uploaded, freed.
    auto take_electrical = [&](FvmData& f) {
        {
            std::vector<double> u = axial_u(f);
            for (int x : f.layout.padding) u[x] = 0.0;
        }
        std::vector<double>().swap(f.g_parent);
        const AssemblyTerms terms = take_assembly_terms(f, m.run.dt);
    };
    double layout_s = 0, electrical_s = 0;  // build_fvm's callbacks, timed apart
    FvmBuildPasses passes;
    g.f = build_fvm(
        m, b, e,
        [&](const std::vector<std::vector<int>>& np) {
            const auto t = std::chrono::steady_clock::now();
            *kept = fine_layout(np, o);
            layout_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
            return std::move(kept->layout);
        },
        [&](FvmData& f) {
            const auto t = std::chrono::steady_clock::now();
            take_electrical(f);
            electrical_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
        },
        &passes);
    g.schedule = kept->schedule;  // GpuFineSolve's copy; make_gpu_fine_plan uploads the rest
    kept.reset();
    if (phases) {
        std::printf("  build_fvm's passes:");
        for (const auto& [what, sec] : passes) std::printf(" %s %.2f s;", what, sec);
        std::printf(" (fine_layout %.2f s of the first, electrical terms %.2f s)\n", layout_s, electrical_s);
    }
    step("  build_fvm (gpu-fine numbering)");
    // The group's constructor: each array made on the host, uploaded, dropped.
    {
        (void)first_blown_up(g.f);
        const all_mechanisms::Globals globals = all_mechanisms::globals(m.run.celsius);
        IonStates ions = initial_ions(g.f);
        const MechStates init = initial_states(g.f, globals, ions);
        nernst_where_written(g.f, ions, m.run.celsius);
        initial_ion_currents(g.f, globals, init, ions);
        step("  group arrays (uploaded)");
    }
    g.plan = resident_plan(g.f, g.schedule, resident_shared_bytes);
    step("  resident plan");
    release_per_cv_inputs(g.f);
    release_device_owned(g.f);
    return g;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: host_setup MODEL [--set KEY=VALUE]... [--ranks N] [--rank R] [--groups G] "
                             "[--threads T]\n");
        return 2;
    }
    std::vector<std::string> sets;
    int ranks = env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1), rank = env_int("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0);
    int groups = 1, threads = 1;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--set") sets.push_back(v);
        else if (k == "--ranks") ranks = std::stoi(v);
        else if (k == "--rank") rank = std::stoi(v);
        else if (k == "--groups") groups = std::stoi(v);
        else if (k == "--threads") threads = std::stoi(v);
        else {
            std::fprintf(stderr, "host_setup: unknown option %s\n", k.c_str());
            return 2;
        }
    }
    Phases p;
    Phases::reset_peak();
    const Model m = read_model(argv[1], sets, ReadFor::run);
    (void)model_size(m);  // the memory check of `arbolito run` (require_run_memory)
    p.end("model read");
    const std::vector<double> weight = cv_counts(m);
    const auto by_rank = split_by_weight(weight, 0, m.cells.size(), ranks);
    const std::uint64_t gb = by_rank[rank], ge = by_rank[rank + 1];
    double cvs = 0;
    for (std::uint64_t g = gb; g < ge; ++g) cvs += weight[g];
    p.share_cvs = cvs;
    std::printf("rank %d of %d: cells %llu to %llu, %.0f CVs, %d group(s)\n", rank, ranks,
                static_cast<unsigned long long>(gb), static_cast<unsigned long long>(ge), cvs, groups);
    p.end("CV counts");

    const auto first = split_by_weight(weight, gb, ge, groups);
    std::vector<HostGroup> built(groups);
    std::vector<std::thread> t;
    for (int g = 0; g < groups; ++g) t.emplace_back([&, g] { built[g] = build_group(m, first[g], first[g + 1], groups == 1 ? &p : nullptr); });
    for (auto& x : t) x.join();
    return_free_heap();  // as Simulation's set-up does once its groups are built
    p.end("groups (fvm, layouts, plan)");

    auto target = [&](std::uint64_t gid, std::uint32_t syn) {
        int g = 0;
        while (gid >= first[g + 1]) ++g;
        return SpikeFanout::Target{g, built[g].f.event_target(static_cast<int>(gid - first[g]), syn)};
    };
    std::vector<Connection> onto = connections_onto(m, gb, ge);
    p.end("connections drawn");
    SpikeFanout fanout(onto, gb, ge, threads, target);
    std::vector<Connection>().swap(onto);
    return_free_heap();  // as Simulation's set-up ends
    p.end("fan-out");
    std::printf("whole set-up peak %.1f MB, %.1f B per CV of the rank's share (%zu connections kept)\n",
                p.whole_peak_kb / 1024.0, p.whole_peak_kb * 1024.0 / cvs, fanout.size());
    return 0;
}
