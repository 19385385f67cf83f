#include "gpu/resident_plan.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "mechanisms/catalogue.hpp"

namespace arbolito {

namespace {

long round8(long b) { return (b + 7) / 8 * 8; }

// Block of each layout CV range: blocks are contiguous and ascending.
int block_of(const FineSchedule& s, int cv) {
    const auto it = std::upper_bound(s.blocks.begin(), s.blocks.end(), cv,
                                     [](int c, const FineSchedule::Block& b) { return c < b.first_cv; });
    if (it == s.blocks.begin()) throw std::logic_error("resident_plan: CV before the first block");
    const int b = static_cast<int>(it - s.blocks.begin()) - 1;
    if (cv >= s.blocks[b].first_cv + s.blocks[b].n_cv) throw std::logic_error("resident_plan: CV outside every block");
    return b;
}

}  // namespace

long resident_array_bytes(int a, const FineSchedule::Block& b, int n_inst) {
    if (a == res_fold) return 8L * FineSchedule::fold_doubles(b);
    if (a == res_edd_h) return 8L * FineSchedule::h_doubles(b);
    if (a < res_mech0 || a >= res_ion0) return 8L * b.n_cv;
    const MechInfo& m = mechanism_infos()[a - res_mech0];
    if (m.constant_terms) return 0;
    const long doubles = (m.kind == MechKind::density ? 1 : 0) + static_cast<long>(m.params.size() + m.states.size() +
                                                                                   m.derived.size());
    return round8(n_inst * (8 * doubles + 4));
}

ResidentPlan resident_plan(const FvmData& f, const FineSchedule& s, int budget_bytes) {
    ResidentPlan p;
    const int nb = s.n_blocks();
    p.blocks.resize(nb);

    // Instances: sorted by CV, so each block's are one run.
    for (int x = 0; x < n_mechanisms; ++x) {
        const std::vector<int>& cv = f.mechs[x].cv;
        if (!std::is_sorted(cv.begin(), cv.end())) throw std::logic_error("resident_plan: instances not sorted by CV");
        for (int b = 0; b < nb; ++b) {
            const int lo = s.blocks[b].first_cv, hi = lo + s.blocks[b].n_cv;
            const auto first = std::lower_bound(cv.begin(), cv.end(), lo), last = std::lower_bound(cv.begin(), cv.end(), hi);
            p.blocks[b].inst_begin[x] = static_cast<int>(first - cv.begin());
            p.blocks[b].inst_n[x] = static_cast<int>(last - first);
        }
        long owned = 0;
        for (int b = 0; b < nb; ++b) owned += p.blocks[b].inst_n[x];
        if (owned != f.mechs[x].size()) throw std::logic_error("resident_plan: instances outside every block");
    }

    // Detectors: numbered by cell, and a block's cells are consecutive; checked.
    std::vector<int> det_block(f.detector_cv.size());
    for (std::size_t k = 0; k < det_block.size(); ++k) det_block[k] = block_of(s, f.detector_cv[k]);
    if (!std::is_sorted(det_block.begin(), det_block.end()))
        throw std::logic_error("resident_plan: detectors not grouped by block");
    for (int b = 0; b < nb; ++b) {
        const auto first = std::lower_bound(det_block.begin(), det_block.end(), b);
        const auto last = std::upper_bound(det_block.begin(), det_block.end(), b);
        p.blocks[b].det_begin = static_cast<int>(first - det_block.begin());
        p.blocks[b].det_n = static_cast<int>(last - first);
    }

    // Probes: any order; each block lists its own (column, block-local CV).
    std::vector<std::vector<int>> probes(nb);
    for (std::size_t k = 0; k < f.probe_cv.size(); ++k) probes[block_of(s, f.probe_cv[k])].push_back(static_cast<int>(k));
    for (int b = 0; b < nb; ++b) {
        p.blocks[b].probe_begin = static_cast<int>(p.probe_col.size());
        p.blocks[b].probe_n = static_cast<int>(probes[b].size());
        for (int k : probes[b]) {
            p.probe_col.push_back(k);
            p.probe_cv.push_back(f.probe_cv[k] - s.blocks[b].first_cv);
            if (f.probe_source.empty()) continue;
            const FvmData::ProbeSource& src = f.probe_source[k];
            ResidentProbeSource r{src.kind, src.index, src.state, src.instance};
            if (src.kind == ProbeVariable::mech_state) {
                r.instance -= p.blocks[b].inst_begin[src.index];
                p.probes_read_states = true;
            }
            p.probe_source.push_back(r);
        }
    }

    // Nernst CVs: each species' list is ascending, so a block's are one run.
    const int nq = static_cast<int>(f.ions.size());
    p.nernst_range.resize(2L * nb * nq);
    for (int b = 0; b < nb; ++b)
        for (int q = 0; q < nq; ++q) {
            const std::vector<int>& cv = f.ions[q].nernst_cv;
            if (!std::is_sorted(cv.begin(), cv.end())) throw std::logic_error("resident_plan: Nernst CVs not sorted");
            const int lo = s.blocks[b].first_cv, hi = lo + s.blocks[b].n_cv;
            p.nernst_range[2 * (b * nq + q)] = static_cast<int>(std::lower_bound(cv.begin(), cv.end(), lo) - cv.begin());
            p.nernst_range[2 * (b * nq + q) + 1] = static_cast<int>(std::lower_bound(cv.begin(), cv.end(), hi) - cv.begin());
        }

    // Targets: the block of the instance each leads to.
    p.target_block.resize(f.target_mech.size());
    for (std::size_t k = 0; k < p.target_block.size(); ++k)
        p.target_block[k] = static_cast<std::uint32_t>(block_of(s, f.mechs[f.target_mech[k]].cv[f.target_instance[k]]));

    // Staging, greedily in ResidentArray order (mechanisms smallest first).
    for (int b = 0; b < nb; ++b) {
        const FineSchedule::Block& fb = s.blocks[b];
        ResidentBlock& rb = p.blocks[b];
        const long schedule = FineSchedule::schedule_bytes(fb);
        if (schedule > budget_bytes)
            throw std::invalid_argument("gpu-fine step=resident: a block's schedule takes " + std::to_string(schedule) +
                                        " bytes of shared memory, more than the " + std::to_string(budget_bytes) +
                                        " allowed (use a smaller block)");
        auto bytes = [&](int a) -> long {
            if (a >= res_ion0) return (a - res_ion0) / res_ion_fields < nq ? resident_array_bytes(a, fb, 0) : 0;
            return resident_array_bytes(a, fb, a >= res_mech0 ? rb.inst_n[a - res_mech0] : 0);
        };
        // The per-CV arrays, the ions', then the mechanisms smallest first.
        std::vector<int> order(res_n_arrays);
        std::iota(order.begin(), order.begin() + res_mech0, 0);
        std::iota(order.begin() + res_mech0, order.begin() + res_mech0 + (res_n_arrays - res_ion0), int{res_ion0});
        std::iota(order.begin() + res_mech0 + (res_n_arrays - res_ion0), order.end(), int{res_mech0});
        std::stable_sort(order.begin() + res_mech0 + (res_n_arrays - res_ion0), order.end(),
                         [&](int a, int c) { return bytes(a) < bytes(c); });
        long used = 0;
        for (int a : order) {
            const long need = bytes(a);
            rb.offset[a] = -1;
            if (need == 0) continue;
            p.total_bytes += need;
            if (used + need + schedule > budget_bytes) continue;
            rb.offset[a] = static_cast<int>(used);
            used += need;
            p.staged_bytes += need;
        }
        rb.data_bytes = static_cast<int>(used);
        p.shared_bytes = std::max(p.shared_bytes, static_cast<int>(used + schedule));
    }
    return p;
}

std::vector<int> cheapest_last_order(const std::vector<double>& cost, int last) {
    const int nb = static_cast<int>(cost.size());
    last = std::clamp(last, 0, nb);
    std::vector<int> by_cost(nb);
    std::iota(by_cost.begin(), by_cost.end(), 0);
    const auto costlier = [&](int a, int c) { return cost[a] > cost[c] || (cost[a] == cost[c] && a < c); };
    // The `last` cheapest at the end, then sorted among themselves.
    std::nth_element(by_cost.begin(), by_cost.begin() + (nb - last), by_cost.end(), costlier);
    std::sort(by_cost.begin() + (nb - last), by_cost.end(), costlier);
    std::vector<char> in_last(nb, 0);
    for (int k = nb - last; k < nb; ++k) in_last[by_cost[k]] = 1;
    std::vector<int> order;
    order.reserve(nb);
    for (int b = 0; b < nb; ++b)
        if (!in_last[b]) order.push_back(b);
    order.insert(order.end(), by_cost.end() - last, by_cost.end());
    return order;
}

std::vector<int> costliest_first_order(const std::vector<double>& cost) {
    return cheapest_last_order(cost, static_cast<int>(cost.size()));  // every block in the sorted tail
}

std::vector<int> resident_launch_order(const FineSchedule& s, int slots) {
    const int nb = s.n_blocks();
    long cells = 0;  // the branches hung from no CV: one a cell
    for (int p : s.parent_cv) cells += p < 0;
    const int last = 2 * cells <= 3L * nb ? slots : 0;
    std::vector<double> cost(nb);
    for (int b = 0; b < nb; ++b) cost[b] = resident_block_cost(s, s.blocks[b]);
    return cheapest_last_order(cost, last);
}

double resident_block_cost(const FineSchedule& s, const FineSchedule::Block& b) {
    double chain = 0;
    for (int l = 0; l < b.n_levels; ++l) chain += s.levels[b.level0 + l].positions;
    return chain + static_cast<double>(b.n_cv) / std::max(b.threads, 1);
}

}  // namespace arbolito
