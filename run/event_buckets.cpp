#include "run/event_buckets.hpp"

#include <algorithm>

namespace arbolito {

namespace {
// More bins than this per epoch buy no parallelism, only counting work.
constexpr long max_bins = 128;
// A ring longer than this costs memory for nothing: later events go to the far list.
constexpr long max_slots = 1024;
}  // namespace

EventBuckets::EventBuckets(int n_groups, long epoch_steps, long n_steps, long horizon_steps, int n_writers)
    : n_groups_(n_groups), n_writers_(std::max(1, n_writers)), epoch_steps_(std::max(1L, epoch_steps)),
      n_steps_(n_steps) {
    // Pushed while epoch next_−1 runs, an event of a spike from epoch next_−2 is due at
    // most horizon_steps after the end of that epoch, i.e. before epoch next_ + slots.
    n_slots_ = std::min(max_slots, std::max(0L, horizon_steps) / epoch_steps_ + 2);
    n_bins_ = static_cast<int>(std::min(max_bins, epoch_steps_));
    buckets_.resize(static_cast<std::size_t>(n_writers_) * n_slots_ * n_groups_);
    far_new_.resize(n_writers_);
    at_.resize(static_cast<std::size_t>(n_groups_) * n_writers_ * n_bins_);
    bin_begin_.resize(static_cast<std::size_t>(n_groups_) * (n_bins_ + 1));
}

// Bins are contiguous step ranges in step order; an event due before the epoch (pushed
// late) joins the first bin, whose sort puts it first.
int EventBuckets::bin_of(long step, long begin) const {
    const long off = std::clamp(step - begin, 0L, epoch_steps_ - 1);
    return static_cast<int>(off * n_bins_ / epoch_steps_);
}

void EventBuckets::take(std::vector<std::vector<StepEvent>>& out, ThreadTeam& team) {
    const long k = next_, begin = k * epoch_steps_, slot = k % n_slots_;
    const int W = n_writers_, G = n_groups_, B = n_bins_;
    out.resize(G);

    // Far events now due join writer 0's bucket of this epoch. Only the newly arrived ones
    // are sorted, then merged into the list (which stays sorted from epoch to epoch).
    const std::size_t old = far_.size();
    for (auto& f : far_new_) {
        far_.insert(far_.end(), f.begin(), f.end());
        f.clear();
    }
    if (far_.size() > old) {
        const auto later = [](const Far& a, const Far& b) { return a.event.step > b.event.step; };
        std::sort(far_.begin() + old, far_.end(), later);
        std::inplace_merge(far_.begin(), far_.begin() + old, far_.end(), later);
    }
    while (!far_.empty() && far_.back().event.step < begin + epoch_steps_) {
        bucket(0, slot, far_.back().group).push_back(far_.back().event);
        far_.pop_back();
    }

    // Count per (group, writer, bin), lay the bins out in step order (writers side by
    // side within a bin), scatter, then sort each bin: the concatenation is sorted.
    team.run(static_cast<std::size_t>(G) * W, [&](std::size_t t) {
        const int g = static_cast<int>(t / W), w = static_cast<int>(t % W);
        std::size_t* n = &at_[t * B];
        std::fill(n, n + B, 0);
        for (const StepEvent& e : bucket(w, slot, g)) ++n[bin_of(e.step, begin)];
    });
    for (int g = 0; g < G; ++g) {
        std::size_t pos = 0;
        for (int b = 0; b < B; ++b) {
            bin_begin_[g * (B + 1) + b] = pos;
            for (int w = 0; w < W; ++w) {
                std::size_t& n = at_[(static_cast<std::size_t>(g) * W + w) * B + b];
                const std::size_t count = n;
                n = pos;
                pos += count;
            }
        }
        bin_begin_[g * (B + 1) + B] = pos;
        out[g].resize(pos);
    }
    team.run(static_cast<std::size_t>(G) * W, [&](std::size_t t) {
        const int g = static_cast<int>(t / W), w = static_cast<int>(t % W);
        std::size_t* at = &at_[t * B];
        auto& src = bucket(w, slot, g);
        StepEvent* dst = out[g].data();
        for (const StepEvent& e : src) dst[at[bin_of(e.step, begin)]++] = e;
        src.clear();  // keeps its capacity for epoch k + n_slots
    });
    team.run(static_cast<std::size_t>(G) * B, [&](std::size_t t) {
        const std::size_t* r = &bin_begin_[(t / B) * (B + 1) + t % B];
        StepEvent* base = out[t / B].data();
        if (r[1] - r[0] > 1) std::sort(base + r[0], base + r[1]);
    });
    ++next_;
}

}  // namespace arbolito
