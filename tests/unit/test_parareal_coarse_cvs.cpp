// Parareal with G on a coarser discretisation (coarse-cvs, parareal/cell_coarsening.hpp):
// the maps between the two lists (identity at factor 1, exact on constant and linear
// fields), K iterations still giving the sequential run bit for bit, the converged record
// within tol-derived bounds with the same spikes, and the refusals.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "parareal/cell_coarsening.hpp"
#include "lowered_cell/cell_state_map.hpp"
#include "parareal/parareal.hpp"
#include "run/simulation.hpp"
#include "io/model_reader.hpp"
#include "tests/support/parareal_runs.hpp"
#include "tests/support/test_util.hpp"

using namespace arbolito;
using parareal_test::expect_converged_within;
using parareal_test::expect_error_falls_every_iteration;
using parareal_test::expect_k_passes_give_sequential;

namespace {

// The maps of cell 0 of `m` to its `factor` times coarser discretisation, and both lists.
struct Maps {
    Coarsening maps;
    std::vector<StateValue> fine, coarse;
    CellCvs fine_cvs, coarse_cvs;
};
Maps maps_of(const Model& m, int factor) {
    const Model g = coarser_model(m, factor);
    const SolverSpec spec = parse_solver_spec("cpu");
    StepSettings st;
    auto fg = spec.solver->make_group(m, 0, 1, spec.options, st, 0);
    auto cg = spec.solver->make_group(g, 0, 1, spec.options, st, 0);
    Maps out;
    out.maps = model_coarsening(m, fg->data(), g, cg->data(), 1);
    out.fine = cell_state_values(fg->data())[0];
    out.coarse = cell_state_values(cg->data())[0];
    out.fine_cvs = discretize_cell(m.cells[0]);
    out.coarse_cvs = discretize_cell(g.cells[0]);
    return out;
}

}  // namespace

TEST(PararealCoarseCvs, CoarserPolicies) {
    CvPolicy n{CvPolicy::nseg, 200, 0};
    EXPECT_EQ(coarser_policy(n, 4).n, 50);
    EXPECT_EQ(coarser_policy(n, 3).n, 67);  // rounded up
    EXPECT_EQ(coarser_policy(CvPolicy{CvPolicy::nseg, 1, 0}, 10).n, 1);
    CvPolicy e{CvPolicy::max_extent, 1, 2.0};
    EXPECT_EQ(coarser_policy(e, 10).extent, 20.0);
    EXPECT_THROW(coarser_policy(CvPolicy{CvPolicy::every_segment, 1, 0}, 2), std::invalid_argument);
}

// Factor 1: the same CVs, so every value maps to itself with weight exactly 1 (a piece
// overlaps only itself; interpolation at a node's own position has weight 1 on it).
TEST(PararealCoarseCvs, FactorOneIsTheIdentity) {
    const Maps a = maps_of(read_model(test_data("parareal/hh_cells.json")), 1);
    ASSERT_EQ(a.fine.size(), a.coarse.size());
    for (const LinearMap* map : {&a.maps.to_coarse, &a.maps.to_fine}) {
        ASSERT_EQ(map->rows(), a.fine.size());
        for (std::size_t i = 0; i < map->rows(); ++i) {
            ASSERT_EQ(map->start[i + 1] - map->start[i], 1u) << i;
            EXPECT_EQ(map->col[map->start[i]], i);
            EXPECT_EQ(map->w[map->start[i]], 1.0);
        }
    }
}

// Factor 4 on the hh cell (v, hh gates, pas, an expsyn conductance): a constant state stays
// constant both ways (the weights of a row sum to 1: to a few ulps, 1e-14 relative), the
// synapse's conductance moves one to one, and a v linear in x along the uniform dendrite is
// exact both ways: interpolation reproduces a line, and the area-weighted mean of a line
// over equal fine pieces of equal area is its value at the coarse piece's centre (1e-12 mV
// on values of about 100 mV: sums of 4 terms).
TEST(PararealCoarseCvs, MapsKeepConstantAndLinearFields) {
    const Maps a = maps_of(read_model(test_data("parareal/hh_cells.json")), 4);
    EXPECT_EQ(a.coarse_cvs.n_pieces[1], 10);
    const std::vector<double> fine_const(a.fine.size(), 0.3), coarse_const(a.coarse.size(), 0.3);
    for (double x : a.maps.to_coarse.apply(fine_const)) EXPECT_NEAR(x, 0.3, 0.3e-14);
    for (double x : a.maps.to_fine.apply(coarse_const)) EXPECT_NEAR(x, 0.3, 0.3e-14);

    // v = -70 + 30·x on the dendrite (branch 1), -70 at the soma's far end where it attaches.
    auto line = [](const CellCvs& c, int cv) { return c.branch[cv] == 1 ? -70.0 + 30.0 * c.pos[cv] : -70.0; };
    std::vector<double> fine(a.fine.size(), 0.0), coarse(a.coarse.size(), 0.0);
    int syn_fine = -1, syn_coarse = -1;
    for (std::size_t i = 0; i < a.fine.size(); ++i) {
        if (a.fine[i].mech < 0) fine[i] = line(a.fine_cvs, a.fine[i].cv);
        if (a.fine[i].point) syn_fine = static_cast<int>(i), fine[i] = 0.0123;
    }
    for (std::size_t i = 0; i < a.coarse.size(); ++i) {
        if (a.coarse[i].mech < 0) coarse[i] = line(a.coarse_cvs, a.coarse[i].cv);
        if (a.coarse[i].point) syn_coarse = static_cast<int>(i), coarse[i] = 0.0456;
    }
    ASSERT_GE(syn_fine, 0);
    ASSERT_GE(syn_coarse, 0);
    const std::vector<double> down = a.maps.to_coarse.apply(fine), up = a.maps.to_fine.apply(coarse);
    EXPECT_EQ(down[syn_coarse], 0.0123);
    EXPECT_EQ(up[syn_fine], 0.0456);
    int checked = 0;
    for (std::size_t i = 0; i < a.coarse.size(); ++i)
        if (a.coarse[i].mech < 0 && a.coarse_cvs.branch[a.coarse[i].cv] == 1 && a.coarse_cvs.pos[a.coarse[i].cv] < 1) {
            EXPECT_NEAR(down[i], coarse[i], 1e-12) << "coarse CV " << a.coarse[i].cv;
            ++checked;
        }
    for (std::size_t i = 0; i < a.fine.size(); ++i)
        if (a.fine[i].mech < 0 && a.fine_cvs.branch[a.fine[i].cv] == 1) {
            EXPECT_NEAR(up[i], fine[i], 1e-12) << "fine CV " << a.fine[i].cv;
            ++checked;
        }
    EXPECT_EQ(checked, 10 + 41);
}

// Under zero_area fold both discretisations lose the same junction nodes (the tree decides
// which): factor 1 is still the identity, and a constant field stays constant at factor 4
// (weights summing to 1 within a few ulps, as above).
TEST(PararealCoarseCvs, FoldedZeroAreaNodes) {
    Model m = read_model(test_data("parareal/hh_cells.json"));
    for (CellDesc& c : m.cells) c.policy.zero_area = CvPolicy::fold;
    const Maps one = maps_of(m, 1);
    EXPECT_EQ(one.fine_cvs.size(), 1 + 2 * 41 - 3);  // no root node, soma end or dendrite tip
    for (const LinearMap* map : {&one.maps.to_coarse, &one.maps.to_fine}) {
        ASSERT_EQ(map->rows(), one.fine.size());
        for (std::size_t i = 0; i < map->rows(); ++i) {
            ASSERT_EQ(map->start[i + 1] - map->start[i], 1u) << i;
            EXPECT_EQ(map->col[map->start[i]], i);
            EXPECT_EQ(map->w[map->start[i]], 1.0);
        }
    }
    const Maps a = maps_of(m, 4);
    const std::vector<double> fine_const(a.fine.size(), 0.3), coarse_const(a.coarse.size(), 0.3);
    for (double x : a.maps.to_coarse.apply(fine_const)) EXPECT_NEAR(x, 0.3, 0.3e-14);
    for (double x : a.maps.to_fine.apply(coarse_const)) EXPECT_NEAR(x, 0.3, 0.3e-14);
}

// K passes: every start is the sequential run's bit for bit whatever G is (a start that did
// not change takes F's end state as it is), so the traces are the same bits, spike times
// within 1e-12 ms (one addition, see test_parareal.cpp).
TEST(PararealCoarseCvs, KIterationsGiveTheSequentialRun) {
    for (const std::string model : {"passive_cable", "hh_cells"}) {
        const PararealReport rep =
            expect_k_passes_give_sequential(read_model(test_data("parareal/" + model + ".json")), "cpu",
                                            "parareal:slices=8,tol=1e-300,coarse-cvs=4", 8, 2, 0.0, 1e-12, model);
        EXPECT_LT(rep.n_cv_coarse * 3, rep.n_cv) << model;
    }
}

// The error falls with every iteration, to 0 at K (as with G on the fine CVs; the coarse
// CVs make G a worse approximation of F, not a different fixed point).
TEST(PararealCoarseCvs, ErrorFallsWithEveryIteration) {
    for (const std::string model : {"passive_cable", "hh_cells"})
        expect_error_falls_every_iteration(read_model(test_data("parareal/" + model + ".json")), "cpu",
                                           "parareal:slices=6,tol=1e-300,coarse-cvs=4", 6, 2, model);
}

// Converged at tol: the bounds of test_parareal.cpp's ConvergedTracesWithinTolBounds hold
// with the same reasoning: the measured contraction per iteration near convergence is below
// 0.1 here too (printed), so |U_j − U*| <= tol/(1 − 0.1) < 1.2·tol on the passive cable,
// and 10·tol on the hh cells (a spike's upstroke amplifies a start error); the same spikes.
TEST(PararealCoarseCvs, ConvergedTracesWithinTolBounds) {
    const double tol = 1e-6;
    struct Case {
        std::string model;
        double bound;
    };
    for (const Case& c : {Case{"passive_cable", 1.2 * tol}, Case{"hh_cells", 10 * tol}}) {
        const PararealReport rep =
            expect_converged_within(read_model(test_data("parareal/" + c.model + ".json")), "cpu",
                                    "parareal:slices=8,tol=1e-6,coarse-cvs=4", 8, 2, tol, c.bound, c.model);
        for (std::size_t i = 1; i < rep.change.size(); ++i)
            std::printf("%s: change %zu %.3g (ratio %.3g)\n", c.model.c_str(), i, rep.change[i],
                        rep.change[i] / rep.change[i - 1]);
        const double last_ratio = rep.change.size() > 1 ? rep.change.back() / rep.change[rep.change.size() - 2] : 0;
        EXPECT_LT(last_ratio, 0.1) << c.model;
    }
}

TEST(PararealCoarseCvs, Refusals) {
    auto error = [](auto f) -> std::string {
        try {
            f();
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return "";
    };
    EXPECT_NE(error([] { parse_time_parallel("parareal:coarse-cvs=0"); }).find("coarse-cvs=0: must be at least 1"),
              std::string::npos);
    EXPECT_NE(error([] { parse_time_parallel("parareal:coarse-cvs=2.5"); }).find("coarse-cvs=2.5: expected a whole"),
              std::string::npos);
    EXPECT_EQ(parse_time_parallel("parareal:coarse-cvs=10").coarse_cvs, 10);
    EXPECT_EQ(parse_time_parallel("parareal").coarse_cvs, 1);
    Model m = read_model(test_data("parareal/passive_cable.json"));
    m.cells[0].policy.kind = CvPolicy::every_segment;
    PararealSettings p;
    p.coarse_cvs = 2;
    EXPECT_NE(error([&] { check_time_parallel(m, p, true); }).find("coarse-cvs=2: cell 0 has every_segment"),
              std::string::npos);
    p.coarse_cvs = 1;
    EXPECT_EQ(error([&] { check_time_parallel(m, p, true); }), "");
}
