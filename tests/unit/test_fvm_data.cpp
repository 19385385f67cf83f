// build_fvm's hand-over of the per-CV electrical arrays (FvmElectricalTaker) and what a
// GPU group frees once its device holds it (release_device_owned): the taker sees the
// arrays final and no instance yet, and the rest of FvmData is what a build without a
// taker makes, bit for bit.
#include <vector>

#include <gtest/gtest.h>

#include "lowered_cell/cell_group.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "mechanisms/catalogue.hpp"
#include "model/network_builders.hpp"
#include "solvers/fine_layout.hpp"

using namespace arbolito;

namespace {

// Busyring cells with 3 connected and 5 unconnected synapses each, in gpu-fine's numbering
// (re-rooted cells; unsorted, so that levels are padded): a numbering of the group that
// takes the arrays.
Model ring() {
    Model m;
    BusyringNetwork p;
    p.num_cells = 6;
    p.synapses = 3;
    p.unconnected_synapses = 5;
    p.min_delay = 5;
    p.ring_size = 3;
    p.record = true;
    p.cell.depth = 4;
    build_busyring(m, p);
    return m;
}

FvmData build(const Model& m, const FvmElectricalTaker& take = {}) {
    FineOptions o;
    o.block_cvs = 300;
    o.sort = false;
    return build_fvm(
        m, 0, m.cells.size(), [&](const std::vector<std::vector<int>>& np) { return fine_layout(np, o).layout; }, take);
}

TEST(FvmData, ElectricalArraysHandedOverBeforeTheInstances) {
    const Model m = ring();
    const FvmData ref = build(m);
    ASSERT_GT(ref.layout.padding.size(), 0u);
    bool taken = false;
    const FvmData f = build(m, [&](FvmData& g) {
        taken = true;
        EXPECT_EQ(g.cap, ref.cap);
        EXPECT_EQ(g.g_parent, ref.g_parent);
        EXPECT_EQ(g.g_sum, ref.g_sum);
        for (const MechInstances& mi : g.mechs) EXPECT_EQ(mi.size(), 0);
        EXPECT_TRUE(g.target_mech.empty());
        g.cap.clear();
        g.g_parent.clear();
        g.g_sum.clear();
    });
    ASSERT_TRUE(taken);
    EXPECT_TRUE(f.cap.empty() && f.g_parent.empty() && f.g_sum.empty());
    EXPECT_EQ(f.v_init, ref.v_init);
    EXPECT_EQ(f.layout.parent, ref.layout.parent);
    EXPECT_EQ(f.layout.index, ref.layout.index);
    for (int x = 0; x < n_mechanisms; ++x) {
        EXPECT_EQ(f.mechs[x].cv, ref.mechs[x].cv);
        EXPECT_EQ(f.mechs[x].weight, ref.mechs[x].weight);
        EXPECT_EQ(f.mechs[x].params, ref.mechs[x].params);
    }
    EXPECT_EQ(f.target_offset, ref.target_offset);
    EXPECT_EQ(f.target_mech, ref.target_mech);
    EXPECT_EQ(f.target_instance, ref.target_instance);
    EXPECT_EQ(f.detector_cv, ref.detector_cv);
    EXPECT_EQ(f.probe_cv, ref.probe_cv);
}

// Every CV of a cell starts at its cell's v_init, padding at 0; density instances carry
// their weights, point instances none (theirs is 1); every synapse target leads to an
// instance on its own cell's CVs.
TEST(FvmData, InitialVoltagesWeightsAndTargets) {
    const Model m = ring();
    const FvmData f = build(m);
    std::vector<int> owner(f.n_cv(), -1);
    for (int c = 0; c < f.n_cells(); ++c)
        for (int L : f.layout.index[c]) {
            owner[L] = c;
            EXPECT_EQ(f.v_init[L], m.cells[f.gids[c]].v_init);
        }
    for (int L : f.layout.padding) EXPECT_EQ(f.v_init[L], 0.0);
    for (const MechInfo& mi : mechanism_infos()) {
        const MechInstances& in = f.mechs[mi.index];
        if (mi.kind == MechKind::density) EXPECT_EQ(in.weight.size(), in.cv.size()) << mi.name;
        else EXPECT_TRUE(in.weight.empty()) << mi.name;
    }
    ASSERT_EQ(f.target_mech.size(), f.target_offset.back());
    for (int c = 0; c < f.n_cells(); ++c)
        for (auto t = f.target_offset[c]; t < f.target_offset[c + 1]; ++t) {
            const MechInstances& in = f.mechs[f.target_mech[t]];
            ASSERT_LT(f.target_instance[t], in.size());
            EXPECT_EQ(owner[in.cv[f.target_instance[t]]], c);
        }
}

// pas (constant terms) folded into the assembly's terms: each instance's w·g added to its
// CV's d_base and w·g·e the CV's rhs_base, once; every other CV, padding too, as it was,
// its rhs_base 0.
TEST(FvmData, ConstantTermsFoldedOncePerInstance) {
    FvmData f = build(ring());
    AssemblyTerms t = take_assembly_terms(f, 0.025);
    const std::vector<double> before = t.d_base;
    const std::vector<double> rhs_base = fold_constant_currents(f, t.d_base);
    ASSERT_EQ(rhs_base.size(), before.size());
    const MechInstances& pas_in = f.mechs[find_mechanism("pas")->index];
    ASSERT_GT(pas_in.size(), 0);
    std::vector<int> seen(before.size(), 0);
    for (int k = 0; k < pas_in.size(); ++k) {
        const int c = pas_in.cv[k];
        ++seen[c];
        const double dd = pas_in.weight[k] * pas_in.param(pas::g, k);
        EXPECT_EQ(t.d_base[c], before[c] + dd) << k;
        EXPECT_EQ(rhs_base[c], dd * pas_in.param(pas::e, k)) << k;
    }
    for (std::size_t c = 0; c < seen.size(); ++c) {
        EXPECT_LE(seen[c], 1) << c;
        if (seen[c] == 0) {
            EXPECT_EQ(t.d_base[c], before[c]) << c;
            EXPECT_EQ(rhs_base[c], 0.0) << c;
        }
    }
}

TEST(FvmData, DeviceOwnedArraysReleased) {
    FvmData f = build(ring());
    const FvmData ref = f;
    release_device_owned(f);
    EXPECT_TRUE(f.layout.parent.empty());
    for (int x = 0; x < n_mechanisms; ++x) {
        EXPECT_TRUE(f.mechs[x].weight.empty() && f.mechs[x].params.empty());
        EXPECT_EQ(f.mechs[x].cv, ref.mechs[x].cv);  // counts and CVs stay
    }
    EXPECT_EQ(f.layout.index, ref.layout.index);
    EXPECT_EQ(f.target_instance, ref.target_instance);
}

}  // namespace
