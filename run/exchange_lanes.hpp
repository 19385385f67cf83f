#pragma once
// The exchange's per-group work (docs/architecture.md, "The exchange"): turning the
// epoch's gathered spikes into each cell group's events, taking the groups' next epoch
// out of their queues and handing it to them (CellGroup::prepare). The rank's groups are
// split into lanes of contiguous groups, at most one lane per exchange thread; each lane
// owns the connections onto its groups (a SpikeFanout), their queue (EventBuckets) and
// its share of the exchange's threads, so that the lanes work side by side with no
// barrier between them: one process driving four GPUs builds each GPU's events as one
// MPI rank per GPU does. Every group's events are sorted by StepEvent's order when
// taken, so the vectors are the same bits whatever the lanes and threads.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "lowered_cell/cell_group.hpp"
#include "lowered_cell/spike.hpp"
#include "model/model.hpp"
#include "run/event_buckets.hpp"
#include "run/group_threads.hpp"
#include "run/spike_fanout.hpp"
#include "run/thread_team.hpp"

namespace arbolito {

class ExchangeLanes {
public:
    // The lanes an exchange of n_threads threads gives n_groups groups: one per thread,
    // at most one per group.
    static int lanes_for(int n_groups, int n_threads);

    // group_bounds: each group's first gid, then the rank's gid end (groups in gid order).
    // connections(b, e): the connections onto gids [b, e) (connections_onto), drawn per
    // lane. resolve: a local (gid, synapse) to its group and group-local target.
    ExchangeLanes(const std::vector<std::uint64_t>& group_bounds, int n_threads,
                  const std::function<std::vector<Connection>(std::uint64_t, std::uint64_t)>& connections,
                  const SpikeFanout::Resolve& resolve);
    ~ExchangeLanes();
    ExchangeLanes(const ExchangeLanes&) = delete;
    ExchangeLanes& operator=(const ExchangeLanes&) = delete;

    int n_lanes() const { return static_cast<int>(lanes_.size()); }
    int n_threads() const;  // over all lanes
    std::size_t n_connections() const;
    double max_delay() const { return max_delay_; }

    // Empty queues for a run of n_steps in epochs of epoch_steps (the longest delay sets
    // how far ahead they reach).
    void start_run(long epoch_steps, long n_steps, double dt);
    // Queues an event for group g (generators, before the run's first take).
    void push(int g, const StepEvent& e);
    // The coming epoch's events of every group into out[g] (the run's first epoch).
    void take(std::vector<std::vector<StepEvent>>& out);
    // All lanes side by side, the caller running the first: each queues the events of
    // `spikes` (any order) onto its groups and, where `next` is given, takes its groups'
    // coming epoch into (*next)[g] and calls ready(g) for each of them in gid order.
    // Marks `events queued` and `events taken` per lane at mark_step. Returns the events
    // queued; rethrows the failure of the lowest lane.
    std::size_t deliver(const std::vector<Spike>& spikes, double dt, EventRules rules, long mark_step,
                        std::vector<std::vector<StepEvent>>* next, const std::function<void(int)>& ready);

private:
    struct Lane {
        int first_group = 0, n_groups = 0;
        std::unique_ptr<ThreadTeam> team;
        std::unique_ptr<SpikeFanout> fanout;
        std::unique_ptr<EventBuckets> queue;
        std::vector<std::vector<StepEvent>> taken;  // the lane's groups' epoch, moved out
        std::size_t n_events = 0;                   // of the last deliver
    };
    void take_lane(Lane& l, std::vector<std::vector<StepEvent>>& out);

    std::vector<Lane> lanes_;
    std::vector<int> lane_of_group_;
    std::unique_ptr<GroupThreads> threads_;  // one per lane; the caller is lane 0's
    double max_delay_ = 0;
};

}  // namespace arbolito
