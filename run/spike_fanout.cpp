#include "run/spike_fanout.hpp"

#include <algorithm>
#include <memory>

#include <omp.h>

#include "run/decomposition.hpp"
#include "model/event_rules.hpp"
#include "core/parallel_for.hpp"

namespace arbolito {

namespace {
bool key_less(std::uint64_t ga, std::uint32_t da, std::uint64_t gb, std::uint32_t db) {
    return ga != gb ? ga < gb : da < db;
}
}  // namespace

SpikeFanout::SpikeFanout(const std::vector<Connection>& all, std::uint64_t gid_begin, std::uint64_t gid_end,
                         int n_parts, const Resolve& resolve) {
    n_parts = std::clamp(n_parts, 1, 255);  // a part's number fits a byte
    parts_.resize(n_parts);
    const std::uint64_t n_local = gid_end - gid_begin;
    const std::size_t n_all = all.size();
    auto local = [&](std::uint64_t t) { return t >= gid_begin && t < gid_end; };

    // Built on all OpenMP threads (busyring's 32.8 M connections: 22 s on the one exchange
    // thread at 32,768 cells), in blocks whose results go to their own slots, so that
    // every thread count builds the same tables. Maxima are exact in any order.
    std::uint64_t n_sources = 0;  // sources are gids below this
    std::uint32_t max_detector = 0;
    double max_delay = 0;
#pragma omp parallel for reduction(max : n_sources, max_detector, max_delay) schedule(static)
    for (std::size_t i = 0; i < n_all; ++i) {
        const Connection& c = all[i];
        n_sources = std::max(n_sources, c.source + 1);
        max_detector = std::max(max_detector, c.detector);
        if (local(c.target)) max_delay = std::max(max_delay, c.delay);
    }
    max_delay_ = max_delay;

    // Per block of connections: its local connections per source and per target (at most
    // as many counters in all as connections).
    const long n_blocks = std::clamp<long>(static_cast<long>(n_all / (n_sources + n_local + 1)), 1, omp_get_max_threads());
    auto block_begin = [&](long b) { return n_all * b / n_blocks; };
    std::vector<std::vector<std::size_t>> from_source(n_blocks), into_target(n_blocks);
    parallel_for(n_blocks, 1, [&](long b) {
        from_source[b].assign(n_sources, 0);
        into_target[b].assign(n_local, 0);
        for (std::size_t i = block_begin(b); i < block_begin(b + 1); ++i)
            if (local(all[i].target)) ++from_source[b][all[i].source], ++into_target[b][all[i].target - gid_begin];
    });

    // Parts: contiguous target ranges with about equal numbers of incoming connections.
    std::vector<double> in_degree(n_local, 0.0);
    for (long b = 0; b < n_blocks; ++b)
        for (std::uint64_t t = 0; t < n_local; ++t) in_degree[t] += static_cast<double>(into_target[b][t]);
    std::vector<std::vector<std::size_t>>().swap(into_target);
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
    // Block b's entries of a source follow those of blocks before it: the serial order.
    std::vector<std::size_t> first(n_sources + 1, 0);  // of each source's entries in `order`
    for (std::uint64_t g = 0; g < n_sources; ++g) {
        std::size_t at = first[g];
        for (long b = 0; b < n_blocks; ++b) std::swap(at, from_source[b][g]), at += from_source[b][g];
        first[g + 1] = at;
    }
    const std::size_t n_kept = first[n_sources];
    // Written in parallel before read: not zeroed first (0.3 GB of pages on one thread).
    const std::unique_ptr<std::size_t[]> order(new std::size_t[std::max<std::size_t>(1, n_kept)]);
    const std::unique_ptr<std::uint8_t[]> part(new std::uint8_t[std::max<std::size_t>(1, n_kept)]);
    parallel_for(n_blocks, 1, [&](long b) {
        std::vector<std::size_t>& at = from_source[b];
        for (std::size_t i = block_begin(b); i < block_begin(b + 1); ++i) {
            const std::uint64_t t = all[i].target;
            if (!local(t)) continue;
            const std::size_t k = at[all[i].source]++;
            order[k] = i;
            part[k] = static_cast<std::uint8_t>(part_of(t));
        }
    });
    std::vector<std::vector<std::size_t>>().swap(from_source);
    if (max_detector > 0) {  // sources with several detectors: their entries by detector
        parallel_for(static_cast<long>(n_sources), 64, [&](long g) {
            std::vector<std::size_t> k(first[g + 1] - first[g]);
            for (std::size_t j = 0; j < k.size(); ++j) k[j] = first[g] + j;
            std::stable_sort(k.begin(), k.end(), [&](std::size_t x, std::size_t y) {
                return all[order[x]].detector < all[order[y]].detector;
            });
            std::vector<std::size_t> o(k.size());
            std::vector<std::uint8_t> q(k.size());
            for (std::size_t j = 0; j < k.size(); ++j) o[j] = order[k[j]], q[j] = part[k[j]];
            std::copy(o.begin(), o.end(), order.get() + first[g]);
            std::copy(q.begin(), q.end(), part.get() + first[g]);
        });
    }

    // Per part: its edges in that order, and the index of its sources. Spans of `order`
    // that begin at a source's first entry (a source never straddles two) count their
    // edges and sources per part, then write them from their offsets.
    const long n_spans = std::max<long>(1, std::min<long>(static_cast<long>(n_sources), 8L * omp_get_max_threads()));
    std::vector<std::uint64_t> span_source(n_spans + 1);  // span s: sources [span_source[s], span_source[s + 1])
    for (long s = 0; s <= n_spans; ++s)
        span_source[s] = std::lower_bound(first.begin(), first.end(), n_kept * s / n_spans) - first.begin();
    span_source[n_spans] = n_sources;
    // Per span and part: edges and keys, then (after the prefix sums) where they start.
    std::vector<std::size_t> n_edges(static_cast<std::size_t>(n_spans) * n_parts, 0), n_keys(n_edges.size(), 0);
    // Calls on_entry(part, source, detector, entry, new key?) in order; the counting walk
    // reads no connection where every detector is 0 (the reads are random: a second).
    auto walk = [&](long s, bool read, auto&& on_entry) {
        std::vector<char> seen(n_parts, 0);  // the part has had an entry in this span
        std::vector<Key> last(n_parts);
        for (std::uint64_t g = span_source[s]; g < span_source[s + 1]; ++g)
            for (std::size_t k = first[g]; k < first[g + 1]; ++k) {
                constexpr std::size_t ahead = 16;  // the connections are read out of order: fetch ahead
                if (read && k + ahead < n_kept) __builtin_prefetch(&all[order[k + ahead]]);
                const int p = part[k];
                const std::uint32_t d = max_detector > 0 ? all[order[k]].detector : 0;
                const bool new_key = !seen[p] || last[p].gid != g || last[p].detector != d;
                seen[p] = 1;
                last[p] = {g, d};
                on_entry(p, g, d, k, new_key);
            }
    };
    parallel_for(n_spans, 1, [&](long s) {
        walk(s, false, [&](int p, std::uint64_t, std::uint32_t, std::size_t, bool new_key) {
            ++n_edges[s * n_parts + p];
            n_keys[s * n_parts + p] += new_key;
        });
    });
    for (int p = 0; p < n_parts; ++p) {
        std::size_t e = 0, k = 0;
        for (long s = 0; s < n_spans; ++s) {
            std::swap(e, n_edges[s * n_parts + p]), e += n_edges[s * n_parts + p];
            std::swap(k, n_keys[s * n_parts + p]), k += n_keys[s * n_parts + p];
        }
        Part& pt = parts_[p];
        pt.n_edges = e;
        pt.edges.reset(new Edge[std::max<std::size_t>(1, e)]);
        pt.keys.resize(k);
        pt.first.resize(k + 1);
        pt.first[k] = e;
    }
    parallel_for(n_spans, 1, [&](long s) {
        std::size_t* edge_at = &n_edges[s * n_parts];
        std::size_t* key_at = &n_keys[s * n_parts];
        walk(s, true, [&](int p, std::uint64_t g, std::uint32_t d, std::size_t k, bool new_key) {
            Part& pt = parts_[p];
            const Connection& x = all[order[k]];
            if (new_key) {
                pt.keys[key_at[p]] = {g, d};
                pt.first[key_at[p]++] = edge_at[p];
            }
            const Target t = resolve(x.target, x.synapse);
            pt.edges[edge_at[p]++] = {t.target, t.group, x.weight, x.delay};
        });
    });
}

std::size_t SpikeFanout::size() const {
    std::size_t n = 0;
    for (const auto& p : parts_) n += p.n_edges;
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
