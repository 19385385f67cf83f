#include "engine/spike_fanout.hpp"

#include <algorithm>

#include "engine/decomposition.hpp"
#include "engine/event_rules.hpp"

namespace arbolito {

namespace {
bool key_less(std::uint64_t ga, std::uint32_t da, std::uint64_t gb, std::uint32_t db) {
    return ga != gb ? ga < gb : da < db;
}
}  // namespace

SpikeFanout::SpikeFanout(const std::vector<Connection>& all, std::uint64_t gid_begin, std::uint64_t gid_end,
                         int n_parts, const Resolve& resolve, ThreadTeam& team) {
    n_parts = std::clamp(n_parts, 1, 255);  // a part's number fits a byte
    parts_.resize(n_parts);
    // Parts: contiguous target ranges with about equal numbers of incoming connections.
    const std::uint64_t n_local = gid_end - gid_begin;
    std::vector<double> in_degree(n_local, 0.0);
    std::uint64_t n_sources = 0;  // sources are gids below this
    std::uint32_t max_detector = 0;
    for (const Connection& c : all) {
        n_sources = std::max(n_sources, c.source + 1);
        max_detector = std::max(max_detector, c.detector);
        if (c.target >= gid_begin && c.target < gid_end) {
            in_degree[c.target - gid_begin] += 1;
            max_delay_ = std::max(max_delay_, c.delay);
        }
    }
    std::vector<std::uint64_t> part_first = split_by_weight(in_degree, 0, n_local, n_parts);
    for (auto& f : part_first) f += gid_begin;
    auto part_of = [&](std::uint64_t gid) {
        return static_cast<int>(std::upper_bound(part_first.begin() + 1, part_first.end() - 1, gid) - part_first.begin()) - 1;
    };

    // The local connections in source order, by a stable counting sort on the source gid
    // (then on the detector where a source has several), as indices into `all`: 9 bytes a
    // connection while set up instead of a sorted copy of each (busyring's 32.8 M
    // connections at 32,768 cells: 0.3 GB instead of 1.3 GB). The order among one source's
    // edges does not matter (a step's events are sorted when taken); this one is fixed.
    std::vector<std::size_t> first(n_sources + 1, 0);  // of each source's entries in `order`
    for (const Connection& c : all)
        if (c.target >= gid_begin && c.target < gid_end) ++first[c.source + 1];
    for (std::uint64_t g = 0; g < n_sources; ++g) first[g + 1] += first[g];
    std::vector<std::size_t> order(first[n_sources]);
    std::vector<std::uint8_t> part(order.size());  // the part of each entry (parts <= 255 above)
    {
        std::vector<std::size_t> at(first.begin(), first.end() - 1);
        for (std::size_t i = 0; i < all.size(); ++i) {
            const std::uint64_t t = all[i].target;
            if (t < gid_begin || t >= gid_end) continue;
            const std::size_t k = at[all[i].source]++;
            order[k] = i;
            part[k] = static_cast<std::uint8_t>(part_of(t));
        }
    }
    if (max_detector > 0) {  // sources with several detectors: their entries by detector
        team.run(n_parts, [&](std::size_t p) {
            for (std::uint64_t g = p; g < n_sources; g += n_parts) {
                std::vector<std::size_t> k(static_cast<std::size_t>(first[g + 1] - first[g]));
                for (std::size_t j = 0; j < k.size(); ++j) k[j] = first[g] + j;
                std::stable_sort(k.begin(), k.end(), [&](std::size_t x, std::size_t y) {
                    return all[order[x]].detector < all[order[y]].detector;
                });
                std::vector<std::size_t> o(k.size());
                std::vector<std::uint8_t> q(k.size());
                for (std::size_t j = 0; j < k.size(); ++j) o[j] = order[k[j]], q[j] = part[k[j]];
                std::copy(o.begin(), o.end(), order.begin() + first[g]);
                std::copy(q.begin(), q.end(), part.begin() + first[g]);
            }
        });
    }
    std::vector<std::size_t> size(n_parts, 0);
    for (std::uint8_t q : part) ++size[q];
    // Per part: its edges in that order, and the index of its sources.
    team.run(n_parts, [&](std::size_t p) {
        Part& pt = parts_[p];
        pt.edges.reserve(size[p]);
        constexpr std::size_t ahead = 16;  // the connections are read out of order: fetch ahead
        for (std::size_t k = 0; k < order.size(); ++k) {
            if (k + ahead < order.size() && part[k + ahead] == p) __builtin_prefetch(&all[order[k + ahead]]);
            if (part[k] != p) continue;
            const Connection& x = all[order[k]];
            if (pt.keys.empty() || pt.keys.back().gid != x.source || pt.keys.back().detector != x.detector) {
                pt.keys.push_back({x.source, x.detector});
                pt.first.push_back(pt.edges.size());
            }
            const Target t = resolve(x.target, x.synapse);
            pt.edges.push_back({t.target, t.group, x.weight, x.delay});
        }
        pt.first.push_back(pt.edges.size());
    });
}

std::size_t SpikeFanout::size() const {
    std::size_t n = 0;
    for (const auto& p : parts_) n += p.edges.size();
    return n;
}

std::size_t SpikeFanout::deliver(const std::vector<Spike>& spikes, double dt, EventRules rules, EventBuckets& q,
                                 ThreadTeam& team) {
    team.run(parts_.size(), [&](std::size_t p) {
        Part& part = parts_[p];
        const int w = static_cast<int>(p);
        std::size_t n = 0;
        for (const Spike& s : spikes) {
            const auto k = std::lower_bound(part.keys.begin(), part.keys.end(), s, [](const Key& a, const Spike& b) {
                return key_less(a.gid, a.detector, b.gid, b.source);
            });
            if (k == part.keys.end() || k->gid != s.gid || k->detector != s.source) continue;
            const std::size_t i = k - part.keys.begin();
            for (std::size_t j = part.first[i]; j < part.first[i + 1]; ++j) {
                const Edge& e = part.edges[j];
                const double time = s.time + e.delay;
                q.push(w, e.group, {delivery_step(time, dt, rules), time, e.target, e.weight});
            }
            n += part.first[i + 1] - part.first[i];
        }
        part.n_events = n;
    });
    std::size_t total = 0;
    for (const auto& p : parts_) total += p.n_events;
    return total;
}

}  // namespace arbolito
