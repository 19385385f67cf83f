#pragma once
// The events waiting for delivery, bucketed by the epoch they fall in (docs/mpi.md). A ring
// of per-epoch buckets spans the longest connection delay, so queuing an event is one
// push_back and taking an epoch's events touches only that epoch's; events further
// ahead (explicit generator times) wait in a far list until their epoch comes. Several
// writers may push at once, each into its own buckets; taking an epoch merges them and
// sorts by StepEvent's order, the same vectors whatever the number of writers.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "lowered_cell/cell_group.hpp"
#include "run/thread_team.hpp"

namespace arbolito {

class EventBuckets {
public:
    // Epoch k covers steps [k·epoch_steps, (k+1)·epoch_steps) ∩ [0, n_steps); events at
    // n_steps or later are never delivered and are dropped. horizon_steps: how far past
    // the current epoch routine pushes reach (the longest delay, in steps).
    EventBuckets(int n_groups, long epoch_steps, long n_steps, long horizon_steps, int n_writers);

    // Queues e for cell group g through writer w. Calls for one writer must not overlap;
    // calls for different writers may. e must not be due before the epoch take() hands
    // out next: every connection delay spans at least two epochs (an epoch is half the
    // shortest delay), and the groups deliver an event only at its own step. (Such an
    // event would be kept in that epoch's bucket, not dropped, but never delivered.)
    void push(int w, int g, const StepEvent& e) {
        if (e.step >= n_steps_) return;
        const long k = std::max(e.step / epoch_steps_, next_);
        if (k - next_ >= n_slots_) {
            far_new_[w].push_back({g, e});
            return;
        }
        bucket(w, k % n_slots_, g).push_back(e);
    }

    // Moves the events of the next epoch into out[g] (one vector per group, sorted)
    // and advances to the following epoch. The team spreads the merge and sort.
    void take(std::vector<std::vector<StepEvent>>& out, ThreadTeam& team);

private:
    struct Far {
        int group;
        StepEvent event;
    };
    std::vector<StepEvent>& bucket(int w, long slot, int g) {
        return buckets_[(static_cast<std::size_t>(w) * n_slots_ + slot) * n_groups_ + g];
    }
    int bin_of(long step, long begin) const;

    int n_groups_, n_writers_;
    long epoch_steps_, n_steps_, n_slots_;
    int n_bins_;  // sort bins per epoch and group: ranges of steps, sorted independently
    long next_ = 0;
    std::vector<std::vector<StepEvent>> buckets_;  // [writer][slot][group]
    std::vector<std::vector<Far>> far_new_;        // per writer, since the last take
    std::vector<Far> far_;                         // descending by step: due ones at the back
    std::vector<std::size_t> at_;                  // [group][writer][bin]: counts, then write positions
    std::vector<std::size_t> bin_begin_;           // [group][bin + 1]: bin ranges in out[group]
};

}  // namespace arbolito
