#include "engine/fvm_data.hpp"

#include <map>
#include <stdexcept>

#include "mechanisms/catalogue.hpp"

namespace arbolito {

CellCvs discretize_cell(const CellDesc& c) {
    std::vector<double> ra;
    for (const auto& b : c.morphology->branches) ra.push_back(c.ra_of(b.tag));
    return discretize(*c.morphology, c.policy, ra);
}

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
    std::vector<std::vector<int>> parents;
    for (auto gid = gid_begin; gid < gid_end; ++gid) {
        f.gids.push_back(gid);
        f.cells.push_back(discretize_cell(m.cells.at(gid)));
        parents.push_back(f.cells.back().parent);
    }
    f.layout = make_layout(parents);
    const int n = f.layout.n_cv;
    f.cap.assign(n, 0.0);
    f.g_parent.assign(n, 0.0);
    f.g_sum.assign(n, 0.0);
    f.v_init.assign(n, 0.0);

    using Items = std::vector<std::pair<int, std::pair<double, std::vector<double>>>>;
    std::map<std::string, Items> density;
    Items expsyn, exp2syn, iclamp;
    f.target_offset.push_back(0);
    f.detector_offset.push_back(0);
    f.probe_offset.push_back(0);
    // Synapse instance numbers are known only after sorting; remember (kind, cv order key).
    std::vector<std::pair<TargetKind, int>> pending_targets;  // kind, index into expsyn/exp2syn items

    for (int c = 0; c < f.n_cells(); ++c) {
        const CellDesc& desc = m.cells.at(f.gids[c]);
        const CellCvs& cvs = f.cells[c];
        const auto& idx = f.layout.index[c];
        const auto& branches = desc.morphology->branches;
        for (int i = 0; i < cvs.size(); ++i) {
            const int L = idx[i];
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
        // Density mechanisms: a later paint of the same mechanism on a CV replaces an earlier one.
        std::map<std::string, std::map<int, std::vector<double>>> painted;
        for (const Paint& p : desc.paints) {
            for (int i = 0; i < cvs.size(); ++i) {
                if (cvs.area[i] <= 0) continue;
                if (p.tag >= 0 && branches[cvs.branch[i]].tag != p.tag) continue;
                painted[p.mechanism][i] = p.params;
            }
        }
        for (auto& [mech, per_cv] : painted)
            for (auto& [i, params] : per_cv) density[mech].push_back({idx[i], {1e-2 * cvs.area[i], params}});

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
    fill(f.hh, density["hh"]);
    fill(f.pas, density["pas"]);
    fill(f.iclamp, iclamp);

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
