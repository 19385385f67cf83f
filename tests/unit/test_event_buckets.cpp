// The exchange's event queue and spike fan-out (run/event_buckets.hpp,
// run/spike_fanout.hpp) against the single sorted queue they replaced, the lanes that
// split them among groups (run/exchange_lanes.hpp), and whole runs
// with several exchange threads, long delays and far-future generator events.
#include <algorithm>
#include <random>

#include <omp.h>

#include <gtest/gtest.h>

#include "run/event_buckets.hpp"
#include "run/exchange_lanes.hpp"
#include "run/record_exchange.hpp"
#include "run/spike_fanout.hpp"
#include "run/thread_team.hpp"
#include "io/model_reader.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

namespace {

// The queue EventBuckets replaced: all pending events of a group in one vector; an
// epoch takes those due before its end and sorts them.
struct PlainQueue {
    std::vector<std::vector<StepEvent>> pending;
    void take(long end, std::vector<std::vector<StepEvent>>& out) {
        out.resize(pending.size());
        for (std::size_t g = 0; g < pending.size(); ++g) {
            auto& p = pending[g];
            const auto mid = std::partition(p.begin(), p.end(), [end](const StepEvent& e) { return e.step < end; });
            out[g].assign(p.begin(), mid);
            p.erase(p.begin(), mid);
            std::sort(out[g].begin(), out[g].end());
        }
    }
};

struct Pushed {
    int writer, group;
    StepEvent e;
};

void expect_same(const std::vector<std::vector<StepEvent>>& a, const std::vector<std::vector<StepEvent>>& b,
                 const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t g = 0; g < a.size(); ++g) {
        ASSERT_EQ(a[g].size(), b[g].size()) << what << ", group " << g;
        for (std::size_t i = 0; i < a[g].size(); ++i) {
            const StepEvent &x = a[g][i], &y = b[g][i];
            EXPECT_TRUE(x.step == y.step && x.time == y.time && x.target == y.target && x.weight == y.weight)
                << what << ", group " << g << ", event " << i;
        }
    }
}

// Random events around `from`: mostly within `reach` steps, some late (before `from`),
// some far ahead (past the ring) and some after the run; few targets and weights, so
// that ties and identical events occur.
std::vector<Pushed> draw(std::mt19937& rng, int writers, int groups, long from, long reach, long n_steps, int n) {
    std::vector<Pushed> v;
    std::uniform_int_distribution<int> w(0, writers - 1), g(0, groups - 1), kind(0, 9), tgt(0, 3), wt(0, 2);
    std::uniform_int_distribution<long> near(0, reach), far(0, 3 * n_steps);
    const double dt = 0.025;
    for (int i = 0; i < n; ++i) {
        const int k = kind(rng);
        long step = k == 0 ? std::max(0L, from - 3) : k == 1 ? far(rng) : from + near(rng);
        const double time = step * dt + (tgt(rng) % 2) * 0.01;
        v.push_back({w(rng), g(rng), {step, time, static_cast<std::uint32_t>(tgt(rng)), 0.1 * wt(rng)}});
    }
    return v;
}

void check_buckets(int writers, int team_size, long epoch, long horizon, long n_steps, unsigned seed) {
    const int groups = 3;
    const std::string what = "writers " + std::to_string(writers) + ", team " + std::to_string(team_size) + ", horizon " +
                             std::to_string(horizon);
    ThreadTeam team(team_size);
    EventBuckets q(groups, epoch, n_steps, horizon, writers);
    PlainQueue ref{std::vector<std::vector<StepEvent>>(groups)};
    std::mt19937 rng(seed);
    auto push = [&](const std::vector<Pushed>& v) {
        // Each writer pushes its own events on the team, as the fan-out does.
        team.run(writers, [&](std::size_t w) {
            for (const Pushed& p : v)
                if (p.writer == static_cast<int>(w)) q.push(p.writer, p.group, p.e);
        });
        for (const Pushed& p : v)
            if (p.e.step < n_steps) ref.pending[p.group].push_back(p.e);
    };
    push(draw(rng, writers, groups, 0, 4 * n_steps, n_steps, 2000));  // generators: anywhere
    std::vector<std::vector<StepEvent>> got, want;
    std::size_t seen = 0;
    for (long k = 0; k * epoch < n_steps; ++k) {
        q.take(got, team);
        ref.take(std::min((k + 1) * epoch, n_steps), want);
        expect_same(got, want, what + ", epoch " + std::to_string(k));
        for (const auto& g : got) seen += g.size();
        push(draw(rng, writers, groups, (k + 1) * epoch, horizon, n_steps, 300));  // spikes' events
    }
    EXPECT_GT(seen, 500u) << what;
}

}  // namespace

TEST(EventBuckets, SameEpochsAsOneSortedQueue) {
    check_buckets(1, 1, 7, 14, 200, 1);
    check_buckets(3, 4, 7, 14, 200, 2);     // more threads than writers
    check_buckets(8, 3, 7, 60, 200, 3);     // more writers than threads, many epochs of delay
    check_buckets(2, 2, 1, 5, 50, 4);       // one step per epoch
    check_buckets(4, 4, 400, 900, 1000, 5); // more steps per epoch than sort bins
}

// Connections onto a rank's two cells split into more parts than cells: the events are
// those of a direct walk over the connections, and each counted once.
TEST(SpikeFanout, MoreWritersThanTargets) {
    std::vector<Connection> all;
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::uint64_t> cell(0, 9);
    std::uniform_real_distribution<double> delay(1.0, 6.0);
    for (int i = 0; i < 200; ++i) {
        const std::uint64_t t = cell(rng);
        all.push_back({cell(rng), static_cast<std::uint32_t>(i % 2), t, static_cast<std::uint32_t>(i % 3), 0.01 * i, delay(rng)});
    }
    const std::uint64_t lo = 4, hi = 6;  // this rank's cells
    auto resolve = [&](std::uint64_t gid, std::uint32_t syn) {
        return SpikeFanout::Target{static_cast<int>(gid - lo), syn};
    };
    ThreadTeam team(3);
    SpikeFanout fan(all, lo, hi, 8, resolve);
    std::size_t local = 0;
    for (const auto& c : all) local += c.target >= lo && c.target < hi;
    EXPECT_EQ(fan.size(), local);
    EXPECT_EQ(fan.n_parts(), 8);

    const double dt = 0.025;
    const long n_steps = 400, epoch = 20;
    EventBuckets q(2, epoch, n_steps, static_cast<long>(6.0 / dt) + 1, fan.n_parts());
    PlainQueue ref{std::vector<std::vector<StepEvent>>(2)};
    std::vector<Spike> spikes;
    for (std::uint64_t g = 0; g < 10; ++g) spikes.push_back({g, static_cast<std::uint32_t>(g % 2), 0.3 + 0.1 * g});
    spikes.push_back({4, 1, 0.75});
    std::size_t expected = 0;
    for (const Spike& s : spikes)
        for (const auto& c : all)
            if (c.source == s.gid && c.detector == s.source && c.target >= lo && c.target < hi) {
                const double t = s.time + c.delay;
                ref.pending[c.target - lo].push_back({delivery_step(t, dt, EventRules::arbor), t, c.synapse, c.weight});
                ++expected;
            }
    EXPECT_EQ(fan.deliver(spikes, dt, EventRules::arbor, q, team), expected);
    std::vector<std::vector<StepEvent>> got, want;
    for (long k = 0; k * epoch < n_steps; ++k) {
        q.take(got, team);
        ref.take((k + 1) * epoch, want);
        expect_same(got, want, "epoch " + std::to_string(k));
    }
}

// The fan-out is built on the OpenMP threads in blocks: 1 and 3 threads (several
// detectors per source, 4 parts, sources spread over blocks) give the same events.
TEST(SpikeFanout, SameOnAnyThreadCount) {
    std::vector<Connection> all;
    std::mt19937 rng(11);
    std::uniform_int_distribution<std::uint64_t> cell(0, 39);
    std::uniform_real_distribution<double> delay(1.0, 6.0);
    for (int i = 0; i < 5000; ++i)
        all.push_back({cell(rng), static_cast<std::uint32_t>(i % 3), cell(rng), static_cast<std::uint32_t>(i % 5),
                       0.001 * i, delay(rng)});
    const std::uint64_t lo = 8, hi = 30;
    auto resolve = [&](std::uint64_t gid, std::uint32_t syn) { return SpikeFanout::Target{static_cast<int>(gid - lo) % 3, syn}; };
    std::vector<Spike> spikes;
    for (std::uint64_t g = 0; g < 40; g += 3) spikes.push_back({g, static_cast<std::uint32_t>(g % 3), 0.1 * g});
    std::vector<std::vector<std::vector<StepEvent>>> runs;
    const int before = omp_get_max_threads();
    for (int threads : {1, 3}) {
        omp_set_num_threads(threads);
        SpikeFanout fan(all, lo, hi, 4, resolve);
        ThreadTeam team(2);
        EventBuckets q(3, 40, 400, static_cast<long>(6.0 / 0.025) + 1, fan.n_parts());
        fan.deliver(spikes, 0.025, EventRules::arbor, q, team);
        std::vector<std::vector<StepEvent>> got, all_got(3);
        for (long k = 0; k * 40 < 400; ++k) {
            q.take(got, team);
            for (int g = 0; g < 3; ++g) all_got[g].insert(all_got[g].end(), got[g].begin(), got[g].end());
        }
        runs.push_back(all_got);
    }
    omp_set_num_threads(before);
    ASSERT_GT(runs[0][0].size(), 0u);
    expect_same(runs[0], runs[1], "1 against 3 threads");
}

// The exchange's lanes (run/exchange_lanes.hpp): 5 groups of unequal sizes, their
// connections (several detectors per source, generators far ahead) split into 1 to 7
// lanes' worth of threads; every epoch hands each group the same events, each group's
// ready() comes once per epoch after its events are taken, in gid order within a lane.
TEST(ExchangeLanes, SameEventsInAnyLanes) {
    EXPECT_EQ(ExchangeLanes::lanes_for(5, 1), 1);
    EXPECT_EQ(ExchangeLanes::lanes_for(5, 3), 3);
    EXPECT_EQ(ExchangeLanes::lanes_for(5, 16), 5);
    EXPECT_EQ(ExchangeLanes::lanes_for(0, 4), 1);
    const std::vector<std::uint64_t> bounds{0, 3, 4, 11, 12, 20};  // 5 groups of 3, 1, 7, 1 and 8 cells
    std::vector<Connection> all;
    std::mt19937 rng(5);
    std::uniform_int_distribution<std::uint64_t> cell(0, 19);
    std::uniform_real_distribution<double> delay(1.0, 9.0);
    for (int i = 0; i < 3000; ++i)
        all.push_back({cell(rng), static_cast<std::uint32_t>(i % 2), cell(rng), static_cast<std::uint32_t>(i % 4),
                       0.001 * (i % 7), delay(rng)});
    auto onto = [&](std::uint64_t b, std::uint64_t e) {
        std::vector<Connection> v;
        for (const Connection& c : all)
            if (c.target >= b && c.target < e) v.push_back(c);
        return v;
    };
    auto resolve = [&](std::uint64_t gid, std::uint32_t syn) {
        const int g = static_cast<int>(std::upper_bound(bounds.begin(), bounds.end(), gid) - bounds.begin()) - 1;
        return SpikeFanout::Target{g, static_cast<std::uint32_t>(gid - bounds[g]) * 4 + syn};
    };
    const double dt = 0.025;
    const long epoch = 20, n_steps = 800;  // delays of 1 ms and more span two epochs
    using Epochs = std::vector<std::vector<std::vector<StepEvent>>>;
    auto run = [&](int threads) {
        ExchangeLanes lanes(bounds, threads, onto, resolve);
        EXPECT_EQ(lanes.n_lanes(), ExchangeLanes::lanes_for(5, threads));
        EXPECT_EQ(lanes.n_threads(), threads);
        EXPECT_EQ(lanes.n_connections(), all.size());
        lanes.start_run(epoch, n_steps, dt);
        for (int g = 0; g < 5; ++g) lanes.push(g, {700 - 30 * g, (700 - 30 * g) * dt, 1, 0.5});  // beyond the ring
        Epochs got;
        std::vector<std::vector<StepEvent>> current, next;
        lanes.take(current);
        got.push_back(current);
        std::mt19937 spikes_rng(9);
        for (long b = 0; b + epoch < n_steps; b += epoch) {
            std::vector<Spike> spikes;  // the epoch's spikes, in the global order
            for (std::uint64_t gid = 0; gid < 20; ++gid)
                if (spikes_rng() % 3 == 0) spikes.push_back({gid, static_cast<std::uint32_t>(gid % 2), (b + gid % 5) * dt});
            std::sort(spikes.begin(), spikes.end(), spike_before);
            std::vector<int> ready(5, 0);
            lanes.deliver(spikes, dt, EventRules::arbor, b + epoch, &next, [&](int g) { ++ready[g]; });
            EXPECT_EQ(ready, std::vector<int>(5, 1)) << threads << " threads, epoch from " << b;
            got.push_back(next);
        }
        return got;
    };
    const Epochs one = run(1);
    std::size_t events = 0;
    for (const auto& e : one)
        for (const auto& g : e) events += g.size();
    ASSERT_GT(events, 1000u);
    for (int threads : {2, 3, 5, 7}) {
        const Epochs several = run(threads);
        ASSERT_EQ(several.size(), one.size());
        for (std::size_t k = 0; k < one.size(); ++k)
            expect_same(several[k], one[k], std::to_string(threads) + " threads, epoch " + std::to_string(k));
    }
}

namespace {

CaptureSink run_with(const Model& m, const std::string& solver, int threads, int exchange_threads, bool pipeline,
                     RunReport* rep = nullptr) {
    SimOptions o;
    o.solver = parse_solver_spec(solver);
    o.threads = threads;
    o.exchange_threads = exchange_threads;
    o.pipeline = pipeline;
    return run_model(m, o, rep, [&](const Simulation& sim) { EXPECT_EQ(sim.exchange_threads(), exchange_threads); });
}

}  // namespace

// The ring with long extra connections (8 epochs of delay and more) and generator events
// far beyond the queue's ring, some after tfinal: every exchange-thread count gives the
// same run, and n_events counts every event queued, delivered or not.
TEST(EventBuckets, RunsWithLongDelaysAndFarGenerators) {
    Model m = read_model(std::string(ARBOLITO_SOURCE_DIR) + "/examples/ring.json");
    for (std::uint64_t i = 0; i < 8; ++i) m.connections.push_back({i, 0, (i + 3) % 8, 0, 0.04, 21.3 + i});
    m.generators.push_back({5, 0, 0.1, {2.0, 48.0125, 71.3, 99.99, 150.0}});
    RunReport r1;
    const CaptureSink ref = run_with(m, "cpu", 1, 1, true, &r1);
    ASSERT_GE(ref.spikes_seen.size(), 20u);
    std::size_t expected = 0;
    for (const auto& g : m.generators) expected += g.times.size();
    for (const Spike& s : ref.spikes_seen)
        for (const auto& c : m.connections) expected += c.source == s.gid && c.detector == s.source;
    EXPECT_EQ(r1.n_events, expected);
    for (int xt : {2, 5, 16}) {
        for (bool pipe : {true, false}) {
            RunReport r;
            const CaptureSink got = run_with(m, "omp", 2, xt, pipe, &r);
            const std::string what = std::to_string(xt) + " exchange threads" + (pipe ? "" : ", no pipeline");
            EXPECT_EQ(r.n_events, r1.n_events) << what;
            ASSERT_EQ(got.spikes_seen.size(), ref.spikes_seen.size()) << what;
            for (std::size_t k = 0; k < got.spikes_seen.size(); ++k)
                EXPECT_TRUE(got.spikes_seen[k] == ref.spikes_seen[k]) << what << ", spike " << k;
            EXPECT_TRUE(got.rows == ref.rows) << what;
        }
    }
}

// The default exchange team (exchange_threads 0): one thread beside a pipelined CPU
// update, the update's own threads when it waits for the exchange (--no-pipeline).
TEST(EventBuckets, DefaultExchangeThreads) {
    const Model m = read_model(std::string(ARBOLITO_SOURCE_DIR) + "/examples/ring.json");
    SimOptions o;
    o.solver = parse_solver_spec("omp");
    o.threads = 2;
    EXPECT_EQ(Simulation(m, o).exchange_threads(), 1);
    o.pipeline = false;
    EXPECT_EQ(Simulation(m, o).exchange_threads(), 2);
    o.solver = parse_solver_spec("cpu");
    o.threads = 1;
    o.pipeline = true;
    EXPECT_EQ(Simulation(m, o).exchange_threads(), 1);
}
