#include "run/exchange_lanes.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/free_heap.hpp"
#include "run/timeline.hpp"

namespace arbolito {

int ExchangeLanes::lanes_for(int n_groups, int n_threads) {
    return std::max(1, std::min(n_groups, n_threads));
}

ExchangeLanes::ExchangeLanes(const std::vector<std::uint64_t>& group_bounds, int n_threads,
                             const std::function<std::vector<Connection>(std::uint64_t, std::uint64_t)>& connections,
                             const SpikeFanout::Resolve& resolve) {
    const int ng = std::max(0, static_cast<int>(group_bounds.size()) - 1);
    const int n_lanes = lanes_for(ng, n_threads);
    const int threads = std::max(1, n_threads);
    lanes_.resize(n_lanes);
    lane_of_group_.resize(ng);
    for (int l = 0; l < n_lanes; ++l) {
        Lane& lane = lanes_[l];
        lane.first_group = static_cast<int>(static_cast<long>(ng) * l / n_lanes);
        lane.n_groups = static_cast<int>(static_cast<long>(ng) * (l + 1) / n_lanes) - lane.first_group;
        for (int g = lane.first_group; g < lane.first_group + lane.n_groups; ++g) lane_of_group_[g] = l;
        const int lane_threads = std::max(1, threads / n_lanes + (l < threads % n_lanes ? 1 : 0));
        lane.team = std::make_unique<ThreadTeam>(lane_threads);
        // Only the connections onto the lane's cells, drawn and sorted one lane at a time:
        // the set-up holds one lane's connections at once.
        const std::uint64_t b = ng > 0 ? group_bounds[lane.first_group] : 0;
        const std::uint64_t e = ng > 0 ? group_bounds[lane.first_group + lane.n_groups] : 0;
        const int first = lane.first_group;
        lane.fanout = std::make_unique<SpikeFanout>(connections(b, e), b, e, lane_threads,
                                                    [&resolve, first](std::uint64_t gid, std::uint32_t syn) {
                                                        SpikeFanout::Target t = resolve(gid, syn);
                                                        t.group -= first;
                                                        return t;
                                                    });
        return_free_heap();  // the lane's connections, before the next lane draws its own
        max_delay_ = std::max(max_delay_, lane.fanout->max_delay());
    }
    if (n_lanes > 1) threads_ = std::make_unique<GroupThreads>(n_lanes);
}

ExchangeLanes::~ExchangeLanes() = default;

int ExchangeLanes::n_threads() const {
    int n = 0;
    for (const Lane& l : lanes_) n += l.team->size();
    return n;
}

std::size_t ExchangeLanes::n_connections() const {
    std::size_t n = 0;
    for (const Lane& l : lanes_) n += l.fanout->size();
    return n;
}

void ExchangeLanes::start_run(long epoch_steps, long n_steps, double dt) {
    // The same horizon in every lane: the rank's longest delay.
    const long horizon = static_cast<long>(std::ceil(max_delay_ / dt)) + 1;
    for (Lane& l : lanes_)
        l.queue = std::make_unique<EventBuckets>(l.n_groups, epoch_steps, n_steps, horizon, l.fanout->n_parts());
}

void ExchangeLanes::push(int g, const StepEvent& e) {
    Lane& l = lanes_[lane_of_group_[g]];
    l.queue->push(0, g - l.first_group, e);
}

void ExchangeLanes::take_lane(Lane& l, std::vector<std::vector<StepEvent>>& out) {
    // The lane's groups' vectors lent to its queue (their capacity reused), then returned.
    l.taken.resize(l.n_groups);
    for (int i = 0; i < l.n_groups; ++i) std::swap(l.taken[i], out[l.first_group + i]);
    l.queue->take(l.taken, *l.team);
    for (int i = 0; i < l.n_groups; ++i) std::swap(l.taken[i], out[l.first_group + i]);
}

void ExchangeLanes::take(std::vector<std::vector<StepEvent>>& out) {
    out.resize(lane_of_group_.size());
    for (Lane& l : lanes_) take_lane(l, out);
}

std::size_t ExchangeLanes::deliver(const std::vector<Spike>& spikes, double dt, EventRules rules, long mark_step,
                                   std::vector<std::vector<StepEvent>>* next, const std::function<void(int)>& ready) {
    if (next) next->resize(lane_of_group_.size());
    auto work = [&](int i) {
        Lane& l = lanes_[i];
        l.n_events = l.fanout->deliver(spikes, dt, rules, *l.queue, *l.team);
        timeline::mark("events queued", mark_step);
        if (!next) return;
        take_lane(l, *next);
        timeline::mark("events taken", mark_step);
        for (int g = l.first_group; g < l.first_group + l.n_groups; ++g) ready(g);
    };
    if (threads_)
        threads_->run(work);
    else
        work(0);
    std::size_t n = 0;
    for (const Lane& l : lanes_) n += l.n_events;
    return n;
}

}  // namespace arbolito
