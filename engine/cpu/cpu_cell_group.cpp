#include "engine/cpu/cpu_cell_group.hpp"

#include <algorithm>
#include <cmath>

#include "mechanisms/assemble.hpp"
#include "mechanisms/instance.hpp"
#include "mechanisms/instance_currents.hpp"
#include "mechanisms/threshold.hpp"
#include "solvers/hines.hpp"

namespace arbolito {

CpuCellGroup::CpuCellGroup(FvmData data, const StepSettings& s)
    : f_(std::move(data)), s_(s), globals_(all_mechanisms::globals(s.celsius)) {
    const int n = f_.n_cv();
    for (int c = 0; c < f_.n_cells(); ++c) cell_begin_.push_back(f_.layout.index[c][0]);
    cell_begin_.push_back(n);
    v_ = f_.v_init;
    blown_up_ = first_blown_up(f_);
    d_.assign(n, 0.0);
    rhs_.assign(n, 0.0);
    u_ = axial_u(f_);
    mech_ = initial_states(f_, globals_);
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
        for (int x = 0; x < n_mechanisms; ++x) range(f_.mechs[x], k.cv_begin, k.cv_end, k.instances[x]);
        chunks_.push_back(k);
    }
    auto chunk_of_cv = [&](int cv) {
        return static_cast<int>(std::upper_bound(chunks_.begin(), chunks_.end(), cv,
                                                 [](int x, const Chunk& k) { return x < k.cv_begin; }) -
                                chunks_.begin()) - 1;
    };
    for (std::size_t t = 0; t < f_.target_mech.size(); ++t)
        target_chunk_.push_back(chunk_of_cv(f_.mechs[f_.target_mech[t]].cv[f_.target_instance[t]]));
    chunk_probes_.resize(chunks_.size());
    for (std::size_t p = 0; p < f_.probe_cv.size(); ++p) chunk_probes_[chunk_of_cv(f_.probe_cv[p])].push_back(static_cast<int>(p));
    chunk_events_.resize(chunks_.size());
}

MechColumns CpuCellGroup::columns(int x) {
    const MechInstances& mi = f_.mechs[x];
    return {mi.size(), mi.cv.data(), mi.weight.data(), mi.params.data(), mech_[x].states.data(), mech_[x].derived.data()};
}

void CpuCellGroup::deliver(const StepEvent& e) {
    const int x = f_.target_mech[e.target], k = f_.target_instance[e.target];
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        if constexpr (M::kind == MechKind::synapse) {
            if (x != mech_index<M>) return;
            const MechColumns m = columns(x);
            Instance<M> in(m, k);
            M::on_event(e.weight, in.p.v, in.s.v, in.c.v);
            in.store_states(m, k);
        }
    });
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

    blown_up_ = {};
    for (int k = 0; k < static_cast<int>(chunks_.size()); ++k) {
        const std::vector<int>& ev = chunk_events_[k];
        std::size_t next = 0;
        Stopwatch wc;  // one clock read per phase boundary
        for (long n = step_begin; n < step_end; ++n) {
            const double t = n * s_.dt;
            for (; next < ev.size() && events[ev[next]].step == n; ++next) deliver(events[ev[next]]);
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
        // Once per chunk and epoch, while its v is in cache: chunks run in CV order, so
        // the first hit is the lowest index.
        if (!blown_up_)
            for (int i = chunks_[k].cv_begin; i < chunks_[k].cv_end; ++i)
                if (blown_up(v_[i])) {
                    blown_up_ = {i, v_[i]};
                    break;
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

    // Mechanism after mechanism, in list order: the order of the additions to d and rhs.
    const double t_mid = t + 0.5 * dt;
    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        constexpr int x = mech_index<M>;
        const MechColumns m = columns(x);
        const auto& gl = std::get<x>(globals_);
        for (int k = ck.instances[x][0]; k < ck.instances[x][1]; ++k) {
            const int cv = m.cv[k];
            if constexpr (M::kind == MechKind::density) {
                add_density_current<M>(m, k, v_[cv], t_mid, gl, d_[cv], rhs_[cv]);
            } else {
                const Instance<M> in(m, k);
                double i_m, g_m;
                M::current(v_[cv], t_mid, gl, in.p.v, in.s.v, in.c.v, i_m, g_m);
                if constexpr (M::kind == MechKind::synapse)
                    add_current(i_m, g_m, v_[cv], d_[cv], rhs_[cv]);
                else
                    add_injected(i_m, rhs_[cv]);
            }
        }
    });
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

    all_mechanisms::for_each([&](auto tag) {
        using M = typename decltype(tag)::type;
        constexpr int x = mech_index<M>;
        if constexpr (n_states<M> > 0) {
            const MechColumns m = columns(x);
            for (int k = ck.instances[x][0]; k < ck.instances[x][1]; ++k) {
                Instance<M> in(m, k);
                M::advance(v_[m.cv[k]], dt, std::get<x>(globals_), in.p.v, in.s.v, in.c.v);
                in.store_states(m, k);
            }
        }
    });
    times_.states += w.lap();
}

}  // namespace arbolito
