#pragma once
// What a run hands out and how it crosses ranks (docs/mpi.md): once per epoch every
// rank's spikes go to every rank (in one global order) and every rank's frames to rank 0,
// whose sink receives them in gid order; at the end the run's report is reduced over ranks.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <vector>

#include "run/communicator.hpp"
#include "lowered_cell/spike.hpp"
#include "lowered_cell/timings.hpp"

namespace arbolito {

// The global spike order: time, then gid, then detector. Every rank sorts the gathered
// spikes this way before turning them into events, so that events reach each synapse in
// the same order whatever the number of ranks, threads or groups (docs/mpi.md); the
// output lists them in this order.
bool spike_before(const Spike& a, const Spike& b);

// Receives what the run records, once per epoch, in gid order. With several ranks only
// rank 0's sink is called: it receives every rank's frames and spikes (the output is one
// file written by rank 0; docs/mpi.md says why). Calls come from the exchange thread.
struct RecordSink {
    virtual ~RecordSink() = default;
    virtual void frames(const double* rows, std::size_t n_frames) = 0;
    virtual void spikes(const std::vector<Spike>& s) = 0;
    virtual void epoch_done(double t) { (void)t; }
};

// Over all ranks: times are the slowest rank's (max), counts and phases are summed.
struct RunReport {
    double setup_s = 0, run_s = 0;
    double exchange_s = 0;          // time the exchange worked (spike gather, events, output)
    double exchange_exposed_s = 0;  // time the cell update waited for it
    double mpi_s = 0;               // time in MPI collectives during the run (part of exchange_s)
    PhaseTimes phases;              // summed over groups (threads and ranks run them in parallel)
    long steps = 0;
    long n_cv = 0;                  // CVs simulated (no padding)
    int ranks = 1;
    bool pipelined = true;          // whether the exchange overlapped the cell update
    std::size_t n_spikes = 0;
    std::size_t n_events = 0;       // events queued (generators and spikes through connections)
    bool stopped = false;           // ended early on request (Simulation::run's stop_requested)
    double t_end = 0;               // ms simulated: tfinal, or the epoch boundary where it stopped
};

// Copies n_frames rows of n values (one block's columns) into columns [col, col + n) of
// rows `width` values wide: blocks of columns side by side make the gid order.
inline void place_columns(const double* block, std::size_t n_frames, long n, double* rows, long width, long col) {
    for (std::size_t f = 0; f < n_frames && n > 0; ++f) std::copy_n(block + f * n, n, rows + f * width + col);
}

// One rank's side of the per-epoch exchange of spikes and frames.
class RecordExchange {
public:
    // `sink`: called on rank 0 only. n_columns: this rank's recorded columns.
    RecordExchange(Communicator& comm, RecordSink& sink, long n_columns) : comm_(comm), sink_(sink), ncol_(n_columns) {}

    // Collective. Announces `ok`, `stop` and the sizes of this rank's spikes and frame rows
    // (rows of n_columns); returns false, having done nothing else, when some rank
    // announced a failure. Else gathers every rank's spikes on every rank, sorted globally
    // (spikes()), and on rank 0 hands the frames in gid order, the spikes and `t` (the time
    // the record reaches) to the sink. A sink failure is kept (sink_error) for the next
    // exchange to announce. stop_agreed(): some rank announced `stop` (the same on all).
    bool exchange(bool ok, bool stop, const std::vector<Spike>& spikes, const std::vector<double>& rows, double t);
    const std::vector<Spike>& spikes() const { return global_; }
    bool stop_agreed() const { return stop_; }
    std::exception_ptr sink_error() const { return sink_error_; }

private:
    void to_sink(const std::vector<double>& gathered, double t);

    Communicator& comm_;
    RecordSink& sink_;
    long ncol_;
    std::vector<Spike> global_;
    std::vector<double> rows_;  // rank 0: every rank's frames in gid order
    std::exception_ptr sink_error_;
    bool stop_ = false;

    // What every rank announces at the start of an exchange (one MPI_Allgather), so that
    // the variable-sized gathers that follow know their counts and a failure anywhere
    // stops every rank at the same exchange.
    struct Header {
        std::int64_t ok;         // 0: this rank has failed
        std::int64_t n_spikes;   // spikes it hands over
        std::int64_t n_values;   // frame values it hands over (frames · columns)
        std::int64_t n_columns;  // its recorded columns
        std::int64_t stop;       // 1: this rank was asked to stop (a signal)
    };
    std::vector<Header> head_;
};

// Collective: the slowest rank's times, the sums of phases and counts (spikes are global
// already). Nothing to do on one rank.
void reduce_over_ranks(RunReport& r, Communicator& comm);

}  // namespace arbolito
