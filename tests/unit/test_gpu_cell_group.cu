// The GPU backend (solver gpu-cell) against the CPU backend on whole runs: the same
// spikes and voltages within 1e-9 mV on the ring and a busyring, within the tolerances
// justified at each test on a network of cells of very different sizes with every
// mechanism; the layout (padding, size sorting) and the
// point-current summation must not change a cell's result. Tests that need a device skip
// without one.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "model/cell_builders.hpp"
#include "gpu/event_queue.hpp"
#include "gpu/gpu_cell_group.hpp"
#include "model/network_builders.hpp"
#include "run/simulation.hpp"
#include "lowered_cell/voltage_blowup.hpp"
#include "io/model_reader.hpp"
#include "mechanisms/catalogue.hpp"
#include "tests/support/gpu_skip.hpp"
#include "tests/support/phase_trace.hpp"
#include "tests/support/whole_run_models.hpp"

using namespace arbolito;
using test_models::busyring;
using test_models::mixed_model;
using test_models::source_path;

using test_models::Recorded;

namespace {

struct Result {
    Recorded rec;
    std::vector<double> v_end;  // every CV at the end, natural order
    RunReport report;
    PhaseTimes phases;
};

// options: the solver's KEY=VALUE part, e.g. "layout=flat:timing=off".
Result run(const Model& m, const std::string& solver, const std::string& options = "", bool pipeline = true) {
    SimOptions o;
    o.solver = parse_solver_spec(options.empty() ? solver : solver + ":" + options);
    o.pipeline = pipeline;
    Simulation sim(m, o);
    Result r;
    r.rec.ncol = sim.n_columns();
    r.report = sim.run(r.rec);
    for (int g = 0; g < sim.n_groups(); ++g) {
        const auto v = sim.group(g).voltages();
        r.v_end.insert(r.v_end.end(), v.begin(), v.end());
        r.phases += sim.group(g).times();
    }
    return r;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::isnan(a[i] - b[i]) ? INFINITY : std::fabs(a[i] - b[i]));
    return m;
}

// Same spikes (gid, detector; times within tol ms) and traces within tol mV.
void expect_close(const Result& gpu, const Result& cpu, double tol, const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(gpu.rec.rows.size(), cpu.rec.rows.size());
    ASSERT_EQ(gpu.v_end.size(), cpu.v_end.size());
    EXPECT_LE(max_abs_diff(gpu.rec.rows, cpu.rec.rows), tol);
    EXPECT_LE(max_abs_diff(gpu.v_end, cpu.v_end), tol);
    ASSERT_EQ(gpu.rec.spikes_seen.size(), cpu.rec.spikes_seen.size());
    double dt_max = 0;
    for (std::size_t i = 0; i < cpu.rec.spikes_seen.size(); ++i) {
        const Spike &g = gpu.rec.spikes_seen[i], &c = cpu.rec.spikes_seen[i];
        ASSERT_EQ(g.gid, c.gid) << "spike " << i;
        ASSERT_EQ(g.source, c.source) << "spike " << i;
        dt_max = std::max(dt_max, std::fabs(g.time - c.time));
    }
    EXPECT_LE(dt_max, tol) << "spike times";
    std::cout << "[ info     ] " << what << ": " << cpu.rec.spikes_seen.size() << " spikes (max |dt| " << dt_max
              << " ms), max |dv| " << std::max(max_abs_diff(gpu.rec.rows, cpu.rec.rows), max_abs_diff(gpu.v_end, cpu.v_end))
              << " mV over " << cpu.rec.rows.size() << " samples\n";
}

void expect_identical(const Result& a, const Result& b, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(a.rec.rows, b.rec.rows);
    EXPECT_EQ(a.v_end, b.v_end);
    EXPECT_EQ(a.rec.spikes_seen, b.rec.spikes_seen);
}

// Spreads each cell's incoming connections over `per_cell` expsyn instances that all sit
// on the CV of synapse 0 (Arbor's busyring targets one synapse; this is its many-synapse
// variant, the case the segmented point sum is for).
void split_synapses(Model& m, unsigned per_cell) {
    for (auto& c : m.cells)
        while (c.synapses.size() < per_cell) c.synapses.push_back(c.synapses[0]);
    std::vector<unsigned> next(m.cells.size(), 0);
    for (auto& c : m.connections) c.synapse = next[c.target]++ % per_cell;
}

// block-shared and padding=compute do the same arithmetic as block-interleaved: the same bits.
const std::vector<std::string> all_layouts = {"layout=flat", "layout=interleaved", "layout=block-interleaved:block=32",
                                              "layout=block-interleaved:block=7", "layout=block-interleaved:block=1",
                                              "layout=block-shared", "layout=block-shared:block=7:padding=compute",
                                              "padding=compute"};

}  // namespace

TEST(GpuOptions, Parse) {
    using Kind = CellLayout::Kind;
    auto o = parse_gpu_options("");
    EXPECT_EQ(o.layout.kind, Kind::block_interleaved);
    EXPECT_EQ(o.layout.block, 32);
    EXPECT_FALSE(o.block_auto);
    EXPECT_TRUE(o.phase_times);
    EXPECT_EQ(o.solve_threads, 0);
    o = parse_gpu_options("layout=interleaved:timing=off");
    EXPECT_EQ(o.layout.kind, Kind::interleaved);
    EXPECT_FALSE(o.phase_times);
    // Point sums are always the deterministic segmented sum: no atomic variant.
    EXPECT_THROW(parse_gpu_options("sum=atomic"), std::invalid_argument);
    o = parse_gpu_options("block=64:kernel=plain:threads=64");
    EXPECT_EQ(o.layout.kind, Kind::block_interleaved);
    EXPECT_EQ(o.layout.block, 64);
    EXPECT_EQ(o.solve_kernel, "plain");
    EXPECT_EQ(o.solve_threads, 64);
    EXPECT_EQ(parse_gpu_options("layout=flat").solve_kernel, "");  // chosen from the cell count
    EXPECT_THROW(parse_gpu_options("kernel=fast"), std::invalid_argument);
    EXPECT_THROW(parse_gpu_options("threads=48"), std::invalid_argument);
    EXPECT_THROW(parse_gpu_options("block=0"), std::invalid_argument);
    EXPECT_THROW(parse_gpu_options("flat"), std::invalid_argument);
    o = parse_gpu_options("layout=block-shared:padding=compute");
    EXPECT_EQ(o.layout.kind, Kind::block_shared);
    EXPECT_TRUE(o.block_auto);
    EXPECT_EQ(o.solve_padding, GpuGroupOptions::Padding::compute);
    o = parse_gpu_options("layout=block-shared:block=16");
    EXPECT_EQ(o.layout.kind, Kind::block_shared);
    EXPECT_EQ(o.layout.block, 16);
    EXPECT_FALSE(o.block_auto);
    EXPECT_THROW(parse_gpu_options("padding=some"), std::invalid_argument);
    EXPECT_THROW(parse_gpu_options("layout=block-shared:block=129"), std::invalid_argument);
}

// block-shared where a block's right-hand sides do not fit, or with a kernel it does not
// run: one clear error at set-up naming the key (the command line exits 2 on it).
TEST(GpuCellGroup, BlockSharedRefusedWhereItDoesNotFit) {
    SKIP_WITHOUT_GPU();
    const Model m = mixed_model(false);  // its largest cell has 1,800 CVs
    for (const char* spec : {"gpu-cell:layout=block-shared:block=128", "gpu-cell:layout=block-shared:kernel=plain"}) {
        SimOptions o;
        o.solver = parse_solver_spec(spec);
        try {
            Simulation s(m, o);
            ADD_FAILURE() << spec << " accepted";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("layout=block-shared"), std::string::npos) << what;
            EXPECT_NE(what.find(std::string(spec).find("kernel") != std::string::npos ? "kernel=plain" : "block=128"),
                      std::string::npos)
                << what;
        }
    }
}

// Both are bad input, said before any device is probed: runs without a GPU too.
TEST(GpuCellGroup, UnknownSolverAndLayoutRejected) {
    EXPECT_THROW(parse_solver_spec("gpu-cell:layout=diagonal"), std::invalid_argument);
    EXPECT_THROW(parse_solver_spec("gpu-fine:sort=sideways"), std::invalid_argument);
    EXPECT_THROW(parse_solver_spec("gpu-twig"), std::invalid_argument);
}

TEST(GpuCellGroup, RingMatchesCpu) {
    SKIP_WITHOUT_GPU();
    Model m = read_model(source_path("examples/ring.json"));
    m.run.tfinal = 60;
    const Result cpu = run(m, "cpu");
    ASSERT_GT(cpu.rec.spikes_seen.size(), 4u);
    for (const std::string& layout : {"", "layout=flat", "layout=interleaved"}) expect_close(run(m, "gpu-cell", layout), cpu, 1e-9, "ring " + layout);
}

TEST(GpuCellGroup, RingNeuronRulesMatchCpu) {
    SKIP_WITHOUT_GPU();
    Model m = read_model(source_path("examples/ring.json"));
    m.run.tfinal = 40;
    m.run.rules = EventRules::neuron;
    const Result cpu = run(m, "cpu");
    const Result gpu = run(m, "gpu-cell");
    expect_close(gpu, cpu, 1e-9, "ring, NEURON's rules");
    // Spike times sit on the step grid: equal bits.
    EXPECT_EQ(gpu.rec.spikes_seen, cpu.rec.spikes_seen);
}

TEST(GpuCellGroup, BusyringMatchesCpu) {
    SKIP_WITHOUT_GPU();
    const Model m = busyring(64, 20, 30);
    const Result cpu = run(m, "cpu");
    ASSERT_GT(cpu.rec.spikes_seen.size(), 32u);
    for (const std::string& layout : {"layout=block-interleaved:block=32", "layout=interleaved", "layout=flat"})
        expect_close(run(m, "gpu-cell", layout), cpu, 1e-9, "busyring 64 " + layout);
}

// 300 instances on one CV per cell: runs that start mid-warp and cross up to ten warp
// edges. The sums have no atomics: the same bits every run.
TEST(GpuCellGroup, PointSumsSameBitsEveryRun) {
    SKIP_WITHOUT_GPU();
    Model m = busyring(16, 300, 10);
    split_synapses(m, 300);
    for (const std::string solver : {"gpu-cell", "gpu-fine"}) {
        const Result first = run(m, solver, "");
        ASSERT_GT(first.rec.spikes_seen.size(), 0u);
        for (int k = 1; k < 20; ++k) expect_identical(run(m, solver, ""), first, solver + ", run " + std::to_string(k));
    }
}

TEST(GpuCellGroup, ManySynapsesOnOneCv) {
    SKIP_WITHOUT_GPU();
    Model m = busyring(16, 300, 25);
    split_synapses(m, 300);
    const Result cpu = run(m, "cpu");
    for (const std::string& layout : {"block=32", "layout=interleaved", "layout=flat"})
        expect_close(run(m, "gpu-cell", layout), cpu, 1e-9, "busyring 16 x 300 synapses " + layout);
}

// This model amplifies rounding more than the ring and busyring do (its finest cells have
// CVs under 1 µm, a stiff matrix): the CPU backend compiled with FMA contraction differs
// from itself by 1.1e-8 mV here (4.8e-10 on the ring, 3.2e-11 on busyring), so the GPU,
// with its own exp and FMA, is held to 1e-6 mV rather than 1e-9.
constexpr double mixed_tol = 1e-6;

TEST(GpuCellGroup, MixedSizesEveryMechanismMatchesCpu) {
    SKIP_WITHOUT_GPU();
    const Model m = mixed_model(true);
    const Result cpu = run(m, "cpu");
    ASSERT_GT(cpu.rec.spikes_seen.size(), 10u);
    for (const auto& layout : all_layouts)
        expect_close(run(m, "gpu-cell", layout), cpu, mixed_tol, "mixed sizes " + layout);
}

// NEURON's guard case tau1 = tau2: the conductance is the difference b - a of two states
// about 1e4 times the event weight, so the last-bit differences between the device's exp
// and the host's (and FMA contraction) come out about 1e4 times larger than elsewhere.
// Still the same spikes; traces within 1e-5 mV (the FMA-compiled CPU backend differs from
// the plain one by 3.1e-8 mV here).
TEST(GpuCellGroup, Exp2synEqualTausMatchesCpuLoosely) {
    SKIP_WITHOUT_GPU();
    const Model m = mixed_model(true, 2.0);
    const Result cpu = run(m, "cpu");
    expect_close(run(m, "gpu-cell"), cpu, 1e-5, "exp2syn tau1 = tau2");
}

// Every kernel once, small enough for compute-sanitizer (`python3 bench/gpu_run.py sanitize
// GpuCellGroup.SanitizerSmoke GpuCellGroup.SanitizerSmoke`); also each solve kernel and block size.
TEST(GpuCellGroup, SanitizerSmoke) {
    SKIP_WITHOUT_GPU();
    const Model m = mixed_model(true, 1.0, 6);
    const Result cpu = run(m, "cpu");
    for (const std::string& opt :
         {"layout=block-interleaved:block=32", "layout=interleaved:timing=off:kernel=pipelined2",
          "layout=flat:kernel=plain:threads=128", "block=7:kernel=pipelined4:threads=32", "block=32:kernel=rowparent8"})
        expect_close(run(m, "gpu-cell", opt), cpu, mixed_tol, "smoke " + opt);
}

// Padding and sorting cells by size must leave each cell's arithmetic alone: with at
// most one point instance per CV every layout gives the same bits.
TEST(GpuCellGroup, LayoutLeavesEachCellIdentical) {
    SKIP_WITHOUT_GPU();
    const Model m = mixed_model(false);
    const Result ref = run(m, "gpu-cell", "layout=flat");
    ASSERT_GT(ref.rec.spikes_seen.size(), 10u);
    for (const auto& layout : all_layouts) {
        expect_identical(run(m, "gpu-cell", layout), ref, "layout " + layout);
    }
    const Model br = busyring(40, 5, 20);
    const Result bref = run(br, "gpu-cell", "layout=flat");
    for (const auto& layout : all_layouts) expect_identical(run(br, "gpu-cell", layout), bref, "busyring layout " + layout);
}

TEST(GpuCellGroup, PhaseTimes) {
    SKIP_WITHOUT_GPU();
    const Model m = busyring(32, 2, 10);
    const Result timed = run(m, "gpu-cell");
    for (const auto& [name, s] : timed.phases.as_map())
        if (name != "events" && name != "fused") EXPECT_GT(s, 0.0) << name;  // fused: step=resident only
    const Result untimed = run(m, "gpu-cell", "timing=off");
    for (const auto& [name, s] : untimed.phases.as_map()) EXPECT_EQ(s, 0.0) << name;
    expect_identical(timed, untimed, "timed vs untimed");
}

// The streaming step of every GPU solver and the resident kernel (its block 0) step
// through lowered_cell/step_sequence.hpp's run_step: every phase of every step, in order.
TEST(GpuStepSequence, EveryBackendStepsThroughIt) {
    SKIP_WITHOUT_GPU();
    const Model m = busyring(4, 1, 1.0);
    const long steps = std::lround(m.run.tfinal / m.run.dt);
    for (const std::string solver : {"gpu-cell", "gpu-fine", "gpu-branch", "gpu-fine:step=resident"}) {
        const auto traces = test_models::traced_phases(m, solver);
        ASSERT_EQ(traces.size(), 1u) << solver;
        EXPECT_TRUE(test_models::whole_steps_in_order(traces[0], steps)) << solver;
    }
}

namespace {

// How far run a is from run b: max |dv| (mV) over every sample and the final voltages, max
// |dt| (ms) over the spikes; same_spikes false where their count, gids or detectors differ.
struct Deviation {
    bool same_spikes = true;
    double dv = 0, dt = 0;
};
Deviation deviation(const Result& a, const Result& b) {
    Deviation d;
    d.dv = a.rec.rows.size() == b.rec.rows.size() && a.v_end.size() == b.v_end.size()
               ? std::max(max_abs_diff(a.rec.rows, b.rec.rows), max_abs_diff(a.v_end, b.v_end))
               : INFINITY;
    d.same_spikes = a.rec.spikes_seen.size() == b.rec.spikes_seen.size();
    for (std::size_t i = 0; d.same_spikes && i < a.rec.spikes_seen.size(); ++i) {
        const Spike &x = a.rec.spikes_seen[i], &y = b.rec.spikes_seen[i];
        d.same_spikes = x.gid == y.gid && x.source == y.source;
        d.dt = std::max(d.dt, std::fabs(x.time - y.time));
    }
    return d;
}

// `gpu` no farther from the long double run `ld` than the CPU's double run is (cpu_from_ld),
// plus `allowance` mV and ms: the same spikes, every voltage and spike time.
void expect_as_near_as_cpu(const Result& gpu, const Result& ld, const Deviation& cpu_from_ld, double allowance,
                           const std::string& what) {
    SCOPED_TRACE(what + ", against long double");
    const Deviation g = deviation(gpu, ld);
    ASSERT_TRUE(g.same_spikes);
    EXPECT_LE(g.dv, cpu_from_ld.dv + allowance) << "the CPU's: " << cpu_from_ld.dv;
    EXPECT_LE(g.dt, cpu_from_ld.dt + allowance) << "spike times; the CPU's: " << cpu_from_ld.dt;
    std::cout << "[ info     ] " << what << ": max |dv| " << g.dv << " mV from long double (the CPU's " << cpu_from_ld.dv
              << "), max |dt| " << g.dt << " ms (the CPU's " << cpu_from_ld.dt << ")\n";
}

// Ring (60 ms) and busyring 64 (30 ms). Every variant of `solver` is held to the long
// double reference (cpu:solve=long-double, the CPU's run with its Hines solve carried in
// long double): no farther from it than the CPU's own double run is, plus 1e-9 mV (and
// ms) for the GPU's own arithmetic. Variants that do the CPU's arithmetic in the solve
// (cpu_arithmetic: gpu-fine, its resident step, gpu-branch's fold) are also held to the
// CPU's run within 1e-9 mV, as they always were (which implies the first bound). EDD is
// another elimination (edd_sweeps.hpp, pivots from excesses), not the CPU's rounding:
// on the ring, whose spikes amplify every double solve's rounding to about 7e-10 mV from
// long double, the host's EDD (edd_layout_solve in the CPU's run) lies 6.77e-10 from
// it where the CPU lies 7.00e-10, the two on opposite sides, 1.07e-9 apart; on
// busyring 2e-12 against the CPU's 2.8e-11 (bench/RESULTS.md, Accuracy;
// WholeRunAccuracy.EddAsNearLongDoubleAsHines). Held to the CPU's run it would be held
// to the CPU's errors. The long double bound is no looser than the CPU bound was: within
// 1e-9 of the CPU, a run could lie up to the CPU's deviation plus 1e-9 from long double.
void expect_ring_and_busyring_match_cpu(
    const std::string& solver, const std::vector<std::string>& variants,
    const std::function<bool(const std::string&)>& cpu_arithmetic = [](const std::string&) { return true; }) {
    Model ring = read_model(source_path("examples/ring.json"));
    ring.run.tfinal = 60;
    const Result ring_cpu = run(ring, "cpu"), ring_ld = run(ring, "cpu", "solve=long-double");
    const Deviation ring_cpu_ld = deviation(ring_cpu, ring_ld);
    const Model br = busyring(64, 20, 30);
    const Result br_cpu = run(br, "cpu"), br_ld = run(br, "cpu", "solve=long-double");
    const Deviation br_cpu_ld = deviation(br_cpu, br_ld);
    ASSERT_GT(br_cpu.rec.spikes_seen.size(), 32u);
    ASSERT_TRUE(ring_cpu_ld.same_spikes && br_cpu_ld.same_spikes);
    for (const auto& v : variants) {
        const std::string on_ring = "ring " + solver + " " + v, on_br = "busyring 64 " + solver + " " + v;
        const Result r = run(ring, solver, v), b = run(br, solver, v);
        if (cpu_arithmetic(v)) {
            expect_close(r, ring_cpu, 1e-9, on_ring);
            expect_close(b, br_cpu, 1e-9, on_br);
        }
        expect_as_near_as_cpu(r, ring_ld, ring_cpu_ld, 1e-9, on_ring);
        expect_as_near_as_cpu(b, br_ld, br_cpu_ld, 1e-9, on_br);
    }
}

// Every mechanism, cells from 1 to over 600 CVs, every variant, at mixed_tol.
void expect_mixed_sizes_match_cpu(const std::string& solver, const std::vector<std::string>& variants) {
    const Model m = mixed_model(true);
    const Result cpu = run(m, "cpu");
    ASSERT_GT(cpu.rec.spikes_seen.size(), 10u);
    for (const auto& v : variants) expect_close(run(m, solver, v), cpu, mixed_tol, "mixed sizes " + solver + " " + v);
}

// 20 runs of busyring 64, the same bits.
void expect_same_bits_every_run(const std::string& solver, const std::string& options) {
    const Model m = busyring(64, 20, 20);
    const Result first = run(m, solver, options);
    for (int k = 1; k < 20; ++k)
        expect_identical(run(m, solver, options), first, solver + ":" + options + ", run " + std::to_string(k));
}

}  // namespace

// gpu-fine: the same group with fine_layout's numbering and the block-level solve.
const std::vector<std::string> fine_variants = {"",
                                                "sort=off",
                                                "reroot=on",
                                                "split=off",
                                                "memory=shared:block=2048",
                                                "block=1:timing=off",
                                                "sort=off:reroot=off:split=on:block=100000",
                                                "split=cost",
                                                "edd=16",
                                                "edd=1:memory=shared:block=2048"};

TEST(GpuFineGroup, RingAndBusyringMatchCpu) {
    SKIP_WITHOUT_GPU();
    expect_ring_and_busyring_match_cpu("gpu-fine", fine_variants,
                                       [](const std::string& v) { return v.find("edd=") == std::string::npos; });
}

// (Blocks in shared and in device memory within one launch:
// GpuFine.RealMorphologiesAndBusyring.)
TEST(GpuFineGroup, MixedSizesEveryMechanismMatchesCpu) {
    SKIP_WITHOUT_GPU();
    expect_mixed_sizes_match_cpu("gpu-fine", fine_variants);
}

// No atomics in the solve (the segmented point sums are deterministic too).
TEST(GpuFineGroup, SameBitsEveryRun) {
    SKIP_WITHOUT_GPU();
    expect_same_bits_every_run("gpu-fine", "");
    expect_same_bits_every_run("gpu-fine", "edd=16");
}

// gpu-branch: the same group with branch_level_layout's numbering, both couplings, both
// padding variants, graph replay or plain launches.
const std::vector<std::string> branch_variants = {"",
                                                  "padding=stop",
                                                  "graph=off:threads=32",
                                                  "coupling=edd",
                                                  "coupling=edd:padding=stop:graph=off",
                                                  "coupling=edd:block=7:threads=256:timing=off",
                                                  "coupling=edd:cut=8",
                                                  "coupling=edd:cut=1:padding=stop",
                                                  "block=1"};

TEST(GpuBranchGroup, RingAndBusyringMatchCpu) {
    SKIP_WITHOUT_GPU();
    expect_ring_and_busyring_match_cpu("gpu-branch", branch_variants,
                                       [](const std::string& v) { return v.find("coupling=edd") == std::string::npos; });
}

TEST(GpuBranchGroup, MixedSizesEveryMechanismMatchesCpu) {
    SKIP_WITHOUT_GPU();
    expect_mixed_sizes_match_cpu("gpu-branch", branch_variants);
}

// No atomics in either coupling.
TEST(GpuBranchGroup, SameBitsEveryRun) {
    SKIP_WITHOUT_GPU();
    for (const std::string v : {"coupling=fold", "coupling=edd", "coupling=edd:cut=16"})
        expect_same_bits_every_run("gpu-branch", v);
}

// gpu-fine step=resident: each epoch piece in one kernel, the blocks' state in
// shared memory. With the same blocks as streaming gpu-fine it has the same numbering and
// the same arithmetic per CV, so where no CV holds two point instances (whose sum order
// differs: streaming sums a warp's instances as a tree, resident in instance order) the
// bits are the same; the CPU comparisons hold it to the tolerances of the other solvers.
const std::vector<std::string> resident_variants = {"step=resident",
                                                    "step=resident:threads=64:ahead=4",
                                                    "step=resident:shared=8",  // most blocks in device memory
                                                    "step=resident:shared=24:sort=off:split=on",
                                                    "step=resident:reroot=on",
                                                    "step=resident:shared=200:block=4000:threads=256:timing=off",
                                                    "step=resident:edd=16",
                                                    "step=resident:edd=4:shared=24"};

TEST(GpuResidentGroup, RingAndBusyringMatchCpu) {
    SKIP_WITHOUT_GPU();
    expect_ring_and_busyring_match_cpu("gpu-fine", resident_variants,
                                       [](const std::string& v) { return v.find("edd=") == std::string::npos; });
}

TEST(GpuResidentGroup, MixedSizesEveryMechanismMatchesCpu) {
    SKIP_WITHOUT_GPU();
    expect_mixed_sizes_match_cpu("gpu-fine", resident_variants);
}

namespace {

// Every GPU solver (streaming, and the resident step) within 1e-9 of the CPU on m, which
// must spike at least three times: the ion tests' comparison (the same functions on both,
// only the Hines sweeps' arithmetic may differ).
void expect_every_gpu_solver_close(const Model& m, const std::string& what) {
    const Result cpu = run(m, "cpu");
    ASSERT_GE(cpu.rec.spikes_seen.size(), 3u) << what;
    for (const char* solver : {"gpu-cell", "gpu-fine", "gpu-branch", "gpu-fine:step=resident"})
        expect_close(run(m, solver), cpu, 1e-9, std::string(solver) + " " + what);
}

// Resident and streaming gpu-fine on the same blocks: identical spikes, traces and final
// voltages. `shared` is the resident budget (KiB), `block` both runs' block size.
void expect_resident_identical(const Model& m, const std::string& block, const std::string& shared,
                               const std::string& what) {
    const Result streaming = run(m, "gpu-fine", "block=" + block);
    const Result resident = run(m, "gpu-fine", "step=resident:shared=" + shared + ":block=" + block);
    expect_identical(resident, streaming, what + " block=" + block + " shared=" + shared);
    EXPECT_GT(resident.phases.fused, 0.0);
    EXPECT_EQ(resident.phases.solve, 0.0);
    std::cout << "[ info     ] " << what << ": " << streaming.rec.spikes_seen.size() << " spikes, "
              << streaming.rec.rows.size() << " samples identical\n";
}

}  // namespace

// The next epoch's events are packed on the exchange's thread while the device runs the
// current one (CellGroup::prepare; two host buffers): pipelined (concurrent), unpipelined
// (after the advance) and epochs of one step give the same bits.
TEST(GpuCellGroup, PreparedEventsSameBits) {
    SKIP_WITHOUT_GPU();
    const Model m = busyring(64, 20, 20);
    Model one_step = m;
    for (auto& c : one_step.connections) c.delay = 2 * one_step.run.dt;  // epochs of one step
    for (const std::string v : {"", "step=resident"}) {
        const Result piped = run(m, "gpu-fine", v);
        expect_identical(run(m, "gpu-fine", v, false), piped, "gpu-fine " + v + " unpipelined");
        expect_identical(run(one_step, "gpu-fine", v), run(one_step, "gpu-fine", v, false),
                         "gpu-fine " + v + " epochs of one step");
        EXPECT_GT(piped.rec.spikes_seen.size(), 10u);
    }
}

namespace {

// One epoch's events in StepEvent order: n of them (2,000 to 2,999 when n < 0) on random
// steps of [b, b + steps), targets and weights.
std::vector<StepEvent> random_epoch(long b, long steps, std::uint32_t targets, unsigned seed, long n = -1) {
    std::vector<StepEvent> ev;
    unsigned x = seed;
    auto next = [&x] { return x = x * 1664525u + 1013904223u; };
    if (n < 0) n = 2000 + static_cast<long>(next() % 1000);
    for (long i = 0; i < n; ++i) {
        const long step = b + next() % steps;
        ev.push_back({step, step * 0.025 + (next() % 8) * 1e-3, next() % targets, 1e-3 * (next() % 100)});
    }
    std::sort(ev.begin(), ev.end());
    return ev;
}

// What the queue staged: sorted keys and weights, and the per-block offsets.
struct Staged {
    std::vector<std::uint64_t> key;
    std::vector<double> weight;
    std::vector<unsigned> offset;
    bool operator==(const Staged& o) const { return key == o.key && weight == o.weight && offset == o.offset; }
};

Staged read_staged(const gpu::EventQueue& q, std::size_t n, int n_blocks, cudaStream_t stream) {
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    const gpu::BlockEvents b = q.by_block();
    Staged s;
    s.key.resize(n);
    s.weight.resize(n);
    s.offset.resize(static_cast<std::size_t>(n_blocks) * (b.n_steps + 1));
    EXPECT_EQ(cudaMemcpy(s.key.data(), b.key, n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(s.weight.data(), b.weight, n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(s.offset.data(), b.offset, s.offset.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    return s;
}

}  // namespace

// The queue packs, copies and sorts an epoch ahead on its own stream (EventQueue::pack);
// whichever way pack() and stage() interleave (pack of epoch k + 1 before or after the
// stage of epoch k, or no pack at all), each epoch stages to the same sorted events.
TEST(GpuEventQueue, PackAheadInAnyOrderSameEvents) {
    SKIP_WITHOUT_GPU();
    const std::uint32_t targets = 300;
    const int n_blocks = 7;
    std::vector<std::uint32_t> block(targets);
    for (std::uint32_t i = 0; i < targets; ++i) block[i] = (i * 37) % n_blocks;
    const long steps = 40;
    std::vector<std::vector<StepEvent>> epochs;
    for (int k = 0; k < 5; ++k) epochs.push_back(random_epoch(k * steps, steps, targets, 11 + k));
    epochs[2].clear();  // an epoch without events
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);

    // order[i]: 'p' packs the next epoch not yet packed, 's' stages the next epoch.
    auto staged = [&](const std::string& order) {
        gpu::EventQueue q(targets);
        q.sort_by_block(block, n_blocks);
        std::vector<Staged> out;
        std::size_t packed = 0, done = 0;
        for (const char c : order) {
            if (c == 'p') {
                q.pack(epochs[packed], packed * steps, (packed + 1) * steps);
                ++packed;
            } else {
                q.stage(epochs[done], done * steps, (done + 1) * steps, stream);
                out.push_back(read_staged(q, epochs[done].size(), n_blocks, stream));
                q.release(stream);
                ++done;
                packed = std::max(packed, done);
            }
        }
        return out;
    };
    const std::vector<Staged> reference = staged("sssss");
    ASSERT_EQ(reference.size(), 5u);
    EXPECT_EQ(reference[0].key.size(), epochs[0].size());
    for (const std::string order : {"pspspspsps", "ppspspspss", "ppsspspss", "psspspss", "psppsspss"}) {
        const std::vector<Staged> s = staged(order);
        ASSERT_EQ(s.size(), reference.size()) << order;
        for (std::size_t k = 0; k < s.size(); ++k) EXPECT_TRUE(s[k] == reference[k]) << order << ", epoch " << k;
    }
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// Epochs whose packing spans several of the queue's page-locked chunks (65,536 events
// each), and whose device buffers grow from one epoch to the next (in stream order), give
// what the host computes: keys (block, local step, target) sorted stably, so that each
// target keeps its events' order, and each block's per-step offsets.
TEST(GpuEventQueue, ChunkedUploadSameAsHostSort) {
    SKIP_WITHOUT_GPU();
    const std::uint32_t targets = 5000;
    const int n_blocks = 13;
    std::vector<std::uint32_t> block(targets);
    for (std::uint32_t i = 0; i < targets; ++i) block[i] = (i * 7919) % n_blocks;
    const long steps = 100;
    const auto bits = [](std::uint64_t n) { int b = 0; while ((std::uint64_t(1) << b) < n) ++b; return b; };
    const int target_bits = bits(targets), step_bits = bits(steps);
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    gpu::EventQueue q(targets);
    q.sort_by_block(block, n_blocks);
    long k = 0;
    for (const long n : {1L, 65535L, 65536L, 65537L, 10L, 200003L, 0L, 131072L}) {
        const std::vector<StepEvent> ev = random_epoch(k * steps, steps, targets, 100 + k, n);
        if (k % 2) q.pack(ev, k * steps, (k + 1) * steps);  // on the queue's stream
        q.stage(ev, k * steps, (k + 1) * steps, stream);
        const Staged got = read_staged(q, ev.size(), n_blocks, stream);
        q.release(stream);

        std::vector<std::pair<std::uint64_t, double>> want;
        for (const StepEvent& e : ev)
            want.push_back({(std::uint64_t(block[e.target]) << step_bits | std::uint64_t(e.step - k * steps))
                                    << target_bits | e.target, e.weight});
        std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        ASSERT_EQ(got.key.size(), want.size()) << n << " events";
        for (std::size_t i = 0; i < want.size(); ++i) {
            ASSERT_EQ(got.key[i], want[i].first) << n << " events, event " << i;
            ASSERT_EQ(got.weight[i], want[i].second) << n << " events, event " << i;
        }
        for (int b = 0; b < n_blocks; ++b)
            for (long s = 0; s <= steps; ++s) {
                const std::uint64_t from = s == steps ? std::uint64_t(b + 1) << (step_bits + target_bits)
                                                      : (std::uint64_t(b) << step_bits | std::uint64_t(s)) << target_bits;
                const auto first = std::lower_bound(want.begin(), want.end(), from,
                                                    [](const auto& a, std::uint64_t x) { return a.first < x; });
                ASSERT_EQ(got.offset[b * (steps + 1) + s], static_cast<unsigned>(first - want.begin()))
                    << n << " events, block " << b << ", step " << s;
            }
        ++k;
    }
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(GpuResidentGroup, SameBitsAsStreaming) {
    SKIP_WITHOUT_GPU();
    Model ring = read_model(source_path("examples/ring.json"));
    ring.run.tfinal = 60;
    expect_resident_identical(ring, "auto", "110", "ring");
    expect_resident_identical(busyring(64, 20, 30), "1760", "110", "busyring 64");
    // Every block too large for its budget but for its voltages: the rest in device memory.
    expect_resident_identical(busyring(64, 20, 30), "1760", "24", "busyring 64, partly staged");
    // rhs, d, the folds and u staged, v in device memory: the new v copied out every step.
    expect_resident_identical(busyring(64, 20, 30), "1760", "56", "busyring 64, v in device memory");
    expect_resident_identical(busyring(1024, 20, 10), "1760", "110", "busyring 1024");
    // Blocks of several cells (levels of more than one warp's branches).
    expect_resident_identical(busyring(64, 20, 30), "8000", "110", "busyring 64, several cells a block");
    // Cells of 1 to 600+ CVs, every mechanism, one point instance per CV; blocks that fit
    // mixed with blocks that do not (shared=12: the 600-CV cells stay in device memory).
    const Model mixed = mixed_model(false);
    expect_resident_identical(mixed, "2000", "110", "mixed sizes");
    expect_resident_identical(mixed, "300", "12", "mixed sizes, large cells in device memory");
    // Point currents summed per CV: synapses stacked on one CV, Arbor's unconnected
    // synapses, and those coalesced into one instance a CV.
    expect_resident_identical(mixed_model(true), "2000", "110", "mixed sizes, stacked synapses");
    expect_resident_identical(busyring(64, 20, 30, 40), "1760", "110", "busyring 64, unconnected synapses");
    expect_resident_identical(busyring(64, 20, 30, 40, true), "1760", "110", "busyring 64, coalesced synapses");
    // EDD: the same functions per run and junction in both steps.
    for (const std::string shared : {"110", "24"}) {
        const Model m = busyring(64, 20, 30);
        expect_identical(run(m, "gpu-fine", "step=resident:edd=16:block=1760:shared=" + shared),
                         run(m, "gpu-fine", "edd=16:block=1760"), "busyring 64, EDD, shared=" + shared);
    }
}

// Epochs of one step (min_delay = 2 dt) and of 800 steps (min_delay = 40 ms).
TEST(GpuResidentGroup, EpochsOfOneStepAndMany) {
    SKIP_WITHOUT_GPU();
    for (double min_delay : {0.05, 40.0}) {
        Model m = busyring(64, 20, 25);
        for (auto& c : m.connections) c.delay = min_delay;
        expect_resident_identical(m, "1760", "110", "busyring 64, min_delay " + std::to_string(min_delay));
    }
}

TEST(GpuResidentGroup, SameBitsEveryRun) {
    SKIP_WITHOUT_GPU();
    expect_same_bits_every_run("gpu-fine", "step=resident");
    expect_same_bits_every_run("gpu-fine", "step=resident:shared=8");
    expect_same_bits_every_run("gpu-fine", "step=resident:edd=16");
}

// The launch orders (gpu-fine's `launch`) change which CUDA block runs which cells, never
// the cells' arithmetic: the measured orders reorder the blocks every few epochs (busyring
// of 128 cells of different sizes, 40 epochs).
TEST(GpuResidentGroup, LaunchOrdersSameBits) {
    SKIP_WITHOUT_GPU();
    const Model m = busyring(128, 20, 100);
    const Result index = run(m, "gpu-fine", "step=resident:launch=index");
    ASSERT_GE(index.rec.spikes_seen.size(), 3u);
    for (const std::string launch : {"cost", "measured", "longest"})
        expect_identical(run(m, "gpu-fine", "step=resident:launch=" + launch), index, "launch=" + launch);
}

// Probes of a state and of v without ions: the resident kernel's instance with the probes'
// sources, hh's gates advanced in the states phase for them rather than at the next
// step's start: the streaming step's bits.
TEST(GpuResidentGroup, StateProbesSameBitsAsStreaming) {
    SKIP_WITHOUT_GPU();
    const Model m = parse_model(R"({"run": {"dt": 0.025, "tfinal": 30, "sample_dt": 0.1},
        "cells": [{"count": 4, "morphology": {"builder": "ball_and_stick"}, "discretization": {"policy": "nseg", "n": 5},
                   "paint": [{"region": "soma", "mechanism": "hh"}, {"region": "dend", "mechanism": "pas"}],
                   "place": [{"location": "soma", "mechanism": "iclamp", "params": {"delay": 2, "dur": 20, "amp": 0.3}}],
                   "detectors": [{"location": "soma", "threshold": -10}],
                   "probes": [{"location": "soma"}, {"location": "soma", "variable": "hh.m"},
                              {"location": "soma", "variable": "hh.h"}]}]})",
                                "state_probes.json");
    expect_resident_identical(m, "2000", "110", "hh state probes");
    expect_resident_identical(m, "1", "12", "hh state probes, a block per cell, partly staged");
}

TEST(GpuResidentGroup, BudgetBeyondTheDeviceRejected) {
    SKIP_WITHOUT_GPU();
    const Model m = busyring(8, 2, 1);
    EXPECT_THROW(run(m, "gpu-fine", "step=resident:shared=100000"), std::invalid_argument);
    EXPECT_THROW(run(m, "gpu-fine", "step=resident:shared=1:block=100000"), std::invalid_argument);  // schedule alone
}

// Small enough for compute-sanitizer (`python3 bench/gpu_run.py sanitize ...`): fully
// staged, partly staged, and one-step epochs.
TEST(GpuResidentGroup, SanitizerSmoke) {
    SKIP_WITHOUT_GPU();
    Model m = busyring(6, 3, 4);
    expect_resident_identical(m, "1760", "110", "busyring 6");
    expect_resident_identical(m, "1760", "12", "busyring 6, partly staged");
    expect_resident_identical(m, "1760", "20", "busyring 6, rhs staged, v copied out");
    for (auto& c : m.connections) c.delay = 0.05;
    expect_resident_identical(m, "1760", "110", "busyring 6, one-step epochs");
}

// Arbor's unconnected synapses (1,000 expsyn a cell that no event reaches) add exact
// zeros to their CVs' sums, in whatever order a solver sums them: every GPU solver gives
// the same bits with and without them. Depth 6: a cell's 1,000 sites fall on about 300
// CVs, up to 10 on one, never on the connected synapse's CV; `crowded` puts 40 more there
// (its one nonzero term summed with zeros in a warp's tree and in the resident step's
// instance order); `coalesced` makes the synapses of a CV one instance (Arbor's default).
TEST(GpuUnconnectedSynapses, ChangeNoBit) {
    SKIP_WITHOUT_GPU();
    const Model without = busyring(32, 1000, 50, 0), with = busyring(32, 1000, 50, 1000),
                coalesced = busyring(32, 1000, 50, 1000, true);
    Model crowded = with;
    for (CellDesc& c : crowded.cells)
        for (int k = 0; k < 40; ++k) c.synapses.push_back(c.synapses[0]);
    ASSERT_EQ(with.cells[0].n_synapses(), 1001u);
    ASSERT_EQ(without.cells[0].n_synapses(), 1u);
    for (const std::string solver : {"gpu-cell", "gpu-cell:layout=block-shared", "gpu-fine", "gpu-fine:step=resident",
                                     "gpu-fine:step=resident:shared=8", "gpu-branch", "gpu-branch:coupling=edd",
                                     "gpu-branch:coupling=edd:cut=32:tile=1536"}) {
        const Result a = run(without, solver);
        ASSERT_GT(a.rec.spikes_seen.size(), 32u) << solver;
        expect_identical(run(with, solver), a, solver + ", 1,000 unconnected synapses a cell");
        expect_identical(run(crowded, solver), a, solver + ", 40 more on the connected CV");
        expect_identical(run(coalesced, solver), a, solver + ", coalesced");
    }
}

// Coalesced synapses with events on two synapses of one instance in the same steps
// (mixed_model's coalesced form): events keyed by the instance's first target, each step's
// run of them applied by one thread in the CPU's order. Every GPU solver agrees with the
// CPU as on the uncoalesced model (mixed_tol, same spikes) and repeats its own bits.
TEST(GpuCoalescedSynapses, MatchCpuAndRepeat) {
    SKIP_WITHOUT_GPU();
    const Model m = mixed_model(true, 1.0, 40, true);
    const Result cpu = run(m, "cpu");
    ASSERT_GT(cpu.rec.spikes_seen.size(), 10u);
    for (const std::string solver : {"gpu-cell", "gpu-fine", "gpu-fine:step=resident", "gpu-branch",
                                     "gpu-branch:coupling=edd"}) {
        const Result a = run(m, solver);
        expect_close(a, cpu, mixed_tol, solver + ", coalesced");
        expect_identical(run(m, solver), a, solver + ", coalesced, again");
    }
}

// The device's blow-up check (first_blown_up_kernel, once per epoch): every GPU solver
// stops where the CPU does: same cell, same epoch, same frames kept (the huge iclamp
// blows the cell up in the epoch [20, 30) ms, tests/data/blowups). Which CV is named
// follows each solver's numbering (the lowest blown-up layout index), so only its cell
// is compared.
TEST(GpuCellGroup, BlowUpStopsLikeTheCpu) {
    SKIP_WITHOUT_GPU();
    const Model m = read_model(source_path("tests/data/blowups/iclamp_1e300.json"));
    struct Stop {
        std::uint64_t gid = 99;
        double t_found = -1;
        std::size_t frames = 0;
    };
    auto stop = [&](const std::string& solver) {
        SimOptions o;
        o.solver = parse_solver_spec(solver);
        Simulation sim(m, o);
        struct Count : RecordSink {
            std::size_t n = 0;
            void frames(const double*, std::size_t k) override { n += k; }
            void spikes(const std::vector<Spike>&) override {}
        } sink;
        Stop s;
        try {
            sim.run(sink);
        } catch (const VoltageBlowUp& e) {
            s = {e.gid, e.t_found, sink.n};
        }
        return s;
    };
    const Stop cpu = stop("cpu");
    EXPECT_EQ(cpu.gid, 0u);
    EXPECT_DOUBLE_EQ(cpu.t_found, 30.0);
    EXPECT_EQ(cpu.frames, 201u);
    for (const std::string solver : {"gpu-cell", "gpu-fine", "gpu-fine:step=resident", "gpu-branch"}) {
        const Stop g = stop(solver);
        EXPECT_EQ(g.gid, cpu.gid) << solver;
        EXPECT_EQ(g.t_found, cpu.t_found) << solver;
        EXPECT_EQ(g.frames, cpu.frames) << solver;
    }
}

// Ions (docs/mechanisms.md, "Ions") on the streaming GPU step of every GPU solver against the
// CPU: three cells with the ion test mechanisms (e fixed by a key, e by Nernst from a
// written cai, ica read by the pump), every probe variable (v, e, cai, ica) within 1e-9
// (the CPU-GPU tolerance of the other whole-run tests: the same functions, only the Hines
// sweeps' arithmetic differs), the same spikes; the resident step too.
TEST(GpuIons, StreamingMatchesCpu) {
    SKIP_WITHOUT_GPU();
    if (!find_mechanism("test_cad")) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    const Model m = read_model(source_path("tests/data/ions/three_cells_ions.json"));
    expect_every_gpu_solver_close(m, "with ions");
}

// The resident step with ions calls the streaming step's functions on the block's ion
// arrays: the same bits, every probe variable, with the ion arrays staged (shared=110),
// in device memory (shared=12: only part of the solve's arrays fit), and without a
// probe of a state (the density mechanisms without ions then advance at the next step's
// start, BlockStep::states).
TEST(GpuIons, ResidentSameBitsAsStreaming) {
    SKIP_WITHOUT_GPU();
    if (!find_mechanism("test_cad")) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    const Model m = read_model(source_path("tests/data/ions/three_cells_ions.json"));
    expect_resident_identical(m, "2000", "110", "ions, staged");
    expect_resident_identical(m, "2000", "12", "ions, in device memory");
    expect_resident_identical(m, "1", "110", "ions, a block per cell");
    Model no_state_probe = m;
    for (CellDesc& c : no_state_probe.cells)
        c.probes.erase(std::remove_if(c.probes.begin(), c.probes.end(),
                                      [](const Probe& p) { return p.variable.kind == ProbeVariable::mech_state; }),
                       c.probes.end());
    expect_resident_identical(no_state_probe, "2000", "110", "ions, no state probe");
}

// Probes of mechanisms' currents (tests/data/ions/current_probes.json: hh's, the ion
// currents of test_ina and test_ica, pas's on a dendrite, every step): every GPU solver
// within 1e-9 of the CPU, as StreamingMatchesCpu (the same function computes them from
// the same states and voltages); the resident step, whose kernel ends before each sampled
// step for the streaming step's kernel to compute them, the streaming step's bits, staged
// and in device memory.
TEST(GpuIons, CurrentProbesMatchCpu) {
    SKIP_WITHOUT_GPU();
    if (!find_mechanism("test_cad")) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    const Model m = read_model(source_path("tests/data/ions/current_probes.json"));
    expect_every_gpu_solver_close(m, "with current probes");
    expect_resident_identical(m, "2000", "110", "current probes, staged");
    expect_resident_identical(m, "2000", "12", "current probes, in device memory");
}

// A point mechanism with an ion (test_casyn: a calcium-permeable synapse, three instances
// on each soma's CV, one on a dendrite's, beside expsyn), its ca current over the CV's area
// joining test_cad's pump and Nernst's eca: every GPU solver against the CPU, every probe
// variable. The GPU sums the instances of a CV in a tree (point_sums) where the CPU adds
// them one by one, as for expsyn: within 1e-9 as ManySynapsesOnOneCv. (Measured on the
// host: arbolito built with FMA contraction differs from the project's build here by at
// most 6.7e-12 mV in v, 3.6e-13 mV in eca, 1.1e-14 mA/cm2 in ica, 9e-16 ms in spike times.)
TEST(GpuIons, PointMechanismWithIonsMatchesCpu) {
    SKIP_WITHOUT_GPU();
    if (!find_mechanism("test_casyn")) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    const Model m = read_model(source_path("tests/data/ions/point_ions.json"));
    expect_every_gpu_solver_close(m, "with a point mechanism with ions");
}
