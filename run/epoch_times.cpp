#include "run/epoch_times.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

namespace arbolito {

std::vector<std::vector<EpochTimes>> gather_epoch_times(Communicator& comm, const std::vector<EpochTimes>& mine) {
    // Flattened: epochs, groups, then per epoch step, update, exposed, exchange, wall and
    // the groups' integration (every epoch has the rank's groups).
    std::vector<double> flat{static_cast<double>(mine.size()), mine.empty() ? 0.0 : static_cast<double>(mine[0].integrate.size())};
    for (const EpochTimes& e : mine) {
        flat.insert(flat.end(), {static_cast<double>(e.step), e.update, e.exposed, e.exchange, e.wall});
        flat.insert(flat.end(), e.integrate.begin(), e.integrate.end());
    }
    const std::vector<double> all = comm.gather(flat);
    std::vector<std::vector<EpochTimes>> out;
    for (std::size_t at = 0; at < all.size();) {
        const auto n = static_cast<std::size_t>(all[at]), ng = static_cast<std::size_t>(all[at + 1]);
        at += 2;
        std::vector<EpochTimes>& rank = out.emplace_back(n);
        for (EpochTimes& e : rank) {
            e.step = static_cast<long>(all[at]);
            e.update = all[at + 1];
            e.exposed = all[at + 2];
            e.exchange = all[at + 3];
            e.wall = all[at + 4];
            e.integrate.assign(all.begin() + static_cast<long>(at) + 5, all.begin() + static_cast<long>(at + 5 + ng));
            at += 5 + ng;
        }
    }
    return out;
}

EpochBreakdown epoch_breakdown(const std::vector<std::vector<EpochTimes>>& by_rank) {
    EpochBreakdown b;
    if (by_rank.empty()) return b;
    b.epochs = static_cast<long>(by_rank[0].size());
    for (const auto& r : by_rank) {
        // Every rank ends the run at the same epoch (Simulation::run).
        if (static_cast<long>(r.size()) != b.epochs) throw std::logic_error("epoch_breakdown: ranks of unequal epochs");
        if (!r.empty()) b.groups += static_cast<int>(r[0].integrate.size());
    }
    b.group_integrate.assign(b.groups, 0.0);
    for (long k = 0; k < b.epochs; ++k) {
        double sum = 0, slowest = -1;
        int n = 0, g = 0;
        std::size_t on = 0;  // the rank of the slowest group
        for (std::size_t r = 0; r < by_rank.size(); ++r)
            for (double s : by_rank[r][k].integrate) {
                sum += s;
                ++n;
                b.group_integrate[g++] += s;
                if (s > slowest) slowest = s, on = r;
            }
        const EpochTimes& e = by_rank[on][k];
        const double mean = n > 0 ? sum / n : 0.0;
        slowest = std::max(slowest, 0.0);
        b.wall += e.wall;
        b.integrate_mean += mean;
        b.imbalance += slowest - mean;
        b.update_rest += e.update - slowest;
        b.exposed += e.exposed;
        b.rest += e.wall - e.update - e.exposed;
        b.exchange += e.exchange;
    }
    return b;
}

std::vector<std::string> describe(const EpochBreakdown& b) {
    auto pc = [&](double s) { return b.wall > 0 ? 100 * s / b.wall : 0.0; };
    std::vector<std::string> out;
    out.push_back(fmt::format("epochs: {} of {} group(s), {:.3f} s on the rank of each epoch's slowest group", b.epochs,
                              b.groups, b.wall));
    out.push_back(fmt::format("  integration, mean group: {:.3f} s ({:.1f} %)", b.integrate_mean, pc(b.integrate_mean)));
    out.push_back(fmt::format("  load imbalance (slowest group minus mean): {:.3f} s ({:.1f} %)", b.imbalance, pc(b.imbalance)));
    out.push_back(fmt::format("  update beyond its slowest group (groups sharing a thread, join, blow-up check): {:.3f} s ({:.1f} %)", b.update_rest,
                              pc(b.update_rest)));
    out.push_back(fmt::format("  exposed exchange: {:.3f} s ({:.1f} %) of {:.3f} s exchanging", b.exposed, pc(b.exposed),
                              b.exchange));
    out.push_back(fmt::format("  rest of the epoch loop (records collected, stop agreed): {:.3f} s ({:.1f} %)", b.rest,
                              pc(b.rest)));
    std::string per = "  integration per group:";
    for (double s : b.group_integrate) per += fmt::format(" {:.3f}", s);
    out.push_back(per + " s");
    return out;
}

void write_epoch_csv(std::ostream& out, const std::vector<std::vector<EpochTimes>>& by_rank) {
    out << "epoch,step,rank,group,integrate_s,update_s,exposed_s,exchange_s,wall_s\n" << std::setprecision(9);
    const std::size_t epochs = by_rank.empty() ? 0 : by_rank[0].size();
    for (std::size_t k = 0; k < epochs; ++k)
        for (std::size_t r = 0; r < by_rank.size(); ++r) {
            const EpochTimes& e = by_rank[r][k];
            for (std::size_t g = 0; g < e.integrate.size(); ++g)
                out << k << ',' << e.step << ',' << r << ',' << g << ',' << e.integrate[g] << ',' << e.update << ','
                    << e.exposed << ',' << e.exchange << ',' << e.wall << '\n';
        }
}

}  // namespace arbolito
