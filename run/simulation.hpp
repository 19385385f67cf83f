#pragma once
// The epoch loop (docs/architecture.md, docs/mpi.md): cell groups integrate epoch k
// while a second thread exchanges the spikes of epoch k−1 (across MPI ranks when there
// are several), queues their events for epoch k+1 onward and hands epoch k−1's samples
// and spikes to the sink.
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lowered_cell/cell_group.hpp"
#include "run/communicator.hpp"
#include "run/epoch_times.hpp"
#include "run/exchange_lanes.hpp"
#include "run/group_threads.hpp"
#include "model/model.hpp"
#include "run/record_exchange.hpp"
#include "run/solver_spec.hpp"
#include "lowered_cell/spike.hpp"
#include "run/spike_fanout.hpp"
#include "lowered_cell/timings.hpp"

namespace arbolito {

struct SimOptions {
    SolverSpec solver = parse_solver_spec("cpu");  // parsed where the command line is read; auto resolved at set-up
    int threads = 1;             // OpenMP threads (omp solver)
    bool pipeline = true;        // overlap the exchange with the cell update
    bool record_samples = true;  // false: spikes only
    int exchange_threads = 0;    // threads of the spike exchange; 0: chosen from solver and threads
    // GPU solvers: cell groups of this rank, one per device (run/gpu_binding.hpp, bind_gpus);
    // 0: the node's visible devices shared among its ranks. first_gpu: the rank's first
    // device; -1: from its local rank.
    int gpus = 0;
    int first_gpu = -1;
    // Each epoch's times per group and rank kept, gathered to rank 0 (epoch_table; the
    // breakdown of --timeline, run/epoch_times.hpp).
    bool epoch_times = false;
    // The ranks sharing the run (each simulates a contiguous gid block); null: one rank.
    std::shared_ptr<Communicator> comm;
};

class Simulation {
public:
    Simulation(const Model& m, const SimOptions& o);
    ~Simulation();
    // Collective: every rank calls it. Throws on every rank if any rank failed (the others
    // throw PeerFailure), after the sink has seen at most the epochs before the failure. A
    // voltage blown up (NaN, inf, past ±1e9 mV) at the start or an epoch's end is such a failure
    // (VoltageBlowUp, lowered_cell/voltage_blowup.hpp). stop_requested (a flag a signal handler
    // sets; called from the groups' threads too) is asked at each epoch's start and end and
    // between the steps of groups that can stop part-way (CellGroup::set_stop_check): when
    // it says yes on any rank, every rank ends the run at the same epoch boundary, the
    // start of the epoch being integrated where a group left it unfinished, else its end;
    // the sink gets everything to that time, and run returns with RunReport::stopped and
    // t_end set. A stop thus takes at most one step of a CPU group's chunk, or the rest of
    // the epoch on a GPU.
    RunReport run(RecordSink& sink, const std::function<void(double t)>& progress = {},
                  const std::function<bool()>& stop_requested = {});

    long n_columns() const;  // this rank's recorded columns
    Communicator& comm() const { return *opt_.comm; }
    std::uint64_t gid_begin() const { return gid_begin_; }  // this rank's cells
    std::uint64_t gid_end() const { return gid_end_; }
    int n_groups() const { return static_cast<int>(groups_.size()); }
    const CellGroup& group(int g) const { return *groups_[g]; }
    long epoch_steps() const { return epoch_steps_; }
    int exchange_threads() const { return exchange_threads_; }
    // The CUDA device of group g (GPU solvers; -1 for CPU groups).
    int group_device(int g) const { return group_device_.empty() ? -1 : group_device_[g]; }
    const SolverSpec& solver() const { return solver_; }
    // The set-up's passes in order, seconds each (this rank's; --timings json's
    // setup_phases): cv_counts (every cell's CVs, the split into ranks and groups, GPU
    // binding), cell_groups (each group's discretisation, layout, state and upload, the
    // groups side by side), free_heap (the set-up scratch back to the system),
    // connections_fanout (the connections onto the rank's cells drawn and sorted into the
    // exchange's lanes).
    const std::vector<std::pair<std::string, double>>& setup_phases() const { return setup_phases_; }
    // After run with SimOptions::epoch_times: every rank's epochs, on rank 0 (empty elsewhere).
    const std::vector<std::vector<EpochTimes>>& epoch_table() const { return epoch_table_; }

private:
    int choose_exchange_threads() const;
    // GPU solvers: the devices of this rank's groups (bind_gpus); returns how many groups
    // to split the rank's cells into.
    int bind_devices();
    // Collective: rank 0 logs every rank's groups (device, cells, CVs); then throws
    // bind_devices' failure, if any.
    void log_gpu_groups(const std::vector<double>& weight);
    // This rank's spikes and frames of the epoch, taken from the groups' buffers (which it
    // empties) into one list and rows of this rank's columns, groups in gid order.
    void collect(std::vector<std::vector<Spike>>& spikes, std::vector<std::vector<double>>& frames,
                 std::vector<Spike>& out_spikes, std::vector<double>& out_rows) const;
    // The group and group-local target of synapse `synapse` of local cell `gid`.
    SpikeFanout::Target target_of(std::uint64_t gid, std::uint32_t synapse) const;
    // Queues the events of the generators onto this rank's cells; returns how many.
    std::size_t queue_generators(ExchangeLanes& lanes) const;
    // This rank's part of rep: steps, ranks, pipelining, the groups' phases and CVs.
    void fill_report(RunReport& rep) const;
    // The first group's (gid order) blown-up voltage after the epoch [b, e), or null.
    std::exception_ptr check_blow_up(long b, long e) const;

    const Model& model_;
    SimOptions opt_;
    SolverSpec solver_;
    StepSettings steps_;
    long n_steps_ = 0, epoch_steps_ = 0;
    std::vector<std::unique_ptr<CellGroup>> groups_;
    std::vector<std::uint64_t> group_first_gid_;
    std::vector<int> group_device_;  // GPU solvers: group g's CUDA device
    // GPU solvers with several groups: each group's set-up and epochs on a host thread of
    // its own, so that the devices run side by side.
    std::unique_ptr<GroupThreads> group_threads_;
    std::exception_ptr bad_binding_;  // bind_devices' failure, thrown after log_gpu_groups
    std::uint64_t gid_begin_ = 0, gid_end_ = 0;
    int exchange_threads_ = 1;
    // The exchange's per-group work: the connections onto this rank's cells, split into
    // lanes of groups with their queues and threads (run/exchange_lanes.hpp); built at
    // set-up (tens of millions of connections take a second or more to sort), not inside
    // the run's timing.
    std::unique_ptr<ExchangeLanes> lanes_;
    double setup_s_ = 0;
    std::vector<std::pair<std::string, double>> setup_phases_;
    std::vector<std::vector<EpochTimes>> epoch_table_;
};

}  // namespace arbolito
