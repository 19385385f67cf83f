// Busyring's unconnected synapses (Arbor's ring.cpp places `synapses` expsyn beside the
// connected one, never targeted): where they are drawn, how the reader takes
// network.unconnected-synapses, what the memory estimate counts, and that they change no
// bit of a run on the CPU solvers (GPU: GpuUnconnectedSynapses.ChangeNoBit).
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/cell_builders.hpp"
#include "model/drawn_synapses.hpp"
#include "model/memory_estimate.hpp"
#include "model/network_builders.hpp"
#include "run/simulation.hpp"
#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "tests/support/same_bits.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;
using test_support::expect_same_bits;

namespace {

std::string source_file(const std::string& rel) { return std::string(ARBOLITO_SOURCE_DIR) + "/" + rel; }

// A busyring network of 4 cells with the given extra network keys.
std::string busyring_text(const std::string& extra) {
    return R"({"network": {"builder": "busyring", "num-cells": 4, "synapses": 20, "depth": 4)" +
           (extra.empty() ? "" : ", " + extra) + "}}";
}

}  // namespace

// Site k depends on (seed, k) alone: a longer draw extends a shorter one, the same seed
// gives the same sites, another seed others; every site lies on the cell.
TEST(DrawnSynapses, SitesFromSeedAndIndex) {
    const Morphology m = busyring_cell(3, BusyringParams{});
    DrawnSynapses d{100, 3, "expsyn", {}};
    const std::vector<Location> long_draw = drawn_synapse_sites(d, m);
    d.count = 10;
    const std::vector<Location> short_draw = drawn_synapse_sites(d, m);
    ASSERT_EQ(long_draw.size(), 100u);
    for (std::size_t k = 0; k < short_draw.size(); ++k) {
        EXPECT_EQ(short_draw[k].branch, long_draw[k].branch);
        EXPECT_EQ(short_draw[k].x, long_draw[k].x);
    }
    d.seed = 4;
    const std::vector<Location> other = drawn_synapse_sites(d, m);
    int moved = 0;
    for (std::size_t k = 0; k < other.size(); ++k) moved += other[k].branch != short_draw[k].branch || other[k].x != short_draw[k].x;
    EXPECT_GE(moved, 9);
    for (const Location& l : long_draw) {
        EXPECT_GE(l.branch, 0);
        EXPECT_LT(l.branch, static_cast<int>(m.branches.size()));
        EXPECT_GE(l.x, 0.0);
        EXPECT_LE(l.x, 1.0);
    }
    d.count = 0;
    EXPECT_TRUE(drawn_synapse_sites(d, m).empty());
}

// Uniform in arc length: on a ball and stick (soma 12.6157 µm, dendrite 200 µm) the
// soma's share of n = 200,000 sites is its share of the length, p = 0.05934, and the mean
// x on each branch is 1/2. Bounds: 5 standard deviations of the sample statistic
// (binomial sqrt(p(1 − p)/n) = 5.3e-4; uniform 1/sqrt(12 n_b)), which a correct draw
// exceeds with probability below 1e-6.
TEST(DrawnSynapses, UniformInArcLength) {
    const Morphology m = ball_and_stick(12.6157, 200, 0.5);
    const DrawnSynapses d{200000, 7, "expsyn", {}};
    const std::vector<Location> sites = drawn_synapse_sites(d, m);
    double n_b[2] = {0, 0}, sum_x[2] = {0, 0};
    for (const Location& l : sites) {
        ASSERT_TRUE(l.branch == 0 || l.branch == 1);
        n_b[l.branch] += 1;
        sum_x[l.branch] += l.x;
    }
    const double n = static_cast<double>(sites.size()), p = 12.6157 / 212.6157;
    EXPECT_NEAR(n_b[0] / n, p, 5 * std::sqrt(p * (1 - p) / n));
    for (int b = 0; b < 2; ++b) EXPECT_NEAR(sum_x[b] / n_b[b], 0.5, 5 / std::sqrt(12 * n_b[b])) << "branch " << b;
}

// The key's default is `synapses` (Arbor's model); 0 and other counts as given; each cell
// draws its own sites (seed: its index); the connected synapse stays target 0.
TEST(BusyringSynapses, ReaderKeyAndDefault) {
    const Model arbor = parse_model(busyring_text(""), "b.json");
    ASSERT_EQ(arbor.cells.size(), 4u);
    for (std::size_t g = 0; g < arbor.cells.size(); ++g) {
        const CellDesc& c = arbor.cells[g];
        EXPECT_EQ(c.n_synapses(), 21u);
        EXPECT_EQ(c.synapses.size(), 1u);
        EXPECT_EQ(c.drawn_synapses.count, 20u);
        EXPECT_EQ(c.drawn_synapses.seed, g);
        EXPECT_EQ(c.synapse_mechanism(20), "expsyn");
    }
    for (const Connection& c : arbor.connections) EXPECT_EQ(c.synapse, 0u);
    EXPECT_EQ(parse_model(busyring_text(R"("unconnected-synapses": 0)"), "b.json").cells[0].n_synapses(), 1u);
    EXPECT_EQ(parse_model(busyring_text(R"("unconnected-synapses": 7)"), "b.json").cells[3].n_synapses(), 8u);
    // examples/busyring.json is Arbor's model: 1,000 unconnected synapses a cell.
    const Model ex = read_model(source_file("examples/busyring.json"), {"network.num-cells=2"});
    EXPECT_EQ(ex.cells[1].n_synapses(), 1001u);
}

TEST(BusyringSynapses, BadValuesNamedByKey) {
    for (const std::string v : {"-1", "2.5", "\"many\"", "1000001", "true"}) {
        try {
            parse_model(busyring_text(R"("unconnected-synapses": )" + v), "b.json");
            ADD_FAILURE() << v << " accepted";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("b.json:network.unconnected-synapses: "), std::string::npos) << e.what();
        }
    }
}

// A connection or generator may target a drawn synapse (numbered after the listed one):
// an event on synapse 15 of cell 0 moves its soma's trace.
TEST(BusyringSynapses, DrawnSynapsesAreTargets) {
    const std::string net = R"({"network": {"builder": "busyring", "num-cells": 2, "synapses": 1, "depth": 4,
                                            "record": true, "duration": 10, "unconnected-synapses": 20}})";
    const Model plain = parse_model(net, "b.json");
    const Model kicked = parse_model(net.substr(0, net.size() - 1) +
                                         R"(, "generators": [{"kind": "explicit", "target": 0, "synapse": 15,
                                                               "weight": 0.5, "times": [2.0]}]})",
                                     "b.json");
    EXPECT_THROW(parse_model(net.substr(0, net.size() - 1) +
                                 R"(, "generators": [{"kind": "explicit", "target": 0, "synapse": 21, "weight": 0.5,
                                                       "times": [2.0]}]})",
                             "b.json"),
                 InputError);
    const CaptureSink a = run_model(plain), b = run_model(kicked);
    ASSERT_EQ(a.rows.size(), b.rows.size());
    double most = 0;
    for (std::size_t k = 0; k < a.rows.size(); ++k) most = std::max(most, std::fabs(a.rows[k] - b.rows[k]));
    EXPECT_GT(most, 0.1) << "mV: the event on a drawn synapse did not reach the cell";
}

// The estimate counts every instance: 1,000 unconnected synapses a cell are 1,000
// instances of expsyn's 4 values each and 1,000 targets, in the builder's size and in the
// built model's; 52 bytes each of state (model/memory_estimate.cpp: 4 doubles, a CV
// index, 16 bytes a target).
TEST(BusyringSynapses, MemoryEstimateCountsThem) {
    BusyringNetwork p;
    p.num_cells = 8;
    p.synapses = 1000;
    p.unconnected_synapses = 0;
    const ModelSize none = busyring_size(p);
    Model m0;
    build_busyring(m0, p);
    p.unconnected_synapses.reset();  // `synapses`, Arbor's
    const ModelSize arbor = busyring_size(p);
    Model m1;
    build_busyring(m1, p);
    EXPECT_DOUBLE_EQ(arbor.instances - none.instances, 8 * 1000.0);
    EXPECT_DOUBLE_EQ(arbor.mech_values - none.mech_values, 8 * 1000.0 * 4);
    EXPECT_DOUBLE_EQ(model_size(m1).instances - model_size(m0).instances, 8 * 1000.0);
    EXPECT_DOUBLE_EQ(arbor.targets - none.targets, 8 * 1000.0);
    EXPECT_DOUBLE_EQ(model_size(m1).targets, 8 * 1001.0);
    EXPECT_NEAR(estimate_memory(arbor).state_bytes - estimate_memory(none).state_bytes, 8 * 1000.0 * 52, 1e-3);
}

// Unconnected synapses take no event, so each adds exact zeros to its CV's d and rhs:
// whole runs (32 cells of examples/busyring.json at depth 6, 50 ms, traces) give the same
// bits with and without them, on every CPU solver. A cell's 1,000 sites fall on about 300
// of its CVs, up to 10 on one, but never on the connected synapse's (the zero-area node
// at the soma's end): `crowded` adds 40 more there, so that its one nonzero term is summed
// with zeros too.
TEST(BusyringSynapses, ChangeNoBit) {
    // Each synapse its own instance, so that the zeros are summed (coalesced: test_coalesced_synapses.cpp).
    const std::vector<std::string> small = {"network.num-cells=32", "network.depth=6", "network.record=true",
                                            "network.duration=50", "network.coalesce-synapses=false"};
    std::vector<std::string> none = small;
    none.push_back("network.unconnected-synapses=0");
    const Model with = read_model(source_file("examples/busyring.json"), small);
    const Model without = read_model(source_file("examples/busyring.json"), none);
    Model crowded = with;
    for (CellDesc& c : crowded.cells)
        for (int k = 0; k < 40; ++k) c.synapses.push_back(c.synapses[0]);
    ASSERT_EQ(with.cells[0].n_synapses(), 1001u);
    ASSERT_EQ(without.cells[0].n_synapses(), 1u);
    for (const test_support::CpuVariant v : test_support::cpu_variants) {
        const CaptureSink a = run_model(without, v.solver, v.threads);
        ASSERT_GT(a.spikes_seen.size(), 32u) << v.solver;
        ASSERT_GT(a.n_frames, 400u) << v.solver;
        expect_same_bits(run_model(with, v.solver, v.threads), a, std::string(v.solver) + ", 1,000 unconnected synapses a cell");
        expect_same_bits(run_model(crowded, v.solver, v.threads), a, std::string(v.solver) + ", 40 more on the connected CV");
    }
}
