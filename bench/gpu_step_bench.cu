// The GPU time step on busyring: (1) the device-to-device copy bandwidth that the
// step is compared with; (2) per-CV byte counts of a step (the floor: every per-CV array
// read or written once; and what the kernels as written move); (3) point-current
// summation on busyring cells whose 1,000 incoming connections each have their own expsyn
// instance on one CV (the deterministic warp-segmented sum, gpu/point_sum.cuh)
// against the same network with one instance per cell.
//
// (4) the solve's kernel and CUDA block size on the plain busyring.
//
// Usage: gpu_step_bench [--cells 1024] [--synapses 1000] [--tfinal 20] [--options KEY=VALUE[:KEY=VALUE]...]
//                       [--solve-cells 1024] [--solve-tfinal 5] [--summary FILE]
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/gpu_bench_util.hpp"
#include "gpu/gpu_cell_group.hpp"
#include "model/network_builders.hpp"
#include "run/simulation.hpp"

using namespace arbolito;

namespace {

struct NullSink : RecordSink {
    void frames(const double*, std::size_t) override {}
    void spikes(const std::vector<Spike>&) override {}
};

Model busyring(std::uint64_t cells, unsigned synapses, double tfinal, bool split) {
    Model m;
    BusyringNetwork p;  // examples/busyring.json: ring size 4, min delay 5, weight 0.2, depth 10
    p.num_cells = cells;
    p.synapses = synapses;
    p.min_delay = 5;
    p.ring_size = 4;
    p.event_weight = 0.2;
    build_busyring(m, p);
    m.run.tfinal = tfinal;
    if (split) {  // every connection its own expsyn instance, all on synapse 0's CV
        for (auto& c : m.cells)
            while (c.synapses.size() < synapses) c.synapses.push_back(c.synapses[0]);
        std::vector<unsigned> next(m.cells.size(), 0);
        for (auto& c : m.connections) c.synapse = next[c.target]++ % synapses;
    }
    return m;
}

// Bytes of one step (see the file comment); per layout CV, per instance.
struct StepBytes {
    double floor = 0, kernels = 0;
};

StepBytes count_bytes(const FvmData& f) {
    const double ncv = f.n_cv(), hh = f.instances<arbolito::hh>().size(), pas = f.instances<arbolito::pas>().size(),
                 es = f.instances<expsyn>().size(), e2 = f.instances<exp2syn>().size(),
                 ic = f.instances<iclamp>().size(), det = f.detector_cv.size();
    StepBytes b;
    // Floor: v read and written; cap, g_sum, u read; d and rhs written once by the
    // assembly and read once by the solve; each instance's index, weight and parameters
    // read, its states read and written.
    b.floor = ncv * (16 + 24 + 32) + hh * (4 + 8 + 48 + 48) + pas * (4 + 8 + 16) + es * (4 + 16 + 16) +
              e2 * (4 + 24 + 32 + 16) + ic * (4 + 24) + det * (4 + 8);
    // As written: assembly (cap, g_sum, v in; d, rhs out), the solve (backward: d, u, rhs
    // in, d, rhs out; forward: d, rhs in, rhs out), each mechanism kernel's own loads and
    // stores (v, d, rhs of its CV included), states, detectors.
    b.kernels = ncv * (40 + 64) + hh * ((4 + 8 + 48 + 24 + 8 + 32) + (4 + 8 + 48)) + pas * (4 + 8 + 16 + 8 + 32) +
                es * ((4 + 16 + 8 + 8 + 32) + 16) + e2 * ((4 + 24 + 16 + 8 + 8 + 32) + 32) + ic * (4 + 24 + 16) +
                det * (4 + 8 + 16);
    return b;
}

}  // namespace

int main(int argc, char** argv) try {
    std::uint64_t cells = 1024;
    unsigned synapses = 1000;
    double tfinal = 20;
    std::string options, summary;  // options: gpu-cell's (docs/solvers.md) for parts (4) and (3)
    std::vector<std::uint64_t> solve_cells = {1024};
    double solve_tfinal = 5;
    for (bench::Args a(argc, argv); a.next();) {
        if (a.is("--cells")) cells = std::stoull(a.value());
        else if (a.is("--synapses")) synapses = std::stoul(a.value());
        else if (a.is("--tfinal")) tfinal = std::stod(a.value());
        else if (a.is("--options")) options = a.value();
        else if (a.is("--summary")) summary = a.value();
        else if (a.is("--solve-cells")) {
            solve_cells.clear();
            for (const std::string& t : bench::split_list(a.value())) solve_cells.push_back(std::stoull(t));
        } else if (a.is("--solve-tfinal")) solve_tfinal = std::stod(a.value());
        else a.unknown();
    }
    bench::Device dev;
    std::ostringstream out;
    const double bw = bench::copy_bandwidth_gbs();
    out << "device: " << bench::device_summary(dev.prop) << "\n";
    out << "copy bandwidth (cudaMemcpy D2D 1 GiB, read + write): " << bw << " GB/s\n";

    // Byte counts of the plain busyring (one synapse per cell) in each layout.
    {
        const Model m = busyring(cells, 1, tfinal, false);
        out << "\nbusyring " << cells << " cells, bytes per real CV and step:\n";
        out << "layout                      real_CVs  layout_CVs  floor_B/CV  kernels_B/CV  floor_ns/CV-step\n";
        for (const std::string l : {"layout=flat", "layout=interleaved", "block=32", "block=128"}) {
            SimOptions o;
            o.solver = parse_solver_spec("gpu-cell:" + l);
            Simulation sim(m, o);
            const FvmData& f = sim.group(0).data();
            const long real = f.n_real_cv();
            const StepBytes b = count_bytes(f);
            char line[256];
            std::snprintf(line, sizeof line, "%-26s %9ld %11d %11.1f %13.1f %17.4f\n", l.c_str(), real, f.n_cv(),
                          b.floor / real, b.kernels / real, b.floor / real / bw);
            out << line;
        }
    }

    // The solve dominates the step when cells are few (one thread per cell): its kernel
    // and CUDA block size, on the plain busyring.
    {
        out << "\nsolve kernel and block size (busyring, " << solve_tfinal << " ms; device time per step):\n";
        out << "cells   kernel+threads          solve_us/step  step_us/step  solve_ns/CV-step\n";
        for (std::uint64_t nc : solve_cells) {
            const Model m = busyring(nc, 1, solve_tfinal, false);
            std::vector<std::string> variants = {"kernel=rowparent8:threads=32", "kernel=rowparent8:threads=128",
                                                 "kernel=pipelined2:threads=32", "kernel=rowparent4:threads=32",
                                                 "kernel=plain:threads=32", "kernel=pipelined4:threads=32"};
            if (nc > 2048) variants.resize(3);
            for (const auto& v : variants) {
                SimOptions o;
                o.solver = parse_solver_spec("gpu-cell:" + (options.empty() ? "" : options + ":") + v);
                Simulation sim(m, o);
                NullSink sink;
                const RunReport r = sim.run(sink);
                const PhaseTimes& t = sim.group(0).times();
                double step = 0;
                for (const auto& [k, x] : t.as_map()) step += x;
                char line[256];
                std::snprintf(line, sizeof line, "%-7llu %-24s %13.1f %13.1f %17.4f\n", (unsigned long long)nc, v.c_str(),
                              1e6 * t.solve / r.steps, 1e6 * step / r.steps, 1e9 * t.solve / r.steps / r.n_cv);
                out << line;
                std::cout << line << std::flush;
            }
        }
    }

    // Point sums: 1,000 synapse instances on one CV per cell.
    {
        const Model m = busyring(cells, synapses, tfinal, true);
        out << "\nbusyring " << cells << " cells x " << synapses << " expsyn instances on one CV, " << tfinal
            << " ms (phase seconds are device time):\n";
        out << "summation   run_s   currents_s  us/step(currents)  events_s  spikes\n";
        const Model plain = busyring(cells, synapses, tfinal, false);
        for (int rep = 0; rep < 2; ++rep)
            for (const std::string sum : {"segmented", "baseline"}) {
                // baseline: the same network with all connections on one instance per cell.
                const bool base = sum == "baseline";
                SimOptions o;
                o.solver = parse_solver_spec("gpu-cell" + (options.empty() ? "" : ":" + options));
                Simulation sim(base ? plain : m, o);
                NullSink sink;
                const RunReport r = sim.run(sink);
                const PhaseTimes& t = sim.group(0).times();
                char line[256];
                std::snprintf(line, sizeof line, "%-10s %7.3f %11.4f %18.2f %9.4f %7zu%s\n", sum.c_str(), r.run_s,
                              t.currents, 1e6 * t.currents / r.steps, t.events, r.n_spikes, rep ? "" : "  (first run)");
                out << line;
            }
    }
    std::cout << out.str();
    if (!summary.empty()) std::ofstream(summary) << out.str();
    return 0;
} catch (const std::exception& e) {
    std::cerr << "gpu_step_bench: " << e.what() << "\n";
    return 1;
}
