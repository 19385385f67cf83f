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
    n_parts = std::max(1, n_parts);
    parts_.resize(n_parts);
    // Parts: contiguous target ranges with about equal numbers of incoming connections.
    const std::uint64_t n_local = gid_end - gid_begin;
    std::vector<double> in_degree(n_local, 0.0);
    for (const Connection& c : all)
        if (c.target >= gid_begin && c.target < gid_end) {
            in_degree[c.target - gid_begin] += 1;
            max_delay_ = std::max(max_delay_, c.delay);
        }
    std::vector<std::uint64_t> part_first = split_by_weight(in_degree, 0, n_local, n_parts);
    for (auto& f : part_first) f += gid_begin;
    auto part_of = [&](std::uint64_t gid) {
        return static_cast<int>(std::upper_bound(part_first.begin() + 1, part_first.end() - 1, gid) - part_first.begin()) - 1;
    };

    // Split the connection list into chunks, count each chunk's connections per part,
    // then let every chunk write its own slice of every part.
    struct Item {
        Key key;
        Edge edge;
    };
    const std::size_t n_chunks = static_cast<std::size_t>(team.size()), n = all.size();
    auto chunk_range = [&](std::size_t c, std::size_t& b, std::size_t& e) {
        b = n * c / n_chunks;
        e = n * (c + 1) / n_chunks;
    };
    std::vector<std::size_t> at(n_chunks * n_parts, 0);
    team.run(n_chunks, [&](std::size_t c) {
        std::size_t b, e;
        chunk_range(c, b, e);
        for (std::size_t i = b; i < e; ++i)
            if (all[i].target >= gid_begin && all[i].target < gid_end) ++at[c * n_parts + part_of(all[i].target)];
    });
    std::vector<std::vector<Item>> items(n_parts);
    for (int p = 0; p < n_parts; ++p) {
        std::size_t pos = 0;
        for (std::size_t c = 0; c < n_chunks; ++c) {
            const std::size_t count = at[c * n_parts + p];
            at[c * n_parts + p] = pos;
            pos += count;
        }
        items[p].resize(pos);
    }
    team.run(n_chunks, [&](std::size_t c) {
        std::size_t b, e;
        chunk_range(c, b, e);
        for (std::size_t i = b; i < e; ++i) {
            const Connection& x = all[i];
            if (x.target < gid_begin || x.target >= gid_end) continue;
            const int p = part_of(x.target);
            const Target t = resolve(x.target, x.synapse);
            items[p][at[c * n_parts + p]++] = {{x.source, x.detector}, {t.target, t.group, x.weight, x.delay}};
        }
    });
    // Per part: sort by source (the order among one source's edges does not matter, the
    // events are sorted when taken) and index the sources.
    team.run(n_parts, [&](std::size_t p) {
        auto& it = items[p];
        std::sort(it.begin(), it.end(), [](const Item& a, const Item& b) {
            return key_less(a.key.gid, a.key.detector, b.key.gid, b.key.detector);
        });
        Part& part = parts_[p];
        part.edges.reserve(it.size());
        for (std::size_t i = 0; i < it.size(); ++i) {
            if (i == 0 || it[i].key.gid != it[i - 1].key.gid || it[i].key.detector != it[i - 1].key.detector) {
                part.keys.push_back(it[i].key);
                part.first.push_back(i);
            }
            part.edges.push_back(it[i].edge);
        }
        part.first.push_back(it.size());
        std::vector<Item>().swap(it);
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
