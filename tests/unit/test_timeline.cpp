// The run's timeline (--timeline, run/timeline.hpp): off until started, one thread
// number per marking thread, and in a whole run each epoch's update and exchange marks in
// the order the epoch loop makes them.
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "parareal/parareal.hpp"  // RecordedRun: a record in memory
#include "run/epoch_times.hpp"
#include "run/exchange_worker.hpp"
#include "run/simulation.hpp"
#include "run/timeline.hpp"
#include "io/model_reader.hpp"

namespace arbolito {
namespace {

std::vector<timeline::Mark> named(const std::vector<timeline::Mark>& all, const std::string& what) {
    std::vector<timeline::Mark> out;
    for (const auto& m : all)
        if (what == m.what) out.push_back(m);
    return out;
}

TEST(Timeline, OffUntilStartedThreadsNumberedInOrderOfFirstMark) {
    timeline::start();
    timeline::stop();
    timeline::mark("before");
    EXPECT_TRUE(timeline::marks().empty());  // off: a mark is not kept
    timeline::start();
    timeline::mark("main", 1);
    std::thread([] { timeline::mark("other", 2); }).join();
    timeline::mark("main again", 3);
    timeline::stop();
    timeline::mark("after");
    const auto m = timeline::marks();
    ASSERT_EQ(m.size(), 3u);
    EXPECT_EQ(m[0].thread, 0);
    EXPECT_EQ(m[1].thread, 1);
    EXPECT_EQ(m[2].thread, 0);
    EXPECT_STREQ(m[1].what, "other");
    EXPECT_EQ(m[1].step, 2);
    EXPECT_LE(m[0].us, m[2].us);

    std::ostringstream csv;
    timeline::write_csv(csv, m);
    std::istringstream lines(csv.str());
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "thread,us,mark,step");
    std::getline(lines, line);
    EXPECT_EQ(line.substr(0, 2), "0,");
    EXPECT_EQ(line.substr(line.size() - 7), ",main,1");

    // A new timeline numbers threads afresh: the main thread first again.
    timeline::start();
    std::thread([] { timeline::mark("first"); }).join();
    timeline::mark("second");
    timeline::stop();
    const auto n = timeline::marks();
    ASSERT_EQ(n.size(), 2u);
    EXPECT_EQ(n[0].thread, 0);
    EXPECT_EQ(n[1].thread, 1);
}

// The ring example, 100 ms. Each epoch: its update begins, ends, then the pipelined
// exchange it overlapped is joined; the exchange during the epoch ending at step e takes
// the events of the epoch from e.
TEST(Timeline, EpochMarksOfAWholeRun) {
    Model m = read_model(std::string(ARBOLITO_SOURCE_DIR) + "/examples/ring.json");
    m.run.tfinal = 100;
    SimOptions o;
    Simulation sim(m, o);
    RecordedRun r;
    r.n_columns = sim.n_columns();
    timeline::start();
    sim.run(r);
    timeline::stop();
    const auto all = timeline::marks();
    ASSERT_FALSE(all.empty());
    EXPECT_STREQ(all.front().what, "run begin");
    EXPECT_STREQ(all.back().what, "run end");
    const auto begin = named(all, "update begin"), end = named(all, "update end"), joined = named(all, "exchange joined");
    const long epoch = sim.epoch_steps(), epochs = (std::lround(m.run.tfinal / m.run.dt) + epoch - 1) / epoch;
    ASSERT_EQ(static_cast<long>(begin.size()), epochs);
    ASSERT_EQ(end.size(), begin.size());
    ASSERT_EQ(joined.size(), begin.size());
    for (long k = 0; k < epochs; ++k) {
        EXPECT_EQ(begin[k].step, k * epoch);
        EXPECT_EQ(end[k].step, k * epoch);
        EXPECT_EQ(joined[k].step, k * epoch);
        EXPECT_EQ(begin[k].thread, 0);
        EXPECT_LE(begin[k].us, end[k].us);
        EXPECT_LE(end[k].us, joined[k].us);
    }
    // One exchange per epoch, then the last one (step 0: no epoch follows).
    const auto taken = named(all, "events taken"), exchanged = named(all, "exchange end");
    EXPECT_EQ(static_cast<long>(exchanged.size()), epochs + 1);
    EXPECT_EQ(static_cast<long>(taken.size()), epochs - 1);
    for (std::size_t k = 0; k < taken.size(); ++k) EXPECT_EQ(taken[k].step, static_cast<long>(k + 1) * epoch);
}

// One worker for every exchange: each task's result in turn, a task's exception rethrown
// by wait(), the worker still there for the next.
TEST(ExchangeWorker, RunsTasksInTurnAndRethrows) {
    ExchangeWorker w;
    std::thread::id first;
    for (int k = 0; k < 50; ++k) {
        std::thread::id here;
        w.start([&here, k] {
            here = std::this_thread::get_id();
            return k % 3 == 0;
        });
        EXPECT_EQ(w.wait(), k % 3 == 0);
        if (k == 0) first = here;
        EXPECT_EQ(here, first);  // the same thread every time
        EXPECT_NE(here, std::this_thread::get_id());
    }
    w.start([]() -> bool { throw std::runtime_error("exchange failed"); });
    EXPECT_THROW(w.wait(), std::runtime_error);
    w.start([] { return true; });
    EXPECT_TRUE(w.wait());
}

// The epoch table of a run on several CPU groups (omp, 2 threads: 4 groups): every epoch
// with each group's integration, and a breakdown whose parts add up to the epochs' time.
TEST(Timeline, EpochTableOfSeveralGroups) {
    Model m = read_model(std::string(ARBOLITO_SOURCE_DIR) + "/examples/ring.json");
    m.run.tfinal = 100;
    SimOptions o;
    o.solver = parse_solver_spec("omp");
    o.threads = 2;
    o.epoch_times = true;
    Simulation sim(m, o);
    ASSERT_GT(sim.n_groups(), 1);
    RecordedRun r;
    r.n_columns = sim.n_columns();
    sim.run(r);
    const auto& table = sim.epoch_table();
    ASSERT_EQ(table.size(), 1u);  // one rank
    const long epoch = sim.epoch_steps(), epochs = (std::lround(m.run.tfinal / m.run.dt) + epoch - 1) / epoch;
    ASSERT_EQ(static_cast<long>(table[0].size()), epochs);
    for (long k = 0; k < epochs; ++k) {
        const EpochTimes& e = table[0][k];
        EXPECT_EQ(e.step, k * epoch);
        ASSERT_EQ(static_cast<int>(e.integrate.size()), sim.n_groups());
        for (double s : e.integrate) {
            EXPECT_GE(s, 0.0);
            EXPECT_LE(s, e.update);  // a group's advance lies within the update
        }
        EXPECT_LE(e.update + e.exposed, e.wall);
    }
    const EpochBreakdown b = epoch_breakdown(table);
    EXPECT_EQ(b.epochs, epochs);
    EXPECT_EQ(b.groups, sim.n_groups());
    EXPECT_GE(b.imbalance, 0.0);
    // The parts are differences of the same sums: they add up to the wall time but for
    // rounding (a few ulps of seconds-sized sums).
    EXPECT_NEAR(b.integrate_mean + b.imbalance + b.update_rest + b.exposed + b.rest, b.wall, 1e-9);
    EXPECT_EQ(describe(b).size(), 7u);
    std::ostringstream csv;
    write_epoch_csv(csv, table);
    std::istringstream lines(csv.str());
    std::string line;
    long n = 0;
    std::getline(lines, line);
    EXPECT_EQ(line, "epoch,step,rank,group,integrate_s,update_s,exposed_s,exchange_s,wall_s");
    while (std::getline(lines, line)) ++n;
    EXPECT_EQ(n, epochs * sim.n_groups());
}

// Without the option the table stays empty (nothing kept per epoch).
TEST(Timeline, NoEpochTableUnlessAsked) {
    Model m = read_model(std::string(ARBOLITO_SOURCE_DIR) + "/examples/ring.json");
    m.run.tfinal = 20;
    Simulation sim(m, SimOptions{});
    RecordedRun r;
    r.n_columns = sim.n_columns();
    sim.run(r);
    EXPECT_TRUE(sim.epoch_table().empty());
}

}  // namespace
}  // namespace arbolito
