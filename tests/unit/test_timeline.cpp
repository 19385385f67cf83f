// The run's timeline (--timeline, run/timeline.hpp): off until started, one thread
// number per marking thread, and in a whole run each epoch's update and exchange marks in
// the order the epoch loop makes them.
#include <cmath>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "parareal/parareal.hpp"  // RecordedRun: a record in memory
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

}  // namespace
}  // namespace arbolito
