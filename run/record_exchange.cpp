#include "run/record_exchange.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace arbolito {

bool spike_before(const Spike& a, const Spike& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.gid != b.gid ? a.gid < b.gid : a.source < b.source;
}

bool RecordExchange::exchange(bool ok, bool stop, const std::vector<Spike>& spikes, const std::vector<double>& rows,
                              double t) {
    const Header mine{ok ? 1 : 0, static_cast<std::int64_t>(spikes.size()), static_cast<std::int64_t>(rows.size()), ncol_,
                      stop ? 1 : 0};
    head_ = comm_.all_gather(mine);
    std::vector<std::size_t> n_spikes, n_values;
    bool all_ok = true;
    std::size_t any_spikes = 0, any_values = 0;
    for (const auto& h : head_) {
        all_ok = all_ok && h.ok != 0;
        stop_ = stop_ || h.stop != 0;
        n_spikes.push_back(h.n_spikes);
        n_values.push_back(h.n_values);
        any_spikes += h.n_spikes;
        any_values += h.n_values;
    }
    if (!all_ok) return false;
    global_ = any_spikes ? comm_.all_gather_v(spikes, n_spikes) : std::vector<Spike>{};
    std::sort(global_.begin(), global_.end(), spike_before);
    const std::vector<double> gathered = any_values ? comm_.gather_v(rows, n_values) : std::vector<double>{};
    if (comm_.is_root()) {
        try {
            to_sink(gathered, t);
        } catch (...) {
            if (!sink_error_) sink_error_ = std::current_exception();
        }
    }
    return true;
}

void RecordExchange::to_sink(const std::vector<double>& gathered, double t) {
    if (!gathered.empty()) {
        long ncol_all = 0, nf = -1;
        int holders = 0;  // ranks that record columns
        for (const auto& h : head_) {
            ncol_all += h.n_columns;
            if (h.n_columns > 0) {
                const long f = h.n_values / h.n_columns;
                if (nf >= 0 && f != nf) throw std::logic_error("ranks recorded different numbers of frames");
                nf = f;
                ++holders;
            }
        }
        if (holders == 1) {
            sink_.frames(gathered.data(), nf);  // one rank's rows are all columns already
        } else {
            // Rank r's rows hold its columns; side by side they are the gid order.
            rows_.resize(nf * ncol_all);
            std::size_t at = 0;
            long col = 0;
            for (const auto& h : head_) {
                place_columns(gathered.data() + at, nf, h.n_columns, rows_.data(), ncol_all, col);
                at += h.n_values;
                col += h.n_columns;
            }
            sink_.frames(rows_.data(), nf);
        }
    }
    sink_.spikes(global_);
    sink_.epoch_done(t);
}

void reduce_over_ranks(RunReport& rep, Communicator& comm) {
    if (comm.size() <= 1) return;
    double slowest[] = {rep.setup_s, rep.run_s, rep.exchange_s, rep.exchange_exposed_s, rep.mpi_s};
    comm.max(slowest, 5);
    rep.setup_s = slowest[0];
    rep.run_s = slowest[1];
    rep.exchange_s = slowest[2];
    rep.exchange_exposed_s = slowest[3];
    rep.mpi_s = slowest[4];
    PhaseTimes& p = rep.phases;
    double sum[] = {p.events, p.currents, p.assemble, p.solve, p.states, p.detect, p.sample, p.fused,
                    static_cast<double>(rep.n_cv), static_cast<double>(rep.n_events)};
    comm.sum(sum, 10);
    p = PhaseTimes{sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7]};
    rep.n_cv = std::lround(sum[8]);
    rep.n_events = static_cast<std::size_t>(std::llround(sum[9]));
}

}  // namespace arbolito
