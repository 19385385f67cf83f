// zero_area fold (model/discretization.hpp): the zero-area nodes with fewer than two
// children and nothing placed on them leave the discretisation, exactly.
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include "io/input_error.hpp"
#include "io/model_reader.hpp"
#include "io/swc.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "mechanisms/catalogue.hpp"
#include "model/cell_builders.hpp"
#include "model/memory_estimate.hpp"
#include "tests/support/test_util.hpp"
#include "tests/support/whole_run_result.hpp"

using namespace arbolito;

namespace {

Branch cylinder(int parent, double parent_x, int tag, double x0, double len, double r) {
    Branch b;
    b.parent = parent;
    b.parent_x = parent_x;
    b.tag = tag;
    b.xyz = {{x0, 0, 0}, {x0 + len, 0, 0}};
    b.radius = {r, r};
    return b;
}

// A soma (0) with one dendrite (1) on its x = 1, which continues into 2 (a joint of one
// child); 2 forks into 3 (a tip) and 4; 4 continues into 5 (a tip). Folded under
// zero_area fold: the root's x = 0 node (one child), the ends of 0 and 1 (one child each),
// the tips of 3 and 5; the fork at 2's end stays, and 4's end stays where a point sits on it.
Morphology hand_tree() {
    Morphology m;
    m.source = "hand tree";
    m.branches.push_back(cylinder(-1, 1.0, tag_soma, 0, 10, 5));
    m.branches.push_back(cylinder(0, 1.0, tag_dend, 10, 100, 1));
    m.branches.push_back(cylinder(1, 1.0, tag_dend, 110, 80, 0.8));
    m.branches.push_back(cylinder(2, 1.0, tag_dend, 190, 60, 0.5));
    m.branches.push_back(cylinder(2, 1.0, tag_dend, 190, 70, 0.6));
    m.branches.push_back(cylinder(4, 1.0, tag_dend, 260, 50, 0.4));
    return m;
}

CvPolicy folding(CvPolicy p) {
    p.zero_area = CvPolicy::fold;
    return p;
}

// One implicit Euler step's matrix of a discretisation (cm 1 µF/cm², dt 0.025 ms): the
// diagonal holds each CV's capacitance over dt and its axial conductances.
Eigen::MatrixXd step_matrix(const CellCvs& c) {
    const int n = c.size();
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i) {
        a(i, i) += 1e-5 * c.area[i] / 0.025;
        if (c.parent[i] < 0) continue;
        const int p = c.parent[i];
        a(i, i) += c.g_axial[i];
        a(p, p) += c.g_axial[i];
        a(i, p) -= c.g_axial[i];
        a(p, i) -= c.g_axial[i];
    }
    return a;
}

// The step matrices' condition numbers of both layouts, summed: the κ of the runs' bounds.
double kappa_of(const CellCvs& k, const CellCvs& f) {
    double kappa = 0;
    for (const CellCvs* c : {&k, &f}) {
        const Eigen::JacobiSVD<Eigen::MatrixXd> svd(step_matrix(*c));
        kappa += svd.singularValues()(0) / svd.singularValues()(c->size() - 1);
    }
    return kappa;
}

// Per CV of `from`, the CV of `to` at the same (branch, position), or -1.
std::vector<int> same_nodes(const CellCvs& from, const CellCvs& to) {
    std::map<std::pair<int, double>, int> at;
    for (int i = 0; i < to.size(); ++i) at[{to.branch[i], to.pos[i]}] = i;
    std::vector<int> out(from.size(), -1);
    for (int i = 0; i < from.size(); ++i) {
        const auto it = at.find({from.branch[i], from.pos[i]});
        if (it != at.end()) out[i] = it->second;
    }
    // The root's x = 0 node shares (0, 0) with no centre node: found only where it stays.
    return out;
}

}  // namespace

TEST(ZeroAreaFold, HandTreeCountsAndConductances) {
    const Morphology m = hand_tree();
    const CvPolicy keep{CvPolicy::nseg, 2, 0};
    const std::vector<double> ra(m.branches.size(), 100.0);
    const std::vector<Location> kept{{4, 1.0}, {1, 0.5}};  // a synapse on 4's end, one inside 1
    const CellCvs k = discretize(m, keep, ra, kept);
    const CellCvs f = discretize(m, folding(keep), ra, kept);
    ASSERT_EQ(k.size(), 1 + 6 * 3);
    // Gone: the root's node, the ends of 0, 1, 3 and 5.
    ASSERT_EQ(f.size(), k.size() - 5);
    EXPECT_EQ(count_cvs(m, folding(keep), kept), f.size());
    EXPECT_EQ(cv_tree(m, folding(keep), kept).parent, f.parent);
    const FoldedJunctions fj = folded_junctions(m, kept);
    EXPECT_TRUE(fj.root);
    EXPECT_EQ(fj.end, (std::vector<char>{1, 1, 0, 1, 0, 1}));
    EXPECT_EQ(fj.count(), 5);
    // Nothing on 4's end: it has one child and folds too.
    EXPECT_EQ(folded_junctions(m, {}).count(), 6);
    EXPECT_EQ(count_cvs(m, folding(keep)), k.size() - 6);

    for (int b : {0, 1, 3, 5}) EXPECT_EQ(f.end_cv[b], -1) << b;
    for (int b : {2, 4}) EXPECT_GE(f.end_cv[b], 0) << b;
    EXPECT_EQ(f.start_cv[0], -1);
    EXPECT_EQ(f.start_cv[2], -1);  // 2 attaches at 1's folded end
    EXPECT_EQ(f.start_cv[3], f.end_cv[2]);
    EXPECT_THROW(f.locate(1, 1.0), std::logic_error);
    EXPECT_THROW(f.locate(2, 0.0), std::logic_error);
    EXPECT_EQ(f.locate(4, 1.0), f.end_cv[4]);
    EXPECT_EQ(f.locate(3, 0.0), f.end_cv[2]);
    EXPECT_EQ(f.branch[f.locate(2, 0.3)], 2);

    // The root is branch 0's first centre node; the order stays natural.
    EXPECT_EQ(f.parent[0], -1);
    EXPECT_EQ(f.first_cv[0], 0);
    for (int i = 1; i < f.size(); ++i) EXPECT_LT(f.parent[i], i);

    // Every CV that stays keeps its area; its conductance is the keep layout's, or where
    // its parent was a folded joint, the series conductance of the two edges it replaces.
    const std::vector<int> to = same_nodes(k, f);
    for (int i = 0; i < k.size(); ++i) {
        if (to[i] < 0) continue;
        const int j = to[i];
        EXPECT_EQ(f.area[j], k.area[i]);
        const int p = k.parent[i];
        if (p < 0 || to[p] >= 0) {
            EXPECT_EQ(f.g_axial[j], k.g_axial[i]) << "CV " << i;
            if (p >= 0) EXPECT_EQ(f.parent[j], to[p]);
        } else if (k.parent[p] < 0) {  // the folded root's child
            EXPECT_EQ(f.parent[j], -1);
            EXPECT_EQ(f.g_axial[j], 0.0);
        } else {
            const double g1 = k.g_axial[p], g2 = k.g_axial[i];
            EXPECT_EQ(f.g_axial[j], g1 * g2 / (g1 + g2)) << "CV " << i;
            EXPECT_EQ(f.parent[j], to[k.parent[p]]);
        }
    }
    // The series conductances, by hand: branch 2's first node hangs on 1's last centre node.
    const int k_end1 = k.end_cv[1], k_first2 = k.first_cv[2];
    EXPECT_EQ(f.parent[f.first_cv[2]], f.first_cv[1] + 1);
    EXPECT_DOUBLE_EQ(f.g_axial[f.first_cv[2]],
                     1.0 / (1.0 / k.g_axial[k_end1] + 1.0 / k.g_axial[k_first2]));
}

// The root's x = 0 node stays where a second branch attaches there, or a point sits there.
TEST(ZeroAreaFold, RootStaysWithTwoChildrenOrAPoint) {
    Morphology m = hand_tree();
    EXPECT_FALSE(folded_junctions(m, {{0, 0.0}}).root);
    EXPECT_FALSE(folded_junctions(m, {{1, 1.0}}).end[1]);
    m.branches.push_back(cylinder(0, 0.0, tag_axon, -30, 30, 0.5));
    EXPECT_FALSE(folded_junctions(m, {}).root);
    const CellCvs f = discretize(m, folding({CvPolicy::nseg, 1, 0}), std::vector<double>(m.branches.size(), 100.0));
    EXPECT_EQ(f.start_cv[0], 0);
    EXPECT_EQ(f.parent[f.first_cv[6]], 0);
}

// One implicit Euler step on the hand tree, both ways, solved densely: the voltages of the
// CVs that stay agree to rounding. Both solves are backward stable, so each is off the
// exact solution by at most about κ·ε·|v| (κ: the 2-norm condition number); the bound
// allows 16 times that for each of the two.
TEST(ZeroAreaFold, OneStepSolvesAgree) {
    const Morphology m = hand_tree();
    const CvPolicy keep{CvPolicy::nseg, 3, 0};
    const std::vector<double> ra(m.branches.size(), 150.0);
    const CellCvs k = discretize(m, keep, ra), f = discretize(m, folding(keep), ra);
    const Eigen::MatrixXd ak = step_matrix(k), af = step_matrix(f);
    // rhs: capacitance over dt times a voltage that varies along the cell, plus a current
    // into one centre node (the zero-area nodes carry none: their row's rhs is 0).
    Eigen::VectorXd bk(k.size()), bf(f.size());
    auto rhs = [](const CellCvs& c, int i) {
        return 1e-5 * c.area[i] / 0.025 * (-65.0 + 10.0 * c.pos[i] + c.branch[i]) + (c.branch[i] == 3 && c.pos[i] < 0.5 ? 0.1 : 0.0);
    };
    for (int i = 0; i < k.size(); ++i) bk[i] = rhs(k, i);
    for (int i = 0; i < f.size(); ++i) bf[i] = rhs(f, i);
    const Eigen::VectorXd vk = ak.partialPivLu().solve(bk), vf = af.partialPivLu().solve(bf);
    const auto cond = [](const Eigen::MatrixXd& a) {
        const Eigen::JacobiSVD<Eigen::MatrixXd> svd(a);
        return svd.singularValues()(0) / svd.singularValues()(svd.singularValues().size() - 1);
    };
    const double eps = std::numeric_limits<double>::epsilon();
    const double bound = 16 * (cond(ak) + cond(af)) * eps * vk.cwiseAbs().maxCoeff();
    const std::vector<int> to = same_nodes(k, f);
    double worst = 0;
    int compared = 0;
    for (int i = 0; i < k.size(); ++i) {
        if (to[i] < 0) continue;
        worst = std::max(worst, std::abs(vk[i] - vf[to[i]]));
        ++compared;
    }
    EXPECT_EQ(compared, f.size());
    EXPECT_LE(worst, bound) << "condition numbers " << cond(ak) << ", " << cond(af);
    // A folded tip's voltage is its neighbour's; a folded joint's lies between its two.
    EXPECT_NEAR(vk[k.end_cv[3]], vk[k.end_cv[3] - 1], bound);
}

namespace {

// An Allen cell (Pvalb, its own axon), CVs by odd_per_length 40 (the Allen rule): pas
// everywhere, and hh everywhere where `active` (a train of spikes); a current step into
// the soma's middle, a probe there and one on a tip (whose node then stays), a detector
// on the soma.
Model allen_cell(bool active, CvPolicy::ZeroArea zero_area) {
    auto morph = std::make_shared<Morphology>(read_swc(test_data("morphologies/Pvalb_470522102_m.swc")));
    Model m;
    CellDesc c;
    c.morphology = morph;
    c.policy.kind = CvPolicy::odd_per_length;
    c.policy.extent = 40.0;
    c.policy.zero_area = zero_area;
    c.v_init = -65.0;
    c.cm[-1] = 1.0;
    c.ra[-1] = 100.0;
    c.paints.push_back({-1, "pas", resolve_params("pas", {{"g", 1e-4}, {"e", -65.0}})});
    if (active) c.paints.push_back({-1, "hh", resolve_params("hh", {})});
    c.stimuli.push_back({{0, 0.5}, "iclamp", resolve_params("iclamp", {{"delay", 5}, {"dur", 40}, {"amp", active ? 1.0 : 0.2}})});
    c.probes.push_back({false, {0, 0.5}, {}});
    const int tip = static_cast<int>(morph->branches.size()) - 1;  // the last branch: no children
    c.probes.push_back({false, {tip, 1.0}, {}});
    c.detectors.push_back({{0, 0.5}, -10.0});
    m.cells.push_back(std::move(c));
    m.run.dt = 0.025;
    m.run.tfinal = 60;
    m.run.sample_dt = 0.5;
    return m;
}

}  // namespace

// A whole cell, keep against fold: the CVs that stay end the run at the same voltage up to
// rounding. Each step's solve is backward stable: off by about κ·ε·|v| (κ: the step
// matrix's condition number, computed here; the membrane conductances, left out, only add
// to its diagonal), and the passive cell's implicit Euler step is a contraction, so the
// rounding of the steps adds up at most linearly: steps · (κ_keep + κ_fold) · ε · 100 mV
// (about 2e-6 mV here). With hh, a perturbation δ of v moves a spike by δ over the
// upstroke's slope at threshold (above 10 mV/ms) and the trace by at most the steepest
// slope (below 500 mV/ms) times that: 50 δ; the spike times move by under δ / 10 mV/ms.
TEST(ZeroAreaFold, WholeCellRunsAgree) {
    for (bool active : {false, true}) {
        const Model mk = allen_cell(active, CvPolicy::keep), mf = allen_cell(active, CvPolicy::fold);
        const CellCvs k = discretize_cell(mk.cells[0]), f = discretize_cell(mf.cells[0]);
        ASSERT_LT(f.size(), k.size());
        const double kappa = kappa_of(k, f);
        const double steps = mk.run.tfinal / mk.run.dt;
        const double drift = steps * kappa * std::numeric_limits<double>::epsilon() * 100.0;
        const double bound = active ? 50 * drift : drift;
        SimOptions o;
        Simulation sk(mk, o), sf(mf, o);
        const test_models::RunResult rk = test_models::run_to_end(sk), rf = test_models::run_to_end(sf);
        ASSERT_EQ(rk.v_end.size(), static_cast<std::size_t>(k.size()));
        ASSERT_EQ(rf.v_end.size(), static_cast<std::size_t>(f.size()));
        const std::vector<int> to = same_nodes(k, f);
        double worst = 0;
        for (int i = 0; i < k.size(); ++i)
            if (to[i] >= 0) worst = std::max(worst, std::abs(rk.v_end[i] - rf.v_end[to[i]]));
        EXPECT_LE(worst, bound) << (active ? "hh" : "passive");
        // The probes' columns (the soma's middle, the kept tip's node) all along the run.
        ASSERT_EQ(rk.rec.rows.size(), rf.rec.rows.size());
        double worst_sample = 0;
        for (std::size_t s = 0; s < rk.rec.rows.size(); ++s)
            worst_sample = std::max(worst_sample, std::abs(rk.rec.rows[s] - rf.rec.rows[s]));
        EXPECT_LE(worst_sample, bound) << (active ? "hh" : "passive");
        ASSERT_EQ(rk.rec.spikes_seen.size(), rf.rec.spikes_seen.size());
        if (active) EXPECT_GE(rk.rec.spikes_seen.size(), 3u);
        for (std::size_t s = 0; s < rk.rec.spikes_seen.size(); ++s)
            EXPECT_NEAR(rk.rec.spikes_seen[s].time, rf.rec.spikes_seen[s].time, drift / 10.0);
        std::cout << (active ? "hh" : "passive") << ": " << k.size() << " CVs kept, " << f.size()
                  << " folded; largest difference at the end " << worst << " mV, in the samples " << worst_sample
                  << " mV (bound " << bound << "); " << rk.rec.spikes_seen.size() << " spikes\n";
    }
}

// The memory estimate counts the CVs fold leaves, and a model file's bad value is named.
TEST(ZeroAreaFold, EstimateCountsFoldedCvs) {
    const Model mf = allen_cell(false, CvPolicy::fold);
    EXPECT_EQ(model_size(mf).cvs, static_cast<double>(discretize_cell(mf.cells[0]).size()));
    EXPECT_EQ(count_cell_cvs(mf.cells[0]), discretize_cell(mf.cells[0]).size());
}

// The model file's key: keep by default, fold where asked, anything else named.
TEST(ZeroAreaFold, ReaderKeyAndBadValue) {
    auto read = [](const std::string& discretization) {
        return parse_model(R"({"cells": [{"morphology": {"builder": "ball_and_stick"}, "discretization": )" +
                               discretization + "}]}",
                           "m.json");
    };
    EXPECT_EQ(read(R"({"policy": "nseg"})").cells[0].policy.zero_area, CvPolicy::keep);
    EXPECT_EQ(read(R"({"policy": "nseg", "zero_area": "keep"})").cells[0].policy.zero_area, CvPolicy::keep);
    const Model m = read(R"({"policy": "nseg", "n": 3, "zero_area": "fold"})");
    EXPECT_EQ(m.cells[0].policy.zero_area, CvPolicy::fold);
    // Ball and stick: the root's node and the dendrite's tip go; the soma's end, where the
    // dendrite attaches, has one child and goes too.
    EXPECT_EQ(discretize_cell(m.cells[0]).size(), 1 + 2 * 4 - 3);
    for (const char* bad : {R"("drop")", "1", "true"}) {
        try {
            read(std::string(R"({"policy": "nseg", "zero_area": )") + bad + "}");
            FAIL() << bad << " was accepted";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("cells[0].discretization.zero_area"), std::string::npos) << e.what();
        }
    }
}

// Every policy: count_cvs, cv_tree and discretize agree on the folded CVs, the order stays
// natural (parent[i] < i), and only zero-area nodes went (the areas sum to keep's).
TEST(ZeroAreaFold, EveryPolicyCountsTheSame) {
    std::vector<Morphology> shapes{hand_tree(), read_swc(test_data("morphologies/ca1_pyramidal_n120.swc"))};
    for (std::uint64_t gid : {0, 3, 7}) shapes.push_back(busyring_cell(gid, {}));
    for (const Morphology& m : shapes)
        for (CvPolicy p : {CvPolicy{CvPolicy::nseg, 3, 0}, CvPolicy{CvPolicy::max_extent, 1, 10.0},
                           CvPolicy{CvPolicy::every_segment, 1, 0}, CvPolicy{CvPolicy::odd_per_length, 1, 40.0}}) {
            const std::vector<double> ra(m.branches.size(), 100.0);
            const CellCvs k = discretize(m, p, ra), f = discretize(m, folding(p), ra);
            EXPECT_EQ(count_cvs(m, folding(p)), f.size()) << m.source << " " << p.describe();
            EXPECT_EQ(cv_tree(m, folding(p)).parent, f.parent) << m.source;
            EXPECT_EQ(k.size() - f.size(), folded_junctions(m, {}).count()) << m.source;
            double ak = 0, af = 0;
            for (double a : k.area) ak += a;
            for (double a : f.area) af += a;
            EXPECT_NEAR(af, ak, 1e-12 * ak) << m.source;
            ASSERT_EQ(f.parent[0], -1);
            for (int i = 1; i < f.size(); ++i) ASSERT_LT(f.parent[i], i) << m.source;
        }
}

// Busyring's network key: every cell folds its tips (fewer CVs), a bad value is named, and
// a ring of 16 cells (events between them) gives the kept layout's spikes, their times
// within WholeCellRunsAgree's bound for a cell with spikes (50·steps·κ·ε·100 mV over 10).
TEST(ZeroAreaFold, BusyringNetworkKey) {
    const auto read = [](const std::string& z) {
        return parse_model(R"({"network": {"builder": "busyring", "num-cells": 16, "synapses": 4, "ring-size": 4,
                                "min-delay": 5, "depth": 5, "duration": 60, "event-weight": 0.2, "zero-area": )" +
                               z + "}}",
                           "m.json");
    };
    const Model mk = read(R"("keep")"), mf = read(R"("fold")");
    long kept = 0, folded = 0;
    for (std::size_t g = 0; g < mk.cells.size(); ++g) {
        EXPECT_EQ(mk.cells[g].policy.zero_area, CvPolicy::keep);
        EXPECT_EQ(mf.cells[g].policy.zero_area, CvPolicy::fold);
        kept += count_cell_cvs(mk.cells[g]);
        folded += count_cell_cvs(mf.cells[g]);
    }
    EXPECT_LT(folded, kept);
    const double kappa = kappa_of(discretize_cell(mk.cells[0]), discretize_cell(mf.cells[0]));
    const double drift = mk.run.tfinal / mk.run.dt * kappa * std::numeric_limits<double>::epsilon() * 100.0;
    SimOptions o;
    Simulation sk(mk, o), sf(mf, o);
    const test_models::RunResult rk = test_models::run_to_end(sk), rf = test_models::run_to_end(sf);
    ASSERT_GE(rk.rec.spikes_seen.size(), 16u);
    ASSERT_EQ(rk.rec.spikes_seen.size(), rf.rec.spikes_seen.size());
    double worst = 0;
    for (std::size_t s = 0; s < rk.rec.spikes_seen.size(); ++s) {
        EXPECT_EQ(rk.rec.spikes_seen[s].gid, rf.rec.spikes_seen[s].gid);
        worst = std::max(worst, std::abs(rk.rec.spikes_seen[s].time - rf.rec.spikes_seen[s].time));
    }
    const double bound = 50 * drift / 10.0;  // ms
    EXPECT_LE(worst, bound);
    std::cout << "busyring 16: " << kept << " CVs kept, " << folded << " folded; " << rk.rec.spikes_seen.size()
              << " spikes, largest time difference " << worst << " ms (bound " << bound << ")\n";
    for (const char* bad : {R"("drop")", "1"}) {
        try {
            read(bad);
            FAIL() << bad << " was accepted";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("network.zero-area"), std::string::npos) << e.what();
        }
    }
}
