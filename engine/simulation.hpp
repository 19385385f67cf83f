#pragma once
// The epoch loop of DESIGN §6: cell groups integrate epoch k while a second thread
// exchanges the spikes of epoch k−1 (across MPI ranks when there are several), queues
// their events for epoch k+1 onward and hands epoch k−1's samples and spikes to the sink.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/cell_group.hpp"
#include "engine/communicator.hpp"
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
    int exchange_threads = 0;    // threads of the spike exchange; 0: chosen from solver and threads
    // The ranks sharing the run (each simulates a contiguous gid block); null: one rank.
    std::shared_ptr<Communicator> comm;
};

// Receives what the run records, once per epoch, in gid order. With several ranks only
// rank 0's sink is called: it receives every rank's frames and spikes (the output is one
// file written by rank 0; docs/mpi.md says why). Calls come from the exchange thread.
struct RecordSink {
    virtual ~RecordSink() = default;
    virtual void frames(const double* rows, std::size_t n_frames) = 0;
    virtual void spikes(const std::vector<Spike>& s) = 0;
    virtual void epoch_done(double t) { (void)t; }
};

// Over all ranks: times are the slowest rank's (max), counts and phases are summed.
struct RunReport {
    double setup_s = 0, run_s = 0;
    double exchange_s = 0;          // time the exchange worked (spike gather, events, output)
    double exchange_exposed_s = 0;  // time the cell update waited for it
    double mpi_s = 0;               // time in MPI collectives during the run (part of exchange_s)
    PhaseTimes phases;              // summed over groups (threads and ranks run them in parallel)
    long steps = 0;
    long n_cv = 0;                  // CVs simulated (no padding)
    int ranks = 1;
    bool pipelined = true;          // whether the exchange overlapped the cell update
    std::size_t n_spikes = 0;
    std::size_t n_events = 0;       // events queued (generators and spikes through connections)
};

class Simulation {
public:
    Simulation(const Model& m, const SimOptions& o);
    ~Simulation();
    // Collective: every rank calls it. Throws on every rank if any rank failed (the others
    // throw PeerFailure), after the sink has seen at most the epochs before the failure.
    RunReport run(RecordSink& sink, const std::function<void(double t)>& progress = {});

    long n_columns() const;  // this rank's recorded columns
    Communicator& comm() const { return *opt_.comm; }
    std::uint64_t gid_begin() const { return gid_begin_; }  // this rank's cells
    std::uint64_t gid_end() const { return gid_end_; }
    int n_groups() const { return static_cast<int>(groups_.size()); }
    const CellGroup& group(int g) const { return *groups_[g]; }
    long epoch_steps() const { return epoch_steps_; }
    int exchange_threads() const { return exchange_threads_; }

    // The step that delivers an event at time t under the run's rules.
    static long delivery_step(double t, double dt, EventRules rules);

private:
    int choose_exchange_threads() const;

    const Model& model_;
    SimOptions opt_;
    StepSettings steps_;
    long n_steps_ = 0, epoch_steps_ = 0;
    std::vector<std::unique_ptr<CellGroup>> groups_;
    std::vector<std::uint64_t> group_first_gid_;
    std::uint64_t gid_begin_ = 0, gid_end_ = 0;
    int exchange_threads_ = 1;
    double setup_s_ = 0;
};

}  // namespace arbolito
