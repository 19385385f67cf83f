#pragma once
#include <functional>
#include <string>
#include <vector>

#include "run/simulation.hpp"

// Files shipped with the repository for tests (a clone has no ../shared).
inline std::string test_data(const std::string& rel) { return std::string(ARBOLITO_SOURCE_DIR) + "/tests/data/" + rel; }

// Keeps everything a run records in memory.
struct CaptureSink : arbolito::RecordSink {
    std::vector<double> rows;
    std::size_t n_frames = 0;
    std::vector<arbolito::Spike> spikes_seen;
    void frames(const double* r, std::size_t n) override {
        rows.insert(rows.end(), r, r + n * cols_hint(r, n));
        n_frames += n;
    }
    void spikes(const std::vector<arbolito::Spike>& s) override { spikes_seen.insert(spikes_seen.end(), s.begin(), s.end()); }
    long ncol = 0;
    std::size_t cols_hint(const double*, std::size_t) const { return static_cast<std::size_t>(ncol); }
    double at(std::size_t frame, long col) const { return rows[frame * ncol + col]; }
};

// Runs a model with options `o` and returns what it recorded; `report` receives the run's
// report, `inspect` sees the simulation once built.
inline CaptureSink run_model(const arbolito::Model& m, const arbolito::SimOptions& o, arbolito::RunReport* report = nullptr,
                             const std::function<void(const arbolito::Simulation&)>& inspect = {}) {
    arbolito::Simulation sim(m, o);
    if (inspect) inspect(sim);
    CaptureSink sink;
    sink.ncol = sim.n_columns();
    const arbolito::RunReport r = sim.run(sink);
    if (report) *report = r;
    return sink;
}

// Runs a model on one solver and returns what it recorded.
inline CaptureSink run_model(const arbolito::Model& m, const std::string& solver = "cpu", int threads = 1,
                             bool pipeline = true) {
    arbolito::SimOptions o;
    o.solver = arbolito::parse_solver_spec(solver);
    o.threads = threads;
    o.pipeline = pipeline;
    return run_model(m, o);
}
