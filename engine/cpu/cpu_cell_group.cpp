#include "engine/cpu/cpu_cell_group.hpp"

#include <algorithm>

#include "mechanisms/assemble.hpp"
#include "mechanisms/exp2syn.hpp"
#include "mechanisms/expsyn.hpp"
#include "mechanisms/hh.hpp"
#include "mechanisms/iclamp.hpp"
#include "mechanisms/pas.hpp"
#include "mechanisms/threshold.hpp"
#include "solvers/hines.hpp"

namespace arbolito {

namespace {
hh::Params hh_params(const MechInstances& m, int i) {
    return {m.params[0][i], m.params[1][i], m.params[2][i], m.params[3][i], m.params[4][i], m.params[5][i]};
}
}  // namespace

CpuCellGroup::CpuCellGroup(FvmData data, const StepSettings& s) : f_(std::move(data)), s_(s), q10_(hh::q10(s.celsius)) {
    const int n = f_.n_cv();
    for (int c = 0; c < f_.n_cells(); ++c) cell_begin_.push_back(f_.layout.index[c][0]);
    cell_begin_.push_back(n);
    v_ = f_.v_init;
    d_.assign(n, 0.0);
    rhs_.assign(n, 0.0);
    u_ = axial_u(f_);
    InitialStates init = initial_states(f_, q10_);
    m_ = std::move(init.hh_m);
    h_ = std::move(init.hh_h);
    n_ = std::move(init.hh_n);
    factor_ = std::move(init.exp2syn_factor);
    tau1_ = std::move(init.exp2syn_tau1);
    g_syn_.assign(f_.expsyn.size(), 0.0);
    a_.assign(f_.exp2syn.size(), 0.0);
    b_.assign(f_.exp2syn.size(), 0.0);
    det_v_.resize(f_.detector_cv.size());

    // About 4096 CVs a chunk: ~150 bytes of state per CV keeps a chunk within L2.
    constexpr int chunk_cvs = 4096;
    auto range = [](const MechInstances& mi, int cv0, int cv1, int (&out)[2]) {
        out[0] = static_cast<int>(std::lower_bound(mi.cv.begin(), mi.cv.end(), cv0) - mi.cv.begin());
        out[1] = static_cast<int>(std::lower_bound(mi.cv.begin(), mi.cv.end(), cv1) - mi.cv.begin());
    };
    for (int c = 0; c < f_.n_cells();) {
        Chunk k{};
        k.cell_begin = c;
        k.cv_begin = cell_begin_[c];
        while (c < f_.n_cells() && (c == k.cell_begin || cell_begin_[c + 1] - k.cv_begin <= chunk_cvs)) ++c;
        k.cell_end = c;
        k.cv_end = cell_begin_[c];
        range(f_.hh, k.cv_begin, k.cv_end, k.hh);
        range(f_.pas, k.cv_begin, k.cv_end, k.pas);
        range(f_.expsyn, k.cv_begin, k.cv_end, k.expsyn);
        range(f_.exp2syn, k.cv_begin, k.cv_end, k.exp2syn);
        range(f_.iclamp, k.cv_begin, k.cv_end, k.iclamp);
        chunks_.push_back(k);
    }
    auto chunk_of_cv = [&](int cv) {
        return static_cast<int>(std::upper_bound(chunks_.begin(), chunks_.end(), cv,
                                                 [](int x, const Chunk& k) { return x < k.cv_begin; }) -
                                chunks_.begin()) - 1;
    };
    for (std::size_t t = 0; t < f_.target_kind.size(); ++t) {
        const int k = f_.target_instance[t];
        target_chunk_.push_back(chunk_of_cv(f_.target_kind[t] == TargetKind::expsyn ? f_.expsyn.cv[k] : f_.exp2syn.cv[k]));
    }
    chunk_probes_.resize(chunks_.size());
    for (std::size_t p = 0; p < f_.probe_cv.size(); ++p) chunk_probes_[chunk_of_cv(f_.probe_cv[p])].push_back(static_cast<int>(p));
    chunk_events_.resize(chunks_.size());
}

std::vector<double> CpuCellGroup::voltages() const { return natural_order(f_, v_.data()); }

void CpuCellGroup::initial_frame(std::vector<double>& frames) {
    for (int cv : f_.probe_cv) frames.push_back(v_[cv]);
}

void CpuCellGroup::advance(long step_begin, long step_end, const std::vector<StepEvent>& events,
                           std::vector<Spike>& spikes, std::vector<double>& frames) {
    // The epoch's frames: rows of every probe, filled chunk by chunk.
    long first_frame = -1, n_frames = 0;
    for (long n = step_begin; n < step_end; ++n)
        if (const long f = s_.frame_after(n); f >= 0) {
            if (first_frame < 0) first_frame = f;
            ++n_frames;
        }
    const std::size_t n_probes = f_.probe_cv.size(), base = frames.size();
    frames.resize(base + n_frames * n_probes);

    Stopwatch w;
    for (auto& e : chunk_events_) e.clear();
    for (std::size_t i = 0; i < events.size(); ++i) chunk_events_[target_chunk_[events[i].target]].push_back(static_cast<int>(i));
    times_.events += w.lap();

    for (int k = 0; k < static_cast<int>(chunks_.size()); ++k) {
        const std::vector<int>& ev = chunk_events_[k];
        std::size_t next = 0;
        Stopwatch wc;  // one clock read per phase boundary
        for (long n = step_begin; n < step_end; ++n) {
            const double t = n * s_.dt;
            for (; next < ev.size() && events[ev[next]].step == n; ++next) {
                const StepEvent& e = events[ev[next]];
                const int i = f_.target_instance[e.target];
                if (f_.target_kind[e.target] == TargetKind::expsyn)
                    expsyn::on_event(e.weight, g_syn_[i]);
                else
                    exp2syn::on_event(e.weight, factor_[i], a_[i], b_[i]);
            }
            times_.events += wc.lap();
            step_chunk(k, t, wc);
            detect_chunk(k, t, spikes);
            times_.detect += wc.lap();
            if (const long f = s_.frame_after(n); f >= 0) {
                double* row = frames.data() + base + (f - first_frame) * n_probes;
                for (int p : chunk_probes_[k]) row[p] = v_[f_.probe_cv[p]];
                times_.sample += wc.lap();
            }
        }
    }
}

void CpuCellGroup::detect_chunk(int chunk, double t, std::vector<Spike>& spikes) const {
    const Chunk& ck = chunks_[chunk];
    for (int c = ck.cell_begin; c < ck.cell_end; ++c) {
        for (auto k = f_.detector_offset[c]; k < f_.detector_offset[c + 1]; ++k) {
            const double v0 = det_v_[k], v1 = v_[f_.detector_cv[k]], th = f_.detector_threshold[k];
            if (threshold::crossed(v0, v1, th)) {
                const double ts = threshold::crossing_time(t, s_.dt, v0, v1, th, s_.rules == EventRules::neuron);
                spikes.push_back({f_.gids[c], static_cast<std::uint32_t>(k - f_.detector_offset[c]), ts});
            }
        }
    }
}

void CpuCellGroup::step_chunk(int chunk, double t, Stopwatch& w) {
    const Chunk& ck = chunks_[chunk];
    const double dt = s_.dt;

    for (int i = ck.cv_begin; i < ck.cv_end; ++i) assemble_base(f_.cap[i], f_.g_sum[i], dt, v_[i], d_[i], rhs_[i]);
    times_.assemble += w.lap();

    double i_m, g_m;
    for (int k = ck.hh[0]; k < ck.hh[1]; ++k) {
        const int cv = f_.hh.cv[k];
        hh::current(v_[cv], m_[k], h_[k], n_[k], hh_params(f_.hh, k), i_m, g_m);
        add_current(f_.hh.weight[k] * i_m, f_.hh.weight[k] * g_m, v_[cv], d_[cv], rhs_[cv]);
    }
    for (int k = ck.pas[0]; k < ck.pas[1]; ++k) {
        const int cv = f_.pas.cv[k];
        pas::current(v_[cv], {f_.pas.params[0][k], f_.pas.params[1][k]}, i_m, g_m);
        add_current(f_.pas.weight[k] * i_m, f_.pas.weight[k] * g_m, v_[cv], d_[cv], rhs_[cv]);
    }
    for (int k = ck.expsyn[0]; k < ck.expsyn[1]; ++k) {
        const int cv = f_.expsyn.cv[k];
        expsyn::current(v_[cv], g_syn_[k], {f_.expsyn.params[0][k], f_.expsyn.params[1][k]}, i_m, g_m);
        add_current(i_m, g_m, v_[cv], d_[cv], rhs_[cv]);
    }
    for (int k = ck.exp2syn[0]; k < ck.exp2syn[1]; ++k) {
        const int cv = f_.exp2syn.cv[k];
        exp2syn::current(v_[cv], a_[k], b_[k], {tau1_[k], f_.exp2syn.params[1][k], f_.exp2syn.params[2][k]}, i_m, g_m);
        add_current(i_m, g_m, v_[cv], d_[cv], rhs_[cv]);
    }
    for (int k = ck.iclamp[0]; k < ck.iclamp[1]; ++k) {
        const double amp = iclamp::current(t + 0.5 * dt, {f_.iclamp.params[0][k], f_.iclamp.params[1][k], f_.iclamp.params[2][k]});
        add_injected(amp, rhs_[f_.iclamp.cv[k]]);
    }
    times_.currents += w.lap();

    for (int c = ck.cell_begin; c < ck.cell_end; c += 4) {
        const int nc = std::min(4, ck.cell_end - c);
        if (nc == 1) {  // nothing to interleave with
            hines_solve(cell_begin_[c], cell_begin_[c + 1], f_.layout.parent.data(), d_.data(), u_.data(), rhs_.data());
            continue;
        }
        hines_solve_lockstep<4>(&cell_begin_[c], &cell_begin_[c + 1], nc, f_.layout.parent.data(), d_.data(), u_.data(),
                                rhs_.data());
    }
    times_.solve += w.lap();

    // The solution replaces v; detectors keep the voltage of the step's start.
    for (int c = ck.cell_begin; c < ck.cell_end; ++c)
        for (auto k = f_.detector_offset[c]; k < f_.detector_offset[c + 1]; ++k) det_v_[k] = v_[f_.detector_cv[k]];
    std::copy(rhs_.begin() + ck.cv_begin, rhs_.begin() + ck.cv_end, v_.begin() + ck.cv_begin);

    for (int k = ck.hh[0]; k < ck.hh[1]; ++k) hh::advance(v_[f_.hh.cv[k]], dt, q10_, m_[k], h_[k], n_[k]);
    for (int k = ck.expsyn[0]; k < ck.expsyn[1]; ++k) g_syn_[k] = expsyn::decay(g_syn_[k], dt, f_.expsyn.params[0][k]);
    for (int k = ck.exp2syn[0]; k < ck.exp2syn[1]; ++k) {
        a_[k] = expsyn::decay(a_[k], dt, tau1_[k]);
        b_[k] = expsyn::decay(b_[k], dt, f_.exp2syn.params[1][k]);
    }
    times_.states += w.lap();
}

}  // namespace arbolito
