// Connections drawn on demand (model/connection_rules.hpp): a model read to run leaves
// busyring's connections to a rule that each rank asks only for its own targets. The rule
// gives each target the connections of the whole list, in the same order, and a run the
// same bits.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/model_reader.hpp"
#include "model/connection_rules.hpp"
#include "model/memory_estimate.hpp"
#include "model/run_settings.hpp"
#include "run/simulation.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;

namespace {

std::string busyring16() { return std::string(ARBOLITO_SOURCE_DIR) + "/tests/data/networks/busyring16_short.json"; }

bool same(const Connection& a, const Connection& b) {
    return a.source == b.source && a.detector == b.detector && a.target == b.target && a.synapse == b.synapse &&
           a.weight == b.weight && a.delay == b.delay;
}

}  // namespace

TEST(ConnectionRules, ReadToRunDrawsOnDemandWhatTheListHolds) {
    const Model listed = read_model(busyring16());
    const Model drawn = read_model(busyring16(), {}, ReadFor::run);
    ASSERT_TRUE(listed.connection_rules.empty());
    ASSERT_EQ(drawn.connection_rules.size(), 1u);
    EXPECT_TRUE(drawn.connections.empty());
    EXPECT_EQ(connection_count(drawn), listed.connections.size());
    EXPECT_EQ(min_connection_delay(drawn), min_connection_delay(listed));
    // Any target range: the list's connections onto it, in the list's order.
    for (auto [b, e] : {std::pair<std::uint64_t, std::uint64_t>{0, 16}, {0, 1}, {5, 11}, {15, 16}, {16, 40}, {3, 3}}) {
        const std::vector<Connection> got = connections_onto(drawn, b, e), want = connections_onto(listed, b, e);
        ASSERT_EQ(got.size(), want.size()) << "targets " << b << " to " << e;
        for (std::size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(same(got[k], want[k])) << "targets " << b << ", " << k;
    }
    Model all = drawn;
    draw_all_connections(all);
    EXPECT_TRUE(all.connection_rules.empty());
    ASSERT_EQ(all.connections.size(), listed.connections.size());
    for (std::size_t k = 0; k < all.connections.size(); ++k) EXPECT_TRUE(same(all.connections[k], listed.connections[k])) << k;
}

TEST(ConnectionRules, RunGivesTheSameBits) {
    const Model listed = read_model(busyring16());
    const Model drawn = read_model(busyring16(), {}, ReadFor::run);
    for (const auto& [solver, threads] : {std::pair<std::string, int>{"cpu", 1}, {"omp", 2}}) {
        const CaptureSink a = run_model(listed, solver, threads, true), b = run_model(drawn, solver, threads, true);
        ASSERT_GT(a.spikes_seen.size(), 10u);
        EXPECT_EQ(a.spikes_seen, b.spikes_seen) << solver;
        EXPECT_TRUE(a.rows == b.rows) << solver;
    }
}

// A rule's delay is checked against dt as the explicit ones are (run_common's
// apply_run_overrides: --dt past busyring's min-delay names the model's key).
TEST(ConnectionRules, DelayShorterThanDtNamesTheKey) {
    const Model m = read_model(busyring16(), {}, ReadFor::run);
    RunSettings r = m.run;
    EXPECT_NO_THROW(validate_rule_delays(r, m.connection_rules));
    r.dt = 6.0;  // min-delay 5
    try {
        validate_rule_delays(r, m.connection_rules);
        FAIL() << "no error";
    } catch (const RunSettingError& e) {
        EXPECT_EQ(e.key, "network.min-delay");
        EXPECT_NE(std::string(e.what()).find("shorter than dt (6)"), std::string::npos) << e.what();
    }
}

// The memory estimate counts drawn connections once for all the ranks of a host: each
// holds the whole list's bytes no more.
TEST(ConnectionRules, EstimateCountsDrawnConnectionsOnce) {
    const ModelSize listed = model_size(read_model(busyring16()));
    const ModelSize drawn = model_size(read_model(busyring16(), {}, ReadFor::run));
    EXPECT_EQ(drawn.connections, listed.connections);
    EXPECT_EQ(drawn.drawn_connections, drawn.connections);
    EXPECT_EQ(listed.drawn_connections, 0.0);
    const double per_connection = sizeof(Connection);
    // One rank: the same bytes, held by the run instead of the model.
    EXPECT_NEAR(estimate_memory(drawn, 1).run_bytes, estimate_memory(listed, 1).run_bytes,
                (listed.connection_slots - listed.connections) * per_connection + 1);
    // Four ranks: the list once, not four times.
    EXPECT_LT(estimate_memory(drawn, 4).run_bytes, estimate_memory(listed, 4).run_bytes - 2.5 * listed.connections * per_connection);
}
