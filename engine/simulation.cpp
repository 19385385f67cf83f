#include "engine/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <future>
#include <stdexcept>

#include <omp.h>

namespace arbolito {

namespace {

// Contiguous gid ranges with about equal CV counts.
std::vector<std::uint64_t> split_cells(const Model& m, int parts) {
    const std::uint64_t n = m.cells.size();
    std::vector<double> cvs(n);
    double total = 0;
    for (std::uint64_t g = 0; g < n; ++g) total += cvs[g] = discretize_cell(m.cells[g]).size();
    std::vector<std::uint64_t> first{0};
    double acc = 0;
    for (std::uint64_t g = 0; g < n; ++g) {
        acc += cvs[g];
        const int done = static_cast<int>(first.size());
        if (done < parts && acc >= total * done / parts && g + 1 < n) first.push_back(g + 1);
    }
    first.push_back(n);
    return first;
}

}  // namespace

long Simulation::delivery_step(double t, double dt, EventRules rules) {
    // The small margins absorb rounding in t/dt for times meant to sit on the grid.
    if (rules == EventRules::neuron) return std::max(0L, static_cast<long>(std::ceil(t / dt - 0.5 - 1e-9)));
    return std::max(0L, static_cast<long>(std::floor(t / dt + 1e-9)));
}

Simulation::Simulation(const Model& m, const SimOptions& o) : model_(m), opt_(o) {
    Stopwatch w;
    const RunSettings& r = m.run;
    steps_.dt = r.dt;
    steps_.celsius = r.celsius;
    steps_.rules = r.rules;
    steps_.steps_per_sample = std::max(1L, std::lround(r.sample_dt / r.dt));
    steps_.n_frames = o.record_samples ? std::lround(r.tfinal / r.sample_dt) : 0;
    n_steps_ = std::lround(r.tfinal / r.dt);

    double min_delay = 0;
    for (const auto& c : m.connections) min_delay = min_delay == 0 ? c.delay : std::min(min_delay, c.delay);
    epoch_steps_ = min_delay > 0 ? std::max(1L, static_cast<long>(std::floor(min_delay / 2 / r.dt + 1e-9)))
                                 : std::max(1L, std::lround(10.0 / r.dt));

    const int parts = o.solver == "omp" ? std::max(1, std::min<int>(m.cells.size(), 4 * o.threads)) : 1;
    const auto first = split_cells(m, parts);
    for (std::size_t g = 0; g + 1 < first.size(); ++g) {
        groups_.push_back(make_cell_group(m, first[g], first[g + 1], o.solver, o.layout, steps_));
        group_first_gid_.push_back(first[g]);
    }
    setup_s_ = w.lap();
}

Simulation::~Simulation() = default;

long Simulation::n_columns() const {
    long n = 0;
    for (const auto& g : groups_) n += g->n_columns();
    return n;
}

RunReport Simulation::run(RecordSink& sink, const std::function<void(double)>& progress) {
    RunReport rep;
    rep.setup_s = setup_s_;
    Stopwatch total;
    const int ng = n_groups();
    const double dt = steps_.dt;

    // Connections sorted by source so that a spike finds its fan-out by binary search.
    std::vector<Connection> conns = model_.connections;
    std::sort(conns.begin(), conns.end(), [](const Connection& a, const Connection& b) {
        return a.source != b.source ? a.source < b.source : a.detector < b.detector;
    });

    std::vector<std::vector<StepEvent>> pending(ng), current(ng), next(ng);
    auto locate = [&](std::uint64_t gid, std::uint32_t syn, int& g) {
        g = static_cast<int>(std::upper_bound(group_first_gid_.begin(), group_first_gid_.end(), gid) - group_first_gid_.begin()) - 1;
        return groups_[g]->data().target_offset[gid - group_first_gid_[g]] + syn;
    };
    auto push_event = [&](std::uint64_t gid, std::uint32_t syn, double time, double weight) {
        int g;
        const std::uint32_t lid = locate(gid, syn, g);
        pending[g].push_back({delivery_step(time, dt, steps_.rules), time, lid, weight});
        ++rep.n_events;
    };
    for (const auto& gen : model_.generators)
        for (double t : gen.times) push_event(gen.target, gen.synapse, t, gen.weight);

    // Move the pending events due before step `end` into `out`, sorted.
    auto prepare = [&](long end, std::vector<std::vector<StepEvent>>& out) {
        for (int g = 0; g < ng; ++g) {
            auto& p = pending[g];
            const auto mid = std::partition(p.begin(), p.end(), [end](const StepEvent& e) { return e.step < end; });
            out[g].assign(p.begin(), mid);
            p.erase(p.begin(), mid);
            std::sort(out[g].begin(), out[g].end());
        }
    };
    std::vector<Spike> prev_spikes;
    auto exchange = [&](long next_end) {
        Stopwatch w;
        sink.spikes(prev_spikes);
        rep.n_spikes += prev_spikes.size();
        for (const Spike& s : prev_spikes) {
            auto it = std::lower_bound(conns.begin(), conns.end(), s, [](const Connection& c, const Spike& sp) {
                return c.source != sp.gid ? c.source < sp.gid : c.detector < sp.source;
            });
            for (; it != conns.end() && it->source == s.gid && it->detector == s.source; ++it)
                push_event(it->target, it->synapse, s.time + it->delay, it->weight);
        }
        if (next_end > 0) prepare(next_end, next);
        rep.exchange_s += w.lap();
    };

    // Frame 0, then epochs.
    std::vector<std::vector<double>> frames(ng);
    std::vector<std::vector<Spike>> spikes(ng);
    std::vector<double> rows;
    const long ncol = n_columns();
    auto emit_frames = [&]() {
        std::size_t nf = 0;
        for (int g = 0; g < ng; ++g)
            if (groups_[g]->n_columns() > 0) nf = frames[g].size() / groups_[g]->n_columns();
        if (ncol == 0 || nf == 0) return;
        rows.resize(nf * ncol);
        long col = 0;
        for (int g = 0; g < ng; ++g) {
            const int gc = groups_[g]->n_columns();
            for (std::size_t f = 0; f < nf; ++f)
                std::copy_n(frames[g].data() + f * gc, gc, rows.data() + f * ncol + col);
            col += gc;
            frames[g].clear();
        }
        sink.frames(rows.data(), nf);
    };
    if (steps_.n_frames > 0) {
        for (int g = 0; g < ng; ++g) groups_[g]->initial_frame(frames[g]);
        emit_frames();
    }

    prepare(std::min(epoch_steps_, n_steps_), current);
    for (long b = 0; b < n_steps_; b += epoch_steps_) {
        const long e = std::min(b + epoch_steps_, n_steps_);
        const long next_end = e < n_steps_ ? std::min(e + epoch_steps_, n_steps_) : 0;
        std::future<void> ex;
        if (opt_.pipeline) ex = std::async(std::launch::async, exchange, next_end);
#pragma omp parallel for schedule(dynamic, 1) num_threads(opt_.threads)
        for (int g = 0; g < ng; ++g) groups_[g]->advance(b, e, current[g], spikes[g], frames[g]);
        Stopwatch wait;
        if (opt_.pipeline) ex.get(); else exchange(next_end);
        rep.exchange_exposed_s += opt_.pipeline ? wait.lap() : 0;
        prev_spikes.clear();
        for (auto& s : spikes) {
            prev_spikes.insert(prev_spikes.end(), s.begin(), s.end());
            s.clear();
        }
        std::sort(prev_spikes.begin(), prev_spikes.end(), [](const Spike& a, const Spike& b) {
            if (a.time != b.time) return a.time < b.time;
            return a.gid != b.gid ? a.gid < b.gid : a.source < b.source;
        });
        emit_frames();
        std::swap(current, next);
        sink.epoch_done(e * dt);
        if (progress) progress(e * dt);
    }
    exchange(0);
    if (!opt_.pipeline) rep.exchange_exposed_s = rep.exchange_s;

    rep.run_s = total.lap();
    rep.steps = n_steps_;
    for (const auto& g : groups_) {
        rep.phases += g->times();
        for (const auto& c : g->data().cells) rep.n_cv += c.size();
    }
    return rep;
}

}  // namespace arbolito
