// Coalesced synapses (CvPolicy::coalesce_synapses, Arbor's default): instances of a linear
// synapse with equal parameters on one CV become one; targets keep their numbers and lead
// to the shared instance, events are keyed by its first target. What the instances are,
// that busyring's runs keep every bit, and that events on a shared instance agree with
// separate instances up to the order of the sums.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "mechanisms/catalogue.hpp"
#include "model/cell_builders.hpp"
#include "parareal/parareal.hpp"
#include "solvers/layout.hpp"
#include "tests/support/same_bits.hpp"
#include "tests/support/test_util.hpp"
#include "tests/support/whole_run_models.hpp"

using namespace arbolito;
using test_support::expect_same_bits;

namespace {

// A ball-and-stick cell of n CVs a branch (nseg), coalescing or not, no mechanism yet.
CellDesc ball_and_stick_cell(const std::shared_ptr<Morphology>& shape, int n, bool coalesce) {
    CellDesc c;
    c.morphology = shape;
    c.policy.kind = CvPolicy::nseg;
    c.policy.n = n;
    c.policy.coalesce_synapses = coalesce;
    c.cm[-1] = 1.0;
    c.ra[-1] = 100.0;
    return c;
}

// Two ball-and-stick cells (dendrite of 4 CVs); on each, synapses 0-5:
// 0, 1, 5 expsyn defaults at the dendrite's middle; 2 expsyn tau 5 there; 3 exp2syn there;
// 4 expsyn defaults at the dendrite's end; and two equal iclamps on the soma.
Model six_synapses(bool coalesce) {
    Model m;
    auto shape = std::make_shared<Morphology>(ball_and_stick(12.6157, 200, 0.5));
    for (int k = 0; k < 2; ++k) {
        CellDesc c = ball_and_stick_cell(shape, 4, coalesce);
        c.paints.push_back({tag_dend, "pas", resolve_params("pas", {})});
        const Location mid{1, 0.4}, tip{1, 0.9};
        c.synapses.push_back({mid, "expsyn", resolve_params("expsyn", {})});
        c.synapses.push_back({mid, "expsyn", resolve_params("expsyn", {})});
        c.synapses.push_back({mid, "expsyn", resolve_params("expsyn", {{"tau", 5.0}})});
        c.synapses.push_back({mid, "exp2syn", resolve_params("exp2syn", {})});
        c.synapses.push_back({tip, "expsyn", resolve_params("expsyn", {})});
        c.synapses.push_back({mid, "expsyn", resolve_params("expsyn", {})});
        for (int s = 0; s < 2; ++s) c.stimuli.push_back({{0, 0.5}, "iclamp", {1.0, 2.0, 0.1}});
        m.cells.push_back(c);
    }
    return m;
}

FvmData build(const Model& m) {
    return build_fvm(m, 0, m.cells.size(),
                     [](const std::vector<std::vector<int>>& np) { return contiguous_layout(np); });
}

}  // namespace

// Per cell: synapses 0, 1 and 5 share an instance; 2 (other parameters), 3 (another
// mechanism), 4 (another CV) and the iclamps (not synapses) keep their own. Keys: each
// target's first target of its instance. Without coalescing nothing is shared, no keys.
TEST(CoalescedSynapses, InstancesPerCvAndParameters) {
    const FvmData f = build(six_synapses(true));
    const int expsyn_x = find_mechanism("expsyn")->index, exp2syn_x = find_mechanism("exp2syn")->index,
              iclamp_x = find_mechanism("iclamp")->index;
    EXPECT_EQ(f.mechs[expsyn_x].size(), 2 * 3);
    EXPECT_EQ(f.mechs[exp2syn_x].size(), 2);
    EXPECT_EQ(f.mechs[iclamp_x].size(), 2 * 2);
    for (int c = 0; c < 2; ++c) {
        const std::uint32_t t0 = f.target_offset[c];
        auto inst = [&](int s) { return f.target_instance[t0 + s]; };
        EXPECT_EQ(inst(0), inst(1));
        EXPECT_EQ(inst(0), inst(5));
        EXPECT_NE(inst(0), inst(2));
        EXPECT_NE(inst(0), inst(4));
        EXPECT_EQ(f.mechs[expsyn_x].param(0, inst(2)), 5.0);  // tau
        const std::vector<std::uint32_t> key = {t0, t0, t0 + 2, t0 + 3, t0 + 4, t0};
        for (int s = 0; s < 6; ++s) {
            EXPECT_EQ(f.target_key[t0 + s], key[s]) << "cell " << c << " synapse " << s;
            EXPECT_EQ(f.event_target(c, s), key[s]);
        }
    }
    // Instances on a CV in order of their first synapse: 0's, then 2's.
    EXPECT_LT(f.target_instance[0], f.target_instance[2]);

    const FvmData apart = build(six_synapses(false));
    EXPECT_EQ(apart.mechs[expsyn_x].size(), 2 * 5);
    EXPECT_TRUE(apart.target_key.empty());
    EXPECT_EQ(apart.event_target(1, 5), apart.target_offset[1] + 5);
}

// Busyring's 1,000 unconnected expsyn a cell and its connected one coalesce to about three
// quarters of the instances; only the connected one takes events (and it is its instance's
// first target), so the terms left out were exact zeros: the same bits on every CPU solver.
TEST(CoalescedSynapses, BusyringKeepsEveryBit) {
    const std::vector<std::string> small = {"network.num-cells=32", "network.depth=6", "network.record=true",
                                            "network.duration=50"};
    std::vector<std::string> apart_keys = small;
    apart_keys.push_back("network.coalesce-synapses=false");
    const Model coalesced = read_model(test_models::source_path("examples/busyring.json"), small);
    const Model apart = read_model(test_models::source_path("examples/busyring.json"), apart_keys);
    ASSERT_TRUE(coalesced.cells[0].policy.coalesce_synapses);  // the builder's default, Arbor's
    ASSERT_FALSE(apart.cells[0].policy.coalesce_synapses);
    const FvmData f = build(coalesced);
    const int expsyn_x = find_mechanism("expsyn")->index;
    EXPECT_LT(f.mechs[expsyn_x].size(), 0.9 * static_cast<double>(f.target_instance.size()));
    EXPECT_EQ(build(apart).mechs[expsyn_x].size(), static_cast<int>(f.target_instance.size()));
    for (const test_support::CpuVariant v : test_support::cpu_variants) {
        const CaptureSink a = run_model(apart, v.solver, v.threads);
        ASSERT_GT(a.spikes_seen.size(), 32u) << v.solver;
        expect_same_bits(run_model(coalesced, v.solver, v.threads), a, v.solver);
    }
}

// Events on two synapses of one instance in the same steps (mixed_model's coalesced form):
// every CPU solver gives the same bits (events keyed by the instance's first target, sorted
// the same everywhere), and the run agrees with separate instances up to the order of the
// sums on a CV: the same spikes, traces within 1e-8 mV (measured 1.2e-9). The bound is what
// another rounding order moves this model: its stiff CVs amplify rounding, and FMA
// contraction alone moves it 1.1e-8 mV (tests/unit/test_gpu_cell_group.cu, mixed_tol).
TEST(CoalescedSynapses, SharedInstanceTakesEveryEvent) {
    const Model coalesced = test_models::mixed_model(true, 1.0, 40, true);
    Model apart = coalesced;
    for (CellDesc& c : apart.cells) c.policy.coalesce_synapses = false;
    const CaptureSink ref = run_model(coalesced, "cpu:lanes=1", 1);
    ASSERT_GT(ref.spikes_seen.size(), 10u);
    expect_same_bits(run_model(coalesced, "cpu", 1), ref, "cpu");
    expect_same_bits(run_model(coalesced, "omp", 2), ref, "omp");
    const CaptureSink sep = run_model(apart, "cpu:lanes=1", 1);
    ASSERT_EQ(sep.spikes_seen.size(), ref.spikes_seen.size());
    for (std::size_t k = 0; k < ref.spikes_seen.size(); ++k) {
        EXPECT_EQ(sep.spikes_seen[k].gid, ref.spikes_seen[k].gid);
        EXPECT_NEAR(sep.spikes_seen[k].time, ref.spikes_seen[k].time, 1e-9);
    }
    ASSERT_EQ(sep.rows.size(), ref.rows.size());
    double most = 0;
    for (std::size_t k = 0; k < ref.rows.size(); ++k) most = std::max(most, std::fabs(sep.rows[k] - ref.rows[k]));
    EXPECT_LT(most, 1e-8) << "mV";
    // The generators on the stacked synapses reach the cells: without them the traces move.
    Model quiet = coalesced;
    quiet.generators.erase(std::remove_if(quiet.generators.begin(), quiet.generators.end(),
                                          [](const Generator& g) { return g.synapse > 2; }),
                           quiet.generators.end());
    const CaptureSink q = run_model(quiet, "cpu:lanes=1", 1);
    double moved = 0;
    for (std::size_t k = 0; k < ref.rows.size(); ++k) moved = std::max(moved, std::fabs(q.rows[k] - ref.rows[k]));
    EXPECT_GT(moved, 0.01) << "mV";
}

TEST(CoalescedSynapses, ReaderKeys) {
    const std::string cell = R"({"cells": [{"morphology": {"builder": "ball_and_stick"},
                                  "discretization": {"policy": "nseg", "n": 3, "coalesce_synapses": VALUE}}]})";
    auto with = [&](const std::string& v) {
        std::string t = cell;
        t.replace(t.find("VALUE"), 5, v);
        return t;
    };
    EXPECT_TRUE(parse_model(with("true"), "m.json").cells[0].policy.coalesce_synapses);
    EXPECT_FALSE(parse_model(with("false"), "m.json").cells[0].policy.coalesce_synapses);
    for (const std::string bad : {"1", "\"yes\""}) {
        try {
            parse_model(with(bad), "m.json");
            ADD_FAILURE() << bad << " accepted";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("coalesce_synapses"), std::string::npos) << e.what();
        }
    }
    const std::string net = R"({"network": {"builder": "busyring", "num-cells": 4, "depth": 4, "coalesce-synapses": false}})";
    EXPECT_FALSE(parse_model(net, "b.json").cells[0].policy.coalesce_synapses);
    try {
        parse_model(R"({"network": {"builder": "busyring", "num-cells": 4, "coalesce-synapses": 0}})", "b.json");
        ADD_FAILURE() << "0 accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("b.json:network.coalesce-synapses: "), std::string::npos) << e.what();
    }
}

// Coarser CVs (parareal's coarse-cvs) would coalesce other synapses than the fine ones, so
// their states could not move synapse by synapse: refused, naming the key.
TEST(CoalescedSynapses, PararealCoarseCvsRefused) {
    PararealSettings p;
    p.slices = 4;
    p.coarse_cvs = 2;
    try {
        check_time_parallel(six_synapses(true), p, false);
        ADD_FAILURE() << "coarse-cvs 2 accepted with coalesced synapses";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("coalesce"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(check_time_parallel(six_synapses(false), p, false));
    p.coarse_cvs = 1;
    EXPECT_NO_THROW(check_time_parallel(six_synapses(true), p, false));
}

// Random placements (three cells, two linear mechanisms and iclamp's stimuli, a few
// parameter sets, many synapses on few CVs), coalesced: every target's instance sits on the
// target's CV with its parameters; no two instances of a mechanism share a CV and
// parameters; a mechanism's instances stay sorted by CV; each key is the first target of
// its instance. Uncoalesced: one instance per synapse.
TEST(CoalescedSynapses, RandomPlacementsKeepTheInvariants) {
    std::mt19937 gen(2026);
    auto shape = std::make_shared<Morphology>(ball_and_stick(12.6157, 200, 0.5));
    const std::vector<std::vector<double>> expsyn_sets = {resolve_params("expsyn", {}),
                                                          resolve_params("expsyn", {{"tau", 3.0}})};
    const std::vector<std::vector<double>> exp2syn_sets = {resolve_params("exp2syn", {}),
                                                           resolve_params("exp2syn", {{"e", -70.0}})};
    std::uniform_int_distribution<int> pick(0, 1), branch(0, 1);
    std::uniform_real_distribution<double> x(0.0, 1.0);
    for (bool coalesce : {true, false}) {
        Model m;
        std::size_t synapses = 0;
        for (int c = 0; c < 3; ++c) {
            CellDesc d = ball_and_stick_cell(shape, 3, coalesce);
            for (int k = 0; k < 60; ++k) {
                const bool two = pick(gen) == 1;
                const auto& sets = two ? exp2syn_sets : expsyn_sets;
                d.synapses.push_back({{branch(gen), x(gen)}, two ? "exp2syn" : "expsyn", sets[pick(gen)]});
            }
            for (int k = 0; k < 5; ++k) d.stimuli.push_back({{1, x(gen)}, "iclamp", {1.0, 2.0, 0.1}});
            synapses += d.synapses.size();
            m.cells.push_back(d);
        }
        const FvmData f = build(m);
        std::size_t instances = 0;
        for (const char* name : {"expsyn", "exp2syn"}) {
            const MechInstances& mi = f.mechs[find_mechanism(name)->index];
            instances += mi.size();
            EXPECT_TRUE(std::is_sorted(mi.cv.begin(), mi.cv.end())) << name;
            for (int a = 0; a < mi.size(); ++a)
                for (int b = a + 1; b < mi.size() && mi.cv[b] == mi.cv[a]; ++b) {
                    bool same = true;
                    for (int j = 0; j < static_cast<int>(find_mechanism(name)->params.size()); ++j)
                        same = same && mi.param(j, a) == mi.param(j, b);
                    EXPECT_FALSE(coalesce && same) << name << " instances " << a << " and " << b;
                }
        }
        EXPECT_EQ(f.mechs[find_mechanism("iclamp")->index].size(), 3 * 5);
        if (!coalesce) {
            EXPECT_EQ(instances, synapses);
            EXPECT_TRUE(f.target_key.empty());
            continue;
        }
        EXPECT_LT(instances, synapses);
        ASSERT_EQ(f.target_key.size(), synapses);
        for (int c = 0; c < 3; ++c) {
            const CellDesc& d = m.cells[c];
            const CellCvs cvs = discretize_cell(d);
            for (std::uint32_t s = 0; s < d.synapses.size(); ++s) {
                const std::uint32_t t = f.target_offset[c] + s;
                const MechInstances& mi = f.mechs[f.target_mech[t]];
                const int k = f.target_instance[t];
                EXPECT_EQ(mi.cv[k], f.layout.index[c][cvs.locate(d.synapses[s].where.branch, d.synapses[s].where.x)]);
                for (std::size_t j = 0; j < d.synapses[s].params.size(); ++j)
                    EXPECT_EQ(mi.param(static_cast<int>(j), k), d.synapses[s].params[j]);
                const std::uint32_t key = f.target_key[t];
                EXPECT_LE(key, t);
                EXPECT_GE(key, f.target_offset[c]);
                EXPECT_EQ(f.target_mech[key], f.target_mech[t]);
                EXPECT_EQ(f.target_instance[key], k);
                for (std::uint32_t e = f.target_offset[c]; e < key; ++e)
                    EXPECT_FALSE(f.target_mech[e] == f.target_mech[t] && f.target_instance[e] == k) << "target " << t;
            }
        }
    }
}
