#include "engine/fvm_data.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <stdexcept>

#include "core/parallel_for.hpp"
#include "mechanisms/catalogue.hpp"

namespace arbolito {

CellCvs discretize_cell(const CellDesc& c) {
    std::vector<double> ra;
    for (const auto& b : c.morphology->branches) ra.push_back(c.ra_of(b.tag));
    return discretize(*c.morphology, c.policy, ra);
}

int count_cell_cvs(const CellDesc& c) { return count_cvs(*c.morphology, c.policy); }

namespace {

// Appends instances sorted by layout CV; params given per instance in catalogue order.
void fill(MechInstances& mi, std::vector<std::pair<int, std::pair<double, std::vector<double>>>> items) {
    std::stable_sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& [cv, wp] : items) {
        mi.cv.push_back(cv);
        mi.weight.push_back(wp.first);
        if (mi.params.empty()) mi.params.resize(wp.second.size());
        for (std::size_t k = 0; k < wp.second.size(); ++k) mi.params[k].push_back(wp.second[k]);
    }
}

}  // namespace

FvmData build_fvm(const Model& m, std::uint64_t gid_begin, std::uint64_t gid_end, const LayoutMaker& make_layout) {
    FvmData f;
    const int nc = static_cast<int>(gid_end - gid_begin);
    f.gids.resize(nc);
    // The natural discretisation is needed only here: the groups keep the flat arrays.
    std::vector<CellCvs> cells(nc);
    std::vector<std::vector<int>> parents(nc);
    // Cells are independent: discretise them in parallel (a big network has millions of CVs).
    parallel_for(nc, 16, [&](long c) {
        f.gids[c] = gid_begin + c;
        cells[c] = discretize_cell(m.cells.at(f.gids[c]));
        parents[c] = cells[c].parent;
    });
    f.layout = make_layout(parents);
    std::vector<std::vector<int>>().swap(parents);
    const int n = f.layout.n_cv;
    f.cap.assign(n, 0.0);
    f.g_parent.assign(n, 0.0);
    f.g_sum.assign(n, 0.0);
    f.v_init.assign(n, 0.0);

    // Per-CV arrays and density mechanisms, cell by cell in parallel (a cell's CVs are its
    // own). Density instances are first marked per layout CV (which paint of the cell
    // won), then listed in CV order: each CV holds at most one instance of a mechanism, so
    // CV order is the order a sort by CV gave, with no per-CV allocation.
    const std::vector<std::string> density_names{"hh", "pas"};
    // Scratch of n ints each, first touched in parallel (a serial fill of gigabytes of
    // fresh pages costs seconds). owner and natural are read only where a paint is marked.
    constexpr long block = 1 << 16;
    const long n_blocks = (n + block - 1) / block;
    auto scratch = [&](bool marked_none) {
        std::unique_ptr<int[]> a(new int[std::max(1, n)]);
        if (marked_none) parallel_for(n_blocks, 1, [&](long b) {
            std::fill(a.get() + b * block, a.get() + std::min<long>(n, (b + 1) * block), -1);
        });
        return a;
    };
    std::vector<std::unique_ptr<int[]>> paint_at;
    for (std::size_t k = 0; k < density_names.size(); ++k) paint_at.push_back(scratch(true));
    const std::unique_ptr<int[]> owner = scratch(false), natural = scratch(false);  // cell, natural CV of a layout CV
    parallel_for(nc, 16, [&](long c) {
        const CellDesc& desc = m.cells[f.gids[c]];
        const CellCvs& cvs = cells[c];
        const auto& idx = f.layout.index[c];
        const auto& branches = desc.morphology->branches;
        for (int i = 0; i < cvs.size(); ++i) {
            const int L = idx[i];
            owner[L] = c;
            natural[L] = i;
            const int tag = branches[cvs.branch[i]].tag;
            f.cap[L] = 1e-5 * desc.cm_of(tag) * cvs.area[i];
            f.v_init[L] = desc.v_init;
            if (cvs.parent[i] >= 0) {
                const int P = idx[cvs.parent[i]];
                f.g_parent[L] = cvs.g_axial[i];
                f.g_sum[L] += cvs.g_axial[i];
                f.g_sum[P] += cvs.g_axial[i];
            }
        }
        // A later paint of the same mechanism on a CV replaces an earlier one.
        for (std::size_t pi = 0; pi < desc.paints.size(); ++pi) {
            const Paint& p = desc.paints[pi];
            const auto k = std::find(density_names.begin(), density_names.end(), p.mechanism) - density_names.begin();
            if (k == static_cast<long>(density_names.size())) continue;
            for (int i = 0; i < cvs.size(); ++i) {
                if (cvs.area[i] <= 0) continue;
                if (p.tag >= 0 && branches[cvs.branch[i]].tag != p.tag) continue;
                paint_at[k][idx[i]] = static_cast<int>(pi);
            }
        }
    });
    MechInstances* density[] = {&f.hh, &f.pas};
    for (std::size_t k = 0; k < density_names.size(); ++k) {
        // Blocks of CVs count their instances, then write them from their offsets.
        const int* at = paint_at[k].get();
        std::vector<std::size_t> first(n_blocks + 1, 0);
        parallel_for(n_blocks, 1, [&](long b) {
            first[b + 1] = std::count_if(at + b * block, at + std::min<long>(n, (b + 1) * block), [](int p) { return p >= 0; });
        });
        for (long b = 0; b < n_blocks; ++b) first[b + 1] += first[b];
        const std::size_t count = first[n_blocks];
        if (count == 0) continue;
        MechInstances& mi = *density[k];
        mi.cv.resize(count);
        mi.weight.resize(count);
        int some = 0;  // a CV with an instance: the mechanism's parameter count
        while (at[some] < 0) ++some;
        mi.params.assign(m.cells[f.gids[owner[some]]].paints[at[some]].params.size(), std::vector<double>(count));
        parallel_for(n_blocks, 1, [&](long b) {
            std::size_t j = first[b];
            for (long L = b * block; L < std::min<long>(n, (b + 1) * block); ++L) {
                if (at[L] < 0) continue;
                const int c = owner[L];
                const std::vector<double>& params = m.cells[f.gids[c]].paints[at[L]].params;
                mi.cv[j] = static_cast<int>(L);
                mi.weight[j] = 1e-2 * cells[c].area[natural[L]];
                for (std::size_t q = 0; q < mi.params.size(); ++q) mi.params[q][j] = params.at(q);
                ++j;
            }
        });
        paint_at[k].reset();
    }

    using Items = std::vector<std::pair<int, std::pair<double, std::vector<double>>>>;
    Items expsyn, exp2syn, iclamp;
    f.target_offset.push_back(0);
    f.detector_offset.push_back(0);
    f.probe_offset.push_back(0);
    // Synapse instance numbers are known only after sorting; remember (kind, cv order key).
    std::vector<std::pair<TargetKind, int>> pending_targets;  // kind, index into expsyn/exp2syn items

    for (int c = 0; c < f.n_cells(); ++c) {
        const CellDesc& desc = m.cells.at(f.gids[c]);
        const CellCvs& cvs = cells[c];
        const auto& idx = f.layout.index[c];
        for (const Placement& s : desc.synapses) {
            const int L = idx[cvs.locate(s.where.branch, s.where.x)];
            if (s.mechanism == "expsyn") {
                pending_targets.push_back({TargetKind::expsyn, static_cast<int>(expsyn.size())});
                expsyn.push_back({L, {1.0, s.params}});
            } else {
                pending_targets.push_back({TargetKind::exp2syn, static_cast<int>(exp2syn.size())});
                exp2syn.push_back({L, {1.0, s.params}});
            }
        }
        f.target_offset.push_back(f.target_offset.back() + desc.synapses.size());
        for (const Placement& s : desc.stimuli) iclamp.push_back({idx[cvs.locate(s.where.branch, s.where.x)], {1.0, s.params}});
        for (const Detector& d : desc.detectors) {
            f.detector_cv.push_back(idx[cvs.locate(d.where.branch, d.where.x)]);
            f.detector_threshold.push_back(d.threshold);
        }
        f.detector_offset.push_back(f.detector_offset.back() + desc.detectors.size());
        for (const Probe& p : desc.probes) {
            auto add_column = [&](int i) {
                f.probe_cv.push_back(idx[i]);
                f.probe_element.push_back(cvs.branch[i]);
                f.probe_pos.push_back(static_cast<float>(cvs.pos[i]));
            };
            if (p.all_cvs) {
                for (int i = 0; i < cvs.size(); ++i)
                    if (cvs.area[i] > 0) add_column(i);
            } else {
                add_column(cvs.locate(p.where.branch, p.where.x));
            }
        }
        f.probe_offset.push_back(f.probe_cv.size());
    }
    fill(f.iclamp, std::move(iclamp));

    // Synapses: sort by CV, then translate each target to its sorted instance.
    auto sort_points = [](Items& items, MechInstances& mi) {
        std::vector<int> order(items.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return items[a].first < items[b].first; });
        std::vector<int> rank(items.size());
        Items sorted;
        for (std::size_t r = 0; r < order.size(); ++r) {
            rank[order[r]] = static_cast<int>(r);
            sorted.push_back(items[order[r]]);
        }
        fill(mi, sorted);
        return rank;
    };
    const auto rank_exp = sort_points(expsyn, f.expsyn);
    const auto rank_exp2 = sort_points(exp2syn, f.exp2syn);
    for (const auto& [kind, k] : pending_targets) {
        f.target_kind.push_back(kind);
        f.target_instance.push_back(kind == TargetKind::expsyn ? rank_exp[k] : rank_exp2[k]);
    }
    return f;
}

}  // namespace arbolito
