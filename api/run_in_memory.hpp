#pragma once
// A run whose record stays in memory: spikes, the report's frames and its columns, and
// the run's timings. What the Python module (python/) and C++ programs linking
// arbolito::arbolito call; the same Simulation, sink protocol and mapping as `arbolito
// run`, so the numbers are the ones its SONATA file holds (as float64: --double-report).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "io/sonata_writer.hpp"
#include "lowered_cell/spike.hpp"
#include "model/model.hpp"
#include "run/record_exchange.hpp"
#include "run/simulation.hpp"

namespace arbolito {

struct InMemoryRecord {
    std::vector<Spike> spikes;     // in the output's order: time, then gid, then detector
    ReportMapping mapping;         // the report's columns (node_ids, element_ids, element_pos)
    std::vector<double> frames;    // row-major: frames() rows of mapping.n_values() columns
    std::string solver;            // what ran (auto: what it chose)
    RunReport report;              // timings and counts; stopped and t_end for a stopped run

    std::size_t n_frames() const { return mapping.n_values() > 0 ? frames.size() / mapping.n_values() : 0; }
    // The time of frame f, ms: as in the SONATA file, start + f * step.
    double frame_time(std::size_t f) const { return mapping.start + static_cast<double>(f) * mapping.step; }
};

struct RunHooks {
    // Called on the calling thread after each epoch with the time simulated, ms.
    std::function<void(double t)> progress;
    // Asked at each epoch's ends and between steps, from the groups' threads too
    // (Simulation::run): true ends the run at an epoch boundary, keeping what it recorded.
    std::function<bool()> stop_requested;
    // Also receives everything recorded (a SonataSink writing the file), or null.
    RecordSink* also = nullptr;
};

// One run on one rank: set up by the constructor (o.comm null or of one rank), run once by
// run(). The model must outlive it. Both throw what Simulation throws (an InputError for
// a bad solver option, VoltageBlowUp, a failed sink's error); a stopped run returns with
// report.stopped and report.t_end set.
class InMemoryRun {
public:
    InMemoryRun(const Model& m, const SimOptions& o);
    // The report's columns and frame times (empty columns with o.record_samples false):
    // what a SonataSink passed as hooks.also must be opened with.
    const ReportMapping& mapping() const { return mapping_; }
    const Simulation& simulation() const { return sim_; }
    InMemoryRecord run(const RunHooks& hooks = {});

private:
    Simulation sim_;
    ReportMapping mapping_;
};

// Sets up and runs `m` with `o`: InMemoryRun(m, o).run(hooks).
InMemoryRecord run_in_memory(const Model& m, const SimOptions& o, const RunHooks& hooks = {});

}  // namespace arbolito
