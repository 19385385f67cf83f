// The host half of gpu-fine's epoch-resident step (gpu/resident_plan): every
// instance, detector, probe and target belongs to exactly one block, and each block's
// staged arrays fit its budget without overlapping, in the documented order.
#include <algorithm>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lowered_cell/cell_group.hpp"
#include "lowered_cell/fvm_data.hpp"
#include "gpu/resident_plan.hpp"
#include "io/model_reader.hpp"
#include "model/network_builders.hpp"
#include "mechanisms/catalogue.hpp"
#include "solvers/fine_layout.hpp"

using namespace arbolito;

namespace {

struct Built {
    FvmData f;
    FineSchedule s;
};

Built build(const Model& m, int block_cvs, int edd_rows = 0) {
    Built b;
    FineOptions o;
    o.block_cvs = block_cvs;
    o.edd_rows = edd_rows;
    b.f = build_fvm(m, 0, m.cells.size(), [&](const std::vector<std::vector<int>>& np) {
        FineNumbering n = fine_layout(np, o);
        b.s = std::move(n.schedule);
        return std::move(n.layout);
    });
    return b;
}

Model ring_of(std::uint64_t cells, int depth) {
    Model m;
    BusyringNetwork p;
    p.num_cells = cells;
    p.synapses = 3;
    p.min_delay = 5;
    p.ring_size = 4;
    p.record = true;
    p.cell.depth = depth;
    build_busyring(m, p);
    return m;
}

void check_plan(const Built& b, const ResidentPlan& p, int budget) {
    const FineSchedule& s = b.s;
    ASSERT_EQ(p.blocks.size(), s.blocks.size());
    for (int x = 0; x < n_mechanisms; ++x) {  // instances: consecutive runs covering all
        int next = 0;
        for (std::size_t k = 0; k < p.blocks.size(); ++k) {
            const ResidentBlock& rb = p.blocks[k];
            EXPECT_EQ(rb.inst_begin[x], next);
            for (int i = rb.inst_begin[x]; i < rb.inst_begin[x] + rb.inst_n[x]; ++i) {
                EXPECT_GE(b.f.mechs[x].cv[i], s.blocks[k].first_cv);
                EXPECT_LT(b.f.mechs[x].cv[i], s.blocks[k].first_cv + s.blocks[k].n_cv);
            }
            next += rb.inst_n[x];
        }
        EXPECT_EQ(next, b.f.mechs[x].size());
    }
    int dets = 0;
    std::vector<int> probes_seen(b.f.probe_cv.size(), 0);
    for (std::size_t k = 0; k < p.blocks.size(); ++k) {
        const ResidentBlock& rb = p.blocks[k];
        EXPECT_EQ(rb.det_begin, dets);
        for (int j = rb.det_begin; j < rb.det_begin + rb.det_n; ++j)
            EXPECT_EQ(b.f.detector_cv[j] - s.blocks[k].first_cv >= 0 &&
                          b.f.detector_cv[j] < s.blocks[k].first_cv + s.blocks[k].n_cv,
                      true);
        dets += rb.det_n;
        for (int j = rb.probe_begin; j < rb.probe_begin + rb.probe_n; ++j) {
            ++probes_seen[p.probe_col[j]];
            EXPECT_EQ(p.probe_cv[j] + s.blocks[k].first_cv, b.f.probe_cv[p.probe_col[j]]);
        }
        // Staged arrays: inside [0, data_bytes), disjoint, 8-aligned, within the budget.
        std::vector<std::pair<int, int>> spans;
        for (int a = 0; a < res_n_arrays; ++a)
            if (rb.offset[a] >= 0) {
                const int n = a >= res_mech0 && a < res_ion0 ? rb.inst_n[a - res_mech0] : 0;
                spans.push_back(
                    {rb.offset[a], rb.offset[a] + static_cast<int>(resident_array_bytes(a, s.blocks[k], n))});
                EXPECT_EQ(rb.offset[a] % 8, 0);
            }
        std::sort(spans.begin(), spans.end());
        for (std::size_t i = 1; i < spans.size(); ++i) EXPECT_LE(spans[i - 1].second, spans[i].first);
        if (!spans.empty()) EXPECT_LE(spans.back().second, rb.data_bytes);
        EXPECT_LE(rb.data_bytes + FineSchedule::schedule_bytes(s.blocks[k]), budget);
        EXPECT_LE(rb.data_bytes + FineSchedule::schedule_bytes(s.blocks[k]), p.shared_bytes);
    }
    EXPECT_EQ(dets, static_cast<int>(b.f.detector_cv.size()));
    for (int c : probes_seen) EXPECT_EQ(c, 1);
    for (std::size_t t = 0; t < p.target_block.size(); ++t) {
        const int cv = b.f.mechs[b.f.target_mech[t]].cv[b.f.target_instance[t]];
        const auto& blk = s.blocks[p.target_block[t]];
        EXPECT_GE(cv, blk.first_cv);
        EXPECT_LT(cv, blk.first_cv + blk.n_cv);
    }
}

}  // namespace

TEST(ResidentPlan, EverythingOwnedOnceAndWithinBudget) {
    const Model m = ring_of(24, 4);
    for (int block : {1, 300, 100000})
        for (int budget : {8 * 1024, 16 * 1024, 110 * 1024}) {
            SCOPED_TRACE("block " + std::to_string(block) + " budget " + std::to_string(budget));
            const Built b = build(m, block);
            check_plan(b, resident_plan(b.f, b.s, budget), budget);
        }
}

// A generous budget stages everything; a tight one keeps rhs first (the solve's chain
// runs on it) and leaves the rest in device memory, in ResidentArray order.
TEST(ResidentPlan, StagingOrder) {
    const Built b = build(ring_of(4, 3), 1);
    const ResidentPlan all = resident_plan(b.f, b.s, 200 * 1024);
    EXPECT_EQ(all.staged_bytes, all.total_bytes);
    for (const ResidentBlock& rb : all.blocks)
        for (int a = 0; a < res_mech0; ++a)
            if (a != res_edd_h) EXPECT_GE(rb.offset[a], 0) << a;  // h: EDD schedules' only

    const FineSchedule::Block& fb = b.s.blocks[0];
    const int only_rhs = static_cast<int>(FineSchedule::schedule_bytes(fb) + 8L * fb.n_cv);
    const ResidentPlan tight = resident_plan(b.f, b.s, only_rhs);
    EXPECT_EQ(tight.blocks[0].offset[res_rhs], 0);
    for (int a = 0; a < res_n_arrays; ++a)
        if (a != res_rhs) EXPECT_LT(tight.blocks[0].offset[a], 0) << a;  // the budget is spent
    EXPECT_LT(tight.staged_bytes, tight.total_bytes);
}

// Arbor's busyring cell (examples/busyring.json: depth 10, about 1,700 CVs) with its 1,001
// synapses, at gpu-fine's resident defaults (74 KiB, blocks of 74 · 16 CVs, a cell never
// split): every block plans, owning its cells' 1,001 expsyn each; what does not fit the
// budget stays in device memory (expsyn's 28 KB a cell, behind the per-CV arrays).
// Coalesced (the builder's default), the blocks own fewer instances, all of them.
// An EDD schedule (gpu-fine's edd): its scratch (three doubles a junction beside the
// folds) and its h (the CVs before the runs without a junction below) staged in their turn, every plan invariant kept, and h of no size
// where the schedule is the level loop's.
TEST(ResidentPlan, EddScratch) {
    const Model m = ring_of(6, 4);
    const Built edd = build(m, 2000, 8), levels = build(m, 2000);
    for (const auto* b : {&edd, &levels}) {
        const ResidentPlan all = resident_plan(b->f, b->s, 200 * 1024);
        check_plan(*b, all, 200 * 1024);
        EXPECT_EQ(all.staged_bytes, all.total_bytes);
        const FineSchedule::Block& fb = b->s.blocks[0];
        EXPECT_EQ(resident_array_bytes(res_edd_h, fb, 0), fb.edd ? 8L * fb.h_cvs : 0L);
        if (fb.edd) EXPECT_LT(fb.h_cvs, fb.n_cv);  // the runs without a junction below take no h
        // EDD: the folds' pad slot and three doubles a junction
        EXPECT_EQ(resident_array_bytes(res_fold, fb, 0),
                  16L * fb.n_branches + (fb.edd ? 16L + 24L * fb.n_junctions : 0L));
        if (fb.edd) EXPECT_GE(all.blocks[0].offset[res_edd_h], 0);
        const ResidentPlan tight = resident_plan(b->f, b->s, 24 * 1024);
        check_plan(*b, tight, 24 * 1024);
    }
    EXPECT_GT(edd.s.blocks[0].n_junctions, 0);
}

TEST(ResidentPlan, ArborsBusyringSynapses) {
    Model m;
    BusyringNetwork p;
    p.num_cells = 6;
    p.synapses = 1000;  // and, by default, 1,000 unconnected synapses a cell
    p.ring_size = 3;
    p.coalesce_synapses = false;
    build_busyring(m, p);
    const int budget = 74 * 1024;
    const Built b = build(m, 74 * 16);
    const ResidentPlan plan = resident_plan(b.f, b.s, budget);
    check_plan(b, plan, budget);
    const int x = find_mechanism("expsyn")->index;
    for (std::size_t k = 0; k < plan.blocks.size(); ++k) {
        const ResidentBlock& rb = plan.blocks[k];
        const int cells = rb.det_n;  // one detector a cell
        EXPECT_EQ(rb.inst_n[x], 1001 * cells) << "block " << k;
        std::cout << "[ info     ] block " << k << ": " << cells << " cell(s), " << b.s.blocks[k].n_cv << " CVs, "
                  << rb.inst_n[x] << " expsyn " << (rb.offset[res_mech0 + x] >= 0 ? "staged" : "in device memory")
                  << "; " << rb.data_bytes << " bytes staged\n";
    }
    Model mc;
    p.coalesce_synapses = true;
    build_busyring(mc, p);
    const Built bc = build(mc, 74 * 16);
    const ResidentPlan pc = resident_plan(bc.f, bc.s, budget);
    check_plan(bc, pc, budget);
    long owned = 0;
    for (const ResidentBlock& rb : pc.blocks) {
        EXPECT_LT(rb.inst_n[x], 1001 * rb.det_n);
        owned += rb.inst_n[x];
    }
    EXPECT_EQ(owned, bc.f.mechs[x].size());
}

// Busyring's cells differ in size (one a block here): the kernel launches every block
// once, in the schedule's order but for the `slots` cheapest, which come last, costliest
// of them first; the estimate is the solve's chain of rows plus the CVs per thread. Blocks
// of several cells keep the schedule's order.
TEST(ResidentPlan, CheapestBlocksLaunchLast) {
    const Built b = build(ring_of(40, 8), 1);  // blocks of one cell each
    const FineSchedule& s = b.s;
    const int nb = s.n_blocks();
    ASSERT_EQ(nb, 40);
    std::vector<double> cost(nb);
    for (int k = 0; k < nb; ++k) cost[k] = resident_block_cost(s, s.blocks[k]);
    std::vector<int> all(nb);
    std::iota(all.begin(), all.end(), 0);
    ASSERT_NE(*std::min_element(cost.begin(), cost.end()), *std::max_element(cost.begin(), cost.end()));
    for (int slots : {0, 1, 7, 40, 100}) {
        SCOPED_TRACE(slots);
        const std::vector<int> order = resident_launch_order(s, slots);
        std::vector<int> seen(order);
        std::sort(seen.begin(), seen.end());
        EXPECT_EQ(seen, all);  // a permutation
        const int last = std::min(slots, nb), head = nb - last;
        for (int k = 1; k < head; ++k) EXPECT_LT(order[k - 1], order[k]);  // the schedule's order
        for (int k = head + 1; k < nb; ++k) EXPECT_GE(cost[order[k - 1]], cost[order[k]]);  // then by cost
        for (int k = 0; k < head; ++k)  // no block of the head is cheaper than one of the tail
            for (int j = head; j < nb; ++j) EXPECT_GE(cost[order[k]], cost[order[j]]);
    }
    EXPECT_EQ(resident_launch_order(s, 0), all);
    long roots = 0;
    for (int p : s.parent_cv) roots += p < 0;
    EXPECT_EQ(roots, 40);  // one a cell
    // Blocks of several cells (here 8 of about 5 cells) keep the schedule's order.
    const Built packed = build(ring_of(40, 8), 5 * s.blocks[0].n_cv);
    ASSERT_LT(packed.s.n_blocks(), 27);
    std::vector<int> identity(packed.s.n_blocks());
    std::iota(identity.begin(), identity.end(), 0);
    EXPECT_EQ(resident_launch_order(packed.s, 4), identity);
    // One block's cost by hand: its levels' longest branches plus its CVs per thread.
    const FineSchedule::Block& b0 = s.blocks[0];
    double chain = 0;
    for (int l = 0; l < b0.n_levels; ++l) chain += s.levels[b0.level0 + l].positions;
    EXPECT_DOUBLE_EQ(cost[0], chain + static_cast<double>(b0.n_cv) / b0.threads);
}

// The measured orders: each block's cycles stand for its cost. The last `last` are the
// cheapest, costliest of them first, the rest in index order; ties go to the lower index
// (it stays ahead). Longest first sorts every block.
TEST(ResidentPlan, MeasuredOrders) {
    const std::vector<double> cycles{5, 1, 9, 1, 7, 3, 9, 2};
    EXPECT_EQ(cheapest_last_order(cycles, 0), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(cheapest_last_order(cycles, 3), (std::vector<int>{0, 2, 4, 5, 6, 7, 1, 3}));
    EXPECT_EQ(cheapest_last_order(cycles, 4), (std::vector<int>{0, 2, 4, 6, 5, 7, 1, 3}));
    EXPECT_EQ(cheapest_last_order(cycles, 8), (std::vector<int>{2, 6, 4, 0, 5, 7, 1, 3}));
    EXPECT_EQ(cheapest_last_order(cycles, 100), cheapest_last_order(cycles, 8));
    EXPECT_EQ(costliest_first_order(cycles), (std::vector<int>{2, 6, 4, 0, 5, 7, 1, 3}));
    EXPECT_TRUE(cheapest_last_order({}, 5).empty());
}

TEST(ResidentPlan, ScheduleOverBudgetRejected) {
    const Built b = build(ring_of(2, 4), 100000);
    EXPECT_THROW(resident_plan(b.f, b.s, 64), std::invalid_argument);
}

// The resident kernel samples step n into row frame_after(n) - first_frame_from(b) of its
// piece [b, e): rows 0, 1, 2, ... in step order, as the streaming step counts them.
TEST(ResidentPlan, FrameRowsOfAPiece) {
    for (long sps : {1L, 3L, 4L, 40L})
        for (long n_frames : {0L, 5L, 1000L}) {
            StepSettings s;
            s.steps_per_sample = sps;
            s.n_frames = n_frames;
            for (long b : {0L, 1L, 2L, 39L, 40L, 117L})
                for (long len : {1L, 2L, 100L}) {
                    long row = 0;
                    for (long n = b; n < b + len; ++n)
                        if (const long f = s.frame_after(n); f >= 0) EXPECT_EQ(f - s.first_frame_from(b), row++)
                            << "sps " << sps << " frames " << n_frames << " piece " << b << " step " << n;
                }
        }
}

// Ions (tests/data/ions/three_cells_ions.json: na and ca, cai written on every CV): each
// block's share of every species' Nernst list is its own CVs' run, together the whole list
// once; the species' four arrays are staged after the per-CV arrays where they fit, never
// for species the group lacks; the probes' sources follow their columns, a state's
// instance numbered within its block.
TEST(ResidentPlan, IonsNernstRangesAndStaging) {
    if (!find_mechanism("test_cad")) GTEST_SKIP() << "built without ARBOLITO_TEST_MECHANISMS";
    const Model m = read_model(std::string(ARBOLITO_SOURCE_DIR) + "/tests/data/ions/three_cells_ions.json");
    for (int block : {1, 100000}) {
        SCOPED_TRACE("block " + std::to_string(block));
        const Built b = build(m, block);
        const int nq = static_cast<int>(b.f.ions.size());
        ASSERT_EQ(nq, 2);
        const ResidentPlan p = resident_plan(b.f, b.s, 110 * 1024);
        check_plan(b, p, 110 * 1024);
        ASSERT_EQ(p.nernst_range.size(), 2 * p.blocks.size() * nq);
        for (int q = 0; q < nq; ++q) {
            const std::vector<int>& cv = b.f.ions[q].nernst_cv;
            int next = 0;
            for (std::size_t k = 0; k < p.blocks.size(); ++k) {
                const int r0 = p.nernst_range[2 * (k * nq + q)], r1 = p.nernst_range[2 * (k * nq + q) + 1];
                EXPECT_EQ(r0, next);
                for (int j = r0; j < r1; ++j) {
                    EXPECT_GE(cv[j], b.s.blocks[k].first_cv);
                    EXPECT_LT(cv[j], b.s.blocks[k].first_cv + b.s.blocks[k].n_cv);
                }
                next = r1;
            }
            EXPECT_EQ(next, static_cast<int>(cv.size()));
        }
        EXPECT_FALSE(b.f.ions[b.f.ions[0].name == "ca" ? 0 : 1].nernst_cv.empty());
        for (const ResidentBlock& rb : p.blocks)
            for (int q = 0; q < resident_ion_species; ++q)
                for (int f = 0; f < res_ion_fields; ++f)
                    EXPECT_EQ(rb.offset[res_ion0 + res_ion_fields * q + f] >= 0, q < nq) << "species " << q << " field " << f;
        ASSERT_EQ(p.probe_source.size(), p.probe_col.size());
        EXPECT_TRUE(p.probes_read_states);
        for (std::size_t k = 0; k < p.blocks.size(); ++k)
            for (int j = p.blocks[k].probe_begin; j < p.blocks[k].probe_begin + p.blocks[k].probe_n; ++j) {
                const FvmData::ProbeSource& src = b.f.probe_source[p.probe_col[j]];
                EXPECT_EQ(p.probe_source[j].kind, src.kind);
                EXPECT_EQ(p.probe_source[j].index, src.index);
                if (src.kind == ProbeVariable::mech_state)
                    EXPECT_EQ(p.probe_source[j].instance + p.blocks[k].inst_begin[src.index], src.instance);
            }
        // A budget for the solve's and the constant per-CV arrays alone leaves the ions in device memory.
        const Built one = build(m, 100000);
        const FineSchedule::Block& fb = one.s.blocks[0];
        const int per_cv_only = static_cast<int>(FineSchedule::schedule_bytes(fb) + 16L * fb.n_branches + 7 * 8L * fb.n_cv);
        const ResidentPlan tight = resident_plan(one.f, one.s, per_cv_only);
        for (int a = res_ion0; a < res_n_arrays; ++a) EXPECT_LT(tight.blocks[0].offset[a], 0) << a;
        EXPECT_GE(tight.blocks[0].offset[res_rhs_base], 0);
    }
}
