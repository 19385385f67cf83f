#pragma once
// Per epoch, where a run's time went (`arbolito run --timeline`): each cell group's
// integration, the rank's update (its groups joined, the blow-up check), its wait for the
// exchange (exposed: all of it unpipelined), the exchange itself, and the epoch's wall time
// on the rank (one pass of the epoch loop). Every rank keeps its own when asked for
// (SimOptions::epoch_times); rank 0 gathers them, writes them and their breakdown, which
// splits each epoch's time on the rank of its slowest group into the groups' mean
// integration, the load imbalance (slowest group minus the mean over every rank's groups),
// the update's own cost beyond its slowest group, the exposed exchange and the rest.
#include <iosfwd>
#include <string>
#include <vector>

#include "run/communicator.hpp"

namespace arbolito {

struct EpochTimes {
    long step = 0;           // the epoch's first step
    double update = 0;       // s, update begin to update end (the rank's groups joined)
    double exposed = 0;      // s the update's thread waited for the exchange after it
    double exchange = 0;     // s of the exchange that ran beside the update (or after it)
    double wall = 0;         // s of the epoch loop's pass
    std::vector<double> integrate;  // s per group of the rank: its advance
};

// Every rank's epochs, [rank][epoch] (on rank 0; empty elsewhere). Collective.
std::vector<std::vector<EpochTimes>> gather_epoch_times(Communicator& comm, const std::vector<EpochTimes>& mine);

struct EpochBreakdown {
    long epochs = 0;
    int groups = 0;  // over all ranks
    // Sums over epochs, seconds; wall = integrate_mean + imbalance + update_rest + exposed + rest.
    double wall = 0, integrate_mean = 0, imbalance = 0, update_rest = 0, exposed = 0, rest = 0;
    double exchange = 0;                  // the exchange's own time (hidden or not), on the same ranks
    std::vector<double> group_integrate;  // per group (ranks in order, their groups in gid order)
};
EpochBreakdown epoch_breakdown(const std::vector<std::vector<EpochTimes>>& by_rank);
// Lines for the log.
std::vector<std::string> describe(const EpochBreakdown& b);
// CSV: epoch,step,rank,group,integrate_s,update_s,exposed_s,exchange_s,wall_s; one line
// per epoch, rank and group (the rank's columns repeated for each of its groups).
void write_epoch_csv(std::ostream& out, const std::vector<std::vector<EpochTimes>>& by_rank);

}  // namespace arbolito
