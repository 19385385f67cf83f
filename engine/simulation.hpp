#pragma once
// The epoch loop of DESIGN §6: cell groups integrate epoch k while a second thread
// exchanges the spikes of epoch k−1 and queues their events for epoch k+1 onward.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/cell_group.hpp"
#include "engine/model.hpp"
#include "engine/spike.hpp"
#include "engine/timings.hpp"

namespace arbolito {

struct SimOptions {
    std::string solver = "cpu";
    std::string layout;          // gpu-cell layout option
    int threads = 1;             // OpenMP threads (omp solver)
    bool pipeline = true;        // overlap the exchange with the cell update
    bool record_samples = true;  // false: spikes only
};

// Receives what the run records, once per epoch, in gid order.
struct RecordSink {
    virtual ~RecordSink() = default;
    virtual void frames(const double* rows, std::size_t n_frames) = 0;
    virtual void spikes(const std::vector<Spike>& s) = 0;
    virtual void epoch_done(double t) { (void)t; }
};

struct RunReport {
    double setup_s = 0, run_s = 0;
    double exchange_s = 0;        // time the exchange thread worked
    double exchange_exposed_s = 0;  // time the cell update waited for it
    PhaseTimes phases;            // summed over groups (threads run them in parallel)
    long steps = 0;
    long n_cv = 0;                // CVs simulated (no padding)
    std::size_t n_spikes = 0;
    std::size_t n_events = 0;
};

class Simulation {
public:
    Simulation(const Model& m, const SimOptions& o);
    ~Simulation();
    RunReport run(RecordSink& sink, const std::function<void(double t)>& progress = {});

    long n_columns() const;
    int n_groups() const { return static_cast<int>(groups_.size()); }
    const CellGroup& group(int g) const { return *groups_[g]; }
    long epoch_steps() const { return epoch_steps_; }

    // The step that delivers an event at time t under the run's rules.
    static long delivery_step(double t, double dt, EventRules rules);

private:
    struct Impl;
    const Model& model_;
    SimOptions opt_;
    StepSettings steps_;
    long n_steps_ = 0, epoch_steps_ = 0;
    std::vector<std::unique_ptr<CellGroup>> groups_;
    std::vector<std::uint64_t> group_first_gid_;
    double setup_s_ = 0;
};

}  // namespace arbolito
