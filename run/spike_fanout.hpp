#pragma once
// The connections onto this rank's cells as the exchange uses them: split by target
// into one part per writer of EventBuckets (balanced by connection count), each part
// sorted by source, so that every part turns the epoch's spikes into the events of its
// own targets on its own thread. Targets are resolved to (group, group-local target)
// once, here, not per event.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "run/event_buckets.hpp"
#include "model/model.hpp"
#include "lowered_cell/spike.hpp"
#include "run/thread_team.hpp"

namespace arbolito {

class SpikeFanout {
public:
    struct Target {
        int group;
        std::uint32_t target;
    };
    // Maps (gid, synapse) of a local cell to its group and group-local target.
    using Resolve = std::function<Target(std::uint64_t gid, std::uint32_t synapse)>;

    // Keeps the connections whose target lies in [gid_begin, gid_end), in n_parts parts.
    // Built on the OpenMP threads, the same on any number of them; resolve is called
    // from several threads at once.
    SpikeFanout(const std::vector<Connection>& all, std::uint64_t gid_begin, std::uint64_t gid_end, int n_parts,
                const Resolve& resolve);

    int n_parts() const { return static_cast<int>(parts_.size()); }
    std::size_t size() const;  // connections kept
    double max_delay() const { return max_delay_; }

    // Queues the events of `spikes` (any order) into q, part p through writer p, and
    // returns how many. q must have n_parts() writers.
    std::size_t deliver(const std::vector<Spike>& spikes, double dt, EventRules rules, EventBuckets& q,
                        ThreadTeam& team);

private:
    struct Key {
        std::uint64_t gid;
        std::uint32_t detector;
    };
    struct Edge {
        std::uint32_t target;
        int group;
        double weight, delay;
    };
    struct Part {
        std::vector<Key> keys;            // distinct sources, ascending
        std::vector<std::size_t> first;   // keys.size() + 1: edges of keys[i]
        std::unique_ptr<Edge[]> edges;    // n_edges (not zeroed before they are written)
        std::size_t n_edges = 0;
        std::size_t n_events = 0;         // of the last deliver
    };
    std::vector<Part> parts_;
    double max_delay_ = 0;
};

}  // namespace arbolito
